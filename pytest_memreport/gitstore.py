"""The one door to git: revisions, batched blob reads, trees, renames, worktrees.

Everything else in pytest-memreport asks a :class:`GitStore` (one per target
repository) for :class:`Snapshot` objects and never runs git itself.

Guarantees, because the target repository belongs to the user:

* Nothing here writes to the target repository: no fetch, no gc, no index
  refresh (every command runs with ``--no-optional-locks``, automatic
  maintenance and lazy fetching of missing objects switched off). The only
  exception is :meth:`GitStore.worktree`, whose ``.git/worktrees/<name>`` admin
  entry exists while the context is open and is removed afterwards.
* Blobs are read through one persistent ``git cat-file --batch`` process
  (gitpython), never one process per file; decoded files are cached by object
  id in an LRU bounded by total bytes, shared by all snapshots of the store.
* Which files of a snapshot hold some words is one ``git grep`` for all the
  words (:meth:`Snapshot.files_with_words`), not a read of every file.
* Every snapshot lookup goes through the same path hygiene: absolute paths,
  ``..`` escaping the root, ``.git`` internals and paths that pass through a
  symlink or a submodule are refused with a one-line reason
  (:meth:`Snapshot.refuse_reason`); symlinks are never followed.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import re
import shutil
import stat
import subprocess
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import git

from .text import textfile
from .lru import SizedLRU
from .text.textfile import TextFile

#: decoded files kept in memory, by total size
DEFAULT_CACHE_BYTES = 64 * 1024 * 1024

#: commit snapshots (tree listings) kept per store
_SNAPSHOT_CACHE = 64

#: blob bytes fetched per pipelined batch when many files are read at once
_PREFETCH_BYTES = 16 * 1024 * 1024
#: git's ``-l``: how many files inexact rename detection may compare. Exact
#: renames are found regardless; git's own default (1000) misses inexact moves
#: of larger trees, a higher one costs quadratic time on huge diffs.
_RENAME_LIMIT = 4000

WORKTREE = "worktree"

# Variables that would point git at another repository, index or object store
# than the one opened (e.g. when pytest itself runs inside a git hook).
_LOCATION_VARIABLES = frozenset(
    {
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_NAMESPACE",
        "GIT_PREFIX",
        "GIT_QUARANTINE_PATH",
        "GIT_EXTERNAL_DIFF",
    }
)

# Keep git from writing anything as a side effect of reading.
_QUIET_ENVIRONMENT = {
    "GIT_OPTIONAL_LOCKS": "0",  # no opportunistic index refresh
    "GIT_TERMINAL_PROMPT": "0",  # never wait for credentials
    "GIT_NO_LAZY_FETCH": "1",  # partial clones: never fetch a missing object
    "LC_ALL": "C",  # stable, parseable error messages
    "LANGUAGE": "C",
}
_QUIET_CONFIG = ("-c", "gc.auto=0", "-c", "maintenance.auto=false", "-c", "core.fsmonitor=false")

_HEX_OID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
_SHORT_HEX = re.compile(r"[0-9a-fA-F]{4,39}")
_WINDOWS_DRIVE = re.compile(r"[A-Za-z]:")
_SAFE_DIRECTORY_HINT = re.compile(r"safe\.directory (\S[^\n]*)")

_KIND_BY_MODE = {"040000": "dir", "120000": "symlink", "160000": "submodule"}


class RepoError(Exception):
    """The target repository cannot be used; the message says which path and what to do."""


class RevisionError(Exception):
    """A revision does not name a commit in the target repository (says whether the clone is shallow)."""


@dataclass(frozen=True)
class TreeEntry:
    """One path in a snapshot: a file, directory, symlink or submodule (gitlink).

    ``oid`` is the blob, tree or submodule commit id (``""`` for directories of
    the working tree); ``size`` is the blob size in bytes, ``None`` otherwise.
    """

    path: str
    oid: str
    kind: str
    size: int | None = None


# -- path hygiene -----------------------------------------------------------------


@functools.lru_cache(maxsize=1 << 16)
def normalize_path(path: str) -> tuple[str | None, str | None]:
    """Lexically normalize a repository-relative path.

    Returns ``(normalized, None)`` or ``(None, reason)``; ``""`` is the root.
    A backslash counts as a separator, so paths cited from Windows resolve
    (git itself always stores ``/``).
    """
    if "\0" in path:
        return None, "contains a NUL character"
    path = path.replace("\\", "/")
    if path.startswith("/"):
        return None, "absolute path"
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None, "escapes the repository"
            parts.pop()
            continue
        # git refuses to track any `.git` component (case-insensitively, for
        # case-insensitive file systems); such a path can only be git's own data.
        if part.casefold() == ".git":
            return None, "git-internal path"
        parts.append(part)
    # Checked after normalizing so `a/../C:/x` is refused like `C:/x`.
    if parts and _WINDOWS_DRIVE.fullmatch(parts[0]):
        return None, "absolute path"
    return "/".join(parts), None


def _prefixes(path: str) -> Iterator[str]:
    """Every proper ancestor of ``path``: ``a/b/c`` → ``a``, ``a/b``."""
    parts = path.split("/")
    for i in range(1, len(parts)):
        yield "/".join(parts[:i])


# -- blob cache ------------------------------------------------------------------


class BlobCache(SizedLRU[TextFile]):
    """Decoded files by object id, least recently used first out, bounded by total bytes."""

    def __init__(self, max_bytes: int = DEFAULT_CACHE_BYTES) -> None:
        super().__init__(max_bytes)
        self.max_bytes = max_bytes

    @property
    def total_bytes(self) -> int:
        return self.total_weight

    def put(self, oid: str, file: TextFile) -> None:  # type: ignore[override]
        # A str costs at least one byte per character, often more; the raw size
        # is a fair lower bound and keeps the arithmetic cheap.
        weight = max(file.size, len(file.text or "")) + 64
        if weight <= self.max_bytes:
            super().put(oid, file, weight)


# -- snapshots --------------------------------------------------------------------


class Snapshot:
    """One revision's files, read lazily: a commit's tree, or the working tree.

    Paths are repository-relative with ``/`` separators. Lookups that fail the
    path hygiene return ``None``; :meth:`refuse_reason` says why.
    """

    rev: str

    def entry(self, path: str) -> TreeEntry | None:
        """What ``path`` is in this snapshot, or ``None`` (missing or refused)."""
        raise NotImplementedError

    def read(self, path: str) -> TextFile | None:
        """The file's content; ``None`` when ``path`` is not a regular file here.

        Symlinks and submodules are never followed: ``read`` returns ``None``
        and :meth:`entry` tells their kind.
        """
        raise NotImplementedError

    def files(self) -> list[str]:
        """Every regular file path, sorted."""
        raise NotImplementedError

    def read_many(self, paths: Iterable[str]) -> Iterator[tuple[str, TextFile | None]]:
        """``(path, read(path))`` for each path, in order: for reading many files at once."""
        for path in paths:
            yield path, self.read(path)

    def prefetch(self, paths: Iterable[str]) -> None:
        """Read ahead the files at ``paths`` that will be read soon, as far as
        half the blob cache holds them (a hint: nothing is said about paths
        that are not files)."""

    def refuse_reason(self, path: str) -> str | None:
        """A one-line reason this path is refused, or ``None`` when it may be looked up."""
        raise NotImplementedError

    def is_dir(self, path: str) -> bool:
        """Whether ``path`` is a directory here (``""`` is the root)."""
        found = self.entry(path)
        return found is not None and found.kind == "dir"

    exists_dir = is_dir

    def files_with_words(self, words: Collection[str]) -> dict[str, set[str]] | None:
        """For each of ``words`` (ASCII identifiers), the files holding it as a
        whole word, found by ``git grep`` in one pass over the snapshot; ``None``
        when git cannot answer (the caller then reads the files itself).

        A superset is fine for the caller, a miss is not: binary files are
        searched as text, and git's word characters (ASCII letters, digits,
        ``_``) are fewer than Python's, so its word boundaries are looser.
        """
        return self._store._grep_words(words, self._grep_scope())

    def files_with_spliced_words(self) -> set[str] | None:
        """Files where a backtick sits between word characters (`` foo`s ``):
        after rendering drops backticks, words occur there that no word search
        of the raw text finds. ``None`` when git cannot answer."""
        return self._store._grep_spliced(self._grep_scope())

    def _grep_scope(self) -> list[str]:
        raise NotImplementedError

    def oid(self, path: str) -> str | None:
        """The object id of ``path`` (blob, tree or submodule commit), or ``None``."""
        found = self.entry(path)
        return found.oid if found is not None and found.oid else None


class CommitSnapshot(Snapshot):
    """A commit's tree, listed once (``git ls-tree -r -t -z --long``) and read through the store."""

    def __init__(self, store: GitStore, sha: str) -> None:
        self.rev = sha
        self._store = store
        self._entries: dict[str, TreeEntry] | None = None
        self._looked_up: dict[str, TreeEntry | None] = {}
        self._files: list[str] | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"CommitSnapshot({self.rev[:12]} of {self._store.path})"

    def _listing(self) -> dict[str, TreeEntry]:
        with self._lock:
            if self._entries is None:
                self._entries = self._store._list_tree(self.rev)
            return self._entries

    def refuse_reason(self, path: str) -> str | None:
        clean, reason = normalize_path(path)
        if reason is not None:
            return reason
        assert clean is not None
        return self._crossing(clean, self._listing())

    @staticmethod
    def _crossing(clean: str, entries: dict[str, TreeEntry]) -> str | None:
        for prefix in _prefixes(clean):
            above = entries.get(prefix)
            if above is None:
                return None
            if above.kind == "symlink":
                return f"goes through a symlink at {prefix}"
            if above.kind == "submodule":
                return f"inside the submodule at {prefix}"
        return None

    def entry(self, path: str) -> TreeEntry | None:
        try:
            return self._looked_up[path]
        except KeyError:
            pass
        clean, reason = normalize_path(path)
        if clean is None:
            return None
        if clean == "":
            return TreeEntry("", self._store._tree_of(self.rev), "dir")
        entries = self._listing()
        found = entries.get(clean)
        if found is not None and self._crossing(clean, entries) is not None:
            found = None
        self._looked_up[path] = found  # a commit never changes: asked again, answered at once
        return found

    def read(self, path: str) -> TextFile | None:
        found = self.entry(path)
        if found is None or found.kind != "file":
            return None
        return self._store._read_blob(found.path, found.oid, found.size)

    def _grep_scope(self) -> list[str]:
        return [self.rev]

    def read_many(self, paths: Iterable[str]) -> Iterator[tuple[str, TextFile | None]]:
        # Chunk by chunk: the blobs of a chunk are fetched in one pipelined
        # batch, then read from the cache, so memory holds one chunk beyond it.
        chunk: list[str] = []
        weight, limit = 0, min(_PREFETCH_BYTES, self._store.blobs.max_bytes // 2)
        for path in paths:
            chunk.append(path)
            found = self.entry(path)
            weight += (found.size or 0) if found is not None else 0
            if weight >= limit:
                yield from self._read_chunk(chunk)
                chunk, weight = [], 0
        yield from self._read_chunk(chunk)

    def prefetch(self, paths: Iterable[str]) -> None:
        entries, weight = [], 0
        for path in dict.fromkeys(paths):
            found = self.entry(path)
            if found is None or found.kind != "file":
                continue
            weight += found.size or 0
            if weight > self._store.blobs.max_bytes // 2:
                break
            entries.append(found)
        self._store._prefetch(entries)

    def _read_chunk(self, paths: list[str]) -> Iterator[tuple[str, TextFile | None]]:
        self.prefetch(paths)  # a chunk fits half the cache: all of it is fetched
        for path in paths:
            yield path, self.read(path)

    def files(self) -> list[str]:
        entries = self._listing()
        with self._lock:
            if self._files is None:
                self._files = sorted(p for p, e in entries.items() if e.kind == "file")
            return list(self._files)


class WorktreeSnapshot(Snapshot):
    """The working tree on disk, read-only.

    Reads files under the work tree root only, never following a symlink; the
    file list (tracked plus untracked-but-not-ignored files) is taken once.
    Object ids are git blob ids computed from the bytes on disk.
    """

    def __init__(self, store: GitStore) -> None:
        self.rev = WORKTREE
        self._store = store
        self._root = store.path
        self._files: list[str] | None = None

    def __repr__(self) -> str:
        return f"WorktreeSnapshot({self._root})"

    def _locate(self, path: str) -> tuple[str | None, os.stat_result | None, str | None]:
        """``(clean path, lstat or None when missing, refusal reason)``."""
        clean, reason = normalize_path(path)
        if clean is None:
            return None, None, reason
        if clean == "":
            return clean, os.lstat(self._root), None
        for prefix in _prefixes(clean):
            try:
                above = os.lstat(self._root / prefix)
            except OSError:
                return clean, None, None
            if stat.S_ISLNK(above.st_mode):
                return clean, None, f"goes through a symlink at {prefix}"
            if not stat.S_ISDIR(above.st_mode):
                return clean, None, None
            if _is_nested_repository(self._root / prefix):
                return clean, None, f"inside the submodule at {prefix}"
        try:
            return clean, os.lstat(self._root / clean), None
        except OSError:
            return clean, None, None

    def refuse_reason(self, path: str) -> str | None:
        return self._locate(path)[2]

    def entry(self, path: str) -> TreeEntry | None:
        clean, found, _ = self._locate(path)
        if clean is None or found is None:
            return None
        mode = found.st_mode
        if stat.S_ISLNK(mode):
            target = os.fsencode(os.readlink(self._root / clean))
            return TreeEntry(clean, _blob_oid(target), "symlink", len(target))
        if stat.S_ISDIR(mode):
            if clean and _is_nested_repository(self._root / clean):
                return TreeEntry(clean, "", "submodule")
            return TreeEntry(clean, "", "dir")
        if stat.S_ISREG(mode):
            data = self._read_bytes(clean, found)
            oid = _blob_oid(data) if data is not None else ""
            return TreeEntry(clean, oid, "file", found.st_size)
        return None  # sockets, FIFOs, devices: nothing a report can quote

    def read(self, path: str) -> TextFile | None:
        clean, found, _ = self._locate(path)
        if clean is None or found is None or not stat.S_ISREG(found.st_mode):
            return None
        if found.st_size > self._store.max_file_bytes:
            return TextFile(clean, "", "too-large", size=found.st_size)
        data = self._read_bytes(clean, found)
        if data is None:
            return None
        return self._store._decode_cached(clean, _blob_oid(data), data)

    def _read_bytes(self, clean: str, found: os.stat_result) -> bytes | None:
        if found.st_size > self._store.max_file_bytes:
            return None
        # O_NOFOLLOW: should the file have become a symlink since lstat, refuse it.
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(self._root / clean, flags)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            return handle.read(self._store.max_file_bytes + 1)

    def _grep_scope(self) -> list[str]:
        return ["--untracked"]  # tracked and untracked files, ignored ones excluded (as in files())

    def files(self) -> list[str]:
        if self._files is None:
            out = self._store._run(["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
            names = {os.fsdecode(n) for n in out.split(b"\0") if n}
            kept = []
            for name in names:
                clean, found, reason = self._locate(name)
                if clean and found is not None and reason is None and stat.S_ISREG(found.st_mode):
                    kept.append(clean)
            self._files = sorted(kept)
        return list(self._files)


def _is_nested_repository(directory: Path) -> bool:
    return os.path.lexists(directory / ".git")


def _blob_oid(data: bytes) -> str:
    """git's object id for a blob with these bytes (SHA-1 object format)."""
    digest = hashlib.sha1(b"blob %d\0" % len(data))  # noqa: S324 - git's object naming, not security
    digest.update(data)
    return digest.hexdigest()


# -- the store ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Step:
    """One first-parent commit's renames and deletions (for :meth:`GitStore.follow`)."""

    sha: str
    renames: dict[str, str]
    deleted: frozenset[str]


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
    ) -> None:
        self.path = path
        self.git_dir = git_dir
        self.common_dir = common_dir
        self.is_bare = is_bare
        self.max_file_bytes = max_file_bytes
        self.blobs = BlobCache(cache_bytes)
        #: seconds spent waiting on git (commands and blob reads), for the JSON timing
        self.git_seconds = 0.0
        self._env = _environment()
        self._reader: git.Git | None = None
        self._reader_lock = threading.Lock()
        self._cache_lock = threading.RLock()
        self._resolved: dict[str, str] = {}
        self._trees: dict[str, str] = {}
        self._snapshots: OrderedDict[str, CommitSnapshot] = OrderedDict()
        self._worktree_snapshot: WorktreeSnapshot | None = None
        self._renames: dict[tuple[str, str], dict[str, str]] = {}
        self._changed: dict[tuple[str, str], frozenset[str]] = {}
        self._steps: dict[tuple[str, str], list[_Step]] = {}

    @property
    def is_shallow(self) -> bool:
        """Whether this is a shallow clone (history cut off; checked live, git keeps ``shallow``)."""
        return (self.common_dir / "shallow").exists()

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
        where = Path(path).expanduser().absolute()
        if not where.is_dir():
            what = "is not a folder" if where.exists() else "does not exist"
            raise RepoError(f"{where} {what}: give the path of a clone of the target repository")
        out = _git_or_repo_error(
            ["rev-parse", "--is-bare-repository", "--absolute-git-dir", "--git-common-dir",
             "--is-inside-work-tree", "--show-cdup"],
            where,
            _environment(),
        )
        lines = out.decode("utf-8", "surrogateescape").split("\n")
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
        return cls(top, git_dir, common_dir, is_bare, max_file_bytes, cache_bytes)

    def close(self) -> None:
        """End the persistent ``cat-file`` processes (the store may be used again; they restart)."""
        with self._reader_lock:
            if self._reader is not None:
                self._reader.clear_cache()
                self._reader = None

    def __enter__(self) -> GitStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- revisions ---------------------------------------------------------------

    def resolve(self, rev: str) -> str:
        """The full commit id ``rev`` names (short sha, branch, tag, ``HEAD``, ``main~2`` …).

        Raises :class:`RevisionError` saying which revision, whether the clone
        is shallow and how to deepen it. Answers are cached for the store's life.
        """
        with self._cache_lock:
            known = self._resolved.get(rev)
        if known is not None:
            return known
        if not rev or rev.startswith("-") or any(c in rev for c in "\0\n\r"):
            raise RevisionError(f"{rev!r} is not a revision name: give a commit sha, branch or tag")
        result = _execute(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], self.path, self._env)
        sha = result.stdout.decode("ascii", "replace").strip()
        if result.returncode != 0 or not _HEX_OID.fullmatch(sha):
            _raise_if_refused(result.stderr, self.path)
            raise RevisionError(self._missing_revision(rev))
        with self._cache_lock:
            self._resolved[rev] = sha
        return sha

    def _missing_revision(self, rev: str) -> str:
        if not self._run(["for-each-ref", "--count=1", "--format=%(refname)"]).strip() and not self.has_commit("HEAD"):
            return f"revision {rev!r} cannot be resolved: {self.path} has no commits yet"
        if self.is_shallow:
            return (
                f"revision {rev!r} is not in {self.path}, a shallow clone whose history is cut off: "
                f"deepen it with `git fetch --unshallow` (GitHub Actions: `fetch-depth: 0` in actions/checkout)"
            )
        short = " (a short sha may also be ambiguous: give more digits)" if _SHORT_HEX.fullmatch(rev) else ""
        return (
            f"revision {rev!r} is not a commit in {self.path} (not a shallow clone): "
            f"check the revision{short}, or `git fetch` the branch or tag that contains it"
        )

    def has_commit(self, sha: str) -> bool:
        """Whether ``sha`` names a commit present in the object store."""
        if not sha or any(c in sha for c in "\0\n\r"):
            return False
        header = self._header(sha)
        return header is not None and header[1] == "commit"

    def _header(self, name: str) -> tuple[str, str] | None:
        """``(object id, type)`` from the persistent ``cat-file --batch-check``, or ``None`` when missing."""
        with self._reader_lock:
            try:
                oid, kind, _ = self._git().get_object_header(name)
            except ValueError:
                return None
            except OSError:
                # The process died (killed, broken pipe): restart it on the next call.
                self._git().clear_cache()
                return None
        return _text(oid), _text(kind)

    def _tree_of(self, sha: str) -> str:
        with self._cache_lock:
            known = self._trees.get(sha)
        if known is None:
            header = self._header(f"{sha}^{{tree}}")
            if header is None:
                raise RepoError(f"{self.path}: cannot read the tree of commit {sha[:12]}")
            known = header[0]
            with self._cache_lock:
                self._trees[sha] = known
        return known

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
                    self._worktree_snapshot = WorktreeSnapshot(self)
                return self._worktree_snapshot
        sha = self.resolve(rev)
        with self._cache_lock:
            found = self._snapshots.get(sha)
            if found is None:
                found = self._snapshots[sha] = CommitSnapshot(self, sha)
                while len(self._snapshots) > _SNAPSHOT_CACHE:
                    self._snapshots.popitem(last=False)
            else:
                self._snapshots.move_to_end(sha)
            return found

    def _list_tree(self, sha: str) -> dict[str, TreeEntry]:
        out = self._run(["ls-tree", "-r", "-t", "-z", "--long", "--full-tree", sha])
        entries: dict[str, TreeEntry] = {}
        for record in out.split(b"\0"):
            if not record:
                continue
            meta, _, raw_path = record.partition(b"\t")
            mode, _kind, oid, size = meta.decode("ascii").split()
            path = os.fsdecode(raw_path)
            kind = _KIND_BY_MODE.get(mode, "file")
            # git prints "BAD" for a blob it cannot unpack (a corrupt object):
            # keep the entry; reading it raises RepoError with the remedy.
            entries[path] = TreeEntry(path, oid, kind, int(size) if size.isdigit() else None)
        return entries

    # -- blobs ----------------------------------------------------------------------

    def _git(self) -> git.Git:
        """The gitpython handle owning the persistent ``cat-file`` processes (call under the reader lock)."""
        if self._reader is None:
            reader = git.Git(str(self.path))
            # GIT_DIR pins the persistent process to this repository whatever
            # the surrounding environment says.
            reader.update_environment(GIT_DIR=str(self.git_dir), **_QUIET_ENVIRONMENT)
            self._reader = reader
        return self._reader

    def _read_blob(self, path: str, oid: str, size: int | None) -> TextFile:
        cached = self.blobs.get(oid)
        if cached is not None:
            return cached if cached.path == path else replace(cached, path=path)
        if size is not None and size > self.max_file_bytes:
            # Decided from the tree listing: a huge blob is never loaded.
            return TextFile(path, oid, "too-large", size=size)
        with self._reader_lock:
            began = time.perf_counter()
            try:
                _, kind, _, data = self._git().get_object_data(oid)
            except (ValueError, OSError) as err:
                # A dead or confused process must not poison later reads.
                if self._reader is not None:
                    self._reader.clear_cache()
                why = ("git cannot read the object" if isinstance(err, ValueError)
                       else (str(err).splitlines() or [type(err).__name__])[0])
                raise RepoError(
                    f"{self.path}: cannot read {path} (object {oid[:12]}): {why}; it is missing or corrupt: "
                    f"`git fsck` in the repository names damaged objects (a partial clone may lack it: `git fetch`)"
                ) from None
            finally:
                self.git_seconds += time.perf_counter() - began
        if _text(kind) != "blob":
            raise RepoError(f"{self.path}: {path} is a {_text(kind)}, not a file (object {oid[:12]})")
        return self._decode_cached(path, oid, data)

    def _prefetch(self, entries: list[TreeEntry]) -> None:
        """Fetch the blobs of ``entries`` that are not cached in one ``git cat-file
        --batch`` run: the requests are pipelined, where the persistent reader
        answers one at a time. Whatever it cannot fetch is left to :meth:`_read_blob`,
        which says what is wrong."""
        wanted = {e.oid: e.path for e in entries
                  if self.blobs.get(e.oid) is None and (e.size is None or e.size <= self.max_file_bytes)}
        if len(wanted) < 2:
            return
        began = time.perf_counter()
        result = _execute(["cat-file", "--batch"], self.path, self._env,
                          stdin=b"".join(oid.encode("ascii") + b"\n" for oid in wanted))
        self.git_seconds += time.perf_counter() - began
        out, pos = result.stdout, 0
        for oid, path in wanted.items():
            end = out.find(b"\n", pos)
            if end < 0:
                return
            header = out[pos:end].split()
            pos = end + 1
            if len(header) != 3 or header[1] != b"blob":
                continue  # missing, or not a blob: the one-by-one read reports it
            size = int(header[2])
            self._decode_cached(path, oid, out[pos : pos + size])
            pos += size + 1

    def _decode_cached(self, path: str, oid: str, data: bytes) -> TextFile:
        cached = self.blobs.get(oid)
        if cached is not None:
            return cached if cached.path == path else replace(cached, path=path)
        decoded = textfile.decode(path, oid, data, self.max_file_bytes)
        self.blobs.put(oid, decoded)
        return decoded

    # -- diffs --------------------------------------------------------------------------

    def renames(self, old: str, new: str) -> dict[str, str]:
        """Old path → new path for every rename over the whole ``old..new`` diff (cached).

        Rename detection pairs files down to git's default 50% similarity, so
        moved-and-edited files and whole trees moved under a new folder are found.
        """
        key = (self.resolve(old), self.resolve(new))
        with self._cache_lock:
            known = self._renames.get(key)
        if known is None:
            out = self._run(
                ["diff-tree", "-r", "-z", "--no-ext-diff", "-M", f"-l{_RENAME_LIMIT}",
                 "--diff-filter=R", "--name-status", *key]
            )
            known = {}
            tokens = out.split(b"\0")
            i = 0
            while i + 2 < len(tokens):
                if tokens[i].startswith(b"R"):
                    known[os.fsdecode(tokens[i + 1])] = os.fsdecode(tokens[i + 2])
                    i += 3
                else:
                    i += 1
            with self._cache_lock:
                self._renames[key] = known
        return dict(known)

    def changed_paths(self, old: str, new: str) -> set[str]:
        """Paths whose blob (or kind) differs between the two revisions, either side (cached)."""
        key = (self.resolve(old), self.resolve(new))
        with self._cache_lock:
            known = self._changed.get(key)
        if known is None:
            out = self._run(["diff-tree", "-r", "-z", "--no-ext-diff", "--no-renames", "--name-only", *key])
            known = frozenset(os.fsdecode(p) for p in out.split(b"\0") if p)
            with self._cache_lock:
                self._changed[key] = known
        return set(known)

    def follow(self, path: str, old: str, new: str) -> str | None:
        """Where ``path`` (as of ``old``) lives at ``new``, or ``None`` when it was deleted.

        The whole-diff rename map answers first. Only when it says the file is
        gone are the first-parent commits ``old..new`` walked, each with its own
        rename map, so a file moved almost unchanged and rewritten later is
        still found.
        """
        old_sha, new_sha = self.resolve(old), self.resolve(new)
        clean, _ = normalize_path(path)
        if not clean:
            return None
        moved = self.renames(old_sha, new_sha).get(clean)
        if moved is not None:
            return moved
        later = self.snapshot(new_sha)
        if later.entry(clean) is not None:
            return clean
        if self.snapshot(old_sha).entry(clean) is None:
            return None  # not there to begin with: nothing to follow
        current = clean
        for step in self._first_parent_steps(old_sha, new_sha):
            if current in step.renames:
                current = step.renames[current]
            elif current in step.deleted:
                return None
        return current if later.entry(current) is not None else None

    def _first_parent_steps(self, old: str, new: str) -> list[_Step]:
        """Each first-parent commit of ``old..new`` (oldest first) with its renames and deletions: one ``git log``."""
        key = (old, new)
        with self._cache_lock:
            known = self._steps.get(key)
        if known is not None:
            return known
        out = self._run(
            ["log", "--first-parent", "-m", "--reverse", "--no-show-signature", "--no-ext-diff",
             "--format=@%H", "-z", "-M", f"-l{_RENAME_LIMIT}", "--diff-filter=DR", "--name-status",
             f"{old}..{new}"]
        )
        steps: list[_Step] = []
        sha = ""
        renames: dict[str, str] = {}
        deleted: set[str] = set()
        tokens = out.split(b"\0")
        i = 0
        while i < len(tokens):
            # Headers and status letters follow a newline in git's -z log output;
            # paths are taken by position, so no path is ever read as a header.
            token = tokens[i].lstrip(b"\n")
            if token.startswith(b"@"):
                if sha:
                    steps.append(_Step(sha, renames, frozenset(deleted)))
                sha, renames, deleted = token[1:].decode("ascii"), {}, set()
                i += 1
            elif token.startswith(b"R") and i + 2 < len(tokens):
                renames[os.fsdecode(tokens[i + 1])] = os.fsdecode(tokens[i + 2])
                i += 3
            elif token.startswith(b"D") and i + 1 < len(tokens):
                deleted.add(os.fsdecode(tokens[i + 1]))
                i += 2
            else:
                i += 1
        if sha:
            steps.append(_Step(sha, renames, frozenset(deleted)))
        with self._cache_lock:
            self._steps[key] = steps
        return steps

    # -- temporary worktrees --------------------------------------------------------------

    @contextlib.contextmanager
    def worktree(self, commit: str) -> Iterator[Path]:
        """A temporary detached checkout of ``commit``, removed on exit whatever happens.

        Uses ``git worktree add --detach`` (works for bare repositories too);
        the main working tree, index and branches are never touched. Hooks are
        switched off so checking out runs nothing from the target. On exit the
        worktree and only its own ``worktrees/<name>`` admin entry are removed.
        """
        sha = self.resolve(commit)
        base = Path(tempfile.mkdtemp(prefix="memreport-worktree-")).resolve()
        tree = base / "tree"
        no_hooks = base / "no-hooks"
        no_hooks.mkdir()
        try:
            self._run(["-c", f"core.hooksPath={no_hooks}", "worktree", "add", "--detach", "--quiet", str(tree), sha])
            yield tree
        finally:
            self._remove_worktree(tree, base)

    def _remove_worktree(self, tree: Path, base: Path) -> None:
        interrupted: BaseException | None = None
        try:
            if tree.exists():
                self._run(["worktree", "remove", "--force", "--force", str(tree)], check=False)
        except BaseException as err:  # noqa: BLE001 - finish cleaning up, then re-raise
            interrupted = err
        # Whatever git managed, drop our admin entry (and only ours) and the folder.
        admin_root = self.common_dir / "worktrees"
        ours = str(tree / ".git")
        if admin_root.is_dir():
            for admin in admin_root.iterdir():
                try:
                    points_to = (admin / "gitdir").read_text(encoding="utf-8", errors="replace").strip()
                except OSError:
                    continue
                if points_to == ours:
                    shutil.rmtree(admin, ignore_errors=True)
            with contextlib.suppress(OSError):
                admin_root.rmdir()  # only succeeds when empty, as git itself does
        shutil.rmtree(base, ignore_errors=True)
        if interrupted is not None:
            raise interrupted

    # -- searching -----------------------------------------------------------------------

    def _grep_words(self, words: Collection[str], scope: list[str]) -> dict[str, set[str]] | None:
        """``git grep -w -o`` for many words at once: one alternation is one pass
        over the files (one ``-e`` per word would be one pass per word)."""
        found: dict[str, set[str]] = {word: set() for word in words}
        if not found:
            return found
        for chunk in _word_chunks(sorted(found)):
            patterns = [arg for alternation in chunk for arg in ("-e", f"({alternation})")]
            out = self._grep([*_GREP_WORDS, *patterns], scope)
            if out is None:
                return None
            for path, word in set(_path_word_pairs(out)):  # every occurrence is a pair; one per file counts
                found.setdefault(word.decode("ascii"), set()).add(self._grep_path(path, scope))
        return found

    def _grep_spliced(self, scope: list[str]) -> set[str] | None:
        # The lines holding a backtick, tested here: a fixed string is one fast
        # pass, where git's regex engine is several times slower on a class.
        # (A path with a newline in it is misread here: such a file is then
        # only searched when its words are, which fails safe.)
        out = self._grep(["-z", "-a", "-F", "-e", "`"], scope)
        if out is None:
            return None
        spliced = set()
        for line in out.split(b"\n"):
            path, _, content = line.partition(b"\0")
            if path and _SPLICED_WORD.search(content):
                spliced.add(self._grep_path(path, scope))
        return spliced

    def _grep(self, args: list[str], scope: list[str]) -> bytes | None:
        """``git grep`` output; ``b""`` when nothing matched, ``None`` when git failed
        (e.g. a partial clone lacking blobs, which grep must not fetch)."""
        began = time.perf_counter()
        result = _execute(["grep", "--no-color", "--no-line-number", "--no-column", "--full-name", *args, *scope],
                          self.path, self._env)
        self.git_seconds += time.perf_counter() - began
        if result.returncode == 1 and not result.stderr:
            return b""
        return result.stdout if result.returncode == 0 else None

    @staticmethod
    def _grep_path(raw: bytes, scope: list[str]) -> str:
        """A repository path from a grep line (``<sha>:`` prefixed for a commit)."""
        if scope and scope[0] != "--untracked":
            raw = raw[len(scope[0]) + 1 :]
        return os.fsdecode(raw)

    # -- running git ------------------------------------------------------------------------

    def _run(self, args: list[str], check: bool = True) -> bytes:
        """Run one git command in the repository; stdout bytes, or :class:`RepoError` on failure."""
        began = time.perf_counter()
        result = _execute(args, self.path, self._env)
        self.git_seconds += time.perf_counter() - began
        if check and result.returncode != 0:
            _raise_if_refused(result.stderr, self.path)
            message = result.stderr.decode("utf-8", "replace").strip().splitlines()
            raise RepoError(
                f"{self.path}: `git {args[0] if args[0] != '-c' else args[2]}` failed: "
                f"{message[0] if message else 'exit status ' + str(result.returncode)}"
            )
        return result.stdout


#: whole words, only the matched word printed: ``<path>\0<word>`` per occurrence
_GREP_WORDS = ("-E", "-w", "-o", "-z", "-a")
#: a backtick between word characters (git's, which are ASCII)
_SPLICED_WORD = re.compile(rb"[A-Za-z0-9_]`+[A-Za-z0-9_]")
#: alternations per ``-e`` and per process stay well under the kernel's limits
#: on one argument (128 KiB) and on all of them
_GREP_ALTERNATION_CHARS = 60_000
_GREP_PROCESS_CHARS = 600_000


def _path_word_pairs(out: bytes) -> Iterator[tuple[bytes, bytes]]:
    """``(path, word)`` from ``git grep -z -o`` output, ``path\0word\n`` per
    match. A path may hold a newline (``-z`` does not quote it); a word never
    does, so each field after a NUL is the word up to its first newline, then
    the next path."""
    fields = out.split(b"\0")
    path = fields[0]
    for field in fields[1:]:
        word, _, rest = field.partition(b"\n")
        if path and word:
            yield path, word
        path = rest


def _word_chunks(words: list[str]) -> Iterator[list[str]]:
    """``a|b|c`` alternations, grouped so that each group fits one ``git grep``."""
    group: list[str] = []
    current: list[str] = []
    current_chars = group_chars = 0
    for word in words:
        if current and current_chars + len(word) + 1 > _GREP_ALTERNATION_CHARS:
            group.append("|".join(current))
            group_chars += current_chars
            current, current_chars = [], 0
            if group_chars > _GREP_PROCESS_CHARS:
                yield group
                group, group_chars = [], 0
        current.append(word)
        current_chars += len(word) + 1
    if current:
        group.append("|".join(current))
    if group:
        yield group


def _text(value: str | bytes) -> str:
    """gitpython hands object headers back as bytes or str depending on version."""
    return value.decode("ascii") if isinstance(value, bytes) else value


def _environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _LOCATION_VARIABLES}
    env.update(_QUIET_ENVIRONMENT)
    return env


def _raise_if_refused(stderr: bytes, path: Path) -> None:
    """Turn git's ``safe.directory`` ownership refusal into a :class:`RepoError` with the fix."""
    text = stderr.decode("utf-8", "replace")
    if "dubious ownership" in text or "safe.directory" in text:
        hint = _SAFE_DIRECTORY_HINT.search(text)
        directory = hint.group(1).strip() if hint else str(path)
        raise RepoError(
            f"git refuses {directory}: it is owned by another user; if you trust it, run "
            f"`git config --global --add safe.directory {directory}`"
        )


def _execute(
    args: list[str], cwd: Path, env: dict[str, str], stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            ["git", "--no-optional-locks", *_QUIET_CONFIG, *args], cwd=cwd, env=env, capture_output=True,
            input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise RepoError("git is not installed or not on PATH: install git to check reports") from None


def _git_or_repo_error(args: list[str], where: Path, env: dict[str, str]) -> bytes:
    result = _execute(args, where, env)
    if result.returncode != 0:
        _raise_if_refused(result.stderr, where)
        if b"not a git repository" in result.stderr:
            raise RepoError(f"{where} is not inside a git repository: give the path of a clone of the target repository")
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RepoError(f"{where}: git cannot open it: {message[0] if message else 'unknown error'}")
    return result.stdout
