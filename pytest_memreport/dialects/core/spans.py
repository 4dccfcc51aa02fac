"""Where a report line starts in the report's text: a parser that matched on one line
gives its evidence a :class:`~pytest_memreport.model.Span` of the whole text, the
place write-back edits (docs/FORMATS.md: the text as parsed, line endings ``\\n``)."""

from __future__ import annotations

import bisect

from ...model import Span


class LineStarts:
    """The character offset where each line of ``text`` starts, found once."""

    def __init__(self, text: str) -> None:
        self.text = text
        starts = [0]
        at = text.find("\n")
        while at >= 0:
            starts.append(at + 1)
            at = text.find("\n", at + 1)
        self._starts = starts

    def span(self, line: int, start: int, end: int) -> Span | None:
        """Characters ``[start, end)`` of report line ``line``, or ``None`` when the line
        does not hold them (a parser that read a rendering of the line, not the line)."""
        if not 1 <= line <= len(self._starts) or not 0 <= start <= end:
            return None
        base = self._starts[line - 1]
        stop = self._starts[line] - 1 if line < len(self._starts) else len(self.text)
        if base + end > stop:
            return None
        return Span(base + start, base + end, line, self.text[base + start:base + end])

    def start_of(self, line: int) -> int:
        """Where 1-based ``line`` starts in the text."""
        return self._starts[line - 1]

    def line_of(self, offset: int) -> int:
        """The 1-based line holding character ``offset``."""
        return bisect.bisect_right(self._starts, offset)
