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
from dataclasses import dataclass, field
from pathlib import Path

from . import drift, verify
from .dialects import ReportError, parse_report, read_report
from .gitstore import GitStore, RepoError, RevisionError
from .model import Evidence, Report, Source

#: ``--memreport-against`` values that are not revisions
AGAINST_WORKTREE = "worktree"
AGAINST_NONE = "none"


@dataclass(frozen=True)
class RunOptions:
    """Everything a run is told, as plain values (parsed once by the plugin).

    In ``repos`` and ``pins`` the key ``None`` is the default for every source
    without its own entry; other keys are ``SRC-n`` ids or ``owner/name``.
    """

    repos: dict = field(default_factory=dict)
    pins: dict = field(default_factory=dict)
    against: str = "HEAD"
    dialect: str | None = None
    strict: bool = False
    max_file_bytes: int = 5 * 1024 * 1024
    rootdir: Path = Path(".")


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

    @property
    def drift_enabled(self) -> bool:
        return self.options.against.lower() != AGAINST_NONE

    # -- reports ---------------------------------------------------------
    def report(self, path: Path) -> Report:
        """Read and parse a report once; raises :class:`ReportError` for bad input."""
        path = Path(path)
        cached = self._reports.get(path)
        if cached is None:
            start = time.perf_counter()
            text, _ = read_report(path)
            cached = parse_report(str(path), text, self.options.dialect)
            self.timing.add("parse", time.perf_counter() - start)
            self._reports[path] = cached
        return cached

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
        if source_id is not None and "/" in source_id and None not in repos:
            # A link to another repository (owner/name) needs its own mapping.
            raise RepoError(
                f"{report.path}: no local clone for {source_id}; give --memreport-repo {source_id}=PATH"
            )
        if None in repos:
            return Path(repos[None])
        return Path(report.path).resolve().parent

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
        stated = own_pin or pins.get(sid) or pins.get(None) or source.pin
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
            return Binding(sid, store, None, "missing-commit", f"{where}: {exc}", label, stated, source.line)
        return Binding(sid, store, sha, "ok", None, label, stated, source.line)

    # -- checks ----------------------------------------------------------
    def pin_result(self, report: Report, evidence: Evidence) -> verify.PinResult:
        """The evidence checked at its pin (computed once per process)."""
        key = (report.path, evidence)
        cached = self._pin_results.get(key)
        if cached is not None:
            return cached
        binding = self.binding(report, evidence.source, evidence.pin)
        if binding.pin is None:
            result = verify.PinResult(
                verify.COMMIT_MISSING, binding.stated_pin or "", evidence.path, message=binding.problem or ""
            )
        else:
            start = time.perf_counter()
            snapshot = binding.store.snapshot(binding.pin)
            result = verify.check_at_pin(evidence, snapshot)
            self.timing.add("matching", time.perf_counter() - start)
        self._pin_results[key] = result
        return result

    # -- drift -----------------------------------------------------------
    def against_rev(self, store: GitStore) -> str:
        """The against-revision in ``store``: a commit sha or ``worktree``; raises RevisionError."""
        cached = self._against.get(store.path)
        if cached is None:
            wanted = self.options.against
            try:
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

    def drift_result(self, report: Report, evidence: Evidence) -> drift.DriftResult | None:
        """What became of ``evidence`` at the against-revision; ``None`` when not checkable."""
        key = (report.path, evidence)
        if key in self._drift_results:
            return self._drift_results[key]
        result = None
        pin = self.pin_result(report, evidence)
        binding = self.binding(report, evidence.source, evidence.pin)
        if pin.ok and binding.store is not None and binding.pin is not None and self.drift_enabled:
            try:
                against = self.against_rev(binding.store)
            except RevisionError:
                against = None
            if against is not None:
                start = time.perf_counter()
                snapshot = binding.store.snapshot(against)
                result = drift.classify(evidence, pin, binding.store, binding.pin, snapshot)
                self.timing.add("drift", time.perf_counter() - start)
        self._drift_results[key] = result
        return result

    def close(self) -> None:
        for store in self._stores.values():
            if isinstance(store, GitStore):
                store.close()
        self._stores.clear()
