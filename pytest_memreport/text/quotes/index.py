"""What matching derives from one text, computed when first needed and cached
per text: the text without backticks, its whitespace-free and scan forms with
the way back to source offsets, its line starts, and the lines as
:func:`.nearest.nearest` compares them."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate

from ... import runcaches
from ...lru import SizedLRU
from ...model import LineRange
from .normalize import _UNMARK, _blank_markers, _boundaries, _canonical, _skip_nonspace, _strip, reduced

#: how many texts keep their derived forms cached, and how many characters at most
_INDEX_CACHE_SIZE = 256
_INDEX_CACHE_CHARS = 32_000_000
#: source characters per block of a whitespace-free text's offset table
_BLOCK = 1024


@dataclass(frozen=True, slots=True)
class Span:
    """Where a quotation occurs: character offsets into the file text (``end``
    exclusive) and the 1-based inclusive file lines they cover."""

    start: int
    end: int
    lines: LineRange


class _Stripped:
    """A source text with its whitespace removed, and the way back.

    Only a per-block count of non-whitespace characters is kept; a lookup
    finishes inside one block with regex hops, so building costs about one
    ``str.split`` of the text.
    """

    __slots__ = ("source", "text", "_before")

    def __init__(self, source: str) -> None:
        chunks = [_strip(source[i : i + _BLOCK]) for i in range(0, len(source), _BLOCK)]
        self.source = source
        self.text = "".join(chunks)
        #: non-whitespace characters before each block
        self._before = list(accumulate(map(len, chunks), initial=0))

    def position_of(self, offset: int) -> int:
        """The source position of ``text[offset]``."""
        block = bisect_right(self._before, offset) - 1
        return _skip_nonspace(self.source, block * _BLOCK, offset - self._before[block])


class _ScanForm:
    """A source text prepared for C-speed search of whole parts: the
    whitespace rule applied and every word boundary marked with a NUL, so a
    plain substring hit is an occurrence, token edges included."""

    __slots__ = ("stripped", "text", "_dropped")

    def __init__(self, source: str) -> None:
        self.stripped = _Stripped(source)
        self.text = _boundaries(_canonical(source.replace("\0", "\1")))
        chunks = [self.text[i : i + _BLOCK] for i in range(0, len(self.text), _BLOCK)]
        #: boundary marks and kept spaces before each block
        self._dropped = list(accumulate((len(c) - len(c.translate(_UNMARK)) for c in chunks), initial=0))

    def positions_of(self, offsets: list[int]) -> list[int]:
        """The source positions of ``text[offset]`` for ascending offsets (each
        a character of the source), walking from one to the next so that
        dense hits cost little and sparse ones no more than the text."""
        text, source = self.text, self.stripped.source
        out: list[int] = []
        offset = real = 0  # ``real``: source characters in ``text[:offset]``
        pos = -1  # source position of the last answer
        for target in offsets:
            if pos < 0 or target - offset > 4 * _BLOCK:
                block = target // _BLOCK
                piece = text[block * _BLOCK : target]
                real = block * _BLOCK - self._dropped[block] + len(piece.translate(_UNMARK))
                pos = self.stripped.position_of(real)
            else:
                step = len(text[offset:target].translate(_UNMARK))
                real += step
                pos = _skip_nonspace(source, pos, step)
            offset = target
            out.append(pos)
        return out


class _Haystack:
    """For :func:`nearest`: the non-blank lines normalized, joined by spaces,
    with each line's offset in that string and its 1-based number."""

    __slots__ = ("text", "norms", "offsets", "numbers")

    def __init__(self, norms: list[str], numbers: list[int]) -> None:
        self.norms = norms
        self.numbers = numbers
        self.offsets = list(accumulate((len(n) + 1 for n in norms[:-1]), initial=0)) if norms else []
        self.text = " ".join(norms)


#: line questions of a text answered by counting line breaks, before its line starts are indexed
_COUNTED_LINE_QUESTIONS = 8


class _TextIndex:
    """What matching derives from one text, each computed when first needed."""

    __slots__ = ("text", "_plain", "_ticks", "_line_starts", "_lines_counted", "_forms", "_reduced", "_hay")

    def __init__(self, text: str) -> None:
        self.text = text
        self._plain: str | None = None
        self._ticks: list[int] = []
        self._line_starts: list[int] | None = None
        self._lines_counted = 0
        self._forms: list[_ScanForm] | None = None
        self._reduced: str | None = None
        self._hay: _Haystack | None = None

    @property
    def plain(self) -> str:
        """The text without backticks (usually the text itself)."""
        if self._plain is None:
            if "`" in self.text:
                pieces = self.text.split("`")
                # ``ticks[i]`` is the plain offset at which the i-th backtick was dropped
                self._ticks = list(accumulate(map(len, pieces[:-1])))
                self._plain = "".join(pieces)
            else:
                self._plain = self.text
        return self._plain

    def to_text(self, plain_offset: int) -> int:
        """The text offset of a plain-text offset."""
        ticks = self._ticks
        return plain_offset + bisect_right(ticks, plain_offset) if ticks else plain_offset

    def scan_forms(self) -> list[_ScanForm]:
        """Scan forms of the plain text, and (if it has line-start markers)
        of the plain text with those markers blanked."""
        if self._forms is None:
            plain = self.plain
            blanked = _blank_markers(plain)
            self._forms = [_ScanForm(plain)]
            if blanked is not plain:
                self._forms.append(_ScanForm(blanked))
        return self._forms

    @property
    def reduced(self) -> str:
        """The plain text's :func:`.normalize.reduced` form (no whitespace, no marker characters)."""
        if self._reduced is None:
            self._reduced = reduced(self.plain)
        return self._reduced

    def line_of(self, offset: int) -> int:
        """The 1-based line holding ``offset``: the line breaks before it counted for the
        first few questions (a quotation found once asks two), then a bisect over the
        line starts, made once (splitting a file into lines costs more than a few counts)."""
        starts = self._line_starts
        if starts is None:
            if self._lines_counted < _COUNTED_LINE_QUESTIONS:
                self._lines_counted += 1
                return self.text.count("\n", 0, offset) + 1
            # the offsets at which lines 2, 3, ... start (C-level iteration only)
            starts = self._line_starts = list(accumulate(map((1).__add__, map(len, self.text.split("\n")))))
        return bisect_right(starts, offset) + 1

    def newlines_between(self, start: int, end: int) -> int:
        """How many line breaks lie in ``text[start:end]``."""
        return self.line_of(end) - self.line_of(start)

    def haystack(self) -> _Haystack:
        """The lines as :func:`nearest` compares them."""
        if self._hay is None:
            norms: list[str] = []
            numbers: list[int] = []
            for number, line in enumerate(_blank_markers(self.plain).split("\n"), start=1):
                norm = " ".join(line.split())
                if norm:
                    norms.append(norm)
                    numbers.append(number)
            self._hay = _Haystack(norms, numbers)
        return self._hay

    def span(self, plain_start: int, plain_end: int) -> Span:
        """A :class:`Span` of the text from a span of the plain text."""
        start, end = self.to_text(plain_start), self.to_text(plain_end - 1) + 1
        return Span(start, end, LineRange(self.line_of(start), self.line_of(end - 1)))


#: text indexes, bounded in entries and in characters (a text's forms are a few times its size)
_INDEX_CACHE: SizedLRU[_TextIndex] = runcaches.PerRun(  # type: ignore[assignment]  # the run's
    lambda: SizedLRU(_INDEX_CACHE_CHARS, _INDEX_CACHE_SIZE))


def clear_cache() -> None:
    """Forget every text's index."""
    _INDEX_CACHE.clear()


def _index_for(text: str, key: object = None) -> _TextIndex:
    # The entry holds the text, so while cached its id cannot be reused by another
    # string; a caller's key is checked against the text (identity first: cheap).
    cache_key = ("id", id(text)) if key is None else ("key", key)
    entry = _INDEX_CACHE.get(cache_key)
    if entry is not None and (entry.text is text or entry.text == text):
        return entry
    entry = _TextIndex(text)
    _INDEX_CACHE.put(cache_key, entry, len(text))
    return entry


def line_of(text: str, offset: int) -> int:
    """The 1-based line of ``text`` holding character ``offset`` (bisect over
    a cached index of line starts)."""
    return _index_for(text).line_of(offset)
