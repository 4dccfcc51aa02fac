"""The bounded cache blobs, text indexes and syntax trees are kept in (``lru.SizedLRU``):
its answer for the entry asked last (kept apart, without the lock) must stay the cache's."""

from __future__ import annotations

import threading

from hypothesis import given
from hypothesis import strategies as st

from pytest_memreport.lru import SizedLRU

#: one step against the cache: ("put", key, weight) or ("get", key) or ("clear",)
_STEPS = st.lists(st.one_of(
    st.tuples(st.just("put"), st.integers(0, 6), st.integers(1, 5)),
    st.tuples(st.just("get"), st.integers(0, 6)),
    st.tuples(st.just("clear"))), max_size=60)


@given(_STEPS)
def test_the_cache_answers_as_a_plain_lru_model_does(steps):
    """Against a model of the rules (the oldest-used leave first past the weight or the
    count, the newest is always kept): every get answers what the model holds."""
    cache: SizedLRU[str] = SizedLRU(max_weight=8, max_entries=3)
    model: dict[int, tuple[str, int]] = {}  # insertion order is use order
    for number, step in enumerate(steps):
        if step[0] == "put":
            _, key, weight = step
            model.pop(key, None)
            model[key] = (f"v{number}", weight)
            cache.put(key, f"v{number}", weight)
            while len(model) > 1 and (sum(w for _, w in model.values()) > 8 or len(model) > 3):
                del model[next(iter(model))]
        elif step[0] == "get":
            key = step[1]
            expected = model.get(key)
            if expected is not None:
                model[key] = model.pop(key)  # used: the newest
            assert cache.get(key) == (expected[0] if expected else None)
        else:
            model.clear()
            cache.clear()
        assert len(cache) == len(model)


def test_the_entry_asked_last_is_forgotten_when_evicted_or_cleared():
    cache: SizedLRU[str] = SizedLRU(max_weight=10, max_entries=2)
    cache.put("a", "A", 1)
    assert cache.get("a") == "A"
    assert cache.get("a") == "A"  # asked again: the entry kept apart
    cache.put("b", "B", 1)
    cache.put("c", "C", 1)  # "a" is the oldest used: it leaves
    assert cache.get("a") is None
    assert cache.get("c") == "C"
    cache.clear()
    assert cache.get("c") is None  # not answered from the entry asked last
    cache.put("c", "C2", 1)
    assert cache.get("c") == "C2"


def test_threads_each_get_the_value_of_the_key_they_ask():
    """Threads asking for different keys in turn never read another key's value (the entry
    asked last is one tuple, replaced whole)."""
    cache: SizedLRU[int] = SizedLRU(max_weight=1000, max_entries=8)
    for key in range(8):
        cache.put(key, key * 10, 1)
    wrong: list[tuple[int, int | None]] = []

    def ask(key: int) -> None:
        for _ in range(20_000):
            found = cache.get(key)
            if found != key * 10:
                wrong.append((key, found))
                return

    threads = [threading.Thread(target=ask, args=(key,)) for key in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []
