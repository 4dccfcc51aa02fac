"""What the run checks, grouped by what git is asked once for: the evidence of each
(repository, pin) pair.

The plugin tells the plan which evidence the selected items check once collection
is done (``-k`` on one record of a large knowledge base reads that record's files
only); without that (the engine driven directly), every loaded report's quotations
and cited lines are planned.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Generic, Iterable, TypeVar

from ..model import Evidence, EvidenceKind, Report
from .bindings import Binding, Bindings, PinnedTree
from .reports import ReportSet

#: the evidence checked in batches at its pin when no selection is known
_BATCHED_KINDS = (EvidenceKind.QUOTE, EvidenceKind.LINES)

PinKey = tuple[Path, str]  # (repository path, pin sha)
Result = TypeVar("Result")


class Plan:
    """The run's evidence by (repository, pin), grouped once."""

    def __init__(self, reports: ReportSet, bindings: Bindings) -> None:
        self._reports = reports
        self._bindings = bindings
        self._scheduled: list[tuple[Report, Evidence]] | None = None
        self._by_pin: dict[PinKey, list[tuple[Report, Evidence]]] | None = None
        self._pin_bindings: dict[PinKey, Binding] = {}

    def schedule(self, pairs: Iterable[tuple[Report, Evidence]]) -> None:
        """The evidence the selected items check (``(report, evidence)``)."""
        self._scheduled = unique_pairs(pairs)
        self._by_pin = None

    def release(self) -> None:
        self._scheduled = self._by_pin = None
        self._pin_bindings.clear()

    @property
    def scheduled(self) -> list[tuple[Report, Evidence]]:
        if self._scheduled is not None:
            return self._scheduled
        # A loosely written path is checked once resolved (the engine's ``checkable``), under
        # another identity: checking it as written would be work no item asks for.
        return [(report, evidence) for report in self._reports.loaded() for evidence in report.all_evidence()
                if evidence.kind in _BATCHED_KINDS and evidence.lookup is None]

    def pins(self) -> dict[PinKey, list[tuple[Report, Evidence]]]:
        """The scheduled evidence by ``(repository path, pin)``, bindings resolved once each."""
        if self._by_pin is None:
            grouped: dict[PinKey, list[tuple[Report, Evidence]]] = defaultdict(list)
            for pair in self.scheduled:  # the scheduled pairs themselves: kept once, not twice
                report, evidence = pair
                binding = self._bindings.binding(report, evidence.source, evidence.pin)
                pinned = binding.pinned
                if pinned is not None:
                    key = pinned.key
                    grouped[key].append(pair)
                    self._pin_bindings.setdefault(key, binding)
            self._by_pin = dict(grouped)
        return self._by_pin

    def pin_bindings(self) -> list[Binding]:
        """One binding per planned (repository, pin) pair."""
        return [self._pin_bindings[key] for key in self.pins()]

    def at_pin(self, pinned: PinnedTree) -> list[tuple[Report, Evidence]]:
        """``(report, evidence)`` checked in ``pinned``'s repository at its pin."""
        return self.pins().get(pinned.key, [])


def unique_pairs(pairs: Iterable[tuple[Report, Evidence]]) -> list[tuple[Report, Evidence]]:
    """``pairs`` once each (equal evidence of one report path), in order, the given pair
    objects kept. Seen by report path, then by evidence: hashing a report would hash all of
    its records, and a key tuple per pair would be ten thousand more containers for each
    garbage collection to walk while the run checks."""
    seen: dict[str, set[Evidence]] = {}
    out: list[tuple[Report, Evidence]] = []
    for pair in pairs:
        report, evidence = pair
        known = seen.get(report.path)
        if known is None:
            known = seen[report.path] = set()
        if evidence not in known:
            known.add(evidence)
            out.append(pair)
    return out


class EvidenceResults(Generic[Result]):
    """Results by report path, then by evidence.

    One dict per report rather than a ``(path, evidence)`` tuple per result: the run
    keeps every result through its item loop, and each full garbage collection (and
    pytest's own at exit) walks every container the run keeps."""

    __slots__ = ("_by_report",)

    def __init__(self) -> None:
        self._by_report: dict[str, dict[Evidence, Result]] = {}

    def get(self, report: str, evidence: Evidence, default=None):
        found = self._by_report.get(report)
        return default if found is None else found.get(evidence, default)

    def has(self, report: str, evidence: Evidence) -> bool:
        found = self._by_report.get(report)
        return found is not None and evidence in found

    def put(self, report: str, evidence: Evidence, result: Result) -> None:
        self._by_report.setdefault(report, {})[evidence] = result

    def clear(self) -> None:
        self._by_report.clear()
