"""Manifests written as data (docs/FORMATS.md, "Any document"): a document's YAML front
matter, or a ```yaml or ```json block in it, listing files with their blob ids or the lines
each cites, as an ingest or a manifest keeps them::

    files:
      - path: src/queue.ts
        blob: 4590a1db6f283ae195cae3fec0f26075b1db07e4
      - path: src/drain.ts
        lines: 43-59

    {"files": {"src/queue.ts": "4590a1db6f283ae195cae3fec0f26075b1db07e4"}}

A list of such entries is the pipe table it would be written as (``| path | blob |``), one
row per entry at the report line of its file, and :func:`.tableforms.table_rows` reads its
rows as it reads a table's: the same words decide what a column means (a ``sha`` two files
share is the commit each was read at; a plain number under ``lines`` is a length). So do a
mapping of files to ids under a key that says files or blobs, and one entry standing alone
whose id a key calls a blob.

Positions come from PyYAML's composed nodes: nothing is constructed, each node (an alias's
too) is walked once, and data that is not YAML is no manifest (a code block may hold
anything; the front matter's own reading says when it is not YAML).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..model import Evidence, EvidenceKind, EvidenceRole, LineRange
from .core import anchors
from .tableforms import Table, table_rows

#: a key naming an entry's file (``path``, ``file``, ``filename``, ``file_path``), its words
#: split at ``_`` and ``-``; ``name`` names a file only where its value is a place (``a/b.ts``)
_FILE_KEY = re.compile(r"(?:(?:file|source|relative|repo|repository)[ ]?)?(?:path|file(?:[ ]?name)?)s?")
#: a key that says its value is a git object (``blob``, ``blob_id``, ``oid``, ``object_id``)
_OBJECT_KEY = re.compile(r"\b(?:blob|oid|object)\b")
#: a key that says its mapping's keys are files (``files: {src/a.ts: <id>}``), and what its
#: ids are
_FILES_KEY = re.compile(r"(?:(?:source|tracked|pinned)[ ]?)?(?:files|paths|blobs|manifest|tree|contents?)")
#: what a manifest's data must hold somewhere before it is composed (most blocks hold none)
_MANIFEST_WORDS = ("blob", "oid", "object", "sha", "hash", "line", "range", "commit", "revision", "file", "path",
                   "manifest", "tree", "content")

#: PyYAML's own composer, not LibYAML's, though it is six times slower: LibYAML recurses in C
#: and 100,000 nested sequences (``- - - ...``, 200 KB) crash the process, where Python's
#: recursion stops with an error (a manifest of 5,000 files composes in 0.5 s)
_LOADER = yaml.SafeLoader
#: at most this many nodes are walked in one document's data (a generated listing aside,
#: manifests are far smaller)
_NODE_BUDGET = 50_000
#: data longer than this is not composed (a pasted API answer, not a manifest)
_MAX_CHARACTERS = 1_000_000


def data_evidence(text: str, first_line: int) -> list[Evidence]:
    """What the YAML or JSON ``text`` cites as manifests (:func:`data_tables`): each entry's
    file, read as a table's row is, and its quotation; ``first_line`` is the report line of
    ``text``'s first line."""
    tables = data_tables(text, first_line)
    return [*table_rows(tables), *data_quotations(tables)] if tables else []


def data_tables(text: str, first_line: int) -> list[Table]:
    """The tables of files the YAML or JSON ``text`` holds; ``first_line`` is the report line
    of ``text``'s first line. ``[]`` when it holds none or is not YAML."""
    lowered = text.lower()
    if len(text) > _MAX_CHARACTERS or ":" not in text or not any(word in lowered for word in _MANIFEST_WORDS):
        return []
    try:
        root = yaml.compose(text, Loader=_LOADER)
    except (yaml.YAMLError, RecursionError, ValueError):
        return []
    if root is None:
        return []
    return list(_tables(root, "", first_line))


def _tables(root: Node, root_key: str, first_line: int) -> Iterator[Table]:
    seen: set[int] = set()
    stack: list[tuple[Node, str]] = [(root, root_key)]
    while stack and len(seen) < _NODE_BUDGET:
        node, key = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, SequenceNode):
            table = _entries_table([item for item in node.value if isinstance(item, MappingNode)], first_line)
            if table is not None:
                yield table
            # (an entry read as a row is not read again standing alone; what it nests still is)
            stack.extend((item, _ROW if table is not None else key) for item in reversed(node.value))
        elif isinstance(node, MappingNode):
            pairs: list[tuple[object, Node]] = [(name.value, value) for name, value in node.value
                                                if isinstance(name, ScalarNode)]
            if _FILES_KEY.fullmatch(key):
                table = _files_table(key, pairs, first_line)
                if table is not None:
                    yield table
                    continue
            if key is not _ROW:
                table = _entries_table([node], first_line, alone=True)  # one file's entry, standing alone
                if table is not None:
                    yield table
                    continue
            stack.extend((value, _words(name)) for name, value in reversed(pairs))


#: the key an entry already read as a table's row is walked under
_ROW = "(a row)"


def _words(key: object) -> str:
    """A key as a table's header would say it: ``blob_id`` is ``blob id``."""
    return " ".join(key.replace("_", " ").replace("-", " ").lower().split()) if isinstance(key, str) else ""


def _file_key(pairs: list[tuple[str, Node]]) -> str | None:
    """The key of ``pairs`` (keys in words) naming the entry's file, or ``None``."""
    for name, value in pairs:
        if isinstance(value, ScalarNode) and (
                _FILE_KEY.fullmatch(name) or (name == "name" and "/" in value.value)):
            return name
    return None


def _entries_table(entries: list[MappingNode], first_line: int, *, alone: bool = False) -> Table | None:
    """Mappings naming a file each (``path:``) and what is said of it (``blob:``, ``lines:``):
    a table whose first column is their files, one row each at its file's report line."""
    rows: list[tuple[int, dict[str, str]]] = []
    names: dict[str, None] = {}
    for entry in entries:
        pairs = [(_words(name.value), value) for name, value in entry.value if isinstance(name, ScalarNode)]
        key = _file_key(pairs)
        if key is None:
            continue
        if alone and not any(_OBJECT_KEY.search(name) for name, _ in pairs):
            continue
        cells = {name: value.value for name, value in pairs if isinstance(value, ScalarNode) and name != key}
        placed = next(value for name, value in pairs if name == key)
        cells["path"] = placed.value
        names.update(dict.fromkeys(name for name in cells if name != "path"))
        rows.append((first_line + placed.start_mark.line, cells))
    if not rows:
        return None
    header = ["path", *names]
    return header, [(line, [cells.get(name, "") for name in header]) for line, cells in rows]


def _files_table(key: str, pairs: list[tuple[object, Node]], first_line: int) -> Table | None:
    """A mapping of files to their ids under ``key`` (``files: {src/a.ts: <id>}``): a table of
    the files and ids, the ids' column headed as ``key`` says (``blobs``: blob ids; else
    ``sha``, which the table's reading takes for commits where two files share one)."""
    rows = [(first_line + value.start_mark.line, [name, value.value]) for name, value in pairs
            if isinstance(name, str) and isinstance(value, ScalarNode) and ("/" in name or "." in name)]
    if not rows:
        return None
    return ["path", "blob" if _OBJECT_KEY.search(key.removesuffix("s")) else "sha"], rows


#: a key of an entry's quotation of its file: in its words (``quote:``), or code it shows
#: (``snippet:``, ``code:``: the file's where it holds them, else the writer's example)
_QUOTE_KEY = re.compile(r"(?:quote|quotation|verbatim)")
_CODE_KEY = re.compile(r"(?:excerpt|snippet|code|source text|line text)")
#: an entry's key of its cited lines (``lines: 43-59``, ``range: L43-L59``)
_LINES_KEY = re.compile(r"(?:cited )?(?:lines?|line range|range)")


def data_quotations(tables: list[Table]) -> list[Evidence]:
    """The quotations the entries of ``tables`` (:func:`data_tables`) give their files
    (``{path: src/a.ts, lines: 43-59, quote: "..."}``): each its file's, at those lines."""
    found: list[Evidence] = []
    for header, rows in tables:
        quoted = [(i, EvidenceRole.PROSE if _QUOTE_KEY.fullmatch(name) else EvidenceRole.LOOSE)
                  for i, name in enumerate(header) if _QUOTE_KEY.fullmatch(name) or _CODE_KEY.fullmatch(name)]
        lines_at = next((i for i, name in enumerate(header) if _LINES_KEY.fullmatch(name)), None)
        if not quoted or header[:1] != ["path"]:
            continue
        for row, cells in rows:
            ranges = anchors.parse_ranges(cells[lines_at].replace(" ", ""))[0] if lines_at is not None else ()
            cited = LineRange(ranges[0].start, ranges[-1].end) if ranges else None
            for index, role in quoted:
                text = cells[index].strip() if index < len(cells) else ""
                if text and cells[0] and "://" not in cells[0]:
                    found.append(Evidence(EvidenceKind.QUOTE, cells[0].removeprefix("./"), row, row, text=text,
                                          cited_lines=cited, role=role, label="quotation in a manifest's entry"))
    return found
