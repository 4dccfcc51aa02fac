"""The working tree on disk as a :class:`~.snapshot.Snapshot`, read-only and never following a symlink.

git is never asked to read the working tree's files: it would pass them
through the target's attributes (end-of-line and encoding conversion) and
filters (``filter.<x>.clean`` and ``process`` commands, which are the target's
code). The bytes are read here; to let git's own diff compare them with a
commit, :meth:`WorktreeSnapshot.write_tree` writes them as objects into a
scratch folder of ours (:func:`scratch_objects`), never into the target.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path

from ..text.textfile import TextFile
from .catfile import BlobReader
from .indexfile import read_stat_cache
from .objects import OBJECT_FORMATS, TreeEntry, blob_oid
from .paths import disk_path, git_path, normalize_path, prefixes
from .process import GitRunner
from .snapshot import WORKTREE, Snapshot


class WorktreeSnapshot(Snapshot):
    """The working tree on disk, read-only.

    Reads files under the work tree root only, never following a symlink
    (each path component is opened relative to its folder's descriptor with
    ``O_NOFOLLOW``, :func:`open_beneath`); the
    file list (tracked plus untracked-but-not-ignored files) is taken once.
    Object ids are git blob ids computed from the bytes on disk.
    """

    def __init__(self, runner: GitRunner, reader: BlobReader, git_dir: Path | None = None) -> None:
        self.rev = WORKTREE
        self._runner = runner
        self._reader = reader
        self._root = runner.path
        #: where the index lives (its stat cache spares reading unchanged files)
        self._git_dir = git_dir
        #: files read and hashed to write the working tree's tree (a cost, for tests)
        self.files_hashed = 0
        self._files: list[str] | None = None
        self._skipped: dict[str, tuple[str, str]] | None = None

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
                above = os.lstat(self._disk(prefix))
            except OSError:
                return clean, None, None
            if stat.S_ISLNK(above.st_mode):
                return clean, None, f"goes through a symlink at {prefix}"
            if not stat.S_ISDIR(above.st_mode):
                return clean, None, None
            if _is_nested_repository(self._disk(prefix)):
                return clean, None, f"inside the submodule at {prefix}"
        try:
            return clean, os.lstat(self._disk(clean)), None
        except OSError:
            return clean, None, None

    def refuse_reason(self, path: str) -> str | None:
        return self._locate(path)[2]

    def _disk(self, clean: str) -> bytes:
        """Where the repository path ``clean`` is on disk, as bytes: its name is UTF-8
        whatever the locale (:func:`.paths.disk_path`)."""
        return os.path.join(os.fsencode(self._root), disk_path(clean))

    def skip_worktree(self) -> dict[str, tuple[str, str]]:
        """The index's skip-worktree entries (outside a sparse checkout's cone, or marked
        by hand), path -> ``(mode, object id)``: git leaves them off the disk and
        reports them clean, so they are read from the index (one ``ls-files``, cached)."""
        if self._skipped is None:
            out = self._runner.run(["ls-files", "-z", "--stage", "-t"])
            skipped: dict[str, tuple[str, str]] = {}
            for record in out.split(b"\0"):
                meta, tab, raw = record.partition(b"\t")
                fields = meta.decode("ascii", "replace").split()
                if tab and len(fields) == 4 and fields[0] == "S" and fields[1] in ("100644", "100755"):
                    skipped.setdefault(git_path(raw), (fields[1], fields[2]))
            self._skipped = skipped
        return self._skipped

    def _from_index(self, clean: str) -> TreeEntry | None:
        """The skip-worktree entry ``clean`` (a file), or the folder holding some."""
        skipped = self.skip_worktree()
        if clean in skipped:
            return TreeEntry(clean, skipped[clean][1], "file")
        if any(path.startswith(clean + "/") for path in skipped):
            return TreeEntry(clean, "", "dir")
        return None

    def entry(self, path: str) -> TreeEntry | None:
        clean, found, reason = self._locate(path)
        if clean is not None and found is None and reason is None:
            return self._from_index(clean)
        if clean is None or found is None:
            return None
        mode = found.st_mode
        if stat.S_ISLNK(mode):
            target = os.readlink(self._disk(clean))
            return TreeEntry(clean, blob_oid(target, self._reader.object_format), "symlink", len(target))
        if stat.S_ISDIR(mode):
            if clean and _is_nested_repository(self._disk(clean)):
                return TreeEntry(clean, "", "submodule")
            return TreeEntry(clean, "", "dir")
        if stat.S_ISREG(mode):
            data = self._read_bytes(clean, found)
            oid = blob_oid(data, self._reader.object_format) if data is not None else ""
            return TreeEntry(clean, oid, "file", found.st_size)
        return None  # sockets, FIFOs, devices: nothing a report can quote

    def read(self, path: str, literal: bool = False) -> TextFile | None:
        clean, found, reason = self._locate(path, literal)
        if clean is not None and found is None and reason is None:
            skipped = self.skip_worktree().get(clean)
            return self._reader.read_blob(clean, skipped[1], None) if skipped is not None else None
        if clean is None or found is None or not stat.S_ISREG(found.st_mode):
            return None
        if found.st_size > self._reader.max_file_bytes:
            return TextFile(clean, "", "too-large", size=found.st_size)
        data = self._read_bytes(clean, found)
        if data is None:
            return None
        return self._reader.decode_cached(clean, blob_oid(data, self._reader.object_format), data)

    def content_sha256(self, path: str) -> str | None:
        clean, found, reason = self._locate(path)
        if clean is not None and found is None and reason is None:
            skipped = self.skip_worktree().get(clean)  # (as :meth:`read`: the index's blob)
            return hashlib.sha256(self._reader.read_bytes(clean, skipped[1])).hexdigest() if skipped else None
        if clean is None or found is None or not stat.S_ISREG(found.st_mode):
            return None
        data = self._read_bytes(clean, found)
        return hashlib.sha256(data).hexdigest() if data is not None else None

    def _read_bytes(self, clean: str, found: os.stat_result) -> bytes | None:
        if found.st_size > self._reader.max_file_bytes:
            return None
        try:
            fd = open_beneath(self._root, clean)
        except OSError:
            return None  # gone, or a component became a symlink since lstat: refused
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None
            return handle.read(self._reader.max_file_bytes + 1)

    def _grep_scope(self) -> list[str]:
        return ["--untracked"]  # tracked and untracked files, ignored ones excluded (as in files())

    def read_listed(self, path: str) -> TextFile | None:
        return self.read(path, literal=True)

    def write_tree(self, objects: Path) -> str:
        """The id of a tree holding the tracked files as they are on disk, written
        (with the blobs the target lacks) into the object folder ``objects``.

        Which paths are tracked comes from the index (``ls-files``, which reads no
        file); a path gone from disk, or refused by the path hygiene (through a
        symlink, inside a nested repository), is left out (a deletion); a
        submodule and a skip-worktree entry keep their index ids, as ``git diff``
        does. A file whose stat data are those the index recorded (and not
        racily so) is the index's blob, unread, by git's own rule
        (:mod:`.indexfile`); a file over the size limit is never read either.
        Every other file is hashed from its bytes, and written only when they
        differ from the index's blob.
        Folders are opened once each, in the listing's (sorted) order.
        """
        out = self._runner.run(["ls-files", "-z", "--stage", "-t"])
        oid_bytes = len(blob_oid(b"", self._reader.object_format)) // 2
        cache = read_stat_cache(self._git_dir / "index", oid_bytes) if self._git_dir is not None else None
        entries: dict[str, tuple[str, str]] = {}
        with _FolderWalk(self._root) as walk:
            for record in out.split(b"\0"):
                meta, tab, raw = record.partition(b"\t")
                fields = meta.decode("ascii", "replace").split()
                if not tab or len(fields) != 4:
                    continue
                tag, mode, oid, _stage = fields
                path = git_path(raw)
                if path in entries:
                    continue  # an unmerged path is listed once per stage
                if mode == "160000" or tag == "S":
                    entries[path] = (mode, oid)
                    continue
                clean, reason = normalize_path(path, literal=True)
                if clean is None or reason is not None:
                    continue
                found = self._disk_object(walk, clean, mode, oid, objects,
                                          cache.unchanged if cache is not None and clean == path else None, raw)
                if found is not None:
                    entries[clean] = found
        root, trees = _tree_objects(entries, self._reader.object_format)
        # Most folders are as committed: their trees are the target's already.
        for oid in self._reader.absent(trees):
            _write_object(objects, oid, b"tree", trees[oid])
        return root

    def _disk_object(self, walk: _FolderWalk, clean: str, mode: str, oid: str, objects: Path,
                     recorded=None, raw: bytes = b"") -> tuple[str, str] | None:
        """``(mode, object id)`` of the tracked file ``clean`` as it is on disk, its blob
        written into ``objects`` when it is not ``oid``; ``None`` when it is not there.
        ``recorded(raw, lstat)`` (:meth:`.indexfile.StatCache.unchanged`) says whether
        the index's record of it (by its name as stored, ``raw``) still holds."""
        folder, _, base = clean.rpartition("/")
        name = disk_path(base)
        fd = walk.folder(folder)
        if fd is None:
            return None
        try:
            found = os.lstat(name, dir_fd=fd)
            if stat.S_ISLNK(found.st_mode):
                target = os.readlink(name, dir_fd=fd)
                disk_oid = blob_oid(target, self._reader.object_format)
                if disk_oid != oid:
                    _write_object(objects, disk_oid, b"blob", target)
                return "120000", disk_oid
            if not stat.S_ISREG(found.st_mode):
                return None
            # The index's mode stands for a regular file, as with core.fileMode
            # off: line counts are about contents.
            file_mode = mode if mode in ("100644", "100755") else "100644"
            if mode in ("100644", "100755") and recorded is not None and recorded(raw, found) == oid:
                return file_mode, oid  # as the index recorded it, by git's own stat rule: not read
            if found.st_size > self._reader.max_file_bytes and mode in ("100644", "100755"):
                # Never read (as everywhere): its lines are not counted, so the
                # index's blob stands for it (a Git LFS file stays its pointer).
                return file_mode, oid
            hashing = OBJECT_FORMATS[self._reader.object_format]
            self.files_hashed += 1
            disk_oid = _hash_file(fd, name, hashing)
            if disk_oid != oid:
                disk_oid = _store_file(fd, name, objects, hashing)
        except OSError:
            return None  # gone, replaced by a symlink, or rewritten while read: not a file to compare
        return file_mode, disk_oid

    def files(self) -> list[str]:
        if self._files is None:
            out = self._runner.run(["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
            names = {git_path(n) for n in out.split(b"\0") if n}
            kept = []
            for name in names:
                clean, found, reason = self._locate(name, literal=True)
                if clean and found is not None and reason is None and stat.S_ISREG(found.st_mode):
                    kept.append(clean)
                elif clean and found is None and reason is None and clean in self.skip_worktree():
                    kept.append(clean)
            self._files = sorted(kept)
        return list(self._files)


def _is_nested_repository(directory: bytes) -> bool:
    return os.path.lexists(os.path.join(directory, b".git"))


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


def open_beneath(root: Path, clean: str) -> int:
    """A read-only descriptor of ``root/clean``, opened one component at a time.

    Each folder is opened relative to the one above it with ``O_NOFOLLOW``,
    so a folder swapped for a symlink after it was checked (``lstat``) fails
    the open instead of leading out of the repository; the file itself is
    opened ``O_NOFOLLOW | O_NONBLOCK`` (a FIFO put there never blocks).
    Raises ``OSError`` (``ELOOP``/``ENOTDIR`` for a symlink on the way).
    """
    current = os.open(root, os.O_RDONLY | _DIRECTORY)
    try:
        *folders, name = disk_path(clean).split(b"/")
        for folder in folders:
            below = os.open(folder, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=current)
            os.close(current)
            current = below
        return os.open(name, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0), dir_fd=current)
    finally:
        os.close(current)


#: bytes read at a time when hashing a file of the working tree
_CHUNK = 1 << 20

#: a tree entry's mode as git writes it in a tree object
_TREE_MODE = b"40000"


class _FolderWalk:
    """Descriptors of the folders leading to the current one, for paths visited in
    sorted order: each folder is opened once, relative to its parent, never through
    a symlink (``O_NOFOLLOW``); a folder holding ``.git`` (a nested repository) is
    not entered. At most one descriptor per level is open."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._names: list[str] = []
        self._fds: list[int | None] = []

    def __enter__(self) -> _FolderWalk:
        self._fds = [os.open(self._root, os.O_RDONLY | _DIRECTORY)]
        return self

    def __exit__(self, *exc: object) -> None:
        self._close_to(0)

    def _close_to(self, depth: int) -> None:
        while len(self._fds) > depth:
            fd = self._fds.pop()
            if fd is not None:
                os.close(fd)
        del self._names[max(depth - 1, 0):]

    def folder(self, path: str) -> int | None:
        """A descriptor of the folder ``path`` (``""``: the root), or ``None`` when it
        cannot be entered (missing, not a folder, a symlink, a nested repository)."""
        names = path.split("/") if path else []
        shared = 0
        while shared < len(names) and shared < len(self._names) and names[shared] == self._names[shared]:
            shared += 1
        self._close_to(shared + 1)
        for name in names[shared:]:
            above = self._fds[-1]
            below = None
            if above is not None:
                try:
                    below = os.open(disk_path(name), os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=above)
                except OSError:
                    below = None
                if below is not None and _holds_git(below):
                    os.close(below)
                    below = None
            self._names.append(name)
            self._fds.append(below)
        return self._fds[-1]


def _holds_git(fd: int) -> bool:
    try:
        os.lstat(".git", dir_fd=fd)
    except OSError:
        return False
    return True


def _open_file(fd: int, name: bytes) -> tuple[int, int]:
    """A descriptor of the file ``name`` in the folder ``fd``, opened without following
    a symlink (nor blocking on a FIFO), and its size; ``OSError`` when it is not a
    regular file."""
    file_fd = os.open(name, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0), dir_fd=fd)
    found = os.fstat(file_fd)
    if not stat.S_ISREG(found.st_mode):
        os.close(file_fd)
        raise OSError(f"{name!r} is not a regular file")
    return file_fd, found.st_size


def _hash_file(fd: int, name: bytes, hashing) -> str:
    """git's blob id of the file ``name`` in the folder ``fd``, read in chunks."""
    file_fd, size = _open_file(fd, name)
    try:
        digest = hashing(b"blob %d\0" % size)
        read = 0
        while chunk := os.read(file_fd, _CHUNK):
            digest.update(chunk)
            read += len(chunk)
    finally:
        os.close(file_fd)
    if read != size:
        raise OSError(f"{name!r} changed while it was read")
    return digest.hexdigest()


def _store_file(fd: int, name: bytes, objects: Path, hashing) -> str:
    """Write the file ``name`` in the folder ``fd`` as a loose blob into ``objects``,
    read once in chunks; its id."""
    file_fd, size = _open_file(fd, name)
    partial = objects / f"incoming-{os.getpid()}"
    try:
        with open(partial, "wb") as out:
            header = b"blob %d\0" % size
            digest, compress, read = hashing(header), zlib.compressobj(1), 0
            out.write(compress.compress(header))
            while chunk := os.read(file_fd, _CHUNK):
                digest.update(chunk)
                out.write(compress.compress(chunk))
                read += len(chunk)
            out.write(compress.flush())
    finally:
        os.close(file_fd)
    if read != size:
        raise OSError(f"{name!r} changed while it was read")
    oid = digest.hexdigest()
    (objects / oid[:2]).mkdir(exist_ok=True)
    os.replace(partial, objects / oid[:2] / oid[2:])
    return oid


def _write_object(objects: Path, oid: str, kind: bytes, body: bytes) -> None:
    """Write a loose object (zlib of ``<kind> <size>\\0<body>``) named ``oid`` into ``objects``."""
    folder = objects / oid[:2]
    folder.mkdir(exist_ok=True)
    (folder / oid[2:]).write_bytes(zlib.compress(kind + b" %d\0" % len(body) + body, 1))


def _tree_objects(entries: dict[str, tuple[str, str]], format_name: str) -> tuple[str, dict[str, bytes]]:
    """The tree objects holding ``entries`` (path -> (mode, object id)): the root
    tree's id, and every tree's body by id."""
    root: dict = {}
    for path, entry in entries.items():
        *folders, name = path.split("/")
        node = root
        for folder in folders:
            node = node.setdefault(folder, {})
            if not isinstance(node, dict):
                break  # a file and a folder of one name cannot both be tracked
        else:
            node[name] = entry
    hashing = OBJECT_FORMATS[format_name]
    bodies: dict[str, bytes] = {}

    def build(node: dict) -> str:
        rows = []
        for name, value in node.items():
            raw = disk_path(name)
            if isinstance(value, dict):
                # git sorts a tree's entries by name, a folder's name as if it ended in "/"
                rows.append((raw + b"/", _TREE_MODE, raw, build(value)))
            else:
                rows.append((raw, value[0].encode("ascii"), raw, value[1]))
        body = b"".join(mode + b" " + raw + b"\0" + bytes.fromhex(oid) for _, mode, raw, oid in sorted(rows))
        digest = hashing(b"tree %d\0" % len(body))
        digest.update(body)
        oid = digest.hexdigest()
        bodies[oid] = body
        return oid

    return build(root), bodies


def quoted_alternate(path: Path) -> str:
    """``path`` as one entry of ``GIT_ALTERNATE_OBJECT_DIRECTORIES`` (C-quoted when it
    holds the list separator or a quote)."""
    text = str(path)
    if os.pathsep in text or text.startswith('"'):
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return text


@contextlib.contextmanager
def scratch_objects(runner: GitRunner, common_dir: Path) -> Iterator[tuple[GitRunner, Path]]:
    """A temporary object folder of ours and a runner whose git writes and reads there,
    reading the target's objects as an alternate; removed on exit. Objects written
    into it (:meth:`WorktreeSnapshot.write_tree`) never reach the target."""
    with tempfile.TemporaryDirectory(prefix="memreport-objects-") as scratch:
        objects = Path(scratch)
        inner = runner.with_environment({
            "GIT_OBJECT_DIRECTORY": str(objects),
            "GIT_ALTERNATE_OBJECT_DIRECTORIES": quoted_alternate(common_dir / "objects"),
        })
        yield inner, objects  # its time and processes count with the runner's (shared counts)
