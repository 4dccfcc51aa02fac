"""A claims file moves with its report: predicate paths and globs of renamed files,
and a pin the claims file states for a re-pinned source.

Predicates keep the line they start on; the path or glob is looked for from
there to the next predicate of the same file (a predicate may be written over
several YAML lines). A glob is rewritten when the folder its literal prefix
names was moved as a whole (every renamed file under it went to one new
folder, keeping its place below it); a glob over a folder only partly moved is
left as written.
"""

from __future__ import annotations

import re
from ...dialects.core.grammar import folder_prefix
from ...runcaches import run_cached

from ..lineindex import CharEdit, LineIndex
from .citations import occurrences
from .shas import sha_changes
from .target import RepinTarget

_GLOB_CHARS = re.compile(r"[*?\[]")


def literal_prefix(glob: str) -> str:
    """The folder a glob's literal leading segments name (``src/store`` of ``src/store/**``)."""
    literal = []
    for segment in glob.rstrip("/").split("/"):
        if not segment or _GLOB_CHARS.search(segment):
            break
        literal.append(segment)
    return "/".join(literal)


def moved_folder(folder: str, files: dict[str, str]) -> str | None:
    """Where ``folder`` went, when every renamed file below it went to one new folder."""
    if not folder:
        return None
    prefix = folder + "/"
    targets = set()
    for old, new in files.items():
        if old.startswith(prefix):
            rest = old[len(prefix):]
            if not new.endswith("/" + rest):
                return None
            targets.add(new[: -len(rest) - 1])
    return targets.pop() if len(targets) == 1 else None


@run_cached(maxsize=1024)
def _folder_pattern(folder: str) -> re.Pattern:
    return folder_prefix(folder)


def claims_changes(index: LineIndex, predicates, files: dict[str, str], target: RepinTarget | None,
                   sources=()) -> tuple[list[CharEdit], list[str]]:
    """Edits of one claims file (indexed by ``index``) for ``predicates`` written in it."""
    changes: list[CharEdit] = []
    messages: list[str] = []
    starts = sorted({p.line for p in predicates})
    for predicate in predicates:
        later = [line for line in starts if line > predicate.line]
        last = min(later[0] - 1 if later else len(index), predicate.line + 40)
        path = predicate.args.get("path")
        if isinstance(path, str) and path in files:
            found = _replace_path(index, predicate.line, last, path, files[path])
            changes.extend(found)
            if found:
                messages.append(f"{predicate.file}:{predicate.line}: {path} -> {files[path]}")
        for glob in predicate.args.get("glob") or ():
            folder = literal_prefix(glob)
            if folder == glob and folder in files:  # a glob naming one file
                found = _replace_path(index, predicate.line, last, folder, files[folder])
                changes.extend(found)
                if found:
                    messages.append(f"{predicate.file}:{predicate.line}: {glob} -> {files[folder]}")
                continue
            new_folder = moved_folder(folder, files)
            if new_folder is None or new_folder == folder:
                continue
            found = []
            for number in range(predicate.line, last + 1):
                text = index.text(number) or ""
                for m in _folder_pattern(folder).finditer(text):
                    found.append(CharEdit(number, m.start(), m.end(), new_folder, "re-pin glob"))
            changes.extend(found)
            if found:
                messages.append(f"{predicate.file}:{predicate.line}: {glob} -> {new_folder}{glob[len(folder):]}")
    if target is not None:
        for source in sources:
            pinned = target.source_for(source.id, None)
            if source.pin and pinned is not None:
                # ``SRC-1: {pin: abc}`` or ``SRC-1:`` with ``pin: abc`` on a line below it
                found = []
                for number in range(source.line, min(source.line + 3, len(index)) + 1):
                    found.extend(sha_changes(number, index.text(number) or "", target))
                changes.extend(found)
                if found:
                    messages.append(f"{source.file}:{source.line}: {source.id} pin {source.pin} -> "
                                    f"{target.new_of(pinned)[:12]}")
    return changes, messages


def _replace_path(index: LineIndex, first: int, last: int, old: str, new: str) -> list[CharEdit]:
    out = []
    for number in range(first, last + 1):
        text = index.text(number) or ""
        for occ in occurrences(text, old):
            out.append(CharEdit(number, occ.start, occ.end, new, "re-pin path"))
    return out
