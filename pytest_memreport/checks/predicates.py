"""Evaluating a claims predicate against one revision of the target.

:func:`evaluate` takes a :class:`~pytest_memreport.dialects.claims.Predicate` and a
snapshot (one commit's tree, or the working tree) and returns a
:class:`PredicateResult`: whether it holds, one readable paragraph saying why,
the files searched and the matches found. Nothing here runs git: files come
from ``snapshot.files()`` and ``snapshot.read()``, whose blobs the store
caches, so many predicates over one boundary read each blob once.

Two rules keep a predicate from passing for the wrong reason:

* an ``absent`` or ``count`` whose boundary selects no file fails ("empty
  boundary"): a search over nothing proves nothing;
* with ``in: code|comments|strings`` a match in a file that has no grammar
  makes the predicate *error* rather than guess where the match sits.
"""

from __future__ import annotations

import bisect
import fnmatch
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from ..runcaches import run_cached
from ..text import match as _match
from ..text import symbols as _symbols
from ..dialects.claims import Predicate

#: how many offending matches a message lists before saying "and N more"
DEFAULT_MAX_LISTED = 10

#: longest excerpt of a matching line shown in a message
_EXCERPT = 160

#: how many skipped (binary, over-size) files a message names
_SKIPPED_LISTED = 5

#: how many matches a result keeps (the message and ``actual`` still count all)
MAX_KEPT_MATCHES = 1000

#: below this similarity (0-100) a "nearest text" is noise, not a hint
_NEAREST_MIN_SCORE = 60


@dataclass(frozen=True)
class Hit:
    """One match: the file, the 1-based line the match starts on, that line's text."""

    path: str
    line: int
    text: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.text}"


@dataclass(frozen=True)
class PredicateResult:
    """The outcome of one predicate at one revision.

    ``error`` means the search could not run (no grammar to tell code from
    comments, nothing readable in the boundary, unsupported language); an
    erroring predicate is never ``ok``. ``actual`` is the count for ``count``
    and the literal found for ``value``.
    """

    ok: bool
    message: str
    boundary: tuple[str, ...] = ()
    matches: tuple[Hit, ...] = ()
    actual: str | int | None = None
    error: bool = False
    #: renames followed to check it (``(as written, as followed)``), see :mod:`.predicate_follow`
    followed: tuple[tuple[str, str], ...] = ()


# --------------------------------------------------------------------------- globs


@run_cached(maxsize=2048)
def _glob_segments(pattern: str) -> tuple[str, ...]:
    # A trailing "/" means "everything below this folder", as in gitignore.
    if pattern.endswith("/"):
        pattern += "**"
    segments: list[str] = []
    for segment in pattern.split("/"):
        if segment in ("", "."):
            continue
        # "**" is special only as a whole segment; "a**b" is just "a*b".
        if segment != "**" and "**" in segment:
            segment = re.sub(r"\*+", "*", segment)
        # "**/**" matches what "**" matches: collapse so matching stays simple.
        if segment == "**" and segments and segments[-1] == "**":
            continue
        segments.append(segment)
    # A trailing "**" selects what is *inside* a folder (one segment or more),
    # so "src/**" does not match a file named "src".
    if segments and segments[-1] == "**":
        segments[-1:] = ["*", "**"]
    return tuple(segments)


def _has_magic(segment: str) -> bool:
    return any(ch in segment for ch in "*?[")


def glob_match(pattern: str, path: str) -> bool:
    """Whether repository path ``path`` matches ``pattern``.

    Patterns are anchored at the repository root and split on ``/``: ``**``
    as a whole segment matches zero or more directories, ``*`` and ``?``
    match within one segment (never across ``/``), ``[abc]`` is a character
    class, and a trailing ``/`` selects everything below a folder. So
    ``src/**/*.py`` matches ``src/a.py`` and ``src/x/y/a.py``; ``*.py``
    matches only top-level files.
    """
    pat = _glob_segments(pattern)
    parts = [p for p in path.split("/") if p]
    # Classic wildcard matching with "**" as the star and a per-segment
    # fnmatch as the character test: greedy, backtracking only to the last
    # "**", so it runs in O(len(pat) * len(parts)) at worst.
    p = s = 0
    star_p = -1
    star_s = 0
    while s < len(parts):
        if p < len(pat) and pat[p] == "**":
            star_p, star_s = p, s
            p += 1
        elif p < len(pat) and fnmatch.fnmatchcase(parts[s], pat[p]):
            p += 1
            s += 1
        elif star_p >= 0:
            star_s += 1
            s = star_s
            p = star_p + 1
        else:
            return False
    while p < len(pat) and pat[p] == "**":
        p += 1
    return p == len(pat)


def literal_prefix(pattern: str) -> str:
    """The folder part of a pattern before its first wildcard, for cheap filtering."""
    prefix = []
    for segment in _glob_segments(pattern)[:-1]:
        if segment == "**" or _has_magic(segment):
            break
        prefix.append(segment)
    return "/".join(prefix) + "/" if prefix else ""


def select_files(patterns: Sequence[str], files: Iterable[str]) -> list[str]:
    """The files (sorted, unique) matching any of ``patterns``."""
    compiled = [(pattern, literal_prefix(pattern)) for pattern in patterns]
    selected = []
    for path in files:
        for pattern, prefix in compiled:
            if path.startswith(prefix) and glob_match(pattern, path):
                selected.append(path)
                break
    return sorted(set(selected))


# --------------------------------------------------------------------------- scanning


@dataclass
class _Scan:
    """What searching a boundary found."""

    boundary: list[str] = field(default_factory=list)
    searched: list[str] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # unreadable files, described
    no_grammar: list[str] = field(default_factory=list)  # files with matches we could not place
    missing: str | None = None  # why a ``path:`` boundary has no file
    #: the boundary comes from git's listing (a glob): paths are read as git spells them
    listed: bool = False


class _LineIndex:
    """Offsets → 1-based line numbers and line text, for one file's text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0]
        self.starts.extend(m.end() for m in re.finditer("\n", text))

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def line_text(self, line: int) -> str:
        start = self.starts[line - 1]
        end = self.starts[line] - 1 if line < len(self.starts) else len(self.text)
        excerpt = self.text[start:end].strip()
        return excerpt if len(excerpt) <= _EXCERPT else excerpt[: _EXCERPT - 1] + "…"


def _short_rev(snapshot: Any) -> str:
    rev = str(getattr(snapshot, "rev", "?"))
    return rev[:12] if re.fullmatch(r"[0-9a-f]{40,64}", rev) else rev


def _boundary_text(args: dict[str, Any]) -> str:
    if "path" in args:
        return args["path"]
    return ", ".join(args["glob"])


def _pattern_text(args: dict[str, Any]) -> str:
    if "regex" in args:
        return f"/{args['regex']}/"
    return '"' + args["text"] + '"'


def _in_text(args: dict[str, Any]) -> str:
    where = args.get("in", "any")
    return "" if where == "any" else f" (in {where})"


def _boundary(args: dict[str, Any], snapshot: Any, scan: _Scan) -> None:
    """Fill ``scan.boundary`` with the files a predicate looks at."""
    if "path" in args:
        path = args["path"]
        found = snapshot.entry(path)
        if found is not None and found.kind == "file":
            scan.boundary.append(path)
        elif found is not None and found.kind == "dir":
            scan.missing = f"{path} is a directory, not a file (use 'glob: {path}/**')"
        elif found is not None:
            scan.missing = f"{path} is a {found.kind}, not a regular file"
        else:
            refused = snapshot.refuse_reason(path)
            scan.missing = f"{path} is refused ({refused})" if refused else f"{path} does not exist"
        return
    scan.listed = True
    scan.boundary.extend(select_files(args["glob"], snapshot.files()))


def _read(snapshot: Any, path: str, scan: _Scan) -> Any | None:
    # A listed path is git's own spelling: never reinterpreted (``src\\evil.py`` is one file).
    return snapshot.read_listed(path) if scan.listed else snapshot.read(path)


def _read_text(snapshot: Any, path: str, scan: _Scan) -> Any | None:
    """The file's TextFile if it is readable text; otherwise note why and return None."""
    textfile = _read(snapshot, path, scan)
    if textfile is None:
        scan.skipped.append(f"{path} could not be read")
        return None
    if not textfile.is_text:
        scan.skipped.append(textfile.describe())
        return None
    scan.searched.append(path)
    return textfile


def _raw_matches(args: dict[str, Any], text: str, key: str) -> list[int]:
    """Start offsets of every match of the predicate's text or regex, in file order."""
    if "regex" in args:
        regex = _compiled_regex(args["regex"])
        return [m.start() for m in regex.finditer(text)]
    pattern = _match.compile_quote(args["text"])
    return [span.start for span in _match.find(pattern, text, key=key)]


@run_cached(maxsize=512)
def _compiled_regex(source: str) -> re.Pattern[str]:
    return re.compile(source, re.MULTILINE)


class _RegionIndex:
    """Answers "is this offset in code, a comment or a string?" for one file."""

    def __init__(self, regions: Iterable[Any]) -> None:
        self.regions = sorted(regions, key=lambda r: (r.start, r.end))
        self.starts = [r.start for r in self.regions]
        # the furthest end among regions[:i+1]: once it is <= offset, no
        # earlier region can hold the offset, so lookups stop after a step or two
        self.reach: list[int] = []
        furthest = -1
        for region in self.regions:
            furthest = max(furthest, region.end)
            self.reach.append(furthest)

    def kind_at(self, offset: int) -> str:
        """``code``, ``comments`` or ``strings``; the innermost (latest-starting)
        region holding ``offset`` decides, in case a grammar nests them."""
        i = bisect.bisect_right(self.starts, offset) - 1
        while i >= 0 and self.reach[i] > offset:
            region = self.regions[i]
            if region.start <= offset < region.end:
                return "comments" if region.kind == "comment" else "strings"
            i -= 1
        return "code"


def _scan(args: dict[str, Any], snapshot: Any) -> _Scan:
    """Search the predicate's boundary for its text or regex, honouring ``in:``."""
    scan = _Scan()
    _boundary(args, snapshot, scan)
    where = args.get("in", "any")
    for path in scan.boundary:
        textfile = _read_text(snapshot, path, scan)
        if textfile is None:
            continue
        text = textfile.text
        offsets = _raw_matches(args, text, textfile.oid)
        if not offsets:
            continue
        if where != "any":
            regions = _symbols.regions(text, path, key=textfile.oid)
            if regions is None:
                scan.no_grammar.append(path)
                continue
            index = _RegionIndex(regions)
            offsets = [o for o in offsets if index.kind_at(o) == where]
        lines = _LineIndex(text)
        for offset in offsets:
            line = lines.line_of(offset)
            scan.hits.append(Hit(path, line, lines.line_text(line)))
    return scan


def _kept(hits: Sequence[Hit]) -> tuple[Hit, ...]:
    return tuple(hits[:MAX_KEPT_MATCHES])


def _listed(hits: Sequence[Hit], limit: int) -> str:
    # " | " rather than "; ": matched lines often end in ";" themselves
    shown = " | ".join(str(hit) for hit in hits[:limit])
    more = len(hits) - limit
    return shown + (f" | and {more} more" if more > 0 else "")


def _notes(scan: _Scan) -> str:
    """Sentences about files that were skipped."""
    if not scan.skipped:
        return ""
    shown = "; ".join(scan.skipped[:_SKIPPED_LISTED])
    more = len(scan.skipped) - _SKIPPED_LISTED
    return f" Skipped {len(scan.skipped)} unreadable file(s): {shown}" + (f"; and {more} more." if more > 0 else ".")


_OPT_OUT = (" Narrow the boundary to text files, or add 'skip_unreadable: true' to search only the files "
            "that can be read.")


def _no_grammar_error(scan: _Scan, args: dict[str, Any], head: str) -> str:
    files = ", ".join(scan.no_grammar)
    return (
        f"{head} cannot tell code from comments in {files}: no grammar for "
        f"{'these files' if len(scan.no_grammar) > 1 else 'this file'}, and the pattern occurs there. "
        f"Narrow the boundary to files with a supported language or use 'in: any'."
    )


def _files_phrase(scan: _Scan) -> str:
    n = len(scan.searched)
    return f"{n} file{'s' if n != 1 else ''}"


# --------------------------------------------------------------------------- kinds


def _scanned(args: dict[str, Any], snapshot: Any, kind: str, where: str = "in", note: str = ""):
    """What every text predicate starts from: the scan of its boundary, the
    boundary, the short revision and the head of its message
    (``contains 'x' in pkg/*.py at 1a2b3c:``)."""
    rev = _short_rev(snapshot)
    scan = _scan(args, snapshot)
    head = f"{kind} {_pattern_text(args) + _in_text(args)} {where} {_boundary_text(args)} at {rev}{note}:"
    return scan, tuple(scan.boundary), rev, head


def _contains(pred: Predicate, snapshot: Any, limit: int) -> PredicateResult:
    args = pred.args
    scan, boundary, rev, head = _scanned(args, snapshot, "contains")
    if scan.missing:
        return PredicateResult(False, f"{head} {scan.missing} at {rev}.", boundary)
    if scan.hits:
        first = scan.hits[0]
        more = len(scan.hits) - 1
        message = f"{head} found at {first}" + (f" (and {more} more)" if more else "") + "." + _notes(scan)
        return PredicateResult(True, message, boundary, _kept(scan.hits))
    if scan.no_grammar:
        return PredicateResult(False, _no_grammar_error(scan, args, head) + _notes(scan), boundary, error=True)
    if not scan.searched:
        if not scan.boundary:
            return PredicateResult(False, f"{head} no file matches {_boundary_text(args)} at {rev}.", boundary)
        return PredicateResult(False, f"{head} no readable file to search." + _notes(scan), boundary, error=True)
    message = f"{head} not found in {_files_phrase(scan)}."
    message += _nearest_note(args, snapshot, scan)
    return PredicateResult(False, message + _notes(scan), boundary)


def _nearest_note(args: dict[str, Any], snapshot: Any, scan: _Scan) -> str:
    """For a quoted text in one file, the closest candidate helps the author most."""
    if "text" not in args or len(scan.searched) != 1:
        return ""
    textfile = _read(snapshot, scan.searched[0], scan)
    if textfile is None:  # searched moments ago; gone only if the work tree changed meanwhile
        return ""
    candidate = _match.nearest(_match.compile_quote(args["text"]), textfile.text, key=textfile.oid)
    if candidate is None or candidate.score < _NEAREST_MIN_SCORE:
        return ""
    text = " ".join(str(candidate.text).split())
    if len(text) > _EXCERPT:
        text = text[: _EXCERPT - 1] + "…"
    return f" Nearest text ({candidate.score:.0f}% similar): {scan.searched[0]}:{candidate.lines}: {text}."


def _absent(pred: Predicate, snapshot: Any, limit: int) -> PredicateResult:
    args = pred.args
    scan, boundary, rev, head = _scanned(args, snapshot, "absent", "from")
    if not scan.boundary:
        why = f" ({scan.missing})" if scan.missing else ""
        return PredicateResult(
            False,
            f"{head} empty boundary: {_boundary_text(args)} matched no file at {rev}{why}; "
            "an absence over no files proves nothing.",
            boundary,
        )
    if scan.hits:
        count = len(scan.hits)
        message = f"{head} found {count} match{'es' if count != 1 else ''}: {_listed(scan.hits, limit)}."
        if scan.no_grammar:
            message += f" Also could not tell code from comments in {', '.join(scan.no_grammar)}."
        return PredicateResult(False, message + _notes(scan), boundary, _kept(scan.hits))
    if scan.no_grammar:
        return PredicateResult(False, _no_grammar_error(scan, args, head) + _notes(scan), boundary, error=True)
    if not scan.searched:
        return PredicateResult(
            False, f"{head} no readable file in the boundary, so nothing was searched." + _notes(scan), boundary,
            error=True,
        )
    if scan.skipped and not args.get("skip_unreadable"):
        return PredicateResult(False, f"{head} unknown: no match in {_files_phrase(scan)}, but the absence is not "
                               f"proven while files of the boundary went unsearched." + _notes(scan) + _OPT_OUT,
                               boundary, error=True)
    return PredicateResult(True, f"{head} no match in {_files_phrase(scan)}." + _notes(scan), boundary)


def _count(pred: Predicate, snapshot: Any, limit: int) -> PredicateResult:
    args = pred.args
    expected = _expected_count(args)
    scan, boundary, rev, head = _scanned(args, snapshot, "count of", note=f" ({expected})")
    if not scan.boundary:
        why = f" ({scan.missing})" if scan.missing else ""
        return PredicateResult(
            False, f"{head} empty boundary: {_boundary_text(args)} matched no file at {rev}{why}.", boundary
        )
    if scan.no_grammar:
        return PredicateResult(False, _no_grammar_error(scan, args, head) + _notes(scan), boundary, error=True)
    if not scan.searched:
        return PredicateResult(False, f"{head} no readable file to count in." + _notes(scan), boundary, error=True)
    actual = len(scan.hits)
    if scan.skipped and not args.get("skip_unreadable"):
        return PredicateResult(False, f"{head} unknown: {actual} in {_files_phrase(scan)}, but files of the boundary "
                               "went uncounted." + _notes(scan) + _OPT_OUT, boundary, _kept(scan.hits),
                               actual=actual, error=True)
    ok = (
        ("equals" not in args or actual == args["equals"])
        and ("min" not in args or actual >= args["min"])
        and ("max" not in args or actual <= args["max"])
    )
    message = f"{head} {actual} in {_files_phrase(scan)}"
    if not ok and scan.hits:
        message += f": {_listed(scan.hits, limit)}"
    return PredicateResult(ok, message + "." + _notes(scan), boundary, _kept(scan.hits), actual=actual)


def _expected_count(args: dict[str, Any]) -> str:
    if "equals" in args:
        return f"expected exactly {args['equals']}"
    parts = []
    if "min" in args:
        parts.append(f"at least {args['min']}")
    if "max" in args:
        parts.append(f"at most {args['max']}")
    return "expected " + " and ".join(parts)


# Definition-looking lines for files without a grammar: an optional run of
# modifiers, a definition keyword, then the name. Each modifier ends in
# whitespace and the keyword list is fixed, so matching stays linear.
_DEFINITION_KEYWORDS = (
    "def|function|fn|func|fun|class|struct|interface|trait|enum|type|module|"
    "object|record|sub|proc|macro|defn|defmacro|impl|const|let|var|val"
)
_MODIFIERS = (
    "export|default|public|private|protected|internal|static|async|abstract|final|"
    "sealed|open|override|inline|pub(?:\\([a-z]+\\))?|unsafe|extern|declare|readonly|data|case"
)


@run_cached(maxsize=256)
def _definition_regex(name: str) -> re.Pattern[str]:
    return re.compile(
        rf"^[ \t]*(?:(?:{_MODIFIERS})[ \t]+)*(?:{_DEFINITION_KEYWORDS})[ \t]+\*?&?{re.escape(name)}(?![\w$])",
        re.MULTILINE,
    )


def _symbol(pred: Predicate, snapshot: Any, limit: int) -> PredicateResult:
    args = pred.args
    rev = _short_rev(snapshot)
    name, kind = args["name"], args.get("kind")
    what = f"{name}" + (f" ({kind})" if kind else "")
    # symbols qualifies with "."; accept Rust/C++ spelling "Store::forget" too
    qualified = name.replace("::", ".")
    scan = _Scan()
    _boundary(args, snapshot, scan)
    boundary = tuple(scan.boundary)
    head = f"symbol {what} in {_boundary_text(args)} at {rev}:"
    if scan.missing:
        return PredicateResult(False, f"{head} {scan.missing} at {rev}.", boundary)
    if not scan.boundary:
        return PredicateResult(False, f"{head} no file matches {_boundary_text(args)} at {rev}.", boundary)
    other_kinds: list[str] = []
    by_text: list[str] = []
    for path in scan.boundary:
        textfile = _read_text(snapshot, path, scan)
        if textfile is None:
            continue
        lines = _LineIndex(textfile.text)
        definitions = _symbols.find_definitions(textfile.text, path, qualified, kind=kind, key=textfile.oid)
        if definitions is None:
            # No grammar: a definition-looking line is the best evidence there is.
            by_text.append(path)
            last = qualified.rsplit(".", 1)[-1]
            for m in _definition_regex(last).finditer(textfile.text):
                line = lines.line_of(m.start())
                scan.hits.append(Hit(path, line, lines.line_text(line)))
            continue
        for definition in definitions:
            line = definition.lines.start
            scan.hits.append(Hit(path, line, lines.line_text(line)))
        if not definitions and kind:
            for definition in _symbols.find_definitions(textfile.text, path, qualified, key=textfile.oid) or ():
                other_kinds.append(f"{definition.kind} at {path}:{definition.lines.start}")
    text_note = (
        f" No grammar for {', '.join(by_text)}: searched for a definition-looking line instead"
        + (", kind not checked." if kind else ".")
        if by_text
        else ""
    )
    if scan.hits:
        message = f"{head} defined at {_listed(scan.hits, limit)}." + text_note + _notes(scan)
        return PredicateResult(True, message, boundary, _kept(scan.hits))
    if not scan.searched:
        return PredicateResult(False, f"{head} no readable file to search." + _notes(scan), boundary, error=True)
    message = f"{head} no definition found in {_files_phrase(scan)}."
    if other_kinds:
        message += f" {name} is defined, but as {'; '.join(other_kinds)}."
    return PredicateResult(False, message + text_note + _notes(scan), boundary)


def _value(pred: Predicate, snapshot: Any, limit: int) -> PredicateResult:
    args = pred.args
    rev = _short_rev(snapshot)
    path, symbol, expected = args["path"], args["symbol"], args["equals"]
    head = f"value of {symbol} in {path} at {rev} (expected {expected!r}):"
    scan = _Scan()
    _boundary(args, snapshot, scan)
    boundary = tuple(scan.boundary)
    if scan.missing:
        return PredicateResult(False, f"{head} {scan.missing} at {rev}.", boundary)
    if _symbols.language_for(path) is None:
        return PredicateResult(
            False,
            f"{head} the language of {path} is not supported for 'value' (no grammar); "
            "use a 'contains' or 'count' predicate with a regex instead.",
            boundary,
            error=True,
        )
    textfile = _read_text(snapshot, path, scan)
    if textfile is None:
        return PredicateResult(False, f"{head} cannot read the file." + _notes(scan), boundary, error=True)
    literal = _symbols.value_of(textfile.text, path, symbol, key=textfile.oid)
    if literal is None:
        return PredicateResult(False, f"{head} no literal value assigned to {symbol} found.", boundary)
    ok = _symbols.literal_equals(literal, expected)
    verdict = "equals" if ok else "differs:"
    return PredicateResult(ok, f"{head} {verdict} {literal}.", boundary, actual=literal)


_EVALUATORS: dict[str, Callable[[Predicate, Any, int], PredicateResult]] = {
    "contains": _contains,
    "absent": _absent,
    "count": _count,
    "symbol": _symbol,
    "value": _value,
}


def evaluate(predicate: Predicate, snapshot: Any, max_listed: int = DEFAULT_MAX_LISTED) -> PredicateResult:
    """Evaluate ``predicate`` against ``snapshot`` (a ``gitstore.Snapshot``).

    ``max_listed`` caps how many offending matches a message lists.
    """
    evaluator = _EVALUATORS.get(predicate.kind)
    if evaluator is None:
        return PredicateResult(False, f"unknown predicate kind {predicate.kind!r}", error=True)
    return evaluator(predicate, snapshot, max_listed)
