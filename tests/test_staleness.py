"""The staleness rows as a pure function of the items' outcomes (what the step summary renders too)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pytest_memreport.model import Report
from pytest_memreport.outputs import staleness
from pytest_memreport.outputs.results import CheckResult


def pin(line, status, outcome, record="R-1"):
    return CheckResult.of({"type": "pin", "report": "r.md", "line": line, "record": record, "path": "a.py",
                           "at_pin": {"status": status}}, outcome)


def drift(line, status, outcome, **extra):
    return CheckResult.of({"type": "drift", "report": "r.md", "line": line, "record": "R-1", "path": "a.py",
                           "at_against": {"status": status, **extra}}, outcome)


REPORT = Report(path="r.md", dialect="review")


def test_counts_are_the_outcomes_not_the_statuses():
    entries = [
        pin(3, "found", "passed"), drift(3, "changed", "failed"),
        pin(5, "file-missing", "skipped"),  # a backticked word that is no path at the pin: not evidence
        drift(5, "not-checked", "skipped"),
        pin(7, "found", "passed"), drift(7, "unchanged", "failed", enclosing_changed=True),  # --memreport-strict
        pin(9, "missing", "failed"), drift(9, "ahead", "passed"),
    ]
    row = staleness.build_row(REPORT, entries, records_total=2)
    assert row.state == "stale" and row.checked == 6
    assert row.failing == (("changed", 1), ("enclosing-changed", 1), ("missing", 1))
    assert row.summary == "1 changed, 1 enclosing-changed, 1 missing of 6 checks"
    assert (row.records_guarded, row.records_total) == (1, 2)


def test_moves_say_where_evidence_went():
    entries = [pin(3, "found", "passed"),
               drift(3, "moved", "passed", path="b.py", lines=[4, 6]),
               pin(8, "found", "passed"),
               drift(8, "relocated", "passed", candidates=[{"path": "c.py", "lines": [1, 1]},
                                                           {"path": "d.py", "lines": [2, 3]}])]
    row = staleness.build_row(REPORT, entries)
    assert row.state == "fresh" and row.summary == "4 checks hold"
    assert row.moves == (staleness.Move(3, "moved", "a.py", ("b.py:4-6",)),
                         staleness.Move(8, "relocated", "a.py", ("c.py:1", "d.py:2-3")))


def test_unchecked_rows_collapse_by_reason_beyond_a_handful():
    rows = [staleness.Row(f"r{i}.md", "unchecked", reason_code="no-repository") for i in range(7)]
    rows += [staleness.Row("p.md", "unchecked", reason_code="pin-missing", reason="pin 123 is not a commit"),
             staleness.Row("f.md", "fresh", checked=3)]
    listed = staleness.layout(sorted(rows, key=lambda r: (staleness.STATE_ORDER.index(r.state), r.report)))
    # The collapsed line stands where the first of its reports would (rows are sorted by path).
    assert [getattr(e, "report", None) or e.summary for e in listed] == [
        "p.md", "7 reports: " + staleness.REASONS["no-repository"], "f.md"]
    assert staleness.nothing_checked(rows[:8]) and not staleness.nothing_checked(rows)


def test_a_report_none_of_whose_evidence_ran_is_no_row():
    structure_only = [CheckResult.of({"type": "structure", "report": "r.md"}, "passed")]
    assert staleness.build_row(REPORT, structure_only) is None


OUTCOMES = st.lists(st.tuples(st.integers(1, 40), st.sampled_from(["found", "missing", "file-missing"]),
                              st.sampled_from(["passed", "failed", "skipped"])), max_size=30)


@given(OUTCOMES, st.randoms())
def test_rows_do_not_depend_on_the_order_results_arrive_in(outcomes, random):
    """Under pytest-xdist the controller receives results in any order: the row is the same."""
    entries = [pin(line, status, outcome) for line, status, outcome in outcomes]
    shuffled = list(entries)
    random.shuffle(shuffled)
    assert staleness.build_row(REPORT, entries) == staleness.build_row(REPORT, shuffled)
