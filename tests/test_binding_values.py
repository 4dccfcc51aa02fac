"""A run's per-evidence work makes no value it could make once.

A run of 10,000 quotations asks its binding for the pinned tree (the repository and the
resolved pin) several times per piece of evidence: a new value each time was 30,000
objects for the allocator and the host's garbage collector, which the plugin may not tune.
"""

from __future__ import annotations

from pytest_memreport.engine.bindings import Binding
from pytest_memreport.gitstore import GitStore


def test_a_bindings_pinned_tree_is_made_once(make_repo):
    """Every piece of evidence of a source asks its binding for the pinned tree: the same
    value each time, not a new one per piece of evidence."""
    repo = make_repo("target")
    pin = repo.commit({"a.py": "x = 1\n"}, "initial")
    with GitStore.open(repo.path) as store:
        binding = Binding("SRC-1", store, pin, "ok")
        first = binding.pinned
        assert first is not None and first.key == (store.path, pin)
        assert all(binding.pinned is first for _ in range(100))
        assert Binding("SRC-1", None, None, "no-repo").pinned is None
        assert Binding("SRC-1", store, None, "unpinned").pinned is None
