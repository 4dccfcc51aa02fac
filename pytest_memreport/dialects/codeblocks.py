"""Code blocks, fenced or indented, and what the forms read in them (docs/FORMATS.md, "Any
document").

A block is code or output: a name in backticks there is no mention, a sha no pin, a
``file.py:3`` no citation (:func:`lines_inside` says which lines to leave). What a block
does show, the forms read here:

* a listing git or ``sha256sum`` writes of the pinned tree, and a manifest written as YAML
  or JSON (:func:`listings`, :func:`data_manifests`): rows of a manifest;
* a setup's shell block that clones a repository and checks out a commit: its pin
  (:func:`setup_pins`);
* a block a sentence, its fence, its first comment or its caption gives to one file, a
  block of numbered lines, a block given no file, and a diff's lines before the change:
  quotations of the target, checked where a file holds them (:func:`introduced_blocks`,
  :func:`diff_blocks`).

A block is ``(index of its opening line, index of its closing line, language)`` over the
document's lines, as :func:`fenced_blocks` and :func:`indented_blocks` give it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ..model import CODE_BLOCK, LOOKUP_CHECKOUT, LOOKUP_TREE, Evidence, EvidenceKind, EvidenceRole
from . import core, review
from .core import pinforms
from .core.extensions import SOURCE_EXTENSIONS
from .core.grammar import (CAPTION_START, COMMENT_FILE, DIFF_FILE_HEADER, DIFF_OTHER_HEADER, DIGEST_LINE, FENCE_FILE,
                           FILE_HEADER, FORM_URL, GIT_CHECKOUT, GIT_CLONE, LISTING_LINE, NUMBERED_LINE)
from .core.spans import LineStarts
from .datatables import data_evidence
from .fileforms import files_in_plain_words
from .nameforms import CODE_SPAN


#: a fence's opening line and its info string's first word
_FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})[ \t]*([\w+.-]*)")


#: a fenced block's language when it shows commands, output or a diagram, not a file's text
NOT_A_FILE = frozenset({"sh", "bash", "shell", "zsh", "console", "terminal", "powershell", "ps1", "cmd", "bat",
                         "output", "log", "mermaid", "memreport", "diff", "patch"})


def fenced_blocks(lines: list[str]) -> Iterator[tuple[int, int, str]]:
    """Each fenced block of ``lines``: the index of its opening fence, of its closing one
    (the document's line count when it runs to the end) and its language, lower-cased."""
    # (a text ending in a newline splits into one more, empty, part: no line of the document)
    count = len(lines) - 1 if lines and lines[-1] == "" else len(lines)
    index = 0
    while index < len(lines):
        opened = _FENCE.match(lines[index])
        if opened is None:
            index += 1
            continue
        marker = opened.group(1)
        close = next((i for i in range(index + 1, len(lines)) if lines[i].strip().startswith(marker)
                      and not lines[i].strip().strip(marker[0])), count)
        yield index, close, opened.group(2).lower()
        index = close + 1


def fenced_lines(lines: list[str]) -> frozenset[int]:
    """The indexes of ``lines`` inside fenced blocks, their fences included."""
    return lines_inside(tuple(fenced_blocks(lines)), len(lines))


def lines_inside(blocks: tuple[tuple[int, int, str], ...], count: int,
            languages: frozenset[str] | None = None) -> frozenset[int]:
    """The indexes of the ``count`` lines inside ``blocks`` (:func:`fenced_blocks`), their
    fences included (code or output: a name in backticks there is no mention, a sha no pin);
    with ``languages``, of the blocks written in one of them only (commands and output,
    :data:`NOT_A_FILE`: they cite nothing)."""
    inside: set[int] = set()
    for index, close, language in blocks:
        if languages is None or language in languages:
            inside.update(range(index, min(close, count - 1) + 1))
    return frozenset(inside)


#: an indented code block's line: four columns of indent (a tab reaches them)
_INDENT = re.compile(r" {4}| {0,3}\t")


#: a list item's first line (an indented block under it is the item's text, not code)
_LIST_ITEM = re.compile(r"[ \t]{0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")


def indented_blocks(lines: list[str], fenced: frozenset[int]) -> Iterator[tuple[int, int, str]]:
    """Each indented code block of ``lines`` as CommonMark reads one under a paragraph: lines
    indented four columns after a blank line, the last line of text above them a paragraph's
    (not indented, not a list item's: a list's indented lines are its items' text). As
    :func:`fenced_blocks` gives a block: the index of the line before it (the blank), of
    the line after it, and no language. ``fenced``: the indexes inside fenced blocks."""
    index = 1
    while index < len(lines):
        line = lines[index]
        if index in fenced or lines[index - 1].strip() or not line.strip() or not _INDENT.match(line):
            index += 1
            continue
        end = index
        while end < len(lines) and end not in fenced and (not lines[end].strip() or _INDENT.match(lines[end])):
            end += 1
        last = end
        while not lines[last - 1].strip():  # (the blank lines after it are not the block's)
            last -= 1
        above = next((lines[i] for i in range(index - 2, -1, -1) if lines[i].strip()), "")
        if above and not above[:1].isspace() and not _LIST_ITEM.match(above):
            yield index - 1, last, ""
        index = end


def listings(lines: list[str], blocks: tuple[tuple[int, int, str], ...]) -> tuple[list[Evidence], set]:
    """The code blocks that are listings git or ``sha256sum`` writes of the pinned tree (every
    line ``100644 blob <id> <path>``, ``100644 <id> 0 <path>`` or ``<sha256>  <path>``): each
    line a manifest's row (the file's content at the pin is that blob, or has that digest);
    and those blocks (they quote no file)."""
    found: list[Evidence] = []
    listings = set()
    for block in blocks:
        index, close, _ = block
        rows: list[Evidence] = []
        for number in range(index + 2, min(close, len(lines)) + 1):
            line = lines[number - 1]
            if not line.strip():
                continue
            listed = LISTING_LINE.fullmatch(line.rstrip()) or DIGEST_LINE.fullmatch(line.rstrip())
            if listed is None:
                rows = []
                break
            oid, path = (listed.group(1) or listed.group(2), listed.group(3)) if listed.re is LISTING_LINE \
                else (listed.group(1), listed.group(2))
            rows.append(Evidence(EvidenceKind.PATH, path.removeprefix("./"), number, number, text=oid.lower(),
                                 label="manifest blob", role=EvidenceRole.MANIFEST))
        if rows:
            found.extend(rows)
            listings.add(block)
    return found, listings


#: the languages of the code blocks that may be a manifest written as data ("" none said)
_DATA = frozenset({"yaml", "yml", "json", "jsonc", "json5", ""})


def data_manifests(lines: list[str], blocks: tuple[tuple[int, int, str], ...]) -> tuple[list[Evidence], set]:
    """The code blocks of YAML or JSON that list files with their blob ids or cited lines
    (:mod:`.datatables`): what their rows cite, and those blocks (they quote no file).
    ``lines``: the document's lines as written."""
    found: list[Evidence] = []
    manifests = set()
    for block in blocks:
        index, close, language = block
        if language not in _DATA:
            continue
        rows = data_evidence("\n".join(lines[index + 1:close]), index + 2)
        if rows:
            found.extend(rows)
            manifests.add(block)
    return found, manifests


def setup_pins(lines: list[str], blocks: tuple[tuple[int, int, str], ...], starts: LineStarts,
                repositories: dict[str, str | None]) -> list[pinforms.PinStatement]:
    """The commit a setup's shell block checks out after cloning a repository (``git clone
    <url>`` then ``git checkout <sha>``, in one block): a pin of that repository (its URL
    added to ``repositories``), where a re-pin rewrites it. A checkout with no clone in its
    block (a fix looked at in passing) pins nothing."""
    pins: list[pinforms.PinStatement] = []
    for index, close, language in blocks:
        if language not in NOT_A_FILE and language:
            continue
        body = lines[index + 1:close]
        cloned = next((found.group(1) for line in body if "clone" in line
                       for found in [GIT_CLONE.search(line)] if found is not None), None)
        if cloned is None:
            continue
        if cloned.startswith("git@"):  # (``git@github.com:acme/widgets.git``)
            cloned = "https://" + cloned[4:].replace(":", "/", 1)
        named = core.repository_of(cloned)
        for offset, line in enumerate(body):
            checkout = GIT_CHECKOUT.search(line) if "git" in line else None
            if checkout is None or named is None:
                continue
            number = index + 2 + offset
            repositories.setdefault(named[0], named[1])
            pins.append(pinforms.PinStatement(checkout.group(1).lower(), number, checkout.start(1), named[0],
                                              span=starts.span(number, *checkout.span(1))))
    return pins


#: how many lines an introduced block may hold to be read as a quotation
_BLOCK_LINES = 60


def introduced_blocks(lines: list[str], blocks: tuple[tuple[int, int, str], ...],
                       indented: bool = False) -> list[Evidence]:
    """A code block a sentence gives to one file (``In `src/queue.ts`:``, a link to it, or
    ``In the Pool.sol contract, ...:``, then the block): a quotation of that file, checked where
    the file holds it at the pin and otherwise the report's own example (role ``LOOSE``), never
    a failure at the pin. A block that numbers its lines (``84:     for (``) quotes each run of
    consecutive ones, under the file a ``File: <path>`` first line names when no sentence names
    one. ``blocks``: the document's fenced blocks (:func:`fenced_blocks`), or with
    ``indented`` its indented ones (:func:`indented_blocks`), read without their indent."""
    found: list[Evidence] = []
    for index, close, language in blocks:
        body = [_INDENT.sub("", line, count=1) for line in lines[index + 1:close]] if indented \
            else lines[index + 1:close]
        intro = _sentence_above(lines, index)
        introduced = intro.rstrip().endswith(":") or _ends_citing_lines(intro)
        named = _one_file(intro) if introduced and language not in NOT_A_FILE else None
        labelled = False  # (its first line a comment naming its file: the writer's label, not the file's text)
        if named is None and language not in NOT_A_FILE:
            named, labelled = _file_of_block(lines, index, close, body, indented)
            if labelled:
                body, index = body[1:], index + 1
        header = FILE_HEADER.fullmatch(body[0].strip()) if body and language not in NOT_A_FILE else None
        runs = _numbered_runs(body[1:] if header else body)
        lookup = None
        if named is None and header is not None and runs:
            # (written from the analyst's checkout, or by its name alone: found in the pinned tree)
            named, lookup = (header.group(1).lstrip("/"), None, None, None), LOOKUP_TREE
        if named is not None and 0 < len(body) <= _BLOCK_LINES and any(line.strip() for line in body):
            path, source, pin, ref = named
            if lookup is not None and "/" in path:
                lookup = LOOKUP_CHECKOUT
            elif "/" not in path and source is None:
                lookup = LOOKUP_TREE  # a file named by its name alone (``Pool.sol``): the tree's file of that name
            # (a run's report line: the block's first line, past the header, and the run's offset)
            below = index + 2 + (1 if header else 0)
            for first, last, run in [(below + offset, below + end, run) for offset, end, run in runs] \
                    or [(index + 2, index + 1 + len(body), body)]:
                found.append(Evidence(EvidenceKind.QUOTE, path, first, max(first, last),
                                      text="\n".join(run), source=source, pin=pin, label=CODE_BLOCK,
                                      role=EvidenceRole.LOOSE, lookup=lookup, ref=ref))
        elif named is None and (introduced or not indented) and language not in NOT_A_FILE \
                and language not in _NOT_CODE and len(body) <= _BLOCK_LINES and _holds_enough(body):
            # Given no file (``Verification.verify is as follows:``), code copied from the target is
            # still the target's: looked for in the whole pinned tree, and where no file holds it
            # (a proposed fix, pseudo-code), the report's own (a term's reading: never a failure).
            # An indented one only under a sentence that introduces it: an item's text indented
            # under a list two paragraphs up looks the same line by line.
            found.append(_code_of_no_file(index + 2, max(index + 2, index + 1 + len(body)), "\n".join(body)))
    return found


def _file_of_block(lines: list[str], index: int, close: int, body: list[str],
                   indented: bool) -> tuple[tuple[str, str | None, str | None, str | None] | None, bool]:
    """The one file a block no sentence gives one names of itself: its fence's info string
    (```` ```ts title="src/a.ts" ````, ```` ```ts:src/a.ts ````), a first line that is only a
    comment naming it (``// src/a.ts``), or a caption right below it (``*Source:
    `src/a.ts:4`*``); and whether that first line is the comment (the writer's label)."""
    fence = None if indented else FENCE_FILE.match(lines[index])
    if fence is not None:
        return (fence.group(1) or fence.group(2), None, None, None), False
    comment = COMMENT_FILE.fullmatch(body[0]) if body else None
    if comment is not None and core.looks_like_path(comment.group(1)) and (
            "/" in comment.group(1) or comment.group(1).rsplit(".", 1)[1].lower() in SOURCE_EXTENSIONS):
        return (comment.group(1).removeprefix("./"), None, None, None), True
    below = close if indented else close + 1
    caption = next((lines[i] for i in range(below, min(below + 2, len(lines))) if lines[i].strip()), "")
    if caption and CAPTION_START.match(caption):
        return _one_file(caption), False
    return None, False


def _sentence_above(lines: list[str], index: int) -> str:
    """The last line of text in the two above ``lines[index]`` (a block's opening line): the
    sentence that may introduce the block, and name its file."""
    return next((lines[i] for i in range(index - 1, max(-1, index - 3), -1) if lines[i].strip()), "")


def _ends_citing_lines(intro: str) -> bool:
    """Whether a line ends with a link to lines of a file (``.../a.sol#L57-L61``, bare or as a
    Markdown link's target): a block right under it shows those lines, as an audit's finding
    writes its evidence."""
    urls = list(FORM_URL.finditer(intro))
    last = urls[-1] if urls else None
    if last is None or intro[last.end():].strip(" \t)>:.`*_").strip():
        return False
    link = core.parse_repository_link(last.group())
    return link is not None and link.kind == "blob" and link.lines is not None


def _one_file(intro: str) -> tuple[str, str | None, str | None, str | None] | None:
    """The one file a sentence names (a backticked path, or a link into a repository's file):
    ``(path, owner/name, commit, branch)``; ``None`` when it names none or several."""
    files: dict[str, tuple[str, str | None, str | None, str | None]] = {}
    for match in FORM_URL.finditer(intro):
        link = core.parse_repository_link(match.group())
        if link is not None and link.kind == "blob" and link.path:
            # (a link at a branch names no commit: the block is read where the document's pin is)
            sha = link.ref_is_sha
            files[link.path] = (link.path, link.repo_id, link.ref if sha else None, None if sha else link.ref)
    for match in CODE_SPAN.finditer(intro):
        spec = review.repo_path_spec(match.group(1))
        if spec is not None and not spec.is_directory and spec.path not in files:
            files[spec.path] = (spec.path, None, None, None)
    if not files and "." in intro:
        for path in files_in_plain_words(intro):
            files.setdefault(path, (path, None, None, None))
    return next(iter(files.values())) if len(files) == 1 else None


def _numbered_runs(body: list[str]) -> list[tuple[int, int, list[str]]]:
    """The runs of a block whose every line that is not blank begins with its line number
    (``84:     for (``) and the numbers count up: each run of consecutive numbers, as the
    file's text, with the lines (in the block) it starts and ends on; ``[]`` for any other block."""
    numbered = [(offset, found) for offset, line in enumerate(body) if line.strip()
                for found in [NUMBERED_LINE.match(line)] if found is not None]
    # (an audit tool's ``...`` between runs, and the writer's own comment lines among them, as
    # ``// @audit ...``, carry no number: neither is the file's)
    if not numbered or len(numbered) < sum(1 for line in body if line.strip() and not _WRITERS_LINE.match(line)):
        return []
    runs: list[tuple[int, int, list[str]]] = []
    previous = None
    for offset, found in numbered:
        number = int(found.group(1))
        if previous is not None and number <= previous:
            return []
        text = body[offset][found.end():]
        if previous is not None and number == previous + 1 and runs:
            start, _, texts = runs[-1]
            runs[-1] = (start, offset, [*texts, text])
        else:
            runs.append((offset, offset, [text]))
        previous = number
    return runs


#: a line of a numbered block that is no line of the file: an elision (``...``, ``// ...``)
#: or a comment line the writer added (``// @audit ...``)
_WRITERS_LINE = re.compile(r"[ \t]*(?:\.\.\.|…|//|/\*|\*|#)")


#: a block's language when it shows data or text (an advisory's own TOML, a response's JSON):
#: given no file, it is the writer's, not code copied from the target
_NOT_CODE = frozenset({"toml", "json", "jsonc", "json5", "yaml", "yml", "xml", "html", "csv", "tsv", "ini",
                       "markdown", "md", "text", "txt", "plain", "plaintext"})


#: how many characters that are not spaces a block given no file holds to be looked for in
#: the whole tree (``}``, ``return x;`` is in any tree)
_TREE_BLOCK_CHARACTERS = 24


def _holds_enough(texts: Iterable[str]) -> bool:
    """Whether a block's ``texts`` hold enough to be looked for in a whole tree
    (:data:`_TREE_BLOCK_CHARACTERS`)."""
    return sum(not c.isspace() for text in texts for c in text) >= _TREE_BLOCK_CHARACTERS


def _code_of_no_file(first: int, last: int, text: str) -> Evidence:
    """Code a report shows on lines ``first`` to ``last`` and gives no file: the target's
    where a file of the pinned tree holds it, else the report's own (a term's reading)."""
    return Evidence(EvidenceKind.QUOTE, "", first, last, text=text, label=CODE_BLOCK, role=EvidenceRole.TERM)


#: the languages of a fenced block that shows a change as a diff
DIFF = frozenset({"diff", "patch"})


def diff_blocks(lines: list[str], blocks: tuple[tuple[int, int, str], ...]) -> list[Evidence]:
    """The code a diff changes, as the target's (an audit finding's proposed fix, ``diff --git
    a/src/Pool.sol b/src/Pool.sol`` and its hunks): each hunk's lines before the change (its
    context and the lines it removes, past their one-character prefix) quote the file the
    diff's header names, else the one its introducing sentence names (as a code block's), and
    are checked where that file holds them at the pin, else the report's own (role ``LOOSE``,
    never a failure); with no file named, where the pinned tree holds them (as a code block
    given no file). The lines it adds are the writer's. Drift then says when the code the
    fix was written against changed. ``blocks``: the document's fenced diff blocks."""
    found: list[Evidence] = []
    for index, close, _ in blocks:
        intro = _sentence_above(lines, index)
        named = _one_file(intro) if intro.rstrip().endswith(":") else None
        for (path, source, pin, ref), run in _before_the_change(lines, index, close, named):
            if not _holds_enough(text for _, text in run) or len(run) > _BLOCK_LINES or path == "/dev/null":
                continue
            text, first, last = "\n".join(text for _, text in run), run[0][0], run[-1][0]
            if path is None:
                found.append(_code_of_no_file(first, last, text))
            else:
                found.append(Evidence(EvidenceKind.QUOTE, path, first, last, text=text, source=source, pin=pin,
                                      label=CODE_BLOCK, role=EvidenceRole.LOOSE, ref=ref,
                                      lookup=LOOKUP_TREE if source is None else None))
    return found


def _before_the_change(lines: list[str], index: int, close: int, named):
    """Each run of a diff block's lines before the change (``lines[index]`` its opening fence,
    ``lines[close]`` its closing one), with the file it is of: ``(path, owner/name, commit,
    branch)``, ``named`` (a sentence's) until a header names one, ``path`` ``None`` when
    nothing does; a run is a list of ``(report line, text)``. A header or a hunk's start ends
    a run; an added line does not (the lines around it are one run of the file)."""
    file = named if named is not None else (None, None, None, None)
    run: list[tuple[int, str]] = []
    for number in range(index + 1, close):
        line = lines[number]
        header = DIFF_FILE_HEADER.fullmatch(line.strip())
        if header is not None or DIFF_OTHER_HEADER.fullmatch(line.strip()):
            if run:
                yield file, run
            run = []
            if header is not None:
                # (a header's path is as the writer's checkout has it: found in the pinned tree)
                file = (header.group(1), None, None, None)
        elif not line.startswith(("+", "\\ ")):  # (nor git's "\ No newline at end of file")
            # a context line's or a removed line's text past its prefix (a line with none is
            # context a writer pasted as it was)
            run.append((number + 1, line[1:] if line[:1] in (" ", "-") else line))
    if run:
        yield file, run
