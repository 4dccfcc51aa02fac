"""Predicate evaluation against real target repositories, commit by commit."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hostile_support import cpu_seconds

from pytest_memreport.dialects.claims import Predicate, parse_inline
from pytest_memreport.gitstore import GitStore
from pytest_memreport.checks.predicates import Hit, evaluate, glob_match, select_files


def pred(yaml_item: str) -> Predicate:
    """One predicate, through the same validation a claims file gets."""
    (predicate,) = parse_inline(yaml_item, "report.md", 1, "MEM-CLM-test")
    return predicate


STORE_PY = '''\
"""Entry storage."""

MAX_ENTRIES = 8_000
MODE = "strict"


class Store:
    # no swap_in_place here: writes always copy
    def drop(self, key):
        return self._entries.pop(key, None)

    def get(self, key):
        return self._entries.get(key)


def helper():
    return "swap_in_place is a word in this string"
'''

API_TS = """\
// The API never calls swap_in_place(); it only reads.
export const LIMIT: number = 200;

export function readEntry(id: string): string {
  const note = "mentions swap_in_place in a string";
  return lookup(id);
}
"""

RUST_RS = """\
pub struct Store {}

impl Store {
    pub fn forget(&self) {}
}

pub const LIMIT: usize = 0x1F40;
"""

ROUTES_PY = """\
def route_a():
    pass


def route_b(
    x,
):
    pass
"""


@pytest.fixture
def target(make_repo):
    repo = make_repo("target")
    pin = repo.commit(
        {
            "src/store.py": STORE_PY,
            "src/api/routes.py": ROUTES_PY,
            "src/api/api.ts": API_TS,
            "src/core/store.rs": RUST_RS,
            # Kotlin: a language without a grammar wheel here
            "src/legacy/util.kt": "object Util {\n  fun forget(key: String) {\n    log(key)\n  }\n}\n",
            "docs/notes.md": "We avoid swap_in_place entirely.\n",
            "assets/logo.bin": b"\x89PNG\x00\x01swap_in_place\x00",
            "README.md": "# target\n",
        },
        "first",
    )
    store = GitStore.open(repo.path)
    yield repo, store, pin
    store.close()


def at(store: GitStore, rev: str):
    return store.snapshot(rev)


# --------------------------------------------------------------------------- globs


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("src/**/*.py", "src/a.py", True),
        ("src/**/*.py", "src/x/y/a.py", True),
        ("src/**/*.py", "src/a.ts", False),
        ("src/**/*.py", "lib/src/a.py", False),
        ("*.py", "a.py", True),
        ("*.py", "src/a.py", False),  # anchored at the root, unlike a bare gitignore line
        ("**/*.py", "src/a.py", True),
        ("**/*.py", "a.py", True),
        ("src/*", "src/a.py", True),
        ("src/*", "src/x/a.py", False),  # '*' never crosses '/'
        ("src/**", "src/x/a.py", True),
        ("src/**", "src", False),
        ("src/", "src/x/a.py", True),  # trailing slash: everything below
        ("src/", "srcs/a.py", False),
        ("**", "any/thing/at/all.txt", True),
        ("src/**/test_*.py", "src/test_a.py", True),
        ("src/**/test_*.py", "src/pkg/tests/test_a.py", True),
        ("src/**/test_*.py", "src/pkg/tests/a_test.py", False),
        ("a/**/b/**/c.txt", "a/b/c.txt", True),
        ("a/**/b/**/c.txt", "a/x/b/y/z/c.txt", True),
        ("a/**/b/**/c.txt", "a/x/y/c.txt", False),
        ("a/**/**/c", "a/c", True),
        ("src/file?.py", "src/file1.py", True),
        ("src/file?.py", "src/file12.py", False),
        ("src/[ab].py", "src/b.py", True),
        ("src/[!ab].py", "src/b.py", False),
        ("src/a**b.py", "src/axxb.py", True),  # '**' inside a segment is just '*'
        ("src/a**b.py", "src/ax/xb.py", False),
        ("./src/a.py", "src/a.py", True),
        ("src/.hidden/*", "src/.hidden/x", True),
        ("src/A.py", "src/a.py", False),  # case matters, as in git
    ],
)
def test_glob_match(pattern, path, expected):
    assert glob_match(pattern, path) is expected


_segment = st.text(alphabet="abc._-", min_size=1, max_size=4).filter(lambda s: s not in (".", ".."))
_paths = st.lists(_segment, min_size=1, max_size=5).map("/".join)


@settings(max_examples=80, deadline=None)
@given(path=_paths, prefix_len=st.integers(min_value=0, max_value=4))
def test_glob_properties(path, prefix_len):
    parts = path.split("/")
    assert glob_match(path, path)  # a literal path matches itself (no magic characters in the alphabet)
    assert glob_match("**", path)
    assert glob_match("**/" + parts[-1], path)
    prefix = "/".join(parts[: min(prefix_len, len(parts) - 1)])
    if prefix:
        assert glob_match(prefix + "/**", path)
        assert glob_match(prefix + "/", path)
        assert not glob_match(prefix + "x/**", path)
    # '*' per segment matches exactly the paths with that many segments
    assert glob_match("/".join("*" for _ in parts), path)
    assert not glob_match("/".join("*" for _ in parts) + "/*", path)


def _reference_match(pattern_parts: list[str], path_parts: list[str]) -> bool:
    """Plain recursive definition of the glob semantics, to check the fast matcher against."""
    import fnmatch

    if not pattern_parts:
        return not path_parts
    head, rest = pattern_parts[0], pattern_parts[1:]
    if head == "**":
        return any(_reference_match(rest, path_parts[i:]) for i in range(len(path_parts) + 1))
    return bool(path_parts) and fnmatch.fnmatchcase(path_parts[0], head) and _reference_match(rest, path_parts[1:])


_pattern_segment = st.sampled_from(["a", "b", "ab", "*", "a*", "*b", "?", "**", "[ab]"])


@settings(max_examples=150, deadline=None)
@given(pattern=st.lists(_pattern_segment, min_size=1, max_size=5), path=st.lists(st.sampled_from(["a", "b", "ab", "ba", "c"]), min_size=1, max_size=5))
def test_glob_agrees_with_the_recursive_definition(pattern, path):
    expected = _reference_match(pattern, path)
    if pattern[-1] == "**":
        # a trailing '**' selects what is inside a folder: at least one more segment
        expected = any(_reference_match(pattern[:-1], path[:i]) for i in range(len(path)))
    assert glob_match("/".join(pattern), "/".join(path)) is expected


def test_glob_matching_is_fast_on_adversarial_patterns():
    pattern = "/".join(["**", "a*"] * 12) + "/b"
    path = "/".join(["a"] * 60)
    assert not glob_match(pattern, path)
    assert cpu_seconds(glob_match, pattern, path) < 0.5


def test_select_files_sorted_and_unique():
    files = ["src/b.py", "src/a.py", "src/x/c.py", "lib/d.py"]
    assert select_files(["src/*.py", "src/**/*.py"], files) == ["src/a.py", "src/b.py", "src/x/c.py"]
    assert select_files(["nothing/**"], files) == []


# --------------------------------------------------------------------------- contains


def test_contains_text_in_path(target):
    _, store, pin = target
    result = evaluate(pred("- contains: {path: src/store.py, text: 'return self._entries.pop(key, None)'}"), at(store, pin))
    assert result.ok and not result.error
    assert result.boundary == ("src/store.py",)
    assert result.matches == (Hit("src/store.py", 10, "return self._entries.pop(key, None)"),)
    assert "src/store.py:10" in result.message


def test_contains_text_survives_rendering_damage(target):
    _, store, pin = target
    # flattened across lines, the way a rendered report quotes code
    result = evaluate(
        pred("- contains: {path: src/store.py, text: 'def drop(self, key): return self._entries.pop(key, None)'}"),
        at(store, pin),
    )
    assert result.ok, result.message
    assert result.matches[0].line == 9


def test_contains_fails_with_reason(target):
    _, store, pin = target
    snapshot = at(store, pin)
    missing = evaluate(pred("- contains: {path: src/store.py, text: 'MAX_ENTRIES = 9000'}"), snapshot)
    assert not missing.ok and not missing.error
    assert "not found" in missing.message and "src/store.py" in missing.message
    no_file = evaluate(pred("- contains: {path: src/gone.py, text: x}"), snapshot)
    assert not no_file.ok and "src/gone.py does not exist" in no_file.message
    folder = evaluate(pred("- contains: {path: src/api, text: x}"), snapshot)
    assert not folder.ok and "is a directory" in folder.message and "glob: src/api/**" in folder.message


def test_contains_regex_over_a_glob_reports_the_start_line_of_a_multiline_match(target):
    _, store, pin = target
    result = evaluate(pred(r"- contains: {glob: 'src/**/*.py', regex: 'def route_b\(\s+x,\s+\):'}"), at(store, pin))
    assert result.ok, result.message
    assert result.matches == (Hit("src/api/routes.py", 5, "def route_b("),)
    assert result.boundary == ("src/api/routes.py", "src/store.py")


# --------------------------------------------------------------------------- absent


def test_absence_starts_to_match_after_a_later_commit(target):
    repo, store, pin = target
    absent = pred(r"- absent: {glob: ['src/store.py', 'src/api/*.py'], regex: '\bcas\(|compare_and_swap'}")
    before = evaluate(absent, at(store, pin))
    assert before.ok and not before.error, before.message
    assert before.boundary == ("src/api/routes.py", "src/store.py")
    assert "no match in 2 files" in before.message

    later = repo.commit(
        {"src/api/routes.py": ROUTES_PY + "\n\ndef route_c(entry):\n    return cas(entry, 1)\n"}, "add cas"
    )
    after = evaluate(absent, at(store, later))
    assert not after.ok and not after.error
    assert after.matches == (Hit("src/api/routes.py", 12, "return cas(entry, 1)"),)
    assert "src/api/routes.py:12: return cas(entry, 1)" in after.message
    assert later[:12] in after.message
    # the pin still holds: the same predicate at the pin is unchanged
    assert evaluate(absent, at(store, pin)).ok


def test_absent_with_an_empty_boundary_fails(target):
    _, store, pin = target
    result = evaluate(pred("- absent: {glob: ['lib/**', 'pkg/*.py'], text: anything}"), at(store, pin))
    assert not result.ok and not result.error
    assert result.boundary == ()
    assert f"empty boundary: lib/**, pkg/*.py matched no file at {pin[:12]}" in result.message
    gone = evaluate(pred("- absent: {path: src/gone.py, text: anything}"), at(store, pin))
    assert not gone.ok and "empty boundary" in gone.message


def test_absent_lists_at_most_n_offenders(make_repo):
    repo = make_repo("many")
    pin = repo.commit({f"src/m{i:02}.py": "x = legacy_call()\n" for i in range(15)})
    with GitStore.open(repo.path) as store:
        result = evaluate(pred("- absent: {glob: 'src/**', text: legacy_call()}"), store.snapshot(pin), max_listed=4)
    assert not result.ok
    assert len(result.matches) == 15
    assert "found 15 matches" in result.message
    assert "src/m03.py:1: x = legacy_call()" in result.message
    assert "src/m04.py" not in result.message
    assert "| and 11 more" in result.message


def test_unreadable_files_are_skipped_and_named(target):
    _, store, pin = target
    result = evaluate(pred("- absent: {glob: 'assets/**', text: swap_in_place}"), at(store, pin))
    # nothing readable was searched: the absence is not established
    assert not result.ok and result.error
    assert "assets/logo.bin is a binary file" in result.message
    # a binary file in the boundary leaves the absence unproven: unknown (an error), never a pass
    mixed = evaluate(pred("- absent: {glob: ['assets/**', 'README.md'], text: swap_in_place}"), at(store, pin))
    assert not mixed.ok and mixed.error
    assert "unknown" in mixed.message and "assets/logo.bin is a binary file" in mixed.message
    assert "skip_unreadable: true" in mixed.message
    opted = evaluate(pred("- absent: {glob: ['assets/**', 'README.md'], text: swap_in_place, skip_unreadable: true}"),
                     at(store, pin))
    assert opted.ok and "Skipped 1 unreadable file(s): assets/logo.bin is a binary file" in opted.message


# --------------------------------------------------------------------------- in: code | comments | strings


def test_in_code_ignores_comments_and_strings_in_python_and_typescript(target):
    _, store, pin = target
    snapshot = at(store, pin)
    anywhere = evaluate(pred("- absent: {glob: 'src/**', text: swap_in_place}"), snapshot)
    # binary file in assets is outside src; the text sits in a comment and a string of each file
    assert {(h.path, h.line) for h in anywhere.matches} == {
        ("src/store.py", 8),
        ("src/store.py", 17),
        ("src/api/api.ts", 1),
        ("src/api/api.ts", 5),
    }
    in_code = evaluate(pred("- absent: {glob: ['src/**/*.py', 'src/**/*.ts'], text: swap_in_place, in: code}"), snapshot)
    assert in_code.ok and not in_code.error, in_code.message
    comments = evaluate(pred("- count: {glob: 'src/**/*.[pt][ys]', text: swap_in_place, in: comments, equals: 2}"), snapshot)
    assert comments.ok, comments.message
    assert {(h.path, h.line) for h in comments.matches} == {("src/store.py", 8), ("src/api/api.ts", 1)}
    strings = evaluate(pred("- contains: {path: src/api/api.ts, regex: 'swap_\\w+', in: strings}"), snapshot)
    assert strings.ok and strings.matches == (Hit("src/api/api.ts", 5, 'const note = "mentions swap_in_place in a string";'),)


def test_in_code_fails_on_real_code(target):
    repo, store, pin = target
    later = repo.commit(
        {"src/api/api.ts": API_TS + "export function write(x: string) { return swap_in_place(x); }\n"}, "use it"
    )
    result = evaluate(pred("- absent: {glob: 'src/api/*.ts', text: swap_in_place(, in: code}"), at(store, later))
    assert not result.ok and not result.error
    assert [(h.path, h.line) for h in result.matches] == [("src/api/api.ts", 8)]


def test_in_code_without_a_grammar_errors_instead_of_guessing(target):
    _, store, pin = target
    snapshot = at(store, pin)
    result = evaluate(pred("- absent: {glob: ['docs/**', 'src/store.py'], text: swap_in_place, in: code}"), snapshot)
    assert not result.ok and result.error
    assert "docs/notes.md" in result.message and "cannot tell code from comments" in result.message
    # a file without a grammar that does not contain the text needs no classifying
    fine = evaluate(pred("- absent: {glob: ['README.md', 'src/store.py'], text: swap_in_place, in: code}"), snapshot)
    assert fine.ok, fine.message


# --------------------------------------------------------------------------- count


def test_count_equals_min_max(target):
    _, store, pin = target
    snapshot = at(store, pin)
    equals = evaluate(pred(r"- count: {glob: 'src/**/*.py', regex: '^[ \t]*def ', equals: 5}"), snapshot)
    assert equals.ok and equals.actual == 5, equals.message
    wrong = evaluate(pred(r"- count: {glob: 'src/**/*.py', regex: '^[ \t]*def ', equals: 4}"), snapshot)
    assert not wrong.ok and wrong.actual == 5
    assert "expected exactly 4" in wrong.message and "src/store.py:9: def drop(self, key):" in wrong.message
    assert evaluate(pred(r"- count: {glob: 'src/**/*.py', regex: '^[ \t]*def ', min: 5, max: 6}"), snapshot).ok
    too_few = evaluate(pred(r"- count: {glob: 'src/**/*.py', regex: '^[ \t]*def ', min: 6}"), snapshot)
    assert not too_few.ok and "at least 6" in too_few.message
    assert not evaluate(pred(r"- count: {glob: 'src/**/*.py', regex: '^[ \t]*def ', max: 2}"), snapshot).ok
    zero = evaluate(pred("- count: {glob: 'src/**/*.py', regex: 'nowhere_to_be_found', equals: 0}"), snapshot)
    assert zero.ok and zero.actual == 0
    empty = evaluate(pred("- count: {glob: 'nope/**', regex: 'x', equals: 0}"), snapshot)
    assert not empty.ok and "empty boundary" in empty.message


# --------------------------------------------------------------------------- symbol


def test_symbol_with_grammar(target):
    repo, store, pin = target
    snapshot = at(store, pin)
    method = evaluate(pred("- symbol: {path: src/store.py, name: Store.drop, kind: method}"), snapshot)
    assert method.ok, method.message
    assert method.matches[0].path == "src/store.py" and method.matches[0].line == 9
    wrong_kind = evaluate(pred("- symbol: {path: src/store.py, name: Store.drop, kind: class}"), snapshot)
    assert not wrong_kind.ok and "defined, but as method at src/store.py:9" in wrong_kind.message
    ts = evaluate(pred("- symbol: {glob: 'src/**', name: readEntry}"), snapshot)
    assert ts.ok and ts.matches[0].path == "src/api/api.ts"
    later = repo.commit({"src/store.py": STORE_PY.replace("def drop", "def discard")}, "rename drop")
    gone = evaluate(pred("- symbol: {path: src/store.py, name: Store.drop, kind: method}"), at(store, later))
    assert not gone.ok and not gone.error and "no definition found" in gone.message


def test_symbol_without_grammar_falls_back_to_a_definition_line(target):
    _, store, pin = target
    snapshot = at(store, pin)
    found = evaluate(pred("- symbol: {path: src/legacy/util.kt, name: Util.forget}"), snapshot)
    assert found.ok, found.message
    assert found.matches == (Hit("src/legacy/util.kt", 2, "fun forget(key: String) {"),)
    assert "No grammar for src/legacy/util.kt" in found.message
    module = evaluate(pred("- symbol: {path: src/legacy/util.kt, name: Util}"), snapshot)
    assert module.ok and module.matches[0].line == 1
    # a call is not a definition
    missing = evaluate(pred("- symbol: {path: src/legacy/util.kt, name: log}"), snapshot)
    assert not missing.ok


def test_rust_symbols_and_values(target):
    _, store, pin = target
    snapshot = at(store, pin)
    for name in ("Store::forget", "Store.forget", "forget"):
        result = evaluate(pred(f"- symbol: {{path: src/core/store.rs, name: '{name}', kind: method}}"), snapshot)
        assert result.ok and result.matches[0].line == 4, (name, result.message)
    hexed = evaluate(pred("- value: {path: src/core/store.rs, symbol: LIMIT, equals: 8_000}"), snapshot)
    assert hexed.ok and hexed.actual == "0x1F40", hexed.message


# --------------------------------------------------------------------------- value


def test_value_compares_literals_by_value(target):
    repo, store, pin = target
    snapshot = at(store, pin)
    same = evaluate(pred("- value: {path: src/store.py, symbol: MAX_ENTRIES, equals: 8000}"), snapshot)
    assert same.ok and same.actual == "8_000", same.message
    spelled = evaluate(pred("- value: {path: src/store.py, symbol: MAX_ENTRIES, equals: '8000'}"), snapshot)
    assert spelled.ok
    text = evaluate(pred("- value: {path: src/store.py, symbol: MODE, equals: strict}"), snapshot)
    assert text.ok, text.message
    ts = evaluate(pred("- value: {path: src/api/api.ts, symbol: LIMIT, equals: 200}"), snapshot)
    assert ts.ok, ts.message
    later = repo.commit({"src/store.py": STORE_PY.replace("8_000", "9_000")}, "raise limit")
    changed = evaluate(pred("- value: {path: src/store.py, symbol: MAX_ENTRIES, equals: 8000}"), at(store, later))
    assert not changed.ok and not changed.error and changed.actual == "9_000"
    assert "differs: 9_000" in changed.message


def test_value_failures(target):
    _, store, pin = target
    snapshot = at(store, pin)
    unsupported = evaluate(pred("- value: {path: src/legacy/util.kt, symbol: LIMIT, equals: 1}"), snapshot)
    assert not unsupported.ok and unsupported.error
    assert "not supported for 'value'" in unsupported.message
    unknown = evaluate(pred("- value: {path: src/store.py, symbol: MIN_ENTRIES, equals: 1}"), snapshot)
    assert not unknown.ok and not unknown.error and "no literal value assigned to MIN_ENTRIES" in unknown.message
    assert not evaluate(pred("- value: {path: src/nope.py, symbol: X, equals: 1}"), snapshot).ok


# --------------------------------------------------------------------------- the working tree


def test_predicates_read_the_working_tree_without_touching_it(target):
    repo, store, pin = target
    (repo.path / "src" / "store.py").write_text(STORE_PY + "\nx = compare_and_swap()\n", encoding="utf-8")
    before = repo.state()
    absent = pred("- absent: {glob: 'src/*.py', text: compare_and_swap, in: code}")
    assert evaluate(absent, at(store, pin)).ok
    dirty = evaluate(absent, store.snapshot("worktree"))
    assert not dirty.ok and dirty.matches == (Hit("src/store.py", 19, "x = compare_and_swap()"),)
    assert "worktree" in dirty.message
    assert repo.state() == before


def test_messages_are_one_paragraph(target):
    _, store, pin = target
    snapshot = at(store, pin)
    for item in [
        "- absent: {glob: 'src/**', text: swap_in_place}",
        "- count: {glob: 'src/**/*.py', regex: 'def', equals: 1}",
        "- contains: {path: src/store.py, text: 'nothing like this'}",
        "- symbol: {path: src/store.py, name: Nope}",
    ]:
        message = evaluate(pred(item), snapshot).message
        assert "\n" not in message and re.search(r"[.]$", message), message


def test_a_missed_quotation_shows_the_nearest_text(target):
    _, store, pin = target
    result = evaluate(pred("- contains: {path: src/store.py, text: 'MAX_ENTRIES = 9_000'}"), at(store, pin))
    assert not result.ok
    assert "Nearest text (" in result.message and "src/store.py:3: MAX_ENTRIES = 8_000." in result.message


def test_many_matches_and_skipped_files_keep_messages_short(make_repo):
    from pytest_memreport.checks.predicates import MAX_KEPT_MATCHES

    repo = make_repo("noisy")
    files: dict[str, str | bytes] = {f"bin/b{i}.dat": b"\x00\x01" for i in range(8)}
    files["src/big.py"] = "hit = 1\n" * (MAX_KEPT_MATCHES + 200)
    pin = repo.commit(files)
    with GitStore.open(repo.path) as store:
        unknown = evaluate(pred("- count: {glob: ['src/**', 'bin/**'], text: 'hit = 1', min: 1}"), store.snapshot(pin))
        result = evaluate(pred("- count: {glob: ['src/**', 'bin/**'], text: 'hit = 1', min: 1, skip_unreadable: true}"),
                          store.snapshot(pin))
    # eight binary files went uncounted: the count is unknown unless the user opted out
    assert not unknown.ok and unknown.error and "went uncounted" in unknown.message
    assert result.ok and result.actual == MAX_KEPT_MATCHES + 200
    assert len(result.matches) == MAX_KEPT_MATCHES
    assert "Skipped 8 unreadable file(s)" in result.message and "; and 3 more." in result.message
    assert len(result.message) < 1000


# --------------------------------------------------------------------------- failing closed (issue 20)


@pytest.mark.parametrize("mode", ["commit", "worktree"])
def test_a_tracked_backslash_file_is_searched_as_git_spells_it(make_repo, mode):
    """``src\\evil.py`` is one tracked file: an absence over ``src*`` must see what it holds."""
    repo = make_repo("backslash")
    pin = repo.commit({"src/ok.py": "x = 1\n", "src\\evil.py": "compare_and_swap(x)\n"})
    with GitStore.open(repo.path) as store:
        snapshot = store.snapshot(pin if mode == "commit" else "worktree")
        assert "src\\evil.py" in snapshot.files()
        absent = evaluate(pred("- absent: {glob: '**', text: 'compare_and_swap('}"), snapshot)
        count = evaluate(pred("- count: {glob: '*', regex: 'compare_and_swap', equals: 0}"), snapshot)
    assert not absent.ok and not absent.error, absent.message
    assert [(h.path, h.line) for h in absent.matches] == [("src\\evil.py", 1)]
    assert not count.ok and count.actual == 1, count.message


def test_an_over_size_file_in_the_boundary_makes_absent_unknown(make_repo):
    repo = make_repo("big")
    pin = repo.commit({"src/small.py": "x = 1\n", "src/huge.py": "y = 2\n" * 4000})
    with GitStore.open(repo.path, max_file_bytes=1024) as store:
        snapshot = store.snapshot(pin)
        unknown = evaluate(pred("- absent: {glob: 'src/**', text: 'eval('}"), snapshot)
        opted = evaluate(pred("- absent: {glob: 'src/**', text: 'eval(', skip_unreadable: true}"), snapshot)
    assert not unknown.ok and unknown.error and "src/huge.py" in unknown.message
    assert opted.ok and "src/huge.py" in opted.message
