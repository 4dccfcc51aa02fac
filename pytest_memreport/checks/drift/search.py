"""The whole-tree search for a quote that left its file, and its announcement.

:func:`search_tree` finds every place of the against-revision where a quote
now occurs (by characters, then by tokens), files sharing the origin's name
first. :func:`expect_searches` announces, before the first classification,
the quotes likely to need it, so that the word index (:mod:`.wordindex`)
asks ``git grep`` for all their words in one pass.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, replace

from rapidfuzz.distance import Indel

from ...gitstore import WORKTREE, RepoError
from ...model import Evidence, EvidenceKind
from ...text import match, symbols
from .results import SUMMARY_PLACES, Place
from . import wordindex
from .blocks import cited_block, exact_blocks

def search_tree(pattern, quote: str, against, exclude: set, origin: str,
                by_tokens: bool = True) -> tuple[list[Place], bool]:
    """Every place in ``against`` (but the paths in ``exclude``) where the quote occurs.

    It runs only for quotes gone from their file. The files worth reading are
    those holding the quote's longest compound names, which ``git grep``
    names (one pass for every quote expected to need it, see
    :func:`expect_searches`); a quote without such names reads every file (in
    pipelined batches). A file must also hold every word of the quote
    (outside backticks, which rendering eats) and its reduced form every part
    before :func:`.match.find` looks. Files sharing the origin's name, then
    its extension, are reported first. Token matching is tried, in files of
    the origin's language, only when character matching finds nothing, and
    only in the windows where the quote's code words occur in order, close
    together (:func:`.match.token_windows`): lexing costs far more than
    looking. A cited range follows only to identical lines, so its search
    leaves tokens out (``by_tokens=False``): a reformatted copy is never its place.
    """
    index = wordindex.word_index(against)
    places: list[Place] = []
    candidates = index.holding(wordindex.probes(pattern.whole_words))
    scanned = candidates is None
    if candidates is None:
        candidates = index.scan(*_character_scan(pattern))
    for path, text in _readable(against, candidates, exclude):
        if not scanned and not match.may_occur_in(pattern, text.text, key=text.oid or None):
            continue
        places.extend(Place(path, span.lines) for span in match.find(pattern, text.text, key=text.oid or None))
    if places or not by_tokens:
        return _by_affinity(places, origin), False
    language = symbols.language_for(origin)
    words = match.code_words(quote, origin)
    if language is None or words is None:
        return [], False
    candidates = index.holding(wordindex.probes(words))
    if candidates is None:
        candidates = index.scan(*_token_scan(quote, origin))
    for path, text in _readable(against, candidates, exclude):
        windows = match.token_windows(quote, text.text, path) if symbols.language_for(path) == language else []
        if windows:
            places.extend(Place(path, lines) for lines in
                          symbols.token_find_all(quote, text.text, path, key=text.oid or None, windows=windows))
    return _by_affinity(places, origin), bool(places)


#: the fewest letters and digits cited lines must hold to be followed anywhere in the tree:
#: git blame's own bound for lines moved or copied between files (``-C``, git-blame(1)).
#: Fewer (``): ...``, ``} catch (error) {``) stand in hundreds of files: finding them in one
#: far away says nothing, and would pass a cited line that is gone.
FOLLOW_ALNUM = 40


def letters_and_digits(block: list[str]) -> int:
    """How many letters and digits the lines ``block`` hold (as git blame -C counts them): at
    least :data:`FOLLOW_ALNUM` to be followed anywhere in the tree, else only into their own
    folder (:func:`search_folder`)."""
    return sum(ch.isalnum() for line in block for ch in line)


def search_folder(block: list[str], against, exclude: set, folders: set[str], origin: str) -> list[Place]:
    """Every place holding exactly the lines ``block`` in the files of ``folders`` (but
    ``exclude``): where cited lines too plain to follow across the tree are looked for (a
    module split into a sibling takes its lines along). No word search: a folder's files
    are read."""
    index = wordindex.word_index(against)
    paths = {path for folder in folders for path in index.in_folder(folder)}
    places = [Place(path, lines) for path, text in _readable(against, paths, exclude)
              for lines in exact_blocks(block, text.text)]
    return _by_affinity(places, origin)


def search_lines(block: list[str], against, exclude: set, origin: str) -> list[Place] | None:
    """Every place in ``against`` (but ``exclude``) holding exactly the lines ``block``,
    read only in the files ``git grep`` says hold its :func:`.wordindex.probe_line`, or
    (no line of it telling) those whose text holds the block (one pass over the tree for
    every such block); ``None`` when the block is blank or git cannot search (search the
    tree then)."""
    probe = wordindex.probe_line(block)
    index = wordindex.word_index(against)
    if probe is not None:
        candidates = index.holding_line(probe)
        if candidates is None:
            return None
    elif any(line.strip() for line in block):
        # Only short lines: ``git grep`` would print most of the tree; one pass over its
        # texts (shared by every such block announced) tests the block as a substring.
        candidates = index.scan(*_block_scan(block))
    else:
        return None
    places = [Place(path, lines) for path, text in _readable(against, candidates, exclude)
              for lines in exact_blocks(block, text.text)]
    return _by_affinity(places, origin)


def _block_scan(block: list[str]):
    """The scan finding the files that may hold exactly the lines ``block``: their text holds
    it as a string (a superset: :func:`.blocks.exact_blocks` decides)."""
    joined = "\n".join(block)
    return ("lines", joined), lambda path, text, reduced: joined in text, (), tuple(match.words_of(joined))


def _by_affinity(places: list[Place], origin: str) -> list[Place]:
    """Files sharing the origin's name first, then its extension (stable within)."""
    return sorted(places, key=lambda place: _affinity(place.path, origin))


def _character_scan(pattern):
    """The scan finding the files a quote without probe words may occur in: every
    one holds each of its words, backticks dropped (:func:`.match.holds_words`)."""
    return (("characters", pattern.text),
            lambda path, text, reduced: match.holds_words(pattern, text) and match.may_occur(pattern, reduced()),
            wordindex.scan_needs(pattern.whole_words), pattern.whole_words)


def _token_scan(quote: str, origin: str):
    """The scan finding the files of the origin's language where a quote
    without probe words may occur by tokens: every one holds its code words."""
    language = symbols.language_for(origin)
    return (("tokens", language, quote),
            lambda path, text, reduced: symbols.language_for(path) == language
            and bool(match.token_windows(quote, text, path)),
            wordindex.scan_needs(match.code_words(quote, origin) or ()), tuple(match.code_words(quote, origin) or ()))


def _readable(against, candidates: set[str], exclude: set):
    """``(path, text file)`` of the candidate files that can be read as text."""
    for path, textfile in against.read_many(p for p in sorted(candidates) if p not in exclude):
        if textfile is not None and textfile.is_text:
            yield path, textfile


def expect_searches(against, store, pin_sha: str, quotes) -> list[Evidence]:
    """Announce quotes (``(evidence, quote)`` pairs, pinned at ``pin_sha``; a quote is its
    text or its compiled pattern)
    that may have to be searched for in all of ``against``, so that the first
    search asks ``git grep`` for all of their words at once.

    The planner's one call per (repository, pin, against) pair, before any
    classification, with ALL the pair's evidence: quotations (their text),
    cited ranges (their lines as recorded at the pin) and symbol references
    (their name). After it, the pair's searches cost one word search, one
    line search and one backtick search, however much evidence left its file.

    A quote whose file kept its blob, or which is still in its file (at its
    path, or where the whole ``pin..against`` diff renamed it), is left out:
    the guess costs only time when wrong, either way. Returns the evidence
    announced (symbol references among it: their names), the evidence whose
    classification may search the tree.
    """
    index = wordindex.word_index(against)
    pinned = store.snapshot(pin_sha)
    announced: list[Evidence] = []
    renames = None
    changed: list[tuple[Evidence, str, str | None]] = []
    folders: set[str] = set()  # where cited lines too plain to follow across the tree are looked for
    for evidence, quote in quotes:
        old = pinned.oid(evidence.path)
        if old is None:
            continue  # not at the pin as cited: there is no drift to classify
        entry = against.entry(evidence.path)
        if entry is not None and entry.kind == "file" and entry.oid == old:
            continue
        if evidence.kind is EvidenceKind.SYMBOL:
            # A definition whose file changed may have left it: its bare name is asked
            # for with the quotes' words (:func:`search_definition`).
            bare = (quote if isinstance(quote, str) else quote.text).rsplit(".", 1)[-1]
            if bare.isascii() and bare.isidentifier():
                index.expect((bare,))
                announced.append(evidence)
            continue
        home = evidence.path if entry is not None and entry.kind == "file" else None
        if home is None:
            if renames is None:
                renames = store.renames(pin_sha, "HEAD" if against.rev == WORKTREE else against.rev)
            home = renames.get(evidence.path)
        changed.append((evidence, quote, home))
    # Their files are read now and classified soon after: one batch.
    against.prefetch(home for _, _, home in changed if home is not None)
    for evidence, quote, home in changed:
        # (a quotation may come compiled as classification reads it: see :func:`.searched_form`)
        pattern = match.as_pattern(quote)
        quote = pattern.text
        textfile = against.read(home) if home is not None else None
        if textfile is not None and textfile.is_text:
            if evidence.kind is EvidenceKind.LINES:
                if _holds_lines(textfile.text, quote):
                    continue  # cited lines follow only to identical lines: a plain test decides
            elif match.find(pattern, textfile.text, key=textfile.oid or None):
                continue
        if evidence.kind is not EvidenceKind.LINES:
            _expect(index, evidence, quote, pattern)
            announced.append(evidence)
            continue
        block = cited_block(quote)
        count = letters_and_digits(block)
        if count < FOLLOW_ALNUM:
            # Too plain to be followed across the tree: only its folder is read (fetched below),
            # and nothing for lines without a letter or digit.
            if count:
                folders.update(posixpath.dirname(path) for path in (evidence.path, home) if path is not None)
            continue
        probe = wordindex.probe_line(block)
        if probe is not None:
            index.expect_line(probe)
        elif quote.strip():
            index.expect_scan(*_block_scan(block))
        else:
            _expect(index, evidence, quote, pattern)
        announced.append(evidence)
    # The folders' files in one batch (each folder's search would start a reader of its own).
    against.prefetch(path for folder in sorted(folders) for path in index.in_folder(folder))
    return announced


def expect_missing(pinned, quotes) -> None:
    """Announce quotations missing at their pin (``quotes``: evidence), so that the
    search saying where the pinned tree holds them instead (:func:`with_found_instead`)
    asks ``git grep`` once for all of them, not once per quotation."""
    index = wordindex.word_index(pinned)
    for evidence in quotes:
        text = evidence.text or ""
        if text.strip():
            _expect(index, evidence, text, match.compile_quote(text))


def ask_ahead(snapshot, renew: bool = False) -> None:
    """Start the ``git grep`` for every quotation announced at ``snapshot``, its answer
    taken in by the first search (git searches on another core meanwhile); ``renew``: after
    taking in one started before (see :meth:`.WordIndex.ask_ahead`)."""
    wordindex.word_index(snapshot).ask_ahead(renew)


def stop_asking(snapshot) -> None:
    """Stop a search :func:`ask_ahead` started that no search took in."""
    wordindex.stop_asking(snapshot)


def _expect(index, evidence: Evidence, quote: str, pattern) -> None:
    """Tell the word index what a coming search for ``quote`` will ask."""
    probes = wordindex.probes(pattern.whole_words)
    index.expect(probes)
    if not probes:
        index.expect_scan(*_character_scan(pattern))
    # Cited lines follow only to identical lines: their search never lexes.
    words = match.code_words(quote, evidence.path) if evidence.kind is EvidenceKind.QUOTE else None
    if words is not None:
        probes = wordindex.probes(words)
        index.expect(probes)
        if not probes:
            index.expect_scan(*_token_scan(quote, evidence.path))


def _holds_lines(text: str, lines: str) -> bool:
    """Whether ``text`` holds ``lines`` as whole, consecutive lines."""
    bounded = "\n" + text if text.endswith("\n") else "\n" + text + "\n"
    return f"\n{lines}\n" in bounded


def _affinity(path: str, origin: str) -> int:
    """0: same file name as the origin, 1: same extension, 2: anything else."""
    if posixpath.basename(path) == posixpath.basename(origin):
        return 0
    return 1 if posixpath.splitext(path)[1] == posixpath.splitext(origin)[1] else 2


# -- definitions that left their file -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Namesake:
    """A definition with the name and kind of one that left its file (:func:`search_definition`)."""

    path: str
    definition: symbols.Definition
    #: how much of the pin's body tokens (name aside) it keeps: rapidfuzz's Indel similarity
    #: of the token lists, 1.0 for the same body, 0.0 where the pin's body is not known
    similarity: float

    @property
    def same_body(self) -> bool:
        return self.similarity == 1.0


def search_definition(against, name: str, kind: str, body: list[str] | None, exclude: set,
                      origin: str) -> list[Namesake]:
    """Where a definition that left its file now lives: every :class:`Namesake`.

    Like a relocated quote: the files holding the definition's bare name as a
    whole word (one ``git grep``) are parsed, and every definition with the
    same name and kind is a candidate; those whose tokens (name aside) equal
    the pin's ``body`` come first, then files sharing the origin's name or
    extension. Files of languages without a grammar are not read.
    """
    bare = name.rsplit(".", 1)[-1]
    # The word index asks git for this name with every other word announced (see
    # :func:`expect_searches`): one search for all the definitions that left their files.
    holding = wordindex.word_index(against).holding((bare,)) if bare.isascii() and bare.isidentifier() else None
    if holding is None:
        candidates = [p for p in against.files() if symbols.language_for(p) is not None]
    else:
        candidates = sorted(p for p in holding if symbols.language_for(p) is not None)
    found = []
    for path, textfile in _readable(against, set(candidates), exclude):
        for definition in symbols.find_definitions(textfile.text, path, bare, kind=kind, key=textfile.oid or None) or ():
            if definition.bare_name != bare:
                continue
            tokens = _body_tokens(textfile.text, path, definition, textfile.oid) if body is not None else None
            similarity = 1.0 if tokens == body else Indel.normalized_similarity(body, tokens) if body and tokens else 0.0
            found.append(Namesake(path, definition, similarity))
    return sorted(found, key=lambda namesake: (not namesake.same_body, _affinity(namesake.path, origin)))


def _body_tokens(text: str, path: str, definition, key=None) -> list[str] | None:
    """The definition's tokens without its own name (so a rename alone compares equal)."""
    found = symbols.tokens(text, path, key=key or None, span=(definition.start, definition.end))
    if found is None:
        return None
    return [t.text for t in found if t.text != definition.bare_name]


def definition_body(text: str, path: str, definition) -> list[str] | None:
    """:func:`_body_tokens` of a definition whose text is ``text`` itself (the pin's recorded body)."""
    found = symbols.tokens(text, path)
    if found is None:
        return None
    return [t.text for t in found if t.text != definition.bare_name]


# -- a quote missing at its pin --------------------------------------------------------------


def found_instead(evidence: Evidence, pinned) -> str:
    """Where the pinned tree holds a quote missing at its pin (or whose file is missing
    there) instead, as its failure says it: the relocation search, at the pin; ``""``
    when nowhere (or a blob the clone lacks stops the search)."""
    text = evidence.text or ""
    if not text.strip():
        return ""
    try:
        places, _ = search_tree(match.compile_quote(text), text, pinned, exclude={evidence.path},
                                origin=evidence.path)
    except RepoError:
        return ""
    if not places:
        return ""
    shown = ", ".join(str(place) for place in places[:SUMMARY_PLACES])
    more = len(places) - SUMMARY_PLACES
    shown += f" and {more} more" if more > 0 else ""
    return f"found instead in {shown} (fix the cited path)"


def with_found_instead(evidence: Evidence, pinned, result, found: str | None = None):
    """``result`` saying :func:`found_instead` (``found``: that, already searched for)."""
    found = found_instead(evidence, pinned) if found is None else found
    return replace(result, message=f"{result.message}; {found}") if found else result
