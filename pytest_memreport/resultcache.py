"""Check results kept across runs, so a rerun whose targets did not change reads no blob.

The directory comes from pytest's own cache (``config.cache.mkdir``), so
``--cache-clear`` empties it and ``-p no:cacheprovider`` turns it off; this
module itself knows nothing of pytest (the engine and the benchmarks use it).

**Keys.** A result is stored under a digest of everything it is a function of:

* the evidence's own text (kind, path, quotation, cited lines, symbol and its
  context files; not its report line, which no check reads);
* the pin commit, and for drift the against commit: a commit id names its tree
  and, transitively, every blob and the first-parent history a check can read
  (rename following walks commits, so tree ids alone would not do);
* the options that change results (symbols wanted, the file-size limit, the
  checked reports inside the target);
* the code: this package's sources and the versions of the libraries that
  match (tree-sitter and its grammars, rapidfuzz, markdown-it-py).

The working tree has no commit id: drift against ``worktree`` is never cached.
Results that say git could not read something (a missing object, a failed
search) are never stored: fetching the object changes them under the same key.

**Files.** Each process appends what it computed to its own file, written
whole and renamed into place at the end of the run (pytest-xdist workers never
write the same file); a process reads every file on its first lookup. The
controlling process folds the files into one when there are many.

**Values** are JSON: the project's own frozen dataclasses and enums, tagged
with their class and rebuilt only if that class is one of this package's.
Nothing is unpickled, so a cache file cannot run code.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import importlib
import json
import os
import sys
import threading
import uuid
from pathlib import Path

#: bump when the key or file format changes
FORMAT = 1
#: fold the files into one when a run finds more than this many
_FOLD_AT = 8
#: at most this many results are kept when the files are folded (the newest win)
_MAX_KEPT = 250_000
#: the installed libraries whose versions change what a check finds (dist-info folder names)
_LIBRARIES = ("rapidfuzz-*.dist-info", "markdown_it_py-*.dist-info", "tree_sitter*.dist-info")
_PACKAGE = __name__.rsplit(".", 1)[0]


def code_identity() -> str:
    """A digest of this package's sources and the matching libraries' installed versions."""
    digest = hashlib.sha256(f"memreport-results/{FORMAT}".encode())
    root = Path(__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
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
        digest.update("\n".join(found).encode())
    return digest.hexdigest()[:24]


# -- values --------------------------------------------------------------------------


def encode(value):
    """A result as JSON-able data (dataclasses and enums of this package, tuples, frozensets)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, enum.Enum):
        return {"e": _class_name(value), "v": value.value}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}
        return {"d": _class_name(value), "f": fields}
    if isinstance(value, tuple):
        return {"t": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, frozenset):
        return {"s": sorted((encode(v) for v in value), key=repr)}
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"m": {k: encode(v) for k, v in value.items()}}
    raise TypeError(f"cannot keep a {type(value).__name__} in the result cache")


def decode(data):
    """The inverse of :func:`encode`; ``ValueError`` for anything it did not write."""
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict) or len(data) not in (1, 2):
        raise ValueError("not a cached value")
    if "d" in data:
        cls = _own_class(data["d"])
        if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
            raise ValueError(f"{data['d']} is not a dataclass")
        return cls(**{k: decode(v) for k, v in data["f"].items()})
    if "e" in data:
        cls = _own_class(data["e"])
        if not (isinstance(cls, type) and issubclass(cls, enum.Enum)):
            raise ValueError(f"{data['e']} is not an enum")
        return cls(data["v"])
    if "t" in data:
        return tuple(decode(v) for v in data["t"])
    if "s" in data:
        return frozenset(decode(v) for v in data["s"])
    if "m" in data:
        return {k: decode(v) for k, v in data["m"].items()}
    raise ValueError("not a cached value")


def _class_name(value) -> str:
    cls = type(value)
    return f"{cls.__module__}:{cls.__qualname__}"


@functools.lru_cache(maxsize=256)
def _own_class(name: str):
    """A class of this package by ``module:qualname``; anything else is refused."""
    module, _, qualname = str(name).partition(":")
    if not (module == _PACKAGE or module.startswith(_PACKAGE + ".")) or not qualname:
        raise ValueError(f"{name} is not a class of {_PACKAGE}")
    found = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


# -- the cache -----------------------------------------------------------------------


def evidence_key(evidence) -> str:
    """A digest of what of a piece of evidence a check reads: everything but where it
    sits in the report (a digest keeps the keys built from it short to write and hash)."""
    fields = [encode(getattr(evidence, f.name)) for f in dataclasses.fields(evidence)
              if f.name not in ("line", "end_line")]
    text = json.dumps(fields, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


class ResultCache:
    """Results by key, read from and written to one directory (see the module's doc).

    ``directory`` is a callable giving the folder (pytest's cache is asked only
    when a result is first looked up), or a path; ``None`` makes a cache that
    keeps nothing (``-p no:cacheprovider``). A key of ``None`` (nothing to key
    by: the working tree) is never found and never stored.
    """

    #: what :meth:`get` gives for a result it does not have
    MISS = object()

    def __init__(self, directory=None, identity: str | None = None) -> None:
        self.enabled = directory is not None
        self._directory = directory
        self._identity = identity
        self._lock = threading.Lock()
        self._known: dict[str, object] | None = None
        self._new: dict[str, object] = {}
        self._files: list[Path] = []
        self.hits = 0
        self.misses = 0

    @property
    def directory(self) -> Path:
        if callable(self._directory):
            self._directory = Path(self._directory())
        return Path(self._directory)

    def key(self, *parts) -> str | None:
        """The digest of ``parts`` with the code's identity; ``None`` when disabled or
        a part cannot be keyed (then nothing is looked up or stored)."""
        if not self.enabled:
            return None
        if self._identity is None:
            self._identity = code_identity()
        try:
            text = json.dumps([self._identity, *parts], separators=(",", ":"), ensure_ascii=False)
        except TypeError:
            return None
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:40]

    _ABSENT = object()

    def get(self, key: str | None, default=_ABSENT):
        """The stored result under ``key`` (decoded), or ``default`` (then counted as a miss)."""
        if key is None:
            return None if default is self._ABSENT else default
        with self._lock:
            known = self._load()
            data = self._new.get(key, known.get(key, self._ABSENT))
        if data is not self._ABSENT:
            try:
                value = decode(data)
            except (ValueError, TypeError, AttributeError, ImportError):
                value = self._ABSENT  # written by other code: compute afresh
            if value is not self._ABSENT:
                self.hits += 1
                return value
        self.misses += 1
        return None if default is self._ABSENT else default

    def has(self, key: str | None) -> bool:
        """Whether a result is stored under ``key`` (not counted)."""
        if key is None:
            return False
        with self._lock:
            return key in self._new or key in self._load()

    def put(self, key: str | None, value) -> None:
        """Keep ``value`` under ``key`` (written by :meth:`save`), unless it says git could
        not read something (fetching the object changes it under the same key) or is
        not a value this cache can hold."""
        if key is None or getattr(value, "status", None) == "unreadable":
            return
        try:
            data = encode(value)
        except TypeError:
            return
        with self._lock:
            self._new[key] = data

    def _load(self) -> dict:
        if self._known is None:
            self._known = {}
            try:
                folder = self.directory
                files = sorted(folder.glob("results-*.json"), key=lambda p: p.stat().st_mtime)
            except OSError:
                files = []
            for path in files:
                try:
                    data = json.loads(path.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    continue  # half-deleted by another run's fold, or damaged: ignored
                if isinstance(data, dict) and data.get("format") == FORMAT and isinstance(data.get("results"), dict):
                    self._known.update(data["results"])
                    self._files.append(path)
        return self._known

    def release(self) -> None:
        """Forget what was read (after :meth:`save`): a later lookup reads the files again."""
        with self._lock:
            self._known = None
            self._files = []

    def _count_files(self) -> int:
        try:
            return sum(1 for _ in self.directory.glob("results-*.json"))
        except OSError:
            return 0

    def save(self, fold: bool = False) -> None:
        """Write what this process computed to a file of its own; with ``fold``
        (the controlling process), fold every file read into one when there are many."""
        if not self.enabled:
            return
        with self._lock:
            if fold and self._known is None and self._count_files() > _FOLD_AT:
                self._load()  # the xdist controller looked nothing up: its workers wrote the files
            if not self._new and not (fold and len(self._files) > _FOLD_AT):
                return
            try:
                folder = self.directory
                folder.mkdir(parents=True, exist_ok=True)
            except OSError:
                return
            results = dict(self._new)
            folding = fold and len(self._files) + 1 > _FOLD_AT
            if folding:
                results = {**(self._known or {}), **results}
                if len(results) > _MAX_KEPT:
                    results = dict(list(results.items())[-_MAX_KEPT:])
            _write_atomic(folder / f"results-{uuid.uuid4().hex}.json", {"format": FORMAT, "results": results})
            if folding:
                for path in self._files:
                    try:
                        path.unlink()
                    except OSError:
                        pass
                self._files = []
            self._new.clear()


def _write_atomic(path: Path, data: dict) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        # ASCII escapes keep lone surrogates (undecodable paths) writable.
        temporary.write_text(json.dumps(data, separators=(",", ":")), encoding="ascii")
        os.replace(temporary, path)
    except OSError:
        try:
            temporary.unlink()
        except OSError:
            pass
