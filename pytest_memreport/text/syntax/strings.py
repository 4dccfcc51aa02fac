"""How string literals read: quote styles that mean the same string, and
escaped quotes, for token comparison and literal values."""

from __future__ import annotations

import re

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
