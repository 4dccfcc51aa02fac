"""match (text/quotes/): finding a report's quotation in a file despite rendering damage,
and the nearest candidate when it is not there."""

from __future__ import annotations

import random
import re
import string

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hostile_support import cpu_seconds

from pytest_memreport.text.match import (
    MAX_GAP_LINES,
    Candidate,
    Span,
    compile_quote,
    find,
    line_of,
    nearest,
    render_diff,
    split_words,
)
from pytest_memreport.model import LineRange


def lines_found(quote: str, text: str) -> list[str]:
    """Where ``quote`` is found, as ``"3-5"`` line-range strings."""
    return [str(span.lines) for span in find(compile_quote(quote), text)]


# --------------------------------------------------------------------------- fixtures

TS_HARNESS = """\
import { readFile } from "node:fs/promises";

export function skillPath(name: string): string {
  return `skills/${name}.json`;
}

export async function buildMessages(conversation: Conversation) {
  const instructions = await loadInstructions(
    conversation.id,
    { cache: true },
  );
  return [...instructions, ...(await loadMessages(conversation))];
}

/**
 * Keeps the newest entries and drops the rest,
 * so the index never grows past MAX_ENTRIES.
 */
const MAX_ENTRIES = 200;
const MAX_TEXT_CHARS = 600;
"""

PY_STORE = """\
class Store:
    # keeps the newest
    # entries and drops the rest
    def trim(self, entries, limit=200):
        kept = sorted(
            entries,
            key=lambda e: e.stamp,
        )[-limit:]
        return kept

    def total(self, a, b):
        return (a
                - b)
"""

GO_TAGS = """\
type Entry struct {
\tName  string `json:"name"`
\tLimit int    `json:"limit,omitempty"`
}
"""

YAML_LIST = """\
jobs:
  test:
    steps:
      - checkout
      - run: make test
      - upload
"""

MARKDOWN_NOTES = """\
# Notes

> Durable memory you saved earlier.
> Treat these as authoritative context.

* first point
* second point
"""

SQL_AND_LISP = """\
-- rotate the log
-- every night at two
SELECT 1;
;; keep the buffer
;; small and fast
(setq x 1)
"""

RUST_DOCS = """\
/// Returns the next version number
/// for an artifact.
fn next_version(existing: Option<&Artifact>) -> u32 {
    existing.map(|artifact| artifact.version + 1).unwrap_or(1)
}
//! crate docs
"""


# --------------------------------------------------------------------------- damage classes


def test_verbatim_single_line_is_found_with_its_line():
    assert lines_found("const MAX_ENTRIES = 200;", TS_HARNESS) == ["19"]


def test_flattened_multi_line_call_is_found_over_its_lines():
    quote = "const instructions = await loadInstructions( conversation.id, { cache: true }, );"
    assert lines_found(quote, TS_HARNESS) == ["8-11"]


@pytest.mark.parametrize(
    "quote",
    ["kept = sorted(entries, key=lambda e: e.stamp,)[-limit:]", "kept = sorted( entries , key = lambda e : e.stamp , ) [ -limit : ]"],
)
def test_whitespace_next_to_punctuation_is_insignificant_both_ways(quote):
    assert lines_found(quote, PY_STORE) == ["5-8"]


def test_lost_backticks_of_a_template_literal():
    assert lines_found("return skills/${name}.json;", TS_HARNESS) == ["4"]


def test_lost_backticks_of_go_struct_tags():
    assert lines_found('Name string json:"name" Limit int json:"limit,omitempty"', GO_TAGS) == ["2-3"]


def test_quote_that_kept_its_backticks_is_found_too():
    assert lines_found("return `skills/${name}.json`;", TS_HARNESS) == ["4"]


def test_bullets_stand_for_yaml_list_markers():
    assert lines_found("steps: • checkout • run: make test • upload", YAML_LIST) == ["3-6"]


def test_bullets_stand_for_markdown_list_markers():
    assert lines_found("• first point • second point", MARKDOWN_NOTES) == ["6-7"]


def test_bullet_needs_a_list_marker_at_a_line_start():
    # "first point second point" is there, but not as two list items after "steps:"
    assert lines_found("• checkout • upload", YAML_LIST) == []
    assert lines_found("Notes • Durable memory", MARKDOWN_NOTES) == []


def test_multi_paragraph_quote_is_all_paragraphs_in_order():
    quote = "def trim(self, entries, limit=200):\n\nkept = sorted(\n\nentries,"
    assert lines_found(quote, PY_STORE) == ["4-6"]
    assert lines_found("entries,\n\ndef trim(self, entries, limit=200):", PY_STORE) == []


@pytest.mark.parametrize(
    "quote,text,lines",
    [
        ("keeps the newest entries and drops the rest", PY_STORE, "2-3"),
        ("Keeps the newest entries and drops the rest, so the index never grows past MAX_ENTRIES.", TS_HARNESS, "16-17"),
        ("Keeps the newest entries and drops the rest, so the index never grows past MAX_ENTRIES. */ const MAX_ENTRIES", TS_HARNESS, "16-19"),
        ("Durable memory you saved earlier. Treat these as authoritative context.", MARKDOWN_NOTES, "3-4"),
        ("Returns the next version number for an artifact. fn next_version(", RUST_DOCS, "1-3"),
        ("crate docs", RUST_DOCS, "6"),
        ("rotate the log every night at two SELECT 1;", SQL_AND_LISP, "1-3"),
        ("keep the buffer small and fast (setq x 1)", SQL_AND_LISP, "4-6"),
    ],
)
def test_line_start_markers_may_be_lost(quote, text, lines):
    assert lines_found(quote, text) == [lines]


def test_kept_markers_still_match():
    assert lines_found("# keeps the newest # entries and drops the rest", PY_STORE) == ["2-3"]
    assert lines_found("/** * Keeps the newest entries", TS_HARNESS) == ["15-16"]


def test_quote_keeping_some_markers_and_dropping_others():
    text = "total = (\n    # the sum\n    first\n    - second\n)\n"
    # the comment marker is gone, the leading minus is the quote's own operator
    assert lines_found("total = ( the sum first - second )", text) == ["1-5"]


def test_line_leading_operator_kept_by_the_quote():
    assert lines_found("return (a - b)", PY_STORE) == ["12-13"]


def test_markers_are_skipped_only_at_line_starts():
    assert lines_found("a b", "x = a - b\n") == []
    assert lines_found("a b", "x = a # b\n") == []
    assert lines_found("a b", "x = a\n  - b\n") == ["1-2"]
    assert lines_found("a b", "x = a\n  # b\n") == ["1-2"]


def test_code_that_looks_like_a_marker_is_not_skipped():
    assert lines_found("x include <stdio.h>", "x\n#include <stdio.h>\n") == []
    assert lines_found("struct S [derive(Debug)]", "struct S\n#[derive(Debug)]\n") == []
    assert lines_found("x = 1; i;", "x = 1;\n--i;\n") == []


@pytest.mark.parametrize("marker", ["...", "…", "[...]", "[…]"])
def test_elided_middle_parts_occur_in_order(marker):
    quote = f"export async function buildMessages(conversation: Conversation) {{ {marker} return [...instructions,"
    assert lines_found(quote, TS_HARNESS) == ["7-12"]


GO_HANDLER = """\
func (ms msgServer) RemoveStake(ctx context.Context, msg *types.MsgRemoveStake) error {
\tsdkCtx := sdk.UnwrapSDKContext(ctx)
\tif err := msg.Validate(); err != nil {
\t\treturn err
\t}
\tremoval, found, err := ms.k.GetStakeRemoval(sdkCtx, msg.Sender, msg.TopicId)
\treturn ms.k.SetStakeRemoval(ctx, removal, args...)
}
"""


@pytest.mark.parametrize("elision", ["    // ...", "\t// …", "  # ...", "/* ... */"])
def test_an_elision_written_as_a_comment_line_elides(elision):
    # Audit findings quote code with the lines they skip replaced by a comment (`// ...`): its
    # `//` was matched as the code's own, so the quotation was not found (the report's own code).
    quote = ("func (ms msgServer) RemoveStake(ctx context.Context, msg *types.MsgRemoveStake) error {\n"
             f"{elision}\n\tremoval, found, err := ms.k.GetStakeRemoval(sdkCtx, msg.Sender, msg.TopicId)")
    assert lines_found(quote, GO_HANDLER) == ["1-6"]
    # bare dots stay the code's own where they are (a variadic), the commented line still elides
    assert lines_found(f"sdkCtx := sdk.UnwrapSDKContext(ctx)\n{elision}\n\treturn ms.k.SetStakeRemoval(ctx, "
                       "removal, args...)", GO_HANDLER) == ["2-7"]


SOL_VAULT = """\
contract Vault {
    function withdraw(uint256 amount) external {
        require(balances[msg.sender] >= amount); // checked first
        balances[msg.sender] -= amount;
        payable(msg.sender).transfer(amount);
    }
}
"""


def test_a_code_block_whose_lines_the_writer_marked_is_found_with_the_marks_set_aside():
    # An audit's block marks lines (`// @audit ...`, `// <== here`) in a language matched as
    # text (no grammar reads Move): it was the report's own code. Only a code block
    # (LOOSE) is read so; a quotation beside its citation is held to its words.
    from pytest_memreport.checks.verify import locate_quote
    from pytest_memreport.model import Evidence, EvidenceKind, EvidenceRole
    from pytest_memreport.text.textfile import TextFile

    marked = ("        require(balances[msg.sender] >= amount); // @audit no reentrancy guard\n"
              "        balances[msg.sender] -= amount; // <== state after the check\n"
              "        payable(msg.sender).transfer(amount);")
    textfile = TextFile("src/vault.move", "ab" * 20, "text", text=SOL_VAULT, size=len(SOL_VAULT))
    block = Evidence(EvidenceKind.QUOTE, "src/vault.move", 5, 7, text=marked, role=EvidenceRole.LOOSE)
    found = locate_quote(block, "pin", textfile, with_symbol=False)
    assert found.status == "found" and str(found.lines) == "3-5" and "comments after code" in found.note
    strict = locate_quote(Evidence(EvidenceKind.QUOTE, "src/vault.move", 5, 7, text=marked), "pin", textfile,
                          with_symbol=False)
    assert strict.status == "missing"
    # Where a grammar reads the language (Solidity's), comments are no tokens: the marked
    # quotation is found by tokens either way, as in every language with a grammar.
    solidity = TextFile("src/Vault.sol", "ab" * 20, "text", text=SOL_VAULT, size=len(SOL_VAULT))
    for role in (EvidenceRole.LOOSE, None):
        by_tokens = locate_quote(Evidence(EvidenceKind.QUOTE, "src/Vault.sol", 5, 7, text=marked, role=role), "pin",
                                 solidity, with_symbol=False)
        assert by_tokens.status == "found" and str(by_tokens.lines) == "3-5"


def test_elided_parts_out_of_order_are_not_found():
    assert lines_found("const MAX_TEXT_CHARS = 600; ... const MAX_ENTRIES = 200;", TS_HARNESS) == []


def test_elision_gap_is_bounded():
    far = "start_marker = 1\n" + "filler()\n" * (MAX_GAP_LINES + 5) + "end_marker = 2\n"
    near = "start_marker = 1\n" + "filler()\n" * 5 + "end_marker = 2\n"
    assert lines_found("start_marker = 1 ... end_marker = 2", near) == ["1-7"]
    assert lines_found("start_marker = 1 ... end_marker = 2", far) == []


def test_js_spread_is_found_although_it_looks_like_an_elision():
    assert lines_found("return [...instructions, ...(await loadMessages(conversation))];", TS_HARNESS) == ["12"]
    assert lines_found("...instructions, ...(await loadMessages(conversation))", TS_HARNESS) == ["12"]


def test_leading_and_trailing_elisions_are_dropped():
    assert lines_found("... const MAX_ENTRIES = 200; ...", TS_HARNESS) == ["19"]
    assert compile_quote("... a ... ... b …").parts == ("a", "b")
    assert find(compile_quote("..."), TS_HARNESS) == []


def test_bullet_may_also_be_a_literal_bullet():
    assert lines_found("• first • second", "notes: • first\n• second\n") == ["1-2"]


def test_parts_without_words():
    text = "call(\n  x,\n);\nother();\n"
    assert lines_found("x, );", text) == ["2-3"]
    assert lines_found("call( ... );", text) == ["1-3"]
    assert lines_found(") ;", text) == ["3", "4"]
    assert lines_found("} ;", text) == []


def test_quote_of_common_words_in_a_repetitive_file():
    """When every word of the quote has copies everywhere, the whole text is
    searched at once; the answer is the same."""
    text = "table = [\n" + "    1, 2,\n" * 300 + "]\n# 1, 2,\n"
    spans = find(compile_quote("1, 2, 1, 2,"), text)
    assert len(spans) == 150
    assert [str(s.lines) for s in spans[:2]] == ["2-3", "4-5"]
    assert lines_found("2, ] 1, 2,", text) == ["301-303"]
    assert lines_found("2, ] # 1, 2,", text) == ["301-303"]
    assert lines_found("1, 2, 3", text) == []
    assert lines_found("1, 2 1, 2", text) == []


def test_crlf_text_is_matched_like_lf():
    crlf = PY_STORE.replace("\n", "\r\n")
    assert lines_found("keeps the newest entries and drops the rest", crlf) == ["2-3"]
    assert lines_found("kept = sorted(entries, key=lambda e: e.stamp,)[-limit:]", crlf) == ["5-8"]


def test_every_occurrence_in_file_order_with_exact_offsets():
    text = "x = f(1)\ny = 2\nx = f(\n  1\n)\nx = f(1)\n"
    spans = find(compile_quote("x = f(1)"), text)
    assert [str(s.lines) for s in spans] == ["1", "3-5", "6"]
    assert [text[s.start : s.end] for s in spans] == ["x = f(1)", "x = f(\n  1\n)", "x = f(1)"]


def test_offsets_point_into_the_original_text_despite_backticks():
    text = "a = `x`;\nb = `y` + `z`;\n"
    (span,) = find(compile_quote("b = y + z;"), text)
    assert text[span.start : span.end] == "b = `y` + `z`;"
    assert span == Span(9, 23, LineRange(2, 2))


def test_pattern_accepts_plain_strings_and_is_cached():
    assert compile_quote("a = 1") is compile_quote("a = 1")
    assert find("MAX_TEXT_CHARS = 600", TS_HARNESS)[0].lines == LineRange(20, 20)


def test_a_key_names_the_text_for_the_cache():
    first, second = "value = 1\n", "other\nvalue = 1\n"
    assert find("value = 1", first, key="blob")[0].lines == LineRange(1, 1)
    # same key, different text: the cache must not answer for the old text
    assert find("value = 1", second, key="blob")[0].lines == LineRange(2, 2)


# --------------------------------------------------------------------------- near misses


@pytest.mark.parametrize(
    "quote",
    [
        "const MAX_ENTRIES = 201;",  # a digit
        "const MAX_ENTRIES = 2000;",  # a digit added
        "const MAX_ENTRIES = 20;",  # a digit dropped
        "const MAX_ENTRIE = 200;",  # an identifier
        "const MAX_ENTRIES_ = 200;",  # an identifier
        "const max_entries = 200;",  # letter case
        "const MAX_ENTRIES == 200;",  # an operator
        "const MAX_ENTRIES - 200;",  # an operator
        "constMAX_ENTRIES = 200;",  # words joined
        "const MAX _ENTRIES = 200;",  # a word split
        "let MAX_ENTRIES = 200;",  # a keyword
    ],
)
def test_near_misses_are_not_found(quote):
    assert find(compile_quote(quote), TS_HARNESS) == []


def test_quote_edges_do_not_fall_inside_words():
    assert lines_found("ENTRIES = 200", TS_HARNESS) == []
    assert lines_found("MAX_ENTRIES = 20", TS_HARNESS) == []
    assert lines_found("trim", PY_STORE) == ["4"]
    assert lines_found("rim", PY_STORE) == []


def test_words_never_join_or_split():
    assert lines_found("ab", "a b\n") == []
    assert lines_found("a b", "ab\n") == []
    assert lines_found("a b", "a\n   b\n") == ["1-2"]


# --------------------------------------------------------------------------- nearest / render_diff


def test_nearest_picks_the_edited_line():
    edited = TS_HARNESS.replace("const MAX_ENTRIES = 200;", "const MAX_ENTRIES = 250;")
    pattern = compile_quote("const MAX_ENTRIES = 200;")
    assert find(pattern, edited) == []
    candidate = nearest(pattern, edited)
    assert isinstance(candidate, Candidate)
    assert candidate.lines == LineRange(19, 19)
    assert candidate.text == "const MAX_ENTRIES = 250;"
    assert 80 < candidate.score < 100
    diff = render_diff(pattern.text, candidate.text)
    assert "- 200" in diff.splitlines()
    assert "+ 250" in diff.splitlines()


def test_nearest_spans_whole_lines_of_a_flattened_quote():
    edited = PY_STORE.replace("key=lambda e: e.stamp", "key=lambda e: e.created")
    candidate = nearest(compile_quote("kept = sorted( entries, key=lambda e: e.stamp, )[-limit:]"), edited)
    assert candidate is not None
    assert candidate.lines == LineRange(5, 8)
    assert candidate.text.splitlines()[0] == "        kept = sorted("
    diff = render_diff("kept = sorted( entries, key=lambda e: e.stamp, )[-limit:]", candidate.text)
    assert "- stamp" in diff and "+ created" in diff


def test_nearest_has_nothing_to_offer_for_empty_text():
    assert nearest(compile_quote("a = 1"), "") is None
    assert nearest(compile_quote("a = 1"), "\n\n   \n") is None
    assert nearest(compile_quote("..."), "a = 1\n") is None


def test_render_diff_is_compact():
    quote = " ".join(f"word{i}" for i in range(200))
    candidate = quote.replace("word5 ", "changed5 ").replace("word150", "changed150")
    diff = render_diff(quote, candidate, width=60)
    lines = diff.splitlines()
    assert len(lines) <= 6
    assert all(len(line) <= 60 for line in lines)
    assert "- word5" in lines and "+ changed5" in lines
    assert render_diff("a  =\n1", "a = 1") == "  (no difference after normalization)"


def test_a_diff_of_the_same_words_says_a_blank_line_came_or_went():
    # A formatter removed a blank line inside a cited range: the words agree, the lines do not,
    # and "no difference" beside a failing range read as a contradiction.
    quoted = "if a:\n    f()\n\nelse:\n    g()"
    found = "if a:\n    f()\nelse:\n    g()"

    assert render_diff(quoted, found) == "  (the same words; blank lines differ: 1 quoted, 0 found)"


def test_line_of_counts_from_one():
    text = "a\nbb\n\nccc"
    assert [line_of(text, i) for i in range(len(text))] == [1, 1, 2, 2, 2, 3, 4, 4, 4]
    # repeated lookups go through the line index and agree with counting
    for _ in range(3):
        assert [line_of(text, i) for i in range(len(text))] == [1, 1, 2, 2, 2, 3, 4, 4, 4]


@settings(max_examples=300, deadline=None)
@given(text=st.text(alphabet="ab\n\r ", max_size=60), offsets=st.lists(st.integers(0, 60), max_size=20))
def test_a_texts_lines_are_the_same_counted_or_indexed(text, offsets):
    """The first few line questions of a text are answered by counting its line breaks,
    the later ones from its index of line starts: both answers agree, in any order."""
    from pytest_memreport.text.quotes.index import _TextIndex

    index = _TextIndex(text)
    for offset in offsets:
        offset = min(offset, len(text))
        assert index.line_of(offset) == text.count("\n", 0, offset) + 1


# --------------------------------------------------------------------------- properties

identifiers = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,7}", fullmatch=True)
numbers = st.from_regex(r"[0-9]{1,4}", fullmatch=True)
puncts = st.sampled_from(list("()[]{},.;:=+-*/<>!&|%^~?$"))
tokens = st.lists(st.one_of(identifiers, numbers, puncts), min_size=1, max_size=14)


def is_word_token(token: str) -> bool:
    return bool(re.fullmatch(r"\w+", token))


def join_quote(toks: list[str], rnd: random.Random) -> str:
    """The quote as a report renders it: a single space between words,
    anything between a word and punctuation."""
    out = toks[0]
    for prev, tok in zip(toks, toks[1:]):
        need = is_word_token(prev) and is_word_token(tok)
        out += (" " if need or rnd.random() < 0.5 else "") + tok
    return out


def reflow(toks: list[str], rnd: random.Random) -> str:
    """The same tokens as a file might lay them out: re-wrapped at token
    boundaries, with random indentation."""
    out = toks[0]
    for prev, tok in zip(toks, toks[1:]):
        need = is_word_token(prev) and is_word_token(tok)
        choice = rnd.choice(["", " ", "  ", "\n", "\n    ", "\n\t", " \n  ", "\n\n        "])
        if need and not choice:
            choice = rnd.choice([" ", "\n  "])
        out += choice + tok
    return out


def safe_tokens(toks: list[str]) -> bool:
    # dots could form an elision; a lone marker character after a line break
    # could be read as a lost comment marker when the quote has it mid-line
    text = "".join(toks)
    return ".." not in text and "…" not in text


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(toks=tokens, seed=st.integers(0, 2**32 - 1))
def test_property_reflowed_quote_is_found(toks, seed):
    assume(safe_tokens(toks))
    rnd = random.Random(seed)
    quote = join_quote(toks, rnd)
    body = reflow(toks, rnd)
    text = "@@@@\n" + "    " * rnd.randint(0, 3) + body + "\n@@@@\n"
    spans = find(compile_quote(quote), text)
    expected_lines = LineRange(2, 2 + body.count("\n"))
    assert any(span.lines == expected_lines for span in spans), (quote, text, spans)


def mutate(quote: str, rnd: random.Random) -> str | None:
    """Change one digit, or one letter of an identifier (to another letter or
    the other case)."""
    spots = [i for i, c in enumerate(quote) if c.isalnum()]
    if not spots:
        return None
    i = rnd.choice(spots)
    c = quote[i]
    if c.isdigit():
        new = rnd.choice([d for d in "0123456789" if d != c])
    elif rnd.random() < 0.5 and c.swapcase() != c:
        new = c.swapcase()
    else:
        new = rnd.choice([x for x in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if x != c])
    return quote[:i] + new + quote[i + 1 :]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(toks=tokens, seed=st.integers(0, 2**32 - 1))
def test_property_one_changed_digit_or_letter_is_not_found(toks, seed):
    assume(safe_tokens(toks))
    rnd = random.Random(seed)
    quote = join_quote(toks, rnd)
    mutated = mutate(quote, rnd)
    assume(mutated is not None)
    # The file holds the original quote once, re-flowed, between lines that
    # share no character with it: the mutated quote has nowhere else to be.
    text = "@@@@\n" + reflow(toks, rnd) + "\n@@@@\n"
    assert find(compile_quote(quote), text), (quote, text)
    assert find(compile_quote(mutated), text) == [], (quote, mutated, text)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    quote=st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
    | st.text(alphabet=" \n\t#-*/>•.…[]`ab(),;", max_size=40),
    text=st.text(st.characters(blacklist_categories=("Cs",)), max_size=300)
    | st.text(alphabet=" \n\t#-*/>•.…[]`ab(),;", max_size=300),
)
def test_property_find_and_nearest_never_raise(quote, text):
    spans = find(compile_quote(quote), text)
    for span in spans:
        assert 0 <= span.start < span.end <= len(text)
        assert span.lines.start == line_of(text, span.start)
    assert spans == sorted(spans, key=lambda s: s.start)
    assert all(a.end <= b.start for a, b in zip(spans, spans[1:]))
    candidate = nearest(compile_quote(quote), text)
    assert candidate is None or candidate.lines.end <= text.count("\n") + 1
    render_diff(quote, text)


@settings(max_examples=80, deadline=None)
@given(toks=tokens, seed=st.integers(0, 2**32 - 1))
def test_property_found_span_text_reduces_to_the_quote(toks, seed):
    assume(safe_tokens(toks))
    rnd = random.Random(seed)
    quote = join_quote(toks, rnd)
    text = "x\n" + reflow(toks, rnd) + "\n"
    for span in find(compile_quote(quote), text):
        assert "".join(text[span.start : span.end].split()) == "".join(quote.split())


_VOCABULARY = st.sampled_from(["the", "line", "of", "it", "a_b", "x", "(x)", "thereof", "•", "...", "`", "`it`"])
_SEPARATORS = st.sampled_from([" ", "  ", "\n", "\n    ", "\n# ", "\n// ", "\n> ", ""])


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=st.lists(_VOCABULARY, min_size=1, max_size=5),
       around=st.lists(st.tuples(_VOCABULARY, _SEPARATORS), max_size=12),
       copy=st.none() | st.lists(_SEPARATORS, min_size=4, max_size=4), where=st.integers(0, 12))
def test_property_a_quotation_as_written_is_found_where_find_finds_it(words, around, copy, where):
    """The pattern-free answer for a quotation in its file as written (the commonest case,
    taken before any pattern is compiled) is :func:`find`'s own, whenever it gives one:
    texts of the quotation's words around it, and another copy of it whose whitespace or
    line markers differ, which only :func:`find` reads as an occurrence."""
    from pytest_memreport.text.match import as_written

    quote = " ".join(words)
    filler = ["".join(word + sep for word, sep in around[:where]), "".join(word + sep for word, sep in around[where:])]
    damaged = "" if copy is None else "".join(w + copy[i % 4] for i, w in enumerate(words))
    text = filler[0] + quote + "\n" + filler[1] + damaged
    written = as_written(quote, text)
    if written is not None:
        assert written == find(compile_quote(quote), text), (quote, text)


def test_a_quotation_as_written_is_left_to_find_when_a_damaged_copy_may_lie_elsewhere():
    from pytest_memreport.text.match import as_written

    text = "first  line of it\nfirst line of it\n"
    quote = "first line of it"
    # verbatim once, and once more with its whitespace changed: only find() sees both
    assert as_written(quote, text) is None
    assert lines_found(quote, text) == ["1", "2"]
    # every word has copies on other lines (prose), but the quotation without whitespace and
    # line markers has none outside the verbatim place: settled without a pattern too
    prose = "Copy the file to the host:\n\n- Copy the host file to the disk:\n- the file, to the host\n"
    assert [(s.start, s.end) for s in as_written("Copy the file to the host:", prose)] == [(0, 26)] \
        == [(s.start, s.end) for s in find("Copy the file to the host:", prose)]
    # ... and with a copy whose line breaks and markers differ, left to find(), which sees both
    damaged = prose + "Copy the file\n# to the host:\n"
    assert as_written("Copy the file to the host:", damaged) is None
    assert lines_found("Copy the file to the host:", damaged) == ["1", "5-6"]
    # a word with no copy outside the verbatim place settles it without a pattern
    assert [(s.start, s.end) for s in as_written("first line", "first line\nsecond\n")] == [(0, 10)]
    # backticks, elisions and bullets are find()'s to read
    assert as_written("a ... b", "a ... b") is None
    assert as_written("`a` b", "`a` b") is None
    # a text's backticks are dropped, as find() reads it, and the spans are the text's own
    assert [(s.start, s.end) for s in as_written("a b c", "x `a` b c")] == [(3, 9)] \
        == [(s.start, s.end) for s in find("a b c", "x `a` b c")]


# --------------------------------------------------------------------------- adversarial timing


ADVERSARIAL_TEXTS = {
    "hash-space-newline": "".join(random.Random(7).choice(" \n#\t") for _ in range(200_000)) + "\nend x\n",
    "comment-lines": ("#\n" * 100_000) + "x\n",
    "deep-indented-markers": ("\n" + " " * 60 + "# ") * 3000 + "x\n",
    "slashes": ("/" * 60 + "\n") * 3200 + "x\n",
    "bullets": "- a\n" * 50_000 + "- b\n",
    "words-inside-words": "xab" * 66_000 + "\n",
    "joined-words": "ab c " * 40_000 + "\n",
}
ADVERSARIAL_QUOTES = [
    "# # # # # # # # # # # # # # # # # # # # y",
    "# # # # x end",
    "/ / / / / / / / x",
    "• a • a • a • a • a • b",
    "a b c",
    "x ... y ... z",
    "ab d",
    "keeps the newest entries",
    "# # # # # # x",
    "x - - - - - - end",
    "a // // // b",
]


@pytest.mark.parametrize("name", sorted(ADVERSARIAL_TEXTS))
def test_adversarial_input_stays_linear(name):
    """Near-matches on 200 KB of marker-like text cost about as much as a few
    regex passes over it (the baseline tokenizes it once): no backtracking
    blow-up, whose cost would grow with the text's length times itself."""
    text = ADVERSARIAL_TEXTS[name]
    baseline = cpu_seconds(re.findall, r"\w+|\S", text, runs=3)
    for quote in ADVERSARIAL_QUOTES:
        compile_quote.cache_clear()
        pattern = compile_quote(quote)
        elapsed = cpu_seconds(lambda pattern=pattern: find(pattern, text, key=object()), runs=3)
        assert elapsed < 40 * baseline + 0.05, (quote, elapsed, baseline)


def test_render_diff_context_never_repeats_what_a_change_removed():
    diff = render_diff('return [e for e in entries if e["id"] != str(entry_id)]',
                       'return [e for e in entries if e["id"] != entry_id]')
    assert diff.splitlines() == ['  …id"] !=', "- str(", "  entry_id", "- )"]


def test_a_files_plain_typography_is_kept_by_its_blob_id_and_only_by_it():
    """Each prose quotation not found as written is tried in its files with typography set
    aside: a file's plain form is made once per blob id (ids name one text), never kept
    for a text without one (a working-tree file), and gone once the checks let go."""
    from pytest_memreport.text.quotes import typography

    typography.clear_cache()
    assert typography.plain_text("the *queue* is “durable”\n", "oid-1") == 'the queue is "durable"\n'
    assert typography.plain_text("another text", "oid-1") == 'the queue is "durable"\n'
    assert typography.plain_text("_b_", None) == "b" and typography.plain_text("_c_", None) == "c"
    typography.clear_cache()
    assert typography.plain_text("another text", "oid-1") == "another text"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["the", "if", "return", "x", "value", "load_entry", "ab", "abc", "é", "for",
                                 "self", "None", "cache_key", "zz9"]), max_size=12))
def test_a_parts_anchors_are_its_rarest_looking_words_in_order(words):
    """A part's anchors: its words not common first, longest first, ties in the order they
    are written; common ones after (the rank every anchor is chosen by)."""
    from pytest_memreport.text.quotes.pattern import _ANCHOR_TRIES, compile_quote
    from pytest_memreport.text.quotes.words import _COMMON_WORDS

    quote = " ".join([*words, "marker"])
    part = compile_quote(quote)._parts[0]
    expected = sorted(dict.fromkeys(re.findall(r"\w+", part.text)), key=lambda w: (w in _COMMON_WORDS, -len(w)))[:_ANCHOR_TRIES]
    assert part.anchors == tuple(expected)


def test_the_copies_checked_are_those_of_the_quotations_rarest_word(monkeypatch):
    """Prose repeats its longest words: the copies of a word outside the verbatim
    occurrences are each checked where they lie, so the word with the fewest copies is
    the one checked (any of them finds every occurrence)."""
    from pytest_memreport.text.quotes import locate

    checked = []
    match_near = locate._match_near
    monkeypatch.setattr(locate, "_match_near", lambda *args: checked.append(args[2]) or match_near(*args))
    text = "\n".join(["Display the contents of a file."] + [f"The contents of box {n} are listed." for n in range(40)])
    quote = "Display the contents of a file"
    assert [span.lines for span in find(quote, text)] == [LineRange(1, 1)]
    assert checked == []  # "contents" has 40 copies outside; "file" and "display" none
    # A copy of the rare word elsewhere is still checked, and a real second occurrence found.
    text += "\nDisplay  the contents of a\nfile."
    assert [span.lines for span in find(quote, text)] == [LineRange(1, 1), LineRange(42, 43)]


def test_the_nearest_candidate_is_the_copy_nearest_the_quotes_own_lines():
    """A changed line the file holds twice scores the same at both copies: the one shown is
    the copy nearest where the quote was (typeshed showed a line 27 lines away)."""
    text = "def a(\n    user: str | None = None,\n):\n    pass\n\n\ndef b(\n    x: int,\n    user: str | None = None,\n): ...\n"

    far = nearest("user: str | None = ...,", text)
    close = nearest("user: str | None = ...,", text, near=LineRange(9, 9))

    assert far is not None and far.lines == LineRange(2, 2)
    assert close is not None and close.lines == LineRange(9, 9) and close.score == far.score


@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=80) | st.text(alphabet=string.printable, max_size=80))
def test_a_texts_words_are_what_the_word_regex_finds(text):
    """``split_words`` (ASCII text split at C speed) reads the words ``\\w+`` reads, in any
    text: ASCII punctuation and control characters, and non-ASCII letters and digits."""
    assert split_words(text) == re.findall(r"\w+", text)


@settings(max_examples=200, deadline=None)
@given(old=st.lists(st.sampled_from("a b c = ( ) x1 y_2 return self".split()), max_size=25),
       new=st.lists(st.sampled_from("a b c = ( ) x1 y_2 return self".split()), max_size=25))
def test_a_diffs_changes_turn_the_quoted_words_into_the_found_ones(old, new):
    # The words are aligned by rapidfuzz (an LCS, in C) rather than difflib (a quotation's
    # diff took 150 us on a real run of 500 failing quotations); a deletion beside an
    # insertion is one change, as difflib's "replace" was.
    from rapidfuzz.distance import Indel

    from pytest_memreport.text.quotes.diff import _changes

    changes = _changes(Indel.opcodes(old, new))
    words = list(old)
    for i1, i2, j1, j2 in reversed(changes):
        assert (i1, j1) != (i2, j2)  # each change changes something
        words[i1:i2] = new[j1:j2]
    assert words == new
    # changes are apart: an unchanged word (or more) lies between two of them
    assert all(a[1] < b[0] and a[3] < b[2] for a, b in zip(changes, changes[1:]))


def test_a_replaced_word_is_one_change_of_the_diff():
    assert render_diff("a b c d", "a b x d") == "  a b\n- c\n+ x"
    many = " ".join(f"w{i}" for i in range(40))
    changed = many.replace("w3 ", "v3 ").replace("w20 ", "v20 ")
    assert render_diff(many, changed).splitlines() == ["  w0 w1 w2", "- w3", "+ v3", "  …w15 w16 w17 w18 w19",
                                                       "- w20", "+ v20"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(toks=st.lists(st.one_of(identifiers, numbers, puncts), min_size=14, max_size=40),
       seed=st.integers(0, 2**32 - 1))
def test_property_a_tree_searchs_prefilter_never_rules_out_a_text_holding_the_quote(toks, seed):
    # A quote of many words (a block of code) is ruled out by the text's set of words, kept by
    # the blob's id, where a few are looked for one scan each: the set must never rule out a
    # text where the quote is found, whatever the layout (nor with the words cut at its ends).
    from pytest_memreport import runcaches
    from pytest_memreport.text.match import may_occur_in

    assume(safe_tokens(toks))
    rnd = random.Random(seed)
    quote = join_quote(toks, rnd)
    text = "@@@@ `x`\n" + reflow(toks, rnd) + "\nzz\n"
    pattern = compile_quote(quote)
    with runcaches.RunCaches().active():
        if find(pattern, text):
            assert may_occur_in(pattern, text, key=("blob", seed))
        # a word the text does not hold rules it out
        assert not may_occur_in(compile_quote(quote + " qqqqqqqqq"), text, key=("blob", seed))
