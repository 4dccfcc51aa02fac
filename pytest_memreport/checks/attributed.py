"""Quotations a prose note ties to several files, or to the project as a whole (docs/FORMATS.md §4).

:func:`check` is :func:`.verify.check_at_pin` for evidence whose :attr:`~.model.Evidence.searched`
is true:

* a quotation beside several files (``path``, then ``context``) holds if one of them has it,
  and the result names which;
* one attributed to the project (:attr:`~.model.EvidenceRole.PROJECT`) is looked for in the
  files the paragraph or the note links (its ``context``), failing that in every file of the
  pinned tree (drift's tree search, at the pin), and the result says where it was found;
* a phrase in quotation marks attributed to no file (:attr:`~.model.EvidenceRole.TERM`) is searched
  the same way: found, it is a quotation; found nowhere, it is the note's own word
  (:func:`unfound_reason`), which is no evidence and never a failure; one too plain to be told
  from the same words by chance (fewer letters and digits than git blame follows) is looked
  for in the note's files only.

A quotation found nowhere fails with the nearest candidate of the files it is tied to.
"""

from __future__ import annotations

from dataclasses import replace

from ..gitstore import RepoError
from ..model import Evidence, EvidenceRole
from ..text import match
from . import verify
from .drift import search
from .drift.results import Place

#: roles whose quotation is looked for in the whole pinned tree once its files lack it
TREE_ROLES = (EvidenceRole.PROJECT, EvidenceRole.TERM)


def files_of(evidence: Evidence) -> list[str]:
    """The files a quotation is tied to, in the order they are tried."""
    return list(dict.fromkeys(path for path in (evidence.path, *evidence.context) if path))


def check(evidence: Evidence, snapshot, with_symbol: bool = True) -> verify.PinResult:
    """Where the pinned ``snapshot`` holds ``evidence`` (see the module docstring)."""
    files = files_of(evidence)
    snapshot.prefetch(files)
    closest: verify.PinResult | None = None
    for path in files:
        one = replace(evidence, path=path, context=(), role=EvidenceRole.PROSE)
        result = verify.check_at_pin(one, snapshot, with_symbol)
        if result.ok:
            return _named(result, evidence, path, files)
        if result.candidate is not None and (closest is None or closest.candidate is None
                                             or result.candidate.score > closest.candidate.score):
            closest = result
    tree = evidence.role in TREE_ROLES
    if tree:
        found = _in_tree(evidence, snapshot, files, with_symbol)
        if found is not None:
            return found
    where = ", ".join(files) if files else ""
    if tree:
        where = f"{where} nor in any other file of the pinned tree" if where else "no file of the pinned tree"
        message = f"quotation not found: {where}" if not files else f"quotation not found in {where}"
    else:
        message = f"quotation not found in {where}"
    path = closest.path if closest is not None else (files[0] if files else evidence.path)
    return verify.PinResult(verify.MISSING, snapshot.rev, path,
                            candidate=closest.candidate if closest is not None else None,
                            oid=closest.oid if closest is not None else None, message=message)


def _named(result: verify.PinResult, evidence: Evidence, path: str, files: list[str]) -> verify.PinResult:
    """A found result that says which of several files, or that the project's words are in ``path``."""
    if len(files) == 1 and evidence.role not in TREE_ROLES:
        return result
    return _noted(result, f"{_tie(evidence)}; found in {path}")


def _tie(evidence: Evidence) -> str:
    if evidence.role is EvidenceRole.PROJECT:
        return "attributed to the project"
    if evidence.role is EvidenceRole.TERM:
        return "a code block given no file" if evidence.is_code_block else \
            "a phrase in quotation marks attributed to no file"
    return "tied to several files"


def _too_plain(evidence: Evidence) -> bool:
    """Whether a phrase attributed to no file is too plain to be told from the same words by
    chance in a whole tree (``"call the LLM"``, a writer's example, in a page since deleted):
    fewer letters and digits than git blame follows between files. It is looked for in the
    files the note names or links, never in the rest of the tree."""
    return (evidence.role is EvidenceRole.TERM and not evidence.is_code_block
            and search.letters_and_digits([evidence.text or ""]) < search.FOLLOW_ALNUM)


def _in_tree(evidence: Evidence, snapshot, files: list[str], with_symbol: bool) -> verify.PinResult | None:
    """The quotation found in a file of the pinned tree the note does not link, or ``None``."""
    text = evidence.text or ""
    if not text.strip() or _too_plain(evidence):
        return None
    # A sentence may have adapted the first letter: "the docs state that "restores are ..."" of
    # a file's "Restores are ...".
    variants = [text, text[0].swapcase() + text[1:]] if text[:1].isalpha() and not evidence.is_code_block \
        else [text]
    places: list[Place] = []
    for variant in variants:
        try:
            places, _ = search.search_tree(match.compile_quote(variant), variant, snapshot, exclude=set(files),
                                           origin=files[0] if files else "", by_tokens=False)
        except RepoError:
            return None  # an object the clone lacks stops the search: the files it is tied to said what they could
        if places:
            break
    if not places:
        return None
    place = places[0]
    result = verify.check_at_pin(replace(evidence, path=place.path, context=(), role=EvidenceRole.PROSE),
                                 snapshot, with_symbol)
    if not result.ok:
        return None
    others = f" and {len(places) - 1} other place(s)" if len(places) > 1 else ""
    linked = ", a file the note does not link" if files else ""
    return _noted(result, f"{_tie(evidence)}; found in {place.path}{linked}{others}")


def _noted(result: verify.PinResult, note: str) -> verify.PinResult:
    """``result`` whose note (shown on a pass and in JSON) says where the quotation was found."""
    return replace(result, note=f"{note}; {result.note}" if result.note else note)


def expect_searches(snapshot, evidence) -> None:
    """Announce the quotations of ``evidence`` that may search the whole pinned tree, so that
    the first search asks ``git grep`` for all of their words at once."""
    search.expect_missing(snapshot, [item for item in evidence if item.searched and item.role in TREE_ROLES])


def unfound_reason(evidence: Evidence) -> str | None:
    """Why a term found nowhere at the pin is not evidence (``None`` for any other evidence)."""
    if evidence.role is not EvidenceRole.TERM:
        return None
    if evidence.is_code_block:
        return ("the code block is given no file, and no file of the pinned tree holds it: read as the "
                "report's own (name or link the file it shows right before it to have it checked)")
    if _too_plain(evidence):
        count = search.letters_and_digits([evidence.text or ""])
        where = "the files the note links do not hold it, and " if evidence.path or evidence.context else ""
        return (f'"{evidence.text}" is in quotation marks, but the note attributes it to no file; {where}its '
                f"{count} letters and digits are too few to tell a quotation of the tree from the same words by "
                f"chance (git blame follows {search.FOLLOW_ALNUM}): read as the note's own term (link the file it "
                "quotes right after it to have it checked)")
    return (f'"{evidence.text}" is in quotation marks, but the note attributes it to no file and no file of '
            "the pinned tree holds it: read as the note's own term, not a quotation (link the file it quotes "
            "right after it to have it checked)")
