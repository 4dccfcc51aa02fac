"""The rendering damage undone when matching, and the text forms that undo it.

A quotation is *found* when it occurs in the file after undoing exactly the
damage that rendering a report does (docs/FORMATS.md §5, what is forgiven in a quotation)
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
  in order, each gap at most :data:`.pattern.MAX_GAP_CHARS` characters and
  :data:`.pattern.MAX_GAP_LINES` line breaks. A gap may contain anything, including
  literal dots, so a JS spread ``...instructions`` (which looks like an
  elision) is still found. Empty parts are dropped.
* **Token edges.** A quote that starts (ends) with a word character must not
  start (end) inside a word of the file: ``= 200`` is not found in ``= 2000``.
  An edge next to an elision is exempt (an elision may cut a word).

Nothing else is undone: a changed digit, identifier, operator or letter case
is not found.

The helpers below apply that rule to a text: whitespace removed or canonical,
word boundaries marked, line-start markers blanked in place.
"""

from __future__ import annotations

import re

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
_WS = re.compile(r"\s+")
_SPACES = re.compile(r"\s*")
_LOOSE_SPACE = re.compile(r" (?!\w)|(?<!\w) ")
#: what the relaxed forms drop besides whitespace: every marker and bullet character
_RELAXED_OUT = "#/*>-;+•!"
#: a word boundary (as ``\\b`` sees it), marked in scan forms by a NUL
_BOUNDARY = re.compile(r"\b")
#: what a scan form has beyond the whitespace-free text: marks and kept spaces
_UNMARK = str.maketrans("", "", "\0 ")
#: hops over N non-whitespace characters (a select without an offset table)
_SKIPS = tuple((n, re.compile(r"(?:\s*\S){%d}" % n)) for n in (256, 64, 16, 4, 1))


def _strip(text: str) -> str:
    """``text`` without whitespace."""
    return "".join(text.split())


def _relax(text: str) -> str:
    """``text`` without marker and bullet characters (:data:`_RELAXED_OUT`): a replace per
    character present (with a deleting table, ``str.translate`` looks every character up in
    it: four to six times slower on real files, most on those with non-ASCII text)."""
    for char in _RELAXED_OUT:
        if char in text:
            text = text.replace(char, "")
    return text


def reduced(text: str) -> str:
    """``text`` without backticks, whitespace and marker characters: the form in which any
    occurrence of a quotation holds each of its parts (their ``relaxed`` form), so that a
    text lacking one holds none (:mod:`.prefilter`), and one holding no more copies of a
    quotation than found as written holds nothing else (:func:`.locate.as_written`)."""
    return _relax(_strip(text.replace("`", "")))


def _boundaries(text: str) -> str:
    """``text`` with a NUL at every word boundary."""
    return _BOUNDARY.sub("\0", text)


def _canonical(text: str) -> str:
    """The whitespace rule applied: runs collapse, and a space survives only
    between two word characters."""
    return _LOOSE_SPACE.sub("", _WS.sub(" ", text))


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
