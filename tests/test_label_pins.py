"""A pin written as a short line of a repository and its commit, with no pin word
(docs/FORMATS.md, "Any document"): ``acme/widgets · `<sha>```, ``**Target:** acme/widgets
v2.1 (<sha>)``, ``Based on `<sha>` of acme/widgets.``. Each was read as no pin: the document
said "no pinned commit" and checked none of its citations.

Such a line is the document's pin only where no other form states one, and where no
repository has two of them (a list of commits looks the same, line by line)."""

from __future__ import annotations

import textwrap

import pytest
from finding_support import QUEUE, run_one

from pytest_memreport.dialects import parse_report
from pytest_memreport.runcaches import RunCaches

SHA = "4f1c9e02a7d3b5c6e8f90a1b2c3d4e5f60718293"
OTHER = "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a291807"
CITING = "\n\n`src/queue.ts:3-4` builds the queue.\n"


def _pins(text: str) -> list[tuple[str | None, str | None]]:
    with RunCaches().active():
        report = parse_report("kb/trial.md", text)
    return [(source.repository or source.id, source.pin) for source in report.sources if source.pin]


@pytest.mark.parametrize("line", [
    f"`acme/widgets` · `{SHA[:10]}`",
    f"acme/widgets — `{SHA}`",
    f"**acme/widgets** `{SHA[:12]}`",
    f"Target: acme/widgets v2025.1.1 ({SHA[:10]})",
    f"acme/widgets @ {SHA[:10]}",
    f"*Reviewed:* acme/widgets `{SHA[:10]}`",
    f"Code under review: acme/widgets, `{SHA[:10]}`",
    f"Based on `{SHA[:10]}` of acme/widgets.",
    f"Everything below refers to acme/widgets at {SHA[:10]}.",
])
def test_a_short_line_of_a_repository_and_its_commit_pins_the_document(line):
    pins = _pins(f"# Trial\n\n{line}{CITING}")
    assert len(pins) == 1 and pins[0][0] == "acme/widgets" and SHA.startswith(pins[0][1]), pins


def test_a_list_of_one_repositorys_commits_pins_nothing():
    text = f"# Bumps\n\n- acme/widgets `{SHA[:10]}` bump\n- acme/widgets `{OTHER[:10]}` fix{CITING}"
    assert _pins(text) == []


@pytest.mark.parametrize("line", [
    f"Previously acme/widgets `{SHA[:10]}`.",  # (history words: another version's)
    f"See acme/widgets `{SHA[:10]}` for how the queue was first built before the rewrite of it.",  # (a sentence)
    f"docs/guide.md `{SHA[:10]}`",  # (a file, not a repository)
])
def test_a_line_that_is_no_label_of_the_documents_commit_pins_nothing(line):
    assert _pins(f"# Trial\n\n{line}{CITING}") == []


def test_a_stated_pin_stands_and_a_label_line_beside_it_adds_nothing():
    text = f"# Trial\n\nPinned to acme/widgets at `{SHA}`.\n\nacme/widgets · `{OTHER[:10]}`{CITING}"
    assert [pin for _, pin in _pins(text)] == [SHA]


def _compare(before: str, after: str) -> str:
    return textwrap.dedent(f"""\
        # The queue, then and now

        - **Before:** `acme/widgets@{before}`
        - **After:** `acme/widgets@{after}`

        ## Before

        `src/queue.py:1-2` holds the whole queue.

        ## After the rewrite

        `src/queue.py:5-6` pushes.

        ## Summary

        Both open with `src/queue.py:1`.
        """)


def test_two_commits_of_one_repository_labelled_apart_each_pin_their_sections(pytester, make_repo):
    # Both were read as no pin (two label lines of one repository), and the citations of
    # both sections were checked at one commit: the "Before" section's at the rewrite's.
    repo = make_repo("widgets")
    before = repo.commit({"src/queue.py": "class Queue:\n    items = []\n"})
    after = repo.commit({"src/queue.py": "class Queue:\n    def __init__(self):\n        self.items = []\n\n"
                                         "    def push(self, item):\n        self.items.append(item)\n"})
    result, report = run_one(pytester, _compare(before, after), f"--memreport-repo=acme/widgets={repo.path}",
                             "--memreport-against=none")
    checked = [(e["line"], e.get("pin") or report["sources"][0]["pin"], e["at_pin"]["status"])
               for e in report["evidence"] if e["kind"] == "lines"]
    assert checked == [(8, before, "found"), (12, after, "found"), (16, before, "found")], result.stdout.str()[-2000:]
    assert result.ret == 0

    # the same citations under unlabelled lines: which commit is which is unsaid, nothing pins
    text = _compare(before, after).replace("**Before:** ", "").replace("**After:** ", "")
    result, report = run_one(pytester, text, f"--memreport-repo=acme/widgets={repo.path}", "--memreport-against=none")
    assert "no pinned commit" in result.stdout.str() and result.ret == 1


def test_a_comparison_tables_before_and_after_columns_each_check_their_cells_at_their_commit(pytester, make_repo):
    # The commit row under "Before" and "After" pinned nothing (states of one repository), and
    # with a commit from elsewhere each cell of a row would have been checked under both
    # columns: a cell is its own column's
    repo = make_repo("widgets")
    before = repo.commit({"src/queue.py": "class Queue:\n    items = []\n"})
    after = repo.commit({"src/queue.py": QUEUE})
    text = textwrap.dedent(f"""\
        # The queue, then and now

        Repository: acme/widgets

        | | Before | After |
        | --- | --- | --- |
        | Commit | `{before[:12]}` | `{after[:12]}` |
        | The queue | `src/queue.py:1-2` | `src/queue.py:8-10` |
        """)
    result, report = run_one(pytester, text, f"--memreport-repo=acme/widgets={repo.path}", "--memreport-against=none")
    checked = sorted((tuple(e["cited_lines"]), (e.get("pin") or report["sources"][0]["pin"])[:12], e["at_pin"]["status"])
                     for e in report["evidence"] if e["kind"] == "lines")
    assert checked == [((1, 2), before[:12], "found"), ((8, 10), after[:12], "found")], result.stdout.str()[-2000:]
    assert result.ret == 0
