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

#: ``*``/``_`` runs opening emphasis (not inside a word, before a non-space) or closing it
_EMPHASIS = re.compile(r"(?<![\w*_])[*_]{1,3}(?=[^\s*_])|(?<=[^\s*_])[*_]{1,3}(?![\w*_])")
_STRAIGHT = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'", "‚": "'"})


def plain_typography(text: str) -> str:
    """``text`` without Markdown emphasis markers, its curly quotes made straight."""
    return _EMPHASIS.sub("", text.translate(_STRAIGHT))
