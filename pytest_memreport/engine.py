"""One run of the checker, without pytest: reports, their targets, and cached results.

The pytest layer (``items.py``) and the benchmarks both drive an
:class:`Engine`. It knows which repository and which commit every piece of
evidence is checked against, opens each target repository once per process
(lazily, so every pytest-xdist worker opens its own), and caches each result so
that the pin item and the drift item of one quotation share the work.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path

from .checks import clones, drift, predicates, symbolrefs, verify
from . import text
from .text import symbols
from .dialects.claims import ClaimsError, ClaimsFile
from .dialects.claims.assembly import ReportClaims
from .dialects import ReportError
from .dialects.review import BACKTICKED_PATH
from .dialects.tables import INLINE_QUOTATION, LOOSE_QUOTATION
from .gitstore import GitStore, RepoError, RevisionError
from .model import Evidence, EvidenceKind, Report, Source
from .options import AGAINST_NONE, AGAINST_WORKTREE, RunOptions
from .binding import Binding, where_stated
from .resultcache import ResultCache, encode, evidence_key
from .textworker import CHECKS, MIN_FILES, MIN_SHARED_CHECKS, OPEN, SEARCH, UNKNOWN, TextWorker
from .claimchecks import ClaimChecks
from .loading import load_folders
from .repositories import TargetRepositories
from .targets import TargetPaths


class _Unkept(Exception):
    """A result that depends on git failing to read something: used this run, never kept."""

    def __init__(self, result) -> None:
        super().__init__()
        self.result = result


def _pinned_elsewhere(link_pin: str, stated: str | None) -> bool:
    """Whether a link's own commit is not the report's pin for its repository."""
    if not stated:
        return False
    one, two = link_pin.lower(), stated.lower()
    return not (one.startswith(two) or two.startswith(one))


@dataclass
class Timing:
    """Seconds spent per phase in this process (reported in JSON)."""

    phases: dict = field(default_factory=lambda: defaultdict(float))

    def add(self, phase: str, seconds: float) -> None:
        self.phases[phase] += seconds

    def as_json(self) -> dict:
        return {k: round(v, 4) for k, v in sorted(self.phases.items())}

    def merge(self, other: dict) -> None:
        """Add another process's phases (pytest-xdist workers report theirs)."""
        for phase, seconds in other.items():
            self.phases[phase] += float(seconds)


def _plan_order(pair) -> tuple:
    """A stable order for ``(report path, evidence)`` pairs: report, then line."""
    path, evidence = pair
    return str(path), evidence.line, evidence.path or "", evidence.text or ""


class Engine(TargetRepositories, ClaimChecks, TargetPaths):
    """Caches everything one process needs: parsed reports, stores, results."""

    def __init__(self, options: RunOptions) -> None:
        self.options = options
        self.timing = Timing()
        self._reports: dict[Path, Report] = {}
        self._stores: dict[Path, GitStore | RepoError] = {}
        self._bindings: dict[tuple[str, str | None, str | None], Binding] = {}
        self._pin_results: dict[tuple[str, Evidence], verify.PinResult] = {}
        self._drift_results: dict[tuple[str, Evidence], drift.DriftResult | None] = {}
        self._against: dict[Path, str | RevisionError] = {}
        self._claims_files: dict[Path, ClaimsFile | ClaimsError | None] = {}
        self._report_claims: dict[str, ReportClaims] = {}
        self._predicate_results: dict[tuple, predicates.PredicateResult] = {}
        self.loaded_paths: list[Path] = []
        self._observations: dict[tuple, object] = {}
        self._ambiguous: dict[tuple[str, Evidence], list[str]] = {}
        self._mapped: dict[tuple[str, Evidence], str] = {}
        self._not_evidence_reasons: dict[tuple[str, Evidence], str] = {}
        self._tree_indexes: dict = {}
        self._announced_roots: set = set()
        self._report_paths: dict[Path, frozenset[str]] = {}
        #: (repository, pin) whose cited files were read ahead in one batch
        self._prefetched: set = set()
        #: (repository, pin, against) pairs drift has started on: announced, and
        #: their quotes handed to drift's tree search
        self._drift_started: set = set()
        #: (repository, revisions) whose missing objects a source item has warned about
        self._incomplete_said: set = set()
        #: the run writes or previews its corrections (--memreport-write, --memreport-diff): a
        #: quotation outside its cited lines is corrected, so it warns rather than fails
        self.corrects_anchors = False
        #: where long-running steps are announced (the plugin points it at the terminal)
        self.progress = None
        self._named: set[str] | None = None
        #: each report's bytes as parsed, so a rewrite can refuse a report changed since
        self.report_bytes: dict[str, bytes] = {}
        #: results kept across runs (:mod:`.resultcache`); the plugin sets it from pytest's cache
        self.results = ResultCache(None)
        #: each claims file's bytes as loaded (by resolved path), for the same reason
        self.claims_bytes: dict[str, bytes] = {}
        #: pin checks made ahead of their items (see _check_ahead), and the pins whose
        #: quotations were checked ahead (their missing ones announced to the tree search)
        self._checked_ahead: dict[tuple[str, Evidence], verify.PinResult] = {}
        self._pins_checked_ahead: set = set()
        #: ``(report path, evidence)`` of the items that will run, once pytest has selected
        #: them (``-k``, shards): what is read or checked ahead of items is only theirs.
        #: ``None``: every loaded report's evidence (no selection known)
        self.scheduled: frozenset | None = None
        #: result-cache digests and evidence encodings, computed once per evidence
        self._pin_keys: dict[tuple, str | None] = {}
        self._evidence_keys: dict[Evidence, str] = {}
        #: a worker process (:mod:`.textworker`) parses part of a large knowledge base, finds
        #: JSON's enclosing definitions at the pin and shares large batches of pin checks; the
        #: plugin turns it on for the process that runs items on a machine with cores to spare
        self.use_worker = False
        self._worker = TextWorker()
        #: the worker searches where a large pin's missing quotations are instead while items
        #: run (:meth:`settle`); the plugin turns it on, as it settles before any output
        self.defers_searches = False
        #: ``(report path, evidence)`` -> (report, binding, its result before that search)
        self._unsettled: dict[tuple[str, Evidence], tuple[Report, Binding, verify.PinResult]] = {}

    @property
    def drift_enabled(self) -> bool:
        return self.options.against.lower() != AGAINST_NONE

    # -- reports ---------------------------------------------------------
    def report(self, path: Path) -> Report:
        """Read and parse a report once; raises :class:`ReportError` for bad input.

        A report is parsed with the other loaded reports of its folder: the
        files of an analysis run share its register and pin (:mod:`.dialects.runs`)."""
        key = Path(path).resolve()
        cached = self._reports.get(key)
        if cached is None:
            self._parse_folder(key)
            cached = self._reports[key]
        if isinstance(cached, ReportError):
            raise cached
        return cached

    def _parse_folder(self, key: Path) -> None:
        """Parse ``key``'s folder (with the worker: every loaded folder not parsed yet,
        so that it has a share of them all)."""
        start = time.perf_counter()
        order = {p: i for i, p in enumerate(Path(p).resolve() for p in self.loaded_paths)}
        by_folder: dict[Path, list[Path]] = {key.parent: [key]}
        for other in order:
            if other not in self._reports and other != key and (self.use_worker or other.parent == key.parent):
                by_folder.setdefault(other.parent, []).append(other)
        folders = [sorted(members, key=lambda p: order.get(p, -1)) for members in by_folder.values()]
        loaded = load_folders(folders, self.display_path, self.options.dialect,
                              self._worker if self.use_worker else None)
        self._reports.update(loaded.reports)
        self.report_bytes.update(loaded.report_bytes)
        self.timing.add("parse", time.perf_counter() - start)

    def report_file(self, report: Report) -> Path:
        """The report's file; relative (as displayed) when the run started in the current folder."""
        path = Path(report.path)
        if path.is_absolute() or Path.cwd().resolve() == self.options.rootdir.resolve():
            return path
        return self.options.rootdir / path

    def display_path(self, path: Path) -> str:
        """A report's name in items, messages and JSON: relative to where the run started."""
        try:
            return str(path.relative_to(self.options.rootdir.resolve()))
        except ValueError:
            return str(path)

    def loaded_reports(self) -> list[Report]:
        """Every report of this run that could be read (for cross-report checks)."""
        out = []
        for path in self.loaded_paths:
            try:
                out.append(self.report(path))
            except ReportError:
                continue
        return out

    def unchecked(self, report: Report) -> tuple[str, str, list[Binding]] | None:
        """Why none of the report's evidence can be checked against a repository:
        ``(code, one line, bindings)``; ``None`` when some of it can.

        Codes: ``no-evidence``, ``no-repository``, ``pin-missing``, ``unpinned``
        (see :data:`~pytest_memreport.outputs.staleness.REASONS`).
        """
        claims = self.claims_for(report)
        wanted = {(e.source, e.pin) for e in report.all_evidence()}
        wanted |= {(p.source, None) for preds in claims.predicates.values() for p in preds}
        wanted |= {(None, None) for obs in claims.observations.values() if obs}
        if not wanted:
            return ("no-evidence", f"{report.path}: no evidence to check (no quotation, cited path or line range)", [])
        problems = []
        bindings = []
        for source_id, pin in sorted(wanted, key=lambda k: (k[0] or "", k[1] or "")):
            binding = self.binding(report, source_id, pin)
            if binding.pin is not None and binding.store is not None:
                return None
            bindings.append(binding)
            code = {"no-repo": "no-repository", "missing-commit": "pin-missing"}.get(binding.pin_status,
                                                                                      binding.pin_status)
            problems.append((code, binding.problem or code))
        code, message = problems[0]
        return code, message, bindings

    def binding(self, report: Report, source_id: str | None, pin: str | None = None) -> Binding:
        """Resolve the repository and pinned commit for evidence of ``source_id``.

        ``pin`` is an evidence's own commit (a review link); otherwise the
        override, then the report's stated pin, applies.
        """
        key = (report.path, source_id, pin)
        cached = self._bindings.get(key)
        if cached is None:
            cached = self._bind(report, source_id, pin)
            self._bindings[key] = cached
        return cached

    def _bind(self, report: Report, source_id: str | None, own_pin: str | None) -> Binding:
        source = report.source(source_id) or Source(id=source_id or "SRC-1")
        sid = source.id
        pins = self.options.pins
        claimed = self.claims_for(report).source(sid)
        claimed_pin = claimed.pin if claimed is not None else None
        override = pins.get(sid) or pins.get(None)
        if own_pin and override and not _pinned_elsewhere(own_pin, claimed_pin or source.pin):
            # --memreport-pin moves the links at the report's own pin too (not those
            # citing another commit on purpose).
            own_pin = None
        stated = own_pin or override or claimed_pin or source.pin
        try:
            store = self.store_for(report, source_id)
        except RepoError as exc:
            return Binding(sid, None, None, "no-repo", str(exc), stated_pin=stated, line=source.line)
        label = str(store.path)
        if stated is None:
            where = where_stated(report, source)
            return Binding(
                sid, store, None, "unpinned",
                f"{where}: no pinned commit for {sid}; state it in the report (e.g. `{sid} commit <sha>`) "
                f"or give --memreport-pin {sid}=REV",
                label, None, source.line,
            )
        try:
            start = time.perf_counter()
            sha = store.resolve(stated)
            self.timing.add("git", time.perf_counter() - start)
        except RevisionError as exc:
            where = where_stated(report, source)
            guidance = clones.pin_guidance(store, sid, clones.report_date(report, self.report_file(report)))
            return Binding(sid, store, None, "missing-commit", f"{where}: {exc}; {guidance}", label, stated,
                           source.line)
        return Binding(sid, store, sha, "ok", None, label, stated, source.line)

    # -- checks ----------------------------------------------------------
    def pin_result(self, report: Report, evidence: Evidence) -> verify.PinResult:
        """The evidence checked at its pin (computed once per process)."""
        key = (report.path, evidence)
        cached = self._pin_results.get(key)
        if cached is not None:
            return cached
        binding = self.binding(report, evidence.source, evidence.pin)
        ambiguous = self._ambiguous.get(key)
        if binding.pin is None:
            result = verify.PinResult(
                verify.COMMIT_MISSING, binding.stated_pin or "", evidence.path, message=binding.problem or ""
            )
        elif ambiguous:
            shown = ", ".join(ambiguous[:10]) + (f" and {len(ambiguous) - 10} more" if len(ambiguous) > 10 else "")
            result = verify.PinResult(
                verify.AMBIGUOUS, binding.pin, evidence.path,
                message=f"{evidence.path} names {len(ambiguous)} files at the pin: {shown}; cite the path",
            )
        elif (kept := self.results.get(self._pin_key(binding, evidence), ResultCache.MISS)) is not ResultCache.MISS:
            result = kept
        else:
            start = time.perf_counter()
            snapshot = binding.store.snapshot(binding.pin)
            if (binding.store.path, binding.pin) not in self._prefetched:
                # The run's other citations at this pin will be read too (those
                # the result cache does not answer): one batch.
                self._prefetched.add((binding.store.path, binding.pin))
                uncached = [other for _, other in self._cited_at(binding)
                            if not self.results.has(self._pin_key(binding, other))]
                shares = self.use_worker and len(uncached) >= MIN_SHARED_CHECKS  # fewer: none to share
                if shares and self.defers_searches:
                    self._open_for_search(binding, uncached)
                snapshot.prefetch(other.path for other in uncached)
                self._offload_worker(binding, snapshot, uncached)
                if shares:
                    self._check_ahead(binding, snapshot, on_missing=False)
            try:
                if evidence.kind is EvidenceKind.SYMBOL:
                    result = symbolrefs.at_pin(evidence, snapshot)
                else:
                    ahead = self._checked_ahead.pop(key, None)
                    result = self._with_symbol(binding, evidence, snapshot, ahead) if ahead is not None \
                        else self._check_pinned(binding, evidence, snapshot)
                    if result.status == verify.MISSING and evidence.label in (INLINE_QUOTATION, LOOSE_QUOTATION):
                        result = self._adapted_initial(evidence, snapshot, result)
            except RepoError as exc:  # a missing or corrupt object: this evidence cannot be read
                result = verify.PinResult(verify.UNREADABLE, binding.pin, evidence.path, message=str(exc))
            if (result.status in (verify.MISSING, verify.FILE_MISSING) and evidence.kind is EvidenceKind.QUOTE
                    and evidence.label != LOOSE_QUOTATION):  # a loose one that is not there is no quotation
                self._check_ahead(binding, snapshot, on_missing=True)
                if self._worker.wants(binding.pin, evidence, SEARCH):
                    self._unsettled[key] = (report, binding, result)  # the worker is searching: see settle
                else:
                    result = drift.search.with_found_instead(evidence, snapshot, result)
            self.timing.add("matching", time.perf_counter() - start)
            if key not in self._unsettled:  # kept once complete (settle)
                self.results.put(self._pin_key(binding, evidence), result)
        result = self._noted(report, evidence, result)
        self._pin_results[key] = result
        return result

    def unsettled(self, report: Report, evidence: Evidence) -> bool:
        """Whether the evidence's pin result still waits for the search saying where the
        pinned tree holds it instead (its status is final; its message is not)."""
        return (report.path, evidence) in self._unsettled

    def settle(self, report: Report, evidence: Evidence) -> None:
        """Complete an :meth:`unsettled` pin result with the worker's search (or this
        process's, when the worker has no answer): :meth:`pin_result` then gives it."""
        key = (report.path, evidence)
        waiting = self._unsettled.pop(key, None)
        if waiting is None:
            return
        _, binding, result = waiting
        start = time.perf_counter()
        found = self._worker.searched(binding.pin, evidence)
        snapshot = binding.store.snapshot(binding.pin)
        result = drift.search.with_found_instead(evidence, snapshot, result,
                                                 found=None if found is UNKNOWN else found)
        self.timing.add("matching", time.perf_counter() - start)
        self.results.put(self._pin_key(binding, evidence), result)
        self._pin_results[key] = self._noted(report, evidence, result)

    def settle_all(self) -> None:
        """:meth:`settle` every result still waiting (before results are kept or written)."""
        for (_, evidence), (report, _, _) in list(self._unsettled.items()):
            self.settle(report, evidence)

    def _noted(self, report: Report, evidence: Evidence, result: verify.PinResult) -> verify.PinResult:
        """``result`` with what this run adds to its note: the source register naming a
        missing file, and the path a loosely written one was read as."""
        if result.status == verify.FILE_MISSING and evidence.source:
            source = report.source(evidence.source)
            if source is not None and source.registered and evidence.label != "source register":
                where = f"{source.file or report.path}:{source.line}"
                registered = f"the source register names it for {source.id} at {where}"
                result = replace(result, note=f"{result.note}; {registered}" if result.note else registered)
        mapped = self._mapped.get((report.path, evidence))
        if mapped is not None:  # say which path a loosely written one was read as (-v, failures)
            result = replace(result, note=f"{result.note}; {mapped}" if result.note else mapped)
        return result

    def _check_pinned(self, binding: Binding, evidence: Evidence, snapshot,
                      with_symbol: bool = True) -> verify.PinResult:
        """:func:`.verify.check_at_pin`, with the enclosing definition (when JSON wants it,
        and ``with_symbol``) that the worker found (:mod:`.textworker`), else looked up here."""
        offloaded = self.options.want_symbols and self._worker.wants(binding.pin, evidence)
        result = verify.check_at_pin(evidence, snapshot,
                                     with_symbol=self.options.want_symbols and with_symbol and not offloaded)
        return self._with_symbol(binding, evidence, snapshot, result) if with_symbol else result

    def _with_symbol(self, binding: Binding, evidence: Evidence, snapshot, result: verify.PinResult) -> verify.PinResult:
        """``result`` with the definition enclosing its lines, when JSON wants it and it is
        not known yet: the worker's answer, else looked up here."""
        if not self.options.want_symbols or result.symbol_known or result.status != verify.FOUND \
                or result.lines is None:
            return result
        symbol = self._worker.symbol(binding.pin, evidence, result.lines)
        if symbol is UNKNOWN:
            textfile = snapshot.read(evidence.path)
            symbol = symbols.enclosing(textfile.text, evidence.path, result.lines, key=textfile.oid)
        return replace(result, symbol=symbol, symbol_known=True)

    def _offload_worker(self, binding: Binding, snapshot, evidence: list[Evidence]) -> None:
        """Hand the pin's cited files to the worker that finds enclosing definitions, when
        JSON wants them and there are enough files to be worth a second process."""
        if not (self.use_worker and self.options.want_symbols):
            return
        by_path: dict[str, list[Evidence]] = defaultdict(list)
        for other in evidence:
            if other.kind in (EvidenceKind.QUOTE, EvidenceKind.LINES) and symbols.language_for(other.path):
                by_path[other.path].append(other)
        if len(by_path) < MIN_FILES:
            return
        files = []
        try:
            for path, textfile in snapshot.read_many(by_path):
                if textfile is not None and textfile.is_text:
                    files.append((path, textfile.text, textfile.oid, by_path[path]))
        except RepoError:
            return  # an object the clone lacks: each check reads what it can itself
        self._worker.submit(binding.pin, files)

    def _check_ahead(self, binding: Binding, snapshot, *, on_missing: bool) -> None:
        """Check the pin's quotations now (kept for their own items) and announce the
        missing ones to the search for where the tree holds them instead, so that it asks
        ``git grep`` once, not per quote.

        Done on the first quotation missing at a pin (``on_missing``), and before, at the
        pin's first check, when there are enough of them for the worker process to check
        half meanwhile: a run whose quotations all hold then checks on both cores, not one."""
        pair = (binding.store.path, binding.pin)
        if pair in self._pins_checked_ahead:
            return
        # A loosely written path (``lookup``) is checked once resolved, under another key:
        # checking it here as written would be work no item asks for.
        todo = [(report, other) for report, other in self._cited_at(binding)
                if not (other.kind is not EvidenceKind.QUOTE or other.label == LOOSE_QUOTATION
                        or other.lookup is not None or (report.path, other) in self._pin_results
                        or self.results.has(self._pin_key(binding, other)))]
        if not on_missing and len(todo) < MIN_SHARED_CHECKS:
            return  # few: each item checks its own, and a missing one checks the rest
        self._pins_checked_ahead.add(pair)
        # Many: the worker process checks the later half while this one checks the first.
        shared = self._share_checks(binding, snapshot, todo[len(todo) // 2:]) if len(todo) >= MIN_SHARED_CHECKS \
            else set()
        missing = []
        for report, other in todo:
            try:
                # Whether each is there, not yet where it sits in a definition: its item asks that.
                found = self._worker.checked(binding.pin, other) if other in shared else UNKNOWN
                if found is UNKNOWN:
                    found = self._check_pinned(binding, other, snapshot, with_symbol=False)
            except RepoError:
                continue  # its own item says which object is missing
            self._checked_ahead[(report.path, other)] = found
            if found.status in (verify.MISSING, verify.FILE_MISSING):
                missing.append(other)
        drift.search.expect_missing(snapshot, missing)
        if self.defers_searches and shared and missing:
            # The worker, done with its half, searches while this process runs the items.
            self._worker.submit(binding.pin, [self._search_target(binding, missing)], kind=SEARCH)

    def _open_for_search(self, binding: Binding, uncached: list[Evidence]) -> None:
        """Have the worker open the target and list the pin's tree while this process reads
        the pin's files, when enough quotations will be checked ahead for the worker to
        search where the missing ones are instead (see :meth:`_check_ahead`)."""
        if sum(other.kind is EvidenceKind.QUOTE for other in uncached) >= MIN_SHARED_CHECKS:
            self._worker.submit(binding.pin, [self._search_target(binding, [])], kind=OPEN)

    @staticmethod
    def _search_target(binding: Binding, quotes: list[Evidence]) -> tuple:
        """A worker's search job for ``quotes`` at the binding's pin (see :mod:`.textworker`)."""
        return str(binding.store.path), binding.store.max_file_bytes, None, quotes

    def _share_checks(self, binding: Binding, snapshot, pairs: list[tuple[Report, Evidence]]) -> set[Evidence]:
        """Hand ``pairs``' checks of their files' texts to the worker process (the later
        half of a pin's quotations, checked ahead of their items while this process
        checks the first half); the evidence it was given."""
        if not self.use_worker:
            return set()
        by_path: dict[str, list[Evidence]] = defaultdict(list)
        for _, other in pairs:
            by_path[other.path].append(other)
        files = []
        for path, evidence in by_path.items():
            try:
                read = verify.pinned_file(evidence[0], snapshot)
            except RepoError:
                continue  # each of its items says which object is missing
            if not isinstance(read, verify.PinResult):  # a text to check: the worker's
                files.append((path, read, False, evidence))  # the definitions: when items ask
        if not self._worker.submit(binding.pin, files, kind=CHECKS):
            return set()
        return {other for *_file, evidence in files for other in evidence}

    def checkable(self, report: Report, evidence: tuple[Evidence, ...]) -> list[Evidence]:
        """The evidence that becomes items: proposed symbol references only when,
        at the pin, they name a definition in a file their context cites; paths
        written loosely (bare names, partial, elided, checkout paths) resolved
        against the pinned tree."""
        out = []
        for item in evidence:
            if self.is_unmapped(report, item.source):
                continue  # one skipped source item says which option to give
            if item.lookup is not None:
                out.append(self._resolve_path(report, item))
                continue
            if item.label == BACKTICKED_PATH and item.kind in (EvidenceKind.PATH, EvidenceKind.DIRECTORY):
                self._backticked(report, item)
            if item.kind is not EvidenceKind.SYMBOL:
                out.append(item)
                continue
            binding = self.binding(report, item.source, item.pin)
            if binding.pin is None:
                continue
            # The resolved evidence keeps the report line: the key is all of it.
            cache_key = self.results.key("resolve", binding.pin, encode(item))
            resolved = self.results.get(cache_key, ResultCache.MISS)
            if resolved is ResultCache.MISS:
                start = time.perf_counter()
                resolved = symbolrefs.resolve(item, binding.store.snapshot(binding.pin))
                self.timing.add("symbols", time.perf_counter() - start)
                self.results.put(cache_key, resolved)
            if resolved is not None:
                out.append(resolved)
        for item in out:
            if item.label == LOOSE_QUOTATION:
                self._loose_quotation(report, item)
        return out

    def _loose_quotation(self, report: Report, evidence: Evidence) -> None:
        """A quoted phrase with no citation beside it is a quotation of the file its
        row or paragraph cites only if that file holds it (read at the pin, once)."""
        if self.not_evidence(report, evidence) is not None:
            return
        binding = self.binding(report, evidence.source, evidence.pin)
        if binding.pin is None or binding.store is None:
            return
        if self.pin_result(report, evidence).status == verify.MISSING:
            self._not_evidence_reasons[(report.path, evidence)] = (
                f'"{evidence.text}" is not in {evidence.path} at the pin, and no citation stands beside it: '
                "read as the report's own words (put the citation right after a quotation to have it checked)")

    # -- drift -----------------------------------------------------------
    def against_rev(self, store: GitStore) -> str:
        """The against-revision in ``store``: a commit sha or ``worktree``; raises RevisionError."""
        cached = self._against.get(store.path)
        if cached is None:
            wanted = self.options.against
            try:
                if wanted.lower() == AGAINST_WORKTREE and store.is_bare:
                    # Said once by the source item, rather than by every drift item.
                    raise RevisionError(f"{store.path} is a bare repository and has no working tree; "
                                        "give a revision instead")
                cached = AGAINST_WORKTREE if wanted.lower() == AGAINST_WORKTREE else store.resolve(wanted)
            except RevisionError as exc:
                cached = RevisionError(f"--memreport-against {wanted}: {exc}")
            self._against[store.path] = cached
        if isinstance(cached, RevisionError):
            raise cached
        return cached

    def against_label(self, binding: Binding) -> str | None:
        """What JSON and the source item say drift is checked against."""
        if not self.drift_enabled or binding.store is None:
            return None
        try:
            return self.against_rev(binding.store)
        except RevisionError as exc:
            return f"error: {exc}"

    def against_problem(self, binding: Binding) -> str | None:
        if not self.drift_enabled or binding.store is None:
            return None
        try:
            self.against_rev(binding.store)
        except RevisionError as exc:
            return str(exc)
        return None

    def incomplete_clone(self, binding: Binding) -> str | None:
        """One line when the clone lacks objects of the pin's or the against tree
        (:func:`.checks.clones.incomplete_clone`), said once per clone and revisions."""
        if binding.store is None or binding.pin is None:
            return None
        revs = [binding.pin]
        if self.drift_enabled:
            try:
                revs.append(self.against_rev(binding.store))
            except RevisionError:
                pass
        key = (binding.store.path, tuple(revs))
        if key in self._incomplete_said:
            return None  # said once, not by every source the clone serves
        start = time.perf_counter()
        message = clones.incomplete_clone(binding.store, revs)
        self.timing.add("git", time.perf_counter() - start)
        if message is not None:
            self._incomplete_said.add(key)
        return message

    def drift_result(self, report: Report, evidence: Evidence) -> drift.DriftResult | None:
        """What became of ``evidence`` at the against-revision; ``None`` when not checkable."""
        key = (report.path, evidence)
        if key in self._drift_results:
            return self._drift_results[key]
        pin = self.pin_result(report, evidence)
        binding = self.binding(report, evidence.source, evidence.pin)
        cache_key = self._drift_key(binding, evidence)
        result = self.results.get(cache_key, ResultCache.MISS)
        if result is ResultCache.MISS:
            try:
                result = self._drift(binding, evidence, pin)
                if not (binding.store is not None and binding.store.skipped_paths):
                    # A diff that had to skip blobs the clone lacks may say otherwise once they are fetched.
                    self.results.put(cache_key, result)
            except _Unkept as unkept:
                result = unkept.result
        self._drift_results[key] = result
        return result

    def _drift(self, binding: Binding, evidence: Evidence, pin: verify.PinResult) -> drift.DriftResult | None:
        result = None
        if pin.status in (verify.MISSING, verify.FILE_MISSING) and binding.store is not None and self.drift_enabled:
            result = self._ahead(binding, evidence)
        elif pin.ok and binding.store is not None and binding.pin is not None and self.drift_enabled:
            try:
                against = self.against_rev(binding.store)
            except RevisionError:
                against = None
            if against is not None:
                pair = (binding.store.path, binding.pin, against)
                start = time.perf_counter()
                snapshot = binding.store.snapshot(against)
                if pair not in self._drift_started:  # the first drift check from this pin to against
                    self._drift_started.add(pair)
                    if against not in (binding.pin, AGAINST_WORKTREE):
                        # One line diff for the pair, limited to the files the run cites.
                        binding.store.expect_changes(binding.pin, against,
                                                     {e.path for _, e in self._cited_at(binding)})
                    if against != binding.pin:
                        self._announce(f"memreport: following {binding.store.path} from {binding.pin[:12]} "
                                       f"to {against[:12]}")
                    try:
                        gone = drift.expect_searches(snapshot, binding.store, binding.pin,
                                                     self._quotes_pinned_at(binding))
                    except RepoError:
                        gone = 0  # an object the clone lacks: each classification says which
                    if gone:
                        self._announce(f"memreport: searching {binding.store.path} at {against[:12]} for {gone} "
                                       f"quotation(s) no longer in their files")
                try:
                    if evidence.kind is EvidenceKind.SYMBOL:
                        result = symbolrefs.classify(evidence, pin, binding.store, binding.pin, snapshot)
                    else:
                        result = drift.classify(evidence, pin, binding.store, binding.pin, snapshot,
                                                reports=self._reports_inside(binding.store),
                                                describe=self.options.want_symbols)
                except RepoError as exc:
                    # An object this evidence needs is missing (an incomplete clone):
                    # only this evidence is unreadable; everything else is classified.
                    result = drift.DriftResult(drift.UNREADABLE, against, None, None, pin.lines,
                                               old_path=evidence.path, message=str(exc))
                self.timing.add("drift", time.perf_counter() - start)
        return result

    def _ahead(self, binding: Binding, evidence: Evidence) -> drift.DriftResult | None:
        """Evidence missing at its pin that holds at the against-revision (see :func:`.drift.ahead`)."""
        try:
            against = self.against_rev(binding.store)
        except RevisionError:
            return None
        if against == binding.pin or evidence.kind is EvidenceKind.SYMBOL:
            return None
        start = time.perf_counter()
        try:
            return drift.ahead(evidence, binding.store.snapshot(against))
        except RepoError:
            raise _Unkept(None) from None  # the pin item already says what is wrong
        finally:
            self.timing.add("drift", time.perf_counter() - start)

    # -- results kept across runs -------------------------------------------
    def _pin_key(self, binding: Binding, evidence: Evidence) -> str | None:
        if not self.results.enabled:
            return None  # no result cache (-p no:cacheprovider): nothing to key
        # Asked several times per evidence (prefetch, pin, drift): the digest is kept.
        memo = (binding.store.path if binding.store is not None else None, binding.pin, evidence)
        if memo not in self._pin_keys:
            self._pin_keys[memo] = self.results.key("pin", binding.pin, self._evidence_key(evidence),
                                                    self.options.want_symbols, self.options.max_file_bytes)
        return self._pin_keys[memo]

    def _evidence_key(self, evidence: Evidence) -> str:
        found = self._evidence_keys.get(evidence)
        if found is None:
            found = self._evidence_keys[evidence] = evidence_key(evidence)
        return found

    def _drift_key(self, binding: Binding, evidence: Evidence) -> str | None:
        """Drift's key: the pin's inputs and the against commit (none for the working tree)."""
        if not self.results.enabled or not self.drift_enabled or binding.store is None or binding.pin is None:
            return None
        try:
            against = self.against_rev(binding.store)
        except RevisionError:
            return None
        if against == AGAINST_WORKTREE:
            return None  # the working tree has no id that says it did not change
        return self.results.key("drift", binding.pin, against, self._evidence_key(evidence), self.options.want_symbols,
                                self.options.max_file_bytes, sorted(self._reports_inside(binding.store)))

    def _reports_inside(self, store: GitStore) -> frozenset[str]:
        """The loaded reports that lie in ``store``'s working tree, as repository paths."""
        found = self._report_paths.get(store.path)
        if found is None:
            root = store.path.resolve()
            inside = set()
            for path in self.loaded_paths:
                try:
                    inside.add(Path(path).resolve().relative_to(root).as_posix())
                except ValueError:
                    continue
            found = self._report_paths[store.path] = frozenset(inside)
        return found

    def _cited_at(self, binding: Binding, kinds=(EvidenceKind.QUOTE, EvidenceKind.LINES)):
        """``(report, evidence)`` of every loaded report's quotations and cited
        lines (``kinds``) checked in ``binding``'s repository at its pin."""
        reports = {report.path: report for report in self.loaded_reports()}
        if self.scheduled is not None:
            # The items' evidence, not the reports' raw evidence: a path written loosely is
            # resolved for its item, and only the resolved one is classified (and searched).
            pairs = [(reports[path], evidence) for path, evidence in sorted(self.scheduled, key=_plan_order)
                     if path in reports]
        else:
            pairs = [(report, evidence) for report in reports.values() for evidence in report.all_evidence()]
        for report, evidence in pairs:
            if evidence.kind not in kinds:
                continue
            other = self.binding(report, evidence.source, evidence.pin)
            if other.store is binding.store and other.pin == binding.pin:
                yield report, evidence

    def _quotes_pinned_at(self, binding: Binding):
        """``(evidence, quote text)`` of :meth:`_cited_at`: quotations as written,
        cited lines as recorded at the pin (read only in files changed since)."""
        against = self.against_rev(binding.store)
        changed = None
        for report, evidence in self._cited_at(binding, (EvidenceKind.QUOTE, EvidenceKind.LINES, EvidenceKind.SYMBOL)):
            if evidence.kind in (EvidenceKind.QUOTE, EvidenceKind.SYMBOL):  # a symbol: its name
                yield evidence, evidence.text or ""
                continue
            if changed is None:
                changed = binding.store.changed_paths(binding.pin, "HEAD" if against == AGAINST_WORKTREE else against)
            if evidence.path in changed or against == AGAINST_WORKTREE:
                pin = self._recorded_at_pin(binding, report, evidence)
                if pin is not None and pin.ok and (pin.recorded_text or "").strip():
                    yield evidence, pin.recorded_text

    def _recorded_at_pin(self, binding: Binding, report: Report, evidence: Evidence) -> verify.PinResult | None:
        """Cited lines' content at the pin, for announcing searches: the pin result when
        known, else the lines checked without their enclosing definition (asking for it
        here would wait for the worker finding them, :mod:`.textworker`), kept for the
        evidence's item as a check made ahead (which asks for the definition then)."""
        key = (report.path, evidence)
        if key in self._pin_results or self.results.has(self._pin_key(binding, evidence)):
            return self.pin_result(report, evidence)
        if key not in self._checked_ahead:
            try:
                self._checked_ahead[key] = self._check_pinned(binding, evidence, binding.store.snapshot(binding.pin),
                                                              with_symbol=False)
            except RepoError:
                return None  # its own item says which object is missing
        return self._checked_ahead[key]

    def timing_json(self) -> dict:
        """Per-phase seconds of this process. ``git`` (commands and blob reads) and
        ``tree_sitter`` are also inside the phases that caused them."""
        phases = Timing(defaultdict(float, self.timing.phases))
        phases.add("git", sum(s.git_seconds for s in self._stores.values() if isinstance(s, GitStore)))
        phases.add("tree_sitter", symbols.stats().seconds)
        # Counts, not seconds: what the result cache answered and what git had to read.
        phases.add("blobs_read", sum(s.blobs_read for s in self._stores.values() if isinstance(s, GitStore)))
        phases.add("git_processes", sum(s.git_processes for s in self._stores.values() if isinstance(s, GitStore)))
        if self._worker.started:
            # Also inside "matching": the worker's own time is on another core.
            phases.add("waiting_on_worker", self._worker.waited)
        if self.results.enabled:
            phases.add("results_cached", self.results.hits)
            phases.add("results_computed", self.results.misses)
        return phases.as_json()

    def _announce(self, message: str) -> None:
        if self.progress is not None:
            self.progress(message)

    def close(self) -> None:
        self._worker.close()
        for store in self._stores.values():
            if isinstance(store, GitStore):
                store.close()
        self._stores.clear()
        # pytest collects garbage several times after the run (its unraisable-exception
        # cleanup): what the run no longer needs should not be walked each time.
        for cache in (self._pin_results, self._drift_results, self._pin_keys, self._evidence_keys, self._checked_ahead,
                      self._tree_indexes, self._predicate_results):
            cache.clear()
        self.results.release()
        text.release_caches()
