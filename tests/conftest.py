from __future__ import annotations

import importlib
import os
import pkgutil
import re
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from repo_builder import RepoBuilder  # noqa: E402

from pytest_memreport.dialects import parse_report, read_report  # noqa: E402
from pytest_memreport.model import Report  # noqa: E402

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"


def _import_the_plugin_once() -> None:
    """pytester's in-process runs remove, when they end, every module first imported
    during the run: about a hundred of the plugin's modules were imported again by every
    run, and hypothesis's pytest plugin imports hypothesis whole at each run's end (3 s a
    run: a plugin's modules are assertion-rewritten as they load). Imported here, once
    per test process, they stay loaded as in a user's one run."""
    import pytest_memreport

    for module in pkgutil.walk_packages(pytest_memreport.__path__, "pytest_memreport."):
        importlib.import_module(module.name)
    try:
        importlib.import_module("hypothesis.internal.observability")
    except ImportError:  # a smoke run without the test extras
        pass


_import_the_plugin_once()


@pytest.fixture(autouse=True)
def _outside_github_actions(monkeypatch):
    """Runs under test see no GitHub Actions of the suite's own CI (no step summary of its
    job is appended to, no annotation printed); a test that wants them sets them."""
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(autouse=True)
def _one_run_of_caches():
    """Library functions a test calls on their own share work as they do in a run: each
    test is one run (``pytest_memreport.runcaches``); an engine's calls use its own."""
    from pytest_memreport.runcaches import RunCaches

    with RunCaches().active() as caches:
        yield caches


@pytest.fixture
def make_repo(tmp_path):
    """Factory for real target repositories: ``make_repo("name") -> RepoBuilder``."""

    def factory(name: str = "target") -> RepoBuilder:
        return RepoBuilder(tmp_path / name)

    return factory


class GitCalls:
    """Every git process started, logged by a `git` wrapper placed first on PATH."""

    def __init__(self, log: Path) -> None:
        self.log = log

    def commands(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []

    def clear(self) -> None:
        self.log.write_text("")


@pytest.fixture
def git_calls(tmp_path, monkeypatch):
    """Every git process started from now on in this process or its children (pytest-xdist
    workers, ``runpytest_subprocess``): ``git_calls.commands()``."""
    real = shutil.which("git")
    assert real is not None
    bin_dir = tmp_path / "counting-bin"
    bin_dir.mkdir()
    log = tmp_path / "git-calls.log"
    wrapper = bin_dir / "git"
    wrapper.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return GitCalls(log)


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



#: The slowest cases (each a large input, a repin round trip through subprocess
#: pytest runs, or a run under pytest-xdist inside the test), marked ``slow``: `.ci/run`
#: runs them in a second invocation after the rest, so the quick feedback comes first.
#: ``pytest -m "not slow"`` runs the rest; ``pytest`` runs everything.
SLOW = {
    "test_ci_integration.py": {"test_xdist_and_shards_cover_the_serial_run"},
    "test_fuzz.py": {
        "test_read_report_raises_only_report_error",
        "test_parse_report_never_raises_and_points_inside_the_report",
        "test_engine_checks_never_raise_and_are_deterministic",
        "test_verifying_twice_writes_the_same_json",
    },
    "test_hostile_outputs_iv.py": {"test_the_preview_of_every_name_shape_applies_with_patch_and_git_apply"},
    "test_interruptions.py": {"test_sigkill_at_random_moments_never_leaves_a_mixed_report"},
    "test_kb_ci.py": {"test_the_table_is_the_same_under_xdist"},
    "test_plugin_claims.py": {
        "test_run_promotes_and_writes_back_only_intended_bytes",
        "test_failing_observation_does_not_promote",
    },
    "test_record_items.py": {"test_xdist_gives_the_serial_outcomes"},
    "test_records_dialect.py": {
        "test_100k_line_markdown_noise_costs_little_beyond_markdown_it",
        "test_100k_line_noise_report_parses_within_budget",
    },
    "test_repin_preview.py": {
        "test_the_preview_applied_with_patch_is_what_write_writes",
        "test_memreport_pin_moves_the_links_at_the_reviewed_commit",
        "test_the_preview_exit_code_is_that_of_the_write",
    },
    "test_repin_property.py": {"test_a_review_repin_changes_only_its_links"},
    "test_repin_real_review.py": {"test_a_synthetic_twin_with_twelve_renamed_files_is_repinned_to_head"},
    "test_repin_records.py": {
        "test_a_record_report_and_its_claims_file_are_repinned_in_one_step",
        "test_a_plain_text_review_is_repinned_byte_exactly",
        "test_a_record_report_is_repinned_across_renames_shifts_and_a_misplaced_quote",
        "test_a_wrong_range_is_corrected_without_a_repin",
    },
    "test_repin_review.py": {"test_a_renamed_review_is_repinned_in_one_command"},
    "test_repin_run_folder.py": {"test_a_multi_file_run_is_repinned_in_every_file"},
    "test_repin_tables.py": {
        "test_an_inline_quotation_cited_on_the_next_line_gets_its_range_corrected_and_moved",
        "test_a_tables_run_is_repinned_with_its_register_and_ranges",
    },
    "test_result_cache.py": {"test_xdist_workers_share_the_cache"},
    "test_review_e2e.py": {"test_any_review_pointing_into_the_repository_at_its_pin_passes"},
    "test_sarif.py": {
        "test_the_same_log_under_xdist",
        "test_fingerprints_survive_reruns_edits_above_and_new_target_commits",
        "test_record_items_give_the_same_results",
    },
    "test_textworker.py": {"*"},
    "test_writeback.py": {"test_a_killed_write_leaves_the_old_or_the_new_report"},
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        names = SLOW.get(item.path.name, ())
        if "*" in names or getattr(item, "originalname", item.name) in names:
            item.add_marker(pytest.mark.slow)
