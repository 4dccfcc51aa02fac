"""pytest collectors and items: a report file, its records, one item per check
(or, with ``--memreport-items=record``, one item for all of a record's evidence).

This is a thin layer: every item asks the session's :class:`Engine` for a
check result and turns it into pass, fail or skip plus readable text. No
parsing or matching happens here.
"""

from __future__ import annotations

import dataclasses
import functools
import traceback
import warnings
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest

from ..text import render
from ..checks import structure
from ..checks.verify import FOUND
from ..dialects.claims import REPORT, Observation, Predicate, describe_unknown_record
from ..dialects.claims.model import Problem
from ..dialects import ReportError
from ..engine import Engine
from ..engine.plan import unique_pairs
from ..errors import MemreportError, MemreportWarning
from ..gitstore import RepoError, RevisionError
from ..model import Evidence, EvidenceKind, Record, Report
from ..outputs.results import CheckResult
from .outcomes import (
    Outcome,
    drift_outcome,
    evidence_outcome,
    not_evidence_drift_outcome,
    not_evidence_outcome,
    group_outcome,
    listing_outcome,
    observation_outcome,
    predicate_outcome,
    quiet_pass,
    source_outcome,
    unchecked_outcome,
    unresolved_names_outcome,
    unresolved_symbol_outcome,
)

ENGINE_KEY = pytest.StashKey[Engine]()


class CheckFailed(MemreportError):
    """Raised by an item whose check failed; carries the lines to show."""

    code = "MR304"

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(outcome.headline)
        self.outcome = outcome


def engine_of(node: pytest.Item | pytest.Collector) -> Engine:
    return node.config.stash[ENGINE_KEY]


class MemreportFile(pytest.File):
    """A report: collects one node per record and one item per check."""

    def collect(self):
        engine = engine_of(self)
        try:
            report = engine.report(self.path)
        except ReportError as exc:
            yield ReportErrorItem.from_parent(self, name="read", message=str(exc))
            return
        if engine.affected is not None:  # --memreport-affected: only what the range touches
            from .affected import affected_items

            yield from affected_items(self, report, engine)
            return
        claims = engine.claims_for(report)
        # A listing (--collect-only) resolves no pin: a clone that lacks one is said when items run.
        unchecked = engine.unchecked(report, resolve=not self.config.getoption("collectonly"))
        if unchecked is not None:
            # Nothing of it can be checked: one item says why, and none passes in its
            # stead (structure and references are listed only when they fail).
            yield UncheckedItem.from_parent(self, name="unchecked", report=report, why=unchecked)
            yield from self._failing_only(engine, report, claims)
            return
        yield from self._source_items(engine, report)
        if claims.files or claims.errors or claims.warnings:
            yield ClaimsItem.from_parent(self, name="claims", report=report)
        yield StructureItem.from_parent(self, name="structure", report=report)
        if report.all_references():
            yield ReferencesItem.from_parent(self, name="references", report=report)
        yield from evidence_items(self, report, engine.collectable(report, report.evidence), engine)
        for record in report.records:
            checks = record.evidence or claims.predicates.get(record.id) or claims.observations.get(record.id)
            if checks and not (record.is_annotation and not record.evidence):
                yield RecordNode.from_parent(self, name=record.node_name, report=report, record=record)
        if claims.predicates.get(REPORT) or claims.observations.get(REPORT):
            yield ReportNode.from_parent(self, name="report", report=report)

    def _failing_only(self, engine: Engine, report: Report, claims):
        """The report-level items of an unchecked report that fail (they need no repository)."""
        candidates: list[ReportItem] = []
        if claims.files or claims.errors or claims.warnings:
            candidates.append(ClaimsItem.from_parent(self, name="claims", report=report))
        candidates.append(StructureItem.from_parent(self, name="structure", report=report))
        if report.all_references():
            candidates.append(ReferencesItem.from_parent(self, name="references", report=report))
        for item in candidates:
            if item.outcome().verdict == "fail":
                yield item

    def _source_items(self, engine: Engine, report: Report):
        """One item per source the report's evidence is checked against."""
        names: dict[str, str | None] = {}
        needs_pin: set[str] = set()
        for evidence in report.all_evidence():
            source = report.source(evidence.source)
            name = source.id if source else evidence.source or "SRC-1"
            names.setdefault(name, evidence.source)
            if evidence.pin is None:
                needs_pin.add(name)
        if not names and report.sources:
            names[report.sources[0].id] = report.sources[0].id
            needs_pin.add(report.sources[0].id)
        for name, key in names.items():
            yield SourceItem.from_parent(self, name=f"source:{name}", report=report, source_id=key,
                                         needs_pin=name in needs_pin).checks_in(
                _pairs(engine.pair_key(report, key)))


class RecordNode(pytest.Collector):
    """A record (or annotation): groups its items so ``-k RECORD-ID`` selects them."""

    def __init__(self, *, report: Report, record: Record, **kwargs) -> None:
        super().__init__(**kwargs)
        self.report = report
        self.record = record

    def collect(self):
        engine = engine_of(self)
        yield from evidence_items(self, self.report, engine.collectable(self.report, self.record.evidence), engine)
        if self.record.is_annotation:
            return
        yield from claims_items(self, self.report, self.record, engine)

    def reportinfo(self):
        return self.path, self.record.line - 1, self.record.node_name


class ReportNode(pytest.Collector):
    """The report's own claims (a claims file's ``report:``, blocks outside any record):
    ``report.md::report::predicate[0]:contains``."""

    def __init__(self, *, report: Report, **kwargs) -> None:
        super().__init__(**kwargs)
        self.report = report

    def collect(self):
        yield from claims_items(self, self.report, None, engine_of(self))

    def reportinfo(self):
        return self.path, 0, "report"


def claims_items(parent, report: Report, record: Record | None, engine: Engine):
    """Items of the predicates and observations of ``record`` (``None``: of the report)."""
    owner = record.id if record is not None else REPORT
    claims = engine.claims_for(report)
    for predicate in claims.predicates.get(owner, ()):
        name = f"predicate[{predicate.index}]:{predicate.kind}"
        if predicate.file == report.path or predicate.file.endswith(report.path):
            name += f"@L{predicate.line}"  # inline blocks: several per record
        pairs = _pairs(engine.pair_key(report, predicate.source))
        yield PredicateItem.from_parent(parent, name=name, report=report, predicate=predicate).checks_in(pairs)
        if engine.drift_enabled:
            yield PredicateItem.from_parent(parent, name=f"{name}::drift", report=report,
                                            predicate=predicate, at_against=True).checks_in(pairs)
    for observation in claims.observations.get(owner, ()):
        name = f"observe[{observation.index}]"
        if observation.file == report.path or observation.file.endswith(report.path):
            name += f"@L{observation.line}"
        yield ObserveItem.from_parent(parent, name=name, report=report, record=record, observation=observation)


def evidence_items(parent, report: Report, evidence: list[Evidence], engine: Engine):
    """The items checking ``evidence``: per evidence, one item per check (names made unique
    in order), but one item for the names in backticks proposed as symbols (``symbols``);
    with ``--memreport-items=record``, one item for all of it."""
    if engine.options.items == "record":
        if evidence:
            yield _group_item(parent, "evidence", report, evidence, engine)
        return
    # A name beside a citation is a proposal, most often naming no definition there (a
    # field, a value, a command): known only once the item runs, it would be two skipped
    # items apiece. One item checks them all; each that names a definition is a check of
    # its own in the results, each that names none is left out, as a record's item does.
    proposals = [item for item in evidence if item.kind is EvidenceKind.SYMBOL]
    seen: dict[str, int] = {}
    for item in evidence:
        if item.kind is EvidenceKind.SYMBOL:
            continue
        name = item.name
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:  # e.g. two quotations ending on one line
            name = f"{name}#{seen[name]}"
        pairs = _pairs(engine.pair_key(report, item.source, item.pin))
        for kind in evidence_checks(engine, report, item):
            yield kind.from_parent(parent, name=name + kind.name_suffix, report=report, evidence=item).checks_in(pairs)
    if proposals:
        # Split as a piece of evidence's items are, so ``-m memreport_drift`` (and ``not``)
        # selects the names' checks since the pin with the others'.
        yield _group_item(parent, "symbols", report, proposals, engine, checks=EvidenceGroupItem.AT_PIN)
        if engine.drift_enabled:
            yield _group_item(parent, "symbols" + DriftItem.name_suffix, report, proposals, engine,
                              checks=EvidenceGroupItem.SINCE_PIN)


def _group_item(parent, name: str, report: Report, evidence: list[Evidence], engine: Engine,
                checks: str = "") -> MemreportItem:
    """An item checking all of ``evidence``; ``checks``: only at the pin, or only since
    (:attr:`EvidenceGroupItem.AT_PIN`, :attr:`~EvidenceGroupItem.SINCE_PIN`), else both."""
    record = parent.record if isinstance(parent, RecordNode) else None
    kind = DriftGroupItem if checks == EvidenceGroupItem.SINCE_PIN else EvidenceGroupItem
    return kind.from_parent(parent, name=name, report=report, evidence=evidence, record=record,
                            checks=checks).checks_in(_pairs(*(engine.pair_key(report, e.source, e.pin) for e in evidence)))


def _pairs(*keys: str | None) -> frozenset[str]:
    return frozenset(key for key in keys if key is not None)


def evidence_checks(engine: Engine, report: Report, evidence: Evidence) -> tuple[type[EvidenceItem], ...]:
    """What is checked of an evidence, as item kinds: at its pin and, with drift on, at
    the against-revision; a mention the report declares no target evidence is one
    skipped item. What else is no evidence is known only once the item runs (its pin
    item then skips with the reason, and its drift item with it). Per-evidence items
    are one kind each; a group item runs them all."""
    if evidence.declared_not_evidence:
        return (NotEvidenceItem,)
    return (EvidenceItem, DriftItem) if engine.drift_enabled else (EvidenceItem,)


def scheduled_evidence(items: list[pytest.Item]) -> list[tuple[Report, Evidence]]:
    """``(report, evidence)`` of every evidence the selected ``items`` check, in order, once."""
    return unique_pairs(_checked_pairs(items))


def _checked_pairs(items: list[pytest.Item]) -> Iterator[tuple[Report, Evidence]]:
    """``(report, evidence)`` of each check the ``items`` make (a record's item makes several)."""
    for item in items:
        if isinstance(item, NotEvidenceItem):
            continue
        if isinstance(item, EvidenceItem):
            yield item.report, item.evidence
        elif isinstance(item, EvidenceGroupItem):
            yield from ((item.report, evidence) for evidence in item.evidence)


#: what the plugin's nodes hold of the report model
_MODEL_ATTRIBUTES = ("report", "record", "evidence")


def release_model(items: Iterable[pytest.Item]) -> None:
    """The report model the plugin's nodes hold (and their parents, a record's node) let go
    of, once the run has ended and every output is written: pytest keeps its items until
    the process exits, and its last garbage collections (five, at unconfigure) would walk
    every record and piece of evidence of the run each time. A node read after this has
    no ``report``, ``record`` or ``evidence`` attribute."""
    seen: set[int] = set()
    for item in items:
        node: object = item
        while isinstance(node, (MemreportItem, RecordNode, ReportNode)) and id(node) not in seen:
            seen.add(id(node))
            for name in _MODEL_ATTRIBUTES:
                vars(node).pop(name, None)
            node = node.parent


def checked(report: Report | None, line: int, path: Path, check, *args) -> Outcome:
    """``check(*args)``; a repository failing under it (a corrupt object, a clone removed
    mid-run) is a failing outcome of one line, not a traceback."""
    try:
        return check(*args)
    except (RepoError, RevisionError) as exc:
        if report is None:
            message = f"{path}: {exc}"
            return Outcome("fail", message, payload={"type": "error", "report": str(path), "line": line,
                                                     "message": message})
        where = render.location(report, line)
        headline = render.Said(where.file, where.line, str(exc))
        return Outcome("fail", headline, payload={"type": "error", "report": report.path, "line": line,
                                                  "message": str(headline)}, message=str(exc))


def internal_error(report: Report, line: int, exc: Exception) -> Outcome:
    """A check that raised: a failing outcome carrying the traceback (a per-check
    item would show it as pytest does), so that a record's other checks still run."""
    where = render.location(report, line)
    said = f"internal error in pytest-memreport: {type(exc).__name__}: {exc}"
    message = render.Said(where.file, where.line, said)
    details = tuple("  " + row for chunk in traceback.format_exception(exc) for row in chunk.rstrip("\n").split("\n"))
    return Outcome("fail", message, details,
                   payload={"type": "error", "report": report.path, "line": line, "message": str(message)},
                   message=said)


@functools.lru_cache(maxsize=None)
def _mark(name: str) -> pytest.MarkDecorator:
    return getattr(pytest.mark, name)


class MemreportItem(pytest.Item):
    """Base of every check item: runs ``outcome()`` and reports it."""

    marker_name = "memreport"

    def __init__(self, *, report: Report | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        #: ``None`` only for a report that could not be read (:class:`ReportErrorItem`)
        self.report: Report | None = report
        #: what this item checked, one entry per check (:func:`check_entry`), for the
        #: session; the entries travel on the item's call report (from a pytest-xdist
        #: worker as JSON text), not in its JUnit properties, which stay compact. A
        #: record item's check that passed quietly is its result already (:func:`quiet_pass`)
        self.memreport_checks: list[dict | CheckResult] = []
        #: the (repository, pin) pairs the item checks in (:meth:`..engine.Engine.pair_key`)
        self.memreport_pairs: frozenset[str] = frozenset()
        #: the pairs' group, named by the session (``None``: the item checks in none)
        self.memreport_group: str | None = None
        # The decorators are made once: pytest looks a marker name up anew on every call.
        self.add_marker(_mark("memreport"))
        if self.marker_name != "memreport":
            self.add_marker(_mark(self.marker_name))

    def checks_in(self, pairs: frozenset[str]) -> "MemreportItem":
        """This item, checking in ``pairs``: the session plans and places it with them."""
        self.memreport_pairs = pairs
        return self

    @property
    def line(self) -> int:
        return 1

    def outcome(self) -> Outcome:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def runtest(self) -> None:
        outcome = checked(self.report, self.line, self.path, self.outcome)
        self.memreport_checks.append(check_entry(outcome))
        self.conclude(outcome)

    def conclude(self, outcome: Outcome) -> None:
        """Give ``outcome`` to pytest: its JUnit properties, then fail, skip or warn."""
        for key in JUNIT_PROPERTIES:
            value = outcome.properties.get(key)
            if value is not None:
                self.user_properties.append((key, junit_value(value)))
        if outcome.verdict == "fail":
            raise CheckFailed(outcome)
        if outcome.verdict == "skip":
            # Located at the item (its report line), not at this line of items.py;
            # pytest prints that location, so the headline's own is left out.
            raise pytest.skip.Exception(render.printable(_unlocated(outcome)), _use_item_location=True)
        if outcome.verdict == "warn":
            self.warn_at(self.line, _unlocated(outcome))

    def warn_at(self, line: int, message: str) -> None:
        # Attributed to the report line, so pytest's warning summary points there (and says
        # where once: ``message`` is said without its location).
        filename = str(self.path)
        warnings.warn_explicit(MemreportWarning(render.printable(message)), MemreportWarning, filename=filename,
                               lineno=line)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CheckFailed):
            outcome = excinfo.value.outcome
            if (style or self.config.getoption("tbstyle", "auto")) == "line":
                return one_line_failure(self, outcome.headline)
            return _failure_text(outcome)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        # The domain is shown as the failure's title; it is not the node name
        # so that pytest does not rewrite the dots of a path in it as "::".
        owner = self.parent.name if isinstance(self.parent, RecordNode) else ""
        return self.path, self.line - 1, f"{owner} {self.name}".strip() + f" (line {self.line})"


def _failure_text(outcome: Outcome) -> str:
    # Every line printable: a file name or a target's line cannot start a line of its own.
    return "\n".join(render.printable(line, keep_tabs=True) for line in [outcome.headline, *outcome.details])


@dataclasses.dataclass(eq=False)
class CrashLine:
    """Where a failure happened and its one line: the shape of pytest's crash location,
    which ``--tb=line``, the short summary and junitxml read by attribute, and which
    pytest-xdist carries as its fields."""

    path: str
    lineno: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.lineno}: {self.message}"


@dataclasses.dataclass(eq=False)
class NoTraceback:
    """An empty traceback in the shape pytest-xdist serializes: a report has none."""

    reprentries: tuple = ()
    extraline: str | None = None
    style: str = "native"


@dataclasses.dataclass(eq=False)
class LineFailure:
    """A failure for ``--tb=line``: no text, and the headline as its crash line, which
    pytest prints (of a plain text it would print the text, then its first 50 characters).
    Its attributes are the ones pytest and pytest-xdist read of a failure, so neither needs
    pytest's private classes."""

    reprcrash: CrashLine
    reprtraceback: NoTraceback = dataclasses.field(default_factory=NoTraceback)
    sections: list = dataclasses.field(default_factory=list)

    def toterminal(self, tw) -> None:
        """Nothing below the crash line, which pytest writes itself."""

    def __str__(self) -> str:
        return str(self.reprcrash)


def _unlocated(outcome: Outcome) -> str:
    """What an outcome says without its place (pytest shows the item's): its message, else
    (a headline said at a line elsewhere, :class:`~..text.render.Said`) that headline's text."""
    headline = outcome.headline
    if outcome.message:
        return outcome.message
    return headline.text if isinstance(headline, render.Said) and headline.line else headline


def one_line_failure(item: MemreportItem, headline: str) -> LineFailure:
    """``--tb=line``: the failure at the line its headline is said at (else the item's)."""
    if isinstance(headline, render.Said) and headline.line:
        return LineFailure(CrashLine(render.printable(headline.file), headline.line, render.printable(headline.text)))
    return LineFailure(CrashLine(str(item.path), item.line, render.printable(headline)))


class ReportItem(MemreportItem):
    """An item checking something of a report that was read: it always has its report."""

    report: Report

    def __init__(self, *, report: Report, **kwargs) -> None:
        super().__init__(report=report, **kwargs)


class EvidenceItem(ReportItem):
    """One piece of evidence checked at its pinned commit."""

    #: appended to the evidence's name to make this item's name
    name_suffix = ""

    def __init__(self, *, evidence: Evidence, **kwargs) -> None:
        super().__init__(**kwargs)
        self.evidence = evidence

    @property
    def line(self) -> int:
        return self.evidence.line

    @classmethod
    def check(cls, engine: Engine, report: Report, evidence: Evidence) -> Outcome:
        """The check of ``evidence`` as written: what it is checked as is decided now
        (:meth:`..engine.Engine.prepared`), never while items are made."""
        prepared = engine.prepared(report, evidence)
        if prepared is None:
            return unresolved_symbol_outcome(report, evidence)
        reason = engine.not_evidence(report, prepared)
        if reason is not None:
            return cls.no_evidence(report, prepared, reason)
        return cls.check_prepared(engine, report, prepared)

    @staticmethod
    def no_evidence(report: Report, evidence: Evidence, reason: str) -> Outcome:
        return not_evidence_outcome(report, evidence, reason)

    @staticmethod
    def check_prepared(engine: Engine, report: Report, evidence: Evidence) -> Outcome:
        binding = engine.binding(report, evidence.source, evidence.pin)
        return evidence_outcome(report, evidence, binding, engine.pin_result(report, evidence),
                                corrects_anchors=engine.corrects_anchors)

    def outcome(self) -> Outcome:
        return self.check(engine_of(self), self.report, self.evidence)



class NotEvidenceItem(EvidenceItem):
    """A mention that looks like a path but is no evidence of the target: skipped, once."""

    @classmethod
    def check(cls, engine: Engine, report: Report, evidence: Evidence) -> Outcome:
        return not_evidence_outcome(report, evidence, engine.not_evidence(report, evidence) or "")


class DriftItem(EvidenceItem):
    """What became of one piece of evidence at the against-revision."""

    marker_name = "memreport_drift"
    name_suffix = "::drift"

    @staticmethod
    def no_evidence(report: Report, evidence: Evidence, reason: str) -> Outcome:
        return not_evidence_drift_outcome(report, evidence, reason)

    @staticmethod
    def check_prepared(engine: Engine, report: Report, evidence: Evidence) -> Outcome:
        binding = engine.binding(report, evidence.source, evidence.pin)
        pin = engine.pin_result(report, evidence)
        drift = engine.drift_result(report, evidence)
        return drift_outcome(report, evidence, binding, pin, drift, strict=engine.options.strict,
                             against_problem=engine.against_problem(binding))


class EvidenceGroupItem(ReportItem):
    """All checkable evidence of a record, or of a report outside its records, as one item
    (``--memreport-items=record``): pytest's own cost is paid per record, not per check.

    Each check is the one its per-evidence item would run, and reaches the session on its
    own (an entry of :attr:`memreport_checks` with its outcome, headline and payload), so
    JSON, summary and annotations stay per evidence.
    """

    #: what :attr:`checks` may name: the pin checks alone, or the checks since the pin alone
    AT_PIN = "at-pin"
    SINCE_PIN = "since-pin"

    def __init__(self, *, evidence: list[Evidence], record: Record | None, checks: str = "", **kwargs) -> None:
        super().__init__(**kwargs)
        self.evidence = evidence
        self.record = record
        #: which of each piece's checks the item runs: ``""`` all of them (a record's item)
        self.checks = checks

    @property
    def line(self) -> int:
        return self.record.line if self.record is not None else self.evidence[0].line

    def runtest(self) -> None:
        engine = engine_of(self)
        # The engine's caches made current once for the record, not again by each of its
        # calls (several per piece of evidence).
        parts = engine.within(self._parts, engine)
        record_id = self.record.id if self.record else ""
        if not parts:  # every piece was a proposed name that names no definition
            self.conclude(unresolved_names_outcome(self.report, record_id, self.line,
                                                   [evidence.text or "" for evidence in self.evidence]))
            return
        self.conclude(group_outcome(self.report, record_id, self.line, parts))

    def _parts(self, engine: Engine) -> list[Outcome]:
        """Each check of the record's evidence, as its own item would run it."""
        parts = []
        for written in self.evidence:
            evidence = engine.prepared(self.report, written)
            if evidence is None:
                continue  # a proposed symbol reference naming no definition: no evidence
            reason = engine.not_evidence(self.report, evidence)
            for kind in self._kinds(engine, reason is None):
                part = self._part(engine, kind, evidence, reason)
                if isinstance(part, CheckResult):
                    self.memreport_checks.append(part)
                    parts.append(_QUIET_PASS)
                    continue
                self.memreport_checks.append(check_entry(part, part=True))
                if part.verdict == "warn":
                    self.warn_at(evidence.line, _unlocated(part))
                parts.append(part)
        return parts

    def _kinds(self, engine: Engine, is_evidence: bool) -> tuple[type[EvidenceItem], ...]:
        """The checks of a piece of evidence this item runs, as the per-evidence item kinds."""
        if not is_evidence:
            # said once, by the pin's part, as its one skipped item would (its drift part is
            # a skip that counts nothing)
            return (DriftItem,) if self.checks == self.SINCE_PIN else (NotEvidenceItem,)
        if self.checks == self.AT_PIN or not engine.drift_enabled:
            return (EvidenceItem,)
        return (DriftItem,) if self.checks == self.SINCE_PIN else (EvidenceItem, DriftItem)

    def _part(self, engine: Engine, kind: type[EvidenceItem], evidence: Evidence,
              reason: str | None) -> Outcome | CheckResult:
        """One check of the record, as its own item would run it (``reason``: why the piece
        is no evidence, if it is not); a pin check that passes with nothing to say is its
        result alone (no words for a record's item to show)."""
        if reason is not None and kind is DriftItem:
            return DriftItem.no_evidence(self.report, evidence, reason)
        try:
            check: Callable[[Engine, Report, Evidence], Outcome | CheckResult] = kind.check_prepared
            if kind is NotEvidenceItem:
                check = NotEvidenceItem.check
            elif kind is EvidenceItem:
                check = _quiet_or_checked
            return checked(self.report, evidence.line, self.path, check, engine, self.report, evidence)
        except Exception as exc:  # noqa: BLE001 - a bug in one check must not hide the others
            return internal_error(self.report, evidence.line, exc)


class DriftGroupItem(EvidenceGroupItem):
    """The checks since the pin of several pieces of evidence (a record's names proposed as
    symbols), as one item selected with the drift items."""

    marker_name = "memreport_drift"


def _quiet_or_checked(engine: Engine, report: Report, evidence: Evidence) -> Outcome | CheckResult:
    """A record's pin check: its result alone when it passes quietly, else its outcome."""
    binding = engine.binding(report, evidence.source, evidence.pin)
    result = engine.pin_result(report, evidence)
    return quiet_pass(report, evidence, binding, result) or evidence_outcome(
        report, evidence, binding, result, corrects_anchors=engine.corrects_anchors)


#: what a record's item counts for a part that passed quietly (its status, for the item's
#: JUnit properties, is the one such a part has)
_QUIET_PASS = Outcome("pass", "", properties={"status": FOUND})


def result_entry(result: CheckResult) -> dict:
    """A quiet pass (:func:`quiet_pass`) as a check entry, for a process that reads it
    from JSON (a pytest-xdist controller): it passed, and says nothing beside its payload."""
    return {**check_entry(_QUIET_PASS, part=True), "payload": result.payload}


#: a check's verdict as the pytest outcome its own item has
_PYTEST_OUTCOME = {"fail": "failed", "skip": "skipped", "warn": "passed", "pass": "passed"}

#: the JUnit properties of an item: what it is, its status, where, and where it went
JUNIT_PROPERTIES = ("record", "evidence", "status", "location", "new_location")

#: the longest JUnit property value (a relocated quote may list many places; the JSON has them all)
JUNIT_VALUE_LIMIT = 300


def junit_value(value: object) -> str:
    text = render.printable(str(value))
    return text if len(text) <= JUNIT_VALUE_LIMIT else text[: JUNIT_VALUE_LIMIT - 1] + "…"


def check_entry(outcome: Outcome, part: bool = False) -> dict:
    """One check, for the session: its verdict, the pytest outcome its own item has, the
    failure or warning headline, its location (``file:line``) and its JSON payload.
    ``part``: one of several checks of a record's item (whose outcome is not the item's)."""
    speaks = outcome.verdict in ("fail", "warn")
    return {"verdict": outcome.verdict, "outcome": _PYTEST_OUTCOME[outcome.verdict], "part": part,
            "headline": outcome.headline if speaks else "", "message": outcome.message if speaks else "",
            "location": str(outcome.properties.get("location") or ""),
            "place": _place(outcome.properties.get("location")),
            #: what the check is about, without its lines (SARIF fingerprints)
            "identity": str(outcome.properties.get("identity") or ""),
            "located": [list(place) for place in outcome.located] if speaks else [],
            "payload": outcome.payload}


def _place(location) -> list | None:
    """Where a check is shown, ``[file, line]``, from its location's data."""
    return [location.file, location.line] if isinstance(location, render.Location) else None


class ClaimsEntryItem(ReportItem):
    """An item checking one entry of a claims file: located at that entry's line."""

    #: the predicate or observation (``file``, ``line``, ``owner``), set by the subclass
    entry: Predicate | Observation

    @property
    def line(self) -> int:
        return self.entry.line

    def reportinfo(self):
        return Path(self.entry.file), self.entry.line - 1, f"{self.entry.owner} {self.name}"


class PredicateItem(ClaimsEntryItem):
    """A claims-file predicate evaluated at the pin (or, as ``::drift``, at the against-revision)."""

    marker_name = "memreport_predicate"

    def __init__(self, *, predicate: Predicate, at_against: bool = False, **kwargs) -> None:
        super().__init__(**kwargs)
        self.predicate = self.entry = predicate
        self.at_against = at_against

    def outcome(self) -> Outcome:
        engine = engine_of(self)
        result, problem = engine.predicate_result(self.report, self.predicate, self.at_against)
        return predicate_outcome(self.report, self.predicate, result, problem, "against" if self.at_against else "pin")


class ObserveItem(ClaimsEntryItem):
    """A claims-file observation: the target's own tests run at the pin in a temporary worktree."""

    marker_name = "memreport_observe"

    def __init__(self, *, record: Record | None, observation: Observation, **kwargs) -> None:
        super().__init__(**kwargs)
        self.record = record
        self.observation = self.entry = observation

    def outcome(self) -> Outcome:
        engine = engine_of(self)
        if not engine.options.run_observations:
            result, problem = None, None
        else:
            result, problem = engine.observation_result(self.report, self.record, self.observation)
        return observation_outcome(self.report, self.record, self.observation, result, problem,
                                   enabled=engine.options.run_observations)


class StructureItem(ReportItem):
    """The report's structural findings: unknown statuses, duplicate IDs, missing labels and status lines."""

    marker_name = "memreport_structure"

    def outcome(self) -> Outcome:
        findings = structure.structure_findings(self.report)
        entries = [(f.line, f.message) for f in findings]
        extra = {"structure": {"findings": [{"line": f.line, "message": f.message, "code": f.code} for f in findings]}}
        return listing_outcome(
            self.report, "structure", f"{self.report.path}: no structural findings",
            f"{self.report.path}: {len(findings)} structural finding(s)", entries, extra,
        )


class ReferencesItem(ReportItem):
    """Every record ID the report cites is declared in one of the loaded reports."""

    marker_name = "memreport_refs"

    def outcome(self) -> Outcome:
        engine = engine_of(self)
        reports = engine.loaded_reports() or [self.report]
        if all(r.path != self.report.path for r in reports):
            reports.append(self.report)
        dangling = structure.dangling_references(reports, engine.options.external).get(self.report.path, [])
        entries = [(lines[0], f"{target} is not declared in any loaded report"
                    + (f" (also cited at lines {', '.join(map(str, lines[1:]))})" if len(lines) > 1 else ""))
                   for target, lines in dangling]
        extra = {"references": {"dangling": [{"id": t, "lines": lines} for t, lines in dangling],
                                "reports": [r.path for r in reports]}}
        hint = "load the report that declares them (--memreport) or mark their prefix with --memreport-external"
        return listing_outcome(
            self.report, "references", f"{self.report.path}: every reference resolves",
            f"{self.report.path}: {len(dangling)} dangling reference(s); {hint}", entries, extra,
        )


class ClaimsItem(ReportItem):
    """The report's claims files load, and every record they name is declared somewhere."""

    def runtest(self) -> None:
        for line, message in engine_of(self).claims_for(self.report).warnings:
            # given at their lines when the item runs; they do not fail it
            self.warn_at(line, message)
        super().runtest()

    def outcome(self) -> Outcome:
        engine = engine_of(self)
        claims = engine.claims_for(self.report)
        entries = [(0, message) for message in claims.errors]
        index = engine.claims_index()  # every loaded report's IDs gathered once, not per report
        declared = index.declared() or self.report.declared_ids()
        for file, line, rid in index.unknown_records(claims.files, self.report.declared_ids()):
            entries.append((0, describe_unknown_record(file, line, rid, declared)))
        extra = {"claims": {"files": [c.path for c in claims.files], "errors": [str(m) for _, m in entries],
                            "warnings": [{"line": line, "message": m} for line, m in claims.warnings]}}
        outcome = listing_outcome(
            self.report, "claims", f"{self.report.path}: claims load ({len(claims.files)} file(s))",
            f"{self.report.path}: claims input has {len(entries)} problem(s)", entries, extra,
        )
        located = tuple((m.file, m.line, m.message) for _, m in entries if isinstance(m, Problem))
        return dataclasses.replace(outcome, located=located) if located else outcome


class SourceItem(ReportItem):
    """A source's repository opens and its pinned commit exists."""

    def __init__(self, *, source_id: str | None, needs_pin: bool = True, **kwargs) -> None:
        super().__init__(**kwargs)
        self.source_id = source_id
        self.needs_pin = needs_pin

    @property
    def line(self) -> int:
        source = self.report.source(self.source_id)
        return source.line if source and source.line else 1

    def outcome(self) -> Outcome:
        engine = engine_of(self)
        binding = engine.binding(self.report, self.source_id)
        return source_outcome(self.report, binding, engine.against_label(binding), engine.against_problem(binding),
                              needs_pin=self.needs_pin, unmapped=engine.is_unmapped(self.report, self.source_id),
                              incomplete=engine.incomplete_clone(binding))


class UncheckedItem(ReportItem):
    """A report none of whose evidence can be checked: skipped with the reason (failing with
    ``--memreport-require-checked``), never a pass."""

    def __init__(self, *, why: tuple, **kwargs) -> None:
        super().__init__(**kwargs)
        self.code, self.reason, self.bindings = why

    @property
    def line(self) -> int:
        lines = [b.line for b in self.bindings if b.line]
        return min(lines) if lines else 1

    def outcome(self) -> Outcome:
        options = engine_of(self).options
        return unchecked_outcome(self.report, self.code, self.reason, self.bindings, self.line,
                                 required=options.require_checked, allowed=options.allow_unchecked)


class ReportErrorItem(MemreportItem):
    """A report that cannot be read: one failing item with one clear line."""

    def __init__(self, *, message: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.message = message

    def outcome(self) -> Outcome:
        return Outcome("fail", self.message, payload={"type": "report-error", "report": str(self.path), "message": self.message})
