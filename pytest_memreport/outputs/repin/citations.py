"""Where a cited path (and its ranges) is spelled in a line of text.

``pkg/a.py`` is found only as a whole path: not inside ``src/pkg/a.py``, not in
``pkg/a.py.bak``, not in a URL of another repository (``/blob/<sha>/pkg/a.py``
is preceded by ``/``). The ranges written right after it are read in the forms
reports use: ``:10-20``, ``:10–20``, ``:10``, ``#L10-L20`` and continuations
``:10-20,30-34`` / ``:10-20, 30–34``. A range written apart from its path, later in
the same line, continues the citation before it (:func:`continuation_changes`):
```a.ts:204`, `:505```, "cols at :249-270", ```a.ts:1`, `9```.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from ...runcaches import run_cached

from ...model import LineRange
from ..lineindex import CharEdit

from ...dialects.core.grammar import CODE_SPAN_RANGE, LONE_RANGE, RANGE_AFTER_COMMA, RANGE_AFTER_PATH, whole_path


@dataclass(frozen=True)
class RangeToken:
    """One range written after a path: characters ``[start, end)`` of the line."""

    start: int
    end: int
    lines: LineRange
    dash: str | None  # as written between the numbers, ``None`` for one line


@dataclass(frozen=True)
class Occurrence:
    start: int
    end: int
    ranges: tuple[RangeToken, ...]


@run_cached(maxsize=4096)
def _path_pattern(path: str) -> re.Pattern:
    return whole_path(path)


def occurrences(text: str, path: str, start: int = 0, end: int | None = None) -> list[Occurrence]:
    """Every whole-path occurrence of ``path`` in ``text[start:end]``, with its ranges."""
    if not path:
        return []
    stop = len(text) if end is None else end
    out = []
    for m in _path_pattern(path).finditer(text, start, stop):
        out.append(Occurrence(m.start(), m.end(), tuple(_ranges(text, m.end(), stop))))
    return out


def _ranges(text: str, at: int, stop: int) -> list[RangeToken]:
    first = RANGE_AFTER_PATH.match(text, at, stop)
    if first is None:
        return []
    tokens = [_token(first.start(2), first.end(), first.group(2), first.group(3), first.group(4))]
    pos = first.end()
    while True:
        more = RANGE_AFTER_COMMA.match(text, pos, stop)
        if more is None or (more.end() < stop and text[more.end()].isalnum()):
            break
        tokens.append(_token(more.start(1), more.end(), more.group(1), more.group(2), more.group(3)))
        pos = more.end()
    return [t for t in tokens if t is not None]


def _token(start: int, end: int, a: str, dash: str | None, b: str | None) -> RangeToken | None:
    first, last = int(a), int(b) if b else int(a)
    if first < 1 or last < first:
        return None
    return RangeToken(start, end, LineRange(first, last), dash if b else None)


def spell_range(token: RangeToken, new: LineRange) -> str:
    """``new`` written as ``token`` was (its dash; ``L`` for an anchor)."""
    if new.start == new.end:
        return str(new.start)
    dash = token.dash or "-"
    return f"{new.start}{dash}{new.end}"


def respell_range(written: str, new: LineRange) -> str:
    """``new`` spelled as the range ``written`` is spelled (``L3-L4``, ``3–4``, ``7``): a range
    read apart from any path (:func:`spell_range` spells one read after its path)."""
    dash = next((c for c in written if c in "-–"), "-")
    prefix = "L" if written.startswith("L") else ""
    if new.start == new.end:
        return f"{prefix}{new.start}"
    second = "L" if "L" in written[1:] else ""
    return f"{prefix}{new.start}{dash}{second}{new.end}"


def written_after(written: str, old_path: str, new_path: str) -> str:
    """How a citation written ``written`` for ``old_path`` reads for ``new_path``:
    the path itself, an absolute checkout path ending in it (its root kept), or a
    partial path or bare name (as many trailing segments of the new path)."""
    if written == old_path:
        return new_path
    if written.endswith("/" + old_path):
        return written[: -len(old_path)] + new_path
    if old_path.endswith("/" + written):
        segments = written.count("/") + 1
        return "/".join(new_path.split("/")[-segments:])
    return written


def citation_changes(line: int, text: str, written: str, old_path: str, new_path: str,
                     ranges: dict[LineRange, LineRange], reason: str,
                     start: int = 0, end: int | None = None, outside=()) -> list[CharEdit]:
    """Edits spelling ``written`` (cited for ``old_path``) as ``new_path``, and each range
    in ``ranges`` (old → new) written after it, within ``text[start:end]``.

    ``outside`` are spans not to touch (a URL is rewritten as a whole elsewhere).
    """
    changes: list[CharEdit] = []
    new_written = written_after(written, old_path, new_path)
    for occ in occurrences(text, written, start, end):
        if any(s <= occ.start < e for s, e in outside):
            continue
        if new_written != written:
            changes.append(CharEdit(line, occ.start, occ.end, new_written, reason))
        for token in occ.ranges:
            new = ranges.get(token.lines)
            if new is not None and new != token.lines:
                changes.append(CharEdit(line, token.start, token.end, spell_range(token, new), reason))
    return changes


def has_range(text: str, written: str, lines: LineRange, start: int = 0, end: int | None = None) -> bool:
    """Whether ``lines`` is written right after some occurrence of ``written`` in ``text[start:end]``."""
    return any(token.lines == lines for occ in occurrences(text, written, start, end) for token in occ.ranges)


def continuation_changes(line: int, text: str, anchors: list[int], ranges: dict[LineRange, LineRange],
                         reason: str, outside=()) -> list[CharEdit]:
    """The edit of a range written apart from its path: the one (old → new in ``ranges``)
    nearest after one of ``anchors`` (where the cited path or ``SRC-n`` ends in the line).

    A reader binds ``:505`` to the citation written last before it, so of several
    candidates the one closest to an anchor is the continuation.
    """
    best: tuple[int, CharEdit] | None = None
    for m in [*LONE_RANGE.finditer(text), *CODE_SPAN_RANGE.finditer(text)]:
        if any(s <= m.start() < e for s, e in outside):
            continue
        token = _token(m.start(1), m.end(3) if m.group(3) else m.end(1), m.group(1), m.group(2), m.group(3))
        if token is None:
            continue
        new = ranges.get(token.lines)
        if new is None or new == token.lines:
            continue
        before = [anchor for anchor in anchors if anchor <= m.start()]
        if not before:
            continue
        distance = m.start() - max(before)
        if best is None or distance < best[0]:
            best = (distance, CharEdit(line, token.start, token.end, spell_range(token, new), reason))
    return [best[1]] if best else []
