"""Locating a report's quotation in a file's text, despite rendering damage.

A quotation is *found* when it occurs in the file after undoing exactly the
damage that rendering a report does (FORMAT.md, "Rendering damages quotes")
and nothing more:

* **Whitespace.** Line breaks and indentation collapse to single spaces.
  Whitespace between two tokens is insignificant when at least one of them is
  punctuation (``foo(\\n  a,\\n  b\\n)`` matches ``foo(a, b)`` and
  ``foo( a, b )``); between two word characters it is required on both sides
  (``ab`` never matches ``a b``). Word characters are Python's ``\\w``.
* **Backticks.** Markdown eats them, so backticks are ignored on both sides
  (the file's ``return `skills/${name}.json`;`` matches the quote
  ``return skills/${name}.json;``). A backtick is never an identifier, digit
  or letter, so ignoring the quote's own backticks loses nothing that matters.
* **Bullets.** A ``•`` in the quote stands for a list marker (``-``, ``*``,
  ``+`` followed by whitespace) at the start of a file line, or a literal ``•``.
* **Paragraphs.** A quote split into paragraphs (blank lines between) is all
  of them in order: blank lines are whitespace.
* **Line markers.** Comment and blockquote markers at the start of a file
  line (after indentation) may be absent from the quote. The markers are
  ``//``, ``///``, ``//!`` (always), and ``#``, ``/*``, ``*/``, ``*``, ``>``,
  ``--`` (SQL, Lua, Haskell), ``;`` (Lisp, INI), ``-`` and ``•`` (list items)
  when followed by whitespace. So ``#include``, ``#[derive]``, ``#!``,
  ``#comment`` and ``--i`` are code, not markers, and a line-leading ``+``
  stays a plus. A marker is never skipped mid-line: ``a b`` does not match
  ``a # b`` but may match ``a\\n  - b``.
* **Elisions.** ``...``, ``…`` and ``[...]`` separate parts that must occur
  in order, each gap at most :data:`MAX_GAP_CHARS` characters and
  :data:`MAX_GAP_LINES` line breaks. A gap may contain anything, including
  literal dots, so a JS spread ``...instructions`` (which looks like an
  elision) is still found. Empty parts are dropped.
* **Token edges.** A quote that starts (ends) with a word character must not
  start (end) inside a word of the file: ``= 200`` is not found in ``= 2000``.
  An edge next to an elision is exempt (an elision may cut a word).

Nothing else is undone: a changed digit, identifier, operator or letter case
is not found.

How it stays fast. A quote is usually in the file verbatim, so each part is
first searched as a plain substring. Any other occurrence must hold a copy of
the part's *anchor* (a word, rare-looking: damage never splits a word); the
copies outside the verbatim occurrences are checked where they lie: the part
with whitespace removed is compared with the text around the copy likewise,
a region that agrees must also pass the whitespace rule, and the same is
tried on those lines with their markers blanked. No copy outside: nothing
else to find. When every anchor has too many copies (or the part has no
word), the whole text is searched at C speed in *scan forms*: the whitespace
rule applied, markers kept or blanked, word boundaries marked, so that a
substring hit is an occurrence. Only bullets, and quotes that keep some
markers but drop others, fall through to a compiled regex, behind two
prefilters (every word occurs; the quote without whitespace and marker
characters occurs in the text likewise reduced). Per-text work is cached,
keyed by the text's identity or a caller's ``key`` (e.g. a blob id).

Every regex here is linear on adversarial input. In the fallback regex a
separator can consume each character in one way only: markers are tried only
right after a line break, each marker alternative must be followed by
whitespace (or, for ``//``, must take every slash), and a marker is skipped
only when the quote's next character does not start there (the quote keeps
``x = a\\n  - b``'s minus). So there is no nested ambiguous repetition to
backtrack through.
"""

from __future__ import annotations

import difflib
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import accumulate

from rapidfuzz import fuzz

from . import symbols
from ..lru import SizedLRU
from ..model import LineRange

__all__ = [
    "MAX_GAP_CHARS",
    "MAX_GAP_LINES",
    "Candidate",
    "QuotePattern",
    "Span",
    "compile_quote",
    "find",
    "line_of",
    "may_match_by_tokens",
    "may_occur",
    "nearest",
    "reduced",
    "render_diff",
    "words_in_order",
]

#: an elision's gap spans at most this many characters ...
MAX_GAP_CHARS = 4000
#: ... and at most this many line breaks
MAX_GAP_LINES = 40

#: how many texts keep their derived forms cached, and how many characters at most
_INDEX_CACHE_SIZE = 256
_INDEX_CACHE_CHARS = 32_000_000


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class Span:
    """Where a quotation occurs: character offsets into the file text (``end``
    exclusive) and the 1-based inclusive file lines they cover."""

    start: int
    end: int
    lines: LineRange


@dataclass(frozen=True)
class Candidate:
    """The file region closest to a quotation that was not found.

    ``lines`` are whole file lines, ``text`` their original text, ``score`` the
    rapidfuzz ratio (0-100) of the quote against those lines, both
    whitespace-normalized (100: they differ only in rendering damage).
    """

    lines: LineRange
    text: str
    score: float

    def as_json(self) -> dict:
        return {"lines": self.lines.as_list(), "text": self.text, "score": round(self.score, 1)}


# --------------------------------------------------------------------------- patterns

_H = r"[^\S\n]"  # horizontal whitespace (``\r`` included, so CRLF text works)
#: a comment, blockquote or list marker at a line start (see the module
#: docstring); each alternative ends where the marker ends, so a run of marker
#: characters reads in one way only
_MARKER = r"(?://+!?(?![/!])|(?:#+|/\*+|\*+/|\*+|>+|--|;+|[-•])(?=\s|\Z))"
#: characters a marker can start with: when the quote's next character is one of
#: these, a marker there is taken as the quote's own text, not skipped
_MARKER_STARTS = frozenset("/#*>-;•")
#: the markers opening a line (indentation consumed atomically: lookahead + backref)
_MARKER_LINE = re.compile(rf"\n(?=({_H}*))\1((?:{_MARKER}{_H}*)+)")
_ELISION = re.compile(r"\[\s*(?:\.{3,}|…)\s*\]|…|\.{3,}")
_WS = re.compile(r"\s+")
_SPACES = re.compile(r"\s*")
_WORD = re.compile(r"\w+")
_LOOSE_SPACE = re.compile(r" (?!\w)|(?<!\w) ")
_TOKEN = re.compile(r"(\s+)|(\w+)|(•)|(.)", re.S)
#: what the relaxed forms drop besides whitespace: every marker and bullet character
_RELAX = str.maketrans("", "", "#/*>-;+•!")
#: a word boundary (as ``\\b`` sees it), marked in scan forms by a NUL
_BOUNDARY = re.compile(r"\b")
#: what a scan form has beyond the whitespace-free text: marks and kept spaces
_UNMARK = str.maketrans("", "", "\0 ")
#: hops over N non-whitespace characters (a select without an offset table)
_SKIPS = tuple((n, re.compile(r"(?:\s*\S){%d}" % n)) for n in (256, 64, 16, 4, 1))
#: source characters per block of a whitespace-free text's offset table
_BLOCK = 1024
#: how many of a part's words may serve as its anchor
_ANCHOR_TRIES = 3
#: keywords of common languages: poor anchors, as they are everywhere
_COMMON_WORDS = frozenset(
    """self this return const let var function def class import from export default if
    else elif for while in of is not and or None null nil true false True False new
    async await public private static void int str string fn pub mut use impl struct
    func type interface package go err raise throw try except catch finally with as
    yield lambda print len""".split()
)


#: a compound identifier: ``snake_case``, ``camelCase``, or one with a digit
_COMPOUND = re.compile(r"[^\W_]_[^\W_]|[a-z][A-Z]|\d")


def is_compound(word: str) -> bool:
    """``snake_case``, ``camelCase`` or with a digit: a name, likely one module's own."""
    return _COMPOUND.search(word) is not None


def rarest_words(words, count: int) -> tuple[str, ...]:
    """The ``count`` of ``words`` likeliest to be rare in a text: keywords
    last, then compound identifiers (one module's names) before plain words,
    longest first."""
    ranked = sorted(set(words), key=lambda w: (w in _COMMON_WORDS, not _COMPOUND.search(w), -len(w), w))
    return tuple(ranked[:count])


def _is_word(ch: str) -> bool:
    # the same test as the regex ``\w`` (sre: alnum or underscore)
    return ch.isalnum() or ch == "_"


def _strip(text: str) -> str:
    """``text`` without whitespace."""
    return "".join(text.split())


def _boundaries(text: str) -> str:
    """``text`` with a NUL at every word boundary."""
    return _BOUNDARY.sub("\0", text)


def _canonical(text: str) -> str:
    """The whitespace rule applied: runs collapse, and a space survives only
    between two word characters."""
    return _LOOSE_SPACE.sub("", _WS.sub(" ", text))


@dataclass(frozen=True)
class _Anchor:
    """A word of a quote part: it lies verbatim in every occurrence (damage
    never splits a word), ``shift`` non-whitespace characters after the
    occurrence starts."""

    word: str
    shift: int


class _Part:
    """One elision-separated part of a quote, with the forms matching uses
    (each computed when first needed)."""

    def __init__(self, raw: str, bound_start: bool, bound_end: bool) -> None:
        self.raw = raw  # as written, trimmed: searched verbatim first
        self.check_start = bound_start and _is_word(raw[0])  # must start on a token edge
        self.check_end = bound_end and _is_word(raw[-1])  # must end on a token edge

    @cached_property
    def text(self) -> str:
        """Whitespace collapsed."""
        return " ".join(self.raw.split())

    @cached_property
    def stripped(self) -> str:
        """Whitespace removed: what the locator compares."""
        return _strip(self.raw)

    @cached_property
    def canonical(self) -> str:
        """The whitespace rule applied: what a located region must equal."""
        return _canonical(self.raw)

    @cached_property
    def scan_needle(self) -> str:
        """What a scan form is searched for: the canonical part with its word
        boundaries marked, except at an edge that may cut a word."""
        needle = _boundaries(self.canonical.replace("\0", "\1"))
        if not self.check_start and needle.startswith("\0"):
            needle = needle[1:]
        if not self.check_end and needle.endswith("\0"):
            needle = needle[:-1]
        return needle

    @cached_property
    def relaxed(self) -> str:
        """Also without marker characters: the fallback's prefilter."""
        return self.stripped.translate(_RELAX)

    @cached_property
    def anchors(self) -> tuple[_Anchor, ...]:
        """The part's words likeliest to be rare in a text, first: not
        keywords, then longest."""
        text = self.text
        first_seen: dict[str, int] = {}
        for m in _WORD.finditer(text):
            first_seen.setdefault(m.group(), m.start())
        # keywords and short words have copies everywhere: they come last
        rarest = sorted(first_seen, key=lambda w: (w in _COMMON_WORDS, -len(w), first_seen[w]))
        return tuple(
            _Anchor(w, first_seen[w] - text.count(" ", 0, first_seen[w]))
            for w in rarest[:_ANCHOR_TRIES]
        )


class QuotePattern:
    """A compiled quotation (from :func:`compile_quote`).

    ``text`` is the quotation as written; ``parts`` the elision-separated
    parts, normalized (backticks dropped, whitespace collapsed, empty parts
    dropped).
    """

    def __init__(self, text: str) -> None:
        self.text = text
        pieces = _ELISION.split(text.replace("`", ""))
        raws = [p.strip() for p in pieces if p.strip()]
        # an edge next to an elision may cut a word; the quote's own edges may not
        bound_start, bound_end = bool(pieces[0].strip()), bool(pieces[-1].strip())
        last = len(raws) - 1
        self._parts = tuple(
            _Part(r, bound_start and i == 0, bound_end and i == last) for i, r in enumerate(raws)
        )
        self.has_bullets = any("•" in r for r in raws)

    def __repr__(self) -> str:
        return f"QuotePattern({self.text!r})"

    @cached_property
    def parts(self) -> tuple[str, ...]:
        return tuple(p.text for p in self._parts)

    @cached_property
    def words(self) -> tuple[str, ...]:
        """Every distinct word, longest first (the fallback's prefilter)."""
        found = {w for p in self._parts for w in _WORD.findall(p.raw)}
        return tuple(sorted(found, key=lambda w: (-len(w), w)))

    @cached_property
    def whole_words(self) -> tuple[str, ...]:
        """The words every occurrence holds whole (no word character either
        side): all of them but a part's first or last word where an elision
        may cut it."""
        out: dict[str, None] = {}
        for part in self._parts:
            words = _WORD.findall(part.raw)
            if words and _is_word(part.raw[0]) and not part.check_start:
                words = words[1:]
            if words and _is_word(part.raw[-1]) and not part.check_end:
                words = words[:-1]
            out.update(dict.fromkeys(words))
        return tuple(out)

    @cached_property
    def regexes(self) -> tuple[re.Pattern[str], ...]:
        """The fallback: one regex per part (compiled only when needed)."""
        return tuple(_part_regex(p.text, p.check_start, p.check_end) for p in self._parts)


@lru_cache(maxsize=16384)
def compile_quote(text: str) -> QuotePattern:
    """Compile a quotation for :func:`find` and :func:`nearest` (cached)."""
    return QuotePattern(text)


def _sep(next_char: str | None) -> str:
    """Optional whitespace between two quote tokens, skipping line-start
    markers unless the quote's next character starts one there."""
    guard = ""
    if next_char is not None and next_char in _MARKER_STARTS:
        guard = f"(?!{re.escape(next_char)})"
    return rf"{_H}*(?:\n{_H}*(?:{guard}{_MARKER}{_H}*)*)*"


#: before a bullet, a separator never skips a list marker: the bullet needs it
_BULLET_SEP = rf"{_H}*(?:\n{_H}*(?:(?![-*+•]){_MARKER}{_H}*)*)*"
_LIST_MARKER = r"[-*+](?=\s|\Z)"


def _part_regex(part: str, check_start: bool, check_end: bool) -> re.Pattern[str]:
    """The fallback regex for one part of a quote (see the module docstring)."""
    tokens: list[tuple[str, str, bool]] = []  # (kind, text, whitespace before it)
    gap = False
    for m in _TOKEN.finditer(part):
        space, word, bullet, _punct = m.groups()
        if space:
            gap = True
            continue
        kind = "word" if word else "bullet" if bullet else "punct"
        tokens.append((kind, m.group(), gap))
        gap = False
    out: list[str] = []
    for i, (kind, tok, ws_before) in enumerate(tokens):
        if i == 0:
            if kind == "bullet":
                out.append(rf"(?:•|(?<![^\n]){_H}*{_LIST_MARKER})")
                continue
            if check_start:
                out.append(r"(?<!\w)")
        else:
            if kind == "bullet":
                out.append(rf"(?:{_BULLET_SEP}•|{_BULLET_SEP}\n{_H}*{_LIST_MARKER})")
                continue
            if tokens[i - 1][0] == "word" and kind == "word":
                if ws_before:
                    out.append(r"(?=\s)" + _sep(None))
            else:
                out.append(_sep(tok[0]))
        out.append(re.escape(tok))
    if check_end:
        out.append(r"(?!\w)")
    return re.compile("".join(out))


# --------------------------------------------------------------------------- text index


def _skip_nonspace(source: str, pos: int, count: int) -> int:
    """The position of the first non-whitespace character after skipping
    ``count`` of them from ``pos`` (a few C-speed regex hops)."""
    for size, hop in _SKIPS:
        while count >= size:
            pos = hop.match(source, pos).end()  # type: ignore[union-attr]
            count -= size
    return _SPACES.match(source, pos).end()  # type: ignore[union-attr]


def _blank_markers(text: str) -> str:
    """``text`` (which starts at a line start) with every line-start marker
    overwritten by spaces, so offsets stay put; ``text`` itself if it has none."""
    pieces: list[str] = []
    prev = 0
    for m in _MARKER_LINE.finditer("\n" + text):  # the "\n" makes line 1 a line too
        start, end = m.start(2) - 1, m.end(2) - 1
        pieces.append(text[prev:start])
        pieces.append(" " * (end - start))
        prev = end
    if not pieces:
        return text
    pieces.append(text[prev:])
    return "".join(pieces)


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


class _TextIndex:
    """What matching derives from one text, each computed when first needed."""

    __slots__ = ("text", "_plain", "_ticks", "_line_starts", "_forms", "_relaxed", "_hay")

    def __init__(self, text: str) -> None:
        self.text = text
        self._plain: str | None = None
        self._ticks: list[int] = []
        self._line_starts: list[int] | None = None
        self._forms: list[_ScanForm] | None = None
        self._relaxed: str | None = None
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
    def relaxed(self) -> str:
        """The plain text without whitespace and marker characters."""
        if self._relaxed is None:
            self._relaxed = _strip(self.plain).translate(_RELAX)
        return self._relaxed

    def line_of(self, offset: int) -> int:
        """The 1-based line holding ``offset``: bisect over the line starts."""
        if self._line_starts is None:
            # the offsets at which lines 2, 3, ... start (C-level iteration only)
            self._line_starts = list(accumulate(map((1).__add__, map(len, self.text.split("\n")))))
        return bisect_right(self._line_starts, offset) + 1

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
_INDEX_CACHE: SizedLRU[_TextIndex] = SizedLRU(_INDEX_CACHE_CHARS, _INDEX_CACHE_SIZE)


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


# --------------------------------------------------------------------------- find


def find(pattern: QuotePattern | str, text: str, *, key: object = None) -> list[Span]:
    """Every non-overlapping occurrence of the quotation in ``text``, in file order.

    ``key`` (optional) identifies the text for the per-text cache, e.g. a blob
    id; without it the text's identity is used.
    """
    if isinstance(pattern, str):
        pattern = compile_quote(pattern)
    if not pattern._parts or not text:
        return []
    index = _index_for(text, key)
    if not pattern.has_bullets:
        occurrences = []
        for part in pattern._parts:
            occurrences.append(_part_occurrences(part, index))
            if not occurrences[-1]:
                break
        else:
            found = _chain(index, occurrences)
            if found:
                return found
    # Bullets, or a quote that keeps some line markers and drops others.
    plain = index.plain
    if not all(word in plain for word in pattern.words):
        return []
    relaxed = index.relaxed
    if not all(part.relaxed in relaxed for part in pattern._parts):
        return []
    return _chain(index, [[m.span() for m in rx.finditer(plain)] for rx in pattern.regexes])


def _part_occurrences(part: _Part, index: _TextIndex) -> list[tuple[int, int]]:
    """A part's occurrences in the plain text (spans in order, not
    overlapping), with line-start markers kept or blanked."""
    plain = index.plain
    found = _verbatim(part, plain)
    if found is None:  # copies everywhere, inside words: leave it to C-speed search
        return _scanned_occurrences(part, index)
    anchors = part.anchors
    if not anchors:
        # a part without words (``});``) holds its first character verbatim
        lone = part.stripped[0]
        if lone != "•" and plain.count(lone) == len(found) * part.stripped.count(lone):
            return found
        return _scanned_occurrences(part, index)
    # Every other occurrence holds a copy of the anchor: the copies outside the
    # verbatim occurrences are checked where they lie. A common anchor is
    # swapped for the next candidate, and if all are common the text is scanned.
    limit = max(_MANY_COPIES, len(plain) // _SCAN_COST)
    for anchor in anchors:
        outside = _copies_outside(plain, anchor.word, found, limit)
        if outside is not None:
            break
    else:
        return _scanned_occurrences(part, index)
    more = [hit for pos in outside if (hit := _match_near(part, index, pos, anchor.shift)) is not None]
    return _non_overlapping(found + more) if more else found


#: more copies than this of an anchor outside verbatim occurrences (or than the
#: text's length over _SCAN_COST, as checking a copy costs about as much as
#: preparing that many characters for a scan): try another anchor, then scan
_MANY_COPIES = 48
_SCAN_COST = 256
#: more verbatim hits than this inside longer words: give up on verbatim search
_MANY_MISSES = 64


def _copies_outside(plain: str, word: str, found: list[tuple[int, int]], limit: int) -> list[int] | None:
    """Positions of ``word``'s copies outside the ``found`` spans, or
    ``None`` when there are more than ``limit``."""
    outside: list[int] = []
    spans = iter(found)
    span = next(spans, None)
    pos = plain.find(word)
    while pos >= 0:
        while span is not None and span[1] <= pos:
            span = next(spans, None)
        if span is None or pos < span[0]:
            outside.append(pos)
            if len(outside) > limit:
                return None
        pos = plain.find(word, pos + 1)
    return outside


def _verbatim(part: _Part, plain: str) -> list[tuple[int, int]] | None:
    """The part's occurrences as a plain substring, or ``None`` when too many
    hits fall inside longer words."""
    raw, found, misses = part.raw, [], 0
    pos = plain.find(raw)
    while pos >= 0:
        end = pos + len(raw)
        if (part.check_start and pos > 0 and _is_word(plain[pos - 1])) or (
            part.check_end and end < len(plain) and _is_word(plain[end])
        ):
            misses += 1
            if misses > _MANY_MISSES and misses > len(plain) // _SCAN_COST:
                return None
            pos = plain.find(raw, pos + 1)
            continue
        found.append((pos, end))
        pos = plain.find(raw, end)
    return found


def _scanned_occurrences(part: _Part, index: _TextIndex) -> list[tuple[int, int]]:
    """Every occurrence, by substring search of the text's scan forms
    (markers kept, then blanked): linear, and Python work only per hit."""
    needle = part.scan_needle
    # a hit's first and last source characters lie past a leading boundary
    # mark and before a trailing one
    lead = 1 if needle.startswith("\0") else 0
    trail = 1 if needle.endswith("\0") else 0
    found: list[tuple[int, int]] = []
    for form in index.scan_forms():
        text = form.text
        offsets: list[int] = []  # first and last character of each hit
        pos = text.find(needle)
        while pos >= 0:
            end = pos + len(needle)
            offsets += (pos + lead, end - 1 - trail)
            pos = text.find(needle, end)
        positions = form.positions_of(offsets)
        found.extend(zip(positions[0::2], [p + 1 for p in positions[1::2]]))
    return _non_overlapping(found)


# what _match_at answers besides a span
_NO = (-1, -1)
_SHORT = (-2, -2)  # the source ends before the comparison is decided
_MARKERS_MAY_HELP = (-3, -3)  # differs, but only where marker characters are


def _match_near(part: _Part, index: _TextIndex, pos: int, shift: int) -> tuple[int, int] | None:
    """The occurrence of ``part`` whose anchor copy is at ``plain[pos]``, with
    line-start markers kept, else with them blanked; or ``None``."""
    plain = index.plain
    hit = _match_at(part, plain, pos, shift)
    if hit[0] >= 0:
        return hit
    if hit is not _MARKERS_MAY_HELP:
        return None
    # Blank the markers of the whole lines around the copy; widen while too short.
    width = 4 * len(part.raw) + 256
    while True:
        lo = plain.rfind("\n", 0, max(pos - width, 0)) + 1
        hi = plain.find("\n", min(pos + width, len(plain)))
        hi = len(plain) if hi < 0 else hi
        hit = _match_at(part, _blank_markers(plain[lo:hi]), pos - lo, shift)
        if hit is _SHORT and (lo > 0 or hi < len(plain)):
            width *= 4
            continue
        return (hit[0] + lo, hit[1] + lo) if hit[0] >= 0 else None


def _match_at(part: _Part, source: str, pos: int, shift: int) -> tuple[int, int]:
    """The occurrence of ``part`` in ``source`` (markers as they are there)
    whose whitespace-free form has the character ``source[pos]`` at offset
    ``shift``, as a span; else ``_NO``, ``_SHORT`` or ``_MARKERS_MAY_HELP``."""
    needle = part.stripped
    head, rest = needle[:shift], needle[shift:]
    # Most copies of an anchor are elsewhere in the code, where the same line
    # differs right after them: a short probe settles those.
    line_end = source.find("\n", pos, pos + _PROBE)
    near = _strip(source[pos : line_end if line_end >= 0 else pos + _PROBE])[: len(rest)]
    if not rest.startswith(near):
        return _NO
    after, hi = _stripped_after(source, pos, len(rest))
    before, lo = _stripped_before(source, pos, shift)
    after_ok, before_ok = after.startswith(rest), before.endswith(head)
    if after_ok and before_ok:
        start = _skip_nonspace(source, lo, len(before) - shift) if shift else pos
        end = _skip_nonspace(source, start, len(needle) - 1) + 1
        if part.check_start and start > 0 and _is_word(source[start - 1]):
            return _NO
        if part.check_end and end < len(source) and _is_word(source[end]):
            return _NO
        return (start, end) if _canonical(source[start:end]) == part.canonical else _NO
    if _agrees(before[::-1], head[::-1]) and _agrees(after, rest):
        return _SHORT  # agreeing as far as the source goes
    # Blanking line-start markers only helps where there are some, and removes
    # only marker characters: if the texts differ without them too, it cannot help.
    if not _MARKER_LINE.search(source, max(lo - 1, 0), hi):
        return _NO
    if _agrees(after.translate(_RELAX), rest.translate(_RELAX)) and _agrees(
        before.translate(_RELAX)[::-1], head.translate(_RELAX)[::-1]
    ):
        return _MARKERS_MAY_HELP
    return _NO


#: characters after an anchor copy compared before anything else
_PROBE = 48


def _stripped_after(source: str, pos: int, count: int) -> tuple[str, int]:
    """At least ``count`` non-whitespace characters from ``pos`` on (fewer at
    the end of ``source``), and where that stretch ends."""
    width = 4 * count + 64
    while True:
        hi = min(pos + width, len(source))
        after = _strip(source[pos:hi])
        if len(after) >= count or hi == len(source):
            return after, hi
        width *= 4


def _stripped_before(source: str, pos: int, count: int) -> tuple[str, int]:
    """At least ``count`` non-whitespace characters before ``pos`` (fewer at
    the start of ``source``), and where that stretch starts."""
    if not count:
        return "", pos
    width = 4 * count + 64
    while True:
        lo = max(pos - width, 0)
        before = _strip(source[lo:pos])
        if len(before) >= count or lo == 0:
            return before, lo
        width *= 4


def _agrees(text: str, needle: str) -> bool:
    """Whether ``text`` starts with ``needle``, as far as ``text`` goes."""
    return text.startswith(needle) if len(text) >= len(needle) else needle.startswith(text)


def _non_overlapping(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if not out or start >= out[-1][1]:
            out.append((start, end))
    return out


def _chain(index: _TextIndex, occurrences: list[list[tuple[int, int]]]) -> list[Span]:
    """Whole-quote matches from per-part occurrences (plain-text spans): each
    part at its earliest occurrence after the previous part, within the gap
    bound; matches do not overlap."""
    first, rest = occurrences[0], occurrences[1:]
    starts = [[s for s, _ in occ] for occ in rest]
    found: list[Span] = []
    taken_until = 0
    for start, end in first:
        if start < taken_until:
            continue
        for occ, occ_starts in zip(rest, starts):
            j = bisect_left(occ_starts, end)
            if j == len(occ):
                break
            next_start, next_end = occ[j]
            if next_start - end > MAX_GAP_CHARS or (
                index.newlines_between(index.to_text(end), index.to_text(next_start)) > MAX_GAP_LINES
            ):
                break
            end = next_end
        else:
            found.append(index.span(start, end))
            taken_until = end
    return found


# --------------------------------------------------------------------------- reduced forms


def reduced(text: str) -> str:
    """``text`` without backticks, whitespace and line-marker characters: the
    form in which any occurrence of a quote holds each of its parts, so that
    :func:`may_occur` can rule a text out for good (:func:`find` uses it too)."""
    return _strip(text.replace("`", "")).translate(_RELAX)


def may_occur(pattern: QuotePattern | str, reduced_text: str) -> bool:
    """Whether :func:`find` may find ``pattern`` in a text whose :func:`reduced`
    form is ``reduced_text``; ``False`` rules every occurrence out."""
    if isinstance(pattern, str):
        pattern = compile_quote(pattern)
    return all(part.relaxed in reduced_text for part in pattern._parts)


def may_occur_in(pattern: QuotePattern, text: str, *, key: object = None) -> bool:
    """:func:`may_occur` for a text tried against many quotes (a search of a
    whole tree): every word of the quote is in it, and the reduced form, kept
    by ``key`` (a blob id) in a cache bounded by size, holds every part."""
    if not holds_words(pattern, text):
        return False
    reduced_text = _REDUCED_CACHE.get(key) if key is not None else None
    if reduced_text is None:
        reduced_text = reduced(text)
        if key is not None:
            _REDUCED_CACHE.put(key, reduced_text, len(reduced_text))
    return may_occur(pattern, reduced_text)


def holds_words(pattern: QuotePattern, text: str) -> bool:
    """Whether ``text`` (backticks dropped) holds every word of the quote, as
    any occurrence of it does."""
    plain = text.replace("`", "") if "`" in text else text
    return all(word in plain for word in pattern.words)


#: reduced forms for :func:`may_occur_in`, bounded in characters
_REDUCED_CACHE: SizedLRU[str] = SizedLRU(16_000_000, 1 << 16)


# --------------------------------------------------------------------------- token prefilter

#: how far apart a reformatted quotation's words may lie for a file to be worth
#: lexing (:func:`may_match_by_tokens`): four times the quote (a formatter that
#: puts every argument on its own indented line stays well within that) plus
#: room for a few comment lines inserted between its tokens
TOKEN_REACH_FACTOR = 4
TOKEN_REACH_SLACK = 500


def token_windows(quote: str, text: str, path: str) -> list[tuple[int, int]]:
    """Where in ``text`` a token match of ``quote`` (:func:`.symbols.token_find`)
    can lie: character spans, merged and in order; empty when nowhere (see
    :func:`may_match_by_tokens` for the rule). Lexing only these spans finds
    what lexing the whole file would."""
    words = code_words(quote, path)
    if words is None:
        return []
    reach = TOKEN_REACH_FACTOR * len(quote) + TOKEN_REACH_SLACK
    windows: list[tuple[int, int]] = []
    # A match holding these words lies within ``reach`` of them; the margin
    # keeps a trailing comma's closer (which decides whether it counts) inside.
    spans = sorted(
        (max(0, start - reach - _WINDOW_MARGIN), min(len(text), end + reach + _WINDOW_MARGIN))
        for start, end in in_order_spans(words, text, reach, whole=True)
    )
    for low, high in spans:
        if windows and low <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(windows[-1][1], high))
        else:
            windows.append((low, high))
    return windows


#: characters added on both sides of a token window
_WINDOW_MARGIN = 64


def may_match_by_tokens(quote: str, text: str, path: str) -> bool:
    """Whether ``quote`` can occur by tokens in ``text``, the file at ``path``
    (what :func:`.symbols.token_find` looks for), judged without lexing it.

    Token matching drops comments and compares string literals normalized, so
    the quote's code words (:func:`_code_words`) must occur in ``text`` in
    order, as whole words (a token never starts or ends inside a word): a
    match spans them plus the layout and comments between, at most
    ``TOKEN_REACH_FACTOR`` times the quote's length plus ``TOKEN_REACH_SLACK``
    characters. A quote that is all comment has no token to find, and without
    a grammar for ``path`` there is no token matching at all. ``False`` rules
    a match out; ``True`` only says lexing may find one (lexing a file costs a
    hundred times more than this check).
    """
    words = code_words(quote, path)
    if words is None:
        return False
    return words_in_order(words, text, TOKEN_REACH_FACTOR * len(quote) + TOKEN_REACH_SLACK, whole=True)


def code_words(quote: str, path: str) -> list[str] | None:
    """The words a token match of ``quote`` in the file at ``path`` holds, in
    order, each as a whole word; ``None`` when the quote is all comment or no
    grammar covers ``path`` (then nothing matches by tokens)."""
    language = symbols.language_for(path)
    return None if language is None else _code_words(quote, language)


#: a string literal with an optional prefix (``u``, ``rb``, ``f``); alternatives
#: are disjoint (a backslash or not), so it is linear
_STRING_LITERAL = re.compile(r"""[A-Za-z]{0,3}(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')""", re.S)
#: what opens a comment, by grammar (``#`` is code in Rust and JavaScript)
_COMMENT_OPENER = {"python": re.compile(r"#")}
_C_COMMENT_OPENER = re.compile(r"//|/\*")


@lru_cache(maxsize=4096)
def _code_words(quote: str, language: str) -> list[str] | None:
    """The words a token match of ``quote`` must find in the file, in order;
    ``None`` when the quote is all comment.

    Words after anything that opens a comment do not count, nor string
    prefixes (``u"a"`` matches ``"a"``); the words inside string literals do,
    as written. Cutting too early only weakens the check; it never rules out
    a match.
    """
    # A literal keeps its quote marks (so it is not mistaken for nothing) and its words.
    code = _STRING_LITERAL.sub(_string_words, quote.replace("`", ""))
    opener = _COMMENT_OPENER.get(language, _C_COMMENT_OPENER).search(code)
    if opener is not None:
        code = code[: opener.start()]
    return _WORD.findall(code) if code.strip() else None


def _string_words(literal: re.Match[str]) -> str:
    # the body's words only: no prefix, and no ``#`` or ``//`` to read as a comment
    body = literal.group(1) if literal.group(1) is not None else literal.group(2)
    return ' "' + " ".join(_WORD.findall(body)) + '" '


def words_in_order(sequence: list[str], text: str, reach: int, *, whole: bool = False) -> bool:
    """Whether the words of ``sequence`` occur in ``text`` in that order, not
    overlapping, from the first one's start to the last one's end at most
    ``reach`` characters; with ``whole``, only copies that are whole words
    of ``text`` (no word character either side) count.
    """
    return next(in_order_spans(sequence, text, reach, whole=whole), None) is not None


def in_order_spans(sequence: list[str], text: str, reach: int, *, whole: bool = False) -> Iterator[tuple[int, int]]:
    """The spans of :func:`words_in_order`'s arrangements, one per copy of
    the rarest word that has one, in text order.

    Around each copy, the words before it are taken at their latest copies
    and those after at their earliest: the narrowest span there is, so no
    arrangement within ``reach`` is ever missed, and every arrangement holding
    that copy lies within ``reach`` of the span yielded for it.
    """
    if not sequence:
        yield 0, 0
        return
    # The anchor is the word with the fewest copies (counted in C); a word
    # with none rules the text out before any copy is looked at.
    copies = [text.count(word) for word in sequence]
    if not all(copies):
        return
    k = min(range(len(sequence)), key=copies.__getitem__)
    anchor, before, after = sequence[k], sequence[:k][::-1], sequence[k + 1 :]
    find, rfind = (_find_whole, _rfind_whole) if whole else (_find_any, _rfind_any)
    pos = find(text, anchor, 0, len(text))
    while pos >= 0:
        span = _in_order_around(pos, anchor, before, after, text, reach, find, rfind)
        if span is not None:
            yield span
        pos = find(text, anchor, pos + 1, len(text))


def _in_order_around(pos, anchor, before, after, text, reach, find, rfind) -> tuple[int, int] | None:
    start = pos
    floor = max(pos - reach, 0)
    for word in before:  # nearest copies first, walking back
        start = rfind(text, word, floor, start)
        if start < 0:
            return None
    end, limit = pos + len(anchor), start + reach
    for word in after:
        at = find(text, word, end, limit)
        if at < 0:
            return None
        end = at + len(word)
    return (start, end) if end <= limit else None


def _find_any(text: str, word: str, start: int, end: int) -> int:
    return text.find(word, start, end)


def _rfind_any(text: str, word: str, start: int, end: int) -> int:
    return text.rfind(word, start, end)


def _whole_at(text: str, at: int, size: int) -> bool:
    return not (at > 0 and _is_word(text[at - 1])) and not (at + size < len(text) and _is_word(text[at + size]))


def _find_whole(text: str, word: str, start: int, end: int) -> int:
    at = text.find(word, start, end)
    while at >= 0 and not _whole_at(text, at, len(word)):
        at = text.find(word, at + 1, end)
    return at


def _rfind_whole(text: str, word: str, start: int, end: int) -> int:
    at = text.rfind(word, start, end)
    while at >= 0 and not _whole_at(text, at, len(word)):
        at = text.rfind(word, start, at + len(word) - 1)
    return at


# --------------------------------------------------------------------------- nearest


def nearest(pattern: QuotePattern | str, text: str, *, key: object = None) -> Candidate | None:
    """The whole file lines that best match a quotation, or ``None`` when the
    text (or the quote) has nothing to compare.

    Lines are compared whitespace-normalized, without backticks and
    line-start markers: rapidfuzz's partial-ratio alignment finds the region,
    then the range of whole lines around it that best matches the quote wins.
    """
    if isinstance(pattern, str):
        pattern = compile_quote(pattern)
    needle = " ".join(" ".join(pattern.parts).replace("•", " ").split())
    if not needle or not text:
        return None
    hay = _index_for(text, key).haystack()
    if not hay.text:
        return None
    # Widened to whole lines, then narrowed by at most a line at either end, so
    # that a stray character of a neighbouring line does not drag that line in.
    dest_start, dest_end = _aligned_region(needle, hay.text)
    first = max(bisect_right(hay.offsets, dest_start) - 1, 0)
    last = max(bisect_right(hay.offsets, max(dest_start, dest_end - 1)) - 1, first)
    score, a, b = -1.0, first, last
    for lo in range(max(first - 1, 0), min(first + 2, len(hay.norms))):
        for hi in range(max(lo, last - 1), min(last + 2, len(hay.norms))):
            ratio = fuzz.ratio(needle, " ".join(hay.norms[lo : hi + 1]))
            if ratio > score or (ratio == score and hi - lo < b - a):
                score, a, b = ratio, lo, hi
    lines = LineRange(hay.numbers[a], hay.numbers[b])
    original = text.split("\n")[lines.start - 1 : lines.end]
    return Candidate(lines=lines, text="\n".join(original), score=round(score, 1))


#: longest quote end aligned in full: rapidfuzz's partial alignment grows
#: quadratically with the needle on repetitive text (800 characters against
#: 400 KB of "a a a": seconds; a 6,000-character quote: minutes)
_ALIGN_CHARS = 256


def _aligned_region(needle: str, hay: str) -> tuple[int, int]:
    """``(start, end)`` in ``hay`` of the region best aligned with ``needle``.

    A long needle is aligned by its first and by its last ``_ALIGN_CHARS``
    characters (whichever aligns better), the region stretched to the
    needle's length: the same place for any quote that is mostly intact.
    """
    if len(needle) <= _ALIGN_CHARS:
        found = fuzz.partial_ratio_alignment(needle, hay)
        return found.dest_start, found.dest_end
    head = fuzz.partial_ratio_alignment(needle[:_ALIGN_CHARS], hay)
    tail = fuzz.partial_ratio_alignment(needle[-_ALIGN_CHARS:], hay)
    if head.score >= tail.score:
        return head.dest_start, min(len(hay), head.dest_start + len(needle))
    return max(0, tail.dest_end - len(needle)), tail.dest_end


# --------------------------------------------------------------------------- diff

#: a word or one other non-space character; whether whitespace precedes it is
#: looked up, not matched: ``(\s*)`` before the token would retry a trailing
#: run of whitespace from each of its positions (quadratic)
_DIFF_TOKEN = re.compile(r"\w+|[^\w\s]")
_MAX_HUNKS = 6
#: most quotation words a diff compares (and twice as many candidate words, plus slack)
_DIFF_MAX_TOKENS = 1000
_DIFF_SLACK = 100


def render_diff(quote: str, candidate: str, width: int = 100) -> str:
    """A compact word-level diff of a quotation against a candidate region:
    per change, the words before it, then ``- quoted`` and ``+ found`` lines,
    each at most ``width`` characters."""
    old = _diff_tokens(quote.replace("`", ""))
    new = _diff_tokens(candidate.replace("`", ""))
    # SequenceMatcher is quadratic on repetitive tokens: a quote against one
    # huge line compares at most the words that could correspond.
    shown = min(len(old), _DIFF_MAX_TOKENS)
    clipped = len(old) > shown or len(new) > 2 * shown + _DIFF_SLACK
    old, new = old[:shown], new[: 2 * shown + _DIFF_SLACK]
    matcher = difflib.SequenceMatcher(None, [t for _, t in old], [t for _, t in new], autojunk=False)
    hunks = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    lines: list[str] = []
    shown_to = 0  # the quote's words shown so far: context never repeats them
    for _tag, i1, i2, j1, j2 in hunks[:_MAX_HUNKS]:
        start = max(shown_to, i1 - 5)
        context = _join(old[start:i1])
        if context:
            lines.append(_clip(f"  {'…' if start > shown_to else ''}{context}", width))
        shown_to = i2
        if i2 > i1:
            lines.append(_clip(f"- {_join(old[i1:i2])}", width))
        if j2 > j1:
            lines.append(_clip(f"+ {_join(new[j1:j2])}", width))
    if len(hunks) > _MAX_HUNKS:
        lines.append(f"… {len(hunks) - _MAX_HUNKS} more changes")
    if clipped and lines:
        lines.append(f"… (compared the first {shown} words of the quotation)")
    return "\n".join(lines) if lines else "  (no difference after normalization)"


def _diff_tokens(text: str) -> list[tuple[bool, str]]:
    return [(m.start() > 0 and text[m.start() - 1].isspace(), m.group()) for m in _DIFF_TOKEN.finditer(text)]


def _join(tokens: list[tuple[bool, str]]) -> str:
    return "".join((" " if space else "") + tok for space, tok in tokens).strip()


def _clip(line: str, width: int) -> str:
    return line if len(line) <= width else line[: max(width - 1, 1)] + "…"
