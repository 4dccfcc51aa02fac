"""One run of the checker, without pytest: reports, their targets, and their results.

The pytest layer (``integration/``), the benchmarks and the tests drive an
:class:`Engine`, a façade over parts that each own their state:

``reports``       the run's reports, parsed a folder at a time (:mod:`.reports`)
``claims``        each report's claims files and blocks (:mod:`.claims`)
``repositories``  which local clone each source is, opened once (:mod:`.repositories`)
``bindings``      each source's repository and resolved pin; the against-revision (:mod:`.bindings`)
``paths``         loosely written paths bound to the pinned tree; what is no evidence (:mod:`.paths`)
``plan``          the evidence the run checks, by (repository, pin) (:mod:`.plan`)
``pins``          evidence checked at its pin, a pin at a time (:mod:`.pins`)
``drift``         evidence followed to the against-revision, a pair at a time (:mod:`.drifts`)
``predicates``, ``observations``   claims checked (:mod:`.claimchecks`)
``affected``      with ``--memreport-affected``, what the range touches (:mod:`.affected`)

A run plans, then checks: once pytest has collected and selected its items,
:meth:`Engine.check_planned` checks every selected piece of evidence pair by pair,
asking git each question once per (repository, pin, against) in batches; items then
read finished results. Driven without a plan, the first check at a pin checks the
pin's whole batch the same way.
"""

from __future__ import annotations

import functools
import os
import time
from collections import defaultdict
from pathlib import Path
from typing import Callable, Iterable, TypeVar

from .. import dialects, text
from ..checks import attributed, drift, symbolrefs, verify
from ..dialects.claims import Predicate
from ..dialects.claims.assembly import ReportClaims
from ..dialects.claims.index import ClaimsIndex
from ..gitstore import GitStore, RepoError, RevisionError, Snapshot
from ..model import Evidence, EvidenceKind, EvidenceRole, Report
from ..options import AGAINST_NONE, RunOptions
from ..parsehelper import Helper
from ..resultcache import ResultCache, encode
from ..runcaches import RunCaches
from ..text import symbols
from .affected import AffectedRange
from .bindings import Binding, Bindings
from .claimchecks import ObservationRuns, PredicateChecks
from .claims import ClaimsRegistry
from .drifts import DriftChecks
from .paths import PathResolver
from .pins import PinChecks
from .plan import EvidenceResults, Plan
from .reports import ReportSet
from .repositories import TargetRepositories
from .timing import Timing

__all__ = ["Binding", "Engine", "RunOptions", "Timing"]

Result = TypeVar("Result")


#: not bound yet (``None`` is an answer: a symbol reference naming no definition)
_UNBOUND = object()


def _in_run(method: Callable[..., Result]) -> Callable[..., Result]:
    """An engine method run with the engine's caches current (:mod:`..runcaches`)."""

    @functools.wraps(method)
    def in_run(self: "Engine", *args, **kwargs) -> Result:
        return self.caches.call(method, self, *args, **kwargs)

    return in_run


class Engine:
    """Everything one process checks: reports, their repositories and their results.

    ``paths`` are the reports of the run; ``results`` the results kept across runs
    (none by default); ``corrects_anchors``: the run writes or previews its corrections
    (a quotation outside its cited lines is corrected, so it warns rather than fails);
    ``progress(message, detail)`` is told of long-running steps (the plugin points it at the
    terminal); ``detail`` marks a step of seconds (a history walk, a search), not of minutes.
    """

    def __init__(self, options: RunOptions, paths: Iterable[Path] = (), *, results: ResultCache | None = None,
                 corrects_anchors: bool = False, progress: Callable[[str, bool], None] | None = None,
                 parse_helper: Helper | None = None, parses: ResultCache | None = None) -> None:
        # ``parse_helper``: a process parsing part of a large report set beside this one
        # (:mod:`..dialects.sharedparse`), which the plugin started where it is worth its
        # start (:func:`..parsehelper.start_for`); the engine stops it once they are parsed.
        # ``parses``: where reports already parsed are looked up, when not in ``results``
        # (a pytest-xdist worker's, handed over by its controller without pytest's cache)
        self.options = options
        self.timing = Timing()
        #: every cache of the run's data (parses, text indexes, compiled quotations, word
        #: indexes...): current while one of the engine's calls runs, emptied by close()
        self.caches = RunCaches()
        self.corrects_anchors = corrects_anchors
        self.results = results if results is not None else ResultCache(None)
        self._progress = progress
        self.reports = ReportSet(list(paths), options.rootdir, options.dialect, self.timing,
                                 readers=options.form_readers, helper=parse_helper, pins=options.pins,
                                 results=parses if parses is not None else self.results)
        self.claims = ClaimsRegistry(options, self.reports)
        self.repositories = TargetRepositories(options, self.reports, self.claims)
        self.bindings = Bindings(options, self.reports, self.claims, self.repositories, self.timing)
        self.paths = PathResolver(self.reports, self.bindings, self._announce_detail, self.results)
        self.plan = Plan(self.reports, self.bindings)
        self.pins = PinChecks(options, self.bindings, self.paths, self.plan, self.results, self.timing)
        self.drift = DriftChecks(options, self.reports, self.bindings, self.pins, self.plan, self.results,
                                 self.timing, self._announce_detail)
        self.predicates = PredicateChecks(options, self.bindings, self.claims, self.results, self.timing)
        self.observations = ObservationRuns(self.bindings, self.claims, self.pins, self.timing, self._announce)
        #: evidence as written -> what is checked (:meth:`prepared`), by report
        self._bound_evidence: EvidenceResults[Evidence | None] = EvidenceResults()
        self._prepared: EvidenceResults[Evidence | None] = EvidenceResults()
        self._pair_keys: dict[tuple[str, str | None, str | None], str | None] = {}
        self.affected = AffectedRange(options, self.reports, self.claims, self.repositories, self.bindings,
                                      self.checkable) if options.affected else None

    def within(self, function: Callable[..., Result], *args) -> Result:
        """``function(*args)`` with the engine's caches current: a loop of engine calls makes
        them current once, not once per call."""
        return self.caches.call(function, *args)

    @property
    def drift_enabled(self) -> bool:
        return self.options.against.lower() != AGAINST_NONE

    @property
    def loaded_paths(self) -> list[Path]:
        return self.reports.paths

    # -- reports and their claims ---------------------------------------------------------
    @_in_run
    def report(self, path: Path) -> Report:
        """Read and parse a report once; raises :class:`~..dialects.ReportError` for bad input."""
        return self.reports.report(path)

    @_in_run
    def loaded_reports(self) -> list[Report]:
        return self.reports.loaded()

    def report_file(self, report: Report) -> Path:
        return self.reports.report_file(report)

    @property
    def report_bytes(self) -> dict[str, bytes]:
        return self.reports.report_bytes

    @property
    def claims_bytes(self) -> dict[str, bytes]:
        return self.claims.claims_bytes

    @_in_run
    def claims_for(self, report: Report) -> ReportClaims:
        return self.claims.claims_for(report)

    @_in_run
    def claims_index(self) -> ClaimsIndex:
        return self.claims.index

    # -- repositories and pins ---------------------------------------------------------------
    @_in_run
    def binding(self, report: Report, source_id: str | None, pin: str | None = None) -> Binding:
        return self.bindings.binding(report, source_id, pin)

    @_in_run
    def unchecked(self, report: Report, resolve: bool = True):
        return self.bindings.unchecked(report, resolve)

    @_in_run
    def against_rev(self, store: GitStore) -> str:
        return self.bindings.against_rev(store)

    @_in_run
    def against_label(self, binding: Binding) -> str | None:
        return self.bindings.against_label(binding)

    @_in_run
    def against_problem(self, binding: Binding) -> str | None:
        return self.bindings.against_problem(binding)

    @_in_run
    def incomplete_clone(self, binding: Binding) -> str | None:
        return self.bindings.incomplete_clone(binding)

    @_in_run
    def is_unmapped(self, report: Report, source_id: str | None) -> bool:
        return self.repositories.is_unmapped(report, source_id)

    @_in_run
    def all_repositories_named(self) -> set[str]:
        # Reads every report: the first call parses them, with the run's caches current
        # (a link's reading, cached per run, is asked by several of a note's passes).
        return self.repositories.all_repositories_named()

    @_in_run
    def unknown_keys(self) -> list[tuple[str, list[str]]]:
        # Reads every report too (with keyed clones it is the session's first read).
        return self.repositories.unknown_keys()

    # -- what becomes items ---------------------------------------------------------------------
    @_in_run
    def checkable(self, report: Report, evidence: tuple[Evidence, ...]) -> list[Evidence]:
        """The evidence that is checked, as :meth:`prepared` makes it (sources with no
        clone mapped and proposed symbol references naming nothing left out)."""
        out = []
        for item in evidence:
            if self.repositories.is_unmapped(report, item.source):
                continue  # one skipped source item says which option to give
            prepared = self.prepared(report, item)
            if prepared is not None:
                out.append(prepared)
        return out

    @_in_run
    def collectable(self, report: Report, evidence: tuple[Evidence, ...]) -> list[Evidence]:
        """The evidence that becomes items, as written: all but that of a source no clone
        is mapped for (one skipped source item says which option to give). Nothing is
        read: what each is checked as is decided when its item runs (:meth:`prepared`)."""
        # asked once per source, not per piece (a note of a thousand links names one or two)
        unmapped = {source for source in {item.source for item in evidence}
                    if self.repositories.is_unmapped(report, source)}
        return [item for item in evidence if item.source not in unmapped] if unmapped else list(evidence)

    @_in_run
    def prepared(self, report: Report, evidence: Evidence) -> Evidence | None:
        """The evidence as written, made what is checked, when its item runs (never while
        items are made): a loosely written path (bare name, partial, elided, checkout
        path) bound to the pinned tree; a proposed symbol reference bound to the
        definition it names in a file its context cites (``None``: it names none, and is
        no evidence); a backticked path or a loose quotation the pin lacks remembered
        as no evidence (:meth:`not_evidence`). Once per piece of evidence."""
        kept = self._prepared.get(report.path, evidence, _UNBOUND)
        if kept is not _UNBOUND:
            return kept
        found = self._bound_once(report, evidence)
        self._prepared.put(report.path, evidence, found)
        if found is not None and (found.role is EvidenceRole.LOOSE or attributed.unfound_reason(found)):
            self._loose_quotation(report, found)
        return found

    def _bound(self, report: Report, item: Evidence) -> Evidence | None:
        if item.kind is EvidenceKind.SYMBOL and item.lookup is not None and not item.context:
            # a member named alone: kept where one file of those holding its name defines it
            return self._resolved_symbol(report, self.paths.files_holding_name(report, item), alone=True)
        if item.kind is EvidenceKind.SYMBOL and item.lookup is not None:
            # a member named with its owner: looked for in the files named after the owner
            return self._resolved_symbol(report, self.paths.files_named_after(report, item))
        if item.lookup is not None:
            return self.paths.resolve(report, item)
        if item.role is EvidenceRole.MENTION:
            self.paths.check_backticked(report, item)
        if item.kind is not EvidenceKind.SYMBOL:
            return item
        return self._resolved_symbol(report, self.paths.context_at_pin(report, item))

    def _resolved_symbol(self, report: Report, item: Evidence, alone: bool = False) -> Evidence | None:
        """A proposed symbol reference bound to the definition it names at the pin (``alone``:
        to the one file of its context that defines it, none where several do)."""
        pinned = self.bindings.binding(report, item.source, item.pin).pinned
        if pinned is None:
            return None
        cache_key = self._resolve_key(pinned.pin, item, alone)
        resolved = self.results.get(cache_key, ResultCache.MISS)
        if resolved is ResultCache.MISS:
            start = time.perf_counter()
            snapshot = pinned.store.snapshot(pinned.pin)
            resolved = symbolrefs.resolve_alone(item, snapshot) if alone else symbolrefs.resolve(item, snapshot)
            self.timing.add("symbols", time.perf_counter() - start)
            self.results.put(cache_key, resolved)
        return resolved

    def _resolve_key(self, pin: str, item: Evidence, alone: bool = False):
        # The resolved evidence keeps the report line: the key is all of it.
        return self.results.key("resolve-alone" if alone else "resolve", pin, encode(item))

    def _read_definition_files(self, pairs: list[tuple[Report, Evidence]]) -> None:
        """The files that the symbol references still to resolve may be defined in (those
        their records cite), read in one pipelined ``cat-file`` run per pinned tree: resolving
        reads them one at a time, each read waiting for git's answer (on typeshed, 2,000
        reads for 200 references)."""
        wanted: dict[int, tuple[Snapshot, list[str]]] = {}
        for report, item in pairs:
            if item.kind is not EvidenceKind.SYMBOL or item.lookup is not None or not item.context:
                continue
            if self._prepared.get(report.path, item, _UNBOUND) is not _UNBOUND:
                continue
            try:
                pinned = self.bindings.binding(report, item.source, item.pin).pinned
                if pinned is None or self.results.has(self._resolve_key(pinned.pin, item)):
                    continue  # (answered by the result cache: nothing to read)
                snapshot = pinned.store.snapshot(pinned.pin)
            except (RepoError, RevisionError):
                continue  # resolving says what is wrong
            wanted.setdefault(id(snapshot), (snapshot, []))[1].extend(item.context)
        for tree, paths in wanted.values():
            try:
                tree.prefetch(paths)
            except RepoError:
                continue  # read one by one then, where what is wrong is said

    def _loose_quotation(self, report: Report, evidence: Evidence) -> None:
        """A quoted phrase with no citation beside it is a quotation of the file its
        row or paragraph cites only if that file holds it (read at the pin, once)."""
        if self.paths.not_evidence(report, evidence) is not None:
            return
        binding = self.bindings.binding(report, evidence.source, evidence.pin)
        if binding.pin is None or binding.store is None:
            return
        status = self.pins.result(report, evidence).status
        if status == verify.MISSING:
            self.paths.mark_not_evidence(report, evidence, attributed.unfound_reason(evidence) or (
                f'"{evidence.text}" is not in {evidence.path} at the pin, and no citation stands beside it: '
                "read as the report's own words (put the citation right after a quotation to have it checked)"))
        elif status == verify.FILE_MISSING and evidence.role is EvidenceRole.LOOSE:
            # a block the report gives a file the pin does not have: its own code, not that file's
            self.paths.mark_not_evidence(report, evidence, (
                f"{evidence.path} is not in the pinned tree: the quoted block is read as the report's own "
                "(cite the file's lines right before it to have it checked)"))

    @_in_run
    def pair_key(self, report: Report, source_id: str | None, pin: str | None = None) -> str | None:
        """Which (repository, pin) pair a source's evidence is checked in, as collection
        can tell without asking git: the clone's location and the pin as stated. ``None``
        when no repository is mapped. Items of one key are checked together (one pytest-xdist
        worker, one shard)."""
        memo = (report.path, source_id, pin)
        if memo not in self._pair_keys:
            location = self.repositories.location(report, source_id)
            # Relative to the rootdir: a shard's group is the same on every CI machine.
            where = None if location is None else Path(os.path.relpath(location, self.options.rootdir)).as_posix()
            self._pair_keys[memo] = None if where is None else (
                f"{where}@{self.bindings.stated_pin(report, source_id, pin) or ''}")
        return self._pair_keys[memo]

    def _bound_once(self, report: Report, evidence: Evidence) -> Evidence | None:
        """:meth:`_bound`, kept for :meth:`prepared` (which adds the loose-quotation check)."""
        kept = self._bound_evidence.get(report.path, evidence, _UNBOUND)
        if kept is _UNBOUND:
            kept = self._bound(report, evidence)
            self._bound_evidence.put(report.path, evidence, kept)
        return kept

    @_in_run
    def not_evidence(self, report: Report, evidence: Evidence) -> str | None:
        return self.paths.not_evidence(report, evidence)

    # -- plan, then check ------------------------------------------------------------------------
    @_in_run
    def check_planned(self, pairs: Iterable[tuple[Report, Evidence]]) -> None:
        """Check every piece of evidence the selected items check, pin by pin and pair by
        pair, before any item runs: items then read finished results. A check that
        raises is left to its item, which checks it again and says why."""
        written = list(pairs)
        self._read_definition_files(written)
        self.paths.expect_names(written)
        # Paths and symbols bound first (a tree listing, a definition's file), so that the
        # pin's batch checks the evidence as it is checked.
        bound = [pair if found is pair[1] else (pair[0], found) for pair in written
                 if (found := self._bound_once(*pair)) is not None]
        self.plan.schedule(bound)
        try:
            if self.drift_enabled:
                self.drift.ask_ahead()  # git answers the pairs' first questions while the pins are checked
            for binding in self.plan.pin_bindings():
                # the missing quotations' search of the pinned tree finished last: its git grep
                # runs while drift is classified
                self.pins.check_pin(binding, defer_searches=True)
            for report, evidence in written:  # a loose quotation the pin lacks is no evidence
                self.prepared(report, evidence)
            if self.drift_enabled:
                # The evidence that may search the against-tree last: its git grep, started
                # now, runs while the rest is classified.
                searching = self.drift.start_pairs()
                scheduled = self.plan.scheduled
                if searching:  # (a stable sort: the plan's order otherwise)
                    scheduled = sorted(scheduled, key=lambda pair: pair[1] in searching)
                for report, evidence in scheduled:
                    if self.paths.not_evidence(report, evidence) is not None:
                        continue
                    try:
                        self.drift.result(report, evidence)
                    except Exception:  # noqa: BLE001 - its item checks it again and fails with the reason
                        continue
            self.pins.finish_searches()
        finally:
            self.pins.drop_searches()  # (none left, unless something above raised)
            self.drift.stop_asking()
        # What the parse and the checks kept to share work serves no item: held through the
        # item loop, every full garbage collection walks it.
        _release_shared_caches()

    @_in_run
    def pin_result(self, report: Report, evidence: Evidence) -> verify.PinResult:
        """The evidence checked at its pin (once per process)."""
        return self.pins.result(report, evidence)

    @_in_run
    def drift_result(self, report: Report, evidence: Evidence) -> drift.DriftResult | None:
        """What became of ``evidence`` at the against-revision; ``None`` when not checkable."""
        return self.drift.result(report, evidence)

    @_in_run
    def predicate_result(self, report: Report, predicate: Predicate, at_against: bool = False):
        return self.predicates.result(report, predicate, at_against)

    @_in_run
    def observation_result(self, report: Report, record, observation):
        return self.observations.result(report, record, observation)

    @_in_run
    def read_text(self, repo: str, rev: str, path: str) -> str | None:
        """``path`` at ``rev`` (a commit or ``worktree``) in the clone at ``repo``, for outputs
        that show the cited lines; ``None`` when it cannot be read as text."""
        try:
            textfile = self.repositories.open(Path(repo)).snapshot(rev).read(path)
        except (RepoError, RevisionError):
            return None
        return textfile.text if textfile is not None and textfile.is_text else None

    # -- the run's end -----------------------------------------------------------------------
    @_in_run
    def timing_json(self) -> dict:
        """Per-phase seconds of this process. ``git`` (commands and blob reads) and
        ``tree_sitter`` are also inside the phases that caused them; ``git_processes``,
        ``tree_sitter_parses`` and ``blobs_read`` are counts."""
        phases = Timing(defaultdict(float, self.timing.phases))
        stores = self.repositories.open_stores()
        phases.add("git", sum(store.git_seconds for store in stores))
        phases.add("git_processes", sum(store.git_processes for store in stores))
        parsed = symbols.stats()  # this run's (its caches are current)
        phases.add("tree_sitter", parsed.seconds)
        phases.add("tree_sitter_parses", parsed.parses)
        phases.add("blobs_read", sum(store.blobs_read for store in stores))
        phases.add("reports_parsed", self.reports.parsed)
        phases.add("reports_parsed_by_helper", self.reports.by_helper)
        if self.results.enabled or self.reports.kept:  # (kept: handed over by a controller)
            phases.add("reports_cached", self.reports.kept)
        if self.results.enabled:
            phases.add("results_cached", self.results.hits)
            phases.add("results_computed", self.results.misses)
        return phases.as_json()

    def _announce(self, message: str, detail: bool = False) -> None:
        if self._progress is not None:
            self._progress(message, detail)

    def _announce_detail(self, message: str) -> None:
        self._announce(message, detail=True)

    def close(self) -> None:
        """Close every repository and let go of what the run kept (memory, not state)."""
        for part in (self.drift, self.pins, self.predicates, self.paths, self.plan, self.bindings):
            part.release()  # drift's first: it waits for its thread asking git
        self.repositories.close()
        self.results.release()
        self.reports.release()
        self._bound_evidence.clear()
        self._prepared.clear()
        self._pair_keys.clear()
        self.caches.clear()


def _release_shared_caches() -> None:
    """The current run's caches of the parse and the checks (the last report's tokens,
    compiled quotations, text indexes, syntax trees) let go of; its meters are kept."""
    dialects.release_caches()
    text.release_caches()
