"""Where a path as an analyst wrote it lies in the pinned tree.

Analysis runs cite ``index.ts:94`` (a bare name), ``think/index.ts:282`` (a
partial path), ``.../widgets/README.md`` (elided), ``src/widgets`` (a folder
without its slash) and ``/home/ana/src/widgets/src/a.ts`` (the analyst's
checkout). :func:`resolve` finds the one path of the tree they name: inside
the subject subtree first, then as written, then by a unique suffix (the
subject subtree deciding between several, then the folders of the files cited
beside it); a path with a leading slash is the repository root's when the tree
has it, else the analyst's checkout, mapped by its longest suffix that exists.
Pure: a :class:`TreeIndex` is built from the snapshot's file list by the caller.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TreeIndex:
    """A commit's files and folders, and both by their last name."""

    files: frozenset[str]
    dirs: frozenset[str]
    by_name: dict

    @classmethod
    def build(cls, files: list[str]) -> "TreeIndex":
        dirs: set[str] = set()
        for path in files:
            parts = path.split("/")
            for end in range(1, len(parts)):
                dirs.add("/".join(parts[:end]))
        by_name: dict[str, list[str]] = {}
        for path in list(files) + sorted(dirs):
            by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
        return cls(frozenset(files), frozenset(dirs), by_name)

    def has(self, path: str, want: str) -> bool:
        """``want``: ``file``, ``dir`` or ``any``."""
        if want == "file":
            return path in self.files
        if want == "dir":
            return path in self.dirs
        return path in self.files or path in self.dirs

    def top_exists(self, path: str, subject: str | None) -> bool:
        """Whether the path's first folder exists at the root or in the subject subtree."""
        head = path.strip("/").split("/", 1)[0]
        if not head:
            return False
        if "/" not in path.strip("/"):
            return bool(self.by_name.get(head))  # a bare name: anywhere at all
        return head in self.dirs or (subject is not None and f"{subject}/{head}" in self.dirs)


@dataclass(frozen=True)
class Resolution:
    """What a written path names: ``path`` (or ``None``), the candidates when
    several, and ``how`` it was found (for ``-v`` and failure text)."""

    path: str | None
    candidates: tuple[str, ...] = ()
    how: str = ""


def resolve(index: TreeIndex, written: str, want: str = "any", subject: str | None = None,
            absolute: bool = False, near: tuple[str, ...] = (), checkouts: tuple[str, ...] = ()) -> Resolution:
    """The path ``written`` names in ``index`` (see the module text). ``near``: the other
    files cited in the same cell or sentence; where a bare or partial name has several
    candidates, the one beside them is meant (``src/core/queue.ts:4` and `worker.ts:9``).
    ``checkouts``: the names the repository's checkout folder may have (``typeshed``): a
    path written from above it (``typeshed/stdlib/os.pyi``) is read from its root."""
    if absolute:
        return _longest_suffix(index, written, want)
    path = written.strip("/")
    if not path:
        return Resolution(None)
    subject = subject.strip("/") if subject else None
    if subject and not path.startswith(subject + "/") and index.has(f"{subject}/{path}", want):
        return Resolution(f"{subject}/{path}", how=f"in the subject subtree {subject}")
    if index.has(path, want):
        return Resolution(path, how="as written")
    name = path.rsplit("/", 1)[-1]
    candidates = [c for c in index.by_name.get(name, ()) if c.endswith("/" + path) and index.has(c, want)]
    if subject:
        inside = [c for c in candidates if c.startswith(subject + "/")]
        if len(inside) == 1:
            return Resolution(inside[0], tuple(candidates), how=f"the one match in the subject subtree {subject}")
        if inside:
            candidates = inside + [c for c in candidates if c not in inside]
    if len(candidates) > 1 and near:
        closest = _closest(index, candidates, near)
        if closest is not None:
            return Resolution(closest, tuple(candidates), how="the one match nearest the files cited with it")
    if len(candidates) == 1:
        return Resolution(candidates[0], how="the one path of the pinned tree ending so")
    if not candidates and "/" in path:
        head, rest = path.split("/", 1)
        if head.casefold() in {name.casefold() for name in checkouts} and not index.has(head, "dir") \
                and index.has(rest, want):
            return Resolution(rest, how=f"the checkout folder {head}/ read as the repository root")
    return Resolution(None, tuple(candidates))


def _closest(index: TreeIndex, candidates: list[str], near: tuple[str, ...]) -> str | None:
    """The one candidate whose folder shares the most leading folders with the folder of
    a ``near`` file (``src/core/worker.ts`` beside ``src/core/handlers/weigh.ts``, not
    ``src/legacy/worker.ts``); failing that, the one whose folder also holds every bare
    name cited with it (`` `queue.ts`, `worker.ts` ``: the folder that has both); else ``None``."""
    folders = [other.strip("/").split("/")[:-1] for other in near if "/" in other.strip("/")]
    names = [other for other in near if "/" not in other.strip("/")]

    def shared(candidate: str) -> int:
        mine = candidate.split("/")[:-1]
        best = 0
        for theirs in folders:
            count = 0
            for a, b in zip(mine, theirs):
                if a != b:
                    break
                count += 1
            best = max(best, count)
        return best

    if folders:
        scored = sorted(((shared(c), c) for c in candidates), reverse=True)
        if scored[0][0] and (len(scored) == 1 or scored[1][0] < scored[0][0]):
            return scored[0][1]
    if names:
        together = [c for c in candidates
                    if all(index.has(f"{c.rsplit('/', 1)[0]}/{name}" if "/" in c else name, "any") for name in names)]
        if len(together) == 1:
            return together[0]
    return None


def _longest_suffix(index: TreeIndex, written: str, want: str) -> Resolution:
    """An absolute path: the leading slash as the repository root when the rest is a path
    of the tree (``/.github/workflows/``, ``/scripts/``: the writer's "top level"), else
    the analyst's checkout, mapped by its longest suffix in the tree."""
    parts = [p for p in written.split("/") if p]
    if parts and index.has("/".join(parts), want):
        return Resolution("/".join(parts), how="the leading slash read as the repository root")
    for start in range(1, len(parts)):
        candidate = "/".join(parts[start:])
        if index.has(candidate, want):
            root = "/" + "/".join(parts[:start])
            return Resolution(candidate, how=f"the checkout {root} read as the repository root "
                                             "(longest suffix in the pinned tree)")
    return Resolution(None)
