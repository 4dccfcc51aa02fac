"""Tokens and regions: walking a syntax tree once, leaves become tokens and
string literals and comments whole ones (:func:`tokens`, :func:`regions`).

Offsets in results are character offsets into the Python ``str`` (tree-sitter
reports UTF-8 byte offsets; they are converted). Lines are 1-based and counted
by ``\\n``, as git and editors count them.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

from tree_sitter import Tree

from .languages import spec
from .parsing import _ByteToChar, _end_line, _Parsed, _parsed_for, timed

#: what a formatter adds when it wraps arguments: a comma right before a closer
_CLOSERS = frozenset({")", "]", "}"})


def without_trailing_commas(texts: list[str]) -> list[int]:
    """Indices of ``texts`` (token texts) without each ``,`` that directly precedes a
    closer: a formatter wrapping arguments adds those, and they change nothing."""
    return [i for i, t in enumerate(texts) if not (t == "," and i + 1 < len(texts) and texts[i + 1] in _CLOSERS)]


def drop_trailing_commas(texts: list[str]) -> list[str]:
    """``texts`` without the commas :func:`without_trailing_commas` leaves out."""
    return [texts[i] for i in without_trailing_commas(texts)]


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


def _lex(
    tree: Tree, text: str, char: _ByteToChar, language: str, window: tuple[int, int] | None = None
) -> tuple[list[Token], list[int]]:
    """Walk the tree once: leaves become tokens, strings and comments whole.

    With ``window`` (byte offsets), subtrees wholly outside it are skipped:
    the tokens are those of nodes overlapping it, as the whole walk gives them.
    """
    lexicon = spec(language).lexicon
    tokens: list[Token] = []
    end_lines: list[int] = []
    low, high = window if window is not None else (0, -1)
    with timed():
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
    """
    if parsed._code is None:
        parsed._windowed += end - start
        if parsed._windowed >= len(parsed.text):
            _code_tokens_of(parsed)
    if parsed._code is not None:
        code, end_lines, starts = parsed._code
        begin, stop = bisect.bisect_left(starts, start), bisect.bisect_left(starts, end)
        if begin and code[begin - 1].end > start:  # the token the window starts in
            begin -= 1
        return code[begin:stop], end_lines[begin:stop]
    window = (parsed.byte(start), parsed.byte(end))
    lexemes, end_lines = _lex(parsed.tree, parsed.text, parsed.char, parsed.language, window)
    kept = [i for i, t in enumerate(lexemes) if t.kind != "comment" and t.start < end and t.end > start]
    return [lexemes[i] for i in kept], [end_lines[i] for i in kept]


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
