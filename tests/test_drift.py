"""drift.classify over real target repositories: every drift class, reproduced by real commits.

Each case builds a repository with :class:`RepoBuilder`, checks the evidence at
its pin with ``verify.check_at_pin`` and classifies it at another revision. It
asserts the exact class, where the evidence is now, and that the target
repository is byte-for-byte what it was before the run.
"""

from __future__ import annotations

import itertools
import json
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_memreport.checks import drift, verify
from pytest_memreport.gitstore import GitStore
from pytest_memreport.model import Evidence, EvidenceKind, LineRange


def quote(path: str, text: str) -> Evidence:
    return Evidence(EvidenceKind.QUOTE, path, line=10, end_line=10, text=text)


def cited(kind: EvidenceKind, path: str, lines: LineRange | None = None) -> Evidence:
    return Evidence(kind, path, line=20, end_line=20, cited_lines=lines)


def classify(repo, evidence: Evidence, pin_sha: str, against: str = "HEAD") -> drift.DriftResult:
    """Check at the pin, classify at ``against``, and prove the target untouched."""
    # state() runs `git status`, which may refresh a stale .git/index itself:
    # the second call is the settled baseline.
    repo.state()
    before = repo.state()
    with GitStore.open(repo.path) as store:
        pin = verify.check_at_pin(evidence, store.snapshot(pin_sha))
        assert pin.ok, pin.message
        result = drift.classify(evidence, pin, store, pin_sha, store.snapshot(against))
    assert repo.state() == before
    json.dumps(result.as_json())  # JSON-serialisable whatever the class
    return result


LIMITS = '''"""Limits of the cache."""

MAX_ENTRIES = 200
MAX_LEN = 600


def clamp(n):
    return min(n, MAX_ENTRIES)
'''

LIMITS_QUOTE = "MAX_ENTRIES = 200 MAX_LEN = 600"


# -- quotations in their own file -------------------------------------------------------


def test_quote_edited_in_place_is_changed_with_nearest_candidate_and_diff(make_repo):
    repo = make_repo()
    pin = repo.commit({"pkg/limits.py": LIMITS}, "pin")
    repo.commit({"pkg/limits.py": LIMITS.replace("MAX_LEN = 600", "MAX_LEN = 800")}, "raise the limit")

    result = classify(repo, quote("pkg/limits.py", LIMITS_QUOTE), pin)

    assert result.status == drift.CHANGED
    assert result.path == "pkg/limits.py" and result.lines is None
    assert result.old_lines == LineRange(3, 4)
    assert result.candidate is not None and result.candidate.lines == LineRange(3, 4)
    assert result.candidates == (drift.Place("pkg/limits.py", LineRange(3, 4)),)
    assert "600" in result.diff and "800" in result.diff
    explained = "\n".join(result.explain())
    assert "pkg/limits.py:3-4" in explained  # where it was at the pin
    assert "    3 | MAX_ENTRIES = 200" in explained and "    4 | MAX_LEN = 800" in explained
    assert result.as_json()["candidates"] == [{"path": "pkg/limits.py", "lines": (3, 4)}]


def test_lines_inserted_above_shift_the_quote_by_exactly_that_much(make_repo):
    repo = make_repo()
    pin = repo.commit({"pkg/limits.py": LIMITS}, "pin")
    header = "import os\nimport sys\n\nDEBUG = False\n\n"
    repo.commit({"pkg/limits.py": header + LIMITS}, "imports")

    result = classify(repo, quote("pkg/limits.py", LIMITS_QUOTE), pin)

    assert result.status == drift.SHIFTED
    assert (result.path, result.lines, result.old_lines) == ("pkg/limits.py", LineRange(8, 9), LineRange(3, 4))
    assert result.summary() == "shifted 3-4 → 8-9"
    assert result.as_json()["lines"] == (8, 9) and result.as_json()["old_lines"] == (3, 4)


def test_edit_elsewhere_in_the_file_leaves_the_quote_unchanged(make_repo):
    repo = make_repo()
    pin = repo.commit({"pkg/limits.py": LIMITS}, "pin")
    repo.commit({"pkg/limits.py": LIMITS + "\n\ndef grow(n):\n    return n * 2\n"}, "more")

    result = classify(repo, quote("pkg/limits.py", LIMITS_QUOTE), pin)

    assert result.status == drift.UNCHANGED
    assert (result.path, result.lines) == ("pkg/limits.py", LineRange(3, 4))
    assert result.summary() == "unchanged at lines 3-4"


def test_with_several_occurrences_the_one_nearest_the_old_position_is_taken(make_repo):
    repo = make_repo()
    body = "".join(f"def f{i}():\n    pass\n\n" for i in range(6))
    text = "retry = 3\n" + body + "retry = 3\n"  # lines 1 and 20
    pin = repo.commit({"conf.py": text}, "pin")
    repo.commit({"conf.py": "# header\n" + text}, "header")
    evidence = Evidence(EvidenceKind.QUOTE, "conf.py", 10, 10, text="retry = 3", cited_lines=LineRange(20, 20))

    result = classify(repo, evidence, pin)

    assert result.old_lines == LineRange(20, 20)
    assert (result.status, result.lines) == (drift.SHIFTED, LineRange(21, 21))


# -- moves -------------------------------------------------------------------------------


def _package() -> dict[str, str]:
    cache = "".join(f"# cache note {i}\n" for i in range(12)) + (
        "class Cache:\n"
        "    def get(self, key):\n"
        "        entry = self.entries.get(key)\n"
        "        if entry.stale:\n"
        "            entry.drop()\n"
        "        return entry\n"
    )
    store = "".join(f"STORE_SETTING_{i} = {i}\n" for i in range(15)) + "def persist(blob):\n    return blob.save()\n"
    util = "".join(f"def util_{i}(x):\n    return x + {i}\n\n" for i in range(8))
    return {"pkg/__init__.py": "VERSION = '1.0'\n", "pkg/cache.py": cache, "pkg/store.py": store, "pkg/util.py": util}


def test_whole_tree_moved_under_a_new_folder_with_small_edits_is_moved(make_repo):
    repo = make_repo()
    files = _package()
    pin = repo.commit(files, "pin")
    for old in files:
        repo.move(old, "src/" + old)
    edited = "# moved with the rest\n" + files["pkg/cache.py"].replace("# cache note 3\n", "# cache note three\n")
    repo.commit({"src/pkg/cache.py": edited, "src/pkg/util.py": files["pkg/util.py"] + "UTIL = 1\n"}, "src layout")

    result = classify(repo, quote("pkg/cache.py", "if entry.stale: entry.drop()"), pin)
    assert result.status == drift.MOVED
    assert (result.path, result.lines, result.old_lines) == ("src/pkg/cache.py", LineRange(17, 18), LineRange(16, 17))
    assert result.summary() == "moved pkg/cache.py → src/pkg/cache.py (lines 17-18)"

    untouched = classify(repo, quote("pkg/store.py", "def persist(blob): return blob.save()"), pin)
    assert untouched.status == drift.MOVED
    assert (untouched.path, untouched.lines) == ("src/pkg/store.py", LineRange(16, 17))


def test_file_moved_almost_unchanged_then_rewritten_is_followed_through_history(make_repo):
    repo = make_repo()
    kept = "def checksum(data):\n    total = sum(data) % 65521\n    return total\n"
    original = "".join(f"OPTION_{i} = 'value number {i}'\n" for i in range(40)) + kept
    pin = repo.commit({"pkg/engine.py": original}, "pin")
    repo.move("pkg/engine.py", "core/engine.py")
    repo.commit({"core/engine.py": original.replace("OPTION_7 = ", "OPTION_SEVEN = ")}, "move at ~98%")
    rewritten = "".join(f"def handler_{i}(event):\n    return event.kind == {i}\n" for i in range(20)) + kept
    head = repo.commit({"core/engine.py": rewritten}, "rewrite")
    with GitStore.open(repo.path) as store:  # the whole diff no longer sees a rename
        assert "pkg/engine.py" not in store.renames(pin, head)

    result = classify(repo, quote("pkg/engine.py", "total = sum(data) % 65521 return total"), pin)
    assert result.status == drift.MOVED
    assert (result.path, result.lines, result.old_lines) == ("core/engine.py", LineRange(42, 43), LineRange(42, 43))


def test_quote_rewritten_in_a_followed_file_is_changed_in_the_renamed_file(make_repo):
    repo = make_repo()
    original = "".join(f"OPTION_{i} = 'value number {i}'\n" for i in range(40)) + "LIMIT = 65521\n"
    pin = repo.commit({"pkg/engine.py": original}, "pin")
    repo.move("pkg/engine.py", "core/engine.py")
    repo.commit({"core/engine.py": original.replace("OPTION_7 = ", "OPTION_SEVEN = ")}, "move at ~98%")
    rewritten = "".join(f"def handler_{i}(event):\n    return event.kind == {i}\n" for i in range(20)) + "LIMIT = 4096\n"
    repo.commit({"core/engine.py": rewritten}, "rewrite")

    result = classify(repo, quote("pkg/engine.py", "LIMIT = 65521"), pin)
    assert result.status == drift.CHANGED
    assert result.path == "core/engine.py"
    assert result.candidates == (drift.Place("core/engine.py", LineRange(41, 41)),)
    assert "4096" in result.diff
    assert "renamed from pkg/engine.py" in result.message


def test_function_moved_to_another_file_is_relocated(make_repo):
    repo = make_repo()
    helper = "def normalise(name):\n    cleaned = name.strip().lower()\n    return cleaned.replace(' ', '_')\n"
    main = "import os\n\n\n" + helper + "\n\ndef main():\n    return normalise(os.getcwd())\n"
    pin = repo.commit({"app/main.py": main}, "pin")
    repo.commit(
        {
            "app/main.py": "import os\n\nfrom app.text import normalise\n\n\ndef main():\n    return normalise(os.getcwd())\n",
            "app/text.py": '"""Text helpers."""\n\n\n' + helper,
        },
        "extract helper",
    )

    result = classify(repo, quote("app/main.py", "cleaned = name.strip().lower() return cleaned.replace(' ', '_')"), pin)

    assert result.status == drift.RELOCATED
    assert (result.path, result.lines, result.old_lines) == ("app/text.py", LineRange(5, 6), LineRange(5, 6))
    assert result.candidates == (drift.Place("app/text.py", LineRange(5, 6)),)
    assert result.symbol is not None and result.symbol.name == "normalise"
    assert not result.enclosing_changed
    assert result.summary() == "relocated to app/text.py:5-6"


def test_relocation_reports_every_place_the_quote_now_occurs(make_repo):
    """(A quotation of 40 letters and digits or more is followed anywhere, into a file of
    another language too; a plainer one only as far as git blame -C would.)"""
    repo = make_repo()
    pin = repo.commit({"lib/retry.py": "RETRY_BACKOFF_SECONDS_FOR_EVERY_ATTEMPT = [1, 2, 4, 8, 16]\n", "lib/other.py": "X = 1\n"}, "pin")
    repo.delete("lib/retry.py")
    # Both new files are mostly other code, so git pairs neither with the deleted file.
    filler = "".join(f"STEP_{i} = {i}\n" for i in range(30))
    repo.commit(
        {"net/http.py": "import time\nRETRY_BACKOFF_SECONDS_FOR_EVERY_ATTEMPT = [1, 2, 4, 8, 16]\n" + filler, "net/retry.go": "// RETRY_BACKOFF_SECONDS_FOR_EVERY_ATTEMPT = [1, 2, 4, 8, 16]\n" + filler},
        "split",
    )

    result = classify(repo, quote("lib/retry.py", "RETRY_BACKOFF_SECONDS_FOR_EVERY_ATTEMPT = [1, 2, 4, 8, 16]"), pin)

    assert result.status == drift.RELOCATED
    assert set(result.candidates) == {
        drift.Place("net/http.py", LineRange(2, 2)),
        drift.Place("net/retry.go", LineRange(1, 1)),
    }
    assert result.candidates[0] == drift.Place("net/http.py", LineRange(2, 2))  # same extension first
    assert result.as_json()["candidates"][0] == {"path": "net/http.py", "lines": (2, 2)}


def test_function_moved_and_reformatted_is_relocated_by_tokens(make_repo):
    repo = make_repo()
    helper = "def scale(values, factor):\n    return [round(v * factor, 2) for v in values]\n"
    pin = repo.commit({"app/main.py": "import math\n\n\n" + helper, "app/other.py": "def scale_all():\n    pass\n"}, "pin")
    wrapped = (
        "def scale(values, factor):\n    return [\n        round(\n            v * factor,\n            2,\n"
        "        )\n        for v in values\n    ]\n"
    )
    repo.commit({"app/main.py": "import math\n", "app/numbers.py": "import os\n\n\n" + wrapped}, "extract + black")

    result = classify(repo, quote("app/main.py", "return [round(v * factor, 2) for v in values]"), pin)

    assert result.status == drift.RELOCATED and result.by_tokens
    assert (result.path, result.lines) == ("app/numbers.py", LineRange(5, 11))
    assert result.symbol_name() == "function scale" and not result.enclosing_changed


def test_deleted_file_whose_quote_is_nowhere_is_deleted(make_repo):
    repo = make_repo()
    pin = repo.commit({"pkg/legacy.py": "def old_api():\n    return 'v1'\n", "pkg/new.py": "def api():\n    return 'v2'\n"}, "pin")
    repo.delete("pkg/legacy.py")
    repo.commit(message="drop legacy")

    result = classify(repo, quote("pkg/legacy.py", "return 'v1'"), pin)

    assert result.status == drift.DELETED
    assert (result.path, result.lines, result.candidates) == (None, None, ())
    assert result.old_lines == LineRange(2, 2)
    assert any("pkg/legacy.py" in line for line in result.explain())


# -- reformatting --------------------------------------------------------------------------


def test_whitespace_reflow_never_fails(make_repo):
    repo = make_repo()
    before = (
        "function total(items) {\n"
        "  let sum = 0;\n"
        "  for (const item of items) { sum += item.price; }\n"
        "  return sum;\n"
        "}\n"
    )
    after = (
        "function total(items) {\n"
        "    let sum = 0;\n"
        "    for (const item of items) {\n"
        "        sum += item.price;\n"
        "    }\n"
        "    return sum;\n"
        "}\n"
    )
    pin = repo.commit({"web/cart.js": before}, "pin")
    repo.commit({"web/cart.js": after}, "prettier")

    result = classify(repo, quote("web/cart.js", "let sum = 0; for (const item of items) { sum += item.price; } return sum;"), pin)

    assert result.status == drift.SHIFTED
    assert (result.path, result.lines, result.old_lines) == ("web/cart.js", LineRange(2, 6), LineRange(2, 4))
    assert not result.enclosing_changed  # layout is not a token change


def test_wrapped_arguments_and_trailing_comma_are_found_by_tokens(make_repo):
    repo = make_repo()
    before = "from calc import compute\n\n\ndef run(alpha, beta, gamma):\n    result = compute(alpha, beta, gamma)\n    return result\n"
    after = (
        "from calc import compute\n\n\ndef run(alpha, beta, gamma):\n"
        "    result = compute(\n        alpha,\n        beta,\n        gamma,\n    )\n    return result\n"
    )
    pin = repo.commit({"calc/run.py": before}, "pin")
    repo.commit({"calc/run.py": after}, "black")

    result = classify(repo, quote("calc/run.py", "result = compute(alpha, beta, gamma)"), pin)

    assert result.status == drift.SHIFTED
    assert (result.path, result.lines, result.old_lines) == ("calc/run.py", LineRange(5, 9), LineRange(5, 5))
    assert result.by_tokens and result.as_json()["found_by"] == "tokens"
    assert "matched by tokens" in result.summary()
    assert not result.enclosing_changed


# -- the enclosing definition ------------------------------------------------------------------

STORE = (
    "class Store:\n"
    "    def get(self, key):\n"
    "        self.hits += 1\n"
    "        value = self.data[key]\n"
    "        return value\n"
    "\n"
    "    def put(self, key, value):\n"
    "        self.data[key] = value\n"
)


def test_enclosing_definition_changed_around_a_quote_that_holds(make_repo):
    repo = make_repo()
    pin = repo.commit({"kv/store.py": STORE}, "pin")
    repo.commit({"kv/store.py": STORE.replace("self.hits += 1", "self.misses += 1")}, "count misses")

    result = classify(repo, quote("kv/store.py", "value = self.data[key] return value"), pin)

    assert result.status == drift.UNCHANGED and result.lines == LineRange(4, 5)
    assert result.enclosing_changed
    assert result.symbol_name() == "method Store.get"
    assert "hits" in result.enclosing_diff and "misses" in result.enclosing_diff
    assert result.as_json()["enclosing_changed"] is True
    assert any("Store.get" in line for line in result.explain())


def test_edit_in_a_sibling_definition_does_not_flag_the_enclosing_one(make_repo):
    repo = make_repo()
    pin = repo.commit({"kv/store.py": STORE}, "pin")
    repo.commit({"kv/store.py": STORE.replace("self.data[key] = value", "self.data[key] = value.copy()")}, "copy")

    result = classify(repo, quote("kv/store.py", "value = self.data[key] return value"), pin)

    assert (result.status, result.lines) == (drift.UNCHANGED, LineRange(4, 5))
    assert result.symbol_name() == "method Store.get"
    assert not result.enclosing_changed and "enclosing_changed" not in result.as_json()


def test_quote_no_longer_inside_its_definition_flags_the_enclosing_change(make_repo):
    repo = make_repo()
    pin = repo.commit({"job.py": "def setup():\n    queue = make_queue(size=8)\n    return queue\n"}, "pin")
    repo.commit({"job.py": "queue = make_queue(size=8)\n"}, "module level")

    result = classify(repo, quote("job.py", "queue = make_queue(size=8)"), pin)

    assert (result.status, result.lines, result.old_lines) == (drift.SHIFTED, LineRange(1, 1), LineRange(2, 2))
    assert result.enclosing_changed
    assert result.symbol_name() == "module-assignment queue"
    assert result.enclosing_diff.startswith("function setup is now module-assignment queue")
    assert any("was function setup" in line for line in result.explain())


# -- the working tree --------------------------------------------------------------------------


def test_working_tree_only_edit_is_seen_against_worktree(make_repo):
    repo = make_repo()
    pin = repo.commit({"pkg/limits.py": LIMITS}, "pin")
    (repo.path / "pkg/limits.py").write_text("import os\n\n" + LIMITS, encoding="utf-8")  # not staged

    at_head = classify(repo, quote("pkg/limits.py", LIMITS_QUOTE), pin, against="HEAD")
    assert (at_head.status, at_head.lines) == (drift.UNCHANGED, LineRange(3, 4))

    in_tree = classify(repo, quote("pkg/limits.py", LIMITS_QUOTE), pin, against="worktree")
    assert in_tree.rev == "worktree"
    assert (in_tree.status, in_tree.path, in_tree.lines) == (drift.SHIFTED, "pkg/limits.py", LineRange(5, 6))

    (repo.path / "pkg/limits.py").write_text(LIMITS.replace("200", "250"), encoding="utf-8")
    edited = classify(repo, quote("pkg/limits.py", LIMITS_QUOTE), pin, against="worktree")
    assert edited.status == drift.CHANGED and edited.candidates == (drift.Place("pkg/limits.py", LineRange(3, 4)),)


def test_worktree_follows_committed_renames_then_reads_the_working_file(make_repo):
    repo = make_repo()
    files = _package()
    pin = repo.commit(files, "pin")
    repo.move("pkg/store.py", "pkg/persistence.py")
    repo.commit(message="rename")
    path = repo.path / "pkg/persistence.py"
    path.write_text("# edited, uncommitted\n" + path.read_text(encoding="utf-8"), encoding="utf-8")

    result = classify(repo, quote("pkg/store.py", "def persist(blob): return blob.save()"), pin, against="worktree")

    assert (result.status, result.path, result.lines) == (drift.MOVED, "pkg/persistence.py", LineRange(17, 18))


def test_uncommitted_move_in_the_working_tree_is_relocated(make_repo):
    repo = make_repo()
    pin = repo.commit(_package(), "pin")
    (repo.path / "pkg/store.py").rename(repo.path / "pkg/storage.py")  # plain mv, git not told

    result = classify(repo, quote("pkg/store.py", "def persist(blob): return blob.save()"), pin, against="worktree")

    assert (result.status, result.path, result.lines) == (drift.RELOCATED, "pkg/storage.py", LineRange(16, 17))


# -- cost ------------------------------------------------------------------------------------------


def _classify_with_fresh_store(repo, evidence: Evidence, pin_sha: str, against: str):
    """Classify through a store that has read no blob yet, and return its blob count after."""
    with GitStore.open(repo.path) as checker:
        pin = verify.check_at_pin(evidence, checker.snapshot(pin_sha))
    with GitStore.open(repo.path) as store:
        result = drift.classify(evidence, pin, store, pin_sha, store.snapshot(against))
        return result, len(store.blobs)


def test_pin_equal_to_against_is_unchanged_without_reading_a_blob(make_repo):
    repo = make_repo()
    pin = repo.commit({"kv/store.py": STORE}, "pin")
    evidence = quote("kv/store.py", "value = self.data[key] return value")

    result, blobs_read = _classify_with_fresh_store(repo, evidence, pin, pin)

    assert (result.status, result.path, result.lines) == (drift.UNCHANGED, "kv/store.py", LineRange(4, 5))
    assert result.symbol_name() == "method Store.get"
    assert blobs_read == 0


def test_same_blob_after_edits_elsewhere_reads_nothing(make_repo):
    repo = make_repo()
    pin = repo.commit({"kv/store.py": STORE, "README": "hello\n"}, "pin")
    repo.commit({"README": "hello again\n", "kv/other.py": "X = 1\n"}, "docs")
    evidence = quote("kv/store.py", "value = self.data[key] return value")

    result, blobs_read = _classify_with_fresh_store(repo, evidence, pin, "HEAD")

    assert (result.status, result.lines) == (drift.UNCHANGED, LineRange(4, 5))
    assert blobs_read == 0


def test_a_changed_blob_is_read(make_repo):
    # The counter above is meaningful: a changed file does get read.
    repo = make_repo()
    pin = repo.commit({"kv/store.py": STORE}, "pin")
    repo.commit({"kv/store.py": "# note\n" + STORE}, "note")

    result, blobs_read = _classify_with_fresh_store(repo, quote("kv/store.py", "value = self.data[key] return value"), pin, "HEAD")

    assert (result.status, result.lines) == (drift.SHIFTED, LineRange(5, 6))
    assert blobs_read >= 1


# -- cited paths, directories, line anchors ------------------------------------------------------------


def test_cited_path_kinds(make_repo):
    repo = make_repo()
    pin = repo.commit(
        {
            "docs/guide.md": "# Guide\n",
            "pkg/a.py": "A = 1\n",
            "pkg/b.py": "B = 2\n",
            "pkg/c.py": "".join(f"C{i} = {i}\n" for i in range(20)),
            "tools/run.sh": "echo run\n",
            "old/x.py": "X = 1\n",
        },
        "pin",
    )
    repo.move("pkg/c.py", "pkg/core.py")
    repo.delete("tools/run.sh")
    repo.delete("old/x.py")
    repo.commit({"pkg/b.py": "B = 3\n"}, "changes")
    for old in ("pkg/a.py", "pkg/b.py", "pkg/core.py"):
        repo.move(old, "src/" + old)
    repo.commit(message="src layout")

    same = classify(repo, cited(EvidenceKind.PATH, "docs/guide.md"), pin)
    assert (same.status, same.path, same.note) == (drift.UNCHANGED, "docs/guide.md", None)

    moved = classify(repo, cited(EvidenceKind.PATH, "pkg/c.py"), pin)
    assert (moved.status, moved.path) == (drift.MOVED, "src/pkg/core.py")
    assert moved.summary() == "moved pkg/c.py → src/pkg/core.py"

    gone = classify(repo, cited(EvidenceKind.PATH, "tools/run.sh"), pin)
    assert (gone.status, gone.path) == (drift.DELETED, None)

    directory = classify(repo, cited(EvidenceKind.DIRECTORY, "pkg"), pin)
    assert (directory.status, directory.path) == (drift.MOVED, "src/pkg")
    directory_as_path = classify(repo, cited(EvidenceKind.PATH, "pkg"), pin)
    assert (directory_as_path.status, directory_as_path.path) == (drift.MOVED, "src/pkg")
    assert classify(repo, cited(EvidenceKind.DIRECTORY, "docs"), pin).status == drift.UNCHANGED
    assert classify(repo, cited(EvidenceKind.DIRECTORY, "old"), pin).status == drift.DELETED


def test_cited_paths_against_the_working_tree(make_repo):
    repo = make_repo()
    files = _package()
    pin = repo.commit(files, "pin")
    repo.move("pkg/store.py", "pkg/persistence.py")
    repo.commit(message="rename")
    (repo.path / "pkg/util.py").rename(repo.path / "pkg/utilities.py")  # plain mv, git not told
    (repo.path / "pkg/__init__.py").unlink()

    followed = classify(repo, cited(EvidenceKind.PATH, "pkg/store.py"), pin, against="worktree")
    assert (followed.status, followed.path, followed.rev) == (drift.MOVED, "pkg/persistence.py", "worktree")
    same_blob = classify(repo, cited(EvidenceKind.PATH, "pkg/util.py"), pin, against="worktree")
    assert (same_blob.status, same_blob.path) == (drift.MOVED, "pkg/utilities.py")
    gone = classify(repo, cited(EvidenceKind.PATH, "pkg/__init__.py"), pin, against="worktree")
    assert (gone.status, gone.path) == (drift.DELETED, None)
    assert classify(repo, cited(EvidenceKind.PATH, "pkg/__init__.py"), pin, against="HEAD").status == drift.UNCHANGED


def test_directory_whose_files_were_all_rewritten_is_followed_file_by_file(make_repo):
    repo = make_repo()
    original = {f"plugins/p{i}.py": "".join(f"OPTION_{i}_{j} = {j}\n" for j in range(30)) for i in range(3)}
    pin = repo.commit(original, "pin")
    for old in original:
        repo.move(old, old.replace("plugins/", "ext/plugins/"))
    repo.commit(message="move")
    repo.commit({old.replace("plugins/", "ext/plugins/"): f"def run_{i}():\n    return {i}\n" for i, old in enumerate(original)}, "rewrite")
    with GitStore.open(repo.path) as store:  # nothing left for the whole-diff rename map
        assert not store.renames(pin, "HEAD")

    result = classify(repo, cited(EvidenceKind.DIRECTORY, "plugins"), pin)

    assert (result.status, result.path) == (drift.MOVED, "ext/plugins")


def test_path_that_now_goes_through_a_symlink_is_not_checked(make_repo):
    repo = make_repo()
    pin = repo.commit({"lib/a.py": "A = 1\n", "src/a.py": "A = 1\n"}, "pin")
    repo.delete("lib/a.py")
    os.symlink("src", repo.path / "lib")
    repo.repo.git.add("lib")
    repo.commit(message="lib is a link now")

    result = classify(repo, quote("lib/a.py", "A = 1"), pin)

    assert (result.status, result.path, result.lines) == (drift.NOT_CHECKED, None, None)
    assert "symlink" in result.message


def test_cited_path_whose_content_changed_is_modified_with_gits_line_counts(make_repo):
    repo = make_repo()
    pin = repo.commit({"pkg/b.py": "B = 2\nC = 3\nD = 4\n"}, "pin")
    repo.commit({"pkg/b.py": "B = 2\nC = 30\nD = 4\nE = 5\nF = 6\n"}, "change")

    result = classify(repo, cited(EvidenceKind.PATH, "pkg/b.py"), pin)

    assert (result.status, result.path) == (drift.MODIFIED, "pkg/b.py")
    assert (result.line_counts.added, result.line_counts.removed) == (3, 1)
    assert result.as_json()["status"] == "modified"
    assert (result.as_json()["lines_added"], result.as_json()["lines_removed"]) == (3, 1)
    assert result.summary() == "modified +3 \u22121"


def test_cited_path_with_the_pins_blob_is_unchanged_without_counts(make_repo):
    repo = make_repo()
    pin = repo.commit({"pkg/b.py": "B = 2\n", "pkg/other.py": "x = 1\n"}, "pin")
    repo.commit({"pkg/other.py": "x = 2\n"}, "elsewhere")

    result = classify(repo, cited(EvidenceKind.PATH, "pkg/b.py"), pin)

    assert result.status == drift.UNCHANGED and result.line_counts is None
    assert "lines_added" not in result.as_json()


def test_cited_directory_is_unchanged_by_its_tree_and_modified_with_summed_counts(make_repo):
    repo = make_repo()
    pin = repo.commit({"pkg/a.py": "a = 1\n", "pkg/sub/b.py": "b = 1\nbb = 2\n", "docs/x.md": "x\n"}, "pin")
    repo.commit({"docs/x.md": "y\n"}, "docs only")
    assert classify(repo, cited(EvidenceKind.DIRECTORY, "pkg"), pin).status == drift.UNCHANGED

    repo.commit({"pkg/a.py": "a = 1\nmore = 2\n", "pkg/sub/b.py": "b = 1\n", "pkg/new.py": "n = 1\nm = 2\n"}, "edit")
    result = classify(repo, cited(EvidenceKind.DIRECTORY, "pkg"), pin)
    assert result.status == drift.MODIFIED
    assert (result.line_counts.added, result.line_counts.removed) == (3, 1)


def test_cited_path_modified_in_the_working_tree_counts_the_edit_on_disk(make_repo):
    repo = make_repo()
    pin = repo.commit({"pkg/b.py": "B = 2\n"}, "pin")
    (repo.path / "pkg/b.py").write_text("B = 2\nC = 3\n")

    result = classify(repo, cited(EvidenceKind.PATH, "pkg/b.py"), pin, against="worktree")

    assert result.status == drift.MODIFIED
    assert (result.line_counts.added, result.line_counts.removed) == (1, 0)


def test_moved_and_edited_file_says_moved_with_its_line_counts(make_repo):
    repo = make_repo()
    body = "".join(f"line_{i} = {i}\n" for i in range(20))
    pin = repo.commit({"pkg/b.py": body}, "pin")
    repo.move("pkg/b.py", "lib/b.py")
    repo.commit({"lib/b.py": body + "extra = 1\n"}, "move and grow")

    result = classify(repo, cited(EvidenceKind.PATH, "pkg/b.py"), pin)

    assert (result.status, result.path) == (drift.MOVED, "lib/b.py")
    assert (result.line_counts.added, result.line_counts.removed) == (1, 0)
    assert "modified +1 \u22120" in result.summary()


def test_line_anchor_follows_its_recorded_content(make_repo):
    repo = make_repo()
    pin = repo.commit({"pkg/limits.py": LIMITS}, "pin")
    repo.move("pkg/limits.py", "src/limits.py")
    repo.commit({"src/limits.py": "# moved\n" + LIMITS}, "move")
    anchor = cited(EvidenceKind.LINES, "pkg/limits.py", LineRange(3, 4))

    result = classify(repo, anchor, pin)
    assert (result.status, result.path, result.lines, result.old_lines) == (
        drift.MOVED, "src/limits.py", LineRange(4, 5), LineRange(3, 4)
    )

    repo.commit({"src/limits.py": LIMITS.replace("MAX_LEN = 600", "MAX_LEN = 601")}, "edit")
    edited = classify(repo, anchor, pin)
    assert edited.status == drift.CHANGED and edited.path == "src/limits.py"
    assert "601" in edited.diff


# -- properties ------------------------------------------------------------------------------------------


_EXAMPLES = itertools.count()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(above=st.integers(0, 30), below=st.integers(0, 30))
def test_lines_added_around_a_quote_shift_it_by_exactly_the_lines_added_above(make_repo, above, below):
    repo = make_repo(f"prop-{next(_EXAMPLES)}")
    pin = repo.commit({"m.py": LIMITS}, "pin")
    repo.commit({"m.py": "".join(f"A{i} = {i}\n" for i in range(above)) + LIMITS + "".join(f"Z{i} = {i}\n" for i in range(below))})

    result = classify(repo, quote("m.py", LIMITS_QUOTE), pin)

    assert result.lines == LineRange(3 + above, 4 + above)
    assert result.status == (drift.UNCHANGED if above == 0 else drift.SHIFTED)


# -- what is looked up only when JSON shows it -----------------------------------------------


def test_a_range_no_definition_enclosed_is_not_parsed_again_unless_described(make_repo):
    """Cited lines at module level at the pin, shifted by an edit: their enclosing definition
    at the other revision is found only when asked to describe (JSON); either way the class
    and the lines are the same."""
    from pytest_memreport.text.syntax import parsing

    repo = make_repo()
    source = "import os\n\nA = 1\nB = 2\n\n\ndef f():\n    return A\n"
    pin_sha = repo.commit({"pkg/m.py": source}, "pin")
    repo.commit({"pkg/m.py": "# header\n" + source}, "shift")
    evidence = cited(EvidenceKind.LINES, "pkg/m.py", LineRange(3, 4))
    results = {}
    for describe in (False, True):
        parsing.clear_cache()
        with GitStore.open(repo.path) as store:
            pin = verify.check_at_pin(evidence, store.snapshot(pin_sha), with_symbol=False)
            before = parsing.stats().parses
            result = drift.classify(evidence, pin, store, pin_sha, store.snapshot("HEAD"), describe=describe)
            results[describe] = (result, parsing.stats().parses - before)
    (quiet, quiet_parses), (described, described_parses) = results[False], results[True]
    assert (quiet.status, quiet.lines) == (described.status, described.lines) == ("shifted", LineRange(4, 5))
    assert quiet_parses == 1  # the pin's file, to learn that nothing encloses the lines
    assert described_parses == 2 and quiet.symbol is None and described.symbol is None


def test_an_edited_definition_is_compared_from_the_parses_that_found_it(make_repo):
    """Each side's file is parsed once: the definitions found in the pin's blob and in the
    other revision's are lexed from those parses, not parsed again to compare their tokens
    (the comparison once asked for the parses by text, which the blob-keyed ones are not)."""
    from pytest_memreport.text.syntax import parsing

    repo = make_repo()
    body = "def total(items):\n    count = 0\n    for item in items:\n        count += item\n    return count\n"
    pin_sha = repo.commit({"pkg/m.py": "import os\n\n\n" + body}, "pin")
    repo.commit({"pkg/m.py": "import os\n\n\n" + body.replace("return count", "return count * 2")}, "edit")
    evidence = quote("pkg/m.py", "for item in items:")
    parsing.clear_cache()
    with GitStore.open(repo.path) as store:
        pin = verify.check_at_pin(evidence, store.snapshot(pin_sha))
        before = parsing.stats().parses
        result = drift.classify(evidence, pin, store, pin_sha, store.snapshot("HEAD"), describe=True)
        parses = parsing.stats().parses - before
    assert result.enclosing_changed and "{+* 2+}" in (result.enclosing_diff or "")
    assert parses == 1  # the other revision's file; the pin's was parsed by the pin check
