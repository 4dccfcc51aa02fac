"""What changed between two versions of a definition, token by token
(comments and layout do not count): :func:`body_token_diff`, :func:`same_tokens`.

Definitions are as long as their users write them (a class of ten thousand
lines is about a hundred thousand tokens, and lexing it costs seconds), so the
cost is bounded. A definition of at most :data:`WHOLE_LINES` lines is lexed
whole and compared token by token. A longer one is first aligned line by line
(:func:`token_opcodes` on its lines, the way ``git diff --patience`` aligns
them); only the regions of changed lines, a line of context either side, are
lexed (each alone) and compared by tokens. :func:`token_opcodes` itself
compares exactly (``difflib``) only inputs of at most :data:`EXACT_CELLS`
pairs, and aligns larger ones on tokens found once on each side.
"""

from __future__ import annotations

import bisect
import difflib
import textwrap
from collections.abc import Sequence

from .definitions import Definition
from .lexing import Token, drop_trailing_commas, tokens

_DIFF_CONTEXT = 3
_DIFF_HUNKS = 4
_DIFF_WIDTH = 160

#: most token pairs (old tokens x new tokens) compared exactly by ``difflib``, whose
#: matcher is quadratic (and worse on repetitive tokens): about 0.1 s on this bound
EXACT_CELLS = 250_000
#: definitions longer than this (lines, on either side) are compared by regions of changed lines
WHOLE_LINES = 400
#: how many times a stretch between unique tokens is itself split on its own unique
#: tokens before what is left is called replaced (each level is n log n)
_ANCHOR_DEPTH = 8


def body_token_diff(
    old_text: str, new_text: str, path: str, old_def: Definition, new_def: Definition,
    unless_reformatted: bool = False, *, old_key: str | None = None, new_key: str | None = None,
) -> str | None:
    """``None`` when the two definitions have the same tokens (comments and
    layout do not count); otherwise a few lines showing the changed tokens,
    ``L<old>→L<new>: context [-removed-] {+added+} context``.

    ``unless_reformatted``: ``None`` also when they differ only by the commas a formatter
    adds (:func:`same_tokens` without ``count_trailing_commas``), told from the same
    lexing that renders the difference (asking both lexes every window twice).
    Without a grammar, words of the two spans are compared instead. ``old_key`` and
    ``new_key`` (blob ids) are the keys the texts' parses are cached under, when known:
    a file parsed to find its definitions is not parsed again to lex one of them.
    """
    if old_text[old_def.start : old_def.end] == new_text[new_def.start : new_def.end]:
        return None  # the same text: no need to lex either
    segments = _segments(old_text, new_text, path, old_def, new_def, path, old_key, new_key)
    if unless_reformatted and all(
            drop_trailing_commas([t.text for t in old_tokens]) == drop_trailing_commas([t.text for t in new_tokens])
            for old_tokens, new_tokens in segments):
        return None
    changes: list[tuple[list[Token], list[Token], list[str], list[str], tuple[str, int, int, int, int]]] = []
    for old_tokens, new_tokens in segments:
        old_texts = [t.text for t in old_tokens]
        new_texts = [t.text for t in new_tokens]
        if old_texts == new_texts:
            continue
        changes.extend((old_tokens, new_tokens, old_texts, new_texts, op)
                       for op in token_opcodes(old_texts, new_texts) if op[0] != "equal")
    if not changes:
        return None
    lines = []
    for old_tokens, new_tokens, old_texts, new_texts, (_tag, i1, i2, j1, j2) in changes[:_DIFF_HUNKS]:
        old_line = _line_at(old_tokens, i1, old_def)
        new_line = _line_at(new_tokens, j1, new_def)
        parts = [" ".join(old_texts[max(0, i1 - _DIFF_CONTEXT) : i1])]
        if i2 > i1:
            parts.append(f"[-{' '.join(old_texts[i1:i2])}-]")
        if j2 > j1:
            parts.append(f"{{+{' '.join(new_texts[j1:j2])}+}}")
        parts.append(" ".join(old_texts[i2 : i2 + _DIFF_CONTEXT]))
        line = f"L{old_line}→L{new_line}: " + " ".join(p for p in parts if p)
        lines.append(line if len(line) <= _DIFF_WIDTH else line[: _DIFF_WIDTH - 1] + "…")
    if len(changes) > _DIFF_HUNKS:
        lines.append(f"… and {len(changes) - _DIFF_HUNKS} more token changes")
    return "\n".join(lines)


def same_tokens(old_text: str, new_text: str, path: str, old_def: Definition, new_def: Definition,
                count_trailing_commas: bool = True, old_path: str | None = None, *,
                old_key: str | None = None, new_key: str | None = None) -> bool:
    """Whether the two definitions have the same tokens (comments and layout do not
    count; nor, without ``count_trailing_commas``, a comma right before a closer,
    which a formatter wrapping arguments adds). Costs what :func:`body_token_diff` costs,
    without rendering anything. ``old_path``: the old text's file when it is another
    (a file renamed to another language: each side is lexed by its own grammar); the keys
    as :func:`body_token_diff` takes them."""
    if old_text[old_def.start : old_def.end] == new_text[new_def.start : new_def.end]:
        return True  # the same text: no need to lex either
    for old_tokens, new_tokens in _segments(old_text, new_text, path, old_def, new_def, old_path or path,
                                            old_key, new_key):
        old_texts = [t.text for t in old_tokens]
        new_texts = [t.text for t in new_tokens]
        if not count_trailing_commas:
            old_texts, new_texts = drop_trailing_commas(old_texts), drop_trailing_commas(new_texts)
        if old_texts != new_texts:
            return False
    return True


def _segments(old_text: str, new_text: str, path: str, old_def: Definition, new_def: Definition,
              old_path: str, old_key: str | None = None, new_key: str | None = None):
    """``(old tokens, new tokens)`` to compare: the two definitions' whole token lists
    when both are at most :data:`WHOLE_LINES` lines; else one pair per region of
    changed lines (a line of context either side), each region lexed alone."""
    old_source = old_text[old_def.start : old_def.end]
    new_source = new_text[new_def.start : new_def.end]
    old_lines, new_lines = old_source.split("\n"), new_source.split("\n")
    if len(old_lines) <= WHOLE_LINES and len(new_lines) <= WHOLE_LINES:
        old_tokens = tokens(old_text, old_path, key=old_key, span=(old_def.start, old_def.end))
        new_tokens = tokens(new_text, path, key=new_key, span=(new_def.start, new_def.end))
        if old_tokens is None or new_tokens is None:
            old_tokens = _words(old_text, old_def)
            new_tokens = _words(new_text, new_def)
        return [(old_tokens, new_tokens)]
    return [(_region_tokens(old_lines[a1:a2], old_path, old_def.lines.start + a1),
             _region_tokens(new_lines[b1:b2], path, new_def.lines.start + b1))
            for a1, a2, b1, b2 in changed_regions(old_lines, new_lines)]


def lines_same_tokens(old_lines: list[str], new_lines: list[str], path: str, open_end: bool = False) -> bool:
    """Whether two runs of lines hold the same tokens, lexing only their changed
    regions (see :func:`changed_regions`; ``open_end``: ``new_lines`` may run on past
    the end of what ``old_lines`` hold, and lines added after their end do not count)."""
    for a1, a2, b1, b2 in changed_regions(old_lines, new_lines, open_end):
        old = [t.text for t in _region_tokens(old_lines[a1:a2], path, 1)]
        if old != [t.text for t in _region_tokens(new_lines[b1:b2], path, 1)]:
            return False
    return True


def changed_regions(old_lines: list[str], new_lines: list[str],
                    open_end: bool = False) -> list[tuple[int, int, int, int]]:
    """``(old start, old end, new start, new end)`` line slices where the two differ,
    with a line of context either side (so a closer after a changed line is seen),
    overlapping regions joined; from a line alignment (:func:`token_opcodes`).
    ``open_end``: lines ``new_lines`` adds after the end of ``old_lines`` are left out."""
    regions: list[tuple[int, int, int, int]] = []
    ops = token_opcodes(old_lines, new_lines)
    if open_end and ops and ops[-1][0] == "insert" and ops[-1][1] == len(old_lines):
        ops.pop()
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            continue
        a1, a2 = max(0, i1 - 1), min(len(old_lines), i2 + 1)
        b1, b2 = max(0, j1 - 1), min(len(new_lines), j2 + 1)
        if regions and (a1 <= regions[-1][1] or b1 <= regions[-1][3]):
            a1, _, b1, _ = regions.pop()
        regions.append((a1, a2, b1, b2))
    return regions


def _region_tokens(lines: list[str], path: str, first_line: int) -> list[Token]:
    """The tokens of a few lines lexed alone (dedented: layout does not count), on
    their lines in the file; words when no grammar covers ``path``."""
    text = textwrap.dedent("\n".join(lines))
    found = tokens(text, path)
    if found is None:
        return [Token(w, 0, 0, first_line + number, "code")
                for number, row in enumerate(text.split("\n")) for w in row.split()]
    return [Token(t.text, t.start, t.end, first_line + t.line - 1, t.kind) for t in found]


def token_opcodes(old: Sequence[str], new: Sequence[str]) -> list[tuple[str, int, int, int, int]]:
    """``difflib``-style opcodes turning ``old`` into ``new``, at a bounded cost.

    Inputs of at most :data:`EXACT_CELLS` token pairs are compared by ``difflib``
    (as before: the same answer). Larger ones are first trimmed of their common
    head and tail, then aligned on tokens occurring exactly once on each side
    (the longest run of them in the same order, found in n log n, as ``git diff
    --patience`` does); each stretch between two such anchors is compared the
    same way, exactly once it fits the bound, and called replaced when it has no
    anchor of its own or the depth bound is reached. Linear in the definition's
    size apart from the bounded exact comparisons.
    """
    if len(old) * len(new) <= EXACT_CELLS:
        return list(difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes())
    blocks: list[tuple[int, int, int]] = []
    pending = [(0, len(old), 0, len(new), 0)]
    while pending:
        alo, ahi, blo, bhi, depth = pending.pop()
        while alo < ahi and blo < bhi and old[alo] == new[blo]:
            blocks.append((alo, blo, 1))
            alo, blo = alo + 1, blo + 1
        while alo < ahi and blo < bhi and old[ahi - 1] == new[bhi - 1]:
            ahi, bhi = ahi - 1, bhi - 1
            blocks.append((ahi, bhi, 1))
        if alo == ahi or blo == bhi:
            continue
        if (ahi - alo) * (bhi - blo) <= EXACT_CELLS:
            matcher = difflib.SequenceMatcher(None, old[alo:ahi], new[blo:bhi], autojunk=False)
            blocks.extend((alo + i, blo + j, size) for i, j, size in matcher.get_matching_blocks() if size)
            continue
        if depth >= _ANCHOR_DEPTH:
            continue  # what is left is replaced: no further splitting is paid for
        anchors = _unique_anchors(old, alo, ahi, new, blo, bhi)
        previous_a, previous_b = alo, blo
        for i, j in anchors:
            blocks.append((i, j, 1))
            pending.append((previous_a, i, previous_b, j, depth + 1))
            previous_a, previous_b = i + 1, j + 1
        if anchors:
            pending.append((previous_a, ahi, previous_b, bhi, depth + 1))
    return _opcodes(_merged(blocks), len(old), len(new))


def _unique_anchors(old, alo: int, ahi: int, new, blo: int, bhi: int) -> list[tuple[int, int]]:
    """Positions ``(i, j)`` of tokens found exactly once in ``old[alo:ahi]`` and once in
    ``new[blo:bhi]``, the longest run of them in the same order on both sides."""
    seen_old: dict[str, int] = {}
    for i in range(alo, ahi):
        seen_old[old[i]] = -1 if old[i] in seen_old else i
    seen_new: dict[str, int] = {}
    for j in range(blo, bhi):
        token = new[j]
        if seen_old.get(token, -1) >= 0:
            seen_new[token] = -1 if token in seen_new else j
    pairs = sorted((seen_old[t], j) for t, j in seen_new.items() if j >= 0)
    return _longest_increasing(pairs)


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` (sorted by their first item) whose second
    items increase: patience sorting, n log n."""
    tails: list[int] = []  # the second item ending the best run of each length
    ends: list[int] = []  # which pair ends it
    back: list[int] = []
    for index, (_, j) in enumerate(pairs):
        length = bisect.bisect_left(tails, j)
        if length == len(tails):
            tails.append(j)
            ends.append(index)
        else:
            tails[length] = j
            ends[length] = index
        back.append(ends[length - 1] if length else -1)
    run = []
    index = ends[-1] if ends else -1
    while index >= 0:
        run.append(pairs[index])
        index = back[index]
    return run[::-1]


def _merged(blocks: list[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """Matching blocks in order, adjacent ones joined."""
    out: list[tuple[int, int, int]] = []
    for i, j, size in sorted(blocks):
        if out and out[-1][0] + out[-1][2] == i and out[-1][1] + out[-1][2] == j:
            out[-1] = (out[-1][0], out[-1][1], out[-1][2] + size)
        else:
            out.append((i, j, size))
    return out


def _opcodes(blocks, old_size: int, new_size: int) -> list[tuple[str, int, int, int, int]]:
    """``difflib.SequenceMatcher.get_opcodes`` from matching blocks."""
    ops = []
    i = j = 0
    for ai, bj, size in [*blocks, (old_size, new_size, 0)]:
        tag = "replace" if i < ai and j < bj else "delete" if i < ai else "insert" if j < bj else ""
        if tag:
            ops.append((tag, i, ai, j, bj))
        if size:
            ops.append(("equal", ai, ai + size, bj, bj + size))
        i, j = ai + size, bj + size
    return ops


def _words(text: str, definition: Definition) -> list[Token]:
    line = definition.lines.start
    words: list[Token] = []
    for number, row in enumerate(text[definition.start : definition.end].split("\n")):
        words.extend(Token(w, 0, 0, line + number, "code") for w in row.split())
    return words


def _line_at(found: list[Token], index: int, definition: Definition) -> int:
    if index < len(found):
        return found[index].line
    return found[-1].line if found else definition.lines.start
