"""What the tables of an analysis-run file state: record IDs, and the run's facts.

:class:`FactsReader` is the part of the tables parser that reads what a file
says about its run (docs/FORMATS.md §3): the revision in its shapes, the repository,
the subject subtree, the checkout, the run identity, and the source register
(identity cells naming several files, a file with its lines, a folder, a
sub-entry ``SRC-1a``, an absolute checkout path, ``repo-root `package.json```).
:func:`table_id` says which first cells are record IDs (``OBJ-05a``,
``CLM-1/a1``, ``RTE-10-accept``, ``PROPOSED-SRC-22``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import RECORD_KINDS
from . import core as lexing
from .core import boundary
from .core.grammar import OWNER_NAME
from .core import anchors as citations
from .review import repo_path_spec
from .core import Line, Table
from .runfacts import FileFacts, RegisterRow

#: a table-row ID: an upper-case prefix, then ``-`` segments, optionally ``/`` parts
TABLE_ID = re.compile(r"[A-Z][A-Z0-9]{0,15}(?:-[A-Za-z0-9]+)+(?:/[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*)*")
#: the same in running text (the look-behind keeps one attempt per word: linear)
_TABLE_ID_IN_TEXT = re.compile(
    r"(?<![\w/.-])[A-Z][A-Z0-9]{0,15}(?:-[A-Za-z0-9]+)+(?:/[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*)*(?![\w-])"
)
_MARKUP = "*_`~ \t"
#: ``repo-root `package.json``` / ``root `tsconfig.json``` in a register's identity cell
_ROOTED = re.compile(r"(?i)\b(?:repo(?:sitory)?[- ])?root[ \t`*_]*$")

#: header words (case-folded) of the column that holds a row's ID / label / kind
ID_HEADERS = frozenset({"", "id", "ids", "#", "record", "records", "record id", "ref", "key", "claim id", "object id"})
LABEL_HEADERS = ("label", "name", "title")
KIND_HEADERS = ("kind", "type", "record kind")
#: register columns
REPOSITORY_HEADERS = ("repository", "repo", "url", "remote", "origin", "source repository")
REVISION_HEADERS = ("revision", "frozen revision", "commit", "sha", "pin", "rev", "pinned commit")
PATH_HEADERS = ("path", "file", "files", "artifact", "location")
_KIND_BY_NAME = {name: key for key, name in RECORD_KINDS.items()}


def table_id(cell: str) -> str | None:
    """The ID a first cell holds (markup stripped), or ``None``.

    A loose ID must contain a digit (``OBJ-05a``; ``UTF-8`` aside, prose
    words like ``HTTP-GET`` are not IDs) unless it is a full record ID.
    ``SRC-n`` cells are source-register rows, not records.
    """
    text = cell.strip(_MARKUP)
    if len(text) > 200 or not TABLE_ID.fullmatch(text):
        return None
    if citations.SOURCE_REF.fullmatch(text):
        return None
    if lexing.RECORD_ID_LINE.fullmatch(text) or any(ch.isdigit() for ch in text):
        return text
    return None


def split_table_id(record_id: str) -> tuple[str, str | None]:
    """``(lens, kind)`` of a table ID: the first segment naming a record kind is
    the kind and what precedes it the lens (``MEM-OBJ-x`` → ``MEM``, ``OBJ``;
    ``OBJ-05a`` → ``""``, ``OBJ``); ``None`` when no segment names one."""
    head = record_id.split("/", 1)[0]
    segments = head.split("-")
    for index, segment in enumerate(segments[:-1] if len(segments) > 1 else segments):
        if segment in RECORD_KINDS:
            return "-".join(segments[:index]), segment
    return "", None


def _header_index(header: tuple[str, ...], names: tuple[str, ...]) -> int | None:
    folded = [" ".join(cell.strip(_MARKUP).casefold().split()) for cell in header]
    for name in names:
        if name in folded:
            return folded.index(name)
    return None


@dataclass(frozen=True)
class FactsReader:
    """Reads a file's facts about its run into ``facts`` (a :class:`.runfacts.FileFacts`)
    from the tables parser's ``lines``, ``tables`` and ``skip`` lines; the record ID
    prefixes its tables declare are added to ``prefixes``, which the parser reads on."""

    path: str
    lines: list[Line]
    tables: list[Table]
    skip: set[int]
    prefixes: set[str]
    facts: FileFacts

    def _register(self, source_id: str, line: int) -> RegisterRow:
        found = self.facts.registers.get(source_id)
        if found is None:
            found = RegisterRow(source_id, self.path, line)
            self.facts.registers[source_id] = found
        return found

    def read_facts(self) -> None:
        """Pins, repository, subject, checkout and identity from the lines; then the
        register rows and record IDs of the tables."""
        facts = self.facts
        prose_pin: tuple[str, int] | None = None
        for line in self.lines:
            number, text = line.number, line.text
            if number in self.skip or not text.strip():
                continue
            if facts.revision is None:
                stated = boundary.revision_in(text)
                if stated:
                    facts.revision = (stated, number)
            if prose_pin is None:
                stated = boundary.revision_in_prose(text)
                if stated:
                    prose_pin = (stated, number)
            for pin in lexing.find_pins(text):
                if pin.source is None:
                    if facts.revision is None:
                        facts.revision = (pin.sha, number)
                    continue
                register = self._register(pin.source, number)
                register.pin = register.pin or pin.sha
            url = lexing.find_repository_url(text)
            if url:
                mentioned = lexing.find_source_ids(text)
                if mentioned:
                    register = self._register(mentioned[0], number)
                    register.url = register.url or url
            if facts.repository is None:
                named = boundary.repository_in(text)
                if named:
                    facts.repository = (named, number)
            if facts.subject is None:
                subject = boundary.subject_in(text)
                if subject:
                    facts.subject = (subject, number)
            if facts.checkout is None:
                checkout = boundary.checkout_in(text)
                if checkout:
                    facts.checkout = (checkout, number)
            if facts.identity is None:
                facts.identity = boundary.identity_in(text)
        self._table_facts()
        if facts.revision is None and prose_pin is not None:
            facts.revision = prose_pin

    def _table_facts(self) -> None:
        facts = self.facts
        for table in self.tables:
            header = table.header.texts
            for row in (table.header, *table.rows):
                if len(row.cells) < 2:
                    continue
                first = " ".join(row.texts[0].strip(_MARKUP).casefold().split())
                if facts.revision is None and first in boundary.REVISION_ROWS:
                    for value in row.texts[1:]:
                        sha = next((w.strip(_MARKUP + ",;()[]") for w in value.split()
                                    if lexing.is_sha(w.strip(_MARKUP + ",;()[]"))), None)
                        if sha:
                            facts.revision = (sha.lower(), row.line)
                            break
                if facts.identity is None:
                    facts.identity = boundary.identity_row(row.texts[0], row.texts[1])
            for row in table.rows:
                if not row.cells:
                    continue
                first = row.texts[0].strip(_MARKUP)
                source = citations.SOURCE_REF.fullmatch(first)
                if source:
                    self._register_row(citations.source_id(source.group(1), source.group(2)), row, header)
                    continue
                record_id = table_id(first)
                if record_id is not None:
                    facts.has_records = True
                    self.prefixes.add(record_id.split("-", 1)[0])
                    entry = citations.entry_id(record_id)
                    if entry is not None and entry not in facts.entries:
                        self._entry_row(entry, row, header)
        facts.prefixes = set(self.prefixes)

    def _register_row(self, source_id: str, row: lexing.TableRow, header: tuple[str, ...]) -> None:
        register = self._register(source_id, row.line)
        register.line = row.line
        register.file = self.path
        register.registered = True
        pin_column = _header_index(header, REVISION_HEADERS) or _header_containing(header, ("revision", "commit"))
        path_column = _header_index(header, PATH_HEADERS) or _header_containing(header, ("identity", "location", "path"))
        repository_column = _header_index(header, REPOSITORY_HEADERS)
        for index, cell in enumerate(row.cells[1:], start=1):
            if index == repository_column and register.url is None:
                # ``| SRC-2 | ... | tldr-pages/tldr |``: a run over two repositories names each entry's
                # (its entries were all given the run's one repository)
                written = row.texts[index].strip(_MARKUP + " ")
                if OWNER_NAME.fullmatch(written) and repo_path_spec(written) is None:
                    register.url = f"https://github.com/{written}"
            # Without a revision column any sha-like word is the pin; with one, only its own.
            shas = pin_column is None or index == pin_column
            words = [piece.href for piece in cell.pieces if piece.kind == "link" and piece.href]
            words.extend(word.strip(_MARKUP + ",;") for word in row.texts[index].split())
            for word in words:
                self._register_value(register, word, shas)
            if path_column is None or index == path_column:
                self._register_paths(register, cell, strict=path_column is None)

    def _entry_row(self, entry: str, row: lexing.TableRow, header: tuple[str, ...]) -> None:
        """A row of another ID (``PROPOSED-SRC-22``) is a register entry when it names one
        file: in its identity or path column, else in the first cell naming any (several
        there: no guess)."""
        column = _header_index(header, PATH_HEADERS) or _header_containing(header, ("identity", "location", "path"))
        if column is None and not citations.is_source_register(entry):
            return  # a record row of a lens (``OBJ-5``): its cells are its evidence, not its identity
        if column is not None:
            files = _entry_files(row.cells[column:column + 1])
        else:  # the first cell after the ID that names files is its identity
            files = next((found for found in (_entry_files([cell]) for cell in row.cells[1:]) if found), [])
        if len(files) == 1 or (column is not None and files):
            register = RegisterRow(entry, self.path, row.line, registered=True)
            register.paths.append((files[0], ()))
            self.facts.entries[entry] = register

    def _register_value(self, register: RegisterRow, word: str, shas: bool) -> None:
        """One word of a register row: a repository URL or a sha."""
        if not word:
            return
        link = lexing.parse_repository_link(word)
        if link is not None:
            register.url = register.url or link.url
            if link.ref_is_sha and register.pin is None:
                register.pin = link.ref.lower()
            if link.kind == "blob" and link.path and not register.paths:
                register.paths.append((link.path, ()))
            return
        if word.lower().startswith(("http://", "https://")):
            repository = lexing.repository_of(word)
            if repository is not None:
                register.url = register.url or repository[1]
            return
        if lexing.is_sha(word) and shas and register.pin is None:
            register.pin = word.lower()

    def _register_paths(self, register: RegisterRow, cell: lexing.Inline, strict: bool) -> None:
        """The files and folders an identity cell names (several, with lines, absolute)."""
        unit = citations.unit(cell.pieces)
        found, _ = citations.scan(unit)
        for citation in found:
            if citation.path is None:
                continue
            if _ROOTED.search(unit.text[:citation.start]):
                register.rooted.add(citation.path)
            if strict and repo_path_spec(citation.path) is None and citation.form != "absolute":
                continue  # without an identity column only an unmistakable path counts
            if all(citation.path != known for known, _ in register.paths):
                register.paths.append((citation.path, citation.ranges))


def _entry_files(cells) -> list[str]:
    """The files and folders cells cite by path (not through the register), in order, once each."""
    files: list[str] = []
    for cell in cells:
        found, _ = citations.scan(citations.unit(cell.pieces))
        for citation in found:
            if citation.path and citation.source is None and citation.path not in files:
                files.append(citation.path)
    return files


def _sid(cell: str) -> str:
    match = citations.SOURCE_REF.fullmatch(cell)
    return citations.source_id(match.group(1), match.group(2)) if match else cell


def _header_containing(header: tuple[str, ...], words: tuple[str, ...]) -> int | None:
    for index, cell in enumerate(header):
        folded = cell.strip(_MARKUP).casefold()
        if index and any(word in folded for word in words):
            return index
    return None
