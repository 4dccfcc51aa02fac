"""The working tree on disk as a :class:`~.snapshot.Snapshot`, read-only and never following a symlink."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..text.textfile import TextFile
from .catfile import BlobReader
from .objects import TreeEntry, blob_oid
from .paths import normalize_path, prefixes
from .process import GitRunner
from .snapshot import WORKTREE, Snapshot


class WorktreeSnapshot(Snapshot):
    """The working tree on disk, read-only.

    Reads files under the work tree root only, never following a symlink; the
    file list (tracked plus untracked-but-not-ignored files) is taken once.
    Object ids are git blob ids computed from the bytes on disk.
    """

    def __init__(self, runner: GitRunner, reader: BlobReader) -> None:
        self.rev = WORKTREE
        self._runner = runner
        self._reader = reader
        self._root = runner.path
        self._files: list[str] | None = None

    def __repr__(self) -> str:
        return f"WorktreeSnapshot({self._root})"

    def _locate(self, path: str, literal: bool = False) -> tuple[str | None, os.stat_result | None, str | None]:
        """``(clean path, lstat or None when missing, refusal reason)``; ``literal`` for listed paths."""
        clean, reason = normalize_path(path, literal)
        if clean is None:
            return None, None, reason
        if clean == "":
            return clean, os.lstat(self._root), None
        for prefix in prefixes(clean):
            try:
                above = os.lstat(self._root / prefix)
            except OSError:
                return clean, None, None
            if stat.S_ISLNK(above.st_mode):
                return clean, None, f"goes through a symlink at {prefix}"
            if not stat.S_ISDIR(above.st_mode):
                return clean, None, None
            if _is_nested_repository(self._root / prefix):
                return clean, None, f"inside the submodule at {prefix}"
        try:
            return clean, os.lstat(self._root / clean), None
        except OSError:
            return clean, None, None

    def refuse_reason(self, path: str) -> str | None:
        return self._locate(path)[2]

    def entry(self, path: str) -> TreeEntry | None:
        clean, found, _ = self._locate(path)
        if clean is None or found is None:
            return None
        mode = found.st_mode
        if stat.S_ISLNK(mode):
            target = os.fsencode(os.readlink(self._root / clean))
            return TreeEntry(clean, blob_oid(target), "symlink", len(target))
        if stat.S_ISDIR(mode):
            if clean and _is_nested_repository(self._root / clean):
                return TreeEntry(clean, "", "submodule")
            return TreeEntry(clean, "", "dir")
        if stat.S_ISREG(mode):
            data = self._read_bytes(clean, found)
            oid = blob_oid(data) if data is not None else ""
            return TreeEntry(clean, oid, "file", found.st_size)
        return None  # sockets, FIFOs, devices: nothing a report can quote

    def read(self, path: str, literal: bool = False) -> TextFile | None:
        clean, found, _ = self._locate(path, literal)
        if clean is None or found is None or not stat.S_ISREG(found.st_mode):
            return None
        if found.st_size > self._reader.max_file_bytes:
            return TextFile(clean, "", "too-large", size=found.st_size)
        data = self._read_bytes(clean, found)
        if data is None:
            return None
        return self._reader.decode_cached(clean, blob_oid(data), data)

    def _read_bytes(self, clean: str, found: os.stat_result) -> bytes | None:
        if found.st_size > self._reader.max_file_bytes:
            return None
        # O_NOFOLLOW: should the file have become a symlink since lstat, refuse it.
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        try:
            fd = os.open(self._root / clean, flags)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            return handle.read(self._reader.max_file_bytes + 1)

    def _grep_scope(self) -> list[str]:
        return ["--untracked"]  # tracked and untracked files, ignored ones excluded (as in files())

    def read_listed(self, path: str) -> TextFile | None:
        return self.read(path, literal=True)

    def files(self) -> list[str]:
        if self._files is None:
            out = self._runner.run(["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
            names = {os.fsdecode(n) for n in out.split(b"\0") if n}
            kept = []
            for name in names:
                clean, found, reason = self._locate(name, literal=True)
                if clean and found is not None and reason is None and stat.S_ISREG(found.st_mode):
                    kept.append(clean)
            self._files = sorted(kept)
        return list(self._files)


def _is_nested_repository(directory: Path) -> bool:
    return os.path.lexists(directory / ".git")
