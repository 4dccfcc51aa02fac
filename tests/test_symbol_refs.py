"""Backticked symbol references in a Markdown record, checked at the pin and followed since."""

from __future__ import annotations

import json
import textwrap

STORE_PY = textwrap.dedent(
    '''\
    class Store:
        def forget(self, entry_id):
            self.entries = [e for e in self.entries if e.id != entry_id]
            return len(self.entries)


    def compact(entries):
        return sorted(entries)[-200:]
    '''
)


def report(pin: str) -> str:
    return textwrap.dedent(
        f"""\
        # Store report

        ## Boundary and evidence

        The store at SRC-1 commit {pin}.

        ## Claims

        MEM-CLM-forget

        Label: Forget

        Forgetting goes through `Store.forget`, and `compact` trims the list; `entry_id` is a
        parameter, not a definition. SRC-1: store.py.
        """
    )


def run(pytester, repo, pin, *args):
    path = pytester.path / "store.md"
    path.write_text(report(pin), encoding="utf-8")
    out = pytester.path / "out.json"
    result = pytester.runpytest("--memreport", str(path), f"--memreport-repo={repo.path}", "-v",
                                "--memreport-json", str(out), *args)
    return result, json.loads(out.read_text())


def symbols_of(data):
    (record,) = [r for r in data["reports"][0]["records"] if r["id"] == "MEM-CLM-forget"]
    return {e["text"]: e for e in record["evidence"] if e["kind"] == "symbol"}


def test_definitions_are_checked_and_other_identifiers_are_not(pytester, make_repo):
    repo = make_repo()
    pin = repo.commit({"store.py": STORE_PY}, "store")
    result, data = run(pytester, repo, pin)
    # Which backticked name is a definition is known only when its item runs (collection
    # reads nothing): one item checks a record's names, each that names a definition a check
    # of its own in the JSON, each that names none (``entry_id``) left out, not two skipped items.
    result.stdout.fnmatch_lines(["*MEM-CLM-forget::symbols PASSED*", "*MEM-CLM-forget::symbols::drift PASSED*"])
    assert "entry_id" not in result.stdout.str()
    result.assert_outcomes(passed=6)
    found = symbols_of(data)
    assert set(found) == {"Store.forget", "compact"}
    assert found["Store.forget"]["at_pin"]["symbol"] == {"kind": "method", "name": "Store.forget", "lines": [2, 4]}
    assert found["compact"]["at_against"]["status"] == "unchanged"


def test_renamed_moved_and_deleted(pytester, make_repo):
    repo = make_repo()
    pin = repo.commit({"store.py": STORE_PY}, "store")
    renamed = STORE_PY.replace("def compact(", "def trim(").replace(
        "        return len(self.entries)\n", "")
    repo.commit({"store.py": renamed}, "rename compact, drop forget's return")
    repo.move("store.py", "pkg/store.py")
    repo.commit(message="move")
    result, data = run(pytester, repo, pin)
    found = symbols_of(data)
    assert found["compact"]["at_against"]["status"] == "renamed"
    assert found["compact"]["at_against"]["symbol"]["name"] == "trim"
    assert found["compact"]["at_against"]["path"] == "pkg/store.py"
    forget = found["Store.forget"]["at_against"]
    assert forget["status"] == "moved" and forget["path"] == "pkg/store.py"
    assert forget["enclosing_changed"] is True
    result.assert_outcomes(passed=6, warnings=1)


def test_deleted_definition_fails(pytester, make_repo):
    repo = make_repo()
    pin = repo.commit({"store.py": STORE_PY}, "store")
    repo.commit({"store.py": STORE_PY.split("\n\n\ndef compact")[0] + "\n"}, "drop compact")
    result, _ = run(pytester, repo, pin)
    result.assert_outcomes(passed=5, failed=1)
    result.stdout.fnmatch_lines(["*MEM-CLM-forget::symbols PASSED*", "*MEM-CLM-forget::symbols::drift FAILED*"])
    assert "symbol compact in store.py deleted" in result.stdout.str()


def test_the_files_a_reference_may_be_defined_in_are_read_in_one_batch(make_repo, tmp_path, monkeypatch):
    """Resolving a symbol reference reads the files its record cites until one defines it;
    read one at a time, each read waited for git's answer (2,000 of them for 200 references
    on typeshed). They are read in one pipelined ``cat-file`` run before any is resolved:
    resolving then reads none of them one by one."""
    from pytest_memreport.engine import Engine, RunOptions
    from pytest_memreport.gitstore.catfile import BlobReader

    repo = make_repo()
    helpers = {f"pkg/helper_{n}.py": f"def helper_{n}(value):\n    return value + {n}\n" for n in range(5)}
    pin = repo.commit({**helpers, "pkg/store.py": STORE_PY}, "store and helpers")
    cited = ", ".join([*helpers, "pkg/store.py"])
    path = tmp_path / "store.md"
    path.write_text(report(pin).replace("SRC-1: store.py.", f"SRC-1: {cited}."), encoding="utf-8")
    one_by_one: list[str] = []
    read_blob = BlobReader.read_blob

    def counted(self, name, oid, size):
        if self.blobs.get(oid) is None:  # not read ahead: asked of git alone
            one_by_one.append(name)
        return read_blob(self, name, oid, size)

    monkeypatch.setattr(BlobReader, "read_blob", counted)
    engine = Engine(RunOptions(repos={None: str(repo.path)}, against="none", rootdir=tmp_path, want_symbols=False),
                    [path])
    try:
        parsed = engine.report(path)
        evidence = list(parsed.all_evidence())
        engine.check_planned([(parsed, e) for e in evidence])
        resolved = {e.text: engine.prepared(parsed, e) for e in evidence if e.kind.value == "symbol"}
    finally:
        engine.close()
    assert resolved["Store.forget"] is not None and resolved["Store.forget"].path == "pkg/store.py"
    assert resolved["compact"] is not None and resolved["entry_id"] is None
    assert one_by_one == []


def test_a_record_whose_names_define_nothing_is_one_skipped_item(pytester, make_repo):
    """Names beside a citation that define nothing there (a parameter, a value) are no
    evidence: one item of the record says so, not two skipped items per name."""
    repo = make_repo()
    pin = repo.commit({"store.py": STORE_PY}, "store")
    path = pytester.path / "store.md"
    path.write_text(report(pin).replace("`Store.forget`", "`entries`").replace("`compact`", "`e.id`"),
                    encoding="utf-8")
    result = pytester.runpytest("--memreport", str(path), f"--memreport-repo={repo.path}", "-v", "-rs")
    result.stdout.fnmatch_lines(["*MEM-CLM-forget::symbols SKIPPED*", "*MEM-CLM-forget::symbols::drift SKIPPED*",
                                 "*none of 3 names (`entries`, `e.id`, `entry_id`) names a definition in the files*"])
    result.assert_outcomes(passed=4, skipped=2)


def test_the_drift_marker_selects_the_names_checks_since_the_pin(pytester, make_repo):
    """A record's names are two items, as a piece of evidence's checks are: ``-m
    memreport_drift`` runs what became of them (it once left their one item out, so a
    deleted definition passed unseen), ``-m "not memreport_drift"`` their checks at the pin."""
    repo = make_repo()
    pin = repo.commit({"store.py": STORE_PY}, "store")
    repo.commit({"store.py": STORE_PY.split("\n\n\ndef compact")[0] + "\n"}, "drop compact")
    result, data = run(pytester, repo, pin, "-m", "memreport_drift")
    result.stdout.fnmatch_lines(["*MEM-CLM-forget::symbols::drift FAILED*"])
    assert "::symbols PASSED" not in result.stdout.str()
    result.assert_outcomes(passed=1, failed=1)  # the path's drift item and the names'
    found = symbols_of(data)
    assert found["compact"]["at_against"]["status"] == "deleted"
    assert found["Store.forget"]["at_against"]["status"] == "unchanged"

    result, data = run(pytester, repo, pin, "-m", "not memreport_drift")
    result.stdout.fnmatch_lines(["*MEM-CLM-forget::symbols PASSED*"])
    assert "::drift" not in result.stdout.str()
    result.assert_outcomes(passed=4)
    assert symbols_of(data)["compact"]["at_pin"]["status"] == "found"
