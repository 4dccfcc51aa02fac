"""The record-report dialect (FORMAT.md §1): reading, lexing and parsing.

The two fixtures are one report, ``lantern-memory.md`` and its plain-text
rendering ``lantern-memory.txt`` (tables become tab-separated lines, bullets
``•``, inline markup is dropped and fenced code blocks vanish, as in the seed
renderings). Every expected value below was read off the fixture files by
line number, not copied from the parser's output.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from conftest import load_report
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hostile_support import calls_made, cpu_seconds

from pytest_memreport.dialects import (
    DIALECTS,
    ReportError,
    detect_dialect,
    core,
    parse_report,
    read_report,
    records,
)
from pytest_memreport.model import EvidenceKind, LineRange, Reference, Report, TextBlock

FIXTURES = Path(__file__).parent / "fixtures" / "records"
MARKDOWN = FIXTURES / "lantern-memory.md"
PLAIN = FIXTURES / "lantern-memory.txt"
PIN = "0123456789abcdef0123456789abcdef01234567"


load = load_report


def record(report: Report, node: str):
    """The first record with that item name (the fixture declares one ID twice)."""
    return next(r for r in report.records if r.node_name == node)


def status_column(path: Path, line: int, before: str) -> int:
    """Where a status value starts: right after ``before`` on that report line."""
    text = path.read_text(encoding="utf-8").split("\n")[line - 1]
    return text.index(before) + len(before)


def evidence_rows(rec) -> list[tuple]:
    return [
        (e.kind.value, e.path, e.line, e.end_line, e.text, e.cited_lines, e.source)
        for e in rec.evidence
    ]


# --------------------------------------------------------------------------- the Markdown fixture


@pytest.fixture(scope="module")
def markdown() -> Report:
    return load(MARKDOWN)


@pytest.fixture(scope="module")
def plain() -> Report:
    return load(PLAIN)


def test_markdown_report_header(markdown):
    assert markdown.dialect == "records"
    assert markdown.title == "Lantern memory report"
    assert markdown.line_count == 153
    assert markdown.meta["front_matter"] == {
        "type": "analyses/types/memory-report.md",
        "description": "Memory report of the Lantern job queue",
    }
    assert [(s.id, s.pin, s.url, s.line) for s in markdown.sources] == [
        ("SRC-1", PIN, "https://github.com/lantern-org/lantern", 10),
        ("SRC-2", None, None, 12),
    ]


def test_markdown_records_spans_labels_and_kinds(markdown):
    rows = [
        (r.node_name, r.lens, r.kind, r.kind_name, r.line, r.end_line, r.label, r.label_line, r.part_of)
        for r in markdown.records
    ]
    assert rows == [
        ("LAN-CMP-scheduler", "LAN", "CMP", "component", 28, 37, "Scheduler process", 30, None),
        ("LAN-OBJ-job-journal", "LAN", "OBJ", "operative object", 41, 70, "Job journal", 43,
         "LAN-CMP-scheduler"),
        ("LAN-OBJ-orphan", "LAN", "OBJ", "operative object", 72, 74, None, None, None),
        ("LAN-RTE-job-submit", "LAN", "RTE", "route", 78, 99, "Job submission", 80, None),
        ("LAN-CLM-exactly-once", "LAN", "CLM", "claim", 103, 111, "Exactly-once delivery", 105, None),
        ("LAN-ABS-no-encryption", "LAN", "ABS", "evidenced absence", 115, 119, "No journal encryption",
         117, None),
        ("LAN-BAP-config-reload", "LAN", "BAP", "behavioral-authority path", 123, 127,
         "Config reload to worker behavior", 125, None),
        ("LAN-CMP-scheduler", "LAN", "CMP", "component", 129, 133, "Scheduler again", 131, None),
        ("On-RT-RTE-dispatch-loop@L137", "RT", "RTE", "route", 137, 141, None, None, None),
    ]
    annotation = markdown.records[-1]
    assert annotation.is_annotation and annotation.id == "RT-RTE-dispatch-loop"
    assert markdown.declared_ids() == {
        "LAN-CMP-scheduler", "LAN-OBJ-job-journal", "LAN-OBJ-orphan", "LAN-RTE-job-submit",
        "LAN-CLM-exactly-once", "LAN-ABS-no-encryption", "LAN-BAP-config-reload",
    }


def test_markdown_findings(markdown):
    assert [(f.line, f.code) for f in markdown.findings] == [(72, "no-label"), (129, "duplicate-id")]
    assert "LAN-OBJ-orphan" in markdown.findings[0].message
    assert "Label:" in markdown.findings[0].message
    assert "first at line 28" in markdown.findings[1].message


def test_markdown_statuses_with_qualifiers_values_and_columns(markdown):
    scheduler = record(markdown, "LAN-CMP-scheduler")
    assert [(s.axis, s.qualifier, s.value, s.line, s.column) for s in scheduler.statuses] == [
        ("implementation", "direct definition", "afforded", 36,
         status_column(MARKDOWN, 36, "conclusion status: ")),
        ("operation", "", "causally supported", 37, status_column(MARKDOWN, 37, "conclusion status: ")),
    ]
    assert all(s.known for s in scheduler.statuses)
    route = record(markdown, "LAN-RTE-job-submit")
    assert [(s.axis, s.value, s.canonical, s.line) for s in route.statuses] == [
        ("implementation", "wired", "afforded", 91),
        ("operation", "uninspected", "uninspected", 92),
    ]
    claim = record(markdown, "LAN-CLM-exactly-once")
    assert [(s.axis, s.qualifier, s.value, s.line, s.column) for s in claim.statuses] == [
        ("operation", "claimed", "claimed", 109, len("Claimed operation conclusion status: "))
    ]
    # Two statuses in one table cell, outside any record.
    row = MARKDOWN.read_text(encoding="utf-8").split("\n")[16]
    assert [(s.axis, s.qualifier, s.value, s.line, s.column) for s in markdown.statuses] == [
        ("implementation", "signoff and reconstruction", "wired", 17,
         row.index("status: wired") + len("status: ")),
        ("operation", "", "uninspected", 17, row.index("status: uninspected") + len("status: ")),
    ]
    assert row[markdown.statuses[1].column:].startswith("uninspected. |")


def test_markdown_evidence_of_each_record(markdown):
    assert evidence_rows(record(markdown, "LAN-CMP-scheduler")) == [
        ("lines", "lantern/sched/clock.py", 32, 32, None, LineRange(10, 14), "SRC-1"),
        ("path", "lantern/sched/main.py", 32, 32, None, None, "SRC-1"),
        ("quote", "lantern/sched/clock.py", 34, 34, "TICK_SECONDS = 5", LineRange(12, 12), None),
    ]
    assert evidence_rows(record(markdown, "LAN-OBJ-job-journal")) == [
        ("path", "lantern/queue/journal.py", 47, 47, None, None, "SRC-1"),
        ("path", "plugins/audit/hook.ts", 47, 47, None, None, "SRC-2"),
        ("directory", "plugins/audit", 47, 47, None, None, "SRC-2"),
        # three paragraphs of inline code, only the last carrying --- path
        ("quote", "lantern/queue/journal.py", 51, 55,
         "def append(self, entry):\nself._fh.write(entry.encode())\nself._fh.flush()",
         LineRange(40, 44), None),
        # a fenced block followed by its --- path line
        ("quote", "lantern/queue/journal.py", 57, 61,
         'with open(path, "a") as fh:\n    fh.write(line)', None, None),
        # a quoted YAML list: the second item keeps its bullet
        ("quote", "config/defaults.yml", 65, 66, "retention: 7d\n• compaction: nightly", None, None),
        # an elided middle is kept as written
        ("quote", "lantern/queue/reader.py", 70, 70, "for raw in fh: ... yield decode(raw)", None, None),
    ]
    assert evidence_rows(record(markdown, "LAN-OBJ-orphan")) == []
    assert evidence_rows(record(markdown, "LAN-RTE-job-submit")) == [
        ("path", "lantern/api/jobs.py", 82, 82, None, None, "SRC-1"),
        ("quote", "lantern/api/jobs.py", 99, 99, "if queue.paused: raise QueuePaused(queue.name)",
         LineRange(88, 90), None),
    ]
    assert evidence_rows(record(markdown, "LAN-CLM-exactly-once")) == [
        ("quote", "README.md", 111, 111, '"Every job runs exactly once."', None, None),
    ]
    for quiet in ("LAN-ABS-no-encryption", "LAN-BAP-config-reload"):
        assert evidence_rows(record(markdown, quiet)) == []
    assert evidence_rows(record(markdown, "On-RT-RTE-dispatch-loop@L137")) == [
        ("path", "lantern/queue/retry.py", 139, 139, None, None, "SRC-1"),
        ("quote", "lantern/queue/retry.py", 141, 141, "retry_queue.drain(now)", None, None),
    ]
    assert [(e.kind, e.path, e.line, e.owner) for e in markdown.evidence] == [
        (EvidenceKind.PATH, "lantern/sched/main.py", 149, None),
    ]
    for rec in markdown.records:
        assert all(e.owner == rec.id and rec.line <= e.line <= e.end_line <= rec.end_line
                   for e in rec.evidence)


def test_markdown_predicates(markdown):
    route = record(markdown, "LAN-RTE-job-submit")
    assert route.selection_predicates == (
        TextBlock("queue name equals the job's queue; oldest first.", 87, 87),
    )
    assert route.inline_predicates == (
        TextBlock("- path: lantern/api/jobs.py\n  defines: submit_job", 95, 96),
    )
    lines = MARKDOWN.read_text(encoding="utf-8").split("\n")
    assert lines[95 - 1] == "- path: lantern/api/jobs.py"  # TextBlock.line is the YAML's first line
    assert all(not r.inline_predicates for r in markdown.records if r is not route)


def test_markdown_references(markdown):
    assert list(markdown.references) == [
        Reference("LAN-RTE-job-submit", 16), Reference("RT-RTE-dispatch-loop", 16),
        Reference("LAN-OBJ-job-journal", 22), Reference("LAN-RTE-job-submit", 22),
        Reference("LAN-RTE-job-submit", 145),
        Reference("LAN-OBJ-job-journal", 149), Reference("LAN-CMP-scheduler", 149),
    ]
    assert record(markdown, "LAN-OBJ-job-journal").references == (
        Reference("LAN-CMP-scheduler", 45, "part-of"),
    )
    assert record(markdown, "On-RT-RTE-dispatch-loop@L137").references == (
        Reference("RT-RTE-dispatch-loop", 137, "annotation"),
    )
    # a declaration does not reference itself, not even the duplicate one
    assert record(markdown, "LAN-CMP-scheduler").references == ()
    assert len(markdown.all_references()) == 9


# --------------------------------------------------------------------------- the plain-text rendering


def test_plain_rendering_header_and_records(plain):
    assert plain.title == "Lantern memory report"
    assert plain.line_count == 139
    assert "front_matter" not in plain.meta
    assert [(s.id, s.pin, s.url, s.line) for s in plain.sources] == [
        ("SRC-1", PIN, "https://github.com/lantern-org/lantern", 7),
        ("SRC-2", None, None, 9),
    ]
    assert [(r.node_name, r.line, r.end_line, r.label, r.label_line, r.part_of) for r in plain.records] == [
        ("LAN-CMP-scheduler", 23, 32, "Scheduler process", 25, None),
        ("LAN-OBJ-job-journal", 36, 61, "Job journal", 38, "LAN-CMP-scheduler"),
        ("LAN-OBJ-orphan", 63, 65, None, None, None),
        ("LAN-RTE-job-submit", 69, 85, "Job submission", 71, None),
        ("LAN-CLM-exactly-once", 89, 97, "Exactly-once delivery", 91, None),
        ("LAN-ABS-no-encryption", 101, 105, "No journal encryption", 103, None),
        ("LAN-BAP-config-reload", 109, 113, "Config reload to worker behavior", 111, None),
        ("LAN-CMP-scheduler", 115, 119, "Scheduler again", 117, None),
        ("On-RT-RTE-dispatch-loop@L123", 123, 127, None, None, None),
    ]


def test_plain_rendering_statuses_and_tab_separated_cells(plain):
    scheduler = record(plain, "LAN-CMP-scheduler")
    assert [(s.axis, s.qualifier, s.value, s.line, s.column) for s in scheduler.statuses] == [
        ("implementation", "direct definition", "afforded", 31,
         status_column(PLAIN, 31, "conclusion status: ")),
        ("operation", "", "causally supported", 32, status_column(PLAIN, 32, "conclusion status: ")),
    ]
    row = PLAIN.read_text(encoding="utf-8").split("\n")[12]
    assert "\t" in row
    assert [(s.axis, s.qualifier, s.value, s.line, s.column) for s in plain.statuses] == [
        ("implementation", "signoff and reconstruction", "wired", 13,
         row.index("status: wired") + len("status: ")),
        ("operation", "", "uninspected", 13, row.index("status: uninspected") + len("status: ")),
    ]


def test_plain_rendering_evidence(plain):
    assert evidence_rows(record(plain, "LAN-CMP-scheduler")) == [
        ("lines", "lantern/sched/clock.py", 27, 27, None, LineRange(10, 14), "SRC-1"),
        ("path", "lantern/sched/main.py", 27, 27, None, None, "SRC-1"),
        ("quote", "lantern/sched/clock.py", 29, 29, "TICK_SECONDS = 5", LineRange(12, 12), None),
    ]
    assert evidence_rows(record(plain, "LAN-OBJ-job-journal")) == [
        ("path", "lantern/queue/journal.py", 42, 42, None, None, "SRC-1"),
        ("path", "plugins/audit/hook.ts", 42, 42, None, None, "SRC-2"),
        ("directory", "plugins/audit", 42, 42, None, None, "SRC-2"),
        ("quote", "lantern/queue/journal.py", 46, 50,
         "def append(self, entry):\nself._fh.write(entry.encode())\nself._fh.flush()",
         LineRange(40, 44), None),
        # the rendering dropped the fenced block: only its path survives
        ("path", "lantern/queue/journal.py", 52, 52, None, None, None),
        ("quote", "config/defaults.yml", 56, 57, "retention: 7d\n• compaction: nightly", None, None),
        ("quote", "lantern/queue/reader.py", 61, 61, "for raw in fh: ... yield decode(raw)", None, None),
    ]
    assert evidence_rows(record(plain, "LAN-RTE-job-submit")) == [
        ("path", "lantern/api/jobs.py", 73, 73, None, None, "SRC-1"),
        ("quote", "lantern/api/jobs.py", 85, 85, "if queue.paused: raise QueuePaused(queue.name)",
         LineRange(88, 90), None),
    ]
    assert evidence_rows(record(plain, "On-RT-RTE-dispatch-loop@L123")) == [
        ("path", "lantern/queue/retry.py", 125, 125, None, None, "SRC-1"),
        ("quote", "lantern/queue/retry.py", 127, 127, "retry_queue.drain(now)", None, None),
    ]
    route = record(plain, "LAN-RTE-job-submit")
    assert route.selection_predicates == (
        TextBlock("queue name equals the job's queue; oldest first.", 78, 78),
    )
    assert route.inline_predicates == ()  # a rendering loses fenced blocks
    assert [(f.line, f.code) for f in plain.findings] == [
        (52, "structure"), (63, "no-label"), (115, "duplicate-id"),
    ]
    assert "no quoted text" in plain.findings[0].message


def test_rendering_and_original_agree_on_everything_but_lines_and_fences(markdown, plain):
    def survives_rendering(evidence) -> bool:
        # The fenced quotation is the one thing the rendering loses: the
        # original has its text, the rendering only its bare --- path line.
        fenced = evidence.text is not None and evidence.text.startswith("with open")
        bare = evidence.kind == EvidenceKind.PATH and evidence.source is None
        return not (fenced or bare)

    def content(report):
        return [
            (r.node_name.split("@")[0], r.label, r.part_of,
             [(s.axis, s.qualifier, s.value) for s in r.statuses],
             [(e.kind, e.path, e.text, e.cited_lines, e.source) for e in r.evidence if survives_rendering(e)],
             [(ref.target, ref.context) for ref in r.references],
             [p.text for p in r.selection_predicates])
            for r in report.records
        ]

    assert content(markdown) == content(plain)
    assert [(r.target, r.context) for r in markdown.references] == [
        (r.target, r.context) for r in plain.references
    ]


# --------------------------------------------------------------------------- reading files


def test_read_report_strips_bom_and_normalises_line_endings(tmp_path):
    path = tmp_path / "report.md"
    path.write_bytes(b"\xef\xbb\xbfTitle\r\nMEM-OBJ-a\r\rLabel: A\n")
    text, findings = read_report(path)
    assert text == "Title\nMEM-OBJ-a\n\nLabel: A\n"
    assert findings == []
    report = parse_report(str(path), text)
    assert [(r.id, r.line, r.label, r.label_line) for r in report.records] == [("MEM-OBJ-a", 2, "A", 4)]


def test_read_report_rejects_non_utf8_with_one_line(tmp_path):
    path = tmp_path / "report.md"
    path.write_bytes(b"first\nsecond\nbad \xff byte\n")
    with pytest.raises(ReportError) as error:
        read_report(path)
    message = str(error.value)
    assert message == f"{path} is not UTF-8 text (byte 0xff at line 3); re-save it as UTF-8"
    assert "\n" not in message


def test_read_report_unreadable_files(tmp_path):
    with pytest.raises(ReportError, match="does not exist; check the report path"):
        read_report(tmp_path / "missing.md")
    with pytest.raises(ReportError, match="is a directory"):
        read_report(tmp_path)


def test_read_report_findings_for_empty_and_control_characters(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"\n  \n")
    assert [(f.line, f.code) for f in read_report(empty)[1]] == [(1, "parse")]
    control = tmp_path / "control.txt"
    control.write_bytes(b"one\ntwo\nth\x00ree\n")
    text, findings = read_report(control)
    assert [(f.line, f.code) for f in findings] == [(3, "parse")]
    assert "U+0000" in findings[0].message
    assert parse_report(str(control), text).line_count == 3


def test_dialect_registry_and_unknown_dialect():
    assert DIALECTS["records"] is records.parse and set(DIALECTS) == {"records", "review", "notes", "tables"}
    assert detect_dialect("anything", "x.md") == "records"
    report = parse_report("x.txt", "MEM-OBJ-a\nLabel: A\n", dialect="records")
    assert report.dialect == "records"
    with pytest.raises(ReportError, match="unknown report dialect 'poetry'; use one of notes, records, review, tables"):
        parse_report("x.md", "", dialect="poetry")


# --------------------------------------------------------------------------- line patterns


def test_record_ids_in_prose():
    found = core.find_record_ids(
        "See MEM-OBJ-a-b, (RT-RTE-1) and `EPI-CLM-x`; not MEM-OBJ-Upper, XMEM-FOO-a or mem-obj-a, "
        "MEM-OBJ-trail- ends."
    )
    assert [(f.id, f.lens, f.kind) for f in found] == [
        ("MEM-OBJ-a-b", "MEM", "OBJ"), ("RT-RTE-1", "RT", "RTE"), ("EPI-CLM-x", "EPI", "CLM"),
        ("MEM-OBJ-trail", "MEM", "OBJ"),
    ]


@pytest.mark.parametrize(
    "line, expected",
    [
        ("  • implementation conclusion status: wired", [("implementation", "", "wired")]),
        ("- **direct definition implementation conclusion status:** `afforded`",
         [("implementation", "direct definition", "afforded")]),
        ("Required. implementation conclusion status: wired. operation conclusion status: observed.",
         [("implementation", "", "wired"), ("operation", "", "observed")]),
        ("a\tsignoff and reconstruction implementation conclusion status: implemented.\tb",
         [("implementation", "signoff and reconstruction", "implemented")]),
        ("operation conclusion status: Causally  Supported", [("operation", "", "causally supported")]),
        ("operation conclusion status: partially observed", [("operation", "", "partially")]),
        # a sentence before the axis is not a qualifier
        ("we looked at all of the code and the implementation conclusion status: wired",
         [("implementation", "", "wired")]),
        ("implementation conclusion status:", [("implementation", "", "")]),
        ("no status here: wired", []),
    ],
)
def test_status_lines(line, expected):
    assert [(s.axis, s.qualifier, s.value) for s in core.find_statuses(line)] == expected


def test_status_without_value_is_a_finding():
    report = parse_report("r.txt", "MEM-RTE-a\nLabel: A\n  • operation conclusion status:\n")
    assert report.records[0].statuses == ()
    assert [(f.line, f.code) for f in report.findings] == [(3, "status")]


SHA = "4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f"


@pytest.mark.parametrize(
    "line, source, sha",
    [
        (f"The subject is at SRC-1 commit {SHA}.", "SRC-1", SHA),
        (f"SRC-3, commit `{SHA[:12]}`", "SRC-3", SHA[:12]),
        (f"Direct git rev-parse HEAD matched {SHA}; status clean.", None, SHA),
        (f"Source HEAD was rechecked as {SHA}.", None, SHA),
        (f"Reviewed revision: main at {SHA}", None, SHA),
        (f"**Reviewed commit:** [{SHA}](https://github.com/o/r/commit/{SHA})", None, SHA),
        (f"**Reviewed commit:** [{SHA[:7]}](https://github.com/o/r/commit/{SHA})", None, SHA[:7]),
    ],
)
def test_pin_forms(line, source, sha):
    assert [(p.source, p.sha) for p in core.find_pins(line)] == [(source, sha)]


def test_not_pins():
    assert core.find_pins("the job succeeded at commit time") == []
    assert core.find_pins(f"SRC-1 commit {SHA}0") == []  # 41 hex digits are no sha
    assert core.find_pins("HEAD was rechecked as abc") == []  # too short


def test_repository_urls():
    assert core.find_repository_url("Source: https://github.com/owner/name.git.") == (
        "https://github.com/owner/name"
    )
    assert core.find_repository_url("**Repository:** https://github.com/o/r") == "https://github.com/o/r"
    assert core.find_repository_url("see https://github.com/o/r") is None


@pytest.mark.parametrize(
    "line, text, path, ranges",
    [
        ("x = 1 --- src/a.py", "x = 1", "src/a.py", ()),
        ("if entry.stale: entry.drop() --- pkg/cache.py:120-134", "if entry.stale: entry.drop()",
         "pkg/cache.py", (LineRange(120, 134),)),
        ("y --- `lib/b.rs:7`", "y", "lib/b.rs", (LineRange(7, 7),)),
        ("z --- lib/c.go:3–9", "z", "lib/c.go", (LineRange(3, 9),)),
        ("all: build --- Makefile", "all: build", "Makefile", ()),
        ("--- docs/empty.md", "", "docs/empty.md", ()),
    ],
)
def test_quotation_lines(line, text, path, ranges):
    tail = core.split_quotation(line)
    assert (tail.text, tail.spec.path, tail.spec.ranges) == (text, path, ranges)


@pytest.mark.parametrize(
    "line",
    ["It is simple --- done.", "a --- b c", "a --- https://example.com/x", "a -- b.py", "a---b.py",
     "version --- 2"],
)
def test_not_quotation_lines(line):
    assert core.split_quotation(line) is None


def test_backwards_line_range_is_a_finding_not_a_crash():
    report = parse_report("r.txt", "MEM-OBJ-a\nLabel: A\nx = 1 --- src/a.py:9-3\n")
    [quote] = report.records[0].evidence
    assert (quote.kind, quote.path, quote.cited_lines) == (EvidenceKind.QUOTE, "src/a.py", None)
    assert [(f.line, f.code) for f in report.findings] == [(3, "path")]


def test_path_citation_forms():
    def cited(line):
        return [(c.source, c.spec.path, c.spec.ranges) for c in core.find_path_citations(line)]

    assert cited("SRC-1: dir/a.py, dir/b.ts.") == [("SRC-1", "dir/a.py", ()), ("SRC-1", "dir/b.ts", ())]
    assert cited("SRC-1: a/b.rs; closest supplied account is the parent/child note.") == [
        ("SRC-1", "a/b.rs", ())
    ]
    assert cited("SRC-1: a/b.py, c/d.py; RT-RTE-x.") == [("SRC-1", "a/b.py", ()), ("SRC-1", "c/d.py", ())]
    assert cited("Supplied SRC-1 x/y.rs and x/z.rs establish it") == [
        ("SRC-1", "x/y.rs", ()), ("SRC-1", "x/z.rs", ())
    ]
    assert cited("(SRC-2 src/q.ts)") == [("SRC-2", "src/q.ts", ())]
    assert cited("SRC-1: src/x.ts:10-12,20-21") == [
        ("SRC-1", "src/x.ts", (LineRange(10, 12), LineRange(20, 21)))
    ]
    assert cited("All findings use SRC-1 at the boundary revision, see a/b.py") == []
    assert cited("SRC-1: a.py. Full Cursor/Claude behavior") == [("SRC-1", "a.py", ())]
    assert cited("SRC-1: e.g., whatever") == []


@pytest.mark.parametrize(
    "text, prose",
    [
        ("The guard reads:", True),
        ("It ends like a sentence.", True),
        ("Ordinary invocation, ownership and return", True),
        ("def append(self, entry):", False),
        ("else:", False),
        ("Resources:", False),
        ("const module = await import(spec) as Record< string, unknown", False),
        ("return total ...", False),
        ("retention: 7d", False),
    ],
)
def test_prose_or_code(text, prose):
    assert core.reads_as_prose(text) is prose


# --------------------------------------------------------------------------- quotations across paragraphs


def quotes(report: Report) -> list[tuple[int, int, str]]:
    return [(e.line, e.end_line, e.text) for e in report.all_evidence() if e.kind == EvidenceKind.QUOTE]


def test_split_quote_joins_code_paragraphs_and_stops_at_prose():
    text = (
        "MEM-OBJ-a\n\nLabel: A\n\n"
        "The loader says:\n\n"       # 5: prose stops the walk
        "if ready and\n\n"           # 7
        "not closed: go()\n\n"       # 9
        "; --- src/a.py\n"           # 11
    )
    assert quotes(parse_report("r.txt", text)) == [(7, 11, "if ready and\nnot closed: go()\n;")]


def test_split_quote_stops_at_status_bullets_and_other_quotes():
    text = (
        "MEM-RTE-a\nLabel: A\n"
        "  • operation conclusion status: uninspected\n"  # 3
        "x = 1\n"                                         # 4
        "y = 2 --- src/a.py\n"                            # 5
        "  • item without sentence end\n"                 # 6
        "z = 3 --- src/b.py\n"                            # 7: a bullet above a paragraph quote stops it
        "w = 4 --- src/c.py\n"                            # 8: another quote line above stops it
    )
    assert quotes(parse_report("r.txt", text)) == [
        (4, 5, "x = 1\ny = 2"), (7, 7, "z = 3"), (8, 8, "w = 4")
    ]


def test_split_quote_with_empty_last_paragraph_joins_code_above():
    text = "MEM-OBJ-a\nLabel: A\nThat is it.\n\nreturn cache[key]\n\n--- src/cache.py:4-4\n"
    report = parse_report("r.txt", text)
    assert quotes(report) == [(5, 7, "return cache[key]")]
    assert report.findings == ()


def test_trailing_elision_keeps_the_quote_going():
    text = "MEM-OBJ-a\nLabel: A\nstart = now() ...\n\n... stop(start) --- src/t.py\n"
    assert quotes(parse_report("r.txt", text)) == [(3, 5, "start = now() ...\n... stop(start)")]


def test_markdown_quotes_in_inline_code_blockquotes_and_soft_breaks():
    text = (
        "## Shared records\n\n"                                              # 1
        "#### MEM-OBJ-a — Named in the heading\n\n"                          # 3
        "Template literals lose their backticks:\n"                          # 5
        "`return `skills/${name}.json`;` --- `src/skills.ts`\n\n"             # 6
        "> `if (open.length === 0) { return null; }`\n"                      # 8
        "> --- `src/todo.ts:10-12`\n\n"                                      # 9
        "`__init__` is read from --- src/pkg/__init__.py\n\n"                # 11
        "`const a = b(\nc);` --- src/x.js\n"                                 # 13-14
    )
    report = parse_report("r.md", text)
    [rec] = report.records
    assert (rec.id, rec.label, rec.label_line, rec.line, rec.end_line) == (
        "MEM-OBJ-a", "Named in the heading", 3, 3, 14
    )
    assert [(e.line, e.end_line, e.path, e.text, e.cited_lines) for e in rec.evidence] == [
        (6, 6, "src/skills.ts", "return skills/${name}.json;", None),
        (8, 9, "src/todo.ts", "if (open.length === 0) { return null; }", LineRange(10, 12)),
        (11, 11, "src/pkg/__init__.py", "__init__ is read from", None),
        (13, 14, "src/x.js", "const a = b( c);", None),
    ]
    assert report.findings == ()


def test_markdown_id_and_label_in_one_paragraph():
    text = "# Report\n\nMEM-OBJ-a\nLabel: A\nPart of: RT-CMP-b\n\nBody MEM-RTE-c.\n"
    report = parse_report("r.md", text)
    [rec] = report.records
    assert (rec.label, rec.label_line, rec.part_of, rec.end_line) == ("A", 4, "RT-CMP-b", 7)
    assert rec.references == (Reference("RT-CMP-b", 5, "part-of"), Reference("MEM-RTE-c", 7))
    assert report.title == "Report"


def test_memreport_block_outside_records_belongs_to_the_report():
    text = "# R\n\n```memreport\n- absent: x\n```\n"
    report = parse_report("r.md", text)
    assert report.findings == ()
    assert [(b.line, b.end_line, b.info, b.text) for b in report.blocks] == [(4, 4, "memreport", "- absent: x")]


def test_code_is_not_lexed_as_prose():
    text = (
        "MEM-OBJ-a\n\nLabel: A\n\n"
        "```\nSRC-1: a/b.py\nRT-RTE-x\nimplementation conclusion status: wired\n```\n"
    )
    rec = parse_report("r.md", text).records[0]
    assert (rec.evidence, rec.references, rec.statuses) == ((), (), ())


# --------------------------------------------------------------------------- sources and pins


def test_report_level_pin_applies_to_src1_without_its_own_pin():
    report = parse_report("r.txt", f"SRC-1 and SRC-2 are read.\nHEAD was rechecked as {SHA}.\n")
    assert [(s.id, s.pin, s.line) for s in report.sources] == [("SRC-1", SHA, 2), ("SRC-2", None, 1)]


def test_pin_without_any_source_creates_src1_and_no_pin_keeps_none():
    assert [(s.id, s.pin) for s in parse_report("r.txt", f"git rev-parse HEAD matched {SHA}\n").sources] == [
        ("SRC-1", SHA)
    ]
    assert [(s.id, s.pin) for s in parse_report("r.txt", "SRC-1: a/b.py.\n").sources] == [("SRC-1", None)]
    assert parse_report("r.txt", "nothing here\n").sources == ()


def test_conflicting_pins_are_findings_and_the_first_wins():
    other = "f" * 40
    report = parse_report(
        "r.txt", f"SRC-1 commit {SHA}\nHEAD was rechecked as {other}\nSRC-1 commit {other}\n"
    )
    assert [(s.id, s.pin, s.line) for s in report.sources] == [("SRC-1", SHA, 1)]
    assert [(f.line, f.code) for f in report.findings] == [(2, "structure"), (3, "structure")]


def test_short_and_full_sha_agree_and_the_full_one_is_kept():
    report = parse_report("r.txt", f"HEAD was rechecked as {SHA[:9]}\ngit rev-parse HEAD matched {SHA}\n")
    assert [(s.pin, s.line) for s in report.sources] == [(SHA, 1)]
    assert report.findings == ()


# --------------------------------------------------------------------------- robustness


def check_invariants(report: Report) -> None:
    for rec in report.records:
        assert 1 <= rec.line <= rec.end_line <= max(report.line_count, 1)
        for evidence in rec.evidence:
            assert rec.line <= evidence.line <= evidence.end_line <= rec.end_line
        for status in rec.statuses:
            assert rec.line <= status.line <= rec.end_line
    for evidence in report.all_evidence():
        assert 1 <= evidence.line <= evidence.end_line <= report.line_count
    for finding in report.findings:
        assert 1 <= finding.line


FRAGMENTS = [
    "MEM-OBJ-a", "RT-RTE-b-c", "On RT-RTE-b-c", "Label: A", "Label:", "Part of: MEM-OBJ-a", "Part of:",
    "  • Selection predicate: x", "- implementation conclusion status: wired",
    "operation conclusion status:", "x conclusion status: a. b conclusion status: c.", "SRC-1: a/b.py, c.d.",
    f"SRC-2 commit {SHA}", "HEAD was rechecked as abcdef0", "Source: https://github.com/o/r",
    "x = 1 --- a/b.py:3-1", "--- a/b.py", "code --- `c/d.ts:0`", "```memreport", "```", "~~~", "# Claims",
    "Claims", "| a | b |", "|---|---|", "a\tb", "> q --- x.py", "    indented", "1. item", "<div>",
    "---", "...", "`", "**", "[x](y)", "", " ", "\t", "—", "•", "\x00", "\u2028", "\ufeff",
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text(max_size=400), markdown_file=st.booleans())
def test_arbitrary_text_never_raises(text, markdown_file):
    report = parse_report("r.md" if markdown_file else "r.txt", text)
    check_invariants(report)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    parts=st.lists(
        st.one_of(st.sampled_from(FRAGMENTS), st.text(alphabet="-`*:|> .aSRC1\t/", max_size=12)),
        max_size=60,
    ),
    separators=st.lists(st.sampled_from(["\n", "\n\n", " ", ""]), min_size=60, max_size=60),
    markdown_file=st.booleans(),
)
# an unclosed fence at the end of a text ending in a newline: its block's last line was the
# empty part after that newline, one past the document's last line
@example(parts=["Label: A", "```", "MEM-OBJ-a", f"SRC-2 commit {SHA}"], separators=["\n", "\n", " ", "\n"] + ["\n"] * 56,
         markdown_file=False)
def test_text_built_from_format_fragments_never_raises(parts, separators, markdown_file):
    text = "".join(part + sep for part, sep in zip(parts, separators))
    report = parse_report("r.md" if markdown_file else "r.txt", text)
    check_invariants(report)


# --------------------------------------------------------------------------- linear time

NOISE = [
    "MEM-OBJ-cache-{n}", "Label: Cache {n}", "Part of: RT-RTE-loop-{n}", "On RT-RTE-loop-{n}",
    "  • Selection predicate: key {n} matches", "- implementation conclusion status: wired",
    "signoff and reconstruction implementation conclusion status: wired. operation conclusion status: x.",
    "SRC-1: src/a{n}.py, src/b{n}.ts.", f"SRC-1 commit {SHA}", "value = f({n}) --- src/m{n}.py:{n}-{n}",
    "`x = {n}` --- `pkg/x.go`", "", "Prose that mentions MEM-RTE-refresh-{n} and ends like a sentence.",
    "a\tb\tc{n}", "| a | b{n} |", "```", "# heading {n}", "> quoted {n}", "Routes",
    # adversarial runs: a backtracking regex would be quadratic (or worse) on these
    "-" * 300, " --- " * 60, "SRC-" * 100, "a " * 300 + "conclusion status:", "x" * 400,
    "MEM-OBJ-" + "a-" * 150, "SRC-1" + " " * 300 + "x", "`" * 200,
]


def noise(lines: int, markdown_safe: bool = False) -> str:
    import random

    rng = random.Random(lines)
    pool = NOISE if not markdown_safe else [f for f in NOISE if not f.startswith("`" * 10)]
    return "\n".join(rng.choice(pool).format(n=i) for i in range(lines)) + "\n"


#: 4x the lines may make this many times the calls: linear work with some slack (a record's
#: evidence is gathered per record, and the noise's records are not all of one size)
GROWTH_BOUND = 4.6


@pytest.mark.parametrize("name", ["noise.txt", "noise.md"])
def test_noise_reports_parse_in_work_linear_in_their_lines(name):
    # Counted, not timed: calls are the same however busy the machine (these tests once
    # compared CPU seconds with a bare loop and with markdown-it, and failed under load).
    def calls(lines: int) -> int:
        return calls_made(parse_report, name, noise(lines, markdown_safe=name.endswith(".md")))

    small, large = calls(10_000), calls(40_000)
    assert large <= GROWTH_BOUND * small, (small, large)


@pytest.mark.parametrize("fragment", [f for f in NOISE if len(f) >= 150])
def test_long_adversarial_lines_scale_linearly(fragment):
    unit = fragment.format(n=1)

    def parse(copies: int) -> float:
        text = (unit * copies)[: 2_000 * copies] + "\n"
        return cpu_seconds(lambda: parse_report("long.txt", text), runs=3)

    small, large = parse(10), parse(40)
    assert large <= 8 * small + 0.05, (small, large)


def test_path_citation_list_runs_on_over_a_line_break():
    text = textwrap.dedent("""\
        MEM-OBJ-a

        Label: A

        The store and its index. SRC-1:
        pkg/store.py, pkg/index.py,
        pkg/cache.py and
        pkg/extra.py. Then pkg/not_cited.py is prose.

        MEM-OBJ-b

        Label: B

        Held by SRC-1: pkg/b.py
        pkg/b_too.py starts a sentence of its own, not the list.

        Cited as SRC-1:

        pkg/after_blank.py is in the next paragraph.
        """)
    report = parse_report("r.md", text)
    paths = {record.id: [e.path for e in record.evidence] for record in report.records}
    assert paths == {"MEM-OBJ-a": ["pkg/store.py", "pkg/index.py", "pkg/cache.py", "pkg/extra.py"],
                     "MEM-OBJ-b": ["pkg/b.py"]}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(["conclusion", "CONCLUSION", "Conclusion", "conclu", "ſ", "K", "İ", "ı", "status",
                                 "STATUS", "ſtatus", " ", "\t", ":", "*", "`", "SRC-", "1", "Source", "://",
                                 "https://h.invalid/o/r", "observed", "x"]), max_size=12))
def test_the_lines_the_readers_skip_unread_hold_nothing_their_patterns_find(parts):
    """Each line reader skips, by a substring test, the lines that cannot hold what it reads:
    none that its pattern (case-insensitive where it is) would find something in."""
    from pytest_memreport.dialects.core import grammar, statuses

    line = "".join(parts)
    if statuses._STATUS_KEY.search(line):
        assert core.find_statuses(line)
    assert core.find_source_ids(line) == [f"SRC-{int(m.group(1))}" for m in grammar.SOURCE_ID.finditer(line)]
    found = grammar.REPOSITORY_URL.search(line)
    assert (core.find_repository_url(line) is None) == (found is None)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["MEM", "PM", "-", "--", "OBJ", "CLM", "obj", "Obj", "x", "a1", "-a", "_", " ", "`",
                                 "MEM-OBJ-", "-OBJ", "OBJ-"]), max_size=10))
def test_the_lines_the_record_id_reader_skips_hold_no_record_id(parts):
    """The record ID reader skips, by one scan for a kind between hyphens, the lines that
    cannot hold an ID: none that its pattern would find one in."""
    from pytest_memreport.dialects.core import record_ids

    line = "".join(parts)
    if record_ids._KIND_HINT.search(line) is None:
        assert record_ids.RECORD_ID.search(line) is None
        assert core.find_record_ids(line) == []


@pytest.mark.parametrize(("line", "quoted"), [
    ("def __init__(self, size: int) -> None: --- src/box.py", "def __init__(self, size: int) -> None:"),
    ("volume = width*height*depth --- src/box.py", "volume = width*height*depth"),
    ("- total = a*b*c --- src/sum.py", "total = a*b*c"),
    ("> return __all__ --- src/pkg.py", "return __all__"),
    ('sep = "\\\\n" --- src/io.py', 'sep = "\\\\n"'),
    # backticks alone: the text as shown, as before (the quotation keeps its key)
    ("`if (done) { return `ok`; }` --- src/a.ts", "if (done) { return ok; }"),
    # a Markdown file of the target is quoted as its source is written too
    ("The loader is **lazy** --- docs/notes.md", "The loader is **lazy**"),
])
def test_a_markdown_quotation_that_markdown_would_change_is_read_as_written(line, quoted):
    """Markdown reads ``__init__`` and ``a*b*c`` as emphasis and ``\\\\`` as an escape: the
    quoted code lost characters the file has, and was never found. The line is taken as
    written where the reading changed more than its backticks (its own list or blockquote
    marker aside); a line whose reading only dropped backticks keeps the shown text."""
    text = f"# Report\n\nMEM-OBJ-box\n\nLabel: Box\n\n{line}\n"

    [evidence] = parse_report("r.md", text).records[0].evidence

    assert evidence.text == quoted


@pytest.mark.parametrize(("body", "quoted", "shown"), [
    # escaped for Markdown's sake, or code that holds the backslashes: the file decides
    (r"def \_\_init\_\_(self): --- src/box.py", r"def \_\_init\_\_(self):", "def __init__(self):"),
    (r'sep = "\\n" --- src/box.py', r'sep = "\\n"', 'sep = "\\n"'),
    ("if a &lt; b: --- src/box.py", "if a &lt; b:", "if a < b:"),
    ("def \\_\\_init\\_\\_(self):\n\nreturn \\_\\_all\\_\\_ --- src/box.py",
     "def \\_\\_init\\_\\_(self):\nreturn \\_\\_all\\_\\_", "def __init__(self):\nreturn __all__"),
    # emphasis read into code has no second reading; nor has a line Markdown leaves be
    ("def __init__(self): --- src/box.py", "def __init__(self):", None),
    ("`def init(self):` --- src/box.py", "def init(self):", None),
    (r"a = \_x + *y* --- src/box.py", r"a = \_x + *y*", None),
])
def test_a_quotation_escaped_for_markdown_keeps_what_a_reader_sees_as_its_other_reading(body, quoted, shown):
    """A report may escape quoted code for Markdown (``\\_\\_init\\_\\_``) or quote code that
    holds the backslashes: only the file can tell. The text is the line as written, and
    where Markdown changed only escapes and entities, what a reader sees is kept beside
    it (read at parse time alone, the escaped quote failed where it passed before)."""
    text = f"# Report\n\nMEM-OBJ-box\n\nLabel: Box\n\n{body}\n"

    [evidence] = parse_report("r.md", text).records[0].evidence

    assert (evidence.text, evidence.shown_text) == (quoted, shown)


def test_a_text_rendering_of_a_quotation_is_read_as_it_is():
    text = "Report\n\nMEM-OBJ-box\n\nLabel: Box\n\ndef init(self) -> None: --- src/box.py\n"

    [evidence] = parse_report("r.txt", text).records[0].evidence

    assert evidence.text == "def init(self) -> None:"


@pytest.mark.parametrize(("body", "quoted"), [
    ("def __init__(self) -> None:\n\nself.volume = width*height*depth --- src/box.py",
     "def __init__(self) -> None:\nself.volume = width*height*depth"),
    ("> def __init__(self):\n>\n> return __all__ --- src/box.py", "def __init__(self):\nreturn __all__"),
    ("- a = x*y*z\n- b = __all__ --- src/box.py", "a = x*y*z\n• b = __all__"),
])
def test_every_line_of_a_markdown_quotation_split_over_paragraphs_is_read_as_written(body, quoted):
    """The earlier paragraphs (or list items) of a quotation keep what Markdown would read as
    markup too; a later item keeps the bullet a rendering shows."""
    text = f"# Report\n\nMEM-OBJ-box\n\nLabel: Box\n\n{body}\n"

    [evidence] = parse_report("r.md", text).records[0].evidence

    assert evidence.text == quoted
