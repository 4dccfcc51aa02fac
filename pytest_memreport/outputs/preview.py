"""``--memreport-diff``: what ``--memreport-write`` would change, as a unified diff.

The diff is rendered by :func:`difflib.unified_diff` (through
:func:`difflib.diff_bytes`, so the report's bytes are compared as they are:
CRLF stays CRLF, a BOM stays, a line that is not UTF-8 is carried unchanged)
over the file before and after the very edits the write would apply. It only
renders; which bytes change was decided by the plan.

Paths are given as ``a/<path>`` and ``b/<path>`` relative to where the run
started, so the preview applies with ``patch -p1`` and ``git apply`` there, and
are written as git writes them: a name with a space ends in a tab (else
``patch`` reads the name up to the space), one with a quote, a backslash or a
control character is C-quoted (``"a/we\\"ird.md"``). A file outside the run
folder cannot be reached by either tool from there (both refuse ``../`` and
absolute names), so its diff is said to be so, and shown commented out, with
names relative to its own folder, where it applies.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from .writeback import FileEdits, edited

_NO_NEWLINE = b"\\ No newline at end of file\n"
#: git's C escapes in a quoted name (``quote_c_style``)
_ESCAPES = {0x07: b"\\a", 0x08: b"\\b", 0x09: b"\\t", 0x0A: b"\\n", 0x0B: b"\\v", 0x0C: b"\\f", 0x0D: b"\\r",
            0x22: b'\\"', 0x5C: b"\\\\"}


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
    real = Path(item.path).resolve()
    inside = _relative(real, Path(root).resolve())
    name = os.fsencode((inside or Path(real.name)).as_posix())
    out = [_header(b"---", b"a/" + name), _header(b"+++", b"b/" + name)]
    rows = difflib.diff_bytes(difflib.unified_diff, _lines(item.original), _lines(new), b"", b"", n=3)
    for number, row in enumerate(rows):
        if number < 2:
            continue  # difflib's own file lines: written above, as git writes names
        if not row.endswith(b"\n"):
            # The last line has no line break: diff says so on the line after it.
            row += b"\n" + _NO_NEWLINE
        out.append(row)
    if inside is not None:
        return b"".join(out)
    folder = os.fsencode(str(real.parent))
    note = (b"# memreport: " + _printable(os.fsencode(str(real))) + b" is outside the run folder "
            + _printable(os.fsencode(str(Path(root).resolve()))) + b", where patch -p1 and git apply cannot "
            b"reach it; its diff, commented out below, applies in " + _printable(folder) + b"\n")
    return note + b"".join(b"# " + line + b"\n" for row in out for line in row.split(b"\n")[:-1])


def _relative(path: Path, root: Path) -> Path | None:
    try:
        return path.relative_to(root)
    except ValueError:
        return None


def _header(marker: bytes, name: bytes) -> bytes:
    """``--- a/name`` as git writes it: C-quoted when the name needs it, else followed by a
    tab when it holds a space (``patch`` ends an unquoted name at a space unless a tab does)."""
    if any(byte < 0x20 or byte in (0x22, 0x5C, 0x7F) for byte in name):
        return marker + b" " + _c_quoted(name) + b"\n"
    return marker + b" " + name + (b"\t" if b" " in name else b"") + b"\n"


def _c_quoted(name: bytes) -> bytes:
    out = bytearray(b'"')
    for byte in name:
        if byte in _ESCAPES:
            out += _ESCAPES[byte]
        elif byte < 0x20 or byte == 0x7F:
            out += b"\\%03o" % byte
        else:
            out.append(byte)  # other bytes as they are (git's core.quotePath=false)
    return bytes(out + b'"')


def _printable(name: bytes) -> bytes:
    """A name in a comment line: a line break or control character would end the comment."""
    return _c_quoted(name) if any(byte < 0x20 or byte == 0x7F for byte in name) else name


def render(files: list[FileEdits], root: Path) -> bytes:
    """The diffs of every file, in order."""
    return b"".join(file_diff(item, root) for item in files)
