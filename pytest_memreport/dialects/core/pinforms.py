"""Pin statements in any document (docs/FORMATS.md, "Any document"): a commit, and the
repository it is a commit of when the document names one.

Writers state pins in many shapes, none of which a dialect owns::

    **Reviewed revisions:** `widgets` `<sha40>`; `widgets-rs` `<sha40>`.
    **Repository snapshot:** `<sha40>`
    The audit is pinned to the Acme Widgets revision `<sha40>`.
    The inspected revision is [`acme/widgets@<sha40>`](https://github.com/acme/widgets/commit/<sha40>).
    | Git revision | `<sha40>` |
    front matter:  code_revisions: {acme/widgets: <sha40>}   or   commit: <sha40>

A sha is a pin when the sentence (or table row) before it says so (a pin word:
revision, commit, snapshot, pinned, frozen, HEAD, checkout) and does not say it
is another document's or an older one ("the earlier review, pinned to ...",
"originally written against ..."). Which repository it is of: ``owner/name@sha``,
a commit link around it, a backticked short name right before it (``widgets``),
else none (the document's own pin, for its only repository).

Line patterns, linear on adversarial input; shas in blob and tree links are not
statements (a link carries its own commit).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ...model import Span
from .grammar import (
    AT_SHA,
    BARE_SHA_AFTER_COMMIT_WORD,
    COMMIT_WORD_BEFORE,
    FULL_SHA,
    LABELLED_LINK,
    LINK_TEXT_SHA,
    LISTED_PIN,
    NAME_THEN_SHA,
    NAMED_BEFORE_SHA,
    ONLY_A_LINK,
    OWNER_NAME,
    OWNER_NAME_AT_SHA,
    PIN_LINE_URL,
    PREFIXED_REPOSITORY_KEY,
    REPOSITORY_FILE_AT,
    REPOSITORY_MENTION,
    SHA_LIKE,
    SHA_VALUE,
    SHORT_NAME_AT_SHA,
    SHORT_SHA,
    URL_AT_SHA,
)
from .extensions import KNOWN_EXTENSIONS
from .links import RepositoryLink, parse_repository_link, repository_of

_PIN_WORDS = re.compile(
    r"(?i)(?<!--)(?<![\s`]-)\b(?:revisions?|commits?|snapshot|pinned|pin|frozen|freeze|HEAD|checkout|checked[ \t]+out|"
    # (``sha``, not a digest's name: ``SHA-256``, ``sha512`` label a checksum)
    r"sha(?![-_]?(?:224|256|384|512)\b)|"
    r"version|tree|as[ \t]+of|against|"
    r"(?:read|inspected|reviewed|checked|analy[sz]ed|audited|examined|studied|verified|tested|validated|confirmed)"
    r"(?:[ \t]+on[ \t]+`?[\w./-]{1,60}`?)?[ \t]+at|"
    r"(?:repository|repo|codebase|clone)[ \t]+at)\b"
    r"|\btarget(?=[*_ \t]*:)")
#: what makes a sha another document's, or an older one
_HISTORY_WORDS = re.compile(
    r"(?i)\b(?:originally|earlier|previous(?:ly)?|prior|older|superseded|replaced|formerly|former|"
    r"predecessor|last[ \t]+time|used[ \t]+to|was[ \t]+written|were[ \t]+written|compare[sd]?[ \t]+(?:with|against)|"
    r"diff(?:ed|s)?[ \t]+against|rebased[ \t]+(?:on|onto|against)|between|since|"
    # a change's own commit: "corrected in commit `<sha>`", "introduced by `<sha>`"
    r"(?:fixed|corrected|patched|introduced|reverted|resolved|addressed|landed|merged|shipped|regressed)"
    r"[ \t]+(?:in|by|with))\b"
)
#: where a sentence or cell ends (a pin word belongs to its own sentence)
_SENTENCE_END = re.compile(r"(?:[.;!?](?=\s)|\|)")
#: how far before a sha its pin words may stand (characters)
_WINDOW = 300
#: front matter keys that hold a pin, or pins keyed by repository
PIN_KEYS = ("commit", "revision", "pin", "sha", "reviewed-commit", "reviewed_commit", "ref", "commit_sha", "commit-sha",
            "git_commit", "git-commit", "git_sha", "git-sha", "snapshot")
REVISIONS_KEYS = ("code_revisions", "code-revisions", "revisions", "pins", "repos", "repositories", "commits",
                  "targets", "sources")
#: a front matter key naming the commit of the repository its prefix says (``target_commit``,
#: ``upstream-sha``, ``source_revision``): the document's pin as ``commit`` is
_PREFIXED_PIN_KEY = re.compile(
    r"(?:target|upstream|source|repo|repository|code|reviewed|analy[sz]ed|audited|pinned|head|git|checked)"
    r"[_-](?:commit|revision|sha|pin|ref|snapshot)(?:[_-](?:sha|id))?")
#: front matter keys that hold the document's date
DATE_KEYS = ("date", "last-checked", "last_checked", "updated", "created", "reviewed")
_COMMITTED_ON = re.compile(r"(?i)\bcommitted[ \t]+on[ \t]+(\d{4}-\d{2}-\d{2})\b")


@dataclass(frozen=True, slots=True)
class PinStatement:
    """A commit the document states it was written against.

    ``repository`` is ``owner/name`` when the statement names one, ``name`` a short name
    the document uses for it (``widgets``, which the user maps with
    ``--memreport-repo widgets=PATH``); both ``None`` for the document's own pin.
    """

    sha: str
    line: int
    column: int
    repository: str | None = None
    name: str | None = None
    #: ``owner/name`` words the statement's sentence writes (:func:`mentions`) when it names no
    #: repository for certain: the one the user maps is the pin's (``pinned to the acme/widgets
    #: revision `<sha>` ``, ``acme/widgets at `<sha>` ``)
    mentioned: tuple[str, ...] = ()
    #: where the sha is written (re-pin rewrites it there), when the reader knows the line's place
    span: Span | None = field(default=None, compare=False)
    #: the state of the repository the commit is, as a table's column names it (``Before``,
    #: ``After``): one of several commits of the document's one repository
    label: str | None = field(default=None, compare=False)

    @property
    def key(self) -> str | None:
        """How the document names the repository: ``owner/name``, a short name, or ``None``."""
        return self.repository or self.name


def has_digit_and_letter(sha: str) -> bool:
    """Whether a short hex word holds a digit and a letter (one of digits alone may be a number)."""
    return any(c.isdigit() for c in sha) and any(c.isalpha() for c in sha)


def _sentence_start(line: str, column: int, ends: list[int]) -> int:
    """Where the sentence (or table cell run) holding ``column`` starts; ``ends`` are the
    line's sentence ends, found once."""
    # A table row's first cell names the pin (``| Git revision | `sha` |``): keep the row.
    if line.lstrip().startswith("|"):
        return 0
    index = bisect.bisect_right(ends, column)
    return ends[index - 1] if index else 0


def _without_urls(text: str) -> str:
    """``text`` with each URL blanked by as many spaces (offsets stay put): what its writer
    says, not what a link's path holds (``/commit/<sha>``, a gist's id)."""
    return PIN_LINE_URL.sub(lambda url: " " * len(url.group()), text) if "://" in text else text


def mentions(text: str) -> Iterator[tuple[int, str]]:
    """The ``owner/name`` words ``text`` writes outside its URLs, in order, each with where
    it starts (a path is one too: which of them is a repository only the user's mapping
    says). One scan in C of a document whose lines mostly cite paths: a mention holds no
    line end, and a URL is blanked by as many spaces, so that offsets stay put."""
    if "/" not in text:
        return
    text = _without_urls(text)
    for match in REPOSITORY_MENTION.finditer(text):
        yield match.start(), match.group(1).rstrip(".")


def line_pins(line: str, number: int, offset: int | None = None) -> list[PinStatement]:
    """Every pin stated on one line of a document (shas lower-cased); ``offset``, where the
    line starts in the document's text, gives each its :class:`~pytest_memreport.model.Span`."""
    listed = LISTED_PIN.fullmatch(line) if ":" in line else None
    if listed is not None and ("/" in listed.group("name") or listed.group("open")):
        name, sha, column = listed.group("name"), listed.group("sha").lower(), listed.start("sha")
        full = "/" in name
        if not full and _PIN_WORDS.fullmatch(name):
            name = None  # ``- **Commit:** `<sha>```: the pin word labels the sha, it names no repository
        return [PinStatement(sha, number, column, name if full else None, None if full else name,
                             span=_span(line, sha, number, column, offset))]
    at_word = {match.start(2): match.group(1) for match in OWNER_NAME_AT_SHA.finditer(line)} if " at " in line else {}
    # A heading naming ``owner/name@<sha>`` (``# Audit of acme/widgets @ `<sha>` ``) says what the
    # document is of: its pin, with no pin word.
    heading = line.startswith("#")
    # The words are the writer's, not a URL's: ``/commit/`` in a link says nothing of the
    # sentence around it ("introduces [more work](.../commit/<sha>)" is a commit cited in passing).
    # Nor does a commit link's text calling it a commit ("[this commit] shows another way", its
    # reference ``[this commit]: .../commit/<sha>``): only what the sentence says of it.
    words = _without_commit_words(line, _without_urls(line))
    # (a whole repository's tree at a commit, on a line labelling it the source; in passing, a
    # prototype's or a dependency's tree says nothing of what the document read)
    root = _root_tree_shas(line) if "/tree/" in line and LABELLED_LINK.fullmatch(words) else {}
    # (``https://github.com/acme/widgets at `<sha>` ``: the repository read at that commit)
    homes = _repository_homes_at(line) if "://" in line and ("@" in line or " at " in line) else {}
    if not at_word and not heading and not root and not homes and not _PIN_WORDS.search(words) \
            and not _only_a_link(words):
        return []
    found: dict[int, tuple[str, str | None, str | None]] = {}
    # Commit links name their repository; blob and tree links are evidence, not statements.
    link_shas: dict[str, str] = {}
    linked_spans: list[tuple[int, int]] = []
    for match in PIN_LINE_URL.finditer(line):
        # (a sha inside any address is its own: a pull request's ``/commits/<sha>``, a
        # diff's ``#diff-<digest>`` anchor; only a link into a repository names its commit)
        linked_spans.append(match.span())
        link = parse_repository_link(match.group())
        if link is None:
            continue
        if link.kind == "commit" or link.ref.lower() in root:
            link_shas[link.ref.lower()] = link.repo_id
    # A commit link written as its own text (``[9a0bae8](.../commit/9a0bae8...)``), or a line
    # that is only a commit link, states its commit with no pin word.
    own_text = set(_link_text_shas(line, link_shas))
    if _only_a_link(words) and link_shas:
        own_text.add(line.find(next(iter(link_shas))))
    # The tree of a whole repository at a commit (``Source: .../tree/<sha>``) is that commit.
    own_text.update(line.find(sha) for sha in root)
    named_at: set[int] = set()  # where ``owner/name@<sha>`` writes a sha
    for column, (home_sha, home) in homes.items():
        found[column] = (home_sha, home, None)
        own_text.add(column)
    for match in AT_SHA.finditer(line):
        found[match.start(3)] = (match.group(3).lower(), f"{match.group(1)}/{match.group(2)}", None)
        named_at.add(match.start(3))
    if heading:  # (``## acme/widgets (`1a2b3c4`)``: the section is of that commit)
        for match in NAME_THEN_SHA.finditer(line):
            if match.start(3) not in found and (len(match.group(3)) >= 40 or has_digit_and_letter(match.group(3))):
                found[match.start(3)] = (match.group(3).lower(), f"{match.group(1)}/{match.group(2)}", None)
                named_at.add(match.start(3))
    if "@" in line:  # `` `widgets@1a2b3c4` ``: a short name the user maps, and its commit
        for match in SHORT_NAME_AT_SHA.finditer(line):
            if match.start(2) not in found and has_digit_and_letter(match.group(2)):
                found[match.start(2)] = (match.group(2).lower(), None, match.group(1))
    for pattern in (FULL_SHA, SHORT_SHA, BARE_SHA_AFTER_COMMIT_WORD):
        for match in pattern.finditer(line):
            sha, column = match.group(1), match.start(1)
            if pattern is BARE_SHA_AFTER_COMMIT_WORD and (len(sha) == 40 or not has_digit_and_letter(sha)
                                                          or line.count("`", 0, column) % 2):
                continue  # (a full sha is read above; ``commit defaced`` is a word; a command's in a code span)
            if any(start <= column < end for start, end in linked_spans):
                continue  # inside a URL: the link's own commit
            if column in found:
                continue  # ``owner/name@sha``, read above
            # A name stands right before its sha: look back a bounded window, not the whole line.
            named = NAMED_BEFORE_SHA.search(line[max(0, column - 120):column].rstrip("`["))
            # A short sha of digits (or letters) alone may be a number: a pin only right after a
            # commit word, or in backticks after a backticked name (`` `tldr` `1713796` ``).
            if len(sha) < 40 and not has_digit_and_letter(sha) and not (
                    pattern is SHORT_SHA and (COMMIT_WORD_BEFORE.search(line, max(0, column - 40), column)
                                              or (named is not None and line[column - 1:column] == "`"))):
                continue
            if column in at_word:
                found[column] = (sha.lower(), None, None)
                continue
            found[column] = (sha.lower(), None, named.group(1) if named else None)
    # A commit link written as its own text (``[9a0bae8](.../commit/9a0bae8...)``) states it too.
    for sha, repo in link_shas.items():
        if not any(s == sha or sha.startswith(s) or s.startswith(sha) for s, _, _ in found.values()):
            found[line.find(sha)] = (sha, repo, None)
    pins: list[PinStatement] = []
    ends = [m.end() for m in _SENTENCE_END.finditer(line)]
    first_word = _PIN_WORDS.search(words)
    for column, (sha, repository, name) in sorted(found.items()):
        column = max(column, 0)
        # The words that make a sha a pin stand close before it: a bounded window keeps a line
        # of many shas linear.
        start = max(_sentence_start(line, column, ends), column - _WINDOW)
        if _HISTORY_WORDS.search(line, start, column):
            continue
        if column in at_word:
            pins.append(PinStatement(sha, number, column, mentioned=(at_word[column],),
                                     span=_span(line, sha, number, column, offset)))
            continue
        # A list of named pins (``Reviewed revisions: `a` `sha`; `b` `sha```) shares one pin word.
        said = (heading and column in named_at) or column in own_text or _PIN_WORDS.search(words, start, column) or (
            name is not None and first_word is not None and first_word.start() < column
            and column - first_word.start() <= 4 * _WINDOW)
        if not said:
            continue
        if repository is None:
            repository = next((repo for s, repo in link_shas.items() if s.startswith(sha) or sha.startswith(s)), None)
        if name is not None and (_PIN_WORDS.fullmatch(name) or name.lower() in {"sha", "commit"}):
            name = None
        mentioned = () if repository or name else (*(word for _, word in mentions(line[start:column])),
                                                   *_called(line[start:column]),
                                                   *_versioned(line[start:column]))
        pins.append(PinStatement(sha, number, column, repository, name, mentioned, _span(line, sha, number,
                                                                                        column, offset)))
    return pins


def _repository_homes_at(line: str) -> dict[int, tuple[str, str]]:
    """Where ``line`` writes a commit right after a repository's address (``https://github.com/
    acme/widgets at `<sha>` ``, ``[acme/widgets](<address>) @ `<sha>` ``): each sha's column,
    with the sha and the repository. A short sha needs a digit and a letter (a number is none)."""
    found = {}
    for match in URL_AT_SHA.finditer(line):
        address, sha = match.group(1).rstrip("/"), match.group(2)
        named = repository_of(address) if parse_repository_link(address) is None else None
        if named is None or named[1] != address.removesuffix(".git"):
            continue  # (a page of the repository, or no repository's address)
        if len(sha) >= 40 or has_digit_and_letter(sha):
            found[match.start(2)] = (sha.lower(), named[0])
    return found


def _root_tree_shas(line: str) -> dict[str, str]:
    """The commits whose whole tree ``line`` links (``https://github.com/o/n/tree/<sha>``, no
    folder), each with its repository: a statement of that commit, as a commit link is."""
    found = {}
    for match in PIN_LINE_URL.finditer(line):
        link = parse_repository_link(match.group())
        if link is not None and link.kind == "tree" and link.ref_is_sha and not link.path.strip("/"):
            found[link.ref.lower()] = link.repo_id
    return found


#: a link's text right before where its destination starts: ``[text](`` inline, ``[label]:``
#: a reference definition's (the destination may sit in angle brackets)
_TEXT_BEFORE_DESTINATION = re.compile(r"\[([^\[\]\n]{0,300})\](?:\([ \t]*|:[ \t]*)<?\Z")
#: the word a commit link's text may use for what it links
_COMMIT_WORD = re.compile(r"(?i)\bcommits?\b")


def _without_commit_words(line: str, words: str) -> str:
    """``words`` (``line`` with its URLs blanked) with "commit" blanked in the text of each
    commit link of ``line``: a link's text naming its kind says what its URL does."""
    if "commit" not in words.lower() or "/commit/" not in line:
        return words
    blanked = list(words)
    for match in PIN_LINE_URL.finditer(line):
        link = parse_repository_link(match.group())
        text = _TEXT_BEFORE_DESTINATION.search(line, max(0, match.start() - 320), match.start()) \
            if link is not None and link.kind == "commit" else None
        if text is None:
            continue
        for word in _COMMIT_WORD.finditer(line, text.start(1), text.end(1)):
            blanked[word.start():word.end()] = " " * (word.end() - word.start())
    return "".join(blanked)


def _link_text_shas(line: str, link_shas: dict[str, str]):
    """Where ``line`` writes a commit link's sha as the link's own text (``[`9a0bae8`](...)``)."""
    for found in LINK_TEXT_SHA.finditer(line):
        sha = found.group(1).lower()
        if any(full.startswith(sha) for full in link_shas):
            yield found.start(1)


def _only_a_link(words: str) -> bool:
    """Whether a line (its URLs blanked) holds nothing but a link: a list marker, brackets."""
    return bool(words.strip()) and ONLY_A_LINK.fullmatch(words) is not None


#: ``the typeshed revision `<sha>` ``, ``the Acme Widgets commit [`<sha>`]``: what the document
#: calls the repository, in words right before the pin word (a name of one to three words)
_CALLED_BEFORE_SHA = re.compile(
    r"(?i)\bthe[ \t]+([A-Za-z0-9][\w.-]{0,99}(?:[ \t]+[A-Za-z0-9][\w.-]{0,99}){0,2})[ \t]+"
    r"(?:revision|commit|snapshot|checkout|repository[ \t]+at|repo[ \t]+at)[ \t]*:?[ \t]*[`\[]*$")
#: words before a pin word that say which commit, not which repository
_NOT_A_NAME = frozenset({
    "same", "current", "latest", "newest", "last", "first", "final", "following", "above", "below", "given",
    "stated", "pinned", "frozen", "reviewed", "inspected", "audited", "analysed", "analyzed", "checked", "examined",
    "studied", "read", "cited", "quoted", "target", "upstream", "repository", "repo", "project", "git", "head",
    "main", "master", "base", "merge", "parent", "release", "tagged", "exact", "specific", "one", "this", "that",
    "its", "our", "their", "new", "old", "original", "earlier", "previous", "later", "next", "default",
})


def _called(before: str) -> tuple[str, ...]:
    """What the words right before a pin's sha call its repository (``the typeshed revision``:
    ``typeshed``; ``the Acme Widgets revision``: ``acme-widgets``), the key a user maps it
    with; ``()`` when they say which commit instead (``the same revision``)."""
    found = _CALLED_BEFORE_SHA.search(before.rstrip())
    if found is None:
        return ()
    words = found.group(1).split()
    if any(word.casefold() in _NOT_A_NAME for word in words):
        return ()
    return (words[0] if len(words) == 1 else "-".join(words).casefold(),)


def _versioned(before: str) -> tuple[str, ...]:
    """The project whose version a pin's sentence names (``using an `openzeppelin-contracts`
    version from 2 years ago, commit: `<sha>```): the sha is that dependency's, not the
    document's repository's."""
    return tuple(dict.fromkeys(found.group(1) for found in _VERSION_OF.finditer(before)))


#: a project named in backticks right before the word "version" (a dependency's version)
_VERSION_OF = re.compile(r"`([A-Za-z0-9][\w.@-]{0,99})`[ \t]+version\b", re.IGNORECASE)


def _span(line: str, sha: str, number: int, column: int, offset: int | None) -> Span | None:
    written = line[column:column + len(sha)]
    return (Span(offset + column, offset + column + len(sha), number, written)
            if offset is not None and written.lower() == sha else None)


#: at most this many words beside its repository and commit on a line stating them alone
_LABEL_WORDS = 6
#: and at most this many characters (its URLs included)
_LABEL_CHARACTERS = 400


def label_pin(line: str, number: int, offset: int | None = None) -> PinStatement | None:
    """The pin of a short line naming one repository and one commit and little else, with no
    pin word (``acme/widgets · `<sha>```, ``**Target:** acme/widgets v2.1 (4f1c9e0a)``, ``Code
    under review: acme/widgets, `<sha>```), or ``None``. For a document stating its pin in
    no other form: a list of commits looks the same line by line."""
    if len(line) > _LABEL_CHARACTERS:
        return None  # (a paragraph, not a label)
    words = _without_urls(line)
    if "/" not in words or _HISTORY_WORDS.search(words):
        return None
    written_at = {(f"{match.group(1)}/{match.group(2)}", match.group(3).lower()) for match in AT_SHA.finditer(words)} \
        if "@" in words else set()
    named = {match.group(1).rstrip(".") for match in REPOSITORY_MENTION.finditer(words)} | {
        repository for repository, _ in written_at}
    shas = list(SHA_LIKE.finditer(words))
    if len(named) != 1 or len({match.group().lower() for match in shas}) != 1:
        return None
    repository = named.pop()
    if repository.rsplit(".", 1)[-1].lower() in KNOWN_EXTENSIONS:
        return None  # (``docs/guide.md``: a file)
    rest = words.replace(repository, " ")
    for written in {match.group() for match in shas}:
        rest = rest.replace(written, " ")
    if sum(1 for word in rest.split() if any(ch.isalnum() for ch in word)) > _LABEL_WORDS:
        return None
    sha, column = shas[0].group().lower(), shas[0].start()
    return PinStatement(sha, number, column, repository, span=_span(line, sha, number, column, offset))


def is_sha(word: str) -> bool:
    """Whether ``word`` is a sha as a table cell or a key's value writes it: 7 to 64 hex digits,
    with a digit and a letter among them when short."""
    return SHA_VALUE.fullmatch(word) is not None and (len(word) >= 40 or has_digit_and_letter(word))


def names_a_sha(line: str) -> bool:
    """Whether ``line`` writes a sha outside a link into a repository's files: a line a reader
    takes for a pin statement even when :func:`line_pins` does not read it as one (a sha
    inside a URL is the URL's: a gist, a commit cited in passing)."""
    if "/blob/" in line or "/blame/" in line:
        return False
    return SHA_LIKE.search(_without_urls(line)) is not None


def front_matter_pins(front: dict, line: int) -> list[PinStatement]:
    """Pins a document's front matter states:

    - ``code_revisions: {acme/widgets: <sha>}`` (or a short name as the key; ``repos:``,
      ``pins:`` and their kin);
    - ``commit: <sha>``, ``target_commit: <sha>``: the document's own;
    - a mapping naming a repository and its commit, alone or in a list (``target: {repo:
      acme/widgets, commit: <sha>}``, ``sources: [{repository: <url>, revision: <sha>}]``);
    - a repository's link at a commit (``source: https://github.com/acme/widgets/tree/<sha>``)."""
    pins: list[PinStatement] = []
    for key, value in front.items():
        if str(key).lower() in REVISIONS_KEYS and isinstance(value, dict) and not _is_entry(value):
            for repo, sha in value.items():
                sha, repo = str(sha).strip(), str(repo).strip()
                if SHA_VALUE.fullmatch(sha):
                    named = "/" in repo
                    pins.append(PinStatement(sha.lower(), line, 0, repo if named else None, None if named else repo))
            continue
        for entry in (value if isinstance(value, list) else [value]):
            if isinstance(entry, dict):
                pins.extend(_entry_pin(entry, line, str(key).lower() in REPOSITORY_KEYS))
    for key, value in front.items():
        if _pin_key(key):
            value = str(value or "").strip().strip("`")
            if SHA_VALUE.fullmatch(value):
                pins.append(PinStatement(value.lower(), line, 0))
    for key in REPOSITORY_KEYS:
        value = front.get(key)
        if isinstance(value, str) and "://" in value:
            link = parse_repository_link(value.strip())
            if link is not None and link.ref_is_sha and not link.path and link.kind in ("tree", "commit"):
                sha = link.ref.lower()  # (the same commit under a pin key too is this repository's)
                pins = [pin for pin in pins if not (pin.sha == sha and pin.key is None)]
                pins.append(PinStatement(sha, line, 0, link.repo_id))
    return list(dict.fromkeys(pins))


def _pin_key(key: object) -> bool:
    """Whether a front matter key names a commit (``commit``, ``sha``, ``target_commit``)."""
    return isinstance(key, str) and (key.lower() in PIN_KEYS or _PREFIXED_PIN_KEY.fullmatch(key.lower()) is not None)


def _is_entry(mapping: dict) -> bool:
    """Whether a front matter mapping describes one repository (it has a key naming a commit),
    not several keyed by their names (``{acme/widgets: <sha>}``)."""
    return any(_pin_key(key) for key in mapping)


def _entry_pin(entry: dict, line: int, target: bool) -> list[PinStatement]:
    """The pin a front matter mapping of one repository states (``{repo: acme/widgets,
    commit: <sha>}``, ``{name: widgets, sha: <sha>}``), or none. A commit with no repository
    is the document's own pin only under a key that says so (``target:``, ``source:``); in a
    list of changes (``changes: [{commit: <sha>}]``) it is a change's."""
    sha = next((str(value).strip().strip("`") for key, value in entry.items()
                if _pin_key(key) and SHA_VALUE.fullmatch(str(value).strip().strip("`"))), None)
    if sha is None:
        return []
    named = front_matter_repository(entry)
    if named is not None:
        return [PinStatement(sha.lower(), line, 0, named[0])]
    short = str(entry.get("name") or "").strip()
    if not short and not target:
        return []
    return [PinStatement(sha.lower(), line, 0, None, short or None)]


#: front matter keys that name the document's repository (a URL or ``owner/name``)
REPOSITORY_KEYS = ("repository", "repo", "source", "source_repository", "upstream", "url", "repository_url",
                   "repository-url", "repo_url", "repo-url", "target", "target_repository", "github")


def front_matter_repository(front: dict) -> tuple[str, str | None] | None:
    """``(owner/name, url)`` the front matter names as the document's repository, or ``None``."""
    for key in REPOSITORY_KEYS:
        value = str(front.get(key) or "").strip()
        if "://" in value:
            named = repository_of(value)
            if named is not None:
                return named[0], named[1]
        elif OWNER_NAME.fullmatch(value):
            return value, None
    return None


def front_matter_file(front: dict) -> RepositoryLink | None:
    """The file (or folder) at a commit the front matter names as the document's source (an
    ingest of one file), or ``None``: a link (``source: https://github.com/o/r/blob/<sha>/path``),
    one value (``ingested_from: o/r@<sha>:path``), or the repository, commit and path as fields
    of the front matter or of a mapping under ``source:``, ``origin:`` and their kin
    (``source_repo: o/r``, ``source_commit: <sha>``, ``source_path: docs/a.md``)."""
    for key in (*REPOSITORY_KEYS, *_INGEST_KEYS):
        value = front.get(key)
        written = str(value or "").strip() if not isinstance(value, (dict, list)) else ""
        if "://" in written:
            link = parse_repository_link(written)
            if link is not None and link.kind in ("blob", "tree") and link.path and link.ref_is_sha:
                return link
        elif "@" in written and (at := REPOSITORY_FILE_AT.fullmatch(written.strip("`"))) is not None:
            owner, name = at.group(1).split("/")
            return _file_link("github.com", owner, name, at.group(2), at.group(3))
    for fields in (front, *(front.get(key) for key in (*REPOSITORY_KEYS, *_INGEST_KEYS))):
        if isinstance(fields, dict):
            link = _fields_file(fields)
            if link is not None:
                return link
    return None


#: front matter keys under which an ingest may describe its source (besides ``source:``)
_INGEST_KEYS = ("origin", "ingest", "ingested_from", "ingested-from", "provenance", "from")
#: keys of an ingest's fields naming its file
_SOURCE_PATH_KEYS = ("path", "file", "source_path", "source-path", "source_file", "source-file", "file_path",
                     "file-path", "filepath")


def _fields_file(fields: dict) -> RepositoryLink | None:
    """The file an ingest's fields name with its repository and commit, or ``None``."""
    path = next((str(fields[key]).strip().strip("`") for key in _SOURCE_PATH_KEYS
                 if isinstance(fields.get(key), str)), "")
    sha = next((str(value).strip().strip("`") for key, value in fields.items()
                if _pin_key(key) and SHA_VALUE.fullmatch(str(value).strip().strip("`"))), None)
    if not path or sha is None or "://" in path or path.startswith("/") or ".." in path.split("/"):
        return None
    named = front_matter_repository(fields)
    if named is None:
        value = next((str(value).strip() for key, value in fields.items()
                      if isinstance(key, str) and PREFIXED_REPOSITORY_KEY.fullmatch(key.lower())), "")
        named = repository_of(value) if "://" in value else (value, None) if OWNER_NAME.fullmatch(value) else None
    if named is None:
        return None
    owner, name = named[0].split("/", 1)
    host = named[1].split("/")[2] if named[1] and named[1].count("/") >= 3 else "github.com"  # (https://host/o/r)
    return _file_link(host, owner, name, sha, path)


def _file_link(host: str, owner: str, name: str, sha: str, path: str) -> RepositoryLink:
    return RepositoryLink(host, owner, name, "tree" if path.endswith("/") else "blob", sha, path.strip("/"))


def stated_date(front: dict | None, text: str) -> str | None:
    """The date the document states for itself (``YYYY-MM-DD``): its front matter's
    ``date``/``last-checked``/..., else "committed on <date>"; never a file's time."""
    for key in DATE_KEYS:
        value = str((front or {}).get(key) or "")[:10]
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            return value
    # The pattern ignores case, so no literal leads its search through the text. Every match
    # holds "tted", and only the ASCII letters T, E and D are those letters in another case
    # (for the pattern and for ``str.lower`` alike): lowering the text and one substring test
    # run in C.
    match = _COMMITTED_ON.search(text) if "tted" in text.lower() else None
    return match.group(1) if match else None
