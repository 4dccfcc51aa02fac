"""Record IDs (``PREFIX-KIND-slug``): finding them in a line, a line that is
only an ID, an ``On <ID>`` annotation line and a heading that declares a
record and names it.

The patterns are linear on adversarial input: no quantified group can match
the same text in two ways.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...model import RECORD_KINDS


_KINDS = "|".join(RECORD_KINDS)
#: ``PREFIX-KIND-slug``; the slug may end in hyphens here, which :func:`find_record_ids` trims.
RECORD_ID = re.compile(rf"(?<![\w-])([A-Z]+)-({_KINDS})-([a-z0-9][a-z0-9-]*)")
#: what every record ID holds: its kind between hyphens (one scan in C skips the other lines)
_KIND_HINT = re.compile(rf"-(?:{_KINDS})-")
#: a whole line that is only a record ID (markup already stripped)
RECORD_ID_LINE = re.compile(rf"([A-Z]+)-({_KINDS})-([a-z0-9]+(?:-[a-z0-9]+)*)")
#: ``On <ID>`` starting an annotation
ANNOTATION_LINE = re.compile(rf"On[ \t]+([A-Z]+-(?:{_KINDS})-[a-z0-9]+(?:-[a-z0-9]+)*)")
#: a heading that declares a record and names it: ``MEM-OBJ-cache — Cache index``
HEADED_RECORD = re.compile(
    rf"(On[ \t]+)?([A-Z]+-(?:{_KINDS})-[a-z0-9]+(?:-[a-z0-9]+)*)[ \t]+[—–-]{{1,3}}[ \t]+(\S.*)"
)


@dataclass(frozen=True)
class RecordIdMatch:
    """A record ID found in a line."""

    id: str
    lens: str
    kind: str
    column: int


def find_record_ids(line: str) -> list[RecordIdMatch]:
    """Every record ID in ``line``, left to right."""
    if _KIND_HINT.search(line) is None:
        return []
    found: list[RecordIdMatch] = []
    for match in RECORD_ID.finditer(line):
        slug = match.group(3).rstrip("-")
        end = match.start(3) + len(slug)
        # ``MEM-OBJ-fooBar`` or ``MEM-OBJ-foo_bar`` is not an ID: the slug alphabet is closed.
        if not slug or (end < len(line) and (line[end].isalnum() or line[end] == "_")):
            continue
        lens, kind = match.group(1), match.group(2)
        found.append(RecordIdMatch(f"{lens}-{kind}-{slug}", lens, kind, match.start()))
    return found


def split_record_id(record_id: str) -> tuple[str, str]:
    """``(lens, kind)`` of a well-formed record ID."""
    lens, kind, _ = record_id.split("-", 2)
    return lens, kind
