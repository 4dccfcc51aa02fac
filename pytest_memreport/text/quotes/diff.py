"""A compact word-level diff of a quotation against the region found instead."""

from __future__ import annotations

import re

from rapidfuzz.distance import Indel

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
    # The words aligned by rapidfuzz (their longest common subsequence, in C), which is
    # still quadratic: a quote against one huge line compares at most the words that could
    # correspond.
    shown = min(len(old), _DIFF_MAX_TOKENS)
    clipped = len(old) > shown or len(new) > 2 * shown + _DIFF_SLACK
    old, new = old[:shown], new[: 2 * shown + _DIFF_SLACK]
    hunks = _changes(Indel.opcodes([t for _, t in old], [t for _, t in new]))
    lines: list[str] = []
    shown_to = 0  # the quote's words shown so far: context never repeats them
    for i1, i2, j1, j2 in hunks[:_MAX_HUNKS]:
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
    if lines:
        return "\n".join(lines)
    if _blank_lines(quote) != _blank_lines(candidate):
        # The words agree and the lines do not: a blank line came or went (a formatter's doing).
        return (f"  (the same words; blank lines differ: {_blank_lines(quote)} quoted, "
                f"{_blank_lines(candidate)} found)")
    return "  (no difference after normalization)"


def _changes(opcodes) -> list[tuple[int, int, int, int]]:
    """The changed stretches ``(i1, i2, j1, j2)`` of an alignment of the two word lists (an
    insertion beside a deletion is one change: a word replaced, as a reader sees it)."""
    changes: list[tuple[int, int, int, int]] = []
    for op in opcodes:
        if op.tag == "equal":
            continue
        if changes and changes[-1][1] == op.src_start and changes[-1][3] == op.dest_start:
            changes[-1] = (changes[-1][0], op.src_end, changes[-1][2], op.dest_end)
        else:
            changes.append((op.src_start, op.src_end, op.dest_start, op.dest_end))
    return changes


def _blank_lines(text: str) -> int:
    # A cited range's recorded lines may end (or start) with a blank line it cites: an edge
    # newline counts. A quotation and a candidate never have one (both are trimmed).
    return sum(1 for line in text.split("\n") if not line.strip())


def _diff_tokens(text: str) -> list[tuple[bool, str]]:
    return [(m.start() > 0 and text[m.start() - 1].isspace(), m.group()) for m in _DIFF_TOKEN.finditer(text)]


def _join(tokens: list[tuple[bool, str]]) -> str:
    return "".join((" " if space else "") + tok for space, tok in tokens).strip()


def _clip(line: str, width: int) -> str:
    return line if len(line) <= width else line[: max(width - 1, 1)] + "…"
