"""History between two commits: renames over the whole diff, changed paths, and following one file.

Rename detection is git's own (``diff-tree -M``, ``log --first-parent -M``);
answers are cached per pair of commits for the store's life.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass

from . import hunks
from .errors import RepoError
from .paths import normalize_path
from .process import GitRunner
from .snapshot import Snapshot

#: git's ``-l``: how many files inexact rename detection may compare. Exact
#: renames are found regardless; git's own default (1000) misses inexact moves
#: of larger trees, a higher one costs quadratic time on huge diffs.
_RENAME_LIMIT = 4000


@dataclass(frozen=True)
class _Step:
    """One first-parent commit's renames and deletions (for :meth:`History.follow`)."""

    sha: str
    renames: dict[str, str]
    deleted: frozenset[str]


class History:
    """Renames, changed paths and file following of one repository, cached per (old, new) pair.

    ``resolve`` turns a revision into its full commit id and ``snapshot`` gives
    a commit's files (both the store's, so their caches are shared).
    """

    def __init__(
        self, runner: GitRunner, resolve: Callable[[str], str], snapshot: Callable[[str], Snapshot]
    ) -> None:
        self._runner = runner
        self.resolve = resolve
        self.snapshot = snapshot
        self._cache_lock = threading.Lock()
        self._renames: dict[tuple[str, str], dict[str, str]] = {}
        self._changed: dict[tuple[str, str], frozenset[str]] = {}
        self._steps: dict[tuple[str, str], list[_Step]] = {}
        self._changes: dict[tuple[str, str], dict[str, hunks.FileChange]] = {}
        self._wanted: dict[tuple[str, str], frozenset[str]] = {}

    def expect_changes(self, old: str, new: str, paths) -> None:
        """Say which files' line changes :meth:`file_change` will be asked for (before the
        first ask): the one diff is then limited to them and to where they were renamed."""
        key = (self.resolve(old), self.resolve(new))
        with self._cache_lock:
            if key not in self._changes:
                self._wanted[key] = self._wanted.get(key, frozenset()) | frozenset(paths)

    def file_change(self, old: str, new: str, path: str) -> hunks.FileChange | None:
        """``path``'s (as of ``old``) new path and hunks at ``new``, from one
        ``diff-tree -p -U0 -M`` of the pair, parsed once; ``None`` when the diff
        does not list it (the same blob, or not among the expected files)."""
        key = (self.resolve(old), self.resolve(new))
        with self._cache_lock:
            known = self._changes.get(key)
            wanted = self._wanted.get(key)
        if known is None:
            paths = None
            if wanted is not None:
                moved = self.renames(*key)
                paths = sorted(wanted | {moved[p] for p in wanted if p in moved})
            try:
                known = hunks.parse(self._runner.run(hunks.command(*key, _RENAME_LIMIT, paths)))
            except RepoError:
                known = {}  # a blob the clone lacks: callers locate text instead, and say what is unreadable
            with self._cache_lock:
                self._changes[key] = known
        return known.get(path)

    def renames(self, old: str, new: str) -> dict[str, str]:
        """Old path → new path for every rename over the whole ``old..new`` diff (cached).

        Rename detection pairs files down to git's default 50% similarity, so
        moved-and-edited files and whole trees moved under a new folder are found.
        """
        key = (self.resolve(old), self.resolve(new))
        with self._cache_lock:
            known = self._renames.get(key)
        if known is None:
            out = self._runner.run(
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
            out = self._runner.run(["diff-tree", "-r", "-z", "--no-ext-diff", "--no-renames", "--name-only", *key])
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
        out = self._runner.run(
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
