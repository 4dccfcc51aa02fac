"""symbols (text/syntax/): definitions, enclosing definitions, tokens, regions, literals.

Every test parses real source snippets with the installed grammars.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_memreport.text import symbols
from pytest_memreport.text.syntax import parsing
from pytest_memreport.model import LineRange
from pytest_memreport.text.symbols import (
    Definition,
    available_languages,
    body_token_diff,
    definitions,
    enclosing,
    find_definitions,
    language_for,
    literal_equals,
    regions,
    token_find,
    tokens,
    value_of,
)

PYTHON = '''\
"""Cache helpers."""
import functools

MAX_ENTRIES = 200
TIMEOUT: float = 1.5


@functools.lru_cache(maxsize=None)
def load(path):
    return open(path).read()


class LruStore:
    """A bounded store."""

    limit = MAX_ENTRIES

    def get(self, key, default=None):
        # "return None" would hide a miss
        value = self._items.get(key, default)
        return value

    def evict(self):
        def oldest(items):
            return min(items, key=lambda item: item.stamp)
        victim = oldest(self._items.values())
        log.info('evicted %s', victim.key)
        del self._items[victim.key]
'''

TYPESCRIPT = """\
import { Entry } from "./entry";

export const LIMIT = 8_000;
const RETRIES = 0x10 as const;
let counter = 0;

export interface Store<T> {
  get(key: string): T | undefined;
}

export type Key = string | number;

export enum Mode { Read, Write }

export class MemoryStore<T> implements Store<T> {
  private items = new Map<string, T>();

  get(key: string): T | undefined {
    return this.items.get(key);
  }
}

export function makeStore<T>(): Store<T> {
  return new MemoryStore<T>();
}

export const byKey = (a: Entry, b: Entry): number => a.key.localeCompare(b.key);
"""

TSX = """\
import React from "react";

type Props = { label: string };

export function Badge({ label }: Props) {
  return <span className="badge">{label}</span>;
}

export const Panel = ({ label }: Props) => (
  <div>
    <Badge label={label} />
  </div>
);
"""

JAVASCRIPT = """\
'use strict';

const DEFAULT_PORT = 8080;
var legacy = require('./legacy');

function* ids() {
  let n = 0;
  while (true) yield n++;
}

class Server {
  constructor(port = DEFAULT_PORT) {
    this.port = port;
  }

  listen() {
    return legacy.bind(this.port, "0.0.0.0");
  }
}

module.exports = { Server, ids };
"""

RUST = """\
use std::collections::HashMap;

pub const MAX: usize = 200_usize;
static GREETING: &str = "hi";

/// A bounded cache.
#[derive(Debug, Default)]
pub struct Cache {
    items: HashMap<String, u32>,
}

pub enum Outcome { Hit, Miss }

pub trait Lookup {
    fn lookup(&self, key: &str) -> Option<u32>;
}

impl Cache {
    pub const LIMIT: u32 = 0x10;

    pub fn new() -> Self {
        Cache { items: HashMap::new() }
    }
}

impl Lookup for Cache {
    fn lookup(&self, key: &str) -> Option<u32> {
        self.items.get(key).copied()
    }
}

fn helper() -> char { 'x' }
"""

GO = """\
package cache

import "sync"

const MaxEntries = 1_000

const (
\tHits, Misses = 0, 1
)

var mu sync.Mutex

type Store struct {
\titems map[string]int
}

type Getter interface {
\tGet(key string) (int, bool)
}

func New() *Store {
\treturn &Store{items: map[string]int{}}
}

func (s *Store) Get(key string) (int, bool) {
\tmu.Lock()
\tdefer mu.Unlock()
\tv, ok := s.items[key]
\treturn v, ok
}
"""

SAMPLES = {
    "store.py": PYTHON,
    "store.ts": TYPESCRIPT,
    "panel.tsx": TSX,
    "server.js": JAVASCRIPT,
    "cache.rs": RUST,
    "cache.go": GO,
}

EXPECTED = {
    "store.py": [
        ("module-assignment", "MAX_ENTRIES", 4, 4),
        ("module-assignment", "TIMEOUT", 5, 5),
        ("function", "load", 8, 10),
        ("class", "LruStore", 13, 28),
        ("method", "LruStore.get", 18, 21),
        ("method", "LruStore.evict", 23, 28),
        ("function", "LruStore.evict.oldest", 24, 25),
    ],
    "store.ts": [
        ("const", "LIMIT", 3, 3),
        ("const", "RETRIES", 4, 4),
        ("module-assignment", "counter", 5, 5),
        ("interface", "Store", 7, 9),
        ("method", "Store.get", 8, 8),
        ("type", "Key", 11, 11),
        ("enum", "Mode", 13, 13),
        ("class", "MemoryStore", 15, 21),
        ("method", "MemoryStore.get", 18, 20),
        ("function", "makeStore", 23, 25),
        ("function", "byKey", 27, 27),
    ],
    "panel.tsx": [
        ("type", "Props", 3, 3),
        ("function", "Badge", 5, 7),
        ("function", "Panel", 9, 13),
    ],
    "server.js": [
        ("const", "DEFAULT_PORT", 3, 3),
        ("module-assignment", "legacy", 4, 4),
        ("function", "ids", 6, 9),
        ("class", "Server", 11, 19),
        ("method", "Server.constructor", 12, 14),
        ("method", "Server.listen", 16, 18),
    ],
    "cache.rs": [
        ("const", "MAX", 3, 3),
        ("const", "GREETING", 4, 4),
        ("struct", "Cache", 7, 10),
        ("enum", "Outcome", 12, 12),
        ("trait", "Lookup", 14, 16),
        ("method", "Lookup.lookup", 15, 15),
        ("impl", "Cache", 18, 24),
        ("const", "Cache.LIMIT", 19, 19),
        ("method", "Cache.new", 21, 23),
        ("impl", "Cache", 26, 30),
        ("method", "Cache.lookup", 27, 29),
        ("function", "helper", 32, 32),
    ],
    "cache.go": [
        ("const", "MaxEntries", 5, 5),
        ("const", "Hits", 8, 8),
        ("const", "Misses", 8, 8),
        ("module-assignment", "mu", 11, 11),
        ("struct", "Store", 13, 15),
        ("interface", "Getter", 17, 19),
        ("method", "Getter.Get", 18, 18),
        ("function", "New", 21, 23),
        ("method", "Store.Get", 25, 30),
    ],
}


def _summary(found: list[Definition]) -> list[tuple[str, str, int, int]]:
    return [(d.kind, d.name, d.lines.start, d.lines.end) for d in found]


def _slice(text: str, definition: Definition) -> str:
    return text[definition.start : definition.end]


# --------------------------------------------------------------------------
# languages


def test_language_for_maps_extensions():
    assert [language_for(p) for p in ("a.py", "b.pyi", "c/d.mjs", "e.cjs", "f.jsx", "g.js")] == [
        "python",
        "python",
        "javascript",
        "javascript",
        "javascript",
        "javascript",
    ]
    assert [language_for(p) for p in ("x.ts", "x.d.ts", "x.mts", "x.cts", "x.tsx", "lib.rs", "main.go")] == [
        "typescript",
        "typescript",
        "typescript",
        "typescript",
        "tsx",
        "rust",
        "go",
    ]
    assert language_for("README.md") is None
    assert language_for("Makefile") is None
    assert language_for(".py") is None  # a dotfile, not a Python file
    assert language_for("contracts/Pool.sol") == "solidity"
    assert [language_for(p) for p in ("A.java", "a.c", "b.cpp", "c.hpp", "d.h", "E.cs", "f.rb", "g.sh", "h.php")] == [
        "java", "c", "cpp", "cpp", "cpp", "csharp", "ruby", "bash", "php",
    ]
    assert set(available_languages()) == {"python", "javascript", "typescript", "tsx", "rust", "go",
                                          "java", "c", "cpp", "csharp", "ruby", "bash", "php", "solidity"}


def test_unknown_language_returns_none_everywhere():
    text = "MAX = 1\n# note\n"
    assert definitions(text, "notes.md") is None
    assert enclosing(text, "notes.md", LineRange(1, 1)) is None
    assert find_definitions(text, "notes.md", "MAX") is None
    assert tokens(text, "notes.md") is None
    assert regions(text, "notes.md") is None
    assert token_find("MAX = 1", text, "notes.md") is None
    assert value_of(text, "notes.md", "MAX") is None


# --------------------------------------------------------------------------
# definitions


@pytest.mark.parametrize("path", list(SAMPLES))
def test_definitions_kinds_names_and_lines(path):
    found = definitions(SAMPLES[path], path)
    assert _summary(found) == EXPECTED[path]


@pytest.mark.parametrize("path", list(SAMPLES))
def test_definition_offsets_agree_with_lines(path):
    text = SAMPLES[path]
    for definition in definitions(text, path):
        assert text.count("\n", 0, definition.start) + 1 == definition.lines.start, definition
        assert text.count("\n", 0, definition.end - 1) + 1 == definition.lines.end, definition
        assert not _slice(text, definition)[:1].isspace()
        assert not _slice(text, definition)[-1:].isspace()


def test_definition_spans_include_decorators_attributes_and_export():
    load = find_definitions(PYTHON, "store.py", "load")[0]
    assert _slice(PYTHON, load) == (
        "@functools.lru_cache(maxsize=None)\ndef load(path):\n    return open(path).read()"
    )

    cache = find_definitions(RUST, "cache.rs", "Cache", kind="struct")[0]
    assert _slice(RUST, cache).startswith("#[derive(Debug, Default)]\npub struct Cache {")
    assert _slice(RUST, cache).endswith("u32>,\n}")

    limit = find_definitions(TYPESCRIPT, "store.ts", "LIMIT")[0]
    assert _slice(TYPESCRIPT, limit) == "export const LIMIT = 8_000;"

    hits = find_definitions(GO, "cache.go", "Hits")[0]
    assert _slice(GO, hits) == "Hits, Misses = 0, 1"  # one spec of a group, not the group
    max_entries = find_definitions(GO, "cache.go", "MaxEntries")[0]
    assert _slice(GO, max_entries) == "const MaxEntries = 1_000"
    store = find_definitions(GO, "cache.go", "Store", kind="struct")[0]
    assert _slice(GO, store) == "type Store struct {\n\titems map[string]int\n}"


def test_find_definitions_bare_qualified_and_by_kind():
    both = find_definitions(TYPESCRIPT, "store.ts", "get")
    assert [d.name for d in both] == ["Store.get", "MemoryStore.get"]
    qualified = find_definitions(TYPESCRIPT, "store.ts", "MemoryStore.get")
    assert [d.name for d in qualified] == ["MemoryStore.get"]
    assert [d.lines.start for d in find_definitions(RUST, "cache.rs", "Cache", kind="impl")] == [18, 26]
    assert [d.name for d in find_definitions(PYTHON, "store.py", "evict.oldest")] == ["LruStore.evict.oldest"]
    assert find_definitions(PYTHON, "store.py", "missing") == []
    assert find_definitions(PYTHON, "store.py", "get", kind="function") == []


def test_definitions_of_broken_source_still_found():
    text = "def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass After:\n    pass\n"
    names = [d.name for d in definitions(text, "broken.py")]
    assert "ok" in names and "After" in names


# --------------------------------------------------------------------------
# enclosing


def test_enclosing_inside_a_method():
    found = enclosing(PYTHON, "store.py", LineRange(20, 21))
    assert (found.kind, found.name, found.lines) == ("method", "LruStore.get", LineRange(18, 21))


def test_enclosing_inside_a_nested_function():
    found = enclosing(PYTHON, "store.py", LineRange(25, 25))
    assert (found.kind, found.name) == ("function", "LruStore.evict.oldest")
    # lines reaching out of the nested function belong to the method
    assert enclosing(PYTHON, "store.py", LineRange(25, 26)).name == "LruStore.evict"


def test_enclosing_across_two_methods_is_the_class():
    assert enclosing(PYTHON, "store.py", LineRange(21, 23)).name == "LruStore"


def test_enclosing_a_module_level_assignment_and_module_level_code():
    found = enclosing(PYTHON, "store.py", LineRange(4, 4))
    assert (found.kind, found.name) == ("module-assignment", "MAX_ENTRIES")
    assert enclosing(PYTHON, "store.py", LineRange(2, 2)) is None  # an import
    assert enclosing(PYTHON, "store.py", LineRange(1, 28)) is None


@pytest.mark.parametrize(
    "path, lines, kind, name",
    [
        ("store.ts", LineRange(19, 19), "method", "MemoryStore.get"),
        ("store.ts", LineRange(3, 3), "const", "LIMIT"),
        ("store.ts", LineRange(27, 27), "function", "byKey"),
        ("panel.tsx", LineRange(11, 11), "function", "Panel"),
        ("server.js", LineRange(17, 17), "method", "Server.listen"),
        ("cache.rs", LineRange(22, 22), "method", "Cache.new"),
        ("cache.rs", LineRange(19, 19), "const", "Cache.LIMIT"),
        ("cache.rs", LineRange(7, 7), "struct", "Cache"),  # the attribute line
        ("cache.rs", LineRange(3, 3), "const", "MAX"),
        ("cache.go", LineRange(28, 29), "method", "Store.Get"),
        ("cache.go", LineRange(5, 5), "const", "MaxEntries"),
        ("cache.go", LineRange(11, 11), "module-assignment", "mu"),
    ],
)
def test_enclosing_in_every_language(path, lines, kind, name):
    found = enclosing(SAMPLES[path], path, lines)
    assert (found.kind, found.name) == (kind, name)


@settings(max_examples=300, deadline=None)
@given(path=st.sampled_from(sorted(SAMPLES)), start=st.integers(1, 45), size=st.integers(0, 12))
def test_enclosing_looks_only_near_the_lines_yet_answers_as_the_whole_file(path, start, size):
    """``enclosing`` queries only the top-level statements the lines touch (Rust's
    attributes above them included) and makes only the definitions containing the lines:
    the answer is the innermost definition of all, named as the whole file names it."""
    text = SAMPLES[path]
    lines = LineRange(start, start + size)
    parsing.clear_cache()  # nothing found for the whole file yet: the narrow lookup runs
    narrow = enclosing(text, path, lines)
    whole = [d for d in symbols.definitions(text, path) if d.lines.contains(lines)]
    innermost = min(whole, key=lambda d: d.end - d.start, default=None)
    assert narrow == innermost or (narrow is not None and innermost is not None
                                   and narrow.end - narrow.start == innermost.end - innermost.start
                                   and narrow in whole)


# --------------------------------------------------------------------------
# tokens and body diffs


def test_tokens_drop_comments_and_keep_strings_whole():
    text = "x = call('a b', \"c\")  # trailing remark\n"
    assert [t.text for t in tokens(text, "t.py")] == ["x", "=", "call", "(", '"a b"', ",", '"c"', ")"]
    kinds = {t.text: t.kind for t in tokens(text, "t.py")}
    assert kinds['"a b"'] == "string" and kinds["call"] == "code"


def test_python_string_normalization_respects_prefixes_and_escapes():
    def texts(src):
        return [t.text for t in tokens(src, "s.py")]

    assert texts("'it\\'s'") == texts('"it\'s"')
    assert texts("'''doc'''") == texts('"doc"')
    assert texts("r'a'") == texts('R"a"')
    assert texts("rb'a'") == texts('BR"a"')
    assert texts("b'a'") != texts("'a'")
    assert texts("f'{x}'") != texts("'{x}'")


def test_rust_and_go_quote_styles_stay_distinct():
    def texts(src, path):
        return [t.text for t in tokens(src, path)]

    assert texts("let c = 'x';", "a.rs") != texts('let c = "x";', "a.rs")
    assert texts("var c = 'x'", "a.go") != texts('var c = "x"', "a.go")


def test_tokens_within_a_span():
    get = find_definitions(PYTHON, "store.py", "LruStore.get")[0]
    inside = tokens(PYTHON, "store.py", span=(get.start, get.end))
    assert [t.text for t in inside[:3]] == ["def", "get", "("]
    assert inside[-1].text == "value" and inside[-1].line == 21
    assert all(get.start <= t.start and t.end <= get.end for t in inside)


def _windows_lexed(monkeypatch) -> list:
    """The windows the lexer walks from now on (``None``: a whole file), in order."""
    from pytest_memreport.text.syntax import lexing

    windows = []
    real = lexing._lex

    def counting(tree, text, char, language, window=None):
        windows.append(window)
        return real(tree, text, char, language, window)

    monkeypatch.setattr(lexing, "_lex", counting)
    return windows


def test_windows_are_lexed_until_they_add_up_to_the_file_then_the_file_once(monkeypatch):
    """Blame and drift ask many windows of one version of a file: each is lexed on its own
    until they add up to the file's length, then the whole file once, and the rest are
    slices of it. Either way a window reads the same tokens as the whole file's."""

    text = "".join(f"def f{i}(a):\n    return a + {i}\n\n\n" for i in range(60))
    spans = [(d.start, d.end) for d in symbols.definitions(text, "w.py", key="windows")]
    windows = _windows_lexed(monkeypatch)
    # pieces of evidence in each definition, then in each pair of definitions
    asked = spans + [(one[0], two[1]) for one, two in zip(spans, spans[1:])]
    read = [[(t.text, t.start) for t in tokens(text, "w.py", key="windows", span=span)] for span in asked]
    whole = tokens(text, "w.py", key="whole")
    assert read == [[(t.text, t.start) for t in whole if a <= t.start and t.end <= b] for a, b in asked]
    lexed_windows = windows[: windows.index(None)]
    assert 0 < len(lexed_windows) < len(asked)  # the switch came before the last window
    assert sum(b - a for a, b in lexed_windows) < len(text)  # never more than the file, window by window
    assert windows[len(lexed_windows):] == [None, None]  # the file once, then "whole" once
    one = [(d.start, d.end) for d in symbols.definitions(text, "w.py", key="one window")][0]
    windows.clear()
    tokens(text, "w.py", key="one window", span=one)
    assert windows == [(one[0], one[1])]  # one window of a file: never the whole file


def _redefine(text, path, name):
    return find_definitions(text, path, name)[0]


def test_body_token_diff_ignores_comments_layout_and_quote_style():
    reflowed = PYTHON.replace(
        "        # \"return None\" would hide a miss\n        value = self._items.get(key, default)",
        "        # misses are not errors\n"
        "        value = self._items.get(\n            key,   default\n        )",
    ).replace("log.info('evicted %s', victim.key)", 'log.info("evicted %s", victim.key)  # was single')
    assert reflowed != PYTHON
    for name in ("LruStore.get", "LruStore.evict"):
        old, new = _redefine(PYTHON, "store.py", name), _redefine(reflowed, "store.py", name)
        assert body_token_diff(PYTHON, reflowed, "store.py", old, new) is None


def test_body_token_diff_reports_a_changed_token():
    changed = PYTHON.replace("self._items.get(key, default)", "self._items.get(key, None)")
    old, new = _redefine(PYTHON, "store.py", "LruStore.get"), _redefine(changed, "store.py", "LruStore.get")
    diff = body_token_diff(PYTHON, changed, "store.py", old, new)
    assert diff is not None
    assert "[-default-]" in diff and "{+None+}" in diff
    assert diff.startswith("L20→L20:")


def test_body_token_diff_in_rust_and_typescript():
    rust_changed = RUST.replace(".copied()", ".cloned()")
    old = _redefine(RUST, "cache.rs", "Cache.lookup")
    new = _redefine(rust_changed, "cache.rs", "Cache.lookup")
    assert "[-copied-] {+cloned+}" in body_token_diff(RUST, rust_changed, "cache.rs", old, new)

    ts_reformatted = TYPESCRIPT.replace(
        "    return this.items.get(key);", "    // delegate\n    return this.items.get(\n      key,\n    );"
    )
    old = _redefine(TYPESCRIPT, "store.ts", "MemoryStore.get")
    new = _redefine(ts_reformatted, "store.ts", "MemoryStore.get")
    # a trailing comma is a token: it is a change, if a harmless one
    assert "{+,+}" in body_token_diff(TYPESCRIPT, ts_reformatted, "store.ts", old, new)
    ts_commented = TYPESCRIPT.replace(
        "    return this.items.get(key);", "    /* delegate */ return  this.items.get(key)\n;"
    )
    new = _redefine(ts_commented, "store.ts", "MemoryStore.get")
    assert body_token_diff(TYPESCRIPT, ts_commented, "store.ts", old, new) is None


def test_body_token_diff_caps_its_length():
    old_text = "def f():\n" + "".join(f"    a{i} = {i}\n" for i in range(40))
    new_text = "def f():\n" + "".join(f"    a{i} = {i + 1}\n" for i in range(40))
    old, new = definitions(old_text, "f.py")[0], definitions(new_text, "f.py")[0]
    diff = body_token_diff(old_text, new_text, "f.py", old, new)
    assert diff.count("\n") <= 5
    assert diff.splitlines()[-1].startswith("… and 36 more")


# --------------------------------------------------------------------------
# token_find


def test_token_find_after_wrapping_arguments_and_adding_a_trailing_comma():
    reformatted = PYTHON.replace(
        "        value = self._items.get(key, default)\n",
        "        value = self._items.get(\n            key,\n            default,\n        )\n",
    )
    found = token_find("value = self._items.get(key, default)", reformatted, "store.py")
    assert found == LineRange(20, 23)


def test_token_find_with_quote_style_changed_and_comment_in_quote():
    quote = '# log it\nlog.info("evicted %s", victim.key)'
    assert token_find(quote, PYTHON, "store.py") == LineRange(27, 27)


def test_token_find_indented_multiline_quote():
    quote = "        value = self._items.get(key, default)\n        return value"
    assert token_find(quote, PYTHON, "store.py") == LineRange(20, 21)


def test_token_find_quote_with_trailing_comma_file_without():
    quote = "self._items.get(\n    key,\n    default,\n)"
    assert token_find(quote, PYTHON, "store.py") == LineRange(20, 20)


def test_token_find_rejects_a_changed_identifier():
    assert token_find("value = self._items.get(key, fallback)", PYTHON, "store.py") is None
    assert token_find("return legacy.bind(this.host, '0.0.0.0');", JAVASCRIPT, "server.js") is None


def test_token_find_in_other_languages():
    single_quoted = "return legacy.bind(this.port, '0.0.0.0');"
    assert token_find(single_quoted, JAVASCRIPT, "server.js") == LineRange(17, 17)
    assert token_find("return new MemoryStore<T>()", TYPESCRIPT, "store.ts") == LineRange(24, 24)
    assert token_find('<span className=\'badge\'>{label}</span>', TSX, "panel.tsx") == LineRange(6, 6)
    assert token_find("Cache {\n  items: HashMap::new(),\n}", RUST, "cache.rs") == LineRange(22, 22)
    assert token_find("fn helper() -> char { \"x\" }", RUST, "cache.rs") is None  # a char is not a string
    assert token_find("v, ok := s.items[key]; return v, ok", GO, "cache.go") is None  # ';' is a token
    assert token_find("v, ok := s.items[key]\n\n  return v, ok", GO, "cache.go") == LineRange(28, 29)


@pytest.mark.parametrize("path", list(SAMPLES))
def test_token_find_finds_every_definition_as_written(path):
    text = SAMPLES[path]
    for definition in definitions(text, path):
        assert token_find(_slice(text, definition), text, path) == definition.lines, definition


def test_token_find_handles_long_quotes_and_absent_tokens():
    text = "def f():\n" + "".join(f"    v{i} = g(v{i - 1})\n" for i in range(1, 400)) + "    return v399\n"
    quote = "".join(f"v{i} = g(v{i - 1})\n" for i in range(100, 300))
    assert token_find(quote, text, "long.py") == LineRange(101, 300)
    assert token_find("never_defined_anywhere()", text, "long.py") is None
    assert token_find("   \n# only a comment\n", text, "long.py") is None


# --------------------------------------------------------------------------
# regions


def test_regions_classify_a_comment_that_contains_code():
    found = regions(PYTHON, "store.py")
    comment = next(r for r in found if r.kind == "comment")
    assert PYTHON[comment.start : comment.end] == '# "return None" would hide a miss'
    # the quoted words inside the comment are not a string of their own
    assert not any(r.kind == "string" and comment.start <= r.start < comment.end for r in found)
    strings = [PYTHON[r.start : r.end] for r in found if r.kind == "string"]
    assert strings[:2] == ['"""Cache helpers."""', '"""A bounded store."""']
    assert "'evicted %s'" in strings


@pytest.mark.parametrize(
    "path, text, comment, string",
    [
        ("a.js", 'const url = "http://x/#frag"; // x = "y";\n', '// x = "y";', '"http://x/#frag"'),
        ("a.ts", "/* if (a) { b(); } */ const s = `// no`;\n", "/* if (a) { b(); } */", "`// no`"),
        ("a.rs", 'let s = "/* no */"; /* let x = 1; */\n', "/* let x = 1; */", '"/* no */"'),
        ("a.go", 'var s = `// raw` // s := "x"\n', '// s := "x"', "`// raw`"),
        ("a.py", "s = '# not a comment'  # s = 'x'\n", "# s = 'x'", "'# not a comment'"),
    ],
)
def test_regions_in_every_language(path, text, comment, string):
    found = regions(text, path)
    assert [text[r.start : r.end] for r in found if r.kind == "comment"] == [comment]
    assert [text[r.start : r.end] for r in found if r.kind == "string"] == [string]


# --------------------------------------------------------------------------
# values and literals


@pytest.mark.parametrize(
    "path, symbol, literal, expected",
    [
        ("store.py", "MAX_ENTRIES", "200", 200),
        ("store.py", "TIMEOUT", "1.5", 1.5),
        ("store.ts", "LIMIT", "8_000", 8000),
        ("store.ts", "RETRIES", "0x10", 16),  # `as const` is not part of the value
        ("server.js", "DEFAULT_PORT", "8080", 8080),
        ("cache.rs", "MAX", "200_usize", 200),
        ("cache.rs", "Cache.LIMIT", "0x10", 16),
        ("cache.rs", "GREETING", '"hi"', "hi"),
        ("cache.go", "MaxEntries", "1_000", 1000),
        ("cache.go", "Misses", "1", 1),
    ],
)
def test_value_of_and_literal_equals(path, symbol, literal, expected):
    value = value_of(SAMPLES[path], path, symbol)
    assert value == literal
    assert literal_equals(value, expected)
    assert not literal_equals(value, expected + 1 if not isinstance(expected, str) else expected + "!")


def test_value_of_unknown_symbols_and_non_values():
    assert value_of(PYTHON, "store.py", "NOPE") is None
    assert value_of(PYTHON, "store.py", "load") is None  # a function has no literal value
    assert value_of(PYTHON, "store.py", "limit") is None  # a class attribute is not module level


@pytest.mark.parametrize(
    "literal, expected",
    [
        ("8_000", 8000),
        ("8_000", "8000"),
        ("0x10", 16),
        ("0X1F", 31),
        ("0o17", 15),
        ("0b101", 5),
        ("0755", 493),  # Go's octal
        ("1e3", 1000),
        ("1.0", 1),
        ("-2", -2),
        ("200usize", 200),
        ("200_u32", 200),
        ("0xff_u8", 255),
        ("2.5f64", 2.5),
        ("10n", 10),
        ("'abc'", "abc"),
        ('"abc"', "'abc'"),
        ('r#"a"b"#', 'a"b'),
        ("`raw`", "raw"),
        ("'it\\'s'", "it's"),
        ("True", True),
        ("false", False),
        ("None", None),
        ("nil", None),
        ("SOME_NAME", "SOME_NAME"),
    ],
)
def test_literal_equals_spellings(literal, expected):
    assert literal_equals(literal, expected)


@pytest.mark.parametrize(
    "literal, expected",
    [
        ("8_000", 8001),
        ("0x10", 10),
        ("'abc'", "abd"),
        ("abc", 3),
        ("True", False),
        ("1", True),
        ("name", "other"),
    ],
)
def test_literal_equals_rejects(literal, expected):
    assert not literal_equals(literal, expected)


# --------------------------------------------------------------------------
# non-ASCII text


def test_non_ascii_offsets_are_character_offsets():
    text = 'GRÜSSE = "héllo wörld 🎉"  # ナイス\n\ndef größe(x):\n    return "ß" + x\n'
    found = definitions(text, "u.py")
    assert [(d.kind, d.name) for d in found] == [("module-assignment", "GRÜSSE"), ("function", "größe")]
    assert _slice(text, found[0]) == 'GRÜSSE = "héllo wörld 🎉"'
    assert _slice(text, found[1]) == 'def größe(x):\n    return "ß" + x'
    for token in tokens(text, "u.py"):
        raw = text[token.start : token.end]
        assert raw == token.text or token.kind == "string"
    spans = [text[r.start : r.end] for r in regions(text, "u.py")]
    assert spans == ['"héllo wörld 🎉"', "# ナイス", '"ß"']
    assert value_of(text, "u.py", "GRÜSSE") == '"héllo wörld 🎉"'
    assert token_find('return "ß"+x', text, "u.py") == LineRange(4, 4)


identifier = st.text(alphabet="abcxyzé漢_", min_size=1, max_size=8).filter(lambda s: s.isidentifier())
content = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp"), blacklist_characters="\"\\"),
    max_size=20,
)


@settings(max_examples=60, deadline=None)
@given(name=identifier, body=content, comment=content)
def test_offsets_slice_exactly_for_any_unicode(name, body, comment):
    text = f'{name} = "{body}"  # {comment}\n\ndef f_{name}():\n    return {name}\n'
    assignment, function = definitions(text, "p.py")
    assert _slice(text, assignment) == f'{name} = "{body}"'
    assert _slice(text, function) == f"def f_{name}():\n    return {name}"
    found = regions(text, "p.py")
    assert [text[r.start : r.end] for r in found] == [f'"{body}"', f"# {comment}"]
    for token in tokens(text, "p.py"):
        if token.kind == "code":
            assert text[token.start : token.end] == token.text
    assert value_of(text, "p.py", name) == f'"{body}"'


# --------------------------------------------------------------------------
# parse cache


def test_each_key_is_parsed_once():
    symbols.clear_cache()
    symbols.reset_stats()
    definitions(PYTHON, "store.py", key="blob-1")
    tokens(PYTHON, "store.py", key="blob-1")
    regions(PYTHON, "store.py", key="blob-1")
    enclosing(PYTHON, "store.py", LineRange(20, 20), key="blob-1")
    assert symbols.stats().parses == 1
    # without a key the text itself is the key
    definitions(RUST, "cache.rs")
    tokens(RUST, "cache.rs")
    body_token_diff(RUST, RUST, "cache.rs", *find_definitions(RUST, "cache.rs", "helper") * 2)
    assert symbols.stats().parses == 2
    # the same key in another language is another tree
    definitions(PYTHON, "store.pyi", key="blob-1")
    assert symbols.stats().parses == 2  # .pyi is Python too
    definitions(JAVASCRIPT, "server.js", key="blob-1")
    assert symbols.stats().parses == 3
    assert symbols.stats().seconds > 0
    symbols.reset_stats()
    assert symbols.stats() == symbols.ParseStats(seconds=0.0, parses=0)


def test_cache_is_bounded_and_evicts_least_recently_used():
    symbols.clear_cache()
    symbols.reset_stats()
    for i in range(parsing._CACHE_SIZE + 10):
        value_of(f"X = {i}\n", "n.py", "X", key=f"k{i}")
    assert len(parsing._TREES) == parsing._CACHE_SIZE
    parses = symbols.stats().parses
    value_of("X = 0\n", "n.py", "X", key="k0")  # evicted: parsed again
    value_of(f"X = {parsing._CACHE_SIZE + 9}\n", "n.py", "X", key=f"k{parsing._CACHE_SIZE + 9}")  # still cached
    assert symbols.stats().parses == parses + 1


def test_a_files_definitions_outlive_its_tree():
    """A file whose definitions were found (a symbol resolved in it) is not parsed again
    when asked again, or for the definition enclosing some lines, after its tree left the
    parse cache: on a real history 237 of 246 parses again were such files."""
    symbols.clear_cache()
    symbols.reset_stats()
    source = "class Store:\n    def get(self, key):\n        return key\n"
    found = definitions(source, "store.py", key="blob-1")
    assert [d.name for d in found] == ["Store", "Store.get"]
    for i in range(parsing._CACHE_SIZE + 1):  # the tree is evicted
        value_of(f"X = {i}\n", "n.py", "X", key=f"k{i}")
    assert parsing._TREES.get(("python", "key", "blob-1")) is None
    parses = symbols.stats().parses
    assert definitions(source, "store.py", key="blob-1") == found
    assert enclosing(source, "store.py", LineRange(3, 3), key="blob-1").name == "Store.get"
    assert symbols.stats().parses == parses
    # the same key for another text is not trusted: that text is parsed
    other = "def load():\n    pass\n"
    assert [d.name for d in definitions(other, "store.py", key="blob-1")] == ["load"]
    assert enclosing(other, "store.py", LineRange(2, 2), key="blob-1").name == "load"
    assert symbols.stats().parses == parses + 1
    symbols.clear_cache()
    definitions(source, "store.py", key="blob-1")
    assert symbols.stats().parses == parses + 2


def test_a_key_reused_for_another_text_is_not_trusted():
    symbols.clear_cache()
    assert value_of("X = 1\n", "a.py", "X", key="same") == "1"
    assert value_of("X = 2\n", "a.py", "X", key="same") == "2"


def test_comment_regions_stop_before_the_line_break():
    text = "/// let x = 1;\r\nfn f() {}\r\n// y\r\n"
    assert [text[r.start : r.end] for r in regions(text, "a.rs")] == ["/// let x = 1;", "// y"]
    assert definitions(text, "a.rs")[0].lines == LineRange(2, 2)


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_reparsing_an_edit_gives_the_tree_of_a_fresh_parse(data):
    from pytest_memreport.text import symbols

    lines = ["class Store:", "    def get(self, key):", "        return self.cache.get(key)  # é",
             "    def put(self, key, value):", "        self.cache[key] = value", "", "def helper(x):",
             "    return x * 2", "NAME = 'ü'"]
    old = "\n".join(data.draw(st.lists(st.sampled_from(lines), min_size=1, max_size=12))) + "\n"
    start = data.draw(st.integers(0, len(old)))
    end = data.draw(st.integers(start, len(old)))
    new = old[:start] + data.draw(st.sampled_from(["", "x", "\n    pass\n", "def f():\n    return 1\n", "é"])) + old[end:]
    key_old, key_new = f"old-{old!r}", f"new-{new!r}-{old!r}"
    symbols.definitions(old, "pkg/a.py", key=key_old)  # the pin's parse, cached
    symbols.reparse(new, "pkg/a.py", key_new, old, key_old)
    reparsed = parsing._TREES.get(("python", "key", key_new))
    assert reparsed is not None
    fresh = parsing._parser("python").parse(new.encode("utf-8"))
    assert str(reparsed.tree.root_node) == str(fresh.root_node)
    assert symbols.definitions(new, "pkg/a.py", key=key_new) == symbols.definitions(new, "pkg/a.py")


def test_a_window_asked_again_is_not_lexed_again(monkeypatch):
    """Blame compares the pin's definition with each version it reads: the pin's window is
    lexed once, and reads the same tokens every time."""
    text = "".join(f"def f{i}(a):\n    return a + {i}\n\n\n" for i in range(60))
    first = [(d.start, d.end) for d in symbols.definitions(text, "w.py", key="again")][0]
    windows = _windows_lexed(monkeypatch)
    read = [[(t.text, t.start) for t in tokens(text, "w.py", key="again", span=first)] for _ in range(5)]

    assert windows == [first]  # lexed once
    assert read[0][:3] == [("def", first[0]), ("f0", first[0] + 4), ("(", first[0] + 6)]
    assert all(one == read[0] for one in read)


def test_a_files_kind_is_its_grammar_else_its_extension():
    """What a plain quotation or a definition may move into with its commit: code of the
    same language (a stub is Python), not a page of another kind."""
    from pytest_memreport.text.symbols import file_kind

    assert [file_kind(p) for p in ("a.py", "x/b.PYI", "c.rs", "docs/d.rst", "Makefile", ".bashrc")] == \
        ["python", "python", "rust", ".rst", "", ""]
