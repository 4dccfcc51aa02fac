"""What a re-pin is asked to do, and what each cited location becomes.

The session builds a :class:`RepinTarget` (it alone talks to git: the new
commit, each re-pinned source's old commit and the rename map between them);
:mod:`.moves` turns a run's results into one :class:`Move` per piece of evidence
whose citation changes. Everything downstream is text editing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...model import LineRange


@dataclass(frozen=True)
class PinnedSource:
    """A source being re-pinned: its id, the repository names its links use, and
    the full sha of the commit the report states (``old``)."""

    id: str
    old: str
    #: ``owner/name`` spellings (casefolded) whose links belong to this source
    repositories: frozenset[str] = frozenset()
    #: the commit it moves to, when its repository is not the report's first (``""``: the
    #: target's ``new``): ``HEAD`` of each clone, for a report pinning two repositories
    new: str = ""


@dataclass(frozen=True)
class RepinTarget:
    """Move these sources' pin to ``new`` (a full sha); ``renames`` is git's
    old path → new path map from each old commit to ``new``."""

    new: str
    sources: tuple[PinnedSource, ...]
    renames: dict = field(default_factory=dict, hash=False, compare=False)

    def new_of(self, pinned: PinnedSource) -> str:
        """The full sha ``pinned`` moves to."""
        return pinned.new or self.new

    def source_for(self, source_id: str | None, default_id: str | None) -> PinnedSource | None:
        wanted = (source_id or default_id or "").casefold()
        for source in self.sources:
            if source.id.casefold() == wanted or wanted in source.repositories:
                return source
        return None

    def repository(self, repo_id: str) -> PinnedSource | None:
        """The re-pinned source whose links name ``owner/name``."""
        wanted = repo_id.casefold()
        for source in self.sources:
            if wanted in source.repositories or source.id.casefold() == wanted:
                return source
        return None


def same_commit(written: str, other: str) -> bool:
    """Whether two shas as written (7 to 64 hex digits) name one commit: one is a
    prefix of the other (a report may state its pin short and link it in full)."""
    one, two = written.lower(), other.lower()
    return min(len(one), len(two)) >= 7 and (one.startswith(two) or two.startswith(one))


def respell(written: str, new: str) -> str:
    """``new`` spelled as ``written`` was: as long (a short sha stays short), same case."""
    out = new[: max(len(written), 7)] if len(written) < len(new) else new
    return out.upper() if written.isupper() else out


@dataclass(frozen=True)
class Move:
    """Where one citation points after the rewrite.

    ``old_lines``/``new_lines`` are the cited range as written and as it must
    read (``None``: the citation has no range). ``corrected`` says the range
    was wrong already at the pin (the quotation lies elsewhere in the file) and
    ``new_lines`` is where it was found.
    """

    old_path: str
    new_path: str
    old_lines: LineRange | None = None
    new_lines: LineRange | None = None
    corrected: bool = False
    #: for a corrected range: where the quotation was found at the pin
    found: LineRange | None = None

    @property
    def changes(self) -> bool:
        return self.old_path != self.new_path or self.old_lines != self.new_lines
