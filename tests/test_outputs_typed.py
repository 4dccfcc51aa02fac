"""The outputs read one typed results model: no output compares a kind, status or verdict
with a string literal, and none parses text the plugin rendered (a headline, a message, a
location, a key) to get back a fact it had as data.

The same searches as a shell command (what the issue's closing note lists)::

    W='<every word of outputs/kinds.py, ChangeKind and the source pin statuses, joined by |>'
    grep -rnE "(==|!=)[[:space:]]*['\\"]($W)['\\"]|['\\"]($W)['\\"][[:space:]]*(==|!=)|[[:space:]]in[[:space:]]*[[({][^])}]*['\\"]($W)['\\"]|['\\"]($W)['\\"][[:space:]]+(not[[:space:]]+)?in[[:space:]]" pytest_memreport/outputs/ --include=*.py
    grep -rnE '\\.(match|search|fullmatch|sub|subn|findall|finditer|split|startswith|endswith|removeprefix|removesuffix|partition|rpartition|rsplit)[(,].*\\b(headline|message|location|errors|reason|key|summary)\\b|\\b(headline|message|location|errors|reason|key|summary)['"'"'"]?\\]?\\)?\\.(startswith|endswith|removeprefix|removesuffix|partition|rpartition|split|rsplit)\\(' pytest_memreport/outputs/ --include=*.py

both of which find nothing.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_memreport.outputs import comment, kinds

OUTPUTS = Path(kinds.__file__).resolve().parent

#: the words a check's kind, outcome, verdict, status, drift class or a report's state is said in
WORDS = sorted(
    {m.value for e in (kinds.CheckType, kinds.Outcome, kinds.Verdict, kinds.PinStatus, kinds.Drift,
                       kinds.ReportState, kinds.RunEnd, comment.ChangeKind) for m in e if m.value}
    | {kinds.ENCLOSING_CHANGED, "ok", "no-repo", "missing-commit", "unpinned"},
    key=lambda w: (-len(w), w),
)
_W = "|".join(map(re.escape, WORDS))
#: a comparison of a value with one of :data:`WORDS` written as a string literal
LITERAL_COMPARISON = re.compile(
    rf"""(==|!=)\s*['"]({_W})['"]|['"]({_W})['"]\s*(==|!=)|\sin\s*[\[({{][^\])}}]*['"]({_W})['"]"""
    rf"""|['"]({_W})['"]\s+(not\s+)?in\s"""
)
#: a pattern, a prefix or a split applied to text the plugin rendered
RENDERED = r"(headline|message|location|errors|reason|key|summary)"
PARSING = re.compile(
    rf"\.(match|search|fullmatch|sub|subn|findall|finditer|split|startswith|endswith|removeprefix|removesuffix"
    rf"|partition|rpartition|rsplit)[(,].*\b{RENDERED}\b"
    rf"|\b{RENDERED}['\"]?\]?\)?\.(startswith|endswith|removeprefix|removesuffix|partition|rpartition|split|rsplit)\("
)


def _hits(pattern: re.Pattern) -> list[str]:
    out = []
    for path in sorted(OUTPUTS.rglob("*.py")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.lstrip().startswith("#") and pattern.search(line):
                out.append(f"{path.relative_to(OUTPUTS)}:{number}: {line.strip()}")
    return out


def test_no_output_compares_a_kind_status_or_verdict_with_a_string_literal():
    assert _hits(LITERAL_COMPARISON) == []


def test_no_output_parses_text_the_plugin_rendered():
    assert _hits(PARSING) == []


@pytest.mark.parametrize(("search", "line"), [
    (LITERAL_COMPARISON, 'if c.kind != "became stale":'),
    (LITERAL_COMPARISON, 'return any(p.get(at, {}).get("status") != "not-checked" for at in ("at_pin", "at_against"))'),
    (LITERAL_COMPARISON, 'if outcome in ("passed", "failed"):'),
    (LITERAL_COMPARISON, 'if "unreadable" in failing:'),
    (LITERAL_COMPARISON, "if payload['type'] == 'pin':"),
    (PARSING, 'located = [m for m in map(_LOCATED_MESSAGE.match, payload.get("claims", {}).get("errors", ())) if m]'),
    (PARSING, "if self.headline.startswith(prefix):"),
    (PARSING, 'm = _LOCATION.match(location or "")'),
    (PARSING, 'return _ENTRY_LINE.sub(r":\\1", key)'),
    (PARSING, "return message.removeprefix(where)"),
    (PARSING, 'place = payload["key"].rsplit(":", 1)[0]'),
])
def test_each_search_finds_what_it_forbids(search, line):
    """The searches above are not vacuous: each shape they forbid (from before the model) is found."""
    assert search.search(line)


@pytest.mark.parametrize("line", [
    'if link.host == "raw.githubusercontent.com":',
    'if op.tag == "equal":',
    'if check.at_pin is PinStatus.NOT_EVIDENCE:',
])
def test_the_searches_leave_other_comparisons_alone(line):
    assert not LITERAL_COMPARISON.search(line) and not PARSING.search(line)


# --------------------------------------------------------------------------- the model


def test_a_check_is_read_once_into_typed_facts_and_serialises_as_its_payload():
    from pytest_memreport.outputs.results import Blame, CheckResult, Position

    payload = {"type": "drift", "report": "r.md", "key": "quote:3:a.py::SRC-1:", "record": "R-1", "line": 3,
               "path": "a.py", "text_digest": "ab12", "target": {"repo": "o/n", "rev": "abc"},
               "at_against": {"status": "relocated", "candidates": [{"path": "b.py", "lines": [4, 6]},
                                                                    {"path": "c.py", "lines": [9, 9]}],
                              "broken_by": {"commit": "f" * 40, "subject": "move"}}}
    check = CheckResult.of(payload, "passed")
    assert (check.type, check.outcome, check.at_against) == (kinds.CheckType.DRIFT, kinds.Outcome.PASSED,
                                                             kinds.Drift.RELOCATED)
    assert check.moved_to == (Position("b.py", 4, 6), Position("c.py", 9, 9))
    assert [str(p) for p in check.moved_to] == ["b.py:4-6", "c.py:9"]
    assert check.broken_by == Blame("f" * 40, "move") and check.record == "R-1" and check.target_repo == "o/n"
    assert check.to_json() == payload  # the JSON results carry it unchanged (docs/JSON.md)
    # a word this version does not know stays a plain string, never a wrong member
    newer = CheckResult.of({"type": "pin", "report": "r.md", "at_pin": {"status": "a-newer-word"}}, "failed")
    assert newer.at_pin == "a-newer-word" and not isinstance(newer.at_pin, kinds.PinStatus)


def test_the_result_cache_codec_round_trips_the_model():
    from pytest_memreport.outputs.results import CheckResult
    from pytest_memreport.resultcache import serialize

    checks = [
        CheckResult.of({"type": "drift", "report": "r.md", "line": 3, "path": "a.py",
                        "at_against": {"status": "moved", "path": "b.py", "lines": [4, 6],
                                       "broken_by": {"commit": "e" * 40}}}, "passed"),
        CheckResult.of({"type": "predicate-against", "report": "r.md", "key": "c.yaml:4:0",
                        "at_against": {"status": "holds"}}, "passed"),
        CheckResult.of({"type": "pin", "report": "r.md", "at_pin": {"status": "a-newer-word"}}, "failed", "r.md:1: x"),
    ]
    for check in checks:
        back = serialize.load(serialize.dump(check, CheckResult), CheckResult)
        assert back == check and type(back.at_against) is type(check.at_against)
        assert type(back.at_pin) is type(check.at_pin)
