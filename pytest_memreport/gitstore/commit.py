"""A commit's tree as a :class:`~.snapshot.Snapshot`: listed once by ``git ls-tree``, read through ``cat-file``."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Iterator

from ..text.textfile import TextFile
from .catfile import PREFETCH_BYTES, BlobReader
from .objects import TreeEntry
from .paths import git_path, normalize_path, prefixes
from .process import GitRunner
from .snapshot import Snapshot

_KIND_BY_MODE = {"040000": "dir", "120000": "symlink", "160000": "submodule"}


def list_tree(runner: GitRunner, sha: str) -> dict[str, TreeEntry]:
    """Every path of commit ``sha`` (files, directories, symlinks, submodules) by path: one ``git ls-tree``."""
    result = runner.timed(["ls-tree", "-r", "-t", "-z", "--long", "--full-tree", sha])
    if result.returncode == 0:
        out = result.stdout
    else:
        # Sizes need the blobs; an incomplete clone (partial, or a mirror
        # missing one) lists its tree without them: sizes are then unknown.
        out = runner.run(["ls-tree", "-r", "-t", "-z", "--full-tree", sha])
    entries: dict[str, TreeEntry] = {}
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        mode, _kind, oid, *rest = meta.decode("ascii").split()
        size = rest[0] if rest else "-"
        path = git_path(raw_path)
        kind = _KIND_BY_MODE.get(mode, "file")
        # git prints "BAD" for a blob it cannot unpack (a corrupt object):
        # keep the entry; reading it raises RepoError with the remedy.
        entries[path] = TreeEntry(path, oid, kind, int(size) if size.isdigit() else None)
    return entries


class CommitSnapshot(Snapshot):
    """A commit's tree, listed once (``git ls-tree -r -t -z --long``) and read through the store."""

    def __init__(self, runner: GitRunner, reader: BlobReader, sha: str) -> None:
        self.rev = sha
        self._runner = runner
        self._reader = reader
        self._entries: dict[str, TreeEntry] | None = None
        self._looked_up: dict[str, TreeEntry | None] = {}
        #: each path's answer of :meth:`refuse_reason` (a check asks it two or three times)
        self._refusals: dict[str, str | None] = {}
        self._files: list[str] | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"CommitSnapshot({self.rev[:12]} of {self._runner.path})"

    def _listing(self) -> dict[str, TreeEntry]:
        with self._lock:
            if self._entries is None:
                self._entries = list_tree(self._runner, self.rev)
            return self._entries

    def refuse_reason(self, path: str) -> str | None:
        try:
            return self._refusals[path]
        except KeyError:
            pass
        clean, reason = normalize_path(path)
        if reason is None:
            assert clean is not None
            reason = self._crossing(clean, self._listing())
        self._refusals[path] = reason
        return reason

    @staticmethod
    def _crossing(clean: str, entries: dict[str, TreeEntry]) -> str | None:
        for prefix in prefixes(clean):
            above = entries.get(prefix)
            if above is None:
                return None
            if above.kind == "symlink":
                return f"goes through a symlink at {prefix}"
            if above.kind == "submodule":
                return f"inside the submodule at {prefix}"
        return None

    def entry(self, path: str) -> TreeEntry | None:
        try:
            return self._looked_up[path]
        except KeyError:
            pass
        clean, reason = normalize_path(path)
        if clean is None:
            return None
        if clean == "":
            return TreeEntry("", self._reader.tree_of(self.rev), "dir")
        entries = self._listing()
        found = entries.get(clean)
        if found is not None and self._crossing(clean, entries) is not None:
            found = None
        self._looked_up[path] = found  # a commit never changes: asked again, answered at once
        return found

    def read(self, path: str) -> TextFile | None:
        found = self.entry(path)
        if found is None or found.kind != "file":
            return None
        return self._reader.read_blob(found.path, found.oid, found.size)

    def content_sha256(self, path: str) -> str | None:
        found = self.entry(path)
        if found is None or found.kind != "file" or (found.size or 0) > self._reader.max_file_bytes:
            return None
        return hashlib.sha256(self._reader.read_bytes(found.path, found.oid)).hexdigest()

    def read_listed(self, path: str) -> TextFile | None:
        entries = self._listing()
        found = entries.get(path)
        if found is None or found.kind != "file" or self._crossing(path, entries) is not None:
            return None
        return self._reader.read_blob(found.path, found.oid, found.size)

    def _grep_scope(self) -> list[str]:
        return [self.rev]

    def read_many(self, paths: Iterable[str]) -> Iterator[tuple[str, TextFile | None]]:
        # Chunk by chunk: the blobs of a chunk are fetched in one pipelined
        # batch, then read from the cache, so memory holds one chunk beyond it.
        chunk: list[str] = []
        weight, limit = 0, min(PREFETCH_BYTES, self._reader.blobs.max_bytes // 2)
        for path in paths:
            chunk.append(path)
            found = self.entry(path)
            weight += (found.size or 0) if found is not None else 0
            if weight >= limit:
                yield from self._read_chunk(chunk)
                chunk, weight = [], 0
        yield from self._read_chunk(chunk)

    def prefetch(self, paths: Iterable[str]) -> None:
        entries, weight = [], 0
        for path in dict.fromkeys(paths):
            found = self.entry(path)
            if found is None or found.kind != "file":
                continue
            weight += found.size or 0
            if weight > self._reader.blobs.max_bytes // 2:
                break
            entries.append(found)
        self._reader.prefetch(entries)

    def _read_chunk(self, paths: list[str]) -> Iterator[tuple[str, TextFile | None]]:
        self.prefetch(paths)  # a chunk fits half the cache: all of it is fetched
        for path in paths:
            yield path, self.read(path)

    def files(self) -> list[str]:
        entries = self._listing()
        with self._lock:
            if self._files is None:
                self._files = sorted(p for p, e in entries.items() if e.kind == "file")
            return list(self._files)
