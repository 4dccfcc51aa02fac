"""A note's quotation that looks beyond its file (attributed to the project) is checked by its
own item, never by the worker process's check of one file's text (a large pin shares its
quotations' checks with the worker, :mod:`pytest_memreport.textworker`)."""

from __future__ import annotations

import contextlib

from pytest_memreport.engine import Engine
from pytest_memreport.model import EvidenceKind, EvidenceRole
from pytest_memreport.options import RunOptions
from pytest_memreport.textworker import MIN_SHARED_CHECKS

LINES = MIN_SHARED_CHECKS + 20


def note(pin: str) -> str:
    blob = f"https://github.com/acme/almanac/blob/{pin}/docs/days.md"
    days = "\n".join(f'Day {i} says "entry number {i} of the almanac" ([days]({blob})).' for i in range(LINES))
    return (f"---\ndescription: almanac\n---\n\n# Almanac\n\n**Evidence basis:** the `acme/almanac` checkout at "
            f"commit [{pin[:8]}](https://github.com/acme/almanac/commit/{pin}) (2026-05-14).\n\n{days}\n\n"
            'The docs state that "leap days are kept apart".\n')


@contextlib.contextmanager
def engine_over(repo, report, offload: bool):
    engine = Engine(RunOptions(repos={"acme/almanac": str(repo.path)}, against="none", rootdir=report.parent))
    engine.use_worker = offload
    engine.loaded_paths = [report]
    try:
        yield engine, engine.report(report)
    finally:
        engine.close()


def test_the_projects_words_are_found_beside_a_worker(make_repo, tmp_path):
    repo = make_repo("almanac")
    days = "".join(f"entry number {i} of the almanac\n" for i in range(LINES))
    pin = repo.commit({"docs/days.md": days, "docs/leap.md": "Leap days are kept apart, always.\n"}, "almanac")
    report = tmp_path / "notes" / "almanac.md"
    report.parent.mkdir()
    report.write_text(note(pin), encoding="utf-8")
    results = {}
    for offload in (False, True):
        with engine_over(repo, report, offload) as (engine, parsed):
            [project] = [e for e in parsed.evidence if e.role is EvidenceRole.PROJECT]
            assert project.path == "docs/days.md"  # the file the note links comes first
            quotes = [e for e in parsed.evidence if e.kind is EvidenceKind.QUOTE]
            results[offload] = [engine.pin_result(parsed, e).status for e in quotes]
            found = engine.pin_result(parsed, project)
            assert found.ok and "found in docs/leap.md" in found.note
            if offload:
                assert engine._worker.started, "the worker was not asked"
    assert results[True] == results[False] == ["found"] * (LINES + 1)
