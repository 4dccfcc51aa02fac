"""The analysis-tables dialect (FORMAT.md §3): records as table rows, a source
register, anchors with ranges, en dashes, ``SRC-n:`` ranges and bare file names.

The fixtures are ``tables/widget-run.md`` and its plain-text rendering
``tables/widget-run.txt`` (tab-separated rows, no backticks, no claims
table). Every expected value below was read off the fixture files by line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import load_report
from hostile_support import cpu_seconds
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_memreport.dialects import DIALECTS, detect_dialect, tables
from pytest_memreport.model import LineRange, Reference, Report, Source, Status

FIXTURES = Path(__file__).parent / "fixtures" / "tables"
MARKDOWN = FIXTURES / "widget-run.md"
PLAIN = FIXTURES / "widget-run.txt"
PIN = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
SECOND = "b2c3d4e5f60718293a4b5c6d7e8f9012345678a1"
URL = "https://github.com/acme/widget"


load = load_report


def evidence_rows(items) -> list[tuple]:
    return [(e.kind.value, e.path, e.line, e.cited_lines, e.source, e.pin, e.owner, e.label) for e in items]


def sources_of(report: Report) -> tuple[Source, ...]:
    """The sources as (id, pin, url, line): what these tests state about each."""
    return tuple(Source(s.id, s.pin, s.url, s.line) for s in report.sources)


def record(report: Report, record_id: str):
    return next(r for r in report.records if r.id == record_id)


@pytest.fixture(scope="module")
def markdown() -> Report:
    return load(MARKDOWN)


@pytest.fixture(scope="module")
def plain() -> Report:
    return load(PLAIN)


def status_column(path: Path, line: int, before: str, occurrence: int = 1) -> int:
    text = path.read_text(encoding="utf-8").split("\n")[line - 1]
    at = -1
    for _ in range(occurrence):
        at = text.index(before, at + 1)
    return at + len(before)


# --------------------------------------------------------------------------- the Markdown run


def test_header_and_sources(markdown):
    assert markdown.dialect == "tables"
    assert markdown.title == "Analysis run 7: widget job pipeline"
    assert markdown.line_count == 30
    # Register rows 9-11; SRC-03 states no revision, so the run's (line 3) applies.
    assert sources_of(markdown) == (
        Source("SRC-1", PIN, URL, 9),
        Source("SRC-2", SECOND, URL, 10),
        Source("SRC-3", PIN, URL, 11),
    )


def test_records(markdown):
    got = [(r.id, r.lens, r.kind, r.line, r.end_line, r.label, r.label_line) for r in markdown.records]
    assert got == [
        ("OBJ-05a", "", "OBJ", 17, 17, "Job ledger", 17),
        ("OBJ-05b", "", "OBJ", 18, 18, "Ledger cursor", 18),
        ("OBJ-06", "", "OBJ", 19, 19, "Retry timer", 19),
        # No Label column: the cell after the ID names the row.
        ("CLM-1/a1", "", "CLM", 25, 25, "Flushing the ledger precedes dispatch, as OBJ-05a records.", 25),
        ("CLM-1/a2", "", "CLM", 26, 26, "The cursor only moves forward.", 26),
        ("MEM-CLM-flush-order", "MEM", "CLM", 27, 27, "Ordered flush", 27),
    ]


def test_anchors_with_several_ranges_and_en_dashes(markdown):
    assert evidence_rows(record(markdown, "OBJ-05a").evidence) == [
        ("lines", "src/jobs/ledger.ts", 17, LineRange(12, 30), None, None, "OBJ-05a", None),
        ("lines", "src/jobs/ledger.ts", 17, LineRange(44, 51), None, None, "OBJ-05a", None),
    ]
    assert evidence_rows(record(markdown, "CLM-1/a1").evidence) == [
        ("lines", "src/jobs/dispatch.ts", 25, LineRange(40, 52), None, None, "CLM-1/a1", None),
    ]


def test_source_ranges_resolve_through_the_register(markdown):
    # SRC-2's register row (line 10) names src/jobs/dispatch.ts; the range uses an en dash.
    assert evidence_rows(record(markdown, "OBJ-05b").evidence) == [
        ("lines", "src/jobs/dispatch.ts", 18, LineRange(96, 101), "SRC-2", None, "OBJ-05b", None),
    ]
    # SRC-3's row names no file: a finding, and no evidence.
    assert record(markdown, "CLM-1/a2").evidence == ()
    assert [(f.line, f.code) for f in markdown.findings] == [(26, "path")]
    assert "SRC-3:10-12" in markdown.findings[0].message


def test_basenames_and_directories(markdown):
    assert evidence_rows(record(markdown, "OBJ-06").evidence) == [
        ("lines", "retry_timer.ts", 19, LineRange(313, 313), None, None, "OBJ-06", "basename"),
        ("lines", "index.ts", 19, LineRange(4, 4), None, None, "OBJ-06", "basename"),
        ("directory", "src/jobs", 19, None, None, None, "OBJ-06", None),
    ]


def test_links_in_cells_name_the_registered_source(markdown):
    assert evidence_rows(record(markdown, "MEM-CLM-flush-order").evidence) == [
        ("lines", "src/jobs/dispatch.ts", 27, LineRange(40, 52), "SRC-1", PIN, "MEM-CLM-flush-order", "dispatch.ts"),
    ]


def test_statuses_in_cells(markdown):
    path = MARKDOWN
    assert record(markdown, "OBJ-05a").statuses == (
        Status("implementation", "", "afforded", 17, status_column(path, 17, "conclusion status: ")),
    )
    assert record(markdown, "OBJ-05b").statuses == (
        Status("implementation", "", "afforded", 18, status_column(path, 18, "conclusion status: ")),
        Status("operation", "", "uninspected", 18, status_column(path, 18, "conclusion status: ", 2)),
    )
    assert record(markdown, "OBJ-06").statuses[0].value == "claimed"
    assert markdown.statuses == ()


def test_report_evidence_and_references(markdown):
    assert evidence_rows(markdown.evidence) == [
        ("path", "src/jobs/dispatch.ts", 10, None, "SRC-2", None, None, "source register"),
        ("lines", "src/jobs/queue.ts", 29, LineRange(5, 9), None, None, None, None),
        ("path", "src/jobs/util.ts", 30, None, None, None, None, "backticked path"),
    ]
    assert record(markdown, "CLM-1/a1").references == (Reference("OBJ-05a", 25),)
    assert markdown.references == (Reference("OBJ-07", 29),)


# --------------------------------------------------------------------------- the plain-text rendering


def test_plain_rendering(plain):
    assert plain.dialect == "tables"
    assert plain.title == "Analysis run 7: widget job pipeline"
    assert sources_of(plain) == (Source("SRC-1", PIN, URL, 8), Source("SRC-2", SECOND, URL, 9))
    assert [(r.id, r.line, r.label) for r in plain.records] == [
        ("OBJ-05a", 14, "Job ledger"), ("OBJ-05b", 15, "Ledger cursor"), ("OBJ-06", 16, "Retry timer"),
    ]
    assert evidence_rows(record(plain, "OBJ-05b").evidence) == [
        ("lines", "src/jobs/dispatch.ts", 15, LineRange(96, 101), "SRC-2", None, "OBJ-05b", None),
    ]
    assert [(e.path, e.cited_lines, e.label) for e in record(plain, "OBJ-06").evidence] == [
        ("retry_timer.ts", LineRange(313, 313), "basename"),
        ("index.ts", LineRange(4, 4), "basename"),
        ("src/jobs", None, None),
    ]
    # Prose without backticks: only the anchor with lines (line 18) is evidence, not line 19's path.
    assert evidence_rows(plain.evidence) == [
        ("path", "src/jobs/dispatch.ts", 9, None, "SRC-2", None, None, "source register"),
        ("lines", "src/jobs/queue.ts", 18, LineRange(5, 9), None, None, None, None),
    ]
    assert [s.value for s in record(plain, "OBJ-05b").statuses] == ["afforded", "uninspected"]
    assert plain.references == (Reference("OBJ-07", 18),)
    assert plain.findings == ()


# --------------------------------------------------------------------------- smaller cases


def parse_md(text: str) -> Report:
    return tables.parse("run.md", text)


@pytest.mark.parametrize(
    "cell, expected",
    [
        ("OBJ-05a", "OBJ-05a"), ("`CLM-1/a1`", "CLM-1/a1"), ("**MEM-OBJ-cache**", "MEM-OBJ-cache"),
        ("SRC-01", None), ("HTTP-GET", None), ("obj-1", None), ("OBJ-", None), ("OBJ 1", None),
    ],
)
def test_table_ids(cell, expected):
    assert tables.table_id(cell) == expected


def test_kind_and_lens_of_ids():
    assert tables.split_table_id("MEM-OBJ-05") == ("MEM", "OBJ")
    assert tables.split_table_id("CLM-1/a1") == ("", "CLM")
    assert tables.split_table_id("Q-7") == ("", None)


def test_kind_column_and_duplicate_ids_and_frozen_revision():
    text = (
        "**Frozen revision:** abcdef1234\n"  # 1
        "\n"
        "| ID | Name | Kind | Anchors |\n"  # 3
        "|---|---|---|---|\n"
        "| Q-7 | Seven | claim | `a/b.py:3` |\n"  # 5
        "| Q-7 | Again | claim | `a/b.py:9` |\n"  # 6
        "| Q-8 | Eight | widget | `a/b.py:0-2` |\n"  # 7
    )
    report = parse_md(text)
    assert sources_of(report) == (Source("SRC-1", "abcdef1234", None, 1),)
    assert [(r.id, r.kind, r.label) for r in report.records] == [
        ("Q-7", "CLM", "Seven"), ("Q-7", "CLM", "Again"), ("Q-8", "Q", "Eight"),
    ]
    assert [(f.line, f.code) for f in report.findings] == [(6, "duplicate-id"), (7, "path")]


def test_register_with_blob_link_and_source_citations():
    text = (
        "| Source | Where |\n"
        "|---|---|\n"
        f"| SRC-1 | [store](https://github.com/acme/widget/blob/{PIN}/lib/store.rb) |\n"  # 3
        "\n"
        "| ID | Label | Anchors |\n"
        "|---|---|---|\n"
        "| OBJ-1 | Store | SRC-1:4-6 and SRC-1 `lib/a.rb:2` |\n"  # 7
    )
    report = parse_md(text)
    assert sources_of(report) == (Source("SRC-1", PIN, URL, 3),)
    assert evidence_rows(record(report, "OBJ-1").evidence) == [
        ("lines", "lib/store.rb", 7, LineRange(4, 6), "SRC-1", None, "OBJ-1", None),
        ("lines", "lib/a.rb", 7, LineRange(2, 2), "SRC-1", None, "OBJ-1", None),
    ]


def test_tables_without_ids_are_not_records():
    text = (
        "**Revision:** abcdef1\n\n"
        "| Area | Files |\n|---|---|\n"
        "| Ingest | `src/in.py:1-4` |\n"  # 5
    )
    report = parse_md(text)
    assert report.records == ()
    assert evidence_rows(report.evidence) == [("lines", "src/in.py", 5, LineRange(1, 4), None, None, None, None)]


def test_registry():
    assert DIALECTS["tables"] is tables.parse
    assert detect_dialect(MARKDOWN.read_text(encoding="utf-8"), str(MARKDOWN)) == "tables"


# --------------------------------------------------------------------------- robustness

FRAGMENTS = [
    "\n", "|", " | ", "|---|---|\n", "\t", "OBJ-05a", "CLM-1/a1", "SRC-1", "SRC-2:", "96–101", "1-3,7-9",
    "`", "src/a.ts", ":12", "x.ts:3", "**Revision:** ", PIN, "conclusion status: ", "afforded. ", "[l](",
    f"https://github.com/o/r/blob/{PIN}/a/b.py#L1-L2", ")", "```\n", "---\n", " ", "a", "\r", "# T\n",
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=6)), max_size=60),
       st.sampled_from(["r.md", "r.txt"]))
def test_parser_never_raises_and_positions_hold(parts, name):
    text = "".join(parts)
    report = tables.parse(name, text)
    count = max(report.line_count, 1)
    for evidence in report.all_evidence():
        assert 1 <= evidence.line <= evidence.end_line <= count
        assert evidence.path
    for rec in report.records:
        assert 1 <= rec.line <= count
        assert all(e.owner == rec.id for e in rec.evidence)
    for finding in report.findings:
        assert 1 <= finding.line <= count


@pytest.mark.parametrize(
    "text",
    [
        "| " + "A-" * 20000 + " |\n|---|\n| x |\n",
        "see " + "OBJ-1-" * 10000 + "_\n",
        "Revision" + "*" * 20000 + "\n",
        "| OBJ-1 | " + "SRC-1:" * 10000 + " |\n",
        "\t".join(["OBJ-1"] * 5000) + "\n" + "x\t" * 5000 + "\n",
        "| OBJ-1 | `" + "a/" * 20000 + ":1` |\n",
    ],
)
def test_adversarial_lines_parse_quickly(text):
    def parse_all():
        tables.parse("r.md", text)
        tables.parse("r.txt", text)
        detect_dialect(text, "r.md")

    assert cpu_seconds(parse_all) < 2.0
