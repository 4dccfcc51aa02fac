"""The token diff of two definitions stays bounded on huge ones and stays a correct diff."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_memreport.text.syntax import tokendiff


def _applied(old: list[str], new: list[str], ops) -> list[str]:
    """``old`` turned into ``new`` by the opcodes, checking every equal stretch is equal."""
    out: list[str] = []
    i = j = 0
    for tag, i1, i2, j1, j2 in ops:
        assert (i1, j1) == (i, j), "opcodes must cover both sides in order"
        if tag == "equal":
            assert old[i1:i2] == new[j1:j2]
        out.extend(new[j1:j2])
        i, j = i2, j2
    assert (i, j) == (len(old), len(new))
    return out


_TOKENS = st.lists(st.sampled_from(["a", "b", "c", "(", ")", "x1", "x2", "=", ","]), max_size=60)


@settings(max_examples=200, deadline=None)
@given(old=_TOKENS, new=_TOKENS, scale=st.integers(1, 60))
def test_opcodes_turn_old_into_new_whatever_the_size(old, new, scale):
    # Scaled up (with unique tokens mixed in), the inputs pass the exact bound and take the anchored path.
    big_old = [f"{t}" if k % 7 else f"u{k}" for k, t in enumerate(old * scale)]
    big_new = [f"{t}" if k % 5 else f"u{k}" for k, t in enumerate(new * scale)]
    for a, b in ((old, new), (big_old, big_new)):
        assert _applied(a, b, tokendiff.token_opcodes(a, b)) == b


def test_small_inputs_get_difflib_s_own_answer():
    old = "def f ( a , b ) : return a + b".split()
    new = "def f ( a , b , c ) : return a + b + c".split()
    expected = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    assert tokendiff.token_opcodes(old, new) == expected


def test_a_huge_definition_is_never_compared_quadratically(monkeypatch):
    """A 10,000-line class (about 100,000 tokens) edited at both ends and in the middle:
    no exact comparison sees more than the stated bound of token pairs, and the diff
    still finds each edit."""
    sizes: list[int] = []
    real = difflib.SequenceMatcher

    class Counting(real):
        def __init__(self, isjunk=None, a=(), b=(), autojunk=True):
            sizes.append(len(a) * len(b))
            super().__init__(isjunk, a, b, autojunk)

    monkeypatch.setattr(tokendiff.difflib, "SequenceMatcher", Counting)
    old = []
    for n in range(10_000):
        old += ["def", f"method_{n}", "(", "self", ")", ":", "return", "self", ".", "value", "+", str(n % 10)]
    new = list(old)
    new[3] = "cls"  # near the head
    new[len(new) // 2] = "changed_name"  # the middle
    new[-2] = "-"  # near the tail
    ops = tokendiff.token_opcodes(old, new)
    assert _applied(old, new, ops) == new
    changes = [op for op in ops if op[0] != "equal"]
    assert [(i1, i2) for _, i1, i2, _, _ in changes] == [(3, 4), (len(old) // 2, len(old) // 2 + 1),
                                                          (len(old) - 2, len(old) - 1)]
    assert sizes and max(sizes) <= tokendiff.EXACT_CELLS
