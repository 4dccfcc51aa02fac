"""Structural checks over a set of parsed reports.

These look only at the report model (no git, no target): do references
resolve across the loaded reports, are status values in the method's
vocabulary, does every route state both its implementation and operation
conclusions, and how much of a report is guarded by something executable.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from ..model import LEGACY_STATUS, STATUS_VALUES, Finding, Report

#: Whether the record-report rules (a label per record, both statuses per route) hold
#: for a dialect: a tables row's label is its cells, and a route row states no statuses.
_RECORD_RULES = {"tables": False}

#: The two status axes every route must state.
ROUTE_AXES: tuple[str, ...] = ("implementation", "operation")


def _prefix(record_id: str) -> str:
    return record_id.split("-", 1)[0]


def dangling_references(
    reports: Iterable[Report], external_prefixes: Iterable[str] = ()
) -> dict[str, list[tuple[str, list[int]]]]:
    """References that no loaded report declares, by report path.

    A reference counts as declared when any report of the set declares that
    ID (a memory report citing its sibling runtime report resolves once both
    are loaded). IDs whose lens prefix is in ``external_prefixes`` belong to
    reports the user chose not to load and are not reported. Annotations
    (``On ID``) and ``Part of:`` parents are references too. Each entry is
    ``(target, sorted report lines)``, in order of first mention; reports
    with nothing dangling are left out.
    """
    reports = list(reports)
    external = set(external_prefixes)
    declared: set[str] = set()
    for report in reports:
        declared |= report.declared_ids()
    # A row may declare two records in one cell (``OBJ-05/OBJ-01``); ``CLM-1/a1`` stays one.
    for record_id in list(declared):
        parts = record_id.split("/")
        if len(parts) > 1 and all("-" in part for part in parts):
            declared.update(parts)
    dangling: dict[str, list[tuple[str, list[int]]]] = {}
    for report in reports:
        mentions: dict[str, set[int]] = {}
        for target, line in _mentions(report):
            if _declared(target, declared) or _prefix(target) in external:
                continue
            mentions.setdefault(target, set()).add(line)
        if mentions:
            ordered = sorted(mentions.items(), key=lambda item: (min(item[1]), item[0]))
            dangling[report.path] = [(target, sorted(lines)) for target, lines in ordered]
    return dangling


def _declared(target: str, declared: set[str]) -> bool:
    """An ID as written, or, for a hyphenated word built on an ID (``OBJ-7-shaped``), the
    ID it is built on; ``RTE-10-accept`` declared as such matches as written."""
    if target in declared:
        return True
    parts = target.split("-")
    return any("-".join(parts[:end]) in declared for end in range(len(parts) - 1, 1, -1))


def _mentions(report: Report) -> list[tuple[str, int]]:
    """Every (target ID, report line) the report points at."""
    found = [(ref.target, ref.line) for ref in report.all_references()]
    for record in report.records:
        # A dialect may not list an annotation's target or a Part of: parent
        # among the references; count them then, at the record's own line.
        cited = {ref.target for ref in record.references}
        if record.is_annotation and record.id not in cited:
            found.append((record.id, record.line))
        if record.part_of and record.part_of not in cited:
            found.append((record.part_of, record.line))
    return found


def structure_findings(report: Report) -> list[Finding]:
    """Everything structurally wrong with one report, in line order.

    The parser's own findings (duplicate IDs, missing labels, parse
    problems) come first in spirit and are kept as they are; this adds unknown
    status values, routes missing an implementation or operation status, and
    records without a label the parser did not already flag.
    """
    findings = list(report.findings)
    seen = {(f.line, f.code) for f in findings}

    def add(finding: Finding) -> None:
        if (finding.line, finding.code) not in seen:
            seen.add((finding.line, finding.code))
            findings.append(finding)

    vocabulary = ", ".join(STATUS_VALUES)
    for record in report.records:
        for status in record.statuses:
            if not status.known:
                add(
                    Finding(
                        status.line,
                        f"{record.node_name}: unknown {status.axis} status {status.value!r}; "
                        f"use one of: {vocabulary} (legacy {', '.join(LEGACY_STATUS)} also accepted)",
                        "status",
                    )
                )
        if record.is_annotation or not _RECORD_RULES.get(report.dialect, True):
            continue
        if record.label is None:
            add(Finding(record.line, f"{record.id} has no label; add 'Label: ...' after the ID", "no-label"))
        if record.kind == "RTE":
            axes = {status.axis for status in record.statuses}
            missing = [axis for axis in ROUTE_AXES if axis not in axes]
            if missing:
                add(
                    Finding(
                        record.line,
                        f"route {record.id} states no {' and no '.join(missing)} conclusion status; "
                        f"add '{missing[0]} conclusion status: <value>'",
                        "structure",
                    )
                )
    return sorted(findings, key=lambda f: (f.line, f.code))


@dataclass(frozen=True)
class Coverage:
    """How much of a report something executable guards.

    A record is *guarded* when it has at least one piece of evidence
    (quotation, cited path, line anchor), predicate or observation. A route's
    selection predicate counts as *compiled* when its record has at least one
    predicate.
    """

    records_total: int
    records_guarded: int
    unguarded: list[str]
    selection_predicates_total: int
    selection_predicates_compiled: int

    @property
    def guarded_fraction(self) -> float:
        return self.records_guarded / self.records_total if self.records_total else 1.0


def coverage(
    report: Report,
    predicates_by_record: Mapping[str, Sequence[object]],
    observations_by_record: Mapping[str, Sequence[object]],
) -> Coverage:
    """The :class:`Coverage` of ``report``'s declared records (annotations excluded)."""
    total = guarded = 0
    unguarded: list[str] = []
    selection_total = selection_compiled = 0
    for record in report.records:
        if record.is_annotation:
            continue
        total += 1
        has_predicates = bool(predicates_by_record.get(record.id))
        if record.evidence or has_predicates or observations_by_record.get(record.id):
            guarded += 1
        else:
            unguarded.append(record.id)
        selection_total += len(record.selection_predicates)
        if has_predicates:
            selection_compiled += len(record.selection_predicates)
    return Coverage(total, guarded, unguarded, selection_total, selection_compiled)


def absences_not_executable(report: Report, predicates_by_record: Mapping[str, Sequence[object]]) -> list[str]:
    """Evidenced absences (``ABS`` records) that no predicate checks.

    An absence stated in prose cannot be re-checked; a predicate (usually
    ``absent``) makes it executable.
    """
    return [
        record.id
        for record in report.records
        if record.kind == "ABS" and not record.is_annotation and not predicates_by_record.get(record.id)
    ]
