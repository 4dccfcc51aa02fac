"""Symbol evidence whose definition left its file: searched in the tree like a relocated quote."""

from __future__ import annotations

import textwrap

import pytest

from pytest_memreport.checks import drift, symbolrefs
from pytest_memreport.gitstore import GitStore
from pytest_memreport.model import Evidence, EvidenceKind

OPERATIONS_TS = textwrap.dedent(
    """\
    export function putPage(store: Store, page: Page): number {
      const id = store.nextId();
      store.pages.set(id, page);
      return id;
    }

    export function dropPage(store: Store, id: number): void {
      store.pages.delete(id);
    }
    """
)

PUT_PAGE = OPERATIONS_TS.split("\n\n")[0] + "\n"
DROP_PAGE = OPERATIONS_TS.split("\n\n")[1]


def symbol(path: str, name: str) -> Evidence:
    return Evidence(EvidenceKind.SYMBOL, path, line=7, end_line=7, text=name, context=(path,))


def classify(repo, evidence, pin_sha, against="HEAD"):
    with GitStore.open(repo.path) as store:
        pin = symbolrefs.at_pin(evidence, store.snapshot(pin_sha))
        assert pin.ok, pin.message
        return symbolrefs.classify(evidence, pin, store, pin_sha, store.snapshot(against))


def test_a_function_moved_to_another_file_is_relocated_there(make_repo):
    repo = make_repo()
    pin = repo.commit({"src/core/operations.ts": OPERATIONS_TS, "src/core/ops/other.ts": "export const x = 1;\n"}, "pin")
    repo.commit({"src/core/operations.ts": DROP_PAGE,
                 "src/core/ops/pages.ts": "import { Store } from '../store';\n\n" + PUT_PAGE}, "split operations")

    result = classify(repo, symbol("src/core/operations.ts", "putPage"), pin)

    assert result.status == drift.RELOCATED
    assert result.path == "src/core/ops/pages.ts"
    assert (result.lines.start, result.lines.end) == (3, 7)
    assert not result.enclosing_changed
    assert result.as_json()["path"] == "src/core/ops/pages.ts"
    assert "relocated" in result.summary()


def test_a_moved_and_edited_function_is_relocated_with_its_body_change(make_repo):
    repo = make_repo()
    pin = repo.commit({"src/core/operations.ts": OPERATIONS_TS}, "pin")
    edited = PUT_PAGE.replace("store.nextId()", "store.allocate()")
    repo.commit({"src/core/operations.ts": DROP_PAGE, "src/core/ops/pages.ts": edited}, "split and rename the allocator")

    result = classify(repo, symbol("src/core/operations.ts", "putPage"), pin)

    assert result.status == drift.RELOCATED and result.path == "src/core/ops/pages.ts"
    assert result.enclosing_changed and "allocate" in result.enclosing_diff


def test_a_function_gone_from_the_whole_tree_is_deleted_and_blamed(make_repo):
    repo = make_repo()
    pin = repo.commit({"src/core/operations.ts": OPERATIONS_TS}, "pin")
    repo.commit({"README.md": "pages\n"}, "docs")
    culprit = repo.commit({"src/core/operations.ts": DROP_PAGE}, "remove putPage")

    result = classify(repo, symbol("src/core/operations.ts", "putPage"), pin)

    assert result.status == drift.DELETED
    assert result.broken_by.sha == culprit and result.broken_by.subject == "remove putPage"


def test_a_same_named_definition_of_another_kind_is_not_the_moved_one(make_repo):
    repo = make_repo()
    pin = repo.commit({"src/core/operations.ts": OPERATIONS_TS}, "pin")
    repo.commit({"src/core/operations.ts": DROP_PAGE,
                 "src/core/types.ts": "export class putPage {\n  size = 1;\n}\n"}, "drop putPage")

    result = classify(repo, symbol("src/core/operations.ts", "putPage"), pin)

    assert result.status == drift.DELETED


def test_a_definition_whose_body_changed_names_the_commit_that_changed_it(make_repo):
    repo = make_repo()
    pin = repo.commit({"src/core/operations.ts": OPERATIONS_TS}, "pin")
    repo.commit({"src/core/operations.ts": "// header\n" + OPERATIONS_TS}, "header")
    culprit = repo.commit({"src/core/operations.ts": "// header\n" + OPERATIONS_TS.replace("return id;", "return id + 1;")},
                          "off by one")
    repo.commit({"src/core/operations.ts": "// header, v2\n" + OPERATIONS_TS.replace("return id;", "return id + 1;")},
                "later")

    result = classify(repo, symbol("src/core/operations.ts", "putPage"), pin)

    assert result.status == drift.SHIFTED and result.enclosing_changed
    assert result.broken_by.sha == culprit


RELEASE_PY = textwrap.dedent(
    """\
    import subprocess


    def main():
        version = read_version()
        tag = f"v{version}"
        subprocess.run(["git", "tag", "-s", tag], check=True)
        subprocess.run(["git", "push", "origin", tag], check=True)
    """
)
CLI_PY = textwrap.dedent(
    """\
    def main() -> None:
        cli.main()
    """
)


def test_a_namesake_with_other_code_is_not_where_a_deleted_definition_went(make_repo):
    """A sweeping commit deletes the release script and edits the CLI, which has a ``main``
    of its own: the script's ``main`` is deleted, not relocated (flask's
    ``scripts/make-release.py``, in a merge that touched ``src/flask/cli.py``)."""
    repo = make_repo()
    pin = repo.commit({"scripts/make-release.py": RELEASE_PY, "src/app/cli.py": CLI_PY}, "pin")
    repo.delete("scripts/make-release.py")
    culprit = repo.commit({"src/app/cli.py": "import cli\n\n" + CLI_PY}, "release from CI")

    result = classify(repo, symbol("scripts/make-release.py", "main"), pin)

    assert result.status == drift.DELETED and result.broken_by.sha == culprit
    assert "function main at src/app/cli.py:3-4 has other code (was defined there at the pin already)" \
        in result.message


def test_a_new_namesake_with_other_code_is_not_where_a_deleted_definition_went(make_repo):
    """The commit that deletes the release script adds a CLI of its own beside it: a ``main``
    new since the pin, but sharing a quarter of the script's tokens, is other code."""
    repo = make_repo()
    pin = repo.commit({"scripts/make-release.py": RELEASE_PY}, "pin")
    repo.delete("scripts/make-release.py")
    culprit = repo.commit({"scripts/cli.py": CLI_PY}, "release from CI")

    result = classify(repo, symbol("scripts/make-release.py", "main"), pin)

    assert result.status == drift.DELETED and result.broken_by.sha == culprit
    assert "function main at scripts/cli.py:1-2 has other code (keeps 24% of its tokens)" in result.message


FIELD_JAVA = textwrap.dedent(
    """\
    package app.model;

    final class FieldView {
      private final java.lang.reflect.Field field;

      FieldView(java.lang.reflect.Field field) {
        this.field = field;
      }

      Object get(Object instance) throws IllegalAccessException {
        return field.get(instance);
      }
    }
    """
)
ARRAY_JAVA = textwrap.dedent(
    """\
    package app.model;

    public final class Row {
      private final java.util.List<Cell> cells = new java.util.ArrayList<>();

      public Cell get(int i) {
        return cells.get(i);
      }
    }
    """
)


def test_a_namesake_defined_there_at_the_pin_is_not_where_a_deleted_method_went(make_repo):
    """A one-line accessor removed as unused, beside another class's accessor of the same
    name that was there all along: the two share most of their tokens (the punctuation any
    two Java accessors share), yet the method is deleted, the namesake named (gson's
    ``FieldAttributes.get``, once reported relocated to ``JsonArray.get``)."""
    repo = make_repo()
    pin = repo.commit({"src/app/model/FieldView.java": FIELD_JAVA, "src/app/model/Row.java": ARRAY_JAVA}, "pin")
    unused = FIELD_JAVA.replace(FIELD_JAVA[FIELD_JAVA.index("\n  Object get"):FIELD_JAVA.rindex("\n}")], "")
    culprit = repo.commit({"src/app/model/FieldView.java": unused}, "remove the unused accessor")

    result = classify(repo, symbol("src/app/model/FieldView.java", "get"), pin)

    assert result.status == drift.DELETED and result.broken_by.sha == culprit
    assert "method Row.get at src/app/model/Row.java:6-8 has other code (was defined there at the pin already)" \
        in result.message


LOADER_PY = "import os\n\n\nclass LimitedLoader:\n    def __init__(self, loader):\n        self.loader = loader\n"
WRAPPER_PY = "class Wrapper:\n    def __init__(self, value):\n        self.value = value\n"


def test_a_class_a_later_test_file_adds_is_not_where_a_fixtures_class_went(make_repo):
    """A test file added since the pin, which the commit removing the fixture never touched,
    has a class whose ``__init__`` shares most of its tokens with the fixture's: other code
    (flask's ``LimitedLoader.__init__``, once "relocated" to a class of ``tests/test_json.py``)."""
    repo = make_repo()
    pin = repo.commit({"tests/conftest.py": LOADER_PY}, "pin")
    repo.commit({"tests/test_json.py": WRAPPER_PY}, "json tests")
    culprit = repo.commit({"tests/conftest.py": "import os\n"}, "drop the limited loader")

    result = classify(repo, symbol("tests/conftest.py", "__init__"), pin)

    assert result.status == drift.DELETED and result.broken_by.sha == culprit
    assert "method Wrapper.__init__ at tests/test_json.py:2-3 has other code (was not moved there by the " \
           "commit that removed it)" in result.message


WORD_RS = ("use crate::error::NoError;\n\npub struct WordMatcher {\n    words: Vec<String>,\n}\n\n"
           "impl Matcher for WordMatcher {\n    type Error = NoError;\n\n"
           "    fn count_words(&self) -> usize {\n        self.words.len()\n    }\n}\n")
REGEX_RS = ("use crate::error::NoError;\n\npub struct RegexMatcher {\n    pattern: String,\n}\n\n"
            "impl Matcher for RegexMatcher {\n    type Error = NoError;\n\n"
            "    fn pattern_length(&self) -> usize {\n        self.pattern.len()\n    }\n}\n")


def test_a_namesake_the_removing_commit_never_touched_is_not_where_it_went(make_repo):
    """A definition rewritten as it moved is followed into a file its removing commit
    created; a namesake elsewhere with the same kind of code is not that file."""
    repo = make_repo()
    similar = PUT_PAGE.replace("store.pages.set(id, page);", "store.cache.set(id, page);")
    pin = repo.commit({"src/core/operations.ts": OPERATIONS_TS, "vendor/pages/cache.ts": similar}, "pin")
    repo.commit({"src/core/operations.ts": DROP_PAGE}, "drop putPage")

    result = classify(repo, symbol("src/core/operations.ts", "putPage"), pin)

    assert result.status == drift.DELETED
    assert "vendor/pages/cache.ts" in result.message and "(was not moved there by the commit that removed it)" in result.message


def test_a_definition_moved_and_edited_is_followed_through_its_new_files_later_rename(make_repo):
    """The commit that moved ``putPage`` (rewriting it) created ``scaffold.ts``; a later
    commit renamed that file into ``sansio/``: the file the move created is looked for
    under its name at the against-revision (flask's ``after_request``, moved into
    ``scaffold.py``, which later became ``sansio/scaffold.py``)."""
    repo = make_repo()
    pin = repo.commit({"src/core/operations.ts": OPERATIONS_TS}, "pin")
    edited = PUT_PAGE.replace("store.nextId()", "store.allocate()").replace("return id;", "return id + 0;")
    repo.commit({"src/core/operations.ts": DROP_PAGE, "src/shared/scaffold.ts": edited}, "a shared scaffold")
    repo.move("src/shared/scaffold.ts", "src/shared/sansio/scaffold.ts")
    repo.commit(message="sans-io")

    result = classify(repo, symbol("src/core/operations.ts", "putPage"), pin)

    assert result.status == drift.RELOCATED and result.path == "src/shared/sansio/scaffold.ts"
    assert result.enclosing_changed


COUNTER_RS = textwrap.dedent(
    """\
    pub struct CounterWriter { count: u64, total_count: u64 }

    impl CounterWriter {
        pub fn clear(&mut self) {
            self.count = 0;
            self.total_count = 0;
        }
    }
    """
)
REPLACER_RS = textwrap.dedent(
    """\
    pub struct Replacer { space: Option<Space> }

    impl Replacer {
        pub fn clear(&mut self) {
            if let Some(ref mut space) = self.space {
                space.dst.clear();
                space.matches.clear();
            }
        }
    }
    """
)


@pytest.mark.parametrize(("gone", "beside", "name", "said"), [
    # ripgrep's ``CounterWriter::clear`` left with its file; ``Replacer::clear`` in the same
    # folder stood there at the pin already (and keeps 37% of its words): other code
    (("src/printer/counter.rs", COUNTER_RS), ("src/printer/util.rs", REPLACER_RS), "clear",
     "method Replacer.clear at src/printer/util.rs:4-9 has other code (was defined there at the pin already)"),
    # ``type Error = NoError;`` has too few letters and digits to tell one copy from another:
    # the one another matcher had at the pin is not where the deleted matcher's went
    # (ripgrep's ``WordMatcher``, once "relocated" to three copies)
    (("src/regex/word.rs", WORD_RS), ("src/regex/matcher.rs", REGEX_RS), "Error",
     "type RegexMatcher.Error at src/regex/matcher.rs:8 has other code (was defined there at the pin already)"),
], ids=["another-types-method", "identical-plain-definition"])
def test_a_namesake_that_stood_beside_it_at_the_pin_is_not_where_it_went(make_repo, gone, beside, name, said):
    repo = make_repo()
    pin = repo.commit(dict([gone, beside]), "pin")
    repo.delete(gone[0])
    repo.commit({beside[0]: beside[1] + "\n// the other one is gone\n"}, "drop it")

    result = classify(repo, symbol(gone[0], name), pin)

    assert result.status == drift.DELETED
    assert said in result.message


def test_a_method_rewritten_as_its_class_moved_is_followed_by_its_qualified_name(make_repo):
    repo = make_repo()
    pin = repo.commit({"src/printer/counter.rs": COUNTER_RS, "src/printer/util.rs": REPLACER_RS}, "pin")
    repo.delete("src/printer/counter.rs")
    rewritten = COUNTER_RS.replace("self.count = 0;\n        self.total_count = 0;",
                                   "debug_assert!(self.total_count >= self.count, \"counts out of order\");\n"
                                   "        let (count, total) = (&mut self.count, &mut self.total_count);\n"
                                   "        *count = u64::default();\n        *total = u64::default();")
    repo.commit({"src/printer/util.rs": REPLACER_RS + "\n" + rewritten}, "the counter joins the utilities")

    result = classify(repo, symbol("src/printer/counter.rs", "clear"), pin)

    assert result.status == drift.RELOCATED
    assert result.path == "src/printer/util.rs" and result.symbol.name == "CounterWriter.clear"
