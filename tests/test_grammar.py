"""The citation forms are written once (dialects/core/grammar.py): no other module of the
package compiles a regular expression of a citation form, and every module that uses
regular expressions at all is listed here with what it reads (a new one must say why).

The check reads the package's sources with ``ast``: every call ``re.<function>(pattern, ...)``
whose pattern is written in the source (a string or an f-string's literal parts) is
looked at, wherever it stands (module level, in a function, through a fragment).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from pytest_memreport.dialects.core import grammar

PACKAGE = Path(__file__).resolve().parent.parent / "pytest_memreport"
GRAMMAR = "dialects/core/grammar.py"
_RE_FUNCTIONS = frozenset({"compile", "search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split"})

#: what only a citation form's pattern holds: a source ID, a sha's digits, a URL, a line
#: anchor, a line number's bound, a blob path, an attribution marker, a brace group,
#: ``owner/name``
CITATION_MARKERS = (
    "SRC-", "0-9a-fA-F]{7", "0-9a-fA-F]{40}", "0-9a-fA-F]{64}", "0-9A-Fa-f]{", "[0-9a-f]{7", "[0-9a-f]{64}|",
    "https?:", "#L", "L?\\d", "L(\\d", ":(\\d{1,9})", "[-–]", "(?:blob|tree", "(?:www\\.)?github\\.com", "---|—", "\\{[^{}",
    "[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+",
)

#: modules that may use regular expressions, and what they read with them (none a citation form)
ALLOWED = {
    GRAMMAR: "the citation forms themselves",
    "checks/drift/wordindex.py": "words of target files",
    "checks/observe/coverage.py": "command lines of observations",
    "checks/predicates.py": "claims-file predicates (globs, the user's own patterns)",
    "checks/verify.py": "Git LFS pointer files",
    "dialects/__init__.py": "control characters; dialect detection by line markers",
    "dialects/claims/inline.py": "```memreport fences",
    "dialects/claims/loading.py": "record IDs of claims files",
    "dialects/claims/nodes.py": "YAML anchors",
    "dialects/claims/schema.py": "environment names; the user's own regex predicates",
    "dialects/core/anchors.py": "words, sentences, quotation marks, joiners of a run's units",
    "dialects/core/basis.py": "the evidence-basis heading, history clauses, dates",
    "dialects/core/blocks.py": "plain-text bullets",
    "dialects/core/boundary.py": "subtree, checkout and run identity statements",
    "dialects/core/citations.py": "tokens of a sentence",
    "dialects/core/layout.py": "whitespace between words of a rendered text",
    "dialects/core/linked.py": "review markers, blockquotes, fences, lists",
    "dialects/core/markdown.py": "markdown-it's inline starts",
    "dialects/core/pinforms.py": "pin words, history words, sentence ends, dates",
    "dialects/core/prose.py": "sentence words, symbol names",
    "dialects/core/record_ids.py": "record IDs (records, not citations of the target)",
    "dialects/core/statuses.py": "status vocabulary",
    "dialects/core/ties.py": "the words that tie a quotation to the project",
    "dialects/codeblocks.py": "fences, indents, list items, elisions in numbered blocks",
    "dialects/datatables.py": "keys of manifests written as YAML or JSON",
    "dialects/fileforms.py": "source extensions and file names in plain words",
    "dialects/formbinding.py": "sentence breaks",
    "dialects/forms.py": "blockquotes, headings, digits",
    "dialects/nameforms.py": "code spans, node ids, definitions' kinds, owners' names",
    "dialects/tableforms.py": "table headers and delimiter rows, quoted cells, plain file cells",
    "dialects/notes.py": "fence markers, source words",
    "dialects/records/vocabulary.py": "record field names",
    "dialects/tablefacts.py": "table record IDs and their headers",
    "dialects/tables.py": "column headers",
    "gitstore/grep.py": "git grep output",
    "gitstore/hunks.py": "git diff hunk headers",
    "gitstore/objects.py": "object ids as git prints them",
    "gitstore/paths.py": "refused path names",
    "gitstore/process.py": "git's version",
    "integration/collection.py": "command-line globs and node IDs",
    "integration/plugin.py": "control characters",
    "options.py": "option values (sizes, shards)",
    "outputs/html.py": "words to highlight, site file names",
    "outputs/jsontext.py": "lone surrogates",
    "outputs/repin/claims.py": "glob characters",
    "outputs/stepsummary.py": "Markdown special characters",
    "repomap.py": "owner and name segments of a mapping",
    "resultcache/__init__.py": "commit ids as git resolved them",
    "text/layout.py": "bullets",
    "text/quotes/diff.py": "diff tokens",
    "text/quotes/normalize.py": "rendering damage in quotations",
    "text/quotes/pattern.py": "quotations compiled to patterns",
    "text/quotes/typography.py": "typographic marks",
    "text/quotes/windows.py": "code words",
    "text/quotes/words.py": "words",
    "text/render.py": "unprintable characters",
    "text/syntax/languages.py": "language names",
    "text/syntax/literals.py": "string literals",
    "text/syntax/parsing.py": "tree-sitter node types",
    "text/syntax/strings.py": "escapes",
}


def _pattern_text(node: ast.expr, constants: dict[str, str]) -> str | None:
    """The pattern as written: a string, an f-string's literal parts and the fragments it
    names (module constants), a name of a module constant; ``None`` when it is computed."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue) and isinstance(value.value, ast.Name):
                parts.append(constants.get(value.value.id, ""))
        return "".join(parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _pattern_text(node.left, constants), _pattern_text(node.right, constants)
        return None if left is None and right is None else (left or "") + (right or "")
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    return None


def regex_patterns(source: str) -> list[tuple[int, str | None]]:
    """``(line, pattern as written)`` of every ``re.<function>(...)`` call in ``source``."""
    tree = ast.parse(source)
    constants: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            text = _pattern_text(node.value, constants)
            if text is not None:
                constants[node.targets[0].id] = text
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _RE_FUNCTIONS
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and node.args):
            found.append((node.lineno, _pattern_text(node.args[0], constants)))
    return found


def citation_forms(source: str) -> list[tuple[int, str]]:
    """The patterns of ``source`` that read a citation form (hold a :data:`CITATION_MARKERS`)."""
    return [(line, text) for line, text in regex_patterns(source)
            if text is not None and any(marker in text for marker in CITATION_MARKERS)]


def _modules() -> list[tuple[str, str]]:
    return [(path.relative_to(PACKAGE).as_posix(), path.read_text(encoding="utf-8"))
            for path in sorted(PACKAGE.rglob("*.py"))]


def test_no_citation_form_is_compiled_outside_the_grammar() -> None:
    stray = [f"{name}:{line}: {text}" for name, source in _modules() if name != GRAMMAR
             for line, text in citation_forms(source)]
    assert stray == [], "citation forms belong in " + GRAMMAR + ":\n" + "\n".join(stray)


def test_every_module_using_regular_expressions_says_what_it_reads() -> None:
    using = {name for name, source in _modules() if regex_patterns(source)}
    assert sorted(using - set(ALLOWED)) == [], "add the module to ALLOWED with what its patterns read"
    assert sorted(set(ALLOWED) - using) == [], "a listed module no longer uses regular expressions"


def test_regular_expressions_are_reached_only_as_re() -> None:
    # ``from re import compile`` or ``import re as r`` would hide a pattern from the checks above.
    hidden = []
    for name, source in _modules():
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ImportFrom) and node.module in ("re", "regex"):
                hidden.append(f"{name}:{node.lineno}: from {node.module} import ...")
            elif isinstance(node, ast.Import):
                hidden.extend(f"{name}:{node.lineno}: import {alias.name} as {alias.asname}" for alias in node.names
                              if alias.name in ("re", "regex") and alias.asname not in (None, "re"))
    assert hidden == [], "\n".join(hidden)


@pytest.mark.parametrize("snippet", [
    'import re\n_PIN = re.compile(r"SRC-(\\d{1,6}) commit ([0-9a-fA-F]{7,40})")\n',
    'import re\n_SHA = r"([0-9a-fA-F]{64}|[0-9a-fA-F]{7,40})"\n_X = re.compile(rf"at {_SHA}")\n',
    'import re\ndef f(t):\n    return re.search(r"#L(\\d+)", t)\n',
    'import re\ndef f(t):\n    return re.finditer(r":(\\d{1,9})(?:-(\\d{1,9}))?", t)\n',
    'import re\n_A = re.compile(r"(?:---|—)[ \\t]+(\\S.*)")\n',
    'import re\n_B = re.compile(r"\\{[^{}\\s]+\\}")\n',
])
def test_the_check_finds_a_citation_form_written_anywhere(snippet: str) -> None:
    assert citation_forms(snippet), snippet


def test_the_check_leaves_other_patterns_alone() -> None:
    assert citation_forms('import re\n_W = re.compile(r"[A-Za-z]+")\n_S = re.compile(r"(?i)status:")\n') == []


def test_the_grammar_reads_the_forms_it_names() -> None:
    # A few forms as reports write them, read by the one grammar (the dialect suites read the rest).
    assert grammar.SOURCE_RANGES.fullmatch("SRC-1a:96–101").groups() == ("1", "a", "96–101")
    assert grammar.LINK_ANCHOR.fullmatch("L10C2-L20").groups() == ("10", "20")
    assert grammar.RANGE_AFTER_PATH.match(":10 - 20").group(2, 4) == ("10", "20")
    assert grammar.whole_path("a/b.py").search("see src/a/b.py") is None
    assert grammar.whole_path("a/b.py").search("see a/b.py.") is not None
    assert grammar.HEX_WORD.findall("at 4f1c9e0 not 4f1c9e0x") == ["4f1c9e0"]
    assert re.fullmatch(grammar.SHA_DIGITS, "a" * 64) and not re.fullmatch(grammar.SHA_DIGITS, "a" * 41)
