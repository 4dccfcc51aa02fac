"""Git's own line changes between two commits: one ``diff-tree -p -U0 -M``, parsed once.

:func:`parse` reads the patch text of ``git diff-tree -r -p -U0 -M`` into a
:class:`FileChange` per changed file: its old and new path and its hunks as
git numbers them (``@@ -a,b +c,d @@``, no context lines). Mapping lines
through them is :mod:`pytest_memreport.checks.drift.linemap`'s job; nothing
here compares texts.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

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
            changes[change.old_path or change.new_path] = change

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
        return os.fsdecode(path)
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
    return os.fsdecode(text)


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
