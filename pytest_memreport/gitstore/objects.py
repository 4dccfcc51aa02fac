"""Git objects as the rest of gitstore sees them: ids, blob hashing, tree entries.

The object format (SHA-1, or SHA-256 for ``git init --object-format=sha256``
repositories) is decided here and nowhere else.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

HEX_OID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
SHORT_HEX = re.compile(r"(?:[0-9a-fA-F]{4,39}|[0-9a-fA-F]{41,63})")  # shorter than a full SHA-1 or SHA-256 id


#: the object formats git knows, and the hash each names its objects with
OBJECT_FORMATS = {"sha1": hashlib.sha1, "sha256": hashlib.sha256}


def object_format(answer: bytes) -> str:
    """The object format from ``git rev-parse --show-object-format`` output (``sha1`` when git is silent)."""
    name = answer.decode("ascii", "replace").strip() or "sha1"
    return name


def blob_oid(data: bytes, format_name: str = "sha1") -> str:
    """git's object id for a blob with these bytes, in the repository's object format."""
    digest = OBJECT_FORMATS[format_name](b"blob %d\0" % len(data))  # git's object naming, not security
    digest.update(data)
    return digest.hexdigest()


def header_text(value: str | bytes) -> str:
    """gitpython hands object headers back as bytes or str depending on version."""
    return value.decode("ascii") if isinstance(value, bytes) else value


@dataclass(frozen=True, slots=True)
class TreeEntry:
    """One path in a snapshot: a file, directory, symlink or submodule (gitlink).

    ``oid`` is the blob, tree or submodule commit id (``""`` for directories of
    the working tree); ``size`` is the blob size in bytes, ``None`` otherwise.
    """

    path: str
    oid: str
    kind: str
    size: int | None = None
