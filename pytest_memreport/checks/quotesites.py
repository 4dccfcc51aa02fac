"""Which of the files a row, cell or sentence cites holds a quotation (docs/FORMATS.md §3).

A quotation in a row or sentence that cites several files is bound, when read, to
the citation nearest it; a reader holds it to all of them: it is true if one of
them has it at the pin, and the result names which. :func:`holder` is that
choice, made once the written paths can be resolved against the pinned tree.
Pure: the caller gives the snapshot and the tree's :class:`.paths.TreeIndex`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..gitstore import RepoError
from ..model import Evidence, EvidenceKind
from . import paths as tree_paths
from . import verify

#: the other files looked at, at most (a row citing more is a list, not a source)
MAX_OTHERS = 8


@dataclass(frozen=True)
class Holding:
    """Which other file holds a quotation (``path``; ``None``: its own file, or none of
    them), and whether every file asked could be read (``complete``: then the answer is
    the pinned tree's for good, and may be kept)."""

    path: str | None
    complete: bool = True


def cites_others(evidence: Evidence) -> bool:
    """Whether ``evidence`` is a quotation whose row or sentence cites other files too
    (which :func:`holder` looks in)."""
    return evidence.kind is EvidenceKind.QUOTE and bool(evidence.context)


def holder(evidence: Evidence, own: str | None, snapshot, index: tree_paths.TreeIndex,
           subject: str | None) -> Holding:
    """The path of another file cited beside ``evidence`` (its ``context``) that holds
    the quotation, when its own file (``own``, resolved; ``None`` when it names none)
    does not. Each file is read once (blobs are cached by the snapshot)."""
    if not cites_others(evidence):
        return Holding(None)
    # Each file on its own: a quotation with context files would otherwise look in them too.
    complete = True
    if own is not None:
        held = _holds(replace(evidence, path=own, context=()), snapshot)
        if held:
            return Holding(None)
        complete = held is not None
    for written in evidence.context[:MAX_OTHERS]:
        found = tree_paths.resolve(index, written, "file", subject, absolute=written.startswith("/"))
        if found.path is None or found.path == own:
            continue
        other = replace(evidence, path=found.path, cited_lines=None, context=())
        held = _holds(other, snapshot)
        if held:
            return Holding(found.path, complete)
        complete = complete and held is not None
    return Holding(None, complete)


def _holds(evidence: Evidence, snapshot) -> bool | None:
    """Whether the file holds the quotation, its first letter perhaps adapted to the
    sentence around it (``the note says "every parcel ..."`` of ``Every parcel ...``).
    ``None`` for a file the clone cannot read: it holds nothing here (its own item says
    why), until the clone has it."""
    text = evidence.text or ""
    variants = [evidence]
    if text[:1].isalpha():
        variants.append(replace(evidence, text=text[0].swapcase() + text[1:]))
    try:
        return any(verify.check_at_pin(variant, snapshot, with_symbol=False).ok for variant in variants)
    except RepoError:
        return None
