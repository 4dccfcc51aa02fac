"""How a piece of report text reads: as prose (or a title) rather than code,
and whether a backticked code span names a symbol.
"""

from __future__ import annotations

import re

from .extensions import KNOWN_EXTENSIONS


_ELISION_END = ("...", "…", "[...]", "[…]")
_CODE_CHARACTERS = frozenset("=(){}[];<>\"$`\\|&^#@%~/_")
_SENTENCE_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*,?")


def reads_as_prose(text: str) -> bool:
    """Whether a line of report text reads as prose (or a title) rather than code.

    Used to decide how far a quotation split over several paragraphs reaches
    back. Prose is a line that ends like a sentence (``.``, ``!``, ``?``), one
    that introduces something (``The guard reads:``: capitalised, three words
    or more, ending in ``:``), or a bare capitalised title made of plain words
    (``Ordinary invocation, ownership and return``). A line ending with an
    elision (``...``) is code cut short, not a sentence.
    """
    stripped = text.strip()
    if not stripped:
        return False
    if stripped.endswith(_ELISION_END):
        return False
    core = stripped.rstrip(")\"'”’*_`")
    if not core:
        return False
    if core[-1] in ".!?":
        return True
    starts_capital = core[0].isupper()
    has_code = any(ch in _CODE_CHARACTERS for ch in core)
    if core[-1] == ":":
        # ``The guard reads:`` introduces a quote; ``else:`` or ``Resources:`` is code.
        return starts_capital and len(core.split()) >= 3
    words = core.split()
    return (
        starts_capital
        and len(words) >= 2
        and not has_code
        and all(_SENTENCE_WORD.fullmatch(word) for word in words)
    )


#: a code span that reads as a symbol name: ``Store.forget``, ``cache::evict``, ``run_turn()``
_SYMBOL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*")


#: the extensions that make ``name.ext`` a file's name, not a member: documents, data and
#: sources few members are named after (``point.x``, ``record.ts`` for a timestamp,
#: ``self.cmd``, ``self.doc`` and ``self.properties`` stay possible names)
_FILE_NAME_EXTENSIONS = KNOWN_EXTENSIONS & frozenset({
    "md", "markdown", "mdx", "rst", "adoc", "txt", "json", "jsonc", "jsonl", "json5", "yaml", "yml", "toml",
    "xml", "html", "htm", "csv", "tsv", "ipynb", "py", "pyi", "js", "mjs", "cjs", "jsx", "tsx", "mts", "cts",
    "rs", "go", "rb", "java", "kt", "kts", "swift", "php", "cpp", "hpp", "cxx", "sql", "sh", "bash", "zsh",
    "ps1", "gradle", "proto", "graphql", "vue", "svelte", "scss", "css", "less", "tf", "hcl", "nix", "zig",
    "lua", "exs", "erl", "dart", "scala", "clj", "cljs", "gemspec", "cabal", "dockerignore", "gitignore",
})


def symbol_name(code: str) -> str | None:
    """The identifier a backticked code span names, or ``None`` when it is not one.

    A trailing ``()`` is dropped; ``::`` (Rust) becomes ``.`` as the symbols
    layer qualifies names. Single letters are too weak to anchor anything. A file's
    name (`` `tar.md` ``, `` `config.yaml` ``) names no symbol; a call (`` `response.json()` ``)
    does.
    """
    text = code.strip()
    called = text.endswith("()")
    if called:
        text = text[:-2]
    if len(text) < 2 or not _SYMBOL_NAME.fullmatch(text):
        return None
    if not called and "." in text and text.rsplit(".", 1)[1].lower() in _FILE_NAME_EXTENSIONS:
        return None
    return text.replace("::", ".")


#: what a method's body names its own instance or class by: the name after it is a member's
_OWN = ("self.", "this.", "cls.")


def member_of_its_own(name: str | None) -> tuple[str | None, bool]:
    """``name`` without the instance a method's body writes it on (``self.make_config``:
    ``make_config``), and whether it had one. Such a member may be an attribute, which no
    definition names (``self.config_class``, a class's field): it is proposed, never said to
    be defined, so a file that assigns it is no failure."""
    if name is not None and name.startswith(_OWN):
        member = name.split(".", 1)[1]
        return (member if len(member) > 1 else None), True
    return name, False
