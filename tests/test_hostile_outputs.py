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
