"""The ``memreport/1`` JSON of a ``--memreport-affected`` run: only what the range touched.

A report's entry lists every piece of evidence and predicate it holds; a range checks
only those whose cited paths it changes. Listed as a normal run lists them, the rest
would read as thousands of unchecked claims: they are left out, and a record with
nothing left goes with them. The top-level ``affected`` object says which range.
"""

from __future__ import annotations

from .kinds import PinStatus
from .stepsummary import markdown_text


def only_touched(data: dict, affected: dict) -> dict:
    """``data`` (the run's JSON) with only the checked evidence, predicates and records,
    and ``affected`` (the range) beside them."""
    for report in data.get("reports", ()):
        report["evidence"] = [e for e in report.get("evidence", ()) if "at_against" in e]
        records = []
        for record in report.get("records", ()):
            record["evidence"] = [e for e in record.get("evidence", ()) if "at_against" in e]
            records.append(record)
        report["predicates"] = [p for p in report.get("predicates", ()) if _checked(p)]
        report["observations"] = []  # a range runs none
        checked_owners = {p.get("record") for p in report["predicates"]}
        report["records"] = [r for r in records if r["evidence"] or r["id"] in checked_owners]
    data["affected"] = affected
    return data


def _checked(predicate: dict) -> bool:
    """Evaluated at the head, or (broken before the range) found failing at the base."""
    return any(predicate.get(at, {}).get("status") != PinStatus.NOT_CHECKED for at in ("at_pin", "at_against"))


def untouched_summary(heading: str, affected: dict) -> str:
    """The step summary of a range that touches nothing the reports cite (not "no report ran")."""
    return (f"## {markdown_text(heading)}\n\n{affected['changed_paths']} changed path(s) of "
            f"{markdown_text(affected['range'])} touch nothing the reports cite: no claim is checked, none breaks.\n")
