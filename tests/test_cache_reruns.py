"""A warm rerun tells the cold run's truth: every dialect and evidence kind run twice
(``--cache-clear``, then from the kept results) gives the same verdict item by item and
the same exit code; what changed between runs without changing a commit id (a clone
completed, the working tree edited, a replace ref deleted) is seen; a cache file found
damaged, foreign or hostile is rebuilt with one warning and never fails an item."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

STORE_PY = textwrap.dedent(
    '''\
    """A small store of entries."""

    MAX_ENTRIES = 8_000


    class Store:
        def __init__(self):
            self.entries = []

        def forget(self, entry_id):
            self.entries = [e for e in self.entries if e["id"] != entry_id]
            return len(self.entries)


    def compact(entries):
        return sorted(entries, key=len)[-MAX_ENTRIES:]
    '''
)

UTIL_PY = textwrap.dedent(
    '''\
    def slugify(text):
        return "-".join(text.lower().split())


    def clamp(value, low, high):
        return max(low, min(value, high))
    '''
)

#: unchanged since the pin: its blob is the pin's and HEAD's
FLAGS_PY = "# switches\nSTRICT_IDS = True\n"

BLOB = "https://github.com/acme/store/blob"
TREE = "https://github.com/acme/store/tree"


def records_report(pin: str) -> str:
    return textwrap.dedent(
        f"""\
        Store memory report

        Boundary and evidence

        SRC-1 commit {pin} is the boundary.

        Routes

        MEM-RTE-forget

        Label: Forget

        Forgetting drops the exact ID and compacting trims the list. SRC-1: store.py, pkg/util.py, pkg/flags.py.

        self.entries = [e for e in self.entries if e["id"] != entry_id] --- store.py

        return sorted(entries, key=len)[-MAX_ENTRIES:] --- store.py:15-16

        return "-".join(text.lower().split()) --- pkg/util.py

        STRICT_IDS = True --- pkg/flags.py

          • implementation conclusion status: afforded
          • operation conclusion status: uninspected

        Evidenced absences

        MEM-ABS-no-cas

        Label: No compare-and-swap

        The store has no compare-and-swap.
        """
    )


CLAIMS = textwrap.dedent(
    """\
    schema: memreport-claims/1
    records:
      MEM-RTE-forget:
        predicates:
          - contains: {path: store.py, text: "e[\\"id\\"] != entry_id"}
          - value: {path: store.py, symbol: MAX_ENTRIES, equals: 8000}
          - symbol: {path: store.py, name: compact, kind: function}
          - count: {glob: "*.py", regex: "def forget", equals: 1}
      MEM-ABS-no-cas:
        predicates:
          - absent: {glob: "*.py", regex: "compare_and_swap", in: code}
    """
)


def review_report(pin: str) -> str:
    return textwrap.dedent(
        f"""\
        # Store review

        **Repository:** https://github.com/acme/store
        **Reviewed commit:** [{pin}](https://github.com/acme/store/commit/{pin})

        ## Forgetting

        The store is [store.py]({BLOB}/{pin}/store.py), forgetting is
        [lines 10-12]({BLOB}/{pin}/store.py#L10-L12); helpers live under
        [pkg]({TREE}/{pin}/pkg). The slug helper is `pkg/util.py`.

        > def clamp(value, low, high):
        >     return max(low, min(value, high))
        > --- [pkg/util.py]({BLOB}/{pin}/pkg/util.py#L5-L6)
        """
    )


def tables_report(pin: str) -> str:
    return textwrap.dedent(
        f"""\
        # Analysis run 2: store

        **Revision:** `{pin}`

        ## Objects

        | ID | Label | Anchors |
        | --- | --- | --- |
        | OBJ-01 | Store | `store.py:6-8` |
        | OBJ-02 | Slug | `util.py:1-2` |
        | OBJ-03 | Gone | `absent_file.py:2` |
        """
    )


def notes_report(pin: str) -> str:
    return textwrap.dedent(
        f"""\
        # Store notes

        ## Boundary and evidence

        The store at SRC-1 commit {pin}.

        ## Claims

        MEM-CLM-forget

        Label: Forget

        Forgetting goes through `Store.forget`, and `compact` trims the list; `entry_id` is a
        parameter, not a definition. SRC-1: store.py.
        """
    )


def git(cwd, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def target(make_repo):
    """A pin, then a HEAD that shifts the store, changes ``compact`` and renames the helpers."""
    repo = make_repo("store")
    pin = repo.commit({"store.py": STORE_PY, "pkg/__init__.py": "", "pkg/util.py": UTIL_PY,
                       "pkg/flags.py": FLAGS_PY}, "store")
    repo.move("pkg/util.py", "pkg/helpers.py")
    repo.commit({"store.py": "# entries\n# kept in memory\n" + STORE_PY.replace("key=len", "key=str")},
                "shift the store, change compact, rename the helpers")
    return repo, pin


def write_reports(folder, pin: str, which=("records", "review", "tables", "notes")) -> None:
    folder.mkdir(exist_ok=True)
    texts = {"records": ("store.md", records_report(pin)), "review": ("review.md", review_report(pin)),
             "tables": ("run.md", tables_report(pin)), "notes": ("notes.md", notes_report(pin))}
    for name in which:
        file_name, text = texts[name]
        (folder / file_name).write_text(text, encoding="utf-8")
    if "records" in which:
        (folder / "store.claims.yaml").write_text(CLAIMS, encoding="utf-8")


_VERDICT = re.compile(r"^(\S+::\S+) (PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS)\b")


class Run:
    """One pytester run: its verdicts item by item, exit code, JSON and output."""

    def __init__(self, result, data):
        self.result = result
        self.data = data
        self.ret = int(result.ret)
        self.verdicts = {m.group(1): m.group(2) for line in result.outlines if (m := _VERDICT.match(line))}

    def evidence(self) -> list:
        """Every piece of evidence's place, kind and statuses, and every predicate's result."""
        return [(rep["path"], owner, ev["line"], ev["kind"], ev.get("path"),
                 (ev.get("at_pin") or {}).get("status"), (ev.get("at_against") or {}).get("status"))
                for rep in self.data["reports"]
                for owner, evidence in [(None, rep["evidence"]),
                                        *((rec["id"], rec["evidence"]) for rec in rep["records"])]
                for ev in evidence]

    def predicates(self) -> list:
        return [json.dumps(predicate, sort_keys=True)
                for rep in self.data["reports"] for predicate in rep["predicates"]]


def run(pytester, repo, folder, *args: str) -> Run:
    out = pytester.path / "out.json"
    if out.exists():
        out.unlink()
    result = pytester.runpytest("--memreport", str(folder), f"--memreport-repo={repo.path}",
                                f"--memreport-repo=acme/store={repo.path}", "-v", "-p", "no:randomly",
                                "--memreport-json", str(out), *args)
    return Run(result, json.loads(out.read_text()) if out.exists() else {"reports": [], "timing": {}})


def assert_same(warm: Run, cold: Run) -> None:
    assert warm.verdicts and warm.verdicts == cold.verdicts
    assert warm.ret == cold.ret
    assert warm.evidence() == cold.evidence()
    assert warm.predicates() == cold.predicates()


def cache_file(pytester):
    return pytester.path / ".pytest_cache" / "d" / "memreport-results" / "results.sqlite3"


@pytest.mark.parametrize("against", ["HEAD", "none"])
def test_every_dialect_and_evidence_kind_gives_the_cold_verdicts_warm(pytester, target, against):
    repo, pin = target
    folder = pytester.path / "reports"
    write_reports(folder, pin)
    cold = run(pytester, repo, folder, "--memreport-against", against, "--cache-clear")
    warm = run(pytester, repo, folder, "--memreport-against", against)
    assert_same(warm, cold)
    assert warm.data["timing"]["results_computed"] == 0 and warm.data["timing"]["results_cached"] > 0
    kinds = {(ev[0].rsplit("/", 1)[-1], ev[3]) for ev in warm.evidence()}
    assert {("store.md", "quote"), ("store.md", "path"), ("review.md", "lines"), ("review.md", "directory"),
            ("run.md", "lines"), ("notes.md", "symbol")} <= kinds
    assert any("predicate" in node for node in warm.verdicts)
    if against == "HEAD":  # drift of every kind came back: shifted, moved, changed (with the commit that did it)
        statuses = {ev[6] for ev in warm.evidence()}
        assert {"shifted", "moved", "changed"} <= statuses
        assert "FAILED" in warm.verdicts.values() and "PASSED" in warm.verdicts.values()


def test_a_folder_of_notes_with_symbols_runs_twice(pytester, target):
    """The issue's reproduction: the second run crashed at collection."""
    repo, pin = target
    folder = pytester.path / "notes"
    write_reports(folder, pin, ("notes",))
    cold = run(pytester, repo, folder, "--cache-clear")
    warm = run(pytester, repo, folder)
    assert cold.ret == 0
    assert_same(warm, cold)
    assert "error" not in warm.result.stdout.str().lower()


def test_a_clone_completed_between_runs_is_seen(pytester, target):
    """A file unchanged since the pin whose blob the clone lacks: its pin check is
    unreadable and its drift is not checked; once the object is there, a warm rerun
    says what a cold one says (it kept neither)."""
    repo, pin = target
    folder = pytester.path / "reports"
    write_reports(folder, pin, ("records",))
    blob = git(repo.path, "rev-parse", f"{pin}:pkg/flags.py").strip()
    os.remove(repo.path / ".git" / "objects" / blob[:2] / blob[2:])
    incomplete = run(pytester, repo, folder, "--cache-clear")
    assert {ev[5] for ev in incomplete.evidence() if ev[3] == "quote" and ev[4] == "pkg/flags.py"} == {"unreadable"}
    # the user completes the clone: the object is back under its id
    (repo.path / "restored.py").write_text(FLAGS_PY, encoding="utf-8")
    assert git(repo.path, "hash-object", "-w", "restored.py").strip() == blob
    (repo.path / "restored.py").unlink()
    warm = run(pytester, repo, folder)
    cold = run(pytester, repo, folder, "--cache-clear")
    assert_same(warm, cold)
    flags = [ev for ev in warm.evidence() if ev[4] == "pkg/flags.py"]
    assert flags and all(ev[5] == "found" and ev[6] == "unchanged" for ev in flags)
    assert "drift not checked" not in warm.result.stdout.str()


def test_a_working_tree_edited_between_runs_is_seen(pytester, target):
    repo, pin = target
    folder = pytester.path / "reports"
    write_reports(folder, pin, ("records",))
    first = run(pytester, repo, folder, "--memreport-against", "worktree", "--cache-clear")
    absent = [node for node in first.verdicts if "no-cas" in node and "absent" in node]
    assert absent and all(first.verdicts[node] == "PASSED" for node in absent)
    # a forbidden call, added to the working tree only (not committed)
    (repo.path / "store.py").write_text(repo.read("store.py") + "\n\ndef put(x):\n    return compare_and_swap(x)\n",
                                        encoding="utf-8")
    warm = run(pytester, repo, folder, "--memreport-against", "worktree")
    cold = run(pytester, repo, folder, "--memreport-against", "worktree", "--cache-clear")
    assert_same(warm, cold)
    assert [warm.verdicts[node] for node in absent] == ["PASSED", "FAILED"]  # at the pin, at the worktree


def test_results_are_right_after_a_replace_ref_is_deleted(pytester, make_repo):
    """A replace ref swaps the pin's blob for one holding the quotation; git ignores replace
    objects, so no run passes it, and none keeps a pass that outlives ``git replace -d``."""
    repo = make_repo("store")
    pin = repo.commit({"store.py": STORE_PY, "pkg/__init__.py": "", "pkg/util.py": UTIL_PY}, "store")
    blob = git(repo.path, "rev-parse", f"{pin}:store.py").strip()
    (repo.path / "forged.py").write_text(STORE_PY.replace("MAX_ENTRIES = 8_000", "MAX_ENTRIES = 9_999"),
                                         encoding="utf-8")
    forged = git(repo.path, "hash-object", "-w", "forged.py").strip()
    (repo.path / "forged.py").unlink()
    git(repo.path, "replace", blob, forged)
    folder = pytester.path / "reports"
    folder.mkdir()
    (folder / "store.md").write_text(records_report(pin).replace(
        'return "-".join(text.lower().split()) --- pkg/util.py', "MAX_ENTRIES = 9_999 --- store.py"), encoding="utf-8")
    with_ref = run(pytester, repo, folder, "--cache-clear")
    git(repo.path, "replace", "-d", blob)
    warm = run(pytester, repo, folder)
    cold = run(pytester, repo, folder, "--cache-clear")
    assert_same(warm, cold)
    assert_same(with_ref, cold)
    (forged_quote,) = [node for node in warm.verdicts if node.endswith("quote@L19")]
    assert warm.verdicts[forged_quote] == "FAILED"


def _deep_json(path):
    path.write_text("[" * 200_000 + "]" * 200_000, encoding="ascii")


def _junk(path):
    path.write_bytes(bytes(range(256)) * 64)


def _folder(path):
    path.mkdir()
    (path / "inside.txt").write_text("not a database\n", encoding="utf-8")


def _huge(path):
    with open(path, "wb") as handle:  # sparse: 3 GB long, nothing on disk
        handle.truncate(3 * 1024**3)


def _damaged_database(path):
    data = bytearray(path.read_bytes())
    data[100:] = bytes(len(data) - 100)  # the header survives, every page after it is zeros
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", [_deep_json, _junk, _folder, _huge, _damaged_database],
                         ids=["deep-json", "binary-junk", "folder", "huge", "damaged-database"])
def test_a_damaged_foreign_or_hostile_cache_file_is_rebuilt_with_one_warning(pytester, target, damage):
    repo, pin = target
    folder = pytester.path / "reports"
    write_reports(folder, pin, ("records", "notes"))
    cold = run(pytester, repo, folder, "--cache-clear")
    path = cache_file(pytester)
    if damage is not _damaged_database:
        path.unlink()
    damage(path)
    damaged = run(pytester, repo, folder)
    assert_same(damaged, cold)
    warnings = [line for line in damaged.result.outlines
                if "results.sqlite3" in line and "MemreportConfigWarning" in line]
    assert len(warnings) == 1, damaged.result.stdout.str()
    assert "rebuilt" in warnings[0]
    rebuilt = run(pytester, repo, folder)
    assert_same(rebuilt, cold)
    assert rebuilt.data["timing"]["results_computed"] == 0
    assert not any("results.sqlite3" in line for line in rebuilt.result.outlines)


SHARED = Path(os.environ.get("MEMREPORT_SHARED") or Path(__file__).resolve().parents[2] / "shared")
SAMPLES = SHARED / "samples"


@pytest.mark.skipif(not (SAMPLES / "runs").is_dir() or not (SAMPLES / "repos" / "servers.git").is_dir(),
                    reason="the real samples (../shared/samples) are not here")
@pytest.mark.parametrize("against", ["none", "HEAD"])
def test_a_real_analysis_run_gives_the_cold_verdicts_warm(pytester, against):
    """The real analysis run against its real, incomplete mirror (read where it lies)."""
    folder = pytester.path / "runs"
    shutil.copytree(SAMPLES / "runs", folder)
    mirror = SAMPLES / "repos" / "servers.git"
    args = ("--memreport", str(folder), f"--memreport-repo=modelcontextprotocol/servers={mirror}",
            "--memreport-against", against, "-rA", "-p", "no:randomly")
    cold = pytester.runpytest(*args, "--cache-clear")
    warm = pytester.runpytest(*args)
    assert int(warm.ret) == int(cold.ret)
    verdicts = sorted(line for line in cold.outlines if re.match(r"(PASSED|FAILED|SKIPPED|ERROR) ", line))
    assert len(verdicts) > 500
    assert sorted(line for line in warm.outlines if re.match(r"(PASSED|FAILED|SKIPPED|ERROR) ", line)) == verdicts
