"""Evidence checked at its pin, a pin at a time.

The first check at a (repository, pin) pair checks every planned piece of evidence at
that pin (:mod:`.plan`): their files are read in one ``cat-file`` batch, and the
quotations missing there are announced together, so that the search for where the
pinned tree holds them instead asks ``git grep`` once, not once per quotation.
Results that depend on an object git could not read are used, never kept.
"""

from __future__ import annotations

import time
from dataclasses import replace

from ..checks import atpin, drift, verify
from ..model import Evidence, EvidenceRole, Report
from ..options import RunOptions
from ..resultcache import Key, ResultCache, evidence_key
from .bindings import Binding, Bindings, PinnedTree
from .paths import PathResolver
from .plan import EvidenceResults, Plan
from .timing import Timing

class PinChecks:
    """Every piece of evidence checked once at its pin (per process, and across runs
    through the result cache)."""

    def __init__(self, options: RunOptions, bindings: Bindings, paths: PathResolver, plan: Plan,
                 results: ResultCache, timing: Timing) -> None:
        self._options = options
        self._bindings = bindings
        self._paths = paths
        self._plan = plan
        self._results = results
        self._timing = timing
        self._done: EvidenceResults[verify.PinResult] = EvidenceResults()
        self._batched: set = set()
        self._keys: dict[tuple, Key | None] = {}
        self._evidence_keys: dict[Evidence, str] = {}
        #: missing quotations whose search :meth:`finish_searches` makes: (report, evidence,
        #: binding, pinned snapshot, result so far)
        self._deferred: list[tuple[Report, Evidence, Binding, object, verify.PinResult]] = []

    def result(self, report: Report, evidence: Evidence) -> verify.PinResult:
        """The evidence checked at its pin."""
        found = self._done.get(report.path, evidence)
        if found is not None:
            return found
        binding = self._bindings.binding(report, evidence.source, evidence.pin)
        pinned = binding.pinned
        if pinned is None:
            return self._finish(report, evidence, binding, self._unpinned(evidence, binding), computed=False)
        if pinned.key not in self._batched:
            self.check_pin(binding)
        found = self._done.get(report.path, evidence)
        if found is None:  # not planned, or its planned check raised: a batch of one, raising
            self._check_batch(binding, pinned, [(report, evidence)], item=True)
            found = self._done.get(report.path, evidence)
        if found is None:  # a batch of one keeps its result or raises: never a silent pass
            raise RuntimeError(f"{report.path}:{evidence.line}: the pin check kept no result")
        return found

    def check_pin(self, binding: Binding, defer_searches: bool = False) -> None:
        """Check every planned piece of evidence at ``binding``'s pin, in one batch
        (a binding that cannot be checked has none planned). ``defer_searches``: where the
        pinned tree holds each quotation missing there is found by :meth:`finish_searches`
        (its ``git grep`` runs meanwhile), the result kept until then saying only "missing"."""
        pinned = binding.pinned
        if pinned is None:
            return
        self._batched.add(pinned.key)
        self._check_batch(binding, pinned, [pair for pair in self._plan.at_pin(pinned)
                                            if not self._done.has(pair[0].path, pair[1])], defer=defer_searches)

    def finish_searches(self) -> None:
        """The searches :meth:`check_pin` deferred: each missing quotation's result, kept
        with where the pinned tree holds it instead."""
        deferred = self._deferred
        began = time.perf_counter()
        try:
            for report, evidence, binding, snapshot, result in deferred:
                self._finish(report, evidence, binding, drift.search.with_found_instead(evidence, snapshot, result),
                             computed=True)
        finally:
            self.drop_searches()  # a search asked ahead that nothing needed
        if deferred:
            spent = time.perf_counter() - began
            self._timing.add("missing_search", spent)
            self._timing.add("matching", spent)  # inside matching, as when searched at once

    def drop_searches(self) -> None:
        """Stop the searches :meth:`check_pin` deferred (any a run stopped before
        :meth:`finish_searches` left say "missing", without where else)."""
        deferred, self._deferred = self._deferred, []
        for snapshot in {id(entry[3]): entry[3] for entry in deferred}.values():
            drift.search.stop_asking(snapshot)

    def _check_batch(self, binding: Binding, pinned: PinnedTree, pairs: list[tuple[Report, Evidence]],
                     item: bool = False, defer: bool = False) -> None:
        """``pairs`` checked at the pin: their files read in one batch, and the quotations
        missing there announced together, so that one ``git grep`` says where each is instead
        (``defer``: started now, taken in by :meth:`finish_searches`).
        A check that raises is left out of a planned batch, and checked again by its own
        item (``item``), where the error propagates and fails it with the reason."""
        todo: list[tuple[Report, Evidence]] = []
        for pair in pairs:
            known = self._first_look(*pair, pinned)
            if known is None:
                todo.append(pair)
            else:
                self._finish(*pair, binding, known, computed=False)
        if not todo:
            return
        # A file's evidence checked together: its parse (for the enclosing definition) and
        # its per-text indexes are made once, not again after the caches moved on.
        todo.sort(key=lambda pair: pair[1].path)
        start = time.perf_counter()
        snapshot = pinned.store.snapshot(pinned.pin)
        missing: list[Evidence] = []  # (read after a batch that raised, Ctrl-C's included)
        try:
            results = atpin.check_batch([e for _, e in todo], snapshot, self._options.want_symbols, raising=item)
            # A check that raised has no result here: its own item checks it again and says why.
            # (zipped where read, not kept as a list of triples: fewer containers for the
            # garbage collector while the run checks)
            missing = [evidence for (_, evidence), result in zip(todo, results)
                       if result is not None and self._searches(evidence, result)]
            if missing:
                drift.search.expect_missing(snapshot, missing)
                if defer:  # git searches while drift is classified (after what it was asking)
                    drift.search.ask_ahead(snapshot, renew=True)
            searching = 0.0
            for (report, evidence), result in zip(todo, results):
                if result is None:
                    continue
                if self._searches(evidence, result):
                    if defer:
                        # "missing" until finish_searches says where else it is (not kept before)
                        self._deferred.append((report, evidence, binding, snapshot, result))
                        self._finish(report, evidence, binding, result, computed=False)
                        continue
                    began = time.perf_counter()
                    result = drift.search.with_found_instead(evidence, snapshot, result)
                    searching += time.perf_counter() - began
                self._finish(report, evidence, binding, result, computed=True)
            if missing and not defer:
                self._timing.add("missing_search", searching)  # inside matching too
        finally:
            if not (defer and missing):
                drift.search.stop_asking(snapshot)  # a search asked ahead that nothing needed
        self._timing.add("matching", time.perf_counter() - start)

    @staticmethod
    def _unpinned(evidence: Evidence, binding: Binding) -> verify.PinResult:
        """What a source with no resolved pin (or no repository) gives its evidence."""
        return verify.PinResult(verify.COMMIT_MISSING, binding.stated_pin or "", evidence.path,
                                message=binding.problem or "")

    def _first_look(self, report: Report, evidence: Evidence, pinned: PinnedTree) -> verify.PinResult | None:
        """A result known without reading the tree: the path is ambiguous, or the
        result cache has it. ``None`` when it must be checked."""
        ambiguous = self._paths.ambiguous.get((report.path, evidence))
        if ambiguous:
            shown = ", ".join(ambiguous[:10]) + (f" and {len(ambiguous) - 10} more" if len(ambiguous) > 10 else "")
            return verify.PinResult(
                verify.AMBIGUOUS, pinned.pin, evidence.path,
                message=f"{evidence.path} names {len(ambiguous)} files at the pin: {shown}; cite the path",
            )
        kept = self._results.get(self.key(pinned, evidence), ResultCache.MISS)
        return None if kept is ResultCache.MISS else kept

    @staticmethod
    def _searches(evidence: Evidence, result: verify.PinResult) -> bool:
        """Whether a failure says where the pinned tree holds the quotation instead."""
        return result.status in (verify.MISSING, verify.FILE_MISSING) and atpin.searched_when_missing(evidence)

    def _finish(self, report: Report, evidence: Evidence, binding: Binding, result: verify.PinResult,
                computed: bool) -> verify.PinResult:
        """Keep a result checked here (the cache refuses one saying git could not read
        something); remember it, with this run's note, for the evidence's items."""
        if computed and binding.pinned is not None:
            self._results.put(self.key(binding.pinned, evidence), result)
        result = self._noted(report, evidence, result)
        self._done.put(report.path, evidence, result)
        return result

    def _noted(self, report: Report, evidence: Evidence, result: verify.PinResult) -> verify.PinResult:
        """``result`` with what this run adds to its note: the source register naming a
        missing file, and the path a loosely written one was read as."""
        if result.status == verify.FILE_MISSING and evidence.source:
            source = report.source(evidence.source)
            if source is not None and source.registered and evidence.role is not EvidenceRole.REGISTER:
                where = f"{source.file or report.path}:{source.line}"
                registered = f"the source register names it for {source.id} at {where}"
                result = replace(result, note=f"{result.note}; {registered}" if result.note else registered)
        mapped = self._paths.mapped.get((report.path, evidence))
        if mapped is not None:  # say which path a loosely written one was read as (-v, failures)
            result = replace(result, note=f"{result.note}; {mapped}" if result.note else mapped)
        return result

    # -- keys of the result cache ------------------------------------------------------
    def key(self, pinned: PinnedTree, evidence: Evidence) -> Key | None:
        if not self._results.enabled:
            return None  # no result cache (-p no:cacheprovider): nothing to key
        memo = (pinned.key, evidence)
        if memo not in self._keys:
            self._keys[memo] = self._results.key("pin", pinned.pin, self.evidence_key(evidence),
                                                 self._options.want_symbols, self._options.max_file_bytes)
        return self._keys[memo]

    def evidence_key(self, evidence: Evidence) -> str:
        found = self._evidence_keys.get(evidence)
        if found is None:
            found = self._evidence_keys[evidence] = evidence_key(evidence)
        return found

    def release(self) -> None:
        self._done.clear()
        self._keys.clear()
        self._evidence_keys.clear()
