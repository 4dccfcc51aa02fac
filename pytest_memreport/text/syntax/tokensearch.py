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
    contiguously in ``text`` (:func:`token_find_all`), or ``None``."""
    found = token_find_all(quote, text, path, key, windows)
    return found[0] if found else None


def token_find_all(
    quote: str, text: str, path: str, key: str | None = None, windows: list[tuple[int, int]] | None = None
) -> tuple[LineRange, ...]:
    """The lines of every place, in order and not overlapping, where ``quote``'s tokens
    occur contiguously in ``text``: matching that ignores layout, comments, quote style
    and trailing commas. Empty when absent or no grammar applies. Every place, as the
    character search gives: a quote the file holds twice is followed to the copy nearest
    its own (a handler's ``return redirect(url_for('index'))``, not the one above it).

    ``windows`` (character spans, in order, from
    :func:`..quotes.windows.token_windows`) are where any such place must lie: only
    they are lexed.
    """
    parsed = _parsed_for(text, path, key)
    if parsed is None:
        return ()
    needle = _fragment_tokens(quote, parsed.language)
    if not needle:
        return ()
    if windows is not None and parsed._code_index is None:
        return _find_in_windows(parsed, needle, windows)
    haystack, vocabulary, positions = _code_index_of(parsed)
    codes = [vocabulary.get(t) for t in needle]
    if None in codes:
        return ()
    wanted = "".join(chr(c) for c in codes if c is not None)
    code, end_lines, _starts = _code_tokens_of(parsed)
    found = []
    at = haystack.find(wanted)
    while at >= 0:
        first, last = positions[at], positions[at + len(needle) - 1]
        found.append(LineRange(code[first].line, end_lines[last]))
        at = haystack.find(wanted, at + len(needle))
    return tuple(found)


def _find_in_windows(parsed: _Parsed, needle: tuple[str, ...], windows: list[tuple[int, int]]) -> tuple[LineRange, ...]:
    first = needle[0]
    found: list[LineRange] = []
    for start, end in windows:
        code, end_lines = _window_code_tokens(parsed, start, end)
        texts = [t.text for t in code]
        kept = without_trailing_commas(texts)
        sequence = [texts[i] for i in kept]
        at, stop = 0, len(sequence) - len(needle) + 1
        while at < stop:
            if sequence[at] == first and tuple(sequence[at : at + len(needle)]) == needle:
                lines = LineRange(code[kept[at]].line, end_lines[kept[at + len(needle) - 1]])
                if not found or found[-1] != lines:  # twice on one line: one place
                    found.append(lines)
                at += len(needle)
            else:
                at += 1
    return tuple(found)


def clear_cache() -> None:
    """Forget every quotation's tokens."""
    _fragment_tokens.cache_clear()
