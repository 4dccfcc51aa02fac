"""Hostile observations: the run is inside a git hook, the target's config
names filters, the command prints without end, detaches a daemon, or the run
is interrupted while the worktree is being checked out. The target is left as
it was and nothing the observation started outlives the run."""

from __future__ import annotations

import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from pytest_memreport.checks.observe import FAILED, PASSED, run_observation
from pytest_memreport.dialects.claims import Observation
from pytest_memreport.gitstore import GitStore

QUIET_ENV = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}


def observation(run, *, timeout=60.0, env=None, record="MEM-OBJ-store"):
    return Observation(run, ".", timeout, {**QUIET_ENV, **(env or {})}, "operation", False, "claims.yaml", 7, 0,
                       record)


@pytest.fixture
def target(make_repo):
    repo = make_repo("target")
    pin = repo.commit({"store.py": "LIMIT = 3\n", "data.bin": "payload\n"}, "store")
    return repo, pin


@pytest.fixture
def store(target):
    repo, _ = target
    opened = GitStore.open(repo.path)
    yield opened
    opened.close()


def test_hook_variables_do_not_point_the_observation_at_the_target(target, store, monkeypatch):
    """As inside a pre-commit hook: GIT_DIR and GIT_INDEX_FILE name the target's real ones."""
    repo, pin = target
    monkeypatch.setenv("GIT_DIR", str(repo.path / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(repo.path / ".git" / "index"))
    monkeypatch.setenv("GIT_WORK_TREE", str(repo.path))
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(repo.path / ".git" / "objects"))
    monkeypatch.setenv("GIT_COMMON_DIR", str(repo.path / ".git"))
    before = repo.state()
    result = run_observation(
        observation("env | grep '^GIT_' ; echo staged > new.txt && git add new.txt && git status --porcelain"),
        store, pin)
    assert result.status == PASSED, result.message + result.output_tail
    assert "GIT_DIR" not in result.output_tail and "GIT_INDEX_FILE" not in result.output_tail
    assert "A  new.txt" in result.output_tail  # staged into the worktree's own index
    # Only the blob `git add` wrote into the shared object store is new (SECURITY.md says so).
    assert without_objects(repo.state()) == without_objects(before)


def without_objects(state: dict) -> dict:
    files = {k: v for k, v in state["files"].items() if not k.startswith(".git/objects/")}
    return {**state, "files": files}


@pytest.mark.parametrize("kind", ["smudge", "process"])
def test_checkout_runs_no_filter_of_the_target(target, store, tmp_path, kind):
    repo, _ = target
    witness = tmp_path / "filter-ran"
    pin = repo.commit({".gitattributes": "*.bin filter=evil\n"}, "attributes")
    with repo.repo.config_writer() as cfg:
        cfg.set_value('filter "evil"', kind, f"sh -c 'touch {witness}; cat'")
        cfg.set_value('filter "evil"', "required", "true")
        cfg.set_value('filter "lfs"', "smudge", f"sh -c 'touch {witness}; cat'")
    before = files_and_worktrees(repo)  # (git status would run the clean filter itself)
    result = run_observation(observation("cat data.bin"), store, pin)
    assert result.status == PASSED, result.message + result.output_tail
    assert "payload" in result.output_tail  # checked out as stored, unfiltered
    assert not witness.exists()
    assert files_and_worktrees(repo) == before


def files_and_worktrees(repo):
    files = {str(p.relative_to(repo.path)): p.read_bytes() for p in repo.path.rglob("*") if p.is_file()}
    return files, repo.repo.git.worktree("list", "--porcelain"), repo.repo.git.for_each_ref()


def test_checkout_runs_no_filter_defined_only_for_worktrees(target, store, tmp_path):
    """A driver included only where the git dir is a worktree's is still switched off."""
    repo, _ = target
    witness = tmp_path / "filter-ran"
    pin = repo.commit({".gitattributes": "*.bin filter=Sneaky.Name\n"}, "attributes")
    included = tmp_path / "worktrees-only.cfg"
    included.write_text(f'[filter "Sneaky.Name"]\n\tsmudge = "sh -c \'touch {witness}; cat\'"\n\trequired = true\n')
    with repo.repo.config_writer() as cfg:
        cfg.set_value('includeIf "gitdir:**/worktrees/**"', "path", str(included))
    before = files_and_worktrees(repo)
    result = run_observation(observation("cat data.bin"), store, pin)
    assert result.status == PASSED, result.message + result.output_tail
    assert not witness.exists()
    assert files_and_worktrees(repo) == before
