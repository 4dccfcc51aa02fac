"""Which reports are stale, and why: one row per report that ran, from the items' outcomes.

The owner of a knowledge base asks "which reviews are stale and why"; this is
the answer, built as plain rows from the parsed reports and the
:class:`~pytest_memreport.outputs.results.CheckResult` values of the run (so a serial run and
``-n 2`` give the same rows), then laid out for the terminal here and as
Markdown by the step summary. Counts come from what each item reported: a
skipped check never counts (a backticked word that is not a path at the pin is
not ``file-missing``), a failing drift item always does.

A report is ``fresh`` when everything it cites was checked and holds, ``stale``
when a check of its evidence fails (counted by kind: ``changed``, ``deleted``,
``missing``, ...), ``partial`` when what was checked holds but a source could not
be read (a second repository with no clone, a pin or linked commit the clone lacks,
an against-revision it lacks, an object an incomplete clone lacks), and ``unchecked`` when no check of its evidence ran,
with the reason (no repository, pin missing, ...). What could not be read is never
counted as stale: it says nothing about the target. A report none of whose evidence
was selected (``-k``, ``--deselect``, a shard) is not a row.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from ..model import Report
from ..text.render import printable
from .kinds import ENCLOSING_CHANGED, CheckType, Drift, Outcome, PinStatus, ReportState
from .results import CheckResult

FRESH, STALE, PARTIAL, UNCHECKED = ReportState.FRESH, ReportState.STALE, ReportState.PARTIAL, ReportState.UNCHECKED
#: the order rows are listed in: what needs attention first
STATE_ORDER = (STALE, UNCHECKED, PARTIAL, FRESH)
#: failure kinds that say a source could not be read, not that its evidence drifted
UNREAD = frozenset({"pin-missing", "no-repository", "unpinned", "against-missing", "commit-missing", "unreadable"})

#: payload types whose items check evidence against a repository
CHECK_TYPES = frozenset({CheckType.PIN, CheckType.DRIFT, CheckType.PREDICATE_PIN, CheckType.PREDICATE_AGAINST,
                         CheckType.OBSERVE, CheckType.ERROR})
#: drift statuses that pass yet say the evidence now lives elsewhere
MOVED = frozenset({Drift.MOVED, Drift.RELOCATED, Drift.RENAMED})
#: drift statuses that pass: the evidence is still there (an enclosing definition may have changed)
_HOLDING = frozenset({Drift.UNCHANGED, Drift.SHIFTED, *MOVED})
#: an unchecked report's reason by code, for a line that stands for several reports
REASONS = {
    "no-repository": "no repository (give --memreport-repo-template TEMPLATE or --memreport-repo OWNER/NAME=PATH)",
    "pin-missing": "pinned commit not in the clone (fetch it, or check against a fuller clone)",
    "unpinned": "no pinned commit (state one in the report or give --memreport-pin)",
    "no-evidence": "no evidence to check",
    "unreadable": "the report cannot be read",
    "not-run": "no check of its evidence ran",
}
#: unchecked reports listed one per line up to this many per reason; beyond, one line per reason
HANDFUL = 5


@dataclass(frozen=True)
class Move:
    """Where one piece of evidence went since its pin (shown with ``-v``)."""

    line: int
    status: str
    path: str
    to: tuple[str, ...]


@dataclass(frozen=True)
class Row:
    """One report's state. ``failing``: ``(kind, count)`` of failed checks, most first;
    ``checked``: checks of its evidence that ran; ``reason``: why an unchecked report was
    not checked (``reason_code`` one of :data:`REASONS`)."""

    report: str
    state: str
    checked: int = 0
    failing: tuple[tuple[str, int], ...] = ()
    reason: str | None = None
    reason_code: str | None = None
    moves: tuple[Move, ...] = ()
    records_total: int = 0
    records_guarded: int = 0
    #: cited files and folders whose content changed since the pin (their checks pass)
    modified: int = 0
    #: mentions that look like paths but are no evidence of the target (skipped, once each)
    not_evidence: int = 0
    #: what of a checked report could not be read: ``(kind, count)`` (a source with no clone, ...)
    unread: tuple[tuple[str, int], ...] = ()
    #: checks among ``checked`` that ran but could not read what they check
    unread_checks: int = 0
    #: the repository keys an unchecked report asks to map (``--memreport-repo KEY=PATH``)
    keys_to_map: tuple[str, ...] = ()

    @property
    def summary(self) -> str:
        """The row's explanation in a few words (the JSON's ``reason`` for stale reports too)."""
        if self.state == UNCHECKED:
            text = self.reason or REASONS.get(self.reason_code or "", "not checked")
            return text + ("; failed: " + _counts(self.failing) if self.failing else "")
        if self.state == STALE:
            text = f"{_counts(self.failing)} of {self.checked} checks"
        elif self.unread_checks:
            text = f"{self.checked - self.unread_checks} of {self.checked} checks hold"
        else:
            text = f"{self.checked} checks hold"
        notes = [f"{self.modified} modified"] if self.modified else []
        notes += [f"{self.not_evidence} not evidence"] if self.not_evidence else []
        text += f" ({', '.join(notes)})" if notes else ""
        if self.unread:
            text += "; partly unchecked: " + ", ".join(f"{count} {_UNREAD_WORDS.get(kind, kind)}"
                                                        for kind, count in self.unread)
        return text


#: what an unread kind is called in a row's summary
_UNREAD_WORDS = {
    "no-repository": "source(s) with no clone",
    "pin-missing": "pin(s) the clone lacks",
    "unpinned": "source(s) with no pin",
    "against-missing": "source(s) whose clone lacks the against-revision",
    "commit-missing": "citation(s) at a commit the clone lacks",
    "unreadable": "citation(s) the clone could not read (a missing object, a binary or too large file)",
}


@dataclass(frozen=True)
class Collapsed:
    """Several unchecked reports with one reason, as one line; ``keys``: the repository keys
    their reasons ask to map (``--memreport-repo KEY=PATH``), with how many reports ask each."""

    reason_code: str
    reports: tuple[str, ...]
    keys: tuple[tuple[str, int], ...] = ()

    @property
    def summary(self) -> str:
        if self.keys:  # (what to give, by name: the first run of a knowledge base says it all)
            named = ", ".join(f"{key} ({count})" for key, count in self.keys[:HANDFUL])
            more = f" and {len(self.keys) - HANDFUL} more" if len(self.keys) > HANDFUL else ""
            return (f"{len(self.reports)} reports: no repository; they name {named}{more}: give "
                    f"--memreport-repo KEY=PATH for each (or --memreport-repo-template TEMPLATE)")
        return f"{len(self.reports)} reports: {REASONS.get(self.reason_code, self.reason_code)}"


def _asked_keys(rows: list[Row]) -> tuple[tuple[str, int], ...]:
    """The repository keys ``rows`` ask to map, most asked first."""
    asked = Counter(key for row in rows for key in row.keys_to_map)
    return tuple(sorted(asked.items(), key=lambda item: (-item[1], item[0])))


def _counts(failing: tuple[tuple[str, int], ...]) -> str:
    return ", ".join(f"{count} {kind}" for kind, count in failing)


def failure_kind(check: CheckResult) -> str:
    """What a failed check is counted as: its evidence status, or the kind of check."""
    kind = check.type
    if kind is CheckType.PIN:
        return str(check.at_pin or "failed")
    if kind is CheckType.DRIFT:
        status = check.at_against or "failed"
        if status is Drift.NOT_CHECKED:
            return "refused"
        if check.enclosing_changed and status in _HOLDING:
            return ENCLOSING_CHANGED  # failing under --memreport-strict
        return str(status)
    if kind.is_predicate:
        return "predicate"
    if kind is CheckType.OBSERVE:
        return "observation"
    if kind is CheckType.REPORT_ERROR:
        return "unreadable"
    if kind is CheckType.SOURCE:  # one source of a checked report: its pin, or the against-revision
        pin_status = check.source_pin_status
        return {"ok": "against-missing", "missing-commit": "pin-missing", "no-repo": "no-repository"}.get(
            pin_status or "", str(pin_status or "source"))
    return str(check.payload.get("type") or "failed")


def _ordered(counts: Counter) -> tuple[tuple[str, int], ...]:
    return tuple(sorted(counts.items(), key=lambda kc: (-kc[1], kc[0])))


def _move(check: CheckResult) -> Move | None:
    if check.at_against not in MOVED:
        return None
    return Move(check.line, str(check.at_against), check.path, tuple(str(p) for p in check.moved_to))


def build_row(report: Report, entries: list[CheckResult], records_total: int = 0) -> Row | None:
    """A report's row from its check results; ``None`` when none of its evidence was
    selected (nothing to say about it)."""
    checked = 0
    failing: Counter = Counter()
    moves: list[Move] = []
    guarded: set[str] = set()
    unchecked: CheckResult | None = None
    #: the first source of the report no clone or commit could be read for
    unread_source: CheckResult | None = None
    skipped_checks = modified = not_evidence = 0
    unread: Counter = Counter()
    #: pins a failing source item already says the clone lacks
    unread_pins = {c.source_pin for c in entries
                   if c.type is CheckType.SOURCE and c.outcome in (Outcome.FAILED, Outcome.SKIPPED)}
    for check in entries:
        kind, outcome = check.type, check.outcome
        if kind is CheckType.PIN and check.at_pin is PinStatus.NOT_EVIDENCE:
            not_evidence += 1
            continue
        if kind is CheckType.DRIFT and outcome is Outcome.PASSED and check.at_against is Drift.MODIFIED:
            modified += 1
        if kind is CheckType.UNCHECKED:
            unchecked = check
            continue  # failing under --memreport-require-checked: the state says it already
        if kind is CheckType.SOURCE and outcome is Outcome.SKIPPED:
            unread[failure_kind(check)] += 1  # a repository named by URL that nothing maps to a clone
            unread_source = unread_source or check
            continue
        if kind is CheckType.PIN and outcome is Outcome.SKIPPED and check.at_pin is PinStatus.COMMIT_MISSING \
                and check.target_rev not in unread_pins:
            unread[PinStatus.COMMIT_MISSING.value] += 1  # a linked commit the clone lacks (its pin is said once)
        if outcome is Outcome.FAILED:
            failing[failure_kind(check)] += 1
        if kind in CHECK_TYPES:
            if check.ran:
                checked += 1
                if check.record:
                    guarded.add(check.record)
            else:
                skipped_checks += 1
        if kind is CheckType.DRIFT and outcome is Outcome.PASSED:
            move = _move(check)
            if move is not None:
                moves.append(move)
    unread_checks = 0
    if checked:
        # What could not be read says nothing about the target: partly unchecked, never stale.
        for unread_kind in UNREAD & set(failing):
            count = failing.pop(unread_kind)
            unread[unread_kind] += count
            unread_checks += count if unread_kind == Drift.UNREADABLE else 0  # a check that ran and could not read
    ordered = tuple(sorted(failing.items(), key=lambda kc: (-kc[1], kc[0])))
    common: dict[str, Any] = dict(failing=ordered, records_total=records_total, records_guarded=len(guarded),
                  modified=modified, not_evidence=not_evidence,
                  moves=tuple(sorted(moves, key=lambda m: (m.line, m.path))))
    if checked:
        state = STALE if failing else PARTIAL if unread else FRESH
        return Row(report.path, state, checked, unread=_ordered(unread), unread_checks=unread_checks, **common)
    if unchecked is not None:
        return Row(report.path, UNCHECKED, 0, reason=unchecked.reason,
                   reason_code=unchecked.reason_code or "not-run", keys_to_map=unchecked.keys_to_map, **common)
    if PinStatus.UNREADABLE in failing:
        return Row(report.path, UNCHECKED, 0, reason_code="unreadable", **common)
    if skipped_checks:
        return Row(report.path, UNCHECKED, 0, reason_code="not-run", **common)
    if unread_source is not None:
        # What it read was its own words, and a repository it cites has no clone: unchecked for
        # that, as when nothing of it was read (not "no evidence", which would pass it).
        return Row(report.path, UNCHECKED, 0, reason=unread_source.reason or "a repository it cites was not read", reason_code=failure_kind(unread_source),
                   unread=_ordered(unread), **common)
    if not_evidence:
        # Everything it named turned out to be its own words (a knowledge base's files, a
        # folder the target lacks, code no file holds): a document that checked nothing is
        # never quietly green.
        return Row(report.path, UNCHECKED, 0, reason=f"no evidence to check: the {not_evidence} path(s) or "
                   "code block(s) it names are not in the pinned tree", reason_code="no-evidence", **common)
    return None


def build_rows(reports: list[Report], log, coverage: dict | None = None) -> list[Row]:
    """Every report that ran, in :data:`STATE_ORDER` then by path (the same under ``-n 2``)."""
    coverage = coverage or {}
    rows = []
    for report in reports:
        entries = log.entries(report.path)
        if not entries:
            continue
        total = (coverage.get(report.path) or {}).get("records_total", 0)
        row = build_row(report, entries, total)
        if row is not None:
            rows.append(row)
    return sorted(rows, key=lambda r: (STATE_ORDER.index(r.state), r.report))


def layout(rows: list[Row], handful: int = HANDFUL) -> list[Row | Collapsed]:
    """Rows as listed: unchecked reports one per line up to ``handful`` per reason, then one
    line for all of that reason."""
    by_reason: dict[str, list[Row]] = {}
    for row in rows:
        if row.state == UNCHECKED:
            by_reason.setdefault(row.reason_code or "not-run", []).append(row)
    out: list[Row | Collapsed] = []
    placed: set[str] = set()
    for row in rows:
        if row.state != UNCHECKED:
            out.append(row)
            continue
        code = row.reason_code or "not-run"
        group = by_reason[code]
        if len(group) <= handful:
            out.append(row)
        elif code not in placed:
            placed.add(code)
            out.append(Collapsed(code, tuple(r.report for r in group),
                                 _asked_keys(group) if code == "no-repository" else ()))
    return out


def totals(rows: list[Row]) -> dict[str, int]:
    """How many reports are in each state (every state, in :data:`STATE_ORDER`)."""
    counts = Counter(row.state for row in rows)
    return {state: counts.get(state, 0) for state in STATE_ORDER}


def nothing_checked(rows: list[Row]) -> bool:
    """No evidence was checked against any repository, though some report wanted it."""
    return bool(rows) and all(row.state == UNCHECKED for row in rows)


def failing_verdict(rows: list[Row], allow_unchecked: bool) -> str | None:
    """The one line that fails a run that is green by its items, or ``None``: nothing was
    checked at all, or a report was found at run time to check nothing (every path it names
    is not in the pinned tree: no item of its failed) and unchecked reports are not allowed."""
    if nothing_checked(rows):
        return verdict_line(rows)
    found_empty = [row.report for row in rows
                   if row.state == UNCHECKED and row.reason_code == "no-evidence" and row.not_evidence]
    if found_empty and not allow_unchecked:
        return (f"memreport: {', '.join(found_empty[:5])}: checked nothing (every path or code block named is not "
                "in the pinned tree); give --memreport-allow-unchecked to accept")
    return None


def verdict_line(rows: list[Row]) -> str:
    """The one line that fails a run in which nothing was checked."""
    reasons = Counter(row.reason_code or "not-run" for row in rows)
    parts = ", ".join(f"{count} {code.replace('-', ' ')}" for code, count in sorted(reasons.items()))
    hint = ""
    if "no-repository" in reasons:
        hint = "; give --memreport-repo-template TEMPLATE (or ini memreport_repos, or --memreport-repo PATH)"
    elif "pin-missing" in reasons:
        hint = "; fetch the pinned commits into the clones"
    return f"memreport: nothing was checked against a repository: every report is unchecked ({parts}){hint}"


def terminal_lines(rows: list[Row], verbose: bool = False) -> list[str]:
    """The table that ends the terminal summary: ``state  report  why``, then the totals.

    Every name is shown :func:`printable`: a report or target file named with a line break
    (a CI workflow command after it) or a byte that is not UTF-8 is one escaped name."""
    if not rows:
        return []
    listed = layout(rows)
    shown = {entry.report: printable(entry.report) for entry in listed if isinstance(entry, Row)}
    width = max(map(len, shown.values()), default=0)
    lines = []
    for entry in listed:
        if isinstance(entry, Collapsed):
            lines.append(f"{UNCHECKED:<9}  {printable(entry.summary)}")
            if verbose:
                lines.extend(f"           {printable(path)}" for path in entry.reports)
            continue
        lines.append(f"{entry.state:<9}  {shown[entry.report]:<{width}}  {printable(entry.summary)}")
        if verbose:
            for move in entry.moves:
                lines.append(printable(f"           line {move.line}: {move.path} {move.status} to "
                                       f"{', '.join(move.to)}"))
    count = totals(rows)
    line = f"{len(rows)} report(s): " + ", ".join(f"{n} {state}" for state, n in count.items() if n)
    total = sum(r.records_total for r in rows)
    if total:
        line += f"; {sum(r.records_guarded for r in rows)} of {total} records had a check that ran"
    lines.append(line)
    return lines


def add_states(data: dict, rows: list[Row], unrun: str = "not selected (no check of its evidence ran)") -> None:
    """Give every report of the JSON results its ``state`` and ``reason`` (``null`` when fresh);
    a report none of whose evidence ran is ``unchecked``, ``not selected`` (or ``unrun``: why
    nothing ran, in a run that crashed)."""
    by_path = {row.report: row for row in rows}
    for entry in data.get("reports", []):
        row = by_path.get(entry.get("path"))
        if row is None:
            entry["state"], entry["reason"] = UNCHECKED, unrun
        else:
            entry["state"] = row.state
            entry["reason"] = None if row.state == FRESH else row.summary
