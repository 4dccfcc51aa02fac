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

from .dialects import claims as claims_mod
from .checks import clones, drift, predicates, symbolrefs, verify
from .text import symbols
from .dialects.claims import ClaimsError, ClaimsFile, Observation, Predicate
from .dialects import ReportError, parse_report, read_report
from .dialects.tables import BASENAME
from .gitstore import GitStore, RepoError, RevisionError
from .model import Evidence, EvidenceKind, Report, Source
from .options import AGAINST_NONE, AGAINST_WORKTREE, RunOptions
from .resultcache import ResultCache, encode, evidence_key

class _Unkept(Exception):
    """A result that depends on git failing to read something: used this run, never kept."""

    def __init__(self, result) -> None:
        super().__init__()
        self.result = result

@dataclass(frozen=True)
class Binding:
    """Where one source of one report is checked: a repository and a resolved pin.

    When the source cannot be checked, ``store`` or ``pin`` is ``None`` and
    ``problem`` says why in one line (``pin_status`` is then
    ``missing-commit`` or ``unpinned``; ``no-repo`` when the repository
    itself is unavailable).
    """

    source_id: str
    store: GitStore | None
    pin: str | None
    pin_status: str
    problem: str | None = None
    repo_label: str = ""
    stated_pin: str | None = None
    line: int | None = None


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


@dataclass(frozen=True)
class ReportClaims:
    """The executable claims of one report: predicates and observations by record.

    ``files`` are the claims files that apply; ``errors`` are one-line
    messages for claims input that could not be loaded.
    """

    files: tuple[ClaimsFile, ...] = ()
    predicates: dict = field(default_factory=dict)
    observations: dict = field(default_factory=dict)
    errors: tuple[str, ...] = ()

    def source(self, source_id: str | None):
        for claims_file in self.files:
            found = claims_file.source(source_id or "SRC-1")
            if found is not None:
                return found
        return None


class Engine:
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
        self._report_paths: dict[Path, frozenset[str]] = {}
        #: (repository, pin) whose cited files were read ahead in one batch
        self._prefetched: set = set()
        #: (repository, pin, against) pairs drift has started on: announced, and
        #: their quotes handed to drift's tree search
        self._drift_started: set = set()
        #: (repository, revisions) whose missing objects a source item has warned about
        self._incomplete_said: set = set()
        #: where long-running steps are announced (the plugin points it at the terminal)
        self.progress = None
        #: each report's bytes as parsed, so a rewrite can refuse a report changed since
        self.report_bytes: dict[str, bytes] = {}
        #: results kept across runs (:mod:`.resultcache`); the plugin sets it from pytest's cache
        self.results = ResultCache(None)

    @property
    def drift_enabled(self) -> bool:
        return self.options.against.lower() != AGAINST_NONE

    # -- reports ---------------------------------------------------------
    def report(self, path: Path) -> Report:
        """Read and parse a report once; raises :class:`ReportError` for bad input."""
        key = Path(path).resolve()
        cached = self._reports.get(key)
        if cached is None:
            start = time.perf_counter()
            text, read_findings = read_report(key)
            cached = parse_report(self.display_path(key), text, self.options.dialect)
            if read_findings:
                # An empty report or a control character is a structural finding
                # (the structure item fails), not something to drop.
                cached = replace(cached, findings=tuple(read_findings) + cached.findings)
            try:
                self.report_bytes[cached.path] = key.read_bytes()
            except OSError:
                pass
            self.timing.add("parse", time.perf_counter() - start)
            self._reports[key] = cached
        return cached

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

    # -- targets ---------------------------------------------------------
    def store_for(self, report: Report, source_id: str | None) -> GitStore:
        """The target repository of a source; raises :class:`RepoError`."""
        repo_path = self._repo_path(report, source_id)
        key = repo_path.resolve()
        store = self._stores.get(key)
        if store is None:
            try:
                store = GitStore.open(repo_path, max_file_bytes=self.options.max_file_bytes)
            except RepoError as exc:
                store = exc
            self._stores[key] = store
        if isinstance(store, RepoError):
            raise store
        return store

    def _repo_path(self, report: Report, source_id: str | None) -> Path:
        repos = self.options.repos
        if source_id is not None and source_id in repos:
            return Path(repos[source_id])
        claimed = self.claims_for(report).source(source_id)
        if claimed is not None and claimed.repo_path is not None and None not in repos:
            return claimed.repo_path
        if self.is_unmapped(report, source_id):
            # A link to another repository (owner/name) needs its own mapping.
            raise RepoError(
                f"{report.path}: no local clone for {source_id}; give --memreport-repo {source_id}=PATH"
            )
        if None in repos:
            return Path(repos[None])
        return self.report_file(report).resolve().parent

    def is_unmapped(self, report: Report, source_id: str | None) -> bool:
        """A repository named by URL (``owner/name``) that nothing maps to a local clone."""
        if source_id is None or "/" not in source_id or source_id in self.options.repos:
            return False
        if None in self.options.repos:
            return False
        claimed = self.claims_for(report).source(source_id)
        return claimed is None or claimed.repo_path is None

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
        stated = own_pin or pins.get(sid) or pins.get(None) or claimed_pin or source.pin
        try:
            store = self.store_for(report, source_id)
        except RepoError as exc:
            return Binding(sid, None, None, "no-repo", str(exc), stated_pin=stated, line=source.line)
        label = str(store.path)
        if stated is None:
            where = f"{report.path}:{source.line}" if source.line else report.path
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
            where = f"{report.path}:{source.line}" if source.line else report.path
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
                snapshot.prefetch(other.path for _, other in self._cited_at(binding)
                                  if not self.results.has(self._pin_key(binding, other)))
            try:
                if evidence.kind is EvidenceKind.SYMBOL:
                    result = symbolrefs.at_pin(evidence, snapshot)
                else:
                    result = verify.check_at_pin(evidence, snapshot, with_symbol=self.options.want_symbols)
            except RepoError as exc:  # a missing or corrupt object: this evidence cannot be read
                result = verify.PinResult(verify.UNREADABLE, binding.pin, evidence.path, message=str(exc))
            if result.status in (verify.MISSING, verify.FILE_MISSING) and evidence.kind is EvidenceKind.QUOTE:
                result = drift.search.with_found_instead(evidence, snapshot, result)
            self.timing.add("matching", time.perf_counter() - start)
            self.results.put(self._pin_key(binding, evidence), result)
        self._pin_results[key] = result
        return result

    def checkable(self, report: Report, evidence: tuple[Evidence, ...]) -> list[Evidence]:
        """The evidence that becomes items: proposed symbol references only when,
        at the pin, they name a definition in a file their context cites."""
        out = []
        for item in evidence:
            if self.is_unmapped(report, item.source):
                continue  # one skipped source item says which option to give
            if item.label == BASENAME and "/" not in item.path:
                out.append(self._resolve_basename(report, item))
                continue
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
        return out

    def _resolve_basename(self, report: Report, evidence: Evidence) -> Evidence:
        """A bare file name (``retry_timer.ts:313``) bound to the one file of the pinned
        tree it names; several candidates are remembered so the pin check can list them."""
        binding = self.binding(report, evidence.source, evidence.pin)
        if binding.pin is None:
            return evidence
        files = binding.store.snapshot(binding.pin).files()
        if evidence.path in files:  # a top-level file spelled exactly
            return evidence
        candidates = [f for f in files if f.rsplit("/", 1)[-1] == evidence.path]
        if len(candidates) == 1:
            # ``text`` keeps the name as written: results find the evidence by it.
            return replace(evidence, path=candidates[0], text=evidence.text or evidence.path)
        if candidates:
            self._ambiguous[(report.path, evidence)] = candidates
        return evidence

    # -- claims ----------------------------------------------------------
    def _claims_file(self, path: Path) -> ClaimsFile | ClaimsError | None:
        key = Path(path).resolve()
        if key not in self._claims_files:
            try:
                self._claims_files[key] = claims_mod.load_claims(path)
            except ClaimsError as exc:
                self._claims_files[key] = exc
        return self._claims_files[key]

    def claims_for(self, report: Report) -> ReportClaims:
        """Predicates and observations for the records ``report`` declares.

        Claims come from the report's own ``<stem>.claims.yaml``, from files
        named with ``--memreport-claims`` (each record goes to the report that
        declares it) and from inline ```memreport blocks.
        """
        cached = self._report_claims.get(report.path)
        if cached is not None:
            return cached
        files: list[ClaimsFile] = []
        errors: list[str] = []
        beside = claims_mod.claims_path_for(self.report_file(report))
        candidates = ([beside] if beside.is_file() else []) + [Path(p) for p in self.options.claims]
        for path in candidates:
            loaded = self._claims_file(path)
            if isinstance(loaded, ClaimsError):
                if path == beside or not any(str(path) in e for e in errors):
                    errors.append(loaded.message)
            elif loaded is not None and loaded not in files:
                files.append(loaded)
        declared = {r.id for r in report.records if not r.is_annotation}
        preds: dict[str, list[Predicate]] = {}
        observations: dict[str, list[Observation]] = {}
        for claims_file in files:
            for rid, record_claims in claims_file.records.items():
                if rid in declared:
                    preds.setdefault(rid, []).extend(record_claims.predicates)
                    observations.setdefault(rid, []).extend(record_claims.observations)
        try:
            for rid, inline in claims_mod.inline_predicates(report).items():
                preds.setdefault(rid, []).extend(inline)
        except ClaimsError as exc:
            errors.append(exc.message)
        result = ReportClaims(
            tuple(files),
            {k: tuple(v) for k, v in preds.items()},
            {k: tuple(v) for k, v in observations.items()},
            tuple(errors),
        )
        self._report_claims[report.path] = result
        return result

    def predicate_result(self, report: Report, predicate: Predicate, at_against: bool = False):
        """A predicate evaluated at the pin, or at the against-revision.

        Returns ``(result, problem)``: ``problem`` is a one-line reason when
        the revision cannot be checked (then ``result`` is ``None``).
        """
        key = (report.path, predicate, at_against)
        if key in self._predicate_results:
            return self._predicate_results[key]
        binding = self.binding(report, predicate.source)
        answer: tuple = (None, binding.problem)
        if binding.pin is not None:
            rev = binding.pin
            problem = None
            if at_against:
                try:
                    rev = self.against_rev(binding.store)
                except RevisionError as exc:
                    rev, problem = None, str(exc)
            if rev is not None:
                cache_key = self.results.key("predicate", rev, self.options.max_file_bytes, encode(predicate))
                result = self.results.get(cache_key, ResultCache.MISS)
                if result is ResultCache.MISS:
                    start = time.perf_counter()
                    try:
                        result = predicates.evaluate(predicate, binding.store.snapshot(rev))
                    except RepoError as exc:
                        # The search could not run: an error, never a pass (an absence over
                        # files that could not be read proves nothing).
                        result = predicates.PredicateResult(False, f"the search could not run: {exc}", error=True)
                    self.timing.add("predicates", time.perf_counter() - start)
                    if not result.error:  # a search that could not run may run next time
                        self.results.put(cache_key, result)
                answer = (result, None)
            else:
                answer = (None, problem)
        self._predicate_results[key] = answer
        return answer

    # -- observations ----------------------------------------------------
    def observation_result(self, report: Report, record, observation):
        """Run one observation at the record's pin (once per process); ``(result, problem)``."""
        from .checks import observe

        key = (report.path, observation)
        if key in self._observations:
            return self._observations[key]
        binding = self.binding(report, None)
        if binding.pin is None:
            answer = (None, binding.problem)
        else:
            quoted = []
            for evidence in record.evidence:
                pin = self.pin_result(report, evidence)
                if pin.ok and pin.lines is not None and evidence.kind.value in ("quote", "lines"):
                    quoted.append((pin.path, pin.lines))
            self._announce(
                f"memreport: running observation `{observe.display_command(observation.run)}` "
                f"for {record.id} at {binding.pin[:12]} (timeout {observation.timeout:g} s)"
            )
            start = time.perf_counter()
            answer = (observe.run_observation(observation, binding.store, binding.pin, quoted), None)
            self.timing.add("observations", time.perf_counter() - start)
        self._observations[key] = answer
        return answer

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
                                                reports=self._reports_inside(binding.store))
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
        return self.results.key("pin", binding.pin, evidence_key(evidence), self.options.want_symbols,
                                self.options.max_file_bytes)

    def _drift_key(self, binding: Binding, evidence: Evidence) -> str | None:
        """Drift's key: the pin's inputs and the against commit (none for the working tree)."""
        if not self.drift_enabled or binding.store is None or binding.pin is None:
            return None
        try:
            against = self.against_rev(binding.store)
        except RevisionError:
            return None
        if against == AGAINST_WORKTREE:
            return None  # the working tree has no id that says it did not change
        return self.results.key("drift", binding.pin, against, evidence_key(evidence), self.options.want_symbols,
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

    def _cited_at(self, binding: Binding):
        """``(report, evidence)`` of every loaded report's quotations and cited
        lines checked in ``binding``'s repository at its pin."""
        for report in self.loaded_reports():
            for evidence in report.all_evidence():
                if evidence.kind not in (EvidenceKind.QUOTE, EvidenceKind.LINES):
                    continue
                other = self.binding(report, evidence.source, evidence.pin)
                if other.store is binding.store and other.pin == binding.pin:
                    yield report, evidence

    def _quotes_pinned_at(self, binding: Binding):
        """``(evidence, quote text)`` of :meth:`_cited_at`: quotations as written,
        cited lines as recorded at the pin (read only in files changed since)."""
        against = self.against_rev(binding.store)
        changed = None
        for report, evidence in self._cited_at(binding):
            if evidence.kind is EvidenceKind.QUOTE:
                yield evidence, evidence.text or ""
                continue
            if changed is None:
                changed = binding.store.changed_paths(binding.pin, "HEAD" if against == AGAINST_WORKTREE else against)
            if evidence.path in changed or against == AGAINST_WORKTREE:
                pin = self.pin_result(report, evidence)
                if pin.ok and (pin.recorded_text or "").strip():
                    yield evidence, pin.recorded_text

    def timing_json(self) -> dict:
        """Per-phase seconds of this process. ``git`` (commands and blob reads) and
        ``tree_sitter`` are also inside the phases that caused them."""
        phases = Timing(defaultdict(float, self.timing.phases))
        phases.add("git", sum(s.git_seconds for s in self._stores.values() if isinstance(s, GitStore)))
        phases.add("tree_sitter", symbols.stats().seconds)
        # Counts, not seconds: what the result cache answered and what git had to read.
        phases.add("blobs_read", sum(s.blobs_read for s in self._stores.values() if isinstance(s, GitStore)))
        if self.results.enabled:
            phases.add("results_cached", self.results.hits)
            phases.add("results_computed", self.results.misses)
        return phases.as_json()

    def _announce(self, message: str) -> None:
        if self.progress is not None:
            self.progress(message)

    def close(self) -> None:
        for store in self._stores.values():
            if isinstance(store, GitStore):
                store.close()
        self._stores.clear()
