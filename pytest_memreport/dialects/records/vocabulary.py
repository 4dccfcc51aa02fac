"""The record dialect's vocabulary: its section titles, a route's named
fields, and the line patterns of ``Label:``, ``Part of:`` and ``Selection
predicate:`` (docs/FORMATS.md, record reports).
"""

from __future__ import annotations

import re


#: Section titles of a record report, in their usual order (docs/FORMATS.md). In
#: a plain-text rendering a bare line with one of these titles ends a record.
SECTION_TITLES: tuple[str, ...] = (
    "Boundary and evidence",
    "Core ideas",
    "Shared records",
    "Components",
    "Operative objects",
    "Routes",
    "Claims",
    "Evidenced absences",
    "Behavioral-authority paths",
    "Annotations",
    "Write side",
    "Read-back",
    "Integration issues",
    "Limitations and checks",
)
_TITLES = frozenset(title.casefold() for title in SECTION_TITLES)

#: The named fields of a route's bullets.
ROUTE_FIELDS: tuple[str, ...] = (
    "Immediate return",
    "Later read-back",
    "Delegated visibility",
    "Selection predicate",
    "Invalidation or expiry",
    "Activation or effect",
    "Evidence limits",
)

LABEL = re.compile(r"Label[ \t]*:[ \t]*(.*)")
PART_OF = re.compile(r"Part of[ \t]*:[ \t]*(.*)")
SELECTION = re.compile(r"Selection predicate[ \t]*:[ \t]*(.*)")
ROUTE_FIELD = re.compile("(?:" + "|".join(re.escape(name) for name in ROUTE_FIELDS) + r")[ \t]*:")
INLINE_PREDICATES = "memreport"


def same_commit(one: str, other: str) -> bool:
    """Whether two written shas name the same commit (a short sha is a prefix)."""
    return one.startswith(other) or other.startswith(one)


def is_section_title(text: str) -> bool:
    """Whether ``text`` is one of the record report's section titles."""
    return text.strip().rstrip(":").strip().casefold() in _TITLES
