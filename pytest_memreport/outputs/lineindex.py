"""A report's lines as byte offsets, read once: turns edits written in characters
of one line into :class:`~.writeback.Edit` byte edits of the whole file.

Re-pinning edits dozens of spots per report (every link of every line); finding
each line from the top of the file each time would be quadratic in the report's
size, so the offsets are computed once here. The BOM is not part of line 1 and a
line's break (LF or CRLF) is not part of its text, as the parsers see them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Span
from .writeback import Edit, WritebackError

_BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class CharEdit:
    """Replace characters ``[start, end)`` of report line ``line`` (1-based) with ``new``."""

    line: int
    start: int
    end: int
    new: str
    reason: str


class LineIndex:
    """Line ``n`` of ``data``: its text and where its bytes start."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        pos = len(_BOM) if data.startswith(_BOM) else 0
        self._spans: list[tuple[int, int]] = []
        size = len(data)
        while pos < size:
            nl = data.find(b"\n", pos)
            if nl < 0:
                self._spans.append((pos, size))
                break
            end = nl - 1 if nl > pos and data[nl - 1 : nl] == b"\r" else nl
            self._spans.append((pos, end))
            pos = nl + 1
        self._texts: dict[int, str | None] = {}
        self._char_starts: list[int] | None = None

    def __len__(self) -> int:
        return len(self._spans)

    def text(self, number: int) -> str | None:
        """Line ``number`` as text; ``None`` outside the report or when it is not UTF-8."""
        if not 1 <= number <= len(self._spans):
            return None
        if number not in self._texts:
            start, end = self._spans[number - 1]
            try:
                self._texts[number] = self.data[start:end].decode("utf-8")
            except UnicodeDecodeError:
                self._texts[number] = None
        return self._texts[number]

    def char_start(self, number: int) -> int | None:
        """Where line ``number`` starts in the report's text as parsed (line endings ``\\n``,
        no BOM): what a :class:`~pytest_memreport.model.Span` counts from."""
        if self._char_starts is None:
            starts, at = [], 0
            for line in range(1, len(self._spans) + 1):
                starts.append(at)
                at += len(self.text(line) or "") + 1
            self._char_starts = starts
        return self._char_starts[number - 1] if 1 <= number <= len(self._char_starts) else None

    def span_change(self, span: Span, new: str, reason: str) -> CharEdit:
        """The edit writing ``new`` at ``span``: refused (:class:`WritebackError`, one line)
        when the report no longer holds ``span.text`` there (it changed since it was read)."""
        text, base = self.text(span.line), self.char_start(span.line)
        start = span.start - base if base is not None else -1
        written = text[start:start + len(span.text)] if text is not None and start >= 0 else None
        if written != span.text or span.end - span.start != len(span.text):
            raise WritebackError(
                f"report line {span.line}: expected {span.text!r} at characters {span.start}-{span.end} "
                f"but found {written!r}; the report changed since it was read, run again")
        return CharEdit(span.line, start, start + len(span.text), new, reason)

    def edit(self, change: CharEdit) -> Edit:
        """The byte edit of ``change`` (whose columns count characters of its line)."""
        text = self.text(change.line)
        if text is None:
            raise WritebackError(f"report line {change.line} is not UTF-8 text (or not there); it cannot be edited")
        if not 0 <= change.start <= change.end <= len(text):
            raise WritebackError(f"report line {change.line}: columns {change.start}-{change.end} lie outside it")
        base = self._spans[change.line - 1][0]
        start = base + len(text[: change.start].encode("utf-8"))
        end = start + len(text[change.start : change.end].encode("utf-8"))
        return Edit(start, end, change.new, change.reason)


def resolve_overlaps(changes: list[CharEdit]) -> tuple[list[CharEdit], list[CharEdit]]:
    """``changes`` without duplicates; where two different changes overlap, the first
    given wins (callers give the more certain first). Returns ``(kept, dropped)``."""
    kept: list[CharEdit] = []
    dropped: list[CharEdit] = []
    by_line: dict[int, list[CharEdit]] = {}
    for change in changes:
        same_line = by_line.setdefault(change.line, [])
        if any((o.start, o.end, o.new) == (change.start, change.end, change.new) for o in same_line):
            continue
        if any(o.start < change.end and change.start < o.end for o in same_line):
            dropped.append(change)
            continue
        same_line.append(change)
        kept.append(change)
    return kept, dropped
