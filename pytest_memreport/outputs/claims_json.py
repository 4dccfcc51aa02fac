"""Every predicate and observation of a report in the JSON results, checked or not.

Items send their results as payloads (``predicate-pin``, ``predicate-against``,
``observe``); this lays them over the report's claims, so the JSON lists each
predicate with its status at the pin and at the against-revision, its message
and the ``file:line`` it was written on, and each observation with its run
(``not-run`` when it was not run or not selected).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..model import predicate_key
from .kinds import CheckType

if TYPE_CHECKING:
    from .results import CheckResult

#: ``lookup(report, kind, key)``: one check's result (``ResultLog.check``), or ``None``
Lookup = Callable[[str, CheckType, str], "CheckResult | None"]

_NOT_CHECKED = {"status": "not-checked", "message": None}


def claims_json(report_path: str, predicates, observations, lookup: Lookup) -> dict:
    """``{"predicates": [...], "observations": [...]}`` for one report.

    ``predicates`` and ``observations`` map an owner (record ID, or ``""`` for
    the report) to its entries, as :class:`~..dialects.claims.assembly.ReportClaims` holds them.
    """
    out_predicates = []
    for owner, found in predicates.items():
        for predicate in found:
            key = predicate_key(predicate)
            pin = lookup(report_path, CheckType.PREDICATE_PIN, key)
            against = lookup(report_path, CheckType.PREDICATE_AGAINST, key)
            entry = {
                "record": owner or None,
                "kind": predicate.kind,
                "args": predicate.args,
                "source": predicate.source,
                "file": predicate.file,
                "line": predicate.line,
                "index": predicate.index,
                "at_pin": pin.to_json()["at_pin"] if pin else dict(_NOT_CHECKED),
                "at_against": against.to_json()["at_against"] if against else dict(_NOT_CHECKED),
            }
            if against and against.to_json().get("followed"):
                entry["followed"] = against.to_json()["followed"]
            out_predicates.append(entry)
    out_observations = []
    for owner, found in observations.items():
        for observation in found:
            check = lookup(report_path, CheckType.OBSERVE, f"{observation.file}:{observation.line}:{observation.index}")
            result = check.to_json().get("observation") if check else None
            out_observations.append({
                "record": owner or None,
                "file": observation.file,
                "line": observation.line,
                "index": observation.index,
                "axis": observation.axis,
                "covers": observation.covers,
                "covers_file": observation.covers_file,
                "status": result["status"] if result else "not-run",
                "result": result,
            })
    order = lambda e: (e["file"], e["line"], e["index"])  # noqa: E731 - one sort key
    return {"predicates": sorted(out_predicates, key=order), "observations": sorted(out_observations, key=order)}
