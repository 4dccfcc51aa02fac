from __future__ import annotations

import re

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from repo_builder import RepoBuilder  # noqa: E402

from pytest_memreport.dialects import parse_report, read_report  # noqa: E402
from pytest_memreport.model import Report  # noqa: E402

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"


@pytest.fixture(autouse=True)
def _outside_github_actions(monkeypatch):
    """Runs under test see no GitHub Actions of the suite's own CI (no step summary of its
    job is appended to, no annotation printed); a test that wants them sets them."""
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def make_repo(tmp_path):
    """Factory for real target repositories: ``make_repo("name") -> RepoBuilder``."""

    def factory(name: str = "target") -> RepoBuilder:
        return RepoBuilder(tmp_path / name)

    return factory


def load_report(path: Path) -> Report:
    """Read and parse a fixture report as the plugin does; it must read without findings."""
    text, findings = read_report(path)
    assert findings == []
    return parse_report(str(path), text)


def summary_outcomes(result, kinds: tuple[str, ...] = ("PASSED", "FAILED", "SKIPPED", "ERROR")) -> dict[str, str]:
    """nodeid → outcome from a ``-rA`` run's short summary (works under xdist too).

    pytest lists a skip by location rather than node id: leave ``SKIPPED``
    out of ``kinds`` where two skips may share one.
    """
    found = {}
    pattern = re.compile(rf"^({'|'.join(kinds)}) (\S+)")
    for line in result.stdout.lines:
        m = pattern.match(line)
        if m:
            found[m.group(2)] = m.group(1)
    return found

