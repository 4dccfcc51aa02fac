"""What a run's boundary states, line by line (docs/FORMATS.md §3): the revision in its many
shapes (``**Revision:**``, ``**Revision.**``, ``Frozen revision:``, ``| Revision | <sha> |``,
``Target: X at <sha>``, prose ``at `<sha>```), the repository (``github.com/owner/name``),
the subject subtree (``the subtree src/widgets of ...``), the analyst's checkout
(``Checkout: /home/ana/src/widgets``) and the run identity (``RUN `AGS-...```).

Every pattern is linear: no quantified group can match the same text in two ways.
"""

from __future__ import annotations

import re

from .grammar import GITHUB_REPOSITORY, PROSE_AT, REVISION_LABEL, TARGET_AT

#: table rows whose first cell names the revision
REVISION_ROWS = frozenset({
    "revision", "frozen revision", "reviewed revision", "reviewed revision/version", "pinned revision",
    "commit", "pinned commit", "reviewed commit", "pin", "sha", "head", "revision / commit",
})
_SUBTREE = re.compile(
    r"(?i)\bsub-?tree[*_]*[ \t]+[`*_]*([\w.@+-]+(?:/[\w.@+-]+)*)/?[`*_]*[ \t,]+(?:of|in|inside|within)\b"
)
_CHECKOUT = re.compile(r"(?i)(?<![\w-])(?:local[ \t]+)?checkout[*_]*[ \t]*(?::|\||\*\*)[ \t|*_`:]*(~?/[^\s`|*]+)")
#: ``RUN `AGS-...```, ``Run ID | `X` ``
_IDENTITY = re.compile(r"(?<![\w-])(?:RUN|Run)[ \t]+`([^`\s]{3,120})`")
_IDENTITY_ROW = re.compile(r"(?i)^run\b[\w /]*\bid$")


def revision_in(text: str) -> str | None:
    """A revision stated on one line in a labelled shape (not prose)."""
    for pattern in (REVISION_LABEL, TARGET_AT):
        match = pattern.search(text)
        if match:
            return match.group(1).lower()
    return None


def revision_in_prose(text: str) -> str | None:
    match = PROSE_AT.search(text)
    return match.group(1).lower() if match else None


def repository_in(text: str) -> str | None:
    """``owner/name`` of the first ``github.com/owner/name`` in ``text``."""
    match = GITHUB_REPOSITORY.search(text)
    if match is None:
        return None
    name = match.group(2).rstrip(".")
    if name.endswith(".git"):
        name = name[:-4]
    return f"{match.group(1)}/{name}" if name else None


def subject_in(text: str) -> str | None:
    match = _SUBTREE.search(text)
    return match.group(1).strip("/") if match else None


def checkout_in(text: str) -> str | None:
    match = _CHECKOUT.search(text)
    return match.group(1).rstrip("/.,;)") if match else None


def identity_in(text: str) -> str | None:
    match = _IDENTITY.search(text)
    return match.group(1) if match else None


def identity_row(first_cell: str, value: str) -> str | None:
    """A ``| Run / result ID | `X` |`` row's identity."""
    if not _IDENTITY_ROW.match(" ".join(first_cell.strip("*_` ").casefold().split())):
        return None
    token = value.strip().strip("`*_ ").split()
    return token[0].strip("`") if token else None


