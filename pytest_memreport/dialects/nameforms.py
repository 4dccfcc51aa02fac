"""Names of definitions the forms read, in any document (docs/FORMATS.md, "Any document").

A name in backticks is evidence where the document says where it is defined:

* beside a citation of lines, on the citation's line (:func:`symbols_beside`);
* followed by a file a sentence says defines it, `` `Queue` is defined in `src/queue.py` ``
  (:func:`defined_in`);
* with its owner (`` `Pool::drain` ``), or alone with what its sentence calls it (`` the
  `drain` function ``), looked for in the pinned tree (:func:`owned_names`);
* as a test runner names it, ``tests/test_queue.py::test_drain`` (:func:`node_ids`).

And a file written at a revision in a code span (``88a80f3:src/a.py``,
``src/a.py@88a80f3:4-6``) is that file at that commit (:func:`files_at_revisions`).
Each reader takes the document's lines and the indexes of its lines of code, where a
name is code, not the document's word.
"""

from __future__ import annotations

import re

from ..model import LOOKUP_TREE, Evidence, EvidenceKind, EvidenceRole, LineRange
from . import core, review
from .core.grammar import DECLARES_NAME, DEFINED_IN, FORM_URL, PATH_AT_REVISION, REVISION_COLON_PATH, SHA_LIKE


#: a backticked code span on one line
CODE_SPAN = re.compile(r"`([^`\n]{2,200})`")


def symbols_beside(lines: list[str], found: list[Evidence]) -> list[Evidence]:
    """A name in backticks on the line of a cited range (`` `classify` exists (`src/facts.ts:68-143`) ``):
    a proposed symbol in the files that line cites, kept only where it names a definition there
    (the engine resolves it at the pin). It is looked for where its citations are: in the
    repository they name, at the commit they name. Beside links into several repositories, it
    is proposed in each one's files (read where each one's are, or dropped with them: a link at
    a branch of a repository nothing pins), and said to be defined in none (the sentence does
    not say which)."""
    #: each line's cited files by their repository, with the commits they are cited at
    cited: dict[int, dict[str | None, tuple[list[str], set[str | None]]]] = {}
    for item in found:
        if item.kind is EvidenceKind.LINES and item.path and item.line == item.end_line:
            paths, pins = cited.setdefault(item.line, {}).setdefault(item.source, ([], set()))
            if item.path not in paths:
                paths.append(item.path)
            pins.add(item.pin)
    symbols: list[Evidence] = []
    for number, repositories in cited.items():
        line = lines[number - 1] if number <= len(lines) else ""
        if "`" not in line:
            continue
        if len(repositories) > 1 and not all(source and "/" in source for source in repositories):
            # (a citation of the document's own, or of its register's entries, among them: the
            # name is the document's to place, looked for in every file cited)
            repositories = {None: ([path for paths, _ in repositories.values() for path in paths], {None})}
        # (a repository's files cited at one commit are looked in there; at several, or at a
        # branch too, at the commit the document reads that repository at)
        places = {(source, next(iter(pins)) if len(pins) == 1 else None): paths
                  for source, (paths, pins) in repositories.items()}
        for match in CODE_SPAN.finditer(line):
            text = match.group(1)
            name, own = core.member_of_its_own(core.symbol_name(text))
            if name is None or review.repo_path_spec(text) is not None or _is_commit(name):
                continue
            declared = len(places) == 1 and not own and DECLARES_NAME.match(line, match.end()) is not None
            for (source, pin), paths in places.items():
                symbols.append(Evidence(EvidenceKind.SYMBOL, "", number, number, text=name, context=tuple(paths),
                                        source=source, pin=pin, label=" ".join(text.split()),
                                        role=EvidenceRole.DECLARED if declared else None))
    return symbols


def _is_commit(name: str) -> bool:
    """Whether a name beside a citation is a commit (a register row's revision cell), not a
    name the file defines: hex digits with a digit among them."""
    return core.is_sha(name) and any(c.isdigit() for c in name)


def defined_in(lines: list[str], code_lines: frozenset[int]) -> list[Evidence]:
    """A name in backticks a sentence says the file named right after it defines
    (`` `Queue` is defined in `src/queue.ts` ``, `` `drain()` lives in `pkg/q.py` ``): a symbol
    of that file the sentence states (it fails where the file does not define it). With the
    file's lines (`` `src/queue.ts:4-9` ``), :func:`symbols_beside` reads it."""
    found: list[Evidence] = []
    for index, line in enumerate(lines):
        if index in code_lines or " in " not in line or "`" not in line:
            continue
        for match in CODE_SPAN.finditer(line):
            said = DEFINED_IN.match(line, match.end())
            name, own = core.member_of_its_own(core.symbol_name(match.group(1))) if said is not None else (None, False)
            if said is None or name is None or review.repo_path_spec(match.group(1)) is not None:
                continue
            spec = review.repo_path_spec(said.group(1))
            if spec is None or spec.ranges or spec.is_directory:
                continue
            found.append(Evidence(EvidenceKind.SYMBOL, "", index + 1, index + 1, text=name, context=(spec.path,),
                                  label=" ".join(match.group(1).split()), role=None if own else EvidenceRole.DECLARED))
    return found


def owned_names(lines: list[str], fenced: frozenset[int], found: list[Evidence]) -> list[Evidence]:
    """A member named in backticks with its owner and no citation on its line
    (`` `RankedBattle::updateBattleRecord` ``, `` `Pool.drain()` ``): a proposed symbol of the
    files named after its owner (``RankedBattle.sol``, as Solidity, Java and C# name a type's
    file), kept only where one of them defines it at the pin (the engine finds them in the
    pinned tree). ``fenced``: the indexes of lines inside fenced blocks; ``found``: what the
    forms read already (a name on a citation's line is proposed beside it)."""
    cited = {item.line for item in found if item.kind is EvidenceKind.LINES or item.kind is EvidenceKind.SYMBOL}
    names: list[Evidence] = []
    for index, line in enumerate(lines):
        if index in fenced or index + 1 in cited or "`" not in line:
            continue
        for match in CODE_SPAN.finditer(line):
            name = core.symbol_name(match.group(1))
            owner = name.split(".", 1)[0] if name is not None and name.count(".") == 1 else None
            if owner is not None and _OWNER.fullmatch(owner):
                names.append(Evidence(EvidenceKind.SYMBOL, "", index + 1, index + 1, text=name, context=(owner,),
                                      label=" ".join(match.group(1).split()), lookup=LOOKUP_TREE))
            elif name is not None and _MEMBER.fullmatch(name) and (
                    _KIND_AFTER.match(line, match.end())
                    # (a kind word and its spaces fit in 24 characters: looking back further, a
                    # line of many names was read in time quadratic in its length)
                    or _KIND_BEFORE.search(line, max(0, match.start() - 24), match.start())):
                # ``the `claimFighters` function``: no owner says where; the engine looks in the
                # files of the pinned tree holding the name, and keeps it where one alone defines it
                names.append(Evidence(EvidenceKind.SYMBOL, "", index + 1, index + 1, text=name, context=(),
                                      label=" ".join(match.group(1).split()), lookup=LOOKUP_TREE))
    return names


#: an owner a file is named after: a type's name (``RankedBattle``, ``IStaking``), not a
#: module's (``os``), an object's (``msg``) or a constant's (``MAX_SUPPLY``)
_OWNER = re.compile(r"[A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*")


#: a member named alone: an identifier with a lower-case letter and four characters or more
#: (``drain``, ``claimFighters``; not ``x``, ``id``, a constant's ``MAX_SUPPLY``)
_MEMBER = re.compile(r"(?=[A-Za-z0-9_]*[a-z])[A-Za-z_][A-Za-z0-9_]{3,}")


#: what a sentence calls the name it writes in backticks: a definition's kind, right after it
#: (``the `drain` function``) or right before it (``the function `drain` ``)
_DEFINED_KIND = (r"(?:function|method|modifier|contract|struct|event|class|interface|trait|enum|constructor|"
                 r"library|macro|procedure|subroutine)")


_KIND_AFTER = re.compile(rf"(?:\(\))?[ \t]+{_DEFINED_KIND}s?\b", re.IGNORECASE)


_KIND_BEFORE = re.compile(rf"\b{_DEFINED_KIND}[ \t]+\Z", re.IGNORECASE)


def node_ids(lines: list[str], code: frozenset[int]) -> list[Evidence]:
    """A definition named by its file, as a test runner names a test
    (``tests/test_queue.py::TestQueue::test_drain``, ``src/queue.py::drain``): the file, and
    the name defined in it (``TestQueue.test_drain``), which the document says is there (a
    name the file does not define fails). ``code``: the indexes of the lines of code blocks
    (a runner's output there cites nothing, as a stack trace does not)."""
    found: list[Evidence] = []
    for index, line in enumerate(lines):
        if index in code or "::" not in line:
            continue
        for match in _NODE_ID.finditer(line):
            path, name = match.group(1).removeprefix("./"), match.group(2).replace("::", ".")
            if "://" in line and not _outside_urls(line, match.start()):
                continue
            # (the file as a plain name is read: exact, else the tree's one file ending so; the
            # name is then looked for in the file that resolves to)
            found.append(Evidence(EvidenceKind.PATH, path, index + 1, index + 1, label=_NODE_ID_LABEL,
                                  role=EvidenceRole.MENTION if "/" in path else EvidenceRole.BASENAME,
                                  lookup=LOOKUP_TREE))
            found.append(Evidence(EvidenceKind.SYMBOL, "", index + 1, index + 1, text=name, context=(path,),
                                  label=match.group(0), role=EvidenceRole.DECLARED, lookup=LOOKUP_TREE))
    return found


#: a test runner's node id: a file with an extension, then ``::`` and one or more names (a
#: parametrised test's ``[id]`` after them)
_NODE_ID = re.compile(r"(?<![\w./@:-])((?:[\w.-]+/)*[\w-][\w.-]*\.[A-Za-z]\w{0,9})::"
                      r"([A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)(?:\[[^\]\s`]*\])?(?![\w:])")


_NODE_ID_LABEL = "node id"


def _outside_urls(line: str, column: int) -> bool:
    """Whether ``column`` of ``line`` is outside every URL the line writes."""
    return not any(url.start() <= column < url.end() for url in FORM_URL.finditer(line))


def files_at_revisions(lines: list[str], code: frozenset[int]) -> list[Evidence]:
    """A file at a commit written in a code span, as git writes it (``88a80f3:src/a.py``,
    ``git show 88a80f3:src/a.py``) or as a path at a revision (``src/a.py@88a80f3:42-60``):
    the file, or its lines, at that commit (the revision a hex word with a digit and a
    letter). ``code``: the indexes of code blocks' lines."""
    found: list[Evidence] = []
    for index, line in enumerate(lines):
        if index in code or "`" not in line:
            continue
        for span in CODE_SPAN.finditer(line):
            written = span.group(1)
            if ":" not in written and "@" not in written:
                continue  # (most code spans: a name, a path)
            places: list[tuple[str, str, str | None, str | None]] = [
                (m.group(2), m.group(1), None, None) for m in REVISION_COLON_PATH.finditer(written)]
            if "@" in written:
                places += [(m.group(1), m.group(2), m.group(3), m.group(4)) for m in PATH_AT_REVISION.finditer(written)]
            for path, sha, first, last in places:
                # (a file's name: ``owner/name@<sha>`` is a pin statement, not a folder at a commit)
                if not SHA_LIKE.fullmatch(sha) or not core.looks_like_path(path) \
                        or not core.looks_like_path(path.rsplit("/", 1)[-1]):
                    continue
                if first is None:
                    found.append(Evidence(EvidenceKind.PATH, path.removeprefix("./"), index + 1, index + 1,
                                          pin=sha.lower(), label=AT_REVISION))
                elif int(first) >= 1 and int(last or first) >= int(first):
                    found.append(Evidence(EvidenceKind.LINES, path.removeprefix("./"), index + 1, index + 1,
                                          pin=sha.lower(), label=AT_REVISION,
                                          cited_lines=LineRange(int(first), int(last or first))))
    return found


#: the label of a file a code span writes at a commit (:func:`files_at_revisions`)
AT_REVISION = "file at a revision"
