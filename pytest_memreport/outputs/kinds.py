"""The words of the results model as typed constants: what kind of check a payload is, how
pytest ended it, what it says to a reviewer, the status at the pin, the drift class, a
predicate's and a report's state.

Each is a :class:`~enum.StrEnum` whose values are the words the JSON (``memreport/1``,
docs/JSON.md) has always carried, so a payload serialises unchanged and a member equals
its word; outputs compare against members, never against string literals, and read a
payload's words once through :func:`check_type` and :class:`CheckOutcome`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import StrEnum

from ..checks import verify


class CheckType(StrEnum):
    """A check payload's ``type``."""

    PIN = "pin"
    DRIFT = "drift"
    SOURCE = "source"
    PREDICATE_PIN = "predicate-pin"
    PREDICATE_AGAINST = "predicate-against"
    OBSERVE = "observe"
    STRUCTURE = "structure"
    REFERENCES = "references"
    CLAIMS = "claims"
    REPORT_ERROR = "report-error"
    UNCHECKED = "unchecked"
    ERROR = "error"  # a check that raised: an internal error, never a pass
    OTHER = ""  # a payload without a type (or one this version does not know)

    @property
    def is_predicate(self) -> bool:
        return self in (CheckType.PREDICATE_PIN, CheckType.PREDICATE_AGAINST)

    @property
    def is_evidence(self) -> bool:
        """A pin or drift check of one piece of evidence."""
        return self in (CheckType.PIN, CheckType.DRIFT)

    @property
    def is_listing(self) -> bool:
        """A check of the report set as a whole: record structure, references, claims input."""
        return self in (CheckType.STRUCTURE, CheckType.REFERENCES, CheckType.CLAIMS)


class Outcome(StrEnum):
    """How pytest ended an item (the report's ``outcome``)."""

    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"


class Verdict(StrEnum):
    """What a check says to a reviewer (a check entry's ``verdict``)."""

    PASS = "pass"
    FAIL = "fail"
    WARN = "warn"
    SKIP = "skip"


class PinStatus(StrEnum):
    """``at_pin.status`` of a piece of evidence (and a predicate's, ``holds``/``fails``)."""

    # the pin check's own words (checks/verify.py), named once there
    FOUND = verify.FOUND
    MISSING = verify.MISSING
    FILE_MISSING = verify.FILE_MISSING
    COMMIT_MISSING = verify.COMMIT_MISSING
    REFUSED = verify.REFUSED
    UNREADABLE = verify.UNREADABLE
    AMBIGUOUS = verify.AMBIGUOUS
    NOT_EVIDENCE = "not-evidence"
    NOT_CHECKED = "not-checked"
    HOLDS = "holds"
    FAILS = "fails"
    ERROR = "error"


class Drift(StrEnum):
    """``at_against.status``: a piece of evidence's drift class."""

    UNCHANGED = "unchanged"
    SHIFTED = "shifted"
    MOVED = "moved"
    RELOCATED = "relocated"
    RENAMED = "renamed"
    MODIFIED = "modified"
    CHANGED = "changed"
    DELETED = "deleted"
    UNREADABLE = "unreadable"
    MISSING = "missing"
    FILE_MISSING = "file-missing"
    NOT_CHECKED = "not-checked"
    AHEAD = "ahead"
    DIVERGED = "diverged"


#: the status of a passing piece of evidence whose enclosing definition changed (a warning;
#: a failure under ``--memreport-strict``)
ENCLOSING_CHANGED = "enclosing-changed"


class LinkKind(StrEnum):
    """What a repository link in a report points at (``RepositoryLink.kind``)."""

    BLOB = "blob"
    TREE = "tree"
    COMMIT = "commit"


class ReportState(StrEnum):
    """A report's state in the staleness table, the JSON and the site."""

    FRESH = "fresh"
    STALE = "stale"
    PARTIAL = "partial"
    UNCHECKED = "unchecked"


class RunEnd(StrEnum):
    """How the run ended (the JSON's ``run.state``)."""

    COMPLETE = "complete"
    CRASHED = "crashed"
    INTERRUPTED = "interrupted"


def check_type(payload: dict) -> CheckType:
    """A payload's ``type`` as a member (:attr:`CheckType.OTHER` for one not known)."""
    found = member(CheckType, payload.get("type") or "")
    return found if isinstance(found, CheckType) else CheckType.OTHER


@dataclass(frozen=True)
class CheckOutcome:
    """One check's words, read once from its payload: its type, the status at the pin and
    the status at the against-revision (``None`` where the payload has none; a word this
    version does not know stays a plain string)."""

    type: CheckType
    at_pin: str | None
    at_against: str | None

    @classmethod
    def of(cls, payload: dict) -> CheckOutcome:
        pin = (payload.get("at_pin") or {}).get("status")
        against = (payload.get("at_against") or {}).get("status")
        return cls(check_type(payload), member(PinStatus, pin), member(Drift, against))


def member(kind: type[StrEnum], word):
    """``word`` as a member of ``kind``; a word this version does not know stays a string."""
    if word is None:
        return None
    # A dict lookup: the enum's own call costs more than the rest of reading a payload's word.
    found = _members(kind).get(word) if isinstance(word, str) else None
    return found if found is not None else str(word)


def outcome_of(word: str) -> Outcome:
    """``word`` as the :class:`Outcome` it names (``ValueError`` for any other word)."""
    found = member(Outcome, word)
    if not isinstance(found, Outcome):
        raise ValueError(f"{word!r} is not a valid Outcome")
    return found


@functools.cache
def _members(kind: type[StrEnum]) -> dict[str, StrEnum]:
    """Each of ``kind``'s members by its word (fixed data: the enums of this module)."""
    return {item.value: item for item in kind}
