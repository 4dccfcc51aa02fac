"""markdown-it, configured once for every dialect (CommonMark plus pipe
tables), and the token stream of a report.

The last parse is kept, since a dialect often walks the same report twice
(blocks, then inline layout). Nesting past markdown-it's limit would drop the
rest of the enclosing block, so such lines are blanked and the text parsed
again with the same line numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import unescapeAll
from markdown_it.token import Token

from ... import runcaches
from .grammar import PLAIN_LINK


def markdown_parser() -> MarkdownIt:
    """The Markdown tokenizer every dialect uses: CommonMark plus pipe tables."""
    # Raw HTML stays text, so nothing a reader could see is hidden.
    parser = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
    # With ``html`` off the HTML block rule declines every line, after logging its call:
    # tried where each block may start and as a paragraph terminator, it was a sixth of
    # markdown-it's time on a report of quotations. The tokens are the same without it.
    parser.disable("html_block")
    _guard_block_rules(parser)
    parser.normalizeLink = _link_normalizer(parser.normalizeLink)  # type: ignore[method-assign]
    # This parser's own helpers (markdown-it's module stays as it is for everyone else).
    stock = parser.helpers
    parser.helpers = SimpleNamespace(  # type: ignore[assignment]
        parseLinkLabel=stock.parseLinkLabel, parseLinkTitle=stock.parseLinkTitle,
        parseLinkDestination=_link_destination(stock.parseLinkDestination))
    parser.inline.ruler.at("text", _plain_text)
    parser.core.ruler.at("inline", _inline)
    return parser


#: block rules that decline every line whose first character (after its indent and any
#: container markers) is not one of these: markdown-it's fence, blockquote, thematic break,
#: list (an ASCII digit or a bullet), link reference definition and ATX heading rules
_BLOCK_STARTS = {"fence": "`~", "blockquote": ">", "hr": "*-_", "list": "0123456789*-+", "reference": "[",
                 "heading": "#"}


def _guard_block_rules(parser: MarkdownIt) -> None:
    """markdown-it's block rules behind the test each makes first: a report's lines are mostly
    paragraph lines, and there every block rule is tried (and again as a terminator on each
    line a paragraph continues to), logs its call, and declines on the line's first character
    (a table on the next line's). The same test made before the call gives the same tokens
    (a property test compares both parsers) without a call per rule and line."""
    ruler = parser.block.ruler
    names = ruler.get_active_rules()
    rules = dict(zip(names, ruler.getRules(""), strict=True))
    # ``at`` replaces a rule's terminator chains too: each keeps the chains it is in
    chains = {name: [chain for chain in names if rules[name] in ruler.getRules(chain)] for name in names}
    for name, starts in _BLOCK_STARTS.items():
        if name in rules:
            ruler.at(name, _guarded(rules[name], starts), {"alt": chains[name]})
    if "table" in rules:  # a table starts above its delimiter row (``|``, ``-``, ``:`` first)
        ruler.at("table", _guarded(rules["table"], "|-:", below=1), {"alt": chains["table"]})


def _guarded(rule, starts: str, below: int = 0):
    """``rule``, called only where the line ``below`` lines down begins with one of ``starts``."""
    def guarded(state, start_line: int, end_line: int, silent: bool) -> bool:
        line = start_line + below
        if line >= end_line:
            return False
        pos = state.bMarks[line] + state.tShift[line]
        if pos < state.eMarks[line] and state.src[pos] in starts:
            return rule(state, start_line, end_line, silent)
        return False
    return guarded


def _link_normalizer(stock):
    """``stock`` (markdown-it's ``normalizeLink``), skipped for a plain link (:data:`.grammar.PLAIN_LINK`), which it would
    parse, punycode and re-encode into itself: on a note of blob links that was a third of
    markdown-it's time. A property test compares both on generated links."""
    def normalize(url: str) -> str:
        return url if PLAIN_LINK.fullmatch(url) else stock(url)
    return normalize


#: a link destination of no space, control character, backslash or parenthesis, not opening
#: with ``<``: one markdown-it reads to its end character by character, escaping nothing
_PLAIN_DESTINATION = re.compile(r"[^\x00-\x20\x7f\\()<][^\x00-\x20\x7f\\()]*")


@dataclass
class _Destination:
    """What markdown-it's ``parseLinkDestination`` answers (its callers read these three)."""

    ok: bool
    pos: int
    str: str


def _link_destination(stock):
    """``stock`` (markdown-it's ``parseLinkDestination``), with a plain destination
    (:data:`_PLAIN_DESTINATION`) read by one match: the stock helper looks at each of its
    characters in turn (a tenth of a note's parse, most of it in blob links). Where the
    match stops at a parenthesis or backslash, which that reading counts or unescapes, the
    stock helper reads it. A property test compares both."""
    def parse(string: str, pos: int, maximum: int):
        found = _PLAIN_DESTINATION.match(string, pos, maximum)
        if found is None or (found.end() < maximum and string[found.end()] in "(\\"):
            return stock(string, pos, maximum)
        return _Destination(True, found.end(), unescapeAll(found.group()))
    return parse


def _inline(state) -> None:
    """markdown-it's core ``inline`` rule, with a block of plain text made its one text
    token directly: where no inline rule of this parser may start (:data:`_INLINE_STARTS`,
    the newline among them) the stock parse gives exactly that token, after setting up an
    inline state and trying its rules. Most lines of a report of quotations are plain text."""
    md, env = state.md, state.env
    for token in state.tokens:
        if token.type != "inline":
            continue
        if token.children is None:
            token.children = []
        content = token.content
        if content and _INLINE_STARTS.search(content) is None:
            token.children.append(Token("text", "", 0, content=content))
        else:
            md.inline.parse(content, md, env, token.children)


#: the characters where an inline rule this parser runs may start (newline, image,
#: entity, emphasis, autolink, link and its end, escape, code span, strikethrough)
_INLINE_STARTS = re.compile(r"[\n!&*<\[\\\]_`~]")


def _plain_text(state, silent: bool) -> bool:
    """markdown-it's ``text`` rule, stopping only where a rule of this parser may start.

    The stock rule also stops at characters kept for extensions (``#``, ``-``, ``:``,
    ``=``, ``{`` and others) and tries every rule there, each of which declines: in
    quoted code that is most characters. Skipping them gives the same tokens (a property
    test compares both parsers) and a third less parsing; so does reading underscores
    between letters or digits as text.
    """
    src, maximum = state.src, state.posMax
    found = _INLINE_STARTS.search(src, state.pos, maximum)
    end = found.start() if found else maximum
    while end < maximum and src[end] == "_":
        # Underscores between letters or digits (``combine_35``) can neither open nor
        # close emphasis (CommonMark's flanking rules, as markdown-it's scanDelims reads
        # them): text. Quoted code is full of them, and the emphasis rule would push a
        # token and a delimiter for each, to be joined back into this text afterwards.
        run_end = end
        while run_end < maximum and src[run_end] == "_":
            run_end += 1
        before = src[end - 1] if end > 0 else " "
        after = src[run_end] if run_end < maximum else " "
        if not (before.isalnum() and after.isalnum()):
            break
        found = _INLINE_STARTS.search(src, run_end, maximum)
        end = found.start() if found else maximum
    if end == state.pos:
        return False
    if not silent:
        text = src[state.pos:end]
        append = getattr(state, "append_pending", None)  # markdown-it-py 4 buffers pending text
        if append is not None:
            append(text)
        else:
            state.pending += text
    state.pos = end
    return True


_MARKDOWN = markdown_parser()


def token_stream(text: str) -> list:
    """markdown-it's token stream for ``text``; the run's last one is kept, since a
    dialect often walks the same report twice (blocks, then inline layout)."""
    last: list[Any] = runcaches.part(token_stream, lambda: [None, None])
    if last[0] != text:
        last[:] = [text, _parse_all(text)]
    return last[1]


def clear_cache() -> None:
    """Forget the last token stream (a report's worth of tokens, once its parse is done)."""
    runcaches.drop(token_stream)


#: markdown-it's nesting limit (lists and blockquotes count two levels and one)
_MAX_NESTING = _MARKDOWN.options["maxNesting"]
#: a line whose own container markers nest this deep is blanked once a cut is seen
_DEEP_MARKERS = _MAX_NESTING // 2 - 2
#: re-parses allowed for nesting built up over several lines (indented lists)
_NESTING_RETRIES = 16


def _parse_all(text: str) -> list:
    """``_MARKDOWN.parse(text)``, without losing what follows too-deep nesting.

    Past ``maxNesting`` markdown-it drops the rest of the enclosing block: for a
    list that is the rest of the report, so every later record would vanish
    without a word. Lines that nest that deep are read as blank instead (they
    hold nothing a report can mean), and the text is parsed again with the same
    line numbers. A handful of re-parses at most: every line nested past the
    limit on its own is blanked in one pass.
    """
    tokens = _MARKDOWN.parse(text)
    cut = _nesting_cut(tokens)
    if cut is None:
        return tokens
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if container_markers(line)[0] >= _DEEP_MARKERS:
            lines[index] = ""
    for _ in range(_NESTING_RETRIES):
        if cut is not None and cut < len(lines):
            _blank_chain(lines, cut)
        tokens = _MARKDOWN.parse("\n".join(lines))
        cut = _nesting_cut(tokens)
        if cut is None:
            break
    return tokens


def _blank_chain(lines: list[str], cut: int) -> None:
    """Blank line ``cut`` and the list items below it indented at least as deep
    (a list nested by indentation, one level per line)."""
    indent = len(lines[cut]) - len(lines[cut].lstrip(" \t"))
    lines[cut] = ""
    for index in range(cut + 1, len(lines)):
        line = lines[index]
        body = line.lstrip(" \t")
        if not body:
            continue
        if len(line) - len(body) < indent or not indent or container_markers(body)[0] == 0:
            break
        lines[index] = ""


def _nesting_cut(tokens: list) -> int | None:
    """The 0-based line where markdown-it gave up on nesting, or ``None``."""
    for token in tokens:
        if token.nesting == 1 and token.level >= _MAX_NESTING - 1 and token.map:
            return token.map[0]
    return None


def container_markers(line: str) -> tuple[int, int]:
    """How many blockquote and list markers open ``line`` (``> - 1. x`` is 3), and where
    what they open begins (the whitespace after them skipped)."""
    depth, i, end = 0, 0, len(line)
    while i < end:
        while i < end and line[i] in " \t":
            i += 1
        if i < end and line[i] == ">":
            depth, i = depth + 1, i + 1
            continue
        j = i
        while j < end and j - i < 9 and line[j].isdigit():
            j += 1
        if j > i and j < end and line[j] in ".)":
            j += 1
        elif j == i and i < end and line[i] in "-*+":
            j += 1
        else:
            break
        if j < end and line[j] not in " \t":
            break
        depth, i = depth + 1, j
    return depth, i
