"""``--memreport-affected BASE..HEAD``: from the target's side, which claims a change touches.

A real target repository, a knowledge base pinned before the range's base, and four
ranges branching from the base, each run through pytest as a target's CI runs it:
an edit of a quoted line, a function moved to another file, a folder in a predicate's
scope renamed, and a change of nothing cited.
"""

from __future__ import annotations

import json
import textwrap

import pytest

from conftest import summary_outcomes

STORE_PY = textwrap.dedent(
    '''\
    MAX_ENTRIES = 8_000


    def forget(entries, entry_id):
        return [e for e in entries if e["id"] != entry_id]


    def keep(entries):
        return list(entries)
    '''
)
CACHE_PY = "def lookup(table, key):\n    return table.get(key)\n"
README = "# store\n"


def report_text(pin: str) -> str:
    return textwrap.dedent(
        f"""\
        Store memory report

        Boundary and evidence

        SRC-1 commit {pin} is the boundary.

        Routes

        MEM-RTE-forget

        Label: Forget

        Forgetting drops the exact ID. SRC-1: store.py.

        return [e for e in entries if e["id"] != entry_id] --- store.py

          • implementation conclusion status: afforded

        MEM-RTE-keep

        Label: Keep

        Keeping copies the entries. SRC-1: store.py.

        return list(entries) --- store.py

          • implementation conclusion status: afforded

        Evidenced absences

        MEM-ABS-no-cas

        Label: No compare-and-swap

        The cache has no compare-and-swap. SRC-1: legacy/cache.py.

        return table.get(key) --- legacy/cache.py
        """
    )


CLAIMS = textwrap.dedent(
    """\
    schema: memreport-claims/1
    records:
      MEM-RTE-forget:
        predicates:
          - contains: {path: store.py, text: "e[\\"id\\"] != entry_id"}
      MEM-ABS-no-cas:
        predicates:
          - absent: {glob: "legacy/**", regex: "compare_and_swap"}
    """
)


@pytest.fixture
def target(pytester, make_repo):
    """The target with a knowledge base pinned one commit before the ranges' base."""
    repo = make_repo("target")
    pin = repo.commit({"store.py": STORE_PY, "legacy/cache.py": CACHE_PY, "README.md": README}, "store")
    base = repo.commit({"store.py": "# the store\n" + STORE_PY}, "document the store")
    kb = pytester.path / "kb"
    kb.mkdir()
    (kb / "store.md").write_text(report_text(pin), encoding="utf-8")
    (kb / "store.claims.yaml").write_text(CLAIMS, encoding="utf-8")
    return repo, pin, base


def run(pytester, repo, base, *extra):
    json_path = pytester.path / "affected.json"
    result = pytester.runpytest("--memreport", "kb", f"--memreport-repo={repo.path}",
                                f"--memreport-affected={base}..HEAD", f"--memreport-json={json_path}",
                                "-rA", *extra)
    data = json.loads(json_path.read_text(encoding="utf-8")) if json_path.exists() else None
    return result, data


def test_probe(pytester, target):
    repo, pin, base = target
    repo.commit({"store.py": "# the store\n" + STORE_PY.replace('e["id"]', 'e["key"]')}, "key by key")
    result, data = run(pytester, repo, base, "-v")
    print(result.stdout.str())
    print(json.dumps(data, indent=1)[:6000])
    assert 0
