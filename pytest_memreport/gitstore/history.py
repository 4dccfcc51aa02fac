"""History between two commits: the first-parent log, renames over the whole diff, changed paths, following one file.

Rename detection is git's own (``diff-tree -M``, ``log --first-parent -M``);
answers are cached per pair of commits for the store's life.

The first-parent log of a (pin, against) pair is read by ONE ``git log``
(:meth:`History.first_parent_log`): every commit with its author, date,
subject and raw changes (paths, blob ids, renames), parsed once and shared by
everything that walks history (rename following, the blame of broken
evidence).

An incomplete clone (a mirror missing a blob, a partial clone) makes git's
rename detection abort on the first blob it cannot read. Those commands are
retried once without the paths whose blobs are missing
(:func:`run_readable`): everything else is still compared, and the missing
objects are remembered for the source's warning.
"""

from __future__ import annotations

import bisect

import threading
from collections.abc import Callable
from dataclasses import dataclass

from .paths import git_path, normalize_path
from .process import GitRunner
from .snapshot import Snapshot

#: git's ``-l``: how many files inexact rename detection may compare. Exact
#: renames are found regardless; git's own default (1000) misses inexact moves
#: of larger trees, a higher one costs quadratic time on huge diffs.
RENAME_LIMIT = 4000

#: the header of one commit in the log stream: sha, author, date, subject
_LOG_FORMAT = "--format=%x01%H%x1f%an%x1f%as%x1f%s"


@dataclass(frozen=True)
class Change:
    """One path changed by one commit, as git's ``--raw`` output says it.

    ``status`` is git's letter (``A``, ``M``, ``D``, ``R``, ``T``, ``C``);
    an added file has no ``old_path``/``old_oid``, a deleted one no
    ``new_path``/``new_oid``.
    """

    status: str
    old_path: str | None
    new_path: str | None
    old_oid: str | None
    new_oid: str | None


@dataclass(frozen=True)
class LogCommit:
    """One first-parent commit: who, when, what it says, and what it changed."""

    sha: str
    author: str
    date: str
    subject: str
    changes: tuple[Change, ...] = ()

    @property
    def renames(self) -> dict[str, str]:
        # a rename has both paths in git's raw records
        return {c.old_path: c.new_path for c in self.changes
                if c.status == "R" and c.old_path is not None and c.new_path is not None}

    @property
    def deleted(self) -> frozenset[str]:
        return frozenset(c.old_path for c in self.changes if c.status == "D" and c.old_path is not None)

    def as_json(self) -> dict:
        return {"commit": self.sha, "subject": self.subject, "author": self.author, "date": self.date}

    def __str__(self) -> str:
        return f'{self.sha[:12]} "{self.subject}" ({self.author}, {self.date})'


def _oid(text: str) -> str | None:
    return None if not text.strip("0") else text


def parse_raw(tokens: list[bytes], i: int) -> tuple[Change | None, int]:
    """The ``--raw -z`` record starting at ``tokens[i]`` (``:modes oids status``, then
    one or two paths) and the index after it; ``None`` when ``tokens[i]`` is not one."""
    meta = tokens[i].lstrip(b"\n")
    if not meta.startswith(b":"):
        return None, i + 1
    fields = meta[1:].decode("ascii", "replace").split()
    if len(fields) < 5:
        return None, i + 1
    old_oid, new_oid, status = _oid(fields[2]), _oid(fields[3]), fields[4][:1]
    if status in ("R", "C") and i + 2 < len(tokens):
        return Change(status, git_path(tokens[i + 1]), git_path(tokens[i + 2]), old_oid, new_oid), i + 3
    if i + 1 >= len(tokens):
        return None, i + 1
    path = git_path(tokens[i + 1])
    return Change(status, None if status == "A" else path, None if status == "D" else path,
                  old_oid, new_oid), i + 2


@dataclass(frozen=True)
class PairDiff:
    """One ``git diff-tree -M --raw --numstat -z`` of a pair: the renames its raw records
    name, and its ``--numstat`` part (which :class:`~.hunks.Hunks` reads as line counts)."""

    renames: dict[str, str]
    numstat: bytes

    @classmethod
    def parse(cls, out: bytes) -> PairDiff:
        tokens = out.split(b"\0")
        renames: dict[str, str] = {}
        i = 0
        while i < len(tokens):
            change, after = parse_raw(tokens, i)
            if change is None:
                break  # the raw records end where the line counts begin
            if change.status == "R" and change.old_path is not None and change.new_path is not None:
                renames[change.old_path] = change.new_path
            i = after
        return cls(renames, b"\0".join(tokens[i:]))


def run_readable(runner: GitRunner, missing: Callable[[], frozenset[str]], args: list[str],
                 listing: list[str]) -> tuple[bytes, frozenset[str], frozenset[str]]:
    """stdout of ``args`` (a diff or log that may compare blob contents), the
    paths it had to leave out and the missing blobs that made it.

    When git fails, ``listing`` (the same range as ``--raw --no-renames``, which
    reads no blob) names every blob involved; those the object store lacks
    (``missing()`` lists them) are excluded by path and the command runs once more. Any
    other failure, or a second one, is a :class:`~.errors.RepoError`.
    """
    result = runner.timed(args)
    if result.returncode == 0:
        return result.stdout, frozenset(), frozenset()
    listed = runner.timed(listing)
    if listed.returncode != 0:
        raise runner.failure(args, result)
    paths_by_oid: dict[str, set[str]] = {}
    tokens = listed.stdout.split(b"\0")
    i = 0
    while i < len(tokens):
        change, i = parse_raw(tokens, i)
        if change is None:
            continue
        for oid, path in ((change.old_oid, change.old_path), (change.new_oid, change.new_path)):
            if oid and path:
                paths_by_oid.setdefault(oid, set()).add(path)
    absent = missing() & paths_by_oid.keys()
    excluded = frozenset(p for oid in absent for p in paths_by_oid[oid])
    if not excluded:
        raise runner.failure(args, result)
    retry = runner.timed([*args, "--", *(f":(exclude,literal){p}" for p in sorted(excluded))])
    if retry.returncode != 0:
        raise runner.failure(args, retry)
    return retry.stdout, excluded, frozenset(absent)


def _version_after(commit: LogCommit, path: str) -> tuple[str, str | None] | None:
    """The file ``path`` after ``commit``: ``(its path, its blob or None once deleted)``,
    or ``None`` when the commit did not change it (its first change naming it decides)."""
    for change in commit.changes:
        if change.status == "R" and change.old_path == path and change.new_path is not None:
            return change.new_path, change.new_oid
        if change.status == "D" and change.old_path == path:
            return path, None
        if change.status in ("A", "M", "T") and change.new_path == path:
            return path, change.new_oid
    return None


class History:
    """Renames, changed paths and file following of one repository, cached per (old, new) pair.

    ``resolve`` turns a revision into its full commit id and ``snapshot`` gives
    a commit's files (both the store's, so their caches are shared);
    """

    def __init__(
        self, runner: GitRunner, resolve: Callable[[str], str], snapshot: Callable[[str], Snapshot],
    ) -> None:
        self._runner = runner
        self.resolve = resolve
        self.snapshot = snapshot
        self._cache_lock = threading.Lock()
        self._pair_diffs: dict[tuple[str, str], PairDiff] = {}
        self._changed: dict[tuple[str, str], frozenset[str]] = {}
        self._logs: dict[tuple[str, str], tuple[LogCommit, ...]] = {}
        #: per pair: path -> the indexes (in its log) of the commits naming it, either side
        self._log_paths: dict[tuple[str, str], dict[str, list[int]]] = {}
        #: paths left out of a diff or log because their blobs are missing
        self.excluded: set[str] = set()
        #: the missing blobs that made them
        self.missing_oids: set[str] = set()

    def missing_objects(self, *revs: str, walk: bool = False) -> frozenset[str]:
        """The objects the clone lacks among those of the commits ``revs`` (their
        trees; with ``walk``, a range such as ``a..b``, every commit in it):
        ``git rev-list --objects --missing=print``, which names a partial clone's
        absent blobs without fetching them (``cat-file`` would die asking its
        promisor remote)."""
        args = ["rev-list", "--objects", "--missing=print", "--no-object-names", *([] if walk else ["--no-walk"]),
                *revs, "--"]
        out = self._runner.run(args)
        return frozenset(line[1:].decode("ascii") for line in out.split(b"\n") if line.startswith(b"?"))

    def run_readable(self, args: list[str], listing: list[str], missing: Callable[[], frozenset[str]],
                     runner: GitRunner | None = None) -> bytes:
        """:func:`run_readable` in this repository (through ``runner`` when given: one
        that also reads a scratch object folder), remembering what was left out."""
        out, excluded, absent = run_readable(runner or self._runner, missing, args, listing)
        if excluded:
            with self._cache_lock:
                self.excluded.update(excluded)
                self.missing_oids.update(absent)
        return out

    def pair_diff(self, old: str, new: str) -> PairDiff:
        """The pair's ``git diff-tree -M --raw --numstat -z``, read once (cached): renames
        and line counts from one rename detection, the costliest thing git does for a pair."""
        key = (self.resolve(old), self.resolve(new))
        with self._cache_lock:
            known = self._pair_diffs.get(key)
        if known is None:
            out = self.run_readable(
                ["diff-tree", "-r", "-z", "--no-ext-diff", "--no-textconv", "-M", f"-l{RENAME_LIMIT}",
                 "--raw", "--numstat", "--no-abbrev", *key],
                ["diff-tree", "-r", "-z", "--raw", "--no-renames", "--no-abbrev", *key],
                lambda: self.missing_objects(*key),
            )
            known = PairDiff.parse(out)
            with self._cache_lock:
                self._pair_diffs[key] = known
        return known

    def renames(self, old: str, new: str) -> dict[str, str]:
        """Old path → new path for every rename over the whole ``old..new`` diff (cached).

        Rename detection pairs files down to git's default 50% similarity, so
        moved-and-edited files and whole trees moved under a new folder are found.
        """
        return dict(self.pair_diff(old, new).renames)

    def changed_paths(self, old: str, new: str) -> set[str]:
        """Paths whose blob (or kind) differs between the two revisions, either side (cached)."""
        key = (self.resolve(old), self.resolve(new))
        with self._cache_lock:
            known = self._changed.get(key)
        if known is None:
            out = self._runner.run(["diff-tree", "-r", "-z", "--no-ext-diff", "--no-renames", "--name-only", *key])
            known = frozenset(git_path(p) for p in out.split(b"\0") if p)
            with self._cache_lock:
                self._changed[key] = known
        return set(known)

    def first_parent_log(self, old: str, new: str) -> tuple[LogCommit, ...]:
        """Each first-parent commit of ``old..new``, oldest first, with its raw
        changes and renames (git's ``-M``): one ``git log`` per pair, cached.

        A merge is compared with its first parent (``-m``), so the log says
        what each step of the mainline changed.
        """
        key = (self.resolve(old), self.resolve(new))
        with self._cache_lock:
            known = self._logs.get(key)
        if known is not None:
            return known
        span = f"{key[0]}..{key[1]}"
        common = ["log", "--first-parent", "-m", "--reverse", "--no-show-signature", "--no-ext-diff",
                  "--no-textconv", "-z", "--raw", "--no-abbrev"]
        out = self.run_readable([*common, _LOG_FORMAT, "-M", f"-l{RENAME_LIMIT}", span],
                                [*common, "--format=", "--no-renames", span],
                                lambda: self.missing_objects(span, walk=True) | self.missing_objects(key[0]))
        commits: list[LogCommit] = []
        header: list[str] | None = None
        changes: list[Change] = []
        tokens = out.split(b"\0")
        i = 0
        while i < len(tokens):
            # Headers and raw records follow a newline in git's -z log output;
            # paths are taken by position, so no path is ever read as a header.
            token = tokens[i].lstrip(b"\n")
            if token.startswith(b"\x01"):
                if header is not None:
                    commits.append(LogCommit(header[0], header[1], header[2], header[3], tuple(changes)))
                fields = token[1:].decode("utf-8", "replace").split("\x1f", 3)
                header, changes = (fields + ["", "", ""])[:4], []
                i += 1
                continue
            change, i = parse_raw(tokens, i)
            if change is not None and header is not None:
                changes.append(change)
        if header is not None:
            commits.append(LogCommit(header[0], header[1], header[2], header[3], tuple(changes)))
        found = tuple(commits)
        with self._cache_lock:
            self._logs[key] = found
        return found

    def file_versions(self, old: str, new: str, path: str) -> list[tuple[LogCommit, str, str | None]]:
        """``(commit, path, blob or None)`` for each commit of the pair's first-parent log
        that changed the file ``old`` calls ``path``: its name after renames, its blob after
        the commit (``None`` once deleted; a later commit may add it back). Read from the
        log's paths, indexed once per pair: the commits naming the file, not every commit."""
        log = self.first_parent_log(old, new)
        key = (self.resolve(old), self.resolve(new))
        with self._cache_lock:
            touching = self._log_paths.get(key)
        if touching is None:
            touching = {}
            for i, commit in enumerate(log):
                for change in commit.changes:
                    for named in {change.old_path, change.new_path}:
                        if named is not None and touching.setdefault(named, [i])[-1] != i:
                            touching[named].append(i)
            with self._cache_lock:
                self._log_paths[key] = touching
        out: list[tuple[LogCommit, str, str | None]] = []
        current, after = path, 0
        while True:
            indexes = touching.get(current, [])
            for i in indexes[bisect.bisect_left(indexes, after):]:
                found = _version_after(log[i], current)
                if found is not None:
                    out.append((log[i], *found))
                    current, after = found[0], i + 1
                    break
            else:
                return out

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
        current = self.renamed_along(clean, old_sha, new_sha)
        return current if current is not None and later.entry(current) is not None else None

    def renamed_along(self, path: str, old: str, new: str) -> str | None:
        """The name ``path`` (as of ``old``) has at ``new`` by the first-parent commits that
        changed it (:meth:`file_versions`, read from the log's index of paths): the file's own
        line, though another file may have taken its old name since (dspy's ``module.py``
        became ``base_module.py``, then a third file was renamed ``module.py``); ``None`` when
        its last change deleted it."""
        versions = self.file_versions(old, new, path)
        if not versions:
            return path
        _, name, blob = versions[-1]
        return name if blob is not None else None
