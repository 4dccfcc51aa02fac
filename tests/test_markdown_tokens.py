"""The dialects' Markdown parser skips plain text faster than markdown-it's own ``text``
rule: it must give exactly the tokens of the stock parser with the same rules enabled."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from pytest_memreport.dialects.core.markdown import markdown_parser

STOCK = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
OURS = markdown_parser()

#: every character some inline or block rule reacts to, or the stock text rule stops at
MARKUP = "\n\n  \t!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~•"
CODE_LINES = [
    "value = combine_35(value, 86, 5, 3)  # 9023 --- src/store/mod_86.py:60",
    "| a | b |", "|---|---|", "| `x|y` | **b** |", "> quoted *em* and ~~gone~~",
    "- item with [link](http://x.invalid) and ![alt](img.png)", "1. `code` &amp; \\*escaped\\*",
    "<http://auto.invalid> then <b>html</b>", "~~~python", "def f(x): return x", "~~~",
    "    indented code", "# Heading {#id} with $math$ and a+b=c",
    "snake__case_name = _private + dunder__ and é_ü and 3_000 *a_b*_c _d_e_ __f__ x_`y`_z",
    # what would open an HTML block were raw HTML read (the parser leaves that rule out)
    "<div class=\"note\">", "</div>", "<!-- a comment -->", "<?php echo 1; ?>", "<!DOCTYPE html>",
    "<![CDATA[ x ]]>", "<pre>", "</pre>", "<script>", "<table><tr><td>cell</td></tr></table>", "<custom-tag />",
    # where a block may start or a paragraph end: breaks, setext underlines, references, nested
    # containers and markers behind indentation (the block rules' first-character guards)
    "---", "***", "_ _ _", "===", "Setext title", "[ref]: http://x.invalid \"title\"", "[ref]", "  - indented item",
    "10) ordered", "2. second", "+ plus item", "> > nested quote", "> - quoted item", "|:--|--:|", ":-:|",
    "-|-", "   # indented heading", "#no heading", "```", "    - code, not an item", "\t> tab then quote", "",
]


def _dump(tokens) -> list:
    return [(t.type, t.tag, t.map, t.nesting, t.level, t.content, t.markup, t.info,
             sorted((t.attrs or {}).items()), _dump(t.children) if t.children else None) for t in tokens]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(MARKUP + "abcXYZ019 é٣²_"), max_size=300))
def test_markup_characters_give_the_stock_tokens(text):
    assert _dump(OURS.parse(text)) == _dump(STOCK.parse(text))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(CODE_LINES), max_size=30))
def test_report_shaped_lines_give_the_stock_tokens(lines):
    text = "\n".join(lines)
    assert _dump(OURS.parse(text)) == _dump(STOCK.parse(text))


#: what a link destination may hold: URL-safe characters, and some that normalization changes
LINK_CHARACTERS = "ABCXYZabcxyz0189;/?:@&=+$,-_.!~*'()#%[] é"


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["https://", "http://", "HTTPS://", "//", "mailto:", ""]),
       st.text(alphabet=st.sampled_from("abcXYZ09.-_@:[]é"), max_size=20),
       st.text(alphabet=st.sampled_from(LINK_CHARACTERS), max_size=60))
def test_links_normalize_as_markdown_it_normalizes_them(scheme, host, rest):
    url = f"{scheme}{host}/{rest}"
    assert OURS.normalizeLink(url) == STOCK.normalizeLink(url)
    text = f"[a]({url}) and <{url}>"
    assert _dump(OURS.parse(text)) == _dump(STOCK.parse(text))


@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(LINK_CHARACTERS + "<>\\\t\n\x00\x7f&#;x"), max_size=40),
       st.integers(min_value=0, max_value=5), st.integers(min_value=0, max_value=5))
def test_link_destinations_read_as_markdown_it_reads_them(text, start, cut):
    # the helper link and reference rules call, on any text and bounds they may pass it
    pos, maximum = min(start, len(text)), max(min(start, len(text)), len(text) - cut)
    ours = OURS.helpers.parseLinkDestination(text, pos, maximum)
    stock = STOCK.helpers.parseLinkDestination(text, pos, maximum)
    assert (ours.ok, ours.pos, ours.str) == (stock.ok, stock.pos, stock.str)
    assert STOCK.helpers is not OURS.helpers  # markdown-it's own module is left as it is
    link = f"[a]({text}) [b]: {text}\n\n[c]({text} \"t\")"
    assert _dump(OURS.parse(link)) == _dump(STOCK.parse(link))


def test_the_project_reports_give_the_stock_tokens():
    root = Path(__file__).resolve().parent.parent
    texts = [path.read_text(encoding="utf-8") for path in [*root.glob("example_claims/*.md"), *root.glob("docs/*.md"),
                                                           root / "README.md"]]
    assert len(texts) >= 5
    for text in texts:
        assert _dump(OURS.parse(text)) == _dump(STOCK.parse(text))


def test_a_paragraph_line_calls_no_block_rule_that_would_decline():
    # The guards are the speed-up: a report's plain lines reach none of the rules they guard.
    calls: list[tuple[str, int]] = []
    parser = markdown_parser()
    guarded = {"fence", "blockquote", "hr", "list", "reference", "heading", "table"}
    for rule in parser.block.ruler.__rules__:
        if rule.name not in guarded:
            continue
        # the rule markdown-it runs is the guard; the stock rule sits in its closure
        assert rule.fn.__closure__, f"markdown-it's {rule.name} rule runs unguarded"
        cell = next(cell for cell in rule.fn.__closure__ if callable(cell.cell_contents))
        inner = cell.cell_contents

        def counted(state, start, end, silent, inner=inner, name=rule.name):
            calls.append((name, start))
            return inner(state, start, end, silent)

        cell.cell_contents = counted
    parser.parse("First plain line.\nA second one, continued.\n\nAnother paragraph --- src/a.py:3\n")
    assert calls == []
    parser.parse("# Title\n\n- item\n\n| a | b |\n|---|---|\n")
    assert {("heading", 0), ("list", 2), ("table", 4)} <= set(calls)
