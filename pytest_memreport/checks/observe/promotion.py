"""Promotion rules: which record becomes ``observed``, and the evidence line written under it.

:func:`decide` turns a record's observation results into a
:class:`Promotion` (``uninspected``/``claimed``/``afforded`` → ``observed`` on
the operation axis) or a :class:`Regression`, following the method's rule:
never upgrade implementation to observed operation without the evidence for
it, and never upgrade past ``observed`` (causality needs more than a passing
test). Write-back (:mod:`pytest_memreport.outputs.writeback`) applies the
decision; :func:`evidence_text` is the sentence it writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...errors import MemreportError
from ...model import Record, Status
from ...text.layout import bullet_prefix, is_table_row
from .results import FAILED, NOT_FOUND, PASSED, TIMEOUT, ObservationResult

#: Statuses an observation may promote to ``observed`` (canonical spellings;
#: the legacy ``wired``/``implemented`` are ``afforded``).
PROMOTABLE = ("uninspected", "claimed", "afforded")
OBSERVED = "observed"
#: Statuses a failing observation contradicts.
_RESTS_ON_OBSERVATION = ("observed", "causally supported")


class PromotionError(MemreportError, ValueError):
    """A promotion the method forbids (e.g. on the implementation axis); one-line message."""

    code = "MR303"


def axis_problem(axis: str) -> str | None:
    """Why an observation cannot speak for ``axis``, or ``None`` when it can."""
    if axis.strip().lower() == "implementation":
        return (
            "an observation cannot promote the implementation axis: running the code shows "
            "operation, not what the code affords; use axis: operation"
        )
    return None


@dataclass(frozen=True)
class Promotion:
    """Raise ``status`` from ``old`` to ``new`` and write ``evidence_line`` under the record.

    ``evidence_line`` may hold several lines (one per observation), ``\\n``-separated.
    """

    record_id: str
    status: Status
    old: str
    new: str
    evidence_line: str


@dataclass(frozen=True)
class Regression:
    """A record says its operation was observed, but an observation now fails."""

    record_id: str
    status: Status
    message: str


def decide(
    record: Record,
    results: Sequence[ObservationResult],
    pin_results: Sequence,
    axis: str = "operation",
    *,
    report_text: str | None = None,
) -> Promotion | Regression | None:
    """What the observations of ``record`` change about its status on ``axis``.

    * Promotion to ``observed`` when the status is ``uninspected``, ``claimed``
      or ``afforded`` (legacy ``wired``/``implemented``), there is at least one
      result and every result is ok (passed; with ``covers``, exercised), and
      every quotation of the record is found at the pin (``pin_results``).
    * Regression when the status is ``observed`` or ``causally supported`` and
      an observation is not ok (failed, timed out, or could not run).
    * ``None`` otherwise: no results (reading alone promotes nothing), no
      status line on ``axis``, already ``observed`` or beyond, a quotation
      missing at the pin, or a status such as ``absent`` an observation cannot
      overrule.

    Raises :class:`PromotionError` for the implementation axis. With
    ``report_text`` the evidence line copies the indentation and bullet of the
    status line (``  • `` in text renderings, ``- `` in Markdown).
    """
    problem = axis_problem(axis)
    if problem:
        raise PromotionError(problem)
    mine = [r for r in results if not r.axis or r.axis == axis]
    if not mine:
        return None
    status = _axis_status(record, axis)
    if status is None:
        return None
    failing = [r for r in mine if not r.ok]
    if status.canonical in _RESTS_ON_OBSERVATION:
        if not failing:
            return None
        first = failing[0]
        more = f" (and {len(failing) - 1} more not ok)" if len(failing) > 1 else ""
        return Regression(
            record.id, status,
            f"{record.id} says {axis} {status.value} (report line {status.line}), but an observation "
            f"is {_verdict(first)}: {first.message}{more}",
        )
    if failing or status.canonical not in PROMOTABLE:
        return None
    if not all(getattr(p, "ok", False) for p in pin_results):
        return None
    prefix, in_table = _evidence_prefix(report_text, status.line)
    # Below a table the line no longer sits next to its record: it names it.
    named = f"{record.id} " if in_table else ""
    lines = "\n".join(prefix + named + evidence_text(r, axis) for r in mine)
    return Promotion(record.id, status, status.value, OBSERVED, lines)


def _verdict(result: ObservationResult) -> str:
    if result.status == PASSED:
        return "passing without executing the quoted code"
    return {FAILED: "failing", TIMEOUT: "timing out", NOT_FOUND: "not runnable"}.get(result.status, "not runnable")


def _axis_status(record: Record, axis: str) -> Status | None:
    """The record's status line on ``axis``: the unqualified one when there are several."""
    on_axis = [s for s in record.statuses if s.axis == axis]
    for status in on_axis:
        if not status.qualifier:
            return status
    return on_axis[0] if on_axis else None


def _evidence_prefix(report_text: str | None, line: int) -> tuple[str, bool]:
    """The bullet for evidence under the status on report ``line``; whether that is a table row."""
    if report_text is None:
        return "  • ", False
    lines = report_text.splitlines()
    if not 1 <= line <= len(lines):
        return "  • ", False
    status_line = lines[line - 1].lstrip("\ufeff")
    return bullet_prefix(status_line), is_table_row(status_line)


def evidence_text(result: ObservationResult, axis: str = "operation") -> str:
    """One evidence sentence for a report, e.g. ``operation observation: `pytest -q` passed at 1a2b3c4d5e6f
    on 2026-11-29 (exit 0, 3.2 s; quoted lines executed)``."""
    command = " ".join(result.command.split())  # one report line, whatever the command's layout
    fence = "``" if "`" in command else "`"
    pad = " " if fence == "``" else ""
    details = []
    if result.exit_code is not None:
        details.append(f"exit {result.exit_code}")
    details.append(f"{result.duration:.1f} s")
    detail = ", ".join(details)
    if result.coverage is not None:
        detail += "; quoted lines executed" if result.coverage.get("exercised") else "; quoted lines NOT executed"
    return (
        f"{axis} observation: {fence}{pad}{command}{pad}{fence} {result.status} at {result.pin[:12]} "
        f"on {result.date} ({detail})"
    )
