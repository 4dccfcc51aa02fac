"""At the pin: cited ranges are enforced, and a failure says where to look.

Real repositories and real pytest runs: a quotation found outside its cited
lines fails with both ranges; a quotation missing from its file (or whose file
is missing) names where the pinned tree has it; a report whose pin is newer
than the clone says so and names the option that checks against a revision.
"""

from __future__ import annotations

import json
import os
import textwrap
import time

STORE_PY = "".join(f"# filler line {i}\n" for i in range(1, 40)) + textwrap.dedent(
    """\
    def evict(entries, limit):
        overflow = len(entries) - limit
        return entries[overflow:] if overflow > 0 else entries
    """
)
QUOTE = "overflow = len(entries) - limit"


def report(pin: str, citation: str, quote: str = QUOTE, extra: str = "") -> str:
    return textwrap.dedent(
        f"""\
        Eviction report
        {extra}
        Boundary and evidence

        The target is the cache at SRC-1 commit {pin}.

        Operative objects

        MEM-OBJ-evict

        Label: Eviction

        Old entries are dropped. SRC-1: {citation.split(":")[0]}.

        {quote} --- {citation}
        """
    )


def run(pytester, text: str, repo, *args: str):
    path = pytester.path / "report.txt"
    path.write_text(text, encoding="utf-8")
    out = pytester.path / "out.json"
    result = pytester.runpytest("--memreport", str(path), "--memreport-repo", str(repo.path),
                                "--memreport-json", str(out), *args)
    return result, json.loads(out.read_text()) if out.exists() else None


def quote_of(data) -> dict:
    (record,) = [r for r in data["reports"][0]["records"] if r["id"] == "MEM-OBJ-evict"]
    return next(e for e in record["evidence"] if e["kind"] == "quote")


def test_a_quote_outside_its_cited_lines_fails_with_both_ranges(pytester, make_repo):
    repo = make_repo()
    pin = repo.commit({"cache.py": STORE_PY}, "pin")

    result, data = run(pytester, report(pin, "cache.py:3-4"), repo, "--memreport-against", "none")

    result.assert_outcomes(failed=1, passed=3)
    assert "cited 3-4, found at 41 of cache.py" in result.stdout.str()
    evidence = quote_of(data)
    assert evidence["at_pin"]["status"] == "found"
    assert evidence["at_pin"]["in_cited_range"] is False and evidence["at_pin"]["misplaced"] is True


def test_a_quote_inside_or_overlapping_its_cited_lines_passes(pytester, make_repo):
    repo = make_repo()
    pin = repo.commit({"cache.py": STORE_PY}, "pin")

    inside, _ = run(pytester, report(pin, "cache.py:40-42"), repo, "--memreport-against", "none")
    inside.assert_outcomes(passed=4)
    # A single cited line starting a longer quote is where it starts.
    overlapping, data = run(pytester, report(pin, "cache.py:41", quote=QUOTE + " return entries[overflow:]"),
                            repo, "--memreport-against", "none")
    overlapping.assert_outcomes(passed=4)
    assert quote_of(data)["at_pin"].get("misplaced") is None


def test_a_quote_missing_from_its_file_names_where_the_pinned_tree_has_it(pytester, make_repo):
    repo = make_repo()
    pin = repo.commit({"cache.py": "x = 1\n", "core/evict.py": STORE_PY}, "pin")

    result, _ = run(pytester, report(pin, "cache.py"), repo, "--memreport-against", "none")

    result.assert_outcomes(failed=1, passed=3)
    assert "found instead in core/evict.py:41" in result.stdout.str()


def test_a_quote_whose_file_is_missing_names_where_the_pinned_tree_has_it(pytester, make_repo):
    repo = make_repo()
    pin = repo.commit({"core/evict.py": STORE_PY}, "pin")

    result, _ = run(pytester, report(pin, "cache.py"), repo, "--memreport-against", "none")

    assert "found instead in core/evict.py:41" in result.stdout.str()


def run_dated(pytester, text: str, repo, days: int):
    """Run with a report that states it was committed ``days`` from now; the file's own
    time says the opposite, and is never the report's date (issue 45)."""
    path = pytester.path / "report.txt"
    stated = time.strftime("%Y-%m-%d", time.gmtime(time.time() + days * 86400))
    path.write_text(text + f"\nThis report was committed on {stated}.\n", encoding="utf-8")
    when = time.time() - days * 86400
    os.utime(path, (when, when))
    return pytester.runpytest("--memreport", str(path), "--memreport-repo", str(repo.path))


def test_a_pin_missing_from_a_clone_older_than_the_report_says_so_and_names_the_option(pytester, make_repo):
    repo = make_repo()
    repo.commit({"cache.py": STORE_PY}, "old")

    result = run_dated(pytester, report("f" * 40, "cache.py"), repo, days=30)

    out = result.stdout.str()
    assert "is older than the report (dated " in out
    assert "--memreport-pin SRC-1=HEAD" in out and "fetch" in out


def test_a_pin_missing_from_a_clone_newer_than_the_report_suspects_the_pin(pytester, make_repo):
    repo = make_repo()
    repo.commit({"cache.py": STORE_PY}, "new")

    result = run_dated(pytester, report("f" * 40, "cache.py"), repo, days=-30)

    out = result.stdout.str()
    assert "the clone has commits as new as the report" in out and "is older than" not in out
    assert "--memreport-pin SRC-1=HEAD" in out


def test_a_reviews_last_checked_date_is_the_reports_date(tmp_path):
    from pytest_memreport.checks.clones import report_date
    from pytest_memreport.model import Report

    dated = report_date(Report("r.md", "review", meta={"last-checked": "2026-08-02"}), tmp_path / "absent.md")

    assert dated is not None and dated[0] == "last-checked 2026-08-02"
    assert time.strftime("%Y-%m-%d", time.gmtime(dated[1] - 1)) == "2026-08-02"
