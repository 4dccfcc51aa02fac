"""How reports are collected: folders as folders, names as given, ignore options, crashed runs.

pytester sessions over a real target repository. Counts, never times: a folder of
reports is one collection argument and one collector, however many reports it
holds; the claims lookups of a run do not walk every report once per report.
"""

from __future__ import annotations

import json
import os
import textwrap

import pytest

STORE_PY = textwrap.dedent(
    """\
    MAX_ENTRIES = 200


    def keep(entries):
        return entries[-MAX_ENTRIES:]
    """
)


def one_quote(pin: str, number: int, quote: str = "MAX_ENTRIES = 200") -> str:
    """A record report with one quotation (FORMAT.md's records dialect)."""
    return textwrap.dedent(
        f"""\
        Finding {number}

        Boundary and evidence

        The target is the store at SRC-1 commit {pin}.

        Operative objects

        MEM-OBJ-finding-{number}

        Label: Finding {number}

        The store keeps a bounded list. SRC-1: pkg/store.py.

        {quote} --- pkg/store.py
        """
    )


@pytest.fixture
def target(make_repo):
    repo = make_repo("target")
    pin = repo.commit({"pkg/store.py": STORE_PY}, "initial")
    return repo, pin


def write_reports(folder, pin: str, count: int, name: str = "finding-{:03d}.md") -> list:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for number in range(count):
        path = folder / name.format(number)
        path.write_text(one_quote(pin, number), encoding="utf-8")
        paths.append(path)
    return paths


COUNTING_CONFTEST = """
    import json

    counts = {"collect_file_md": 0, "collectors": 0}

    def pytest_collect_file(file_path, parent):
        if file_path.suffix == ".md":
            counts["collect_file_md"] += 1

    def pytest_collectreport(report):
        counts["collectors"] += 1

    def pytest_collection_finish(session):
        counts["args"] = list(session.config.args)
        with open("counts.json", "w") as out:
            json.dump(counts, out)
"""


def test_a_folder_of_reports_is_one_collection_argument_and_one_pass(pytester, target):
    """pytest matched every report argument against its folder's nodes, collecting the folder
    again for each (pytest_collect_file called reports x reports times): a folder is one
    argument now, and its collector yields the reports in one pass."""
    repo, pin = target
    write_reports(pytester.path / "notes", pin, 30)
    pytester.makeconftest(COUNTING_CONFTEST)
    result = pytester.runpytest("--memreport", "notes", f"--memreport-repo={repo.path}", "--memreport-against=none")
    result.assert_outcomes(passed=30 * 4)
    counts = json.loads((pytester.path / "counts.json").read_text())
    assert counts["args"] == [str(pytester.path / "notes")]
    assert counts["collect_file_md"] <= 30  # no report is offered to pytest's hooks once per argument
    assert counts["collectors"] <= 2 * 30 + 5  # a report and its record each, the folder, its parents, the session


def test_a_folder_holding_subfolders_keeps_the_reports_order_and_names(pytester, target):
    repo, pin = target
    write_reports(pytester.path / "notes", pin, 2)
    write_reports(pytester.path / "notes" / "deeper" / "still", pin, 2, name="inner-{:d}.md")
    (pytester.path / "notes" / "test_not_a_report.py").write_text("def test_x():\n    assert False\n")
    result = pytester.runpytest("--memreport", "notes", f"--memreport-repo={repo.path}", "--memreport-against=none",
                                "--co", "-q")
    files = [line.split("::")[0] for line in result.stdout.lines if "::" in line]
    assert list(dict.fromkeys(files)) == ["notes/finding-000.md", "notes/finding-001.md",
                                          "notes/deeper/still/inner-0.md", "notes/deeper/still/inner-1.md"]
    # a folder named only by --memreport collects reports, not the test modules in it
    assert "test_not_a_report" not in result.stdout.str()


def test_tests_reaching_a_reports_folder_are_collected_as_pytest_would(pytester, target):
    repo, pin = target
    write_reports(pytester.path / "tests" / "notes", pin, 2)
    (pytester.path / "tests" / "test_beside.py").write_text("def test_beside():\n    pass\n")
    (pytester.path / "tests" / "notes" / "test_inside.py").write_text("def test_inside():\n    pass\n")
    result = pytester.runpytest("tests", "--memreport", "tests/notes", f"--memreport-repo={repo.path}",
                                "--memreport-against=none")
    result.assert_outcomes(passed=2 + 2 * 4)


def test_claims_lookups_do_not_walk_every_report_for_each_report(pytester, target, monkeypatch):
    """Each report's claims asked where every loaded report's claims file is, and its claims
    item gathered every loaded report's IDs: reports x reports steps. Counted, per report."""
    from pytest_memreport import model
    from pytest_memreport.dialects import claims

    repo, pin = target
    count = 25
    for path in write_reports(pytester.path / "notes", pin, count):
        number = int(path.stem.split("-")[1])
        path.with_name(path.stem + ".claims.yaml").write_text(
            "schema: memreport-claims/1\nrecords:\n"
            f"  MEM-OBJ-finding-{number}:\n    predicates:\n"
            "      - contains: {path: pkg/store.py, text: \"MAX_ENTRIES\"}\n", encoding="utf-8")
    calls = {"declared_ids": 0, "claims_path_for": 0}

    def counting(name, function):
        def wrapper(*args, **kwargs):
            calls[name] += 1
            return function(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(model.Report, "declared_ids", counting("declared_ids", model.Report.declared_ids))
    monkeypatch.setattr(claims, "claims_path_for", counting("claims_path_for", claims.claims_path_for))
    try:  # the run's claims index, where claims files beside reports are found once
        from pytest_memreport.dialects.claims import index
    except ImportError:
        index = None
    if index is not None:
        monkeypatch.setattr(index, "claims_path_for", counting("claims_path_for", index.claims_path_for))
    result = pytester.runpytest_inprocess("--memreport", "notes", f"--memreport-repo={repo.path}",
                                          "--memreport-against=none", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=count * 6)  # source, claims, structure, path, quote, predicate
    assert calls["declared_ids"] <= 4 * count, calls
    assert calls["claims_path_for"] <= 4 * count, calls


def test_a_symlinked_report_named_alone_is_checked_under_its_name(pytester, target):
    repo, pin = target
    (pytester.path / "a.md").write_text(one_quote(pin, 1), encoding="utf-8")
    (pytester.path / "latest.md").symlink_to("a.md")
    result = pytester.runpytest("--memreport", "latest.md", f"--memreport-repo={repo.path}",
                                "--memreport-against=none", "-v")
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["*latest.md::MEM-OBJ-finding-1::quote@L15 PASSED*"])


@pytest.mark.parametrize("name", ["std::vector notes.md", "[draft] notes.md"])
def test_a_report_whose_name_pytest_would_misread_is_checked(pytester, target, name):
    """``::`` in a collection argument reads as a node id, ``[`` as a parametrization."""
    repo, pin = target
    (pytester.path / "notes").mkdir()
    (pytester.path / "notes" / name).write_text(one_quote(pin, 1, quote="MAX_ENTRIES = 250"), encoding="utf-8")
    (pytester.path / "notes" / "other.md").write_text(one_quote(pin, 2), encoding="utf-8")
    result = pytester.runpytest("--memreport", f"notes/{name}", f"--memreport-repo={repo.path}",
                                "--memreport-against=none")
    result.assert_outcomes(failed=1, passed=3)  # the quotation is false: it was checked; other.md was not named
    assert "quotation of pkg/store.py missing at" in result.stdout.str()


def test_a_report_name_too_long_for_the_file_system_is_one_line(pytester, target):
    repo, _ = target
    name = "r" * 300 + ".md"
    result = pytester.runpytest("--memreport", name, f"--memreport-repo={repo.path}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    result.stderr.fnmatch_lines(["*--memreport r*.md: cannot be looked at (file name too long)*"])


def review(pin: str, name: str) -> str:
    return (f"# Review of {name}\n\n**Repository:** https://github.com/acme/{name}\n"
            f"**Reviewed commit:** {pin}\n\n## Store\n\n> MAX_ENTRIES = 200\n> --- `pkg/store.py`\n")


def test_a_repository_path_too_long_is_one_line_and_the_rest_is_checked(pytester, target):
    """A clone path the file system refuses (a name of 300 characters) was an OSError that
    stopped collection: that report is unchecked with one line; the other still runs."""
    repo, pin = target
    (pytester.path / "far.md").write_text(review(pin, "far"), encoding="utf-8")
    (pytester.path / "near.md").write_text(review(pin, "near"), encoding="utf-8")
    too_long = pytester.path / ("w" * 300)
    result = pytester.runpytest("--memreport", "far.md", "--memreport", "near.md",
                                f"--memreport-repo=acme/far={too_long}", f"--memreport-repo=acme/near={repo.path}",
                                "--memreport-against=none", "-rs", "--memreport-allow-unchecked")
    out = result.stdout.str()
    assert "INTERNALERROR" not in out and "Traceback" not in out and "error during collection" not in out, out
    result.stdout.fnmatch_lines(["*far.md*file name too long*"])
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] >= 2 and "failed" not in outcomes and "error" not in outcomes


def test_ignore_glob_applies_to_reports_named_by_absolute_path(pytester, target, tmp_path):
    """pytest reads a relative --ignore-glob against the folder it runs in: a report folder
    named by an absolute path elsewhere is read against the folder named."""
    repo, pin = target
    elsewhere = tmp_path / "kb" / "reviews"
    write_reports(elsewhere, pin, 2)
    (elsewhere / "finding-000.replaced.2026-01-01.md").write_text(one_quote(pin, 9, "GONE = 1"), encoding="utf-8")
    (elsewhere / "old").mkdir()
    (elsewhere / "old" / "stale.md").write_text(one_quote(pin, 8, "GONE = 2"), encoding="utf-8")
    run_from = pytester.path / "empty"
    run_from.mkdir()
    os.chdir(run_from)
    result = pytester.runpytest("--memreport", str(elsewhere), f"--memreport-repo={repo.path}",
                                "--memreport-against=none", "--ignore-glob=*.replaced.*", "--ignore=old")
    result.assert_outcomes(passed=2 * 4)
    # a single report named by its absolute path, too
    result = pytester.runpytest("--memreport", str(elsewhere / "finding-000.replaced.2026-01-01.md"),
                                "--memreport", str(elsewhere / "finding-001.md"), f"--memreport-repo={repo.path}",
                                "--memreport-against=none", "--ignore-glob=*.replaced.*")
    result.assert_outcomes(passed=4)


def test_a_crashed_collection_writes_a_json_that_says_so(pytester, target):
    repo, pin = target
    (pytester.path / "a.md").write_text(one_quote(pin, 1), encoding="utf-8")
    (pytester.path / "test_broken.py").write_text("def test_x(:\n    pass\n")
    out = pytester.path / "out.json"
    result = pytester.runpytest("test_broken.py", "--memreport", "a.md", f"--memreport-repo={repo.path}",
                                f"--memreport-json={out}")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    data = json.loads(out.read_text())
    assert data["run"] == {"state": "crashed", "exit_status": 2,
                           "reason": "1 error during collection; no check ran"}
    (report,) = data["reports"]
    assert report["state"] == "unchecked"
    assert report["reason"].startswith("not checked: the run crashed (1 error during collection")
    assert "not selected" not in out.read_text()


def test_a_complete_run_json_says_it_completed(pytester, target):
    repo, pin = target
    (pytester.path / "a.md").write_text(one_quote(pin, 1), encoding="utf-8")
    out = pytester.path / "out.json"
    result = pytester.runpytest("--memreport", "a.md", f"--memreport-repo={repo.path}", f"--memreport-json={out}",
                                "-k", "nothing-matches-this")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    data = json.loads(out.read_text())
    assert data["run"] == {"state": "complete", "exit_status": 5, "reason": None}
    assert data["reports"][0]["reason"] == "not selected (no check of its evidence ran)"


def test_drift_keys_do_not_carry_every_report_inside_the_target(pytester, target, monkeypatch):
    """Reports kept inside the target are part of every drift result's key (a quotation of
    them would change with them): sorted and encoded for each evidence, that was reports x
    evidence. Counted: the report names the result keys are made of, over the run."""
    from pytest_memreport.resultcache import ResultCache

    repo, pin = target
    count = 20
    write_reports(repo.path / "notes", pin, count)
    carried = {"names": 0, "drift keys": 0}
    real_key = ResultCache.key

    def counting_key(self, *parts):
        carried["names"] += sum(len(part) for part in parts if isinstance(part, list)
                                and all(isinstance(name, str) and name.endswith(".md") for name in part))
        carried["drift keys"] += parts[0] == "drift"
        return real_key(self, *parts)

    monkeypatch.setattr(ResultCache, "key", counting_key)
    result = pytester.runpytest_inprocess("--memreport", str(repo.path / "notes"), f"--memreport-repo={repo.path}")
    result.assert_outcomes(passed=count * 6)  # source, structure, path and quote, each at the pin and since
    # every drift result was keyed, and no key carried the list of reports (one digest instead)
    assert carried["drift keys"] >= 2 * count and carried["names"] == 0, carried


def test_reports_named_in_the_ini_run_beside_the_projects_testpaths(pytester, make_repo):
    """``memreport = report.md`` in the ini file adds the report to the project's own tests; the
    same report named on the command line alone runs alone (that is asking for it)."""
    repo = make_repo("target")
    pin = repo.commit({"pkg/store.py": "LIMIT = 200\n"}, "initial")
    (pytester.path / "report.md").write_text(
        f"Store memory report\n\nBoundary and evidence\n\nThe target is the store at SRC-1 commit {pin}.\n\n"
        "Operative objects\n\nMEM-OBJ-store\n\nLabel: Store\n\nSRC-1: pkg/store.py.\n\n"
        "LIMIT = 200 --- pkg/store.py:1\n", encoding="utf-8")
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_own.py").write_text("def test_own():\n    pass\n", encoding="utf-8")
    (pytester.path / "pytest.ini").write_text("[pytest]\ntestpaths = tests\nmemreport = report.md\n", encoding="utf-8")
    # One word: pytest reads a path given as a separate word as a hint for its rootdir.
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rA", f"--memreport-repo={repo.path}")
    out = result.stdout.str()
    assert result.ret == 0, out
    assert "PASSED tests/test_own.py::test_own" in out
    assert "PASSED report.md::MEM-OBJ-store::quote@L15" in out
    alone = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rA", "--memreport", "report.md",
                                          f"--memreport-repo={repo.path}")
    assert alone.ret == 0, alone.stdout.str()
    assert "test_own" not in alone.stdout.str()
    assert "PASSED report.md::MEM-OBJ-store::quote@L15" in alone.stdout.str()
