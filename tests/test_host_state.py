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
