"""Classifying one piece of evidence, true at its pin, at another revision.

:func:`classify` takes one :class:`~pytest_memreport.model.Evidence`, its
:class:`~pytest_memreport.checks.verify.PinResult` (which must be ``found``), the
target's :class:`~pytest_memreport.gitstore.GitStore`, the pin commit and the
:class:`~pytest_memreport.gitstore.Snapshot` to check against (a commit or the
working tree), and returns a :class:`~.results.DriftResult` (the classes are
listed in :mod:`.results`). :func:`ahead` tells evidence missing at its pin
that holds at the against-revision.

Only quotes that are gone from their file pay for the whole-tree search
(:mod:`.search`); a file whose path is gone is followed first (:mod:`.follow`).
Matching is by characters first (:mod:`.match`), then by tokens
(:func:`.symbols.token_find`), so a reformat never reads as a change.
"""

from __future__ import annotations

import functools
import posixpath
from dataclasses import replace

from ...gitstore import WORKTREE
from ...model import Evidence, EvidenceKind, EvidenceRole, LineRange
from ...text import match, render, symbols
from .. import verify
from . import blame, blocks, commits, follow, linemap, ranges, search
from .results import (
    AHEAD, CHANGED, DELETED, MODIFIED, MOVED, NOT_CHECKED, RELOCATED, SHIFTED, SUMMARY_PLACES, UNCHANGED,
    UNREADABLE, DriftResult,
    Place,
)

#: what a path that is no longer a regular file has become
_KIND_PHRASES = {"symlink": "a symbolic link (not followed)", "dir": "a directory",
                 "submodule": "a submodule (gitlink)"}


# -- entry point ---------------------------------------------------------------------


def classify(evidence: Evidence, pin, store, pin_sha: str, against, reports: frozenset[str] = frozenset(),
             describe: bool = True) -> DriftResult:
    """What became of ``evidence`` (found at ``pin_sha``, see ``pin``) in ``against``.

    ``store`` is the target's :class:`~pytest_memreport.gitstore.GitStore`
    (renames and history following); ``against`` a snapshot of it (a commit,
    or the working tree with ``rev == "worktree"``). ``describe=False`` leaves
    out the definition enclosing evidence that no definition enclosed at the
    pin (only JSON shows it; nothing is compared).
    """
    if evidence.kind is EvidenceKind.COMMIT:
        return commits.ancestry(evidence, store, against)
    # (a phrase found by searching the tree is the tree's: read from the file it was found in)
    of_the_tree = evidence.role in (EvidenceRole.PROJECT, EvidenceRole.TERM)
    evidence, pin = _as_read(evidence, pin, store, pin_sha)
    drift = _Drift(evidence, pin, store, pin_sha, against, reports, describe, of_the_tree)
    refusal = against.refuse_reason(evidence.path)
    if refusal:
        return drift.result(NOT_CHECKED, None, None, message=f"{evidence.path} {drift.where}: {refusal}")
    if evidence.kind is EvidenceKind.DIRECTORY:
        return drift.directory()
    if evidence.kind is EvidenceKind.PATH:
        if evidence.role is EvidenceRole.MANIFEST:
            return drift.manifest_blob()
        return drift.cited_path()
    if evidence.kind is EvidenceKind.LINES:
        if not (pin.recorded_text or "").strip():
            # Blank lines say nothing to look for: only the file's fate is known.
            return drift.cited_path(note="the cited lines are blank at the pin; only the file was checked")
        if pin.oid and pin.lines is not None:
            entry = against.entry(evidence.path)
            if entry is None or entry.kind != "file" or entry.oid != pin.oid:
                # exact lines only; broken by the commit after which the block stood nowhere in its file
                return drift.blamed(ranges.classify_range(drift, pin.recorded_text), pin.recorded_text, exact=True)
        return drift.blamed_quotation(pin.recorded_text)
    return drift.blamed_quotation(_quote_of(evidence, pin))


def searched_form(evidence: Evidence, pin, store, pin_sha: str) -> tuple[Evidence, match.QuotePattern | str]:
    """The evidence as :func:`classify` reads it and what it looks for: a quotation's pattern
    (held to its literal ``...`` where the pin found them so), cited lines as the pin recorded
    them. What the search of the tree is announced with (:func:`.search.expect_searches`): a
    quotation announced in another reading than the one classified finds its file holding it,
    is not announced, and its search asks git on its own, waited for."""
    evidence, pin = _as_read(evidence, pin, store, pin_sha)
    if evidence.kind is EvidenceKind.LINES:
        return evidence, pin.recorded_text or ""
    return evidence, _quote_of(evidence, pin)


def _quote_of(evidence: Evidence, pin) -> match.QuotePattern:
    quote = match.compile_quote(evidence.text or "")
    # Found at the pin with its ``...`` as the file's own characters: held to them here too
    # (read as an elision, ``x: int = ...`` would still hold once the code says ``= 0``).
    return (quote.literal or quote) if pin.literal else quote


def _as_read(evidence: Evidence, pin, store, pin_sha: str):
    """The evidence and its pin result as classification reads them (:func:`_as_found`)."""
    if pin.found_as is not None:
        # Only the quotation as Markdown shows it was in the file at the pin: that is the quote.
        evidence = replace(evidence, text=pin.found_as)
    return _as_found(evidence, pin, store, pin_sha)


def _as_found(evidence: Evidence, pin, store, pin_sha: str):
    """A prose quotation as the pin found it: in the one file that held it (of several, or of
    the tree), and, when only its typography set aside found it, as the lines it occupies
    there, which follow only to identical lines (matching the quote again would not forgive
    its emphasis)."""
    if evidence.role is None or evidence.role is EvidenceRole.MANIFEST or not pin.ok:
        return evidence, pin
    evidence = replace(evidence, path=pin.path, context=(), role=EvidenceRole.PROSE)
    if not pin.by_typography or pin.lines is None:
        return evidence, pin
    textfile = store.snapshot(pin_sha).read(pin.path)
    if textfile is None or not textfile.is_text:
        return evidence, pin
    recorded = "\n".join(textfile.text.split("\n")[pin.lines.start - 1:pin.lines.end])
    lines = replace(evidence, kind=EvidenceKind.LINES, cited_lines=pin.lines, text=None, role=None)
    return lines, replace(pin, recorded_text=recorded)


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

    def __init__(self, evidence: Evidence, pin, store, pin_sha: str, against, reports=frozenset(),
                 describe: bool = True, of_the_tree: bool = False) -> None:
        self.evidence = evidence
        #: whether the quotation is the pinned tree's, not one file's: a phrase the document
        #: attributes to the project or to nothing, found by searching the tree (the file it
        #: was found in is where it was, not what it quotes)
        self.of_the_tree = of_the_tree
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
        #: whether to find the enclosing definition where the pin had none (see :func:`classify`)
        self.describe = describe
        #: each quote's or range's breaking commit, once bisected (:meth:`breaking_commit`)
        self._breaking: dict[tuple[bool, match.QuotePattern | str], object] = {}

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

    @property
    def what(self) -> str:
        """What is looked for, as messages name it: a quotation, or the lines a range cites."""
        return "quotation" if self.evidence.kind is EvidenceKind.QUOTE else "cited lines"

    def result(self, status: str, path: str | None, lines: LineRange | None, **fields) -> DriftResult:
        fields.setdefault("old_lines", self.pin.lines)
        return DriftResult(status, self.against.rev, path, lines, old_path=self.path, **fields)

    def followed(self) -> str | None:
        """Where the pin's file lives in ``against`` when its path is gone (:func:`.follow.followed`)."""
        return follow.followed(self.store, self.pin_sha, self.against, self.path)

    # -- cited paths and directories ---------------------------------------------------

    def cited_path(self, note: str | None = None) -> DriftResult:
        pinned = self.store.snapshot(self.pin_sha).entry(self.path)
        if pinned is not None and pinned.kind == "dir":
            return self.directory()
        entry = self.against.entry(self.path)
        if entry is not None:
            if not self.pin.oid or entry.oid == self.pin.oid:
                return self.result(UNCHANGED, self.path, None, old_lines=None, note=note,
                                   message=f"{self.path} exists {self.where}, unchanged")
            if entry.kind != "file" or (pinned is not None and pinned.kind != "file"):
                now = _KIND_PHRASES.get(entry.kind, "a file")
                return self.result(MODIFIED, self.path, None, old_lines=None, note=note,
                                   message=f"{self.path} exists {self.where}; it is now {now}")
            counts = self.store.line_counts(self.pin_sha, self.against.rev, self.path)
            shown = f" ({counts})" if counts is not None else ""
            return self.result(MODIFIED, self.path, None, old_lines=None, note=note, line_counts=counts,
                               message=f"{self.path} exists {self.where}, modified since the pin{shown}")
        new_path = self.followed() or follow.same_blob_elsewhere(self.against, self.path, self.pin.oid)
        if new_path is not None:
            counts = None
            moved_to = self.against.entry(new_path)
            if (moved_to is not None and moved_to.oid != self.pin.oid and self.against.rev != WORKTREE
                    and self.store.renames(self.pin_sha, self.against.rev).get(self.path) == new_path):
                counts = self.store.line_counts(self.pin_sha, self.against.rev, new_path)
            edited = f", modified ({counts})" if counts is not None else ""
            return self.result(MOVED, new_path, None, old_lines=None, note=note, line_counts=counts,
                               message=f"{self.path} moved to {new_path} {self.where}{edited}")
        if self.path in self.store.skipped_paths:
            return self._unknown_fate()
        return self._blamed(self.result(DELETED, None, None, old_lines=None, note=note,
                                        message=f"{self.path} was deleted {self.where}"),
                            lambda path, oid: oid is not None)

    def manifest_blob(self) -> DriftResult:
        """A manifest's row claims the file's content: a file modified since the pin no longer
        holds it (broken by the first commit whose version of the file is another blob)."""
        found = self.cited_path()
        if found.status != MODIFIED and not (found.status == MOVED and found.line_counts is not None):
            return found
        pinned = self.pin.oid
        return self._blamed(replace(found, status=CHANGED,
                                    message=f"{found.message}: the manifest's blob {(pinned or '')[:12]} is gone"),
                            lambda path, oid: oid is not None and oid == pinned)

    def _unknown_fate(self) -> DriftResult:
        """A file gone from its path whose blob the clone lacks: git could not tell
        whether it was renamed, so it is not called deleted."""
        return self.result(UNREADABLE, None, None, old_lines=None,
                           message=f"{self.path} is gone {self.where}, and the clone lacks its blob: "
                                   f"whether it was renamed cannot be told (complete the clone)")

    def directory(self) -> DriftResult:
        entry = self.against.entry(self.path)
        if entry is not None and entry.kind == "dir":
            pinned = self.store.snapshot(self.pin_sha).entry(self.path)
            if entry.oid and pinned is not None and entry.oid == pinned.oid:
                return self.result(UNCHANGED, self.path, None, old_lines=None,
                                   message=f"directory {self.path} exists {self.where}, unchanged")
            counts = self.store.line_counts(self.pin_sha, self.against.rev, self.path, directory=True)
            if counts is None and not entry.oid:
                # The working tree has no tree ids: git's diff says whether anything changed.
                return self.result(UNCHANGED, self.path, None, old_lines=None,
                                   message=f"directory {self.path} exists {self.where}, unchanged")
            shown = f" ({counts})" if counts is not None else ""
            return self.result(MODIFIED, self.path, None, old_lines=None, line_counts=counts,
                               message=f"directory {self.path} exists {self.where}, modified since the pin{shown}")
        new_dir = follow.moved_directory(self.store, self.pin_sha, self.against, self.path)
        if new_dir is not None:
            return self.result(MOVED, new_dir, None, old_lines=None,
                               message=f"directory {self.path} moved to {new_dir} {self.where}")
        deleted = self.result(DELETED, None, None, old_lines=None,
                              message=f"directory {self.path} was deleted {self.where}")
        return replace(deleted, broken_by=blame.directory_broken_by(self.store, self.pin_sha, self.against, self.path))

    def _blamed(self, result: DriftResult, holds) -> DriftResult:
        """``result`` naming the commit after which ``holds(path, blob)`` stopped being true (:mod:`.blame`)."""
        return replace(result, broken_by=blame.broken_by(self.store, self.pin_sha, self.against, self.path, holds))

    def breaking_commit(self, quote: match.QuotePattern | str, exact: bool = False):
        """The commit after which the evidence stopped holding in its file
        (:func:`.blame.breaking_commit`): a quote, or (``exact``) a cited range's recorded
        lines. Bisected once: where plain evidence may have gone and what a changed result
        names both ask for it."""
        key = (exact, quote)
        if key not in self._breaking:
            holds = self._block_holds(str(quote)) if exact else self._quote_holds(quote)
            self._breaking[key] = blame.breaking_commit(self.store, self.pin_sha, self.against, self.path, holds)
        return self._breaking[key]

    def plain_folders(self, home: str | None) -> set[str]:
        """Where evidence too plain to follow across the tree (fewer letters and digits than
        git blame -C follows between files) is looked for: the folders of its file at the
        pin and now (``home``)."""
        return {posixpath.dirname(self.path)} | ({posixpath.dirname(home)} if home else set())

    def plain_moves(self, places: list[Place], evidence: match.QuotePattern | str, exact: bool,
                    home: str | None, copies) -> tuple[list[Place], list[Place]]:
        """Where plain evidence (too few letters and digits to follow across the tree) may
        have gone among ``places`` (its folders' files, and the files of its kind that the
        commit removing it changed), and of those where it went: a file that commit changed
        (any, where the history cannot say which commit removed it, or none did: the working
        tree) new since the pin or holding more copies than at the pin, or a new file of its
        folder holding it in a definition of the same name. A copy that stood there already
        is not where it went, nor is boilerplate: each of express's test files holds
        ``app.get('/', function(req, res){``, and new test files keep repeating it.
        ``copies(text, path, oid)`` counts the copies in a file's text."""
        moves = blame.destinations(self.store, self.pin_sha, self.against, self.breaking_commit(evidence, exact),
                                   self.path, {place.path for place in places})
        folders = self.plain_folders(home)
        near = [place for place in places if place.path in moves.touched or posixpath.dirname(place.path) in folders]
        by_file: dict[str, list[Place]] = {}
        for place in near:
            by_file.setdefault(place.path, []).append(place)
        pinned = self.store.snapshot(self.pin_sha)
        went: set[Place] = set()
        for path, mine in by_file.items():
            named = moves.at_pin[path]
            before = pinned.read(named) if named is not None else None
            if moves.changed_by_it(path):
                if before is None or (before.is_text and copies(before.text, path, before.oid) < len(mine)):
                    went.update(mine)
            elif before is None:
                # A new file of its folder the commit removing it did not change: copied there
                # before it left (the servers' ``expandHome``, copied into ``path-utils.ts``
                # by one pull request, removed from ``index.ts`` by another) only in a
                # definition of the same name; boilerplate new tests repeat is not.
                went.update(place for place in mine if self._in_same_definition(place))
        return [place for place in near if place in went], near

    def _in_same_definition(self, place: Place) -> bool:
        """Whether the definition around ``place`` at the against revision has the name of
        the one around the evidence at the pin (both none: both at a file's top level)."""
        textfile = self.against.read(place.path)
        if textfile is None or not textfile.is_text:
            return False
        around = symbols.enclosing(textfile.text, place.path, place.lines, key=textfile.oid or None)
        old = self.pin_symbol
        if around is None or old is None:
            return around is old  # both at a file's top level
        return around.bare_name == old.bare_name

    def _quote_holds(self, quote: match.QuotePattern | str):
        """Whether the quote occurs in a version of its file (by characters, then tokens)."""
        def holds(path: str, oid: str | None) -> bool:
            if oid is None:
                return False
            textfile = self.store.read_blob(path, oid)
            return textfile.is_text and bool(verify.occurrences(quote, textfile.text, path, key=oid)[0])
        return holds

    def _block_holds(self, recorded: str):
        """Whether a version of the file holds the cited lines exactly as they were."""
        block = blocks.cited_block(recorded)

        def holds(path: str, oid: str | None) -> bool:
            if oid is None:
                return False
            textfile = self.store.read_blob(path, oid)
            return textfile.is_text and bool(blocks.exact_blocks(block, textfile.text))
        return holds

    def _enclosing_holds(self, quote: match.QuotePattern | str):
        """Whether a version of the file holds the quote inside a definition with the pin's code."""
        old, pinned = self.pin_symbol, self.pinned_text

        def holds(path: str, oid: str | None) -> bool:
            if oid is None or old is None or pinned is None:
                return False
            textfile = self.store.read_blob(path, oid)
            if not textfile.is_text:
                return False
            found, _ = verify.occurrences(quote, textfile.text, path, key=oid)
            if not found:
                return False
            new = symbols.enclosing(textfile.text, path, _nearest(list(found), self.pin.lines), key=oid)
            return (new is not None and new.bare_name == old.bare_name
                    and _same_code(pinned.text, self.path, old, textfile.text, path, new, pinned.oid or None, oid))
        return holds

    # -- quotations ------------------------------------------------------------------

    def blamed_quotation(self, quote: match.QuotePattern | str) -> DriftResult:
        """:meth:`quotation`, naming the commit that broke a quote that no longer holds."""
        pattern = match.as_pattern(quote)
        return self.blamed(self.quotation(pattern), pattern)

    def blamed(self, result: DriftResult, quote: match.QuotePattern | str, exact: bool = False) -> DriftResult:
        """``result`` naming the commit that broke the quote (``exact``: a cited line range,
        its recorded lines, which hold only where they stand as they were)."""
        if result.status in (CHANGED, DELETED):
            evidence = (quote if isinstance(quote, str) else quote.text) if exact else match.as_pattern(quote)
            return replace(result, broken_by=blame.as_broken_by(self.breaking_commit(evidence, exact)))
        if result.enclosing_changed:
            # Relocated too: the pinned file stopped holding the quote in the pin's definition.
            return self._blamed(result, self._enclosing_holds(quote))
        return result

    def quotation(self, quote: match.QuotePattern | str) -> DriftResult:
        entry = self.against.entry(self.path)
        # Same blob as at the pin: the quote is where it was; nothing to read.
        if entry is not None and entry.kind == "file" and self.pin.oid and entry.oid == self.pin.oid:
            return self.result(UNCHANGED, self.path, self.pin.lines, by_tokens=self.pin.by_tokens,
                               symbol=self._pin_symbol, old_symbol=self._pin_symbol,
                               message=f"{self.path} is unchanged {self.where}")
        pattern = match.as_pattern(quote)
        quote = pattern.text
        note = None
        home = self.path if entry is not None and entry.kind == "file" else None
        if home is None:
            home = self.followed()
        if home is not None:
            textfile = self.against.read(home)
            if textfile is not None and textfile.is_text:
                # Lines git's diff leaves untouched are where it says; only touched ones are searched.
                found = self._mapped(home) or _locate(pattern, textfile, home, self.pin.lines)
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
        places, by_tokens = search.search_tree(pattern, quote, self.against, exclude={home, *self.reports},
                                               origin=self.path)
        plain = None
        # (held anywhere later, a phrase of the tree holds: which file it went to is no question for it)
        if places and search.letters_and_digits([quote]) < search.FOLLOW_ALNUM and not self.of_the_tree:
            places, plain = self._moved_with(places, pattern, home)
        if places:
            return self._relocated(places, by_tokens, note)
        if home is None and entry is None and self.path in self.store.skipped_paths:
            return self._unknown_fate()
        if home is None:
            # A file replaced by a symlink (or a folder, or a submodule) is not read through it.
            gone = "is gone" if entry is None else f"is now {_KIND_PHRASES.get(entry.kind, entry.kind)}"
            where = f"; {plain}" if plain else " and the quotation occurs nowhere"
            return self.result(DELETED, None, None, note=note, message=f"{self.path} {gone} {self.where}{where}")
        return self._changed(pattern, quote, home, note, elsewhere=plain)

    def _moved_with(self, places: list[Place], pattern: match.QuotePattern,
                    home: str | None) -> tuple[list[Place], str | None]:
        """The places a plain quotation (fewer letters and digits than git blame -C follows
        between files) went to (:meth:`plain_moves`), and why none, if none.
        ``def timeout(self): ...`` left a stub by gaining a return type, and another
        project's stub holding the same line is not where it went; nor is a page of
        documentation the same commit edited, whose example still shows the old line. Where
        several files gained a copy it went to none that can be told: guzzle's
        ``public function __construct(`` did not go to each new class of its rewrite."""
        kept, near = self.plain_moves(places, pattern, False, home,
                                      lambda text, path, oid: len(verify.occurrences(pattern, text, path, key=oid)[0]))
        if len({place.path for place in kept}) == 1:
            return kept, None
        count = search.letters_and_digits([pattern.text])
        files = list(dict.fromkeys(place.path for place in kept or near or places))
        named = f"{', '.join(files[:SUMMARY_PLACES])}{' and others' if len(files) > SUMMARY_PLACES else ''}"
        if kept:
            held = f"{named} each gained a copy of it, and it is too plain to tell which one it went to"
        elif near:
            held = f"{named} held it at the pin already (a copy that stood there is not where it went)"
        elif len(files) == 1:
            held = f"{files[0]} holds it, but the commit that removed it did not move it there"
        else:
            held = f"{named} hold it, but the commit that removed it moved it to none of them"
        return [], (f"{held}, and its {count} letters and digits are too few to follow it further "
                    f"(git blame -C asks for {search.FOLLOW_ALNUM})")

    def _mapped(self, home: str) -> tuple[LineRange, bool] | None:
        """The pin's lines at their place in ``home`` by git's hunks (:mod:`.linemap`), if untouched."""
        lines = linemap.mapped(self.store, self.pin_sha, self.against.rev, self.path, home, self.pin.lines)
        return (lines, self.pin.by_tokens) if lines is not None else None

    def _shifted_definition(self, old, path: str, textfile) -> symbols.Definition | None:
        """The pin's enclosing definition at its new place when no hunk of git's diff
        touches it (:mod:`.linemap`), checked to be the very same text; else ``None``."""
        if old is None or symbols.language_for(path) != symbols.language_for(self.path):
            return None
        new_lines = linemap.mapped(self.store, self.pin_sha, self.against.rev, self.path, path, old.lines)
        pinned = self.pinned_text
        if new_lines is None or pinned is None:
            return None
        column = old.start - linemap.line_offset(pinned.text, old.lines.start)
        start = linemap.line_offset(textfile.text, new_lines.start) + column
        end = start + (old.end - old.start)
        if column < 0 or textfile.text[start:end] != pinned.text[old.start:old.end]:
            return None
        return replace(old, lines=new_lines, start=start, end=end)

    def _relocated(self, places: list[Place], by_tokens: bool, note: str | None) -> DriftResult:
        first = places[0]
        shown = ", ".join(str(p) for p in places[:SUMMARY_PLACES])
        message = f"{self.what} left {self.path}; {'it now occurs' if self.what == 'quotation' else 'they now stand'} at {shown}"
        if len(places) > SUMMARY_PLACES:
            message += f" and {len(places) - SUMMARY_PLACES} more"
        symbol = enclosing_changed = enclosing_diff = None
        if len(places) == 1:
            textfile = self.against.read(first.path)
            if textfile is not None and textfile.is_text:
                symbol = symbols.enclosing(textfile.text, first.path, first.lines, key=textfile.oid or None)
                old = self.pin_symbol
                # Another definition around it is context, not drift; the same one is compared.
                if symbol is not None and old is not None and symbol.bare_name == old.bare_name:
                    enclosing_diff = self._body_diff(first.path, textfile, symbol)
                    enclosing_changed = enclosing_diff is not None
        return self.result(RELOCATED, first.path, first.lines, candidates=tuple(places), by_tokens=by_tokens,
                           symbol=symbol, old_symbol=self.pin_symbol, enclosing_changed=bool(enclosing_changed),
                           enclosing_diff=enclosing_diff, note=note, message=message)

    def _changed(self, pattern, quote: str, home: str, note: str | None, elsewhere: str | None = None) -> DriftResult:
        """Gone from ``home``, and found nowhere else (``elsewhere``: why no other file was searched)."""
        textfile = self.against.read(home)
        candidate = diff = None
        if textfile is not None and textfile.is_text:
            # The nearest lines by the quote's words: its ``...`` (literal or not) are no guide.
            candidate = match.nearest(match.compile_quote(pattern.text), textfile.text, key=textfile.oid or None,
                                      near=self.pin.lines)
        if candidate is not None:
            diff = match.render_diff(quote, candidate.text) or None
        renamed = f" (renamed from {self.path})" if home != self.path else ""
        why = f"; {elsewhere}" if elsewhere else None
        message = f"{self.what} no longer in {home}{renamed} {self.where}" + (why or ", nor anywhere else")
        if textfile is not None and not textfile.is_text:
            # Not read is not gone: say the file could not be searched.
            verb = "occurs" if self.what == "quotation" else "occur"
            message = f"{home}{renamed} cannot be searched {self.where}" + (
                why or f", and the {self.what} {verb} nowhere else")
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
        if old is None and not self.describe:
            return self.result(status, path, lines, **fields)  # nothing to compare, nothing asked to show
        shifted = self._shifted_definition(old, path, textfile)
        if shifted is not None:
            # git's diff leaves the whole definition untouched: it is the same one, moved; no parse.
            return self.result(status, path, lines, symbol=shifted, old_symbol=old, **fields)
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
                enclosing_diff = self._body_diff(path, textfile, symbol)
                if (old.kind, old.bare_name) != (symbol.kind, symbol.bare_name):
                    renamed = f"{old.kind} {old.name} is now {symbol.kind} {symbol.name}"
                    enclosing_diff = renamed + ("\n" + enclosing_diff if enclosing_diff else "")
                enclosing_changed = enclosing_diff is not None
        return self.result(status, path, lines, symbol=symbol, old_symbol=old,
                           enclosing_changed=enclosing_changed, enclosing_diff=enclosing_diff, **fields)

    def _body_diff(self, path: str, textfile, symbol: symbols.Definition) -> str | None:
        """The token difference between the pin's enclosing definition and ``symbol`` (in
        ``textfile``: the parse of its blob, made to find ``symbol``, is the one lexed)."""
        old = self.pin_symbol
        if old is None or symbols.language_for(path) != symbols.language_for(self.path):
            return None
        pinned = self.pinned_text
        if pinned is None:
            return None
        # (the same code reformatted, trailing commas and all, is no difference)
        return symbols.body_token_diff(pinned.text, textfile.text, path, old, symbol, unless_reformatted=True,
                                       old_key=pinned.oid or None, new_key=textfile.oid or None)


def _same_code(old_text: str, old_path: str, old_def, new_text: str, new_path: str, new_def,
               old_key: str | None = None, new_key: str | None = None) -> bool:
    """Whether two definitions have the same tokens once trailing commas are dropped.

    A formatter that wraps arguments adds trailing commas; like layout and
    comments, that is not a change of the definition (``body_token_diff``
    counts them). A huge definition is compared by its changed regions only, and
    a file renamed to another language lexed by each side's grammar
    (:func:`.symbols.same_tokens`).
    """
    return symbols.same_tokens(old_text, new_text, new_path, old_def, new_def, count_trailing_commas=False,
                               old_path=old_path, old_key=old_key, new_key=new_key)


# -- locating ----------------------------------------------------------------------


def _locate(quote: match.QuotePattern | str, textfile, path: str, near: LineRange | None) -> tuple[LineRange, bool] | None:
    """Where the quote is in one file (the occurrence nearest ``near``), and whether only by tokens."""
    found, by_tokens = verify.occurrences(quote, textfile.text, path, key=textfile.oid or None)
    return (_nearest(list(found), near), by_tokens) if found else None


def _nearest(occurrences: list[LineRange], near: LineRange | None) -> LineRange:
    if near is None:
        return occurrences[0]
    return min(occurrences, key=lambda lines: abs(lines.start - near.start))
