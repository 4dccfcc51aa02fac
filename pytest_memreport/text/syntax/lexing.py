"""Tokens and regions: walking a syntax tree once, leaves become tokens and
string literals and comments whole ones (:func:`tokens`, :func:`regions`).

Offsets in results are character offsets into the Python ``str`` (tree-sitter
reports UTF-8 byte offsets; they are converted). Lines are 1-based and counted
by ``\\n``, as git and editors count them.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from tree_sitter import Language, Tree

from .languages import spec
from .parsing import _ByteToChar, _Parsed, _parsed_for, timed

#: what a formatter adds when it wraps arguments: a comma right before a closer
_CLOSERS = frozenset({")", "]", "}"})


def without_trailing_commas(texts: list[str]) -> list[int]:
    """Indices of ``texts`` (token texts) without each ``,`` that directly precedes a
    closer: a formatter wrapping arguments adds those, and they change nothing."""
    return [i for i, t in enumerate(texts) if not (t == "," and i + 1 < len(texts) and texts[i + 1] in _CLOSERS)]


def drop_trailing_commas(texts: list[str]) -> list[str]:
    """``texts`` without the commas :func:`without_trailing_commas` leaves out."""
    return [texts[i] for i in without_trailing_commas(texts)]


class Token(NamedTuple):
    """One lexical token: a leaf of the syntax tree, or a whole string literal.

    ``text`` is the token as compared: string literals are normalized where the
    language treats quote styles alike (``'a'`` and ``"a"`` both read ``"a"``
    in Python and JavaScript); whitespace inside code tokens is collapsed.

    A named tuple, not a frozen dataclass: a long definition's comparison lexes
    hundreds of thousands of tokens, and a frozen dataclass sets each field
    through ``object.__setattr__`` (about four times the cost of making a tuple).
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


#: what a node kind is to the lexer (:func:`_kinds`): nothing of its own, or a whole token
_WALK, _COMMENT, _STRING, _ATOM = 0, 1, 2, 3


@lru_cache(maxsize=None)
def _kinds(grammar: Language, language: str) -> tuple[tuple[int, ...], frozenset[int]]:
    """For each node kind id of ``grammar``: whether the lexer walks into it or takes it whole
    as a comment, a string or an atom; and the ids of layout kinds. Made once per grammar:
    the walk then compares small integers, not each node's type name."""
    lexicon = spec(language).lexicon
    table = []
    layout = set()
    for kind in range(grammar.node_kind_count):
        name, named = grammar.node_kind_for_id(kind), grammar.node_kind_is_named(kind)
        if name in lexicon.layout:
            layout.add(kind)
        if named and name in lexicon.comments:
            table.append(_COMMENT)
        elif named and name in lexicon.strings:
            table.append(_STRING)
        elif named and name in lexicon.atoms:
            table.append(_ATOM)
        else:
            table.append(_WALK)
    return tuple(table), frozenset(layout)


def _lex(
    tree: Tree, text: str, char: _ByteToChar, language: str, window: tuple[int, int] | None = None
) -> tuple[list[Token], list[int]]:
    """Walk the tree once: leaves become tokens, strings and comments whole.

    With ``window`` (byte offsets), subtrees wholly outside it are skipped:
    the tokens are those of nodes overlapping it, as the whole walk gives them.
    """
    lexicon = spec(language).lexicon
    table, layout = _kinds(tree.language, language)
    tokens: list[Token] = []
    end_lines: list[int] = []
    low, high = window if window is not None else (0, -1)
    identity = char.identity
    with timed():
        cursor = tree.walk()
        while True:
            node = cursor.node
            assert node is not None
            kind_id = node.kind_id
            what = table[kind_id] if kind_id < len(table) else _WALK
            start_byte, end_byte = node.start_byte, node.end_byte
            if window is not None and (end_byte <= low or start_byte >= high):
                pass  # outside the window: neither a token nor walked into
            elif what == _WALK and node.child_count and cursor.goto_first_child():
                continue
            elif end_byte > start_byte and kind_id not in layout:
                start, end = (start_byte, end_byte) if identity else (char(start_byte), char(end_byte))
                kind = "comment" if what == _COMMENT else "string" if what == _STRING else "code"
                if what == _COMMENT:  # a Rust line comment owns its newline; the region should not
                    while end > start and text[end - 1] in "\r\n":
                        end -= 1
                raw = text[start:end]
                if what == _STRING:
                    value = lexicon.string_key(raw)
                elif kind == "code" and (not raw.isprintable() or " " in raw):
                    value = " ".join(raw.split())  # JSX text, error leaves: whitespace is layout
                else:
                    value = raw
                if value:
                    # (_end_line, inline: a point is an object made at each access)
                    first_row = node.start_point[0]
                    last_row, last_column = node.end_point
                    tokens.append(Token(text=value, start=start, end=end, line=first_row + 1, kind=kind))
                    end_lines.append(last_row if last_column == 0 and last_row > first_row else last_row + 1)
            while not cursor.goto_next_sibling():
                if not cursor.goto_parent():
                    return tokens, end_lines


def _lexemes_of(parsed: _Parsed) -> tuple[list[Token], list[int]]:
    """Every token, comments included, and each token's last line."""
    if parsed._lexemes is None:
        parsed._lexemes, parsed._lexeme_end_lines = _lex(parsed.tree, parsed.text, parsed.char, parsed.language)
    return parsed._lexemes, parsed._lexeme_end_lines


def _code_tokens_of(parsed: _Parsed) -> tuple[list[Token], list[int], list[int]]:
    """Tokens without comments, their end lines, and their start offsets."""
    if parsed._code is None:
        lexemes, end_lines = _lexemes_of(parsed)
        kept = [i for i, t in enumerate(lexemes) if t.kind != "comment"]
        tokens = [lexemes[i] for i in kept]
        parsed._code = (tokens, [end_lines[i] for i in kept], [t.start for t in tokens])
    return parsed._code


def _window_code_tokens(parsed: _Parsed, start: int, end: int) -> tuple[list[Token], list[int]]:
    """Tokens without comments (and their end lines) of the nodes overlapping
    characters ``start``-``end``: from the whole file's tokens when they are
    known, else by lexing only there (lexing a large file costs far more
    than parsing it).

    Once the windows lexed add up to the file's length (many pieces of evidence
    in one version of a file, blame comparing each across versions), the whole
    file is lexed once and later windows are slices of it: never more than twice
    the lexing the file's windows need, and never a whole huge file for one window.
    A window asked again (the pin's definition, compared with each version blame
    reads) is not lexed again.
    """
    if parsed._code is None:
        known = parsed._windows.get((start, end))
        if known is not None:
            return known
        parsed._windowed += end - start
        if parsed._windowed >= len(parsed.text):
            _code_tokens_of(parsed)
            parsed._windows = {}  # slices of the whole file's tokens from now on
    if parsed._code is not None:
        code, end_lines, starts = parsed._code
        begin, stop = bisect.bisect_left(starts, start), bisect.bisect_left(starts, end)
        if begin and code[begin - 1].end > start:  # the token the window starts in
            begin -= 1
        return code[begin:stop], end_lines[begin:stop]
    window = (parsed.byte(start), parsed.byte(end))
    lexemes, end_lines = _lex(parsed.tree, parsed.text, parsed.char, parsed.language, window)
    kept = [i for i, t in enumerate(lexemes) if t.kind != "comment" and t.start < end and t.end > start]
    found = parsed._windows[(start, end)] = ([lexemes[i] for i in kept], [end_lines[i] for i in kept])
    return found


def tokens(
    text: str, path: str, key: str | None = None, span: tuple[int, int] | None = None
) -> list[Token] | None:
    """The text's tokens without comments (only those inside ``span``, a pair
    of character offsets, when given); ``None`` when no grammar covers ``path``."""
    parsed = _parsed_for(text, path, key)
    if parsed is None:
        return None
    if span is None:
        return list(_code_tokens_of(parsed)[0])
    code, _end_lines = _window_code_tokens(parsed, *span)
    return [token for token in code if token.start >= span[0] and token.end <= span[1]]


def regions(text: str, path: str, key: str | None = None) -> list[Region] | None:
    """Comment and string-literal spans, in text order; ``None`` when no
    grammar covers ``path``."""
    parsed = _parsed_for(text, path, key)
    if parsed is None:
        return None
    lexemes, _ = _lexemes_of(parsed)
    return [Region(t.start, t.end, t.kind) for t in lexemes if t.kind != "code"]
