"""The file region closest to a quotation that was not found (rapidfuzz)."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from rapidfuzz import fuzz
from rapidfuzz.distance import ScoreAlignment

from ...model import LineRange
from .index import _index_for
from .pattern import QuotePattern, compile_quote


@dataclass(frozen=True, slots=True)
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
        return {"lines": self.lines.pair(), "text": self.text, "score": round(self.score, 1)}


def nearest(pattern: QuotePattern | str, text: str, *, key: object = None,
            near: LineRange | None = None) -> Candidate | None:
    """The whole file lines that best match a quotation, or ``None`` when the
    text (or the quote) has nothing to compare.

    Lines are compared whitespace-normalized, without backticks and
    line-start markers: rapidfuzz's partial-ratio alignment finds the region,
    then the range of whole lines around it that best matches the quote wins.
    Where the file holds those lines more than once, the copy nearest ``near`` (the
    lines the quote was cited at, or found at before) is the one shown.
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
    if near is not None:
        a, b = _nearest_copy(hay.norms, a, b, hay.numbers, near)
    lines = LineRange(hay.numbers[a], hay.numbers[b])
    original = text.split("\n")[lines.start - 1 : lines.end]
    return Candidate(lines=lines, text="\n".join(original), score=round(score, 1))


#: longest quote end aligned in full: rapidfuzz's partial alignment grows
#: quadratically with the needle on repetitive text (800 characters against
#: 400 KB of "a a a": seconds; a 6,000-character quote: minutes)
_ALIGN_CHARS = 256


def _alignment(needle: str, hay: str) -> ScoreAlignment:
    found = fuzz.partial_ratio_alignment(needle, hay)
    assert found is not None, "with no score_cutoff, rapidfuzz always aligns"
    return found


def _aligned_region(needle: str, hay: str) -> tuple[int, int]:
    """``(start, end)`` in ``hay`` of the region best aligned with ``needle``.

    A long needle is aligned by its first and by its last ``_ALIGN_CHARS``
    characters (whichever aligns better), the region stretched to the
    needle's length: the same place for any quote that is mostly intact.
    """
    if len(needle) <= _ALIGN_CHARS:
        found = _alignment(needle, hay)
        return found.dest_start, found.dest_end
    head = _alignment(needle[:_ALIGN_CHARS], hay)
    tail = _alignment(needle[-_ALIGN_CHARS:], hay)
    if head.score >= tail.score:
        return head.dest_start, min(len(hay), head.dest_start + len(needle))
    return max(0, tail.dest_end - len(needle)), tail.dest_end


def _nearest_copy(norms: list[str], a: int, b: int, numbers: list[int], near: LineRange) -> tuple[int, int]:
    """Of the places holding the same (normalized) lines as ``norms[a:b + 1]``, the one whose
    first line is nearest ``near``: the same text twice in a file scores the same, and the
    first copy would be shown for a quote cited far below it."""
    window = norms[a : b + 1]
    size = len(window)
    copies = [start for start in range(len(norms) - size + 1)
              if norms[start] == window[0] and norms[start : start + size] == window]
    best = min(copies, key=lambda start: abs(numbers[start] - near.start), default=a)
    return best, best + size - 1
