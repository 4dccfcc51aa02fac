"""Claims checked: predicates at the pin and the against-revision, observations run at
the pin, each once per process."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Callable

from ..checks import predicate_follow, predicates
from ..dialects.claims import Predicate
from ..gitstore import RepoError, RevisionError
from ..model import Report
from ..options import AGAINST_WORKTREE, RunOptions
from ..resultcache import ResultCache, encode
from .bindings import Bindings
from .claims import ClaimsRegistry
from .pins import PinChecks
from .timing import Timing


class PredicateChecks:
    """Claims-file predicates evaluated once each (kept across runs when at a commit)."""

    def __init__(self, options: RunOptions, bindings: Bindings, claims: ClaimsRegistry, results: ResultCache,
                 timing: Timing) -> None:
        self._options = options
        self._bindings = bindings
        self._claims = claims
        self._results = results
        self._timing = timing
        self._done: dict[tuple, tuple] = {}

    def result(self, report: Report, predicate: Predicate, at_against: bool = False):
        """A predicate evaluated at the pin, or at the against-revision.

        Returns ``(result, problem)``: ``problem`` is a one-line reason when
        the revision cannot be checked (then ``result`` is ``None``).
        """
        key = (report.path, predicate, at_against)
        if key not in self._done:
            self._done[key] = self._evaluate(report, predicate, at_against)
        return self._done[key]

    def _evaluate(self, report: Report, predicate: Predicate, at_against: bool) -> tuple:
        binding = self._bindings.binding(report, predicate.source or self._claims.default_source(report))
        pinned = binding.pinned
        if pinned is None:
            return None, binding.problem
        rev = pinned.pin
        if at_against:
            try:
                rev = self._bindings.against_rev(pinned.store)
            except RevisionError as exc:
                return None, str(exc)
        # The working tree has no id that says it did not change: never kept.
        cache_key = None if rev == AGAINST_WORKTREE else self._results.key(
            "predicate", pinned.pin, rev, self._options.max_file_bytes, encode(predicate))
        result = self._results.get(cache_key, ResultCache.MISS)
        if result is ResultCache.MISS:
            start = time.perf_counter()
            try:
                snapshot = pinned.store.snapshot(rev)
                # at the against-revision the boundary follows renames, as evidence does
                followed = predicate_follow.follow(predicate, pinned.store, pinned.pin, rev, snapshot)
                result = predicates.evaluate(followed.predicate, snapshot)
                if followed.moves:
                    result = replace(result, followed=followed.moves, message=f"{followed.note}: {result.message}")
            except RepoError as exc:
                # The search could not run: an error, never a pass (an absence over
                # files that could not be read proves nothing).
                result = predicates.PredicateResult(False, f"the search could not run: {exc}", error=True)
            self._timing.add("predicates", time.perf_counter() - start)
            self._results.put(cache_key, result)  # not one whose search could not run (the cache refuses it)
        return result, None

    def release(self) -> None:
        self._done.clear()


class ObservationRuns:
    """Claims-file observations: the target's own tests run at the pin, once each."""

    def __init__(self, bindings: Bindings, claims: ClaimsRegistry, pins: PinChecks, timing: Timing,
                 announce: Callable[[str], None]) -> None:
        self._bindings = bindings
        self._claims = claims
        self._pins = pins
        self._timing = timing
        self._announce = announce
        self._done: dict[tuple, tuple] = {}

    def result(self, report: Report, record, observation):
        """Run one observation at the pin; ``(result, problem)``. ``record`` is ``None``
        for an observation of the report as a whole."""
        key = (report.path, observation)
        if key not in self._done:
            self._done[key] = self._run(report, record, observation)
        return self._done[key]

    def _run(self, report: Report, record, observation) -> tuple:
        from ..checks import observe

        binding = self._bindings.binding(report, self._claims.default_source(report))
        pinned = binding.pinned
        if pinned is None:
            return None, binding.problem
        quoted = []
        # a report-level observation (record None) covers the report's own quotations
        for evidence in (record.evidence if record is not None else report.evidence):
            pin = self._pins.result(report, evidence)
            if pin.ok and pin.lines is not None and evidence.kind.value in ("quote", "lines"):
                quoted.append((pin.path, pin.lines))
        self._announce(
            f"memreport: running observation `{observe.display_command(observation.run)}` "
            f"for {observation.owner} at {pinned.pin[:12]} (timeout {observation.timeout:g} s)"
        )
        start = time.perf_counter()
        answer = (observe.run_observation(observation, pinned.store, pinned.pin, quoted), None)
        self._timing.add("observations", time.perf_counter() - start)
        return answer
