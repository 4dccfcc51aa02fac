"""Symbol evidence whose definition left its file: searched in the tree like a relocated quote."""

from __future__ import annotations

import textwrap

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
