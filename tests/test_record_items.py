"""``--memreport-items=record``: one item per record, the same results as one item per check.

Every test runs a real target repository through pytester. The report has a
record whose evidence holds (one quotation with a warning: its enclosing
function changed since the pin), one whose quotation is missing at the pin and
one whose quotation changed at HEAD, and one whose only citation is pinned to a
commit the clone lacks (skipped); a review holds evidence outside any record.
"""

from __future__ import annotations

import json
import re
import textwrap

import pytest
from conftest import summary_outcomes

STORE_PY = "LIMIT = 200\nSIZE = 512\n\n\ndef keep(entries):\n    return entries[-LIMIT:]\n"
# At HEAD: SIZE changed (a drift failure), keep() grew a line (a warning for its quotation).
STORE_PY_HEAD = "LIMIT = 200\nSIZE = 513\n\n\ndef keep(entries):\n    entries = list(entries)\n    return entries[-LIMIT:]\n"
ABSENT_COMMIT = "ab" * 20

#: report lines of the evidence below
GOOD_LIMIT, GOOD_KEEP, BAD_AT_PIN, BAD_AT_HEAD, SKIPPED_CITATION = 13, 15, 21, 23, 29


def report_text(pin: str) -> str:
    return textwrap.dedent(
        f"""\
        Store report

        Boundary and evidence

        The target is at SRC-1 commit {pin}. SRC-2 commit {ABSENT_COMMIT}.

        Operative objects

        MEM-OBJ-good

        Label: Good

        LIMIT = 200 --- pkg/store.py

        return entries[-LIMIT:] --- pkg/store.py

        MEM-OBJ-bad

        Label: Bad

        LIMIT = 300 --- pkg/store.py

        SIZE = 512 --- pkg/store.py

        MEM-OBJ-skip

        Label: Skip

        SRC-2: pkg/other.py.
        """
    )


def review_text(pin: str) -> str:
    blob = f"https://github.com/acme/store/blob/{pin}/pkg"
    return textwrap.dedent(
        f"""\
        # Store review

        **Repository:** https://github.com/acme/store
        **Reviewed commit:** [{pin}](https://github.com/acme/store/commit/{pin})

        ## Limits

        The limits are [lines 1-2]({blob}/store.py#L1-L2); the helper is [other.py]({blob}/other.py)
        and [lines 7-8]({blob}/store.py#L7-L8) do not exist.
        """
    )


@pytest.fixture
def target(make_repo, pytester):
    repo = make_repo("target")
    pin = repo.commit({"pkg/store.py": STORE_PY, "pkg/other.py": "X = 1\n"}, "first")
    repo.commit({"pkg/store.py": STORE_PY_HEAD}, "edit")
    (pytester.path / "report.md").write_text(report_text(pin), encoding="utf-8")
    return repo, pin


def run(pytester, repo, *args: str, report: str = "report.md", subprocess: bool = False):
    argv = ["--memreport", report, f"--memreport-repo={repo.path}", "-rA", "-p", "no:randomly", *args]
    return pytester.runpytest_subprocess(*argv) if subprocess else pytester.runpytest(*argv)


def outcomes(result) -> dict[str, str]:
    return summary_outcomes(result, ("PASSED", "FAILED", "ERROR"))  # skips: see below


def skipped_ids(result) -> set[str]:
    """Skips are listed by location, not node id: the records named in their reasons."""
    return set(re.findall(r"^SKIPPED \[\d+\] \S+ (MEM-\S+):", result.stdout.str(), flags=re.M))


def annotations(result) -> list[str]:
    return [line for line in result.stdout.lines if line.startswith("::error ")]


def results_json(pytester, repo, mode: str, *args: str) -> dict:
    path = pytester.path / f"{mode}.json"
    run(pytester, repo, f"--memreport-items={mode}", f"--memreport-json={path}", *args)
    data = json.loads(path.read_text(encoding="utf-8"))
    return data["reports"]


def test_json_is_the_same_in_both_modes(pytester, target):
    repo, _ = target
    by_evidence = results_json(pytester, repo, "evidence")
    by_record = results_json(pytester, repo, "record")
    assert by_record == by_evidence
    records = {r["id"]: r for r in by_record[0]["records"]}
    statuses = {(e["line"], e["at_pin"]["status"], e.get("at_against", {}).get("status"))
                for r in records.values() for e in r["evidence"]}
    assert statuses == {
        (GOOD_LIMIT, "found", "unchanged"),
        (GOOD_KEEP, "found", "shifted"),
        (BAD_AT_PIN, "missing", "not-checked"),
        (BAD_AT_HEAD, "found", "changed"),
        (SKIPPED_CITATION, "commit-missing", "not-checked"),
    }


def test_json_is_the_same_in_both_modes_at_the_pin_only(pytester, target):
    """Checked at the pin only, a record's quotations found where cited pass quietly: their
    results reach the log without a payload, made when the JSON is written."""
    repo, _ = target
    by_evidence = results_json(pytester, repo, "evidence", "--memreport-against=none")
    by_record = results_json(pytester, repo, "record", "--memreport-against=none")
    assert by_record == by_evidence
    statuses = {(e["line"], e["at_pin"]["status"]) for r in by_record[0]["records"] for e in r["evidence"]}
    assert statuses == {(GOOD_LIMIT, "found"), (GOOD_KEEP, "found"), (BAD_AT_PIN, "missing"),
                        (BAD_AT_HEAD, "found"), (SKIPPED_CITATION, "commit-missing")}


@pytest.mark.parametrize("mode", ["evidence", "record"])
def test_each_source_of_a_report_keeps_its_own_result_in_the_json(pytester, target, mode):
    """Two sources' checks were one entry of the log (their payloads have no key): the JSON
    said the first source was not checked, or the second, by which check came last."""
    repo, pin = target
    sources = {s["id"]: s for s in json_of(pytester, repo, mode, "--memreport-against=none")["sources"]}
    assert (sources["SRC-1"]["pin_status"], sources["SRC-1"]["pin"]) == ("ok", pin)
    assert (sources["SRC-2"]["pin_status"], sources["SRC-2"]["pin"]) == ("missing-commit", ABSENT_COMMIT)


def json_of(pytester, repo, mode: str, *args: str) -> dict:
    [report] = results_json(pytester, repo, mode, *args)
    return report


def test_xdist_writes_the_serial_json(pytester, target):
    """A worker sends a quiet pass as an entry with its payload; the controller reads it
    into the same results."""
    repo, _ = target
    serial = results_json(pytester, repo, "record", "--memreport-against=none")
    path = pytester.path / "parallel.json"
    run(pytester, repo, "--memreport-items=record", "--memreport-against=none", f"--memreport-json={path}",
        "-n", "2", subprocess=True)
    assert json.loads(path.read_text(encoding="utf-8"))["reports"] == serial


def test_one_item_per_record_with_each_failure_in_full(pytester, target):
    repo, _ = target
    result = run(pytester, repo, "--memreport-items=record")
    assert outcomes(result) == {
        "report.md::source:SRC-1": "PASSED",
        "report.md::source:SRC-2": "FAILED",
        "report.md::structure": "PASSED",
        "report.md::MEM-OBJ-good::evidence": "PASSED",
        "report.md::MEM-OBJ-bad::evidence": "FAILED",
    }
    assert skipped_ids(result) == {"MEM-OBJ-skip"}  # its only citation is at an absent commit
    result.assert_outcomes(passed=3, failed=2, skipped=1, warnings=1)
    out = result.stdout.str()
    # The failure's first line is its headline; each failing check follows with its details.
    result.stdout.fnmatch_lines(["FAILED report.md::MEM-OBJ-bad::evidence - MEM-OBJ-bad: 2 of 4 checks failed"])
    block = out[out.index("MEM-OBJ-bad: 2 of 4 checks failed"):]
    assert f"\n\nreport.md:{BAD_AT_PIN}: MEM-OBJ-bad quotation of pkg/store.py missing at " in block
    assert "  quotation: LIMIT = 300" in block and "nearest candidate at lines 1" in block
    assert f"\n\nreport.md:{BAD_AT_HEAD}: MEM-OBJ-bad quotation of pkg/store.py changed at " in block
    assert "  quotation: SIZE = 512" in block
    # The warning is given at its quotation's own report line, in one line: the location
    # once, then the message; the report's text is not echoed under it.
    lines = result.stdout.lines
    at = next(i for i, line in enumerate(lines) if f"report.md:{GOOD_KEEP}: MemreportWarning: MEM-OBJ-good" in line)
    assert lines[at - 1] == "report.md::MEM-OBJ-good::evidence" and lines[at + 1] == ""
    assert lines[at].count("report.md") == 1
    assert "Traceback" not in out
    # The staleness table counts each check, as in the default mode.
    [row] = [line for line in result.stdout.lines if line.startswith("stale ")]
    # (SRC-2's pin is not in the clone: its source item fails, and says so once)
    # (an unread pin is not drift: partly unchecked, never counted as stale)
    assert row.split() == ["stale", "report.md", "1", "changed,", "1", "missing", "of", "7", "checks;", "partly",
                           "unchecked:", "1", "pin(s)", "the", "clone", "lacks"]
    assert row in run(pytester, repo).stdout.lines


def test_evidence_outside_records_is_one_file_level_item(pytester, target):
    repo, pin = target
    (pytester.path / "review.md").write_text(review_text(pin), encoding="utf-8")
    argv = ["--memreport", "review.md", f"--memreport-repo=acme/store={repo.path}", "-rA"]
    per_check = outcomes(pytester.runpytest(*argv))
    assert list(per_check.values()).count("FAILED") == 2  # a drift and a pin item; the third link holds
    result = pytester.runpytest(*argv, "--memreport-items=record")
    assert outcomes(result) == {
        "review.md::source:acme/store": "PASSED",
        "review.md::structure": "PASSED",
        "review.md::evidence": "FAILED",
    }
    result.stdout.fnmatch_lines(["FAILED review.md::evidence - review.md: 2 of 6 checks failed"])
    out = result.stdout.str()
    assert "\n\nreview.md:9: lines 7-8 of pkg/store.py" in out  # the missing lines, on their report line


def test_github_annotations_are_one_per_failing_evidence(pytester, target, monkeypatch):
    repo, _ = target
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    found = annotations(run(pytester, repo, "--memreport-items=record"))
    # The absent commit's source fails once, annotated on the line that declares it.
    assert [re.match(r"::error file=report\.md,line=(\d+),title=", a).group(1) for a in found] == [
        "5", str(BAD_AT_PIN), str(BAD_AT_HEAD)]
    assert found[1].startswith(f"::error file=report.md,line={BAD_AT_PIN},title=MEM-OBJ-bad%3A missing::MEM-OBJ-bad ")
    assert found == annotations(run(pytester, repo))


def test_junit_properties_of_a_record_item(pytester, target):
    import xml.etree.ElementTree as ET

    repo, _ = target
    xml_path = pytester.path / "junit.xml"
    run(pytester, repo, "--memreport-items=record", f"--junitxml={xml_path}")
    case = next(c for c in ET.parse(xml_path).getroot().iter("testcase")
                if c.get("name") == "evidence" and c.get("classname", "").endswith("MEM-OBJ-bad"))
    props = {p.get("name"): p.get("value") for p in case.iter("property") if not p.get("name").startswith("memreport")}
    assert props == {"record": "MEM-OBJ-bad", "status": "missing", "location": "report.md:17"}


def test_xdist_gives_the_serial_outcomes(pytester, target):
    repo, _ = target
    serial = run(pytester, repo, "--memreport-items=record")
    parallel = run(pytester, repo, "--memreport-items=record", "-n", "2", subprocess=True)
    assert outcomes(parallel) == outcomes(serial)
    assert skipped_ids(parallel) == skipped_ids(serial)
    assert sorted(annotations(parallel)) == sorted(annotations(serial))


def test_shards_cover_every_record_item_once(pytester, target):
    repo, _ = target
    every = outcomes(run(pytester, repo, "--memreport-items=record"))
    union: dict[str, str] = {}
    skipped: set[str] = set()
    for k in (1, 2):
        result = run(pytester, repo, "--memreport-items=record", "--memreport-shard", f"{k}/2")
        shard = outcomes(result)
        assert not set(shard) & set(union), "shards overlap"
        assert not skipped_ids(result) & skipped, "shards overlap"
        union.update(shard)
        skipped |= skipped_ids(result)
    assert union == every
    assert skipped == {"MEM-OBJ-skip"}


def test_a_repository_failure_fails_its_check_not_the_others(pytester, target):
    repo, _ = target
    pytester.makeconftest(
        textwrap.dedent(
            """\
            from pytest_memreport.checks import drift
            from pytest_memreport.gitstore import RepoError

            _original = drift.classify


            def _broken(*args, **kwargs):
                raise RepoError("/gone/repo: `git diff-tree` failed: bad object")


            def pytest_configure(config):
                drift.classify = _broken


            def pytest_unconfigure(config):
                drift.classify = _original
            """
        )
    )
    result = run(pytester, repo, "--memreport-items=record", "-k", "MEM-OBJ-good")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    result.stdout.fnmatch_lines(["FAILED report.md::MEM-OBJ-good::evidence - MEM-OBJ-good: 2 of 4 checks failed"])
    # Each failed check is unreadable at its own report line, with git's reason.
    assert f"report.md:{GOOD_LIMIT}: MEM-OBJ-good " in out and f"report.md:{GOOD_KEEP}: MEM-OBJ-good " in out
    assert out.count(" unreadable at ") >= 2
    assert out.count("  /gone/repo: `git diff-tree` failed: bad object") >= 2
    assert "Traceback" not in out
    # The pin checks still ran and count; the drift checks failed (an error, said once each).
    # what could not be read is not drift: partly unchecked, never stale
    result.stdout.fnmatch_lines(["partial*report.md  2 of 4 checks hold; partly unchecked: 2 citation(s) the "
                                 "clone could not read*"])


def test_repin_writes_the_same_bytes_in_both_modes(pytester, make_repo):
    repo = make_repo("target")
    pin = repo.commit({"pkg/store.py": STORE_PY, "pkg/other.py": "X = 1\n"}, "first")
    repo.move("pkg/store.py", "src/store.py")
    later = repo.commit(message="move")
    text = report_text(pin).split("MEM-OBJ-bad")[0]  # only the record that holds at both commits
    written = {}
    for mode in ("evidence", "record"):
        report = pytester.path / f"{mode}.md"
        report.write_text(text, encoding="utf-8")
        result = run(pytester, repo, f"--memreport-items={mode}", "--memreport-write", f"--memreport-repin={later}",
                     report=report.name)
        assert result.ret == 0, result.stdout.str()
        written[mode] = report.read_text(encoding="utf-8")
    assert written["record"] == written["evidence"] != text
    assert f"SRC-1 commit {later}" in written["record"] and "LIMIT = 200 --- src/store.py" in written["record"]


def test_a_bad_value_is_a_usage_error(pytester, target):
    repo, _ = target
    result = run(pytester, repo, "--memreport-items=claims")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert errors == ["ERROR: --memreport-items 'claims': give evidence (an item per evidence) "
                      "or record (an item per record)"]


def test_the_ini_key_sets_the_mode_and_is_checked(pytester, target):
    repo, _ = target
    pytester.makeini("[pytest]\nmemreport_items = record\n")
    assert "report.md::MEM-OBJ-bad::evidence" in outcomes(run(pytester, repo))
    # The option overrides the ini key.
    assert "report.md::MEM-OBJ-bad::quote@L21" in outcomes(run(pytester, repo, "--memreport-items=evidence"))
    pytester.makeini("[pytest]\nmemreport_items = records\n")
    result = run(pytester, repo)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: ini key memreport_items 'records': give evidence*"])


def test_a_skip_is_reported_at_its_report_line(pytester, target):
    repo, _ = target
    for mode in ("evidence", "record"):
        out = run(pytester, repo, f"--memreport-items={mode}").stdout.str()
        skips = [line for line in out.splitlines() if line.startswith("SKIPPED ")]
        assert skips and all(re.match(r"SKIPPED \[\d+\] report\.md:\d+: \S", line) for line in skips), skips
        assert "items.py" not in out
