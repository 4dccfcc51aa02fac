"""Named definitions in a source file: what they are, where they lie, which
encloses a line range, which bears a name, and the value a constant binds."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from functools import lru_cache

from tree_sitter import Node, Query, QueryCursor

from ...model import LineRange
from ... import runcaches
from ...lru import SizedLRU
from .languages import _language, language_for, spec
from .parsing import _end_line, _Parsed, _parsed_for, timed
from .shapes import _VALUE_KINDS, QueryMatch, _Candidate


@dataclass(frozen=True)
class Definition:
    """A named definition in a source file.

    ``kind`` is one of ``function``, ``method``, ``class``, ``impl``,
    ``struct``, ``interface``, ``enum``, ``trait``, ``type``, ``module`` (Ruby),
    ``namespace`` (C++, C#), ``module-assignment``, ``const`` or ``field`` (a Solidity
    struct's member). ``name`` is qualified by the definitions that contain it
    (``Store.get``; a Go method by its receiver type). ``start``/``end`` are character offsets of the whole definition,
    decorators, attributes and ``export`` included.
    """

    kind: str
    name: str
    lines: LineRange
    start: int
    end: int

    @property
    def bare_name(self) -> str:
        """The name without its qualification: ``get`` for ``Store.get``."""
        return self.name.rsplit(".", 1)[-1]

    def as_json(self) -> dict:
        return {"kind": self.kind, "name": self.name, "lines": self.lines.pair()}


#: definitions whose functions are methods (a Ruby module's functions are its methods)
_CLASS_LIKE = frozenset({"class", "impl", "trait", "interface", "struct", "module"})


@lru_cache(maxsize=None)
def _definition_query(language: str) -> Query:
    grammar = _language(language)
    assert grammar is not None, "only a parsed language's definitions are queried"
    return Query(grammar, spec(language).definitions)


def _definitions_of(parsed: _Parsed) -> list[Definition]:
    """The text's definitions, found once and kept with its parse."""
    if parsed._definitions is None:
        parsed._definitions = _find_definitions(parsed)
    return parsed._definitions


def _value_span(parsed: _Parsed, definition: Definition) -> tuple[int, int] | None:
    """Where the value a module-level assignment or constant binds lies."""
    _definitions_of(parsed)
    return parsed._values.get(definition)


def _find_definitions(parsed: _Parsed, within: tuple[int, int] | None = None,
                      containing: LineRange | None = None) -> list[Definition]:
    """The query's matches, shaped by the language, then nested in start
    order: a definition inside another is qualified by it (``Store.get``),
    and a function inside a class-like one is a method. ``within`` (a byte
    range of whole top-level statements) looks only there; ``containing`` keeps
    only the definitions whose lines contain those lines (the same ones, named
    alike: every definition that qualifies one of them contains it, so contains
    the lines too; a large class's other methods are neither made nor nested)."""
    with timed():
        cursor = QueryCursor(_definition_query(parsed.language))
        if within is not None:
            cursor.set_byte_range(*within)
        matches = cursor.matches(parsed.tree.root_node)
    shape = spec(parsed.language).shape
    text, char = parsed.text, parsed.char

    def node_text(n: Node) -> str:
        return text[char(n.start_byte) : char(n.end_byte)]

    candidates: list[_Candidate] = []
    for _pattern, captures in matches:
        kind_capture = next(name for name in captures if name.startswith("definition."))
        kind = kind_capture.removeprefix("definition.")
        candidates.extend(shape(QueryMatch(kind, captures[kind_capture][0], captures, node_text)))
    if containing is not None:
        low, high = containing.start - 1, containing.end  # rows, and 1-based last lines
        candidates = [c for c in candidates if c.first.start_point[0] <= low and _end_line(c.last) >= high]
    spans = [(parsed.char(c.first.start_byte), parsed.char(c.last.end_byte)) for c in candidates]
    order = sorted(range(len(candidates)), key=lambda i: (spans[i][0], -spans[i][1]))
    found: list[Definition] = []
    seen: set[tuple[int, int, str]] = set()
    stack: list[Definition] = []  # definitions containing the current one
    for i in order:
        candidate, (start, end) = candidates[i], spans[i]
        while stack and stack[-1].end <= start:
            stack.pop()
        # An equal span is a sibling (``const A, B = 1, 2``), not a container.
        parent = None
        if stack and stack[-1].end >= end and (stack[-1].start, stack[-1].end) != (start, end):
            parent = stack[-1]
        kind, name = candidate.kind, candidate.name
        if parent is not None:
            name = f"{parent.name}.{name}"
            if kind == "function" and parent.kind in _CLASS_LIKE:
                kind = "method"
        if (start, end, name) in seen:
            continue  # two patterns describing one definition
        seen.add((start, end, name))
        lines = LineRange(candidate.first.start_point[0] + 1, _end_line(candidate.last))
        definition = Definition(kind=kind, name=name, lines=lines, start=start, end=end)
        found.append(definition)
        stack.append(definition)
        if candidate.value is not None:
            value = _unwrap_value(candidate.value)
            parsed._values[definition] = (parsed.char(value.start_byte), parsed.char(value.end_byte))
    return found


def _unwrap_value(node: Node) -> Node:
    """The literal under TypeScript's ``8_000 as const`` / ``satisfies T``."""
    while node.type in ("as_expression", "satisfies_expression") and node.named_child_count:
        node = node.named_child(0)
    return node


#: a whole file's definitions by its language and key (a blob id), kept apart from its tree:
#: a file whose definitions were found (a symbol resolved in it) is often asked again, for
#: the definition enclosing a quotation, after its tree left the parse cache; a list of
#: definitions is a small part of a tree's memory. Weighed in definitions.
_WHOLE: SizedLRU[tuple[int, int, list[Definition]]] = runcaches.PerRun(  # type: ignore[assignment]
    lambda: SizedLRU(_WHOLE_DEFINITIONS))
_WHOLE_DEFINITIONS = 200_000


def clear_cache() -> None:
    """Forget the definitions kept apart from their trees."""
    _WHOLE.clear()


def _kept(text: str, path: str, key: str | None) -> list[Definition] | None:
    """The definitions of ``text`` found before under ``key``, or ``None``."""
    if key is None:
        return None
    held = _WHOLE.get((language_for(path), key))
    # Equal keys with different texts would be a caller's mistake: the text's length and
    # hash (kept by the string once computed) tell them apart without keeping the text.
    if held is None or held[0] != len(text) or held[1] != hash(text):
        return None
    return held[2]


def definitions(text: str, path: str, key: str | None = None) -> list[Definition] | None:
    """Every definition in the text, in order of their start; ``None`` when
    no grammar covers ``path``."""
    kept = _kept(text, path, key)
    if kept is not None:
        return list(kept)
    parsed = _parsed_for(text, path, key)
    if parsed is None:
        return None
    found = _definitions_of(parsed)
    if key is not None:
        _WHOLE.put((parsed.language, key), (len(text), hash(text), found), len(found) + 1)
    return list(found)


def enclosing(text: str, path: str, lines: LineRange, key: str | None = None) -> Definition | None:
    """The innermost definition containing all of ``lines`` (``None`` at
    module level, or when no grammar covers ``path``)."""
    found = _kept(text, path, key)
    if found is None:
        parsed = _parsed_for(text, path, key)
        if parsed is None:
            return None
        found = parsed._definitions if parsed._definitions is not None else _definitions_around(parsed, lines)
    best: Definition | None = None
    for definition in found:
        if definition.lines.contains(lines):
            if best is None or (definition.end - definition.start) <= (best.end - best.start):
                best = definition
    return best


def _definitions_around(parsed: _Parsed, lines: LineRange) -> list[Definition]:
    """The definitions containing ``lines``, found within the top-level statements that
    the lines touch: every one of them lies there, with every one that qualifies its
    name. Querying a whole file to answer for a few lines costs more than its parse."""
    if parsed._top_level is None:  # once per tree: a file is often asked about many times
        children = [(child.start_point[0], child.end_point[0], child.start_byte, child.end_byte,
                     child.type == "attribute_item") for child in parsed.tree.root_node.children]
        parsed._top_level = (children, [child[1] for child in children])
    children, last_rows = parsed._top_level
    first_row, last_row = lines.start - 1, lines.end - 1
    # Children are in order and do not overlap: the first ending at or after the lines' start...
    first = bisect.bisect_left(last_rows, first_row)
    last = first - 1
    while last + 1 < len(children) and children[last + 1][0] <= last_row:
        last += 1  # ...through the last starting at or before their end
    if last < first:
        return []
    # Rust's ``#[...]`` attributes are the item's siblings, yet its definition starts at them.
    while last + 1 < len(children) and children[last][4]:
        last += 1
    return _find_definitions(parsed, (children[first][2], children[last][3]), containing=lines)


def _name_matches(definition: Definition, name: str) -> bool:
    return definition.name == name or definition.name.endswith("." + name)


def find_definitions(
    text: str, path: str, name: str, kind: str | None = None, key: str | None = None
) -> list[Definition] | None:
    """Definitions named ``name``: qualified (``Store.get``), partly
    qualified, or bare (``get``); optionally of one ``kind``."""
    found = definitions(text, path, key)
    if found is None:
        return None
    return [d for d in found if _name_matches(d, name) and (kind is None or d.kind == kind)]


def value_of(text: str, path: str, symbol: str, key: str | None = None) -> str | None:
    """The expression text assigned to a module-level assignment or constant
    (``"200"`` for ``MAX_ENTRIES = 200``), or ``None``."""
    parsed = _parsed_for(text, path, key)
    if parsed is None:
        return None
    for definition in _definitions_of(parsed):
        if definition.kind in _VALUE_KINDS and _name_matches(definition, symbol):
            span = _value_span(parsed, definition)
            if span is not None:
                return text[span[0] : span[1]]
    return None
