"""The plugin as users run it: pytester sessions over real target repositories."""

from __future__ import annotations

import json
import textwrap

import pytest

STORE_PY = textwrap.dedent(
    '''\
    """A tiny cache store."""

    MAX_ENTRIES = 200


    class Store:
        def __init__(self):
            self.entries = []

        def add(self, entry):
            self.entries.append(entry)
            # keep the newest entries only
            self.entries = self.entries[-MAX_ENTRIES:]
            return len(self.entries)
    '''
)

CONFIG_YAML = "limits:\n  - ttl: 30\n  - size: 512\n"


def report_text(pin: str, quote: str = "self.entries = self.entries[-MAX_ENTRIES:]") -> str:
    return textwrap.dedent(
        f"""\
        Cache memory report

        Boundary and evidence

        The target is the cache package at SRC-1 commit {pin}.

        Operative objects

        MEM-OBJ-cache-store

        Label: Cache store

        The store keeps the newest entries. SRC-1: pkg/store.py, conf/limits.yaml.

        MAX_ENTRIES = 200 --- pkg/store.py

        {quote} --- pkg/store.py:10-14

        Routes

        MEM-RTE-cache-add

        Label: Cache add

        Part of: MEM-OBJ-cache-store

          • Selection predicate: the newest 200 entries.
          • implementation conclusion status: afforded
          • operation conclusion status: uninspected

        limits: • ttl: 30 • size: 512 --- conf/limits.yaml
        """
    )


@pytest.fixture
def target(make_repo):
    repo = make_repo("target")
    pin = repo.commit({"pkg/store.py": STORE_PY, "conf/limits.yaml": CONFIG_YAML}, "initial")
    return repo, pin


def run(pytester, report: str, *args: str):
    path = pytester.path / "report.txt"
    path.write_text(report, encoding="utf-8")
    return pytester.runpytest("--memreport", str(path), *args)


def test_every_quotation_found_at_the_pin(pytester, target):
    repo, pin = target
    result = run(pytester, report_text(pin), "--memreport-repo", str(repo.path), "-v")
    result.assert_outcomes(passed=13)
    result.stdout.fnmatch_lines(
        [
            "*report.txt::source:SRC-1 PASSED*",
            "*report.txt::structure PASSED*",
            "*report.txt::references PASSED*",
            "*report.txt::MEM-OBJ-cache-store::quote@L15 PASSED*",
            "*report.txt::MEM-OBJ-cache-store::quote@L15::drift PASSED*",
            "*report.txt::MEM-RTE-cache-add::quote@L31 PASSED*",
        ]
    )
    result.stdout.fnmatch_lines(["fresh*report.txt  10 checks hold", "1 report(s): 1 fresh; 2 of 2 records*"])


def test_tampered_quotation_fails_with_nearest_candidate(pytester, target):
    repo, pin = target
    tampered = report_text(pin, quote="self.entries = self.entries[-MAX_ENTRIES + 1:]")
    result = run(pytester, tampered, "--memreport-repo", str(repo.path), "--memreport-against", "none")
    result.assert_outcomes(passed=7, failed=1)
    out = result.stdout.str()
    assert "report.txt:17: MEM-OBJ-cache-store quotation of pkg/store.py:10-14 missing at" in out
    assert "nearest candidate at lines 13" in out
    assert "self.entries = self.entries[-MAX_ENTRIES:]" in out
    assert "Traceback" not in out


def test_k_selects_by_record_id(pytester, target):
    repo, pin = target
    result = run(pytester, report_text(pin), "--memreport-repo", str(repo.path), "-k", "MEM-RTE-cache-add")
    result.assert_outcomes(passed=2)


def test_json_results(pytester, target):
    repo, pin = target
    out = pytester.path / "out.json"
    run(pytester, report_text(pin), "--memreport-repo", str(repo.path), "--memreport-json", str(out))
    data = json.loads(out.read_text())
    assert data["schema"] == "memreport/1"
    (rep,) = data["reports"]
    assert rep["dialect"] == "records"
    assert rep["sources"][0]["pin"] == pin and rep["sources"][0]["pin_status"] == "ok"
    store = next(r for r in rep["records"] if r["id"] == "MEM-OBJ-cache-store")
    quote = next(e for e in store["evidence"] if e["kind"] == "quote" and e["line"] == 17)
    assert quote["cited_lines"] == [10, 14]
    assert quote["at_pin"]["status"] == "found"
    assert quote["at_pin"]["lines"] == [13, 13]
    assert quote["at_pin"]["in_cited_range"] is True
    assert quote["at_against"]["status"] == "unchanged"
    add = next(r for r in rep["records"] if r["id"] == "MEM-RTE-cache-add")
    assert [(s["axis"], s["value"]) for s in add["statuses"]] == [
        ("implementation", "afforded"),
        ("operation", "uninspected"),
    ]


def test_drift_changed_fails_and_shifted_passes(pytester, target):
    repo, pin = target
    edited = STORE_PY.replace("MAX_ENTRIES = 200", "# the limit\nMAX_ENTRIES = 250")
    repo.commit({"pkg/store.py": edited}, "raise the limit")
    before = repo.state()
    result = run(pytester, report_text(pin), "--memreport-repo", str(repo.path))
    result.assert_outcomes(passed=12, failed=1)
    out = result.stdout.str()
    assert "report.txt:15: MEM-OBJ-cache-store quotation of pkg/store.py changed" in out
    assert "250" in out
    assert repo.state() == before


def test_unpinned_report_says_how_to_pin(pytester, make_repo):
    repo = make_repo("target")
    repo.commit({"pkg/store.py": STORE_PY, "conf/limits.yaml": CONFIG_YAML}, "initial")
    text = report_text("0" * 40).replace("at SRC-1 commit " + "0" * 40, "at the current state")
    result = run(pytester, text, "--memreport-repo", str(repo.path))
    out = result.stdout.str()
    assert "no pinned commit for SRC-1" in out and "--memreport-pin" in out
    assert "Traceback" not in out
    assert result.ret == 1


def test_pin_override(pytester, make_repo):
    repo = make_repo("target")
    pin = repo.commit({"pkg/store.py": STORE_PY, "conf/limits.yaml": CONFIG_YAML}, "initial")
    text = report_text("0" * 40).replace("at SRC-1 commit " + "0" * 40, "at the current state")
    result = run(pytester, text, "--memreport-repo", str(repo.path), "--memreport-pin", f"SRC-1={pin[:10]}")
    result.assert_outcomes(passed=13)


def test_unknown_pin_says_so(pytester, target):
    repo, _ = target
    result = run(pytester, report_text("1" * 40), "--memreport-repo", str(repo.path))
    out = result.stdout.str()
    assert "1111111111" in out and "Traceback" not in out
    assert result.ret == 1


def test_missing_repository_is_one_clear_line(pytester, target):
    _, pin = target
    result = run(pytester, report_text(pin), "--memreport-repo", str(pytester.path / "nowhere"))
    out = result.stdout.str()
    assert "nowhere" in out and "Traceback" not in out
    assert result.ret == 1


def test_non_utf8_report_is_one_failing_item(pytester, target):
    repo, _ = target
    path = pytester.path / "bad.md"
    path.write_bytes(b"Report\n\nMEM-OBJ-x\n\nLabel: \xff\xfe broken\n")
    result = pytester.runpytest("--memreport", str(path), "--memreport-repo", str(repo.path))
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "bad.md" in out and "UTF-8" in out and "Traceback" not in out


def test_report_only_runs_without_positional_args(pytester, target):
    repo, pin = target
    pytester.makepyfile(test_other="def test_x():\n    assert True\n")
    result = run(pytester, report_text(pin), "--memreport-repo", str(repo.path), "--memreport-against", "none")
    result.assert_outcomes(passed=8)


def test_ini_key_names_reports(pytester, target):
    repo, pin = target
    (pytester.path / "r.txt").write_text(report_text(pin), encoding="utf-8")
    pytester.makeini("[pytest]\nmemreport = r.txt\nmemreport_against = none\n")
    # ``=`` keeps pytest from taking the repository path for a rootdir candidate.
    result = pytester.runpytest(f"--memreport-repo={repo.path}")
    result.assert_outcomes(passed=8)


def test_missing_report_path_is_a_usage_error(pytester):
    result = pytester.runpytest("--memreport", "absent.md")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--memreport absent.md: no such file*"])


def test_a_run_without_reports_loads_nothing_of_the_engine(pytester):
    """Installed, the plugin loads in every pytest run: without --memreport it
    costs an option parser, not git, tree-sitter or markdown-it."""
    pytester.makepyfile(
        """
        import sys

        def test_modules():
            ours = {name for name in sys.modules if name.startswith("pytest_memreport")}
            assert ours == {"pytest_memreport", "pytest_memreport.integration", "pytest_memreport.integration.plugin",
                            "pytest_memreport.integration.notices", "pytest_memreport.options",
                            "pytest_memreport.errors",
                            # the hook specification third parties implement (pytest_addhooks): pluggy only
                            "pytest_memreport.hookspecs"}
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
