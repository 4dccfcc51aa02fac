"""The plan's pairs of report and evidence (``engine.plan.unique_pairs``): each once, in
order, the pair objects given kept (no copies: a run of 10,000 quotations would otherwise
make tens of thousands of tuples for the garbage collector to walk while it checks)."""

from __future__ import annotations

from pytest_memreport.engine.plan import unique_pairs
from pytest_memreport.model import Evidence, EvidenceKind, Report


def _quote(line: int, text: str) -> Evidence:
    return Evidence(EvidenceKind.QUOTE, "src/a.py", line, line, text=text)


def test_each_pair_once_in_order_and_the_given_objects_kept():
    first, second = Report("notes/one.md", "records"), Report("notes/two.md", "records")
    same_place = _quote(3, "x = 1"), _quote(3, "x = 1")  # equal, two objects
    other = _quote(5, "y = 2")
    pairs = [(first, same_place[0]), (first, other), (first, same_place[1]), (second, same_place[1])]
    kept = unique_pairs(iter(pairs))
    assert kept == [pairs[0], pairs[1], pairs[3]]
    assert all(any(pair is given for given in pairs) for pair in kept)  # no copies


def test_reports_are_told_apart_by_path_not_by_their_contents():
    """Two parses of one report file (equal paths, other objects) are one report; two
    reports with equal contents at other paths are two."""
    evidence = _quote(3, "x = 1")
    parsed, reparsed = Report("notes/one.md", "records"), Report("notes/one.md", "records", title="again")
    elsewhere = Report("notes/copy.md", "records")
    kept = unique_pairs([(parsed, evidence), (reparsed, evidence), (elsewhere, evidence)])
    assert [report.path for report, _ in kept] == ["notes/one.md", "notes/copy.md"]
    assert kept[0][0] is parsed
