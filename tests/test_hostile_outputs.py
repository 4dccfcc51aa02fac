"""Hostile output paths and ends of a run: an output named like an input or like another
output, a rewritten file of another user, a run ended by a signal under GitHub Actions,
file names that are not URIs in SARIF, and previews of names ``patch`` reads apart."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ci_support import build
from pytest_memreport.outputs import files

SRC = str(Path(__file__).resolve().parents[1])


@pytest.fixture
def base(pytester, make_repo):
    return build(pytester, make_repo)


def usage_error(result, *lines: str) -> str:
    """The run stopped as a usage error, with one line, before anything ran."""
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "Traceback" not in err + result.stdout.str()
    assert "collected" not in result.stdout.str()
    result.stderr.fnmatch_lines(list(lines))
    return err


# ---------------------------------------------------------------- 6: outputs on inputs and on each other

@pytest.mark.parametrize("option", ["--memreport-json", "--memreport-sarif"])
def test_an_output_on_the_report_is_a_usage_error_and_the_report_stays(pytester, base, option):
    before = base.report.read_bytes()
    result = pytester.runpytest(*base.args(f"{option}={base.report}"))
    usage_error(result, f"ERROR: {option} {base.report}: is the report store.txt, which this run reads; *")
    assert base.report.read_bytes() == before


def test_an_output_through_a_symlink_or_another_spelling_of_the_report_is_refused(pytester, base):
    before = base.report.read_bytes()
    link = pytester.path / "results.json"
    link.symlink_to(base.report.name)
    result = pytester.runpytest(*base.args(f"--memreport-json={link}"))
    usage_error(result, f"ERROR: --memreport-json {link}: is the report *store.txt, which this run reads; *")
    spelled = pytester.mkdir("sub") / ".." / base.report.name
    result = pytester.runpytest(*base.args(f"--memreport-sarif={spelled}"))
    usage_error(result, "ERROR: --memreport-sarif *sub/../store.txt: is the report *")
    os.link(base.report, pytester.path / "hard.json")  # a second name of the same file
    result = pytester.runpytest(*base.args("--memreport-json=hard.json"))
    usage_error(result, "ERROR: --memreport-json hard.json: is the report *")
    assert base.report.read_bytes() == before and link.is_symlink()


def test_an_output_on_a_claims_file_is_refused_named_or_beside_the_report(pytester, base):
    named = pytester.path / "more.claims.yaml"
    named.write_text("schema: memreport-claims/1\nclaims: []\n", encoding="utf-8")
    result = pytester.runpytest(*base.args(f"--memreport-claims={named}", f"--memreport-sarif={named}"))
    usage_error(result, f"ERROR: --memreport-sarif {named}: is the claims file {named}, which this run reads; *")
    assert named.read_text(encoding="utf-8").startswith("schema: memreport-claims/1")
    beside = pytester.path / "store.claims.yaml"  # read whenever it exists: a JSON there breaks every later run
    result = pytester.runpytest(*base.args(f"--memreport-json={beside}"))
    usage_error(result, f"ERROR: --memreport-json {beside}: is the claims file store.claims.yaml, *")
    assert not beside.exists()


def test_an_output_on_the_ini_file_is_refused(pytester, base):
    ini = pytester.makeini("[pytest]\n")
    result = pytester.runpytest(*base.args(f"--memreport-json={ini}"))
    usage_error(result, f"ERROR: --memreport-json {ini}: is the ini file {ini}, *")
    assert ini.read_text().strip() == "[pytest]"


def test_json_and_sarif_at_one_path_is_a_usage_error_and_nothing_is_written(pytester, base, monkeypatch):
    result = pytester.runpytest(*base.args("--memreport-json=out.json", "--memreport-sarif=out.json"))
    usage_error(result, "ERROR: --memreport-sarif out.json: is also where --memreport-json writes; *")
    assert not (pytester.path / "out.json").exists()
    (pytester.path / "latest.sarif").symlink_to("out.json")  # the same file, not there yet, by a link
    result = pytester.runpytest(*base.args("--memreport-json=out.json", "--memreport-sarif=latest.sarif"))
    usage_error(result, "ERROR: --memreport-sarif latest.sarif: is also where --memreport-json writes; *")
    summary = pytester.path / "summary.md"
    summary.write_text("an earlier step's summary\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = pytester.runpytest(*base.args(f"--memreport-json={summary}"))
    usage_error(result, f"ERROR: GITHUB_STEP_SUMMARY {summary}: is also where --memreport-json writes; *")
    assert summary.read_text(encoding="utf-8") == "an earlier step's summary\n"
    assert not (pytester.path / "out.json").exists()


def test_an_output_inside_a_repository_git_folder_is_refused(pytester, base):
    head = base.repo.path / ".git" / "HEAD"
    before = head.read_bytes()
    result = pytester.runpytest(*base.args(f"--memreport-json={head}"))
    usage_error(result, "ERROR: --memreport-json */.git/HEAD: is inside a repository's .git folder; *")
    link = pytester.path / "into-git"
    link.symlink_to(base.repo.path / ".git")
    result = pytester.runpytest(*base.args(f"--memreport-sarif={link / 'memreport.sarif'}"))
    usage_error(result, "ERROR: --memreport-sarif */into-git/memreport.sarif: is inside a repository's .git folder*")
    assert head.read_bytes() == before and not (base.repo.path / ".git" / "memreport.sarif").exists()


def test_outputs_that_only_stream_may_share_a_device(pytester, base):
    result = pytester.runpytest(*base.args("--memreport-json=/dev/null", "--memreport-sarif=/dev/null"))
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the base has failures; both outputs went to /dev/null
    result.stdout.fnmatch_lines(["memreport: wrote JSON to /dev/null", "memreport: wrote SARIF to /dev/null"])


def test_check_apart_compares_new_names_by_their_folder(tmp_path):
    (tmp_path / "a").mkdir()
    first = files.prepare("--memreport-json", tmp_path / "a" / "x.json", "JSON")
    second = files.prepare("--memreport-sarif", tmp_path / "a" / ".." / "a" / "x.json", "SARIF")
    with pytest.raises(files.OutputError, match="is also where --memreport-json writes"):
        files.check_apart([first, second], [])
    other = files.prepare("--memreport-sarif", tmp_path / "a" / "X.json", "SARIF")
    files.check_apart([first, other], [])  # a folder that tells case apart: two files
    assert not list((tmp_path / "a").iterdir())


# ---------------------------------------------------------------- 7: a rewritten file stays its owner's

OTHER_UID, OTHER_GID = 4242, 4343  # a user and a group this machine need not know

needs_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                                reason="giving a file to another user takes root")


def owner(path: Path) -> tuple[int, int, int]:
    st = path.stat()
    return st.st_uid, st.st_gid, stat_mode(st)


def stat_mode(st) -> int:
    return st.st_mode & 0o7777


@needs_root
def test_a_report_of_another_user_rewritten_by_root_keeps_owner_group_and_mode(pytester, make_repo):
    from test_repin_review import FILES, HEADER, ENGINE_RS, LIMITS_RS, review_text

    repo = make_repo("widget")
    first = repo.commit(FILES, "initial")
    pin = repo.commit({"src/core/limits.rs": LIMITS_RS + "pub const JITTER: bool = true;\n"}, "jitter")
    repo.commit({"src/core/engine.rs": HEADER + ENGINE_RS}, "document the engine")
    report = pytester.path / "widget.md"
    report.write_text(review_text(pin, first), encoding="utf-8")
    os.chown(report, OTHER_UID, OTHER_GID)
    report.chmod(0o640)
    before = report.read_bytes()
    result = pytester.runpytest("-p", "no:cacheprovider", "--memreport", str(report),
                                f"--memreport-repo=acme/widget={repo.path}", "--memreport-repin=HEAD",
                                "--memreport-write")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-2000:]
    assert report.read_bytes() != before  # re-pinned: the file was replaced
    assert owner(report) == (OTHER_UID, OTHER_GID, 0o640)


@needs_root
def test_apply_edits_keeps_owner_group_and_set_id_bits(tmp_path):
    from pytest_memreport.outputs.writeback import Edit, apply_edits

    report = tmp_path / "notes.md"
    report.write_bytes(b"status: open\n")
    os.chown(report, OTHER_UID, OTHER_GID)
    report.chmod(0o2664)  # a set-group-ID bit, which a change of owner would clear if set first
    assert apply_edits(report, b"status: open\n", [Edit(8, 12, "done", "status")])
    assert report.read_bytes() == b"status: done\n"
    assert owner(report) == (OTHER_UID, OTHER_GID, 0o2664)


@needs_root
def test_an_output_of_another_user_replaced_by_root_keeps_owner_group_and_mode(tmp_path):
    out = tmp_path / "results.json"
    out.write_text("{}\n")
    os.chown(out, OTHER_UID, OTHER_GID)
    out.chmod(0o604)
    files.write_output(files.prepare("--memreport-json", out, "JSON"), '{"schema": "memreport/1"}\n')
    assert out.read_text() == '{"schema": "memreport/1"}\n'
    assert owner(out) == (OTHER_UID, OTHER_GID, 0o604)


NOT_OWNER = """
import os, sys
from pathlib import Path
from pytest_memreport.outputs import files, writeback  # before: the interpreter may be root's alone
os.setgid(65534); os.setuid(65534)
report, out = Path(sys.argv[1]), Path(sys.argv[2])
try:
    writeback.apply_edits(report, report.read_bytes(), [writeback.Edit(0, 1, "S", "status")])
except writeback.WritebackError as exc:
    print("write-back:", exc)
try:
    files.prepare("--memreport-json", out, "JSON")
except files.OutputError as exc:
    print("output:", exc)
"""


@needs_root
def test_a_user_who_cannot_give_a_file_back_is_refused_before_anything_is_written(tmp_path):
    import tempfile

    shared = Path(tempfile.mkdtemp(prefix="memreport-shared-"))  # a folder every user may reach
    try:
        shared.chmod(0o777)
        report, out = shared / "notes.md", shared / "out.json"
        for path in (report, out):
            path.write_text("status: open\n")
            os.chown(path, OTHER_UID, OTHER_GID)
            path.chmod(0o666)  # anyone may write it in place, yet a replaced file would be the writer's
        done = subprocess.run([sys.executable, "-c", NOT_OWNER, str(report), str(out)], capture_output=True,
                              text=True, env=dict(os.environ, PYTHONPATH=SRC), timeout=60)
        assert done.returncode == 0, done.stderr
        assert f"write-back: {report} belongs to another user (uid {OTHER_UID})" in done.stdout
        assert f"output: --memreport-json {out}: belongs to another user (uid {OTHER_UID})" in done.stdout
        assert report.read_text() == out.read_text() == "status: open\n"
        assert owner(report) == owner(out) == (OTHER_UID, OTHER_GID, 0o666)
        assert sorted(p.name for p in shared.iterdir()) == ["notes.md", "out.json"]
    finally:
        shutil.rmtree(shared)


# ---------------------------------------------------------------- 8: commands resume however a run ends

WAITING_TEST = """
import time
from pathlib import Path

def test_waits_for_a_signal():
    Path("started").write_text("started")
    time.sleep(120)
"""

PREVIOUS_HANDLER = """
import json
import os
import signal
from pathlib import Path

def mine(signum, frame):
    Path("previous-ran").write_text(str(signum))
    os._exit(70)

signal.signal(signal.SIGTERM, mine)
"""


def run_until_signal(pytester, base, signum: int) -> tuple[int, list[str]]:
    """A GitHub Actions run as users start it, ended by ``signum`` while a test runs."""
    pytester.makepyfile(test_waiting=WAITING_TEST)
    env = dict(os.environ, PYTHONPATH=SRC, GITHUB_ACTIONS="true")
    # The run starts with the signal's default action, whatever this process inherited (under
    # ``nohup`` SIGHUP is ignored, and a run leaves an ignored signal alone: the last test here).
    proc = subprocess.Popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *base.args("test_waiting.py")],
                            cwd=pytester.path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            preexec_fn=lambda: signal.signal(signum, signal.SIG_DFL))
    try:
        deadline = time.monotonic() + 240
        while not (pytester.path / "started").exists():
            assert proc.poll() is None and time.monotonic() < deadline, proc.stdout.read().decode(errors="replace")
            time.sleep(0.05)
        proc.send_signal(signum)
        out, _ = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, out.decode("utf-8", "replace").splitlines()


def assert_resumed(lines: list[str]) -> None:
    stops = [i for i, line in enumerate(lines) if line.startswith("::stop-commands::")]
    assert stops, lines
    token = lines[stops[-1]].split("::")[2]
    assert f"::{token}::" in lines[stops[-1]:], lines[-20:]


@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])
def test_a_run_ended_by_a_signal_resumes_commands_and_ends_by_that_signal(pytester, base, name):
    signum = getattr(signal, name, None)
    if signum is None:
        pytest.skip(f"no {name} here")
    code, lines = run_until_signal(pytester, base, signum)
    assert_resumed(lines)
    assert code == -signum  # the signal's own ending: the default handler was given back and ran


def test_a_handler_set_before_the_run_is_given_the_signal_after_commands_resume(pytester, base):
    pytester.makeconftest(PREVIOUS_HANDLER)
    code, lines = run_until_signal(pytester, base, signal.SIGTERM)
    assert_resumed(lines)
    assert code == 70 and (pytester.path / "previous-ran").read_text() == str(int(signal.SIGTERM))


def test_the_signal_handlers_are_ours_only_while_the_run_lasts(pytester, base, monkeypatch):
    def mine(signum, frame):  # pragma: no cover - never called
        pass

    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    signal.signal(signal.SIGTERM, mine)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)  # whatever this process inherited (``nohup``)
    try:
        monkeypatch.setenv("GITHUB_ACTIONS", "true")
        pytester.makepyfile(test_seen="""
            import signal
            def test_seen():
                assert getattr(signal.getsignal(signal.SIGTERM), "__name__", "") == "_on_signal"
                assert getattr(signal.getsignal(signal.SIGHUP), "__name__", "") == "_on_signal"
        """)
        result = pytester.runpytest(*base.args("test_seen.py", "-rA"))
        result.stdout.fnmatch_lines(["PASSED test_seen.py::test_seen"])
        assert signal.getsignal(signal.SIGTERM) is mine
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_DFL
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)


def test_a_signal_ignored_before_the_run_is_left_ignored(pytester, base, monkeypatch):
    # Under ``nohup`` SIGHUP is ignored: the run neither takes it over nor ends by it.
    before = signal.getsignal(signal.SIGHUP)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        monkeypatch.setenv("GITHUB_ACTIONS", "true")
        pytester.makepyfile(test_seen="""
            import signal
            def test_seen():
                assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
                assert getattr(signal.getsignal(signal.SIGTERM), "__name__", "") == "_on_signal"
        """)
        result = pytester.runpytest(*base.args("test_seen.py", "-rA"))
        result.stdout.fnmatch_lines(["PASSED test_seen.py::test_seen"])
        assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, before)


# ---------------------------------------------------------------- 9: SARIF URIs are URIs

def test_a_report_name_with_uri_characters_is_percent_encoded_in_sarif(pytester, make_repo):
    from rfc3986_validator import validate_rfc3986
    from test_sarif import VALIDATOR

    folder = pytester.mkdir("sub dir")
    base = build(pytester, make_repo, name="sub dir/notes#2 draft%41.md")
    out = pytester.path / "out.sarif"
    pytester.runpytest(*base.args(f"--memreport-sarif={out}"))
    data = json.loads(out.read_text(encoding="utf-8"))
    assert not [e.message for e in VALIDATOR.iter_errors(data)]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in data["runs"][0]["results"]}
    assert uris == {"sub%20dir/notes%232%20draft%2541.md"}
    assert validate_rfc3986(uris.pop(), rule="URI_reference")
    assert folder.is_dir()


@pytest.mark.parametrize("name", ["a:b.md", "q?x=1.md", "100%.md", "#top.md", "caf\u0065\u0301 \U0001f600.md",
                                  "sp ace/tab\there.md", "semi;colon,=&+$!'()*@[].md", "dir/../x.md"])
def test_every_file_name_is_a_valid_relative_uri_that_decodes_back_to_it(name):
    from urllib.parse import unquote

    from rfc3986_validator import validate_rfc3986
    from pytest_memreport.outputs.sarif import artifact_uri

    uri = artifact_uri(name)
    assert validate_rfc3986(uri, rule="URI_reference") and unquote(uri) == name
    assert not set(":?#") & set(uri)  # all path: never a scheme, a query or a fragment
    assert artifact_uri("/abs/" + name) == Path("/abs/" + name).as_uri()


# ---------------------------------------------------------------- 10: previews patch and git apply can apply

def previewed(tmp_path, make_repo, *names: str):
    """Each report ``names`` (relative to the run folder ``run``) written twice, as a
    re-pin previews it (``--memreport-diff``) and as it writes it (``--memreport-write``)."""
    from test_repin_preview import cli
    from test_repin_review import ENGINE_RS, FILES, HEADER, LIMITS_RS, review_text

    if shutil.which("patch") is None or shutil.which("git") is None:
        pytest.fail("GNU patch and git are needed to check the preview")
    repo = make_repo("widget")
    first = repo.commit(FILES, "initial")
    pin = repo.commit({"src/core/limits.rs": LIMITS_RS + "pub const JITTER: bool = true;\n"}, "jitter")
    repo.commit({"src/core/engine.rs": HEADER + ENGINE_RS}, "document the engine")
    shown = {}
    for mode in ("preview", "written"):
        run = tmp_path / mode / "run"
        args = []
        for name in names:
            (run / name).parent.mkdir(parents=True, exist_ok=True)
            (run / name).write_text(review_text(pin, first), encoding="utf-8")
            args += ["--memreport", name]
        done = cli(run, *args, f"--memreport-repo=acme/widget={repo.path}", "--memreport-repin=HEAD",
                   "--memreport-diff" if mode == "preview" else "--memreport-write")
        assert done.returncode == 0, done.stdout.decode(errors="replace")[-3000:]
        shown[mode] = done.stdout
    return tmp_path / "preview" / "run", tmp_path / "written" / "run", shown["preview"]


def applies(folder: Path, diff: bytes) -> None:
    """``patch -p1`` and ``git apply`` both take ``diff`` in ``folder``; patch then applies it."""
    checked = subprocess.run(["git", "apply", "--check", "-v"], cwd=folder, input=diff, capture_output=True,
                             timeout=60)
    assert checked.returncode == 0, checked.stderr.decode(errors="replace")
    dry = subprocess.run(["patch", "-p1", "--binary", "--dry-run"], cwd=folder, input=diff, capture_output=True,
                         timeout=60)
    assert dry.returncode == 0, (dry.stdout + dry.stderr).decode(errors="replace")
    done = subprocess.run(["patch", "-p1", "--binary", "-s"], cwd=folder, input=diff, capture_output=True,
                          timeout=60)
    assert done.returncode == 0, (done.stdout + done.stderr).decode(errors="replace")


@pytest.mark.parametrize("name", ["sub/my report.md", 'odd/a "quoted" \\ name.md', "tab\tin name.md"])
def test_a_preview_of_a_name_with_a_space_or_a_quote_applies_with_patch_and_git_apply(tmp_path, make_repo, name):
    preview, written, diff = previewed(tmp_path, make_repo, name)
    before = (preview / name).read_bytes()
    applies(preview, diff)
    assert (preview / name).read_bytes() == (written / name).read_bytes() != before


def test_a_report_outside_the_run_folder_is_said_so_and_the_whole_diff_applies_where_it_says(tmp_path, make_repo):
    preview, written, diff = previewed(tmp_path, make_repo, "inside.md", "../elsewhere/far away.md")
    far = preview.parent / "elsewhere" / "far away.md"
    note = (f"# memreport: {far} is outside the run folder {preview}; every name below is relative to "
            f"{preview.parent}: apply this diff there (patch -p1, or git apply)").encode()
    assert note in diff.splitlines()  # before the first file's lines
    assert diff.index(note) < diff.index(b"--- a/")
    assert b"a//" not in diff and b"a/../" not in diff and b"--- a/run/inside.md\n" in diff
    before = far.read_bytes()
    applies(preview.parent, diff)
    assert far.read_bytes() == (written.parent / "elsewhere" / "far away.md").read_bytes() != before
    assert (preview / "inside.md").read_bytes() == (written / "inside.md").read_bytes()


LENIENT_HANDLER = """
import signal
from pathlib import Path

def mine(signum, frame):
    Path("previous-ran").write_text(str(signum))

signal.signal(signal.SIGTERM, mine)
"""

WAITING_FOR_THE_HANDLER = """
import time
from pathlib import Path

def test_waits_for_a_signal():
    Path("started").write_text("started")
    for _ in range(2400):
        if Path("previous-ran").exists():
            return
        time.sleep(0.05)
"""


def test_a_handler_that_lets_the_run_go_on_gets_commands_stopped_again_until_the_annotations(pytester, base):
    pytester.makeconftest(LENIENT_HANDLER)
    pytester.makepyfile(test_waiting=WAITING_FOR_THE_HANDLER)
    env = dict(os.environ, PYTHONPATH=SRC, GITHUB_ACTIONS="true")
    proc = subprocess.Popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *base.args("test_waiting.py")],
                            cwd=pytester.path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 240
        while not (pytester.path / "started").exists():
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=240)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    lines = out.decode("utf-8", "replace").splitlines()
    assert proc.returncode == 1  # the run went on and ended as usual: the base's drift fails
    token = next(line for line in lines if line.startswith("::stop-commands::")).split("::")[2]
    marks = [line for line in lines if token in line]
    # stopped, resumed for the signal, stopped again, resumed at the end for the annotations
    assert marks == [f"::stop-commands::{token}", f"::{token}::", f"::stop-commands::{token}", f"::{token}::"]
    last_resume = max(i for i, line in enumerate(lines) if line == f"::{token}::")
    errors = [i for i, line in enumerate(lines) if line.startswith("::error ")]
    assert errors and last_resume < min(errors)
