"""Words as matching sees them: what a word character is, and which words of
a quotation are likely rare in a file (anchors for the locator, search terms
for drift)."""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+")
#: ASCII bytes: a word character (``\w``: a letter, a digit, ``_``) to itself, any other to a space
_ASCII_WORD_BYTES = bytes(c if chr(c).isalnum() or c == ord("_") else ord(" ") for c in range(128)).ljust(256, b" ")
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


def split_words(text: str) -> list[str]:
    """``text``'s words in order (what ``\\w+`` finds). An ASCII text, the common case, is
    split at C speed: its other characters made spaces, then split (three times faster than
    the regex on a quotation, which matching reads the words of several times)."""
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_WORD_BYTES).decode("ascii").split()
    return _WORD.findall(text)


def _is_word(ch: str) -> bool:
    # the same test as the regex ``\w`` (sre: alnum or underscore)
    return ch.isalnum() or ch == "_"


def words_of(text: str) -> set[str]:
    """The words a text holds whole, as :attr:`.pattern.QuotePattern.whole_words` reads a
    quote's (``\\w+``): those of the text and those of the text with its backticks
    dropped, which a quote of it shows joined (`` `foo`s `` reads as ``foos``)."""
    words = set(split_words(text))
    if "`" in text:
        words.update(split_words(text.replace("`", "")))
    return words
