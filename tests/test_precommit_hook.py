"""The pre-commit hooks (``.pre-commit-hooks.yaml``), run by pre-commit itself.

``pre-commit try-repo`` installs this repository's hooks in their own environment (as
a project naming them in its ``.pre-commit-config.yaml`` would) and runs them in a
fixture repository whose report quotes its own code at a pinned commit: a staged report
with a broken quotation fails the commit, a sound one passes at its pin even when the
code moved on since (``memreport``), and ``memreport-drift`` checks the move too.
Slow: the hook's environment is installed once per module, from the package index.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ci_support import LIMITS, report_text
from repo_builder import RepoBuilder

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory):
    if shutil.which("pre-commit") is None:
        pytest.skip("pre-commit is not installed (pip install -e '.[test]')")
    if not (ROOT / ".git").exists():
        pytest.skip("the hooks are tried from this repository's git history, and it has none here")
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def project(tmp_path):
    """A repository whose report (``docs/store.md``) quotes its code at the first commit;
    the code's LIMIT_2 changed after the report was committed."""
    repo = RepoBuilder(tmp_path / "project")
    pin = repo.commit({"pkg/limits.py": LIMITS, "pkg/store.py": "def put(store, key, value):\n    pass\n"}, "code")
    repo.commit({"docs/store.md": report_text(pin).split("MEM-OBJ-put")[0]}, "report")
    repo.commit({"pkg/limits.py": LIMITS.replace("LIMIT_2 = 14", "LIMIT_2 = 15")}, "limits move on")
    return repo


def try_hook(repo: RepoBuilder, hook: str, home: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PRE_COMMIT_HOME")}
    env["PRE_COMMIT_HOME"] = str(home)
    return subprocess.run(["pre-commit", "try-repo", str(ROOT), hook], cwd=repo.path, env=env,
                          capture_output=True, text=True, timeout=900)


def stage(repo: RepoBuilder, old: str, new: str) -> None:
    text = repo.read("docs/store.md")
    assert old in text
    repo.write({"docs/store.md": text.replace(old, new)})


def test_a_staged_report_with_a_broken_quotation_fails_the_hook(project, pre_commit_home):
    stage(project, "LIMIT_1 = 7 --- pkg/limits.py", "LIMIT_1 = 8 --- pkg/limits.py")
    done = try_hook(project, "memreport", pre_commit_home)
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "memreport (reports at their pins)" in out and "Failed" in out
    assert "docs/store.md:" in out and "quotation of pkg/limits.py missing" in out
    assert "LIMIT_1 = 8" in out


def test_a_sound_report_passes_at_its_pin_and_the_drift_hook_sees_the_move(project, pre_commit_home):
    stage(project, "Label: Limits", "Label: The limits")
    pins_only = try_hook(project, "memreport", pre_commit_home)
    assert pins_only.returncode == 0, pins_only.stdout + pins_only.stderr
    assert "Passed" in pins_only.stdout
    drift = try_hook(project, "memreport-drift", pre_commit_home)
    out = drift.stdout + drift.stderr
    assert drift.returncode == 1, out
    assert "LIMIT_2 = 14" in out and "changed" in out


def test_a_commit_without_reports_skips_the_hook(project, pre_commit_home):
    project.write({"pkg/extra.py": "X = 1\n"})
    done = try_hook(project, "memreport", pre_commit_home)
    assert done.returncode == 0 and "(no files to check)" in done.stdout
