"""Status lines: ``<qualifier> <axis> conclusion status: <value>``, several
per line allowed (table cells), each with the column of its value so a
write-back can rewrite it in place.

The few backward scans (axis and qualifier words before the key) are bounded
by the previous match, so a line is read in linear time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


_STATUS_KEY = re.compile(r"(?i)\bconclusion[ \t]+status[*_`]*[ \t]*:[*_` \t]*")
_KNOWN_VALUE = re.compile(
    r"(?i)(causally[ \t]+supported|absent|inapplicable|uninspected|claimed|afforded|observed"
    r"|wired|implemented)(?![\w-])"
)
_ANY_VALUE = re.compile(r"[A-Za-z][\w-]*")


@dataclass(frozen=True)
class StatusMatch:
    """``<qualifier> <axis> conclusion status: <value>`` found in a line.

    ``column`` is the 0-based offset of ``value`` in the line (the place a
    write-back replaces); ``value`` is lower-cased, ``""`` when none is written.
    """

    axis: str
    qualifier: str
    value: str
    column: int


_MAX_WORD = 40
#: a longer run of words before the axis is a sentence, not a qualifier
MAX_QUALIFIER_WORDS = 6


def _word_before(line: str, end: int, floor: int) -> tuple[str, int]:
    """The word ending at ``end`` and where it starts, or ``("", end)``.

    A word is letters, digits, ``'``, ``-`` and ``_``, starting with a letter
    (leading digits or hyphens are dropped: a ``-`` bullet is not a word), no
    longer than a word gets; the scan never goes below ``floor``.
    """
    start = end
    limit = max(floor, end - _MAX_WORD - 1)
    while start > limit and (line[start - 1].isalnum() or line[start - 1] in "'-_"):
        start -= 1
    if start == limit and start > floor and (line[start - 1].isalnum() or line[start - 1] in "'-_"):
        return "", end  # too long to be a word of a status line
    while start < end and not line[start].isalpha():
        start += 1
    return (line[start:end], start) if start < end else ("", end)


def _standalone(line: str, start: int) -> bool:
    """Whether the word at ``start`` stands alone (begins the line or follows a space)."""
    return start == 0 or line[start - 1].isspace() or line[start - 1] in "*_`"


def find_statuses(line: str) -> list[StatusMatch]:
    """Every status statement in ``line``, several per line allowed (table cells).

    The axis is the word before ``conclusion status``; the qualifier is the run
    of words before the axis, separated by single spaces and stopped by any
    punctuation (a full stop ending the previous status, a bullet, a cell
    boundary). A run longer than :data:`MAX_QUALIFIER_WORDS` words is the
    sentence the status sits in, not a qualifier, and gives none. Values are
    the vocabulary (``causally supported`` is two words) or else the first
    word written.
    """
    found: list[StatusMatch] = []
    if "conclusion" not in line.casefold():  # the key's first word, as the pattern's (?i) reads it
        return found
    floor = 0  # backward scans never cross the previous status
    for key in _STATUS_KEY.finditer(line):
        position = key.start()
        while position > floor and line[position - 1] in "*_`":
            position -= 1
        while position > floor and line[position - 1] == " ":
            position -= 1
        axis, position = _word_before(line, position, floor)
        words: list[str] = []
        if axis and _standalone(line, position):
            while position - 1 > floor and line[position - 1] == " " and line[position - 2] != " ":
                word, start = _word_before(line, position - 1, floor)
                if not word or not _standalone(line, start):
                    break
                words.append(word)
                position = start
                if len(words) > MAX_QUALIFIER_WORDS:
                    words = []
                    break
        value_at = key.end()
        known = _KNOWN_VALUE.match(line, value_at)
        if known:
            value = " ".join(known.group(1).lower().split())
        else:
            other = _ANY_VALUE.match(line, value_at)
            value = other.group(0).lower()[:_MAX_WORD] if other else ""
        found.append(
            StatusMatch(axis.lower(), " ".join(reversed(words)).lower(), value, value_at)
        )
        floor = key.end()
    return found
