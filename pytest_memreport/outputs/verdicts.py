"""The checks that spoke (failed or warned), as every output format reads them.

The session turns each check an item ran into a :class:`CheckVerdict` and keeps those
that failed or warned; annotations, SARIF and summaries are then functions of that one
list (as coverage.py's reporters all read the same analysis), so a new format is a new
module, never a new pass over the items.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .kinds import ENCLOSING_CHANGED, CheckType, Drift, Outcome, PinStatus, Verdict, check_type

#: ``file:line`` at the end of a location (a file name may itself hold ``:``)
_LOCATION = re.compile(r"^(?P<file>.+):(?P<line>\d+)$")


@dataclass(frozen=True)
class Place:
    """A line of a file the user keeps (a report, a claims file), as given to pytest."""

    file: str
    line: int


@dataclass(frozen=True)
class CheckVerdict:
    """One check's verdict as outputs see it.

    ``verdict`` is ``fail`` or ``warn`` (what passed or was skipped says nothing to a
    reviewer); ``headline`` is the failure's first line; ``place`` where it is shown;
    ``payload`` the check's JSON payload (``type``, ``report``, ``key``, ``at_pin``...).
    """

    verdict: str
    headline: str
    place: Place
    payload: dict
    nodeid: str = ""
    #: the headline without its place, as the check said it (empty: not said apart)
    text: str = ""

    @property
    def kind(self) -> str:
        return str(self.payload.get("type", ""))

    @property
    def type(self) -> CheckType:
        return check_type(self.payload)

    @property
    def report(self) -> str:
        return str(self.payload.get("report", ""))

    @property
    def record(self) -> str:
        return str(self.payload.get("record") or "")

    @property
    def status(self) -> str:
        """The check's own status word: ``changed``, ``missing``, ``missing-commit``, ..."""
        return status_of(self.payload, self.verdict)

    @property
    def message(self) -> str:
        """The headline without its ``file:line:`` opening (the place says it already)."""
        if self.text:
            return self.text
        for prefix in (f"{self.place.file}:{self.place.line}: ", f"{self.report}:{self.place.line}: "):
            if self.headline.startswith(prefix):
                return self.headline[len(prefix):]
        return self.headline

    @property
    def failed(self) -> bool:
        return self.verdict == Verdict.FAIL

    @property
    def warned(self) -> bool:
        return self.verdict == Verdict.WARN

    def sort_key(self) -> tuple:
        return (self.place.file, self.place.line, self.kind, str(self.payload.get("key", "")), self.headline)


def status_of(payload: dict, verdict: str = Verdict.FAIL) -> str:
    """The status word of a check's payload, for titles and rule ids."""
    kind = check_type(payload)
    if kind is CheckType.PIN:
        return str(payload.get("at_pin", {}).get("status") or "failed")
    if kind is CheckType.DRIFT:
        against = payload.get("at_against", {})
        if verdict == Verdict.WARN and against.get("enclosing_changed"):
            return ENCLOSING_CHANGED
        status = against.get("status") or "failed"
        return "refused" if status == Drift.NOT_CHECKED else str(status)
    if kind is CheckType.SOURCE:
        return str(payload.get("source", {}).get("pin_status") or "failed")
    if kind.is_predicate:
        result = payload.get("at_against") or payload.get("at_pin") or {}
        return "predicate-error" if result.get("status") == PinStatus.ERROR else "predicate-fails"
    if kind is CheckType.OBSERVE:
        observed = payload.get("observation") or {}
        return f"observation-{observed.get('status') or 'failed'}"
    if kind.is_listing:
        return str(kind)
    return str(payload.get("type") or "error")


def place_of(location: str, payload: dict) -> Place:
    """Where a check is shown: its ``file:line`` location, else its report's line."""
    m = _LOCATION.match(location or "")
    if m:
        return Place(m.group("file"), int(m.group("line")))
    return Place(str(payload.get("report", "")), int(payload.get("line") or 1))


def verdicts_of_entry(entry: dict, outcome: str, nodeid: str) -> list[CheckVerdict]:
    """The verdicts one check entry gives (none when it passed quietly or was skipped).

    A claims item that fails gives one verdict per problem, each at its claims file's
    line (the entry's ``located``: each problem's file, line and message, as data), so
    it is shown where it is fixed.
    """
    verdict = entry.get("verdict", "")
    if outcome == Outcome.FAILED:
        verdict = Verdict.FAIL  # also a warning turned into an error by -W error
    if verdict not in (Verdict.FAIL, Verdict.WARN):
        return []
    payload = entry.get("payload") or {}
    headline = entry.get("headline") or nodeid
    located = entry.get("located") or ()
    if verdict == Verdict.FAIL and located:
        return [CheckVerdict(Verdict.FAIL, f"{file}:{line}: {message}", Place(file, int(line)), payload, nodeid,
                             message) for file, line, message in located]
    return [CheckVerdict(verdict, headline, place_of(entry.get("location", ""), payload), payload, nodeid,
                         str(entry.get("message") or ""))]
