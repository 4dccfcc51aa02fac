"""A check's message is kept apart from the place its headline opens with: outputs that show
the place on their own (pytest's skip lines, SARIF, annotations, summaries) take the message,
never the headline with a ``file:line:`` cut off by a pattern (which a path with a space defeated)."""

from __future__ import annotations

from ci_support import build

from pytest_memreport.outputs.verdicts import verdicts_of_entry


def test_a_skip_line_names_a_spaced_path_once(pytester, make_repo):
    (pytester.path / "my notes").mkdir()
    base = build(pytester, make_repo, name="my notes/store.txt")
    result = pytester.runpytest(*base.args("--memreport-pin", "0" * 40, "-rs", "--memreport-allow-unchecked"))
    skipped = [line for line in result.stdout.lines if line.startswith("SKIPPED")]
    assert skipped, result.stdout.str()[-2000:]
    assert all(line.count("my notes/store.txt:") == 1 for line in skipped), skipped
    assert any("my notes/store.txt:5: not checked: revision" in line for line in skipped), skipped


def test_a_verdict_says_the_checks_own_message():
    entry = {"verdict": "fail", "headline": "odd place:3: MEM-OBJ-a quotation missing at abc",
             "message": "MEM-OBJ-a quotation missing at abc", "location": "odd place:3", "place": ["odd place", 3],
             "payload": {"type": "pin", "report": "odd place", "at_pin": {"status": "missing"}}}
    [verdict] = verdicts_of_entry(entry, "failed", "odd place::quote@L3")
    assert verdict.message == "MEM-OBJ-a quotation missing at abc"
    assert verdict.place.line == 3 and verdict.status == "missing"


def test_an_unchecked_reason_drops_its_place_only_when_it_is_said_at_the_report():
    """The reason's place is data (``render.Said``): said at the report, the reason is its text;
    said at another file (a register), it keeps that file; text that merely opens like a place
    is never cut."""
    from pytest_memreport.integration.outcomes import unchecked_outcome
    from pytest_memreport.model import Report
    from pytest_memreport.text.render import Said

    report = Report(path="notes 1.md", dialect="notes")

    def reason(said):
        return unchecked_outcome(report, "no-repository", said, [], 1, required=False).payload["reason"]

    assert reason(Said("notes 1.md", 4, "no local clone for a/b")) == "no local clone for a/b"
    assert reason(Said("notes 1.md", None, "no local clone for a/b")) == "no local clone for a/b"
    assert reason(Said("register.md", 2, "no local clone for a/b")) == "register.md:2: no local clone for a/b"
    assert reason("notes 1.md:3: a message someone wrote") == "notes 1.md:3: a message someone wrote"


def test_a_one_line_failure_is_placed_by_its_data_also_in_a_spaced_path(pytester, make_repo):
    """``--tb=line`` places a failure at the line its headline is said at (carried as data),
    so a report under a spaced folder is named once, at its own line, not at the item's."""
    (pytester.path / "my notes").mkdir()
    base = build(pytester, make_repo, name="my notes/store.txt")
    result = pytester.runpytest(*base.args("--tb=line"))
    # the --tb=line lines (the short summary's FAILED lines, shown in full under CI=true, name the item)
    failures = [line for line in result.stdout.lines
                if "quotation of pkg/limits.py changed" in line and not line.startswith("FAILED ")]
    assert failures, result.stdout.str()[-2000:]
    assert all(line.startswith("my notes/store.txt:15: ") and line.count("my notes/store.txt") == 1
               for line in failures), failures
