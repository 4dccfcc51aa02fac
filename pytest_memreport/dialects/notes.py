"""Notes (docs/FORMATS.md §4): prose analyses of one target, pinned once, arguing in prose.

A note cites the target as a review does (blob and tree links, ``> --- [path](...)``
blockquotes, backticked paths, symbol names beside links: :class:`.core.linked.LinkReader`
reads those, for reviews too); this dialect composes that reader and adds, through its
:class:`.core.linked.LinkExtension` points, what prose adds, over :mod:`.core`:

* **The pin** from the opening evidence-basis line (:mod:`.core.basis`): its commit
  link, full or short, or a sha written after "commit"; a review-style header
  (``**Reviewed commit:**``) is read as in reviews. What the note was "originally
  written against" is history (``meta["originally-written-against"]``), never the pin;
  the date beside the pin is ``meta["pin-date"]`` (how old a clone must be to lack it).
* **Commit links** elsewhere: ``COMMIT`` evidence, checked to exist and, at the
  against-revision, to be one of its ancestors (``context``: every commit the note
  links in that repository, so one git question answers for all).
* **Quotations** in the three ties of :mod:`.core.ties`: beside a link, a blockquote
  whose last line or introducing sentence links a file, a phrase a sentence attributes
  to the files it names (all ``role=PROSE``: held by one of them, typography forgiven);
  a phrase the sentence attributes to the project (``PROJECT``), or to nothing, only
  near the files it names or near none (``TERM``): the files the sentence, the
  paragraph, then the note links, then the pinned tree.
* **Not evidence** the note shows as such: files of the reader's own project
  (``OWN_PROJECT``); backticked paths are resolved against the pinned tree
  (``lookup``), so the knowledge base's own paths are told apart there.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import replace

from ..model import LOOKUP_TREE, Evidence, EvidenceKind, EvidenceRole, Report
from . import core
from .core import linked
from .core import basis as basis_lines
from .core import ties
from .core.grammar import SOURCE_LINK

DIALECT = "notes"

#: label of a backticked path the sentence places in the reader's own project
OWN_PROJECT_PATH = "file of the reader's own project"
#: how many linked files a phrase attributed to the project is looked for in before the tree
MAX_CONTEXT = 64
#: paragraphs or list items an evidence basis may run over before its commit is named
MAX_BASIS_PARTS = 4
#: what may stand beside a source link on a blockquote's last line
_FENCE_MARKER = re.compile(r"[ \t]*(?:`{3,}|~{3,})[^`\n]*")
_SOURCE_WORDS = re.compile(r"(?i)^[\s()\[\]:;.,*_`—–-]*(?:(?:source|see|from|in|via|per)\b[\s():;.,*_`—–-]*)*$")


def parse(path: str, text: str, introduced_by_colon: bool = False) -> Report:
    """Parse a note into the report model. Never raises. ``introduced_by_colon``: a
    blockquote is the file's that the paragraph above names only when that paragraph ends
    with a colon (``The page [a.md](...) puts it this way:``), as a document that is not a
    note is read: there a blockquote after a citation is as often the writer's own aside."""
    reader = linked.LinkReader(path, text, DIALECT)
    return reader.parse(_Note(reader, introduced_by_colon))


def detects(text: str) -> bool:
    """Whether ``text`` is a note: it states an evidence basis on a line of its own."""
    return basis_lines.BASIS_LINE.search(text) is not None


class _Note:
    """What a note reads beyond the links a review reads (``reader``'s): its pin, commit
    links, backticked paths resolved against the tree and the quotations of its prose."""

    def __init__(self, reader: linked.LinkReader, introduced_by_colon: bool = False) -> None:
        self.reader = reader
        self.introduced_by_colon = introduced_by_colon
        #: inlines read for their ties, by identity (paths and quotations both ask)
        self._paragraphs: dict[int, ties.Paragraph] = {}
        #: casefolded repository -> the commits the note links there (outside its basis)
        self._commit_links: dict[str, dict[str, None]] | None = None
        self._note_files: list[str] = []
        self.basis = self._read_basis()
        #: report lines of the basis paragraph: its commit links are the pin and history
        self.basis_lines: set[int] = set()
        if self.basis is not None:
            self.basis_lines = set(range(self.basis.line, self._basis_end + 1))

    # ------------------------------------------------------------------ the pin

    def _read_basis(self) -> basis_lines.Basis | None:
        self._basis_end = 0
        inlines = self.reader.layout.inlines
        for index, inline in enumerate(inlines):
            if inline.line in self.reader.skip:
                continue
            text, _ = _shown(inline.pieces)
            if not basis_lines.BASIS_LINE.match(("# " if inline.container == "heading" else "") + text.lstrip()):
                continue
            # The basis may go on in a list or paragraph below (or under an "Evidence basis" heading).
            parts = [] if inline.container == "heading" else [inline]
            named = bool(parts) and basis_lines.read_basis(*_shown_parts(parts), inline.line).sha is not None
            for following in inlines[index + 1:index + 1 + MAX_BASIS_PARTS]:
                if following.container == "heading" or (named and not (
                        parts[-1].container == following.container == "item")):
                    break  # once the pin is named, only the rest of the basis's own list goes on
                parts.append(following)
                named = named or basis_lines.read_basis(*_shown(following.pieces), inline.line).sha is not None
            if not parts:
                return None
            self._basis_end = parts[-1].end_line
            return basis_lines.read_basis(*_shown_parts(parts), inline.line)
        if not self.reader.markdown:
            for line in self.reader.lines:
                if basis_lines.BASIS_LINE.match(line.text):
                    self._basis_end = line.number
                    links = [(m.start(), m.group()) for m in core.BARE_URL.finditer(line.text)]
                    return basis_lines.read_basis(line.text, links, line.number)
        return None

    def repositories_and_pins(self) -> None:
        basis = self.basis
        if basis is None:
            return
        if basis.history:
            self.reader.meta["originally-written-against"] = list(basis.history)
        if basis.sha is None:
            return
        if basis.date:
            self.reader.meta["pin-date"] = basis.date
        if basis.repo is not None:
            repo = self.reader.repository(basis.repo, basis.url, basis.line)
        elif self.reader.main_repo is not None:
            repo = self.reader.repos[self.reader.main_repo]
        else:
            repo = self.reader.repository("SRC-1", None, basis.line)
        self.reader.pin(repo, basis.sha, basis.line)
        self.reader.main_repo = repo.id.casefold()

    # ------------------------------------------------------------------ commit links

    def link_evidence(self, link: core.RepositoryLink, text: str, line: int) -> bool:
        if link.kind != "commit":
            return False  # read as in reviews
        sha = link.ref.lower()
        if line in self.basis_lines or self._is_pin(sha):
            return True  # the pin (stated again, or in a review-style header), or the history of the note
        source = self.reader.source_of(link)
        self.reader.collected.add(Evidence(EvidenceKind.COMMIT, "", line, line, source=source, pin=sha,
                                    context=self._commits_of(link.repo_id),
                                    label=self.reader.label(f"commit {text}", line)))
        return True

    def _is_pin(self, sha: str) -> bool:
        return any(repo.pin and linked.same_commit(repo.pin, sha) for repo in self.reader.repos.values())

    def _commits_of(self, repo_id: str) -> tuple[str, ...]:
        """Every commit the note links in ``repo_id`` outside its basis (asked about together)."""
        found = self._commit_links
        if found is None:
            found = self._commit_links = {}
            for number in sorted(self.reader.links):
                if number in self.basis_lines:
                    continue
                for piece in self.reader.links[number]:
                    link = core.parse_repository_link(piece.href)
                    if link is not None and link.kind == "commit" and not self._is_pin(link.ref.lower()):
                        found.setdefault(link.repo_id.casefold(), {})[link.ref.lower()] = None
        return tuple(found.get(repo_id.casefold(), {}))

    # ------------------------------------------------------------------ paths

    def backticked_paths(self) -> bool:
        """Backticked paths, resolved against the pinned tree (so a path of the knowledge
        base itself is told apart there); one the sentence puts in the reader's own project
        ("in your repository") is no evidence of the target."""
        for inline in self.reader.layout.inlines:
            para = None
            codes = [piece for piece in inline.pieces if piece.kind == "code"]
            for index, piece in enumerate(codes):
                if piece.line in self.reader.quoted or piece.line in self.reader.skip:
                    continue
                spec = linked.repo_path_spec(piece.text)
                if spec is None:
                    continue
                if para is None:
                    para = self._paragraph(inline)
                if ties.in_own_project(para.clause_at(para.code_spans[index][0])):
                    self.reader.collected.add(Evidence(EvidenceKind.PATH, spec.path, piece.line, piece.line,
                                                source=self.reader.main_source, label=OWN_PROJECT_PATH,
                                                role=EvidenceRole.OWN_PROJECT))
                    continue
                before = len(self.reader.collected.evidence)
                self.reader.path_evidence(spec, piece.line, linked.BACKTICKED_PATH, mention=True)
                for at in range(before, len(self.reader.collected.evidence)):
                    added = self.reader.collected.evidence[at]
                    if added.kind in (EvidenceKind.PATH, EvidenceKind.DIRECTORY):
                        self.reader.collected.evidence[at] = _looked_up(added)
        return True

    # ------------------------------------------------------------------ quotations

    def prose_evidence(self) -> None:
        if not self.reader.markdown:
            return  # a plain rendering's quotations end `` --- path`` and are read as in reviews
        self._note_files = self._linked_files()
        for inline in self.reader.layout.inlines:
            if inline.line in self.reader.skip or inline.line in self.reader.quoted:
                continue
            if inline.quote_depth == 0 and inline.container != "heading":
                self._running_text(inline)
        self._blockquotes()

    def _names_file(self, href: str, text: str) -> bool:
        if href:
            link = core.parse_repository_link(href)
            return link is not None and link.kind == "blob" and bool(link.path)
        spec = _named_path(text)
        return spec is not None and not spec.is_directory

    def _file_of(self, named: ties.Named) -> tuple[str, str | None, str | None] | None:
        """``(path, source, pin)`` of a named file."""
        if named.href:
            link = core.parse_repository_link(named.href)
            if link is None or not link.path:
                return None
            return link.path, self.reader.source_of(link), link.ref.lower() if link.ref_is_sha else None
        spec = _named_path(named.text)
        return (spec.path, self.reader.main_source, None) if spec is not None else None

    def _commit_of(self, source: str | None, pin: str | None) -> tuple[str, str | None]:
        """The repository and commit a file is read at: its link's own, else its repository's pin."""
        key = (source or "").casefold()
        repo = self.reader.repos.get(key)
        stated = pin or (repo.pin if repo is not None else None)
        return key, stated[:7] if stated else None

    def _linked_files(self) -> list[str]:
        """Every file the note links in its own repository, in order (where the project's words are looked for)."""
        files: dict[str, None] = {}
        for number in sorted(self.reader.links):
            for piece in self.reader.links[number]:
                link = core.parse_repository_link(piece.href)
                if link is not None and link.kind == "blob" and link.path and self._is_main(link):
                    files[link.path] = None
        return list(files)

    def _is_main(self, link: core.RepositoryLink) -> bool:
        return self.reader.main_repo is None or link.repo_id.casefold() == self.reader.main_repo

    def _paragraph(self, inline) -> ties.Paragraph:
        """An inline read for its ties, once (paths and quotations both ask)."""
        found = self._paragraphs.get(id(inline))
        if found is None:
            found = self._paragraphs[id(inline)] = ties.paragraph(inline.pieces, self._names_file)
        return found

    def _running_text(self, inline) -> None:
        text = "".join(piece.text for piece in inline.pieces)
        if '"' not in text and "“" not in text:
            return
        para = self._paragraph(inline)
        for tie in ties.ties(para):
            if tie.how in (ties.BESIDE, ties.SENTENCE):
                self._tied(tie.text, tie.line, tie.line, list(tie.files))
                continue
            own = [f[0] for f in (self._file_of(n) for n in (*tie.files, *para.named))
                   if f is not None and f[1] == self.reader.main_source]
            context = tuple(dict.fromkeys([*own, *self._note_files]))[:MAX_CONTEXT]
            role = EvidenceRole.PROJECT if tie.how == ties.PROJECT else EvidenceRole.TERM
            what = "quotation attributed to the project" if role is EvidenceRole.PROJECT else "quoted phrase"
            self.reader.collected.add(Evidence(EvidenceKind.QUOTE, context[0] if context else "", tie.line, tie.line,
                                        text=tie.text, source=self.reader.main_source, context=context[1:],
                                        role=role, label=self.reader.label(what, tie.line)))

    def _tied(self, text: str, line: int, end: int, named: list[ties.Named]) -> None:
        """A quotation of the first named file, or of any of the others in its repository at its commit."""
        files = [f for f in (self._file_of(n) for n in named) if f is not None]
        if not files:
            return
        path, source, pin = files[0]
        at = self._commit_of(source, pin)
        others = tuple(dict.fromkeys(p for p, s, c in files[1:] if self._commit_of(s, c) == at and p != path))
        self.reader.collected.add(Evidence(EvidenceKind.QUOTE, path, line, end, text=text, source=source, pin=pin,
                                    context=others, role=EvidenceRole.PROSE, label=self.reader.label("quotation", line)))

    def _blockquotes(self) -> None:
        """Blockquotes with no ``---`` line: a link on the last line, or in the sentence that
        introduces the blockquote, names the file the lines above quote."""
        quoted = [i for i in self.reader.layout.inlines if i.quote_depth]
        quoted_lines = [i.line for i in quoted]
        # Paragraphs outside blockquotes and headings, by their last line: what may introduce one.
        above = [i for i in self.reader.layout.inlines if not i.quote_depth and i.container != "heading"]
        above_ends = [i.end_line for i in above]
        for first, last in self.reader.layout.blockquotes:
            last = min(last, self.reader.count)
            if any(number in self.reader.quoted for number in range(first, last + 1)):
                continue
            inside = quoted[bisect.bisect_left(quoted_lines, first):bisect.bisect_right(quoted_lines, last)]
            lines = [(n, linked.strip_marker(self.reader.line_text(n))) for n in range(first, last + 1)]
            lines = [(n, t) for n, t in lines if not _FENCE_MARKER.fullmatch(t)]
            while lines and not lines[-1][1].strip():
                lines.pop()
            if not lines:
                continue
            named = self._last_line_files(inside, lines[-1][0])
            if named:
                number, text = lines[-1]
                rest = SOURCE_LINK.sub(" ", text)
                for name in named:
                    if not name.href:  # (an attribution in backticks: `` — `src/a.ts:3` ``)
                        rest = rest.replace(f"`{name.text}`", " ")
                if _SOURCE_WORDS.fullmatch(rest):
                    lines = lines[:-1]
                elif any(_set_off(text, found) for found in SOURCE_LINK.finditer(text)):
                    lines[-1] = (number, rest.rstrip(" —–-(:"))  # the text, then `([file](...))`
                else:
                    # The link is cited in the blockquote's own sentence ("it handles that, see
                    # [the losses](...)"): someone's words about the file, not the file's.
                    named = []
            else:
                named = self._introducing(first, above, above_ends)
            quote = "\n".join(t for _, t in lines).strip()
            if named and quote:
                self._tied(quote, lines[0][0], last, named)

    def _last_line_files(self, inside, number: int) -> list[ties.Named]:
        """The files a blockquote's last line (``number``) attributes it to: its links, else a
        file in backticks on a line that says nothing else (`` -- `src/a.ts:3` ``)."""
        found, written = [], []
        for inline in inside:
            for piece in inline.pieces:
                if piece.line != number:
                    continue
                if piece.kind == "link" and self._names_file(piece.href, piece.text):
                    found.append(ties.Named(piece.text, piece.href, piece.line, 0, 0))
                elif piece.kind == "code" and self._names_file("", piece.text):
                    written.append(ties.Named(piece.text, "", piece.line, 0, 0))
        if found or not written:
            return found
        text = linked.strip_marker(self.reader.line_text(number))
        for name in written:
            text = text.replace(f"`{name.text}`", " ")
        return written if _SOURCE_WORDS.fullmatch(text) else []

    def _introducing(self, first: int, above, above_ends: list[int]) -> list[ties.Named]:
        """The files the last sentence of the paragraph right above a blockquote (starting
        at ``first``) links; ``above`` are the candidate paragraphs, by ``above_ends``."""
        index = bisect.bisect_left(above_ends, first) - 1
        if index < 0 or first - above_ends[index] > 2:
            return []
        para = self._paragraph(above[index])
        if self.introduced_by_colon and not para.text.rstrip().endswith(":"):
            return []
        start = para.last_sentence_start()
        return [n for n in para.named if n.start >= start]


def _set_off(text: str, link: re.Match) -> bool:
    """Whether a link on a blockquote's last line is set off from its words, as an attribution
    is (``... ([src/a.ts](...))``, ``... — [src/a.ts](...)``), not cited inside a sentence."""
    return link.group().startswith(("([", "[[")) or text[:link.start()].rstrip().endswith(("—", "–", "-", "(", ":", "~"))


def _shown(pieces) -> tuple[str, list[tuple[int, str]]]:
    """A paragraph's text (code spans in their backticks) and its links as ``(offset, href)``."""
    parts: list[str] = []
    links: list[tuple[int, str]] = []
    offset = 0
    previous = pieces[0].line if pieces else 0
    for piece in pieces:
        if piece.line != previous:
            parts.append(" ")  # a soft line break reads as a space
            offset += 1
        previous = piece.line
        if piece.kind == "link":
            links.append((offset, piece.href))
        shown = f"`{piece.text}`" if piece.kind == "code" else piece.text  # as written: a backticked sha
        parts.append(shown)
        offset += len(shown)
    return "".join(parts).replace("\n", " "), links


def _shown_parts(parts) -> tuple[str, list[tuple[int, str]]]:
    """:func:`_shown` of several inlines read as one text (a space between)."""
    text = ""
    links: list[tuple[int, str]] = []
    for part in parts:
        shown, found = _shown(part.pieces)
        offset = len(text) + (1 if text else 0)
        text = f"{text} {shown}" if text else shown
        links.extend((offset + at, href) for at, href in found)
    return text, links


def _looked_up(evidence: Evidence) -> Evidence:
    """A backticked path resolved against the pinned tree by the engine."""
    return replace(evidence, lookup=LOOKUP_TREE)


#: the suffixes of a document at the top of a repository that a note may name in backticks
#: alone (`` `GOVERNANCE.md` says "..." ``): prose is quoted from documents
_ROOT_DOCUMENT = re.compile(r"[A-Za-z0-9][\w.-]*\.(?:md|markdown|rst|txt|adoc)", re.IGNORECASE)


def _named_path(text: str) -> core.PathSpec | None:
    """The path a backticked name gives a sentence of a note: a repository path as anywhere,
    or a document at the repository's top (``CLIENT-SPECIFICATION.md``), which a path with no
    ``/`` is not elsewhere (in running text ``os.path`` is a name, not a file)."""
    spec = linked.repo_path_spec(text)
    if spec is None and _ROOT_DOCUMENT.fullmatch(text.strip()):
        spec = linked.repo_path_spec(text, strict=False)
    return spec
