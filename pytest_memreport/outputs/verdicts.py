"""The checks that spoke (failed or warned), as every output format reads them.

The session turns each check an item ran into a :class:`CheckVerdict` and keeps those
that failed or warned; annotations, SARIF and summaries are then functions of that one
list (as coverage.py's reporters all read the same analysis), so a new format is a new
module, never a new pass over the items.
"""

from __future__ import annotations

from dataclasses import dataclass

from .kinds import ENCLOSING_CHANGED, CheckType, Drift, Outcome, PinStatus, Verdict, member
from .results import CheckResult


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
    ``check`` the check's result (its type, report, statuses, where its evidence is).
    """

    verdict: Verdict
    headline: str
    place: Place
    check: CheckResult
    nodeid: str = ""
    #: the headline without its place, as the check said it (empty: not said apart)
    text: str = ""
    #: what the check is about without its lines (an evidence key less its report line, a
    #: predicate's claims file and index): the same finding after lines above it moved
    identity: str = ""

    @property
    def kind(self) -> str:
        return self.check.type.value or str(self.check.payload.get("type", ""))

    @property
    def type(self) -> CheckType:
        return self.check.type

    @property
    def report(self) -> str:
        return self.check.report

    @property
    def record(self) -> str:
        return self.check.record or ""

    @property
    def status(self) -> str:
        """The check's own status word: ``changed``, ``missing``, ``missing-commit``, ..."""
        return status_of(self.check, self.verdict)

    @property
    def message(self) -> str:
        """The headline without its ``file:line:`` opening (the place says it already)."""
        return self.text or self.headline

    @property
    def failed(self) -> bool:
        return self.verdict is Verdict.FAIL

    @property
    def warned(self) -> bool:
        return self.verdict is Verdict.WARN

    def sort_key(self) -> tuple:
        return (self.place.file, self.place.line, self.kind, self.check.key, self.headline)


def status_of(check: CheckResult, verdict: Verdict = Verdict.FAIL) -> str:
    """The status word of a check, for titles and rule ids."""
    kind = check.type
    if kind is CheckType.PIN:
        return str(check.at_pin or "failed")
    if kind is CheckType.DRIFT:
        if verdict is Verdict.WARN and check.enclosing_changed:
            return ENCLOSING_CHANGED
        status = check.at_against or "failed"
        return "refused" if status is Drift.NOT_CHECKED else str(status)
    if kind is CheckType.SOURCE:
        return str(check.source_pin_status or "failed")
    if kind.is_predicate:
        said = check.at_against or check.at_pin
        return "predicate-error" if said is PinStatus.ERROR else "predicate-fails"
    if kind is CheckType.OBSERVE:
        return f"observation-{check.observation_status or 'failed'}"
    if kind.is_listing:
        return str(kind)
    return str(check.payload.get("type") or "error")


def place_of(place, check: CheckResult) -> Place:
    """Where a check is shown: its entry's ``[file, line]``, else its report's line."""
    if place:
        return Place(str(place[0]), int(place[1]))
    return Place(check.report, check.line or 1)


def verdicts_of_entry(entry: dict, outcome: str, nodeid: str, check: CheckResult | None = None) -> list[CheckVerdict]:
    """The verdicts one check entry gives (none when it passed quietly or was skipped);
    ``check`` is the entry's result as the log read it (read here when not given).

    A claims item that fails gives one verdict per problem, each at its claims file's
    line (the entry's ``located``: each problem's file, line and message, as data), so
    it is shown where it is fixed.
    """
    verdict = _verdict(entry.get("verdict", ""))
    if outcome == Outcome.FAILED:
        verdict = Verdict.FAIL  # also a warning turned into an error by -W error
    if verdict not in (Verdict.FAIL, Verdict.WARN):
        return []
    if check is None:
        check = CheckResult.of(entry.get("payload") or {}, outcome)
    headline = entry.get("headline") or nodeid
    located = entry.get("located") or ()
    if verdict is Verdict.FAIL and located:
        return [CheckVerdict(Verdict.FAIL, f"{file}:{line}: {message}", Place(file, int(line)), check, nodeid,
                             message) for file, line, message in located]
    return [CheckVerdict(verdict, headline, place_of(entry.get("place"), check), check, nodeid,
                         str(entry.get("message") or ""), str(entry.get("identity") or ""))]


def _verdict(word: str) -> Verdict | None:
    found = member(Verdict, word)
    return found if isinstance(found, Verdict) else None
