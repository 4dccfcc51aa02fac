"""Minimal, atomic edits of a report file.

A report belongs to its author: write-back changes only the bytes it means to
change (a status value, an inserted evidence line, a moved path) and leaves
every other byte alone, including line endings, encoding quirks and trailing
whitespace. Edits are computed as byte offsets into the report's ORIGINAL
bytes (not ``str`` offsets: a report may hold non-ASCII text before the edit)
and applied all at once by :func:`apply_edits`, which writes a temporary file
beside the report, gives it the report's owner, group and mode, and renames it
over the report, so a crash at any moment leaves either the old report or the
new one, never a mix, and the report stays its owner's.

Only UTF-8 reports (with or without a BOM) can be edited; anything else is
refused with a :class:`WritebackError`.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from ..errors import MemreportError
from ..model import Status
from .files import keep_owner

if TYPE_CHECKING:  # pragma: no cover - typing only
    from ..checks.observe.promotion import Promotion

_BOM = b"\xef\xbb\xbf"
#: Temporary files are named ``.<report name>.<pid>.<random>.memreport-tmp``:
#: the pid lets a later run recognise (and remove) one left by a killed run.
_TEMP_SUFFIX = ".memreport-tmp"


class WritebackError(MemreportError):
    """A report edit that cannot be made safely; the message is one line for the user."""

    code = "MR502"


@dataclass(frozen=True)
class Edit:
    """Replace ``original[start:end]`` with ``replacement`` (an insertion when ``start == end``).

    Offsets are BYTE offsets into the report bytes the edit was computed from;
    ``replacement`` is text, encoded as UTF-8 when applied. ``reason`` says
    why, for messages and dry runs.
    """

    start: int
    end: int
    replacement: str
    reason: str

    @property
    def is_insertion(self) -> bool:
        return self.start == self.end


# -- locating lines in bytes -------------------------------------------------------------


@dataclass(frozen=True)
class _Line:
    """One report line in the original bytes: content ``[start, end)``, then its line break."""

    start: int
    end: int
    newline: bytes


def _line(report_bytes: bytes, number: int) -> _Line:
    """Report line ``number`` (1-based) as byte offsets; the BOM is not part of line 1."""
    if number < 1:
        raise WritebackError(f"report line {number} does not exist")
    pos = len(_BOM) if report_bytes.startswith(_BOM) else 0
    for _ in range(number - 1):
        nl = report_bytes.find(b"\n", pos)
        if nl < 0:
            raise WritebackError(f"report line {number} does not exist (the report is shorter)")
        pos = nl + 1
    if pos >= len(report_bytes) and number > 1:
        raise WritebackError(f"report line {number} does not exist (the report is shorter)")
    nl = report_bytes.find(b"\n", pos)
    if nl < 0:
        return _Line(pos, len(report_bytes), b"")
    if nl > pos and report_bytes[nl - 1 : nl] == b"\r":
        return _Line(pos, nl - 1, b"\r\n")
    return _Line(pos, nl, b"\n")


def _line_text(report_bytes: bytes, line: _Line, number: int) -> str:
    try:
        return report_bytes[line.start : line.end].decode("utf-8")
    except UnicodeDecodeError:
        raise WritebackError(
            f"report line {number} is not UTF-8 text; write-back only edits UTF-8 reports"
        ) from None


def _newline_style(report_bytes: bytes, near: _Line) -> bytes:
    """The line break to use for a new line: the neighbouring line's, else the file's first, else LF."""
    if near.newline:
        return near.newline
    first = report_bytes.find(b"\n")
    if first > 0 and report_bytes[first - 1 : first] == b"\r":
        return b"\r\n"
    return b"\n"


def _line_count(report_bytes: bytes) -> int:
    if not report_bytes or report_bytes == _BOM:
        return 0
    return report_bytes.count(b"\n") + (0 if report_bytes.endswith(b"\n") else 1)


# -- computing edits -------------------------------------------------------------------


def status_edit(report_bytes: bytes, status: Status, new_value: str) -> Edit:
    """Replace exactly the status value at ``(status.line, status.column)`` with ``new_value``.

    The bytes there must spell ``status.value`` (case-insensitively), otherwise
    the report changed since it was parsed and :class:`WritebackError` is
    raised. The new value follows the old one's capitalisation (``Uninspected``
    becomes ``Observed``).
    """
    if status.span is not None:
        # The parser recorded where the value is written: edit there (refused if it moved).
        from .lineindex import LineIndex  # lineindex builds on this module's Edit

        index = LineIndex(report_bytes)
        change = index.span_change(status.span, "", "")
        if change.line != status.line or change.start != status.column:
            raise WritebackError(f"report line {status.line}: the status value is recorded at two places; "
                                 "the report changed since it was read, run again")
        written = status.span.text
        new = _same_case(written, new_value)
        return replace(index.edit(change), replacement=new, reason=f"{status.axis} status {status.value} -> {new_value}")
    line = _line(report_bytes, status.line)
    text = _line_text(report_bytes, line, status.line)
    written = text[status.column : status.column + len(status.value)]
    if status.column < 0 or written.casefold() != status.value.casefold():
        raise WritebackError(
            f"report line {status.line}: expected the status {status.value!r} at column "
            f"{status.column + 1} but found {written!r}; the report changed since it was read"
        )
    start = line.start + len(text[: status.column].encode("utf-8"))
    end = start + len(written.encode("utf-8"))
    return Edit(start, end, _same_case(written, new_value), f"{status.axis} status {status.value} -> {new_value}")


def _same_case(old: str, new: str) -> str:
    if len(old) > 1 and old.isupper():
        return new.upper()
    if old[:1].isupper():
        return new[:1].upper() + new[1:]
    return new


def insert_after_line(report_bytes: bytes, line: int, text: str, reason: str) -> Edit:
    """Insert ``text`` as new line(s) after report line ``line`` (0: before the first line).

    The new lines get the report's own line break (CRLF stays CRLF); ``\\n``
    inside ``text`` separates several new lines. After a last line without a
    line break, the break goes before the new text and none after it, so the
    report keeps "no newline at end of file".
    """
    body = text.replace("\r\n", "\n").rstrip("\n")
    if line == 0:
        start = len(_BOM) if report_bytes.startswith(_BOM) else 0
        first = _line(report_bytes, 1) if report_bytes[start:] else _Line(start, start, b"")
        eol = _newline_style(report_bytes, first).decode("ascii")
        return Edit(start, start, body.replace("\n", eol) + eol, reason)
    where = _line(report_bytes, line)
    eol = _newline_style(report_bytes, where).decode("ascii")
    joined = body.replace("\n", eol)
    if where.newline:
        at = where.end + len(where.newline)
        return Edit(at, at, joined + eol, reason)
    return Edit(where.end, where.end, eol + joined, reason)


def replace_in_line(report_bytes: bytes, line: int, old: str, new: str, reason: str) -> Edit:
    """Replace the one occurrence of ``old`` in report line ``line`` with ``new``.

    E.g. a moved file in a quotation line: ``" --- old/a.py:10-20"`` becomes
    ``" --- new/a.py:30-40"``. ``old`` must occur exactly once in that line.
    """
    if not old:
        raise WritebackError(f"report line {line}: nothing to replace (empty text)")
    where = _line(report_bytes, line)
    text = _line_text(report_bytes, where, line)
    first = text.find(old)
    if first < 0:
        raise WritebackError(f"report line {line}: {old!r} is not there; the report changed since it was read")
    if text.find(old, first + 1) >= 0:
        raise WritebackError(f"report line {line}: {old!r} occurs more than once; give more of the line to replace")
    start = where.start + len(text[:first].encode("utf-8"))
    return Edit(start, start + len(old.encode("utf-8")), new, reason)


def already_present(report_bytes: bytes, line_after: int, text: str) -> bool:
    """Is ``text`` already among the lines right after report line ``line_after``?

    Looks at the block of lines that follows (up to the next blank line), so an
    evidence line written by an earlier run, possibly below other evidence, is
    recognised. Lines compare without surrounding whitespace; every line of a
    multi-line ``text`` must be there.
    """
    wanted = [part.strip() for part in text.replace("\r\n", "\n").strip("\n").split("\n")]
    following: set[str] = set()
    total = _line_count(report_bytes)
    number = line_after + 1
    while number <= total:
        where = _line(report_bytes, number)
        content = report_bytes[where.start : where.end].decode("utf-8", "replace").strip()
        if not content:
            break
        following.add(content)
        number += 1
    return all(part in following for part in wanted)


def promotion_edits(report_bytes: bytes, promotion: Promotion) -> list[Edit]:
    """The edits that record a promotion: the status value, then its evidence line.

    The evidence line goes right after the status line when that is a bullet or
    a line of its own; after the whole table when the status sits in a table
    row (a line inside a table would break it). Nothing is returned for a
    change that is already written (idempotent re-runs).
    """
    status = promotion.status
    edits: list[Edit] = []
    line = _line(report_bytes, status.line)
    text = _line_text(report_bytes, line, status.line)
    current = text[status.column : status.column + len(promotion.new)]
    if current.casefold() != promotion.new.casefold():
        edits.append(status_edit(report_bytes, status, promotion.new))
    after = evidence_anchor(report_bytes, status.line)
    if promotion.evidence_line and not already_present(report_bytes, after, promotion.evidence_line):
        edits.append(insert_after_line(report_bytes, after, promotion.evidence_line, f"evidence for {promotion.record_id}"))
    return edits


def evidence_anchor(report_bytes: bytes, status_line: int) -> int:
    """The report line after which evidence for the status on ``status_line`` belongs."""
    text = _line_text(report_bytes, _line(report_bytes, status_line), status_line)
    stripped = text.lstrip()
    if stripped.startswith("|"):
        in_table = lambda s: s.lstrip().startswith("|")  # noqa: E731 - Markdown pipe table
    elif "\t" in stripped:
        in_table = lambda s: "\t" in s.strip()  # noqa: E731 - tab-separated text rendering
    else:
        return status_line
    total = _line_count(report_bytes)
    last = status_line
    while last < total:
        below = _line(report_bytes, last + 1)
        if not in_table(report_bytes[below.start : below.end].decode("utf-8", "replace")):
            break
        last += 1
    return last


# -- applying edits --------------------------------------------------------------------


def _check_edits(original: bytes, edits: Iterable[Edit]) -> list[Edit]:
    """Edits sorted by position; overlapping or out-of-range edits are refused."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    size = len(original)
    for edit in ordered:
        if not 0 <= edit.start <= edit.end <= size:
            raise WritebackError(f"edit {edit.reason!r} lies outside the report ({edit.start}-{edit.end} of {size} bytes)")
    for before, after in zip(ordered, ordered[1:]):
        # Two insertions at one offset have no defined order; an insertion
        # strictly inside a replacement would be swallowed by it.
        same_insertion = before.is_insertion and after.is_insertion and before.start == after.start
        if before.end > after.start or same_insertion:
            raise WritebackError(f"edits {before.reason!r} and {after.reason!r} overlap; make one edit of them")
    return ordered


def edited(original: bytes, edits: Iterable[Edit]) -> bytes:
    """The report bytes after ``edits`` (checked like :func:`apply_edits`, nothing written)."""
    out: list[bytes] = []
    pos = 0
    for edit in _check_edits(original, edits):
        out.append(original[pos : edit.start])
        out.append(edit.replacement.encode("utf-8"))
        pos = edit.end
    out.append(original[pos:])
    return b"".join(out)


def apply_edits(path: Path, original: bytes, edits: list[Edit]) -> bool:
    """Apply ``edits`` (computed from ``original``) to the report at ``path``, atomically.

    Refuses (:class:`WritebackError`, one-line message) when the file on disk is
    no longer ``original``, when edits overlap, or when the report or its folder
    is read-only. Writes a temporary file in the report's folder, fsyncs it,
    gives it the report's owner, group and mode and renames it over the report (``os.replace``),
    so readers and crashes see the old report or the new one, never a mix.
    Returns ``False`` (and writes nothing) when there is nothing to change.
    A temporary file left by a killed earlier run is removed first.
    """
    return apply_files([FileEdits(Path(path), original, tuple(edits))])[0]


@dataclass(frozen=True)
class FileEdits:
    """Edits of one file, computed from ``original`` (its bytes as read)."""

    path: Path
    original: bytes
    edits: tuple[Edit, ...]


@dataclass
class _Staged:
    target: Path
    shown: Path
    original: bytes
    temp: Path


def apply_files(files: list[FileEdits]) -> list[bool]:
    """Apply several files' edits as one step: a report and its claims file move together.

    Every new file is written and fsynced beside its target first; only when all
    of them are written, and every target still holds the bytes the edits were
    computed from, are they renamed over their targets, one ``os.replace`` each
    (a rename cannot fail for want of space or permissions once its temporary
    file exists). Any refusal before that leaves every file as it was. Returns,
    per file, whether it changed.
    """
    staged: list[_Staged] = []
    changed: list[bool] = []
    try:
        for item in files:
            if not item.edits:
                changed.append(False)
                continue
            new = edited(item.original, item.edits)
            target = Path(item.path).resolve()  # a symlinked report: edit the file it points to
            _read_unchanged(target, item.original)
            if new == item.original:
                changed.append(False)
                continue
            staged.append(_stage(target, Path(item.path), item.original, new))
            changed.append(True)
        for one in staged:
            _read_unchanged(one.target, one.original)  # someone saved a file while we wrote
        for one in staged:
            os.replace(one.temp, one.target)
            one.temp = None  # type: ignore[assignment]
    except BaseException as err:
        for one in staged:
            if one.temp is not None:
                with contextlib.suppress(OSError):
                    one.temp.unlink()
        if isinstance(err, OSError):
            raise WritebackError(f"cannot write {staged[-1].shown if staged else files[0].path}: "
                                 f"{err.strerror or err}") from None
        raise
    for folder in {one.target.parent for one in staged}:
        _fsync_folder(folder)
    return changed


def _stage(target: Path, shown: Path, original: bytes, new: bytes) -> _Staged:
    """``new`` written, fsynced and given ``target``'s mode in a temporary file beside it."""
    folder = target.parent
    info = _writable(target)
    clean_stale_temps(target)
    try:
        fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=_TEMP_SUFFIX, dir=folder)
    except OSError as err:
        raise WritebackError(f"cannot write {shown}: its folder is not writable ({err.strerror})") from None
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(new)
            handle.flush()
            # The report stays its owner's (a root run in a container CI on a bind mount
            # must not hand it to root), then gets its mode back (a change of owner clears
            # set-ID bits).
            keep_owner(handle.fileno(), info)
            os.fchmod(handle.fileno(), stat.S_IMODE(info.st_mode))
            os.fsync(handle.fileno())
    except BaseException as err:
        with contextlib.suppress(OSError):
            temp.unlink()
        if isinstance(err, OSError):
            raise WritebackError(f"cannot write {shown}: {err.strerror or err}") from None
        raise
    return _Staged(target, shown, original, temp)


def check_unchanged(path: Path, original: bytes) -> None:
    """Refuse (:class:`WritebackError`) when the file at ``path`` no longer holds ``original``."""
    _read_unchanged(Path(path).resolve(), original)


def _read_unchanged(target: Path, original: bytes) -> None:
    try:
        current = target.read_bytes()
    except OSError as err:
        raise WritebackError(f"cannot read {target}: {err.strerror or err}") from None
    if current != original:
        raise WritebackError(f"{target} changed on disk since it was read; run again to recompute the edits")


def _writable(target: Path) -> os.stat_result:
    """The report's owner, group and permission bits, after refusing a read-only report or
    folder, or another user's report this process could not give back to them.

    Checked on the mode bits as well as with ``os.access``: as root every file
    is writable, yet a report someone made read-only is still not ours to edit.
    """
    info = target.stat()
    folder = target.parent.stat()
    write_bits = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
    if not info.st_mode & write_bits or not os.access(target, os.W_OK):
        raise WritebackError(f"{target} is read-only; make it writable to record results in it")
    if not folder.st_mode & write_bits or not os.access(target.parent, os.W_OK | os.X_OK):
        raise WritebackError(f"the folder of {target} is read-only; make it writable to record results in the report")
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid() and os.geteuid() != 0:
        raise WritebackError(f"{target} belongs to another user (uid {info.st_uid}), and a rewritten report "
                             "would be yours; run as its owner to record results in it")
    return info


def _fsync_folder(folder: Path) -> None:
    """Make the rename itself durable (best effort: not every platform can open a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def stale_temps(path: Path) -> list[Path]:
    """Temporary files of ``path``'s write-backs whose writing process is gone.

    Only a process killed between creating its temporary file and renaming it
    (SIGKILL, power loss) leaves one; a live writer's file is never listed.
    """
    target = Path(path).resolve()
    prefix = f".{target.name}."
    found: list[Path] = []
    try:
        names = os.listdir(target.parent)
    except OSError:
        return found
    for name in names:
        if not (name.startswith(prefix) and name.endswith(_TEMP_SUFFIX)):
            continue
        pid_text = name[len(prefix) :].split(".", 1)[0]
        if pid_text.isdigit() and not _alive(int(pid_text)):
            found.append(target.parent / name)
    return sorted(found)


def clean_stale_temps(path: Path) -> int:
    """Remove :func:`stale_temps` of ``path``; how many were removed."""
    removed = 0
    for temp in stale_temps(path):
        with contextlib.suppress(OSError):
            temp.unlink()
            removed += 1
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True
