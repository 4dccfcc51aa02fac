"""A document whose evidence is commit-pinned links, read once for the dialects built on it.

Reviews (:mod:`..review`) and notes (:mod:`..notes`) cite a target alike: links into a
repository (``PATH``, ``LINES``, ``DIRECTORY``), ``> --- [path](...)`` blockquotes,
backticked and parenthesised paths, symbol names beside links, and the repositories and
pins the document states. :class:`LinkReader` holds that reading: the layout, the
repositories and pins, the sources, labels and the evidence collected. A dialect that
reads more composes it and passes a :class:`LinkExtension`, the explicit points where
it adds to (or takes over) the common reading; review passes none.
"""

from __future__ import annotations

import datetime
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Protocol

from ...model import Evidence, EvidenceKind, EvidenceRole, Finding, LineRange, Report, Source, Span
from .. import core as lexing  # the shared core of the dialects (this package)
from .anchors import parse_ranges
from .grammar import ATTRIBUTED_SOURCE, ATTRIBUTION, RANGE_AFTER_LINK

#: label of evidence from a backticked path (the author may name a file that does not exist)
BACKTICKED_PATH = "backticked path"
#: label of evidence from a parenthesised path list ``(src/a.rs, docs/b.md)``
CITED_PATH = "cited path"
#: front matter keys a review is expected to carry; copied to ``Report.meta`` as they are
FRONT_MATTER_KEYS = ("description", "type", "source-tier", "last-checked", "tags")

#: extension-less or top-level file names that are paths on their own (no ``/`` needed)
TOP_LEVEL_FILES = frozenset(
    {
        "README.md", "README.rst", "README", "CHANGELOG.md", "CONTRIBUTING.md", "LICENSE",
        "LICENSE.md", "AGENTS.md", "CLAUDE.md", "SECURITY.md", "NOTICE", "Makefile", "Dockerfile",
        "Justfile", "Cargo.toml", "Cargo.lock", "package.json", "package-lock.json", "yarn.lock",
        "pnpm-lock.yaml", "pnpm-workspace.yaml", "tsconfig.json", "deno.json", "pyproject.toml",
        "setup.py", "setup.cfg", "requirements.txt", "tox.ini", "go.mod", "go.sum", "Gemfile",
        "Gemfile.lock", "pom.xml", "build.gradle", "settings.gradle", "CMakeLists.txt",
        "docker-compose.yml", "docker-compose.yaml", "compose.yaml", "flake.nix", "mix.exs",
        ".gitignore", ".gitattributes", ".gitmodules", ".editorconfig", ".env.example",
    }
)

#: a line that states the reviewed commit (its sha may sit only in a commit link)
_REVIEWED = re.compile(r"(?i)\breviewed[*_]*[ \t]+(?:commit|revision)")
#: a blockquote marker, after indentation and an optional list marker
QUOTE_MARKER = re.compile(r"[ \t]{0,16}(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?>[ \t]?")
#: a fence line inside a quotation
_FENCE_LINE = re.compile(r"[ \t]*(?:`{3,}|~{3,})[^`]*")
#: ``( ... )`` without nested parentheses
_PARENTHESES = re.compile(r"\(([^()\n]{1,600})\)")
_LIST_SEPARATOR = re.compile(r"[ \t]*(?:[,;]|[ \t]and[ \t])[ \t]*")
#: a character no path of a repository is written with here: whitespace, a glob's, a shell's, a quote
_NOT_A_PATH = re.compile(r"[\s*?{}<>|$\\\"']")


def repo_path_spec(token: str, *, strict: bool = True) -> lexing.PathSpec | None:
    """``token`` read as a repo-relative path (with optional line ranges), or ``None``.

    With ``strict`` (backticks, parentheses) the path must contain a ``/``
    and end in a file extension (or ``/`` for a directory), or be a
    conventional top-level file (``Cargo.toml``): identifiers such as
    ``os.path`` or ``read/write`` are not paths.
    """
    token = token.strip()
    if not token or len(token) > 1024 or _NOT_A_PATH.search(token):
        return None
    if "://" in token or token.startswith(("/", "~", "-", "@")):
        return None
    spec = lexing.parse_path_spec(token)
    if spec is None or not spec.path or spec.path.startswith("../") or "/../" in spec.path:
        return None
    if not strict:
        return spec
    name = spec.path.rstrip("/").rsplit("/", 1)[-1]
    if spec.path in TOP_LEVEL_FILES:
        return spec
    if "/" not in spec.path.rstrip("/"):
        return None
    if spec.is_directory:
        return spec
    return spec if "." in name.strip(".") and not name.endswith(".") else None


def json_safe(value):
    """Front matter values as JSON can hold them (YAML dates become ISO strings)."""
    if isinstance(value, dict):
        return {str(key): json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


@dataclass
class Repository:
    """A repository the review names, while parsing."""

    id: str
    url: str | None
    line: int
    pin: str | None = None
    pin_line: int | None = None


@dataclass(frozen=True)
class _Attribution:
    """What a quotation's ``--- ...`` line names."""

    spec: lexing.PathSpec
    source: str | None
    pin: str | None
    before: str = ""  # quoted text on the attribution line itself (``code --- path``)


@dataclass
class Collected:
    evidence: list[Evidence] = field(default_factory=list)
    keys: set = field(default_factory=set)

    def add(self, evidence: Evidence) -> None:
        key = (evidence.kind, evidence.path, evidence.line, evidence.cited_lines, evidence.source,
               evidence.pin, evidence.text)
        if key not in self.keys:
            self.keys.add(key)
            self.evidence.append(evidence)


class LinkExtension(Protocol):
    """What a dialect reads beyond :class:`LinkReader`'s common reading, at its four points."""

    def repositories_and_pins(self) -> None:
        """After the repositories and pins the reader found: pins of the dialect's own."""

    def link_evidence(self, link: lexing.RepositoryLink, text: str, line: int) -> bool:
        """A repository link on ``line``; ``True`` when the dialect read it (else the reader does)."""

    def backticked_paths(self) -> bool:
        """Backticked paths; ``True`` when the dialect read them (else the reader does)."""

    def prose_evidence(self) -> None:
        """What running prose ties to the target beyond links and paths."""


class NoExtension:
    """The common reading alone (a review)."""

    def repositories_and_pins(self) -> None:
        return None

    def link_evidence(self, link: lexing.RepositoryLink, text: str, line: int) -> bool:
        return False

    def backticked_paths(self) -> bool:
        return False

    def prose_evidence(self) -> None:
        return None


class LinkReader(lexing.DocumentParser):
    """A document read for its commit-pinned links, paths and quotations (see the module)."""

    def __init__(self, path: str, text: str, dialect: str) -> None:
        super().__init__(path, text, plain_front_matter=True)
        #: the dialect named in the report
        self.dialect = dialect
        self.extension: LinkExtension = NoExtension()
        self.collected = Collected()
        self.meta: dict = {}
        self.repos: dict[str, Repository] = {}  # casefolded id -> repository, in order of mention
        self.main_repo: str | None = None  # casefolded id of the review's repository
        #: lines that are metadata or code: no prose lexing there
        self.skip: set[int] = set(range(1, (self.front_matter_end or 0) + 1))
        for first, last in self.layout.fences:
            self.skip.update(range(first, min(last, self.count) + 1))
        #: lines a quotation spans (its text and its ``---`` line): no other evidence there
        self.quoted: set[int] = set()
        self.links: dict[int, list[lexing.Piece]] = {}
        for inline in self.layout.inlines:
            for piece in inline.pieces:
                if piece.kind == "link":
                    self.links.setdefault(piece.line, []).append(piece)
        for table in self.layout.tables:
            for row in (table.header, *table.rows):
                for cell in row.cells:
                    for piece in cell.pieces:
                        if piece.kind == "link":
                            self.links.setdefault(piece.line, []).append(piece)
        self.headings = [(heading.line, heading.text) for heading in self.layout.headings]
        self.heading_lines = [line for line, _ in self.headings]

    def line_text(self, number: int) -> str:
        """Report line ``number`` ("" outside the report)."""
        return self.lines[number - 1].text if 1 <= number <= self.count else ""

    # ------------------------------------------------------------------ driver

    def parse(self, extension: LinkExtension | None = None) -> Report:
        """The report, read with ``extension``'s additions (none: the common reading)."""
        self.extension = extension or NoExtension()
        self._front_matter()
        title = self._title()
        self._repositories_and_pins()
        if self.markdown:
            self._blockquote_quotations()
        else:
            self._plain_quotations()
        self._links()
        self._bare_urls()
        if not self.extension.backticked_paths():
            self._backticked_paths()
        self._parenthesised_paths()
        self.extension.prose_evidence()
        self._symbol_references()
        evidence = sorted(self.collected.evidence, key=lambda e: (e.line, e.end_line))
        return Report(
            path=self.path,
            dialect=self.dialect,
            title=title,
            sources=self._sources(bool(evidence)),
            evidence=tuple(evidence),
            findings=tuple(sorted(self.findings, key=lambda f: f.line)),
            line_count=self.count,
            meta=self.meta,
        )

    def _front_matter(self) -> None:
        if not self.front_matter_end:
            return
        data = lexing.front_matter_mapping(self.lines, self.front_matter_end, self.findings)
        if data is None:
            return
        front = json_safe(data)
        self.meta["front_matter"] = front
        for key in FRONT_MATTER_KEYS:
            if key in front:
                self.meta[key] = front[key]

    def _title(self) -> str | None:
        title = self.heading_title() or self.meta.get("front_matter", {}).get("title")
        return str(title) if title else None

    def _heading_for(self, line: int) -> str | None:
        """The nearest heading above ``line`` (for evidence labels)."""
        index = bisect_right(self.heading_lines, line)
        return self.headings[index - 1][1] if index else None

    # ------------------------------------------------------------------ repositories and pins

    def repository(self, repo_id: str, url: str | None, line: int) -> Repository:
        """The repository ``repo_id`` names (spelling of its first mention wins)."""
        key = repo_id.casefold()
        found = self.repos.get(key)
        if found is None:
            found = Repository(repo_id, url, line)
            self.repos[key] = found
        elif found.url is None and url:
            found.url = url
        return found

    def _link_targets(self, number: int) -> list[lexing.RepositoryLink]:
        """Repository links on one line: Markdown links, then bare URLs."""
        targets = []
        for piece in self.links.get(number, ()):
            link = lexing.parse_repository_link(piece.href)
            if link is not None:
                targets.append(link)
        if number not in self.skip:
            for url, _ in lexing.find_bare_urls(self.line_text(number)):
                link = lexing.parse_repository_link(url)
                if link is not None:
                    targets.append(link)
        return targets

    def _repositories_and_pins(self) -> None:
        current: Repository | None = None
        pending: list[tuple[str, int]] = []
        for line in self.lines:
            number, text = line.number, line.text
            if number in self.skip or not text.strip():
                continue
            url = lexing.find_repository_url(text)
            if url:
                link = lexing.repository_of(url)
                if link is not None:
                    current = self.repository(link[0], link[1], number)
                    if self.main_repo is None:
                        self.main_repo = current.id.casefold()
            pins = [pin.sha for pin in lexing.find_pins(text) if pin.source is None]
            if not pins and not _REVIEWED.search(text):
                continue
            commits = [t for t in self._link_targets(number) if t.kind == "commit"]
            if not pins:
                # ``**Reviewed commit:** [this commit](.../commit/<sha>)``: the link holds the sha.
                pins = [commit.ref.lower() for commit in commits]
            for sha in pins:
                commit = next((c for c in commits if same_commit(c.ref.lower(), sha)), None)
                if commit is not None:
                    target = self.repository(commit.repo_id, commit.url, number)
                    sha = max(sha, commit.ref.lower(), key=len)  # the link's full sha, if longer
                elif current is not None:
                    target = current
                else:
                    pending.append((sha, number))
                    continue
                self.pin(target, sha, number)
        # Repositories named only by links, in order of mention.
        for line in self.lines:
            for target_link in self._link_targets(line.number):
                self.repository(target_link.repo_id, target_link.url, line.number)
        if self.main_repo is None and self.repos:
            pinned = [r for r in self.repos.values() if r.pin]
            self.main_repo = (pinned[0] if pinned else next(iter(self.repos.values()))).id.casefold()
        for sha, number in pending:
            if self.main_repo is not None:
                self.pin(self.repos[self.main_repo], sha, number)
            else:
                # No repository named at all: the pin is the default source's.
                self.pin(self.repository("SRC-1", None, number), sha, number)
                self.main_repo = "src-1"
        self.extension.repositories_and_pins()

    def pin(self, repo: Repository, sha: str, line: int) -> None:
        if repo.pin is None or same_commit(repo.pin, sha):
            if repo.pin is None or len(sha) > len(repo.pin):
                repo.pin = sha
            repo.pin_line = repo.pin_line or line
            return
        self.findings.append(Finding(
            line,
            f"{repo.id} is reviewed at {sha} here but at {repo.pin} on line {repo.pin_line}; "
            "state one reviewed commit per repository (links may still cite other commits)",
            "structure",
        ))

    def _sources(self, has_evidence: bool) -> tuple[Source, ...]:
        ordered = list(self.repos.values())
        if self.main_repo is not None:
            ordered.sort(key=lambda r: r.id.casefold() != self.main_repo)
        sources = [Source(r.id, r.pin, r.url, r.pin_line or r.line) for r in ordered]
        if not sources and has_evidence:
            sources.append(Source("SRC-1"))
        return tuple(sources)

    @property
    def main_source(self) -> str | None:
        return self.repos[self.main_repo].id if self.main_repo is not None else None

    def source_of(self, link: lexing.RepositoryLink) -> str:
        return self.repos[link.repo_id.casefold()].id if link.repo_id.casefold() in self.repos else link.repo_id

    # ------------------------------------------------------------------ quotations

    def _attribution(self, number: int, text: str) -> _Attribution | None:
        """The source a quotation's last line names, or ``None`` when the line is not one."""
        stripped = text.strip()
        before = ""
        match = ATTRIBUTION.fullmatch(stripped)
        if match is None:
            # ``> code --- [path](url)``: inside a blockquote the quote may end on the same line
            # (and a plain-text rendering ends quotations ``code --- path``, as record reports do).
            cut = stripped.rfind(" --- ")
            if cut < 0:
                return None
            before, stripped = stripped[:cut].rstrip(), stripped[cut + 1:]
            match = ATTRIBUTION.fullmatch(stripped)
        if match is None:
            return None
        rest = match.group(1).strip()
        if self.markdown and "](" in rest:
            pieces = [p for p in self.links.get(number, ()) if p.href]
            if pieces:
                return self._link_attribution(pieces[-1], before)
        plain = ATTRIBUTED_SOURCE.fullmatch(rest)
        if plain is None:
            return None
        target, sha = plain.group(1), plain.group(2)
        link = lexing.parse_repository_link(target)
        if link is not None and link.kind == "blob" and link.path:
            ranges = (link.lines,) if link.lines else ()
            return _Attribution(
                lexing.PathSpec(link.path, ranges), self.source_of(link),
                link.ref.lower() if link.ref_is_sha else None, before,
            )
        spec = repo_path_spec(target, strict=False)
        if spec is None or spec.is_directory:
            return None
        if plain.group(3) and not spec.ranges:  # ``from `path`, near line 136``
            first = int(plain.group(3))
            last = max(first, int(plain.group(4) or first))
            spec = lexing.PathSpec(spec.path, (LineRange(first, last),))
        return _Attribution(spec, self.main_source, sha.lower() if sha else None, before)

    def _link_attribution(self, piece: lexing.Piece, before: str) -> _Attribution | None:
        link = lexing.parse_repository_link(piece.href)
        if link is not None and link.kind == "blob" and link.path:
            ranges = (link.lines,) if link.lines else ()
            return _Attribution(
                lexing.PathSpec(link.path, ranges, link.bad_anchor), self.source_of(link),
                link.ref.lower() if link.ref_is_sha else None, before,
            )
        # A relative link or one to elsewhere: its text may still be the path.
        spec = repo_path_spec(piece.text, strict=False)
        if spec is None or spec.is_directory:
            return None
        return _Attribution(spec, self.main_source, None, before)

    def _blockquote_quotations(self) -> None:
        # A fence's marker lines are not quoted text (an indented code block has none).
        fence_lines = {
            line
            for first, last in self.layout.fences
            for line in {first, last}
            if _FENCE_LINE.fullmatch(strip_marker(self.line_text(line)))
        }
        for first, last in self.layout.blockquotes:
            last = min(last, self.count)
            pending: list[tuple[int, str]] = []
            for number in range(first, last + 1):
                if number in fence_lines:
                    continue
                text = strip_marker(self.line_text(number))
                attribution = self._attribution(number, text)
                if attribution is None:
                    pending.append((number, text))
                    continue
                if attribution.before:
                    pending.append((number, attribution.before))
                self._quotation(pending, attribution, number)
                pending = []
            if any(text.strip() for _, text in pending):
                # ``> code`` then ``--- [path](url)`` after the blockquote.
                after = last + 1
                if after <= self.count and not self.line_text(after).strip():
                    after += 1
                if after <= self.count and after not in self.skip:
                    attribution = self._attribution(after, self.line_text(after))
                    if attribution is not None and not attribution.before:
                        self._quotation(pending, attribution, after)

    def _plain_quotations(self) -> None:
        """``--- path`` lines of a rendering: the quote is the run of non-blank lines above."""
        run: list[tuple[int, str]] = []
        for line in self.lines:
            if line.number in self.skip or not line.text.strip():
                run = []
                continue
            text = strip_marker(line.text) if QUOTE_MARKER.match(line.text) else line.text
            attribution = self._attribution(line.number, text)
            if attribution is None:
                run.append((line.number, text))
                continue
            if attribution.before:
                run.append((line.number, attribution.before))
            self._quotation(run, attribution, line.number)
            run = []

    def _quotation(self, parts: list[tuple[int, str]], attribution: _Attribution, end: int) -> None:
        while parts and not parts[0][1].strip():
            parts = parts[1:]
        while parts and not parts[-1][1].strip():
            parts = parts[:-1]
        for number, _ in parts:
            self.quoted.add(number)
        self.quoted.add(end)
        spec = attribution.spec
        if spec.bad_range:
            self.findings.append(Finding(
                end, f"{spec.path}: line anchor {spec.bad_range} is not a line range; "
                "write L<start>-L<end> with 1 <= start <= end", "path",
            ))
        cited = LineRange(spec.ranges[0].start, max(r.end for r in spec.ranges)) if spec.ranges else None
        if not parts:
            self.findings.append(Finding(
                end, f"quotation of {spec.path} has no quoted text; put the excerpt in the '>' lines above",
                "structure",
            ))
            # (its link's lines are still a citation: a line anchor is not dropped with the text)
            kind = EvidenceKind.PATH if cited is None else EvidenceKind.LINES
            self.collected.add(Evidence(kind, spec.path, end, end, cited_lines=cited, source=attribution.source,
                                        pin=attribution.pin, label=self.label("quotation source", end)))
            return
        text = "\n".join(part for _, part in parts)
        self.collected.add(Evidence(
            EvidenceKind.QUOTE, spec.path, parts[0][0], end, text=text, cited_lines=cited,
            source=attribution.source, pin=attribution.pin, label=self.label("quotation", parts[0][0]),
        ))

    def label(self, text: str, line: int) -> str:
        heading = self._heading_for(line)
        text = " ".join(text.split())
        return f"{heading} › {text}" if heading else text

    # ------------------------------------------------------------------ links

    def _links(self) -> None:
        for number in sorted(self.links):
            if number in self.quoted or number in self.skip:
                continue
            spans = self._url_spans(number)
            for piece in self.links[number]:
                link = lexing.parse_repository_link(piece.href)
                if link is not None:
                    where = spans(piece.href)
                    self._link_evidence(link, piece.text or piece.href, number, where,
                                        self._ranges_beside(link, piece.text, number, where))

    def _bare_urls(self) -> None:
        """Bare repository URLs in prose (Markdown does not make them links without ``<>``)."""
        if self.markdown:
            texts = [
                (piece.line, piece.text)
                for inline in self.layout.inlines
                for piece in inline.pieces
                if piece.kind == "text" and "://" in piece.text
            ]
        else:
            texts = [(line.number, line.text) for line in self.lines if "://" in line.text]
        for number, text in texts:
            if number in self.quoted or number in self.skip or lexing.find_repository_url(text):
                continue
            spans = self._url_spans(number)
            for url, _ in lexing.find_bare_urls(text):
                link = lexing.parse_repository_link(url)
                if link is not None:
                    self._link_evidence(link, url, number, spans(url))

    def _url_spans(self, number: int):
        """Where line ``number`` writes each URL it is asked for, in order: each is looked for
        after the last one found (a line may link the same file twice); ``None`` when not written."""
        written, after = self.line_text(number), 0

        def span(url: str) -> Span | None:
            nonlocal after
            at = written.find(url, after)
            if at < 0:
                return None
            after = at + len(url)
            return self.starts.span(number, at, after)
        return span

    def _ranges_beside(self, link: lexing.RepositoryLink, text: str, number: int,
                       where: Span | None) -> tuple[LineRange, ...]:
        """The lines a link to a file without a line anchor cites in its own text
        (``[src/a.ts:43-59](<url>)``) or right after it (``[a.ts](<url>) lines 43-59``,
        ``(L43-L59)``); ``()`` for any other link."""
        if link.lines is not None or link.kind != "blob" or not link.path:
            return ()
        spec = repo_path_spec(text.strip("`*_ ")) if text and (":" in text or "#" in text) else None
        if spec is not None and spec.ranges and (spec.path == link.path or link.path.endswith("/" + spec.path)):
            return tuple(spec.ranges)
        if where is None:
            return ()
        found = RANGE_AFTER_LINK.match(self.line_text(number), where.end - self.starts.start_of(number))
        if found is None:
            return ()
        ranges, _ = parse_ranges(found.group(1).replace(" ", "").replace("\t", ""))
        return ranges

    def _link_evidence(self, link: lexing.RepositoryLink, text: str, line: int, span: Span | None = None,
                       ranges: tuple[LineRange, ...] = ()) -> None:
        """Evidence of a link into a repository; ``span``, where its URL is written (a re-pin
        rewrites the URL there, and refuses when the report no longer holds it); ``ranges``,
        the lines its text or the words right after it cite (:meth:`_ranges_beside`)."""
        if self.extension.link_evidence(link, text, line):
            return
        if link.kind == "commit" or not link.path:
            return  # a commit or a repository root is a pin statement, not a citation
        source = self.source_of(link)
        pin = link.ref.lower() if link.ref_is_sha else None
        label = self.label(text, line)
        if pin is None:
            # Checked at the review's pin: say which branch the author linked.
            label += f" @ {link.ref}"
        path = link.path.rstrip("/")
        ref = None if pin else link.ref
        if link.kind == "tree":
            self.collected.add(Evidence(EvidenceKind.DIRECTORY, path, line, line, source=source, pin=pin,
                                        label=label, span=span, ref=ref))
            return
        if link.bad_anchor:
            self.findings.append(Finding(
                line, f"{path}: line anchor #{link.bad_anchor} is not a line range; "
                "write #L<start>-L<end> with 1 <= start <= end", "path",
            ))
        if link.lines is not None or ranges:
            for cited in (link.lines,) if link.lines is not None else ranges:
                self.collected.add(Evidence(EvidenceKind.LINES, path, line, line, cited_lines=cited,
                                            source=source, pin=pin, label=label, span=span, ref=ref))
            return
        self.collected.add(Evidence(EvidenceKind.PATH, path, line, line, source=source, pin=pin, label=label,
                                    span=span, ref=ref))

    # ------------------------------------------------------------------ paths in prose

    def path_evidence(self, spec: lexing.PathSpec, line: int, label: str,
                       mention: bool = False) -> None:
        """Evidence of a cited path; ``mention``: a path or folder that counts only where the
        pinned tree has it (a backticked word that looks like a path)."""
        role = EvidenceRole.MENTION if mention else None
        source = self.main_source
        if spec.bad_range:
            self.findings.append(Finding(
                line, f"{spec.path}:{spec.bad_range} is not a line range; write start-end with 1 <= start <= end",
                "path",
            ))
        if spec.ranges:
            for cited in spec.ranges:
                self.collected.add(Evidence(EvidenceKind.LINES, spec.path, line, line, cited_lines=cited,
                                            source=source, label=label))
        elif spec.is_directory:
            self.collected.add(Evidence(EvidenceKind.DIRECTORY, spec.path.rstrip("/"), line, line,
                                        source=source, label=label, role=role))
        else:
            self.collected.add(Evidence(EvidenceKind.PATH, spec.path, line, line, source=source, label=label,
                                        role=role))

    def _symbol_references(self) -> None:
        """Backticked names beside the links of their paragraph, proposed as symbol
        evidence in the files those links cite (kept only if they name a definition there)."""
        # By report line, so each paragraph finds its citations by bisection (a long note has
        # thousands); within a paragraph, in the order they were collected.
        files = sorted(((e.line, index, e) for index, e in enumerate(self.collected.evidence)
                        if e.kind in (EvidenceKind.PATH, EvidenceKind.LINES, EvidenceKind.QUOTE) and e.path),
                       key=lambda item: item[:2])
        lines = [line for line, _, _ in files]
        for inline in self.layout.inlines:
            found = files[bisect_left(lines, inline.line):bisect_right(lines, inline.end_line)]
            cited = [e for _, _, e in sorted(found, key=lambda item: item[1])]
            if not cited:
                continue
            context = tuple(dict.fromkeys(e.path for e in cited))
            for piece in inline.pieces:
                if piece.kind != "code" or piece.line in self.quoted or piece.line in self.skip:
                    continue
                name = lexing.symbol_name(piece.text)
                if name is None or repo_path_spec(piece.text) is not None:
                    continue
                self.collected.add(Evidence(EvidenceKind.SYMBOL, "", piece.line, piece.line, text=name,
                                            source=cited[0].source, pin=cited[0].pin, context=context,
                                            label=self.label(piece.text, piece.line)))

    def _backticked_paths(self) -> None:
        for inline in self.layout.inlines:
            for piece in inline.pieces:
                if piece.kind != "code" or piece.line in self.quoted or piece.line in self.skip:
                    continue
                spec = repo_path_spec(piece.text)
                if spec is not None:
                    self.path_evidence(spec, piece.line, BACKTICKED_PATH, mention=True)

    def _parenthesised_paths(self) -> None:
        if self.markdown:
            # Text as read, link texts masked (a link is its own evidence) and code kept.
            by_line: dict[int, list[str]] = {}
            for inline in self.layout.inlines:
                for piece in inline.pieces:
                    shown = "\x00" if piece.kind == "link" else piece.text
                    by_line.setdefault(piece.line, []).append(shown)
            texts = [(number, "".join(parts)) for number, parts in sorted(by_line.items())]
        else:
            texts = [(line.number, line.text) for line in self.lines]
        for number, text in texts:
            if number in self.quoted or number in self.skip or "(" not in text:
                continue
            for group in _PARENTHESES.finditer(text):
                items = [item for item in _LIST_SEPARATOR.split(group.group(1)) if item.strip()]
                specs = [spec for spec in map(repo_path_spec, items) if spec is not None]
                if not specs or len(specs) < len(items):
                    continue
                for spec in specs:
                    self.path_evidence(spec, number, CITED_PATH)


def same_commit(one: str, other: str) -> bool:
    """Whether two written shas name the same commit (a short sha is a prefix)."""
    return one.startswith(other) or other.startswith(one)


def strip_marker(text: str) -> str:
    """A blockquote line without its ``>`` marker (one level); a lazy line as it is."""
    match = QUOTE_MARKER.match(text)
    return text[match.end():] if match else text
