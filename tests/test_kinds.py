"""The typed words of the results model (outputs/kinds.py) are the JSON's words: every
status and state docs/JSON.md documents is a member, and a member serialises as its word."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_memreport.model import Evidence, EvidenceKind, EvidenceRole, LineRange, text_digest
from pytest_memreport.outputs.kinds import (CheckOutcome, CheckType, Drift, Outcome, PinStatus, ReportState, check_type,
                                            member, outcome_of)

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


@given(word=st.one_of(st.text(max_size=12), st.sampled_from([m.value for m in (*Drift, *PinStatus, *Outcome)]),
                      st.integers(), st.none(), st.lists(st.integers(), max_size=2)))
def test_a_word_read_by_the_members_table_is_what_the_enum_itself_reads(word):
    """``member`` and ``outcome_of`` look words up in a table of each enum's members; the
    answer is the enum's own call's (a member; else the word as a string, or the error)."""
    for kind in (Drift, PinStatus, Outcome, CheckType):
        try:
            expected = kind(word)
        except (ValueError, TypeError):
            expected = None if word is None else str(word)
        assert member(kind, word) == expected
        assert type(member(kind, word)) is type(expected)
    try:
        expected_outcome = Outcome(word)
    except (ValueError, TypeError):
        with pytest.raises(ValueError):
            outcome_of(word)
    else:
        assert outcome_of(word) is expected_outcome
    known = isinstance(word, str) and word in {m.value for m in CheckType}
    assert check_type({"type": word}) is (CheckType(word) if known else CheckType.OTHER)


@given(text=st.one_of(st.none(), st.text(max_size=20)), kind=st.sampled_from(list(EvidenceKind)),
       line=st.integers(1, 500), role=st.sampled_from([None, EvidenceRole.BASENAME, EvidenceRole.PROSE]))
def test_an_evidence_named_at_once_is_named_as_its_key_and_identity_name_it(text, kind, line, role):
    """``Evidence.names`` (one digest for all three) agrees with ``key``, ``identity`` and
    ``text_digest`` read one by one."""
    evidence = Evidence(kind=kind, path="src/a.py", text=text, line=line, end_line=line, role=role,
                        cited_lines=LineRange(3, 4) if line % 2 else None, source="SRC-1", pin="abc1234")
    assert evidence.names() == (evidence.key, evidence.identity, text_digest(text))
