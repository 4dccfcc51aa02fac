"""What the files of an analysis run state about the run as a whole (docs/FORMATS.md §3).

One file of a run usually holds the boundary: the repository
(``github.com/owner/name``), the subject subtree (``the subtree src/widgets
of ...``), the analyst's checkout (``Checkout: /home/ana/src/widgets``), the
revision in one of its many shapes, and the source register. The other files
cite ``SRC-2:47-59`` against it. :class:`FileFacts` is what one file states;
:class:`RunContext` merges the facts of a run's files so each file is parsed
with all of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model import Finding, LineRange

@dataclass
class RegisterRow:
    """One row of the source register (``| SRC-1 | identity | revision | ... |``).

    ``paths`` are the files and folders its identity cell names, as written
    (``(path, ranges)``; a folder ends with ``/``; an absolute path is the
    analyst's checkout).
    """

    id: str
    file: str
    line: int
    url: str | None = None
    pin: str | None = None
    paths: list[tuple[str, tuple[LineRange, ...]]] = field(default_factory=list)
    #: written as a row (not only mentioned in prose)
    registered: bool = False
    #: paths the row qualifies as the repository root's (``repo-root `package.json```)
    rooted: set[str] = field(default_factory=set)

    @property
    def parent(self) -> str | None:
        """``SRC-1`` for the sub-entry ``SRC-1a``."""
        stripped = self.id.rstrip("abcdefghijklmnopqrstuvwxyz")
        return stripped if stripped != self.id else None


@dataclass
class FileFacts:
    """What one file of a run says about the run; ``(value, line)`` pairs."""

    path: str
    identity: str | None = None
    revision: tuple[str, int] | None = None
    repository: tuple[str, int] | None = None
    subject: tuple[str, int] | None = None
    checkout: tuple[str, int] | None = None
    registers: dict[str, RegisterRow] = field(default_factory=dict)
    #: the file declares record rows (an ID in a table's first cell)
    has_records: bool = False
    #: the prefixes of the record IDs it declares (``OBJ``, ``MEM``)
    prefixes: set[str] = field(default_factory=set)
    #: rows of other IDs that name one file (``PROPOSED-SRC-22``): ``ID:lines`` cites its lines
    entries: dict[str, RegisterRow] = field(default_factory=dict)


@dataclass(frozen=True)
class StatedPin:
    sha: str
    file: str
    line: int


@dataclass
class RunContext:
    """The merged facts of a run's files."""

    folder: str
    identity: str | None = None
    pin: StatedPin | None = None
    #: every file's own stated pin, by file
    pins: dict[str, StatedPin] = field(default_factory=dict)
    repository: str | None = None
    repository_at: tuple[str, int] | None = None
    subject: str | None = None
    checkout: str | None = None
    registers: dict[str, RegisterRow] = field(default_factory=dict)
    #: the names of the run's own files (paths of the knowledge base, not the target)
    files: frozenset[str] = frozenset()
    #: findings about the run, by the file they belong to
    findings: dict[str, list[Finding]] = field(default_factory=dict)
    #: record-ID prefixes declared anywhere in the run
    prefixes: frozenset[str] = frozenset()
    #: register entries of other prefixes, from any file of the run (see FileFacts.entries)
    entries: dict[str, RegisterRow] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.identity or self.folder

    def pin_for(self, path: str) -> str | None:
        """The commit ``path`` is checked at: its own when it states a different one."""
        own = self.pins.get(path)
        if own is not None and (self.pin is None or not same_commit(own.sha, self.pin.sha)):
            return own.sha
        return self.pin.sha if self.pin else None


def same_commit(a: str, b: str) -> bool:
    """Two spellings of one commit: one is a prefix of the other."""
    a, b = a.lower(), b.lower()
    return a.startswith(b) or b.startswith(a)


def merge(folder: str, facts: list[FileFacts], names: frozenset[str]) -> RunContext:
    """One run's context from its files' facts (in file order).

    The run's pin is the one stated next to the register (else the first
    stated, spelled in full when some file does); a file stating a different
    commit keeps its own, with one finding naming both files and lines.
    """
    context = RunContext(folder, files=names)
    context.prefixes = frozenset(p for fact in facts for p in fact.prefixes)
    for fact in facts:
        context.identity = context.identity or fact.identity
        if fact.repository and context.repository is None:
            context.repository = fact.repository[0]
            context.repository_at = (fact.path, fact.repository[1])
        if fact.subject and context.subject is None:
            context.subject = fact.subject[0]
        if fact.checkout and context.checkout is None:
            context.checkout = fact.checkout[0]
        for entry, row in fact.entries.items():
            context.entries.setdefault(entry, row)
        for source_id, row in fact.registers.items():
            known = context.registers.get(source_id)
            if known is None or (row.registered and not known.registered):
                context.registers[source_id] = row
            elif row.registered and known.registered and known.paths != row.paths and row.paths and not known.paths:
                context.registers[source_id] = row
        if fact.revision:
            context.pins[fact.path] = StatedPin(fact.revision[0], fact.path, fact.revision[1])
    stated = list(context.pins.values())
    if stated:
        holders = [p for p in stated if any(r.registered for r in facts_by_path(facts, p.file).registers.values())]
        first = (holders or stated)[0]
        fuller = [p for p in stated if same_commit(p.sha, first.sha) and len(p.sha) > len(first.sha)]
        context.pin = StatedPin(fuller[0].sha, fuller[0].file, fuller[0].line) if fuller else first
        for other in stated:
            if not same_commit(other.sha, first.sha):
                context.findings.setdefault(other.file, []).append(Finding(
                    other.line,
                    f"this file pins {other.sha}, but {first.file}:{first.line} pins {first.sha} for the same run; "
                    "state one revision for the run (this file is checked at its own)",
                    "pin",
                ))
    return context


def facts_by_path(facts: list[FileFacts], path: str) -> FileFacts:
    for fact in facts:
        if fact.path == path:
            return fact
    return FileFacts(path)
