"""JSON text for people and for speed: indented down to a depth, one line below it.

``json.dumps(indent=...)`` runs CPython's pure-Python encoder, several times
slower than the C one used without ``indent`` (0.7 s of a 3,000-item run's
JSON). Indenting only the outer levels keeps the file readable and diffable
(one piece of evidence or one SARIF result per line) while every inner
value is encoded in C.

A string holding a lone surrogate (a file name's byte that is not UTF-8, as
:func:`os.fsdecode` gives it) is written escaped (``bad\\xff.py``): JSON
holding ``\\udcff`` is not valid Unicode, and many readers refuse it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from ..text.render import valid_unicode

#: a lone surrogate as ``json.dumps`` writes it: a character (``ensure_ascii=False``) or an
#: escape (``ensure_ascii=True``; this also finds a valid pair, or a ``\\`` before ``udc80``,
#: which only cost a second pass that changes nothing)
_SURROGATE = re.compile(r"[\ud800-\udfff]|\\u[dD][89a-fA-F]")


def dumps(data, compact_at: int, ensure_ascii: bool = True, lines_of: frozenset[str] = frozenset()) -> str:
    """``data`` as JSON, indented by two spaces for containers shallower than
    ``compact_at`` (the root is depth 0), each deeper value on one line; so is each item
    of a list under a key in ``lines_of``, at any depth (a report's evidence is one line
    per piece whether it sits in a record or beside them)."""
    # One encoder for every value (``json.dumps`` with arguments makes one per call).
    layout = _Layout(compact_at, lines_of, json.JSONEncoder(ensure_ascii=ensure_ascii, separators=(", ", ": ")).encode)
    parts: list[str] = []
    _write(data, 0, layout, parts)
    text = "".join(parts)
    if _SURROGATE.search(text):
        parts = []
        _write(_valid(data), 0, layout, parts)
        text = "".join(parts)
    return text


@dataclass(frozen=True)
class _Layout:
    compact_at: int
    lines_of: frozenset[str]
    encode: Callable[[object], str]


def _valid(value):
    """``value`` with every string (keys too) made valid Unicode (:func:`valid_unicode`)."""
    if isinstance(value, str):
        return valid_unicode(value)
    if isinstance(value, dict):
        return {_valid(key): _valid(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_valid(item) for item in value]
    return value


def _write(value, depth: int, layout: _Layout, parts: list[str]) -> None:
    if depth >= layout.compact_at or not isinstance(value, (dict, list, tuple)) or not value:
        parts.append(layout.encode(value))
        return
    inner = "\n" + "  " * (depth + 1)
    if isinstance(value, dict):
        parts.append("{")
        for i, (key, item) in enumerate(value.items()):
            parts.append(("," if i else "") + inner + layout.encode(str(key)) + ": ")
            if key in layout.lines_of and isinstance(item, (list, tuple)) and item:
                _write_lines(item, depth + 1, layout, parts)
            else:
                _write(item, depth + 1, layout, parts)
        parts.append("\n" + "  " * depth + "}")
    else:
        parts.append("[")
        for i, item in enumerate(value):
            parts.append(("," if i else "") + inner)
            _write(item, depth + 1, layout, parts)
        parts.append("\n" + "  " * depth + "]")


def _write_lines(items, depth: int, layout: _Layout, parts: list[str]) -> None:
    """A list at ``depth``, each of its items on one line."""
    inner = "\n" + "  " * (depth + 1)
    parts.append("[")
    parts.append(",".join(inner + layout.encode(item) for item in items))
    parts.append("\n" + "  " * depth + "]")
