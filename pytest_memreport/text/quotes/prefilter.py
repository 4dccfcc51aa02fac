"""Ruling a text out without searching it: the reduced form in which any
occurrence of a quote holds each of its parts, and the quote's words."""

from __future__ import annotations

from ... import runcaches
from ...lru import SizedLRU
from .normalize import reduced
from .pattern import QuotePattern, compile_quote
from .words import words_of


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
    if key is not None and len(pattern.whole_words) > _WORD_SET_AFTER:
        if not _holds_whole_words(pattern, text, key):
            return False
    elif not holds_words(pattern, text):
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
    if all(part.raw in text for part in pattern._parts):
        return True  # every part as written (no backtick in it): its words are there
    plain = text.replace("`", "") if "`" in text else text
    return all(word in plain for word in pattern.words)


def _holds_whole_words(pattern: QuotePattern, text: str, key: object) -> bool:
    """:func:`holds_words` for a quote of many words (a block of code): each word every
    occurrence holds whole is one of the text's words (a set, kept by ``key``), each other
    word in the text. A search over many files tested a block's hundred words one scan of
    the file each."""
    words = _WORDS_CACHE.get(key)
    if words is None:
        words = frozenset(words_of(text))  # (as the tree's postings read a text)
        _WORDS_CACHE.put(key, words, len(text))
    if not all(word in words for word in pattern.whole_words):
        return False
    plain = text.replace("`", "") if "`" in text else text
    return all(word in plain for word in pattern.cut_words)


#: a quote with more words every occurrence holds whole than this is ruled out by the
#: text's set of words (a few words are found faster by scanning the text for each)
_WORD_SET_AFTER = 12

#: each text's words for :func:`_holds_whole_words`, bounded by the texts' characters
_WORDS_CACHE: SizedLRU[frozenset[str]] = runcaches.PerRun(  # type: ignore[assignment]
    lambda: SizedLRU(16_000_000, 1 << 16))

#: reduced forms for :func:`may_occur_in`, bounded in characters
_REDUCED_CACHE: SizedLRU[str] = runcaches.PerRun(lambda: SizedLRU(16_000_000, 1 << 16))  # type: ignore[assignment]


def clear_cache() -> None:
    """Forget every text's reduced form."""
    _REDUCED_CACHE.clear()
    _WORDS_CACHE.clear()
