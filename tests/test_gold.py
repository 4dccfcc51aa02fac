"""Gold files: every output of one fixture collection, compared byte for byte with the files
kept in ``tests/gold/`` (coverage.py's ``goldtest`` pattern).

The collection has reports in three dialects (records, reviews, analysis-run tables),
every drift class a plain edit history gives (unchanged, shifted, renamed, changed,
deleted), a failing predicate, a passing observation and a hostile quotation. Its
target's commits are made with fixed names and dates, so their shas are the same on
every machine; what still varies (the temporary folder, the plugin's version, times)
is replaced by a placeholder before comparing. When an output changes on purpose,
regenerate the gold files and review their diff:

    MEMREPORT_GOLD_UPDATE=1 python3 -m pytest tests/test_gold.py
    git diff tests/gold/
"""

from __future__ import annotations

import datetime
import difflib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_memreport import __version__
from dialect_texts import HOSTILE, QUEUE_PY, STORE_PY, record_report, review_report, run_report
from repo_builder import RepoBuilder

GOLD = Path(__file__).resolve().parent / "gold"
UPDATE = os.environ.get("MEMREPORT_GOLD_UPDATE") == "1"

OLD_PY = "def legacy():\n    return 'old'\n"
CONFIG_PY = "DEBUG = False\n"


FRESH_CLAIMS = """schema: memreport-claims/1
records:
  MEM-OBJ-limit:
    predicates:
      - contains: {path: pkg/store.py, text: "LIMIT = 200"}
    observe:
      - run: "true"
"""
FAILING_CLAIMS = """schema: memreport-claims/1
records:
  MEM-OBJ-keep:
    predicates:
      - contains: {path: pkg/store.py, text: "LIMIT = 201"}
"""

#: fixed identities and dates: the target's commits have the same shas everywhere
GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Fixture Author", "GIT_AUTHOR_EMAIL": "fixture@example.invalid",
    "GIT_COMMITTER_NAME": "Fixture Author", "GIT_COMMITTER_EMAIL": "fixture@example.invalid",
}


def _commit(repo: RepoBuilder, day: int, files: dict[str, str] | None = None, message: str = "change") -> str:
    date = f"2026-01-{day:02d}T12:00:00+00:00"
    with pytest.MonkeyPatch.context() as patch:
        for name, value in {**GIT_IDENTITY, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}.items():
            patch.setenv(name, value)
        return repo.commit(files, message)


def build_collection(root: Path) -> tuple[RepoBuilder, str]:
    repo = RepoBuilder(root / "store")
    pin = _commit(repo, 1, {"pkg/store.py": STORE_PY, "pkg/queue.py": QUEUE_PY, "pkg/old.py": OLD_PY,
                              "pkg/config.py": CONFIG_PY},
                  "the store, its queue and the legacy helper")
    repo.move("pkg/queue.py", "lib/queue.py")
    _commit(repo, 2, message="Move the queue to lib")
    repo.delete("pkg/old.py")
    _commit(repo, 3, message="Drop the legacy helper")
    _commit(repo, 4, {"pkg/store.py": "# The store.\n" + STORE_PY.replace(
        "return entries[-LIMIT:]", "return sorted(entries)[:LIMIT]")}, "Keep the smallest entries instead")
    kb = root / "kb"
    files = {
        "records/limit.md": record_report(pin, "Limit", "LIMIT = 200", "pkg/store.py:1"),
        "records/limit.claims.yaml": FRESH_CLAIMS,
        "records/keep.md": record_report(pin, "Keep", "return entries[-LIMIT:]", "pkg/store.py:4-5"),
        "records/keep.claims.yaml": FAILING_CLAIMS,
        "records/legacy.md": record_report(pin, "Legacy", "return 'old'", "pkg/old.py:2"),
        "records/hostile.md": record_report(pin, "Hostile", HOSTILE, "pkg/store.py:4-5"),
        "reviews/drop.md": review_report(pin, "pkg/store.py", "8-9", "def drop(entries):", "Drop review"),
        "reviews/queue.md": review_report(pin, "pkg/queue.py", "2-3", "self.items.append(item)", "Queue review"),
        "reviews/keep.md": review_report(pin, "pkg/store.py", "4-5", "return entries[-LIMIT:]", "Keep review"),
        "runs/config/result.md": run_report(pin, "pkg/config.py:1", "Config"),
        "runs/queue/result.md": run_report(pin, "pkg/queue.py:2-3", "Queue"),
    }
    for name, text in files.items():
        (kb / name).parent.mkdir(parents=True, exist_ok=True)
        (kb / name).write_text(text, encoding="utf-8")
    return repo, pin


#: where each output is written, relative to the run's folder
OUTPUTS = {
    "results.json": "out/results.json",
    "results.sarif": "out/results.sarif",
    "step-summary.md": "out/step-summary.md",
    "comment.md": "out/comment.md",
    "staleness.txt": None,  # the terminal's staleness table, cut from standard output
}


def normalise(text: str, root: Path) -> str:
    """``text`` with what varies between runs replaced: the run's folder, the version, times."""
    text = text.replace(str(root), "<tmp>")
    text = text.replace(__version__, "<version>")
    text = re.sub(r'"duration": [0-9.e-]+', '"duration": "<time>"', text)
    text = re.sub(r'"timing": \{[^}]*\}', '"timing": "<timing>"', text)
    for today in {datetime.date.today(), datetime.datetime.now(datetime.timezone.utc).date()}:
        text = text.replace(f'"date": "{today.isoformat()}"', '"date": "<today>"')  # an observation's
    return re.sub(r"\b\d+\.\d+s\b", "<time>s", text)


def staleness_table(stdout: str) -> str:
    """The staleness table pytest printed: its section, up to the lines saying what was written."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if re.fullmatch(r"=+ memreport =+", line))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith(("memreport:", "===")))
    return "\n".join(lines[start:end]) + "\n"


@pytest.fixture(scope="module")
def produced(tmp_path_factory) -> dict[str, str]:
    """Every output of one run over the collection, normalised, by gold file name."""
    root = tmp_path_factory.mktemp("gold")
    repo, _ = build_collection(root)
    (root / "out").mkdir()
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("GITHUB_", "MEMREPORT_", "PYTEST_")) and name != "CI"}
    env.update({"GITHUB_STEP_SUMMARY": str(root / OUTPUTS["step-summary.md"]), "COLUMNS": "120",
                "GITHUB_SERVER_URL": "https://github.example", "GITHUB_REPOSITORY": "keeper/kb",
                "GITHUB_SHA": "c0ffee", "GITHUB_WORKSPACE": str(root)})
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--memreport", "kb", "--memreport-repo", f"acme/store={repo.path}",
         f"--memreport-repo={repo.path}", "--memreport-run", "-p", "no:cacheprovider", "-p", "no:randomly",
         "--memreport-json", OUTPUTS["results.json"], "--memreport-sarif", OUTPUTS["results.sarif"],
         "--memreport-comment", OUTPUTS["comment.md"], "--memreport-html", "out/site", "-q", "--color=no"],
        cwd=root, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]  # the stale reports fail
    out = {name: (root / rel).read_text(encoding="utf-8") for name, rel in OUTPUTS.items() if rel}
    out["staleness.txt"] = staleness_table(done.stdout)
    for page in sorted((root / "out" / "site").iterdir()):
        if not page.name.startswith("."):
            out[f"site/{page.name}"] = page.read_text(encoding="utf-8")
    return {name: normalise(text, root) for name, text in out.items()}


def compare_gold(name: str, actual: str) -> None:
    """``actual`` must equal ``tests/gold/<name>`` byte for byte (or becomes it when updating)."""
    gold = GOLD / name
    if UPDATE:
        gold.parent.mkdir(parents=True, exist_ok=True)
        gold.write_bytes(actual.encode("utf-8"))
        return
    if not gold.exists():
        pytest.fail(f"no gold file {name}; run MEMREPORT_GOLD_UPDATE=1 python3 -m pytest tests/test_gold.py")
    expected = gold.read_bytes().decode("utf-8")
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(keepends=True), actual.splitlines(keepends=True),
                                            f"gold/{name}", f"produced/{name}"))
        pytest.fail(f"{name} differs from its gold file (MEMREPORT_GOLD_UPDATE=1 regenerates it):\n{diff}",
                    pytrace=False)


GOLD_NAMES = sorted([*OUTPUTS, *(f"site/{p.name}" for p in (GOLD / "site").glob("*") if p.is_file())])


@pytest.mark.parametrize("name", GOLD_NAMES)
def test_output_matches_its_gold_file(produced, name):
    assert name in produced, f"the run wrote no {name}"
    compare_gold(name, produced[name])


def test_every_page_of_the_site_has_a_gold_file(produced):
    if UPDATE:
        for name, text in produced.items():
            compare_gold(name, text)
    assert {name for name in produced if name.startswith("site/")} == {
        f"site/{p.name}" for p in (GOLD / "site").glob("*") if p.is_file()}


def test_the_collection_covers_what_the_gold_files_promise(produced):
    summary = produced["results.json"]
    for status in ("unchanged", "shifted", "moved", "modified", "changed", "deleted", "missing",
                   "fails", "passed"):  # every drift class, a failing predicate, a passing observation
        assert f'"status": "{status}"' in summary, status
    for dialect in ("records", "review", "tables"):
        assert f'"dialect": "{dialect}"' in summary, dialect


@pytest.mark.parametrize("name", ["results.json", "results.sarif", "step-summary.md", "comment.md",
                                  "staleness.txt", "site/index.html", "site/style.css"])
def test_a_one_character_change_fails_the_comparison_and_shows_it(produced, name):
    if UPDATE:
        pytest.skip("the gold files are being written")
    text = produced[name]
    at = len(text) // 2
    changed = text[:at] + ("x" if text[at] != "x" else "y") + text[at + 1:]
    start = text.rfind("\n", 0, at) + 1
    line = changed[start:changed.find("\n", at)]
    with pytest.raises(pytest.fail.Exception) as failed:
        compare_gold(name, changed)
    assert f"{name} differs from its gold file" in str(failed.value)
    assert f"\n+{line}\n" in str(failed.value)  # the diff shows the changed line
    compare_gold(name, text)  # and the output as produced passes
