"""What is checked, where, and how often: ``--collect-only`` checks nothing, deselected items
are not checked, and pytest-xdist workers and CI shards divide a run's (repository, pin)
pairs among them instead of each checking all of them.

Counts, never times: git processes (every one, through a ``git`` on ``PATH`` that logs its
command line, then runs git), blobs read and tree-sitter parses (the JSON's ``timing``, or
the engine's meters read by a conftest when no JSON is written).
"""

from __future__ import annotations

import json
import textwrap
from collections import Counter
from pathlib import Path

import pytest

pytest.importorskip("xdist")

NAMES = ("alpha", "beta", "gamma", "delta")


def _module(name: str, i: int) -> str:
    return textwrap.dedent(f"""\
        def {name}_settle_{i}(ledger, amount):
            # the {name} ledger closes early for account {i}
            balance = ledger.balance_of({i}) + amount
            ledger.record_{name}_{i}(balance)
            return balance
        """)


def _target(make_repo, name: str) -> tuple[Path, str]:
    """A repository whose pin has four modules; later one is edited, one moved to another
    file and one renamed (drift runs git's log, diffs and a search)."""
    repo = make_repo(name)
    pin = repo.commit({f"pkg/{name}_{i}.py": _module(name, i) for i in range(4)}, "pin")
    edited = _module(name, 1).replace("closes early", "closes late")
    repo.commit({f"pkg/{name}_1.py": edited, f"pkg/{name}_2.py": "# moved to lib/\n",
                 f"lib/{name}_moved.py": "import ledger\n\n" + _module(name, 2)}, "edit and move")
    repo.move(f"pkg/{name}_3.py", f"pkg/{name}_three.py")
    repo.commit(None, "rename")
    return repo.path, pin


def _report(name: str, pin: str, part: int) -> str:
    records = []
    for i in range(4):
        records += [f"MEM-OBJ-{name}-{part}-{i}", "", f"Label: {name} {part} {i}", "",
                    f"The record cites its code. SRC-1: pkg/{name}_{i}.py:1-5.", "",
                    f"the {name} ledger closes early for account {i} --- pkg/{name}_{i}.py:2",
                    f"balance = ledger.balance_of({i}) + amount --- pkg/{name}_{i}.py:3", "",
                    "• implementation conclusion status: afforded", "• operation conclusion status: uninspected", ""]
    return "\n".join([f"Run report {name} {part}", "", f"The target is at SRC-1 commit {pin}.", "", *records])


@pytest.fixture
def knowledge_base(pytester, make_repo):
    """Eight reports over four repositories, two reports a pin: four (repository, pin) pairs.
    Each report lies in its target's working tree (its repository by default)."""
    reports = []
    for name in NAMES:
        path, pin = _target(make_repo, name)
        for part in range(2):
            report = path / "notes" / f"{name}-{part}.txt"
            report.parent.mkdir(exist_ok=True)
            report.write_text(_report(name, pin, part), encoding="utf-8")
            reports.append(report)
    return reports


@pytest.fixture
def git_log(git_calls):
    """The git command lines the plugin started in any process of the run since the last call."""

    def commands() -> list[str]:
        lines = git_calls.commands()
        git_calls.clear()
        # the plugin's own (other plugins of the interpreter may ask git something too)
        return [line for line in lines if line.startswith("--no-optional-locks ")]

    return commands


def subcommand(line: str) -> str:
    """``log`` of ``--no-optional-locks -c a=b -c c=d log --first-parent ...``."""
    words = line.split()
    i = 0
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in ("-c", "-C") else 1
    return words[i] if i < len(words) else ""


METERS_CONFTEST = textwrap.dedent("""\
    import json

    def pytest_sessionfinish(session):
        from pytest_memreport.integration.items import ENGINE_KEY
        engine = session.config.stash.get(ENGINE_KEY, None)
        if engine is not None and not hasattr(session.config, "workerinput"):
            with open("meters.json", "w") as out:
                json.dump(engine.timing_json(), out)
    """)


def _run(pytester, reports, *args: str, json_name: str | None = "out.json"):
    given = [arg for report in reports for arg in ("--memreport", str(report))]
    out = ["--memreport-json", json_name] if json_name else []
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:randomly", *given,
                                         "--memreport-against", "HEAD", *out, *args)


def test_collect_only_reads_parses_and_writes_nothing(pytester, knowledge_base, git_log):
    pytester.makeconftest(METERS_CONFTEST)
    result = _run(pytester, knowledge_base, "--collect-only", "-q", "--memreport-sarif", "out.sarif",
                  "--memreport-html", "site")
    assert result.ret == 0, result.stdout.str()
    listed = [line for line in result.stdout.lines if "::" in line]
    assert len(listed) > 8 * 8  # every report's items are listed
    commands = git_log()
    meters = json.loads((pytester.path / "meters.json").read_text())
    assert meters["blobs_read"] == 0
    assert meters["tree_sitter_parses"] == 0
    # Locating the repositories (rev-parse) is all git is asked: no pin is resolved, no tree
    # listed, no blob read, no history, diff or search.
    assert {subcommand(line) for line in commands} == {"rev-parse"}, Counter(map(subcommand, commands))
    assert len(commands) <= len(NAMES)  # each repository opened once; its pin was resolved too before
    for name in ("out.json", "out.sarif", "site"):
        assert not (pytester.path / name).exists()


def _normalized(data: dict) -> dict:
    return {key: value for key, value in data.items() if key != "timing"}


def test_workers_divide_the_pairs_and_check_each_once(pytester, knowledge_base, git_log):
    """-n 2 and -n 4 read the blobs, parse the files and run the git commands of -n 0, once
    each: every pair is checked by one worker, and the workers' collection locates no
    repository and resolves no pin (the controller did, once, and handed them over)."""
    runs = {}
    for workers in (0, 2, 4):
        result = _run(pytester, knowledge_base, "-n", str(workers), json_name=f"out-{workers}.json")
        assert result.ret == 1, result.stdout.str()  # the edited quotations fail at drift
        data = json.loads((pytester.path / f"out-{workers}.json").read_text())
        runs[workers] = (data, result.parseoutcomes(), git_log())
    serial, serial_outcomes, serial_git = runs[0]
    assert serial["timing"]["blobs_read"] > 0 and serial["timing"]["tree_sitter_parses"] > 0
    by_kind = Counter(subcommand(line) for line in serial_git)
    assert by_kind["log"] >= len(NAMES)  # drift ran in every pair
    counts = {workers: Counter(subcommand(line) for line in commands) for workers, (_, _, commands) in runs.items()}
    for workers in (2, 4):
        data, outcomes, commands = runs[workers]
        assert _normalized(data) == _normalized(serial)
        assert outcomes == serial_outcomes
        assert data["timing"]["blobs_read"] == serial["timing"]["blobs_read"]
        assert data["timing"]["tree_sitter_parses"] == serial["timing"]["tree_sitter_parses"]
        # No more git processes than -n 0, of any kind: locating and resolving do not grow with workers.
        assert len(commands) <= len(serial_git), counts
        assert counts[workers]["rev-parse"] <= by_kind["rev-parse"], counts
        assert Counter({kind: n for kind, n in counts[workers].items() if kind != "rev-parse"}) == \
            Counter({kind: n for kind, n in by_kind.items() if kind != "rev-parse"}), counts


def test_shards_divide_the_pairs(pytester, knowledge_base, git_log):
    """Two shards together check what one run does, each pair in one shard only."""
    serial = _run(pytester, knowledge_base, json_name="all.json")
    whole = json.loads((pytester.path / "all.json").read_text())["timing"]
    whole_checking = Counter(subcommand(line) for line in git_log() if subcommand(line) != "rev-parse")
    blobs, parses, checking = 0, 0, Counter()
    ran = 0
    for shard in ("1/2", "2/2"):
        result = _run(pytester, knowledge_base, "--memreport-shard", shard, json_name=f"shard-{shard[0]}.json")
        timing = json.loads((pytester.path / f"shard-{shard[0]}.json").read_text())["timing"]
        blobs += timing["blobs_read"]
        parses += timing["tree_sitter_parses"]
        checking += Counter(subcommand(line) for line in git_log() if subcommand(line) != "rev-parse")
        ran += sum(result.parseoutcomes().get(kind, 0) for kind in ("passed", "failed", "skipped"))
    assert ran == sum(serial.parseoutcomes().get(kind, 0) for kind in ("passed", "failed", "skipped"))
    assert (blobs, parses) == (whole["blobs_read"], whole["tree_sitter_parses"])
    assert checking == whole_checking


def _large_report(path: Path, pin: str, records: range) -> Path:
    lines = []
    for i in records:
        lines += [f"MEM-CLM-{i}", "", f"Label: module {i}", "",
                  f"Settling goes through `large_settle_{i}`, and `balance` is a local. SRC-1: pkg/mod_{i}.py.", ""]
    path.write_text("\n".join(["# Large report", "", "## Boundary and evidence", "",
                                f"The target at SRC-1 commit {pin}.", "", "## Claims", "", *lines]), encoding="utf-8")
    return path


def test_k_on_one_record_checks_only_its_evidence(pytester, make_repo):
    """``-k`` on one record of a large report costs what a report of that record alone does:
    which backticked names are definitions (a parse of the file the record cites) is
    decided when the selected items run, not for every record while items are made."""
    repo = make_repo("large")
    count = 60
    pin = repo.commit({f"pkg/mod_{i}.py": _module("large", i) for i in range(count)}, "pin")
    alone = _run(pytester, [_large_report(repo.path / "alone.md", pin, range(17, 18))], json_name="alone.json")
    report = _large_report(repo.path / "large.md", pin, range(count))
    result = _run(pytester, [report], "-k", "MEM-CLM-17 and not MEM-CLM-17x", json_name="one.json")
    outcomes = result.parseoutcomes()
    # the file at the pin and at HEAD, and the record's names (the definition checked at both,
    # the local no evidence: left out) in an item at the pin and one since
    assert (outcomes.get("passed"), outcomes.get("skipped")) == (4, None), result.stdout.str()
    assert alone.parseoutcomes().get("passed") == 4 + 2  # and the source and structure items
    timing = json.loads((pytester.path / "one.json").read_text())["timing"]
    baseline = json.loads((pytester.path / "alone.json").read_text())["timing"]
    assert timing["blobs_read"] == baseline["blobs_read"] == 1  # pkg/mod_17.py, the one file cited
    assert timing["tree_sitter_parses"] == baseline["tree_sitter_parses"] > 0
    # (the source item, deselected here, asks git whether the clone lacks objects)
    assert 0 < timing["git_processes"] <= baseline["git_processes"]
    data = json.loads((pytester.path / "one.json").read_text())
    checked = [e for rep in data["reports"] for r in rep["records"] for e in r["evidence"]
               if e["at_pin"]["status"] != "not-checked"]
    assert {(e["kind"], e["path"]) for e in checked} == {("symbol", "pkg/mod_17.py"), ("path", "pkg/mod_17.py")}


def test_workers_hand_over_pins_a_stale_clone_lacks(pytester, make_repo, git_log):
    """Two pins of one repository (two pairs, maybe in two workers) and a report pinned at a
    commit the clone lacks: -n 2 says the same (the unchecked report fails with the same
    line), in the same JSON, starting no more git processes of any kind than -n 0."""
    path, pin = _target(make_repo, "alpha")
    import subprocess

    edit = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD~1"], capture_output=True, text=True,
                          check=True).stdout.strip()
    git_log()  # the fixture's own git is not the plugin's
    notes = path / "notes"
    notes.mkdir()
    reports = []
    for part, at in enumerate((pin, edit, "0123456789abcdef0123456789abcdef01234567")):
        report = notes / f"alpha-{part}.txt"
        report.write_text(_report("alpha", at, part), encoding="utf-8")
        reports.append(report)
    runs = {}
    for workers in (0, 2):
        result = _run(pytester, reports, "-n", str(workers), json_name=f"out-{workers}.json")
        assert result.ret == 1, result.stdout.str()
        runs[workers] = (json.loads((pytester.path / f"out-{workers}.json").read_text()), result.parseoutcomes(),
                         Counter(subcommand(line) for line in git_log()), result.stdout.str())
    (serial, serial_outcomes, serial_git, serial_out), (data, outcomes, counts, _) = runs[0], runs[2]
    assert "0123456789abcdef0123456789abcdef01234567" in serial_out and "unchecked" in serial_out
    assert _normalized(data) == _normalized(serial)
    assert outcomes == serial_outcomes
    # Locating the clone and resolving the pins and the against-revision: the controller, once.
    assert counts["rev-parse"] <= serial_git["rev-parse"], (serial_git, counts)
    # The two pairs of the one repository may run in the two workers: each process then lists
    # the against-revision's tree and starts its own blob reader, once; nothing else repeats.
    for kind in ("ls-tree", "cat-file"):
        assert counts[kind] <= serial_git[kind] + 1, (serial_git, counts)
    assert counts - Counter({"ls-tree": 1, "cat-file": 1}) <= serial_git, (serial_git, counts)


def test_a_listing_resolves_no_pin_and_a_clone_that_lacks_it_is_said_when_items_run(pytester, make_repo):
    # --collect-only once resolved every pin to decide which reports are one `unchecked` item.
    repo = make_repo()
    repo.commit({"a.py": "x = 1\n"}, "only")
    report = pytester.path / "note.md"
    report.write_text(f"# Note\n\n**Repository snapshot:** `{'c' * 40}`\n\nSee `a.py:1`.\n", encoding="utf-8")
    args = ("-p", "no:cacheprovider", "--memreport", str(report), f"--memreport-repo={repo.path}")

    listed = pytester.runpytest_subprocess(*args, "--collect-only", "-q")
    run = pytester.runpytest_subprocess(*args, "-rA")

    assert listed.ret == 0
    assert "note.md::unchecked" not in listed.stdout.str() and "note.md::lines@L5" in listed.stdout.str()
    assert run.ret == pytest.ExitCode.TESTS_FAILED and "FAILED note.md::unchecked" in run.stdout.str()
