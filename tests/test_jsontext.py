"""The JSON writer: indented outer levels, one line below, and the same data either way."""

import json

from hypothesis import given, strategies as st

from pytest_memreport.outputs import jsontext

scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=30)


@given(values, st.integers(min_value=0, max_value=6), st.booleans(), st.sampled_from([frozenset(), frozenset({"", "a"})]))
def test_the_text_reads_back_as_the_data(data, depth, ascii_only, lines_of):
    text = jsontext.dumps(data, compact_at=depth, ensure_ascii=ascii_only, lines_of=lines_of)
    assert json.loads(text) == data
    if ascii_only:
        assert text.isascii()


def test_containers_below_the_depth_take_one_line_each():
    data = {"reports": [{"path": "a.md", "evidence": [{"line": 3, "lines": [1, 2]}, {"line": 9, "lines": []}]}]}
    lines = jsontext.dumps(data, compact_at=4).splitlines()
    assert '        {"line": 3, "lines": [1, 2]},' in lines
    assert '        {"line": 9, "lines": []}' in lines
    assert lines[0] == "{" and lines[-1] == "}"


def test_a_list_under_a_named_key_takes_a_line_per_item_at_any_depth():
    # a report's evidence beside its records (depth 4) as in a record (depth 6): a line each
    data = {"reports": [{"path": "a.md", "evidence": [{"line": 3, "at_pin": {"status": "found"}}],
                         "records": [{"id": "R-1", "evidence": [{"line": 9, "lines": [9, 9]}]}]}]}
    lines = jsontext.dumps(data, compact_at=6, lines_of=frozenset({"evidence"})).splitlines()
    assert '        {"line": 3, "at_pin": {"status": "found"}}' in lines
    assert '            {"line": 9, "lines": [9, 9]}' in lines
    assert '      "path": "a.md",' in lines  # the rest indented as before
