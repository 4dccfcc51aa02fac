"""``--memreport-targets``: the repositories a knowledge base's reports need, listed and not checked.

Over the fixture knowledge base of ``kb_support`` (four real target clones, a review of
a repository with no clone, one of a typo'd name, one pinned at a commit the clone lacks).
"""

from __future__ import annotations

import json

import pytest

from kb_support import kb, targets  # noqa: F401 (fixtures)


def test_json_lists_each_repository_once_with_its_pins_and_clone(pytester, kb):
    out = pytester.path / "results.json"
    result = pytester.runpytest_subprocess("--memreport", "reviews", "--memreport-targets=json",
                                           f"--memreport-repo-template={kb.clones}/{{owner}}/{{name}}",
                                           f"--memreport-json={out}")
    assert result.ret == 0
    listed = json.loads(result.stdout.str())
    assert listed["format"] == "memreport-targets/1"
    by_name = {t["repository"].casefold(): t for t in listed["targets"]}
    assert sorted(by_name) == ["acme/gadget", "acme/widget", "acme/widgets", "beta/tool", "gamma/nowhere",
                               "zeta/lib"]
    widget = by_name["acme/widget"]
    # the review pinned at a commit the clone lacks cites a second pin of the same repository
    assert widget["pins"] == sorted([kb.pins["widget"], "1" * 40])
    assert widget["found"] is True and widget["clone"] == str(kb.clones / "acme" / "widget")
    assert "--memreport-repo-template" in widget["found_by"]
    assert "reviews/widget-engine.md" in widget["reports"] and "reviews/widget-util.md" in widget["reports"]
    # found in another letter case (Zeta/Lib on disk), named as the first review spells it
    lib = by_name["zeta/lib"]
    assert lib["found"] is True and lib["clone"] == str(kb.clones / "Zeta" / "Lib")
    assert (lib["owner"], lib["name"]) == ("zeta", "lib")
    nowhere = by_name["gamma/nowhere"]
    assert nowhere["found"] is False and nowhere["clone"] is None
    assert "does not exist" in nowhere["problem"]
    # listed, not checked: no item ran and no result file was written
    assert "passed" not in result.stdout.str() and "failed" not in result.stdout.str()
    assert not out.exists()


def test_lines_say_which_clone_was_found(pytester, kb):
    result = pytester.runpytest_subprocess("--memreport", "reviews", "--memreport-targets",
                                           f"--memreport-repo-template={kb.clones}/{{owner}}/{{name}}")
    assert result.ret == 0
    lines = result.stdout.lines
    tool = next(line for line in lines if line.startswith("beta/tool "))
    assert kb.pins["tool"] in tool and f"clone {kb.clones / 'beta' / 'tool'}" in tool
    nowhere = next(line for line in lines if line.startswith("gamma/nowhere "))
    assert "no clone:" in nowhere
    assert len([line for line in lines if line.strip()]) == 6


def test_without_a_template_every_repository_is_unfound(pytester, kb):
    result = pytester.runpytest_subprocess("--memreport", "reviews", "--memreport-targets=json")
    assert result.ret == 0
    listed = json.loads(result.stdout.str())["targets"]
    assert listed and all(not t["found"] and "--memreport-repo-template" in t["problem"] for t in listed)


def test_targets_without_reports_is_a_usage_error(pytester):
    result = pytester.runpytest_subprocess("--memreport-targets")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--memreport-targets lists the repositories of reports*--memreport PATH*"])


def test_an_unreadable_report_is_named_and_the_rest_listed(pytester, kb):
    (kb.reviews / "broken.md").write_bytes(b"\xff\xfe not text \x00")
    result = pytester.runpytest_subprocess("--memreport", "reviews", "--memreport-targets=json")
    listed = json.loads(result.stdout.str())["targets"]
    assert result.ret == 0 and len(listed) == 6
    result.stderr.fnmatch_lines(["memreport: *broken.md is not UTF-8 text*re-save it as UTF-8"])
    assert "Traceback" not in result.stderr.str()
