"""What git's diff says about changed lines between two revisions: added and removed counts per file.

One ``git diff-tree --numstat -M`` per (old, new) pair answers for every
file at once (``git diff --numstat`` for the working tree), cached; a
directory's counts are the sum of its files'. Paths whose blobs the clone
lacks are left out (see :func:`.history.run_readable`) and have no counts.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

from .history import RENAME_LIMIT


@dataclass(frozen=True)
class LineCounts:
    """Lines added and removed between two versions of a file (or a folder's files).

    ``binary`` says git counted no lines for some file (a binary blob).
    """

    added: int
    removed: int
    binary: bool = False

    def __str__(self) -> str:
        counted = f"+{self.added} \u2212{self.removed}"
        return counted + (" (and binary changes)" if self.binary else "")

    def __add__(self, other: LineCounts) -> LineCounts:
        return LineCounts(self.added + other.added, self.removed + other.removed, self.binary or other.binary)


class Hunks:
    """Line counts per changed path of one repository, cached per (old, new) pair.

    ``history`` is the store's :class:`~.history.History` (it runs the diffs,
    skipping unreadable blobs); ``worktree`` the name of the working tree.
    """

    def __init__(self, history, worktree: str) -> None:
        self._history = history
        self._worktree = worktree
        self._lock = threading.Lock()
        self._counts: dict[tuple[str, str], dict[str, LineCounts]] = {}

    def counts(self, old: str, new: str) -> dict[str, LineCounts]:
        """Path (its new name when renamed; the old one when deleted) → its line counts."""
        old_sha = self._history.resolve(old)
        new_key = new if new == self._worktree else self._history.resolve(new)
        key = (old_sha, new_key)
        with self._lock:
            known = self._counts.get(key)
        if known is not None:
            return known
        options = ["-z", "--no-ext-diff", "--no-textconv"]
        if new_key == self._worktree:
            # The pin against the files on disk (tracked files; the index is not written).
            args = ["diff", *options, "--numstat", "-M", f"-l{RENAME_LIMIT}", old_sha]
            listing = ["diff", *options, "--raw", "--no-renames", "--no-abbrev", old_sha]
        else:
            args = ["diff-tree", "-r", *options, "--numstat", "-M", f"-l{RENAME_LIMIT}", old_sha, new_key]
            listing = ["diff-tree", "-r", *options, "--raw", "--no-renames", "--no-abbrev", old_sha, new_key]
        revs = (old_sha,) if new_key == self._worktree else key
        out = self._history.run_readable(args, listing, lambda: self._history.missing_objects(*revs))
        known = _parse_numstat(out)
        with self._lock:
            self._counts[key] = known
        return known

    def of(self, old: str, new: str, path: str, directory: bool = False) -> LineCounts | None:
        """The counts of one file (or every file under a folder); ``None`` when git reports no change there."""
        counts = self.counts(old, new)
        if not directory:
            return counts.get(path)
        prefix = path.rstrip("/") + "/" if path else ""
        inside = [c for p, c in counts.items() if p.startswith(prefix)]
        if not inside:
            return None
        total = inside[0]
        for more in inside[1:]:
            total = total + more
        return total


def _parse_numstat(out: bytes) -> dict[str, LineCounts]:
    """``--numstat -z``: ``added\\tremoved\\tpath\\0``, or for a rename
    ``added\\tremoved\\t\\0old\\0new\\0``; ``-`` counts for a binary file."""
    found: dict[str, LineCounts] = {}
    tokens = out.split(b"\0")
    i = 0
    while i < len(tokens):
        record = tokens[i].lstrip(b"\n")
        parts = record.split(b"\t", 2)
        if len(parts) != 3:
            i += 1
            continue
        added, removed, path = parts
        binary = added == b"-" or removed == b"-"
        counts = LineCounts(0 if binary else int(added), 0 if binary else int(removed), binary)
        if path:
            found[os.fsdecode(path)] = counts
            i += 1
        else:
            if i + 2 < len(tokens):
                found[os.fsdecode(tokens[i + 2])] = counts
            i += 3
    return found
