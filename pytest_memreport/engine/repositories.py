"""Which local clone each source of a report is checked in (``--memreport-repo``, a run's
``owner/name``, claims files' sources, the template and ini mappings), each opened once
per process."""

from __future__ import annotations

import os
from pathlib import Path

from .. import repomap
from ..gitstore import GitStore, RepoError
from ..model import PINNED_UNREAD, Report, Source
from ..text import render
from ..options import RunOptions
from .bindings import is_register_entry, said_at
from .claims import ClaimsRegistry
from .reports import ReportSet


def is_short_name(source_id: str) -> bool:
    """Whether a source ID is a short name a document uses for a repository (``widgets``):
    neither a register entry (``SRC-1``) nor ``owner/name``."""
    return "/" not in source_id and not is_register_entry(source_id)



#: how many hex digits a pin must have for another document's naming of its commit to say
#: which repository it is of (seven can be two commits' of one large history)
_OWNED_SHA = 10


class TargetRepositories:
    """Each source's repository, opened once per process."""

    def __init__(self, options: RunOptions, reports: ReportSet, claims: ClaimsRegistry) -> None:
        self._options = options
        self._reports = reports
        self._claims = claims
        self.stores: dict[Path, GitStore | RepoError] = {}
        #: clones another process opened, by resolved path (:meth:`receive`)
        self._handed: dict[Path, dict] = {}
        self._named: set[str] | None = None
        #: whether the clone given with no key serves a repository named by ``owner/name``, and
        #: the repositories named so that nothing maps (each computed once)
        self._default_for_named: bool | None = None
        self._unmapped: set[str] | None = None
        self._owners: dict[str, list[tuple[str, str | None, Source | None]]] | None = None

    def store_for(self, report: Report, source_id: str | None) -> GitStore:
        """The target repository of a source; raises :class:`RepoError`."""
        return self.open(self._repo_path(report, source_id))

    def open(self, repo_path: Path) -> GitStore:
        """The repository at ``repo_path``, opened once; raises :class:`RepoError`."""
        key = Path(repo_path).resolve()
        store = self.stores.get(key)
        if store is None:
            try:
                handed = self._handed.get(key)
                store = (GitStore.from_located(handed, max_file_bytes=self._options.max_file_bytes) if handed
                         else GitStore.open(repo_path, max_file_bytes=self._options.max_file_bytes))
            except RepoError as exc:
                store = exc
            self.stores[key] = store
        if isinstance(store, RepoError):
            raise store
        return store

    def located(self) -> dict[str, dict]:
        """Each clone opened here and the revisions resolved in it, as plain data
        (:meth:`.GitStore.located`), by the path it was asked for."""
        return {str(key): store.located() for key, store in self.stores.items() if isinstance(store, GitStore)}

    def receive(self, located: dict[str, dict]) -> None:
        """Open the clones :meth:`located` described in another process from what it found,
        starting no git to locate them or resolve what it resolved."""
        self._handed.update({Path(key): facts for key, facts in located.items()})

    def location(self, report: Report, source_id: str | None) -> Path | None:
        """Where a source's clone is, found on the file system only (no git runs): the
        folder holding ``.git`` at or above the mapped path, else the mapped path;
        ``None`` when nothing maps it."""
        try:
            path = Path(os.path.abspath(self._repo_path(report, source_id)))
        except RepoError:
            return None
        return _clone_at_or_above(path) or path

    def open_stores(self) -> list[GitStore]:
        return [store for store in self.stores.values() if isinstance(store, GitStore)]

    def _repo_path(self, report: Report, source_id: str | None) -> Path:
        repos = self._options.repos
        explicit = self._given_for(report, source_id)
        if explicit is not None:
            return explicit
        named = self._named_repo(report, source_id)
        if named is not None:
            return named
        claimed = self._claims.claims_for(report).source(source_id)
        if claimed is not None and claimed.repo_path is not None and None not in repos:
            return claimed.repo_path
        found = self.lookup(report, source_id)
        if found is not None and found.path is not None:
            return found.path
        if source_id is not None and self.is_unmapped(report, source_id):  # never unmapped without an id
            # A link to another repository (owner/name) needs its own mapping.
            raise RepoError(self.unmapped_problem(report, source_id), key=source_id)
        if None in repos:
            return Path(repos[None])
        source = report.source(source_id)
        if source is not None and is_short_name(source.id) and not source.repository:
            # A short name the document uses for a repository (``widgets``): only the user knows where
            # its clone is; never the knowledge base's own repository.
            raise RepoError(said_at(report, source, f"the report names the repository `{source.id}` "
                                    f"(pinned at {source.pin or 'no commit'}); give --memreport-repo {source.id}=PATH"),
                            key=source.id)
        named_id = repomap.repo_id(report, source_id)
        if named_id is not None and found is not None and found.path is None:
            # The template was asked and found no clone: the knowledge base's own repository is not it.
            raise RepoError(self.unmapped_problem(report, named_id), key=named_id)
        mentioned = self._mentioned_clone(source)
        if mentioned is not None:
            return mentioned
        owned = self._commit_owners_clone(report, source_id, source)
        if owned is not None:
            return owned
        mapped = [m.key for m in self._options.repo_map.mappings] if self._options.repo_map else []
        if source is not None and source.repository and mapped:
            given = ", ".join(sorted(mapped))
            raise RepoError(said_at(
                report, source, f"the report names {source.repository}, but --memreport-repo "
                f"maps only {given}; give --memreport-repo {source.repository}=PATH"
            ), key=source.repository)
        folder = self._reports.report_file(report).resolve().parent
        if source is None or _clone_at_or_above(folder) is not None:
            return folder
        # The report's folder is no clone to fall back to: the key to give, not "not a clone".
        slashed = [word for word in source.mentioned if "/" in word]
        key = source.repository or (slashed[0] if len(slashed) == 1 else None)
        if key:  # (the report says which repository, by name or in its pin's words)
            raise RepoError(said_at(report, source, f"the report names {key} (pinned at "
                                    f"{source.pin or 'no commit'}); give --memreport-repo {key}=PATH"), key=key)
        words = [word for word in source.mentioned if "/" not in word]
        if words:  # (the pin's words name the repository: ``an `openzeppelin-contracts` version``)
            raise RepoError(said_at(report, source, f"the report's pin names `{words[0]}` (at {source.pin or 'no commit'}); "
                                    f"give --memreport-repo {words[0]}=PATH"), key=words[0])
        return folder

    def _mentioned_clone(self, source: Source | None) -> Path | None:
        """The clone of the one repository a document names in words near its pin or in its
        prose (``pinned to the acme/widgets revision ...``) that the user maps or the template
        finds; ``None`` when none or several are (a path is written like ``owner/name`` too)."""
        if source is None or source.repository or not source.mentioned:
            return None
        found: dict[Path, str] = {}
        for name in source.mentioned:
            path = self._clone_named(name)
            if path is not None:
                found.setdefault(path.resolve(), name)
        return next(iter(found)) if len(found) == 1 else None

    def _commit_owners_clone(self, report: Report, source_id: str | None, source: Source | None) -> Path | None:
        """The clone of the one repository other documents say a pin's commit is of (a pin
        stated with its ``owner/name`` or near the words of one the user maps, a link at that
        commit), for a pin whose own document names none (its source's, else the commits its
        citations carry): a commit is one repository's, whichever document writes it. ``None``
        when none or several are found, or nothing maps the one named."""
        if source is not None and source.repository:
            return None
        if source is not None and source.pin:
            pins = {source.pin.lower()}
        else:
            pins = {item.pin.lower() for item in report.all_evidence()
                    if item.pin and (item.source == source_id or (item.source is None and (
                        source_id is None or report.sources[:1] == (source,))))}
        if not pins or any(len(pin) < _OWNED_SHA for pin in pins):
            return None
        found: set[Path] = set()
        for pin in pins:
            for sha, repository, other in self._commit_owners().get(pin[:_OWNED_SHA], ()):
                if other is source or not (sha.startswith(pin) or pin.startswith(sha)):
                    continue
                path = self._clone_named(repository) if repository else self._mentioned_clone(other)
                if path is not None:
                    found.add(Path(path).resolve())
        return next(iter(found)) if len(found) == 1 else None

    def _clone_named(self, repository: str) -> Path | None:
        """The clone the user's keys or the template give for ``owner/name`` (or a short name
        the user maps), if any."""
        path = self._given_repository(repository) or self._given_by_name(repository)
        if path is None and self._options.repo_map:
            looked = self._options.repo_map.lookup(repository)
            path = looked.path if looked is not None else None
        return Path(path) if path is not None else None

    def _commit_owners(self) -> dict[str, list[tuple[str, str | None, Source | None]]]:
        """``(sha, owner/name or None, source)`` of every commit the loaded reports state: a
        pin with its repository's name (or only words near it: ``None``), a link's own commit
        (no source), by the sha's first characters (computed once)."""
        if self._owners is None:
            self._owners = {}
            for report in self._reports.loaded():
                tied: list[tuple[str, str | None, Source | None]] = [
                    (source.pin, source.repository or (source.id if "/" in source.id else None), source)
                    for source in report.sources if source.pin and (
                        source.repository or "/" in source.id or source.mentioned)]
                tied += [(item.pin, item.source, None) for item in report.all_evidence()
                         if item.pin and item.source and "/" in item.source]
                for sha, repository, source in tied:
                    if len(sha) >= _OWNED_SHA:
                        self._owners.setdefault(sha[:_OWNED_SHA].lower(), []).append((sha.lower(), repository, source))
        return self._owners

    def _given_repository(self, key: str) -> Path | None:
        """The clone ``--memreport-repo KEY=PATH`` gives for ``key`` (``owner/name``, ``SRC-1`` or a
        short name), in any letter case: GitHub's names and a user's spelling both ignore it."""
        folded = key.casefold()
        return next((Path(path) for given, path in self._options.repos.items()
                     if given is not None and given.casefold() == folded), None)

    def _given_by_name(self, repository: str) -> Path | None:
        """The clone a short key gives for ``owner/name`` by its name alone (``--memreport-repo
        widgets=PATH`` for ``acme/widgets``): one document calls it ``widgets``, another links
        it in full, and the user maps it once. Not when the reports name two repositories of
        that name (a fork): then only ``owner/name`` says which."""
        name = repository.rsplit("/", 1)[-1]
        given = self._given_repository(name)
        if given is None or len(self._owners_of(name)) > 1:
            return None
        return given

    def _owners_of(self, name: str) -> set[str]:
        """The ``owner/name`` repositories the loaded reports name that are called ``name``."""
        folded = name.casefold()
        return {named.casefold() for named in self.all_repositories_named()
                if named.rsplit("/", 1)[-1].casefold() == folded}

    def default_folder(self, report: Report, source_id: str | None) -> bool:
        """Whether a source's clone is the report's own folder only because nothing names or
        maps another: the knowledge base's repository, which may not hold the pin at all."""
        try:
            path = self._repo_path(report, source_id)
        except RepoError:
            return False
        if self._given_for(report, source_id) is not None or None in self._options.repos:
            return False
        return path == self._reports.report_file(report).resolve().parent

    def _given_for(self, report: Report, source_id: str | None) -> Path | None:
        """The clone ``--memreport-repo KEY=PATH`` gives for a source, by any key the report
        uses for it: its ID (``SRC-1``, also for the default source), or a short name."""
        repos = self._options.repos
        if source_id is not None and source_id in repos:
            return Path(repos[source_id])
        source = report.source(source_id)
        if source is None:
            # a report that declares no source (its citations carry their own commits): its
            # default is SRC-1, as the messages name it
            return self._given_repository("SRC-1") if source_id is None and not report.sources else None
        return self._given_repository(source.id)

    def unknown_keys(self) -> list[tuple[str, list[str]]]:
        """``--memreport-repo KEY=PATH`` keys (an ``SRC-n`` or a short name) that no loaded report
        uses, each with the keys the reports do use (a typo would otherwise be ignored)."""
        keys = [key for key in self._options.repos if key is not None and "/" not in key]
        if not keys:
            return []
        used: set[str] = {"SRC-1"}  # the default source of every report
        worded: set[str] = set()  # ``owner/name`` words near a pin (a path is written the same way)
        for report in self._reports.loaded():
            # (a repository the document pins and cites nothing of is still named by it)
            used.update(name for name in report.meta.get(PINNED_UNREAD, ()) if "/" not in name)
            worded.update(name for name in report.meta.get(PINNED_UNREAD, ()) if "/" in name)
            for source in report.sources:
                used.add(source.id)
                if source.repository:
                    used.add(source.repository)
                # ``the typeshed revision``: the key the message asks for
                used.update(word for word in source.mentioned if "/" not in word)
                worded.update(word for word in source.mentioned if "/" in word)
        folded = {key.casefold() for key in used}
        # a repository's name alone, for the one repository of that name (:meth:`_given_by_name`),
        # and the name of an ``owner/name`` written near a pin (:meth:`_mentioned_clone`)
        folded |= {named.rsplit("/", 1)[-1].casefold() for named in self.all_repositories_named()
                   if len(self._owners_of(named.rsplit("/", 1)[-1])) == 1}
        folded |= {word.rsplit("/", 1)[-1].casefold() for word in worded}
        return [(key, sorted(used)) for key in keys if key.casefold() not in folded]

    def lookup(self, report: Report, source_id: str | None) -> repomap.Lookup | None:
        """Where the run's mappings and template put a source's repository (``None``: nothing maps it)."""
        repo_id = repomap.repo_id(report, source_id)
        if repo_id is None or not self._options.repo_map:
            return None
        return self._options.repo_map.lookup(repo_id)

    def _named_repo(self, report: Report, source_id: str | None) -> Path | None:
        """The clone given for the repository the report names for this source
        (``github.com/owner/name`` → ``--memreport-repo owner/name=PATH``), matched
        case-insensitively as GitHub does; also for a link's ``owner/name``."""
        wanted = repomap.repo_id(report, source_id)  # (its own, its ID's, or its URL's)
        if wanted is None:
            return None
        given = self._given_repository(wanted) or self._given_by_name(wanted)
        if given is not None:
            return given
        folded = wanted.casefold()
        for claims_file in self._claims.claims_for(report).files:
            for claimed in claims_file.sources:
                if claimed.id.casefold() == folded and claimed.repo_path is not None:
                    return claimed.repo_path
        return None

    def is_unmapped(self, report: Report, source_id: str | None) -> bool:
        """A repository named by URL (``owner/name``) that nothing maps to a local clone."""
        if source_id is None or "/" not in source_id or source_id in self._options.repos:
            return False
        found = self.lookup(report, source_id)
        if found is not None and found.path is not None:
            return False
        if self._default_serves_named() or self._named_repo(report, source_id) is not None:
            return False
        claimed = self._claims.claims_for(report).source(source_id)
        return claimed is None or claimed.repo_path is None

    def _default_serves_named(self) -> bool:
        """Whether the clone given with no key (``--memreport-repo PATH``) serves a repository
        the reports name by ``owner/name`` that nothing else maps: only when the user's own
        mappings name no repository, and the reports name one such repository at most. With
        two, it could be either: an audit finding's link to a library the target uses
        (``OpenZeppelin/openzeppelin-contracts``) was checked in the target's clone, and
        failed as a file the target lacks. Asked once per run."""
        if self._default_for_named is None:
            repos, repo_map = self._options.repos, self._options.repo_map
            keyed = [key for key in repos if key is not None and ("/" in key or is_short_name(key))]
            if repo_map is not None:
                keyed += [mapping.key for mapping in repo_map.mappings]
            self._default_for_named = None in repos and not keyed and len(self._unmapped_named()) <= 1
        return self._default_for_named

    def _unmapped_named(self) -> set[str]:
        """The ``owner/name`` repositories the reports cite that no mapping or template finds a
        clone for, case-folded (GitHub's names ignore letter case)."""
        if self._unmapped is None:
            repo_map = self._options.repo_map
            self._unmapped = set()
            for name in self.all_repositories_named():
                found = repo_map.lookup(name) if repo_map else None
                if found is None or found.path is None:
                    self._unmapped.add(name.casefold())
        return self._unmapped

    def unmapped_problem(self, report: Report, source_id: str) -> render.Said:
        """One line: which repository has no clone, where it was looked for, and what to give."""
        repo_map = self._options.repo_map
        close = repo_map.suggestion(source_id, self.all_repositories_named()) if repo_map else None
        said = repomap.no_clone(report.path, source_id, self.lookup(report, source_id), repo_map, close)
        if None not in self._options.repos:
            return said
        # The clone given with no key was not taken for it (:meth:`_default_serves_named`): say why.
        others = sorted(self._unmapped_named() - {source_id.casefold()})
        if others:
            named = ", ".join([source_id, *others][:3]) + (", ..." if len(others) > 2 else "")
            why = (f"serves a repository named owner/name only when the reports name one, and they name "
                   f"{len(others) + 1} ({named})")
        else:
            why = "serves no repository named owner/name once another mapping names one"
        return render.Said(said.file, said.line, f"{said.text}; --memreport-repo PATH with no key {why}")

    def all_repositories_named(self) -> set[str]:
        """Every ``owner/name`` the loaded reports name (computed once)."""
        if self._named is None:
            self._named = set()
            for report in self._reports.loaded():
                self._named |= repomap.repositories_named(report)
        return self._named

    def repositories_mentioned(self) -> set[str]:
        """Every ``owner/name`` word the loaded reports write near a pin no name binds
        (:attr:`.model.Source.mentioned`): a mapping of one of them is used, not a typo."""
        return {name for report in self._reports.loaded() for source in report.sources
                if not source.repository for name in source.mentioned}

    def close(self) -> None:
        for store in self.open_stores():
            store.close()
        self.stores.clear()


def _clone_at_or_above(path: Path) -> Path | None:
    """The folder holding ``.git`` at or above ``path`` (found on the file system only), or ``None``."""
    return next((folder for folder in (path, *path.parents) if os.path.lexists(folder / ".git")), None)
