"""A run's results → where each citation points after the rewrite (:class:`.Move`).

Two sources of change, both only from what this run established:

* **correction** (any ``--memreport-write``): a quotation found exactly once at
  its pin, but outside the range its citation gives, gets the range where it
  was found;
* **re-pin**: evidence of a re-pinned source follows what drift found at the
  new commit: a renamed file's new path, a range shifted by as many lines as
  its quotation (or cited lines) moved, a quotation relocated to one other
  file. Evidence pinned on purpose at another commit (a link to an older
  commit) is not re-pinned and keeps its citation.
"""

from __future__ import annotations

from ...model import Evidence, EvidenceKind, EvidenceRole, LineRange, Report
from ..kinds import CheckType, Drift, PinStatus
from ..results import ResultLog
from .target import Move, RepinTarget, same_commit

#: drift statuses whose new location is the evidence's, to be written
_FOLLOWED = frozenset({Drift.UNCHANGED, Drift.SHIFTED, Drift.MOVED, Drift.RELOCATED})


def repinned(evidence: Evidence, report: Report, target: RepinTarget | None) -> bool:
    """Whether ``evidence`` moves with the re-pin: its source is re-pinned and it is
    checked at that source's pin (no commit of its own, or the pinned one)."""
    if target is None:
        return False
    default = report.sources[0].id if report.sources else None
    source = target.source_for(evidence.source, default)
    if source is None:
        return False
    return evidence.pin is None or same_commit(evidence.pin, source.old)


def correctable(at_pin: dict) -> LineRange | None:
    """Where a quotation found exactly once at its pin, outside its cited range, lies."""
    lines = at_pin.get("lines")
    if at_pin.get("in_cited_range") is not False or not lines or len(at_pin.get("occurrences") or ()) > 1:
        return None
    return LineRange(lines[0], lines[1])


#: quotations attributed to no file the report writes (the project as a whole, a term): the
#: file they are found in is no citation, and a re-pin has nothing to rewrite for them
_NO_FILE_WRITTEN = frozenset({EvidenceRole.PROJECT, EvidenceRole.TERM})


def evidence_moves(report: Report, log: ResultLog, target: RepinTarget | None) -> dict[Evidence, Move]:
    """Every evidence whose citation changes, with its :class:`.Move`."""
    out: dict[Evidence, Move] = {}
    cited = _cited_by_line(report, log)
    for evidence in report.all_evidence():
        if evidence.kind is EvidenceKind.SYMBOL:
            continue  # a name, not a location
        if evidence.role in _NO_FILE_WRITTEN:
            continue  # its file is wherever the tree holds it: the report writes none to move
        key = evidence.key
        pin = log.get(report.path, CheckType.PIN, key)
        if pin is None:
            continue
        at_pin = pin["at_pin"]
        # A bare name or partial path is checked as the file it resolved to at the pin.
        old = pin.get("path") or evidence.path
        fixed = correctable(at_pin) if evidence.cited_lines else None
        if fixed is not None and _cited_beside(cited, evidence, old, fixed):
            fixed = None  # another citation beside it names those lines: the author cited both
        move = None
        if repinned(evidence, report, target):
            drift = log.get(report.path, CheckType.DRIFT, key)
            if drift is not None:
                move = _followed(evidence, old, at_pin, drift["at_against"], fixed)
        elif fixed is not None and at_pin.get("status") not in (PinStatus.MISSING, PinStatus.FILE_MISSING):
            move = Move(old, old, evidence.cited_lines, fixed, corrected=True, found=fixed)
        if move is not None and move.changes:
            out[evidence] = move
    return out


def _cited_by_line(report: Report, log: ResultLog) -> dict[int, list[tuple[str, LineRange]]]:
    """Report line → the (file at the pin, cited range) of every line citation on it."""
    out: dict[int, list[tuple[str, LineRange]]] = {}
    for evidence in report.all_evidence():
        if evidence.cited_lines is None:
            continue
        pin = log.get(report.path, CheckType.PIN, evidence.key)
        path = (pin or {}).get("path") or evidence.path
        for line in range(evidence.line, evidence.end_line + 1):
            out.setdefault(line, []).append((path, evidence.cited_lines))
    return out


def _cited_beside(cited: dict, evidence: Evidence, path: str, found: LineRange) -> bool:
    return any(
        other_path == path and other != evidence.cited_lines and other.contains(found)
        for line in range(evidence.line, evidence.end_line + 1)
        for other_path, other in cited.get(line, ())
    )


def _followed(evidence: Evidence, old: str, at_pin: dict, now: dict, fixed: LineRange | None) -> Move | None:
    status = now.get("status")
    if status not in _FOLLOWED or (status == Drift.RELOCATED and len(now.get("candidates") or ()) > 1):
        return None
    path = now.get("path") or old
    cited = evidence.cited_lines
    if cited is None:
        return Move(old, path)
    now_lines = LineRange(*now["lines"]) if now.get("lines") else None
    if fixed is not None:
        return Move(old, path, cited, now_lines or fixed, corrected=True, found=fixed)
    pin_lines = at_pin.get("lines")
    if now_lines is None or not pin_lines:
        return Move(old, path, cited, cited)
    delta = now_lines.start - pin_lines[0]
    if cited.start + delta < 1:
        return Move(old, path, cited, cited)
    return Move(old, path, cited, LineRange(cited.start + delta, cited.end + delta))


def path_moves(moves: dict[Evidence, Move], renames: dict) -> dict[str, str]:
    """Old path → new path for whole files: git's renames, and files drift followed."""
    out = dict(renames)
    for evidence, move in moves.items():
        if move.old_path != move.new_path and evidence.kind is not EvidenceKind.QUOTE:
            out.setdefault(move.old_path, move.new_path)
    return out
