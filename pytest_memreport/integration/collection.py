"""Which report files a run checks, and how pytest is given them.

:func:`find_reports` expands what ``--memreport`` (and the ini key) name into the
report files, in order: globs and folders expanded, ``--ignore``, ``--ignore-glob``
and ``collect_ignore`` honoured, one report under two names kept once, under the
name it was given first.

:class:`CollectionPlan` then says what pytest collects. Each report is one
argument of pytest's, whose collection matches every argument against the
nodes of its folder: a folder of thousands of reports as thousands of arguments
costs the square of their number. Reports are given to pytest by folder
instead: one argument per folder that holds reports, collected by a
:class:`ReportFolder`, which yields exactly the run's reports in it (and the
folders below it that hold more), in one pass. A folder's name is also an
argument pytest can always read, where a report's own name may not be
(``std::vector notes.md`` reads as a node id, ``[draft].md`` as a
parametrization).

A folder that the run's own test arguments reach (``pytest tests/ --memreport
tests/notes/``, or a test argument inside a report folder) is left to pytest's
collection, with the reports given one by one as before, so those tests are
collected as pytest would collect them.

This module is imported only by a run that names reports: it loads nothing of
the engine (:class:`ReportFolder` imports the items when it collects).
"""

from __future__ import annotations

import fnmatch
import glob
import os
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ..text.render import valid_unicode

_GLOB = re.compile(r"[*?\[]")
#: pytest 8 collects folders with ``pytest.Directory`` nodes (before, reports are arguments one by one)
FOLDER_COLLECTORS = hasattr(pytest, "Directory")
#: what pytest reads in a collection argument rather than as part of its path
_ARGUMENT_SYNTAX = re.compile(r"::|\[")


@dataclass(frozen=True)
class Found:
    """The reports a run checks (named as given: relative to where pytest runs when
    inside it), the warnings met on the way (``(path, message)``), and the names
    that could not be looked at (``(path, one line)``: a name too long for the
    file system)."""

    paths: list[Path]
    notes: list[tuple[Path, str]] = field(default_factory=list)
    unreadable: list[tuple[Path, str]] = field(default_factory=list)


def find_reports(config: pytest.Config, given: list[Path]) -> Found:
    """Every report ``given`` names, in the order given."""
    here = config.invocation_params.dir
    out: list[Path] = []
    notes: list[tuple[Path, str]] = []
    unreadable: list[tuple[Path, str]] = []
    seen: set[Path] = set()
    for path in given:
        for candidate in _expand(config, path, _base_of(path), notes, unreadable):
            # Reports are named relative to where pytest runs, as the user typed them.
            if candidate.is_absolute() and candidate.is_relative_to(here):
                candidate = candidate.relative_to(here)
            # One report under two names (a symlink, ``latest.md -> a.md``) is one report.
            try:
                real = candidate.resolve()
            except OSError as exc:
                unreadable.append((candidate, _os_problem(exc)))
                continue
            if real not in seen:
                seen.add(real)
                out.append(candidate)
    return Found(out, notes, unreadable)


def _base_of(path: Path) -> Path:
    """The folder a given path's relative ``--ignore`` values are read against when it
    lies outside where pytest runs: the folder given, a file's own folder, or what
    precedes a glob's first pattern character."""
    text = str(path)
    match = _GLOB.search(text)
    if match and not _exists(path):
        return Path(os.path.dirname(text[:match.start()]) or ".")
    return path if _is_dir(path) else (path.parent if str(path.parent) else Path("."))


def _exists(path: Path) -> bool:
    try:
        return path.exists() or path.is_symlink()
    except OSError:
        return False


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def _os_problem(exc: OSError) -> str:
    """One line for a name the file system refuses (too long, a loop of links)."""
    reason = exc.strerror or str(exc)
    return f"cannot be looked at ({reason.lower()}); give a shorter path, or rename the file"


def _expand(config: pytest.Config, path: Path, base: Path, notes: list, unreadable: list) -> list[Path]:
    try:
        exists = path.exists() or path.is_symlink()
        is_dir = path.is_dir()
    except OSError as exc:  # a name too long for the file system, say
        unreadable.append((path, _os_problem(exc)))
        return []
    if not exists and _GLOB.search(str(path)):
        matches = sorted(Path(m) for m in glob.glob(str(path), recursive=True))
        if not matches:
            raise pytest.UsageError(f"--memreport {path}: the pattern matches no file or folder")
        return [found for match in matches for found in _expand(config, match, base, notes, unreadable)]
    if not is_dir:
        return [] if ignored(config, path, base) else [path]
    found = []
    for root, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if not ignored(config, Path(root) / d, base))
        for name in sorted(files):
            candidate = Path(root) / name
            if not name.endswith(".md") or ignored(config, candidate, base):
                continue
            if not candidate.exists():
                notes.append((candidate, "a symbolic link to nothing; not checked"))
                continue
            found.append(candidate)
    return found


def ignored(config: pytest.Config, path: Path, base: Path | None = None) -> bool:
    """Whether ``path`` is left out: pytest's own answer (``--ignore``, ``--ignore-glob``,
    ``collect_ignore``, ``norecursedirs``); and, for a path outside the folder pytest
    runs in, a relative ``--ignore`` or ``--ignore-glob`` read against ``base`` (the
    folder the report was named in). pytest reads them against where it runs, so
    ``--ignore-glob='*.replaced.*'`` would never match a report named by an absolute
    path elsewhere."""
    absolute = Path(os.path.abspath(path))
    if config.hook.pytest_ignore_collect(collection_path=absolute, config=config):
        return True
    here = config.invocation_params.dir
    if base is None or absolute.is_relative_to(here):
        return False
    root = Path(os.path.abspath(base))
    if any(not os.path.isabs(value) and absolute == Path(os.path.abspath(root / value))
           for value in config.getoption("ignore") or ()):
        return True
    return any(not os.path.isabs(value) and fnmatch.fnmatch(str(absolute), str(root / value))
               for value in config.getoption("ignore_glob") or ())


def _argument_path(arg: str, here: Path) -> Path:
    """The path part of a pytest argument (``tests/test_x.py::test_y[1]``), absolute."""
    return Path(os.path.abspath(here / arg.partition("[")[0].split("::")[0]))


class CollectionPlan:
    """What pytest is given for the run's reports, and what collects them.

    ``names`` are the reports' absolute names as given (symbolic links not followed:
    ``latest.md`` is collected as ``latest.md``); ``args`` what pytest collects;
    ``children`` what each :class:`ReportFolder` yields (report files, and folders
    below holding more).
    """

    def __init__(self, paths: list[Path], here: Path, test_args: list[str]) -> None:
        self.names = [Path(os.path.abspath(here / p)) for p in paths]
        self.wanted = frozenset(self.names)
        tests = [_argument_path(arg, here) for arg in test_args]
        by_folder: dict[Path, list[Path]] = defaultdict(list)
        for name in self.names:
            by_folder[name.parent].append(name)
        self.args: list[str] = []
        #: folder -> (report files in it, folders in it holding reports), for ReportFolder
        self.children: dict[Path, tuple[list[Path], set[Path]]] = {}
        self.folders: set[Path] = set()
        for folder, names in by_folder.items():
            if not FOLDER_COLLECTORS or any(t == folder or t.is_relative_to(folder) or folder.is_relative_to(t)
                                            for t in tests):
                # The run's tests reach this folder: pytest collects it as usual; each report is
                # an argument (a name pytest would misread: the folder, walked by pytest).
                for name in names:
                    arg = str(folder) if _ARGUMENT_SYNTAX.search(name.name) else str(name)
                    if arg not in self.args:
                        self.args.append(arg)
                continue
            self.folders.add(folder)
            self.args.append(str(folder))
        for folder in self.folders:
            self._index(folder, by_folder[folder])

    def _index(self, folder: Path, names: list[Path]) -> None:
        files, _ = self.children.setdefault(folder, ([], set()))
        files.extend(names)
        child = folder
        for parent in folder.parents:  # up to the file system's root: each folder once
            entry = self.children.setdefault(parent, ([], set()))
            if child in entry[1]:
                break
            entry[1].add(child)
            child = parent

    def collects(self, path: Path) -> bool:
        """Whether ``path`` (a folder pytest reaches) is collected by a :class:`ReportFolder`:
        a report folder, or one below a report folder on the way to more reports."""
        return path in self.folders or (path in self.children and any(
            folder in self.folders for folder in path.parents))


def node_id(path: Path, rootpath: Path) -> str | None:
    """A node id for a report or folder outside the rootdir (pytest would name one that is
    itself an argument ``""``, and its items ``::structure``): its path from the rootdir.
    A name that is not UTF-8 is escaped (``r\\xfe.md``), as pytest writes node ids to its
    cache as UTF-8."""
    if path.is_relative_to(rootpath):
        relative = path.relative_to(rootpath).as_posix()
        shown = valid_unicode(relative)
        return shown if shown != relative else None
    return valid_unicode(Path(os.path.relpath(path, rootpath)).as_posix())


class ReportFolder(getattr(pytest, "Directory", pytest.Collector)):  # type: ignore[misc]
    """A folder of reports: yields the run's reports in it and the folders below it that
    hold more, from the run's list, in one pass (no other file of the folder is looked at)."""

    def collect(self):
        from .items import MemreportFile

        plan = self.config.stash[PLAN_KEY]
        files, folders = plan.children.get(self.path, ((), ()))
        # a folder's own reports first, then its folders' (as the reports are listed)
        entries = [(MemreportFile, p) for p in sorted(files)] + [(ReportFolder, p) for p in sorted(folders)]
        rootpath = self.config.rootpath
        for kind, path in entries:
            nodeid = node_id(path, rootpath)
            yield kind.from_parent(self, path=path, nodeid=nodeid) if nodeid else kind.from_parent(self, path=path)


PLAN_KEY = pytest.StashKey[CollectionPlan]()


#: collection errors of the run (pytest counts them as failures before any item runs)
COLLECTION_ERRORS_KEY = pytest.StashKey[int]()


def run_state_of(session: pytest.Session):
    """Whether the run went to its end (see :func:`..outputs.results.run_state`)."""
    from ..outputs.results import run_state

    return run_state(session.exitstatus, session.config.stash.get(COLLECTION_ERRORS_KEY, 0))
