"""The repository part of the engine: which local clone each source of a report is
checked in (``--memreport-repo``, a run's ``owner/name``, the template and ini mappings).

Mixed into :class:`~pytest_memreport.engine.Engine`, whose stores and options it uses.
"""

from __future__ import annotations

from pathlib import Path

from .gitstore import GitStore, RepoError
from .model import Report
from . import repomap
from .binding import where_stated




class TargetRepositories:
    """Each source's repository, opened once per process."""

    # -- targets ---------------------------------------------------------
    def store_for(self, report: Report, source_id: str | None) -> GitStore:
        """The target repository of a source; raises :class:`RepoError`."""
        repo_path = self._repo_path(report, source_id)
        key = repo_path.resolve()
        store = self._stores.get(key)
        if store is None:
            try:
                store = GitStore.open(repo_path, max_file_bytes=self.options.max_file_bytes)
            except RepoError as exc:
                store = exc
            self._stores[key] = store
        if isinstance(store, RepoError):
            raise store
        return store

    def _repo_path(self, report: Report, source_id: str | None) -> Path:
        repos = self.options.repos
        if source_id is not None and source_id in repos:
            return Path(repos[source_id])
        named = self._named_repo(report, source_id)
        if named is not None:
            return named
        claimed = self.claims_for(report).source(source_id)
        if claimed is not None and claimed.repo_path is not None and None not in repos:
            return claimed.repo_path
        found = self.lookup(report, source_id)
        if found is not None and found.path is not None:
            return found.path
        if self.is_unmapped(report, source_id):
            # A link to another repository (owner/name) needs its own mapping.
            raise RepoError(self.unmapped_problem(report, source_id))
        if None in repos:
            return Path(repos[None])
        source = report.source(source_id)
        mapped = [m.key for m in self.options.repo_map.mappings] if self.options.repo_map else []
        if source is not None and source.repository and mapped:
            given = ", ".join(sorted(mapped))
            raise RepoError(
                f"{where_stated(report, source)}: the report names {source.repository}, but --memreport-repo "
                f"maps only {given}; give --memreport-repo {source.repository}=PATH"
            )
        return self.report_file(report).resolve().parent

    def lookup(self, report: Report, source_id: str | None):
        """Where the run's mappings and template put a source's repository (``None``: nothing maps it)."""
        repo_id = repomap.repo_id(report, source_id)
        if repo_id is None or not self.options.repo_map:
            return None
        return self.options.repo_map.lookup(repo_id)

    def _named_repo(self, report: Report, source_id: str | None) -> Path | None:
        """The clone given for the repository the report names for this source
        (``github.com/owner/name`` → ``--memreport-repo owner/name=PATH``), matched
        case-insensitively as GitHub does; also for a link's ``owner/name``."""
        source = report.source(source_id)
        wanted = source.repository if source is not None and source.repository else None
        if wanted is None and source_id and "/" in source_id:
            wanted = source_id
        if wanted is None:
            return None
        folded = wanted.casefold()
        for key, path in self.options.repos.items():
            if key is not None and "/" in key and key.casefold() == folded:
                return Path(path)
        for claims_file in self.claims_for(report).files:
            for claimed in claims_file.sources:
                if claimed.id.casefold() == folded and claimed.repo_path is not None:
                    return claimed.repo_path
        return None

    def is_unmapped(self, report: Report, source_id: str | None) -> bool:
        """A repository named by URL (``owner/name``) that nothing maps to a local clone."""
        if source_id is None or "/" not in source_id or source_id in self.options.repos:
            return False
        found = self.lookup(report, source_id)
        if found is not None and found.path is not None:
            return False
        if None in self.options.repos or self._named_repo(report, source_id) is not None:
            return False
        claimed = self.claims_for(report).source(source_id)
        return claimed is None or claimed.repo_path is None

    def unmapped_problem(self, report: Report, source_id: str) -> str:
        """One line: which repository has no clone, where it was looked for, and what to give."""
        repo_map = self.options.repo_map
        close = repo_map.suggestion(source_id, self.all_repositories_named()) if repo_map else None
        return repomap.no_clone(report.path, source_id, self.lookup(report, source_id), repo_map, close)

    def all_repositories_named(self) -> set[str]:
        """Every ``owner/name`` the loaded reports name (computed once)."""
        if self._named is None:
            self._named = set()
            for report in self.loaded_reports():
                self._named |= repomap.repositories_named(report)
        return self._named
