"""Tree-sitter syntax facts of source files: the public face of :mod:`.syntax`.

``from ..text import symbols`` keeps working; the code lives in the
``syntax`` package, one concept per module.
"""

from __future__ import annotations

from .syntax import definitions as _definitions_module, parsing as _parsing
from .syntax.definitions import Definition, definitions, enclosing, find_definitions, value_of
from .syntax.languages import DEFINITION_QUERIES, available_languages, file_kind, language_for
from .syntax.lexing import Region, Token, drop_trailing_commas, regions, tokens
from .syntax.literals import literal_equals
from .syntax.parsing import ParseStats, reparse, reset_stats, stats
from .syntax.tokendiff import WHOLE_LINES, body_token_diff, lines_same_tokens, same_tokens
from .syntax.tokensearch import token_find, token_find_all

__all__ = [
    "DEFINITION_QUERIES",
    "Definition",
    "ParseStats",
    "Region",
    "Token",
    "available_languages",
    "WHOLE_LINES",
    "drop_trailing_commas",
    "body_token_diff",
    "lines_same_tokens",
    "same_tokens",
    "clear_cache",
    "definitions",
    "enclosing",
    "find_definitions",
    "file_kind",
    "language_for",
    "literal_equals",
    "regions",
    "reparse",
    "reset_stats",
    "stats",
    "token_find",
    "token_find_all",
    "tokens",
    "value_of",
]


def clear_cache() -> None:
    """Forget every parsed tree, and the definitions kept apart from them."""
    _parsing.clear_cache()
    _definitions_module.clear_cache()
