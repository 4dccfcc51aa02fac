"""What running one observation showed: its statuses and :class:`ObservationResult`.

An *observation* (declared in a claims file, :class:`~pytest_memreport.dialects.claims.Observation`)
is a command, usually the target's test suite or one test of it, that would
show a record's behaviour actually happening. Its run (:mod:`.run`) ends in
one of the statuses below; a problem of the observation itself is a result,
never an exception.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from ...errors import MemreportError

PASSED = "passed"
FAILED = "failed"
TIMEOUT = "timeout"
NOT_FOUND = "not-found"
ERROR = "error"


@dataclass(frozen=True)
class ObservationResult:
    """What running one observation at the pin showed.

    ``status`` is ``passed`` (exit 0), ``failed``, ``timeout``, ``not-found``
    (the command does not exist) or ``error`` (it could not be run: bad cwd,
    unusable ``covers``, the pin cannot be checked out). ``output_tail`` is
    the last lines of combined stdout/stderr. ``coverage`` is set for
    ``covers: true``: ``{"exercised", "lines", "missed", "not_executable"}``
    (see :mod:`.coverage` for the rule).
    """

    status: str
    command: str
    pin: str
    exit_code: int | None
    duration: float
    date: str
    output_tail: str
    coverage: dict | None
    message: str
    record_id: str = ""
    axis: str = "operation"
    #: where the observation is declared, ``claims.yaml:12``
    origin: str = ""
    #: the temporary worktree it ran in (removed by the time you see this)
    workdir: str = ""

    @property
    def ok(self) -> bool:
        """Passed, and with ``covers`` also executed the quoted code."""
        if self.status != PASSED:
            return False
        return self.coverage is None or bool(self.coverage.get("exercised"))

    @classmethod
    def from_json(cls, data: dict) -> ObservationResult:
        """The inverse of :meth:`as_json` (results travel as JSON between xdist workers)."""
        return cls(
            status=data["status"], command=data["command"], pin=data["pin"], exit_code=data.get("exit_code"),
            duration=float(data.get("duration", 0.0)), date=data.get("date", ""),
            output_tail=data.get("output_tail", ""), coverage=data.get("coverage"), message=data.get("message", ""),
            record_id=data.get("record", ""), axis=data.get("axis", "operation"), origin=data.get("origin", ""),
        )

    def as_json(self) -> dict:
        out: dict = {
            "status": self.status,
            "ok": self.ok,
            "command": self.command,
            "pin": self.pin,
            "exit_code": self.exit_code,
            "duration": round(self.duration, 3),
            "date": self.date,
            "message": self.message,
            "output_tail": self.output_tail,
        }
        if self.record_id:
            out["record"] = self.record_id
        out["axis"] = self.axis
        if self.origin:
            out["origin"] = self.origin
        if self.coverage is not None:
            out["coverage"] = self.coverage
        return out


def display_command(run: Sequence[str] | str) -> str:
    """The command as a shell would read it: the string itself, or the argv shell-quoted."""
    return run if isinstance(run, str) else shlex.join(run)


class CannotRun(MemreportError):
    """The observation cannot be started; ``status`` and a one-line message."""

    code = "MR301"

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
