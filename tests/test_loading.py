"""Reports parsed partly in the worker process are the reports parsed in this one: for
every dialect, for analysis runs whose files share a register, across folders, and
when the worker dies or a file cannot be read."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pytest_memreport.dialects import ReportError
from pytest_memreport.engine import Engine, RunOptions
from pytest_memreport.loading import (MARKDOWN_COST, MIN_WORKER_COST, WORKER_SHARE, load_folders, parse_cost,
                                      worker_share)
from pytest_memreport.dialects.runs import MemberParse, RunFile
from pytest_memreport.textworker import TextWorker

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def knowledge_base(tmp_path) -> list[list[Path]]:
    """Every fixture report (records, reviews, tables, three analysis runs), each folder's
    files in order: ``[[files of one folder], ...]``."""
    root = tmp_path / "kb"
    shutil.copytree(FIXTURES, root)
    folders: dict[Path, list[Path]] = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            folders.setdefault(path.parent, []).append(path)
    assert len(folders) >= 6 and any(len(files) >= 3 for files in folders.values())
    return list(folders.values())


def load(folders, worker=None, min_worker_cost=0):
    return load_folders(folders, lambda path: path.name if path.is_file() else str(path), None, worker,
                        min_worker_cost)


def test_the_worker_parses_what_this_process_parses(knowledge_base):
    expected = load(knowledge_base)
    worker = TextWorker()
    try:
        got = load(knowledge_base, worker)
        assert worker.started and worker._answers, "the worker parsed nothing"
    finally:
        worker.close()
    assert got.reports == expected.reports
    assert got.report_bytes == expected.report_bytes
    # what the comparison covers: every file, records of every dialect, a run's shared pin
    assert len(got.reports) == sum(len(files) for files in knowledge_base)
    dialects = {report.dialect for report in got.reports.values()}
    assert {"records", "review", "tables"} <= dialects
    run_members = [report for path, report in got.reports.items() if path.parent.name == "subtree-run"]
    assert len(run_members) >= 3 and len({str(report.sources) for report in run_members}) == 1


def test_a_worker_that_dies_changes_nothing(knowledge_base):
    expected = load(knowledge_base)
    worker = TextWorker()
    try:
        worker.submit("", [("warm-up", MemberParse("records", RunFile("w.md", "")), None, ["warm-up"])],
                      kind="parse")
        worker._process.kill()
        worker._process.wait()
        got = load(knowledge_base, worker)
    finally:
        worker.close()
    assert got.reports == expected.reports


def test_unreadable_reports_say_so_with_the_worker_too(knowledge_base):
    bad = knowledge_base[0][0]
    bad.write_bytes(b"# title\n\xff\xfe not text\n")
    worker = TextWorker()
    try:
        got = load(knowledge_base, worker)
    finally:
        worker.close()
    assert isinstance(got.reports[bad], ReportError)
    assert "is not UTF-8 text (byte 0xff at line 2)" in str(got.reports[bad])
    assert sum(isinstance(report, ReportError) for report in got.reports.values()) == 1


def test_the_engine_parses_every_loaded_folder_at_once_with_the_worker(knowledge_base, tmp_path):
    paths = [path for files in knowledge_base for path in files]

    def reports(use_worker: bool):
        engine = Engine(RunOptions(repos={}, against="none", rootdir=tmp_path))
        engine.use_worker = use_worker
        engine.loaded_paths = paths
        try:
            first = engine.report(paths[-1])
            parsed_at_once = len(engine._reports)
            return first, parsed_at_once, [engine.report(path) for path in paths]
        finally:
            engine.close()

    first, alone, expected = reports(use_worker=False)
    first_too, at_once, got = reports(use_worker=True)
    assert got == expected and first_too == first
    assert alone == len(knowledge_base[-1]) and at_once == len(paths)


def member(size: int, suffix: str = ".txt") -> MemberParse:
    return MemberParse("records", RunFile(f"r{size}{suffix}", "x" * size))


def test_the_worker_takes_the_last_files_up_to_its_share():
    members = [member(size) for size in (600_000, 200_000, 100_000, 400_000, 120_000)]
    share = worker_share(members)
    taken = sum(len(members[i].file.text) for i in share)
    assert share == {4, 3, 2, 1} and taken <= WORKER_SHARE * 1_420_000
    assert worker_share(members[:1]) == set()  # one file: nothing to share
    assert worker_share([member(MIN_WORKER_COST // 4)] * 3) == set()  # too little to start for
    assert worker_share([member(10), member(MIN_WORKER_COST)]) == set()  # too little of it fits the share


def test_markdown_weighs_more_than_plain_text():
    # The same characters: Markdown is tokenized first, so the worker takes fewer of them.
    plain, markdown = member(100_000), member(100_000, ".md")
    assert parse_cost(markdown) == MARKDOWN_COST * parse_cost(plain) > parse_cost(plain)
    members = [member(500_000), markdown, plain]
    assert worker_share(members) == {1, 2}  # 240,000 + 100,000 of 840,000: under the share
    members = [member(400_000), markdown, member(200_000, ".md")]
    assert worker_share(members) == {2}  # both Markdown files would be 720,000 of 1,120,000
