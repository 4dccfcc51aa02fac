"""The token diff of two definitions stays bounded on huge ones and stays a correct diff."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_memreport.text.syntax import tokendiff
from pytest_memreport.text.syntax.definitions import Definition


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


def _huge_class(methods: int, edit: dict[int, str] | None = None) -> str:
    lines = ["class Machine:"]
    for m in range(methods):
        body = (edit or {}).get(m, f"        return self.states[{m}]")
        lines += [f"    def on_{m}(self, event):", body, ""]
    return "\n".join(lines) + "\n"


def _whole(text: str) -> Definition:
    from pytest_memreport.text import symbols

    return symbols.find_definitions(text, "m.py", "Machine")[0]


def test_a_huge_definition_is_lexed_only_where_its_lines_changed(monkeypatch):
    """A class of 3,000 lines changed in one method: the difference names that method's
    line and token, and what is lexed is that region, not the class."""
    old_text = _huge_class(1000)
    new_text = _huge_class(1000, {500: "        return self.states[500] + 1"})
    reformatted = _huge_class(1000, {500: "        return  self.states[ 500 ]  # layout and a comment"})
    old_def, new_def, same_def = _whole(old_text), _whole(new_text), _whole(reformatted)
    lexed: list[int] = []
    real = tokendiff.tokens

    def counting(text, path, key=None, span=None):
        lexed.append(text.count("\n") + 1 if span is None else text[span[0]:span[1]].count("\n") + 1)
        return real(text, path, key=key, span=span)

    monkeypatch.setattr(tokendiff, "tokens", counting)
    diff = tokendiff.body_token_diff(old_text, new_text, "m.py", old_def, new_def)
    assert diff is not None and diff.startswith("L1503→L1503:") and "[ 500 ] {++ 1+}" in diff
    assert tokendiff.same_tokens(old_text, reformatted, "m.py", old_def, same_def)
    assert not tokendiff.same_tokens(old_text, new_text, "m.py", old_def, new_def)
    assert lexed and max(lexed) <= 5  # the changed line and a line of context either side


def test_trailing_commas_are_seen_across_a_region_s_edge():
    """A formatter's trailing comma, before a closer on the next (unchanged) line, is
    counted by the diff and left out when asked, in a huge definition too."""
    wrap = "        return call(\n            self.states[7]\n        )"
    comma = "        return call(\n            self.states[7],\n        )"
    old_text, new_text = _huge_class(600, {7: wrap}), _huge_class(600, {7: comma})
    old_def, new_def = _whole(old_text), _whole(new_text)
    assert old_def.lines.end - old_def.lines.start > tokendiff.WHOLE_LINES
    assert not tokendiff.same_tokens(old_text, new_text, "m.py", old_def, new_def)
    assert tokendiff.same_tokens(old_text, new_text, "m.py", old_def, new_def, count_trailing_commas=False)
    assert "{+,+}" in tokendiff.body_token_diff(old_text, new_text, "m.py", old_def, new_def)


def test_a_definition_renamed_to_another_language_is_lexed_by_each_grammar():
    """A JavaScript file renamed to TypeScript: the same function is the same code (each
    side lexed by its own grammar, a formatter's trailing comma aside), a changed one is not."""
    from pytest_memreport.text import symbols

    old_text = "function total(items) {\n  return sum(items, 0)\n}\n"
    same_text = "function total(items) {\n  // now typed elsewhere\n  return sum(\n    items,\n    0,\n  )\n}\n"
    changed_text = "function total(items) {\n  return sum(items, 1)\n}\n"
    old_def = symbols.find_definitions(old_text, "lib/total.js", "total")[0]
    same_def = symbols.find_definitions(same_text, "lib/total.ts", "total")[0]
    changed_def = symbols.find_definitions(changed_text, "lib/total.ts", "total")[0]
    assert tokendiff.same_tokens(old_text, same_text, "lib/total.ts", old_def, same_def,
                                 count_trailing_commas=False, old_path="lib/total.js")
    assert not tokendiff.same_tokens(old_text, same_text, "lib/total.ts", old_def, same_def,
                                     old_path="lib/total.js")  # the comma counts when asked to
    assert not tokendiff.same_tokens(old_text, changed_text, "lib/total.ts", old_def, changed_def,
                                     count_trailing_commas=False, old_path="lib/total.js")
