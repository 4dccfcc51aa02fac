"""What a range of the target's history touches (``--memreport-affected BASE..HEAD``).

Run in a target's CI with the knowledge base checked out beside it, a run asks: which
claims of the reports about *this* repository does the change break? The answer is
limited to the range:

* **The target** is the repository the range resolves in: of the repositories the
  reports' sources map to (``--memreport-repo``, a template, the folder), the one in
  which BASE and HEAD name commits. Should BASE resolve in several (a branch name every
  clone has), the one pytest runs in is the target; otherwise BASE must be a commit id.
* **Where the evidence is located**: at the merge base of BASE and HEAD (BASE itself
  when HEAD descends from it, as a pull request's merge commit does), not at the
  report's pin. The question is whether *this change* breaks a claim: evidence is
  followed from where the change starts to where it ends, so drift, its classes and its
  blame name only the range's commits. Evidence that no longer holds at the base was
  broken before the range (the knowledge base's own run says so) and is not this
  change's doing; it is skipped with that reason.
* **What is touched**: the range's changed paths (one ``git diff-tree`` through
  :meth:`.GitStore.changed_paths`; a rename changes both names) and every folder holding
  one, against each report's cited paths in one pass: a cited file or folder, a
  quotation's or symbol's file (and the files a searched quotation may be in), a
  predicate's ``path``, or a file its ``glob`` matches. Nothing untouched is checked:
  the cost grows with the diff, not with the knowledge base.

Every source bound to the target is checked at the base (:attr:`.Bindings.range_pins`)
and drift runs against the head, so the checks themselves are a normal run's.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..checks import predicate_follow, predicates
from ..dialects import ReportError
from ..dialects.claims import Predicate
from ..errors import MemreportError
from ..gitstore import GitStore, RepoError, RevisionError
from ..gitstore.history import LogCommit
from ..model import Evidence, Report
from ..options import RunOptions
from .bindings import Bindings
from .claims import ClaimsRegistry
from .reports import ReportSet
from .repositories import TargetRepositories


class AffectedError(MemreportError):
    """The range cannot be checked (one line naming the option and what to do): a usage error."""

    code = "MR601"


@dataclass(frozen=True)
class Target:
    """The repository a range resolves in, where the range starts and ends, and what it changes.

    ``changed``: every path whose content or kind differs (a rename: both names);
    ``folders``: each folder holding one, mapped to the changed paths below it.
    """

    store: GitStore
    given: str
    base: str
    head: str
    changed: frozenset[str]
    folders: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def touches(self, path: str) -> bool:
        """Whether the range changes ``path``, a file or a folder (``.``: the whole tree)."""
        path = path.strip("/")
        if path == ".":
            return bool(self.changed)
        return path in self.changed or path in self.folders

    def under(self, folder: str) -> tuple[str, ...]:
        """The changed paths below ``folder`` (``""``: all of them)."""
        folder = folder.strip("/")
        return tuple(sorted(self.changed)) if folder in ("", ".") else self.folders.get(folder, ())

    def as_json(self) -> dict:
        return {"range": self.given, "repo": str(self.store.path), "base": self.base, "head": self.head,
                "changed_paths": len(self.changed)}


def target_of(store: GitStore, given: str, base: str, head: str) -> Target:
    """The range's :class:`Target` in ``store``: its merge base and changed paths, asked of git once."""
    base_sha, head_sha = store.resolve(base), store.resolve(head)
    start = store.merge_base(base_sha, head_sha)
    if start is None:
        raise AffectedError(f"--memreport-affected {given}: {base} and {head} share no history in {store.path}"
                            + (" (a shallow clone: check the target out with fetch-depth: 0)"
                               if store.is_shallow else ""))
    changed = frozenset(store.changed_paths(start, head_sha))
    below: dict[str, list[str]] = defaultdict(list)
    for path in changed:
        parts = path.split("/")
        for depth in range(1, len(parts)):
            below["/".join(parts[:depth])].append(path)
    return Target(store, given, start, head_sha, changed, {k: tuple(sorted(v)) for k, v in below.items()})


def _resolves(store: GitStore, rev: str) -> bool:
    try:
        store.resolve(rev)
    except (RevisionError, RepoError):
        return False
    return True


class AffectedRange:
    """The run's range: its target, and which evidence and predicates of each report it touches."""

    def __init__(self, options: RunOptions, reports: ReportSet, claims: ClaimsRegistry,
                 repositories: TargetRepositories, bindings: Bindings,
                 checkable: Callable[[Report, tuple[Evidence, ...]], list[Evidence]]) -> None:
        assert options.affected is not None
        self._options = options
        self._reports = reports
        self._claims = claims
        self._repositories = repositories
        self._bindings = bindings
        self._checkable = checkable
        self._target: Target | None = None
        self._error: AffectedError | None = None
        self._mine: dict[tuple[str, str | None], bool] = {}

    @property
    def given(self) -> str:
        base, head = self._options.affected or ("", "")
        return f"{base}..{head}"

    # -- the target -----------------------------------------------------------------------
    def target(self) -> Target:
        """The range's target, found once; raises :class:`AffectedError`."""
        if self._error is not None:
            raise self._error
        if self._target is None:
            try:
                self._target = self._find()
            except AffectedError as exc:
                self._error = exc
                raise
            # every source bound to the target is checked at the range's base
            self._bindings.range_pins[self._target.store.path] = self._target.base
        return self._target

    def found(self) -> Target | None:
        """The target, or ``None`` when the range could not be checked (said as a usage error)."""
        try:
            return self.target()
        except AffectedError:
            return None

    def _find(self) -> Target:
        base, head = self._options.affected or ("", "")
        stores: dict[Path, GitStore] = {}
        for path in self._reports.paths:
            try:
                report = self._reports.report(path)
            except ReportError:
                continue  # its item fails with the reason
            for source_id in self._sources(report):
                try:
                    store = self._repositories.store_for(report, source_id)
                except RepoError:
                    continue
                stores.setdefault(store.path, store)
        resolving = [store for store in stores.values() if _resolves(store, base) and _resolves(store, head)]
        names = ", ".join(sorted(str(p) for p in stores)) or "none could be opened"
        shallow = [s for s in stores.values() if s.is_shallow and _resolves(s, head)]
        if not resolving and len(shallow) == 1:
            raise AffectedError(f"--memreport-affected {self.given}: {base} is not in the shallow clone "
                                f"{shallow[0].path}; fetch the range's history (actions/checkout with "
                                "fetch-depth: 0, or git fetch --unshallow)")
        if not resolving:
            raise AffectedError(f"--memreport-affected {self.given}: {base} resolves in none of the reports' "
                                f"repositories ({names}); run it in the target's clone and map the reports' "
                                "repository to it (e.g. --memreport-repo owner/name=.)")
        if len(resolving) > 1:
            here = Path(self._options.rootdir).resolve()
            inside = [s for s in resolving if here.is_relative_to(Path(s.path).resolve())]
            if len(inside) != 1:
                shown = ", ".join(sorted(str(s.path) for s in resolving))
                raise AffectedError(f"--memreport-affected {self.given}: {base} resolves in several of the reports' "
                                    f"repositories ({shown}); give BASE as a commit id, or run inside the target")
            resolving = inside
        try:
            return target_of(resolving[0], self.given, base, head)
        except (RevisionError, RepoError) as exc:
            raise AffectedError(f"--memreport-affected {self.given}: {exc}") from None

    def _sources(self, report: Report) -> set[str | None]:
        found: set[str | None] = {e.source for e in report.all_evidence()}
        claims = self._claims.claims_for(report)
        default = self._claims.default_source(report)
        found |= {p.source or default for preds in claims.predicates.values() for p in preds}
        return found or {default}

    def is_target(self, report: Report, source_id: str | None) -> bool:
        """Whether ``source_id`` of ``report`` maps to the target repository."""
        key = (report.path, source_id)
        if key not in self._mine:
            try:
                store = self._repositories.store_for(report, source_id)
            except RepoError:
                self._mine[key] = False
            else:
                self._mine[key] = Path(store.path) == Path(self.target().store.path)
        return self._mine[key]

    def is_target_report(self, report: Report) -> bool:
        return any(self.is_target(report, source_id) for source_id in self._sources(report))

    # -- what the range touches -----------------------------------------------------------------
    def evidence(self, report: Report, evidence: tuple[Evidence, ...]) -> list[Evidence]:
        """The target's evidence among ``evidence`` whose cited path the range changes, as
        the run checks it (loosely written paths resolved at the base first)."""
        target = self.target()
        candidates = tuple(e for e in evidence if self.is_target(report, e.source)
                           and (e.lookup is not None or self._touched(target, e)))
        if not candidates:
            return []
        return [e for e in self._checkable(report, candidates) if self._touched(target, e)]

    @staticmethod
    def _touched(target: Target, evidence: Evidence) -> bool:
        if not evidence.path:  # a proposed symbol reference: defined in a file cited beside it
            return any(target.touches(path) for path in evidence.context)
        if target.touches(evidence.path):
            return True
        # a quotation checked in the files its row cites is touched where any of them changed
        return evidence.searched and any(target.touches(path) for path in evidence.context)

    def predicates(self, report: Report, owner: str) -> list[Predicate]:
        """The target's predicates of ``owner`` (a record ID, or the report) whose scope the range changes."""
        target = self.target()
        default = self._claims.default_source(report)
        return [p for p in self._claims.claims_for(report).predicates.get(owner, ())
                if self.is_target(report, p.source or default) and self._scope_touched(target, p)]

    @staticmethod
    def _scope_touched(target: Target, predicate: Predicate) -> bool:
        """Whether the range changes a file in the predicate's boundary (its ``path``, a file its
        ``glob`` matches, either name of a rename; without either, the whole tree)."""
        args = predicate.args
        if "path" in args:
            return target.touches(str(args["path"]))
        patterns = [str(p) for p in args.get("glob", ())]
        if not patterns:
            return bool(target.changed)
        for pattern in patterns:
            if not any(ch in pattern for ch in "*?["):
                if target.touches(pattern):
                    return True
                continue
            if any(predicates.glob_match(pattern, path) for path in target.under(predicates.literal_prefix(pattern))):
                return True
        return False

    # -- what broke a predicate ---------------------------------------------------------------
    def predicate_broken_by(self, predicate: Predicate) -> LogCommit | None:
        """The first commit of the range after which ``predicate`` no longer holds (it held at the
        base and fails at the head): a bisection over the range's commits that change its
        boundary as written or as followed to the head, each evaluated as the head is."""
        target = self.target()
        store = target.store
        followed = predicate_follow.follow(predicate, store, target.base, target.head, store.snapshot(target.head))
        scopes = [predicate, followed.predicate]
        commits = [c for c in store.first_parent_log(target.base, target.head)
                   if any(self._in_scope(scope, path) for scope in scopes for change in c.changes
                          for path in (change.old_path, change.new_path) if path)]
        low, high = 0, len(commits) - 1
        found = None
        while low <= high:
            mid = (low + high) // 2
            if self._holds_at(predicate, commits[mid].sha):
                low = mid + 1
            else:
                found, high = commits[mid], mid - 1
        return found

    def _holds_at(self, predicate: Predicate, rev: str) -> bool:
        target = self.target()
        snapshot = target.store.snapshot(rev)
        followed = predicate_follow.follow(predicate, target.store, target.base, rev, snapshot)
        return predicates.evaluate(followed.predicate, snapshot).ok

    @staticmethod
    def _in_scope(predicate: Predicate, path: str) -> bool:
        args = predicate.args
        if "path" in args:
            return path == str(args["path"]).strip("/")
        patterns = [str(p) for p in args.get("glob", ())]
        return not patterns or any(predicates.glob_match(p, path) for p in patterns)
