"""Typography that rendering prose adds or removes, set aside for quotations of running text.

A note quotes prose in prose: Markdown emphasis (``*not yet built*``, ``**only**``,
``_once_``) is shown as style, not characters, on either side, and a typographer turns
straight quotes and apostrophes into curly ones. :func:`plain_typography` removes the
emphasis markers and straightens the quotes, never touching a line break, so a line
found in the plain text is the same line of the original. Nothing else changes: a
dropped word, a dropped parenthesis or a changed digit is still not found.
"""

from __future__ import annotations

import re

from ... import runcaches
from ...lru import SizedLRU

#: ``*``/``_`` runs opening emphasis (not inside a word, before a non-space) or closing it
_EMPHASIS = re.compile(r"(?<![\w*_])[*_]{1,3}(?=[^\s*_])|(?<=[^\s*_])[*_]{1,3}(?![\w*_])")
_STRAIGHT = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'", "‚": "'"})


def plain_typography(text: str) -> str:
    """``text`` without Markdown emphasis markers, its curly quotes made straight."""
    return _EMPHASIS.sub("", text.translate(_STRAIGHT))


def plain_text(text: str, key: object = None) -> str:
    """:func:`plain_typography` of a file's text, kept by ``key`` (a blob id) in a cache
    bounded by size: each prose quotation not found as written is tried again in its
    files set aside this way, and many quote one file."""
    plain = _PLAIN_CACHE.get(key) if key is not None else None
    if plain is None:
        plain = plain_typography(text)
        if key is not None:
            _PLAIN_CACHE.put(key, plain, len(plain))
    return plain


#: plain forms of files' texts for :func:`plain_text`, bounded in characters
_PLAIN_CACHE: SizedLRU[str] = runcaches.PerRun(lambda: SizedLRU(16_000_000, 1 << 12))  # type: ignore[assignment]


def clear_cache() -> None:
    """Forget every text's plain form."""
    _PLAIN_CACHE.clear()
