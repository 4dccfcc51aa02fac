"""A SHA-256 repository (``git init --object-format=sha256``): 64-hex pins are
recognised, files are read at the pin, drift is followed and worktree mode
hashes files the repository's way."""

from __future__ import annotations

import json
import subprocess

import pytest

from hostile_support import assert_clean, records_report, run_report
from pytest_memreport.gitstore import GitStore

STORE_PY = "LIMIT = 200\n\n\ndef keep(entries):\n    return entries[-LIMIT:]\n"


def git(cwd, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=Fixture", "-c", "user.email=f@example.invalid", *args],
                          cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def sha256_repo(tmp_path):
    repo = tmp_path / "target"
    subprocess.run(["git", "init", "-q", "--object-format=sha256", "-b", "main", str(repo)], check=True)
    (repo / "store.py").write_text(STORE_PY)
    git(repo, "add", "store.py")
    git(repo, "commit", "-q", "-m", "store")
    pin = git(repo, "rev-parse", "HEAD")
    (repo / "store.py").write_text("# moved down\n" + STORE_PY)
    git(repo, "commit", "-q", "-am", "shift")
    assert len(pin) == 64
    return repo, pin


@pytest.mark.parametrize("written", ["full", "short"])
def test_a_sha256_pin_is_recognised_and_checked(pytester, sha256_repo, written):
    repo, pin = sha256_repo
    shown = pin if written == "full" else pin[:12]
    result = run_report(pytester, records_report(shown, "return entries[-LIMIT:] --- store.py"), repo,
                        "--memreport-json=out.json")
    assert_clean(result)
    result.assert_outcomes(passed=4)
    assert drift_statuses(pytester) == [("found", "shifted")]


def drift_statuses(pytester) -> list[tuple[str, str]]:
    """(at the pin, at the against-revision) of every quotation in the run's JSON."""
    data = json.loads((pytester.path / "out.json").read_text())
    return [(e["at_pin"]["status"], e["at_against"]["status"]) for r in data["reports"] for rec in r["records"]
            for e in rec["evidence"] if e["kind"] == "quote"]


def test_worktree_mode_hashes_files_in_the_repository_format(pytester, sha256_repo):
    repo, pin = sha256_repo
    result = run_report(pytester, records_report(pin, "return entries[-LIMIT:] --- store.py"), repo,
                        "--memreport-against", "worktree", "--memreport-json=out.json")
    assert_clean(result)
    result.assert_outcomes(passed=4)
    store = GitStore.open(repo)
    try:
        entry = store.snapshot("worktree").entry("store.py")
        assert entry.oid == git(repo, "hash-object", "store.py")
        assert len(entry.oid) == 64
    finally:
        store.close()
    assert drift_statuses(pytester) == [("found", "shifted")]
