"""What ``--memreport-write`` changes in a report, planned from a run's results.

Two kinds of change, both only with evidence from this run:

* **promotion**: a record whose observations all passed (see
  :func:`observe.decide`) gets ``observed`` on its operation status and an
  evidence line under it;
* **re-pin** (``--memreport-repin REV``): when every quotation, cited path and
  predicate still holds at REV, the report's pin moves to REV and what drift
  found is written with it: moved paths and shifted cited line ranges. Without
  a re-pin those stay as they are: they are true at the old pin.

The plan is pure: results in, byte edits out. Applying it is
:func:`writeback.apply_edits`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..checks import observe
from ..checks.drift import PASSING as DRIFT_PASSING
from ..model import EvidenceKind, LineRange, Report, predicate_key
from . import writeback
from .results import ResultLog


@dataclass(frozen=True)
class RewritePlan:
    """Edits for one report, and what to tell the user about them."""

    edits: tuple[writeback.Edit, ...] = ()
    changes: tuple[str, ...] = ()
    regressions: tuple[str, ...] = ()
    blockers: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Found:
    ok: bool


@dataclass
class _Builder:
    data: bytes
    edits: list = field(default_factory=list)
    changes: list = field(default_factory=list)


def plan(report: Report, data: bytes, log: ResultLog, repin: str | None = None) -> RewritePlan:
    """Edits to ``data`` (the report's bytes as parsed) from the results in ``log``."""
    text = data.decode("utf-8", errors="replace")
    build = _Builder(data)
    regressions = _promotions(report, text, log, build)
    blockers: list[str] = []
    if repin:
        blockers = repin_blockers(report, log)
        if not blockers:
            _repin(report, log, repin, build)
    return RewritePlan(tuple(build.edits), tuple(build.changes), tuple(regressions), tuple(blockers))


def _observation_results(report: Report, log: ResultLog, record_id: str):
    """The record's observation results, or ``None`` when any observation did not run."""
    payloads = [p for p in log.of_type(report.path, "observe") if p.get("record") == record_id]
    if not payloads or any(p.get("observation") is None for p in payloads):
        return None
    return [observe.ObservationResult.from_json(p["observation"]) for p in payloads]


def _promotions(report: Report, text: str, log: ResultLog, build: _Builder) -> list[str]:
    regressions = []
    for record in report.records:
        if record.is_annotation:
            continue
        results = _observation_results(report, log, record.id)
        if not results:
            continue
        pins = []
        for evidence in record.evidence:
            seen = log.get(report.path, "pin", evidence.key)
            pins.append(_Found(bool(seen) and seen["at_pin"]["status"] == "found"))
        decision = observe.decide(record, results, pins, report_text=text)
        if isinstance(decision, observe.Regression):
            regressions.append(f"{report.path}:{decision.status.line}: {decision.message}")
        elif isinstance(decision, observe.Promotion):
            edits = writeback.promotion_edits(build.data, decision)
            if edits:
                build.edits.extend(edits)
                build.changes.append(
                    f"{report.path}:{decision.status.line}: {record.id} {decision.status.axis} "
                    f"{decision.old} -> {decision.new}"
                )
    return regressions


#: drift statuses under which evidence holds at the re-pin revision (``ahead``:
#: written against it already, though missing at the old pin)
_REPIN_HOLDS = (DRIFT_PASSING - {"not-checked"}) | {"ahead"}


def repin_blockers(report: Report, log: ResultLog) -> list[str]:
    """Everything that does not hold at the re-pin revision, one line each."""
    blockers = []
    for evidence in report.all_evidence():
        key = evidence.key
        pin = log.get(report.path, "pin", key)
        drift = log.get(report.path, "drift", key)
        where = f"{report.path}:{evidence.line}"
        if pin is None or drift is None:
            blockers.append(f"{where}: {evidence.kind.value} {evidence.path} was not checked in this run")
        elif pin["at_pin"]["status"] != "found" and drift["at_against"]["status"] != "ahead":
            blockers.append(f"{where}: {evidence.kind.value} {evidence.path} is {pin['at_pin']['status']} at the pin")
        elif drift["at_against"]["status"] not in _REPIN_HOLDS:
            blockers.append(f"{where}: {evidence.kind.value} {evidence.path} is {drift['at_against']['status']} there")
    for payload in log.of_type(report.path, "predicate-against"):
        status = payload["at_against"]["status"]
        if status != "holds":
            blockers.append(f"{report.path}: predicate at {payload['key']} {status} there")
    return blockers


def _repin(report: Report, log: ResultLog, new_pin: str, build: _Builder) -> None:
    old_pins = {s.pin for s in report.sources if s.pin}
    for source in report.sources:
        if not source.pin or source.pin == new_pin:
            continue
        for number, line in enumerate(build.data.decode("utf-8").split("\n"), start=1):
            if source.pin in line:
                build.edits.append(writeback.replace_in_line(build.data, number, source.pin, new_pin, "re-pin"))
        build.changes.append(f"{report.path}: {source.id} pin {source.pin[:12]} -> {new_pin[:12]}")
    if not old_pins:
        return
    for evidence in report.all_evidence():
        drift = log.get(report.path, "drift", evidence.key)
        pin = log.get(report.path, "pin", evidence.key)
        if drift is None or pin is None:
            continue
        now = drift["at_against"]
        line = evidence.end_line if evidence.kind is EvidenceKind.QUOTE else evidence.line
        old_ref, new_ref = _citation(evidence, pin["at_pin"], now)
        if old_ref != new_ref:
            try:
                build.edits.append(writeback.replace_in_line(build.data, line, old_ref, new_ref, "drift"))
                build.changes.append(f"{report.path}:{line}: {old_ref} -> {new_ref}")
            except writeback.WritebackError:
                continue  # the citation is not spelled on that line as parsed; leave it


def _citation(evidence, at_pin: dict, now: dict) -> tuple[str, str]:
    """``path:10-14`` as written, and as it reads after the move/shift."""
    old = evidence.path + (f":{evidence.cited_lines}" if evidence.cited_lines else "")
    path = now.get("path") or evidence.path
    cited = evidence.cited_lines
    if cited and at_pin.get("lines") and now.get("lines"):
        delta = now["lines"][0] - at_pin["lines"][0]
        cited = LineRange(cited.start + delta, cited.end + delta) if cited.start + delta >= 1 else cited
    return old, path + (f":{cited}" if cited else "")


__all__ = ["RewritePlan", "plan", "repin_blockers", "predicate_key"]
