"""Locating a report's quotation in a file's text: the public face of :mod:`.quotes`.

``from ..text import match`` keeps working; the code lives in the ``quotes``
package, one concept per module (the rules of what rendering damage is
undone are in :mod:`.quotes.normalize`).
"""

from __future__ import annotations

from .quotes.diff import render_diff
from .quotes.index import Span, line_of
from .quotes.locate import as_written, find
from .quotes.nearest import Candidate, nearest
from .quotes.pattern import MAX_GAP_CHARS, MAX_GAP_LINES, QuotePattern, as_pattern, comments_elided, compile_quote
from .quotes.normalize import reduced
from .quotes.prefilter import holds_words, may_occur, may_occur_in
from .quotes.windows import (
    TOKEN_REACH_FACTOR,
    TOKEN_REACH_SLACK,
    code_words,
    in_order_spans,
    may_match_by_tokens,
    token_windows,
    words_in_order,
)
from .quotes.words import is_compound, rarest_words, split_words, words_of

__all__ = [
    "MAX_GAP_CHARS",
    "MAX_GAP_LINES",
    "TOKEN_REACH_FACTOR",
    "TOKEN_REACH_SLACK",
    "Candidate",
    "QuotePattern",
    "Span",
    "as_pattern",
    "as_written",
    "code_words",
    "comments_elided",
    "compile_quote",
    "find",
    "holds_words",
    "in_order_spans",
    "is_compound",
    "line_of",
    "may_match_by_tokens",
    "may_occur",
    "may_occur_in",
    "nearest",
    "rarest_words",
    "reduced",
    "render_diff",
    "split_words",
    "words_of",
    "token_windows",
    "words_in_order",
]
