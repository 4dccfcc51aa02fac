"""Every predicate and observation of a report in the JSON results, checked or not.

Items send their results as payloads (``predicate-pin``, ``predicate-against``,
``observe``); this lays them over the report's claims, so the JSON lists each
predicate with its status at the pin and at the against-revision, its message
and the ``file:line`` it was written on, and each observation with its run
(``not-run`` when it was not run or not selected).
"""

from __future__ import annotations

from collections.abc import Callable

from ..model import predicate_key

#: ``lookup(report, kind, key)``: one check's payload (``ResultLog.get``), or ``None``
Lookup = Callable[[str, str, str], "dict | None"]

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
            pin = lookup(report_path, "predicate-pin", key)
            against = lookup(report_path, "predicate-against", key)
            entry = {
                "record": owner or None,
                "kind": predicate.kind,
                "args": predicate.args,
                "source": predicate.source,
                "file": predicate.file,
                "line": predicate.line,
                "index": predicate.index,
                "at_pin": pin["at_pin"] if pin else dict(_NOT_CHECKED),
                "at_against": against["at_against"] if against else dict(_NOT_CHECKED),
            }
            if against and against.get("followed"):
                entry["followed"] = against["followed"]
            out_predicates.append(entry)
    out_observations = []
    for owner, found in observations.items():
        for observation in found:
            payload = lookup(report_path, "observe", f"{observation.file}:{observation.line}:{observation.index}")
            result = payload.get("observation") if payload else None
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
