"""Structure checks over report sets: references, statuses, routes, labels, coverage."""

from __future__ import annotations

from pytest_memreport.dialects.claims import parse_claims
from pytest_memreport.model import (
    Evidence,
    EvidenceKind,
    Finding,
    Record,
    Reference,
    Report,
    Status,
    TextBlock,
)
from pytest_memreport.checks.structure import (
    Coverage,
    absences_not_executable,
    coverage,
    dangling_references,
    structure_findings,
)


def record(rid: str, line: int, **fields) -> Record:
    lens, kind, _ = rid.split("-", 2)
    fields.setdefault("label", rid.lower())
    return Record(id=rid, lens=lens, kind=kind, line=line, end_line=line + 10, **fields)


def status(axis: str, value: str, line: int, qualifier: str = "") -> Status:
    return Status(axis=axis, qualifier=qualifier, value=value, line=line)


def quote(path: str, line: int, owner: str) -> Evidence:
    return Evidence(EvidenceKind.QUOTE, path, line, line, text="x = 1", owner=owner)


# A memory report and a runtime report that cite each other's records.
MEMORY = Report(
    path="reports/memory.md",
    dialect="records",
    records=(
        record(
            "MEM-OBJ-entry-table",
            10,
            part_of="RT-CMP-host",
            references=(Reference("RT-RTE-request-loop", 14), Reference("RT-OBJ-ghost-queue", 15)),
            evidence=(quote("src/table.py", 12, "MEM-OBJ-entry-table"),),
        ),
        record(
            "MEM-RTE-entry-refresh",
            30,
            statuses=(status("implementation", "wired", 34, "signoff and reconstruction"), status("operation", "uninspected", 35)),
            selection_predicates=(TextBlock("Selection predicate: exact key", 33, 33),),
            references=(Reference("MEM-OBJ-entry-table", 32),),
        ),
        record("MEM-ABS-no-eviction", 50),
        record("MEM-ABS-no-remote-sync", 60),
        # an annotation of a record the runtime report declares
        Record(
            id="RT-RTE-request-loop",
            lens="RT",
            kind="RTE",
            line=70,
            end_line=75,
            is_annotation=True,
            references=(Reference("RT-RTE-request-loop", 70, "annotation"),),
        ),
    ),
    references=(Reference("RT-OBJ-ghost-queue", 90), Reference("EPI-CLM-outside", 91)),
)

RUNTIME = Report(
    path="reports/runtime.md",
    dialect="records",
    records=(
        record("RT-CMP-host", 5),
        record(
            "RT-RTE-request-loop",
            20,
            statuses=(status("implementation", "afforded", 24), status("operation", "observed", 25)),
            references=(Reference("MEM-OBJ-entry-table", 22), Reference("MEM-RTE-entry-refresh", 23)),
        ),
    ),
)


def test_reports_citing_each_other_resolve_and_one_reference_dangles():
    dangling = dangling_references([MEMORY, RUNTIME])
    assert dangling == {
        "reports/memory.md": [("RT-OBJ-ghost-queue", [15, 90]), ("EPI-CLM-outside", [91])],
    }
    # the EPI lens lives in a report the user chose not to load
    assert dangling_references([MEMORY, RUNTIME], external_prefixes=("EPI",)) == {
        "reports/memory.md": [("RT-OBJ-ghost-queue", [15, 90])],
    }


def test_a_report_alone_dangles_on_its_sibling():
    alone = dangling_references([MEMORY])
    targets = [target for target, _ in alone["reports/memory.md"]]
    # Part of:, prose and the annotation's target all need the sibling report
    assert targets == ["RT-CMP-host", "RT-RTE-request-loop", "RT-OBJ-ghost-queue", "EPI-CLM-outside"]
    # the annotation lists its target as a reference at line 70 already
    assert dict(alone["reports/memory.md"])["RT-RTE-request-loop"] == [14, 70]
    # a Part of: parent the dialect did not list as a reference counts at the record's line
    assert dict(alone["reports/memory.md"])["RT-CMP-host"] == [10]
    assert dangling_references([RUNTIME]) == {
        "reports/runtime.md": [("MEM-OBJ-entry-table", [22]), ("MEM-RTE-entry-refresh", [23])]
    }


def test_structure_findings():
    report = Report(
        path="r.md",
        dialect="records",
        records=(
            record("MEM-RTE-no-operation", 10, statuses=(status("implementation", "implemented", 12),)),
            record("MEM-RTE-nothing", 20),
            record("MEM-CLM-odd-status", 30, statuses=(status("implementation", "probably", 31),)),
            record("MEM-OBJ-unlabelled", 40, label=None),
            record(
                "MEM-RTE-complete",
                50,
                statuses=(status("implementation", "afforded", 52, "direct definition"), status("operation", "causally supported", 53)),
            ),
            Record(id="RT-RTE-x", lens="RT", kind="RTE", line=60, end_line=61, is_annotation=True,
                   statuses=(status("operation", "seen", 61),)),
        ),
        findings=(Finding(5, "duplicate record ID MEM-CLM-a (first at line 2)", "duplicate-id"),
                  Finding(40, "MEM-OBJ-unlabelled has no Label: line", "no-label")),
    )
    findings = structure_findings(report)
    assert [(f.line, f.code) for f in findings] == [
        (5, "duplicate-id"),
        (10, "structure"),
        (20, "structure"),
        (31, "status"),
        (40, "no-label"),  # the parser's finding, not doubled
        (61, "status"),
    ]
    by_line = {f.line: f.message for f in findings}
    assert "MEM-RTE-no-operation states no operation conclusion status" in by_line[10]
    assert "no implementation and no operation" in by_line[20]
    assert "unknown implementation status 'probably'" in by_line[31]
    assert "absent, inapplicable, uninspected, claimed, afforded, observed, causally supported" in by_line[31]
    assert "On-RT-RTE-x@L60: unknown operation status 'seen'" in by_line[61]
    assert by_line[40] == "MEM-OBJ-unlabelled has no Label: line"


def test_missing_label_found_even_when_the_parser_did_not_flag_it():
    report = Report(path="r.md", dialect="records", records=(record("MEM-OBJ-bare", 3, label=None),))
    assert [(f.line, f.code) for f in structure_findings(report)] == [(3, "no-label")]
    assert structure_findings(RUNTIME) == []


def test_coverage_and_executable_absences(tmp_path):
    claims = parse_claims(
        "schema: memreport-claims/1\nrecords:\n"
        "  MEM-RTE-entry-refresh:\n    predicates:\n      - contains: {path: a.py, text: x}\n"
        "  MEM-ABS-no-eviction:\n    predicates:\n      - absent: {glob: 'src/**', text: 'evict('}\n"
        "  MEM-ABS-no-remote-sync:\n    observe:\n      - run: pytest -q\n",
        str(tmp_path / "memory.claims.yaml"),
    )
    predicates = {rid: rc.predicates for rid, rc in claims.records.items()}
    observations = {rid: rc.observations for rid, rc in claims.records.items()}
    cov = coverage(MEMORY, predicates, observations)
    assert cov == Coverage(
        records_total=4,
        records_guarded=4,
        unguarded=[],
        selection_predicates_total=1,
        selection_predicates_compiled=1,
    )
    bare = coverage(MEMORY, {}, {})
    assert bare.records_guarded == 1 and bare.unguarded == ["MEM-RTE-entry-refresh", "MEM-ABS-no-eviction", "MEM-ABS-no-remote-sync"]
    assert bare.selection_predicates_compiled == 0 and bare.guarded_fraction == 0.25
    # an observation guards a record but does not make an absence executable
    assert absences_not_executable(MEMORY, predicates) == ["MEM-ABS-no-remote-sync"]
    assert absences_not_executable(MEMORY, {}) == ["MEM-ABS-no-eviction", "MEM-ABS-no-remote-sync"]


MEMORY_MD = """\
# Memory analysis

## Boundary and evidence

SRC-1 commit 1111111111111111111111111111111111111111

## Operative objects

MEM-OBJ-entry-table
Label: Entry table
Part of: RT-CMP-host

Read by RT-RTE-request-loop; written by RT-OBJ-ghost-queue.

## Routes

MEM-RTE-entry-refresh
Label: Entry refresh

- Selection predicate: exact key match.
- implementation conclusion status: wired
- operation conclusion status: maybe

```memreport
- absent: {glob: "src/**", text: "evict(", in: code}
```

## Evidenced absences

MEM-ABS-no-eviction
Label: No eviction path

MEM-ABS-no-remote-copy
Label: No remote copy
"""

RUNTIME_MD = """\
# Runtime analysis

SRC-1 commit 1111111111111111111111111111111111111111

## Components

RT-CMP-host
Label: Host process

## Routes

RT-RTE-request-loop
Label: Request loop

Feeds MEM-OBJ-entry-table through MEM-RTE-entry-refresh.

- implementation conclusion status: afforded
"""


def test_parsed_reports_that_cite_each_other(tmp_path):
    from pytest_memreport.dialects.claims import inline_predicates
    from pytest_memreport.dialects import parse_report, read_report

    reports = []
    for name, text in (("memory.md", MEMORY_MD), ("runtime.md", RUNTIME_MD)):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        reports.append(parse_report(str(path), read_report(path)[0]))
    memory, runtime = reports

    assert dangling_references(reports) == {memory.path: [("RT-OBJ-ghost-queue", [13])]}
    assert dangling_references([runtime]) == {
        runtime.path: [("MEM-OBJ-entry-table", [15]), ("MEM-RTE-entry-refresh", [15])]
    }

    assert [(f.line, f.code) for f in structure_findings(memory)] == [(22, "status")]
    assert [(f.line, f.code) for f in structure_findings(runtime)] == [(12, "structure")]
    assert "states no operation conclusion status" in structure_findings(runtime)[0].message

    predicates = inline_predicates(memory)
    assert [(p.kind, p.line) for p in predicates["MEM-RTE-entry-refresh"]] == [("absent", 25)]
    cov = coverage(memory, predicates, {})
    assert (cov.records_total, cov.records_guarded) == (4, 1)
    assert cov.unguarded == ["MEM-OBJ-entry-table", "MEM-ABS-no-eviction", "MEM-ABS-no-remote-copy"]
    assert (cov.selection_predicates_total, cov.selection_predicates_compiled) == (1, 1)
    assert absences_not_executable(memory, predicates) == ["MEM-ABS-no-eviction", "MEM-ABS-no-remote-copy"]
