"""What git's diff says about changed lines between two revisions.

Two views, each one git command per (old, new) pair, cached:

* :class:`Hunks`: lines added and removed per file (the ``--numstat`` of the pair's one
  ``git diff-tree -M --raw --numstat``, whose raw records give the renames too;
  for the working tree, against a tree of its bytes as they are on disk, which
  git never reads itself); a directory's counts are the sum
  of its files'. Paths whose blobs the clone lacks are left out (see
  :func:`.history.run_readable`) and have no counts.
* :class:`Patches`: each changed file's old and new path and its hunks as git
  numbers them (``@@ -a,b +c,d @@``), from one ``git diff-tree -p -U0 -M``
  limited to the files a run cites (:func:`parse`). Mapping lines through them
  is :mod:`pytest_memreport.checks.drift.linemap`'s job; nothing here compares texts.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

from .errors import RepoError
from .history import RENAME_LIMIT
from .paths import git_path


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
    skipping unreadable blobs); ``worktree`` the name of the working tree;
    ``disk_tree`` a context giving a runner and the id of the tree of the working
    tree's bytes, readable by that runner (:meth:`.store.GitStore.disk_tree`).
    """

    def __init__(self, history, worktree: str, disk_tree) -> None:
        self._history = history
        self._worktree = worktree
        self._disk_tree = disk_tree
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
            # The pin against the files as they are on disk: git never reads the
            # working tree (its attributes and filters would apply); the tree of
            # its bytes is written into a scratch object folder and compared there.
            with self._disk_tree() as (runner, tree):
                out = self._history.run_readable(
                    ["diff-tree", "-r", *options, "--numstat", "-M", f"-l{RENAME_LIMIT}", old_sha, tree],
                    ["diff-tree", "-r", *options, "--raw", "--no-renames", "--no-abbrev", old_sha, tree],
                    lambda: self._history.missing_objects(old_sha), runner)
        else:
            out = self._history.pair_diff(old_sha, new_key).numstat
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
            found[git_path(path)] = counts
            i += 1
        else:
            if i + 2 < len(tokens):
                found[git_path(tokens[i + 2])] = counts
            i += 3
    return found


# -- hunks of a patch ------------------------------------------------------------

#: ``@@ -a[,b] +c[,d] @@``; a missing count is 1 (git's unified format)
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_ESCAPES = {b"a": 7, b"b": 8, b"t": 9, b"n": 10, b"v": 11, b"f": 12, b"r": 13, b'"': 34, b"\\": 92}


@dataclass(frozen=True)
class Hunk:
    """Old lines ``old_start .. old_start+old_count-1`` became new lines ``new_start ..``.

    With a count of 0 the start is the line *after which* lines were inserted
    (old side) or were deleted (new side), as git writes it.
    """

    old_start: int
    old_count: int
    new_start: int
    new_count: int


@dataclass(frozen=True)
class FileChange:
    """One file of the diff: where it was, where it is, and its hunks in file order.

    ``binary`` files have no hunks: git did not compare their lines.
    """

    old_path: str | None
    new_path: str | None
    hunks: tuple[Hunk, ...]
    binary: bool = False


def command(old: str, new: str, rename_limit: int, paths: list[str] | None = None) -> list[str]:
    """The ``diff-tree`` arguments: prefixes, colour and rename detection spelled out,
    so no configuration of the target changes what is parsed."""
    args = ["diff-tree", "-r", "-p", "-U0", "-M", f"-l{rename_limit}", "--no-ext-diff", "--no-textconv",
            "--no-color", "--src-prefix=a/", "--dst-prefix=b/", "--diff-algorithm=myers", old, new]
    if paths is not None:
        args += ["--", *(f":(literal){p}" for p in paths)]
    return args


def parse(patch: bytes) -> dict[str, FileChange]:
    """Every file of ``patch`` by its old path (added files by their new path)."""
    changes: dict[str, FileChange] = {}
    current: dict | None = None

    def flush() -> None:
        if current is not None and (current["old"] or current["new"]):
            change = FileChange(current["old"], current["new"], tuple(current["hunks"]), current["binary"])
            changes[current["old"] or current["new"]] = change

    in_hunks = False
    for line in patch.split(b"\n"):
        if line.startswith(b"diff --git "):
            flush()
            same = _header_path(line[len(b"diff --git "):])
            current = {"old": same, "new": same, "hunks": [], "binary": False}
            in_hunks = False
            continue
        if current is None:
            continue
        if line.startswith(b"@@ "):
            found = _HUNK.match(line)
            if found:
                a, b, c, d = found.groups()
                current["hunks"].append(Hunk(int(a), 1 if b is None else int(b), int(c), 1 if d is None else int(d)))
                in_hunks = True
            continue
        if in_hunks:
            continue  # content lines (+, -, "\ No newline"): their text is not needed
        if line.startswith(b"rename from "):
            current["old"] = _path(line[len(b"rename from "):])
        elif line.startswith(b"rename to "):
            current["new"] = _path(line[len(b"rename to "):])
        elif line.startswith(b"--- "):
            current["old"] = _side(line[4:], b"a/")
        elif line.startswith(b"+++ "):
            current["new"] = _side(line[4:], b"b/")
        elif line.startswith(b"new file mode "):
            current["old"] = None
        elif line.startswith(b"deleted file mode "):
            current["new"] = None
        elif line.startswith(b"Binary files "):
            current["binary"] = True
    flush()
    return changes


def _header_path(rest: bytes) -> str | None:
    """The path of a ``diff --git a/P b/P`` header naming one path on both sides (the
    only header that can be split without guessing); later lines say more."""
    if rest.startswith(b'"'):
        halves = rest.split(b'" "', 1)
        if len(halves) == 2 and halves[0][1:] [2:] == halves[1][:-1][2:]:
            return _side(halves[0] + b'"', b"a/")
        return None
    size = (len(rest) - 5) // 2
    path = rest[2 : 2 + size]
    if size > 0 and rest == b"a/" + path + b" b/" + path:
        return git_path(path)
    return None


def _side(text: bytes, prefix: bytes) -> str | None:
    """A ``---``/``+++`` path without its prefix; ``None`` for ``/dev/null``."""
    path = _path(text)
    if path is None or not path.startswith(prefix.decode()):
        return None
    return path[len(prefix):]


def _path(text: bytes) -> str | None:
    """A path as git prints it: C-quoted (``"a\\303\\251.py"``) when it has unusual bytes."""
    text = text.rstrip(b"\t")
    if text == b"/dev/null":
        return None
    if text.startswith(b'"') and text.endswith(b'"') and len(text) >= 2:
        text = _unquote(text[1:-1])
    return git_path(text)


def _unquote(body: bytes) -> bytes:
    out = bytearray()
    i = 0
    while i < len(body):
        ch = body[i : i + 1]
        if ch == b"\\" and i + 1 < len(body):
            nxt = body[i + 1 : i + 2]
            if nxt.isdigit() and i + 3 < len(body) + 1 and body[i + 1 : i + 4].isdigit():
                out.append(int(body[i + 1 : i + 4], 8) & 0xFF)
                i += 4
                continue
            out.append(_ESCAPES.get(nxt, nxt[0]))
            i += 2
            continue
        out += ch
        i += 1
    return bytes(out)


class Patches:
    """Git's hunks per changed file of one repository, one ``diff-tree -p -U0 -M`` per pair.

    ``runner`` runs git; ``history`` is the store's :class:`~.history.History`
    (revisions, and the rename map that says where expected files went).
    """

    def __init__(self, runner, history) -> None:
        self._runner = runner
        self._history = history
        self._lock = threading.Lock()
        #: each pair's parsed diff, and the paths it was limited to (``None``: the whole diff)
        self._diffs: dict[tuple[str, str], tuple[dict[str, FileChange], frozenset[str] | None]] = {}
        self._wanted: dict[tuple[str, str], frozenset[str]] = {}

    def expect(self, old: str, new: str, paths) -> None:
        """Say which files' hunks :meth:`change` will be asked for: the pair's one diff
        is limited to them and to where they were renamed. A file expected (or asked
        for) only after that diff ran gets a second diff of the files it lacks."""
        key = (self._history.resolve(old), self._history.resolve(new))
        with self._lock:
            self._wanted[key] = self._wanted.get(key, frozenset()) | frozenset(paths)

    def change(self, old: str, new: str, path: str) -> FileChange | None:
        """``path``'s (as of ``old``) new path and hunks at ``new`` (commits), parsed
        once per pair; ``None`` when the diff does not list it (the same blob, or a
        blob the clone lacks)."""
        key = (self._history.resolve(old), self._history.resolve(new))
        return self._diffed(key, path).get(path)

    def prepare(self, old: str, new: str) -> bool:
        """Run the pair's diff now (of the expected files), as :meth:`change` would first;
        whether it changes any of them."""
        return bool(self._diffed((self._history.resolve(old), self._history.resolve(new)), None))

    def _diffed(self, key: tuple[str, str], path: str | None) -> dict[str, FileChange]:
        """The pair's parsed diff, holding ``path`` if git lists it."""
        with self._lock:
            known, covered = self._diffs.get(key, (None, frozenset()))
            wanted = self._wanted.get(key)
        if known is not None and (covered is None or path is None or path in covered):
            return known
        # The first diff: of the expected files (all files when none are); a later one: of
        # the files asked for since, and not covered yet.
        paths = None if known is None and wanted is None else (wanted or frozenset()) - (covered or frozenset())
        if paths is not None and path:
            paths |= {path}
        limited = None
        if paths is not None:
            moved = self._history.renames(*key)
            limited = sorted(paths | {moved[p] for p in paths if p in moved})
        try:
            found = parse(self._runner.run(command(*key, RENAME_LIMIT, limited)))
        except RepoError:
            found = {}  # a blob the clone lacks: callers locate text instead, and say what is unreadable
        with self._lock:
            before, before_covered = self._diffs.get(key, ({}, frozenset()))
            merged = {**before, **found}
            self._diffs[key] = (merged, None if paths is None or before_covered is None else before_covered | paths)
        return merged
