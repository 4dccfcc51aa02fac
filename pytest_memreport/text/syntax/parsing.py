"""Parsing with tree-sitter, once per text: the bounded parse cache, reparsing
an edit, byte-to-character offsets, and the time spent in tree-sitter.

Parsing is the expensive part, so parsed trees are kept in one bounded LRU
cache keyed by ``(language, key)``: ``key`` is whatever identifies the text
for the caller (a blob oid); without one the text itself is the key. What is
derived from a tree (definitions, tokens, regions) is kept with it, in slots
of :class:`_Parsed` that the modules deriving it fill, so asking twice about
the same blob costs one parse.
"""

from __future__ import annotations

import bisect
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from tree_sitter import Node, Parser, Tree

from ... import runcaches
from ...lru import SizedLRU
from .languages import _language, language_for


@dataclass(frozen=True)
class ParseStats:
    """Cumulative time spent inside tree-sitter and how many texts were parsed."""

    seconds: float
    parses: int


_CACHE_SIZE = 512
#: a tree-sitter tree takes about 30 bytes per byte of source (measured on
#: Python files: 2.8 MB of source, 80 MB of trees), more with tokens and indexes
_BYTES_PER_CHAR = 32
#: the parse cache's budget, in estimated bytes: about 3 MB of source
_CACHE_BYTES = 96 * 1024 * 1024
#: the run's parsed trees (:mod:`...runcaches`: kept by the engine, not by this module)
_TREES: SizedLRU[_Parsed] = runcaches.PerRun(lambda: SizedLRU(_CACHE_BYTES, _CACHE_SIZE))  # type: ignore[assignment]


class _Meter:
    """Cumulative tree-sitter time and parse count (what ``stats()`` reports)."""

    seconds = 0.0
    parses = 0


_METER: _Meter = runcaches.PerRun(_Meter)  # type: ignore[assignment]  # the run's


@contextmanager
def timed() -> Iterator[None]:
    """Adds the time spent in the block to ``stats()`` (wrap tree-sitter work only)."""
    began = time.perf_counter()
    yield
    _METER.seconds += time.perf_counter() - began


def stats() -> ParseStats:
    """The run's tree-sitter time and parse count since the last reset (zero outside a run)."""
    return ParseStats(seconds=_METER.seconds, parses=_METER.parses)


def reset_stats() -> None:
    """Zero the counters of ``stats()`` (the cache is kept)."""
    _METER.seconds, _METER.parses = 0.0, 0


def clear_cache() -> None:
    """Forget every parsed tree."""
    _TREES.clear()


class _ByteToChar:
    """Converts UTF-8 byte offsets of a text into character offsets.

    Only non-ASCII characters shift the two apart, so it records, for each of
    them, where it ends in bytes and how many extra bytes precede that point.
    """

    _NON_ASCII = re.compile(r"[^\x00-\x7f]")

    def __init__(self, text: str) -> None:
        self.identity = text.isascii()
        self.byte_ends: list[int] = []
        self.extra: list[int] = []
        if self.identity:
            return
        extra = 0
        for match in self._NON_ASCII.finditer(text):
            code = ord(match.group())
            width = 2 if code < 0x800 else 3 if code < 0x10000 else 4
            self.byte_ends.append(match.start() + extra + width)
            extra += width - 1
            self.extra.append(extra)

    def __call__(self, byte: int) -> int:
        if self.identity:
            return byte
        k = bisect.bisect_right(self.byte_ends, byte)
        return byte - (self.extra[k - 1] if k else 0)


def _end_line(node: Node) -> int:
    """The 1-based last line a node occupies (a node ending with its newline
    ends on the line before)."""
    row, column = node.end_point
    if column == 0 and row > node.start_point[0]:
        return row
    return row + 1


class _Parsed:
    """A parsed text, and slots for what is derived from it on demand: the
    definitions (filled by :mod:`.definitions`), the tokens (:mod:`.lexing`)
    and the token stream (:mod:`.tokensearch`)."""

    def __init__(self, language: str, text: str, tree: Tree) -> None:
        self.language = language
        self.text = text
        self.tree = tree
        self.char = _ByteToChar(text)
        # list[Definition] and Definition → value span
        self._definitions: list[Any] | None = None
        # the root's children as (first row, last row, start byte, end byte, is a Rust
        # attribute), and their last rows (for bisection)
        self._top_level: tuple[list[tuple[int, int, int, int, bool]], list[int]] | None = None
        self._values: dict[Any, tuple[int, int]] = {}
        # list[Token]: every token, comments included; and each one's last line
        self._lexemes: list[Any] | None = None
        self._lexeme_end_lines: list[int] = []
        # tokens without comments, their end lines and start offsets
        self._code: tuple[list[Any], list[int], list[int]] | None = None
        # characters lexed window by window so far, and each window's tokens and their end
        # lines (see lexing._window_code_tokens)
        self._windowed = 0
        self._windows: dict[tuple[int, int], tuple[list[Any], list[int]]] = {}
        self._code_index: tuple[str, dict[str, int], list[int]] | None = None

    def byte(self, offset: int) -> int:
        """The UTF-8 byte offset of character ``offset``."""
        if self.char.identity:
            return offset
        return len(self.text[:offset].encode("utf-8", "surrogatepass"))


@lru_cache(maxsize=None)
def _parser(language: str) -> Parser:
    return Parser(_language(language))


def parse_source(language: str, source: bytes) -> Tree:
    """A fresh parse of ``source``, not cached, counted in ``stats()``."""
    with timed():
        tree = _parser(language).parse(source)
    _METER.parses += 1
    return tree


def _parse(text: str, language: str, key: str | None) -> _Parsed:
    """The cached parse of ``text``; at most one parse per (language, key)."""
    cache_key = (language, "key", key) if key is not None else (language, "text", hash(text), len(text))
    parsed = _TREES.get(cache_key)
    # Equal keys with different texts would be a caller's mistake; comparing
    # is a memcmp (identity first), far cheaper than a wrong answer.
    if parsed is not None and (parsed.text is text or parsed.text == text):
        return parsed
    tree = parse_source(language, text.encode("utf-8", "surrogatepass"))
    parsed = _Parsed(language, text, tree)
    _TREES.put(cache_key, parsed, len(text) * _BYTES_PER_CHAR)
    return parsed


def reparse(text: str, path: str, key: str, previous_text: str, previous_key: str) -> None:
    """Parse ``text`` (cached under ``key``) as an edit of ``previous_text``,
    whose parse is cached under ``previous_key``: tree-sitter reuses every
    subtree outside the changed span, which for a file edited in a few places
    costs a fraction of a fresh parse, and gives the same tree. Nothing
    happens when either is unknown or the text is parsed already."""
    language = language_for(path)
    if language is None or _language(language) is None or _TREES.get((language, "key", key)) is not None:
        return
    base = _TREES.get((language, "key", previous_key))
    if base is None or base.text is not previous_text and base.text != previous_text:
        return
    old, new = previous_text.encode("utf-8", "surrogatepass"), text.encode("utf-8", "surrogatepass")
    start = _common_prefix(old, new)
    tail = _common_prefix(old[start:][::-1], new[start:][::-1])
    old_end, new_end = len(old) - tail, len(new) - tail
    with timed():
        tree = base.tree.copy()
        tree.edit(start, old_end, new_end, _point(old, start), _point(old, old_end), _point(new, new_end))
        tree = _parser(language).parse(new, tree)
    _METER.parses += 1
    _TREES.put((language, "key", key), _Parsed(language, text, tree), len(text) * _BYTES_PER_CHAR)


def _common_prefix(a: bytes, b: bytes) -> int:
    """The length of the longest common prefix: a binary search of slice
    comparisons (each a C memcmp), not a loop over bytes."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _point(source: bytes, offset: int) -> tuple[int, int]:
    """tree-sitter's (row, byte column) of a byte offset."""
    return source.count(b"\n", 0, offset), offset - (source.rfind(b"\n", 0, offset) + 1)


def _parsed_for(text: str, path: str, key: str | None) -> _Parsed | None:
    language = language_for(path)
    if language is None or _language(language) is None:
        return None
    return _parse(text, language, key)
