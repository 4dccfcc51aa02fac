"""Evidence and pins in a document's pipe tables, by their headers (docs/FORMATS.md,
"Any document"): manifests of blob ids, files with the commit each was read at or the lines
each cites, repositories with their commits, and a row's quotation of the one file it cites.

Read by :mod:`.forms` for every document; a table is split into cells once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..model import Evidence, EvidenceKind, EvidenceRole, LineRange
from . import core, review
from .core import anchors, pinforms
from .core.grammar import BLOB_ID, LINK_CELL, RANGE_CELL, RANGE_IN_CELL, SHORT_OID


#: a manifest's column of blob ids, and of the files they are of
_BLOB_HEADER = re.compile(r"(?i)\b(?:blob|oid|object(?:[ _-]?id)?|git[ _-]?sha|sha(?:-?1|-?256)?|hash)\b")
_FILE_HEADER = re.compile(r"(?i)\b(?:file|path|name)s?\b")


_DELIMITER_ROW = re.compile(r"[ \t]*\|?(?:[ \t]*:?-{3,}:?[ \t]*\|)+[ \t]*(?::?-{3,}:?[ \t]*)?")


def _cells(row: str) -> list[str]:
    inner = row.strip()
    if inner.startswith("|"):
        inner = inner[1:]
    if inner.endswith("|"):
        inner = inner[:-1]
    cells = []
    for cell in _CELL_BORDER.split(inner):
        cell = cell.strip()
        link = LINK_CELL.match(cell)
        cells.append((link.group(1) if link else cell).strip("`*_ "))
    return cells


#: a pipe table: its header's cells, and its rows as (report line, cells)
Table = tuple[list[str], list[tuple[int, list[str]]]]


def pipe_tables(lines: list[str]) -> Iterator[Table]:
    """Each pipe table of ``lines``: its header's cells, and its rows as (report line, cells)."""
    index = 0
    while index + 1 < len(lines):
        header, delimiter = lines[index], lines[index + 1]
        index += 1
        if "|" not in header or not _DELIMITER_ROW.fullmatch(delimiter):
            continue
        row = index + 1
        rows: list[tuple[int, list[str]]] = []
        while row < len(lines) and "|" in lines[row]:
            rows.append((row + 1, _cells(lines[row])))
            row += 1
        yield _cells(header), rows
        index = row


def table_rows(tables: list[Table], lines: list[str] | None = None, starts=None) -> list[Evidence]:
    """What a pipe table's rows cite, by its header (docs/FORMATS.md, "Any document"):

    - a manifest (a column of blob ids): each file's content at the pin is the blob its row
      names (``PATH`` evidence, role ``MANIFEST``, the id in ``text``);
    - a column of cited lines beside a column of files (``File | Lines``): ``L25-L60``,
      ``25-60`` or ``L26`` is a cited range of that row's file.

    A plain number under "Lines" or "Size" is the file's length, never a cited line; under a
    header that says one line ("Line", "Line number") it is that line. A table of repositories
    and their commits states pins (:func:`table_pins`), no files; one that also has a column
    of files with their lines or blob ids (``| Repository | File | Lines |``, a comparison's)
    cites each row's file (in the repository its row names: bound as any line naming one is).
    With the document's ``lines`` and their ``starts`` (:class:`.core.spans.LineStarts`), a
    cell of one range gives its evidence the range's span (where a re-pin rewrites it)."""
    found: list[Evidence] = []
    for names, rows in tables:
        named = next((i for i, name in enumerate(names) if _REPOSITORY_HEADER.fullmatch(name)), None)
        blob = next((i for i, name in enumerate(names) if _BLOB_HEADER.search(name) and "commit" not in name.lower()),
                    None)
        cited = next((i for i, name in enumerate(names) if _LINES_HEADER.fullmatch(name)), None)
        if named is not None and blob is None and cited is None:
            continue  # repositories and their commits: pins, no files
        commit = next((i for i, name in enumerate(names) if _COMMIT_HEADER.fullmatch(name)), None)
        if blob is not None and commit in (None, blob) and _commits_under(
                names[blob], [cells[blob] for _, cells in rows if blob < len(cells)]):
            blob, commit = None, blob  # ``| File | SHA |`` whose rows share their sha: a commit each was read at
        # a column of the names each row's file defines (``| File | Function |``), and of its
        # lines' first and last (``| Path | Start | End |``)
        symbol = next((i for i, name in enumerate(names) if _SYMBOL_HEADER.fullmatch(name.strip(_MARKUP))), None)
        first = next((i for i, name in enumerate(names) if _START_HEADER.fullmatch(name.strip(_MARKUP))), None)
        last = next((i for i, name in enumerate(names) if _END_HEADER.fullmatch(name.strip(_MARKUP))), None)
        if first is None or last is None:
            first = last = None
        if blob is None and cited is None and commit is None and symbol is None and first is None:
            continue
        path_at = next((i for i, name in enumerate(names) if _FILE_HEADER.search(name)
                        and i not in (blob, cited, commit, named, symbol)), None if blob is None else 0)
        if path_at is None or path_at == named:
            continue
        one_line = cited is not None and _ONE_LINE_HEADER.fullmatch(names[cited]) is not None
        abbreviated = blob is not None and _OBJECT_HEADER.search(names[blob]) is not None
        for row, cells in rows:
            if path_at >= len(cells):
                continue
            path = cells[path_at].removeprefix("./")
            if not path or any(c.isspace() for c in path) or "://" in path:
                continue
            if blob is not None:
                oid = cells[blob] if blob < len(cells) else ""
                # (abbreviated, as git writes it, under a header that says blob: ``| Blob |``)
                if BLOB_ID.fullmatch(oid) or (abbreviated and SHORT_OID.fullmatch(oid) is not None
                                              and pinforms.has_digit_and_letter(oid)):
                    found.append(Evidence(EvidenceKind.PATH, path, row, row, text=oid.lower(), label="manifest blob",
                                          role=EvidenceRole.MANIFEST))
                continue  # a manifest's "Lines" is a length
            # a commit the row's file was read at (``| File | Git revision |``): the row's own pin
            sha = cells[commit] if commit is not None and commit < len(cells) else ""
            pin = sha.lower() if pinforms.is_sha(sha) else None
            ranges = _cited_ranges(cells[cited], one_line) if cited is not None and cited < len(cells) else []
            if not ranges and first is not None and last is not None and max(first, last) < len(cells) \
                    and cells[first].isdigit() and cells[last].isdigit() \
                    and 1 <= int(cells[first]) <= int(cells[last]):
                ranges = [LineRange(int(cells[first]), int(cells[last]))]
            spec = review.repo_path_spec(path, strict=False) or (
                core.PathSpec(path) if _PLAIN_FILE.fullmatch(path) else None)  # (``VERSION``, ``LICENSE``)
            if spec is None or spec.ranges:
                continue
            if symbol is not None and symbol < len(cells) and not spec.is_directory and anchors.file_shaped(spec.path):
                found.extend(_row_symbols(cells[symbol], spec.path, row, pin))
            if ranges and not spec.is_directory:
                span = _cell_range_span(lines, starts, row, cited) if len(ranges) == 1 and starts is not None \
                    and lines is not None and cited is not None else None
                found.extend(Evidence(EvidenceKind.LINES, spec.path, row, row, cited_lines=cited_lines, pin=pin,
                                      label="cited lines", span=span) for cited_lines in ranges)
            elif pin is not None:
                kind = EvidenceKind.DIRECTORY if spec.is_directory else EvidenceKind.PATH
                found.append(Evidence(kind, spec.path.rstrip("/"), row, row, pin=pin, label="file at a commit"))
    return found


def _row_symbols(cell: str, path: str, row: int, pin: str | None) -> list[Evidence]:
    """The names a row's symbol cell says its file defines (`` `Queue` ``, ``drain()``, two
    of them split by commas): each a symbol of that file, failing where it defines none (a
    member written on its instance, ``self.config_class``, is looked for but never fails)."""
    found = []
    for written in cell.split(","):
        name, own = core.member_of_its_own(core.symbol_name(written.strip().strip("`*_ ")))
        if name is not None:
            found.append(Evidence(EvidenceKind.SYMBOL, "", row, row, text=name, context=(path,), pin=pin,
                                  label=" ".join(written.split()).strip("`*_ "),
                                  role=None if own else EvidenceRole.DECLARED))
    return found


#: a column of names the row's file defines, and a column of its lines' first and last
_SYMBOL_HEADER = re.compile(r"(?i)(?:symbol|function|method|class|type|definition|identifier|func|entry[ _-]?point)s?"
                            r"(?:[ _-]?names?)?")
_START_HEADER = re.compile(r"(?i)(?:start|from|first)(?:[ _-]?line)?")
_END_HEADER = re.compile(r"(?i)(?:end|to|last|through)(?:[ _-]?line)?")
#: what wraps a header's words (``**Function**``)
_MARKUP = "`*_ "


def _cell_range_span(lines: list[str], starts, row: int, column: int):
    """The span of the one range written in cell ``column`` of report line ``row`` (``3-4``,
    ``L3-L4``, inside its backticks or emphasis), or ``None``."""
    line = lines[row - 1] if 1 <= row <= len(lines) else ""
    borders = [match.start() for match in _CELL_BORDER.finditer(line)]
    first = 1 if line.lstrip().startswith("|") else 0  # (a row may open without its border)
    if column + first >= len(borders):
        return None
    begin = borders[column + first - 1] + 1 if column + first > 0 else 0
    end = borders[column + first]
    written = RANGE_IN_CELL.search(line, begin, end)
    return starts.span(row, written.start(), written.end()) if written is not None else None


def _commits_under(header: str, values: list[str]) -> bool:
    """Whether a column a manifest's header may mean either way (``SHA``, ``Hash``; not
    ``Blob`` or ``OID``) holds commits: two files' rows name one id (two files share a blob
    only when their bytes are the same, an empty file's aside), as a table of the commit each
    file was read at does."""
    if _OBJECT_HEADER.search(header):
        return False
    seen: set[str] = set()
    for value in values:
        oid = value.lower()
        if not BLOB_ID.fullmatch(oid) or oid in _EMPTY_BLOBS:
            continue
        if oid in seen:
            return True
        seen.add(oid)
    return False


#: a file written as its place alone, extension-less or not (a table's file cell)
_PLAIN_FILE = re.compile(r"[\w.-]+(?:/[\w.-]+)*/?")
#: headers that name a blob for certain, and the ids of an empty file (SHA-1, SHA-256)
_OBJECT_HEADER = re.compile(r"(?i)\b(?:blob|oid|object)")
_EMPTY_BLOBS = frozenset({"e69de29bb2d1d6434b8b29ae775ad8c2e48c5391",
                          "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813"})


#: a table's column of repositories, and of the commits they are pinned at
_REPOSITORY_HEADER = re.compile(r"(?i)(?:target[ _-]?)?(?:repository|repo|target|project|upstream)(?:[ _-]?name)?")
_COMMIT_HEADER = re.compile(
    r"(?i)(?:pinned[ _-]?|git[ _-]?)?(?:commit|revision|pin|sha|snapshot|head)(?:[ _-]?(?:sha|id))?")


def table_pins(tables: list[Table]) -> list[pinforms.PinStatement]:
    """A table of repositories and their commits (``| Repository | Commit |``): each row pins
    the repository it names (``owner/name``, or a short name the user maps)."""
    pins: list[pinforms.PinStatement] = []
    for names, rows in tables:
        named = next((i for i, name in enumerate(names) if _REPOSITORY_HEADER.fullmatch(name)), None)
        commit = next((i for i, name in enumerate(names) if _COMMIT_HEADER.fullmatch(name)), None)
        if named is None and commit is None:
            pins.extend(_pins_by_column(names, rows))
        if named is None or commit is None:
            continue
        for row, cells in rows:
            if max(named, commit) >= len(cells):
                continue
            repository, sha = cells[named], cells[commit]
            if not pinforms.is_sha(sha) or not repository or any(c.isspace() for c in repository):
                continue
            linked = core.repository_of(repository) if "://" in repository else None
            repository = linked[0] if linked else repository
            slashed = "/" in repository
            pins.append(pinforms.PinStatement(sha.lower(), row, 0, repository if slashed else None,
                                              None if slashed else repository))
    return pins


def _pins_by_column(names: list[str], rows: list[tuple[int, list[str]]]) -> list[pinforms.PinStatement]:
    """A comparison whose columns are its repositories (``| | acme/widgets | gadgets |``) and
    whose row labelled with a commit word (``| Commit | `<sha>` | `<sha>` |``) pins each
    column's repository: ``owner/name``, or a short name the user maps."""
    for row, cells in rows:
        if not cells or not _COMMIT_HEADER.fullmatch(cells[0].strip("*_ ")):
            continue
        pins, states = [], []
        for column in range(1, min(len(cells), len(names))):
            sha, repository = cells[column].strip("`*_ "), names[column].strip("`*_ ")
            if not pinforms.is_sha(sha) or not _REPOSITORY_NAME.fullmatch(repository):
                continue
            if _STATE_NAME.fullmatch(repository):
                # (``| | Before | After |``: states of the document's one repository, each a
                # commit the column's citations are of)
                states.append(pinforms.PinStatement(sha.lower(), row, 0, label=repository))
                continue
            slashed = "/" in repository
            pins.append(pinforms.PinStatement(sha.lower(), row, 0, repository if slashed else None,
                                              None if slashed else repository))
        if len(pins) >= 2:  # (one column is a table of one repository's facts: a pin row of its own)
            return pins
        if len(states) >= 2 and not pins and len({pin.sha for pin in states}) == len(states):
            return states
    return []


#: a column header that names a repository: ``owner/name`` or a short name of one word
_REPOSITORY_NAME = re.compile(r"[A-Za-z0-9][\w.-]{0,99}(?:/[A-Za-z0-9][\w.-]{0,99})?")
#: a column header naming a state of one repository, not another repository (``Before`` and
#: ``After`` a fix, ``main``, ``v2``)
_STATE_NAME = re.compile(r"(?i)before|after|old|new|base|head|prev(?:ious)?|current|original|fixed|patched|baseline|"
                         r"main|master|trunk|then|now|v?\d[\w.-]*")


#: a table column of cited lines, and one whose plain number is a line (not a length)
_LINES_HEADER = re.compile(
    r"(?i)(?:cited[ _-]?)?(?:lines?|line[ _-]?\(s\)|line[ _-]?(?:numbers?|nos?\.?|range|#)|range|location)")
#: (``Line(s)`` says one line or several: a plain number under it is a line)
_ONE_LINE_HEADER = re.compile(r"(?i)line(?:[ _-]?\(s\)|[ _-]?(?:number|no\.?|#))?")


def _cited_ranges(cell: str, one_line: bool) -> list[LineRange]:
    """The ranges a table cell cites (comma-separated): a range or an ``L``-number always, a
    plain number only under a header that says one line."""
    ranges: list[LineRange] = []
    for part in cell.split(","):
        match = RANGE_CELL.fullmatch(part.strip())
        if match is None:
            return []  # prose, not a column of ranges
        prefixed, first, last = match.groups()
        if last is None and not prefixed and not one_line:
            return []  # a length
        start, end = int(first), int(last or first)
        if start < 1 or end < start:
            return []
        ranges.append(LineRange(start, end))
    return ranges


def row_quotations(lines: list[str]) -> list[Evidence]:
    """A table row whose cell is a quotation (of three words or more) and whose other cells
    cite one file (`` | "def quote(s: str)" | `src/a.py:27` | ``): that file's quotation, at
    those lines. Under a header that says so (``Excerpt``, ``Snippet``, ``Quote``, ``Code``),
    a cell that is one code span is the file's code as the row shows it. A row citing several
    files ties it to none (the row does not say which)."""
    found: list[Evidence] = []
    for header, rows in raw_tables(lines):
        shown = {index for index, name in enumerate(header) if _EXCERPT_HEADER.fullmatch(name.strip("*_ "))}
        for number, cells in rows:
            quoted = [(match.group(1), EvidenceRole.PROSE) for match in map(_QUOTED_CELL.fullmatch, cells) if match]
            quoted += [(match.group(1).replace("\\|", "|"), EvidenceRole.LOOSE)
                       for index, match in ((i, _CODE_CELL.fullmatch(cells[i])) for i in shown if i < len(cells))
                       if match]
            if len(quoted) != 1 or len(PROSE_WORD.findall(quoted[0][0])) < 3:
                continue
            specs = [spec for spec in (review.repo_path_spec(cell.strip("`*_ ")) for cell in cells if "`" in cell)
                     if spec is not None and not spec.is_directory]
            if len({spec.path for spec in specs}) != 1:
                continue
            spec = specs[0]
            cited = LineRange(spec.ranges[0].start, max(r.end for r in spec.ranges)) if spec.ranges else None
            text, role = quoted[0]
            found.append(Evidence(EvidenceKind.QUOTE, spec.path, number, number, text=text, cited_lines=cited,
                                  role=role, label="quotation in a table row"))
    return found


#: a border between two cells: a pipe not escaped (``\|`` is one in a cell's text, as GFM reads it)
_CELL_BORDER = re.compile(r"(?<!\\)\|")
#: a table cell that is one quotation, in straight or curly marks
_QUOTED_CELL = re.compile(r"[ \t]*[*_]*[\"“]([^\"“”]{3,})[\"”][*_]*[ \t]*")
#: a cell that is one code span (its ``|`` escaped for the table), and the headers of a column
#: of code a row shows of its file
_CODE_CELL = re.compile(r"[ \t]*+`([^`]{3,})`[ \t]*+")
_EXCERPT_HEADER = re.compile(r"(?i)(?:quot(?:e|ation)|excerpt|snippet|code|source[ _-]?(?:text|line)|line[ _-]?text)s?")
PROSE_WORD = re.compile(r"\w+")


def raw_tables(lines: list[str]) -> Iterator[tuple[list[str], list[tuple[int, list[str]]]]]:
    """Each pipe table's header cells and its rows' cells as written (links and backticks kept)."""
    def split(row: str) -> list[str]:
        inner = row.strip()
        inner = inner[1:] if inner.startswith("|") else inner
        inner = inner[:-1] if inner.endswith("|") else inner
        return [cell.strip() for cell in _CELL_BORDER.split(inner)]

    index = 0
    while index + 1 < len(lines):
        if "|" not in lines[index] or not _DELIMITER_ROW.fullmatch(lines[index + 1]):
            index += 1
            continue
        header, row = split(lines[index]), index + 2
        rows = []
        while row < len(lines) and "|" in lines[row]:
            rows.append((row + 1, split(lines[row])))
            row += 1
        yield header, rows
        index = row
