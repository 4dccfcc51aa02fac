"""The languages the syntax package reads, one :class:`LanguageSpec` each.

Adding a language is one entry in :data:`LANGUAGES` (after adding its
grammar wheel to ``pyproject.toml``): the file extensions it covers, the
grammar module, which node types are comments and strings (its
:class:`Lexicon`), a tree-sitter query for its definitions, and what opens a
comment in a quotation. Only when a definition query cannot say a shape by
itself (which declarator is top-level, a method's receiver) does the entry
also name a shape from :mod:`.shapes`; the default takes each match as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import import_module
from typing import Callable

from tree_sitter import Language

from . import shapes
from .strings import _js_string_key, _python_string_key


@dataclass(frozen=True)
class _Lexicon:
    """What a language's tokens look like in its syntax tree."""

    #: named node types that are comments
    comments: frozenset[str]
    #: named node types kept whole as one string token
    strings: frozenset[str]
    #: other named node types kept whole as one code token (a regex literal)
    atoms: frozenset[str] = frozenset()
    #: leaves that are layout, not code
    layout: frozenset[str] = frozenset()
    #: how a string literal's text is normalized into its token text
    string_key: Callable[[str], str] = lambda raw: raw


#: what opens a comment in C-family languages (``#`` is code in Rust and JavaScript)
_C_COMMENT_OPENER = re.compile(r"//|/\*")


@dataclass(frozen=True)
class LanguageSpec:
    """Everything the syntax package knows about one language."""

    #: the grammar name, as :func:`language_for` returns it
    name: str
    #: file extensions (lower case, with the dot) the grammar covers
    extensions: tuple[str, ...]
    #: the grammar module and its function returning the language pointer
    grammar: tuple[str, str]
    lexicon: _Lexicon
    #: the definition query (see "Definition queries" below)
    definitions: str
    #: turns a definition query match into definitions (:mod:`.shapes`)
    shape: shapes.Shape = shapes.plain
    #: what opens a comment in a quotation, for the token prefilter
    #: (:mod:`..quotes.windows`): words after it are not code
    comment_opener: re.Pattern[str] = _C_COMMENT_OPENER


# --------------------------------------------------------------------------
# Definition queries. Each pattern captures the definition as
# ``@definition.<kind>``, its name as ``@name`` and, for assignments and
# constants, the assigned expression as ``@value``. Shapes a query cannot say
# (which declarator is top-level, a Go receiver's type) are settled by the
# language's shape (:mod:`.shapes`).

_PYTHON_DEFINITIONS = """
(function_definition name: (identifier) @name) @definition.function
(class_definition name: (identifier) @name) @definition.class
(module
  (expression_statement
    (assignment left: (identifier) @name right: (_) @value)) @definition.module-assignment)
"""

_JS_DEFINITIONS = """
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (_) @name) @definition.class
(method_definition name: (_) @name) @definition.method
(variable_declarator name: (identifier) @name value: (_) @value) @definition.variable
"""

_TS_DEFINITIONS = (
    _JS_DEFINITIONS
    + """
(abstract_class_declaration name: (_) @name) @definition.class
(interface_declaration name: (_) @name) @definition.interface
(type_alias_declaration name: (_) @name) @definition.type
(enum_declaration name: (_) @name) @definition.enum
(method_signature name: (_) @name) @definition.method
(abstract_method_signature name: (_) @name) @definition.method
(function_signature name: (_) @name) @definition.function
"""
)

_RUST_DEFINITIONS = """
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(trait_item name: (type_identifier) @name) @definition.trait
(impl_item type: (_) @name) @definition.impl
(type_item name: (type_identifier) @name) @definition.type
(source_file (const_item name: (identifier) @name value: (_) @value) @definition.const)
(source_file (static_item name: (identifier) @name value: (_) @value) @definition.const)
(declaration_list (const_item name: (identifier) @name value: (_) @value) @definition.const)
"""

_GO_DEFINITIONS = """
(function_declaration name: (identifier) @name) @definition.function
(method_declaration receiver: (parameter_list) @receiver name: (field_identifier) @name) @definition.method
(method_elem name: (field_identifier) @name) @definition.method
(type_declaration (type_spec name: (type_identifier) @name type: (_) @type) @definition.type)
(type_declaration (type_alias name: (type_identifier) @name) @definition.type)
(source_file (const_declaration (const_spec) @definition.const))
(source_file (var_declaration (var_spec) @definition.module-assignment))
(source_file (var_declaration (var_spec_list (var_spec) @definition.module-assignment)))
"""

# --------------------------------------------------------------------------
# The table

_JS_LEXICON = _Lexicon(
    comments=frozenset({"comment", "html_comment"}),
    strings=frozenset({"string", "template_string"}),
    atoms=frozenset({"regex"}),
    string_key=_js_string_key,
)

LANGUAGES: tuple[LanguageSpec, ...] = (
    LanguageSpec(
        name="python",
        extensions=(".py", ".pyi"),
        grammar=("tree_sitter_python", "language"),
        lexicon=_Lexicon(
            comments=frozenset({"comment"}),
            strings=frozenset({"string"}),
            layout=frozenset({"line_continuation"}),
            string_key=_python_string_key,
        ),
        definitions=_PYTHON_DEFINITIONS,
        shape=shapes.python,
        comment_opener=re.compile(r"#"),
    ),
    LanguageSpec(
        name="javascript",
        extensions=(".js", ".mjs", ".cjs", ".jsx"),
        grammar=("tree_sitter_javascript", "language"),
        lexicon=_JS_LEXICON,
        definitions=_JS_DEFINITIONS,
        shape=shapes.javascript,
    ),
    LanguageSpec(
        name="typescript",
        extensions=(".ts", ".mts", ".cts"),
        grammar=("tree_sitter_typescript", "language_typescript"),
        lexicon=_JS_LEXICON,
        definitions=_TS_DEFINITIONS,
        shape=shapes.javascript,
    ),
    LanguageSpec(
        name="tsx",
        extensions=(".tsx",),
        grammar=("tree_sitter_typescript", "language_tsx"),
        lexicon=_JS_LEXICON,
        definitions=_TS_DEFINITIONS,
        shape=shapes.javascript,
    ),
    # Rust and Go: ' delimits a character, so quote style is significant.
    LanguageSpec(
        name="rust",
        extensions=(".rs",),
        grammar=("tree_sitter_rust", "language"),
        lexicon=_Lexicon(
            comments=frozenset({"line_comment", "block_comment"}),
            strings=frozenset({"string_literal", "raw_string_literal", "char_literal"}),
        ),
        definitions=_RUST_DEFINITIONS,
        shape=shapes.rust,
    ),
    LanguageSpec(
        name="go",
        extensions=(".go",),
        grammar=("tree_sitter_go", "language"),
        lexicon=_Lexicon(
            comments=frozenset({"comment"}),
            strings=frozenset({"interpreted_string_literal", "raw_string_literal", "rune_literal"}),
        ),
        definitions=_GO_DEFINITIONS,
        shape=shapes.go,
    ),
)

_BY_NAME: dict[str, LanguageSpec] = {spec.name: spec for spec in LANGUAGES}
_EXTENSIONS: dict[str, str] = {ext: spec.name for spec in LANGUAGES for ext in spec.extensions}

#: language name → its definition query
DEFINITION_QUERIES: dict[str, str] = {spec.name: spec.definitions for spec in LANGUAGES}


def spec(name: str) -> LanguageSpec:
    """The table entry of a grammar name from :func:`language_for`."""
    return _BY_NAME[name]


def language_for(path: str) -> str | None:
    """The grammar name for ``path`` by its extension, or ``None``."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    if dot <= 0:
        return None
    return _EXTENSIONS.get(name[dot:].lower())


@lru_cache(maxsize=None)
def _language(name: str) -> Language | None:
    module_name, function = _BY_NAME[name].grammar
    try:
        module = import_module(module_name)
    except ImportError:
        return None
    return Language(getattr(module, function)())


def available_languages() -> list[str]:
    """Names of the languages whose grammar is installed."""
    return [spec.name for spec in LANGUAGES if _language(spec.name) is not None]
