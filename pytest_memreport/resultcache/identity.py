"""What every kept result is also a function of, besides its own inputs: the code.

A result is kept under a key naming its inputs (the evidence, the commits); these
are the rest, the same for every result of a run, digested once per process:

* this package's sources (a digest of every ``.py`` file: an edit to a check
  changes what it finds, whatever the version number says);
* the installed versions of the libraries that match (rapidfuzz, markdown-it-py,
  tree-sitter and its grammars), from their ``dist-info`` folders' names;
* the git executable that answers (its resolved path, size and modification
  time: an upgraded git may diff, detect renames or list trees otherwise). Read
  with one ``stat``, so keying costs no git process.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import sys
from pathlib import Path

#: the installed libraries whose versions change what a check finds (dist-info folder names)
_LIBRARIES = ("rapidfuzz-*.dist-info", "markdown_it_py-*.dist-info", "tree_sitter*.dist-info")


@functools.cache
def code_identity() -> str:
    """A digest of this package's sources and the matching libraries' installed versions."""
    digest = hashlib.sha256(b"memreport-code")
    root = Path(__file__).resolve().parent.parent
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode("utf-8", "surrogateescape") + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"unreadable")
    # The dist-info folders' names carry the versions (tree-sitter's grammars are
    # many packages): a few directory listings, not importlib.metadata's scan of
    # every installed distribution.
    for entry in sys.path:
        try:
            folder = Path(entry or ".")
            if not folder.is_dir():
                continue
            found = sorted(p.name for pattern in _LIBRARIES for p in folder.glob(pattern))
        except OSError:
            continue
        digest.update("\n".join(found).encode("utf-8", "surrogateescape"))
    return digest.hexdigest()[:32]


def git_identity() -> str:
    """The git executable that ``git`` on ``PATH`` runs (as :mod:`..gitstore.process`
    starts it), by resolved path, size and modification time; ``"none"`` without one."""
    found = shutil.which("git")
    if found is None:
        return "none"
    try:
        real = os.path.realpath(found)
        stat = os.stat(real)
    except OSError:
        return f"unreadable:{found}"
    return f"{real}:{stat.st_size}:{stat.st_mtime_ns}"
