"""Where a run's evidence lies in its target, and which mentions are no evidence of it.

Paths written loosely (bare names, partial and elided paths, folders without their
slash, the analyst's checkout paths) are resolved against the pinned tree
(:mod:`..checks.paths`); a mention found nowhere is *not evidence* when it is a path
of the report's own folders or cites no lines under a top folder the tree does not
have (one skipped item says why), and a failure otherwise.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Callable

from ..checks import paths as tree_paths
from ..checks import quotesites
from ..gitstore import GitStore, RepoError, RevisionError
from .. import repomap
from ..model import CITED_IN_A_BLOCK, LOOKUP_CHECKOUT, Evidence, EvidenceKind, EvidenceRole, Report
from ..resultcache import ResultCache, encode
from ..text.syntax.languages import source_extensions
from .bindings import Bindings, PinnedTree
from .reports import ReportSet
from .repositories import is_short_name


def _bare_folder_mention(evidence: Evidence) -> bool:
    """A folder named in backticks by its name alone (``drafts/``), counting only where the tree has it."""
    return (evidence.kind is EvidenceKind.DIRECTORY and evidence.role is EvidenceRole.MENTION
            and "/" not in evidence.path.strip("/"))


def _checkout_names(report: Report, source_id: str | None, clone: Path) -> tuple[str, ...]:
    """What the repository's checkout folder is likely called: the clone's own folder's
    name, the repository's (``typeshed`` of ``python/typeshed``: the ``owner/name`` the report
    names for it, or the words near its pin) and a short name the document uses."""
    source = report.source(source_id)
    names = [repomap.repo_id(report, source_id), *(source.mentioned if source is not None else ())]
    if source is not None and is_short_name(source.id):
        names.append(source.id)
    return tuple(dict.fromkeys([clone.name, *(name.rsplit("/", 1)[-1] for name in names if name)]))


#: the most files a member named alone is looked for in (each is parsed)
NAMED_ALONE_FILES = 24


def _named_alone(evidence: Evidence) -> bool:
    """Whether ``evidence`` is a member named with no owner (:func:`..dialects.nameforms.owned_names`)."""
    return evidence.kind is EvidenceKind.SYMBOL and evidence.lookup is not None and not evidence.context


class PathResolver:
    """Loosely written paths bound to the pinned tree; what is no evidence, and why."""

    def __init__(self, reports: ReportSet, bindings: Bindings, announce: Callable[[str], None],
                 results: ResultCache) -> None:
        self._reports = reports
        self._bindings = bindings
        self._announce = announce
        self._results = results
        self._tree_indexes: dict[tuple[Path, str], tree_paths.TreeIndex] = {}
        #: per pinned tree, its files by their name case-folded (built when first asked)
        self._folded_names: dict[tuple[Path, str], dict[str, list[str]]] = {}
        #: per pinned tree, the source files holding each name a member is named by alone
        self._name_holders: dict[tuple[Path, str], dict[str, tuple[str, ...]]] = {}
        self._announced_roots: set = set()
        #: ``(report path, evidence)`` naming several files at the pin
        self.ambiguous: dict[tuple[str, Evidence], list[str]] = {}
        #: ``(report path, resolved evidence)`` -> how a loosely written path was read
        self.mapped: dict[tuple[str, Evidence], str] = {}
        self._not_evidence: dict[tuple[str, Evidence], str] = {}
        #: per report, the paths its evidence writes in full (with their folders)
        self._written_in_full: dict[str, frozenset[str]] = {}

    def not_evidence(self, report: Report, evidence: Evidence) -> str | None:
        """Why a mention that looks like a path is no evidence of the target (one
        skipped item says so), or ``None``. Known once the engine's ``checkable`` saw it."""
        return evidence.declared_not_evidence or self._not_evidence.get((report.path, evidence))

    def mark_not_evidence(self, report: Report, evidence: Evidence, reason: str) -> None:
        self._not_evidence[(report.path, evidence)] = reason

    def tree_index(self, pinned: PinnedTree) -> tree_paths.TreeIndex:
        key = pinned.key
        index = self._tree_indexes.get(key)
        if index is None:
            index = self._tree_indexes[key] = tree_paths.TreeIndex.build(
                pinned.store.snapshot(pinned.pin).files())
        return index

    def files_named_after(self, report: Report, evidence: Evidence) -> Evidence:
        """A symbol proposed with its owners' names (``context``: ``RankedBattle``) given the
        files of the pinned tree named after them, in a language whose definitions are read
        (``RankedBattle.sol``), as the files it is looked for in; an owner written as a file
        (a node id's ``tests/test_a.py``) gives the one file of the tree it names."""
        pinned = self._bindings.binding(report, evidence.source, evidence.pin).pinned
        if pinned is None:
            return replace(evidence, context=(), lookup=None)
        index = self.tree_index(pinned)
        files: list[str] = []
        for owner in evidence.context:
            if "." in owner:  # a file named as written (a node id's ``tests/test_a.py``): the one it names
                found = tree_paths.resolve(index, owner, "file")
                files.extend([found.path] if found.path is not None else ())
            else:
                files.extend(path for extension in source_extensions() for path in index.by_name.get(owner + extension, ()))
        return replace(evidence, context=tuple(dict.fromkeys(files)), lookup=None)

    def _named_in_another_case(self, pinned: PinnedTree, index: tree_paths.TreeIndex,
                               name: str) -> tree_paths.Resolution:
        """The files whose name is ``name`` in another case: a sentence capitalises its first
        word (``Runtime.rs holds the loop`` of ``src/runtime.rs``)."""
        folded = self._folded_names.get(pinned.key)
        if folded is None:
            folded = self._folded_names[pinned.key] = {}
            for written, paths in index.by_name.items():
                folded.setdefault(written.casefold(), []).extend(path for path in paths if path in index.files)
        paths = folded.get(name.casefold(), [])
        if len(paths) == 1:
            return tree_paths.Resolution(paths[0], how="its name in another case")
        return tree_paths.Resolution(None, tuple(paths))

    def expect_names(self, pairs: list[tuple[Report, Evidence]]) -> None:
        """The files holding each name the members of ``pairs`` named alone are written
        with (``the `claimFighters` function``), found by one ``git grep`` per pinned tree
        for all of them: asked one name at a time, each is a process of its own."""
        wanted: dict[tuple[Path, str], tuple[PinnedTree, set[str]]] = {}
        for report, evidence in pairs:
            if not _named_alone(evidence):
                continue
            try:
                pinned = self._bindings.binding(report, evidence.source, evidence.pin).pinned
            except (RepoError, RevisionError):
                continue  # resolving says what is wrong
            if pinned is not None and evidence.text not in self._name_holders.get(pinned.key, {}):
                wanted.setdefault(pinned.key, (pinned, set()))[1].add(evidence.text or "")
        for pinned, names in wanted.values():
            self._hold_names(pinned, names)

    def _hold_names(self, pinned: PinnedTree, names: set[str]) -> dict[str, tuple[str, ...]]:
        held = self._name_holders.setdefault(pinned.key, {})
        asked = sorted(name for name in names if name not in held)
        if asked:
            found = pinned.store.snapshot(pinned.pin).files_with_words(asked) or {}
            defining = {extension.lower() for extension in source_extensions()}
            for name in asked:
                held[name] = tuple(sorted(path for path in found.get(name, ())
                                          if "." in path and "." + path.rsplit(".", 1)[-1].lower() in defining))
        return held

    def files_holding_name(self, report: Report, evidence: Evidence) -> Evidence:
        """A member named alone (``the `claimFighters` function``) given the source files of
        the pinned tree that hold its name as the files it is looked for in (none where more
        than :data:`NAMED_ALONE_FILES` do: so common a name says no one definition)."""
        pinned = self._bindings.binding(report, evidence.source, evidence.pin).pinned
        if pinned is None:
            return replace(evidence, context=(), lookup=None)
        name = evidence.text or ""
        files = self._hold_names(pinned, {name})[name]
        return replace(evidence, context=files if len(files) <= NAMED_ALONE_FILES else (), lookup=None)

    def context_at_pin(self, report: Report, evidence: Evidence) -> Evidence:
        """A proposed symbol's cited files as the pinned tree has them: one the tree lacks as
        written is the one path it names, read as a loosely written path is (`` `Context` is
        defined in `click/core.py` `` of a tree holding ``src/click/core.py``); one it names
        nowhere stays as written, the document's own word."""
        pinned = self._bindings.binding(report, evidence.source, evidence.pin).pinned
        if pinned is None or not evidence.context:
            return evidence
        index = self.tree_index(pinned)
        if all(index.has(path, "file") for path in evidence.context):
            return evidence
        source = report.source(evidence.source)
        subject = source.subject if source is not None else None
        read = [path if index.has(path, "file") else
                tree_paths.resolve(index, path, "file", subject, near=evidence.context).path or path
                for path in evidence.context]
        return replace(evidence, context=tuple(dict.fromkeys(read)))

    def resolve(self, report: Report, evidence: Evidence) -> Evidence:
        """A loosely written path bound to the one path of the pinned tree it names;
        several candidates are remembered so the pin check can list them, and a
        mention that is no target evidence at all is remembered with its reason."""
        pinned = self._bindings.binding(report, evidence.source, evidence.pin).pinned
        if pinned is None:
            return evidence
        store = pinned.store
        index = self.tree_index(pinned)
        source = report.source(evidence.source)
        subject = source.subject if source is not None else None
        want = {EvidenceKind.DIRECTORY: "dir", EvidenceKind.PATH: "any"}.get(evidence.kind, "file")
        absolute = evidence.lookup == LOOKUP_CHECKOUT
        if _bare_folder_mention(evidence):
            # ``drafts/`` in a knowledge base's prose is its own folder, not a folder of that name
            # deep in the target (a bare file name is looked for so: its name is the file's)
            top = evidence.path.strip("/")
            found = tree_paths.Resolution(top if index.has(top, "dir") else None)
        else:
            found = tree_paths.resolve(index, evidence.path, want, subject, absolute=absolute, near=evidence.context,
                                       checkouts=_checkout_names(report, evidence.source, store.path))
        if found.path is None and not found.candidates and evidence.in_plain_words and "/" not in evidence.path:
            found = self._named_in_another_case(pinned, index, evidence.path)
        held = self._holder(pinned, evidence, found.path, index, subject)
        if held is not None:  # not in its own file, but in another its row or sentence cites
            resolved = replace(evidence, path=held, written=evidence.path, cited_lines=None,
                               written_lines=evidence.cited_lines)
            self.mapped[(report.path, resolved)] = f"the quotation is in {held}, also cited beside it"
            return resolved
        if found.path is not None:
            if found.path == evidence.path:
                return evidence
            resolved = replace(evidence, path=found.path, written=evidence.path)
            self.mapped[(report.path, resolved)] = f"`{evidence.path}` read as {found.path} ({found.how})"
            if absolute and found.path != evidence.path.strip("/"):  # not the leading slash of the root
                root = evidence.path[: len(evidence.path) - len(found.path)].rstrip("/")
                if (store.path, root) not in self._announced_roots:
                    self._announced_roots.add((store.path, root))
                    self._announce(f"memreport: mapped the checkout {root} onto {store.path} "
                                   f"(no checkout root stated; longest suffix in the pinned tree)")
            return resolved
        named = self._one_named_in_full(report, found.candidates) if found.candidates else None
        if named is not None:
            # (``server.py (L27-L46)`` after ``src/fetch/server.py``: the one of them the report cites)
            resolved = replace(evidence, path=named, written=evidence.path)
            self.mapped[(report.path, resolved)] = (f"`{evidence.path}` read as {named} (of its "
                                                    f"{len(found.candidates)} files at the pin, the one the report "
                                                    "names in full)")
            return resolved
        if found.candidates and evidence.in_plain_words:
            # ("the pool is in mod.rs"): a word of the document, not a citation of one of them
            self.mark_not_evidence(report, evidence, f"`{evidence.path}` names {len(found.candidates)} files at "
                                                     "the pin, and plain words cite none of them")
            return evidence
        if found.candidates:
            self.ambiguous[(report.path, evidence)] = list(found.candidates)
            return evidence
        reason = self._not_target(report, evidence, index, subject, store)
        if reason is not None:
            self.mark_not_evidence(report, evidence, reason)
        return evidence

    def _one_named_in_full(self, report: Report, candidates) -> str | None:
        """The one of ``candidates`` (the files a bare name names at the pin) that ``report``
        writes in full elsewhere, or ``None`` (none, or several)."""
        written = self._written_in_full.get(report.path)
        if written is None:
            written = self._written_in_full[report.path] = frozenset(
                item.path for item in report.all_evidence() if "/" in item.path.strip("/"))
        named = [candidate for candidate in candidates if candidate in written]
        return named[0] if len(named) == 1 else None

    def _holder(self, pinned: PinnedTree, evidence: Evidence, own: str | None, index: tree_paths.TreeIndex,
                subject: str | None) -> str | None:
        """:func:`.quotesites.holder`'s path, kept in the result cache by pin and evidence: it
        reads the files a row cites, which a warm rerun would otherwise read again (and no
        other blob)."""
        if not quotesites.cites_others(evidence):
            return None  # (no key made: most evidence is not such a quotation)
        key = self._results.key("holder", pinned.pin, encode(evidence), subject or "")
        kept = self._results.lookup(key)
        if isinstance(kept, quotesites.Holding):
            return kept.path
        held = quotesites.holder(evidence, own, pinned.store.snapshot(pinned.pin), index, subject)
        if held.complete:  # a file the clone lacks may hold it once fetched
            self._results.put(key, held)
        return held.path

    def _in_own_folders(self, report: Report, relative: str, store: GitStore) -> bool:
        """Whether ``relative`` exists beside the report or in a folder above it (a
        knowledge base's own files), not counting the target's own working tree."""
        folder = self._reports.report_file(report).resolve().parent
        target = store.path.resolve()
        for ancestor in [folder, *list(folder.parents)[:4]]:
            if ancestor == target or target in ancestor.parents or ancestor in target.parents:
                break
            try:
                if (ancestor / relative).exists():
                    return True
            except OSError:
                continue
        return False

    def _not_target(self, report: Report, evidence: Evidence, index, subject: str | None,
                    store: GitStore) -> str | None:
        """Why a path found nowhere at the pin is no evidence of the target, or ``None``
        when it is (and so fails): a file of the report's own folders, or a mention that
        cites no lines and whose top folder the pinned tree does not have."""
        written = evidence.path
        relative = written.strip("/")
        if not written.startswith(("/", "~")) and relative and self._in_own_folders(report, relative, store):
            return f"`{written}` is a path of the report's own folders (its run, its knowledge base), not of the target"
        if evidence.label == CITED_IN_A_BLOCK:
            return (f"`{written}` is not in the pinned tree: cited inside a block of no language, it is the block's "
                    "text (a program's output, an example), not the report's citation")
        if evidence.kind not in (EvidenceKind.PATH, EvidenceKind.DIRECTORY):
            return None  # cited lines or a quotation of a missing file: a failure
        if written.startswith("~"):
            return f"`{written}` is a path in a user's home folder, not of the target"
        if evidence.lookup == LOOKUP_CHECKOUT:
            return f"`{written}` lies outside the target's checkout and cites no lines"
        if not index.top_exists(written, subject):
            head = written.strip("/").split("/", 1)[0]
            what = f"no {head!r} anywhere" if "/" not in written.strip("/") else f"no top folder {head!r}"
            return f"`{written}`: the pinned tree has {what}, and no line anchor or quotation cites it"
        return None

    def check_backticked(self, report: Report, evidence: Evidence) -> None:
        """A review's backticked word that looks like a path is evidence only if the pin
        has it; otherwise it is one "not evidence" item, as in analysis runs."""
        pinned = self._bindings.binding(report, evidence.source, evidence.pin).pinned
        if pinned is None:
            return
        if not self.tree_index(pinned).has(evidence.path.strip("/"), "any"):
            self.mark_not_evidence(report, evidence, f"`{evidence.path}` is not a path at the pin")


    def release(self) -> None:
        self._tree_indexes.clear()
