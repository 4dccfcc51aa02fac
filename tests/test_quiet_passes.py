"""A record item's pin check that passes with nothing to say reaches the log as its result,
its payload made only when an output asks for it.

The result must be the one the log reads from the payload the check's own outcome
reports (:meth:`CheckResult.of`), fact for fact, and its payload that very payload:
every output (JSON, SARIF, summaries) reads one or the other.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, strategies as st

from pytest_memreport.checks.verify import AMBIGUOUS, FILE_MISSING, FOUND, MISSING, PinResult
from pytest_memreport.engine.bindings import Binding
from pytest_memreport.integration.outcomes import evidence_outcome, quiet_pass
from pytest_memreport.model import Evidence, EvidenceKind, LineRange, Report
from pytest_memreport.outputs.kinds import CheckType, Outcome, PinStatus
from pytest_memreport.outputs.results import CheckResult, ResultLog, build_json
from pytest_memreport.resultcache import serialize
from pytest_memreport.text.quotes.nearest import Candidate

REPORT = Report(path="notes/r.md", dialect="records")

ranges = st.builds(lambda start, length: LineRange(start, start + length),
                   st.integers(1, 500), st.integers(0, 20))
evidence = st.builds(
    Evidence,
    kind=st.sampled_from([EvidenceKind.QUOTE, EvidenceKind.LINES, EvidenceKind.PATH]),
    path=st.sampled_from(["src/a.py", "docs/guide.md", "Makefile", "lib/b.rs"]),
    line=st.integers(1, 900),
    end_line=st.integers(1, 900),
    text=st.one_of(st.none(), st.text(max_size=40)),
    cited_lines=st.one_of(st.none(), ranges),
    owner=st.one_of(st.none(), st.sampled_from(["MEM-1", "R-2"])),
)
found = st.builds(
    PinResult,
    status=st.just(FOUND),
    rev=st.sampled_from(["a" * 40, "0123456789abcdef" * 2 + "01234567"]),
    path=st.sampled_from(["src/a.py", "docs/guide.md"]),
    lines=st.one_of(st.none(), ranges),
    in_cited_range=st.one_of(st.none(), st.booleans()),
    by_tokens=st.booleans(),
    candidate=st.one_of(st.none(), st.builds(Candidate, lines=ranges, text=st.text(max_size=20),
                                             score=st.floats(0, 100))),
    occurrences=st.lists(ranges, max_size=3).map(tuple),
    note=st.one_of(st.none(), st.just("read as Latin-1")),
    message=st.text(max_size=20),
    by_typography=st.booleans(),
    found_as=st.one_of(st.none(), st.just("shown")),
    literal=st.booleans(),
)
bindings = st.builds(Binding, source_id=st.just("SRC-1"), store=st.none(), pin=st.just("a" * 40),
                     pin_status=st.just("ok"), repo_label=st.sampled_from(["", "acme/tool"]))


@given(evidence, found, bindings)
def test_a_quiet_pass_is_the_result_its_outcomes_payload_reads_as(piece, result, binding):
    outcome = evidence_outcome(REPORT, piece, binding, result)
    assert outcome.verdict == "pass"
    quiet = quiet_pass(REPORT, piece, binding, result)
    assert quiet is not None
    read = CheckResult.of(outcome.payload, "passed")
    assert quiet == read
    assert quiet.payload == outcome.payload == read.payload


@given(evidence, found, bindings, st.sampled_from([MISSING, FILE_MISSING, AMBIGUOUS, "refused"]))
def test_a_check_with_more_to_say_is_no_quiet_pass(piece, result, binding, status):
    other = PinResult(status, result.rev, result.path, message="no such text")
    assert evidence_outcome(REPORT, piece, binding, other).verdict != "pass"
    assert quiet_pass(REPORT, piece, binding, other) is None
    misplaced = PinResult(FOUND, result.rev, result.path, lines=LineRange(40, 41), in_cited_range=False,
                          misplaced=True)
    assert quiet_pass(REPORT, piece, binding, misplaced) is None


def test_its_payload_is_made_once_and_only_when_an_output_asks():
    piece = Evidence(EvidenceKind.QUOTE, "src/a.py", 7, 7, text="return total", owner="MEM-1")
    result = PinResult(FOUND, "a" * 40, "src/a.py", lines=LineRange(12, 12), in_cited_range=True)
    quiet = quiet_pass(REPORT, piece, Binding("SRC-1", None, "a" * 40, "ok", repo_label="acme/tool"), result)
    assert quiet is not None and quiet.made_payload is None
    log = ResultLog()
    log.add_result(quiet)
    # read into the log and counted in the summary's tallies: no payload yet
    assert quiet.made_payload is None
    assert log.pin[REPORT.path][PinStatus.FOUND] == 1
    assert log.outcomes[REPORT.path] == {f"{CheckType.PIN.value}:{Outcome.PASSED.value}": 1}
    report = Report(path=REPORT.path, dialect="records", evidence=(piece,))
    written = build_json([report], log)
    made = quiet.made_payload
    assert isinstance(made, dict) and made["key"] == piece.key and made["target"] == {"repo": "acme/tool",
                                                                                        "rev": "a" * 40}
    [entry] = written["reports"][0]["evidence"]
    assert entry["at_pin"] == {"status": FOUND, "lines": (12, 12), "in_cited_range": True}
    build_json([report], log)
    assert quiet.made_payload is made  # made once


def test_a_result_with_neither_its_payload_nor_its_making_says_so():
    piece = Evidence(EvidenceKind.PATH, "src/a.py", 2, 2)
    quiet = quiet_pass(REPORT, piece, Binding("SRC-1", None, "a" * 40, "ok"), PinResult(FOUND, "a" * 40, "src/a.py"))
    assert quiet is not None
    broken = dataclasses.replace(quiet, pin_result=None)
    with pytest.raises(ValueError, match="neither its payload nor what makes it"):
        _ = broken.payload


def test_a_quiet_pass_round_trips_the_result_cache_codec_with_its_payload_unmade():
    piece = Evidence(EvidenceKind.LINES, "src/a.py", 3, 3, cited_lines=LineRange(2, 4))
    result = PinResult(FOUND, "a" * 40, "src/a.py", lines=LineRange(2, 4))
    quiet = quiet_pass(REPORT, piece, Binding("SRC-1", None, "a" * 40, "ok"), result)
    assert quiet is not None
    back = serialize.load(serialize.dump(quiet, CheckResult), CheckResult)
    assert back == quiet and back.made_payload is None
    assert (back.evidence, back.pin_result) == (piece, result)
    assert back.payload == quiet.payload
