"""What became of evidence at the against-revision, a (repository, pin, against) pair
at a time.

The first drift check of a pair asks git its questions for the whole pair: one line
diff limited to the files the run cites there, and one announcement to the tree search
of every quotation that left its file, so that it asks ``git grep`` once for all of
them. Each evidence is then classified from what that pair's answers hold.

The pair's two costliest questions (rename detection, then the line diff) depend on
nothing the pin checks find, so :meth:`DriftChecks.ask_ahead` asks them from one
thread before the pins are checked: git works on the other core while this one
checks, and the first drift check waits for their answers.
"""

from __future__ import annotations

import contextvars
import hashlib
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Callable

from ..checks import drift, symbolrefs, verify
from ..errors import MemreportError
from ..gitstore import GitStore, RepoError
from ..model import Evidence, EvidenceKind, Report
from ..options import AGAINST_WORKTREE, RunOptions
from ..resultcache import Key, ResultCache
from .bindings import Binding, Bindings, PinnedTree
from .pins import PinChecks
from .plan import EvidenceResults, Plan
from .reports import ReportSet
from .timing import Timing


class _Unkept(MemreportError):
    """A result that depends on git failing to read something: used this run, never kept."""

    code = "MR404"

    def __init__(self, result) -> None:
        super().__init__()
        self.result = result


#: no drift result yet (``None`` is one: the evidence is not checkable)
_UNCHECKED = object()


class DriftChecks:
    """Every piece of evidence followed once to the against-revision."""

    def __init__(self, options: RunOptions, reports: ReportSet, bindings: Bindings, pins: PinChecks, plan: Plan,
                 results: ResultCache, timing: Timing, announce: Callable[[str], None]) -> None:
        self._options = options
        self._reports = reports
        self._bindings = bindings
        self._pins = pins
        self._plan = plan
        self._results = results
        self._timing = timing
        self._announce = announce
        self._done: EvidenceResults[drift.DriftResult | None] = EvidenceResults()
        self._started: set = set()
        #: the pairs whose first questions a thread is asking (:meth:`ask_ahead`)
        self._asked: dict[tuple[Path, str, str], Future] = {}
        self._asking: ThreadPoolExecutor | None = None
        #: the against-snapshots whose tree search :meth:`start_pairs` started
        self._searching: list = []
        self._keys: dict[tuple, Key | None] = {}
        self._inside: dict[Path, frozenset[str]] = {}
        self._inside_digests: dict[Path, str] = {}

    def result(self, report: Report, evidence: Evidence) -> drift.DriftResult | None:
        """What became of ``evidence`` at the against-revision; ``None`` when not checkable."""
        done = self._done.get(report.path, evidence, _UNCHECKED)
        if done is not _UNCHECKED:  # (``None`` is a result: not checkable)
            return done
        pin = self._pins.result(report, evidence)
        binding = self._bindings.binding(report, evidence.source, evidence.pin)
        cache_key = self._key(binding, evidence)
        result = self._results.get(cache_key, ResultCache.MISS)
        if result is ResultCache.MISS:
            try:
                result = self._drift(binding, evidence, pin)
                if self._keepable(binding, pin, result):
                    self._results.put(cache_key, result)
            except _Unkept as unkept:
                result = unkept.result
        self._done.put(report.path, evidence, result)
        return result

    @staticmethod
    def _keepable(binding: Binding, pin: verify.PinResult, result: drift.DriftResult | None) -> bool:
        """Whether a result is a function of its key alone: not when git could not read
        something it needed, which the result itself may not say (the cache refuses those
        that do): a pin that could not be read, a diff that had to skip blobs the clone
        lacks. Fetching the objects changes the answer under the same key."""
        if pin.status == verify.UNREADABLE:
            return False
        return not (binding.store is not None and binding.store.skipped_paths)

    def _drift(self, binding: Binding, evidence: Evidence, pin: verify.PinResult) -> drift.DriftResult | None:
        against = self._bindings.against_or_none(binding)
        pinned = binding.pinned
        if against is None or pinned is None:  # an against-revision implies a pinned tree
            return None
        if pin.status in (verify.MISSING, verify.FILE_MISSING):
            return self._ahead(pinned, evidence, against)
        if not pin.ok:
            return None
        start = time.perf_counter()
        snapshot = pinned.store.snapshot(against)
        self._start_pair(pinned, against, snapshot)
        try:
            if evidence.kind is EvidenceKind.SYMBOL:
                result = symbolrefs.classify(evidence, pin, pinned.store, pinned.pin, snapshot)
            else:
                result = drift.classify(evidence, pin, pinned.store, pinned.pin, snapshot,
                                        reports=self._reports_inside(pinned.store),
                                        describe=self._options.want_symbols)
        except RepoError as exc:
            # An object this evidence needs is missing (an incomplete clone):
            # only this evidence is unreadable; everything else is classified.
            result = drift.DriftResult(drift.UNREADABLE, against, None, None, pin.lines,
                                       old_path=evidence.path, message=str(exc))
        self._timing.add("drift", time.perf_counter() - start)
        return result

    def ask_ahead(self) -> None:
        """Start asking each planned pair's rename detection and line diff on a thread
        (:meth:`.GitStore.ask_pair`), for pairs with a drift result left to compute."""
        for binding, pinned, against, planned in self._planned_pairs():
            if against in (pinned.pin, AGAINST_WORKTREE):
                continue
            if all(self._results.has(self._key(binding, evidence)) for _, evidence in planned):
                continue  # every answer is kept: git has nothing to be asked
            store, sha = pinned.store, pinned.pin
            pair = (store.path, sha, against)
            if pair in self._asked or pair in self._started:
                continue
            try:
                store.expect_changes(sha, against, {evidence.path for _, evidence in planned})
            except RepoError:
                continue  # asked on demand, where the failure is said
            if self._asking is None:
                self._asking = ThreadPoolExecutor(max_workers=1, thread_name_prefix="memreport-git")
            # in the run's caches: a thread starts in a context of its own
            self._asked[pair] = self._asking.submit(contextvars.copy_context().run, store.ask_pair, sha, against)

    def start_pairs(self) -> set[Evidence]:
        """Every planned pair's git questions asked before any of its evidence is
        classified (:meth:`_start_pair`), and the search of the against-tree for what left
        its file started at once. Returns the evidence whose classification may take in
        that search: classified last, git searches on another core while the rest is."""
        searching: set[Evidence] = set()
        for binding, pinned, against, planned in self._planned_pairs():
            if not any(self._to_classify(binding, report, evidence) for report, evidence in planned):
                continue  # nothing to classify here: the pair is asked nothing (as on demand)
            pair = (pinned.store.path, pinned.pin, against)
            try:
                snapshot = pinned.store.snapshot(against)
                announced = self._start_pair(pinned, against, snapshot)
            except Exception:  # noqa: BLE001 - asked again by the first classification, which says why
                self._started.discard(pair)
                continue
            if announced:
                searching.update(announced)
                drift.search.ask_ahead(snapshot)
                self._searching.append(snapshot)
        return searching

    def _planned_pairs(self):
        """``(binding, pinned tree, against-revision, planned evidence)`` of each planned pin
        that has an against-revision."""
        for binding in self._plan.pin_bindings():
            against, pinned = self._bindings.against_or_none(binding), binding.pinned
            if against is not None and pinned is not None:
                yield binding, pinned, against, self._plan.at_pin(pinned)

    def _to_classify(self, binding: Binding, report: Report, evidence: Evidence) -> bool:
        """Whether classifying ``evidence`` asks its pair's questions (see :meth:`_drift`):
        its pin check held and no result is kept."""
        if self._results.has(self._key(binding, evidence)):
            return False
        try:
            return self._pins.result(report, evidence).ok
        except Exception:  # noqa: BLE001 - its item checks it again and says why
            return False

    def _start_pair(self, pinned: PinnedTree, against: str, snapshot) -> list[Evidence]:
        """The pair's git questions, asked once for all its evidence; the evidence announced
        to the against-tree's search (none when the pair was started before)."""
        store, sha = pinned.store, pinned.pin
        pair = (store.path, sha, against)
        if pair in self._started:
            return []
        self._started.add(pair)
        asked = self._asked.pop(pair, None)
        planned = self._plan.at_pin(pinned)
        if asked is not None:
            # Waited for, not raised: what failed is asked again when a check needs it, and
            # fails where it always did (an object the clone lacks is one evidence's problem).
            asked.exception()
        elif against not in (sha, AGAINST_WORKTREE):
            # One line diff for the pair, limited to the files the run cites.
            store.expect_changes(sha, against, {e.path for _, e in planned})
        if against != sha:
            self._announce(f"memreport: following {store.path} from {sha[:12]} to {against[:12]}")
        try:
            quotes = list(self._quotes_pinned_at(pinned, against, planned))
            announced = drift.expect_searches(snapshot, store, sha, [(read, quote) for _, read, quote in quotes])
        except RepoError:
            quotes, announced = [], []  # an object the clone lacks: each classification says which
        # each as planned: a read form may be another object (the engine classifies by the plan's)
        planned_as = {read: evidence for evidence, read, _ in quotes if read is not evidence}
        announced = [planned_as.get(evidence, evidence) for evidence in announced]
        gone = sum(1 for evidence in announced if evidence.kind is not EvidenceKind.SYMBOL)
        if gone:
            self._announce(f"memreport: searching {store.path} at {against[:12]} for {gone} "
                           f"quotation(s) no longer in their files")
        return announced

    def _quotes_pinned_at(self, pinned: PinnedTree, against: str, planned: list[tuple[Report, Evidence]]):
        """``(evidence, read, quote)`` of the pin's planned evidence, ``read`` being what the
        search is told of: quotations as classification reads them (:func:`.drift.searched_form`,
        where ``read`` may be another object than the evidence), symbols by their name, cited
        lines as recorded at the pin (only in files changed since)."""
        changed = None
        for report, evidence in planned:
            if evidence.kind is EvidenceKind.QUOTE:
                pin = self._pins.result(report, evidence)
                if pin.ok:
                    yield evidence, *drift.searched_form(evidence, pin, pinned.store, pinned.pin)
                else:
                    yield evidence, evidence, evidence.text or ""
                continue
            if evidence.kind is EvidenceKind.SYMBOL:
                yield evidence, evidence, evidence.text or ""
                continue
            if evidence.kind is not EvidenceKind.LINES:
                continue
            if changed is None:
                changed = pinned.store.changed_paths(pinned.pin, "HEAD" if against == AGAINST_WORKTREE else against)
            if evidence.path in changed or against == AGAINST_WORKTREE:
                pin = self._pins.result(report, evidence)
                if pin.ok and (pin.recorded_text or "").strip():
                    yield evidence, evidence, pin.recorded_text

    def _ahead(self, pinned: PinnedTree, evidence: Evidence, against: str) -> drift.DriftResult | None:
        """Evidence missing at its pin that holds at the against-revision (see :func:`.drift.ahead`)."""
        if against == pinned.pin or evidence.kind is EvidenceKind.SYMBOL:
            return None
        start = time.perf_counter()
        try:
            return drift.ahead(evidence, pinned.store.snapshot(against))
        except RepoError:
            raise _Unkept(None) from None  # the pin item already says what is wrong
        finally:
            self._timing.add("drift", time.perf_counter() - start)

    def _key(self, binding: Binding, evidence: Evidence) -> Key | None:
        """Drift's key: the pin's inputs and the against commit (none for the working tree)."""
        if not self._results.enabled:
            return None
        against = self._bindings.against_or_none(binding)
        pinned = binding.pinned
        if against is None or pinned is None:  # an against-revision implies a pinned tree
            return None
        if against == AGAINST_WORKTREE:
            return None  # the working tree has no id that says it did not change
        memo = (pinned.key, against, evidence)  # asked by ask_ahead, then by the check
        if memo not in self._keys:
            self._keys[memo] = self._results.key(
                "drift", pinned.pin, against, self._pins.evidence_key(evidence), self._options.want_symbols,
                self._options.max_file_bytes, self._reports_inside_digest(pinned.store))
        return self._keys[memo]

    def _reports_inside_digest(self, store: GitStore) -> str:
        """:meth:`_reports_inside` as one digest, made once per repository (not sorted and
        encoded again for every piece of evidence: thousands of reports may lie inside)."""
        found = self._inside_digests.get(store.path)
        if found is None:
            names = "\n".join(sorted(self._reports_inside(store))).encode("utf-8", "surrogatepass")
            found = self._inside_digests[store.path] = hashlib.sha256(names).hexdigest()
        return found

    def _reports_inside(self, store: GitStore) -> frozenset[str]:
        """The loaded reports that lie in ``store``'s working tree, as repository paths."""
        found = self._inside.get(store.path)
        if found is None:
            root = store.path.resolve()
            inside = set()
            for path in self._reports.paths:
                try:
                    inside.add(Path(path).resolve().relative_to(root).as_posix())
                except ValueError:
                    continue
            found = self._inside[store.path] = frozenset(inside)
        return found

    def stop_asking(self) -> None:
        """End the thread :meth:`ask_ahead` started (waiting for the command it runs):
        it lives only while the plan is checked."""
        if self._asking is not None:
            self._asking.shutdown(wait=True, cancel_futures=True)
            self._asking = None
        self._asked.clear()
        searching, self._searching = self._searching, []
        for snapshot in searching:
            drift.search.stop_asking(snapshot)  # a search started ahead that nothing took in

    def release(self) -> None:
        self.stop_asking()
        self._done.clear()
        self._keys.clear()
