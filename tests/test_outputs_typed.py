"""The outputs read one typed results model: no output compares a kind, status or verdict
with a string literal, and none parses text the plugin rendered (a headline, a message, a
location, a key) to get back a fact it had as data.

The same searches as a shell command (what the issue's closing note lists)::

    W='<every word of outputs/kinds.py, ChangeKind and the source pin statuses, joined by |>'
    grep -rnE "(==|!=)[[:space:]]*['\\"]($W)['\\"]|['\\"]($W)['\\"][[:space:]]*(==|!=)|[[:space:]]in[[:space:]]*[[({][^])}]*['\\"]($W)['\\"]|['\\"]($W)['\\"][[:space:]]+(not[[:space:]]+)?in[[:space:]]" pytest_memreport/outputs/ --include=*.py
    grep -rnE '\\.(match|search|fullmatch|sub|subn|findall|finditer|split|startswith|endswith|removeprefix|removesuffix|partition|rpartition|rsplit)[(,].*\\b(headline|message|location|errors|reason|key|summary)\\b|\\b(headline|message|location|errors|reason|key|summary)\\)?\\.(startswith|endswith|removeprefix|removesuffix|partition|rpartition|split|rsplit)\\(' pytest_memreport/outputs/ --include=*.py

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
    rf"|\b{RENDERED}\)?\.(startswith|endswith|removeprefix|removesuffix|partition|rpartition|split|rsplit)\("
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


@pytest.mark.parametrize("line", [
    'if c.kind != "became stale":',
    'return any(predicate.get(at, {}).get("status") != "not-checked" for at in ("at_pin", "at_against"))',
    'if outcome in ("passed", "failed"):',
    'if "unreadable" in failing:',
    "if payload['type'] == 'pin':",
])
def test_the_comparison_search_finds_what_it_forbids(line):
    """The searches above are not vacuous: each shape they forbid (from before the model) is found."""
    assert LITERAL_COMPARISON.search(line)


@pytest.mark.parametrize("line", [
    'located = [m for m in map(_LOCATED_MESSAGE.match, payload.get("claims", {}).get("errors", ())) if m]',
    "if self.headline.startswith(prefix):",
    'm = _LOCATION.match(location or "")',
    'return _ENTRY_LINE.sub(r":\\1", key)',
    "return message.removeprefix(where)",
])
def test_the_parsing_search_finds_what_it_forbids(line):
    assert PARSING.search(line)


@pytest.mark.parametrize("line", [
    'if link.host == "raw.githubusercontent.com":',
    'if op.tag == "equal":',
    'if check.at_pin is PinStatus.NOT_EVIDENCE:',
])
def test_the_searches_leave_other_comparisons_alone(line):
    assert not LITERAL_COMPARISON.search(line) and not PARSING.search(line)
