"""Files the forms read where no link into a hosted repository names them (docs/FORMATS.md,
"Any document"):

* a line naming a file and, after the word "blob", its id: a manifest's row written
  outside a table (:func:`listed_blobs`);
* a link to a file of the writer's checkout, ``[a.ts](src/a.ts#L3-L9)``, ``~/src/...``,
  ``../clones/...``, or from the root of the repository the page is on (:func:`local_links`);
* a source file named in plain words, ``the Pool.sol contract`` (:func:`plain_file_names`).

A file with no lines cited is a mention (:func:`is_mention`): evidence where the pinned
tree has it, else the document's own word.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterator

from ..model import FILE_IN_PROSE, LOOKUP_CHECKOUT, LOOKUP_TREE, Evidence, EvidenceKind, EvidenceRole, LineRange
from . import review
from .core import anchors, pinforms
from .core.extensions import KNOWN_EXTENSIONS, SOURCE_EXTENSIONS
from .core.grammar import LISTED_BLOB, LOCAL_LINK, NOT_PLAIN_WORDS, RANGE_AFTER_LINK
from .core.spans import LineStarts


def is_mention(item: Evidence) -> bool:
    """Whether ``item`` is a file or folder named in backticks (evidence where the tree has it)."""
    return item.kind in (EvidenceKind.PATH, EvidenceKind.DIRECTORY) and item.role in (
        EvidenceRole.MENTION, EvidenceRole.BASENAME)


def listed_blobs(lines: list[str]) -> list[Evidence]:
    """A manifest written outside a table: each line naming a file and, after the word
    "blob", its blob id claims that content at the pin (as a manifest's row does)."""
    found = []
    for number, line in enumerate(lines, start=1):
        if "blob" not in line or line.lstrip().startswith("|"):
            continue
        for match in LISTED_BLOB.finditer(line):
            # (a file by its place, as in a manifest's table: in backticks or plain words)
            path = (match.group(1) or match.group(2)).removeprefix("./")
            oid = match.group(3)
            if len(oid) not in (40, 64) and (len(oid) > 39 or not pinforms.has_digit_and_letter(oid)):
                continue  # (an abbreviated id holds a digit and a letter: digits alone may be a number)
            if path and not path.endswith("/") and "://" not in path:
                found.append(Evidence(EvidenceKind.PATH, path, number, number, text=oid.lower(),
                                      label="manifest blob", role=EvidenceRole.MANIFEST))
    return found


#: the label of a link to a file of a local checkout
LOCAL_FILE_LINK = "local link"


def local_links(text: str, starts: LineStarts, code: frozenset[int]) -> list[Evidence]:
    """Links to files of the writer's checkout (``[index.ts](src/memory/index.ts#L43-L59)``,
    ``[a.ts](/home/me/src/widgets/src/a.ts#L3)``, ``../`` up out of the knowledge base): with
    an ``#L`` anchor its lines, cited as ``path:43-59`` is; without one a mention (evidence
    where the pinned tree has the file, otherwise the document's own word). A link to a
    Markdown file with no anchor is the knowledge base's own page (a note's links to its
    siblings), and a path out of a checkout (absolute, ``~``, ``../``) is mapped onto the
    pinned tree by its longest suffix. ``code``: the indexes of the lines of code."""
    found: list[Evidence] = []
    for link in LOCAL_LINK.finditer(text):
        number = starts.line_of(link.start())
        if number - 1 in code:
            continue
        written = urllib.parse.unquote(link.group(2)).removeprefix("./")
        if "@" in written or "/blob/" in written or "/tree/" in written:
            continue  # (a template's ``@REPO@/blob/@PIN@/a.py``, a host's page without its host)
        name = written.rsplit("/", 1)[-1]
        extension = name.rpartition(".")[2].lower() if "." in name else ""
        anchored = link.group(3) is not None
        if extension not in KNOWN_EXTENSIONS or (not anchored and extension in _PAGE_EXTENSIONS):
            continue
        if written.startswith("/") and written[1:].split("/", 1)[0] not in _SYSTEM_FOLDERS:
            # (``[L157](/Pool.sol#L157)``, ``(/L1/Pool.sol)``: from the root of the repository
            # the page is on, as GitHub reads it; a file of the tree, by its place or its name)
            written = written[1:]
        lookup = LOOKUP_CHECKOUT if written.startswith(("/", "~", "../")) else LOOKUP_TREE
        path = written
        while path.startswith("../"):
            path = path[3:]
        span = None
        if anchored:
            start, end = int(link.group(3)), int(link.group(4) or link.group(3))
            if not 1 <= start <= end:
                continue  # (``#L9-L3``: no range)
            cited: LineRange | None = LineRange(start, end)
        else:  # (the lines its text or the words right after it give: ``(lines 43-59)``)
            cited, written_at = _lines_beside_link(text, link, path)
            if written_at is not None:  # (where a re-pin rewrites the range)
                line_start = starts.start_of(number)
                span = starts.span(number, written_at[0] - line_start, written_at[1] - line_start)
        if cited is None:
            found.append(Evidence(EvidenceKind.PATH, path, number, number, label=LOCAL_FILE_LINK,
                                  role=EvidenceRole.MENTION, lookup=lookup))
        else:
            found.append(Evidence(EvidenceKind.LINES, path, number, number, cited_lines=cited,
                                  label=LOCAL_FILE_LINK, lookup=lookup, span=span))
    return found


#: the first folders of an absolute path on the writer's machine (a checkout's place): any
#: other absolute link is from the root of the repository the page is on
_SYSTEM_FOLDERS = frozenset({"home", "Users", "root", "tmp", "mnt", "media", "opt", "srv", "var", "private",
                             "workspace", "workspaces", "work", "data", "usr", "Volumes", "builds", "github"})


#: the extensions of a knowledge base's own pages (a link to one with no line anchor is its)
_PAGE_EXTENSIONS = frozenset({"md", "markdown", "mdx", "txt", "html", "htm", "rst", "org"})


def _lines_beside_link(text: str, link: re.Match, path: str) -> tuple[LineRange | None, tuple[int, int] | None]:
    """The lines a link to a file with no line anchor cites in its own text
    (``[index.ts:43-59](src/index.ts)``) or right after it (``[a.ts](src/a.ts) (lines 43-59)``),
    as a link into a hosted repository's file does, first to last, and where ``text`` writes
    that one range (``None`` for several); ``(None, None)`` when neither cites any."""
    shown = link.group(1).strip("`*_ ")
    spec = review.repo_path_spec(shown, strict=False) if ":" in shown or "#" in shown else None
    if spec is not None and spec.ranges and (path == spec.path or path.endswith("/" + spec.path)):
        raw = link.group(1)
        cut = max(raw.rfind(":"), raw.rfind("#")) + 1
        written = raw[cut:].rstrip("`*_ ")
        at = (link.start(1) + cut, link.start(1) + cut + len(written)) if len(spec.ranges) == 1 else None
        return LineRange(spec.ranges[0].start, max(r.end for r in spec.ranges)), at
    after = RANGE_AFTER_LINK.match(text, link.end() - 1)
    ranges = anchors.parse_ranges(after.group(1).replace(" ", "").replace("\t", ""))[0] if after else ()
    return (LineRange(ranges[0].start, ranges[-1].end), after.span(1)) if after and ranges else (None, None)


def plain_file_names(text: str, starts: LineStarts, code: frozenset[int], read: list[Evidence]) -> list[Evidence]:
    """The source files a sentence names in plain words (``minted through the Pool.sol
    contract``, ``see src/pool.py``), outside code, code spans, links and quotations: each a
    mention, as a name in backticks is (evidence where the pinned tree has it, a bare name the
    tree's file of that name; elsewhere the document's own word). ``starts``: where ``text``'s
    lines start; ``code``: the indexes of its lines of code or front matter; ``read``: what the
    forms read already (a link or a citation of the same file on its line says it: the plain
    name adds nothing)."""
    # The lines that may name one, found by one scan of the text for a source extension:
    # most lines of prose have none, and looking at each line was most of the cost.
    numbers = sorted({starts.line_of(found.start()) for found in _SOURCE_EXTENSION.finditer(text)
                      if found.group(1).lower() in SOURCE_EXTENSIONS})
    if not numbers:
        return []
    cited: dict[int, set[str]] = {}
    for item in read:
        if not is_mention(item):
            cited.setdefault(item.line, set()).update((item.path, item.path.rsplit("/", 1)[-1]))
    found: list[Evidence] = []
    for number in numbers:
        if number - 1 in code:
            continue
        start = starts.start_of(number)
        end = text.find("\n", start)
        for path in files_in_plain_words(text[start:] if end < 0 else text[start:end]):
            if path in cited.get(number, ()):
                continue
            bare = "/" not in path
            found.append(Evidence(EvidenceKind.PATH, path, number, number, label=FILE_IN_PROSE,
                                  role=EvidenceRole.BASENAME if bare else EvidenceRole.MENTION, lookup=LOOKUP_TREE))
    return found


def files_in_plain_words(line: str) -> Iterator[str]:
    """The source files ``line`` names in its writer's plain words (``the Pool.sol contract``,
    ``src/pool.py``): outside code spans, links, URLs and quotations, with a source file's
    extension, and not an abbreviation (``a.m.``, ``U.S.``, ``Ph.D.``; ``io.h`` is a file)."""
    words = NOT_PLAIN_WORDS.sub(lambda piece: " " * len(piece.group()), line)
    for match in _PLAIN_SOURCE_FILE.finditer(words):
        path, extension = match.group(1), match.group(2)
        name = path.rsplit("/", 1)[-1]
        if extension.lower() in SOURCE_EXTENSIONS and len(name) - len(extension) > (3 if len(extension) == 1 else 2):
            yield path


#: a file's extension where a name may end (what :data:`_PLAIN_SOURCE_FILE` ends with)
_SOURCE_EXTENSION = re.compile(r"\.([A-Za-z]\w{0,9})(?![\w/@-]|\.\w)")


#: a file named in plain words: names joined by slashes, the last with an extension
#: (``VoltageManager.sol``, ``src/pool.py``; not ``msg.sender.call`` nor ``v0.8.sol``)
#: (a name holds a letter: asked ahead, so that a long run of word characters is scanned
#: once from its start, not once per letter in it)
_PLAIN_SOURCE_FILE = re.compile(r"(?<![\w./@:-])((?:[\w-]+/)*(?=[\w-]*[A-Za-z_])[\w-]+\.([A-Za-z]\w{0,9}))"
                                r"(?![\w/@-]|\.\w)")
