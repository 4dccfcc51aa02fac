"""Failures whose text waits for a search: the items' side of :meth:`.Engine.settle`.

A quotation missing at its pin fails at once. Where the pinned tree holds it
instead only adds to its failure's text (no status, payload or headline says it),
and on a large pin the engine leaves that search to its worker process while
items run. An item failing so keeps how to redo those checks
(:class:`UnsettledChecks`), and its failure text is rendered when first asked
for: pytest asks at its summary, by when the worker has searched; JUnit or a
plugin may ask at once, and then waits for that answer.
"""

from __future__ import annotations

from collections.abc import Callable

from ..engine import Engine
from ..model import Evidence, Report
from .outcomes import Outcome


class UnsettledChecks:
    """An item's checks (``outcomes``) of which some (``redo``: index, evidence, how to
    check it again) wait for the engine to settle their evidence; the item's outcome
    is composed again from them once settled."""

    def __init__(self, engine: Engine, report: Report, outcomes: list[Outcome],
                 redo: list[tuple[int, Evidence, Callable[[], Outcome]]],
                 compose: Callable[[list[Outcome]], Outcome]) -> None:
        self._engine = engine
        self._report = report
        self._outcomes = outcomes
        self._redo = redo
        self._compose = compose
        self._settled: Outcome | None = None

    def settle(self) -> Outcome:
        """The item's outcome once its evidence is settled (computed once)."""
        if self._settled is None:
            for index, evidence, redo in self._redo:
                self._engine.settle(self._report, evidence)
                self._outcomes[index] = redo()
            self._settled = self._compose(self._outcomes)
        return self._settled


class SettledText:
    """A failure text rendered when first shown (pytest prints a text, or what ``toterminal``
    writes); ``provisional``, the text as the item failed, if rendering raises."""

    def __init__(self, render: Callable[[], str], provisional: str) -> None:
        self._render = render
        self._provisional = provisional
        self._text: str | None = None

    def __str__(self) -> str:
        if self._text is None:
            try:
                self._text = self._render()
            except Exception as exc:  # noqa: BLE001 - pytest's summary must still show the failure
                self._text = (f"{self._provisional}\n  internal error in pytest-memreport while completing this "
                              f"text: {type(exc).__name__}: {exc}")
        return self._text

    def toterminal(self, out) -> None:
        out.line(str(self))
