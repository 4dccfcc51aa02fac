"""Symbol references: a backticked identifier that names a definition in a cited file.

A record (or a review paragraph) that cites ``store.py`` and mentions
```Store.forget``` anchors its claim on that definition, not on line numbers.
The dialect proposes such identifiers as ``symbol`` evidence with the files
its context cites (``Evidence.context``); :func:`resolve` keeps those that
name a definition at the pin (others are ordinary words: not checked, not
failures); :func:`at_pin` and :func:`classify` then check them like quotations:
present at the pin, and ``unchanged``, ``shifted``, ``moved`` with the file,
``renamed`` (the same body under another name), ``relocated`` (the definition
left its file for another one, found like a relocated quote) or ``deleted``
since (naming the commit after which its file stopped defining it).
"""

from __future__ import annotations

import posixpath
from dataclasses import replace

from ..text import symbols
from . import verify
from .drift import DELETED, MOVED, RELOCATED, RENAMED, SHIFTED, UNCHANGED, DriftResult, Place, blame, search
from ..model import Evidence, EvidenceRole



def _definition(snapshot, path: str, name: str):
    """``(textfile, definition)`` for ``name`` in ``path`` at ``snapshot``, or ``(textfile|None, None)``."""
    if snapshot.refuse_reason(path):
        return None, None
    textfile = snapshot.read(path)
    if textfile is None or not textfile.is_text:
        return textfile, None
    if name.rsplit(".", 1)[-1] not in textfile.text:
        return textfile, None  # a file never naming it defines nothing by that name: no parse
    found = symbols.find_definitions(textfile.text, path, name, key=textfile.oid)
    return textfile, (found[0] if found else None)


def resolve(evidence: Evidence, snapshot) -> Evidence | None:
    """The evidence bound to the cited file that defines its identifier at the pin, or ``None``;
    a name its sentence says is defined (:attr:`.EvidenceRole.DECLARED`) that none defines is
    bound to the first cited file of the pinned tree whose language has definitions, where it
    then fails."""
    for path in evidence.context:
        _, definition = _definition(snapshot, path, evidence.text or "")
        if definition is not None:
            return replace(evidence, path=path)
    if evidence.role is EvidenceRole.DECLARED:
        # (in a file of no definitions, a Markdown page, the name is a word like any other; in
        # a file the pinned tree lacks, the document's word, as that file's mention is)
        held = next((path for path in evidence.context if _has_definitions(path) and snapshot.entry(path) is not None),
                    None)
        return replace(evidence, path=held) if held is not None else None
    return None


def resolve_alone(evidence: Evidence, snapshot) -> Evidence | None:
    """A member named with no owner bound to the one file of its context (the files holding
    its name) that defines it; ``None`` where none does, or several (``initialize`` in every
    contract: which one the sentence means, its words do not say)."""
    defining = [path for path in evidence.context if _definition(snapshot, path, evidence.text or "")[1] is not None]
    return replace(evidence, path=defining[0], context=(defining[0],)) if len(defining) == 1 else None


def _nearest_name(textfile, path: str, name: str) -> str | None:
    """The name of ``path``'s definitions closest to ``name`` (a typo, a rename), if any is close."""
    from rapidfuzz import fuzz, process

    found = symbols.definitions(textfile.text, path, textfile.oid) or []
    # (the whole names' likeness: a partial match would take ``Queue.push`` for ``Queu``)
    best = process.extractOne(name, list(dict.fromkeys(d.name for d in found)), scorer=fuzz.ratio, score_cutoff=75)
    return best[0] if best else None


def _has_definitions(path: str) -> bool:
    """Whether ``path``'s language has definitions this package reads (its grammar installed)."""
    language = symbols.language_for(path)
    return bool(language and symbols.DEFINITION_QUERIES.get(language)) and language in symbols.available_languages()


def at_pin(evidence: Evidence, snapshot) -> verify.PinResult:
    """The definition exists in its file at the pin (lines and kind recorded)."""
    textfile, definition = _definition(snapshot, evidence.path, evidence.text or "")
    if definition is None:
        status = verify.FILE_MISSING if textfile is None else verify.MISSING
        message = f"no definition named {evidence.text} in {evidence.path}"
        if textfile is not None and textfile.is_text:
            nearest = _nearest_name(textfile, evidence.path, evidence.text or "")
            message += f" (nearest: {nearest})" if nearest else ""
        return verify.PinResult(status, snapshot.rev, evidence.path, message=message)
    return verify.PinResult(
        verify.FOUND, snapshot.rev, evidence.path, lines=definition.lines, symbol=definition, oid=textfile.oid,
        recorded_text=textfile.text[definition.start:definition.end],
        message=f"{definition.kind} {definition.name} defined in {evidence.path} at lines {definition.lines}",
    )


def classify(evidence: Evidence, pin: verify.PinResult, store, pin_sha: str, against) -> DriftResult:
    """What became of the definition at ``against``: same file, renamed file, another name, or gone."""
    name = evidence.text or ""
    old = pin.symbol
    assert old is not None, "a symbol is classified only once its pin found the definition"
    path: str | None = evidence.path
    end = store.resolve("HEAD") if against.rev == "worktree" else against.rev
    # (its file's own line: renamed away, the file now of its name is another one)
    went = store.renamed_along(evidence.path, pin_sha, end)
    if went is not None and went != path and against.entry(went) is not None:
        path = went
    elif against.entry(path) is None:
        followed = store.follow(path, pin_sha, end)
        path = followed if followed and against.entry(followed) is not None else None
    bisected: list = []  # (a local memo: no cache outlives the classification)

    def removed_by():
        """The commit after which the file stopped defining the name, bisected once: where the
        definition may have gone and what a deleted result names both ask for it."""
        if not bisected:
            bisected.append(blame.breaking_commit(store, pin_sha, against, evidence.path,
                                                  _defines(evidence, store, pin_sha)))
        return bisected[0]

    if path is None:
        relocated, namesakes = _relocated(evidence, pin, store, pin_sha, against, set(), removed_by)
        if relocated is not None:
            return relocated
        return replace(_result(DELETED, against.rev, None, None, pin,
                               f"{evidence.path} is gone and {name} with it{namesakes}"),
                       broken_by=blame.as_broken_by(removed_by()))
    textfile, definition = _definition(against, path, name)
    moved = path != evidence.path
    if definition is not None:
        status = MOVED if moved else (UNCHANGED if definition.lines == old.lines else SHIFTED)
        changed = _body_diff(pin, textfile, path, old, definition)
        result = _result(status, against.rev, path, definition.lines, pin,
                         f"{definition.kind} {definition.name} at {path}:{definition.lines}",
                         symbol=definition, enclosing_changed=changed is not None, enclosing_diff=changed)
        return _blamed(result, evidence, store, pin_sha, against, same_body=pin) if changed is not None else result
    renamed = _same_body_elsewhere(pin, textfile, path, old)
    if renamed is not None:
        return _result(RENAMED, against.rev, path, renamed.lines, pin,
                       f"{old.name} is now {renamed.kind} {renamed.name} at {path}:{renamed.lines}",
                       symbol=renamed)
    relocated, namesakes = _relocated(evidence, pin, store, pin_sha, against, {path}, removed_by)
    if relocated is not None:
        return relocated
    return replace(_result(DELETED, against.rev, path, None, pin,
                           f"no definition named {name} (or with its body) in {path} any more{namesakes}"),
                   broken_by=blame.as_broken_by(removed_by()))


#: the least share of a definition's tokens (its name aside; rapidfuzz's Indel similarity)
#: a namesake with other code must keep to be where it went, unless it has the same
#: qualified name: definitions moved into new modules on flask, ripgrep and the
#: modelcontextprotocol servers kept 0.68 to 0.99 of theirs; namesakes that are other
#: code kept 0.10 to 0.44 (a release script's ``main`` and the CLI's, ripgrep's ``imp``
#: and ``clear`` of two writers), as did one method rewritten into another class (0.34):
#: that one is reported deleted, its namesake named.
NAMESAKE_SIMILARITY = 0.5


def _relocated(evidence: Evidence, pin: verify.PinResult, store, pin_sha: str, against,
               exclude: set, removed_by) -> tuple[DriftResult | None, str]:
    """The definition found in another file of ``against`` (same name and kind, body
    tokens compared: see :func:`.drift.search.search_definition`), or ``None`` and what
    the namesakes left aside were (a clause of the deleted result's message).

    A namesake with other code is where the definition went only when it keeps half of
    its tokens (:data:`NAMESAKE_SIMILARITY`) or is a method of the same class, and stands in
    a file of its kind that the commit removing it changed (a move is one commit, as for a
    plain quotation; any of its folder's where that commit is not known) that did not
    define it at the pin already, or in a new file of its folder under the same qualified
    name: the ``main`` of a deleted release script is not the CLI's ``main``, nor is a test
    class added to another test file years later where a fixture's class went.
    ``removed_by()`` gives the commit that removed it."""
    old = pin.symbol
    if old is None:
        return None, ""
    body = search.definition_body(pin.recorded_text or "", evidence.path, old)
    found = search.search_definition(against, old.name, old.kind, body, exclude | {evidence.path}, evidence.path)
    # A definition too plain to follow across the tree (``type Error = NoError;``: fewer
    # letters and digits than git blame -C follows), like a plain quotation, goes only where
    # a move could have taken it, its copies elsewhere being boilerplate.
    plain = search.letters_and_digits(body or []) < search.FOLLOW_ALNUM
    if found and (plain or not any(namesake.same_body for namesake in found)):
        folder = posixpath.dirname(evidence.path)
        moves = blame.destinations(store, pin_sha, against, removed_by(), evidence.path, {n.path for n in found})
        near = [n for n in found if posixpath.dirname(n.path) == folder or n.path in moves.touched]
        pinned = store.snapshot(pin_sha)
        stood: dict[int, bool] = {}

        def stood_there(namesake: search.Namesake) -> bool:
            """:func:`_stood_there`, asked once a namesake (its pinned file read and parsed)."""
            if id(namesake) not in stood:
                stood[id(namesake)] = _stood_there(pinned, namesake, moves.at_pin[namesake.path])
            return stood[id(namesake)]

        def went_there(namesake: search.Namesake) -> bool:
            if moves.changed_by_it(namesake.path):
                return not stood_there(namesake)
            # A new file of its folder the removing commit did not change: copied there before it
            # left only under its own qualified name (boilerplate new tests repeat is other code).
            return moves.at_pin[namesake.path] is None and namesake.definition.name == old.name

        moved = [n for n in near if went_there(n)]
        # (a method of the same class, by its qualified name, is it however rewritten)
        kept = [n for n in moved if n.similarity >= NAMESAKE_SIMILARITY
                or ("." in old.name and n.definition.name == old.name)]
        if not kept:
            first = (moved or near or found)[0]
            more = f" and {len(found) - 1} more" if len(found) > 1 else ""
            why = (f"keeps {round(first.similarity * 100)}% of its tokens" if moved
                   else "was defined there at the pin already" if near and stood_there(first)
                   else "was not moved there by the commit that removed it")
            return None, (f"; {first.definition.kind} {first.definition.name} at {first.path}:"
                          f"{first.definition.lines}{more} has other code ({why})")
        found = kept
    if not found:
        return None, ""
    path, definition = found[0].path, found[0].definition
    places = tuple(Place(n.path, n.definition.lines) for n in found)
    changed = None
    if not found[0].same_body:
        textfile = against.read(path)
        changed = _body_diff(pin, textfile, path, old, definition) if textfile is not None else None
    message = f"{old.kind} {old.name} left {evidence.path}; it is now defined at {path}:{definition.lines}"
    return _result(RELOCATED, against.rev, path, definition.lines, pin, message, candidates=places,
                   symbol=definition, enclosing_changed=changed is not None, enclosing_diff=changed), ""


def _stood_there(pinned, namesake: search.Namesake, name_at_pin: str | None) -> bool:
    """Whether the namesake's file (``name_at_pin`` at the pin: :func:`.blame.names_at_pin`)
    defined it at the pin already (its qualified name and kind): a definition that stood
    there is not where the deleted one went (gson's ``JsonArray.get``, for
    ``FieldAttributes.get`` removed as unused)."""
    if name_at_pin is None:
        return False
    textfile = pinned.read(name_at_pin)
    if textfile is None or not textfile.is_text:
        return False
    definition = namesake.definition
    found = symbols.find_definitions(textfile.text, name_at_pin, definition.name, kind=definition.kind,
                                     key=textfile.oid or None)
    return any(other.name == definition.name for other in found or ())


def _blamed(result: DriftResult, evidence: Evidence, store, pin_sha: str, against, same_body=None) -> DriftResult:
    """``result`` naming the commit after which the file stopped defining the name
    (with ``same_body``, the pin's result: stopped defining it with the pin's body;
    see :mod:`.drift.blame`)."""
    holds = _defines(evidence, store, pin_sha, same_body)
    return replace(result, broken_by=blame.broken_by(store, pin_sha, against, evidence.path, holds))


def _defines(evidence: Evidence, store, pin_sha: str, same_body=None):
    """Whether a version of the evidence's file defines its name (with ``same_body``, the
    pin's result: with the pin's body), asked of a path and blob by :mod:`.drift.blame`."""
    name = evidence.text or ""
    huge = None
    if same_body is not None and (same_body.recorded_text or "").count("\n") >= symbols.WHOLE_LINES:
        pinned = store.snapshot(pin_sha).read(evidence.path)
        huge = _HugeBody(same_body, pinned.text.count("\n") if pinned is not None and pinned.is_text else 0)

    def holds(path: str, oid: str | None) -> bool:
        if oid is None:
            return False
        textfile = store.read_blob(path, oid)
        if huge is not None:
            # Each step of the bisection reads one version: a huge definition is found by
            # its text and compared by its changed regions, never parsed nor lexed whole.
            return textfile.is_text and huge.held_by(textfile.text, path)
        found = symbols.find_definitions(textfile.text, path, name, key=oid) if textfile.is_text else None
        if not found:
            return False
        return same_body is None or _same_body(same_body, textfile, path, same_body.symbol, found[0])

    return holds


class _HugeBody:
    """The pin's definition, too long to parse at every step of a bisection
    (:data:`.symbols.WHOLE_LINES`), as the lines a version must hold to define it.

    A version holds it when it holds its text verbatim, or when, from the line
    that opens it (the one nearest its place at the pin), the version's lines
    have the same tokens (:func:`.symbols.lines_same_tokens`: only changed regions
    are lexed). Lines past its end are read as far as the file grew since the pin.
    """

    def __init__(self, pin, pinned_lines: int) -> None:
        self.text = pin.recorded_text or ""
        self.lines = self.text.split("\n")
        self.start = (pin.lines.start if pin.lines is not None else 1) - 1
        self.pinned_lines = pinned_lines

    def held_by(self, text: str, path: str) -> bool:
        if self.text in text:
            return True
        lines = text.split("\n")
        head = self.lines[0]
        openings = [i for i, line in enumerate(lines) if line.endswith(head) and not line[: -len(head)].strip()]
        if not openings:
            return False
        first = min(openings, key=lambda i: abs(i - self.start))
        grown = max(0, len(lines) - 1 - self.pinned_lines)
        window = lines[first : first + len(self.lines) + grown]
        return symbols.lines_same_tokens(self.lines, window, path, open_end=True)


def _same_body(pin, textfile, path, old, new) -> bool:
    """Whether ``new`` (in ``textfile``) has the pin's body, token for token (what
    :func:`_body_diff` shows nothing for), without rendering a difference."""
    old_text = pin.recorded_text or ""
    shifted_old = replace(old, start=0, end=len(old_text))
    return symbols.same_tokens(old_text, textfile.text, path, shifted_old, new, new_key=textfile.oid or None)


def _body_diff(pin, textfile, path, old, new) -> str | None:
    old_text = pin.recorded_text or ""
    # Offsets of the pin's definition are relative to the whole pin file; the
    # recorded text is just the body, so compare it as a definition of its own.
    shifted_old = replace(old, start=0, end=len(old_text))
    return symbols.body_token_diff(old_text, textfile.text, path, shifted_old, new, new_key=textfile.oid or None)


def _same_body_elsewhere(pin, textfile, path, old):
    """A definition of the same kind whose tokens, name aside, equal the pin's body."""
    if textfile is None or not textfile.is_text:
        return None
    old_text = pin.recorded_text or ""
    old_tokens = symbols.tokens(old_text, path)
    if old_tokens is None:
        return None
    bare = old.name.rsplit(".", 1)[-1]
    wanted = [t.text for t in old_tokens if t.text != bare]
    for candidate in symbols.definitions(textfile.text, path, key=textfile.oid) or ():
        if candidate.kind != old.kind:
            continue
        new_tokens = symbols.tokens(textfile.text, path, key=textfile.oid, span=(candidate.start, candidate.end))
        new_bare = candidate.name.rsplit(".", 1)[-1]
        if new_tokens is not None and [t.text for t in new_tokens if t.text != new_bare] == wanted:
            return candidate
    return None


def _result(status, rev, path, lines, pin, message, **extra) -> DriftResult:
    return DriftResult(status, rev, path, lines, pin.lines, message=message, old_path=pin.path,
                       old_symbol=pin.symbol, **extra)
