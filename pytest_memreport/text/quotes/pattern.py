"""A compiled quotation: its elision-separated parts, the forms of each part
that matching compares, and the fallback regex.

Every regex here is linear on adversarial input. In the fallback regex a
separator can consume each character in one way only: markers are tried only
right after a line break, each marker alternative must be followed by
whitespace (or, for ``//``, must take every slash), and a marker is skipped
only when the quote's next character does not start there (the quote keeps
``x = a\\n  - b``'s minus). So there is no nested ambiguous repetition to
backtrack through.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from ...runcaches import run_cached
from typing import Any, Generic, TypeVar, overload

from .normalize import _H, _MARKER, _MARKER_STARTS, _relax, _boundaries, _canonical, _strip
from .words import _COMMON_WORDS, _is_word, split_words

#: an elision's gap spans at most this many characters ...
MAX_GAP_CHARS = 4000
#: ... and at most this many line breaks
MAX_GAP_LINES = 40

#: an elision a quotation of code writes as a comment: a line of ``// ...`` or ``# ...``, a ``/* ... */``
_COMMENTED = r"(?m:^[ \t]*(?://|#)[ \t]*(?:\.{3,}|…)[ \t]*$)|/\*[ \t]*(?:\.{3,}|…)[ \t]*\*/"
_ELISION = re.compile(rf"\[\s*(?:\.{{3,}}|…)\s*\]|{_COMMENTED}|…|\.{{3,}}")
#: the elisions of a quotation read literally: its bare ``...`` are the quoted code's own
#: (Python's Ellipsis, a spread, a variadic), only ``…``, ``[...]`` and a commented one still elide
_LITERAL_ELISION = re.compile(rf"\[\s*(?:\.{{3,}}|…)\s*\]|{_COMMENTED}|…")
_TOKEN = re.compile(r"(\s+)|(\w+)|(•)|(.)", re.S)
#: how many of a part's words may serve as its anchor
_ANCHOR_TRIES = 3


_Value = TypeVar("_Value")
#: an empty slot (a computed value may be ``None``)
_UNSET: Any = object()


class _Lazy(Generic[_Value]):
    """A value computed on first read and kept in the slot ``_lazy_<name>``: what
    ``functools.cached_property`` does for a class with an instance dict. A run
    compiles a pattern per quotation and keeps them while it checks; without a dict
    each is fewer objects for the garbage collector to walk (and, before Python
    3.12, a read takes no lock)."""

    def __init__(self, compute: Callable[[Any], _Value]) -> None:
        self._compute = compute
        self.__doc__ = compute.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self._slot = "_lazy_" + name

    @overload
    def __get__(self, instance: None, owner: type) -> _Lazy[_Value]: ...
    @overload
    def __get__(self, instance: object, owner: type) -> _Value: ...

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = getattr(instance, self._slot, _UNSET)
        if value is _UNSET:
            value = self._compute(instance)
            setattr(instance, self._slot, value)
        return value


class _Part:
    """One elision-separated part of a quote, with the forms matching uses
    (each computed when first needed)."""

    __slots__ = ("raw", "check_start", "check_end", "_lazy_text", "_lazy_stripped", "_lazy_canonical",
                 "_lazy_scan_needle", "_lazy_relaxed", "_lazy_anchors")

    def __init__(self, raw: str, bound_start: bool, bound_end: bool) -> None:
        self.raw = raw  # as written, trimmed: searched verbatim first
        self.check_start = bound_start and _is_word(raw[0])  # must start on a token edge
        self.check_end = bound_end and _is_word(raw[-1])  # must end on a token edge

    @_Lazy
    def text(self) -> str:
        """Whitespace collapsed."""
        return " ".join(self.raw.split())

    @_Lazy
    def stripped(self) -> str:
        """Whitespace removed: what the locator compares."""
        return _strip(self.raw)

    @_Lazy
    def canonical(self) -> str:
        """The whitespace rule applied: what a located region must equal."""
        return _canonical(self.raw)

    @_Lazy
    def scan_needle(self) -> str:
        """What a scan form is searched for: the canonical part with its word
        boundaries marked, except at an edge that may cut a word."""
        needle = _boundaries(self.canonical.replace("\0", "\1"))
        if not self.check_start and needle.startswith("\0"):
            needle = needle[1:]
        if not self.check_end and needle.endswith("\0"):
            needle = needle[:-1]
        return needle

    @_Lazy
    def relaxed(self) -> str:
        """Also without marker characters: the fallback's prefilter."""
        return _relax(self.stripped)

    @_Lazy
    def anchors(self) -> tuple[str, ...]:
        """The part's words likeliest to be rare in a text: not keywords, then longest,
        then first seen (the locator tries them fewest copies in the text at hand first).
        Each lies verbatim in every occurrence (damage never splits a word),
        :meth:`shift` non-whitespace characters after it starts."""
        # Each word once, in the order of its first appearance (the sorts are stable, reversed
        # too): keywords and short words have copies everywhere, so they come last.
        # (the words of the text as written: collapsing its whitespace joins or splits none)
        words = dict.fromkeys(split_words(self.raw))
        ranked = sorted([w for w in words if w not in _COMMON_WORDS], key=len, reverse=True)
        if len(ranked) < _ANCHOR_TRIES:
            ranked += sorted([w for w in words if w in _COMMON_WORDS], key=len, reverse=True)
        return tuple(ranked[:_ANCHOR_TRIES])

    def shift(self, word: str) -> int:
        """How many non-whitespace characters precede the first whole-word copy of
        ``word`` (one of the part's words) in an occurrence of the part."""
        text = self.text
        at, end = text.find(word), len(word)
        while (at > 0 and _is_word(text[at - 1])) or (at + end < len(text) and _is_word(text[at + end])):
            at = text.find(word, at + 1)
        return at - text.count(" ", 0, at)


class QuotePattern:
    """A compiled quotation (from :func:`compile_quote`).

    ``text`` is the quotation as written; ``parts`` the elision-separated
    parts, normalized (backticks dropped, whitespace collapsed, empty parts
    dropped).
    """

    __slots__ = ("text", "elided", "_parts", "has_bullets", "_lazy_parts", "_lazy_words", "_lazy_whole_words",
                 "_lazy_cut_words", "_lazy_regexes", "_lazy_literal")

    def __init__(self, text: str, elided: bool = True) -> None:
        self.text = text
        #: whether a bare ``...`` elides (``False``: it is the quoted code's own, see :attr:`literal`)
        self.elided = elided
        pieces = (_ELISION if elided else _LITERAL_ELISION).split(text.replace("`", ""))
        raws = [p.strip() for p in pieces if p.strip()]
        # an edge next to an elision may cut a word; the quote's own edges may not
        bound_start, bound_end = bool(pieces[0].strip()), bool(pieces[-1].strip())
        last = len(raws) - 1
        self._parts = tuple(
            _Part(r, bound_start and i == 0, bound_end and i == last) for i, r in enumerate(raws)
        )
        self.has_bullets = any("•" in r for r in raws)

    def __repr__(self) -> str:
        return f"QuotePattern({self.text!r})" if self.elided else f"QuotePattern({self.text!r}, elided=False)"

    @_Lazy
    def literal(self) -> QuotePattern | None:
        """The quotation with its bare ``...`` read as the quoted code's own characters
        (``x: int = ...``, ``f(...args)``), or ``None`` where it has none to read so.
        Tried first: code holds them far more often than a writer elides with them."""
        if not self.elided or not any(mark.strip(".") == "" for mark in _ELISION.findall(self.text)):
            return None
        return compile_literal(self.text)

    @_Lazy
    def parts(self) -> tuple[str, ...]:
        return tuple(p.text for p in self._parts)

    @_Lazy
    def words(self) -> tuple[str, ...]:
        """Every distinct word, longest first (the fallback's prefilter)."""
        found = {w for p in self._parts for w in split_words(p.raw)}
        return tuple(sorted(found, key=lambda w: (-len(w), w)))

    @_Lazy
    def whole_words(self) -> tuple[str, ...]:
        """The words every occurrence holds whole (no word character either
        side): all of them but a part's first or last word where an elision
        may cut it."""
        out: dict[str, None] = {}
        for part in self._parts:
            words = split_words(part.raw)
            if words and _is_word(part.raw[0]) and not part.check_start:
                words = words[1:]
            if words and _is_word(part.raw[-1]) and not part.check_end:
                words = words[:-1]
            out.update(dict.fromkeys(words))
        return tuple(out)

    @_Lazy
    def cut_words(self) -> tuple[str, ...]:
        """The words an occurrence may hold only in part (a part's first or last, where an
        elision may cut it): :attr:`words` but :attr:`whole_words`."""
        whole = set(self.whole_words)
        return tuple(word for word in self.words if word not in whole)

    @_Lazy
    def regexes(self) -> tuple[re.Pattern[str], ...]:
        """The fallback: one regex per part (compiled only when needed)."""
        return tuple(_part_regex(p.text, p.check_start, p.check_end) for p in self._parts)


#: a comment after code on a quoted line (``x = 1  // @audit unchecked``, ``f()  # <== here``)
_TRAILING_COMMENT = re.compile(r"(?m)(?<=\S)[ \t]+(?://|#)[^\n]*$")


def comments_elided(text: str) -> str | None:
    """A quotation of code with the comments after code on its lines read as elisions
    (``…``): what a writer marks a line with (`// @audit`, `// <== bug`) is not the file's,
    and the file's own comment there is skipped alike. ``None`` when no line has one."""
    if "//" not in text and "#" not in text:
        return None
    elided = _TRAILING_COMMENT.sub(" …", text)
    return elided if elided != text else None


@run_cached(maxsize=16384)
def compile_quote(text: str) -> QuotePattern:
    """Compile a quotation for :func:`find` and :func:`nearest` (cached)."""
    return QuotePattern(text)


@run_cached(maxsize=4096)
def compile_literal(text: str) -> QuotePattern:
    """A quotation whose bare ``...`` are literal (:attr:`QuotePattern.literal`; cached)."""
    return QuotePattern(text, elided=False)


def as_pattern(quote: QuotePattern | str) -> QuotePattern:
    """``quote`` compiled, unless it already is (a reading chosen at the pin stays chosen)."""
    return quote if isinstance(quote, QuotePattern) else compile_quote(quote)


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
    """The fallback regex for one part of a quote (the rules are in
    :mod:`.normalize`; why it is linear, in this module's docstring)."""
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


def clear_cache() -> None:
    """Forget every compiled quotation."""
    compile_quote.cache_clear()
    compile_literal.cache_clear()
