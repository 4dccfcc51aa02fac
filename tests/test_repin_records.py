"""Re-pinning record reports and plain-text reviews across renames, shifts and a
misplaced quotation, with the claims file moving in the same step.

Every fixture is a real repository: ``pkg/`` moves under ``src/`` after the pin,
and lines are inserted above the quoted code. After the re-pin a run at the new
pin has no failures, and ``--memreport-write`` (re-pin or not) has nothing left
to write.
"""

from __future__ import annotations

import textwrap

import pytest

from conftest import summary_outcomes

STORE_PY = textwrap.dedent(
    '''\
    MAX_ENTRIES = 8_000


    def forget(entries, entry_id):
        return [e for e in entries if e["id"] != entry_id]


    def keep(entries):
        return entries[-MAX_ENTRIES:]
    '''
)
CACHE_PY = "def warm(cache):\n    cache.fill()\n    return cache\n"
HEADER = '"""Entries kept by the store."""\n\nimport logging\n\n'


@pytest.fixture
def moved(make_repo):
    repo = make_repo("target")
    pin = repo.commit({"pkg/store.py": STORE_PY, "pkg/cache.py": CACHE_PY, "README.md": "# t\n"}, "first")
    repo.move("pkg/store.py", "src/pkg/store.py")
    repo.move("pkg/cache.py", "src/pkg/cache.py")
    repo.commit(message="move under src")
    head = repo.commit({"src/pkg/store.py": HEADER + STORE_PY}, "document")
    return repo, pin, head


def records_text(pin: str) -> str:
    return textwrap.dedent(
        f"""\
        Store memory report

        Boundary and evidence

        SRC-1 commit {pin[:10]} is the boundary; git rev-parse HEAD matched {pin}.

        Routes

        MEM-RTE-forget

        Label: Forget

        Forgetting drops the exact ID. SRC-1: pkg/store.py, pkg/cache.py.

        return [e for e in entries if e["id"] != entry_id] --- pkg/store.py:5

        return entries[-MAX_ENTRIES:] --- pkg/store.py:1-2

        cache.fill() --- pkg/cache.py:2
          • implementation conclusion status: afforded
          • operation conclusion status: uninspected
        """
    )


CLAIMS = textwrap.dedent(
    """\
    schema: memreport-claims/1
    records:
      MEM-RTE-forget:
        predicates:
          - contains: {path: pkg/store.py, text: "def forget(entries, entry_id):"}
          - absent:
              glob: ["pkg/**", "docs/*.md"]
              regex: "compare_and_swap"
    """
)


def run(pytester, report, repo, *args):
    return pytester.runpytest("-rA", "-p", "no:cacheprovider", "--memreport", str(report),
                              f"--memreport-repo={repo.path}", *args)


def failures(result) -> list[str]:
    return list(summary_outcomes(result, ("FAILED", "ERROR")))


def repin_then_check(pytester, report, repo):
    result = run(pytester, report, repo, "--memreport-write", "--memreport-repin=HEAD")
    assert result.ret == 0, result.stdout.str()
    written = report.read_bytes()
    again = run(pytester, report, repo)
    assert again.ret == 0 and failures(again) == [], again.stdout.str()
    for args in ((), ("--memreport-repin=HEAD",)):
        nothing = run(pytester, report, repo, "--memreport-write", *args)
        assert nothing.ret == 0 and "nothing to write" in nothing.stdout.str(), nothing.stdout.str()
        assert report.read_bytes() == written
    return result, written


def test_a_record_report_is_repinned_across_renames_shifts_and_a_misplaced_quote(pytester, moved):
    repo, pin, head = moved
    report = pytester.path / "store.txt"
    report.write_text(records_text(pin), encoding="utf-8")
    result, written = repin_then_check(pytester, report, repo)
    assert written.decode() == (
        records_text(pin)
        .replace(f"SRC-1 commit {pin[:10]}", f"SRC-1 commit {head[:10]}")
        .replace(f"matched {pin}", f"matched {head}")
        .replace("SRC-1: pkg/store.py, pkg/cache.py.", "SRC-1: src/pkg/store.py, src/pkg/cache.py.")
        .replace("--- pkg/store.py:5", "--- src/pkg/store.py:9")
        # found at line 9 at the pin, not 1-2: corrected, then shifted by the header
        .replace("--- pkg/store.py:1-2", "--- src/pkg/store.py:13")
        .replace("--- pkg/cache.py:2", "--- src/pkg/cache.py:2")
    )
    out = result.stdout.str()
    assert "store.txt:17: pkg/store.py:1-2 -> src/pkg/store.py:13 (range corrected: the quotation is at " \
           "line 9 at the pin)" in out


def test_the_claims_file_moves_with_the_report(moved, tmp_path):
    """Predicate paths, a glob over a moved folder and the claims file's own pin, from
    git's rename map between the two commits; a glob over a folder that stayed is kept."""
    from pytest_memreport.dialects.claims import load_claims
    from pytest_memreport.gitstore import GitStore
    from pytest_memreport.outputs.lineindex import LineIndex, resolve_overlaps
    from pytest_memreport.outputs.repin import PinnedSource, RepinTarget, claims_changes
    from pytest_memreport.outputs.writeback import edited

    repo, pin, head = moved
    text = CLAIMS.replace("schema: memreport-claims/1\n",
                          f"schema: memreport-claims/1\nsources:\n  SRC-1: {{pin: {pin[:9]}}}\n")
    path = tmp_path / "store.claims.yaml"
    path.write_text(text, encoding="utf-8")
    loaded = load_claims(path)
    predicates = [p for claims in loaded.records.values() for p in claims.predicates]
    store = GitStore.open(repo.path)
    try:
        renames = store.renames(pin, head)
    finally:
        store.close()
    target = RepinTarget(head, (PinnedSource("SRC-1", pin),), renames)
    index = LineIndex(path.read_bytes())
    changes, messages = claims_changes(index, predicates, renames, target, loaded.sources)
    kept, dropped = resolve_overlaps(changes)
    assert dropped == []
    new = edited(path.read_bytes(), [index.edit(c) for c in kept]).decode()
    assert new == text.replace("{path: pkg/store.py,", "{path: src/pkg/store.py,").replace(
        '["pkg/**"', '["src/pkg/**"').replace(f"{{pin: {pin[:9]}}}", f"{{pin: {head[:9]}}}")
    assert '"docs/*.md"' in new
    assert f"{path}:7: pkg/store.py -> src/pkg/store.py" in messages


def test_a_wrong_range_is_corrected_without_a_repin(pytester, make_repo):
    repo = make_repo("target")
    pin = repo.commit({"pkg/store.py": STORE_PY, "pkg/cache.py": CACHE_PY}, "first")
    report = pytester.path / "store.txt"
    report.write_text(records_text(pin), encoding="utf-8")
    result = run(pytester, report, repo, "--memreport-write")
    assert result.ret == 0, result.stdout.str()
    assert report.read_text(encoding="utf-8") == records_text(pin).replace(
        "--- pkg/store.py:1-2", "--- pkg/store.py:9")
    assert "range corrected: the quotation is at line 9 at the pin" in result.stdout.str()
    nothing = run(pytester, report, repo, "--memreport-write")
    assert "nothing to write" in nothing.stdout.str()


def test_a_quote_found_twice_keeps_its_range(pytester, make_repo):
    repo = make_repo("target")
    pin = repo.commit({"pkg/store.py": STORE_PY + "\n\ndef keep_all(entries):\n    return entries[-MAX_ENTRIES:]\n"},
                      "first")
    text = records_text(pin).replace("\ncache.fill() --- pkg/cache.py:2\n", "\n").replace(
        "SRC-1: pkg/store.py, pkg/cache.py.", "SRC-1: pkg/store.py.")
    report = pytester.path / "store.txt"
    report.write_text(text, encoding="utf-8")
    result = run(pytester, report, repo, "--memreport-write")
    assert "range corrected" not in result.stdout.str()
    assert report.read_text(encoding="utf-8") == text


PLAIN_REVIEW = """\
Store review
Repository: https://github.com/acme/store
Reviewed commit: {pin}

The store forgets by exact ID (pkg/store.py, pkg/cache.py).

return [e for e in entries if e["id"] != entry_id] --- pkg/store.py

The cache is warmed once; see https://github.com/acme/store/blob/{pin}/pkg/cache.py#L1-L3 for the whole of it.

cache.fill() --- pkg/cache.py
"""


@pytest.mark.parametrize("eol,bom,final", [("\n", "", True), ("\r\n", "\ufeff", False)])
def test_a_plain_text_review_is_repinned_byte_exactly(pytester, moved, eol, bom, final):
    repo, pin, head = moved
    text = PLAIN_REVIEW.format(pin=pin)
    if not final:
        text = text.rstrip("\n")
    report = pytester.path / "store-review.txt"
    report.write_bytes((bom + text.replace("\n", eol)).encode("utf-8"))
    _, written = repin_then_check_review(pytester, report, repo)
    expected = (
        text.replace(pin, head)
        .replace("(pkg/store.py, pkg/cache.py)", "(src/pkg/store.py, src/pkg/cache.py)")
        .replace("--- pkg/store.py", "--- src/pkg/store.py")
        .replace("--- pkg/cache.py", "--- src/pkg/cache.py")
        .replace(f"/blob/{head}/pkg/cache.py", f"/blob/{head}/src/pkg/cache.py")
    )
    assert written == (bom + expected.replace("\n", eol)).encode("utf-8")


def repin_then_check_review(pytester, report, repo):
    def review_run(*args):
        return pytester.runpytest("-rA", "-p", "no:cacheprovider", "--memreport", str(report),
                                  f"--memreport-repo=acme/store={repo.path}", "--memreport-dialect=review", *args)

    result = review_run("--memreport-write", "--memreport-repin=HEAD")
    assert result.ret == 0, result.stdout.str()
    written = report.read_bytes()
    again = review_run()
    assert again.ret == 0 and failures(again) == [], again.stdout.str()
    nothing = review_run("--memreport-write", "--memreport-repin=HEAD")
    assert "nothing to write" in nothing.stdout.str() and report.read_bytes() == written
    return result, written


def test_a_record_report_and_its_claims_file_are_repinned_in_one_step(pytester, moved):
    """Predicates over renamed files hold at the new pin by following the renames; the
    re-pin writes their new paths, so the next run needs no following."""
    repo, pin, head = moved
    report = pytester.path / "store.txt"
    report.write_text(records_text(pin), encoding="utf-8")
    claims = pytester.path / "store.claims.yaml"
    claims.write_text(CLAIMS, encoding="utf-8")
    result, written = repin_then_check(pytester, report, repo)
    assert f"SRC-1 commit {head[:10]}" in written.decode() and "--- src/pkg/store.py:9" in written.decode()
    assert claims.read_text(encoding="utf-8") == CLAIMS.replace(
        "{path: pkg/store.py,", "{path: src/pkg/store.py,").replace('["pkg/**"', '["src/pkg/**"')
    assert "wrote store.claims.yaml:5: pkg/store.py -> src/pkg/store.py" in result.stdout.str()
