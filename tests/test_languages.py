"""Java, C, C++, C#, Ruby, Bash, PHP and Solidity: definitions, enclosing definitions and token matching.

One fixture per language, read with its grammar wheel: the definitions a
reader would name (kind and qualified name), the definition enclosing a
quoted line, and a quotation whose layout differs from the file (a
comment inside the quoted code left out) found by tokens where characters fail. The last tests
run drift over a real repository in two of the languages.
"""

from __future__ import annotations

import textwrap

import pytest

from pytest_memreport.checks import drift, verify
from pytest_memreport.gitstore import GitStore
from pytest_memreport.model import Evidence, EvidenceKind, LineRange
from pytest_memreport.text import symbols

JAVA = textwrap.dedent(
    """\
    package demo;

    /** A cache. */
    public class Cache {
        private static final int LIMIT = 200;

        public Cache(int size) {
            this.size = size;
        }

        @Override
        public String get(String key) {
            // a default keeps callers simple
            return map.getOrDefault(key, "none");
        }

        interface Loader { String load(String key); }
        enum Mode { FAST, SLOW }
    }
    """
)

C = textwrap.dedent(
    """\
    #include <stdio.h>
    #define LIMIT 200

    struct entry { int id; char *name; };
    typedef struct entry entry_t;

    static char *entry_name(struct entry *e) {
        return e->name;
    }

    int evict(struct entry *entries, int n) {
        /* overflow beyond the limit */
        int overflow = n - LIMIT;
        return overflow > 0 ? overflow : 0;
    }
    """
)

CPP = textwrap.dedent(
    """\
    #include <string>
    namespace cache {
    class Store {
    public:
        int size() const { return count_; }
        std::string get(const std::string &key);
    private:
        int count_ = 0;
    };

    std::string Store::get(const std::string &key) {
        // mark it
        return key + "!";
    }

    template <typename T>
    T clamp(T v, T lo, T hi) {
        return v < lo ? lo : (v > hi ? hi : v);
    }
    }
    """
)

CSHARP = textwrap.dedent(
    """\
    namespace Demo.Cache
    {
        public class Store
        {
            public Store(int size) { Size = size; }

            [Obsolete]
            public string Get(string key)
            {
                // look it up
                return Lookup(key, "none");
            }
        }

        public interface ILoader { string Load(string key); }
        public enum Mode { Fast, Slow }
        public struct Point { public int X; }
    }
    """
)

RUBY = textwrap.dedent(
    """\
    module Cache
      LIMIT = 200

      class Store
        def initialize(size)
          @size = size
        end

        def get(key)
          @map.fetch(key, "none") # default
        end

        def self.build
          new(10)
        end
      end
    end

    def helper(x)
      x * 2
    end
    """
)

BASH = textwrap.dedent(
    """\
    #!/usr/bin/env bash
    LIMIT=200

    evict() {
      local n="$1"
      echo $(( n - LIMIT ))   # overflow
    }

    function load_all {
      for f in "$@"; do evict "$f"; done
    }
    """
)

PHP = textwrap.dedent(
    """\
    <?php
    namespace Demo;

    const LIMIT = 200;

    function helper($x) {
        return $x * 2;
    }

    class Store {
        public function get(string $key): string {
            // shout
            return strtoupper($key) . "!";
        }
    }

    interface Loader { public function load(string $key): string; }
    trait Logs { public function log($m) { echo $m; } }
    """
)

#: path, text, definitions expected (kind, name), a line and its enclosing (kind, name), a reformatted quote and its lines
SOLIDITY = textwrap.dedent(
    """\
    pragma solidity ^0.8.0;

    /// The pool of a game's fighters.
    contract Pool {
        uint256 public constant LIMIT = 200;
        mapping(address => uint256) public shares;
        event Paid(address to, uint256 amount);
        struct Fighter { uint256 weight; uint8 generation; }

        modifier onlyOwner() { require(msg.sender == owner, "not the owner"); _; }

        function drain(address to) public onlyOwner {
            // pay before booking: the bug the finding names
            payable(to).transfer(balance);
            balance = 0;
        }
    }

    library Shares { function split(uint256 a) internal pure returns (uint256) { return a / 2; } }
    """
)

CASES = [
    pytest.param("src/Cache.java", JAVA,
                 {("class", "Cache"), ("const", "Cache.LIMIT"), ("method", "Cache.Cache"), ("method", "Cache.get"),
                  ("interface", "Cache.Loader"), ("method", "Cache.Loader.load"), ("enum", "Cache.Mode")},
                 14, ("method", "Cache.get"), 'public String get(String key) { return map.getOrDefault(key, "none"); }',
                 LineRange(12, 15), id="java"),
    pytest.param("src/cache.c", C,
                 {("const", "LIMIT"), ("struct", "entry"), ("type", "entry_t"), ("function", "entry_name"),
                  ("function", "evict")},
                 13, ("function", "evict"), "int evict(struct entry *entries, int n) { int overflow = n - LIMIT;",
                 LineRange(11, 13), id="c"),
    pytest.param("src/store.cpp", CPP,
                 {("namespace", "cache"), ("class", "cache.Store"), ("method", "cache.Store.size"),
                  ("method", "cache.Store.get"), ("function", "cache.clamp")},
                 13, ("method", "cache.Store.get"), 'std::string Store::get(const std::string &key) { return key + "!"; }',
                 LineRange(11, 14), id="cpp"),
    pytest.param("src/Store.cs", CSHARP,
                 {("namespace", "Demo.Cache"), ("class", "Demo.Cache.Store"), ("method", "Demo.Cache.Store.Store"),
                  ("method", "Demo.Cache.Store.Get"), ("interface", "Demo.Cache.ILoader"),
                  ("enum", "Demo.Cache.Mode"), ("struct", "Demo.Cache.Point"), ("method", "Demo.Cache.ILoader.Load")},
                 11, ("method", "Demo.Cache.Store.Get"), 'public string Get(string key) { return Lookup(key, "none"); }',
                 LineRange(8, 12), id="csharp"),
    pytest.param("lib/cache.rb", RUBY,
                 {("module", "Cache"), ("const", "Cache.LIMIT"), ("class", "Cache.Store"),
                  ("method", "Cache.Store.initialize"), ("method", "Cache.Store.get"), ("method", "Cache.Store.build"),
                  ("function", "helper")},
                 10, ("method", "Cache.Store.get"), '@map.fetch(key, "none") end', LineRange(10, 11), id="ruby"),
    pytest.param("bin/evict.sh", BASH,
                 {("module-assignment", "LIMIT"), ("function", "evict"), ("function", "load_all")},
                 6, ("function", "evict"), 'echo $(( n - LIMIT )) }', LineRange(6, 7), id="bash"),
    pytest.param("src/Store.php", PHP,
                 {("const", "LIMIT"), ("function", "helper"), ("class", "Store"), ("method", "Store.get"),
                  ("interface", "Loader"), ("method", "Loader.load"), ("trait", "Logs"), ("method", "Logs.log")},
                 13, ("method", "Store.get"), 'public function get(string $key): string { return strtoupper($key) . "!"; }',
                 LineRange(11, 14), id="php"),
    pytest.param("src/Pool.sol", SOLIDITY,
                 {("class", "Pool"), ("const", "Pool.LIMIT"), ("const", "Pool.shares"), ("type", "Pool.Paid"),
                  ("struct", "Pool.Fighter"), ("field", "Pool.Fighter.weight"), ("field", "Pool.Fighter.generation"),
                  ("method", "Pool.onlyOwner"), ("method", "Pool.drain"), ("class", "Shares"),
                  ("method", "Shares.split")},
                 14, ("method", "Pool.drain"), "function drain(address to) public onlyOwner { payable(to).transfer(balance);",
                 LineRange(12, 14), id="solidity"),
]


@pytest.mark.parametrize("path, text, expected, line, enclosing, reformatted, lines", CASES)
def test_definition_kinds_and_qualified_names(path, text, expected, line, enclosing, reformatted, lines):
    found = symbols.definitions(text, path)
    assert found is not None, f"no grammar for {path}"
    assert {(d.kind, d.name) for d in found} == expected


@pytest.mark.parametrize("path, text, expected, line, enclosing, reformatted, lines", CASES)
def test_enclosing_definition_of_a_line(path, text, expected, line, enclosing, reformatted, lines):
    definition = symbols.enclosing(text, path, LineRange(line, line))
    assert definition is not None and (definition.kind, definition.name) == enclosing


@pytest.mark.parametrize("path, text, expected, line, enclosing, reformatted, lines", CASES)
def test_reformatted_quote_is_found_by_tokens_where_characters_fail(path, text, expected, line, enclosing,
                                                                    reformatted, lines):
    from pytest_memreport.text import match

    assert not match.find(match.compile_quote(reformatted), text)
    found, by_tokens = verify.occurrences(reformatted, text, path)
    assert by_tokens and found == (lines,)


@pytest.mark.parametrize("path, text", [("src/Cache.java", JAVA), ("lib/cache.rb", RUBY)], ids=["java", "ruby"])
def test_comments_are_not_tokens_and_strings_are_whole(path, text):
    texts = [t.text for t in symbols.tokens(text, path)]
    assert '"none"' in texts
    assert not any("default" in t for t in texts if t != '"none"')


def test_drift_of_a_java_quote_whose_arguments_were_wrapped(make_repo):
    repo = make_repo()
    pin = repo.commit({"src/Cache.java": JAVA}, "pin")
    edited = JAVA.replace('return map.getOrDefault(key, "none");', 'return map.getOrDefault(\n            key,\n            "none");')
    repo.commit({"src/Cache.java": "// header\n" + edited}, "wrap arguments")
    evidence = Evidence(EvidenceKind.QUOTE, "src/Cache.java", 3, 3, text='return map.getOrDefault(key, "none");')

    with GitStore.open(repo.path) as store:
        at_pin = verify.check_at_pin(evidence, store.snapshot(pin))
        assert at_pin.ok and at_pin.symbol.name == "Cache.get"
        result = drift.classify(evidence, at_pin, store, pin, store.snapshot("HEAD"))

    assert result.status == drift.SHIFTED
    assert result.lines == LineRange(15, 17) and result.symbol.name == "Cache.get"
    assert not result.enclosing_changed


def test_drift_of_a_ruby_method_whose_body_changed_says_the_enclosing_definition_changed(make_repo):
    repo = make_repo()
    pin = repo.commit({"lib/cache.rb": RUBY}, "pin")
    repo.commit({"lib/cache.rb": RUBY.replace("@size = size", "@size = size.clamp(1, 100)")}, "clamp")
    evidence = Evidence(EvidenceKind.QUOTE, "lib/cache.rb", 3, 3, text="def initialize(size)")

    with GitStore.open(repo.path) as store:
        at_pin = verify.check_at_pin(evidence, store.snapshot(pin))
        result = drift.classify(evidence, at_pin, store, pin, store.snapshot("HEAD"))

    assert result.status == drift.UNCHANGED and result.enclosing_changed
    assert result.symbol.name == "Cache.Store.initialize" and "clamp" in result.enclosing_diff


def test_a_grammar_given_by_its_address_loads_without_a_warning_in_the_users_run():
    # Solidity's wheel gives its language as an address, which tree-sitter takes with a
    # DeprecationWarning: under -W error a user's run would fail on a grammar it loads.
    import warnings

    from pytest_memreport.text.syntax import languages

    languages._language.cache_clear()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert languages._language("solidity") is not None
    assert "solidity" in languages.available_languages()
