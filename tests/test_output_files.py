"""Every output file (JSON, SARIF, the step summary) goes through one function: it writes
through a symlink, into a FIFO or a device in place, refuses what cannot take a file with
one line naming the option before any item runs, and leaves the permissions to the umask."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import threading
from pathlib import Path

import pytest

from ci_support import build
from pytest_memreport.outputs import files


@pytest.fixture
def base(pytester, make_repo):
    return build(pytester, make_repo)


def read_fifo(path: Path) -> tuple[threading.Thread, list[bytes]]:
    got: list[bytes] = []

    def reader():
        with open(path, "rb") as fh:
            got.append(fh.read())

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    return thread, got


@pytest.fixture
def unwritable(tmp_path):
    """A folder this process cannot write into: read-only for a user, immutable for root."""
    folder = tmp_path / "locked"
    folder.mkdir()
    if os.geteuid() == 0:
        done = subprocess.run(["chattr", "+i", str(folder)], capture_output=True)
        if done.returncode != 0:
            pytest.skip(f"root cannot make an unwritable folder here: {done.stderr.decode().strip()}")
        yield folder
        subprocess.run(["chattr", "-i", str(folder)], check=True)
    else:
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
    assert os.access(folder, os.W_OK)


# ---------------------------------------------------------------- the function itself

def test_a_new_file_gets_the_umask_and_an_existing_one_keeps_its_mode(tmp_path):
    old = os.umask(0o027)
    try:
        target = files.prepare("--memreport-json", tmp_path / "new" / "out.json", "JSON")
        assert files.write_output(target, "{}\n") == f"memreport: wrote JSON to {tmp_path / 'new' / 'out.json'}"
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new" / "out.json").stat().st_mode) == 0o640
    kept = tmp_path / "kept.json"
    kept.write_text("old")
    kept.chmod(0o604)
    files.write_output(files.prepare("--memreport-json", kept, "JSON"), "new")
    assert kept.read_text() == "new" and stat.S_IMODE(kept.stat().st_mode) == 0o604
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.json", "new"]  # no temporary left


def test_a_symlink_is_written_through_and_stays_a_symlink(tmp_path):
    real = tmp_path / "real" / "out.json"
    real.parent.mkdir()
    real.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    files.write_output(files.prepare("--memreport-json", link, "JSON"), "new")
    assert link.is_symlink() and real.read_text() == "new"
    dangling = tmp_path / "dangling.json"
    dangling.symlink_to(tmp_path / "real" / "created.json")
    files.write_output(files.prepare("--memreport-json", dangling, "JSON"), "made")
    assert dangling.is_symlink() and (tmp_path / "real" / "created.json").read_text() == "made"


def test_a_fifo_is_written_in_place_and_one_with_no_reader_is_one_line(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    target = files.prepare("--memreport-sarif", fifo, "SARIF")
    thread, got = read_fifo(fifo)
    for _ in range(200):  # the reader must have opened its end
        try:
            files.write_output(target, "x" * 200_000)  # more than a pipe holds: writes block, none is lost
            break
        except files.OutputError:
            threading.Event().wait(0.01)
    thread.join(10)
    assert got == [b"x" * 200_000] and stat.S_ISFIFO(fifo.stat().st_mode)
    with pytest.raises(files.OutputError) as exc:
        files.write_output(target, "{}")
    assert str(exc.value) == f"--memreport-sarif {fifo}: is a FIFO that no process is reading; start its reader first"


def test_a_character_device_is_written_in_place(tmp_path):
    if os.geteuid() == 0:  # a device node of our own: a wrong run replaces it, not /dev/null
        device = tmp_path / "null"
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    else:  # a user cannot replace /dev/null: the real one is safe to try
        device = Path("/dev/null")
    before = os.stat(device)
    files.write_output(files.prepare("--memreport-json", device, "JSON"), "{}\n")
    after = os.stat(device)
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev and after.st_ino == before.st_ino


def test_appending_keeps_what_was_there_through_a_symlink(tmp_path):
    real = tmp_path / "summary.md"
    real.write_text("# earlier step\n")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    files.write_output(files.prepare("GITHUB_STEP_SUMMARY", link, "the step summary", append=True), "ours\n")
    assert real.read_text() == "# earlier step\nours\n"


@pytest.mark.parametrize("make, reason", [
    (lambda p: p.mkdir() or p, "is a folder; give a file path, e.g. {p}/memreport.json"),
    (lambda p: (p.write_text("x"), p / "out.json")[1], "a parent of this path is a file, not a folder; give a path in a folder"),
    (lambda p: (p.write_text("x"), p / "deeper" / "out.json")[1], "a parent of this path is a file, not a folder; give a path in a folder"),
])
def test_what_cannot_take_a_file_is_refused_in_one_line(tmp_path, make, reason):
    given = make(tmp_path / "spot")
    with pytest.raises(files.OutputError) as exc:
        files.prepare("--memreport-json", given, "JSON")
    assert str(exc.value) == f"--memreport-json {given}: " + reason.format(p=tmp_path / "spot")


def test_a_socket_is_refused(tmp_path):
    import socket

    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    try:
        with pytest.raises(files.OutputError, match="is not a regular file, a FIFO or a character device"):
            files.prepare("--memreport-json", path, "JSON")
    finally:
        server.close()


def test_an_unwritable_folder_is_refused(unwritable):
    with pytest.raises(files.OutputError) as exc:
        files.prepare("--memreport-json", unwritable / "sub" / "out.json", "JSON")
    assert str(exc.value) == (f"--memreport-json {unwritable}/sub/out.json: folder {unwritable} is not writable; "
                              "give a path you can write")


def test_control_characters_in_a_refused_name_are_escaped(tmp_path):
    odd = tmp_path / "a\nb\x1b[2J"
    odd.mkdir()
    with pytest.raises(files.OutputError) as exc:
        files.prepare("--memreport-json", odd, "JSON")
    assert "\n" not in str(exc.value) and "\x1b" not in str(exc.value)
    assert "a\\x0ab\\x1b[2J: is a folder" in str(exc.value)


# ---------------------------------------------------------------- as users run it

@pytest.mark.parametrize("option", ["--memreport-json", "--memreport-sarif"])
def test_a_folder_as_output_is_a_usage_error_before_any_item_runs(pytester, base, option):
    folder = pytester.mkdir("out")
    result = pytester.runpytest(*base.args(option, str(folder)))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"ERROR: {option} {folder}: is a folder; give a file path" in result.stderr.str()
    assert "Traceback" not in result.stderr.str() + result.stdout.str()
    assert "collected" not in result.stdout.str()  # nothing ran


def test_a_path_under_a_file_and_an_unwritable_folder_are_usage_errors(pytester, base, unwritable):
    (pytester.path / "plain").write_text("x")
    result = pytester.runpytest(*base.args("--memreport-json", str(pytester.path / "plain" / "out.json")))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --memreport-json */plain/out.json: a parent of this path is a file*"])
    result = pytester.runpytest(*base.args("--memreport-sarif", str(unwritable / "out.sarif")))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --memreport-sarif {unwritable}/out.sarif: folder * is not writable*"])


def test_a_bad_step_summary_path_is_a_usage_error_naming_the_variable(pytester, base, monkeypatch):
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(pytester.mkdir("summary-dir")))
    result = pytester.runpytest(*base.args())
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: GITHUB_STEP_SUMMARY */summary-dir: is a folder*"])


def test_json_through_a_symlink_and_into_a_fifo(pytester, base):
    real = pytester.path / "results" / "run.json"
    real.parent.mkdir()
    link = pytester.path / "latest.json"
    link.symlink_to(real)
    result = pytester.runpytest(*base.args("--memreport-json", str(link)))
    assert link.is_symlink() and json.loads(real.read_text())["schema"] == "memreport/1"
    result.stdout.fnmatch_lines([f"memreport: wrote JSON to {link}"])
    fifo = pytester.path / "json.pipe"
    os.mkfifo(fifo)
    thread, got = read_fifo(fifo)
    result = pytester.runpytest(*base.args("--memreport-json", str(fifo)))
    thread.join(30)
    assert json.loads(got[0])["schema"] == "memreport/1" and stat.S_ISFIFO(fifo.stat().st_mode)


def test_json_is_written_with_the_users_umask(pytester, base):
    old = os.umask(0o022)
    try:
        pytester.runpytest(*base.args("--memreport-json", "out.json"))
    finally:
        os.umask(old)
    assert stat.S_IMODE((pytester.path / "out.json").stat().st_mode) == 0o644


def test_a_fifo_nobody_reads_fails_the_run_with_one_line_after_the_items(pytester, base):
    fifo = pytester.path / "json.pipe"
    os.mkfifo(fifo)
    result = pytester.runpytest(*base.args("--memreport-json", str(fifo), "--memreport-against", "none"))
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # every item passed; the JSON was not written
    result.stdout.fnmatch_lines([f"memreport: --memreport-json {fifo}: is a FIFO that no process is reading*"])
    assert "Traceback" not in result.stdout.str()
