"""What a literal as written in source means: numbers by value in any
language's spelling, strings by content whatever their quotes, booleans and
null (:func:`literal_equals`)."""

from __future__ import annotations

import re
from typing import Any

from .strings import _unescape_quotes

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
