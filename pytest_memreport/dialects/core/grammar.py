"""The citation forms, written once: every regular expression that reads how a report
cites its target (docs/FORMATS.md) lives here, and the dialects, the form reader and
write-back (re-pin, promotion) import them from here.

A citation form is what points into the target: a source ID (``SRC-n``, a register
entry, ``owner/name``), a path and its line ranges and anchors (``path:a-b``,
``#L10-L20``, ``(lines a-b)``, bare ``(:a-b)``), a link into a repository (a commit or
blob permalink, a Markdown link around it), an attribution marker (``---``), a brace
group (``src/{a,b}.ts``) and the shas of pin statements. Patterns that read anything
else (words, status vocabulary, headers, markup, git's output) stay with their users;
``tests/test_grammar.py`` fails when a citation form is compiled anywhere but here.

Where two readers bound the same form differently (a parser reads ``:10-20,30``,
write-back also ``: 10 - 20``), both are kept, named for what they read, side by side,
so the difference is visible in one place. Each pattern is linear on adversarial input:
no quantified group can match the same text in two ways.
"""

from __future__ import annotations

import re

# --------------------------------------------------------------------------- fragments

#: a commit id as written: 64 hex digits (SHA-256), else 7 to 40 (an abbreviation or SHA-1)
SHA_DIGITS = r"[0-9a-fA-F]{64}|[0-9a-fA-F]{7,40}"
#: a commit id, captured, that no letter or digit continues
_SHA = rf"({SHA_DIGITS})(?![0-9A-Za-z])"
#: markup that may wrap a sha: `sha`, **sha**, [sha](...)
_OPEN = r"[`*\[]*"
#: one line range of a run's citation: ``12``, ``L12``, ``12-20``, ``12–L20``
_RANGE = r"L?\d{1,9}(?:[-–]L?\d{1,9})?"
#: ranges after a comma continue the first: ``12-20,30,40-44``
RANGES = rf"{_RANGE}(?:,{_RANGE})*"

# --------------------------------------------------------------------------- source IDs

#: ``SRC-1`` standing alone (a report's source)
SOURCE_ID = re.compile(r"(?<![\w-])SRC-(\d{1,6})(?![\w-])")
#: ``SRC-1``, ``SRC-01`` (``SRC-1``), ``SRC-1a`` (a register sub-entry), the whole text
SOURCE_REF = re.compile(r"SRC-(\d{1,6})([a-z]{0,2})")
#: the same in running text
SOURCE_IN_TEXT = re.compile(r"(?<![\w-])SRC-(\d{1,6})([a-z]{0,2})(?![\w-])")
#: ``SRC-1`` / ``SRC-1a`` as re-pin spells a citation's source (``SRC-1:96-101``)
SOURCE_WRITTEN = re.compile(r"SRC-\d{1,6}[a-z]?")
#: a source key of a claims file: ``SRC-n`` or ``owner/name``
CLAIMS_SOURCE = re.compile(r"SRC-\d+|[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
#: ``KEY=VALUE`` of ``--memreport-repo``: a register entry (``SRC-1``), ``owner/name``, or a short
#: name a report uses for a repository (``widgets``)
REPOSITORY_KEY = re.compile(r"^(SRC-\d+[A-Za-z0-9]*|[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+|[A-Za-z][A-Za-z0-9_.-]{0,99})=(.*)$")
#: ``owner/name`` written whole (a front matter value)
OWNER_NAME = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
#: a word of a sentence that may name a repository: ``widgets``, ``acme/widgets``
REPOSITORY_WORD = re.compile(r"[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)?")
#: ``SRC-1:96–101`` (lines of a register entry)
SOURCE_RANGES = re.compile(rf"SRC-(\d{{1,6}})([a-z]{{0,2}}):({RANGES})")
#: ``SRC-1:96-101`` as a run's table cell reads it (``SRC-1:L96-L101``)
TABLE_SOURCE_RANGES = re.compile(r"SRC-(\d{1,6}):(?:L)?(\d{1,9}(?:[-–]L?\d{1,9})?(?:,\d{1,9}(?:[-–]\d{1,9})?)*)")
#: a register ID of any upper-case prefix, whole (``SRC-1``, ``PROPOSED-SRC-22``, ``EXT-3a``)
ENTRY_ID = re.compile(r"((?:[A-Z][A-Z0-9]{0,15}-){1,4})(\d{1,6})([a-z]{0,2})")
#: a register entry and what it cites: its lines (``:495–500``), or a file inside it
#: (``:package-lock.json:808–817``)
ENTRY_CITATION = re.compile(r"((?:[A-Z][A-Z0-9]{0,15}-){1,4})(\d{1,6})([a-z]{0,2}):(.+)")
#: ``SRC-3:`` in running text: a document that cites a register
REGISTER_CITATION = re.compile(r"(?<![\w-])SRC-\d{1,6}[a-z]{0,2}:")
#: ``SRC-1: a.py, b.py`` (its paths follow)
SOURCE_PATHS = re.compile(r"(?<![\w-])SRC-(\d{1,6})[`*_]*(?::[`*_]*)?[ \t]+")
#: ``SRC-1:`` ending a line: its paths follow on the next line of the paragraph
SOURCE_PATHS_AT_END = re.compile(r"(?<![\w-])SRC-(\d{1,6})[`*_]*:[`*_]*[ \t]*$")

# --------------------------------------------------------------------------- paths

#: the characters of a path, its ``/`` separated names
PATH_TOKEN = re.compile(r"[\w.@+~-]+(?:/[\w.@+~-]*)*")
#: a path written at a revision (``src/a.py@88a80f3``): the file at that commit, not a path
#: whose name ends so
AT_REVISION_SUFFIX = re.compile(r"@[0-9a-fA-F]{7,40}$")
#: a file at a commit in a code span, as git writes it (``88a80f3:src/a.py``, also inside a
#: command: ``git show 88a80f3:src/a.py``) or as a path at a revision (``src/a.py@88a80f3``,
#: ``src/a.py@88a80f3:42-60``)
REVISION_COLON_PATH = re.compile(r"(?<![\w./:@-])([0-9a-fA-F]{7,40}):((?:[\w.-]+/)*[\w.-]*\w)(?![\w/.:-])")
PATH_AT_REVISION = re.compile(r"(?<![\w./@-])((?:[\w.-]+/)*[\w.-]*\w)@([0-9a-fA-F]{7,40})"
                              r"(?::(\d{1,9})(?:[-–](\d{1,9}))?)?(?![\w.-])")
#: what no path holds: control characters, a backtick (markup), and a URL's scheme
NEVER_IN_PATH = re.compile(r"[\x00-\x1f\x7f`]|://")
#: a folder of installed dependencies (a stack trace's ``node_modules/x/index.js:48:23``, a
#: traceback's ``site-packages/``): the reader's environment, never a file the target tracks
INSTALLED_DEPENDENCY = re.compile(r"(?:^|/)(?:node_modules|site-packages|dist-packages)/")
#: a file extension ending a path
PATH_EXTENSION = re.compile(r"[^./]\.[A-Za-z][A-Za-z0-9_+-]{0,11}$")


def whole_path(path: str) -> re.Pattern:
    """``path`` written whole: not inside ``src/pkg/a.py``, ``pkg/a.py.bak`` nor after ``/``
    (a URL of another repository). A path ends where no path character follows; ``dir/``
    (a folder) and a sentence's full stop still end it. Callers cache it."""
    return re.compile(rf"(?<![\w./@+~-]){re.escape(path)}(?![\w@+~-]|/[\w.@+~-]|\.\w)")


def folder_prefix(folder: str) -> re.Pattern:
    """``folder`` written whole as the start of a path under it (``src/`` of ``src/*.py``)."""
    return re.compile(rf"(?<![\w./@+~-]){re.escape(folder)}(?=/)")


# --------------------------------------------------------------------------- line ranges and anchors

#: the ranges a path citation ends with: ``a.py:10-20,30``, ``a.py#L10-L20`` (``#`` with no ``L``
#: numbers an issue or pull request: ``acme/widgets#42``)
PATH_RANGES = re.compile(r"(?::L?|#L)(\d{1,9}(?:[-–]L?\d{1,9})?(?:,\d{1,9}(?:[-–]\d{1,9})?)*)$")
#: the same in a run's word (``a.ts:12-20,30``)
TRAILING_RANGES = re.compile(rf"(?::|#(?=L))({RANGES})(?::\d{{1,6}})?$")  # ``a.ts:27:14``: a line and its column
#: the dash between a range's two numbers (a run's ``L12-L20`` with its ``L`` dropped first)
RANGE_DASH = re.compile(r"[-–]")
#: the same before an optional ``L`` (``a.py:12-L20``)
RANGE_DASH_L = re.compile(r"[-–]L?")
#: ranges alone (``12-20,30``)
RANGES_ONLY = re.compile(RANGES)
#: ``:505`` continuing the citation before it
CONTINUATION = re.compile(rf":({RANGES})")
#: ``505`` continuing it after a comma or "lines"
BARE_RANGES = re.compile(rf"({RANGES})")
#: a line of a list or paragraph labelled with its cited lines (``- **Lines:** 43-59``,
#: ``Line range: 12``; group 1 the ranges): the file is an earlier line's (``- **File:** `src/a.ts```)
LABELLED_LINES = re.compile(  # (possessive: a line of spaces is read once, not split every way)
    r"(?i)[ \t]*+(?:[-*+][ \t]++)?(?:\*\*|__)?(?:lines?|line\(s\)|line[ _]range|line[ _]numbers?)[ \t]*+"
    r"(?:(?:\*\*|__)[ \t]*+:|:[ \t]*+(?:\*\*|__)?)[ \t]*+`?"
    r"(L?\d{1,9}(?:[ \t]*+[-–][ \t]*+L?\d{1,9})?(?:,[ \t]*+L?\d{1,9}(?:[ \t]*+[-–][ \t]*+L?\d{1,9})?)*)`?(?![\w-])")
#: a line of a file's section opening with the lines it cites (``Lines 43-59 define ...``,
#: ``- L43-L59: ...``, ``- **Line 45**: ...``; group 1 or 2 the range): the file is the one
#: its heading names (``## `src/a.ts```). A line word says it is a line, or an ``L`` with a
#: colon after its range (``- L3 cache`` is no line); a range another file's (``Lines 3-9 of
#: `b.ts```) is not the section's.
SECTION_LINES = re.compile(  # (possessive: a line of spaces is read once)
    r"[ \t]*+(?:[-*+][ \t]++|\d{1,3}[.)][ \t]++)?(?:\*\*|__)?"
    r"(?:(?i:lines?|line\(s\)|ll?\.)[ \t]*+(L?\d{1,9}(?:[ \t]*+[-–][ \t]*+L?\d{1,9})?)"
    r"(?![\w-]|[ \t]++(?i:of|in|from|at)\b)"
    r"|(L\d{1,9}(?:[ \t]*+[-–][ \t]*+L?\d{1,9})?)(?:\*\*|__)?(?=[ \t]*+(?:[:)—–]|$)))")
#: a host name a port follows (``example.org:80``, ``grpc.server.com:443``), not a file and its
#: line: the names RFC 2606 reserves for examples, or three labels and more ending in a
#: common top-level domain (``notes.org:12`` stays a file)
HOST_NAME = re.compile(r"(?i)example\.(?:com|org|net)|(?:[a-z0-9-]+\.){2,}(?:com|net|org|io|dev|app)")
#: a code block's first line naming the file it shows (``File: contracts/Curves.sol``), as audit
#: tools write it above numbered lines
FILE_HEADER = re.compile(r"(?i)File:[ \t]*`?([\w./@-]+\.\w+)`?:?")
#: a fence whose info string names the block's file (```` ```ts title="src/a.ts" ````,
#: ```` ```ts:src/a.ts ````, ``filename=``): group 1 or 2 the file
FENCE_FILE = re.compile(r"""[ \t]{0,3}(?:`{3,}|~{3,})[ \t]*+[\w+.-]*+(?::([\w./@-]+\.\w+)|[ \t]++[^`]*?"""
                        r"""\b(?:title|filename|file|name|path)=["']?([\w./@-]+\.\w+)["']?)""")
#: a block's first line that is only a comment naming its file (``// src/a.ts``, ``# pkg/a.py``,
#: ``<!-- docs/a.md -->``), with its lines or not: group 1 the file
COMMENT_FILE = re.compile(r"[ \t]*+(?://|#|--|;;?|/\*|<!--)[ \t]*+(?:file:?[ \t]*+)?`?([\w.@-]+(?:/[\w.@-]+)*\.\w+)`?"
                          r"(?:[ \t]*+(?::|,|\(|lines?)[ \t]*+L?\d+(?:[ \t]*+[-–][ \t]*+L?\d+)?\)?)?[ \t]*+(?:\*/|-->)?"
                          r"[ \t]*+")
#: a caption right below a block saying where it is from (``*Source: `src/a.ts:4`*``, ``— `a.py` ``)
CAPTION_START = re.compile(r"(?i)[ \t]*+[*_>]*+[ \t]*+(?:—|--|source\b|from\b|file\b|excerpt\b|snippet\b|listing\b)")
#: a diff's line naming the file it changes, as ``git diff`` writes it (``diff --git a/P b/P``,
#: ``--- a/P``; some writers add the lines, ``a/src/pool.sol#L345-L348``): group 1 the path,
#: ``/dev/null`` for a file the diff creates
DIFF_FILE_HEADER = re.compile(r"(?:diff --git|---)[ \t]+(?:a/)?(/dev/null|[\w./@-]+?\.\w+)(?:#L\d+(?:-L?\d+)?)?(?:[ \t].*)?")
#: a diff's line that is no line of either side: its other headers and a hunk's start
DIFF_OTHER_HEADER = re.compile(r"(?:\+\+\+|index|new file mode|deleted file mode|old mode|new mode|similarity index|"
                               r"rename from|rename to|@@)(?:[ \t].*)?")
#: a quoted line written after its line number (``84:     for (``, ``84| for (``), as audits and
#: ``grep -n`` show code: group 1 the number
NUMBERED_LINE = re.compile(r"[ \t]*(\d{1,7})[:|][ \t]?")
#: a range that can only be lines: ``512-520`` (two numbers), ``L512``, ``L512-L520``
LINES_ONLY = re.compile(r"(L\d{1,9}(?:[-–]L?\d{1,9})?|\d{1,9}[-–]\d{1,9})(?:,(?:L?\d{1,9}(?:[-–]L?\d{1,9})?))*")
#: the lines written right after a link to a file (``[a.ts](<url>) lines 43-59``, ``[a.ts](<url>)
#: (L43-L59)``, ``[a.ts](<url>):43``), from the link's closing parenthesis: group 1 the range
RANGE_AFTER_LINK = re.compile(r"\)[ \t]*(?:\([ \t]*)?(?:(?:lines?|ll?\.)[ \t]*|:|(?=L\d))"
                              r"(L?\d{1,9}(?:[ \t]*[-–][ \t]*L?\d{1,9})?)(?![\w-])")
#: ``#L10C2-L20C5`` as a link's fragment reads
LINK_ANCHOR = re.compile(r"L(\d{1,9})(?:C\d{1,9})?(?:-L?(\d{1,9})(?:C\d{1,9})?)?")
#: Sourcegraph's line anchor (its URL's query): ``L10-20``, ``L10:3-20:5`` with columns
SOURCEGRAPH_ANCHOR = re.compile(r"L(\d{1,9})(?::\d{1,9})?(?:-(\d{1,9})(?::\d{1,9})?)?")
#: Bitbucket's line anchor: ``lines-10:20``, ``lines-10``
BITBUCKET_ANCHOR = re.compile(r"lines-(\d{1,9})(?::(\d{1,9}))?")
#: the same as re-pin rewrites it (the dash kept as written)
LINK_ANCHOR_WRITTEN = re.compile(r"L(\d+)(?:C\d+)?(?:(-L?)(\d+)(?:C\d+)?)?")
#: the words right before a quotation that make it the writer's proposed text, not the file's:
#: ``the comment should be: "..."``, ``rename it to "..."``, ``replace "a" with "..."``, a line
#: opening ``Correct the comment to "..."`` (not a past change: what a file "was changed to" is
#: what it says)
PROPOSED_BEFORE = re.compile(
    r"(?i)\b(?:(?:should|must|could|would|ought[ \t]+to)[ \t]+(?:be|read|say|become|state)"
    r"|(?:(?:chang|renam|updat)(?:e|es|ing)|(?m:^)[ \t>*-]*correct)\b[^.!?\n\"“”]{0,60}?\bto"
    r"|replac(?:e|es|ing)\b[^.!?\n]{0,80}?\bwith)[ \t]*:?[ \t]*[*_]*$")
#: a code span that may name a file or folder (a ``/`` or a ``.`` inside it): a line of a
#: document whose code spans are all words (`` `foo()` ``, `` `--flag` ``) names no file in them
PATHLIKE_CODE_SPAN = re.compile(r"`[^`\n]*[./][^`\n]*`")
#: a line that holds a line citation in any form: ``a.py:12``, ``#L12``, ``lines 12``, ``Line(s): 12``,
#: ``ll. 12``, ``(:12``, a lone ``:12`` continuing the line above
LINE_CITATION_HINT = re.compile(
    r"[\w)\]`*]:L?\d|(?<![^ \t]):L?\d|#L\d|\b[Ll]ine(?:s|\(s\))?[:*_]{0,3}[ \t]+L?\d|\bl{1,2}\.[ \t]*\d|\(:L?\d|"
    r"`[ \t]+\(?L\d|"
    r"\.\w{1,10}[ \t]+\(?L\d")
#: a range right after a path, as write-back finds it: ``:10-20``, ``:10 – 20``, ``#L10-L20``
RANGE_AFTER_PATH = re.compile(r"(:|#L)(\d{1,9})(?:([ \t]*[-–][ \t]*L?)(\d{1,9}))?")
#: ``, 30-34`` continuing it
RANGE_AFTER_COMMA = re.compile(r",[ \t]*(\d{1,9})(?:([ \t]*[-–][ \t]*)(\d{1,9}))?")
#: a range standing apart from its path: ``:505`` (not ``a.ts:505``, not ``12:30`` o'clock)
LONE_RANGE = re.compile(r"(?<![\w./@+~:-]):(\d{1,9})(?:([ \t]*[-–][ \t]*)(\d{1,9}))?(?![\w.:-]|[-–]\d)")
#: a bare range in a code span right after a citation's code span and a comma: `` `a.ts:1`, `9` ``
CODE_SPAN_RANGE = re.compile(r"`[ \t]*,[ \t]*`(\d{1,9})(?:([ \t]*[-–][ \t]*)(\d{1,9}))?`")
#: a range as written in a citation or anchor
WRITTEN_RANGE = re.compile(r"L?\d{1,9}(?:[ \t]*[-–][ \t]*L?\d{1,9})?")
#: lines named in a link's text: ``line 35``, ``lines 8-10``, ``L8-L10``, ``#L40``
RANGE_WORDS = re.compile(r"(?<![\w#])(?:(?i:lines?)[ \t]+|#?L)(\d{1,9})(?:([ \t]*[-–][ \t]*L?)(\d{1,9}))?(?![\w.]|[-–]\d)")

# --------------------------------------------------------------------------- brace groups

#: ``{queue,worker}`` of ``src/core/{queue,worker}.ts``
BRACE = re.compile(r"\{([^{}\s]+(?:,[^{}\s]+)+)\}")
#: a brace group and the path characters around it: ``src/core/{queue,worker}.ts``
BRACE_WORD = re.compile(r"[\w./-]*\{[^{}\s]+(?:,[^{}\s]+)+\}[\w./-]*")

# --------------------------------------------------------------------------- links and permalinks

#: a URL in prose, up to what ends it in Markdown or quotes
BARE_URL = re.compile(r"https?://[^\s<>()\[\]`\"']+")
#: a URL as the form reader masks it (a line's links are not its line citations)
FORM_URL = re.compile(r"https?://[^\s)>\]]+")
#: a URL on a pin statement's line (a commit link names its repository)
PIN_LINE_URL = re.compile(r"https?://[^\s)<>\]]+")
#: a link whose text is a sha: ``[9a0bae8](``, ``[`9a0bae8`](``
LINK_TEXT_SHA = re.compile(r"\[`?([0-9a-fA-F]{7,64})`?\]\(")
#: what in a line is not its writer's plain words, where a file named in them is read: code
#: spans, links (their text and destination), URLs, and what it quotes (a phrase in quotation
#: marks, a blockquote's line)
NOT_PLAIN_WORDS = re.compile(r"`+[^`\n]*`+|!?\[[^\]\n]*\]\([^)\n]*\)|\[[^\]\n]*\]\[[^\]\n]*\]|https?://\S+"
                             r'|"[^"\n]*"|“[^”\n]*”|^[ \t]*>.*')
#: what is left of a line that is one link once its URL is blanked: ``- <   >``, ``[text](   )``
ONLY_A_LINK = re.compile(r"[ \t]*(?:[-*+][ \t]+)?(?:<[ \t]*>|\[[^\]]*\]\([ \t]*\)|[ \t]+)[ \t.]*")
#: what every link into a repository's files holds, as substrings: a document is tested for
#: them in C (a pattern of these alternatives is tried at each of its characters, slower)
FILE_LINK_MARKS = ("/blob/", "/blame/", "/tree/", "/raw/", "raw.githubusercontent.com", "/src/")
#: a URL's parts: ``(https://host/)(path)(?query)#(fragment)``
URL_PARTS = re.compile(r"(https?://[^/]+/)([^?#]*)(\?[^#]*)?(?:#(.*))?", re.S)
#: a sha alone (a link's ref)
SHA_ONLY = re.compile(SHA_DIGITS)
#: a link destination markdown-it's ``normalizeLink`` gives back unchanged: http(s), an ASCII
#: host, then only characters URL encoding keeps (no ``%``, whose escapes it checks; no space
#: or non-ASCII character, which it encodes)
PLAIN_LINK = re.compile(r"https?://[A-Za-z0-9.-]+/[A-Za-z0-9;/?:@&=+$,\-_.!~*'()#]*")
#: ``github.com/owner/name`` with or without its scheme
GITHUB_REPOSITORY = re.compile(r"(?i)(?<![\w.-])(?:https?://)?(?:www\.)?github\.com/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)")
#: a Markdown link that is a table cell's whole text: ``[text](url)``
LINK_CELL = re.compile(r"^\[([^\]]*)\]\([^)]*\)$")
#: a link's Markdown in a raw blockquote line, with the brackets or dash around it
SOURCE_LINK = re.compile(r"[(\[]?\[([^\]\n]{0,300})\]\(([^)\s]{1,2000})\)[)\]]?")
#: ``[label]: <url>`` starting a line (a reference-style link definition)
LINK_DEFINITION = re.compile(r"[ \t]{0,3}\[((?:[^\[\]\\]|\\.)+)\]:[ \t]*<?")
#: ``[text][label]`` (a full reference; collapsed ``[text][]`` names its label by its text)
REFERENCE_USE = re.compile(r"\[((?:[^\[\]\\]|\\.)+)\]\[((?:[^\[\]\\]|\\.)+)\]")

# --------------------------------------------------------------------------- attribution markers

#: where a quotation names its source: ``--- `` or an em dash, then the source
ATTRIBUTION = re.compile(r"(?:---|—)[ \t]+(\S.*)")
#: where an attribution starts on a quotation's last line (write-back edits only after it)
ATTRIBUTION_START = re.compile(r"(?:^|[ \t])(?:---|—)[ \t]")
#: `` `path` @ `sha` `` / ``path at sha`` / ``path`` (after the dash), as an epigraph's
#: attribution may also write it: ``from `path`, near line 136`` (the line, or lines, cited)
ATTRIBUTED_SOURCE = re.compile(
    r"(?:(?:from|in)[ \t]+)?`?([^`\s]+?)`?(?:[ \t]+(?:@|at)[ \t]+`?([0-9A-Fa-f]{64}|[0-9A-Fa-f]{7,40})`?)?"
    r"(?:,?[ \t]+(?:(?:near|around|at)[ \t]+)?lines?[ \t]+(\d+)(?:[ \t]*(?:-|–|to)[ \t]*(\d+))?)?[ \t]*[.;,]?"
)

# --------------------------------------------------------------------------- pin statements' shas

#: per-source pins: ``SRC-1 commit <sha>``
SOURCE_PIN = re.compile(
    rf"(?i)(?<![\w-])SRC-(\d{{1,6}})[`*]*(?:[ \t]*[,:])?[ \t]*(?:at[ \t]+)?commit[`*:]*[ \t]+{_OPEN}{_SHA}"
)
#: report-level pins, which apply to SRC-1 unless it is pinned on its own
REPORT_PINS = (
    re.compile(rf"(?i)\brev-parse[ \t]+HEAD[`*]*[ \t]+matched[ \t]+{_OPEN}{_SHA}"),
    re.compile(rf"(?i)\bHEAD[`*]*[ \t]+was[ \t]+rechecked[ \t]+as[ \t]+{_OPEN}{_SHA}"),
    re.compile(
        rf"(?i)\bReviewed[ \t]+revision[*]*:[ \t*]*`?[\w./-]+`?[*]*[ \t]+at[ \t]+{_OPEN}{_SHA}"
    ),
    re.compile(rf"(?i)\bReviewed[ \t]+commit[*]*:[ \t*]*[`\[]*{_SHA}"),
)
#: ``Source: https://host/owner/name`` / ``Repository: ...``
REPOSITORY_URL = re.compile(
    r"(?i)\b(?:Source|Repository)[*]*[ \t]*:[*]*[ \t]*[<`\[]?(https?://[\w.-]+(?::\d+)?/[\w.-]+/[\w.-]+)"
)
#: ``**Revision:** `<sha>```, ``**Revision.**``, ``Frozen revision:``, ``Reviewed revision:``
REVISION_LABEL = re.compile(
    rf"(?i)(?<![\w-])(?:frozen[ \t]+|reviewed[ \t]+|pinned[ \t]+|target[ \t]+)?revision[*_`]*[ \t]*[:.][*_` \t]*\[?{_SHA}"
)
#: ``Target: widgets at `<sha>```
TARGET_AT = re.compile(rf"(?i)(?<![\w-])target[*_]*[ \t]*:[^|\n]{{0,120}}?[ \t]at[ \t]+[`*]*{_SHA}")
#: prose: ``... at `2ecb382` ...`` / ``@ `2ecb382```: a backticked sha after ``at`` or ``@``
PROSE_AT = re.compile(rf"(?i)(?:(?<![\w-])at|@)[ \t]+`{_SHA}`")
#: a sha as a pin statement writes it: 40 or 64 hex digits bare, 7 or more in backticks or link text
FULL_SHA = re.compile(r"(?<![0-9A-Za-z/@#=])([0-9a-fA-F]{64}|[0-9a-fA-F]{40})(?![0-9A-Za-z])")
SHORT_SHA = re.compile(r"[`\[]([0-9a-fA-F]{7,39})[`\]]")
#: a commit word right before a backticked sha (``revision `9762880033```): there a short sha
#: of digits only (one 7-character sha in 27) or letters only is still one (a link's text in
#: brackets is its link's: the link names the full sha)
COMMIT_WORD_BEFORE = re.compile(r"(?i)\b(?:revision|commit|sha|snapshot|pinned(?:[ \t]+(?:at|to))?)[ \t]*:?[*_]*[ \t]*`$")
#: a short sha written bare right after a commit word (``refer to commit 88a80f3786``; in
#: backticks it is :data:`SHORT_SHA`): a pin where it holds a digit and a letter
BARE_SHA_AFTER_COMMIT_WORD = re.compile(
    r"(?i)(?<![\w-])(?:commit|revision|sha|snapshot|checked[ \t]+out|(?:taken|read|pinned|frozen)[ \t]+at)"
    r"[ \t]*:?[ \t]+([0-9a-f]{7,39})(?![0-9A-Za-z_/@-]|\.\w)")
#: a heading's ``owner/name`` and the sha right after it, in parentheses or backticks or bare
#: (``## acme/widgets (`1a2b3c4`)``): what the section is of, as ``owner/name@<sha>`` says
NAME_THEN_SHA = re.compile(r"([A-Za-z0-9_.-]{1,100})/([A-Za-z0-9_.-]{1,100})`?[ \t]+[(\[]?`?([0-9a-fA-F]{7,64})(?![0-9A-Za-z])")
#: a short name and its sha in one code span (`` `widgets@1a2b3c4` ``)
SHORT_NAME_AT_SHA = re.compile(r"`([A-Za-z][A-Za-z0-9_.-]{0,99})@([0-9a-fA-F]{7,64})`")
#: a line that only labels a link as the document's source (``Source: <url>``, ``- **Code:**
#: [widgets](<url>)``), its URL blanked: a whole repository's tree linked there is the pin
LABELLED_LINK = re.compile(
    r"(?i)[ \t]*(?:[-*+][ \t]+)?[*_]*(?:source|repository|repo|code(?:base)?|target|upstream|snapshot)[*_]*"
    r"[ \t]*:[*_ \t]*(?:<[ \t]*>|\[[^\]]*\]\([ \t]*\)|[ \t]+)[ \t.]*")
#: ``owner/name@sha``
AT_SHA = re.compile(r"([A-Za-z0-9_.-]{1,100})/([A-Za-z0-9_.-]{1,100})[ \t]?@[ \t]?`?([0-9a-fA-F]{7,64})(?![0-9A-Za-z])")
#: ``owner/name`` written in running text (outside a URL): a repository the document may mean.
#: A path looks the same (``src/widgets``), so a mention binds only where the user maps it;
#: ``src/a.ts:2`` is a citation, not a repository
REPOSITORY_MENTION = re.compile(r"(?<![\w./@#:-])([A-Za-z0-9][A-Za-z0-9_.-]{0,99}/[A-Za-z0-9][A-Za-z0-9_.-]{0,99})"
                                r"(?![\w/@-]|\.\w|:L?\d|#L)")
#: a repository's address and the commit it was read at (``https://github.com/acme/widgets at
#: `<sha>` ``, ``[acme/widgets](https://github.com/acme/widgets) @ `<sha>` ``): group 1 the
#: address, 2 the sha
URL_AT_SHA = re.compile(r"(https?://[^\s)<>\]]+)\)?[ \t]*(?:[ \t]at[ \t]+|@[ \t]*)(?:commit[ \t]+|revision[ \t]+)?"
                        r"`?([0-9a-fA-F]{7,64})`?(?![0-9A-Za-z])")
#: ``owner/name at `<sha>` ``: a pin in a title or caption, with no pin word
OWNER_NAME_AT_SHA = re.compile(r"(?<![\w./@-])([A-Za-z0-9][A-Za-z0-9_.-]{0,99}/[A-Za-z0-9][A-Za-z0-9_.-]{0,99})`?[ \t]+"
                               r"at[ \t]+(?:commit[ \t]+|revision[ \t]+)?`([0-9a-fA-F]{7,64})`")
#: a table cell of cited lines: ``L25-L60``, ``25-60``, ``25–60``, ``L26``, ``26``
RANGE_CELL = re.compile(r"(L?)(\d{1,9})(?:[ \t]*[-\u2013\u2014][ \t]*L?(\d{1,9}))?")
#: the same found inside a cell's text (its backticks, emphasis and spaces around it)
RANGE_IN_CELL = re.compile(r"(?<![\w.:-])L?\d{1,9}(?:[ \t]*+[-\u2013\u2014][ \t]*+L?\d{1,9})?(?![\w.:-])")
#: a backticked short name right before a backticked sha: `` `widgets` `<sha>` `` (also ``at`` / ``@`` / ``:``)
NAMED_BEFORE_SHA = re.compile(r"`([A-Za-z][A-Za-z0-9_.-]{0,99})`[ \t]*(?:(?:at|@|:)[ \t]*)?$")
#: a front matter value that is a sha
SHA_VALUE = re.compile(r"[0-9a-fA-F]{7,64}")
#: a file's place written in plain words, with its folders and extension and maybe its
#: lines (``src/memory/index.ts``, ``pkg/a.py:43-59``): group 1 (what a quotation beside it
#: or a sentence attributing words to it quotes)
PLAIN_PATH_CITATION = re.compile(
    r"(?<![\w./@:#-])((?:[\w-][\w.-]*+/)++[\w-][\w.-]*?\.[A-Za-z]\w{0,9}(?::\d{1,9}(?:[-–]\d{1,9})?)?)"
    r"(?![\w/@-]|\.\w)")
#: a Markdown link to a file of a local checkout (``[a.ts](src/a.ts#L3-L9)``,
#: ``[a.ts](/home/me/src/widgets/src/a.ts#L3)``, ``file://``), not to a URL or an anchor:
#: group 1 the link's text, 2 the path, 3 and 4 the lines of its ``#L`` anchor
LOCAL_LINK = re.compile(
    r"\[([^\[\]\n]{0,300}+)\]\((?:file://)?+(?![a-zA-Z][\w+.-]*+:|#|<)([^()\s#?]++)(?:\?[^()\s#]*+)?"
    r"(?:#L(\d{1,9})(?:C\d{1,9})?(?:-L?(\d{1,9})(?:C\d{1,9})?)?)?[^()\s]*+\)")
#: a setup's clone of a repository in a shell block (``git clone https://github.com/acme/widgets``;
#: group 1 the URL)
GIT_CLONE = re.compile(r"\bgit[ \t]++clone[ \t]++(?:-[\w-]++(?:[ \t]++\d++)?[ \t]++)*+(https?://\S++|git@\S++)")
#: the commit a setup checks out (``git checkout <sha>``, ``git -C widgets switch --detach <sha>``,
#: ``git reset --hard <sha>``, ``git fetch origin <sha>``; group 1 the sha)
GIT_CHECKOUT = re.compile(
    r"\bgit[ \t]++(?:-C[ \t]++\S++[ \t]++)?(?:checkout(?:[ \t]++-q)?|switch[ \t]++--detach|reset[ \t]++--hard"
    r"|fetch(?:[ \t]++--depth[ \t=]\d++)?[ \t]++\S++)[ \t]++([0-9a-fA-F]{7,64})\b")
#: a file of a repository at a commit, written as one value (``acme/widgets@<sha>:docs/a.md``;
#: groups: owner/name, the commit, the path)
REPOSITORY_FILE_AT = re.compile(r"([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)@([0-9a-fA-F]{7,64}):([^\s:]+)")
#: a front matter key naming an ingest's repository with its role (``source_repo``,
#: ``upstream-repository``); ``repo`` alone and its kin are :data:`.pinforms.REPOSITORY_KEYS`
PREFIXED_REPOSITORY_KEY = re.compile(r"(?:source|upstream|origin|target)[_-](?:repo|repository)(?:[_-](?:url|name))?")
#: what every sha a line writes holds (a pin's, :data:`SHA_LIKE`): seven hex digits in a
#: row, or a percent sign (a commit link's sha may be percent-encoded)
SHA_HINT = re.compile(r"[0-9a-fA-F]{7}|%")
#: a word written like a sha: 7 to 64 hex digits, with a digit and a letter among them
SHA_LIKE = re.compile(r"(?<![0-9A-Za-z])(?=[0-9a-fA-F]*[0-9])(?=[0-9a-fA-F]*[a-fA-F])[0-9a-fA-F]{7,64}(?![0-9A-Za-z])")
#: a sha after "commit", "at", "against", "HEAD", ... (backticked, bold or bare), alone in
#: backticks, or after ``@`` (``acme/widgets@4f1c9e0``): an evidence basis's
BASIS_SHA = re.compile(
    r"(?i)(?:\b(?:commit|at|against|revision|rev|sha|head|pin|pinned|checkout)[ \t\n:]+[`*]*|`|@)"
    r"([0-9a-f]{64}|[0-9a-f]{7,40})(?![0-9a-z])"
)
#: ``owner/name`` in backticks before "checkout", "repository", "repo" or "clone", or ``owner/name@sha``
BASIS_REPOSITORY = re.compile(r"`([A-Za-z0-9][\w.-]{0,99})/([\w.-]{1,100})`[ \t\n]+(?:checkout|repository|repo|clone)\b"
                              r"|\b([A-Za-z0-9][\w.-]{0,99})/([\w.-]{1,100})@[0-9a-fA-F]{7,64}\b")
#: a manifest written as a list: `` `docs/a.md` — blob `<hex>` `` (a file, then its blob id, whole or
#: abbreviated as git abbreviates it)
LISTED_BLOB = re.compile(r"(?:`([^`\s|]+)`|(?<![\w./@:-])((?:[\w-][\w.-]*+/)*+[\w-][\w-]*+\.[A-Za-z]\w{0,9}))"
                         r"[^`\n|]{0,40}?\bblob\b[ \t:]*`?([0-9a-fA-F]{7,64})\b`?")
#: a git object id as written whole: 40 hex digits (SHA-1) or 64 (SHA-256)
_OBJECT_ID = r"[0-9a-fA-F]{40}(?:[0-9a-fA-F]{24})?"
#: a manifest's blob id: 40 or 64 hex digits
BLOB_ID = re.compile(_OBJECT_ID)
#: an abbreviated object id (seven hex digits and more, as ``git ls-tree --abbrev`` writes one)
SHORT_OID = re.compile(r"[0-9a-fA-F]{7,39}")
#: a line of a listing git writes of a tree, in a code block: ``git ls-tree`` (``100644 blob
#: <id>\t<path>``, with ``-l`` its size too) and ``git ls-files -s`` (``100644 <id> 0\t<path>``);
#: group 1 the blob id, 2 the path
LISTING_LINE = re.compile(rf"[ \t]*+\d{{6}}[ \t]++(?:blob[ \t]++({_OBJECT_ID})(?:[ \t]++-?\d+)?"
                          rf"|({_OBJECT_ID})[ \t]++[0-3])[ \t]++(\S[^\t]*+)")
#: a line ``sha256sum`` writes: the content's SHA-256, then its file (``*`` before it in binary mode).
#: (It and :data:`LISTING_LINE` are matched against a line without its trailing spaces: the
#: path runs to its end.)
DIGEST_LINE = re.compile(r"[ \t]*+([0-9a-fA-F]{64})[ \t]++\*?(\S[^\t]*+)")
#: any hex word that may be a written commit (re-pin respells the pinned one)
HEX_WORD = re.compile(rf"(?<![0-9A-Za-z])(?:{SHA_DIGITS})(?![0-9A-Za-z])")
#: what a sentence says of a name in backticks right after it, when it says the cited file
#: defines it (`` `classify` exists (`src/facts.ts:68`) ``, `` `Queue` is a class ``)
DECLARES_NAME = re.compile(
    r"(?i)[ \t]*(?:\(\)[ \t]*)?(?:exists\b|is[ \t]+(?:defined|declared|implemented)\b"
    r"|is[ \t]+an?[ \t]+(?:class|function|method|type|struct|interface|protocol|trait|enum|constant)\b)")
#: what a sentence says of a name in backticks when it names the file defining it right after
#: (`` `Queue` is defined in `src/queue.ts` ``, `` `drain()` lives in `pkg/q.py` ``): group 1 the file
DEFINED_IN = re.compile(r"(?i)[ \t]*+(?:\(\)[ \t]*+)?(?:(?:class|function|method|type|struct|interface|trait|enum|constant)"
                        r"[ \t]++)?(?:(?:is|are)[ \t]++)?(?:defined|declared|implemented|lives)[ \t]++in[ \t]++"
                        r"(?:the[ \t]++file[ \t]++)?`([^`\n]+)`")
#: a line that is only a repository and its full commit (``- python/typeshed: `<sha40>` ``,
#: ``- **typeshed**: `<sha40>` ``): a pin with no pin word; a short name must be marked
#: (bold or backticked), ``owner/name`` need not
LISTED_PIN = re.compile(
    r"[ \t]*(?:[-*+][ \t]+|\d{1,3}[.)][ \t]+)?(?P<open>\*\*|__|`)?"
    r"(?P<name>[A-Za-z0-9][\w.-]{0,99}(?:/[A-Za-z0-9][\w.-]{0,99})?)(?P<colon>:)?(?P=open)?[ \t]*(?(colon)|:)"
    r"[ \t]*[`*_]*(?P<sha>[0-9a-fA-F]{64}|[0-9a-fA-F]{40})[`*_]*[ \t]*[.;]?[ \t]*")
#: a path written with a brace group (``src/{a,b}.ts``): each file it expands to is written
BRACE_GROUP = re.compile(r"[\w./-]*\{[^{}\s`]+\}[\w./-]*")
#: a repository's name right after a citation's path (its lines, a backtick): `` `a.md:1` in
#: widgets ``, `` `a.md:1` (gadgets) ``, `` `a.md:1` of acme/gadgets ``
NAME_AFTER_CITATION = re.compile(
    r"(?::L?\d[\d,L\u2013-]*)?`?\)?[ \t]*(?:\((?=[\w./-]+\))|(?:in|of|from)[ \t]+(?:the[ \t]+)?)([A-Za-z0-9][\w./-]*)")
