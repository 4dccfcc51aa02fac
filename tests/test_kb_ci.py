"""A knowledge base in CI: a dozen reviews of four targets, checked with two options.

pytester runs over the fixture knowledge base of ``kb_support`` (real git
repositories with real edits, moves and deletions after the reviews' pins):
repositories found by template and by ini mapping in any letter case, the
honest verdict (a run that checked nothing fails), the staleness table and the
JSON states, and the conventions (usage errors, ignore options, one-line
failures and warnings).
"""

from __future__ import annotations

import json
import os
import re
from xml.etree import ElementTree
import textwrap

import pytest

import kb_support
from kb_support import kb, targets  # noqa: F401 (fixtures)
from kb_support import EXPECTED_STATES

IGNORE_OLD = "--ignore-glob=*.replaced.*"


@pytest.fixture
def TEMPLATE(targets):
    return f"--memreport-repo-template={targets[0]}/{{owner}}/{{name}}"


def states(json_path) -> dict[str, tuple[str, str | None]]:
    data = json.loads(json_path.read_text(encoding="utf-8"))
    return {os.path.basename(r["path"]): (r["state"], r["reason"]) for r in data["reports"]}


def table(result) -> list[str]:
    """The lines of the memreport section (the staleness table and its totals)."""
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if re.match(r"=+ memreport =+$", line))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("=="))
    # the section ends with what the run wrote ("memreport: wrote JSON to ..."): not table rows
    return [line for line in lines[start + 1:end] if not line.startswith("memreport: wrote ")]


def test_a_template_finds_every_clone_in_any_letter_case(pytester, kb, TEMPLATE):
    out = pytester.path / "out.json"
    result = pytester.runpytest("--memreport", "reviews", TEMPLATE, IGNORE_OLD, f"--memreport-json={out}")
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # two reviews are stale
    found = states(out)
    assert {name: state for name, (state, _) in found.items()} == EXPECTED_STATES
    # zeta/lib and Zeta/lib in the reviews, Zeta/Lib on disk: the one folder matching in another case.
    assert found["lib-parse.md"] == ("fresh", None) and found["lib-trim.md"] == ("fresh", None)
    assert found["widget-engine.md"] == ("stale", "1 changed of 2 checks")
    assert found["tool-run.md"] == ("stale", "1 deleted of 2 checks")
    assert "did you mean acme/widget" in found["widgets-typo.md"][1]
    assert found["nowhere.md"][1].startswith("no local clone for gamma/nowhere: ")
    assert "is not a commit in" in found["widget-future.md"][1]
    rows = table(result)
    assert [row.split()[:2] for row in rows[:-1]] == [
        ["stale", "reviews/tool-run.md"], ["stale", "reviews/widget-engine.md"],
        ["unchecked", "reviews/nowhere.md"], ["unchecked", "reviews/widget-future.md"],
        ["unchecked", "reviews/widgets-typo.md"],
        ["fresh", "reviews/gadget-core.md"], ["fresh", "reviews/gadget-helpers.md"], ["fresh", "reviews/lib-parse.md"],
        ["fresh", "reviews/lib-trim.md"], ["fresh", "reviews/tool-main.md"], ["fresh", "reviews/widget-util.md"],
    ]
    assert rows[-1] == "11 report(s): 2 stale, 3 unchecked, 6 fresh"
    assert "replaced" not in result.stdout.str()
    assert " of 0 " not in result.stdout.str()


def test_ini_mappings_are_relative_to_the_ini_file_and_unused_ones_warn(pytester, kb):
    folder = pytester.path / "ci"
    folder.mkdir()
    clones = os.path.relpath(kb.clones, folder)  # relative to the ini file, not to where pytest runs
    (folder / "pytest.ini").write_text(textwrap.dedent(
        f"""\
        [pytest]
        memreport_repos =
            ACME/Widget = {clones}/acme/widget
            acme/gadget = {clones}/acme/gadget
            zeta/LIB = {clones}/Zeta/Lib
            beta/tool = {clones}/beta/tool
            acme/unused = {clones}/acme/widget
        """), encoding="utf-8")
    out = pytester.path / "out.json"
    result = pytester.runpytest("-c", "ci/pytest.ini", "--rootdir", str(pytester.path), "--memreport", "reviews",
                                IGNORE_OLD, f"--memreport-json={out}")
    found = states(out)
    assert {name: state for name, (state, _) in found.items()} == EXPECTED_STATES
    assert "did you mean ACME/Widget (found by ini key memreport_repos (ACME/Widget))" in found["widgets-typo.md"][1]
    stdout = result.stdout.str()
    assert "ini key memreport_repos (acme/unused): no loaded report names acme/unused" in stdout
    assert "ACME/Widget): no loaded report" not in stdout  # the reviews' acme/widget uses it


def test_a_run_that_checked_nothing_fails_with_one_line(pytester, kb):
    out = pytester.path / "out.json"
    result = pytester.runpytest("--memreport", "reviews", "-rs", f"--memreport-json={out}")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    # One item per report, saying why; none passes in its stead. Each review cites code at a
    # commit, so each fails (issue 45); --memreport-allow-unchecked would skip them.
    result.assert_outcomes(failed=12)
    assert "the report cites code at a commit and none of it was checked" in result.stdout.str()
    assert "no local clone for acme/widget" in result.stdout.str()
    assert table(result) == [
        # (the keys to give, by name, most asked first: a knowledge base's first run says what to map)
        "unchecked  12 reports: no repository; they name acme/widget (4), acme/gadget (2), beta/tool (2), "
        "Zeta/lib (1), acme/widgets (1) and 2 more: give --memreport-repo KEY=PATH for each (or "
        "--memreport-repo-template TEMPLATE)",
        "12 report(s): 12 unchecked",
        "memreport: nothing was checked against a repository: every report is unchecked (12 no repository); "
        "give --memreport-repo-template TEMPLATE (or ini memreport_repos, or --memreport-repo PATH)",
    ]
    assert {state for state, _ in states(out).values()} == {"unchecked"}


def test_require_checked_fails_each_report_that_could_not_be_checked(pytester, kb, TEMPLATE):
    result = pytester.runpytest("--memreport", "reviews", TEMPLATE, IGNORE_OLD, "--memreport-require-checked",
                                "-k", "unchecked or util")
    result.assert_outcomes(failed=3, passed=4)  # widget-util's source, structure, pin and drift items
    result.stdout.fnmatch_lines(["reviews/nowhere.md:9: not checked (--memreport-require-checked): "
                                 "no local clone for gamma/nowhere*"])
    assert "failed: 1 unchecked" not in result.stdout.str()  # the state is not also a failure of its own
    pytester.makeini("[pytest]\nmemreport_require_checked = true\n")
    again = pytester.runpytest("--memreport", "reviews/widget-future.md", TEMPLATE)
    again.assert_outcomes(failed=1)


def test_the_table_lists_only_what_ran_and_with_v_where_evidence_went(pytester, kb, TEMPLATE):
    result = pytester.runpytest("--memreport", "reviews", TEMPLATE, IGNORE_OLD, "-v", "-k", "gadget or tool")
    rows = table(result)
    assert [row.split()[:2] for row in rows if not row.startswith(" ")][:-1] == [
        ["stale", "reviews/tool-run.md"], ["fresh", "reviews/gadget-core.md"],
        ["fresh", "reviews/gadget-helpers.md"], ["fresh", "reviews/tool-main.md"]]
    # The moved file is said under its review's row; nothing is said of unmoved evidence.
    core = rows.index(next(r for r in rows if "gadget-core.md" in r))
    assert rows[core + 1].strip() == "line 13: lib/core.py moved to pkg/core.py:1-2"
    assert sum(1 for r in rows if "moved to" in r) == 1
    # --co runs nothing: no table at all.
    listed = pytester.runpytest("--memreport", "reviews", TEMPLATE, "--co", "-q")
    assert not any(re.match(r"=+ memreport =+$", line) for line in listed.stdout.lines)
    assert listed.ret == pytest.ExitCode.OK


def test_the_table_is_the_same_under_xdist(pytester, kb, TEMPLATE):
    serial = pytester.runpytest("--memreport", "reviews", TEMPLATE, IGNORE_OLD, "-p", "no:randomly")
    parallel = pytester.runpytest_subprocess("--memreport", "reviews", TEMPLATE, IGNORE_OLD, "-n", "2")
    assert table(serial) == table(parallel)
    assert serial.ret == parallel.ret == pytest.ExitCode.TESTS_FAILED


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--memreport-against", "no-such-branch"],
         "--memreport-against no-such-branch: resolves in none of the 4 target repositories"),
        (["--memreport-repo-template", "clones/{org}/{name}"], "unknown key {org}; use {owner} and {name}"),
        (["--memreport-repo-template", "clones/{owner}"], "give {name}"),
        (["--memreport-repo", "acme/widget="], "--memreport-repo 'acme/widget=': nothing after the '='"),
        (["--memreport-pin", "SRC-1="], "--memreport-pin 'SRC-1=': nothing after the '='"),
        (["--memreport-shard", "3/2"], "--memreport-shard '3/2': give K/N"),
        (["--memreport", "reviews/*.rst"], "--memreport reviews/*.rst: the pattern matches no file"),
    ],
)
def test_usage_errors_exit_4_with_one_line(pytester, kb, TEMPLATE, args, message):
    result = pytester.runpytest("--memreport", "reviews", TEMPLATE, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR")]
    assert len(errors) == 1 and message in errors[0], result.stderr.lines
    assert "Traceback" not in result.stderr.str() + result.stdout.str()


def test_a_bad_ini_mapping_is_a_usage_error(pytester, kb):
    pytester.makeini("[pytest]\nmemreport_repos =\n    acme/widget clones/acme/widget\n")
    result = pytester.runpytest("--memreport", "reviews")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "ini key memreport_repos: 'acme/widget clones/acme/widget' is not `owner/name = PATH`" in result.stderr.str()


def test_a_reports_folder_honours_ignore_deselect_and_globs(pytester, kb, TEMPLATE):
    def reports(*args):  # listed, not run (and with no repository: no git at all)
        result = pytester.runpytest("--memreport", *args, "--co", "-q")
        return {line.split("::")[0] for line in result.stdout.lines if "::" in line}

    everything = reports("reviews")
    assert "reviews/widget-engine.replaced.2026-07-06.md" in everything and len(everything) == 12
    assert reports("reviews", IGNORE_OLD) == everything - {"reviews/widget-engine.replaced.2026-07-06.md"}
    assert "reviews/nowhere.md" not in reports("reviews", "--ignore=reviews/nowhere.md")
    assert reports("reviews/widget-*.md", IGNORE_OLD) == {
        "reviews/widget-engine.md", "reviews/widget-util.md", "reviews/widget-future.md"}
    deselected = pytester.runpytest("--memreport", "reviews", TEMPLATE, IGNORE_OLD, "--memreport-allow-unchecked",
                                    "--deselect", "reviews/tool-run.md")
    assert "tool-run.md" not in "\n".join(table(deselected))
    deselected.assert_outcomes(failed=1, passed=27, skipped=3, deselected=4)


def test_a_dangling_symlink_in_the_folder_is_a_warning(pytester, kb, TEMPLATE):
    (kb.reviews / "gone.md").symlink_to(kb.reviews / "never-written.md")
    result = pytester.runpytest("--memreport", "reviews", TEMPLATE, IGNORE_OLD)
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # the run went on: two reviews are stale
    result.stdout.fnmatch_lines(["reviews/gone.md:1", "*MemreportConfigWarning: a symbolic link to nothing; not checked"])


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["in-process", "xdist"])
def test_tb_line_prints_one_line_per_failure(pytester, kb, TEMPLATE, workers):
    # Under pytest-xdist the failure travels as its fields: the same lines come out.
    result = pytester.runpytest("--memreport", "reviews", TEMPLATE, IGNORE_OLD, "--tb=line", *workers,
                                "--junitxml=out.xml", "--memreport-allow-unchecked")
    lines = result.stdout.lines
    start = lines.index(next(line for line in lines if re.match(r"=+ FAILURES =+$", line)))
    section = lines[start + 1:lines.index(next(line for line in lines[start + 1:] if line.startswith(("==", "- "))))]
    # xdist names the worker of each failure on a line of its own, in the order they finished
    assert sorted(line for line in section if not line.startswith("[gw")) == [
        f"reviews/tool-run.md:13: lines 3-5 of tool.go deleted at {kb.pins['tool_now'][:12]}",
        f"reviews/widget-engine.md:13: lines 2-3 of src/engine.rs changed at {kb.pins['widget_now'][:12]}",
    ]
    messages = sorted(failure.get("message") for failure in ElementTree.parse(pytester.path / "out.xml").iter("failure"))
    assert messages == [f"lines 2-3 of src/engine.rs changed at {kb.pins['widget_now'][:12]}",
                        f"lines 3-5 of tool.go deleted at {kb.pins['tool_now'][:12]}"]


def test_a_report_given_as_a_test_file_says_to_use_memreport(pytester, kb):
    result = pytester.runpytest("reviews/widget-util.md")
    assert result.ret in (pytest.ExitCode.USAGE_ERROR, pytest.ExitCode.NO_TESTS_COLLECTED)  # "not found"
    result.stdout.fnmatch_lines(["memreport: reviews/widget-util.md is not a test file; reports are given with "
                                 "--memreport: pytest --memreport reviews/widget-util.md"])


def test_progress_lines_never_break_an_item_line_under_v(pytester, kb, TEMPLATE):
    result = pytester.runpytest("--memreport", "reviews", TEMPLATE, IGNORE_OLD, "-v")
    announced = [line for line in result.stdout.lines if line.startswith("memreport: following")]
    assert len(announced) == 3  # widget, gadget and tool changed since their pins
    items = [line for line in result.stdout.lines if line.startswith("reviews/") and "::" in line]
    assert len(items) == 35
    assert all(re.search(r" (PASSED|FAILED|SKIPPED)( \(.*\))? +\[ *\d+%\]$", line) for line in items), items


def test_a_skipped_non_evidence_never_counts(pytester, kb, TEMPLATE):
    """A backticked word that is not a path at the pin is skipped, not counted as file-missing."""
    text = kb_support.review("acme/widget", kb.pins["widget"], "src/util.rs", "1-3", "Util with a mention")
    kb.write("widget-mention.md", text + "\nThe generator `tools/gen.py` would write it.\n")
    out = pytester.path / "out.json"
    result = pytester.runpytest("--memreport", "reviews/widget-mention.md", TEMPLATE, "-rs", f"--memreport-json={out}")
    assert result.ret == pytest.ExitCode.OK
    assert "`tools/gen.py` is not a path at the pin" in result.stdout.str()
    assert states(out)["widget-mention.md"] == ("fresh", None)
    # the skipped mention is counted apart, never as a failing or a passing check
    assert table(result)[0].split() == ["fresh", "reviews/widget-mention.md", "2", "checks", "hold", "(1", "not", "evidence)"]
