"""What a drift check found: the classes of drift, :class:`Place` and :class:`DriftResult`.

The classes, cheapest first:

``unchanged``   the file's blob (a folder's tree) is the pin's (nothing is read), or the quote is at the same lines
``modified``    a cited file or folder (no quotation) whose content differs: lines added and removed counted
``shifted``     same file, the quote is at other lines
``moved``       the file was renamed (followed through history) and still holds the quote
``relocated``   the quote left its file and now occurs elsewhere (every place is listed)
``changed``     the file is there but the quote is not, anywhere (nearest candidate + diff)
``deleted``     the file is gone and the quote occurs nowhere
``ahead``       not true at the pin, but at the against-revision (:func:`.classification.ahead`):
                the report was written against newer code than its pin

``not-checked`` says the against-revision refused to show the path; ``unreadable`` that the
clone lacks an object the check needs (an incomplete mirror, a partial clone).

Failing classes (``changed``, ``deleted``, an enclosing definition that changed)
name ``broken_by``: the first-parent commit after which the evidence no longer
holds (:mod:`.blame`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...gitstore.history import LogCommit
from ...gitstore.hunks import LineCounts
from ...model import LineRange
from ...text import match, render, symbols

if TYPE_CHECKING:
    from ...gitstore.history import LogCommit
    from ...gitstore.hunks import LineCounts

UNCHANGED = "unchanged"
MODIFIED = "modified"
UNREADABLE = "unreadable"
SHIFTED = "shifted"
MOVED = "moved"
RELOCATED = "relocated"
#: a symbol's body under a new name (``symbolrefs``)
RENAMED = "renamed"
CHANGED = "changed"
DELETED = "deleted"
NOT_CHECKED = "not-checked"
AHEAD = "ahead"

#: statuses under which the evidence still holds, possibly elsewhere: the drift check passes
PASSING = frozenset({UNCHANGED, MODIFIED, SHIFTED, MOVED, RELOCATED, RENAMED})

#: how many relocation places a one-line summary names before "and N more"
SUMMARY_PLACES = 4


@dataclass(frozen=True)
class Uncommitted:
    """What broke evidence that still holds at HEAD: the working tree's own edits."""

    def as_json(self) -> dict:
        return {"commit": None, "subject": "uncommitted changes in the working tree", "author": None, "date": None}

    def __str__(self) -> str:
        return "uncommitted changes in the working tree (it still holds at HEAD)"


UNCOMMITTED = Uncommitted()


@dataclass(frozen=True)
class Place:
    """A span of lines in one file at the against-revision."""

    path: str
    lines: LineRange

    def __str__(self) -> str:
        return f"{self.path}:{self.lines}"

    def as_json(self) -> dict:
        return {"path": self.path, "lines": self.lines.pair()}


@dataclass(frozen=True, slots=True)
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
    #: lines added and removed in a cited file or folder (``gitstore.hunks.LineCounts``)
    line_counts: LineCounts | None = None
    #: the commit after which the evidence no longer holds (``gitstore.history.LogCommit``),
    #: or :data:`UNCOMMITTED` when only the working tree breaks it
    broken_by: LogCommit | Uncommitted | None = None

    def as_json(self) -> dict:
        """The ``at_against`` object of the JSON report."""
        out: dict = {
            "rev": self.rev,
            "status": self.status,
            "path": self.path,
            "lines": self.lines.pair() if self.lines else None,
            "candidates": [place.as_json() for place in self.candidates],
            "old_lines": self.old_lines.pair() if self.old_lines else None,
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
        if self.line_counts is not None:
            out["lines_added"] = self.line_counts.added
            out["lines_removed"] = self.line_counts.removed
        if self.broken_by is not None:
            out["broken_by"] = self.broken_by.as_json()
        return out

    def symbol_name(self) -> str:
        """``function Store.get``: the enclosing definition now, else the pin's; ``""`` when none."""
        definition = self.symbol or self.old_symbol
        return f"{definition.kind} {definition.name}" if definition else ""

    def changed_where(self) -> str:
        """Where a one-line headline says the change happened: by the first-parent commit that
        made it, when blame found one (``by 3f2a1b4c5d6e``), else at the revision checked
        against (``at 9a0bae8d1c2f``: the commit checked is not always the one that changed it)."""
        sha = getattr(self.broken_by, "sha", None)
        return f"by {render.short(sha)}" if sha else f"at {render.short(self.rev)}"

    def summary(self) -> str:
        """One line for a passing item: ``shifted 120-134 → 140-154``."""
        if self.status == UNCHANGED:
            text = f"unchanged at lines {self.lines}" if self.lines else "unchanged"
        elif self.status == MODIFIED:
            text = f"modified {self.line_counts}" if self.line_counts is not None else "modified"
        elif self.status == SHIFTED:
            text = f"shifted {self.old_lines} → {self.lines}"
        elif self.status == MOVED:
            text = f"moved {self.old_path} → {self.path}"
            if self.lines:
                text += f" (lines {self.lines})"
            elif self.line_counts is not None:
                text += f", modified {self.line_counts}"
        elif self.status == RELOCATED:
            shown = ", ".join(str(place) for place in self.candidates[:SUMMARY_PLACES])
            more = len(self.candidates) - SUMMARY_PLACES
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
        if self.broken_by is not None:
            out.append(f"broken by {self.broken_by}")
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
