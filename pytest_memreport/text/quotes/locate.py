"""Every occurrence of a quotation in a text (:func:`find`), part by part,
then chained across elisions.

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
"""

from __future__ import annotations


from .chain import chain
from .index import Span, _index_for, _TextIndex
from .normalize import _MARKER_LINE, _relax, _blank_markers, _canonical, _skip_nonspace, _strip
from .pattern import QuotePattern, _Part, compile_quote
from .prefilter import holds_words, may_occur
from .words import _is_word


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
    parts = pattern._parts
    if not pattern.has_bullets:
        keys = [(part.raw, part.check_start, part.check_end) for part in parts]
        found = chain(index, keys, lambda n: _part_occurrences(parts[n], index))
        if found:
            return found
    # Bullets, or a quote that keeps some line markers and drops others.
    plain = index.plain
    if not holds_words(pattern, plain) or not may_occur(pattern, index.reduced):
        return []
    regexes = pattern.regexes
    return chain(index, [rx.pattern for rx in regexes], lambda n: [m.span() for m in regexes[n].finditer(plain)])


def as_written(quote: str, text: str, *, key: object = None) -> list[Span] | None:
    """Every occurrence of ``quote`` in ``text`` when no compiled pattern is needed to
    know them (the commonest case: a quotation copied from its file once): it lies in the
    text as written (backticks dropped, as :func:`find` reads a text), and either the text
    without whitespace and marker characters holds no more copies of the quotation likewise
    reduced than those places (every other occurrence would be one more), or a word of it
    has no copy outside those places, where every other occurrence would hold one (damage
    never splits a word). :func:`find`'s spans; ``key`` as for :func:`find`.

    ``None`` where :func:`find` must decide: an elision, a bullet or a backtick in the
    quotation, no copy as written, or more reduced copies and copies of each of its
    likeliest-rare words (its part's anchors) elsewhere. The answer is :func:`find`'s
    whenever this gives one (a property test compares them)."""
    raw = quote.strip()
    if not raw or "`" in raw or "•" in raw or "…" in raw or "..." in raw:
        return None
    index = _index_for(text, key)
    plain = index.plain
    part = _Part(raw, True, True)
    found = _verbatim(part, plain)
    if not found:
        return None
    # Any other occurrence, however its whitespace or line markers differ, is the quotation
    # once both are without whitespace and marker characters, and lies apart from the found
    # places there too: no more copies of that than found places, nothing else. (Asked
    # first: the text's reduced form is made once, and in prose each of a quotation's words
    # often has copies on other lines.)
    if part.relaxed and _copies_outside(index.reduced, part.relaxed, [], len(found)) is not None:
        return [index.span(start, end) for start, end in found]
    for word in part.anchors:
        # the copies inside the found places are the quotation's own; no other: nothing else
        if plain.count(word) == len(found) * raw.count(word):
            return [index.span(start, end) for start, end in found]
    return None


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
    # Every other occurrence holds a copy of each anchor: one anchor's copies outside the
    # verbatim occurrences are checked where they lie. The anchors are tried fewest copies
    # first (counted at C speed: in prose the longest word is often a common one); one
    # with too many is swapped for the next, and if all have too many the text is scanned.
    limit = max(_MANY_COPIES, len(plain) // _SCAN_COST)
    if len(anchors) > 1 and plain.count(anchors[0]) > len(found) * part.raw.count(anchors[0]):
        # (the likeliest-rare word has no copy outside the verbatim occurrences in most
        # texts: then nothing else is counted)
        anchors = tuple(sorted(anchors, key=lambda word: plain.count(word) - len(found) * part.raw.count(word)))
    for anchor in anchors:
        outside = _copies_outside(plain, anchor, found, limit)
        if outside is not None:
            break
    else:
        return _scanned_occurrences(part, index)
    if not outside:
        return found
    shift = part.shift(anchor)
    more = [hit for pos in outside if (hit := _match_near(part, index, pos, shift)) is not None]
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
    if _agrees(_relax(after), _relax(rest)) and _agrees(
        _relax(before)[::-1], _relax(head)[::-1]
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
