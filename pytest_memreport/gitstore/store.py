"""The store: one target repository opened read-only, handing out snapshots and history.

:class:`GitStore` resolves revisions and caches snapshots itself; it delegates
blob reads to :mod:`.catfile`, history to :mod:`.history` and temporary
checkouts to :mod:`.worktrees`, all running git through one :class:`~.process.GitRunner`.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..text import textfile
from ..text.textfile import TextFile
from .catfile import DEFAULT_CACHE_BYTES, BlobCache, BlobReader
from .commit import CommitSnapshot
from .errors import RepoError, RevisionError
from .history import History, LogCommit
from .hunks import Hunks, LineCounts, Patches
from .objects import HEX_OID, OBJECT_FORMATS, SHORT_HEX, object_format
from .process import GitRunner, environment, git_or_repo_error, raise_if_refused
from .snapshot import WORKTREE, Snapshot
from .workdir import WorktreeSnapshot, scratch_objects
from .worktrees import temporary_worktree

#: commit snapshots (tree listings) kept per store
_SNAPSHOT_CACHE = 64

#: the fewest hex digits read as an abbreviated object name (git's shortest default abbreviation)
_ABBREVIATION_DIGITS = 7


def _is_abbreviation(rev: str) -> bool:
    """Whether ``rev`` is written as an abbreviated object name (hex, shorter than a full id)."""
    return len(rev) >= _ABBREVIATION_DIGITS and SHORT_HEX.fullmatch(rev) is not None


class GitStore:
    """A target repository opened read-only.

    Open with :meth:`open` (cheap: one ``git rev-parse``); the persistent
    ``cat-file`` process starts on the first blob read and ends with
    :meth:`close` (or the ``with`` block).
    """

    path: Path
    is_bare: bool

    def __init__(
        self,
        path: Path,
        git_dir: Path,
        common_dir: Path,
        is_bare: bool,
        max_file_bytes: int = textfile.DEFAULT_MAX_BYTES,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
        format_name: str = "sha1",
    ) -> None:
        self.path = path
        self.git_dir = git_dir
        self.common_dir = common_dir
        self.is_bare = is_bare
        self.max_file_bytes = max_file_bytes
        self._runner = GitRunner(path, environment())
        if format_name not in OBJECT_FORMATS:
            raise RepoError(f"{path} uses the {format_name} object format, which is not supported "
                            f"(supported: {', '.join(OBJECT_FORMATS)})")
        #: ``sha1`` or ``sha256``: object ids are 40 or 64 hex digits
        self.object_format = format_name
        self._reader = BlobReader(self._runner, git_dir, max_file_bytes, cache_bytes, format_name, common_dir)
        self._history = History(self._runner, self.resolve, self.snapshot)
        self._hunks = Hunks(self._history, WORKTREE, self.disk_tree)
        self._patches = Patches(self._runner, self._history)
        self._missing: dict[tuple[str, ...], frozenset[str]] = {}
        self._cache_lock = threading.RLock()
        self._resolved: dict[str, str] = {}
        #: why a revision names no commit, by revision, and the answers to the questions that
        #: explain it (:meth:`_once`): the clone is only read, so each holds for the store's
        #: life, and the many reports pinned at a commit a stale clone lacks ask git once
        self._unresolved: dict[str, str] = {}
        self._answers: dict[tuple[str, ...], Any] = {}
        self._snapshots: OrderedDict[str, CommitSnapshot] = OrderedDict()
        self._worktree_snapshot: WorktreeSnapshot | None = None
        #: ``of`` -> {commit: whether it is ``of`` or an ancestor of it}
        self._ancestry: dict[str, dict[str, bool]] = {}

    @property
    def blobs(self) -> BlobCache:
        """Decoded files by object id, shared by all snapshots of the store."""
        return self._reader.blobs

    @property
    def git_seconds(self) -> float:
        """Seconds spent waiting on git (commands and blob reads), for the JSON timing."""
        return self._runner.seconds

    @property
    def blobs_read(self) -> int:
        """How many blobs were fetched from git (a count for the JSON timing)."""
        return self._reader.blobs_read

    @property
    def git_processes(self) -> int:
        """git processes started for this repository so far: every command (the
        ``rev-parse`` that opened it included) and every start of a persistent
        ``cat-file`` reader. What the cost bound is stated in: it grows with
        repositories, (pin, against) pairs and batches, never with evidence."""
        return self._runner.commands

    @property
    def is_shallow(self) -> bool:
        """Whether this is a shallow clone (history cut off; checked live, git keeps ``shallow``)."""
        return (self.common_dir / "shallow").exists()

    def shallow_boundary(self) -> frozenset[str]:
        """The commits whose parents a shallow clone cut off (git's ``shallow`` file); none
        when the clone is complete."""
        try:
            text = (self.common_dir / "shallow").read_text(encoding="ascii", errors="replace")
        except OSError:
            return frozenset()
        return frozenset(line for line in text.split() if HEX_OID.fullmatch(line))

    def __repr__(self) -> str:
        return f"GitStore({str(self.path)!r})"

    # -- opening and closing ---------------------------------------------------

    @classmethod
    def open(
        cls,
        path: str | Path,
        max_file_bytes: int = textfile.DEFAULT_MAX_BYTES,
        *,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
    ) -> GitStore:
        """Open the repository containing ``path`` (a work tree, any folder in it, or a bare repo).

        Raises :class:`RepoError` when ``path`` is missing, not in a repository,
        or refused by git's ``safe.directory`` ownership check.
        """
        try:
            where = Path(path).expanduser().absolute()
        except RuntimeError:  # no HOME, and a uid with no passwd entry
            raise RepoError(f"{path}: `~` cannot be expanded: there is no home directory; give an absolute path") \
                from None
        try:
            is_dir, exists = where.is_dir(), where.exists()
        except OSError as exc:  # a name too long for the file system, a loop of links
            raise RepoError(f"{where}: {(exc.strerror or str(exc)).lower()}; give the path of a clone of the "
                            "target repository") from None
        if not is_dir:
            what = "is not a folder" if exists else "does not exist"
            raise RepoError(f"{where} {what}: give the path of a clone of the target repository")
        out = git_or_repo_error(
            ["rev-parse", "--show-object-format", "--is-bare-repository", "--absolute-git-dir", "--git-common-dir",
             "--is-inside-work-tree", "--show-cdup"],
            where,
            environment(),
        )
        format_name, *lines = out.decode("utf-8", "surrogateescape").split("\n")
        is_bare = lines[0] == "true"
        git_dir = Path(lines[1])
        common_dir = (where / lines[2]).resolve()
        inside_work_tree = lines[3] == "true"
        if is_bare:
            top = git_dir
        elif inside_work_tree:
            top = (where / (lines[4] if len(lines) > 4 else "")).resolve()
        else:
            raise RepoError(
                f"{where} is inside git's own folder {git_dir}: give the work tree "
                f"({git_dir.parent}) instead"
            )
        store = cls(top, git_dir, common_dir, is_bare, max_file_bytes, cache_bytes,
                    object_format(format_name.encode()))
        store._runner.counts.processes += 1  # the rev-parse that opened it
        return store

    def located(self) -> dict[str, Any]:
        """What opening the store and resolving its revisions found, as plain data another
        process (a pytest-xdist worker) opens the same clone with, starting no git
        (:meth:`from_located`)."""
        with self._cache_lock:
            return {"path": str(self.path), "git_dir": str(self.git_dir), "common_dir": str(self.common_dir),
                    "is_bare": self.is_bare, "object_format": self.object_format,
                    "resolved": dict(self._resolved), "unresolved": dict(self._unresolved)}

    @classmethod
    def from_located(cls, facts: dict[str, Any], max_file_bytes: int = textfile.DEFAULT_MAX_BYTES, *,
                     cache_bytes: int = DEFAULT_CACHE_BYTES) -> GitStore:
        """The store :meth:`located` described, its revisions resolved as they were there."""
        store = cls(Path(facts["path"]), Path(facts["git_dir"]), Path(facts["common_dir"]), bool(facts["is_bare"]),
                    max_file_bytes, cache_bytes, facts["object_format"])
        store._resolved.update(facts["resolved"])
        store._unresolved.update(facts["unresolved"])
        return store

    def close(self) -> None:
        """End the persistent ``cat-file`` processes (the store may be used again; they restart)."""
        self._reader.close()

    def __enter__(self) -> GitStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- revisions ---------------------------------------------------------------

    def resolve(self, rev: str) -> str:
        """The full commit id ``rev`` names (short sha, branch, tag, ``HEAD``, ``main~2`` …).

        A name written in hex digits (seven or more) is an object name, never a
        ref name: git's ``rev-parse`` would prefer a tag or branch named like a
        short sha to the commit it abbreviates, so those are looked up among
        the objects themselves (:meth:`_commits_named`).

        Raises :class:`RevisionError` saying which revision, whether the clone
        is shallow and how to deepen it. Answers are cached for the store's life.
        """
        with self._cache_lock:
            known, why = self._resolved.get(rev), self._unresolved.get(rev)
        if known is not None:
            return known
        if why is not None:
            raise RevisionError(why)
        if not rev or rev.startswith("-") or any(c in rev for c in "\0\n\r"):
            raise RevisionError(f"{rev!r} is not a revision name: give a commit sha, branch or tag")
        sha = self._commit_named(rev)
        if sha is None:
            why = self._missing_revision(rev)
            with self._cache_lock:
                self._unresolved[rev] = why
            raise RevisionError(why)
        with self._cache_lock:
            self._resolved[rev] = sha
            self._resolved[sha] = sha  # a commit's full id names that commit: asked again, answered here
        return sha

    def _commit_named(self, rev: str) -> str | None:
        """The one commit ``rev`` names, or ``None`` (none, or several)."""
        if _is_abbreviation(rev):
            commits = self._commits_named(rev)
            return commits[0] if len(commits) == 1 else None
        result = self._runner.timed(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"])
        sha = result.stdout.decode("ascii", "replace").strip()
        if result.returncode != 0 or not HEX_OID.fullmatch(sha):
            raise_if_refused(result.stderr, self.path)
            return None
        return sha

    def _objects_named(self, prefix: str) -> tuple[tuple[str, str], ...]:
        """``(object id, type)`` of every object whose id begins with the hex ``prefix``
        (``rev-parse --disambiguate`` lists them, whatever refs are named)."""
        def ask() -> tuple[tuple[str, str], ...]:
            listed = self._runner.run(["rev-parse", f"--disambiguate={prefix.lower()}"], check=False)
            found = []
            for oid in listed.decode("ascii", "replace").split():
                header = self._reader.header(oid) if HEX_OID.fullmatch(oid) else None
                if header is not None:
                    found.append(header)
            return tuple(found)

        return self._once(("objects named", prefix.lower()), ask)

    def _once(self, question: tuple[str, ...], ask: Callable[[], Any]) -> Any:
        """``ask()``'s answer, asked once per store: for questions whose answer a clone
        that is only read never changes (which objects a prefix names, its newest commit,
        whether it has refs, whether it is partial)."""
        with self._cache_lock:
            if question in self._answers:
                return self._answers[question]
        answer = ask()
        with self._cache_lock:
            return self._answers.setdefault(question, answer)

    def _commits_named(self, prefix: str) -> list[str]:
        """The commits an abbreviated object name means: commits beginning with it,
        and those its annotated tags point at (as git's ``<prefix>^{commit}`` peels)."""
        commits = set()
        for oid, kind in self._objects_named(prefix):
            if kind == "commit":
                commits.add(oid)
            elif kind == "tag":
                peeled = self._reader.header(f"{oid}^{{commit}}")
                if peeled is not None:
                    commits.add(peeled[0])
        return sorted(commits)

    def object_kind(self, rev: str) -> str | None:
        """What the object a hex name means is when it is not a commit (``tree``,
        ``blob``); ``None`` for a commit, a ref name, several objects or none."""
        if not (_is_abbreviation(rev) or HEX_OID.fullmatch(rev.lower())):
            return None
        kinds = {kind for _, kind in self._objects_named(rev)}
        return kinds.pop() if len(kinds) == 1 and kinds <= {"tree", "blob"} else None

    def _missing_revision(self, rev: str) -> str:
        has_refs = self._once(("any ref",), lambda: bool(
            self._runner.run(["for-each-ref", "--count=1", "--format=%(refname)"]).strip()))
        if not has_refs and not self.has_commit("HEAD"):
            return f"revision {rev!r} cannot be resolved: {self.path} has no commits yet"
        kind = self.object_kind(rev)
        if kind is not None:
            return (f"revision {rev!r} is a {kind} in {self.path}, not a commit: give the sha of the commit "
                    f"(`git log --format='%H %T'` shows each commit beside its tree)")
        if self.is_shallow:
            return (
                f"revision {rev!r} is not in {self.path}, a shallow clone whose history is cut off: "
                f"deepen it with `git fetch --unshallow` (GitHub Actions: `fetch-depth: 0` in actions/checkout)"
            )
        if SHORT_HEX.fullmatch(rev) and len(rev) >= 7:
            return self._unknown_prefix(rev)
        short = " (a short sha may also be ambiguous: give more digits)" if SHORT_HEX.fullmatch(rev) else ""
        return (
            f"revision {rev!r} is not a commit in {self.path} (not a shallow clone): "
            f"check the revision{short}, or `git fetch` the branch or tag that contains it"
        )

    def _unknown_prefix(self, prefix: str) -> str:
        """Why an abbreviated sha names no one commit: the commits it begins (ambiguous),
        or none, with the clone's newest commit date (a clone older than the report)."""
        commits = self._commits_named(prefix)
        if len(commits) > 1:
            shown = "; ".join(f"{oid[:12]} ({self._commit_line(oid)})" for oid in commits[:6])
            more = f" and {len(commits) - 6} more" if len(commits) > 6 else ""
            return (f"revision {prefix!r} is ambiguous in {self.path}: {len(commits)} commits begin with it: "
                    f"{shown}{more}; give more digits")
        newest = self._once(("newest commit date",), lambda: self._runner.run(
            ["for-each-ref", "--count=1", "--sort=-committerdate", "--format=%(committerdate:short)"], check=False
        ).decode("utf-8", "replace").strip())
        when = f"; its newest commit is from {newest}, so the report may be newer than the clone (`git fetch`)" \
            if newest else ""
        return f"revision {prefix!r} matches no commit in {self.path}{when}; or check the revision"

    def _commit_line(self, oid: str) -> str:
        shown = self._runner.run(["log", "-1", "--no-show-signature", "--format=%cs %s", oid], check=False)
        line = shown.decode("utf-8", "replace").strip()
        return line[:80] if line else "commit"

    def commit_date(self, rev: str) -> str | None:
        """The committer date of ``rev`` (``YYYY-MM-DD``), or ``None``."""
        shown = self._runner.run(["log", "-1", "--no-show-signature", "--format=%cs", self.resolve(rev)], check=False)
        return shown.decode("ascii", "replace").strip() or None

    def has_commit(self, sha: str) -> bool:
        """Whether ``sha`` names a commit present in the object store."""
        if not sha or any(c in sha for c in "\0\n\r"):
            return False
        header = self._reader.header(sha)
        return header is not None and header[1] == "commit"

    def ancestors_among(self, of: str, commits) -> frozenset[str]:
        """Which of ``commits`` (full shas present in the clone) are ``of`` or its ancestors.

        One ``git rev-list <commits> --not <of>`` answers for all of them: a commit it
        lists is reachable from one of ``commits`` but not from ``of``, so exactly the
        commits it does not list are ancestors. Answers are cached per ``of``; a later
        call asks git only about commits not asked before.
        """
        of = self.resolve(of)
        with self._cache_lock:
            known = self._ancestry.setdefault(of, {})
            wanted = sorted({c for c in commits if c not in known})
        if wanted:
            listed = self._rev_list_not(wanted, of)
            with self._cache_lock:
                for commit in wanted:
                    known[commit] = commit not in listed
        return frozenset(c for c in commits if known.get(c))

    def _rev_list_not(self, commits: list[str], of: str) -> set[str]:
        """Which of ``commits`` ``git rev-list <commits> --not <of>`` lists."""
        args = ["rev-list", "--stdin"]
        result = self._runner.timed(args, stdin=("\n".join([*commits, f"^{of}"]) + "\n").encode("ascii"))
        if result.returncode != 0:
            raise self._runner.failure(args, result)
        wanted = set(commits)
        return {line for line in result.stdout.decode("ascii", "replace").split() if line in wanted}

    # -- snapshots -----------------------------------------------------------------

    def snapshot(self, rev: str) -> Snapshot:
        """The files at ``rev`` (cached per commit); ``"worktree"`` gives the working tree on disk."""
        if rev == WORKTREE:
            if self.is_bare:
                raise RepoError(
                    f"{self.path} is a bare repository and has no working tree: give a commit instead of 'worktree'"
                )
            with self._cache_lock:
                if self._worktree_snapshot is None:
                    self._worktree_snapshot = WorktreeSnapshot(self._runner, self._reader, self.git_dir)
                return self._worktree_snapshot
        sha = self.resolve(rev)
        with self._cache_lock:
            found = self._snapshots.get(sha)
            if found is None:
                found = self._snapshots[sha] = CommitSnapshot(self._runner, self._reader, sha)
                while len(self._snapshots) > _SNAPSHOT_CACHE:
                    self._snapshots.popitem(last=False)
            else:
                self._snapshots.move_to_end(sha)
            return found

    @contextlib.contextmanager
    def disk_tree(self) -> Iterator[tuple[GitRunner, str]]:
        """A runner and the id of a tree holding the tracked files as they are on disk,
        written into a scratch object folder that runner reads (and nothing else
        does); the folder is removed on exit. git diffs it against a commit without
        reading the working tree (see :meth:`WorktreeSnapshot.write_tree`)."""
        disk = self.snapshot(WORKTREE)
        assert isinstance(disk, WorktreeSnapshot)
        with scratch_objects(self._runner, self.common_dir) as (runner, objects):
            yield runner, disk.write_tree(objects)

    # -- history ---------------------------------------------------------------------

    def renames(self, old: str, new: str) -> dict[str, str]:
        """Old path → new path for every rename over the whole ``old..new`` diff (see :meth:`History.renames`)."""
        return self._history.renames(old, new)

    def changed_paths(self, old: str, new: str) -> set[str]:
        """Paths whose blob (or kind) differs between the two revisions, either side (cached)."""
        return self._history.changed_paths(old, new)

    def merge_base(self, one: str, two: str) -> str | None:
        """The best common ancestor of two revisions (``git merge-base``): where a change
        from ``one`` to ``two`` started; ``None`` when the clone shows none (unrelated
        histories, or a shallow clone cut above it). One process per pair, cached."""
        pair = (self.resolve(one), self.resolve(two))

        def ask() -> str | None:
            args = ["merge-base", *pair]
            result = self._runner.timed(args)
            if result.returncode == 1:
                return None
            if result.returncode != 0:
                raise self._runner.failure(args, result)
            return result.stdout.decode("ascii", "replace").strip() or None

        return self._once(("merge-base", *pair), ask)

    def first_parent_log(self, old: str, new: str) -> tuple[LogCommit, ...]:
        """Every first-parent commit of ``old..new``, oldest first, with author, date,
        subject and raw changes (renames detected): one ``git log`` per pair, cached
        (see :meth:`History.first_parent_log`). Rename following and the blame of
        broken evidence both read it."""
        return self._history.first_parent_log(old, new)

    def file_versions(self, old: str, new: str, path: str) -> list[tuple[LogCommit, str, str | None]]:
        """The versions of the file ``old`` calls ``path`` along the pair's first-parent log
        (:meth:`History.file_versions`): the commits that changed it, its name and blob after each."""
        return self._history.file_versions(old, new, path)

    def line_counts(self, old: str, new: str, path: str, directory: bool = False) -> LineCounts | None:
        """Lines added and removed in ``path`` (a file at ``new``, or a folder's files)
        from ``old`` to ``new`` (a commit or ``"worktree"``), from git's numstat of the
        whole pair (one diff per pair, cached); ``None`` when git shows no change."""
        return self._hunks.of(old, new, path, directory)

    @property
    def skipped_paths(self) -> frozenset[str]:
        """Paths some diff or log had to leave out because the clone lacks their blobs:
        where they went (renamed, deleted) is unknown."""
        return frozenset(self._history.excluded)

    def read_blob(self, path: str, oid: str) -> TextFile:
        """The blob ``oid`` decoded as the file ``path`` (through the blob cache and the
        persistent ``cat-file``); :class:`RepoError` when the clone lacks it."""
        return self._reader.read_blob(path, oid, None)

    def missing_blobs(self, *revs: str) -> frozenset[str]:
        """The objects of the trees at ``revs`` (commits; ``"worktree"`` is skipped) the
        clone lacks, with those rename detection had to skip: one ``git rev-list
        --objects --missing=print``, cached. Never fetched (lazy fetching is off)."""
        shas = tuple(sorted({self.resolve(rev) for rev in revs if rev != WORKTREE}))
        with self._cache_lock:
            known = self._missing.get(shas)
        if known is None:
            known = (self._history.missing_objects(*shas) if shas else frozenset()) | frozenset(self._history.missing_oids)
            with self._cache_lock:
                self._missing[shas] = known
        return known

    @property
    def is_partial(self) -> bool:
        """Whether this is a partial clone (``git clone --filter``): blobs may be absent by design."""
        def ask() -> bool:
            result = self._runner.timed(["config", "--get-regexp",
                                         r"^(extensions\.partialclone|remote\..*\.promisor)$"])
            return result.returncode == 0 and any(
                not line.endswith((b" false", b" 0")) for line in result.stdout.splitlines())

        return self._once(("partial",), ask)

    def newest_commit_time(self) -> int | None:
        """The committer time (Unix seconds) of the newest commit any ref points at, or ``None``."""
        def ask() -> int | None:
            result = self._runner.timed(["for-each-ref", "--sort=-committerdate", "--count=1",
                                           "--format=%(committerdate:unix)"])
            text = result.stdout.decode("ascii", "replace").strip()
            return int(text) if result.returncode == 0 and text.isdigit() else None

        return self._once(("newest commit time",), ask)

    def expect_changes(self, old: str, new: str, paths) -> None:
        """Limit the pair's one line diff to ``paths`` (see :meth:`.hunks.Patches.expect`)."""
        self._patches.expect(old, new, paths)

    def ask_pair(self, old: str, new: str) -> None:
        """Ask git now what drift will ask of the pair first: rename detection over the
        whole diff, then the line diff of the expected files (:meth:`expect_changes`).
        Both are cached as if asked on demand; the engine asks from a thread while it
        checks the pins, so git works on another core meanwhile. Where that diff changes
        one of them, the pair's first-parent log too: what blame reads first (a changed
        file's versions), which the checks would otherwise wait for."""
        self._history.pair_diff(old, new)
        if self._patches.prepare(old, new):
            self._history.first_parent_log(old, new)

    def file_change(self, old: str, new: str, path: str):
        """``path``'s new path and git's hunks from ``old`` to ``new`` (see :meth:`.hunks.Patches.change`)."""
        return self._patches.change(old, new, path)

    def follow(self, path: str, old: str, new: str) -> str | None:
        """Where ``path`` (as of ``old``) lives at ``new``, or ``None`` when deleted (see :meth:`History.follow`)."""
        return self._history.follow(path, old, new)

    def renamed_along(self, path: str, old: str, new: str) -> str | None:
        """``path``'s own name at ``new`` by each first-parent commit's renames (see :meth:`History.renamed_along`)."""
        return self._history.renamed_along(path, old, new)

    # -- temporary worktrees --------------------------------------------------------------

    @contextlib.contextmanager
    def worktree(self, commit: str) -> Iterator[Path]:
        """A temporary detached checkout of ``commit``, removed on exit whatever happens
        (see :func:`~.worktrees.temporary_worktree`)."""
        sha = self.resolve(commit)
        with temporary_worktree(self._runner, self.common_dir, sha) as tree:
            yield tree
