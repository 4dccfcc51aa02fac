"""``--memreport-affected BASE..HEAD``: the items of what a range of the target touches.

A report about the target yields, under its usual nodes (``report.md::RECORD-ID::...``,
so ``-k`` selects a report or a record as in any run), one ``::affected`` item per piece
of evidence whose cited path the range changes and per predicate whose boundary it
changes (:mod:`..engine.affected` says which). Each says what the evidence or predicate
becomes at the head, followed from the range's base: a normal drift or predicate
outcome (classes, breaking commit), so JSON, SARIF, the step summary and the comment
read them as they read any run's. A report about another repository, and evidence the
range does not touch, yield nothing; a range that touches nothing cited passes.
"""

from __future__ import annotations

import dataclasses

import pytest

from ..checks import drift as drift_checks
from ..dialects.claims import REPORT, Predicate
from ..engine import Engine
from ..engine.affected import AffectedError
from ..model import Evidence, Report
from ..text import render
from .items import DriftItem, PredicateItem, RecordNode, ReportNode, engine_of
from .outcomes import Outcome, predicate_outcome


def affected_items(parent: pytest.File, report: Report, engine: Engine):
    """The ``::affected`` items of ``report`` (nothing when it is about another repository)."""
    affected = engine.affected
    assert affected is not None
    if not affected.is_target_report(report):
        return

    def touched(evidence) -> list[Evidence]:
        # a mention that is no evidence of the target (a path of the reader's own project) is not listed
        return [e for e in affected.evidence(report, evidence) if engine.not_evidence(report, e) is None]

    yield from _evidence_items(parent, report, touched(report.evidence))
    for record in report.records:
        evidence = touched(record.evidence)
        claims = [] if record.is_annotation else affected.predicates(report, record.id)
        if evidence or claims:
            yield AffectedRecordNode.from_parent(parent, name=record.node_name, report=report, record=record,
                                                 evidence=evidence, predicates=claims)
    claims = affected.predicates(report, REPORT)
    if claims:
        yield AffectedReportNode.from_parent(parent, name="report", report=report, predicates=claims)


def _evidence_items(parent, report: Report, evidence: list[Evidence]):
    seen: dict[str, int] = {}
    for item in evidence:
        seen[item.name] = seen.get(item.name, 0) + 1
        name = item.name if seen[item.name] == 1 else f"{item.name}#{seen[item.name]}"
        yield AffectedItem.from_parent(parent, name=name + AffectedItem.name_suffix, report=report, evidence=item)


def _predicate_items(parent, report: Report, predicates: list[Predicate]):
    for predicate in predicates:
        name = f"predicate[{predicate.index}]:{predicate.kind}"
        if predicate.file == report.path or predicate.file.endswith(report.path):
            name += f"@L{predicate.line}"  # inline blocks: several per record
        yield AffectedPredicateItem.from_parent(parent, name=f"{name}::affected", report=report,
                                                predicate=predicate, at_against=True)


class AffectedRecordNode(RecordNode):
    """A record the range touches: only its touched evidence and predicates."""

    def __init__(self, *, evidence: list[Evidence], predicates: list[Predicate], **kwargs) -> None:
        super().__init__(**kwargs)
        self.touched = evidence
        self.predicates = predicates

    def collect(self):
        yield from _evidence_items(self, self.report, self.touched)
        yield from _predicate_items(self, self.report, self.predicates)


class AffectedReportNode(ReportNode):
    """The report's own predicates the range touches."""

    def __init__(self, *, predicates: list[Predicate], **kwargs) -> None:
        super().__init__(**kwargs)
        self.predicates = predicates

    def collect(self):
        yield from _predicate_items(self, self.report, self.predicates)


def _with_range(outcome: Outcome, engine: Engine, **extra) -> Outcome:
    assert engine.affected is not None
    payload = {**outcome.payload, "affected": engine.affected.target().as_json(), **extra}
    return dataclasses.replace(outcome, payload=payload)


def _before_the_range(engine: Engine, what: str, why: str) -> str:
    assert engine.affected is not None
    base = render.short(engine.affected.target().base)
    return (f"{what} does not hold at the range's base {base} ({why}): broken before this change, "
            "not by it (the knowledge base's own run reports it)")


class AffectedItem(DriftItem):
    """What the range makes of one piece of evidence it touches: located at the base, followed to the head."""

    name_suffix = "::affected"

    @staticmethod
    def check(engine: Engine, report: Report, evidence: Evidence) -> Outcome:
        pin = engine.pin_result(report, evidence)
        result = engine.drift_result(report, evidence)
        outcome = DriftItem.check(engine, report, evidence)  # the drift from the base, as any run's
        if not pin.ok and not (result is not None and result.status == drift_checks.AHEAD):
            said = _before_the_range(engine, render.evidence_title(evidence), pin.status)
            outcome = dataclasses.replace(outcome, headline=f"{render.location(report, evidence.line)}: {said}",
                                          message=said)
        return _with_range(outcome, engine)


class AffectedPredicateItem(PredicateItem):
    """A predicate whose boundary the range changes: held at the base, evaluated at the head,
    with the commit of the range after which it fails."""

    def outcome(self) -> Outcome:
        engine = engine_of(self)
        assert engine.affected is not None
        before, problem = engine.predicate_result(self.report, self.predicate, False)
        if before is None or not before.ok:
            outcome = predicate_outcome(self.report, self.predicate, before, problem, "pin")
            why = problem or ("the search could not run" if before is not None and before.error else "it fails")
            said = _before_the_range(engine, f"{self.predicate.owner} {self.predicate.kind} predicate", why)
            return _with_range(dataclasses.replace(outcome, verdict="skip", message=said,
                                                   headline=f"{self.predicate.file}:{self.predicate.line}: {said}"),
                               engine)
        result, problem = engine.predicate_result(self.report, self.predicate, True)
        outcome = predicate_outcome(self.report, self.predicate, result, problem, "against")
        if outcome.verdict != "fail" or result is None or result.error:
            return _with_range(outcome, engine)
        culprit = engine.affected.predicate_broken_by(self.predicate)
        if culprit is None:
            return _with_range(outcome, engine)
        # in the JSON beside what it found at the head, as a drift result's breaking commit is
        at_against = {**outcome.payload["at_against"], "broken_by": culprit.as_json()}
        return _with_range(dataclasses.replace(outcome, details=(*outcome.details, f"  broken by {culprit}")),
                           engine, at_against=at_against)


class AffectedSession:
    """The range found before anything is collected (a usage error is one line), the run's
    closing line, and a range that touches nothing cited passing."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        #: the affected items collected here, and (under pytest-xdist, where workers collect) reported
        self.collected = 0
        self.reported: set[str] = set()

    @property
    def listed(self) -> int:
        return max(self.collected, len(self.reported))

    @pytest.hookimpl(tryfirst=True)  # before any binding is made: the target's are at the base
    def pytest_sessionstart(self, session: pytest.Session) -> None:
        assert self.engine.affected is not None
        try:
            self.engine.affected.target()
        except AffectedError as exc:
            raise pytest.UsageError(str(exc)) from None

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        self.collected = sum(1 for item in items if isinstance(item, (AffectedItem, AffectedPredicateItem)))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.nodeid.endswith("::affected"):
            self.reported.add(report.nodeid)

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if session.exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and not self.listed and not session.testsfailed:
            # Nothing cited is touched: the answer is "no claim breaks", not "no tests".
            session.exitstatus = pytest.ExitCode.OK

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if hasattr(terminalreporter.config, "workerinput"):
            return
        target = self.engine.affected.found() if self.engine.affected is not None else None
        if target is None:
            return  # a usage error, said
        what = f"{self.listed} affected check(s)" if self.listed else "nothing the reports cite"
        terminalreporter.write_line(
            f"memreport: {target.given} in {target.store.path} ({render.short(target.base)}.."
            f"{render.short(target.head)}): {len(target.changed)} changed path(s) touch {what}")
