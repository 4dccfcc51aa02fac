"""The plugin leaves the host process alone: its garbage collector, its exit, its files.

A report runs beside a user's own tests in one pytest call (the README's CI use), so
nothing of the plugin may change how the user's interpreter collects garbage or exits.
Each run here is a real pytest process (``runpytest_subprocess``): the interpreter's
exit is part of what is checked.
"""

from __future__ import annotations

import gzip
import sqlite3
import textwrap

import pytest

STORE_PY = "LIMIT = 200\n\n\ndef keep(entries):\n    return entries[-LIMIT:]\n"


def write_report(pytester, pin: str, quote: str = "return entries[-LIMIT:]") -> str:
    report = pytester.path / "report.txt"
    report.write_text(textwrap.dedent(f"""\
        Store memory report

        Boundary and evidence

        The target is the store module at SRC-1 commit {pin}.

        Operative objects

        MEM-OBJ-store

        Label: Store

        The store keeps the newest entries. SRC-1: pkg/store.py.

        {quote} --- pkg/store.py:4-5
        """), encoding="utf-8")
    return str(report)


@pytest.fixture
def target(make_repo):
    repo = make_repo("target")
    return repo, repo.commit({"pkg/store.py": STORE_PY}, "initial")


def test_the_collector_is_untouched_inside_a_users_test(pytester, target):
    """A user's test sees the collector on and nothing frozen, and a cycle made at import
    is freed by the ``gc.collect()`` the test calls, beside a report."""
    repo, pin = target
    pytester.makepyfile(test_user=textwrap.dedent("""\
        import gc
        import weakref

        class Node:
            pass

        def _cycle():
            node = Node()
            node.self = node
            return weakref.ref(node)

        BUILT_AT_IMPORT = _cycle()

        def test_collector_state():
            assert gc.isenabled()
            assert gc.get_freeze_count() == 0

        def test_cycle_is_freed():
            gc.collect()
            assert BUILT_AT_IMPORT() is None
        """))
    result = pytester.runpytest_subprocess("test_user.py", "--memreport", write_report(pytester, pin),
                                           "--memreport-repo", str(repo.path), "-p", "no:cacheprovider")
    # the user's two tests, and the report's six items (source, structure, paths, the quotation)
    result.assert_outcomes(passed=8)
    assert "1 fresh" in result.stdout.str()


def test_files_held_in_cycles_are_finalized_at_exit(pytester, target):
    """A conftest holds a temporary file, a gzip writer and a sqlite database in WAL mode in
    reference cycles and never closes them: after a run with a report the temporary file is
    gone, the gzip file is whole and the database was checkpointed, as without the plugin."""
    repo, pin = target
    pytester.makeconftest(textwrap.dedent("""\
        import gzip
        import pathlib
        import sqlite3
        import tempfile

        class Holder:
            pass

        HOLDER = Holder()

        def pytest_sessionfinish(session):
            holder = Holder()
            holder.cycle = holder
            holder.temp = tempfile.NamedTemporaryFile(dir=session.config.rootpath, prefix="held-", delete=True)
            pathlib.Path("temp-name.txt").write_text(holder.temp.name)
            holder.zipped = gzip.open("held.gz", "wt")
            holder.zipped.write("every line of it\\n" * 2000)
            holder.db = sqlite3.connect("held.db")
            holder.db.execute("PRAGMA journal_mode=WAL")
            holder.db.execute("CREATE TABLE t (x)")
            holder.db.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(500)])
            holder.db.commit()
        """))
    pytester.makepyfile(test_user="def test_ok():\n    assert True\n")
    result = pytester.runpytest_subprocess("test_user.py", "--memreport", write_report(pytester, pin),
                                           "--memreport-repo", str(repo.path), "-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()
    temp_name = (pytester.path / "temp-name.txt").read_text()
    assert not (pytester.path / temp_name).exists()
    with gzip.open(pytester.path / "held.gz", "rt") as stream:
        assert stream.read() == "every line of it\n" * 2000
    # A checkpointed WAL database has no write-ahead log left beside it, and reads whole.
    assert not (pytester.path / "held.db-wal").exists() or (pytester.path / "held.db-wal").stat().st_size == 0
    with sqlite3.connect(pytester.path / "held.db") as db:
        assert db.execute("SELECT count(*) FROM t").fetchone() == (500,)


def test_a_daemon_thread_blocked_on_a_pipe_does_not_delay_exit(pytester, target):
    """A daemon thread blocked reading a pipe while holding a stream's lock: the process
    exits as soon as pytest is done (nothing walks or flushes other code's streams)."""
    repo, pin = target
    pytester.makeconftest(textwrap.dedent("""\
        import os
        import threading

        READ, WRITE = os.pipe()
        STREAM = os.fdopen(READ, "rb")

        def _blocked():
            STREAM.read()  # holds the buffered reader's lock until the pipe closes: never

        threading.Thread(target=_blocked, daemon=True).start()
        """))
    pytester.makepyfile(test_user="def test_ok():\n    assert True\n")
    result = pytester.runpytest_subprocess("test_user.py", "--memreport", write_report(pytester, pin),
                                           "--memreport-repo", str(repo.path), "-p", "no:cacheprovider",
                                           timeout=120)
    assert result.ret == 0, result.stdout.str()


def test_no_thread_of_the_plugin_outlives_the_checks(pytester, target):
    """Drift asks git a pair's first questions from a thread while the pins are checked;
    a user's test, which runs after the checks, sees no thread the plugin started."""
    repo, pin = target
    repo.commit({"pkg/store.py": "# moved down\n" + STORE_PY}, "edit")
    pytester.makepyfile(test_user=textwrap.dedent("""\
        import threading

        def test_only_the_users_threads():
            assert [t.name for t in threading.enumerate()] == ["MainThread"]
        """))
    result = pytester.runpytest_subprocess("test_user.py", "--memreport", write_report(pytester, pin),
                                           "--memreport-repo", str(repo.path), "--memreport-against", "HEAD",
                                           "-p", "no:cacheprovider", "-v")
    # the user's test; source, structure, the path and the quotation, each of these two also at HEAD
    result.assert_outcomes(passed=7)
    assert "quote@L15::drift PASSED" in result.stdout.str()


def test_a_failures_text_is_the_same_rendered_at_once_or_after_the_session(pytester, target):
    """Rendering is pure: a failing item's text, rendered by pytest at the summary and
    rendered again by the test after the session has ended, is the same text."""
    repo, pin = target
    pytester.makeconftest(textwrap.dedent("""\
        import json
        import pathlib

        RENDERED = {}

        def pytest_runtest_makereport(item, call):
            if call.excinfo is not None and call.when == "call":
                RENDERED[item.nodeid] = (item, call.excinfo, str(item.repr_failure(call.excinfo)))

        def pytest_unconfigure(config):
            again = {nodeid: [text, str(item.repr_failure(excinfo))]
                     for nodeid, (item, excinfo, text) in RENDERED.items()}
            pathlib.Path("rendered.json").write_text(json.dumps(again))
        """))
    report = write_report(pytester, pin, quote="return entries[-LIMIT * 2:]")
    result = pytester.runpytest_subprocess("--memreport", report, "--memreport-repo", str(repo.path),
                                           "-p", "no:cacheprovider")
    assert result.ret == 1
    import json

    rendered = json.loads((pytester.path / "rendered.json").read_text())
    assert rendered, result.stdout.str()
    for at_once, after in rendered.values():
        assert at_once == after
        assert "not in pkg/store.py" in at_once or "missing" in at_once.lower()


EXIT_CONFTEST = textwrap.dedent("""\
    import gzip
    import pathlib
    import zipfile

    class Holder:
        def __init__(self, tag):
            self.tag = tag

        def __del__(self):
            pathlib.Path(f"del-{self.tag}.txt").write_text("ran")

    def _suspended(tag):
        try:
            yield 1
            yield 2
        finally:
            pathlib.Path(f"finally-{tag}.txt").write_text("ran")

    def held(tag):
        \"\"\"An object in a reference cycle, never closed: its __del__, a suspended
        generator's finally, a gzip writer and a zip writer are finalized at exit.\"\"\"
        holder = Holder(tag)
        holder.cycle = holder
        holder.generator = _suspended(tag)
        next(holder.generator)
        holder.gz = gzip.open(f"held-{tag}.gz", "wt")
        holder.gz.write("every line of it\\n" * 2000)
        holder.zip = zipfile.ZipFile(f"held-{tag}.zip", "w")
        with holder.zip.open("member.txt", "w") as member:
            member.write(b"every line of it\\n" * 2000)

    def pytest_sessionfinish(session):
        held("sessionfinish")
    """)


def _exit_state(folder) -> dict:
    """What the interpreter's exit finalized: which __del__ and finally ran, which files are whole."""
    import zipfile

    state: dict[str, object] = {}
    for tag in ("sessionfinish", "test"):
        state[f"del-{tag}"] = (folder / f"del-{tag}.txt").exists()
        state[f"finally-{tag}"] = (folder / f"finally-{tag}.txt").exists()
        try:
            with gzip.open(folder / f"held-{tag}.gz", "rt") as stream:
                state[f"gzip-{tag}"] = stream.read() == "every line of it\n" * 2000
        except (OSError, EOFError):
            state[f"gzip-{tag}"] = False
        try:
            with zipfile.ZipFile(folder / f"held-{tag}.zip") as archive:
                state[f"zip-{tag}"] = archive.read("member.txt") == b"every line of it\n" * 2000
        except (OSError, zipfile.BadZipFile, KeyError):
            state[f"zip-{tag}"] = False
        for name in (f"del-{tag}.txt", f"finally-{tag}.txt", f"held-{tag}.gz", f"held-{tag}.zip"):
            (folder / name).unlink(missing_ok=True)
    return state


def test_objects_in_cycles_are_finalized_at_exit_as_without_the_plugin(pytester, target):
    """A conftest object's __del__, a suspended generator's finally, a gzip and a zip writer,
    held in reference cycles made by a conftest hook and by a test and never closed: at the
    interpreter's exit they are finalized exactly as in a run with ``-p no:memreport``
    (drift on, so the plugin's git thread ran too)."""
    repo, pin = target
    repo.commit({"pkg/store.py": "# moved down\n" + STORE_PY}, "edit")
    pytester.makeconftest(EXIT_CONFTEST)
    pytester.makepyfile(test_user="from conftest import held\n\ndef test_ok():\n    held('test')\n")
    report = write_report(pytester, pin)
    without = pytester.runpytest_subprocess("test_user.py", "-p", "no:memreport", "-p", "no:cacheprovider")
    assert without.ret == 0, without.stdout.str()
    expected = _exit_state(pytester.path)
    assert expected["del-test"] and expected["finally-test"] and expected["gzip-test"] and expected["zip-test"]
    result = pytester.runpytest_subprocess("test_user.py", "--memreport", report, "--memreport-repo", str(repo.path),
                                           "--memreport-against", "HEAD", "-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()
    assert "quote" in result.stdout.str() or "1 fresh" in result.stdout.str()
    assert _exit_state(pytester.path) == expected


def test_no_standard_library_cache_holds_a_report(pytester, target):
    """A check's warning is shown without the report's line under it (its message says
    what matters), and nothing of a report is left in ``linecache``."""
    repo, pin = target
    # The enclosing function changes around the quoted line: the check passes with a warning.
    repo.commit({"pkg/store.py": STORE_PY.replace("def keep(entries):\n",
                                                  "def keep(entries):\n    entries = list(entries)\n")}, "edit")
    pytester.makeconftest(textwrap.dedent("""\
        import linecache
        import pathlib

        def pytest_unconfigure(config):
            held = [name for name in linecache.cache if name.endswith("report.txt")]
            pathlib.Path("linecache.txt").write_text(repr(held))
        """))
    report = write_report(pytester, pin)
    result = pytester.runpytest_subprocess("--memreport", report, "--memreport-repo", str(repo.path),
                                           "--memreport-against", "HEAD", "-p", "no:cacheprovider")
    out = result.stdout.str()
    assert "MemreportWarning" in out and "enclosing definition changed" in out, out
    summary = out.split("warnings summary", 1)[1].split("-- Docs", 1)[0]
    assert "--- pkg/store.py:4-5" not in summary  # the report's line is not echoed
    assert (pytester.path / "linecache.txt").read_text() == "[]"


MODEL_CONFTEST = textwrap.dedent("""\
    import gc
    import pathlib

    import pytest

    def _count_alive(name):
        from pytest_memreport.model import Evidence, Record, Report
        gc.collect()
        alive = sum(isinstance(obj, (Evidence, Record, Report)) for obj in gc.get_objects())
        with pathlib.Path("alive.txt").open("a") as out:
            out.write(f"{name} {alive}\\n")

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(terminalreporter):
        _count_alive("summary")

    @pytest.hookimpl(trylast=True)
    def pytest_unconfigure(config):
        _count_alive("unconfigure")
    """)


@pytest.mark.parametrize("items", ["evidence", "record"])
@pytest.mark.parametrize("terminal", [True, False])
def test_the_report_model_is_let_go_of_before_other_plugins_end_the_run(pytester, target, items, terminal):
    """Once every output is written and the summary printed, no report, record or piece of
    evidence of the run is alive: the terminal summaries of plugins after ours (hypothesis
    imports its package there) and pytest's last garbage collections (five, after the
    unconfigure hooks) would walk all of them; pytest keeps its items to the end. Without
    a terminal (``-p no:terminal``, once an internal error: the plugin read ``-v``'s option,
    which the terminal plugin adds), the model goes at unconfigure."""
    repo, pin = target
    pytester.makeconftest(MODEL_CONFTEST)
    report = write_report(pytester, pin)
    result = pytester.runpytest_subprocess("--memreport", report, "--memreport-repo", str(repo.path),
                                           "--memreport-against", "HEAD", f"--memreport-items={items}",
                                           "--memreport-json", "out.json", "-p", "no:cacheprovider",
                                           *([] if terminal else ["-p", "no:terminal"]))
    assert result.ret == 0, result.stdout.str()
    assert '"found"' in (pytester.path / "out.json").read_text()  # the outputs had the model
    counts = (pytester.path / "alive.txt").read_text().split("\n")
    assert counts == (["summary 0", "unconfigure 0", ""] if terminal else ["unconfigure 0", ""])
