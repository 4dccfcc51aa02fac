"""Line ranges mapped through git's own hunks (one diff-tree -p -U0 -M per pair)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_memreport.checks import drift, verify
from pytest_memreport.checks.drift import linemap
from pytest_memreport.gitstore import GitStore
from pytest_memreport.gitstore.hunks import parse
from pytest_memreport.model import Evidence, EvidenceKind, LineRange
from pytest_memreport.text import symbols

BODY = "".join(f"line {i} = {i * 3}\n" for i in range(1, 41))


def lines_of(text: str, lines: LineRange) -> list[str]:
    return text.splitlines()[lines.start - 1 : lines.end]


def test_insertions_and_deletions_above_shift_and_edits_inside_touch(make_repo):
    repo = make_repo()
    pin = repo.commit({"a.py": BODY, "b.py": BODY})
    rows = BODY.splitlines(keepends=True)
    edited = rows[:2] + ["new 1\n", "new 2\n", "new 3\n"] + rows[2:5] + rows[7:20] + ["changed\n"] + rows[21:]
    head = repo.commit({"a.py": "".join(edited)})
    with GitStore.open(repo.path) as store:
        change = store.file_change(pin, head, "a.py")
        assert change.new_path == "a.py"
        assert linemap.map_range(change, LineRange(1, 2)) == LineRange(1, 2)  # above every hunk
        assert linemap.map_range(change, LineRange(3, 5)) == LineRange(6, 8)  # 3 inserted above
        assert linemap.map_range(change, LineRange(6, 7)) is None  # deleted
        assert linemap.map_range(change, LineRange(8, 19)) == LineRange(9, 20)  # +3 -2
        assert linemap.map_range(change, LineRange(19, 21)) is None  # line 21 changed
        assert linemap.map_range(change, LineRange(30, 30)) == LineRange(31, 31)
        assert store.file_change(pin, head, "b.py") is None  # unchanged: not in the diff


def test_a_file_asked_for_after_the_pairs_diff_ran_gets_a_diff_of_its_own(make_repo):
    """The pair's line diff runs ahead of the checks (``ask_pair``), limited to the files
    expected then; a file asked for later is diffed on its own, never read as unchanged."""
    repo = make_repo()
    pin = repo.commit({"a.py": BODY, "b.py": BODY})
    head = repo.commit({"a.py": "# top\n" + BODY, "b.py": BODY + "# end\n"})
    with GitStore.open(repo.path) as store:
        store.expect_changes(pin, head, {"a.py"})
        store.ask_pair(pin, head)
        before = store.git_processes
        assert store.file_change(pin, head, "a.py").hunks  # the diff already run answers
        assert store.git_processes == before
        late = store.file_change(pin, head, "b.py")
        assert late is not None and late.new_path == "b.py" and late.hunks
        assert store.file_change(pin, head, "b.py") == late
        assert store.git_processes == before + 1  # one more diff, once


def test_the_pairs_first_parent_log_is_asked_ahead_only_where_an_expected_file_changed(make_repo):
    """Blame reads a changed file's versions from the pair's first-parent log: asked with
    the pair's diff (on the engine's thread), the checks do not wait for it later; where
    none of the expected files changed, nothing will blame, and no log is asked."""
    repo = make_repo()
    pin = repo.commit({"a.py": BODY, "b.py": BODY})
    repo.commit({"b.py": BODY + "# one\n"})
    head = repo.commit({"a.py": "# top\n" + BODY})
    with GitStore.open(repo.path) as store:
        store.expect_changes(pin, head, {"a.py"})
        store.ask_pair(pin, head)
        before = store.git_processes
        versions = store.file_versions(pin, head, "a.py")
        assert [path for _, path, _ in versions] == ["a.py"]  # the one commit that changed it
        assert store.git_processes == before  # the log was there already
    with GitStore.open(repo.path) as store:
        store.expect_changes(pin, head, {"c.py"})  # cited, changed by no commit
        store.ask_pair(pin, head)
        before = store.git_processes
        store.file_versions(pin, head, "a.py")
        assert store.git_processes == before + 1  # the log, asked only now


def test_a_renamed_file_with_edits_and_an_unusual_name_maps_to_its_new_path(make_repo):
    repo = make_repo()
    pin = repo.commit({"old dir/caf\u00e9 \"x\".py": BODY})
    repo.move("old dir/caf\u00e9 \"x\".py", "new/caf\u00e9 \"x\".py")
    repo.write({"new/caf\u00e9 \"x\".py": "# header\n" + BODY})
    head = repo.commit(message="move and edit")
    with GitStore.open(repo.path) as store:
        change = store.file_change(pin, head, "old dir/caf\u00e9 \"x\".py")
        assert change.new_path == "new/caf\u00e9 \"x\".py"
        assert linemap.map_range(change, LineRange(10, 12)) == LineRange(11, 13)


def test_binary_files_and_insertions_inside_a_range_are_not_mapped(make_repo):
    repo = make_repo()
    pin = repo.commit({"a.py": BODY, "blob.bin": b"\0\1\2" * 10})
    rows = BODY.splitlines(keepends=True)
    head = repo.commit({"a.py": "".join(rows[:10] + ["wedge\n"] + rows[10:]), "blob.bin": b"\0\3" * 9})
    with GitStore.open(repo.path) as store:
        change = store.file_change(pin, head, "a.py")
        assert linemap.map_range(change, LineRange(9, 12)) is None
        assert linemap.map_range(change, LineRange(10, 10)) == LineRange(10, 10)
        assert linemap.map_range(change, LineRange(11, 11)) == LineRange(12, 12)
        assert store.file_change(pin, head, "blob.bin").binary
        assert linemap.map_range(store.file_change(pin, head, "blob.bin"), LineRange(1, 1)) is None


def test_a_patch_is_read_by_position_not_by_what_its_lines_say():
    patch = (b"diff --git a/x.py b/x.py\nindex 1..2 100644\n--- a/x.py\n+++ b/x.py\n"
             b"@@ -3 +3,2 @@\n--- a/not-a-header\n+diff --gitless\n+++ b/nor-this\n"
             b"diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+x\n")
    changes = parse(patch)
    assert set(changes) == {"x.py", "new.py"}
    assert changes["x.py"].new_path == "x.py" and len(changes["x.py"].hunks) == 1
    assert changes["new.py"].old_path is None


def test_drift_of_a_quote_below_an_edit_is_shifted_by_the_diff(make_repo):
    repo = make_repo()
    pin = repo.commit({"a.py": BODY})
    head = repo.commit({"a.py": "import os\nimport sys\n" + BODY})
    evidence = Evidence(EvidenceKind.QUOTE, "a.py", 1, 1, text="line 20 = 60")
    with GitStore.open(repo.path) as store:
        found = verify.check_at_pin(evidence, store.snapshot(pin))
        result = drift.classify(evidence, found, store, pin, store.snapshot(head))
    assert (result.status, result.lines) == ("shifted", LineRange(22, 22))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=st.lists(st.tuples(st.integers(0, 39), st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=6),
       start=st.integers(1, 40), length=st.integers(0, 5))
def test_a_mapped_range_holds_the_very_lines_it_held_at_the_pin(make_repo, edits, start, length):
    rows = [f"row {i}\n" for i in range(40)]
    new = list(rows)
    for at, delete, insert in sorted(edits, reverse=True):
        new[at : at + delete] = [f"added {at}.{k}\n" for k in range(insert)]
    repo = make_repo(f"prop{abs(hash((tuple(edits), start, length)))}")
    pin = repo.commit({"f.txt": "".join(rows)})
    head = repo.commit({"f.txt": "".join(new) or "\n"})
    old_range = LineRange(start, min(40, start + length))
    with GitStore.open(repo.path) as store:
        change = store.file_change(pin, head, "f.txt")
    if change is None:
        return  # the edits cancelled out: the same blob
    moved = linemap.map_range(change, old_range)
    if moved is not None:
        assert lines_of("".join(new), moved) == lines_of("".join(rows), old_range)


def test_an_untouched_enclosing_definition_is_shifted_without_a_parse_and_equals_a_parse(make_repo):
    code = "import os\n\n\ndef first(a):\n    return a + 1\n\n\ndef second(b):\n    total = b * 2\n    return total\n"
    repo = make_repo()
    pin = repo.commit({"m.py": code})
    head = repo.commit({"m.py": "import sys\n" + code.replace("return a + 1", "return a + 2")})
    evidence = Evidence(EvidenceKind.QUOTE, "m.py", 1, 1, text="total = b * 2")
    with GitStore.open(repo.path) as store:
        found = verify.check_at_pin(evidence, store.snapshot(pin), with_symbol=True)
        parses = symbols.stats().parses
        result = drift.classify(evidence, found, store, pin, store.snapshot(head))
        assert symbols.stats().parses == parses  # the new file was not parsed
        new_text = store.snapshot(head).read("m.py").text
    parsed = symbols.enclosing(new_text, "m.py", result.lines)
    assert (result.status, result.lines) == ("shifted", LineRange(10, 10))
    assert result.symbol == parsed and result.symbol.lines == LineRange(9, 11)
    assert not result.enclosing_changed
    # the edited definition is not shifted by the diff: it is parsed, and said to have changed
    evidence = Evidence(EvidenceKind.QUOTE, "m.py", 1, 1, text="def first(a):")
    with GitStore.open(repo.path) as store:
        found = verify.check_at_pin(evidence, store.snapshot(pin), with_symbol=True)
        result = drift.classify(evidence, found, store, pin, store.snapshot(head))
    assert result.status == "shifted" and result.enclosing_changed
