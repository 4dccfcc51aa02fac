"""Where a token match of a quotation can lie, judged without lexing: the
quote's code words, in order, as whole words, within a reach.

:func:`..syntax.tokensearch.token_find` lexes only these windows; this module
asks the syntax package which grammar covers a path and how its comments
open, never the other way round.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from ...runcaches import run_cached

from ..syntax import languages
from .words import _is_word, split_words

#: how far apart a reformatted quotation's words may lie for a file to be worth
#: lexing (:func:`may_match_by_tokens`): four times the quote (a formatter that
#: puts every argument on its own indented line stays well within that) plus
#: room for a few comment lines inserted between its tokens
TOKEN_REACH_FACTOR = 4
TOKEN_REACH_SLACK = 500


def token_windows(quote: str, text: str, path: str) -> list[tuple[int, int]]:
    """Where in ``text`` a token match of ``quote`` (:func:`..syntax.tokensearch.token_find`)
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
    (what :func:`..syntax.tokensearch.token_find` looks for), judged without lexing it.

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
    language = languages.language_for(path)
    return None if language is None else _code_words(quote, language)


#: a string literal with an optional prefix (``u``, ``rb``, ``f``); alternatives
#: are disjoint (a backslash or not), so it is linear
_STRING_LITERAL = re.compile(r"""[A-Za-z]{0,3}(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')""", re.S)


@run_cached(maxsize=4096)
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
    # what opens a comment depends on the grammar (``#`` is code in Rust and JavaScript)
    opener = languages.spec(language).comment_opener.search(code)
    if opener is not None:
        code = code[: opener.start()]
    return split_words(code) if code.strip() else None


def _string_words(literal: re.Match[str]) -> str:
    # the body's words only: no prefix, and no ``#`` or ``//`` to read as a comment
    body = literal.group(1) if literal.group(1) is not None else literal.group(2)
    return ' "' + " ".join(split_words(body)) + '" '


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


def clear_cache() -> None:
    """Forget every quotation's code words."""
    _code_words.cache_clear()
