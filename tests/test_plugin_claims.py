"""Claims files, observations and write-back through the plugin, as users run them."""

from __future__ import annotations

import json
import textwrap

STORE_PY = textwrap.dedent(
    '''\
    MAX_ENTRIES = 8_000


    def forget(entries, entry_id):
        # TODO: a compare_and_swap would stop lost updates here
        return [e for e in entries if e["id"] != entry_id]
    '''
)

TEST_STORE_PY = textwrap.dedent(
    '''\
    from store import forget


    def test_forget_exact_id():
        assert forget([{"id": 1}, {"id": 2}], 1) == [{"id": 2}]
    '''
)


def report_text(pin: str) -> str:
    return textwrap.dedent(
        f"""\
        Store memory report

        Boundary and evidence

        SRC-1 commit {pin} is the boundary.

        Routes

        MEM-RTE-forget

        Label: Forget

        Forgetting drops the exact ID. SRC-1: store.py.

        return [e for e in entries if e["id"] != entry_id] --- store.py

          • Selection predicate: forget matches the exact supplied ID.
          • implementation conclusion status: afforded
          • operation conclusion status: uninspected

        Evidenced absences

        MEM-ABS-no-cas

        Label: No compare-and-swap

        The write path has no compare-and-swap.
        """
    )


CLAIMS = textwrap.dedent(
    """\
    schema: memreport-claims/1
    records:
      MEM-RTE-forget:
        predicates:
          - contains: {path: store.py, text: "e[\\"id\\"] != entry_id"}
          - value: {path: store.py, symbol: MAX_ENTRIES, equals: 8000}
          - symbol: {path: store.py, name: forget, kind: function}
          - count: {glob: "*.py", regex: "def forget", equals: 1}
        observe:
          - run: "python -m pytest -q -p no:cacheprovider test_store.py"
            covers: true
      MEM-ABS-no-cas:
        predicates:
          - absent: {glob: "store.py", regex: "compare_and_swap", in: code}
    """
)


def setup(pytester, make_repo):
    repo = make_repo("target")
    pin = repo.commit({"store.py": STORE_PY, "test_store.py": TEST_STORE_PY}, "store")
    report = pytester.path / "store.txt"
    report.write_text(report_text(pin), encoding="utf-8")
    (pytester.path / "store.claims.yaml").write_text(CLAIMS, encoding="utf-8")
    return repo, pin, report


def test_predicates_pass_at_pin_and_absence_fails_after_drift(pytester, make_repo):
    repo, pin, report = setup(pytester, make_repo)
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "-v")
    result.assert_outcomes(passed=17, skipped=1)
    result.stdout.fnmatch_lines(["*MEM-ABS-no-cas::predicate?0?:absent PASSED*"])
    repo.commit({"store.py": STORE_PY + "\n\ndef put(x):\n    return compare_and_swap(x)\n"}, "cas")
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}")
    result.assert_outcomes(passed=16, failed=1, skipped=1)
    out = result.stdout.str()
    assert "MEM-ABS-no-cas absent predicate does not hold at against" in out
    assert "store.py:10" in out


def test_observation_skipped_without_run_flag(pytester, make_repo):
    repo, _, report = setup(pytester, make_repo)
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "-rs",
                                "-k", "observe")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*not run; add --memreport-run to run it at the pin*"])


def test_run_promotes_and_writes_back_only_intended_bytes(pytester, make_repo):
    repo, pin, report = setup(pytester, make_repo)
    before_repo = repo.state()
    original = report.read_bytes()
    out_json = pytester.path / "out.json"
    result = pytester.runpytest(
        "--memreport", str(report), f"--memreport-repo={repo.path}", "--memreport-run", "--memreport-write",
        "--memreport-json", str(out_json),
    )
    result.assert_outcomes(passed=18)
    new = report.read_text(encoding="utf-8")
    assert "  • operation conclusion status: observed\n" in new
    evidence = [line for line in new.split("\n") if "operation observation:" in line]
    assert len(evidence) == 1
    assert f"passed at {pin[:12]}" in evidence[0] and "quoted lines executed" in evidence[0]
    # Every other byte is as it was: removing the evidence line and the status word gives the original back.
    restored = new.replace(evidence[0] + "\n", "").replace("status: observed", "status: uninspected")
    assert restored.encode("utf-8") == original
    assert repo.state() == before_repo
    data = json.loads(out_json.read_text())
    assert data["schema"] == "memreport/1"
    # A second run changes nothing.
    again = pytester.runpytest(
        "--memreport", str(report), f"--memreport-repo={repo.path}", "--memreport-run", "--memreport-write",
    )
    again.assert_outcomes(passed=18)
    assert report.read_text(encoding="utf-8") == new
    assert "nothing to write" in again.stdout.str()


def test_failing_observation_does_not_promote(pytester, make_repo):
    repo, _, report = setup(pytester, make_repo)
    repo.commit({"test_store.py": TEST_STORE_PY.replace("[{\"id\": 2}]", "[]")}, "break the test")
    pin_broken = repo.repo.head.commit.hexsha
    original = report.read_bytes()
    result = pytester.runpytest(
        "--memreport", str(report), f"--memreport-repo={repo.path}", f"--memreport-pin={pin_broken}",
        "--memreport-run", "--memreport-write", "-k", "observe",
    )
    result.assert_outcomes(failed=1)
    assert "observation `python -m pytest" in result.stdout.str()
    assert report.read_bytes() == original


def test_repin_refused_lists_blockers(pytester, make_repo):
    repo, _, report = setup(pytester, make_repo)
    later = repo.commit({"store.py": STORE_PY.replace('!= entry_id', '!= str(entry_id)')}, "edit")
    original = report.read_bytes()
    result = pytester.runpytest(
        "--memreport", str(report), f"--memreport-repo={repo.path}", "--memreport-write",
        f"--memreport-repin={later}",
    )
    assert result.ret == 1
    out = result.stdout.str()
    assert "re-pin to" in out and "refused" in out
    assert f"store.txt:15: quote store.py is changed at {later[:12]}" in out
    assert f"store.claims.yaml:5: MEM-RTE-forget predicate fails at {later[:12]}" in out
    assert report.read_bytes() == original


def test_repin_moves_pin_and_paths(pytester, make_repo):
    repo, pin, report = setup(pytester, make_repo)
    repo.move("store.py", "pkg/store.py")
    later = repo.commit(message="move")
    (pytester.path / "store.claims.yaml").write_text(
        "schema: memreport-claims/1\nrecords: {}\n", encoding="utf-8")
    result = pytester.runpytest(
        "--memreport", str(report), f"--memreport-repo={repo.path}", "--memreport-write",
        f"--memreport-repin={later}",
    )
    assert result.ret == 0, result.stdout.str()
    new = report.read_text(encoding="utf-8")
    assert f"SRC-1 commit {later} is the boundary." in new
    assert 'entry_id] --- pkg/store.py' in new
    assert "SRC-1: pkg/store.py." in new


def test_quote_written_against_newer_code_is_ahead_and_repins(pytester, make_repo):
    """The author updated a quote to today's code but not the pin: the pin item
    fails, the drift item says the report is ahead, and re-pinning makes it true."""
    repo, pin, report = setup(pytester, make_repo)
    later = repo.commit({"store.py": STORE_PY.replace('!= entry_id', '!= str(entry_id)')}, "edit")
    report.write_text(report.read_text(encoding="utf-8").replace('!= entry_id]', '!= str(entry_id)]'),
                      encoding="utf-8")
    (pytester.path / "store.claims.yaml").write_text("schema: memreport-claims/1\nrecords: {}\n", encoding="utf-8")
    results = pytester.path / "results.json"
    checked = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}",
                                 f"--memreport-json={results}")
    checked.assert_outcomes(failed=1, passed=6)
    assert "FAILED store.txt::MEM-RTE-forget::quote@L15 - " in checked.stdout.str()
    checked.stdout.fnmatch_lines(["stale*store.txt  1 missing of 4 checks*"])  # the ahead drift item passes
    [quote] = [e for r in json.loads(results.read_text())["reports"] for rec in r["records"]
               for e in rec["evidence"] if e["kind"] == "quote"]
    assert (quote["at_pin"]["status"], quote["at_against"]["status"], quote["at_against"]["lines"]) == (
        "missing", "ahead", [6, 6])
    result = pytester.runpytest(
        "--memreport", str(report), f"--memreport-repo={repo.path}", "--memreport-write",
        f"--memreport-repin={later}",
    )
    assert f"SRC-1 pin {pin[:12]} -> {later[:12]}" in result.stdout.str()
    assert f"SRC-1 commit {later} is the boundary." in report.read_text(encoding="utf-8")
    again = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}")
    assert again.ret == 0, again.stdout.str()
