"""What the forms read (:func:`.forms.read`) joined to the report a dialect parsed
(:func:`augment`): the dialect adds structure, and never hides evidence.

A piece the dialect read already (the same kind, file, lines and text on overlapping
report lines) is kept as the dialect read it; every other piece is added, and bound:

* pins: each statement to the repository it names, a link's ``owner/name``, a short name the
  document uses, or the document's only repository (:func:`_with_pins`); two commits of one
  repository labelled apart (``Before``/``After``) each to the citations under its label;
* evidence: to the repository its link names, else the one its table column, sentence or
  section heading names, else the document's only pin (:class:`_Sections`);
* and settled for what the document leaves open: names and code of a document that pins
  nothing are its own words, links at a branch are read at the commit the document's other
  links name, an ingest's file is its pin's (:func:`_settled`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from ..model import (LOOKUP_TREE, PINNED_UNREAD, Evidence, EvidenceKind, EvidenceRole, Record, Report,
                     Source, run_pin_key)
from . import core, review
from .core import pinforms
from .core.grammar import NAME_AFTER_CITATION, REPOSITORY_WORD
from .fileforms import is_mention
from .forms import INGESTED, FormReader, Reading, overlaps, pin_label, read
from .nameforms import AT_REVISION
from .runfacts import same_commit
from .tableforms import raw_tables


#: dialects that read the symbols their records or sentences name beside a citation
_READ_SYMBOLS = frozenset({"records", "review", "notes"})


def _code_given_no_file(item: Evidence) -> bool:
    """Whether ``item`` is a code block a sentence gives no file (looked for in the whole tree)."""
    return item.is_code_block and item.role is EvidenceRole.TERM


def _owned_name(item: Evidence) -> bool:
    """Whether ``item`` is a member named with its owner, looked for in the owner's files
    (:func:`.nameforms.owned_names`)."""
    return item.kind is EvidenceKind.SYMBOL and item.lookup == LOOKUP_TREE


#: how many report lines of one piece of evidence are compared (a quotation may span many)
_SPAN_LIMIT = 64


_MARKUP = str.maketrans("", "", "`*_\"'“”‘’")


def _plain(text: str | None) -> str:
    return " ".join((text or "").translate(_MARKUP).split())


def _same_file(known: Evidence, found: Evidence) -> bool:
    """Whether two pieces of evidence name one file: as written, or the forms read only the end
    of a name the dialect read whole (``release notes.md`` read as ``notes.md``)."""
    one, two = known.written or known.path, found.written or found.path
    return one == two or known.path == found.path or one.endswith(two) or known.path.endswith(two)


def _covers(known: Evidence, found: Evidence) -> bool:
    """Whether the dialect's ``known`` evidence already says what the forms found: the same
    file (and lines) on overlapping report lines; for a quotation, the same words."""
    if not overlaps(known, found):
        return False
    if found.kind is EvidenceKind.SYMBOL:
        # (a name only proposed beside a file says less than one its sentence says is defined)
        return known.kind is EvidenceKind.SYMBOL and known.text == found.text and (
            found.role is not EvidenceRole.DECLARED or known.role is EvidenceRole.DECLARED)
    if not _same_file(known, found):
        return False
    if found.kind is EvidenceKind.QUOTE:
        if known.kind is not EvidenceKind.QUOTE:
            return False
        one, two = _plain(known.text), _plain(found.text)
        return one in two or two in one
    if found.role is EvidenceRole.MANIFEST:
        return known.role is EvidenceRole.MANIFEST
    if found.kind is EvidenceKind.PATH or found.kind is EvidenceKind.DIRECTORY:
        return True  # the file is cited on these lines already (its lines, a quotation of it)
    return (known.written_lines or known.cited_lines) == (found.written_lines or found.cited_lines)


#: evidence whose span is a citation of lines (``path:18``)
_CITES_LINES = (EvidenceKind.QUOTE, EvidenceKind.LINES)


def augment(report: Report, text: str, readers: Sequence[FormReader] = (),
            run_pins: frozenset[str | None] = frozenset()) -> Report:
    """``report`` as its dialect read it, with the evidence and pins the universal forms
    find that the dialect did not: new evidence inside a record belongs to it.
    ``run_pins``: the keys the run gives a revision for (``--memreport-pin``; ``None``, every
    source). Where one is the document's repository, what it names is read as in a document
    that states its pin: files in backticks, phrases, code blocks and links at a branch are
    evidence where that revision's tree holds them, not words (:func:`_without_words`)."""
    front = report.meta.get("front_matter")
    existing = report.all_evidence()
    read_spans = [item.span for item in existing
                  if item.span is not None and item.cited_lines is not None and item.kind in _CITES_LINES]
    reading = read(report.path, text, report.dialect, readers, front if isinstance(front, dict) else None,
                   loose=not report.records and report.dialect != "tables", read_spans=read_spans,
                   quotations=[item for item in existing if item.kind is EvidenceKind.QUOTE],
                   cited=[item for item in existing if item.kind is EvidenceKind.LINES]
                   if report.dialect not in _READ_SYMBOLS else ())
    sources = _with_pins(report, reading)
    said: dict = {}  # what the forms add to the report's facts (a new dict: the dialect's is left as it was)
    if reading.stated_date and "stated-date" not in report.meta:
        said["stated-date"] = reading.stated_date
    if reading.pin_like is not None and not any(source.pin for source in sources):
        said["pin-like"] = list(reading.pin_like)
    if said:
        report = replace(report, meta={**report.meta, **said})
    known = {(finding.line, finding.message) for finding in report.findings}
    told = tuple(sorted((f for f in dict.fromkeys(reading.findings) if (f.line, f.message) not in known),
                        key=lambda finding: finding.line))
    if told:
        report = replace(report, findings=(*report.findings, *told))
    lines = text.split("\n")
    sections = _Sections.of(sources, lines, (*existing, *reading.evidence), _labelled_pins(sources, reading.pins, lines))
    if sections and report.dialect in _BIND_ONE_REPOSITORY:
        report = _sections_bound(report, sources, sections)
        existing = report.all_evidence()
    # Evidence the dialect read on each report line: what a form found is compared with those only.
    by_line: dict[int, list[Evidence]] = {}
    for item in existing:
        for number in range(item.line, min(item.end_line, item.line + _SPAN_LIMIT) + 1):
            by_line.setdefault(number, []).append(item)
    added: list[Evidence] = []
    # A file named in backticks, code shown with no file or a member named with its owner is
    # evidence only beside a pin: in a document that states none (its links' commits are
    # theirs), it is words, and no reason to say the document is unpinned.
    pinned_by_run = _pinned_by_run(run_pins, sources, (*existing, *reading.evidence))
    pinned = pinned_by_run or any(source.pin for source in sources)
    for item in reading.evidence:
        if not pinned and item.pin is None and (is_mention(item) or _code_given_no_file(item) or _owned_name(item)):
            continue
        if not pinned and item.label == AT_REVISION:
            continue  # (a commit in a command of a document that reads no repository: a git tutorial's)
        candidates = (other for number in range(item.line, min(item.end_line, item.line + _SPAN_LIMIT) + 1)
                      for other in by_line.get(number, ()))
        if not any(_covers(other, item) for other in candidates):
            owners = sections.columns(item)
            if len(owners) > 1:  # the same citation under two repositories' columns: one each
                added.extend(_bound_to(item, owner, sources) for owner in owners)
            else:
                added.append(_bound(item, sources, sections))
    # A repository only a pin statement names, with no evidence bound to it, has nothing to check.
    bound = {item.source for item in (*existing, *added)}
    kept = tuple(source for index, source in enumerate(sources)
                 if index < len(report.sources) or source.id in bound or (index == 0 and None in bound))
    # (still a name the document gives a repository: a run that maps it maps no typo)
    unread = sorted({name for source in sources if source not in kept
                     for name in (source.id, source.repository) if name and not name.startswith("SRC-")})
    if unread:
        report = replace(report, meta={**report.meta, PINNED_UNREAD: unread})
    subject = next((item for item in reading.evidence if item.label == INGESTED and item.kind is EvidenceKind.PATH),
                   None)
    if not added and kept == report.sources and all(
            one.pin_spans == two.pin_spans for one, two in zip(kept, report.sources)):
        return _settled(report, subject, run_pins if pinned_by_run else frozenset())  # (with the facts above)
    return _settled(_placed(_without_superseded(replace(report, sources=kept), added), added), subject,
                    run_pins if pinned_by_run else frozenset())


def _pinned_by_run(run_pins: frozenset[str | None], sources: Sequence[Source], evidence: Sequence[Evidence]) -> bool:
    """Whether the run gives a revision for a repository of the document: for every source,
    or by a key its sources or citations use (:func:`..model.run_pin_key`, the rule a
    source's binding reads its revision by)."""
    if not run_pins:
        return False
    names = {source.id for source in sources} | {item.source for item in evidence if item.source}
    return any(run_pin_key(run_pins, name) is not False for name in (*names,) or (None,))


def _settled(report: Report, subject: Evidence | None, run_pins: frozenset[str | None] = frozenset()) -> Report:
    """The steps every document ends with, in order: references to a branch dropped, an
    ingest's quotations bound to its file, words set apart in a document that pins nothing
    (nor the run: ``run_pins``, the keys it gives a revision for where one is the
    document's), and what names no commit read at the one its links name. (Whether the
    document pins anything is asked once: none of the steps adds or drops a commit.)"""
    pins_nothing = not _pins_anything(report)
    run_pinned = frozenset(key for key in run_pins if key)
    report = _without_branch_references(report, pins_nothing, run_pinned)
    if run_pins:
        report = _of_the_one_repository_linked(report, run_pins)
    report = _at_links_commit(_without_words(_ingest_bound(report, subject), pins_nothing and not run_pins))
    return report if None in run_pins else _without_code_of_no_tree(report)


def _without_code_of_no_tree(report: Report) -> Report:
    """``report`` without the code blocks given no file that no pinned tree is left to hold:
    bound to no repository in a document whose own sources pin nothing (it links two
    libraries at their commits), each is words, as in a document that pins nothing, not a
    reason to ask for a clone of the report's own folder."""
    if any(source.pin for source in report.sources):
        return report

    def kept(items: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
        return tuple(item for item in items if not (item.source is None and _code_given_no_file(item)))

    return _each_piece(report, kept)


def _of_the_one_repository_linked(report: Report, run_pins: frozenset[str | None]) -> Report:
    """In a document the run pins that names no source of its own and links one repository
    the run pins (by its name; with an unnamed ``--memreport-pin``, the one it links): what
    names no repository (a file in backticks, a code block) is that repository's, as a
    document whose links all name one commit has it read there (:func:`_at_links_commit`).
    Else it was the default source's: the report's own folder, "not inside a git
    repository". (A library the run does not pin, linked at its own commit, does not make
    the repository it pins one of two.)"""
    if report.sources:
        return report
    linked = {item.source for item in report.all_evidence() if item.source and "/" in item.source}
    if None not in run_pins:
        linked &= run_pins
    if len(linked) != 1:
        return report
    (repository,) = linked

    def bound(items: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
        return tuple(replace(item, source=repository) if item.source is None else item for item in items)

    return _each_piece(report, bound)


def _ingest_bound(report: Report, subject: Evidence | None) -> Report:
    """An ingest's quotations that no file is tied to, bound to the ingested file (its
    ``subject``): what the project is said to state is that file's; a phrase in quotation
    marks attributed to nothing is its quotation where the file holds it, else the writer's."""
    if subject is None:
        return report

    def bound(item: Evidence) -> Evidence:
        if item.kind is not EvidenceKind.QUOTE or item.role not in (EvidenceRole.PROJECT, EvidenceRole.TERM):
            return item
        role = EvidenceRole.PROSE if item.role is EvidenceRole.PROJECT else EvidenceRole.LOOSE
        return replace(item, path=subject.path, source=subject.source, pin=subject.pin, role=role, context=())

    return _each_piece(report, lambda items: tuple(map(bound, items)))


def _without_branch_references(report: Report, bare: bool, run_pinned: frozenset[str] = frozenset()) -> Report:
    """``report`` without the links into another repository at a branch (``/blob/main/...``)
    when nothing pins that repository: a reference to a moving branch (a PEP, another
    project's docs), with no commit to check it at, and no clone to ask the user for. In a
    document that pins nothing, its own repository's links at a branch are references too,
    unless they cite lines (a finding linking `/blob/main/a.sol#L10-L20`): those are evidence
    at no commit, which the user may check at a revision (``--memreport-pin``). ``bare``:
    the document pins nothing; ``run_pinned``: the repositories the run gives a revision for
    by name (their links are evidence at it, never references)."""
    evidence = report.all_evidence()
    pinned_by_items = {item.source for item in evidence if item.pin and core.is_sha(item.pin)}
    citing_lines = {item.source for item in evidence if item.kind is EvidenceKind.LINES}
    # (the document's first source stands for it: its missing pin is said)
    dropped = {source.id for index, source in enumerate(report.sources)
               if (index > 0 or (bare and source.line is None and source.id not in citing_lines))
               and source.pin is None and not source.registered and "/" in (source.repository or source.id)
               and source.id not in pinned_by_items}
    # (a link's repository no source stands for: the document's own, when a source names it)
    known = {name.casefold() for source in report.sources
             for name in (source.id, _repository(source), *source.mentioned) if name}
    dropped |= {item.source for item in evidence if item.source and "/" in item.source and item.pin is None
                and item.source.casefold() not in known and item.source not in pinned_by_items
                and (report.sources or not bare or item.source not in citing_lines)}
    dropped -= run_pinned
    if not dropped:
        return report

    def kept(items: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
        return tuple(item for item in items if item.source not in dropped)

    return replace(_each_piece(report, kept), sources=tuple(s for s in report.sources if s.id not in dropped))


def _at_links_commit(report: Report) -> Report:
    """``report`` with the evidence of a repository no statement pins, where its links all
    name one commit, read at that commit: a finding linking `/blob/<sha>/...` throughout and
    naming a function or quoting a phrase beside them reads them there, as its links are
    (else each was "at a commit the clone lacks", and the report partly unchecked)."""
    default = report.sources[0].id if report.sources else None
    stated = {source.id for source in report.sources if source.pin is not None or source.registered}
    evidence = report.all_evidence()
    shas: dict[str, list[str]] = {}
    for item in evidence:
        key = item.source or default
        if key is None or key in stated:
            continue
        seen = shas.setdefault(key, [])
        if item.pin and core.is_sha(item.pin) and not any(same_commit(item.pin, sha) for sha in seen):
            seen.append(item.pin)
    # (links at several commits: which one the rest means is unsaid)
    commits = {key: found[0] for key, found in shas.items() if len(found) == 1}
    if not commits and report.sources:
        return report
    adopted = None
    if default is None and len(shas) == 1 and commits:
        # No source of its own, and its links name one repository at one commit: what names
        # no repository (a file named above a code block) is of that one.
        default = adopted = next(iter(commits))

    # What names no repository in a document of several: the one whose link at a commit
    # cites the same file (a code block under `File: a.sol`, the file a link cites in full)
    by_file: dict[str, set[tuple[str, str]]] = {}
    if default is None:
        for item in evidence:
            if item.source and item.pin and core.is_sha(item.pin) and item.path:
                by_file.setdefault(item.path.rsplit("/", 1)[-1], set()).add((item.source, item.pin))

    if not commits and not by_file:
        return report

    def owner(item: Evidence) -> tuple[str, str] | None:
        if item.source is None and default is None and item.path:
            found = by_file.get(item.path.rsplit("/", 1)[-1], set())
            return next(iter(found)) if len(found) == 1 else None
        key = item.source or default
        return (item.source or adopted or "", commits[key]) if key in commits else None

    def pinned(items: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
        # (a link at a branch too: the document's commit of that repository is the best reading
        # of the file its writer saw, as a review's pin is for the branch links it holds)
        out = []
        for item in items:
            found = owner(item) if item.pin is None else None
            out.append(replace(item, source=found[0] or None, pin=found[1]) if found else item)
        return tuple(out)

    return _each_piece(report, pinned)


def _pins_anything(report: Report) -> bool:
    """Whether anything in ``report`` is at a commit: a source's pin, a link's, or a line
    that looks like a pin (the document is told it is not read as one)."""
    return (any(source.pin for source in report.sources) or "pin-like" in report.meta
            or any(item.pin and core.is_sha(item.pin) for item in report.all_evidence()))


def _without_words(report: Report, bare: bool) -> Report:
    """``report`` without its phrases in quotation marks, code blocks and names in backticks
    (files, or names proposed as the symbols of the files linked beside them) when it pins nothing and
    declares no records: each is evidence only where a pinned tree holds it, so in such a
    document (a cheat sheet, a guide) they are words, not a reason to ask for a clone.
    ``bare``: the document pins nothing."""
    if report.records or not bare:
        return report

    # (a block under a link to lines at a branch is that link's quotation: checked with it where
    # --memreport-pin says)
    linked = {item.source for item in report.all_evidence() if item.kind is EvidenceKind.LINES and item.ref}

    def kept(items: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
        return tuple(item for item in items
                     if (item.role not in (EvidenceRole.TERM, EvidenceRole.MENTION, EvidenceRole.LOOSE)
                         or (item.role is EvidenceRole.LOOSE and item.source is not None and item.source in linked))
                     and not (item.kind is EvidenceKind.SYMBOL and not item.path))  # (a name beside a link)

    return _each_piece(report, kept)


def _sections_bound(report: Report, sources: tuple[Source, ...], sections: _Sections) -> Report:
    """``report`` with its dialect's evidence bound by sentence or section (:func:`_rebound`)."""
    def bound(items: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
        return tuple(_rebound(item, sources, sections) for item in items)

    return _each_piece(report, bound)


def _without_superseded(report: Report, added: list[Evidence]) -> Report:
    """``report`` without the plain cited paths a manifest's rows say more of (their blob), and
    the names proposed beside a file that a sentence says the file defines (`` `Queue` is
    defined in `a.py` ``: kept only where defined, the name could never fail)."""
    rows = {(item.path, item.line) for item in added if item.role is EvidenceRole.MANIFEST}
    declared = {(item.text, item.line) for item in added
                if item.kind is EvidenceKind.SYMBOL and item.role is EvidenceRole.DECLARED}
    if not rows and not declared:
        return report

    def kept(items: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
        return tuple(e for e in items if not (e.kind is EvidenceKind.PATH and (e.path, e.line) in rows) and not (
            e.kind is EvidenceKind.SYMBOL and e.role is None and (e.text, e.line) in declared))

    return _each_piece(report, kept)


def _each_piece(report: Report, change: Callable[[tuple[Evidence, ...]], tuple[Evidence, ...]]) -> Report:
    """``report`` with ``change`` made to its own evidence and to each record's."""
    records = tuple(replace(record, evidence=change(record.evidence)) for record in report.records)
    return replace(report, evidence=change(report.evidence), records=records)


def _placed(report: Report, added: list[Evidence]) -> Report:
    """``added`` put where it sits: in the record whose lines hold it, else the report's own."""
    if not added:
        return report
    records = list(report.records)
    own = list(report.evidence)
    by_record: dict[int, list[Evidence]] = {}
    # The record holding a report line, by bisection over the records' first lines.
    order = sorted(range(len(records)), key=lambda i: records[i].line)
    starts = [records[i].line for i in order]
    for item in added:
        at = bisect.bisect_right(starts, item.line) - 1
        index = order[at] if at >= 0 and item.line <= records[order[at]].end_line else None
        if index is None:
            own.append(replace(item, owner=None))
        else:
            by_record.setdefault(index, []).append(replace(item, owner=records[index].id))
    for index, items in by_record.items():
        record: Record = records[index]
        merged = sorted((*record.evidence, *items), key=lambda e: (e.line, e.end_line))
        records[index] = replace(record, evidence=tuple(merged))
    own.sort(key=lambda e: (e.line, e.end_line))
    return replace(report, records=tuple(records), evidence=tuple(own))


def _repository(source: Source) -> str:
    """The ``owner/name`` a source names (its own, its URL's, or its ID's), or ``""``."""
    if source.repository:
        return source.repository
    if "/" in source.id:
        return source.id
    named = core.repository_of(source.url) if source.url else None
    return named[0] if named else ""


def _find(sources: list[Source], key: str) -> int | None:
    """The source a document's name for a repository means: its ID, its ``owner/name``,
    or, for a short name, the name part of its ``owner/name``."""
    folded = key.casefold()
    for index, source in enumerate(sources):
        if source.id.casefold() == folded or _repository(source).casefold() == folded:
            return index
    if "/" not in key:
        for index, source in enumerate(sources):
            named = _repository(source)
            if named and named.rsplit("/", 1)[-1].casefold() == folded:
                return index
    return None


def _placeholder(source: Source) -> bool:
    """A default source a dialect made for evidence, naming no repository, pin or register row."""
    return not (source.pin or source.url or source.repository or source.registered or "/" in source.id)


def _with_pins(report: Report, reading: Reading) -> tuple[Source, ...]:
    """The report's sources with the pins its statements name (a dialect's own pins stand)."""
    sources = list(report.sources)
    unnamed: list[pinforms.PinStatement] = []
    for statement in reading.pins:
        key = statement.key
        if key is None:
            unnamed.append(statement)
            continue
        index = _find(sources, key)
        if index is None and sources and _placeholder(sources[0]) and statement.repository:
            # The dialect's default source, which names nothing yet: the statement says what it is.
            sources[0] = replace(sources[0], pin=statement.sha, repository=statement.repository,
                                 url=reading.repositories.get(statement.repository), line=statement.line)
            continue
        if index is None:
            # A short name for a repository the document links (``widgets`` for ``acme/widgets``).
            repository = statement.repository or next(
                (repo for repo in reading.repositories if repo.rsplit("/", 1)[-1].casefold() == key.casefold()), None)
            url = reading.repositories.get(repository) if repository else None
            sources.append(Source(repository or key, statement.sha, url, statement.line, repository=repository))
        elif sources[index].pin is None:
            sources[index] = replace(sources[index], pin=statement.sha, line=sources[index].line or statement.line)
    # Pins whose own words name other repositories ("python/typeshed at `<sha>` with
    # tldr-pages/tldr at `<sha>`") are each their own source; the first is the document's.
    worded = _worded_apart(unnamed)
    if worded:
        unnamed = unnamed[:1]
    if unnamed:
        statement = unnamed[0]
        # Which repository the pin is of, when nothing names it for certain: the words near it
        # first, then the document's prose; the user's mapping decides (engine.repositories).
        mentioned = statement.mentioned if worded else tuple(dict.fromkeys((*statement.mentioned,
                                                                             *reading.mentioned)))
        if not sources:
            named = list(reading.repositories)
            # The one repository the document links, unless the pin's own words name another
            # (``pinned to the python/typeshed revision``, linking only tldr's pages): that pin
            # is not the linked repository's.
            other = [word for word in statement.mentioned if not any(_names_repository(word, repo) for repo in named)]
            if len(named) == 1 and not other:
                sources.append(Source(named[0], statement.sha, reading.repositories[named[0]], statement.line,
                                      repository=named[0]))
            else:
                # (the pin's own words, when they name one, over the prose's mentions of others)
                sources.append(Source("SRC-1", statement.sha, None, statement.line,
                                      mentioned=statement.mentioned if other else mentioned))
        elif sources[0].pin is None:
            sources[0] = replace(sources[0], pin=statement.sha, line=sources[0].line or statement.line,
                                 mentioned=() if _repository(sources[0]) else mentioned)
    for statement in worded:
        sources.append(Source(f"SRC-{len(sources) + 1}", statement.sha, None, statement.line,
                              mentioned=statement.mentioned))
    if not sources and reading.evidence:
        named = list(reading.repositories)
        if len(named) == 1:
            sources.append(Source(named[0], None, reading.repositories[named[0]], repository=named[0]))
    if report.dialect in _PINS_UNPLACED:
        return tuple(sources)
    return tuple(_with_pin_spans(source, reading.pins) for source in sources)


def _names_repository(word: str, repository: str) -> bool:
    """Whether a word near a pin names ``repository`` (``owner/name``): in full, or by its
    name (``widgets``, ``Acme Widgets`` as ``acme-widgets``), letter case and punctuation aside."""
    def folded(text: str) -> str:
        return "".join(ch for ch in text.casefold() if ch.isalnum())

    if "/" in word:
        return word.casefold() == repository.casefold()
    owner, _, name = repository.partition("/")
    return folded(word) in (folded(name), folded(owner + name))


def _worded_apart(unnamed: list[pinforms.PinStatement]) -> list[pinforms.PinStatement]:
    """The pins after the first that no name binds but whose own words name another
    repository than every pin before them, each at another commit: a comparison's second
    target (empty when the words name one repository, or none)."""
    if len(unnamed) < 2 or not unnamed[0].mentioned:
        return []
    seen_words = {word.casefold() for word in unnamed[0].mentioned}
    seen_shas = [unnamed[0].sha]
    apart = []
    for statement in unnamed[1:]:
        words = {word.casefold() for word in statement.mentioned}
        if not words or words & seen_words or any(same_commit(statement.sha, sha) for sha in seen_shas):
            continue
        apart.append(statement)
        seen_words |= words
        seen_shas.append(statement.sha)
    return apart


#: dialects whose own pin readers place no spans (a run's ``at `<sha>``` prose, registers and
#: labels): the forms' spans would be some of its pin's spellings only, so re-pin rewrites
#: the commit wherever written
_PINS_UNPLACED = frozenset({"tables"})


def _with_pin_spans(source: Source, statements: Sequence[pinforms.PinStatement]) -> Source:
    """``source`` with the spans of the statements that write its pin (re-pin edits there)."""
    if not source.pin:
        return source
    spans = {statement.span: None for statement in statements
             if statement.span is not None and len(source.pin) >= 7 and same_commit(statement.sha, source.pin)}
    spans.update(dict.fromkeys(source.pin_spans))
    found = tuple(sorted(spans, key=lambda span: span.start))
    return replace(source, pin_spans=found) if found != source.pin_spans else source


def _bound(item: Evidence, sources: tuple[Source, ...], sections: _Sections) -> Evidence:
    """A new piece of evidence bound to the repository its own line writes (its link's), else
    to the one its sentence or section names when the document names several (a repository
    only links pin: at their commit), else to the one its reader gave it, else to the
    document's default (``None``)."""
    return _bound_to(item, sections.named(item), sources)


def _bound_to(item: Evidence, named: Source | _Linked | None, sources: tuple[Source, ...]) -> Evidence:
    """``item`` bound to ``named`` (what its column, sentence or section names), else to the
    repository its reader gave it, else to the document's default."""
    if isinstance(named, _Linked):
        return replace(item, source=named.repository, pin=named.pin)
    if named is not None:
        return replace(item, source=None if named is sources[0] else named.id)
    if item.source is None:
        return item
    index = _find(list(sources), item.source)
    return replace(item, source=sources[index].id if index is not None else item.source)


def _rebound(item: Evidence, sources: tuple[Source, ...], sections: _Sections) -> Evidence:
    """A piece of evidence the dialect read, bound to the repository its sentence or section
    names (a review or note gives all it reads to its one repository); one whose line writes
    its repository (a link) keeps it."""
    named = sections.named(item)
    if isinstance(named, _Linked):
        return replace(item, source=named.repository, pin=named.pin)
    if named is None or named.id == item.source or (
            item.source is not None and _find(list(sources), item.source) == sources.index(named)):
        return item
    return replace(item, source=named.id)


@dataclass(frozen=True)
class _Linked:
    """A repository no pin statement names, whose links in the document all name one commit:
    a citation its section gives it (``## acme/widgets``, then `` `src/a.ts:3` ``) is of that
    commit, as its links are."""

    repository: str
    pin: str


@dataclass(frozen=True)
class _LabelledPins:
    """Several commits a document states for one repository (``**Before:** `acme/widgets@<sha>```,
    ``**After:** `acme/widgets@<sha>```): the words labelling each, which a section's heading
    or a sentence writes to mean that commit (``## After``)."""

    #: a source's ID -> the words labelling its pin (instead of its names: both commits are
    #: of one repository, and its name tells neither)
    labels: dict[str, frozenset[str]]
    #: the repository's other commits, each with its label's words
    others: tuple[tuple[_Linked, frozenset[str]], ...]


def _labelled_pins(sources: Sequence[Source], pins: Sequence[pinforms.PinStatement],
                   lines: list[str]) -> _LabelledPins | None:
    """The commits beyond the first that the document states for one of its ``sources``'
    repositories, with the words labelling each pin (:class:`_LabelledPins`); ``None`` when it
    states one commit per repository, or when a label is missing (nothing then tells them apart)."""
    stated: dict[str, list[tuple[str, frozenset[str]]]] = {}
    for statement in pins:
        # (a pin naming no repository is the document's, or another's the words name: not one
        # of a repository's several)
        index = _find(list(sources), statement.key) if statement.key else (0 if statement.label and sources else None)
        if index is None or not sources[index].pin:
            continue
        shas = stated.setdefault(sources[index].id, [])
        if any(same_commit(sha, statement.sha) for sha, _ in shas):
            continue  # (``2ecb382`` and its full sha: one commit)
        line = lines[statement.line - 1] if 1 <= statement.line <= len(lines) else ""
        written = statement.label if statement.label is not None else line[:statement.column]
        shas.append((statement.sha, pin_label(written, (_repository(sources[index]), sources[index].id))))
    labels: dict[str, frozenset[str]] = {}
    others: list[tuple[_Linked, frozenset[str]]] = []
    for source in sources:
        shas = stated.get(source.id, [])
        if len(shas) < 2 or not all(words for _, words in shas) or not same_commit(shas[0][0], source.pin or ""):
            continue
        labels[source.id] = shas[0][1]
        repository = _repository(source) or source.id
        others.extend((_Linked(repository, sha), words) for sha, words in shas[1:])
    return _LabelledPins(labels, tuple(others)) if others else None


@dataclass(frozen=True)
class _Sections:
    """Which of a document's pinned repositories a report line's sentence, else its section's
    heading, names (only in a document that pins several: else there is nothing to tell)."""

    lines: list[str]
    #: the pinned sources, and the repositories only links pin, each with what a sentence
    #: or heading may call it
    pinned: tuple[tuple[Source | _Linked, frozenset[str]], ...]
    #: the report lines that are Markdown headings, in order
    headings: tuple[int, ...]
    #: a table row's report line -> its cells as written, each with the repository its
    #: column's header names (``| Aspect | widgets | gadgets |``), or ``None``
    rows: dict[int, list[tuple[str, Source | _Linked | None]]] = field(default_factory=dict)

    @classmethod
    def of(cls, sources: Sequence[Source], lines: list[str], evidence: Iterable[Evidence] = (),
           labelled: _LabelledPins | None = None) -> _Sections:
        """``labelled``: a repository's other commits the document states, and the words
        labelling each of its pins (:func:`_labelled_pins`)."""
        labels = labelled.labels if labelled is not None else {}
        pinned: list[tuple[Source | _Linked, frozenset[str]]] = [
            (source, labels.get(source.id, _names_of(source))) for source in sources if source.pin]
        pinned.extend(labelled.others if labelled is not None else ())
        named = {_repository(source).casefold() for source in sources}
        commits: dict[str, set[str]] = {}
        for item in evidence:
            if item.source and "/" in item.source and item.pin and item.source.casefold() not in named:
                commits.setdefault(item.source, set()).add(item.pin)
        for repository, pins in commits.items():
            if len(pins) == 1:  # (links at several commits: which one a citation means is unsaid)
                name = repository.rsplit("/", 1)[-1]
                pinned.append((_Linked(repository, pins.pop()), frozenset({repository.casefold(), name.casefold()})))
        if len(pinned) < 2:
            return cls(lines, (), ())
        headings = tuple(number for number, line in enumerate(lines, start=1) if line.startswith("#"))
        tabled = any("|" in line for line in lines)
        return cls(lines, tuple(pinned), headings, _repository_columns(lines, pinned) if tabled else {})

    def __bool__(self) -> bool:
        return bool(self.pinned)

    def columns(self, item: Evidence) -> list[Source | _Linked]:
        """The repositories ``item``'s citation is written for, each once, in order: the table
        columns holding its file on its row, else the names right after each place its line
        writes the file (`` `a.md:1` in widgets and `a.md:1` in gadgets ``, `` `a.md:1` (gadgets) ``);
        empty when neither, and for a piece whose line writes its repository."""
        if not self.pinned or not item.path or item.kind not in _SECTION_BOUND or self._written_beside(item):
            return []
        owners: list[Source | _Linked] = []
        cells = self.rows.get(item.line)
        if cells:
            for text, owner in cells:
                if owner is not None and _writes_path(text, item.path) and _writes_lines(text, item) \
                        and all(owner is not o for o in owners):
                    owners.append(owner)
            return owners
        line = self.lines[item.line - 1] if 1 <= item.line <= len(self.lines) else ""
        at = line.find(item.path)
        while at >= 0:
            after = NAME_AFTER_CITATION.match(line, at + len(item.path))
            if after is not None:
                word = after.group(1).casefold().rstrip(".")
                named = [source for source, names in self.pinned if word in names]
                if len(named) == 1 and all(named[0] is not o for o in owners):
                    owners.append(named[0])
            at = line.find(item.path, at + 1)
        return owners

    def named(self, item: Evidence) -> Source | _Linked | None:
        """The one pinned source ``item``'s table column, else its sentence, else its heading,
        names; ``None`` when none does, when the document pins one, and for a piece whose own
        line writes its repository (a link's ``owner/name``: the link says whose file it is)."""
        if not self.pinned or item.kind not in _SECTION_BOUND or self._written_beside(item):
            return None
        owners = self.columns(item)
        if len(owners) == 1:
            return owners[0]
        line = self.lines[item.line - 1] if 1 <= item.line <= len(self.lines) else ""
        for text in (_sentence_citing(line, item), self._heading_above(item.line)):
            words = {word.casefold().rstrip(".") for word in REPOSITORY_WORD.findall(text)}
            # (an ellipsis or a full stop alone is no word: read as "", it named every source
            # that names no owner/name, and a sentence of code went to that one)
            words.discard("")
            named = [source for source, names in self.pinned if names & words]
            if len(named) == 1:
                return named[0]
        return None

    def _written_beside(self, item: Evidence) -> bool:
        """Whether the repository ``item`` names is written on its own lines (its link)."""
        if item.source is None or "/" not in item.source:
            return False
        named = item.source.casefold()
        return any(named in line.casefold() for line in self.lines[item.line - 1:item.end_line])

    def _heading_above(self, number: int) -> str:
        """The nearest Markdown heading at or above report line ``number``, within 2,000 lines
        (``""`` when none)."""
        at = bisect.bisect_right(self.headings, number) - 1
        if at < 0 or self.headings[at] <= number - 2000:
            return ""
        return self.lines[self.headings[at] - 1].lstrip("#")


#: dialects that give every citation no link ties to the document's one repository (a record
#: report and a run bind each to the source it names)
_BIND_ONE_REPOSITORY = frozenset({"review", "notes"})


#: what a dialect reads that a section may give to another repository
_SECTION_BOUND = frozenset({EvidenceKind.PATH, EvidenceKind.LINES, EvidenceKind.DIRECTORY, EvidenceKind.QUOTE,
                            EvidenceKind.SYMBOL})


def _sentence_citing(line: str, item: Evidence) -> str:
    """The sentence of ``line`` that writes ``item``'s file (``In gadgets, `lib/a.rs:1` ...``
    beside a sentence on widgets); the whole line when it is one sentence or does not write it."""
    at = line.find(item.path) if item.path else -1
    if at < 0 or not _SENTENCE_BREAK.search(line):
        return line
    starts = [0, *(match.end() for match in _SENTENCE_BREAK.finditer(line))]
    start = max(start for start in starts if start <= at)
    following = [begin for begin in starts if begin > at]
    return line[start:following[0] if following else len(line)]


#: where a sentence ends inside a line: a stop, then a space and a capital or a mark
_SENTENCE_BREAK = re.compile(r"(?<=[.!?;])[ \t]+(?=[A-Z`*_(\[\"])")


def _repository_columns(lines: list[str], pinned: Sequence[tuple[Source | _Linked, frozenset[str]]]
                        ) -> dict[int, list[tuple[str, Source | _Linked | None]]]:
    """The rows of the tables whose header names a pinned repository over a column (a
    comparison: ``| Aspect | widgets | gadgets |``), by report line: each cell as written
    with the repository its column is of."""
    rows: dict[int, list[tuple[str, Source | _Linked | None]]] = {}
    for header, cells in raw_tables(lines):
        owners: list[Source | _Linked | None] = []
        for name in header:
            word = name.strip("`*_ ").casefold()
            found = [source for source, names in pinned if word in names]
            owners.append(found[0] if len(found) == 1 else None)
        if not any(owner is not None for owner in owners):
            continue
        for number, row in cells:
            rows[number] = list(zip(row, owners))
    return rows


def _writes_lines(text: str, item: Evidence) -> bool:
    """Whether a cell writing ``item``'s file writes its first cited line right after it (of
    ``| `a.ts:3-4` | `a.ts:9-12` |``, the row's columns, which cell cites which); true for a
    piece citing no lines."""
    if item.cited_lines is None:
        return True
    first = (item.written_lines or item.cited_lines).start
    path = item.written or item.path
    at = text.find(path)
    while at >= 0:
        token = text[at:].split(None, 1)[0].strip("`*_,;()")  # (the citation as written: ``a.ts:3-4``)
        spec = review.repo_path_spec(token, strict=False)
        if spec is not None and spec.ranges:
            if any(cited.start == first for cited in spec.ranges):
                return True
        else:  # (its lines written apart, ``a.ts` (L3-L4)``: a number of the cell's after it)
            numbers = "".join(ch if ch.isdigit() else " " for ch in text[at + len(path):]).split()
            if str(first) in numbers:
                return True
        at = text.find(path, at + 1)
    return False


def _writes_path(text: str, path: str) -> bool:
    """Whether ``text`` writes ``path`` as a path of its own (not ``a.md`` inside ``data.md``)."""
    at = text.find(path)
    while at >= 0:
        before, after = text[at - 1:at], text[at + len(path):at + len(path) + 2]
        if not (before.isalnum() or before in "_./-") and not (
                after[:1].isalnum() or after[:1] in "_/-" or (after[:1] == "." and after[1:2].isalnum())):
            return True
        at = text.find(path, at + 1)
    return False


def _names_of(source: Source) -> frozenset[str]:
    """What a sentence or heading may call ``source`` (casefolded): its ID, its ``owner/name``
    and that name alone; for a pin only words name, those words and their names alone."""
    repository = _repository(source)
    names = {source.id.casefold(), repository.casefold(), (repository or source.id).rsplit("/", 1)[-1].casefold()}
    if not repository:
        for word in source.mentioned:
            names |= {word.casefold(), word.rsplit("/", 1)[-1].casefold()}
    names.discard("")
    return frozenset(names)
