"""A check's payload holds its line ranges in tuples, written as JSON arrays.

A run keeps every check's payload until its outputs are written (10,000 of them for a
knowledge base of 10,000 quotations), and each full garbage collection of the host walks
every container the run keeps. A tuple of ints, and a dict holding only such values, the
collector stops tracking; a list it walks every time. The JSON text stays the same.
"""

from __future__ import annotations

import gc
import json

import pytest

from pytest_memreport.checks.drift.results import DriftResult
from pytest_memreport.checks.verify import FOUND, PinResult
from pytest_memreport.model import LineRange
from pytest_memreport.outputs import jsontext


def _untracked_once_collected(value) -> bool:
    # A new tuple or dict is tracked until a collection finds it holds no tracked value
    # (a tuple of tuples: one collection per level).
    for _ in range(3):
        gc.collect()
    return not gc.is_tracked(value)


def test_a_found_quotations_pin_payload_is_left_to_the_garbage_collector_once_seen():
    found = PinResult(FOUND, "a" * 40, "pkg/a.py", lines=LineRange(3, 4), in_cited_range=True,
                      occurrences=(LineRange(3, 4), LineRange(9, 10)))
    payload = found.as_json()
    assert payload["lines"] == (3, 4) and payload["occurrences"] == ((3, 4), (9, 10))
    assert _untracked_once_collected(payload)


def test_a_moved_quotations_drift_payload_holds_its_ranges_in_tuples():
    moved = DriftResult("moved", "b" * 40, "pkg/b.py", LineRange(8, 9), LineRange(3, 4))
    payload = moved.as_json()
    assert payload["lines"] == (8, 9) and payload["old_lines"] == (3, 4)
    assert _untracked_once_collected(payload["lines"]) and _untracked_once_collected(payload["old_lines"])


@pytest.mark.parametrize("compact_at", [0, 2, 4, 5, 6])
def test_tuples_and_lists_are_the_same_json_text(compact_at):
    """The results file indents its outer levels: a tuple is indented as a list is."""
    with_tuples = {"evidence": [{"at_pin": {"lines": (3, 4), "occurrences": ((3, 4), (9, 10))}}]}
    with_lists = json.loads(json.dumps(with_tuples))
    assert jsontext.dumps(with_tuples, compact_at) == jsontext.dumps(with_lists, compact_at)
