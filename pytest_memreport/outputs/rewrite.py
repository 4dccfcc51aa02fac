"""What ``--memreport-write`` changes in a report (and its claims file), planned from a run's results.

Three kinds of change, each only with evidence from this run:

* **promotion**: a record whose observations all passed (see
  :func:`observe.decide`) gets ``observed`` on its operation status and an
  evidence line under it;
* **range correction**: a quotation found exactly once at its pin but outside
  its cited range gets the range where it was found (said in the messages);
* **re-pin** (``--memreport-repin REV``): when every piece of evidence and every
  predicate of the re-pinned sources holds at REV, the pin moves to REV wherever
  it is written and what drift found is written with it: every link into the
  repository at the old commit, renamed paths (in URLs, link texts, citations
  and the claims file), shifted ranges and anchors (see :mod:`.repin`). Without
  a re-pin those stay as they are: they are true at the old pin.

The plan is pure: results in, byte edits out. Applying it is
:func:`writeback.apply_files`; previewing it, :mod:`.preview`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..checks import observe
from . import repin as repinning
from . import writeback
from .kinds import CheckType, PinStatus
from .lineindex import LineIndex, resolve_overlaps
from ..model import EvidenceKind, Report, predicate_key
from .results import ResultLog
from .repin import RepinTarget


@dataclass(frozen=True)
class RewritePlan:
    """Edits for one report (and its claims files), and what to tell the user about them."""

    edits: tuple[writeback.Edit, ...] = ()
    changes: tuple[str, ...] = ()
    regressions: tuple[str, ...] = ()
    blockers: tuple[str, ...] = ()
    #: edits of other files that move with the report (its claims files)
    companions: tuple[writeback.FileEdits, ...] = ()
    #: rewrites that could not be made (two edits of one spot disagreed), one line each
    skipped: tuple[str, ...] = ()
    #: ranges that had to move but are written nowhere this plan could find, one line each
    unwritten: tuple[str, ...] = ()

    def files(self, report_path: Path, original: bytes) -> list[writeback.FileEdits]:
        """Every file this plan edits, the report first."""
        return [writeback.FileEdits(Path(report_path), original, self.edits), *self.companions]


@dataclass(frozen=True)
class _Found:
    ok: bool


@dataclass
class _Builder:
    data: bytes
    edits: list = field(default_factory=list)
    changes: list = field(default_factory=list)


@dataclass(frozen=True)
class ClaimsInput:
    """A claims file of the report as read: its path, bytes, predicates and sources."""

    path: str
    data: bytes
    predicates: tuple = ()
    sources: tuple = ()


def plan(report: Report, data: bytes, log: ResultLog, repin: RepinTarget | None = None,
         checked: set[str] | None = None, claims: tuple[ClaimsInput, ...] = (),
         inline: tuple = (), predicates: dict | None = None) -> RewritePlan:
    """Edits to ``data`` (the report's bytes as parsed) from the results in ``log``.

    ``checked`` are the keys of the evidence that became checks (``None``: all);
    ``claims`` the report's claims files, edited when paths they name moved;
    ``inline`` the predicates of the report's own ```memreport blocks.
    ``predicates`` are the report's predicates by record: a record is promoted
    only when each holds at the pin in this run (without them, those that ran).
    A re-pin with blockers plans no re-pin (promotions and corrections still).
    """
    text = data.decode("utf-8", errors="replace")
    build = _Builder(data)
    regressions = _promotions(report, text, log, build, predicates)
    blockers: list[str] = []
    if repin is not None:
        blockers = repinning.blockers(report, log, repin, checked)
        if blockers:
            repin = None
    mark = len(build.edits), len(build.changes)
    skipped, unwritten = _relocations(report, data, log, repin, inline, build)
    if repin is not None and unwritten:
        # A re-pin that cannot write one of its citations would fail at the new pin: refused,
        # naming each; corrections of wrong ranges are still made.
        del build.edits[mark[0]:], build.changes[mark[1]:]
        blockers, repin = unwritten, None
        skipped, unwritten = _relocations(report, data, log, None, inline, build)
    companions = []
    for claims_input in claims:
        edits = _claims_edits(report, claims_input, log, repin, build)
        if edits:
            companions.append(writeback.FileEdits(Path(claims_input.path), claims_input.data, tuple(edits)))
    return RewritePlan(tuple(build.edits), tuple(build.changes), tuple(regressions), tuple(blockers),
                       tuple(companions), tuple(skipped), tuple(unwritten))


def _relocations(report: Report, data: bytes, log: ResultLog, repin: RepinTarget | None, inline,
                 build) -> tuple[list[str], list[str]]:
    """Range corrections and, with a re-pin, everything the re-pin rewrites in the report:
    (rewrites dropped as disagreeing, ranges that must move but were found written nowhere)."""
    moves = repinning.evidence_moves(report, log, repin)
    if not moves and repin is None:
        return [], []
    index = LineIndex(data)
    files = repinning.path_moves(moves, repin.renames if repin else {})
    found = repinning.report_edits(report, index, moves, repin, files)
    if repin is not None and inline:
        # Inline ```memreport blocks are predicates written in the report itself.
        more, messages = repinning.claims_changes(index, inline, files, None)
        found.changes.extend(more)
        found.messages.extend(messages)
    kept, dropped = resolve_overlaps(found.changes)
    build.edits.extend(index.edit(change) for change in kept)
    if repin is not None:
        for source in repin.sources:
            build.changes.append(f"{report.path}: {source.id} pin {source.old[:12]} -> {repin.new_of(source)[:12]}")
    unwritten = []
    for evidence, move in sorted(moves.items(), key=lambda item: item[0].line):
        line = evidence.end_line if evidence.kind is EvidenceKind.QUOTE else evidence.line
        old = move.old_path + (f":{move.old_lines}" if move.old_lines else "")
        new = move.new_path + (f":{move.new_lines}" if move.new_lines else "")
        if repinning.unwritten(evidence, move, line, found.placed):
            # Saying "wrote" would leave a wrong citation behind silently: the user must fix it.
            unwritten.append(f"{report.path}:{line}: not rewritten: {old} must read {new}, but this run "
                             f"cannot find where the report writes it; write it out by hand")
            continue
        why = ""
        if move.corrected and move.found is not None:
            lines = "line" if move.found.start == move.found.end else "lines"
            why = f" (range corrected: the quotation is at {lines} {move.found} at the pin)"
        build.changes.append(f"{report.path}:{line}: {old} -> {new}{why}")
    build.changes.extend(found.messages)
    return [f"{report.path}:{c.line}: not rewritten ({c.reason}): another rewrite of the same text disagrees"
            for c in dropped], unwritten


def _claims_edits(report: Report, claims: ClaimsInput, log: ResultLog, repin: RepinTarget | None, build) -> list:
    if repin is None:
        return []
    moves = repinning.evidence_moves(report, log, repin)
    files = repinning.path_moves(moves, repin.renames)
    index = LineIndex(claims.data)
    changes, messages = repinning.claims_changes(index, claims.predicates, files, repin, claims.sources)
    kept, _ = resolve_overlaps(changes)
    build.changes.extend(messages)
    return [index.edit(change) for change in kept]


def _observation_results(report: Report, log: ResultLog, record_id: str):
    """The record's observation results, or ``None`` when any observation did not run."""
    checks = [c for c in log.checks_of(report.path, CheckType.OBSERVE) if c.record == record_id]
    if not checks or any(c.observation_status is None for c in checks):
        return None
    return [observe.ObservationResult.from_json(c.to_json()["observation"]) for c in checks]


def _predicates_hold(report: Report, log: ResultLog, record_id: str, predicates: dict | None) -> list[_Found]:
    """Whether each predicate of the record held at the pin: one failing (or not run) blocks promotion."""
    if predicates is not None:
        return [_Found(bool(seen and seen.at_pin is PinStatus.HOLDS))
                for seen in (log.check(report.path, CheckType.PREDICATE_PIN, predicate_key(p))
                             for p in predicates.get(record_id, ()))]
    return [_Found(c.at_pin is PinStatus.HOLDS)
            for c in log.checks_of(report.path, CheckType.PREDICATE_PIN) if c.record == record_id]


def _promotions(report: Report, text: str, log: ResultLog, build: _Builder, predicates: dict | None) -> list[str]:
    regressions = []
    for record in report.records:
        if record.is_annotation:
            continue
        results = _observation_results(report, log, record.id)
        if not results:
            continue
        pins = []
        for evidence in record.evidence:
            seen = log.check(report.path, CheckType.PIN, evidence.key)
            pins.append(_Found(bool(seen and seen.at_pin is PinStatus.FOUND)))
        pins.extend(_predicates_hold(report, log, record.id, predicates))
        decision = observe.decide(record, results, pins, report_text=text)
        if isinstance(decision, observe.Regression):
            regressions.append(f"{report.path}:{decision.status.line}: {decision.message}")
        elif isinstance(decision, observe.Promotion):
            edits = writeback.promotion_edits(build.data, decision)
            if edits:
                build.edits.extend(edits)
                build.changes.append(
                    f"{report.path}:{decision.status.line}: {record.id} {decision.status.axis} "
                    f"{decision.old} -> {decision.new}"
                )
    return regressions


def repin_blockers(report: Report, log: ResultLog, repin: RepinTarget, checked: set[str] | None = None) -> list[str]:
    """Everything that does not hold at the re-pin revision, one line each (see :mod:`.repin.blockers`)."""
    return repinning.blockers(report, log, repin, checked)


__all__ = ["ClaimsInput", "RewritePlan", "plan", "repin_blockers", "predicate_key"]
