"""Odd target files through the plugin: binary, over-size, Latin-1, CRLF, no
final newline, empty, one huge line. Each ends in a clear verdict."""

from __future__ import annotations

import pytest

from hostile_support import (
    HOSTILE_RUNS,
    HOSTILE_SLACK,
    assert_clean,
    baseline_run_cpu,
    cpu_of,
    evidence_results,
    line_of,
    records_report,
    run_report,
)

LATIN1 = "caf\xe9 = 'cr\xe8me'\nplain ascii line\n".encode("latin-1")
HUGE_LINE = "start " + "y" * 1_000_000 + " NEEDLE end"


@pytest.fixture
def odd_files(make_repo):
    repo = make_repo("target")
    pin = repo.commit(
        {
            "bin/blob.bin": b"\x00\x01binary MAGIC\x00" * 10,
            "big/data.txt": "needle line\n" + "x" * 4000 + "\n",
            "enc/latin.txt": LATIN1,
            "crlf/win.txt": b"first line\r\nsecond line\r\nthird line\r\n",
            "nonl/tail.py": "def f():\n    return 42",
            "empty/e.txt": "",
            "long/one.txt": HUGE_LINE,
        },
        "odd files",
    )
    return repo, pin


def test_binary_file_quotation_fails_saying_binary_and_its_path_still_exists(pytester, odd_files):
    repo, pin = odd_files
    text = records_report(pin, "SRC-1: bin/blob.bin.", "binary MAGIC --- bin/blob.bin")
    result = run_report(pytester, text, repo.path, "--memreport-against", "none")
    out = assert_clean(result)
    result.assert_outcomes(passed=3, failed=1)
    assert f"report.md:{line_of(1)}: MEM-OBJ-subject quotation of bin/blob.bin unreadable at" in out
    assert "bin/blob.bin is a binary file (150 bytes)" in out


def test_over_size_limit_fails_naming_the_limit_option_and_reads_under_it(pytester, odd_files):
    repo, pin = odd_files
    text = records_report(pin, "needle line --- big/data.txt")
    small = run_report(pytester, text, repo.path, "--memreport-max-file-size", "1k", "--memreport-against", "none")
    out = assert_clean(small)
    small.assert_outcomes(passed=2, failed=1)
    assert "big/data.txt is 4013 bytes, over the size limit" in out
    assert "--memreport-max-file-size" in out
    large = run_report(pytester, text, repo.path, "--memreport-max-file-size", "5k", "--memreport-against", "none")
    large.assert_outcomes(passed=3)


def test_file_grown_over_the_limit_since_the_pin_fails_drift_saying_so(pytester, odd_files):
    repo, pin = odd_files
    repo.commit({"big/data.txt": "needle line\n" + "x" * 9000 + "\n"}, "grow")
    text = records_report(pin, "needle line --- big/data.txt")
    result = run_report(pytester, text, repo.path, "--memreport-max-file-size", "5k")
    out = assert_clean(result)
    result.assert_outcomes(passed=3, failed=1)
    assert "quotation of big/data.txt changed at" in out
    assert "big/data.txt cannot be searched at" in out
    assert "big/data.txt is 9013 bytes, over the size limit" in out


def test_latin1_file_is_read_as_latin1_and_the_result_says_so(pytester, odd_files):
    repo, pin = odd_files
    out_json = pytester.path / "out.json"
    text = records_report(pin, "plain ascii line --- enc/latin.txt", "café = 'crème' --- enc/latin.txt")
    result = run_report(pytester, text, repo.path, "--memreport-json", str(out_json))
    assert_clean(result)
    result.assert_outcomes(passed=6)
    found = evidence_results(out_json)
    ascii_line = found[(line_of(0), "quote", "enc/latin.txt")]["at_pin"]
    accented = found[(line_of(1), "quote", "enc/latin.txt")]["at_pin"]
    assert ascii_line["lines"] == [2, 2] and accented["lines"] == [1, 1]
    assert accented["note"] == "enc/latin.txt is not valid UTF-8; read as Latin-1"


def test_crlf_file_matches_like_lf_and_converting_it_to_lf_is_no_drift(pytester, odd_files):
    repo, pin = odd_files
    text = records_report(pin, "first line second line --- crlf/win.txt:1-2")
    out_json = pytester.path / "out.json"
    repo.commit({"crlf/win.txt": "first line\nsecond line\nthird line\n"}, "dos2unix")
    result = run_report(pytester, text, repo.path, "--memreport-json", str(out_json))
    assert_clean(result)
    result.assert_outcomes(passed=4)
    evidence = evidence_results(out_json)[(line_of(0), "quote", "crlf/win.txt")]
    assert evidence["at_pin"]["lines"] == [1, 2] and evidence["at_pin"]["in_cited_range"] is True
    # A different blob, the same lines: read, not assumed.
    assert evidence["at_against"]["status"] == "unchanged" and evidence["at_against"]["lines"] == [1, 2]


def test_file_without_final_newline_has_its_last_line(pytester, odd_files):
    repo, pin = odd_files
    out_json = pytester.path / "out.json"
    text = records_report(pin, "return 42 --- nonl/tail.py:2")
    result = run_report(pytester, text, repo.path, "--memreport-json", str(out_json), "--memreport-against", "none")
    assert_clean(result)
    result.assert_outcomes(passed=3)
    at_pin = evidence_results(out_json)[(line_of(0), "quote", "nonl/tail.py")]["at_pin"]
    assert at_pin["lines"] == [2, 2] and at_pin["symbol"]["name"] == "f"


def test_empty_file_exists_but_quotes_nothing(pytester, odd_files):
    repo, pin = odd_files
    text = records_report(pin, "SRC-1: empty/e.txt.", "anything at all --- empty/e.txt")
    result = run_report(pytester, text, repo.path, "--memreport-against", "none")
    out = assert_clean(result)
    result.assert_outcomes(passed=3, failed=1)
    assert f"report.md:{line_of(1)}: MEM-OBJ-subject quotation of empty/e.txt missing at" in out
    assert "quotation not found in empty/e.txt" in out
    assert "nearest candidate" not in out


def test_one_megabyte_line_is_searched_and_a_failure_shows_it_clipped(pytester, odd_files):
    repo, pin = odd_files
    text = records_report(pin, "NEEDLE end --- long/one.txt", "start yyyy NOT THERE end --- long/one.txt")
    result = run_report(pytester, text, repo.path, "--memreport-against", "none")
    out = assert_clean(result)
    result.assert_outcomes(passed=3, failed=1)
    assert f"report.md:{line_of(1)}: MEM-OBJ-subject quotation of long/one.txt missing at" in out
    longest = max(len(line) for line in out.split("\n"))
    assert longest < 1000, f"a {longest}-character output line"


def test_trailing_whitespace_run_does_not_slow_the_failure_diff(pytester, make_repo):
    """The candidate shown for a missing quote ends in 200,000 spaces: its diff
    once retried that run from each of its positions (quadratic: hours)."""
    repo = make_repo("target")
    pin = repo.commit({"pad.py": "LIMIT = 1" + " " * 200_000}, "padded")
    text = records_report(pin, "LIMIT = 2 --- pad.py")
    baseline = baseline_run_cpu(pytester, make_repo)
    result, spent = cpu_of(lambda: run_report(pytester, text, repo.path, "--memreport-against", "none"))
    out = assert_clean(result)
    result.assert_outcomes(passed=2, failed=1)
    assert "- 2\n" in out and "+ 1\n" in out
    assert spent < HOSTILE_RUNS * baseline + HOSTILE_SLACK, (spent, baseline)


def test_a_missing_quote_in_a_latin1_file_says_how_the_file_was_read(pytester, odd_files):
    repo, pin = odd_files
    text = records_report(pin, "café = 'crèmes' --- enc/latin.txt")
    result = run_report(pytester, text, repo.path, "--memreport-against", "none")
    out = assert_clean(result)
    result.assert_outcomes(passed=2, failed=1)
    assert f"report.md:{line_of(0)}: MEM-OBJ-subject quotation of enc/latin.txt missing at" in out
    assert "  enc/latin.txt is not valid UTF-8; read as Latin-1" in out
