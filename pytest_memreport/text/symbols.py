"""Tree-sitter: languages, definitions, enclosing definitions, tokens, regions.

Every function here is a pure function of ``(text, path)``: the path only
chooses the grammar (by extension), nothing is read from disk and nothing runs
git. A function returns ``None`` when no grammar covers the path, so callers
fall back to plain text.

Parsing is the expensive part, so parsed trees are kept in one bounded LRU
cache keyed by ``(language, key)``: ``key`` is whatever identifies the text
for the caller (a blob oid); without one the text itself is the key. What is
derived from a tree (definitions, tokens, regions) is kept with it, so asking
twice about the same blob costs one parse.

Offsets in results are character offsets into the Python ``str`` (tree-sitter
reports UTF-8 byte offsets; they are converted). Lines are 1-based and counted
by ``\\n``, as git and editors count them.
"""

from __future__ import annotations

import bisect
import difflib
import re
import time
from dataclasses import dataclass
from functools import lru_cache
from importlib import import_module
from typing import Any, Callable, Iterator

from tree_sitter import Language, Node, Parser, Query, QueryCursor, Tree

from ..lru import SizedLRU
from ..model import LineRange

# --------------------------------------------------------------------------
# Public data


@dataclass(frozen=True)
class Definition:
    """A named definition in a source file.

    ``kind`` is one of ``function``, ``method``, ``class``, ``impl``,
    ``struct``, ``interface``, ``enum``, ``trait``, ``type``,
    ``module-assignment`` or ``const``. ``name`` is qualified by the
    definitions that contain it (``Store.get``; a Go method by its receiver
    type). ``start``/``end`` are character offsets of the whole definition,
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
        return {"kind": self.kind, "name": self.name, "lines": self.lines.as_list()}


@dataclass(frozen=True)
class Token:
    """One lexical token: a leaf of the syntax tree, or a whole string literal.

    ``text`` is the token as compared: string literals are normalized where the
    language treats quote styles alike (``'a'`` and ``"a"`` both read ``"a"``
    in Python and JavaScript); whitespace inside code tokens is collapsed.
    """

    text: str
    start: int
    end: int
    line: int
    kind: str  # code | string | comment


@dataclass(frozen=True)
class Region:
    """A comment or string literal span (character offsets into the text)."""

    start: int
    end: int
    kind: str  # comment | string


@dataclass(frozen=True)
class ParseStats:
    """Cumulative time spent inside tree-sitter and how many texts were parsed."""

    seconds: float
    parses: int


# --------------------------------------------------------------------------
# Languages

_EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".rs": "rust",
    ".go": "go",
}

#: language name → (grammar module, function returning the language pointer)
_GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "rust": ("tree_sitter_rust", "language"),
    "go": ("tree_sitter_go", "language"),
}


def language_for(path: str) -> str | None:
    """The grammar name for ``path`` by its extension, or ``None``."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    if dot <= 0:
        return None
    return _EXTENSIONS.get(name[dot:].lower())


@lru_cache(maxsize=None)
def _language(name: str) -> Language | None:
    module_name, function = _GRAMMARS[name]
    try:
        module = import_module(module_name)
    except ImportError:
        return None
    return Language(getattr(module, function)())


def available_languages() -> list[str]:
    """Names of the languages whose grammar is installed."""
    return [name for name in _GRAMMARS if _language(name) is not None]


@dataclass(frozen=True)
class _Lexicon:
    """What a language's tokens look like in its syntax tree."""

    #: named node types that are comments
    comments: frozenset[str]
    #: named node types kept whole as one string token
    strings: frozenset[str]
    #: other named node types kept whole as one code token (a regex literal)
    atoms: frozenset[str] = frozenset()
    #: leaves that are layout, not code
    layout: frozenset[str] = frozenset()
    #: how a string literal's text is normalized into its token text
    string_key: Callable[[str], str] = lambda raw: raw


_ESCAPED_CHAR = re.compile(r"\\(.)", re.DOTALL)


def _unescape_quotes(body: str) -> str:
    """``\\'`` and ``\\"`` read as the quote itself; other escapes stay as written."""
    return _ESCAPED_CHAR.sub(lambda m: m.group(1) if m.group(1) in "'\"" else m.group(0), body)


def _python_string_key(raw: str) -> str:
    # 'a', "a", '''a''' and """a""" are the same string; the prefix letters
    # (r, b, f; u is a no-op) are not, but their case and order are.
    i = 0
    while i < len(raw) and raw[i].isalpha():
        i += 1
    prefix = "".join(sorted(raw[:i].lower().replace("u", "")))
    rest = raw[i:]
    for quote in ('"""', "'''", '"', "'"):
        if len(rest) >= 2 * len(quote) and rest.startswith(quote) and rest.endswith(quote):
            return f'{prefix}"{_unescape_quotes(rest[len(quote):-len(quote)])}"'
    return raw  # unterminated (a fragment): keep as written


def _js_string_key(raw: str) -> str:
    # '...' and "..." are the same string; template literals are not.
    if len(raw) >= 2 and raw[0] in "'\"" and raw[-1] == raw[0]:
        return f'"{_unescape_quotes(raw[1:-1])}"'
    return raw


_JS_LEXICON = _Lexicon(
    comments=frozenset({"comment", "html_comment"}),
    strings=frozenset({"string", "template_string"}),
    atoms=frozenset({"regex"}),
    string_key=_js_string_key,
)

_LEXICONS: dict[str, _Lexicon] = {
    "python": _Lexicon(
        comments=frozenset({"comment"}),
        strings=frozenset({"string"}),
        layout=frozenset({"line_continuation"}),
        string_key=_python_string_key,
    ),
    "javascript": _JS_LEXICON,
    "typescript": _JS_LEXICON,
    "tsx": _JS_LEXICON,
    # Rust and Go: ' delimits a character, so quote style is significant.
    "rust": _Lexicon(
        comments=frozenset({"line_comment", "block_comment"}),
        strings=frozenset({"string_literal", "raw_string_literal", "char_literal"}),
    ),
    "go": _Lexicon(
        comments=frozenset({"comment"}),
        strings=frozenset({"interpreted_string_literal", "raw_string_literal", "rune_literal"}),
    ),
}

# --------------------------------------------------------------------------
# Definition queries. Each pattern captures the definition as
# ``@definition.<kind>``, its name as ``@name`` and, for assignments and
# constants, the assigned expression as ``@value``. Shapes a query cannot say
# (which declarator is top-level, a Go receiver's type) are settled in
# ``_refine``.

_JS_DEFINITIONS = """
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (_) @name) @definition.class
(method_definition name: (_) @name) @definition.method
(variable_declarator name: (identifier) @name value: (_) @value) @definition.variable
"""

_TS_DEFINITIONS = (
    _JS_DEFINITIONS
    + """
(abstract_class_declaration name: (_) @name) @definition.class
(interface_declaration name: (_) @name) @definition.interface
(type_alias_declaration name: (_) @name) @definition.type
(enum_declaration name: (_) @name) @definition.enum
(method_signature name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method
(function_signature name: (_) @name) @definition.function
"""
)

DEFINITION_QUERIES: dict[str, str] = {
    "python": """
(function_definition name: (identifier) @name) @definition.function
(class_definition name: (identifier) @name) @definition.class
(module
  (expression_statement
    (assignment left: (identifier) @name right: (_) @value)) @definition.module-assignment)
""",
    "javascript": _JS_DEFINITIONS,
    "typescript": _TS_DEFINITIONS,
    "tsx": _TS_DEFINITIONS,
    "rust": """
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(impl_item type: (_) @name) @definition.impl
(type_item name: (type_identifier) @name) @definition.type
(source_file (const_item name: (identifier) @name value: (_) @value) @definition.const)
(source_file (static_item name: (identifier) @name value: (_) @value) @definition.const)
(declaration_list (const_item name: (identifier) @name value: (_) @value) @definition.const)
""",
    "go": """
(function_declaration name: (identifier) @name) @definition.function
(method_declaration receiver: (parameter_list) @receiver name: (field_identifier) @name) @definition.method
(method_elem name: (field_identifier) @name) @definition.method
(type_declaration (type_spec name: (type_identifier) @name type: (_) @type) @definition.type)
(type_declaration (type_alias name: (type_identifier) @name) @definition.type)
(source_file (const_declaration (const_spec) @definition.const))
(source_file (var_declaration (var_spec) @definition.module-assignment))
(source_file (var_declaration (var_spec_list (var_spec) @definition.module-assignment)))
""",
}

#: definitions whose functions are methods
_CLASS_LIKE = frozenset({"class", "impl", "trait", "interface", "struct"})
#: definitions that bind a value (what ``value_of`` reads)
_VALUE_KINDS = frozenset({"module-assignment", "const"})


@lru_cache(maxsize=None)
def _parser(language: str) -> Parser:
    return Parser(_language(language))


@lru_cache(maxsize=None)
def _definition_query(language: str) -> Query:
    return Query(_language(language), DEFINITION_QUERIES[language])


# --------------------------------------------------------------------------
# Parse cache and statistics

_CACHE_SIZE = 512
#: a tree-sitter tree takes about 30 bytes per byte of source (measured on
#: Python files: 2.8 MB of source, 80 MB of trees), more with tokens and indexes
_BYTES_PER_CHAR = 32
#: the parse cache's budget, in estimated bytes: about 3 MB of source
_CACHE_BYTES = 96 * 1024 * 1024
_TREES: SizedLRU[_Parsed] = SizedLRU(_CACHE_BYTES, _CACHE_SIZE)
_seconds = 0.0
_parses = 0


def stats() -> ParseStats:
    """Cumulative tree-sitter time and parse count since the last reset."""
    return ParseStats(seconds=_seconds, parses=_parses)


def reset_stats() -> None:
    """Zero the counters of ``stats()`` (the cache is kept)."""
    global _seconds, _parses
    _seconds, _parses = 0.0, 0


def clear_cache() -> None:
    """Forget every parsed tree."""
    _TREES.clear()


class _ByteToChar:
    """Converts UTF-8 byte offsets of a text into character offsets.

    Only non-ASCII characters shift the two apart, so it records, for each of
    them, where it ends in bytes and how many extra bytes precede that point.
    """

    _NON_ASCII = re.compile(r"[^\x00-\x7f]")

    def __init__(self, text: str) -> None:
        self.identity = text.isascii()
        self.byte_ends: list[int] = []
        self.extra: list[int] = []
        if self.identity:
            return
        extra = 0
        for match in self._NON_ASCII.finditer(text):
            code = ord(match.group())
            width = 2 if code < 0x800 else 3 if code < 0x10000 else 4
            self.byte_ends.append(match.start() + extra + width)
            extra += width - 1
            self.extra.append(extra)

    def __call__(self, byte: int) -> int:
        if self.identity:
            return byte
        k = bisect.bisect_right(self.byte_ends, byte)
        return byte - (self.extra[k - 1] if k else 0)


def _end_line(node: Node) -> int:
    """The 1-based last line a node occupies (a node ending with its newline
    ends on the line before)."""
    row, column = node.end_point
    if column == 0 and row > node.start_point[0]:
        return row
    return row + 1


@dataclass
class _Candidate:
    """A definition found by a query, before nesting settles kind and name."""

    kind: str
    name: str
    first: Node  # the span runs from first.start to last.end
    last: Node
    value: Node | None = None


class _Parsed:
    """A parsed text and what has been derived from it, computed on demand."""

    def __init__(self, language: str, text: str, tree: Tree) -> None:
        self.language = language
        self.text = text
        self.tree = tree
        self.char = _ByteToChar(text)
        self._definitions: list[Definition] | None = None
        self._values: dict[Definition, tuple[int, int]] = {}
        self._lexemes: list[Token] | None = None
        self._lexeme_end_lines: list[int] = []
        self._code: tuple[list[Token], list[int], list[int]] | None = None
        self._code_index: tuple[str, dict[str, int], list[int]] | None = None

    # -- definitions -----------------------------------------------------

    def definitions(self) -> list[Definition]:
        if self._definitions is None:
            self._definitions = self._find_definitions()
        return self._definitions

    def value_span(self, definition: Definition) -> tuple[int, int] | None:
        self.definitions()
        return self._values.get(definition)

    def _find_definitions(self) -> list[Definition]:
        global _seconds
        began = time.perf_counter()
        matches = QueryCursor(_definition_query(self.language)).matches(self.tree.root_node)
        _seconds += time.perf_counter() - began
        candidates: list[_Candidate] = []
        for _pattern, captures in matches:
            candidates.extend(_refine(self.language, captures, self.text, self.char))
        spans = [(self.char(c.first.start_byte), self.char(c.last.end_byte)) for c in candidates]
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
                self._values[definition] = (self.char(value.start_byte), self.char(value.end_byte))
        return found

    # -- tokens ----------------------------------------------------------

    def lexemes(self) -> tuple[list[Token], list[int]]:
        """Every token, comments included, and each token's last line."""
        if self._lexemes is None:
            self._lexemes, self._lexeme_end_lines = _lex(self.tree, self.text, self.char, self.language)
        return self._lexemes, self._lexeme_end_lines

    def code_tokens(self) -> tuple[list[Token], list[int], list[int]]:
        """Tokens without comments, their end lines, and their start offsets."""
        if self._code is None:
            lexemes, end_lines = self.lexemes()
            kept = [i for i, t in enumerate(lexemes) if t.kind != "comment"]
            tokens = [lexemes[i] for i in kept]
            self._code = (tokens, [end_lines[i] for i in kept], [t.start for t in tokens])
        return self._code

    def window_code_tokens(self, start: int, end: int) -> tuple[list[Token], list[int]]:
        """Tokens without comments (and their end lines) of the nodes overlapping
        characters ``start``-``end``: from the whole file's tokens when they are
        known, else by lexing only there (lexing a large file costs far more
        than parsing it)."""
        if self._code is not None:
            code, end_lines, starts = self._code
            begin, stop = bisect.bisect_left(starts, start), bisect.bisect_left(starts, end)
            if begin and code[begin - 1].end > start:  # the token the window starts in
                begin -= 1
            return code[begin:stop], end_lines[begin:stop]
        window = (self.byte(start), self.byte(end))
        lexemes, end_lines = _lex(self.tree, self.text, self.char, self.language, window)
        kept = [i for i, t in enumerate(lexemes) if t.kind != "comment" and t.start < end and t.end > start]
        return [lexemes[i] for i in kept], [end_lines[i] for i in kept]

    def byte(self, offset: int) -> int:
        """The UTF-8 byte offset of character ``offset``."""
        if self.char.identity:
            return offset
        return len(self.text[:offset].encode("utf-8", "surrogatepass"))

    def code_index(self) -> tuple[str, dict[str, int], list[int]]:
        """The comparable token stream as a string, one character per token.

        Trailing commas are dropped; each distinct token text gets its own
        character, so a quotation's tokens occur in the file exactly when
        their string occurs in this one (found by ``str.find`` in C).
        Returns the string, the token → character-code vocabulary and, per
        character, the index of its token in ``code_tokens()``.
        """
        if self._code_index is None:
            tokens = self.code_tokens()[0]
            texts = [t.text for t in tokens]
            kept = _without_trailing_commas(texts)
            vocabulary: dict[str, int] = {}
            chars = []
            for i in kept:
                code = vocabulary.setdefault(texts[i], _token_code(len(vocabulary)))
                chars.append(chr(code))
            self._code_index = ("".join(chars), vocabulary, kept)
        return self._code_index


def _parse(text: str, language: str, key: str | None) -> _Parsed:
    """The cached parse of ``text``; at most one parse per (language, key)."""
    global _seconds, _parses
    cache_key = (language, "key", key) if key is not None else (language, "text", hash(text), len(text))
    parsed = _TREES.get(cache_key)
    # Equal keys with different texts would be a caller's mistake; comparing
    # is a memcmp (identity first), far cheaper than a wrong answer.
    if parsed is not None and (parsed.text is text or parsed.text == text):
        return parsed
    source = text.encode("utf-8", "surrogatepass")
    began = time.perf_counter()
    tree = _parser(language).parse(source)
    _seconds += time.perf_counter() - began
    _parses += 1
    parsed = _Parsed(language, text, tree)
    _TREES.put(cache_key, parsed, len(text) * _BYTES_PER_CHAR)
    return parsed


def reparse(text: str, path: str, key: str, previous_text: str, previous_key: str) -> None:
    """Parse ``text`` (cached under ``key``) as an edit of ``previous_text``,
    whose parse is cached under ``previous_key``: tree-sitter reuses every
    subtree outside the changed span, which for a file edited in a few places
    costs a fraction of a fresh parse, and gives the same tree. Nothing
    happens when either is unknown or the text is parsed already."""
    global _seconds, _parses
    language = language_for(path)
    if language is None or _language(language) is None or _TREES.get((language, "key", key)) is not None:
        return
    base = _TREES.get((language, "key", previous_key))
    if base is None or base.text is not previous_text and base.text != previous_text:
        return
    old, new = previous_text.encode("utf-8", "surrogatepass"), text.encode("utf-8", "surrogatepass")
    start = _common_prefix(old, new)
    tail = _common_prefix(old[start:][::-1], new[start:][::-1])
    old_end, new_end = len(old) - tail, len(new) - tail
    began = time.perf_counter()
    tree = base.tree.copy()
    tree.edit(start, old_end, new_end, _point(old, start), _point(old, old_end), _point(new, new_end))
    tree = _parser(language).parse(new, tree)
    _seconds += time.perf_counter() - began
    _parses += 1
    _TREES.put((language, "key", key), _Parsed(language, text, tree), len(text) * _BYTES_PER_CHAR)


def _common_prefix(a: bytes, b: bytes) -> int:
    """The length of the longest common prefix: a binary search of slice
    comparisons (each a C memcmp), not a loop over bytes."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _point(source: bytes, offset: int) -> tuple[int, int]:
    """tree-sitter's (row, byte column) of a byte offset."""
    return source.count(b"\n", 0, offset), offset - (source.rfind(b"\n", 0, offset) + 1)


def _parsed_for(text: str, path: str, key: str | None) -> _Parsed | None:
    language = language_for(path)
    if language is None or _language(language) is None:
        return None
    return _parse(text, language, key)


# --------------------------------------------------------------------------
# Refining query matches into candidates (per-language shapes)


def _refine(
    language: str, captures: dict[str, list[Node]], text: str, char: _ByteToChar
) -> Iterator[_Candidate]:
    kind_capture = next(name for name in captures if name.startswith("definition."))
    kind = kind_capture.removeprefix("definition.")
    node = captures[kind_capture][0]
    name_node = captures.get("name", [None])[0]
    value = captures.get("value", [None])[0]

    def node_text(n: Node) -> str:
        return text[char(n.start_byte) : char(n.end_byte)]

    if language == "go" and kind in _VALUE_KINDS:
        # ``const A, B = 1, 2`` is one spec naming two constants.
        yield from _go_specs(kind, node, node_text)
        return
    assert name_node is not None
    name = node_text(name_node)
    first = last = node

    if language == "python":
        if node.parent is not None and node.parent.type == "decorated_definition":
            first = last = node.parent
    elif language in ("javascript", "typescript", "tsx"):
        if kind == "variable":
            declaration = node.parent
            if declaration is None or not _js_top_level(declaration):
                return
            keyword = declaration.child(0)
            if value is not None and value.type in ("arrow_function", "function_expression", "function"):
                kind = "function"
            elif keyword is not None and keyword.type == "const":
                kind = "const"
            else:
                kind = "module-assignment"
            if declaration.named_child_count == 1:  # the whole statement is this definition
                first = last = declaration
        if first.parent is not None and first.parent.type == "export_statement":
            first = last = first.parent
    elif language == "rust":
        if kind == "impl":
            name = node_text(_rust_type_name(name_node))
        first = _rust_with_attributes(node)
    elif language == "go":
        if kind == "method" and "receiver" in captures:
            receiver = _go_receiver_type(captures["receiver"][0])
            if receiver is not None:
                name = f"{node_text(receiver)}.{name}"
        elif kind == "type":
            shape = captures.get("type", [None])[0]
            if shape is not None and shape.type == "struct_type":
                kind = "struct"
            elif shape is not None and shape.type == "interface_type":
                kind = "interface"
            declaration = node.parent
            if declaration is not None and declaration.named_child_count == 1:
                first = last = declaration
    yield _Candidate(kind=kind, name=name, first=first, last=last, value=value)


def _js_top_level(declaration: Node) -> bool:
    parent = declaration.parent
    if parent is not None and parent.type == "export_statement":
        parent = parent.parent
    return parent is not None and parent.type == "program"


def _rust_type_name(node: Node) -> Node:
    """``Foo`` for ``Foo<T>``, ``a::Foo``, ``&Foo``."""
    while node.type in ("generic_type", "scoped_type_identifier", "reference_type"):
        inner = node.child_by_field_name("name" if node.type == "scoped_type_identifier" else "type")
        if inner is None:
            break
        node = inner
    return node


def _rust_with_attributes(node: Node) -> Node:
    """The first of the ``#[...]`` attributes right above an item, or the item."""
    first = node
    sibling = node.prev_sibling
    while sibling is not None and sibling.type == "attribute_item":
        first = sibling
        sibling = sibling.prev_sibling
    return first


def _go_receiver_type(receiver: Node) -> Node | None:
    """``Store`` for ``(s *Store)`` or ``(s *Store[T])``."""
    for parameter in receiver.named_children:
        node = parameter.child_by_field_name("type")
        while node is not None and node.type in ("pointer_type", "generic_type", "parenthesized_type"):
            if node.type == "generic_type":
                node = node.child_by_field_name("type")
            else:
                node = node.named_child(0)
        return node
    return None


def _go_specs(kind: str, spec: Node, node_text: Callable[[Node], str]) -> Iterator[_Candidate]:
    # (the field also yields the commas between names)
    names = [n for n in spec.children_by_field_name("name") if n.is_named]
    values_node = spec.child_by_field_name("value")
    values = values_node.named_children if values_node is not None else []
    declaration = spec.parent
    if declaration is not None and declaration.type == "var_spec_list":
        declaration = declaration.parent
    whole = declaration is not None and declaration.named_child_count == 1 and len(names) == 1
    outer = declaration if whole and declaration is not None else spec
    for index, name_node in enumerate(names):
        value = values[index] if index < len(values) else None
        yield _Candidate(kind=kind, name=node_text(name_node), first=outer, last=outer, value=value)


def _unwrap_value(node: Node) -> Node:
    """The literal under TypeScript's ``8_000 as const`` / ``satisfies T``."""
    while node.type in ("as_expression", "satisfies_expression") and node.named_child_count:
        node = node.named_child(0)
    return node


# --------------------------------------------------------------------------
# Lexing


def _lex(
    tree: Tree, text: str, char: _ByteToChar, language: str, window: tuple[int, int] | None = None
) -> tuple[list[Token], list[int]]:
    """Walk the tree once: leaves become tokens, strings and comments whole.

    With ``window`` (byte offsets), subtrees wholly outside it are skipped:
    the tokens are those of nodes overlapping it, as the whole walk gives them.
    """
    global _seconds
    lexicon = _LEXICONS[language]
    tokens: list[Token] = []
    end_lines: list[int] = []
    low, high = window if window is not None else (0, -1)
    began = time.perf_counter()
    cursor = tree.walk()
    while True:
        node = cursor.node
        assert node is not None
        kind = None
        if window is not None and (node.end_byte <= low or node.start_byte >= high):
            kind = "outside"
        elif node.is_named and node.type in lexicon.comments:
            kind = "comment"
        elif node.is_named and node.type in lexicon.strings:
            kind = "string"
        elif node.child_count == 0 or (node.is_named and node.type in lexicon.atoms):
            kind = "code"
        if kind is None and cursor.goto_first_child():
            continue
        if kind not in (None, "outside") and node.end_byte > node.start_byte and node.type not in lexicon.layout:
            start, end = char(node.start_byte), char(node.end_byte)
            if kind == "comment":  # a Rust line comment owns its newline; the region should not
                while end > start and text[end - 1] in "\r\n":
                    end -= 1
            raw = text[start:end]
            if kind == "string":
                value = lexicon.string_key(raw)
            elif kind == "code" and (not raw.isprintable() or " " in raw):
                value = " ".join(raw.split())  # JSX text, error leaves: whitespace is layout
            else:
                value = raw
            if value:
                line = node.start_point[0] + 1
                tokens.append(Token(text=value, start=start, end=end, line=line, kind=kind))
                end_lines.append(_end_line(node))
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                _seconds += time.perf_counter() - began
                return tokens, end_lines


_CLOSERS = frozenset({")", "]", "}"})


def _without_trailing_commas(texts: list[str]) -> list[int]:
    """Indices of ``texts`` without each ``,`` that directly precedes a closer."""
    return [
        i for i, t in enumerate(texts) if not (t == "," and i + 1 < len(texts) and texts[i + 1] in _CLOSERS)
    ]


def _token_code(index: int) -> int:
    """The character code standing for the index-th distinct token (no surrogates)."""
    code = index + 1
    return code + 0x800 if code >= 0xD800 else code


# --------------------------------------------------------------------------
# Public functions


def definitions(text: str, path: str, key: str | None = None) -> list[Definition] | None:
    """Every definition in the text, in order of their start; ``None`` when
    no grammar covers ``path``."""
    parsed = _parsed_for(text, path, key)
    return None if parsed is None else list(parsed.definitions())


def enclosing(text: str, path: str, lines: LineRange, key: str | None = None) -> Definition | None:
    """The innermost definition containing all of ``lines`` (``None`` at
    module level, or when no grammar covers ``path``)."""
    found = definitions(text, path, key)
    best: Definition | None = None
    for definition in found or ():
        if definition.lines.contains(lines):
            if best is None or (definition.end - definition.start) <= (best.end - best.start):
                best = definition
    return best


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


def tokens(
    text: str, path: str, key: str | None = None, span: tuple[int, int] | None = None
) -> list[Token] | None:
    """The text's tokens without comments (only those inside ``span``, a pair
    of character offsets, when given); ``None`` when no grammar covers ``path``."""
    parsed = _parsed_for(text, path, key)
    if parsed is None:
        return None
    if span is None:
        return list(parsed.code_tokens()[0])
    code, _end_lines = parsed.window_code_tokens(*span)
    return [token for token in code if token.start >= span[0] and token.end <= span[1]]


def regions(text: str, path: str, key: str | None = None) -> list[Region] | None:
    """Comment and string-literal spans, in text order; ``None`` when no
    grammar covers ``path``."""
    parsed = _parsed_for(text, path, key)
    if parsed is None:
        return None
    lexemes, _ = parsed.lexemes()
    return [Region(t.start, t.end, t.kind) for t in lexemes if t.kind != "code"]


_DIFF_CONTEXT = 3
_DIFF_HUNKS = 4
_DIFF_WIDTH = 160


def body_token_diff(
    old_text: str, new_text: str, path: str, old_def: Definition, new_def: Definition
) -> str | None:
    """``None`` when the two definitions have the same tokens (comments and
    layout do not count); otherwise a few lines showing the changed tokens,
    ``L<old>→L<new>: context [-removed-] {+added+} context``.

    Without a grammar, words of the two spans are compared instead.
    """
    old_tokens = tokens(old_text, path, span=(old_def.start, old_def.end))
    new_tokens = tokens(new_text, path, span=(new_def.start, new_def.end))
    if old_tokens is None or new_tokens is None:
        old_tokens = _words(old_text, old_def)
        new_tokens = _words(new_text, new_def)
    old_texts = [t.text for t in old_tokens]
    new_texts = [t.text for t in new_tokens]
    if old_texts == new_texts:
        return None
    matcher = difflib.SequenceMatcher(None, old_texts, new_texts, autojunk=False)
    changes = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    lines = []
    for _tag, i1, i2, j1, j2 in changes[:_DIFF_HUNKS]:
        old_line = _line_at(old_tokens, i1, old_def)
        new_line = _line_at(new_tokens, j1, new_def)
        parts = [" ".join(old_texts[max(0, i1 - _DIFF_CONTEXT) : i1])]
        if i2 > i1:
            parts.append(f"[-{' '.join(old_texts[i1:i2])}-]")
        if j2 > j1:
            parts.append(f"{{+{' '.join(new_texts[j1:j2])}+}}")
        parts.append(" ".join(old_texts[i2 : i2 + _DIFF_CONTEXT]))
        line = f"L{old_line}→L{new_line}: " + " ".join(p for p in parts if p)
        lines.append(line if len(line) <= _DIFF_WIDTH else line[: _DIFF_WIDTH - 1] + "…")
    if len(changes) > _DIFF_HUNKS:
        lines.append(f"… and {len(changes) - _DIFF_HUNKS} more token changes")
    return "\n".join(lines)


def _words(text: str, definition: Definition) -> list[Token]:
    line = definition.lines.start
    words = []
    for number, row in enumerate(text[definition.start : definition.end].split("\n")):
        words.extend(Token(w, 0, 0, line + number, "code") for w in row.split())
    return words


def _line_at(found: list[Token], index: int, definition: Definition) -> int:
    if index < len(found):
        return found[index].line
    return found[-1].line if found else definition.lines.start


@lru_cache(maxsize=1024)
def _fragment_tokens(quote: str, language: str) -> tuple[str, ...]:
    """A quotation's comparable tokens: parsed as a fragment (syntax errors do
    not matter, only the leaves), comments and trailing commas dropped."""
    global _parses, _seconds
    # (tree-sitter-python copes with an excerpt that starts indented.)
    fragment = quote
    began = time.perf_counter()
    tree = _parser(language).parse(fragment.encode("utf-8", "surrogatepass"))
    _seconds += time.perf_counter() - began
    _parses += 1
    lexemes, _ = _lex(tree, fragment, _ByteToChar(fragment), language)
    texts = [t.text for t in lexemes if t.kind != "comment"]
    texts = [texts[i] for i in _without_trailing_commas(texts)]
    # A quotation may stop right after a comma whose closer it does not show.
    if texts and texts[-1] == ",":
        texts.pop()
    return tuple(texts)


def token_find(
    quote: str, text: str, path: str, key: str | None = None, windows: list[tuple[int, int]] | None = None
) -> LineRange | None:
    """The lines of the first place where ``quote``'s tokens occur
    contiguously in ``text``: matching that ignores layout, comments, quote
    style and trailing commas. ``None`` when absent or no grammar applies.

    ``windows`` (character spans, in order, from
    :func:`.match.token_windows`) are where any such place must lie: only
    they are lexed.
    """
    parsed = _parsed_for(text, path, key)
    if parsed is None:
        return None
    needle = _fragment_tokens(quote, parsed.language)
    if not needle:
        return None
    if windows is not None and parsed._code_index is None:
        return _find_in_windows(parsed, needle, windows)
    haystack, vocabulary, positions = parsed.code_index()
    codes = [vocabulary.get(t) for t in needle]
    if None in codes:
        return None
    at = haystack.find("".join(chr(c) for c in codes if c is not None))
    if at < 0:
        return None
    code, end_lines, _starts = parsed.code_tokens()
    first, last = positions[at], positions[at + len(needle) - 1]
    return LineRange(code[first].line, end_lines[last])


def _find_in_windows(parsed: _Parsed, needle: tuple[str, ...], windows: list[tuple[int, int]]) -> LineRange | None:
    first = needle[0]
    for start, end in windows:
        code, end_lines = parsed.window_code_tokens(start, end)
        texts = [t.text for t in code]
        kept = _without_trailing_commas(texts)
        sequence = [texts[i] for i in kept]
        for at in range(len(sequence) - len(needle) + 1):
            if sequence[at] == first and tuple(sequence[at : at + len(needle)]) == needle:
                return LineRange(code[kept[at]].line, end_lines[kept[at + len(needle) - 1]])
    return None


def value_of(text: str, path: str, symbol: str, key: str | None = None) -> str | None:
    """The expression text assigned to a module-level assignment or constant
    (``"200"`` for ``MAX_ENTRIES = 200``), or ``None``."""
    parsed = _parsed_for(text, path, key)
    if parsed is None:
        return None
    for definition in parsed.definitions():
        if definition.kind in _VALUE_KINDS and _name_matches(definition, symbol):
            span = parsed.value_span(definition)
            if span is not None:
                return text[span[0] : span[1]]
    return None


# --------------------------------------------------------------------------
# Literals

_INT_SUFFIX = r"(?:_?[iu](?:8|16|32|64|128|size)|n|u|l|ul|ll|ull)?"
_HEX = re.compile(r"0x([0-9a-f_]+)" + _INT_SUFFIX)
_OCT = re.compile(r"0o([0-7_]+)" + _INT_SUFFIX)
_BIN = re.compile(r"0b([01_]+)" + _INT_SUFFIX)
_LEGACY_OCT = re.compile(r"0([0-7_]+)")  # Go, C and sloppy JavaScript: 0755
_DECIMAL = re.compile(
    r"([0-9][0-9_]*(?:\.[0-9_]*)?(?:e[+-]?[0-9_]+)?|\.[0-9][0-9_]*(?:e[+-]?[0-9_]+)?)"
    r"(_?(?:[iu](?:8|16|32|64|128|size)|f32|f64)|n|u|l|ul|ll|ull|f|d)?"
)


def _number(literal: str) -> int | float | None:
    """The value of a numeric literal in any supported language's spelling."""
    s = literal.strip().lower()
    sign = 1
    if s[:1] in ("-", "+"):
        sign = -1 if s[0] == "-" else 1
        s = s[1:].lstrip()
    for pattern, base in ((_HEX, 16), (_OCT, 8), (_BIN, 2), (_LEGACY_OCT, 8)):
        match = pattern.fullmatch(s)
        if match:
            digits = match.group(1).replace("_", "")
            return sign * int(digits, base) if digits else None
    match = _DECIMAL.fullmatch(s)
    if not match:
        return None
    digits = match.group(1).replace("_", "")
    if "." in digits or "e" in digits or match.group(2) in ("f32", "f64", "_f32", "_f64", "f", "d"):
        return sign * float(digits)
    return sign * int(digits)


def _string_content(literal: str) -> str | None:
    """What a string literal says, whatever its quotes and prefix
    (Python ``rb'x'``, JavaScript ``\\`x\\```, Rust ``r#"x"#``, Go raw strings)."""
    s = literal.strip()
    i = 0
    while i < len(s) and i < 3 and s[i] in "rRbBuUfFcC":
        i += 1
    j = i
    while j < len(s) and s[j] == "#":
        j += 1
    hashes = "#" * (j - i)
    for quote in ('"""', "'''", '"', "'", "`"):
        closing = quote + hashes
        if s.startswith(quote, j) and s.endswith(closing) and len(s) >= j + len(quote) + len(closing):
            return _unescape_quotes(s[j + len(quote) : len(s) - len(closing)])
    return None


def literal_equals(literal: str, expected: Any) -> bool:
    """Whether a literal as written in source equals ``expected``.

    Numbers compare by value in any spelling (``8_000`` == 8000, ``0x10`` ==
    16, ``1e3`` == 1000, ``200usize`` == 200); strings by content whatever
    their quotes; booleans and null in any language's spelling; anything else
    by exact (stripped) text.
    """
    text = literal.strip()
    if isinstance(expected, bool):
        return text in (("True", "true") if expected else ("False", "false"))
    if expected is None:
        return text in ("None", "null", "nil", "undefined")
    if isinstance(expected, (int, float)):
        value = _number(text)
        return value is not None and value == expected
    wanted = str(expected).strip()
    value, wanted_value = _number(text), _number(wanted)
    if value is not None and wanted_value is not None:
        return value == wanted_value
    content, wanted_content = _string_content(text), _string_content(wanted)
    if content is not None:
        return content == (wanted_content if wanted_content is not None else wanted)
    return text == wanted
