"""The step summary's Markdown: the staleness table (state first, unchecked reports
collapsed), totals, moves and every failure; names shown as names, never as markup."""

from __future__ import annotations

from markdown_it import MarkdownIt

from pytest_memreport.outputs.staleness import Move, Row as StalenessRow
from pytest_memreport.outputs.stepsummary import HANDFUL, markdown_text, render
from pytest_memreport.outputs.verdicts import CheckVerdict, Place
from pytest_memreport.outputs.results import CheckResult

#: GitHub renders a summary as GFM with HTML; CommonMark with tables and HTML is that, for names
RENDERER = MarkdownIt("commonmark", {"html": True}).enable("table")


def table_cells(markdown: str) -> list[list[str]]:
    tokens = RENDERER.parse(markdown)
    rows, row, inside = [], None, False
    for token in tokens:
        if token.type == "tr_open":
            row = []
        elif token.type in ("td_open", "th_open"):
            inside = True
        elif token.type == "inline" and inside:
            row.append("".join(child.content for child in token.children if child.type in ("text", "code_inline")))
            inside = False
        elif token.type == "tr_close":
            rows.append(row)
    return rows


def test_rows_are_listed_state_first_with_totals():
    rows = [
        StalenessRow("reviews/b.md", "fresh", 4),
        StalenessRow("reviews/a.md", "stale", 6, (("changed", 2), ("deleted", 1))),
        StalenessRow("reviews/c.md", "unchecked", reason="no repository for acme/widget", reason_code="no-repository"),
    ]
    text = render(rows)
    assert table_cells(text) == [
        ["state", "report", "why"],
        ["stale", "reviews/a.md", "2 changed, 1 deleted of 6 checks"],
        ["unchecked", "reviews/c.md", "no repository for acme/widget"],
        ["fresh", "reviews/b.md", "4 checks hold"],
    ]
    assert "**Totals:** 3 reports: 1 stale, 1 unchecked, 1 fresh; failing: 2 changed, 1 deleted" in text


def test_many_unchecked_reports_of_one_reason_are_one_row():
    rows = [StalenessRow(f"r{i}.md", "unchecked", reason="pinned commit not in the clone", reason_code="pin-missing")
            for i in range(HANDFUL + 1)]
    rows.append(StalenessRow("other.md", "unchecked", reason="no repository", reason_code="no-repository"))
    cells = table_cells(render(rows))[1:]
    assert cells == [["unchecked", "other.md", "no repository"],
                     ["unchecked", f"{HANDFUL + 1} reports", "pinned commit not in the clone"]]
    few = table_cells(render(rows[:HANDFUL]))[1:]
    assert [c[1] for c in few] == [f"r{i}.md" for i in range(HANDFUL)]


def test_names_that_look_like_markup_are_shown_as_names():
    names = ["a|b.md", "<img src=x onerror=alert(1)>.md", "**bold**_x_.md", "`tick`.md", "$x$.md",
             "line\nbreak.md", "[link](http://x).md"]
    rows = [StalenessRow(name, "fresh", 1) for name in names]
    text = render(rows)
    shown = [row[1] for row in table_cells(text)[1:]]
    assert sorted(shown) == sorted(name.replace("\n", "\\x0a") for name in names)
    html = RENDERER.render(text)
    assert "<img" not in html and "<strong>bold" not in html and "<a href" not in html and "<em>" not in html


def test_moves_and_failures_are_listed_below():
    rows = [StalenessRow("a.md", "stale", 3, (("changed", 1),), moves=(Move(12, "moved", "x.py", ("y/x.py:3-4",)),))]
    check = CheckResult.of({"report": "a.md"}, "failed")
    verdicts = [CheckVerdict("warn", "a.md:7: R-1 enclosing definition changed", Place("a.md", 7), check),
                CheckVerdict("fail", "a.md:5: R-1 quotation of x.py changed at abc", Place("a.md", 5), check)]
    text = render(rows, verdicts)
    assert "- a.md:12: x.py moved to y/x.py:3-4" in text
    failures = text[text.index("1 failures, 1 warnings"):]
    assert failures.index("a.md:5: R-1 quotation of x.py changed at abc") < failures.index("a.md:7: R-1 enclosing")
    assert "**error** a.md:5:" in failures and "**warning** a.md:7:" in failures


def test_no_rows_says_so():
    assert "No report ran." in render([])


def test_markdown_text_escapes_only_what_markdown_reads():
    assert markdown_text("reviews/x-1.2.md") == "reviews/x-1.2.md"
    assert markdown_text("a_b|c") == "a\\_b\\|c"
