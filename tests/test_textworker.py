"""Enclosing definitions at the pin found by a worker process give exactly what the
engine finds itself, and a worker that dies costs time, never a different answer."""

from __future__ import annotations

import contextlib
import gc
import json
import textwrap
import time

import pytest

from pytest_memreport.engine import Engine, RunOptions
from pytest_memreport.textworker import MIN_FILES, UNKNOWN, TextWorker, answer
from pytest_memreport.model import Evidence, EvidenceKind, LineRange

#: enough files that the engine hands them to the worker
FILES = MIN_FILES + 6


def module(i: int) -> str:
    return textwrap.dedent(
        f'''\
        """Module {i}."""

        LIMIT_{i} = {i}


        class Store{i}:
            """Keeps entries."""

            def add(self, entry):
                self.entries.append(entry)
                return len(self.entries) > LIMIT_{i}

            @property
            def size(self):
                return len(self.entries)


        def helper_{i}(value):
            total = value * {i}
            return total
        '''
    )


def report_text(pin: str, files: dict[int, str] | None = None) -> str:
    citations = []
    for i, path in (files or {i: f"pkg/m{i:03d}.py" for i in range(FILES)}).items():
        # a cited range inside a method, a constant, a quotation in a function,
        # and one that is not in the file (found nowhere: no definition to ask for)
        citations += [f"SRC-1: {path}:10-11.", f"SRC-1: {path}:3.",
                      f"total = value * {i} --- {path}", f"no such line {i} --- {path}"]
    body = "\n\n".join(citations)
    return (f"Store memory report\n\nThe target is the package at SRC-1 commit {pin}.\n\n"
            f"Operative objects\n\nMEM-OBJ-store\n\nLabel: Store\n\n{body}\n")


@pytest.fixture
def target(make_repo, tmp_path):
    repo = make_repo("target")
    pin = repo.commit({f"pkg/m{i:03d}.py": module(i) for i in range(FILES)}, "initial")
    report = tmp_path / "reports" / "store.md"
    report.parent.mkdir()
    report.write_text(report_text(pin), encoding="utf-8")
    return repo, report


@contextlib.contextmanager
def engine_over(repo, report, offload: bool):
    engine = Engine(RunOptions(repos={None: str(repo.path)}, against="none", rootdir=report.parent))
    engine.use_worker = offload
    engine.loaded_paths = [report]
    try:
        yield engine, engine.report(report)
    finally:
        engine.close()


def pin_results(engine, parsed) -> list[dict]:
    return [engine.pin_result(parsed, e).as_json() for e in parsed.all_evidence()
            if e.kind in (EvidenceKind.QUOTE, EvidenceKind.LINES)]


def test_the_worker_finds_what_the_engine_finds(target):
    repo, report = target
    with engine_over(repo, report, offload=False) as (engine, parsed):
        expected = pin_results(engine, parsed)
        assert not engine._worker.started
    with engine_over(repo, report, offload=True) as (engine, parsed):
        got = pin_results(engine, parsed)
        assert engine._worker.started, "the worker was not asked"
        assert "waiting_on_worker" in engine.timing_json()
    assert got == expected
    # what the comparison covers: methods, module level, functions, and quotes not found
    symbols = [r.get("symbol", {}).get("name") for r in expected]
    assert symbols.count(None) == FILES
    assert {f"Store{FILES - 1}.add", f"LIMIT_{FILES - 1}", f"helper_{FILES - 1}"} <= set(symbols)
    assert sum(r["status"] == "missing" for r in expected) == FILES


def test_a_worker_that_dies_changes_nothing(target):
    repo, report = target
    with engine_over(repo, report, offload=False) as (engine, parsed):
        expected = pin_results(engine, parsed)
    with engine_over(repo, report, offload=True) as (engine, parsed):
        first = parsed.all_evidence()[0]
        engine.pin_result(parsed, first)  # the worker is started with every cited file
        process = engine._worker._process
        process.kill()
        process.wait()
        got = pin_results(engine, parsed)
    assert got == expected


def test_too_few_files_are_parsed_in_process(make_repo, tmp_path):
    repo = make_repo("small")
    pin = repo.commit({"pkg/a.py": module(1)}, "initial")
    report = tmp_path / "small.md"
    report.write_text(report_text(pin, {1: "pkg/a.py"}), encoding="utf-8")
    with engine_over(repo, report, offload=True) as (engine, parsed):
        results = pin_results(engine, parsed)
        assert not engine._worker.started
    assert results and all(r["status"] in ("found", "missing") for r in results)


def test_an_answer_is_taken_only_at_the_lines_the_engine_found():
    text = module(7)
    quote = Evidence(kind=EvidenceKind.QUOTE, path="pkg/m.py", text="total = value * 7", line=1,
                     end_line=1)
    pool = TextWorker()
    try:
        assert pool.submit("pin", [("pkg/m.py", text, None, [quote])])
        sent(pool)
        ((lines, definition),) = answer([("pkg/m.py", text, None, (quote,))])
        assert definition is not None and definition.name == "helper_7"
        assert pool.symbol("pin", quote, lines) == definition
        assert pool.symbol("pin", quote, LineRange(lines.start + 1, lines.end + 1)) is UNKNOWN
        assert pool.symbol("other pin", quote, lines) is UNKNOWN
    finally:
        pool.close()
    assert not pool.wants("pin", quote)


def sent(pool: TextWorker, seconds: float = 30.0) -> None:
    """Wait until every job submitted to ``pool`` went to the worker (none can be taken back)."""
    deadline = time.monotonic() + seconds
    while pool._unsent and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not pool._unsent, "the worker took no job"


def test_a_job_not_sent_yet_is_taken_back_and_the_worker_works_from_the_newest():
    # 120 long files of one pin, 15 jobs of several parses each: the worker takes the
    # newest job first, so the oldest is still here when it is asked for at once; this
    # process then does it itself, and the worker never does.
    filler = "".join(f"\n\ndef filler_{k}(x):\n    return x + {k}\n" for k in range(1500))
    files = [(f"pkg/m{i:03d}.py", module(i) + filler, None,
              [Evidence(kind=EvidenceKind.QUOTE, path=f"pkg/m{i:03d}.py", text=f"total = value * {i}", line=1,
                        end_line=1)]) for i in range(120)]
    (first_lines, _), = answer([files[0][:3] + (tuple(files[0][3]),)])
    (last_lines, last_definition), = answer([files[-1][:3] + (tuple(files[-1][3]),)])
    first, last = files[0][3][0], files[-1][3][0]
    pool = TextWorker()
    try:
        assert pool.submit("pin", files)
        jobs = len(pool._unsent)
        deadline = time.monotonic() + 30
        while len(pool._unsent) == jobs and time.monotonic() < deadline:
            time.sleep(0.001)  # until the newest job went to the worker
        assert jobs == 15 and len(pool._unsent) < jobs
        assert pool.symbol("pin", first, first_lines) is UNKNOWN  # taken back: not waited for
        assert pool.symbol("pin", first, first_lines) is UNKNOWN  # and never given back to the worker
        assert pool.symbol("pin", last, last_lines) == last_definition and last_definition.name == "helper_119"
    finally:
        pool.close()


def test_a_search_is_sent_last_and_alone():
    """A search runs long: every other job waiting goes to the worker first, newest first,
    and once the search is sent nothing follows it until it is answered (a job the
    engine asks for meanwhile is then still here, to take back)."""
    from pytest_memreport.textworker import CHECKS, SEARCH, SYMBOLS

    pool = TextWorker()  # never started: its queue alone
    pool._unsent = {0: (0, SEARCH, "pin", []), 1: (1, SYMBOLS, "pin", []), 2: (2, CHECKS, "pin", [])}
    assert [pool._next_to_send()[0] for _ in range(2)] == [2, 1] and pool._searching is None
    assert pool._next_to_send()[0] == 0 and pool._searching == 0


def test_collection_is_frozen_out_of_the_collector_while_items_run(pytester, make_repo):
    repo = make_repo("target")
    pin = repo.commit({"pkg/a.py": module(1)}, "initial")
    report = pytester.path / "report.md"
    report.write_text(report_text(pin, {1: "pkg/a.py"}), encoding="utf-8")
    pytester.makeconftest(
        """
        import gc, json
        frozen = []
        def pytest_runtest_setup(item):
            frozen.append(gc.get_freeze_count())
        def pytest_sessionfinish(session):
            (session.config.rootpath / "frozen.json").write_text(json.dumps(frozen))
        """
    )
    result = pytester.runpytest_inprocess("--memreport", str(report), f"--memreport-repo={repo.path}", "-p",
                                          "no:cacheprovider")
    outcomes = result.parseoutcomes()
    assert outcomes["failed"] == 1 and outcomes["passed"] >= 3  # the line that is not in the file
    frozen = json.loads((pytester.path / "frozen.json").read_text())
    assert frozen and min(frozen) > 0
    # and given back afterwards: a pytest run inside another process leaks nothing frozen
    assert gc.get_freeze_count() == 0


def test_the_collector_is_kept_out_of_collection_and_of_pytests_exit_collections(pytester, make_repo):
    """No automatic collection while collection builds the model; pytest's five full
    collections at exit find the items' objects frozen too; all is given back after."""
    repo = make_repo("target")
    pin = repo.commit({"pkg/a.py": module(1)}, "initial")
    report = pytester.path / "report.md"
    report.write_text(report_text(pin, {1: "pkg/a.py"}), encoding="utf-8")
    pytester.makeconftest(
        """
        import gc, json, sys
        from _pytest.unraisableexception import gc_collect_iterations_key
        seen = {"collecting": [], "running": []}
        log = open("gc.json", "w")
        def on_gc(phase, info):
            # pytest's own exit collections (pytester turns them off: turned on again below)
            if phase == "stop" and sys._getframe(1).f_code.co_name == "gc_collect_harder":
                log.write(json.dumps(gc.get_freeze_count()) + "\\n")
                log.flush()
        gc.callbacks.append(on_gc)
        def pytest_sessionstart(session):
            session.config.stash[gc_collect_iterations_key] = 5
        def pytest_itemcollected(item):
            seen["collecting"].append(gc.isenabled())
        def pytest_runtest_setup(item):
            seen["running"].append((gc.isenabled(), gc.get_freeze_count()))
        def pytest_sessionfinish(session):
            (session.config.rootpath / "seen.json").write_text(json.dumps(seen))
        """
    )
    try:
        result = pytester.runpytest_inprocess("--memreport", str(report), f"--memreport-repo={repo.path}", "-p",
                                              "no:cacheprovider")
    finally:
        gc.callbacks[:] = [cb for cb in gc.callbacks if getattr(cb, "__name__", "") != "on_gc"]
    assert result.parseoutcomes()["failed"] == 1
    seen = json.loads((pytester.path / "seen.json").read_text())
    assert seen["collecting"] and not any(seen["collecting"])
    assert seen["running"] and all(enabled for enabled, _ in seen["running"])
    frozen_while_running = max(count for _, count in seen["running"])
    exit_collections = [json.loads(line) for line in (pytester.path / "gc.json").read_text().split()]
    assert len(exit_collections) == 5 and min(exit_collections) > frozen_while_running
    assert gc.isenabled() and gc.get_freeze_count() == 0


@pytest.mark.parametrize("with_report", [True, False], ids=["plugin-ran", "plugin-idle"])
def test_the_heap_is_frozen_when_the_interpreter_exits_after_the_plugin_ran(pytester, make_repo, with_report):
    """Interpreter teardown would walk and free, object by object, all the run kept: the
    exit freezes it instead, and only in a process where the plugin ran."""
    repo = make_repo("target")
    pin = repo.commit({"pkg/a.py": module(1)}, "initial")
    report = pytester.path / "report.md"
    report.write_text(report_text(pin, {1: "pkg/a.py"}), encoding="utf-8")
    # Registered at import, before the plugin's own: atexit runs it after.
    pytester.makepyfile(exitprobe="""
        import atexit, gc, pathlib
        atexit.register(lambda: pathlib.Path("frozen-at-exit.txt").write_text(str(gc.get_freeze_count())))
        """)
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")
    # A plugin's log, written through a buffer and never closed, held in a cycle: teardown
    # would have flushed it as it freed the cycle; frozen, it is flushed before.
    pytester.makeconftest("""
        class Log:
            def __init__(self, path):
                self.me, self.stream = self, open(path, "w", encoding="utf-8")
        LOG = Log("plugin.log")
        def pytest_sessionfinish(session):
            LOG.stream.write("finished")
        """)
    args = ["--memreport", str(report), f"--memreport-repo={repo.path}"] if with_report else ["test_plain.py"]
    result = pytester.runpytest_subprocess("-p", "exitprobe", "-p", "no:cacheprovider", *args)
    assert result.ret == (1 if with_report else 0)  # the report's line that is not in the file
    frozen = int((pytester.path / "frozen-at-exit.txt").read_text())
    assert (frozen > 10_000) if with_report else frozen == 0
    assert (pytester.path / "plugin.log").read_text(encoding="utf-8") == "finished"


def test_objects_frozen_by_the_host_process_stay_frozen(pytester, make_repo):
    repo = make_repo("target")
    pin = repo.commit({"pkg/a.py": module(1)}, "initial")
    report = pytester.path / "report.md"
    report.write_text(report_text(pin, {1: "pkg/a.py"}), encoding="utf-8")
    gc.freeze()  # a host that froze its own objects (say, before forking workers)
    try:
        host = gc.get_freeze_count()
        result = pytester.runpytest_inprocess("--memreport", str(report), f"--memreport-repo={repo.path}",
                                              "-p", "no:cacheprovider")
        assert result.parseoutcomes()["failed"] == 1
        # not given back (frozen objects still die of their last reference, so a few go)
        assert gc.get_freeze_count() > host // 2
    finally:
        gc.unfreeze()


def test_checks_made_ahead_are_shared_with_the_worker_and_answer_the_same(make_repo, tmp_path):
    """The first quotation missing at a pin checks the pin's other quotations ahead of
    their items: with enough of them, the worker checks the later half, and every result
    is the one the engine gives alone."""
    from pytest_memreport.textworker import MIN_SHARED_CHECKS

    repo = make_repo("many")
    files = 40
    pin = repo.commit({f"pkg/m{i:03d}.py": module(i) for i in range(files)}, "initial")
    lines = ["no such line at all --- pkg/m000.py"]  # missing, and first: the checks ahead start here
    per_file = MIN_SHARED_CHECKS // files + 2
    for n in range(per_file):
        for i in range(files):
            quote = [f"LIMIT_{i} = {i}", f"total = value * {i}", "return len(self.entries)",
                     f"total = value * {i} + 1"][n % 4]  # the last is in no file
            lines.append(f"{quote} --- pkg/m{i:03d}.py")
    body = "\n\n".join(lines)
    report = tmp_path / "many.md"
    report.write_text(f"Store memory report\n\nThe target is the package at SRC-1 commit {pin}.\n\n"
                      f"Operative objects\n\nMEM-OBJ-store\n\nLabel: Store\n\n{body}\n", encoding="utf-8")
    with engine_over(repo, report, offload=False) as (engine, parsed):
        expected = pin_results(engine, parsed)
        assert not engine._worker.started
    with engine_over(repo, report, offload=True) as (engine, parsed):
        got = pin_results(engine, parsed)
        shared = [key for key in engine._worker._slots if key[0] == "checks"]
    assert len(expected) > MIN_SHARED_CHECKS and shared, "the worker was given no checks"
    assert got == expected
    statuses = [r["status"] for r in expected]
    assert statuses.count("missing") == 1 + files * (per_file // 4) and statuses[0] == "missing"


def many_holding(make_repo, tmp_path, files: int = 40, name: str = "holding", extra: dict | None = None,
                 inserted: tuple[str, ...] = ()):
    """A pin with more quotations than MIN_SHARED_CHECKS, every one of them there (but
    the ``inserted`` citation lines, placed early; ``extra``: more files in the tree)."""
    from pytest_memreport.textworker import MIN_SHARED_CHECKS

    repo = make_repo(name)
    pin = repo.commit({**{f"pkg/m{i:03d}.py": module(i) for i in range(files)}, **(extra or {})}, "initial")
    quotes = ["LIMIT_{i} = {i}", "total = value * {i}", "return len(self.entries)", "return total"]
    lines = [f"{quotes[n % 4].format(i=i)} --- pkg/m{i:03d}.py"
             for n in range(MIN_SHARED_CHECKS // files + 2) for i in range(files)]
    lines[5:5] = inserted
    report = tmp_path / f"{name}.md"
    report.write_text(f"Store memory report\n\nThe target is the package at SRC-1 commit {pin}.\n\n"
                      f"Operative objects\n\nMEM-OBJ-store\n\nLabel: Store\n\n" + "\n\n".join(lines) + "\n",
                      encoding="utf-8")
    return repo, report


def test_a_pin_whose_quotations_all_hold_is_checked_on_both_cores(make_repo, tmp_path):
    """No quotation is missing, yet the worker checks half of a large pin's from its
    first item on, and every result is the one the engine gives alone."""
    repo, report = many_holding(make_repo, tmp_path)
    with engine_over(repo, report, offload=False) as (engine, parsed):
        expected = pin_results(engine, parsed)
    with engine_over(repo, report, offload=True) as (engine, parsed):
        first = next(e for e in parsed.all_evidence() if e.kind is EvidenceKind.QUOTE)
        engine.pin_result(parsed, first)
        ahead = len(engine._checked_ahead)
        shared = [key for key in engine._worker._slots if key[0] == "checks"]
        got = pin_results(engine, parsed)
    assert shared, "the worker was given no checks"
    assert ahead == len(expected) - 1  # all but the first, which its item has taken
    assert got == expected and {r["status"] for r in expected} == {"found"}


def test_only_the_selected_items_evidence_is_checked_ahead(make_repo, tmp_path):
    """With pytest's selection known (``-k``), a large pin's other quotations are neither
    checked ahead nor handed to the worker: a selected few are checked by their items."""
    repo, report = many_holding(make_repo, tmp_path)
    with engine_over(repo, report, offload=True) as (engine, parsed):
        quotes = [e for e in parsed.all_evidence() if e.kind is EvidenceKind.QUOTE]
        engine.scheduled = frozenset((parsed.path, e) for e in quotes[:3])
        got = [engine.pin_result(parsed, e).status for e in quotes[:3]]
        assert got == ["found"] * 3
        assert not engine._checked_ahead and not engine._worker.started
        assert engine.pin_result(parsed, quotes[-1]).status == "found"  # unselected: still checkable


def many_with_missing(make_repo, tmp_path):
    """A large pin (more quotations than MIN_SHARED_CHECKS) where three quotations are
    missing from the files they cite: one the tree holds in another module, one of
    plain words (no name to ask ``git grep`` for) it holds in a notes file, one nowhere."""
    return many_holding(make_repo, tmp_path, name="missing",
                        extra={"pkg/notes.py": "# keep the newest entries first\n"},
                        inserted=("LIMIT_7 = 7 --- pkg/m003.py", "keep the newest entries first --- pkg/m001.py",
                                  "no such line at all --- pkg/m002.py"))


def test_where_missing_quotations_are_instead_is_searched_by_the_worker_meanwhile(make_repo, tmp_path):
    """On a pin whose checks were shared, the missing quotations' search runs in the
    worker: their results wait (status final, message not) until settled, and then
    are exactly the engine's own."""
    repo, report = many_with_missing(make_repo, tmp_path)

    def results(engine, parsed):
        return [engine.pin_result(parsed, e) for e in parsed.all_evidence() if e.kind is EvidenceKind.QUOTE]

    with engine_over(repo, report, offload=False) as (engine, parsed):
        expected = results(engine, parsed)
    with engine_over(repo, report, offload=True) as (engine, parsed):
        engine.defers_searches = True
        early = results(engine, parsed)
        waiting = [e for e in parsed.all_evidence() if engine.unsettled(parsed, e)]
        searches = [key for key in engine._worker._slots if key[0] == "search"]
        pin = engine.binding(parsed, waiting[0].source, waiting[0].pin).pin
        deadline = time.monotonic() + 30
        while any(job[1] == "search" for job in list(engine._worker._unsent.values())) \
                and time.monotonic() < deadline:
            time.sleep(0.01)  # until the search went to the worker (a job not sent yet is taken back)
        assert UNKNOWN not in [engine._worker.searched(pin, e) for e in waiting]  # the worker's answers
        engine.settle_all()
        settled = results(engine, parsed)
        assert not any(engine.unsettled(parsed, e) for e in waiting)
    assert [e.text for e in waiting] == ["LIMIT_7 = 7", "keep the newest entries first", "no such line at all"]
    assert len(searches) == 3
    assert settled == expected
    found = [r.message for r in expected if "found instead" in r.message]
    assert len(found) == 2 and "pkg/m007.py:3" in found[0] and "pkg/notes.py:1" in found[1]
    differ = [(e, x) for e, x in zip(early, expected) if e != x]
    assert [x.message for _, x in differ] == found
    assert all(x.message.startswith(e.message + "; found instead in ") for e, x in differ)


@pytest.mark.parametrize("items", ["record", "evidence"])
def test_a_failure_waiting_for_the_search_shows_and_reports_where_it_is_instead(pytester, make_repo, items):
    """As users run it: the failure text (rendered at the summary) and the JUnit
    failure (which asks for the text at once) say where the tree holds the quotation
    instead, though the item failed before the worker had searched."""
    import os

    repo, report = many_with_missing(make_repo, pytester.path)
    pytester.makeconftest(
        """
        import json
        kinds = []
        def pytest_runtest_logreport(report):
            if report.failed:
                kinds.append(type(report.longrepr).__name__)
        def pytest_unconfigure(config):
            (config.rootpath / "kinds.json").write_text(json.dumps(kinds))
        """
    )
    result = pytester.runpytest_inprocess(
        "--memreport", str(report), f"--memreport-repo={repo.path}", f"--memreport-items={items}",
        "--junitxml=junit.xml", "-p", "no:cacheprovider")
    outcomes = result.parseoutcomes()
    assert outcomes["failed"] == (1 if items == "record" else 3)
    text = result.stdout.str()
    assert "found instead in pkg/m007.py:3 (fix the cited path)" in text
    assert "found instead in pkg/notes.py:1 (fix the cited path)" in text
    junit = (pytester.path / "junit.xml").read_text(encoding="utf-8")
    assert "found instead in pkg/m007.py:3" in junit
    kinds = json.loads((pytester.path / "kinds.json").read_text())
    if (os.cpu_count() or 1) > 1:  # the worker runs: the failures waited for its search
        assert "SettledText" in kinds


def test_a_failure_text_that_cannot_be_completed_is_shown_as_it_failed():
    """Completing a text runs checks again; if that raises, pytest's summary still shows
    the failure as the item gave it, and says what went wrong."""
    from pytest_memreport.integration.unsettled import SettledText

    def broken() -> str:
        raise ValueError("no answer")

    text = SettledText(broken, "report.md:3: quotation missing at repo@abc:pkg/a.py")
    assert str(text) == ("report.md:3: quotation missing at repo@abc:pkg/a.py\n  internal error in "
                         "pytest-memreport while completing this text: ValueError: no answer")
    assert str(SettledText(lambda: "complete", "provisional")) == "complete"
