"""Aggregating item payloads into the JSON results (schema ``memreport/1``) and summaries.

Items attach a JSON payload to each check entry they report; the controlling
process (also under pytest-xdist) feeds every payload to a :class:`ResultLog`.
:func:`build_json` then lays the payloads over the parsed reports, so the JSON
has every record and every piece of evidence, checked or not.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from dataclasses import dataclass, replace
from typing import Any

from .claims_json import claims_json
from .kinds import CheckType, Outcome, PinStatus, RunEnd
from ..model import Evidence, EvidenceKind, Record, Report

SCHEMA = "memreport/1"

#: pytest's exit codes (``pytest.ExitCode``; this module does not import pytest)
_INTERRUPTED, _INTERNAL_ERROR = 2, 3
#: why a report none of whose checks ran has no result, in a run that went to its end
NOT_SELECTED = "not selected (no check of its evidence ran)"


@dataclass(frozen=True)
class RunState:
    """Whether the run went to its end: ``complete``; ``crashed`` (errors during collection,
    an internal error: no report's silence means it was not selected); ``interrupted``
    (Ctrl-C, a signal). The JSON's ``run``."""

    state: str
    exit_status: int
    reason: str | None = None

    @property
    def unrun_reason(self) -> str:
        """The JSON's reason for a report none of whose checks ran."""
        if self.state == RunEnd.COMPLETE:
            return NOT_SELECTED
        return f"not checked: the run {self.state} ({self.reason})"

    def as_json(self) -> dict:
        return {"state": self.state, "exit_status": self.exit_status, "reason": self.reason}


def run_state(exit_status: int, collection_errors: int) -> RunState:
    """The run's state from pytest's exit status and its count of collection errors."""
    status = int(exit_status)
    if status == _INTERNAL_ERROR:
        return RunState(RunEnd.CRASHED, status, "an internal error; see the INTERNALERROR lines")
    if status == _INTERRUPTED and collection_errors:
        plural = "s" if collection_errors != 1 else ""
        return RunState(RunEnd.CRASHED, status, f"{collection_errors} error{plural} during collection; no check ran")
    if status == _INTERRUPTED:
        return RunState(RunEnd.INTERRUPTED, status, "stopped before every check ran")
    return RunState(RunEnd.COMPLETE, status)


class ResultLog:
    """Payloads by report, by kind, by evidence key; plus pytest outcomes for the summary."""

    def __init__(self) -> None:
        self.payloads: dict[str, dict[tuple[str, str], dict]] = defaultdict(dict)
        self.outcomes: dict[str, Counter] = defaultdict(Counter)
        self.drift: dict[str, Counter] = defaultdict(Counter)
        self.pin: dict[str, Counter] = defaultdict(Counter)
        #: mentions that look like paths but are no target evidence, by report
        self.not_evidence: Counter = Counter()
        #: quotations in files no tree-sitter grammar covers, by file kind
        self.text_only: Counter = Counter()
        self.failures: dict[str, list[str]] = defaultdict(list)
        #: every check's (payload, pytest outcome) by report, as reported (the staleness table's input)
        self.results: dict[str, list[tuple[dict, str]]] = defaultdict(list)

    def add(self, payload: dict, outcome: str, headline: str = "") -> None:
        report = payload.get("report", "")
        kind = payload.get("type", "")
        key = payload.get("key") or payload.get("name") or kind
        self.payloads[report][(kind, key)] = payload
        self.results[report].append((payload, outcome))
        self.outcomes[report][f"{kind}:{outcome}"] += 1
        if kind == CheckType.PIN and payload["at_pin"]["status"] == PinStatus.NOT_EVIDENCE:
            self.not_evidence[report] += 1  # counted on their own, never as a pin status
        elif kind == CheckType.PIN:
            self.pin[report][payload["at_pin"]["status"]] += 1
            if payload.get("language", "") is None and payload["at_pin"]["status"] == PinStatus.FOUND:
                suffix = payload.get("path", "").rsplit("/", 1)[-1]
                suffix = "*." + suffix.rsplit(".", 1)[-1] if "." in suffix else suffix
                self.text_only[suffix] += 1
        if kind == CheckType.DRIFT:
            self.drift[report][payload["at_against"]["status"]] += 1
        if outcome == Outcome.FAILED and headline:
            self.failures[report].append(headline)

    def entries(self, report: str) -> list[tuple[dict, str]]:
        return self.results.get(report, [])

    def get(self, report: str, kind: str, key: str) -> dict | None:
        return self.payloads.get(report, {}).get((kind, key))

    def of_type(self, report: str, kind: str) -> list[dict]:
        return [p for (k, _), p in self.payloads.get(report, {}).items() if k == kind]


def _evidence_json(evidence: Evidence, log: ResultLog, report: str, key: str | None = None) -> dict:
    key = key or evidence.key
    pin = log.get(report, CheckType.PIN, key)
    drift = log.get(report, CheckType.DRIFT, key)
    out = {
        "kind": evidence.kind.value,
        "path": evidence.path,
        "text": evidence.text,
        "line": evidence.line,
        "cited_lines": evidence.cited_lines.as_list() if evidence.cited_lines else None,
        "at_pin": pin["at_pin"] if pin else {"status": PinStatus.NOT_CHECKED, "lines": None},
    }
    if evidence.source:
        out["source"] = evidence.source
    if evidence.pin:
        out["pin"] = evidence.pin
    if evidence.label:
        out["label"] = evidence.label
    if evidence.role is not None:  # what it is to its report (model.EvidenceRole)
        out["role"] = evidence.role.value
    if evidence.context and evidence.kind is EvidenceKind.QUOTE:
        out["also_in"] = list(evidence.context)  # the other files it may quote
    if drift:
        out["at_against"] = drift["at_against"]
    return out


def _evidence_list(evidence: tuple[Evidence, ...], log: ResultLog, report: str) -> list[dict]:
    """Evidence as JSON; a proposed symbol reference that named no definition is not evidence."""
    out = []
    for item in evidence:
        key = item.key
        pin = log.get(report, CheckType.PIN, key)
        if item.kind is EvidenceKind.SYMBOL and pin is None and log.get(report, CheckType.DRIFT, key) is None:
            continue  # (checked from a range's base, it has a drift result only: --memreport-affected)
        if pin is not None and pin.get("path") and pin["path"] != item.path:
            item = replace(item, path=pin["path"])  # resolved at collection (symbol, basename)
        out.append(_evidence_json(item, log, report, key))
    return out


def _record_json(record: Record, log: ResultLog, report: str) -> dict:
    out = {
        "id": record.id,
        "kind": record.kind,
        "label": record.label,
        "line": record.line,
        "statuses": [
            {"axis": s.axis, "qualifier": s.qualifier, "value": s.value, "line": s.line} for s in record.statuses
        ],
        "evidence": _evidence_list(record.evidence, log, report),
    }
    if record.part_of:
        out["part_of"] = record.part_of
    if record.is_annotation:
        out["annotation"] = True
    return out


def report_json(report: Report, log: ResultLog) -> dict:
    """One report's entry in the results."""
    sources = []
    against = None
    by_source = {p["source"]["id"]: p for p in log.of_type(report.path, CheckType.SOURCE)}
    for unchecked in log.of_type(report.path, CheckType.UNCHECKED):  # a report no repository could check
        for seen in unchecked.get("sources", []):
            by_source.setdefault(seen["id"], {"source": seen, "against": None})
    for source in report.sources:
        seen = by_source.get(source.id)
        if seen:
            sources.append({"id": source.id, **{k: v for k, v in seen["source"].items() if k != "id"}})
            against = against or seen.get("against")
        else:
            sources.append({"id": source.id, "repo": None, "pin": source.pin,
                            "pin_status": "unpinned" if source.pin is None else "not-checked"})
    for sid, seen in by_source.items():
        if all(s["id"] != sid for s in sources):
            sources.append({"id": sid, **{k: v for k, v in seen["source"].items() if k != "id"}})
            against = against or seen.get("against")
    out = {
        "path": report.path,
        "dialect": report.dialect,
        "sources": sources,
        "against": against,
        "records": [_record_json(r, log, report.path) for r in report.records],
        "evidence": _evidence_list(report.evidence, log, report.path),
        "statuses": [
            {"axis": s.axis, "qualifier": s.qualifier, "value": s.value, "line": s.line} for s in report.statuses
        ],
        "findings": [{"line": f.line, "message": f.message, "code": f.code} for f in report.findings],
    }
    return out


def build_json(reports: list[Report], log: ResultLog, extra: dict | None = None, coverage: dict | None = None,
               claims: dict | None = None, run: RunState | None = None) -> dict:
    """The results; ``claims`` maps a report path to its ``(predicates, observations)`` by owner;
    ``run`` says whether the run went to its end."""
    data: dict[str, Any] = {"schema": SCHEMA, "reports": [report_json(r, log) for r in reports]}
    if run is not None:
        data["run"] = run.as_json()
    for entry in data["reports"]:
        if coverage and entry["path"] in coverage:
            entry["coverage"] = coverage[entry["path"]]
        if claims is not None:
            predicates, observations = claims.get(entry["path"], ({}, {}))
            entry.update(claims_json(entry["path"], predicates, observations, log.get))
    if extra:
        data.update(extra)
    return data


def text_only_line(log: ResultLog) -> str | None:
    """Which kinds of files had quotations matched as text only (no tree-sitter grammar)."""
    if not log.text_only:
        return None
    kinds = ", ".join(f"{k} ({v})" for k, v in sorted(log.text_only.items()))
    return f"text-only matching (no tree-sitter grammar) for quotations in: {kinds}"
