"""What stops a re-pin: evidence of a re-pinned source that does not hold at the new commit.

Only real evidence blocks: what never became a check (a backticked word that
names no definition, a source with no local clone) is not evidence, and a
backticked word that is not a path at the pin was skipped as not evidence. A
quotation whose only fault is a wrong range is corrected, not blocking. Each
blocker is listed once, at its report line.
"""

from __future__ import annotations

from ...checks.drift import PASSING as DRIFT_PASSING
from ...model import EvidenceKind, EvidenceRole, Report
from ...text import render
from ..kinds import CheckType, Drift, PinStatus
from ..results import ResultLog
from .moves import correctable, repinned
from .target import RepinTarget

#: drift statuses under which evidence holds at the re-pin revision (``ahead``:
#: written against it already, though missing at the old pin)
HOLDS = (DRIFT_PASSING - {Drift.NOT_CHECKED}) | {Drift.AHEAD}


def blockers(report: Report, log: ResultLog, target: RepinTarget, checked: set[str] | None) -> list[str]:
    """One line per thing that does not hold at ``target.new``, in report order.

    ``checked`` are the keys of the evidence that became checks this run
    (``None``: all of it did); evidence outside it is not evidence.
    """
    out: dict[str, None] = {}
    at = render.short(target.new)
    default = report.sources[0].id if report.sources else None
    for evidence in report.all_evidence():
        if not repinned(evidence, report, target):
            continue
        pinned = target.source_for(evidence.source, default)
        moved_to = render.short(target.new_of(pinned)) if pinned is not None else at
        key = evidence.key
        if checked is not None and key not in checked:
            continue
        pin = log.check(report.path, CheckType.PIN, key)
        drift = log.check(report.path, CheckType.DRIFT, key)
        what = _what(evidence)
        where = f"{report.path}:{evidence.line}"
        if pin is not None and pin.at_pin is PinStatus.NOT_EVIDENCE:
            continue
        if pin is None or drift is None:
            out[f"{where}: {what} was not checked in this run"] = None
            continue
        if pin.at_pin is PinStatus.FILE_MISSING and evidence.role is EvidenceRole.MENTION:
            continue
        if drift.at_against is Drift.AHEAD:
            continue
        if pin.at_pin is not PinStatus.FOUND and correctable(pin.to_json()["at_pin"]) is None:
            out[f"{where}: {what} is {pin.at_pin} at the pin"] = None
        elif drift.at_against not in HOLDS:
            out[f"{where}: {what} is {drift.at_against} at {moved_to}"] = None
        elif drift.at_against is Drift.RELOCATED and len(drift.moved_to) > 1:
            shown = ", ".join(f"{place.path}:{place.start}" for place in drift.moved_to[:3])
            out[f"{where}: {what} now occurs in {len(drift.moved_to)} places ({shown}); cite one"] = None
    for finding in report.findings:
        if finding.code == "path":  # a citation written so that it checks nothing (``a.ts:27-26``)
            out[f"{report.path}:{finding.line}: {finding.message}"] = None
    for check in sorted(log.checks_of(report.path, CheckType.PREDICATE_AGAINST), key=lambda c: c.key):
        if check.at_against is not PinStatus.HOLDS:
            out[f"{check.file}:{check.line}: {check.record or 'report'} predicate {check.at_against} at {at}"] = None
    return list(out)


def _what(evidence) -> str:
    if evidence.kind is EvidenceKind.SYMBOL:
        return f"symbol `{evidence.text}`"
    cited = f":{evidence.cited_lines}" if evidence.cited_lines else ""
    return f"{evidence.kind.value} {evidence.path}{cited}"
