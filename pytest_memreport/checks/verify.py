"""Is a piece of evidence true at its pin?

:func:`check_at_pin` takes one :class:`~pytest_memreport.model.Evidence` and
the :class:`~pytest_memreport.gitstore.Snapshot` of its pinned commit and
returns a :class:`PinResult`. It reads through the snapshot only, so it is the
same check for a commit and for a working tree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text import match, symbols
from ..text.quotes.typography import plain_text, plain_typography
from ..model import Evidence, EvidenceKind, EvidenceRole, LineRange

FOUND = "found"
MISSING = "missing"
FILE_MISSING = "file-missing"
COMMIT_MISSING = "commit-missing"
REFUSED = "refused"
UNREADABLE = "unreadable"
AMBIGUOUS = "ambiguous"


@dataclass(frozen=True, slots=True)
class PinResult:
    """What one piece of evidence looks like at its pin.

    ``status`` is one of ``found``, ``missing`` (file there, quote not),
    ``file-missing``, ``commit-missing``, ``refused`` (a path the checker will
    not read: escapes the repository, a symlink, ...) or ``unreadable``
    (binary or over the size limit). ``lines`` is where the quote was found;
    ``in_cited_range`` says whether that lies inside the report's cited range;
    :attr:`misplaced` whether it lies wholly outside it (the anchor is wrong:
    the pin item fails, though the quote itself was found and drift follows it).
    """

    status: str
    rev: str
    path: str
    lines: LineRange | None = None
    in_cited_range: bool | None = None
    by_tokens: bool = False
    candidate: match.Candidate | None = None
    #: every place the quote occurs in the file (the first is ``lines``)
    occurrences: tuple[LineRange, ...] = ()
    symbol: symbols.Definition | None = None
    #: the content of cited lines at the pin (line anchors), for drift
    recorded_text: str | None = None
    oid: str | None = None
    #: false when the enclosing definition was not looked up (nothing asked for it)
    symbol_known: bool = True
    note: str | None = None
    message: str = ""
    #: found, but wholly outside the cited lines (``#L100-L103`` for a quote at 619-622)
    misplaced: bool = False
    #: a prose quotation found only once its typography was set aside (emphasis, curly quotes)
    by_typography: bool = False
    #: the quotation's other reading (as Markdown shows it, :attr:`~..model.Evidence.shown_text`)
    #: when only that was found: drift follows this text
    found_as: str | None = None
    #: found with its bare ``...`` as the file's own characters, not as elisions: drift
    #: holds it to them (:attr:`..text.match.QuotePattern.literal`)
    literal: bool = False

    @property
    def ok(self) -> bool:
        return self.status == FOUND

    def as_json(self) -> dict:
        out: dict = {"status": self.status, "lines": self.lines.pair() if self.lines else None}
        if self.in_cited_range is not None:
            out["in_cited_range"] = self.in_cited_range
        if self.misplaced:
            out["misplaced"] = True
        if self.by_tokens:
            out["found_by"] = "tokens"
        elif self.by_typography:
            out["found_by"] = "typography"
        if self.found_as is not None:
            out["found_as"] = "shown"
        if self.literal:
            out["literal_dots"] = True
        if len(self.occurrences) > 1:
            out["occurrences"] = tuple(r.pair() for r in self.occurrences)
        if self.symbol is not None:
            out["symbol"] = self.symbol.as_json()
        if self.candidate is not None:
            out["candidate"] = self.candidate.as_json()
        if self.note:
            out["note"] = self.note
        return out



def check_at_pin(evidence: Evidence, snapshot, with_symbol: bool = True) -> PinResult:
    """Check ``evidence`` against ``snapshot`` (a commit's or the working tree's files).

    ``with_symbol=False`` skips finding the enclosing definition (a tree-sitter
    parse of the file); drift looks it up itself when the file changed.
    """
    if evidence.kind is EvidenceKind.COMMIT:
        # The engine resolved the linked commit to get this snapshot: it exists.
        return PinResult(FOUND, snapshot.rev, evidence.path, message=f"commit {snapshot.rev[:12]} exists in the clone")
    if evidence.searched:
        from . import attributed  # it searches the tree through drift, which imports this module

        return attributed.check(evidence, snapshot, with_symbol)
    refusal = snapshot.refuse_reason(evidence.path)
    if refusal:
        return PinResult(REFUSED, snapshot.rev, evidence.path, message=f"{evidence.path}: {refusal}")
    if evidence.kind is EvidenceKind.DIRECTORY:
        if snapshot.is_dir(evidence.path):
            return PinResult(FOUND, snapshot.rev, evidence.path, message=f"directory {evidence.path} exists")
        return PinResult(FILE_MISSING, snapshot.rev, evidence.path, message=f"no directory {evidence.path}")
    entry = snapshot.entry(evidence.path)
    if entry is None:
        return PinResult(FILE_MISSING, snapshot.rev, evidence.path, message=f"no file {evidence.path}")
    if entry.kind == "dir":
        if evidence.kind is EvidenceKind.PATH:
            return PinResult(FOUND, snapshot.rev, evidence.path, message=f"{evidence.path} is a directory")
        return PinResult(FILE_MISSING, snapshot.rev, evidence.path, message=f"{evidence.path} is a directory, not a file")
    if entry.kind in ("symlink", "submodule"):
        what = "a symbolic link (not followed)" if entry.kind == "symlink" else "a submodule (gitlink); its content is another repository"
        if evidence.kind is EvidenceKind.PATH:
            return PinResult(FOUND, snapshot.rev, evidence.path, oid=entry.oid, message=f"{evidence.path} exists",
                             note=f"{evidence.path} is {what}")
        return PinResult(REFUSED, snapshot.rev, evidence.path, message=f"{evidence.path} is {what}")
    if evidence.kind is EvidenceKind.PATH:
        if evidence.role is EvidenceRole.MANIFEST:
            if len(evidence.text or "") == 64 and len(entry.oid) == 40:
                return _manifest_digest(evidence, snapshot, entry.oid)
            return _manifest_blob(evidence, snapshot.rev, entry.oid)
        return PinResult(FOUND, snapshot.rev, evidence.path, oid=entry.oid, message=f"{evidence.path} exists")
    textfile = snapshot.read(evidence.path)
    if textfile is None:  # raced away between entry() and read(): treat as absent
        return PinResult(FILE_MISSING, snapshot.rev, evidence.path, message=f"no file {evidence.path}")
    return check_text(evidence, snapshot.rev, textfile, with_symbol)


def _manifest_blob(evidence: Evidence, rev: str, oid: str) -> PinResult:
    """A manifest's row: the file at the pin is the blob the manifest names (a prefix will do)."""
    stated = (evidence.text or "").lower()
    if stated and oid.lower().startswith(stated):
        return PinResult(FOUND, rev, evidence.path, oid=oid, message=f"{evidence.path} is blob {stated[:12]}")
    if len(stated) >= 7 and rev.lower().startswith(stated):
        # (a column headed ``SHA`` of one row: the commit the file was read at, not its blob)
        return PinResult(MISSING, rev, evidence.path, oid=oid,
                         message=f"{stated[:12]} is the pinned commit, not a blob of {evidence.path}: if the "
                                 "column names the commit each file was read at, head it `Commit`")
    return PinResult(MISSING, rev, evidence.path, oid=oid,
                     message=f"{evidence.path} is blob {oid[:12]} at the pin, not {stated[:12]} as the manifest "
                             "states: the manifest lists another version of the file (or another pin)")


def _manifest_digest(evidence: Evidence, snapshot, oid: str) -> PinResult:
    """A manifest's row naming its file by 64 hex digits in a repository whose blob ids have
    40: the SHA-256 of the file's content (an ingest's checksum), compared with the bytes at
    the pin. Drift then follows the file's blob, as for a blob id: another blob is other content."""
    stated = (evidence.text or "").lower()
    digest = snapshot.content_sha256(evidence.path)
    if digest is None:
        return PinResult(UNREADABLE, snapshot.rev, evidence.path, oid=oid,
                         message=f"{evidence.path} at the pin is over the size limit: its SHA-256 is not computed "
                                 "(raise it with --memreport-max-file-size)")
    if digest == stated:
        return PinResult(FOUND, snapshot.rev, evidence.path, oid=oid,
                         message=f"{evidence.path} has SHA-256 {stated[:12]} (its content's digest; blob {oid[:12]})")
    return PinResult(MISSING, snapshot.rev, evidence.path, oid=oid,
                     message=f"{evidence.path}'s content has SHA-256 {digest[:12]} at the pin, not {stated[:12]} as "
                             "the manifest states: the manifest lists another version of the file (or another pin)")


def pinned_file(evidence: Evidence, snapshot):
    """What :func:`check_at_pin` reads for a quotation or cited range: its file's
    :class:`~pytest_memreport.text.textfile.TextFile` when the answer depends on the text
    (then :func:`check_text` gives it), else the answer itself (a :class:`PinResult`)."""
    if evidence.kind not in (EvidenceKind.QUOTE, EvidenceKind.LINES) or evidence.searched \
            or snapshot.refuse_reason(evidence.path):
        return check_at_pin(evidence, snapshot, with_symbol=False)
    entry = snapshot.entry(evidence.path)
    textfile = snapshot.read(evidence.path) if entry is not None and entry.kind == "file" else None
    return textfile if textfile is not None else check_at_pin(evidence, snapshot, with_symbol=False)


def check_text(evidence: Evidence, rev: str, textfile, with_symbol: bool = True) -> PinResult:
    """A quotation or cited range checked in its file's text at ``rev`` (the part of
    :func:`check_at_pin` after the read: a pure function of the text)."""
    if not textfile.is_text:
        return PinResult(UNREADABLE, rev, evidence.path, oid=textfile.oid, message=textfile.describe())
    if evidence.kind is EvidenceKind.LINES:
        return _check_lines(evidence, rev, textfile, with_symbol)
    return locate_quote(evidence, rev, textfile, with_symbol)


def locate_quote(evidence: Evidence, rev: str, textfile, with_symbol: bool = True) -> PinResult:
    """Find a quotation in one file's text, by characters first, then by tokens."""
    text = textfile.text
    # Most quotations are in their file as written, and nothing else there could be one:
    # known without compiling a pattern or indexing the text (the same answer as below).
    written = match.as_written(evidence.text or "", text, key=textfile.oid or None)
    literal: list | bool = False
    if written is not None:
        found, by_tokens = tuple(span.lines for span in written), False
    else:
        pattern = match.compile_quote(evidence.text or "")
        # Code holds ``...`` (``x: int = ...``, ``f(...args)``) far more often than a writer
        # elides with it: read as the file's own characters first, as an elision after.
        literal = pattern.literal is not None and match.find(pattern.literal, text, key=textfile.oid or None)
        if literal:
            found, by_tokens = tuple(span.lines for span in literal), False
        else:
            found, by_tokens = occurrences(pattern, text, evidence.path, key=textfile.oid or None)
    note = textfile.note
    by_typography = False
    if not found and evidence.role is not None:
        found = _prose_occurrences(evidence.text or "", text, textfile.oid)
        by_typography = bool(found)
        if found:
            note = "; ".join(filter(None, [note, "found once typography was set aside (emphasis, curly quotes, "
                                                 "a capital adapted to the sentence)"]))
    found_as = None
    if not found:
        found, by_tokens = _marked_block_occurrences(evidence, text, evidence.path, textfile.oid or None)
        if found:
            note = "; ".join(filter(None, [note, "found once the comments after code on its lines were set "
                                                 "aside (the writer's marks, as `// @audit`)"]))
    if not found and evidence.shown_text:
        # Escaped for Markdown's sake (``\_\_init\_\_``): the quote is what a reader sees.
        found, by_tokens = occurrences(evidence.shown_text, text, evidence.path, key=textfile.oid or None)
        if found:
            found_as = evidence.shown_text
            note = "; ".join(filter(None, [note, "found as Markdown shows the quotation (its escapes or emphasis "
                                                 "read), not as the report's source writes it"]))
    if not found and is_lfs_pointer(text):
        return PinResult(
            UNREADABLE, rev, evidence.path, oid=textfile.oid,
            message=f"{evidence.path} at the pin is a Git LFS pointer: its content is not in git "
                    "(LFS keeps it on its own server), so no quotation of it can be checked",
        )
    if not found:
        candidate = match.nearest(match.compile_quote(evidence.text or ""), text, key=textfile.oid or None,
                                  near=evidence.cited_lines)
        return PinResult(
            MISSING, rev, evidence.path, candidate=candidate, oid=textfile.oid, note=textfile.note,
            message=f"quotation not found in {evidence.path}",
        )
    lines = _preferred(found, evidence.cited_lines)
    cited = evidence.cited_lines
    inside = cited.contains(lines) if cited else None
    misplaced = cited is not None and inside is False and not (lines.start <= cited.end and cited.start <= lines.end)
    definition = symbols.enclosing(text, evidence.path, lines, key=textfile.oid) if with_symbol else None
    return PinResult(
        FOUND, rev, evidence.path, lines=lines, in_cited_range=inside, by_tokens=by_tokens,
        occurrences=found, symbol=definition, oid=textfile.oid, note=note,
        symbol_known=with_symbol, misplaced=misplaced, by_typography=by_typography, found_as=found_as,
        literal=bool(literal), message=_found_message(evidence, lines, inside, misplaced, by_tokens),
    )


#: A Git LFS pointer file: what git stores in place of a file kept by LFS
#: (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md: under 1024 bytes, a
#: ``version`` line first, then sorted ``key value`` lines with ``oid`` and ``size``).
_LFS_POINTER = re.compile(
    r"version https://(?:git-lfs\.github\.com|hawser\.github\.com)/spec/v1\n"
    r"(?:[a-z0-9.-]+ [^\n]*\n)*?oid sha256:[0-9a-f]{64}\n(?:[a-z0-9.-]+ [^\n]*\n)*?size \d+\n"
    r"(?:[a-z0-9.-]+ [^\n]*\n)*")


def is_lfs_pointer(text: str) -> bool:
    """Whether a file's text is a Git LFS pointer (its content is not in git)."""
    return len(text) < 1024 and _LFS_POINTER.fullmatch(text) is not None


def occurrences(quote: match.QuotePattern | str, text: str, path: str,
                key: str | None = None) -> tuple[tuple[LineRange, ...], bool]:
    """Where ``quote`` occurs in ``text`` (the file at ``path``): every place by
    characters, else every place by tokens (then the flag is true); ``()`` when
    nowhere. ``key`` (a blob id) keys the per-text caches. A compiled quote keeps the
    reading it was compiled with (its ``...`` as elisions, or literal)."""
    pattern = match.as_pattern(quote)
    spans = match.find(pattern, text, key=key)
    if spans:
        return tuple(span.lines for span in spans), False
    quote = pattern.text
    # Lexing is the costliest step: only where the quote's words allow a match.
    windows = match.token_windows(quote, text, path)
    found = symbols.token_find_all(quote, text, path, key=key, windows=windows) if windows else ()
    return found, bool(found)


def _prose_occurrences(quote: str, text: str, oid: str | None) -> tuple[LineRange, ...]:
    """Where a quotation of running prose occurs once its typography is set aside on both
    sides (Markdown emphasis, curly quotes and apostrophes; :func:`.plain_typography`),
    and its first letter, which a sentence may capitalise, is taken in either case."""
    plain_quote, plain = plain_typography(quote), plain_text(text, oid or None)
    key = f"typography:{oid}" if oid else None
    variants = [plain_quote]
    if plain_quote[:1].isalpha():
        variants.append(plain_quote[0].swapcase() + plain_quote[1:])
    for variant in variants:
        spans = match.find(match.compile_quote(variant), plain, key=key)
        if spans:
            return tuple(span.lines for span in spans)
    return ()


def located_lines(evidence: Evidence, text: str, path: str, key: str | None = None) -> LineRange | None:
    """The lines a quotation or cited range occupies in ``text`` (its file at the pin), as
    :func:`check_at_pin` finds them; ``None`` where it does not."""
    if evidence.kind is EvidenceKind.LINES:
        cited = evidence.cited_lines
        return cited if cited is not None and cited.end <= len(_file_lines(text)) else None
    found, _ = occurrences(evidence.text or "", text, path, key=key)
    if not found:
        found, _ = _marked_block_occurrences(evidence, text, path, key)  # (as :func:`locate_quote` reads it)
    return _preferred(found, evidence.cited_lines) if found else None


def _marked_block_occurrences(evidence: Evidence, text: str, path: str,
                              key: str | None) -> tuple[tuple[LineRange, ...], bool]:
    """Where a code block a report shows (``LOOSE``) occurs once the comments after code on
    its lines are read as elisions (the writer's marks, `// @audit ...`); ``((), False)`` for
    any other evidence, or a block with no such comment."""
    annotated = match.comments_elided(evidence.text or "") if evidence.role is EvidenceRole.LOOSE else None
    return occurrences(annotated, text, path, key=key) if annotated is not None else ((), False)


def _preferred(occurrences: tuple[LineRange, ...], cited: LineRange | None) -> LineRange:
    """The occurrence the report means: the one inside the cited range, else the first."""
    if cited is not None:
        for lines in occurrences:
            if cited.contains(lines):
                return lines
        for lines in occurrences:
            if lines.start <= cited.end and cited.start <= lines.end:
                return lines
    return occurrences[0]


def _found_message(evidence: Evidence, lines: LineRange, inside: bool | None, misplaced: bool, by_tokens: bool) -> str:
    how = " (matched by tokens: the code was reformatted)" if by_tokens else ""
    cited = evidence.cited_lines
    if misplaced:
        # Wholly elsewhere: the anchor points a reader at the wrong code.
        return f"cited {cited}, found at {lines} of {evidence.path}{how}"
    where = f"found in {evidence.path} at lines {lines}{how}"
    if inside is False:
        where += f"; partly outside the cited lines {cited}"
    return where


def _file_lines(text: str) -> list[str]:
    """A file's lines as a line anchor counts them (a final newline ends the last line)."""
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def _check_lines(evidence: Evidence, rev: str, textfile, with_symbol: bool = True) -> PinResult:
    """A line anchor (``#L10-L20``): the lines exist; their content is recorded for drift."""
    cited = evidence.cited_lines
    lines = _file_lines(textfile.text)
    if cited is None or cited.end > len(lines):
        have = len(lines)
        return PinResult(
            MISSING, rev, evidence.path, oid=textfile.oid,
            message=f"{evidence.path} has {have} lines; the anchor cites lines {cited}",
        )
    content = "\n".join(lines[cited.start - 1 : cited.end])
    definition = symbols.enclosing(textfile.text, evidence.path, cited, key=textfile.oid) if with_symbol else None
    return PinResult(
        FOUND, rev, evidence.path, lines=cited, in_cited_range=True, recorded_text=content,
        symbol=definition, oid=textfile.oid, message=f"{evidence.path} lines {cited} exist",
        symbol_known=with_symbol,
    )
