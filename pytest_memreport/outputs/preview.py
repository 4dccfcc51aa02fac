"""``--memreport-diff``: what ``--memreport-write`` would change, as a unified diff.

The diff is rendered by :func:`difflib.unified_diff` (through
:func:`difflib.diff_bytes`, so the report's bytes are compared as they are:
CRLF stays CRLF, a BOM stays, a line that is not UTF-8 is carried unchanged)
over the file before and after the very edits the write would apply. It only
renders; which bytes change was decided by the plan.

Paths are given as ``a/<path>`` and ``b/<path>`` relative to the folder the
preview is applied in, with ``patch -p1`` or ``git apply``: where the run
started, or, when a file lies outside it (``../outside/rep.md``: both tools
refuse ``../`` and absolute names), the nearest folder holding it and every
other file, which the preview's first line names. Names are written as git
writes them: a name with a space ends in a tab (else ``patch`` reads the name
up to the space), one with a quote, a backslash or a control character is
C-quoted (``"a/we\\"ird.md"``).
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
    """The unified diff of one file's edits (empty when they change nothing), named relative
    to ``root``, a folder that holds the file (see :func:`apply_folder`)."""
    new = edited(item.original, item.edits)
    if new == item.original:
        return b""
    inside = _relative(Path(item.path).resolve(), Path(root).resolve())
    if inside is None:
        raise ValueError(f"{item.path} is not inside {root}, where its diff is applied")
    name = os.fsencode(inside.as_posix())
    out = [_header(b"---", b"a/" + name), _header(b"+++", b"b/" + name)]
    rows = difflib.diff_bytes(difflib.unified_diff, _lines(item.original), _lines(new), b"", b"", n=3)
    for number, row in enumerate(rows):
        if number < 2:
            continue  # difflib's own file lines: written above, as git writes names
        if not row.endswith(b"\n"):
            # The last line has no line break: diff says so on the line after it.
            row += b"\n" + _NO_NEWLINE
        out.append(row)
    return b"".join(out)


def apply_folder(files: list[FileEdits], root: Path) -> Path:
    """Where the preview of ``files`` is applied: the run folder ``root`` when it holds every
    file, else the nearest folder that holds it and them all."""
    root = Path(root).resolve()
    folders = {Path(item.path).resolve().parent for item in files}
    if all(_relative(folder, root) is not None for folder in folders):
        return root
    return Path(os.path.commonpath([root, *folders]))


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
    """The diffs of every file, in order; when a file lies outside the run folder ``root``,
    a first line says so and where the preview applies (:func:`apply_folder`)."""
    changed = [item for item in files if edited(item.original, item.edits) != item.original]
    base = apply_folder(changed, root)
    diffs = b"".join(file_diff(item, base) for item in changed)
    if not diffs or base == Path(root).resolve():
        return diffs
    outside = next(Path(item.path).resolve() for item in changed
                   if _relative(Path(item.path).resolve(), Path(root).resolve()) is None)
    note = (b"# memreport: " + _printable(os.fsencode(str(outside))) + b" is outside the run folder "
            + _printable(os.fsencode(str(Path(root).resolve()))) + b"; every name below is relative to "
            + _printable(os.fsencode(str(base))) + b": apply this diff there (patch -p1, or git apply)\n")
    return note + diffs
