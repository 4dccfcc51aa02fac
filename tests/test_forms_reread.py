"""What a report's dialect read is not read again by the forms (issue 47): a record report's
attributed quotations (``text --- path:18``) cost one reading, not two, and blanking what the
dialect read never loses a citation of the report's own words. A quotation's text is the
quoted file's words: a citation inside it is not the report's."""

from __future__ import annotations

import cProfile
import pstats

import pytest

from pytest_memreport.dialects import forms, parse_report
from pytest_memreport.dialects.core import anchors
from pytest_memreport.dialects.core.spans import LineStarts
from pytest_memreport.model import EvidenceKind, LineRange

SHA = "1234567890abcdef1234567890abcdef12345678"


def record_report(lines: list[str]) -> str:
    body = "\n\n".join(lines)
    return f"Shelf audit\n\nThe target is at SRC-1 commit {SHA}.\n\nMEM-OBJ-shelf-1\n\nLabel: shelves\n\n{body}\n"


def scans_made(text: str, name: str = "scan") -> int:
    """How many units the citation reader scanned word by word while ``text`` was parsed
    (``name="_path"``: how many words it read as a path)."""
    profile = cProfile.Profile()
    profile.runcall(parse_report, "audit.md", text)
    stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    return sum(row[1] for (file, _, function), row in stats.items()
               if function == name and file == anchors.__file__)


def lines_of(report) -> set[tuple[str, LineRange | None]]:
    return {(e.path, e.cited_lines) for e in report.all_evidence() if e.kind is EvidenceKind.LINES}


def test_attributed_quotations_of_records_are_read_once_however_many():
    few = record_report([f"shelf {n} holds the spare bolts --- store/shelf_{n}.txt:{n + 2}" for n in range(5)])
    many = record_report([f"shelf {n} holds the spare bolts --- store/shelf_{n}.txt:{n + 2}" for n in range(200)])

    assert len(parse_report("audit.md", many).all_evidence()) == 200
    # the record reader reads each attribution; the forms scan none of those lines again
    assert scans_made(few) == scans_made(many)


def test_a_citation_inside_a_quotation_is_the_quoted_files_words_and_one_beside_it_the_reports():
    # The text before `` --- path`` is matched in that file as written: a ``path:40`` in it is
    # what the file says (a host and port, a file it names), not a citation of the report.
    text = record_report([
        "bolts are counted weekly (see store/ledger.md:40) --- store/count.txt:3",
        "the crate is stacked\n\nnext to the door (bay/door.md:2) --- store/crates.txt:7",
        "The weekly count is kept in store/tally.md:12 as well.",
    ])

    report = parse_report("audit.md", text)

    quotes = {(e.path, e.cited_lines) for e in report.all_evidence() if e.kind is EvidenceKind.QUOTE}
    assert quotes == {("store/count.txt", LineRange(3, 3)), ("store/crates.txt", LineRange(7, 7))}
    assert lines_of(report) == {("store/tally.md", LineRange(12, 12))}


def test_blanking_keeps_an_attribution_a_range_word_or_number_continues():
    lines = ["bolts --- store/count.txt:3 to 9", "nuts --- store/nuts.txt:4, 11", "pins --- store/pins.txt:5"]
    text = record_report(lines)
    report = parse_report("audit.md", text)
    spans = [e.span for e in report.all_evidence() if e.span is not None and e.cited_lines is not None]

    shown = forms._unread(text.split("\n"), spans, LineStarts(text))

    kept = [line for line in shown if "store/" in line]
    # the continued ones stay whole (the continuation may be the forms' to read); the plain one goes
    assert kept == lines[:2]
    assert all(len(one) == len(two) for one, two in zip(shown, text.split("\n")))


@pytest.mark.parametrize("lines", [
    [
        "bolts are counted weekly (see store/ledger.md:40) --- store/count.txt:3",
        "nuts --- store/nuts.txt:4, 11",
        "washers --- `store/washers.txt:2-6`",
        "see store/plan.md lines 3 to 5 for the layout --- store/plan.md:3",
        "pins --- store/pins.txt:5",
    ],
    [
        "The shelves cite SRC-1: store/a.txt:3-5, store/b.txt:9, store/c.txt:12-14.",
        "The bins cite SRC-1: store/d.txt:4, 11 and store/e.txt:2, lines 7-8.",
        "The racks cite SRC-1: store/f.txt:6 - 9, store/g.txt:1, `20-22`, see store/h.md:4.",
    ],
], ids=["attributions", "lists"])
def test_blanking_changes_nothing_the_report_reads(lines):
    text = record_report(lines)
    report = parse_report("audit.md", text)
    # the forms without the spans the dialect read: what they find beside is the same
    plain = forms.read("audit.md", text, report.dialect, loose=False)
    blanked = forms.read("audit.md", text, report.dialect, loose=False,
                         read_spans=[e.span for e in report.all_evidence() if e.span is not None])

    def found(reading):
        return {(e.kind, e.path, e.cited_lines) for e in reading.evidence}

    assert found(blanked) <= found(plain)
    lost = found(plain) - found(blanked)
    read = {(e.kind, e.path, e.cited_lines) for e in report.all_evidence()}
    assert all((kind, path, cited) in read or (EvidenceKind.QUOTE, path, cited) in read
               for kind, path, cited in lost), lost


def test_a_list_of_cited_files_is_blanked_whole_and_a_continued_one_kept():
    lines = [
        "The shelves cite SRC-1: store/a.txt:3-5, store/b.txt:9, store/c.txt:12-14.",
        "The bins cite SRC-1: store/d.txt:4, 11 and store/e.txt:2, lines 7-8.",
        "The racks cite SRC-1: store/f.txt:6 - 9, store/g.txt:1, `20-22`.",
    ]
    text = record_report(lines)
    report = parse_report("audit.md", text)
    spans = [e.span for e in report.all_evidence() if e.span is not None and e.cited_lines is not None]

    shown = forms._unread(text.split("\n"), spans, LineStarts(text))

    by_text = dict(zip(text.split("\n"), shown))
    # another file's citation after the comma continues nothing: every citation of the list goes
    assert "store/" not in by_text[lines[0]]
    # a number, a line word or a backticked range after the comma continues the citation before it
    for line, continued in ((lines[1], ("store/d.txt:4", "store/e.txt:2")),
                            (lines[2], ("store/f.txt:6", "store/g.txt:1"))):
        assert all(cited in by_text[line] for cited in continued), by_text[line]


def test_lists_of_cited_files_are_read_once_however_long():
    def listing(count: int) -> str:
        cited = ", ".join(f"store/shelf_{n}.txt:{n + 2}-{n + 4}" for n in range(count))
        return record_report([f"The shelves cite SRC-1: {cited}."])

    few, many = listing(3), listing(60)

    assert len(parse_report("audit.md", many).all_evidence()) == 60
    # the record reader reads the list (with its own reader); the forms read none of its words again
    assert scans_made(few, "_path") == scans_made(many, "_path") == 0
