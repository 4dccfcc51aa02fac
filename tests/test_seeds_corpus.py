"""The record-report parser over the real seed reports (plain-text renderings).

The expected counts were derived from the seed files with grep, not from the
parser:

* records: lines that are only an ID, ``^[A-Z]+-(CMP|OBJ|RTE|CLM|ABS|BAP)-[a-z0-9-]+$``
  (each is followed by a ``Label:`` line: ``grep -c '^Label: '`` agrees);
* annotations: ``^On <ID>$`` lines;
* quotations: lines ending in `` --- <path>`` (``(^| )--- [^ ]+$``), less the one
  line in 002 (188) that has nothing before ``---``; 003's 236-238 is one
  quotation split over two paragraphs and counts once, by its ``---`` line;
* statuses: ``grep -o 'conclusion status' | wc -l`` (four table rows of 003
  hold two each).

:func:`test_independent_counts_agree` re-derives the same numbers with those
patterns so the table below cannot silently drift from the files.
"""

from __future__ import annotations

import re

import pytest
from conftest import SEEDS

from pytest_memreport.dialects import parse_report, read_report
from pytest_memreport.model import EvidenceKind, Reference, Report

EXPECTED = {
    # seed: (records, annotations, quotations, statuses, pin)
    "000_179139e58c876b34.txt": (13, 7, 18, 12, "423d7d0f4394a1ddc9955d13c73c9f8a9c4d4e7e"),
    "002_d143d614cd576fda.txt": (9, 4, 18, 6, "1cfe254e8d25b15f37048c3730134686abe60335"),
    "003_5dd1e8b43d2948ac.txt": (19, 0, 26, 28, None),
}


def seed_path(name: str):
    if not SEEDS.is_dir():
        pytest.skip(f"seed reports not available at {SEEDS}")
    path = SEEDS / name
    if not path.is_file():
        pytest.skip(f"seed {name} not available")
    return path


def parse_seed(name: str) -> Report:
    path = seed_path(name)
    text, findings = read_report(path)
    assert findings == []
    return parse_report(str(path), text)


def quotations(report: Report):
    return [e for e in report.all_evidence() if e.kind == EvidenceKind.QUOTE]


def all_statuses(report: Report):
    return [s for r in report.records for s in r.statuses] + list(report.statuses)


def record(report: Report, node: str):
    return next(r for r in report.records if r.node_name == node)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_seed_counts_and_pin(name):
    report = parse_seed(name)
    records, annotations, quotes, statuses, pin = EXPECTED[name]
    assert len([r for r in report.records if not r.is_annotation]) == records
    assert len([r for r in report.records if r.is_annotation]) == annotations
    assert len(quotations(report)) == quotes
    assert len(all_statuses(report)) == statuses
    assert [(s.id, s.pin) for s in report.sources] == [("SRC-1", pin)]
    assert all(r.label for r in report.records if not r.is_annotation)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_independent_counts_agree(name):
    lines = seed_path(name).read_text(encoding="utf-8").split("\n")
    ids = r"[A-Z]+-(?:CMP|OBJ|RTE|CLM|ABS|BAP)-[a-z0-9-]+"
    records = sum(1 for line in lines if re.fullmatch(ids, line))
    annotations = sum(1 for line in lines if re.fullmatch(rf"On {ids}", line))
    quote_lines = [line for line in lines if re.search(r"(?:^| )--- \S+$", line)]
    quotes = sum(1 for line in quote_lines if not line.startswith("--- "))
    statuses = sum(line.count("conclusion status") for line in lines)
    assert (records, annotations, quotes, statuses) == EXPECTED[name][:4]


def test_seed_000_values():
    report = parse_seed("000_179139e58c876b34.txt")
    assert report.title == "Exo memory report"
    assert report.sources[0].line == 328
    route = record(report, "MEM-RTE-fact-revision")
    assert (route.label, route.line, route.end_line, route.label_line) == ("Fact revision", 111, 133, 113)
    assert [(s.axis, s.qualifier, s.value, s.line, s.column) for s in route.statuses] == [
        ("implementation", "", "wired", 124, len("  • implementation conclusion status: ")),
        ("operation", "", "uninspected", 125, len("  • operation conclusion status: ")),
    ]
    [selection] = route.selection_predicates
    assert (selection.line, selection.text.split(";")[0]) == (
        120, "current agent handle, exact artifact path, maximum version"
    )
    assert [(e.kind.value, e.path, e.line) for e in route.evidence if e.kind != EvidenceKind.QUOTE] == [
        ("path", "exo/tools/memory-tools.ts", 115),
        ("path", "exo/harness.ts", 115),
        ("path", "exo/profiles/practical.ts", 115),
    ]
    assert [e.line for e in route.evidence if e.kind == EvidenceKind.QUOTE] == [129, 131]
    offload = record(report, "MEM-RTE-result-offload")
    assert offload.part_of == "RT-RTE-responses-loop"
    assert Reference("RT-RTE-responses-loop", 183, "part-of") in offload.references
    annotation = record(report, "On-RT-RTE-responses-loop@L269")
    assert (annotation.is_annotation, annotation.end_line) == (True, 273)
    [quote] = [e for e in annotation.evidence if e.kind == EvidenceKind.QUOTE]
    assert (quote.line, quote.path, quote.owner) == (
        273, "exoharness/typescript/harness/index.ts", "RT-RTE-responses-loop"
    )
    assert quote.text.startswith("...instructions, ...(await materializeConversationMessages")
    assert report.findings == ()


def test_seed_002_values():
    report = parse_seed("002_d143d614cd576fda.txt")
    assert report.sources[0].line == 7
    assert record(report, "MEM-OBJ-experience").label == "EXPERIENCE.md"
    claim = record(report, "MEM-CLM-compaction-boundary")
    assert [(s.axis, s.value, s.line) for s in claim.statuses] == [
        ("implementation", "wired", 157), ("operation", "uninspected", 158)
    ]
    frame = record(report, "MEM-RTE-evidence-frame")
    assert ("harness2/core/proposer.py", 117, "finally: shutil.rmtree(tmp, ignore_errors=True)") in [
        (e.path, e.line, e.text) for e in frame.evidence
    ]
    # 188 is a --- line with nothing quoted: its path is still evidence, and it is reported
    assert [(f.line, f.code) for f in report.findings] == [(188, "structure")]
    harness_text = record(report, "On-RT-OBJ-harness-text@L184")
    assert [(e.kind, e.line) for e in harness_text.evidence if e.path.endswith("LongTermMEMORY.md")] == [
        (EvidenceKind.PATH, 188)
    ]


def test_seed_003_values():
    report = parse_seed("003_5dd1e8b43d2948ac.txt")
    assert report.sources[0].pin is None
    multi = [e for e in quotations(report) if e.line != e.end_line]
    assert [(e.line, e.end_line, e.path, e.owner) for e in multi] == [
        (236, 238, "exoharness/typescript/harness/tool-modules.ts", "RT-RTE-tool-admission")
    ]
    assert multi[0].text.endswith("as Record< string, unknown\n;")
    claim = record(report, "RT-CLM-recovery-scope")
    assert claim.label == "Durability is not arbitrary effect replay"
    assert [(s.axis, s.value, s.line) for s in claim.statuses] == [
        ("implementation", "wired", 296), ("operation", "uninspected", 297)
    ]
    # the guarantees table sits outside any record, two statuses per row
    assert [(s.line, s.axis) for s in report.statuses] == [
        (line, axis) for line in (41, 42, 43, 44) for axis in ("implementation", "operation")
    ]
    assert record(report, "RT-BAP-rebuilt-services").end_line == 344
    assert report.findings == ()


def test_memory_report_references_resolve_with_its_runtime_sibling():
    """FORMAT.md: a memory report cites records of its sibling runtime report; with both
    loaded every reference resolves, and alone the memory report's RT references dangle."""
    from pytest_memreport.checks.structure import dangling_references

    memory, runtime = parse_seed("000_179139e58c876b34.txt"), parse_seed("003_5dd1e8b43d2948ac.txt")
    alone = dangling_references([memory])[memory.path]
    assert alone and all(target.startswith("RT-") for target, _ in alone)
    together = dangling_references([memory, runtime])
    assert together.get(memory.path, []) == []
