"""``--memreport-diff``: what ``--memreport-write`` would change, as a unified diff.

The diff is rendered by :func:`difflib.unified_diff` (through
:func:`difflib.diff_bytes`, so the report's bytes are compared as they are:
CRLF stays CRLF, a BOM stays, a line that is not UTF-8 is carried unchanged)
over the file before and after the very edits the write would apply. It only
renders; which bytes change was decided by the plan. Paths are given as
``a/<path>`` and ``b/<path>`` relative to where the run started, so the
preview applies with ``patch -p1`` there.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from .writeback import FileEdits, edited

_NO_NEWLINE = b"\\ No newline at end of file\n"


def _lines(data: bytes) -> list[bytes]:
    """``data`` split after each LF only (a CR inside a line stays in it, as ``patch`` reads it)."""
    parts = data.split(b"\n")
    lines = [part + b"\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def file_diff(item: FileEdits, root: Path) -> bytes:
    """The unified diff of one file's edits (empty when they change nothing)."""
    new = edited(item.original, item.edits)
    if new == item.original:
        return b""
    name = _shown(Path(item.path), root)
    out = []
    for row in difflib.diff_bytes(difflib.unified_diff, _lines(item.original), _lines(new),
                                  b"a/" + name, b"b/" + name, n=3):
        if not row.endswith(b"\n"):
            # The last line has no line break: diff says so on the line after it.
            row += b"\n" + _NO_NEWLINE
        out.append(row)
    return b"".join(out)


def _shown(path: Path, root: Path) -> bytes:
    try:
        shown = path.resolve().relative_to(root.resolve())
    except ValueError:
        shown = path
    return os.fsencode(shown.as_posix())


def render(files: list[FileEdits], root: Path) -> bytes:
    """The diffs of every file, in order."""
    return b"".join(file_diff(item, root) for item in files)
