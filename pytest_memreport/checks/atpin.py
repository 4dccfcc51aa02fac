"""Evidence checked at its pin, a batch at a time: a pure function of the evidence and the
pinned snapshot (the engine's :class:`~..engine.pins.PinChecks` plans the batches, keeps
the results and adds what only the whole run knows).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..gitstore import RepoError
from ..model import Evidence, EvidenceKind, EvidenceRole
from ..text import match
from . import attributed, symbolrefs, verify
from .drift import search


def check_batch(evidence: Sequence[Evidence], snapshot, want_symbols: bool,
                raising: bool = False) -> list[verify.PinResult | None]:
    """Each piece of ``evidence`` checked in ``snapshot``, in order: its files read in one
    batch; a note's phrases that may search the whole tree, and the quotations their files
    plainly lack (the search says where the tree holds them instead), asked of ``git grep``
    at once, and answered on another core while the others are located.
    A check that raises gives ``None`` (its own item checks it again and says why), or
    propagates when ``raising``."""
    snapshot.prefetch(e.path for e in evidence if e.kind in (EvidenceKind.QUOTE, EvidenceKind.LINES))
    attributed.expect_searches(snapshot, list(evidence))
    search.expect_missing(snapshot, [e for e in evidence if _plainly_missing(e, snapshot)])
    search.ask_ahead(snapshot)
    out: list[verify.PinResult | None] = [None] * len(evidence)
    # File by file: what is derived from a file's text (its index, its syntax tree) is
    # cached for a few hundred files, and a report's quotations of one file are scattered.
    for at in sorted(range(len(evidence)), key=lambda at: evidence[at].path or ""):
        try:
            out[at] = check_one(evidence[at], snapshot, want_symbols)
        except Exception:  # noqa: BLE001 - its own item checks it again and says why
            if raising:
                raise
    return out


def searched_when_missing(evidence: Evidence) -> bool:
    """Whether a quotation missing at its pin (or whose file is) is searched for in the
    pinned tree (a loose one that is not there is no quotation: nothing to search for)."""
    return evidence.kind is EvidenceKind.QUOTE and evidence.role is not EvidenceRole.LOOSE


def _plainly_missing(evidence: Evidence, snapshot) -> bool:
    """A quotation its file (as written) plainly lacks, or that has no such file: its
    check will find it missing, and search the tree."""
    if not searched_when_missing(evidence) or evidence.searched or not (evidence.text or "").strip():
        return False
    try:
        textfile = snapshot.read(evidence.path)
    except RepoError:
        return False  # unreadable: its check says so
    if textfile is None:
        return True
    if not textfile.is_text:
        return False
    if (evidence.text or "").strip() in textfile.text:
        return False  # there as written: its words are (no pattern to compile for that)
    # a file lacking one of its words (backticks dropped) holds it nowhere
    return not match.holds_words(match.compile_quote(evidence.text or ""), textfile.text)


def check_one(evidence: Evidence, snapshot, want_symbols: bool) -> verify.PinResult:
    """One piece of evidence checked in ``snapshot`` (a missing or corrupt object: unreadable)."""
    try:
        if evidence.kind is EvidenceKind.SYMBOL:
            return symbolrefs.at_pin(evidence, snapshot)
        result = verify.check_at_pin(evidence, snapshot, with_symbol=want_symbols)
        if result.status == verify.MISSING and evidence.role in (EvidenceRole.INLINE, EvidenceRole.LOOSE):
            result = _adapted_initial(evidence, snapshot, result, want_symbols)
        return result
    except RepoError as exc:
        return verify.PinResult(verify.UNREADABLE, snapshot.rev, evidence.path, message=str(exc))


def _adapted_initial(evidence: Evidence, snapshot, missing: verify.PinResult, want_symbols: bool) -> verify.PinResult:
    """An inline quotation whose first letter was adapted to the sentence around it
    (``the "current estimate ..." reading`` of ``Current estimate ...``) is found; any
    other difference of case still is not."""
    text = evidence.text or ""
    if not text[:1].isalpha():
        return missing
    variant = replace(evidence, text=text[0].swapcase() + text[1:])
    found = verify.check_at_pin(variant, snapshot, with_symbol=want_symbols)
    if not found.ok:
        return missing
    return replace(found, note="the quotation's first letter is capitalised differently in the file")
