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
    #: what must precede an excerpt for the grammar to read it as code (PHP's open tag)
    fragment_prefix: str = ""


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

_JAVA_DEFINITIONS = """
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(annotation_type_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(class_body (field_declaration declarator: (variable_declarator name: (identifier) @name value: (_) @value)) @definition.const)
"""

# C and C++ name a function through its declarators (``*f(...)``, ``Store::get(...)``).
_C_FUNCTIONS = """
(function_definition declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))) @definition.function
(function_definition declarator: (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name)))) @definition.function
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(type_definition declarator: (type_identifier) @name) @definition.type
(preproc_def name: (identifier) @name value: (_) @value) @definition.const
(preproc_function_def name: (identifier) @name) @definition.function
"""

_C_DEFINITIONS = _C_FUNCTIONS + """
(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name value: (_) @value)) @definition.module-assignment)
"""

_CPP_DEFINITIONS = _C_FUNCTIONS + """
(function_definition declarator: (function_declarator declarator: (field_identifier) @name)) @definition.function
(function_definition declarator: (function_declarator declarator: (qualified_identifier scope: (_) @scope name: (identifier) @name))) @definition.method
(function_definition declarator: (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @scope name: (identifier) @name)))) @definition.method
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @scope name: (identifier) @name)))) @definition.method
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(alias_declaration name: (type_identifier) @name) @definition.type
(namespace_definition name: (_) @name) @definition.namespace
(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name value: (_) @value)) @definition.module-assignment)
"""

_CSHARP_DEFINITIONS = """
(class_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(local_function_statement name: (identifier) @name) @definition.function
(namespace_declaration name: (_) @name) @definition.namespace
"""

_RUBY_DEFINITIONS = """
(method name: (_) @name) @definition.function
(singleton_method name: (_) @name) @definition.method
(class name: (_) @name) @definition.class
(module name: (_) @name) @definition.module
(program (assignment left: (constant) @name right: (_) @value) @definition.const)
(body_statement (assignment left: (constant) @name right: (_) @value) @definition.const)
"""

_BASH_DEFINITIONS = """
(function_definition name: (word) @name) @definition.function
(program (variable_assignment name: (variable_name) @name value: (_) @value) @definition.module-assignment)
(program (declaration_command (variable_assignment name: (variable_name) @name value: (_) @value)) @definition.module-assignment)
"""

_PHP_DEFINITIONS = """
(function_definition name: (name) @name) @definition.function
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(method_declaration name: (name) @name) @definition.method
(const_declaration (const_element (name) @name (_) @value)) @definition.const
"""

# Solidity: a contract or library is a class, its functions are methods; a state
# variable is a constant of its contract (its value, where it binds one, is compared); a
# struct's member is a field of it ("`generation` is defined in `Fighter`"); a constructor,
# `receive` and `fallback` are named by their keyword (`Pool.sol::constructor`).
_SOLIDITY_DEFINITIONS = """
(constructor_definition "constructor" @name) @definition.function
(fallback_receive_definition ["receive" "fallback"] @name) @definition.function
(contract_declaration name: (identifier) @name) @definition.class
(library_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(function_definition name: (identifier) @name) @definition.function
(modifier_definition name: (identifier) @name) @definition.function
(event_definition name: (identifier) @name) @definition.type
(error_declaration name: (identifier) @name) @definition.type
(struct_declaration name: (identifier) @name) @definition.struct
(struct_body (struct_member name: (identifier) @name) @definition.field)
(enum_declaration name: (identifier) @name) @definition.enum
(contract_body (state_variable_declaration name: (identifier) @name value: (_)? @value) @definition.const)
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
    LanguageSpec(
        name="java",
        extensions=(".java",),
        grammar=("tree_sitter_java", "language"),
        lexicon=_Lexicon(
            comments=frozenset({"line_comment", "block_comment"}),
            strings=frozenset({"string_literal", "character_literal"}),
        ),
        definitions=_JAVA_DEFINITIONS,
    ),
    LanguageSpec(
        name="c",
        extensions=(".c",),
        grammar=("tree_sitter_c", "language"),
        lexicon=_Lexicon(
            comments=frozenset({"comment"}),
            strings=frozenset({"string_literal", "char_literal", "system_lib_string", "concatenated_string"}),
        ),
        definitions=_C_DEFINITIONS,
        shape=shapes.c_family,
    ),
    # A ``.h`` header may be C or C++: the C++ grammar reads both.
    LanguageSpec(
        name="cpp",
        extensions=(".cpp", ".cc", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h", ".ipp", ".inl"),
        grammar=("tree_sitter_cpp", "language"),
        lexicon=_Lexicon(
            comments=frozenset({"comment"}),
            strings=frozenset({"string_literal", "char_literal", "raw_string_literal", "system_lib_string",
                               "concatenated_string"}),
        ),
        definitions=_CPP_DEFINITIONS,
        shape=shapes.c_family,
    ),
    LanguageSpec(
        name="csharp",
        extensions=(".cs",),
        grammar=("tree_sitter_c_sharp", "language"),
        lexicon=_Lexicon(
            comments=frozenset({"comment"}),
            strings=frozenset({"string_literal", "verbatim_string_literal", "raw_string_literal",
                               "interpolated_string_expression", "character_literal"}),
        ),
        definitions=_CSHARP_DEFINITIONS,
    ),
    LanguageSpec(
        name="ruby",
        extensions=(".rb", ".rake", ".gemspec", ".ru"),
        grammar=("tree_sitter_ruby", "language"),
        lexicon=_Lexicon(
            comments=frozenset({"comment"}),
            strings=frozenset({"string", "character", "heredoc_body", "string_array", "symbol_array"}),
        ),
        definitions=_RUBY_DEFINITIONS,
        comment_opener=re.compile(r"#"),
    ),
    LanguageSpec(
        name="bash",
        extensions=(".sh", ".bash"),
        grammar=("tree_sitter_bash", "language"),
        lexicon=_Lexicon(
            comments=frozenset({"comment"}),
            strings=frozenset({"string", "raw_string", "ansi_c_string", "heredoc_body"}),
        ),
        definitions=_BASH_DEFINITIONS,
        comment_opener=re.compile(r"(?:^|\s)#"),
    ),
    LanguageSpec(
        name="php",
        extensions=(".php",),
        grammar=("tree_sitter_php", "language_php"),
        lexicon=_Lexicon(
            comments=frozenset({"comment"}),
            strings=frozenset({"string", "encapsed_string", "heredoc", "nowdoc"}),
        ),
        definitions=_PHP_DEFINITIONS,
        comment_opener=re.compile(r"//|/\*|#"),
        fragment_prefix="<?php ",
    ),
    LanguageSpec(
        name="solidity",
        extensions=(".sol",),
        grammar=("tree_sitter_solidity", "language"),
        lexicon=_Lexicon(
            comments=frozenset({"comment"}),
            strings=frozenset({"string", "hex_string_literal", "unicode_string_literal"}),
        ),
        definitions=_SOLIDITY_DEFINITIONS,
    ),
)

_BY_NAME: dict[str, LanguageSpec] = {spec.name: spec for spec in LANGUAGES}
_EXTENSIONS: dict[str, str] = {ext: spec.name for spec in LANGUAGES for ext in spec.extensions}

#: language name → its definition query
DEFINITION_QUERIES: dict[str, str] = {spec.name: spec.definitions for spec in LANGUAGES}


def source_extensions() -> tuple[str, ...]:
    """Every extension a grammar covers (``.sol``, ``.java``, ...), in the table's order."""
    return tuple(_EXTENSIONS)


def spec(name: str) -> LanguageSpec:
    """The table entry of a grammar name from :func:`language_for`."""
    return _BY_NAME[name]


def language_for(path: str) -> str | None:
    """The grammar name for ``path`` by its extension, or ``None``."""
    extension = _extension(path)
    return _EXTENSIONS.get(extension) if extension else None


def file_kind(path: str) -> str:
    """What kind of file ``path`` is: its grammar's name where one knows it (a stub is
    Python), else its extension (``.rst``; ``""`` without one)."""
    extension = _extension(path)
    return _EXTENSIONS.get(extension, extension)


def _extension(path: str) -> str:
    """``path``'s extension, lower case (``""`` for none, or a name starting with its dot)."""
    name = path.rsplit("/", 1)[-1]
    dot = name.rfind(".")
    return name[dot:].lower() if dot > 0 else ""


@lru_cache(maxsize=None)
def _language(name: str) -> Language | None:
    module_name, function = _BY_NAME[name].grammar
    try:
        module = import_module(module_name)
    except ImportError:
        return None
    grammar = getattr(module, function)()
    return Language(_capsule(grammar) if isinstance(grammar, int) else grammar)


def _capsule(address: int):
    """A grammar's language given by its address (Solidity's wheel) as the capsule
    tree-sitter takes: given the address itself, it warns in the user's run that this is
    deprecated. (A prototype of its own, not ``ctypes.pythonapi``'s shared function's.)"""
    import ctypes

    new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
        ("PyCapsule_New", ctypes.pythonapi))
    return new(address, b"tree_sitter.Language", None)


def available_languages() -> list[str]:
    """Names of the languages whose grammar is installed."""
    return [spec.name for spec in LANGUAGES if _language(spec.name) is not None]
