"""The index's stat cache, read from its file: which tracked files are as git last recorded them.

git decides that a working-tree file is unchanged without reading it when its
size, modification and change times and inode are those the index recorded, and the index
was written after the file last changed (not "racily clean"). The working
tree's line counts (:meth:`.workdir.WorktreeSnapshot.write_tree`) use the same
rule to skip reading unchanged files, without asking git to look at the working
tree (which would apply the target's attributes and run its filters).

The file is read in git's documented on-disk format (``gitformat-index``),
versions 2 and 3 only; a version 4 index (compressed paths) or a split index
(``link`` extension) gives no cache, and every file is then read.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

_HEADER = struct.Struct(">4sII")
_EXTENDED = 0x4000
_STAGE = 0x3000
_NAME_LENGTH = 0xFFF
#: the largest index read (a larger one is not worth the memory: every file is read instead)
_MAX_INDEX_BYTES = 256 * 1024 * 1024


#: what the index recorded of a file: its raw blob id, size, mtime and ctime (seconds,
#: nanoseconds) and inode, as the file stores them (plain tuples: one per tracked file)
Recorded = tuple


@dataclass(frozen=True)
class StatCache:
    """The index's records by path (as git stores it, bytes), and when the index was written."""

    entries: dict[bytes, Recorded]
    written: tuple[int, int]

    def unchanged(self, path: bytes, found: os.stat_result) -> str | None:
        """The recorded blob id when ``found`` (the file's ``lstat``) is as recorded and
        the record is not racy; ``None`` when the file must be read."""
        record = self.entries.get(path)
        if record is None:
            return None
        raw, size, mtime_s, mtime_ns, ctime_s, ctime_ns, ino = record
        if (size != found.st_size & 0xFFFFFFFF or ino != found.st_ino & 0xFFFFFFFF
                or (mtime_s, mtime_ns) != divmod(found.st_mtime_ns, 1_000_000_000)
                or (ctime_s, ctime_ns) != divmod(found.st_ctime_ns, 1_000_000_000)):
            return None
        # A file changed in the same instant the index was written may differ
        # with the same stat data: git reads it, and so does this.
        return raw.hex() if (mtime_s, mtime_ns) < self.written else None


def read_stat_cache(index: Path, oid_bytes: int) -> StatCache | None:
    """The stat cache of the index file ``index`` (``oid_bytes``: 20 for SHA-1, 32 for
    SHA-256), or ``None`` when it is missing, unreadable, or in a form not read here."""
    try:
        written_ns = os.stat(index).st_mtime_ns
        with open(index, "rb") as handle:
            data = handle.read(_MAX_INDEX_BYTES + 1)
    except OSError:
        return None
    if len(data) > _MAX_INDEX_BYTES:
        return None
    try:
        return _parse(data, oid_bytes, divmod(written_ns, 1_000_000_000))
    except (struct.error, ValueError, IndexError):
        return None  # truncated or damaged: git would say so; here every file is read


@lru_cache(maxsize=2)
def _entry_head(oid_bytes: int) -> struct.Struct:
    """An entry's fixed part: ctime s/ns, mtime s/ns, dev, ino, mode, uid, gid, size,
    the blob id, flags."""
    return struct.Struct(f">10I{oid_bytes}sH")


def _parse(data: bytes, oid_bytes: int, written: tuple[int, int]) -> StatCache | None:
    signature, version, count = _HEADER.unpack_from(data, 0)
    if signature != b"DIRC" or version not in (2, 3):
        return None
    entries: dict[bytes, Recorded] = {}
    entry_head = _entry_head(oid_bytes)
    unpack, find = entry_head.unpack_from, data.find
    head = entry_head.size
    pos = _HEADER.size
    for _ in range(count):
        ctime_s, ctime_ns, mtime_s, mtime_ns, _dev, ino, _mode, _uid, _gid, size, raw, flags = unpack(data, pos)
        name_at = pos + head + (2 if version == 3 and flags & _EXTENDED else 0)
        end = find(b"\0", name_at)
        if end < 0 or (flags & _NAME_LENGTH != _NAME_LENGTH and end - name_at != flags & _NAME_LENGTH):
            return None
        if not flags & _STAGE:
            entries[data[name_at:end]] = (raw, size, mtime_s, mtime_ns, ctime_s, ctime_ns, ino)
        # Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
        pos += (end - pos + 8) // 8 * 8
    # Extensions follow; a split index keeps most entries in another file.
    while pos + 8 <= len(data) - oid_bytes:
        name, size = struct.unpack_from(">4sI", data, pos)
        if name == b"link":
            return None
        pos += 8 + size
    return StatCache(entries, written)
