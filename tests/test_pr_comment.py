"""``--memreport-comment FILE``: one pull-request comment, compared with the base branch's run.

Over the fixture knowledge base of ``kb_support`` (real target clones with an edit, a
move and a deletion after the reviews' pins): the base run is the same knowledge base's
``--memreport-json`` checked at the pins only (``--memreport-against none``), so the
drifted reviews became stale since; one base state is set to ``stale`` to stand for a
report the pull request fixed.
"""

from __future__ import annotations

import json

import pytest

from kb_support import kb, targets  # noqa: F401 (fixtures)
from pytest_memreport.outputs import comment
from pytest_memreport.outputs.staleness import Row
from pytest_memreport.outputs.verdicts import CheckVerdict, Place
from pytest_memreport.outputs.results import CheckResult

IGNORE_OLD = "--ignore-glob=*.replaced.*"


def template(kb) -> str:
    return f"--memreport-repo-template={kb.clones}/{{owner}}/{{name}}"


@pytest.fixture
def base(pytester, kb):
    """The base branch's results: every review at its pin (nothing drifted yet), and
    gadget-core.md stale (this pull request fixes it)."""
    out = pytester.path / "base.json"
    pytester.runpytest_subprocess("--memreport", "reviews", template(kb), IGNORE_OLD, "--memreport-against=none",
                                  f"--memreport-json={out}", "-p", "no:cacheprovider")
    data = json.loads(out.read_text(encoding="utf-8"))
    for report in data["reports"]:
        if report["path"].endswith("gadget-core.md"):
            report["state"] = "stale"
    out.write_text(json.dumps(data), encoding="utf-8")
    return out


def test_the_comment_leads_with_what_became_stale_or_fixed_and_links_each_failure(pytester, kb, base,
                                                                                   monkeypatch):
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.example")
    monkeypatch.setenv("GITHUB_REPOSITORY", "keeper/kb")
    monkeypatch.setenv("GITHUB_SHA", "c0ffee")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(pytester.path))
    out = pytester.path / "comment.md"
    result = pytester.runpytest_subprocess("--memreport", "reviews", template(kb), IGNORE_OLD,
                                           f"--memreport-comment={out}", f"--memreport-comment-base={base}",
                                           "-p", "no:cacheprovider", "--memreport-allow-unchecked")
    assert result.ret == 1
    result.stdout.fnmatch_lines([f"memreport: wrote the pull-request comment to {out}"])
    text = out.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == comment.MARKER
    assert lines[1] == "## memreport: 2 stale reports, 2 failing checks"
    became = [line for line in lines if line.startswith("- **became stale**")]
    fixed = [line for line in lines if line.startswith("- **fixed**")]
    assert [line.split(": ", 1)[1].split(" ")[0] for line in became] == ["reviews/tool-run.md",
                                                                        "reviews/widget-engine.md"]
    assert len(fixed) == 1 and "reviews/gadget-core.md (was stale; now fresh" in fixed[0]
    # the changes come first, then the counts, then the failing evidence
    assert text.index("became stale") < text.index("**Totals:**") < text.index("### Failing evidence")
    failing = [line for line in lines if line.startswith("- [reviews/")]
    assert len(failing) == 2
    engine = next(line for line in failing if "widget-engine.md" in line)
    assert engine.startswith("- [reviews/widget-engine.md:13](https://github.example/keeper/kb/blob/c0ffee/"
                             "reviews/widget-engine.md#L13): ")
    now = kb.pins["widget_now"]
    assert f"broken by [`{now[:12]}`](https://github.com/acme/widget/commit/{now}) edit" in engine
    tool = next(line for line in failing if "tool-run.md" in line)
    assert "deleted" in tool and f"https://github.com/beta/tool/commit/{kb.pins['tool_now']}" in tool


def test_without_a_base_the_comment_says_so_and_still_lists_the_failures(pytester, kb):
    out = pytester.path / "comment.md"
    pytester.runpytest_subprocess("--memreport", "reviews", template(kb), IGNORE_OLD, f"--memreport-comment={out}",
                                  "-p", "no:cacheprovider")
    text = out.read_text(encoding="utf-8")
    assert text.startswith(comment.MARKER + "\n")
    assert "No base run to compare with" in text and "became stale" not in text
    # no repository or ref known: report lines are text, target commits still links
    assert "- reviews/widget-engine.md:13: " in text and "https://github.com/acme/widget/commit/" in text


@pytest.mark.parametrize("content, said", [
    (None, "no such file"),
    ("{not json", "not JSON (line 1)"),
    ('{"results": []}', "not the results of a --memreport-json run"),
])
def test_a_base_that_is_no_results_file_is_a_usage_error(pytester, kb, content, said):
    base = pytester.path / "base.json"
    if content is not None:
        base.write_text(content, encoding="utf-8")
    out = pytester.path / "comment.md"
    result = pytester.runpytest_subprocess("--memreport", "reviews", template(kb), f"--memreport-comment={out}",
                                           f"--memreport-comment-base={base}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--memreport-comment-base {base}: {said}*"])
    assert "Traceback" not in result.stderr.str() and not out.exists()


def test_a_base_without_a_comment_is_a_usage_error(pytester, kb):
    result = pytester.runpytest_subprocess("--memreport", "reviews", "--memreport-comment-base=x.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--memreport-comment-base*give --memreport-comment PATH too*"])


def _failure(n: int) -> CheckVerdict:
    payload = {"type": "drift", "report": f"reviews/r{n:05}.md", "line": 7,
               "at_against": {"status": "changed", "broken_by": {"commit": f"{n:040x}", "subject": "edit " * 8}}}
    return CheckVerdict("fail", f"reviews/r{n:05}.md:7: lines 1-9 of src/a_long_file_name_{n}.py changed",
                        Place(f"reviews/r{n:05}.md", 7), CheckResult.of(payload, "failed"))


def test_a_comment_over_githubs_limit_ends_with_and_n_more():
    verdicts = [_failure(n) for n in range(3000)]
    rows = [Row(f"reviews/r{n:05}.md", "stale", 1, (("changed", 1),)) for n in range(3000)]
    base = {row.report: "fresh" for row in rows}
    links = comment.Links(repository="keeper/kb", ref="c0ffee",
                          targets={(v.report, 7): "https://github.com/acme/widget" for v in verdicts})
    text = comment.render(rows, verdicts, base, links)
    assert len(text) <= comment.LIMIT
    lines = text.splitlines()
    changes = [line for line in lines if line.startswith("- **became stale**")]
    failures = [line for line in lines if line.startswith("- [reviews/")]
    mores = [line for line in lines if line.startswith("- ... and ")]
    assert len(mores) == 2
    assert mores[0] == f"- ... and {3000 - len(changes)} more"
    assert mores[1].startswith(f"- ... and {3000 - len(failures)} more")
    assert changes and failures  # the changes come first, and leave the failures room
    assert "**Totals:** 3000 reports: 3000 stale" in text  # the counts are never cut


def test_a_small_comment_lists_everything():
    verdicts = [_failure(n) for n in range(3)]
    text = comment.render([Row("reviews/r00000.md", "stale", 1, (("changed", 1),))], verdicts, {})
    assert "... and" not in text
    assert len([line for line in text.splitlines() if line.startswith("- reviews/")]) == 3


def test_a_targets_commit_links_to_the_commit_page_of_its_own_host():
    # A source read from a Bitbucket link got GitHub's /commit/ page, which Bitbucket lacks.
    links = comment.Links(targets={("a.md", 3): "https://github.com/acme/widget",
                                   ("a.md", 4): "https://codeberg.org/acme/widget",
                                   ("a.md", 5): "https://bitbucket.org/acme/widget"})
    sha = "0123456789abcdef0123456789abcdef01234567"

    assert links.commit("a.md", 3, sha) == f"[`{sha[:12]}`](https://github.com/acme/widget/commit/{sha})"
    assert links.commit("a.md", 4, sha) == f"[`{sha[:12]}`](https://codeberg.org/acme/widget/commit/{sha})"
    assert links.commit("a.md", 5, sha) == f"[`{sha[:12]}`](https://bitbucket.org/acme/widget/commits/{sha})"
    assert links.commit("a.md", 6, sha) == f"`{sha[:12]}`"
