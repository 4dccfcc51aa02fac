"""Finding a quotation by tokens: matching that ignores layout, comments,
quote style and trailing commas (:func:`token_find`)."""

from __future__ import annotations

from ...runcaches import run_cached

from ...model import LineRange
from .languages import spec
from .lexing import _code_tokens_of, _lex, _window_code_tokens, drop_trailing_commas, without_trailing_commas
from .parsing import _ByteToChar, _Parsed, _parsed_for, parse_source

def _token_code(index: int) -> int:
    """The character code standing for the index-th distinct token (no surrogates)."""
    code = index + 1
    return code + 0x800 if code >= 0xD800 else code


def _code_index_of(parsed: _Parsed) -> tuple[str, dict[str, int], list[int]]:
    """The comparable token stream as a string, one character per token.

    Trailing commas are dropped; each distinct token text gets its own
    character, so a quotation's tokens occur in the file exactly when
    their string occurs in this one (found by ``str.find`` in C).
    Returns the string, the token → character-code vocabulary and, per
    character, the index of its token in ``_code_tokens_of()``.
    """
    if parsed._code_index is None:
        tokens = _code_tokens_of(parsed)[0]
        texts = [t.text for t in tokens]
        kept = without_trailing_commas(texts)
        vocabulary: dict[str, int] = {}
        chars = []
        for i in kept:
            code = vocabulary.setdefault(texts[i], _token_code(len(vocabulary)))
            chars.append(chr(code))
        parsed._code_index = ("".join(chars), vocabulary, kept)
    return parsed._code_index


@run_cached(maxsize=1024)
def _fragment_tokens(quote: str, language: str) -> tuple[str, ...]:
    """A quotation's comparable tokens: parsed as a fragment (syntax errors do
    not matter, only the leaves), comments and trailing commas dropped."""
    # (tree-sitter-python copes with an excerpt that starts indented.)
    # A language whose code lives inside a tag (PHP's ``<?php``) reads an
    # excerpt as code only after that tag; its tokens are not the quote's.
    prefix = spec(language).fragment_prefix
    fragment = prefix + quote
    tree = parse_source(language, fragment.encode("utf-8", "surrogatepass"))
    lexemes, _ = _lex(tree, fragment, _ByteToChar(fragment), language)
    texts = [t.text for t in lexemes if t.kind != "comment" and t.start >= len(prefix)]
    texts = drop_trailing_commas(texts)
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
    :func:`..quotes.windows.token_windows`) are where any such place must lie: only
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
    haystack, vocabulary, positions = _code_index_of(parsed)
    codes = [vocabulary.get(t) for t in needle]
    if None in codes:
        return None
    at = haystack.find("".join(chr(c) for c in codes if c is not None))
    if at < 0:
        return None
    code, end_lines, _starts = _code_tokens_of(parsed)
    first, last = positions[at], positions[at + len(needle) - 1]
    return LineRange(code[first].line, end_lines[last])


def _find_in_windows(parsed: _Parsed, needle: tuple[str, ...], windows: list[tuple[int, int]]) -> LineRange | None:
    first = needle[0]
    for start, end in windows:
        code, end_lines = _window_code_tokens(parsed, start, end)
        texts = [t.text for t in code]
        kept = without_trailing_commas(texts)
        sequence = [texts[i] for i in kept]
        for at in range(len(sequence) - len(needle) + 1):
            if sequence[at] == first and tuple(sequence[at : at + len(needle)]) == needle:
                return LineRange(code[kept[at]].line, end_lines[kept[at + len(needle) - 1]])
    return None


def clear_cache() -> None:
    """Forget every quotation's tokens."""
    _fragment_tokens.cache_clear()
