"""A note's quotation that looks beyond its file (attributed to the project) is checked in its
pin's batch like every other quotation there, and still looks beyond its file: the batch
checks each evidence as its own item would."""

from __future__ import annotations

import contextlib

from pytest_memreport.engine import Engine
from pytest_memreport.model import EvidenceKind, EvidenceRole
from pytest_memreport.options import RunOptions
LINES = 1_020


def note(pin: str) -> str:
    blob = f"https://github.com/acme/almanac/blob/{pin}/docs/days.md"
    days = "\n".join(f'Day {i} says "entry number {i} of the almanac" ([days]({blob})).' for i in range(LINES))
    return (f"---\ndescription: almanac\n---\n\n# Almanac\n\n**Evidence basis:** the `acme/almanac` checkout at "
            f"commit [{pin[:8]}](https://github.com/acme/almanac/commit/{pin}) (2026-05-14).\n\n{days}\n\n"
            'The docs state that "leap days are kept apart".\n')


@contextlib.contextmanager
def engine_over(repo, report):
    engine = Engine(RunOptions(repos={"acme/almanac": str(repo.path)}, against="none", rootdir=report.parent),
                    [report])
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
    with engine_over(repo, report) as (engine, parsed):
        [project] = [e for e in parsed.evidence if e.role is EvidenceRole.PROJECT]
        assert project.path == "docs/days.md"  # the file the note links comes first
        quotes = [e for e in parsed.evidence if e.kind is EvidenceKind.QUOTE]
        engine.check_planned([(parsed, e) for e in quotes])
        assert [engine.pin_result(parsed, e).status for e in quotes] == ["found"] * (LINES + 1)
        found = engine.pin_result(parsed, project)
        assert found.ok and "found in docs/leap.md" in found.note
