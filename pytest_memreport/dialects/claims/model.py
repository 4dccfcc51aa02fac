"""What a claims file or a ```memreport block says, as plain frozen objects.

A *predicate* is a check over the target's source (``contains``, ``absent``,
``count``, ``symbol``, ``value``); an *observation* is a target test run. Each
belongs to a record (``record_id``) or, with ``record_id == ""``, to the report
as a whole (a claims file's ``report:`` section, or a block outside any
record). Every one keeps the file and line it was written on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import MemreportError

#: The schema string this package reads. New optional keys keep ``/1``; any
#: change in the meaning of an existing key bumps the version.
SCHEMA = "memreport-claims/1"

#: Predicate kinds, in the order the documentation presents them.
PREDICATE_KINDS: tuple[str, ...] = ("contains", "absent", "count", "symbol", "value")

#: Where in a file a text predicate looks (``any`` is the default).
IN_VALUES: tuple[str, ...] = ("code", "comments", "strings", "any")

#: Definition kinds a ``symbol`` predicate may ask for (what ``text.symbols`` reports).
SYMBOL_KINDS: tuple[str, ...] = (
    "function", "method", "class", "impl", "struct", "interface", "enum", "trait", "type",
    "module-assignment", "const",
)

#: Line-hit file formats an observation's ``covers_file`` may be written in.
COVERS_FORMATS: tuple[str, ...] = ("lcov",)

#: Suffix that makes a report's claims file: ``memory.md`` -> ``memory.claims.yaml``.
CLAIMS_SUFFIX = ".claims.yaml"

#: ``record_id`` of a predicate or observation about the report as a whole.
REPORT = ""


class Problem(str):
    """One problem of claims input as shown, ``file:line: message``, its file and line kept
    as data (``file``, ``line``, ``message``): outputs show it at that line without reading
    the text back. It is the line it shows, so it joins, compares and serialises as one."""

    file: str
    line: int
    message: str

    def __new__(cls, file: str, line: int, message: str) -> Problem:
        made = super().__new__(cls, f"{file}:{line}: {message}")
        made.file, made.line, made.message = str(file), int(line), message
        return made


class ClaimsError(MemreportError):
    """Bad claims input: one or more problems, each one line ``file:line: problem; fix``.

    ``messages`` holds every problem found (a claims file is validated in full,
    not up to its first mistake); ``message`` is them joined by newlines.
    """

    code = "MR104"

    def __init__(self, messages: str | list[str] | tuple[str, ...]) -> None:
        self.messages: tuple[str, ...] = (messages,) if isinstance(messages, str) else tuple(messages)
        self.message = "\n".join(self.messages)
        super().__init__(self.message)


@dataclass(frozen=True)
class ClaimsSource:
    """A source repository named by a claims file (``SRC-1: {repo, pin}``).

    ``repo`` is as written (relative to the claims file); ``repo_path`` is it
    resolved against the claims file's folder.
    """

    id: str
    repo: str | None
    pin: str | None
    file: str
    line: int

    @property
    def repo_path(self) -> Path | None:
        if self.repo is None:
            return None
        return (Path(self.file).parent / self.repo).resolve()


@dataclass(frozen=True)
class Predicate:
    """One executable check, from a claims file or an inline block.

    ``args`` is plain and JSON-able, normalised: ``glob`` is always a list,
    text predicates always carry ``in``. ``index`` is the predicate's position
    in its list (0-based), ``source`` the repository it applies to (``None``:
    the report's default source). ``record_id`` is :data:`REPORT` for a
    predicate about the report as a whole.
    """

    kind: str
    args: dict[str, Any] = field(hash=False)
    file: str
    line: int
    index: int
    record_id: str
    source: str | None = None

    @property
    def name(self) -> str:
        """The item-name fragment: ``absent@L12``."""
        return f"{self.kind}@L{self.line}"

    @property
    def where(self) -> str:
        """The ``in:`` restriction (``any`` for predicates without one)."""
        return self.args.get("in", "any")

    @property
    def owner(self) -> str:
        """Who the predicate speaks for in messages: the record ID, or ``report``."""
        return self.record_id or "report"


@dataclass(frozen=True)
class Observation:
    """A target test run that would observe a record's (or the report's) behaviour.

    ``run`` is a shell string or an argument tuple; ``cwd`` is relative to the
    target repository's root. ``covers_file`` names a line-hit file (format
    ``covers_format``) the command writes, relative to ``cwd``: coverage of any
    language, read after the run instead of running coverage.py.
    """

    run: tuple[str, ...] | str
    cwd: str
    timeout: float
    env: dict[str, str] = field(hash=False)
    axis: str
    covers: bool
    file: str
    line: int
    index: int
    record_id: str
    covers_file: str | None = None
    covers_format: str = "lcov"

    @property
    def name(self) -> str:
        return f"observe@L{self.line}"

    @property
    def owner(self) -> str:
        return self.record_id or "report"


@dataclass(frozen=True)
class RecordClaims:
    """Everything a claims file (or one block) says about one record, or about the report."""

    record_id: str
    predicates: tuple[Predicate, ...]
    observations: tuple[Observation, ...]
    line: int


@dataclass(frozen=True)
class ClaimsFile:
    """A loaded claims file; ``report`` is its ``report:`` section, if any."""

    path: str
    sources: tuple[ClaimsSource, ...]
    records: dict[str, RecordClaims] = field(hash=False)
    report: RecordClaims | None = None

    def source(self, source_id: str) -> ClaimsSource | None:
        for src in self.sources:
            if src.id == source_id:
                return src
        return None
