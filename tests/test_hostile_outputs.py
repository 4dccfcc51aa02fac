"""Hostile output paths and ends of a run: an output named like an input or like another
output, a rewritten file of another user, a run ended by a signal under GitHub Actions,
file names that are not URIs in SARIF, and previews of names ``patch`` reads apart."""

from __future__ import annotations

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
