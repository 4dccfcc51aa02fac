"""Results kept across runs under pytest's cache: a rerun of unchanged targets reads
no blob and runs no check; anything a result depends on changing makes it miss."""

from __future__ import annotations

import json
import textwrap

import pytest

from pytest_memreport.checks.drift import DriftResult, Place
from pytest_memreport.checks.predicates import PredicateResult
from pytest_memreport.checks.verify import UNREADABLE, PinResult
from pytest_memreport.model import Evidence, EvidenceKind, LineRange
from pytest_memreport.options import RunOptions
from pytest_memreport.resultcache import ResultCache
from pytest_memreport.resultcache.serialize import Unreadable, dump_value, load_value

STORE_PY = textwrap.dedent(
    '''\
    """A tiny store."""

    LIMIT = 200


    def add(entries, entry):
        entries.append(entry)
        return entries[-LIMIT:]
    '''
)


def report(pin: str) -> str:
    return textwrap.dedent(
        f"""\
        Store report

        The target is at SRC-1 commit {pin}.

        MEM-OBJ-store

        Label: Store

        The store keeps the newest entries. SRC-1: pkg/store.py.

        LIMIT = 200 --- pkg/store.py

        entries.append(entry) --- pkg/store.py:6-8

        • implementation conclusion status: afforded
        • operation conclusion status: uninspected
        """
    )


@pytest.fixture
def target(make_repo):
    repo = make_repo("target")
    pin = repo.commit({"pkg/store.py": STORE_PY}, "initial")
    return repo, pin


def run(pytester, pin: str, repo, *args: str):
    path = pytester.path / "report.txt"
    path.write_text(report(pin), encoding="utf-8")
    out = pytester.path / "out.json"
    result = pytester.runpytest("--memreport", str(path), f"--memreport-repo={repo.path}",
                                "--memreport-json", str(out), "-rA", *args)
    data = json.loads(out.read_text())
    return result, data


def statuses(data) -> list:
    (rep,) = data["reports"]
    return [(e["line"], e["at_pin"]["status"], (e.get("at_against") or {}).get("status"))
            for r in rep["records"] for e in r["evidence"]]


def test_a_rerun_of_unchanged_targets_reads_no_blob_and_computes_nothing(pytester, target):
    repo, pin = target
    repo.commit({"pkg/other.py": "x = 1\n", "pkg/store.py": "# head\n" + STORE_PY}, "shift")
    first, cold = run(pytester, pin, repo)
    first.assert_outcomes(passed=8)
    assert cold["timing"]["results_computed"] > 0 and cold["timing"]["blobs_read"] > 0
    second, warm = run(pytester, pin, repo)
    second.assert_outcomes(passed=8)
    assert warm["timing"]["blobs_read"] == 0
    assert warm["timing"]["results_computed"] == 0
    assert warm["timing"]["results_cached"] == cold["timing"]["results_computed"]
    assert statuses(warm) == statuses(cold)
    assert ("shifted" in {s[2] for s in statuses(warm)})
    assert [line for line in first.outlines if "PASSED" in line] == [line for line in second.outlines if "PASSED" in line]


def test_a_changed_blob_under_the_same_revision_name_misses_the_cache(pytester, target):
    repo, pin = target
    _, cold = run(pytester, pin, repo)
    assert {s[2] for s in statuses(cold)} == {"unchanged"}
    # HEAD (the default against-revision) now names a commit whose blob differs.
    repo.commit({"pkg/store.py": STORE_PY.replace("LIMIT = 200", "LIMIT = 250")}, "edit")
    result, warm = run(pytester, pin, repo)
    assert warm["timing"]["results_computed"] > 0 and warm["timing"]["blobs_read"] > 0
    assert ("changed" in {s[2] for s in statuses(warm)})
    result.assert_outcomes(passed=7, failed=1)


def test_cache_clear_and_no_cacheprovider_behave_as_pytest_users_expect(pytester, target):
    repo, pin = target
    run(pytester, pin, repo)
    _, cleared = run(pytester, pin, repo, "--cache-clear")
    assert cleared["timing"]["results_cached"] == 0 and cleared["timing"]["results_computed"] > 0
    _, warm = run(pytester, pin, repo)
    assert warm["timing"]["results_computed"] == 0
    _, uncached = run(pytester, pin, repo, "-p", "no:cacheprovider")
    assert "results_cached" not in uncached["timing"] and uncached["timing"]["blobs_read"] > 0


def test_xdist_workers_share_the_cache(pytester, target):
    repo, pin = target
    repo.commit({"pkg/store.py": "# head\n" + STORE_PY}, "shift")
    first, cold = run(pytester, pin, repo, "-n", "2")
    first.assert_outcomes(passed=8)
    second, warm = run(pytester, pin, repo, "-n", "2")
    second.assert_outcomes(passed=8)
    assert warm["timing"]["results_computed"] == 0 and warm["timing"]["blobs_read"] == 0
    assert statuses(warm) == statuses(cold)


def test_the_working_tree_is_never_answered_from_the_cache(pytester, target):
    repo, pin = target
    run(pytester, pin, repo, "--memreport-against", "worktree")
    (repo.path / "pkg/store.py").write_text(STORE_PY.replace("LIMIT = 200", "LIMIT = 9"), encoding="utf-8")
    result, data = run(pytester, pin, repo, "--memreport-against", "worktree")
    assert "changed" in {s[2] for s in statuses(data)}
    result.assert_outcomes(passed=7, failed=1)


PIN = "a" * 40
HEAD = "b" * 40


def test_values_round_trip_and_foreign_data_is_refused(tmp_path):
    result = DriftResult("relocated", HEAD, "b.py", LineRange(3, 4), LineRange(1, 2),
                         candidates=(Place("b.py", LineRange(3, 4)),), note=None, message="m")
    evidence = Evidence(EvidenceKind.QUOTE, "a.py", 3, 3, text="x", cited_lines=LineRange(1, 2), context=("a", "b"))
    for value in (result, evidence):
        again = load_value(dump_value(value))
        assert again == value and type(again) is type(value)
    assert type(load_value(dump_value(evidence)).kind) is EvidenceKind  # not the str it subclasses
    for foreign in ('["system", {}]', '{"d": "os:system", "f": {}}', "[" * 100_000, "\x00junk"):
        with pytest.raises(Unreadable):
            load_value(foreign)
    cache = ResultCache(tmp_path / "c", identity="test")
    cache.put(cache.key("drift", PIN, HEAD, "k"), result)
    cache.save()
    again = ResultCache(tmp_path / "c", identity="test")
    assert again.get(again.key("drift", PIN, HEAD, "k")) == result and again.hits == 1
    other_code = ResultCache(tmp_path / "c", identity="other")
    assert other_code.get(other_code.key("drift", PIN, HEAD, "k")) is None and other_code.misses == 1


def test_the_working_tree_and_unreadable_results_have_no_key_or_are_not_kept(tmp_path):
    cache = ResultCache(tmp_path / "c", identity="test")
    assert cache.key("predicate", PIN, "worktree", "p") is None
    assert cache.key("drift", PIN, "worktree", "e") is None
    assert cache.key("pin", "worktree", "e") is None and cache.key("pin", None, "e") is None
    cache.put(cache.key("pin", PIN, "e"), PinResult(UNREADABLE, PIN, "a.py", message="missing object"))
    cache.put(cache.key("predicate", PIN, HEAD, "p"), PredicateResult(False, "could not run", error=True))
    cache.save()
    again = ResultCache(tmp_path / "c", identity="test")
    assert not again.has(again.key("pin", PIN, "e")) and not again.has(again.key("predicate", PIN, HEAD, "p"))


def test_options_that_change_results_are_in_the_key(tmp_path):
    folder = tmp_path / "c"
    first = ResultCache(folder, identity="test", options=RunOptions())
    first.put(first.key("pin", PIN, "e"), PinResult("found", PIN, "a.py"))
    first.save()
    same = ResultCache(folder, identity="test", options=RunOptions())
    smaller = ResultCache(folder, identity="test", options=RunOptions(max_file_bytes=10))
    assert same.has(same.key("pin", PIN, "e"))
    assert not smaller.has(smaller.key("pin", PIN, "e"))


def test_failure_summary_does_not_scan_every_items_setup_and_teardown(pytester, target):
    """pytest scans stats[""] once per failure shown; memreport's empty reports stay out of it,
    while another test's teardown output is still shown with its failure."""
    repo, pin = target
    pytester.makeconftest(
        """
        import pytest

        @pytest.hookimpl(trylast=True)
        def pytest_terminal_summary(terminalreporter):
            filed = terminalreporter.stats.get("", [])
            print("FILED", len(filed), sum("memreport" in r.keywords for r in filed))
        """
    )
    pytester.makepyfile(
        test_other="""
        import pytest

        @pytest.fixture
        def noisy():
            yield
            print("teardown says hello")

        def test_fails(noisy):
            assert False
        """
    )
    path = pytester.path / "report.txt"
    path.write_text(report(pin).replace("LIMIT = 200 ---", "LIMIT = 201 ---"), encoding="utf-8")
    result = pytester.runpytest("--memreport", str(path), f"--memreport-repo={repo.path}", "test_other.py",
                                "-p", "no:cacheprovider")
    result.assert_outcomes(passed=6, failed=2, skipped=1)
    out = result.stdout.str()
    assert "FILED 2 0" in out  # test_fails' setup and teardown only
    assert "teardown says hello" in out and "LIMIT = 201" in out


def test_a_run_reads_only_the_pairs_it_checks_and_the_oldest_pairs_are_pruned(tmp_path, monkeypatch):
    folder = tmp_path / "c"
    pins = [f"{n:040x}" for n in range(1, 7)]
    for pin in pins:  # a run each, one pin each, 3 results each
        cache = ResultCache(folder, identity="test")
        for n in range(3):
            cache.put(cache.key("pin", pin, n), PinResult("found", pin, f"{n}.py"))
        cache.save(fold=True)
    assert ResultCache(folder, identity="test").kept() == 18
    reader = ResultCache(folder, identity="test")
    assert reader.get(reader.key("pin", pins[0], 1)) == PinResult("found", pins[0], "1.py")
    assert list(reader._pairs) == [reader.key("pin", pins[0], 1).group]  # one pair read, not six
    reader.save(fold=True)  # pins[0] was used now: the newest
    monkeypatch.setattr("pytest_memreport.resultcache.store.MAX_KEPT", 10)
    ResultCache(folder, identity="test").save(fold=True)  # nothing looked up: nothing written
    writer = ResultCache(folder, identity="test")
    writer.put(writer.key("pin", pins[5], 9), PinResult("found", pins[5], "9.py"))
    writer.save(fold=True)
    after = ResultCache(folder, identity="test")
    assert after.kept() <= 10
    kept = {pin for pin in pins if after.has(after.key("pin", pin, 0))}
    assert kept == {pins[0], pins[4], pins[5]}  # whole pairs dropped, those used longest ago first


# -- every kept type round-trips: a property over values built from the types' own hints --------

import dataclasses  # noqa: E402
import enum  # noqa: E402
import types  # noqa: E402
import typing  # noqa: E402

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from pytest_memreport.checks.drift.results import Uncommitted  # noqa: E402
from pytest_memreport.checks.predicates import Hit  # noqa: E402
from pytest_memreport.gitstore.history import Change, LogCommit  # noqa: E402
from pytest_memreport.gitstore.hunks import LineCounts  # noqa: E402
from pytest_memreport.resultcache import serialize  # noqa: E402
from pytest_memreport.text.quotes.nearest import Candidate  # noqa: E402
from pytest_memreport.text.syntax.definitions import Definition  # noqa: E402

#: lone surrogates too: a path git gave as undecodable bytes is kept with them
_TEXT = st.text(st.characters(blacklist_categories=()), max_size=12)
_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                     | _TEXT, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
                     max_leaves=8)
_LINES = st.builds(lambda start, length: LineRange(start, start + length),
                   st.integers(1, 10**6), st.integers(0, 10**4))


def strategy_for(hint):
    """Values of a declared type, built from the same hints the serializer reads."""
    if hint is LineRange:
        return _LINES
    if hint is None or hint is type(None):
        return st.none()
    if hint is typing.Any or hint is object:
        return _JSON
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Union or origin is types.UnionType:
        return st.one_of([strategy_for(a) for a in args])
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return st.sampled_from(list(hint))
    if hint is str:
        return _TEXT
    if hint is bool:
        return st.booleans()
    if hint is int:
        return st.integers(-(2**53), 2**53)
    if hint is float:
        return st.floats(allow_nan=False, allow_infinity=False)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        fields = typing.get_type_hints(hint)
        return st.builds(hint, **{f.name: strategy_for(fields[f.name]) for f in dataclasses.fields(hint) if f.init})
    if hint is dict or origin is dict:
        key, value = args or (str, typing.Any)
        return st.dictionaries(strategy_for(key), strategy_for(value), max_size=3)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return st.lists(strategy_for(args[0]), max_size=3).map(tuple)
        return st.tuples(*(strategy_for(a) for a in args))
    if origin is frozenset:
        return st.frozensets(strategy_for(args[0]), max_size=3)
    raise AssertionError(f"no strategy for {hint!r}: teach the test (and check the serializer) the new type")


#: every type a kept result is made of, kept whole or nested
NESTED = (LineRange, Place, Candidate, Definition, LineCounts, Change, LogCommit, Uncommitted, Hit)


@pytest.mark.parametrize("cls", sorted(serialize.kept_types().values(), key=lambda c: c.__name__),
                         ids=lambda c: c.__name__)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_kept_result_type_round_trips_to_an_equal_value_of_its_type(cls, data):
    value = data.draw(strategy_for(cls))
    again = load_value(dump_value(value))
    assert again == value and type(again) is type(value)
    for field in dataclasses.fields(value):  # the fields too: an enum stays an enum, a tuple a tuple
        assert type(getattr(again, field.name)) is type(getattr(value, field.name))


@pytest.mark.parametrize("cls", NESTED, ids=lambda c: c.__name__)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_every_nested_type_round_trips_through_json(cls, data):
    value = data.draw(strategy_for(cls))
    again = serialize.load(json.loads(json.dumps(serialize.dump(value, cls))), cls)
    assert again == value and type(again) is type(value)


def test_values_a_declaration_does_not_describe_are_not_kept(tmp_path):
    with pytest.raises(serialize.NotKeepable):  # a str enum member where a str is declared
        dump_value(PinResult(EvidenceKind.QUOTE, PIN, "a.py"))
    with pytest.raises(serialize.NotKeepable):  # a tuple under Any would come back a list
        dump_value(PredicateResult(True, "m", actual=(1, 2)))
    cache = ResultCache(tmp_path / "c", identity="test")
    cache.put(cache.key("pin", PIN, "e"), PinResult(EvidenceKind.QUOTE, PIN, "a.py"))
    assert not cache.has(cache.key("pin", PIN, "e"))


def test_a_hostile_value_inside_a_valid_cache_is_a_miss_never_an_error(tmp_path):
    import sqlite3

    from pytest_memreport.resultcache import FILE_NAME

    cache = ResultCache(tmp_path / "c", identity="test")
    keys = [cache.key("pin", PIN, n) for n in range(4)]
    cache.put(keys[0], PinResult("found", PIN, "a.py"))
    cache.save()
    hostile = ["[" * 100_000 + "]" * 100_000, '["PinResult", {"status": "found"}]',
               '["PinResult", {"status": "found", "rev": "r", "path": "p", "lines": {"start": 5, "end": 1}}]']
    with sqlite3.connect(tmp_path / "c" / FILE_NAME) as connection:
        connection.executemany("INSERT OR REPLACE INTO results VALUES (?, ?, ?)",
                               [(key.group, key.digest, text) for key, text in zip(keys[1:], hostile)])
    again = ResultCache(tmp_path / "c", identity="test")
    assert again.get(keys[0]) == PinResult("found", PIN, "a.py")
    assert [again.get(key, ResultCache.MISS) for key in keys[1:]] == [ResultCache.MISS] * 3
    assert again.misses == 3


def test_the_git_that_answers_is_in_the_key(tmp_path, monkeypatch):
    import os
    import shutil

    real = shutil.which("git")
    cache = ResultCache(tmp_path / "c")
    before = cache.key("pin", PIN, "e")
    wrapper = tmp_path / "bin" / "git"  # another git first on PATH: an upgrade, another install
    wrapper.parent.mkdir()
    wrapper.write_text(f'#!/bin/sh\nexec "{real}" "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")
    after = ResultCache(tmp_path / "c").key("pin", PIN, "e")
    assert after is not None and after != before


def test_an_evidence_key_reads_what_a_check_reads_and_not_where_it_sits():
    """Evidence differing in any field a check reads has another key; evidence moved to
    other report lines (or read at another place) keeps its key."""
    from pytest_memreport.model import EvidenceRole, Span
    from pytest_memreport.resultcache import evidence_key

    base = Evidence(EvidenceKind.LINES, "pkg/a.py", 10, 10, cited_lines=LineRange(3, 40), source="SRC-1")
    moved = dataclasses.replace(base, line=20, end_line=21, span=Span(300, 313, 20, "pkg/a.py:3-40"))
    assert evidence_key(moved) == evidence_key(base)
    others = [dataclasses.replace(base, path="pkg/b.py"), dataclasses.replace(base, cited_lines=LineRange(3, 41)),
              dataclasses.replace(base, source="SRC-2"), dataclasses.replace(base, kind=EvidenceKind.PATH),
              dataclasses.replace(base, role=EvidenceRole.MENTION), dataclasses.replace(base, text="x = 1"),
              dataclasses.replace(base, pin="a" * 40)]
    keys = {evidence_key(other) for other in others}
    assert len(keys) == len(others) and evidence_key(base) not in keys
