"""What became of a piece of evidence, true at its pin, at another revision.

:func:`classify` takes one :class:`~pytest_memreport.model.Evidence`, its
:class:`~pytest_memreport.checks.verify.PinResult` (which must be ``found``), the
target's :class:`~pytest_memreport.gitstore.GitStore`, the pin commit and the
:class:`~pytest_memreport.gitstore.Snapshot` to check against (a commit or the
working tree), and returns a :class:`DriftResult`.

The classes, cheapest first:

``unchanged``   the file's blob is the pin's (nothing is read), or the quote is at the same lines
``shifted``     same file, the quote is at other lines
``moved``       the file was renamed (followed through history) and still holds the quote
``relocated``   the quote left its file and now occurs elsewhere (every place is listed)
``changed``     the file is there but the quote is not, anywhere (nearest candidate + diff)
``deleted``     the file is gone and the quote occurs nowhere
``ahead``       not true at the pin, but at the against-revision (:func:`ahead`):
                the report was written against newer code than its pin

Only quotes that are gone from their file pay for the whole-tree search.
Matching is by characters first (:mod:`.match`), then by tokens
(:func:`.symbols.token_find`), so a reformat never reads as a change.
"""

from __future__ import annotations

import functools
import posixpath
import re
import weakref
from collections import Counter
from dataclasses import dataclass

from ..text import match, render, symbols
from . import verify
from ..gitstore import WORKTREE
from ..model import Evidence, EvidenceKind, LineRange

UNCHANGED = "unchanged"
SHIFTED = "shifted"
MOVED = "moved"
RELOCATED = "relocated"
CHANGED = "changed"
DELETED = "deleted"
NOT_CHECKED = "not-checked"
AHEAD = "ahead"

#: statuses under which the quote still holds in its (possibly renamed) file
_STILL_THERE = frozenset({UNCHANGED, SHIFTED, MOVED})

#: how many relocation places a one-line summary names before "and N more"
_SUMMARY_PLACES = 4

#: what a path that is no longer a regular file has become
_KIND_PHRASES = {"symlink": "a symbolic link (not followed)", "dir": "a directory",
                 "submodule": "a submodule (gitlink)"}

#: how many files of a vanished directory are followed through history one by one
_DIRECTORY_FOLLOWS = 3


@dataclass(frozen=True)
class Place:
    """A span of lines in one file at the against-revision."""

    path: str
    lines: LineRange

    def __str__(self) -> str:
        return f"{self.path}:{self.lines}"

    def as_json(self) -> dict:
        return {"path": self.path, "lines": self.lines.as_list()}


@dataclass(frozen=True)
class DriftResult:
    """What one piece of evidence looks like at the against-revision ``rev``.

    ``path``/``lines`` say where the evidence is now (``None`` when it is
    nowhere); ``old_path``/``old_lines`` where it was at the pin. For
    ``relocated``, ``candidates`` lists every place the quote now occurs; for
    ``changed``, the nearest candidate (``candidate`` has its text, ``diff``
    the quote-vs-candidate difference). ``symbol`` is the definition
    enclosing the evidence at ``rev``; ``enclosing_changed`` says its body
    tokens differ from the pin's (``enclosing_diff`` shows how) or it is no
    longer the same definition (``old_symbol`` is the pin's).
    """

    status: str
    rev: str
    path: str | None
    lines: LineRange | None
    old_lines: LineRange | None
    candidates: tuple[Place, ...] = ()
    candidate: match.Candidate | None = None
    diff: str | None = None
    by_tokens: bool = False
    symbol: symbols.Definition | None = None
    enclosing_changed: bool = False
    enclosing_diff: str | None = None
    note: str | None = None
    message: str = ""
    old_path: str | None = None
    old_symbol: symbols.Definition | None = None

    def as_json(self) -> dict:
        """The ``at_against`` object of the JSON report."""
        out: dict = {
            "rev": self.rev,
            "status": self.status,
            "path": self.path,
            "lines": self.lines.as_list() if self.lines else None,
            "candidates": [place.as_json() for place in self.candidates],
            "old_lines": self.old_lines.as_list() if self.old_lines else None,
        }
        if self.old_path is not None and self.old_path != self.path:
            out["old_path"] = self.old_path
        if self.by_tokens:
            out["found_by"] = "tokens"
        if self.symbol is not None:
            out["symbol"] = self.symbol.as_json()
        if self.enclosing_changed:
            out["enclosing_changed"] = True
            if self.enclosing_diff:
                out["enclosing_diff"] = self.enclosing_diff
        if self.candidate is not None:
            out["candidate"] = self.candidate.as_json()
        if self.note:
            out["note"] = self.note
        return out

    def symbol_name(self) -> str:
        """``function Store.get``: the enclosing definition now, else the pin's; ``""`` when none."""
        definition = self.symbol or self.old_symbol
        return f"{definition.kind} {definition.name}" if definition else ""

    def summary(self) -> str:
        """One line for a passing item: ``shifted 120-134 → 140-154``."""
        if self.status == UNCHANGED:
            text = f"unchanged at lines {self.lines}" if self.lines else "unchanged"
        elif self.status == SHIFTED:
            text = f"shifted {self.old_lines} → {self.lines}"
        elif self.status == MOVED:
            text = f"moved {self.old_path} → {self.path}"
            if self.lines:
                text += f" (lines {self.lines})"
        elif self.status == RELOCATED:
            shown = ", ".join(str(place) for place in self.candidates[:_SUMMARY_PLACES])
            more = len(self.candidates) - _SUMMARY_PLACES
            text = f"relocated to {shown}" + (f" and {more} more" if more > 0 else "")
        else:
            text = self.message or self.status
        if self.by_tokens:
            text += " (matched by tokens: reformatted)"
        if self.note:
            text += f"; {self.note}"
        return text

    def explain(self) -> list[str]:
        """The lines a failure or warning shows: where it was and is, the
        nearest candidate with line numbers, the diff, the enclosing definition."""
        out = [self.message] if self.message else []
        if self.status in (CHANGED, DELETED):
            if self.old_path is not None:
                was = f"{self.old_path}:{self.old_lines}" if self.old_lines else self.old_path
                out.append(f"at the pin: {was}")
            if self.candidate is not None and self.path is not None:
                cand = self.candidate
                out.append(
                    f"nearest candidate in {self.path} at lines {cand.lines} (similarity {cand.score:.0f}%):"
                )
                out.extend(render.numbered(cand.text, cand.lines.start))
            if self.diff:
                out.append("difference (- report, + file):")
                out.extend(render.indent(self.diff))
        elif not out:
            out.append(f"{self.status}: {self.summary()}")
        if self.enclosing_changed:
            old, new = self.old_symbol, self.symbol
            if old is not None and new is not None:
                renamed = f" (was {old.kind} {old.name})" if (old.kind, old.name) != (new.kind, new.name) else ""
                out.append(
                    f"enclosing {new.kind} {new.name}{renamed}, lines {old.lines} at the pin → "
                    f"{new.lines} now, changed:"
                )
            if self.enclosing_diff:
                out.extend(render.indent(self.enclosing_diff))
        if self.note and self.status in (CHANGED, DELETED):
            out.append(self.note)
        return out



# -- entry point ---------------------------------------------------------------------


def classify(evidence: Evidence, pin, store, pin_sha: str, against, reports: frozenset[str] = frozenset()) -> DriftResult:
    """What became of ``evidence`` (found at ``pin_sha``, see ``pin``) in ``against``.

    ``store`` is the target's :class:`~pytest_memreport.gitstore.GitStore`
    (renames and history following); ``against`` a snapshot of it (a commit,
    or the working tree with ``rev == "worktree"``).
    """
    drift = _Drift(evidence, pin, store, pin_sha, against, reports)
    refusal = against.refuse_reason(evidence.path)
    if refusal:
        return drift.result(NOT_CHECKED, None, None, message=f"{evidence.path} {drift.where}: {refusal}")
    if evidence.kind is EvidenceKind.DIRECTORY:
        return drift.directory()
    if evidence.kind is EvidenceKind.PATH:
        return drift.cited_path()
    if evidence.kind is EvidenceKind.LINES:
        if not (pin.recorded_text or "").strip():
            # Blank lines say nothing to look for: only the file's fate is known.
            return drift.cited_path(note="the cited lines are blank at the pin; only the file was checked")
        return drift.quotation(pin.recorded_text)
    return drift.quotation(evidence.text or "")


def ahead(evidence: Evidence, against) -> DriftResult | None:
    """Evidence that is missing at its pin but holds, as cited, in ``against``:
    the report is ahead of its pin (re-pinning makes it true). ``None`` otherwise."""
    found = verify.check_at_pin(evidence, against, with_symbol=False)
    if not found.ok:
        return None
    where = "in the working tree" if against.rev == WORKTREE else f"at {render.short(against.rev)}"
    lines = f" lines {found.lines} of" if found.lines else ""
    return DriftResult(AHEAD, against.rev, evidence.path, found.lines, None, by_tokens=found.by_tokens,
                       old_path=evidence.path,
                       message=f"not at the pin, but at{lines} {evidence.path} {where}: the report is ahead of its pin")


class _Drift:
    """The inputs of one classification and the steps between them."""

    def __init__(self, evidence: Evidence, pin, store, pin_sha: str, against, reports=frozenset()) -> None:
        self.evidence = evidence
        #: the checked reports' own paths in the target: quoting code is not where it went
        self.reports = reports
        self.pin = pin
        self.store = store
        self.pin_sha = pin_sha
        self.against = against
        self.path = evidence.path
        self.where = "in the working tree" if against.rev == WORKTREE else f"at {render.short(against.rev)}"
        self._pin_symbol = pin.symbol
        self._pin_symbol_known = getattr(pin, "symbol_known", True)

    @functools.cached_property
    def pinned_text(self):
        """The evidence's file at the pin as text, or ``None`` (read once, when needed)."""
        pinned = self.store.snapshot(self.pin_sha).read(self.path)
        return pinned if pinned is not None and pinned.is_text else None

    @property
    def pin_symbol(self) -> symbols.Definition | None:
        """The definition enclosing the evidence at the pin, looked up only when needed."""
        if not self._pin_symbol_known:
            self._pin_symbol_known = True
            pinned = self.pinned_text
            if pinned is not None and self.pin.lines is not None:
                self._pin_symbol = symbols.enclosing(pinned.text, self.path, self.pin.lines, key=pinned.oid)
        return self._pin_symbol

    def result(self, status: str, path: str | None, lines: LineRange | None, **fields) -> DriftResult:
        fields.setdefault("old_lines", self.pin.lines)
        return DriftResult(status, self.against.rev, path, lines, old_path=self.path, **fields)

    # -- following a file ------------------------------------------------------------

    def followed(self) -> str | None:
        """Where the pin's file lives in ``against`` when its path is gone, or ``None``.

        History is followed commit by commit up to the against commit; for the
        working tree, up to HEAD, then the working tree must still have the file.
        """
        target = self.store.resolve("HEAD") if self.against.rev == WORKTREE else self.against.rev
        if target == self.pin_sha:
            return None
        new_path = self.store.follow(self.path, self.pin_sha, target)
        if new_path is None or new_path == self.path:
            return None
        found = self.against.entry(new_path)
        return new_path if found is not None and found.kind == "file" else None

    def _same_blob_elsewhere(self) -> str | None:
        """A file holding exactly the pin's blob, in the same folder or under the
        same name (a move history does not know: uncommitted, or not detected).

        Only those files are hashed: in the working tree every candidate is read.
        """
        if not self.pin.oid:
            return None
        folder, name = posixpath.split(self.path)
        for path in self.against.files():
            head, tail = posixpath.split(path)
            if (head == folder or tail == name) and self.against.oid(path) == self.pin.oid:
                return path
        return None

    # -- cited paths and directories ---------------------------------------------------

    def cited_path(self, note: str | None = None) -> DriftResult:
        entry = self.against.entry(self.path)
        if entry is not None:
            if entry.kind == "dir" or not self.pin.oid or entry.oid == self.pin.oid:
                return self.result(UNCHANGED, self.path, None, old_lines=None, note=note,
                                   message=f"{self.path} exists {self.where}")
            changed = note or "content changed since the pin"
            return self.result(UNCHANGED, self.path, None, old_lines=None, note=changed,
                               message=f"{self.path} exists {self.where}")
        if self.store.snapshot(self.pin_sha).is_dir(self.path):
            return self.directory()
        new_path = self.followed() or self._same_blob_elsewhere()
        if new_path is not None:
            return self.result(MOVED, new_path, None, old_lines=None, note=note,
                               message=f"{self.path} moved to {new_path} {self.where}")
        return self.result(DELETED, None, None, old_lines=None, note=note,
                           message=f"{self.path} was deleted {self.where}")

    def directory(self) -> DriftResult:
        if self.against.is_dir(self.path):
            return self.result(UNCHANGED, self.path, None, old_lines=None,
                               message=f"directory {self.path} exists {self.where}")
        new_dir = self._moved_directory()
        if new_dir is not None:
            return self.result(MOVED, new_dir, None, old_lines=None,
                               message=f"directory {self.path} moved to {new_dir} {self.where}")
        return self.result(DELETED, None, None, old_lines=None,
                           message=f"directory {self.path} was deleted {self.where}")

    def _moved_directory(self) -> str | None:
        """The directory most of the old one's renamed files now share, if it exists."""
        target = self.store.resolve("HEAD") if self.against.rev == WORKTREE else self.against.rev
        if target == self.pin_sha:
            return None
        prefix = self.path.rstrip("/") + "/"
        moves = {old: new for old, new in self.store.renames(self.pin_sha, target).items() if old.startswith(prefix)}
        if not moves:
            # Heavily edited files escape the whole-diff rename map: follow a few.
            inside = [p for p in self.store.snapshot(self.pin_sha).files() if p.startswith(prefix)]
            for old in inside[:_DIRECTORY_FOLLOWS]:
                new = self.store.follow(old, self.pin_sha, target)
                if new is not None and new != old:
                    moves[old] = new
        votes: Counter[str] = Counter()
        for old, new in moves.items():
            tail = old[len(prefix):]
            if new.endswith("/" + tail):
                votes[new[: -len(tail) - 1]] += 1
        if not votes and moves:
            common = posixpath.commonpath([posixpath.dirname(new) for new in moves.values()])
            if common:
                votes[common] += 1
        for new_dir, _count in votes.most_common():
            if new_dir != self.path.rstrip("/") and self.against.is_dir(new_dir):
                return new_dir
        return None

    # -- quotations ------------------------------------------------------------------

    def quotation(self, quote: str) -> DriftResult:
        entry = self.against.entry(self.path)
        # Same blob as at the pin: the quote is where it was; nothing to read.
        if entry is not None and entry.kind == "file" and self.pin.oid and entry.oid == self.pin.oid:
            return self.result(UNCHANGED, self.path, self.pin.lines, by_tokens=self.pin.by_tokens,
                               symbol=self._pin_symbol, old_symbol=self._pin_symbol,
                               message=f"{self.path} is unchanged {self.where}")
        pattern = match.compile_quote(quote)
        note = None
        home = self.path if entry is not None and entry.kind == "file" else None
        if home is None:
            home = self.followed()
        if home is not None:
            textfile = self.against.read(home)
            if textfile is not None and textfile.is_text:
                found = _locate(quote, textfile, home, self.pin.lines)
                if found is not None:
                    lines, by_tokens = found
                    if home != self.path:
                        status, message = MOVED, f"{self.path} moved to {home}; quotation at lines {lines}"
                    elif lines == self.pin.lines:
                        status, message = UNCHANGED, f"quotation still at lines {lines} of {home}"
                    else:
                        status, message = SHIFTED, f"quotation shifted from lines {self.pin.lines} to {lines} of {home}"
                    return self._with_symbol(status, home, lines, textfile, by_tokens=by_tokens,
                                             message=message, note=textfile.note)
            elif textfile is not None:
                note = textfile.describe()
        places, by_tokens = _search_tree(pattern, quote, self.against, exclude={home, *self.reports}, origin=self.path)
        if places:
            return self._relocated(places, by_tokens, note)
        if home is None:
            # A file replaced by a symlink (or a folder, or a submodule) is not read through it.
            gone = "is gone" if entry is None else f"is now {_KIND_PHRASES.get(entry.kind, entry.kind)}"
            return self.result(DELETED, None, None, note=note,
                               message=f"{self.path} {gone} {self.where} and the quotation occurs nowhere")
        return self._changed(pattern, quote, home, note)

    def _relocated(self, places: list[Place], by_tokens: bool, note: str | None) -> DriftResult:
        first = places[0]
        shown = ", ".join(str(p) for p in places[:_SUMMARY_PLACES])
        message = f"quotation left {self.path}; it now occurs at {shown}"
        if len(places) > _SUMMARY_PLACES:
            message += f" and {len(places) - _SUMMARY_PLACES} more"
        symbol = enclosing_changed = enclosing_diff = None
        if len(places) == 1:
            textfile = self.against.read(first.path)
            if textfile is not None and textfile.is_text:
                symbol = symbols.enclosing(textfile.text, first.path, first.lines, key=textfile.oid or None)
                old = self.pin_symbol
                # Another definition around it is context, not drift; the same one is compared.
                if symbol is not None and old is not None and symbol.bare_name == old.bare_name:
                    enclosing_diff = self._body_diff(first.path, textfile.text, symbol)
                    enclosing_changed = enclosing_diff is not None
        return self.result(RELOCATED, first.path, first.lines, candidates=tuple(places), by_tokens=by_tokens,
                           symbol=symbol, old_symbol=self.pin_symbol, enclosing_changed=bool(enclosing_changed),
                           enclosing_diff=enclosing_diff, note=note, message=message)

    def _changed(self, pattern, quote: str, home: str, note: str | None) -> DriftResult:
        textfile = self.against.read(home)
        candidate = diff = None
        if textfile is not None and textfile.is_text:
            candidate = match.nearest(pattern, textfile.text, key=textfile.oid or None)
        if candidate is not None:
            diff = match.render_diff(quote, candidate.text) or None
        renamed = f" (renamed from {self.path})" if home != self.path else ""
        message = f"quotation no longer in {home}{renamed} {self.where}, nor anywhere else"
        if textfile is not None and not textfile.is_text:
            # Not read is not gone: say the file could not be searched.
            message = f"{home}{renamed} cannot be searched {self.where}, and the quotation occurs nowhere else"
        return self.result(
            CHANGED, home, None,
            candidates=(Place(home, candidate.lines),) if candidate is not None else (),
            candidate=candidate, diff=diff, note=note,
            message=message,
        )

    # -- the enclosing definition -------------------------------------------------------

    def _with_symbol(self, status: str, path: str, lines: LineRange, textfile, **fields) -> DriftResult:
        if (textfile.oid and textfile.oid == self.pin.oid and lines == self.pin.lines
                and symbols.language_for(path) == symbols.language_for(self.path)):
            # A file renamed without an edit: the same definition encloses the quote.
            return self.result(status, path, lines, symbol=self._pin_symbol, old_symbol=self._pin_symbol, **fields)
        old = self.pin_symbol
        text = textfile.text
        pinned = self.pinned_text
        if old is not None and textfile.oid and pinned is not None and (
                symbols.language_for(path) == symbols.language_for(self.path)):
            # Usually an edit of the pin's file, parsed already: reparse only what changed.
            symbols.reparse(text, path, textfile.oid, pinned.text, pinned.oid)
        symbol = symbols.enclosing(text, path, lines, key=textfile.oid or None)
        enclosing_changed, enclosing_diff = False, None
        # Without a grammar for the new path there is nothing to compare with.
        if old is not None and symbols.language_for(path) is not None:
            if symbol is None:
                enclosing_changed = True
                enclosing_diff = f"{old.kind} {old.name} no longer encloses the quotation (it is now at top level)"
            else:
                enclosing_diff = self._body_diff(path, text, symbol)
                if (old.kind, old.bare_name) != (symbol.kind, symbol.bare_name):
                    renamed = f"{old.kind} {old.name} is now {symbol.kind} {symbol.name}"
                    enclosing_diff = renamed + ("\n" + enclosing_diff if enclosing_diff else "")
                enclosing_changed = enclosing_diff is not None
        return self.result(status, path, lines, symbol=symbol, old_symbol=old,
                           enclosing_changed=enclosing_changed, enclosing_diff=enclosing_diff, **fields)

    def _body_diff(self, path: str, text: str, symbol: symbols.Definition) -> str | None:
        """The token difference between the pin's enclosing definition and ``symbol``."""
        old = self.pin_symbol
        if old is None or symbols.language_for(path) != symbols.language_for(self.path):
            return None
        pinned = self.pinned_text
        if pinned is None:
            return None
        if _same_code(pinned.text, self.path, old, text, path, symbol):
            return None
        return symbols.body_token_diff(pinned.text, text, path, old, symbol)


_CLOSERS = frozenset({")", "]", "}"})


def _same_code(old_text: str, old_path: str, old_def, new_text: str, new_path: str, new_def) -> bool:
    """Whether two definitions have the same tokens once trailing commas are dropped.

    A formatter that wraps arguments adds trailing commas; like layout and
    comments, that is not a change of the definition (``body_token_diff``
    counts them).
    """
    if old_text[old_def.start : old_def.end] == new_text[new_def.start : new_def.end]:
        return True  # the same text: no need to lex either file
    old = symbols.tokens(old_text, old_path, span=(old_def.start, old_def.end))
    new = symbols.tokens(new_text, new_path, span=(new_def.start, new_def.end))
    if old is None or new is None:
        return False
    return _without_trailing_commas([t.text for t in old]) == _without_trailing_commas([t.text for t in new])


def _without_trailing_commas(texts: list[str]) -> list[str]:
    return [t for i, t in enumerate(texts) if not (t == "," and i + 1 < len(texts) and texts[i + 1] in _CLOSERS)]


# -- locating ----------------------------------------------------------------------


def _locate(quote: str, textfile, path: str, near: LineRange | None) -> tuple[LineRange, bool] | None:
    """Where the quote is in one file (the occurrence nearest ``near``), and whether only by tokens."""
    found, by_tokens = verify.occurrences(quote, textfile.text, path, key=textfile.oid or None)
    return (_nearest(list(found), near), by_tokens) if found else None


def _nearest(occurrences: list[LineRange], near: LineRange | None) -> LineRange:
    if near is None:
        return occurrences[0]
    return min(occurrences, key=lambda lines: abs(lines.start - near.start))


def _search_tree(pattern, quote: str, against, exclude: set, origin: str) -> tuple[list[Place], bool]:
    """Every place in ``against`` (but the paths in ``exclude``) where the quote occurs.

    It runs only for quotes gone from their file. The files worth reading are
    those holding the quote's longest compound names, which ``git grep``
    names (one pass for every quote expected to need it, see
    :func:`expect_searches`); a quote without such names reads every file (in
    pipelined batches). A file must also hold every word of the quote
    (outside backticks, which rendering eats) and its reduced form every part
    before :func:`.match.find` looks. Files sharing the origin's name, then
    its extension, are reported first. Token matching is tried, in files of
    the origin's language, only when character matching finds nothing, and
    only in the windows where the quote's code words occur in order, close
    together (:func:`.match.token_windows`): lexing costs far more than
    looking.
    """
    index = _word_index(against)
    places: list[Place] = []
    candidates = index.holding(_probes(pattern.whole_words))
    scanned = candidates is None
    if scanned:
        candidates = index.scan(*_character_scan(pattern))
    for path, text in _readable(against, candidates, exclude):
        if not scanned and not match.may_occur_in(pattern, text.text, key=text.oid or None):
            continue
        places.extend(Place(path, span.lines) for span in match.find(pattern, text.text, key=text.oid or None))
    if places:
        return _by_affinity(places, origin), False
    language = symbols.language_for(origin)
    words = match.code_words(quote, origin)
    if language is None or words is None:
        return [], False
    candidates = index.holding(_probes(words))
    if candidates is None:
        candidates = index.scan(*_token_scan(quote, origin))
    for path, text in _readable(against, candidates, exclude):
        windows = match.token_windows(quote, text.text, path) if symbols.language_for(path) == language else []
        if windows:
            lines = symbols.token_find(quote, text.text, path, key=text.oid or None, windows=windows)
            if lines is not None:
                places.append(Place(path, lines))
    return _by_affinity(places, origin), bool(places)


def _by_affinity(places: list[Place], origin: str) -> list[Place]:
    """Files sharing the origin's name first, then its extension (stable within)."""
    return sorted(places, key=lambda place: _affinity(place.path, origin))


def _character_scan(pattern):
    """The scan finding the files a quote without probe words may occur in."""
    return (("characters", pattern.text),
            lambda path, text, reduced: match.holds_words(pattern, text) and match.may_occur(pattern, reduced()))


def _token_scan(quote: str, origin: str):
    """The scan finding the files of the origin's language where a quote
    without probe words may occur by tokens."""
    language = symbols.language_for(origin)
    return (("tokens", language, quote),
            lambda path, text, reduced: symbols.language_for(path) == language
            and bool(match.token_windows(quote, text, path)))


def _readable(against, candidates: set[str], exclude: set):
    """``(path, text file)`` of the candidate files that can be read as text."""
    for path, textfile in against.read_many(p for p in sorted(candidates) if p not in exclude):
        if textfile is not None and textfile.is_text:
            yield path, textfile


def expect_searches(against, store, pin_sha: str, quotes) -> int:
    """Announce quotes (``(evidence, quote text)`` pairs, pinned at ``pin_sha``)
    that may have to be searched for in all of ``against``, so that the first
    search asks ``git grep`` for all of their words at once.

    A quote whose file kept its blob, or which is still in its file (at its
    path, or where the whole ``pin..against`` diff renamed it), is left out:
    the guess costs only time when wrong, either way. Returns how many
    quotes were announced.
    """
    index = _word_index(against)
    pinned = store.snapshot(pin_sha)
    renames = None
    changed: list[tuple[Evidence, str, str | None]] = []
    for evidence, quote in quotes:
        old = pinned.oid(evidence.path)
        if old is None:
            continue  # not at the pin as cited: there is no drift to classify
        entry = against.entry(evidence.path)
        if entry is not None and entry.kind == "file" and entry.oid == old:
            continue
        home = evidence.path if entry is not None and entry.kind == "file" else None
        if home is None:
            if renames is None:
                renames = store.renames(pin_sha, "HEAD" if against.rev == WORKTREE else against.rev)
            home = renames.get(evidence.path)
        changed.append((evidence, quote, home))
    # Their files are read now and classified soon after: one batch.
    against.prefetch(home for _, _, home in changed if home is not None)
    announced = 0
    for evidence, quote, home in changed:
        pattern = match.compile_quote(quote)
        textfile = against.read(home) if home is not None else None
        if textfile is not None and textfile.is_text and match.find(pattern, textfile.text, key=textfile.oid or None):
            continue
        probes = _probes(pattern.whole_words)
        index.expect(probes)
        if not probes:
            index.expect_scan(*_character_scan(pattern))
        words = match.code_words(quote, evidence.path)
        if words is not None:
            probes = _probes(words)
            index.expect(probes)
            if not probes:
                index.expect_scan(*_token_scan(quote, evidence.path))
        announced += 1
    return announced


class _WordIndex:
    """Which files of one snapshot a tree search must read.

    For a quote with names: the files holding them as whole words. ``git
    grep`` answers for many words in one pass over the snapshot, so words
    announced by :meth:`expect` are asked for together with the first word
    some search needs. Files where a backtick splits a word (which a quote
    shows joined) hold every word as far as this index says. For a quote of
    plain words: the files passing its test in one pass over every file
    (:meth:`scan`), shared by every scan announced by :meth:`expect_scan`.
    Only answers are kept (sets of paths), never the tree's texts.
    """

    def __init__(self, against) -> None:
        self._against = against
        self._paths: dict[str, set[str]] = {}
        self._expected: set[str] = set()
        self._spliced: set[str] | None = None
        self._unavailable = False
        self._scanned: dict[object, set[str]] = {}
        self._expected_scans: dict[object, object] = {}

    def expect(self, words) -> None:
        self._expected.update(w for w in words if w not in self._paths)

    def expect_scan(self, key, test) -> None:
        """Announce a :meth:`scan`, so that the first scan answers it too."""
        if key not in self._scanned:
            self._expected_scans[key] = test

    def scan(self, key, test) -> set[str]:
        """The files for which ``test(path, text, reduced)`` holds (``reduced``
        gives the text's :func:`.match.reduced` form, made once per file).

        For quotes without probe words every file must be looked at; one pass
        over the snapshot answers every scan announced so far, holding one
        batch of files at a time.
        """
        if key in self._scanned:
            return self._scanned[key]
        tests = {**self._expected_scans, key: test}
        self._expected_scans = {}
        found: dict[object, set[str]] = {k: set() for k in tests}
        for path, textfile in self._against.read_many(self._against.files()):
            if textfile is None or not textfile.is_text:
                continue
            text, reduced = textfile.text, _Once(match.reduced, textfile.text)
            for k, check in tests.items():
                if check(path, text, reduced):
                    found[k].add(path)
        self._scanned.update(found)
        return found[key]

    def holding(self, words: tuple[str, ...]) -> set[str] | None:
        """The files holding every one of ``words``; ``None`` when the index
        cannot tell (no words, or git cannot search): read every file then."""
        if not words or self._unavailable:
            return None
        missing = {w for w in words if w not in self._paths}
        if missing:
            wanted, self._expected = (self._expected | missing) - self._paths.keys(), set()
            found = self._against.files_with_words(wanted)
            if self._spliced is None and found is not None:
                self._spliced = self._against.files_with_spliced_words()
            if found is None or self._spliced is None:
                self._unavailable = True
                return None
            self._paths.update(found)
        first, *rest = words
        return self._paths[first].intersection(*(self._paths[w] for w in rest)) | self._spliced


class _Once:
    """``function(argument)``, computed on the first call and kept."""

    __slots__ = ("_function", "_argument", "_value")

    def __init__(self, function, argument) -> None:
        self._function, self._argument, self._value = function, argument, None

    def __call__(self):
        if self._value is None:
            self._value = self._function(self._argument)
        return self._value


#: a probe word: ASCII (git's word characters), long enough to be telling
_PROBE_WORD = re.compile(r"[A-Za-z0-9_]{4,}")
#: probes per quote: a file must hold them all to be read
_PROBES = 3


def _probes(words) -> tuple[str, ...]:
    """The longest compound identifiers among ``words`` (``load_entry``,
    ``scanQuota``): a handful of files hold each. Plain words are left out:
    their every copy in the tree would be a line of ``git grep`` output, and
    a quote of plain words only (prose, comments) reads every file instead."""
    names = (w for w in words if _PROBE_WORD.fullmatch(w) and match.is_compound(w))
    return match.rarest_words(names, _PROBES)


#: one word index per snapshot, dropped with the snapshot
_WORD_INDEXES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _word_index(against) -> _WordIndex:
    found = _WORD_INDEXES.get(against)
    if found is None:
        found = _WORD_INDEXES[against] = _WordIndex(against)
    return found


def _affinity(path: str, origin: str) -> int:
    """0: same file name as the origin, 1: same extension, 2: anything else."""
    if posixpath.basename(path) == posixpath.basename(origin):
        return 0
    return 1 if posixpath.splitext(path)[1] == posixpath.splitext(origin)[1] else 2
