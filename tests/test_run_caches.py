"""Every cache of a run's data is its engine's: two engines in one process, one after the
other or interleaved, check the same evidence with the same results and the same work
(blobs read, parses, git processes), and an engine's ``close()`` leaves nothing behind.
No module keeps run data: the module-level caches that remain hold fixed data only."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

import pytest_memreport
from pytest_memreport import runcaches
from pytest_memreport.engine import Engine, RunOptions

MODULE = textwrap.dedent("""\
    def settle(ledger, amount):
        # the ledger closes early for these accounts
        balance = ledger.balance_of(amount) + amount
        ledger.record_transfer(balance, reason="settle")
        return balance


    def close(ledger):
        return ledger.close()
    """)


@pytest.fixture
def report(make_repo, tmp_path) -> Path:
    """A report of four files quoted at the pin; later one file is edited, one moved."""
    repo = make_repo("ledger")
    pin = repo.commit({f"pkg/mod_{i}.py": MODULE.replace("settle", f"settle_{i}") for i in range(4)}, "pin")
    repo.commit({"pkg/mod_1.py": MODULE.replace("settle", "settle_1").replace("closes early", "closes late"),
                 "pkg/mod_2.py": "# moved\n", "lib/moved.py": "import x\n\n" + MODULE.replace("settle", "settle_2")},
                "edit and move")
    records = []
    for i in range(4):
        records += [f"MEM-OBJ-{i}", "", f"Label: module {i}", "",
                    f"the ledger closes early for these accounts --- pkg/mod_{i}.py:2",
                    f"def settle_{i}(ledger, amount): --- pkg/mod_{i}.py:1", "",
                    "• implementation conclusion status: afforded", "• operation conclusion status: uninspected", ""]
    path = tmp_path / "report.txt"
    path.write_text("\n".join(["Run report", "", f"The target is at SRC-1 commit {pin}.", "", *records]),
                    encoding="utf-8")
    return path


def _engine(repo: Path, report: Path) -> Engine:
    return Engine(RunOptions(repos={None: str(repo)}, against="HEAD", rootdir=report.parent, want_symbols=True),
                  [report])


def _steps(engine: Engine, report: Path):
    """The engine's checks, one step at a time: each evidence at its pin, then at HEAD."""
    parsed = engine.report(report)
    evidence = [e for e in parsed.all_evidence()]
    for item in evidence:
        yield ("pin", item.key, engine.pin_result(parsed, item))
    for item in evidence:
        yield ("drift", item.key, engine.drift_result(parsed, item))


def _counts(engine: Engine) -> tuple:
    timing = engine.timing_json()
    return timing["blobs_read"], timing["tree_sitter_parses"], timing["git_processes"]


def test_two_engines_one_after_the_other_and_interleaved_give_the_same_results(report, _one_run_of_caches):
    repo = report.parent / "ledger"
    alone = _engine(repo, report)
    results = list(_steps(alone, report))
    counts = _counts(alone)
    alone.close()
    assert counts[0] > 0 and counts[1] > 0  # blobs were read and files parsed
    assert {status for kind, _, result in results if kind == "drift" for status in [result.status]} >= {
        "unchanged", "relocated"}

    again = _engine(repo, report)  # nothing of the first engine's caches helps or hinders
    assert list(_steps(again, report)) == results
    assert _counts(again) == counts
    again.close()

    one, two = _engine(repo, report), _engine(repo, report)
    first, second = _steps(one, report), _steps(two, report)
    interleaved_one, interleaved_two = [], []
    for step_one, step_two in zip(first, second):
        interleaved_one.append(step_one)
        interleaved_two.append(step_two)
    assert interleaved_one == results and interleaved_two == results
    assert _counts(one) == counts and _counts(two) == counts  # each counts its own parses and reads
    one.close()  # closing one empties its caches only: the other still checks, unchanged
    assert len(one.caches) == 0 and len(two.caches) > 0
    assert list(_steps(two, report)) == results
    two.close()
    assert len(two.caches) == 0
    # Nothing of the engines' work went into the caches current around them (the test's own).
    assert runcaches.current() is _one_run_of_caches and len(_one_run_of_caches) == 0


#: module-level functools caches that hold fixed data (languages, grammars, structs, types,
#: the code's identity, pytest's mark decorators, the HTML templates): never a report's or a target's
STATIC_CACHES = {
    ("text/syntax/languages.py", "_language"),
    ("text/syntax/parsing.py", "_parser"),
    ("text/syntax/definitions.py", "_definition_query"),
    ("text/syntax/lexing.py", "_kinds"),  # each grammar's node kinds as the lexer reads them
    ("gitstore/indexfile.py", "_entry_head"),
    ("resultcache/serialize.py", "kept_types"),
    ("resultcache/serialize.py", "_codec"),
    ("resultcache/serialize.py", "_hints"),
    ("resultcache/identity.py", "code_identity"),
    ("resultcache/__init__.py", "_keyed_fields"),  # each evidence class's keyed field names
    ("integration/items.py", "_mark"),
    ("outputs/kinds.py", "_members"),  # each enum's members by word
    ("outputs/html.py", "_environment"),  # the package's own Jinja templates, loaded once
}

#: constructors of mutable caches that must not be called at a module's top level
_CACHE_TYPES = {"SizedLRU", "WeakKeyDictionary", "WeakValueDictionary", "OrderedDict", "defaultdict", "Counter"}


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def test_no_module_keeps_run_data():
    """What ``grep`` would list, read with ``ast``: no functools cache but those of fixed data,
    and no cache object made at a module's top level (``runcaches.PerRun`` hands each run
    its own)."""
    root = Path(pytest_memreport.__file__).parent
    cached, made = set(), []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if any(_name(d) in ("lru_cache", "cache") for d in node.decorator_list):
                    cached.add((relative, node.name))
        for statement in tree.body:
            if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
                for call in ast.walk(statement.value):
                    if isinstance(call, ast.Call) and _name(call) in ("lru_cache", "cache"):
                        made.append((relative, statement.lineno, "lru_cache"))
                    if isinstance(call, ast.Call) and _name(call) in _CACHE_TYPES and not _inside_lambda(
                            statement.value, call):
                        made.append((relative, statement.lineno, _name(call)))
    assert cached <= STATIC_CACHES, cached - STATIC_CACHES
    assert made == []


def _inside_lambda(root: ast.AST, target: ast.AST) -> bool:
    """Whether ``target`` is made inside a ``lambda`` (a per-run factory), not at import."""
    for node in ast.walk(root):
        if isinstance(node, ast.Lambda) and any(inner is target for inner in ast.walk(node)):
            return True
    return False


def test_a_call_in_a_run_makes_its_caches_current_and_gives_back_the_ones_before():
    """``RunCaches.call`` (what every engine call goes through): the run's caches are current
    inside, another run's call inside it has its own, and whatever was current before is
    current again after it returns or raises."""
    outer, inner = runcaches.RunCaches(), runcaches.RunCaches()
    seen = []

    def deepest():
        seen.append(runcaches.current())
        return "answer"

    def middle():
        seen.append(runcaches.current())
        assert inner.call(deepest) == "answer"
        seen.append(runcaches.current())
        assert outer.call(runcaches.current) is outer  # the same run again, inside itself
        seen.append(runcaches.current())
        raise LookupError("from inside")

    before = runcaches.current()  # (a test may run inside a run of its own)
    assert before is not outer and before is not inner
    with pytest.raises(LookupError, match="from inside"):
        outer.call(middle)
    assert seen == [outer, inner, outer, outer]
    assert runcaches.current() is before
    with inner.active():  # a call of another run inside an active block gives it back too
        assert outer.call(runcaches.current) is outer
        assert runcaches.current() is inner


def _engine_over_a_note(make_repo, tmp_path, key: str) -> Engine:
    """An engine over one note citing a clone by ``key`` (``acme/widgets``, or a short key the
    note's evidence basis names), its reports not yet read."""
    repo = make_repo("widgets")
    pin = repo.commit({"src/app.py": "def start():\n    return 1\n"}, "pin")
    link = f"https://github.com/acme/widgets/blob/{pin}/src/app.py#L1"
    (tmp_path / "note.md").write_text(
        f"# A note\n\n**Evidence basis:** the `{key}` checkout at commit "
        f"[{pin[:8]}](https://github.com/acme/widgets/commit/{pin}).\n\n"
        f'The app says "def start():" ([src/app.py]({link})).\n', encoding="utf-8")
    return Engine(RunOptions(repos={key: str(repo.path)}, against="none", rootdir=tmp_path), [tmp_path / "note.md"])


def _links_read_in_the_run(engine: Engine):
    """The run's cache of link readings: both of the note's links, one read again from it."""
    from pytest_memreport.dialects.core.links import parse_repository_link

    cached = engine.caches.part(parse_repository_link, lambda: pytest.fail("no link was read in the run"))
    assert cached.cache_info().currsize >= 2  # the commit link and the blob link
    assert cached.cache_info().hits >= 1  # read again by a later pass, from the run's cache


def test_reports_first_read_at_session_start_are_parsed_with_the_runs_caches(make_repo, tmp_path):
    """With clones mapped by name, the session asks for every repository the reports name
    before anything else (its check of unused mappings): that first read parses every
    report, and it must run with the run's caches current, as every later read does (a
    note's links are read by several of its passes; uncached, each read parsed them again)."""
    engine = _engine_over_a_note(make_repo, tmp_path, "acme/widgets")
    try:
        assert "acme/widgets" in engine.all_repositories_named()
        _links_read_in_the_run(engine)
    finally:
        engine.close()


def test_reports_first_read_for_unused_keys_are_parsed_with_the_runs_caches(make_repo, tmp_path):
    """A clone mapped by a short key (``--memreport-repo=widgets=PATH``): the session's first
    read is its check that every key is used, which read every report with no run current,
    so a note's links were read anew by each of its passes."""
    engine = _engine_over_a_note(make_repo, tmp_path, "widgets")
    try:
        assert engine.unknown_keys() == []
        _links_read_in_the_run(engine)
    finally:
        engine.close()
