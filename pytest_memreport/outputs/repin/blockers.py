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
    for evidence in report.all_evidence():
        if not repinned(evidence, report, target):
            continue
        key = evidence.key
        if checked is not None and key not in checked:
            continue
        pin = log.get(report.path, CheckType.PIN, key)
        drift = log.get(report.path, CheckType.DRIFT, key)
        what = _what(evidence)
        where = f"{report.path}:{evidence.line}"
        if pin is not None and pin["at_pin"]["status"] == PinStatus.NOT_EVIDENCE:
            continue
        if pin is None or drift is None:
            out[f"{where}: {what} was not checked in this run"] = None
            continue
        at_pin, now = pin["at_pin"], drift["at_against"]
        if at_pin["status"] == PinStatus.FILE_MISSING and evidence.role is EvidenceRole.MENTION:
            continue
        if now["status"] == Drift.AHEAD:
            continue
        if at_pin["status"] != PinStatus.FOUND and correctable(at_pin) is None:
            out[f"{where}: {what} is {at_pin['status']} at the pin"] = None
        elif now["status"] not in HOLDS:
            out[f"{where}: {what} is {now['status']} at {at}"] = None
        elif now["status"] == Drift.RELOCATED and len(now.get("candidates") or ()) > 1:
            shown = ", ".join(f"{c['path']}:{c['lines'][0]}" for c in now["candidates"][:3])
            out[f"{where}: {what} now occurs in {len(now['candidates'])} places ({shown}); cite one"] = None
    for payload in sorted(log.of_type(report.path, CheckType.PREDICATE_AGAINST), key=lambda p: p["key"]):
        status = payload["at_against"]["status"]
        if status != PinStatus.HOLDS:
            place = payload["key"].rsplit(":", 1)[0]
            out[f"{place}: {payload.get('record') or 'report'} predicate {status} at {at}"] = None
    return list(out)


def _what(evidence) -> str:
    if evidence.kind is EvidenceKind.SYMBOL:
        return f"symbol `{evidence.text}`"
    cited = f":{evidence.cited_lines}" if evidence.cited_lines else ""
    return f"{evidence.kind.value} {evidence.path}{cited}"
