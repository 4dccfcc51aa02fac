"""Chaining a quotation's parts across elisions into whole matches, in bounded memory.

A part's occurrences are found only when a chain reaches that part, and
kept in a small cache bounded by how many positions it holds, so a quote of
a thousand ``...`` elisions against a large file never holds a thousand
occurrence lists at once; a part repeated across the quote is found once.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Hashable, Sequence

from ...lru import SizedLRU
from .index import Span, _TextIndex
from .pattern import MAX_GAP_CHARS, MAX_GAP_LINES

#: how many occurrence positions the per-quote cache of parts may hold
#: (a part over this is still kept until the next one is found)
HELD_POSITIONS = 400_000

Occurrences = list[tuple[int, int]]


class _PartOccurrences:
    """Each part's occurrences (spans in order, not overlapping), found on first need."""

    def __init__(self, keys: Sequence[Hashable], find: Callable[[int], Occurrences]) -> None:
        self._keys = keys
        self._find = find
        self._held: SizedLRU[tuple[Occurrences, list[int]]] = SizedLRU(HELD_POSITIONS)

    def __len__(self) -> int:
        return len(self._keys)

    def __getitem__(self, number: int) -> tuple[Occurrences, list[int]]:
        """Part ``number``'s occurrences and their start offsets."""
        key = self._keys[number]
        held = self._held.get(key)
        if held is None:
            occ = self._find(number)
            held = (occ, [start for start, _ in occ])
            self._held.put(key, held, 2 * len(occ) + 1)
        return held


def chain(index: _TextIndex, keys: Sequence[Hashable], find: Callable[[int], Occurrences]) -> list[Span]:
    """Whole-quote matches (spans of ``index``'s text, in order, not overlapping).

    ``find(n)`` gives part ``n``'s occurrences as plain-text spans; ``keys[n]``
    names what it searches for (equal keys, equal occurrences). Each match is
    every part at its earliest occurrence after the previous one, within the
    gap bound.
    """
    if len(keys) == 1:  # most quotes: nothing to chain, and no cache of parts to build
        return [index.span(start, end) for start, end in find(0)]
    parts = _PartOccurrences(keys, find)
    first, _ = parts[0]
    first = list(first)  # kept while the later parts come and go
    found: list[Span] = []
    taken_until = 0
    for start, end in first:
        if start < taken_until:
            continue
        for number in range(1, len(parts)):
            occ, occ_starts = parts[number]
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
