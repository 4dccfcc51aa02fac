"""Reading an analysis run as a careful reader does (issue 15, second pass).

Found by counting a real run's citations by hand and comparing, row by row, with
what the product extracted: continuations whose sentence names no file, a row
citing one file two ways (``SRC-1:94`` and ``index.ts:88``), quotations after
their citation, quote marks inside code, quotations with no citation beside
them, two quotations on one line, and code spans across a line break.
"""

from __future__ import annotations

from conftest import summary_outcomes
from run_target import check_run

from pytest_memreport.dialects.core import anchors, layout

LENS = """\
# Lens — RUN `R-2`

## Rows

| ID | Finding | Anchor |
|---|---|---|
| OBJ-1 | Jobs start at `index.ts:40`. The queue is made at `:41`, and the worker at `:42` after `:41` | `SRC-1:40` |
| OBJ-2 | the limit (`SRC-1:8`) and the start at `index.ts:40` | `:41-42` |
| OBJ-3 | the pair | `core/queue.ts:3`, `core/worker.ts:4` | `:9` |
| OBJ-4 | a default of "export function start" is used | `SRC-1:40` |
| OBJ-5 | a "graceful hand-off of work" is claimed | `SRC-1:40` |
| OBJ-6 | the text says `kind: ""` then "Verify the job before it runs" and "Retry a failed job at most three times" | `SRC-1:6-7` |

## Prose

The start is at `index.ts:40`. It builds the queue at `:41`.
Later the worker is returned at `:42`.

A later paragraph returns the worker (`:42`) again.

## Two files

We read `core/queue.ts:3` and `core/worker.ts:4`.

Then `:9` alone is no one's.

## After the citation

The description says `SRC-1:6-7` ("Verify the job before it runs", "Retry a failed job at most four times").
The start is at `SRC-1:40`); see Loop C "jobs per worker limit" for more.
The opening reads "Widgets keep a queue
of jobs" (`SRC-1:4`). Then `SRC-1:5` ends the `first
line` of `SRC-1:8`.
"""


def run(pytester, make_repo, lens: str = LENS):
    result, data = check_run(pytester, make_repo, "R-2", lens)
    evidence = [e for rec in data["records"] for e in rec["evidence"]] + data["evidence"]
    return result, evidence


def at(evidence, line: int, kind: str) -> list:
    return sorted((e.get("cited_lines"), e.get("text"), e["at_pin"]["status"])
                  for e in evidence if e["line"] == line and e["kind"] == kind)


def test_the_run_reads_as_a_reader_counts(pytester, make_repo):
    result, evidence = run(pytester, make_repo)
    # A second sentence's `:42` continues the one file of its row: a continuation after a
    # continuation with nothing to continue is bound the same way, not dropped.
    assert [c for c, _, _ in at(evidence, 7, "lines")] == [[40, 40], [40, 40], [41, 41], [41, 41], [42, 42]]
    # SRC-1:8 and index.ts:40 are one file: `:41-42` in the next cell continues it.
    assert [c for c, _, _ in at(evidence, 8, "lines")] == [[8, 8], [40, 40], [41, 42]]
    # Two files in the row: the lone `:9` is no one's (nothing guessed).
    assert [c for c, _, _ in at(evidence, 9, "lines")] == [[3, 3], [4, 4]]
    # Prose: the last file of the paragraph, then the one file of the section.
    assert [c for c, _, _ in at(evidence, 16, "lines")] == [[40, 40], [41, 41]]
    assert [c for c, _, _ in at(evidence, 17, "lines")] == [[42, 42]]
    assert [c for c, _, _ in at(evidence, 19, "lines")] == [[42, 42]]
    # A section citing two files binds nothing.
    assert [c for c, _, _ in at(evidence, 23, "lines")] == [[3, 3], [4, 4]]
    assert [c for c, _, _ in at(evidence, 25, "lines")] == []


def test_quotations_beside_and_near_their_citations(pytester, make_repo):
    result, evidence = run(pytester, make_repo)
    # A phrase near a citation that the file holds is a quotation of it, found.
    assert at(evidence, 10, "quote") == [(None, "export function start", "found")]
    # A phrase the file does not hold, with no citation beside it, is the report's own
    # words: not evidence, and never a failure.
    assert at(evidence, 11, "quote") == [(None, "graceful hand-off of work", "not-evidence")]
    # Quote marks inside code open no quotation; the two real ones are two pieces of
    # evidence of one line, with a result each.
    assert at(evidence, 12, "quote") == [
        (None, "Retry a failed job at most three times", "found"), (None, "Verify the job before it runs", "found")]
    # After its citation, in parentheses: held to the cited lines; a changed word fails.
    assert at(evidence, 29, "quote") == [
        ([6, 7], "Retry a failed job at most four times", "missing"),
        ([6, 7], "Verify the job before it runs", "found")]
    # `SRC-1:40); see Loop C "..."` names a section: the phrase is not held to line 40,
    # and, being nowhere in the file, is not evidence.
    assert at(evidence, 30, "quote") == [(None, "jobs per worker limit", "not-evidence")]
    failed = sorted(k for k, v in summary_outcomes(result).items() if v == "FAILED")
    assert len(failed) == 1 and "quote@L29" in failed[0], failed


def test_a_code_span_across_a_line_break_keeps_later_lines_right(pytester, make_repo):
    _, evidence = run(pytester, make_repo)
    # `first\nline` spans lines 32-33: the citation after it is on line 33.
    assert [c for c, _, _ in at(evidence, 33, "lines")] == [[8, 8]]
    assert [c for c, _, _ in at(evidence, 32, "lines")] == [[4, 4], [5, 5]]
    # A quotation across a soft break starts on its first line.
    assert [(c, s) for c, _, s in at(evidence, 31, "quote")] == [([4, 4], "found")]


def test_code_spans_across_breaks_in_the_layout():
    text = "one `a\nb` two\nthree `SRC-1:4` four\n"
    [inline] = layout.markdown_layout(text).inlines
    assert [(p.kind, p.text, p.line) for p in inline.pieces if p.kind == "code"] == [
        ("code", "a b", 1), ("code", "SRC-1:4", 3)]


def test_a_quotation_after_a_citation_group_is_held_to_none_of_its_ranges():
    [inline] = layout.markdown_layout('at `SRC-1a:149`/`:170` ("adjust the total up or down") later\n').inlines
    unit = anchors.unit(inline.pieces)
    found, _ = anchors.scan(unit)
    [quote] = anchors.quotes(unit, found)
    assert (quote.citation.source, quote.grouped) == ("SRC-1a", True)


def test_a_long_chain_of_quotations_links_only_its_last_ones_to_the_citation():
    # A few quotations before one citation all quote it; a page of them is no sentence:
    # at most 16 quotations stand between a phrase and its citation as linking material.
    text = " / ".join(f'"alpha beta gamma {i}"' for i in range(1, 21)) + " (`SRC-1:4`)"
    [inline] = layout.markdown_layout(text + "\n").inlines
    unit = anchors.unit(inline.pieces)
    found, _ = anchors.scan(unit)
    bound = [q.text for q in anchors.quotes(unit, found) if q.citation is not None]
    assert bound == [f"alpha beta gamma {i}" for i in range(4, 21)]
