"""The typed words of the results model (outputs/kinds.py) are the JSON's words: every
status and state docs/JSON.md documents is a member, and a member serialises as its word."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pytest_memreport.outputs.kinds import CheckOutcome, CheckType, Drift, PinStatus, ReportState, check_type

JSON_DOC = (Path(__file__).resolve().parent.parent / "docs" / "JSON.md").read_text(encoding="utf-8")


def documented(opening: str) -> set[str]:
    """The ``a|b|c`` words documented right after ``opening``."""
    return set(re.search(re.escape(opening) + r'"([a-z|-]+)"', JSON_DOC).group(1).split("|"))


def test_every_documented_word_is_a_member():
    assert documented('"at_against": {"rev": "<sha>", "status": ') <= {m.value for m in Drift}
    assert documented('"at_pin": {"status": ') <= {m.value for m in PinStatus}
    assert documented('"state": ') == {m.value for m in ReportState}


def test_members_serialise_as_their_words_and_payloads_read_once():
    payload = {"type": "drift", "at_pin": {"status": "found"}, "at_against": {"status": "moved"}}
    check = CheckOutcome.of(payload)
    assert check == CheckOutcome(CheckType.DRIFT, PinStatus.FOUND, Drift.MOVED)
    assert check.at_against is Drift.MOVED  # a member, compared by identity
    assert json.dumps({"status": check.at_against, check.type: 1}) == '{"status": "moved", "drift": 1}'
    # a word this version does not know stays a plain string; an unknown type is OTHER
    assert CheckOutcome.of({"type": "future", "at_against": {"status": "teleported"}}).at_against == "teleported"
    assert check_type({"type": "future"}) is CheckType.OTHER
