"""Which local clone a repository named ``owner/name`` is: explicit mappings, then a template.

A knowledge base cites thirty-odd repositories; giving each with its own
``--memreport-repo owner/name=PATH`` does not scale. Mappings also come from
the ini key ``memreport_repos`` (lines ``owner/name = PATH``, relative to the
ini file) and from a template (``~/src/{owner}/{name}``). Owners are spelled as
GitHub does, in any case, so keys match case-insensitively, and a template's
folder is found in another letter case when exactly one folder matches.

A template turns names a report wrote into a path, so only names GitHub
itself allows fill it (:func:`name_problem`): one path segment each, of
letters, digits, ``.``, ``-`` and ``_``, never ``.`` or ``..``. A report naming
``../secret`` (or ``%2e%2e``, decoded from a link) is refused in one line
instead of opening a folder beside the template's root.

Plain values in, plain values out; only the filesystem is read (never git).
"""

from __future__ import annotations

import os
import re
from collections.abc import Set as AbstractSet
import string
from dataclasses import dataclass
from pathlib import Path

from .model import Report
from .errors import OptionError
from .options import expand_home
from .text.render import Said

#: the keys a template may use
TEMPLATE_KEYS = ("owner", "name")

#: an owner or repository name as GitHub allows it: one path segment
_NAME_SEGMENT = re.compile(r"[A-Za-z0-9._-]+")


def name_problem(repo_id: str) -> str | None:
    """Why ``owner/name`` is not a repository name GitHub allows (so that no template
    may be filled with it), or ``None`` when it is one."""
    owner, slash, name = repo_id.partition("/")
    if slash and all(_NAME_SEGMENT.fullmatch(part) and part not in (".", "..") for part in (owner, name)):
        return None
    return (f"{repo_id!r} is not a GitHub owner/name (each is one path segment of letters, digits, '.', '-' "
            "and '_', and not '.' or '..'): correct the repository URL in the report")


@dataclass(frozen=True)
class Mapping:
    """One explicit ``owner/name → PATH``, and where it was given (for messages)."""

    key: str
    path: str
    origin: str


@dataclass(frozen=True)
class Lookup:
    """Where a repository was looked for: ``path`` when found, else ``problem`` in one line."""

    path: Path | None
    origin: str
    problem: str | None = None


def check_template(template: str | None, option: str) -> str | None:
    """The template if it uses only ``{owner}`` and ``{name}``; raises :class:`OptionError`."""
    if template is None or not template.strip():
        return None
    try:
        fields = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(template) if f is not None]
    except ValueError as exc:
        raise OptionError(f"{option} {template!r}: {exc}; give a path with {{owner}} and {{name}}") from None
    for name, spec, conv in fields:
        if name not in TEMPLATE_KEYS:
            shown = "{" + (name or "") + "}"
            raise OptionError(f"{option} {template!r}: unknown key {shown}; use {{owner}} and {{name}}, "
                              "e.g. ~/src/{owner}/{name}")
        if spec or conv:
            raise OptionError(f"{option} {template!r}: give {{{name}}} plainly (no format or conversion)")
    if "{name}" not in template:
        raise OptionError(f"{option} {template!r}: give {{name}} (and usually {{owner}}), e.g. ~/src/{{owner}}/{{name}}")
    home = template.strip().split("/", 1)[0]
    if home.startswith("~") and "{" not in home:
        expand_home(template.strip(), option)  # no home to fill it from: a usage error before the run
    return template.strip()


def parse_repo_lines(lines: list[str], base: Path, origin: str) -> tuple[Mapping, ...]:
    """Ini lines ``owner/name = PATH`` (blank lines and ``#`` comments skipped); relative
    paths are relative to ``base`` (the ini file's folder)."""
    out: list[Mapping] = []
    seen: dict[str, Mapping] = {}
    for raw in lines:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition("=")
        key, value = key.strip(), value.strip()
        owner, slash, name = key.partition("/")
        if not sep or not slash or not owner or not name or "/" in name or " " in key:
            raise OptionError(f"{origin}: {line!r} is not `owner/name = PATH`; give one mapping per line, "
                              "e.g. acme/widget = ../clones/widget")
        if not value:
            raise OptionError(f"{origin}: {key} has no path; give `{key} = PATH`")
        path = expand_home(value, f"{origin}: {key} =")
        mapping = Mapping(key, str(path if path.is_absolute() else base / path), f"{origin} ({key})")
        earlier = seen.get(key.casefold())
        if earlier is not None and earlier.path != mapping.path:
            raise OptionError(f"{origin}: {key} is mapped twice ({earlier.path} and {mapping.path})")
        seen[key.casefold()] = mapping
        out.append(mapping)
    return tuple(out)


def find_on_disk(path: Path) -> tuple[Path | None, str | None]:
    """``path``, or the one path that differs from it only in letter case; else why not."""
    try:
        return _find_on_disk(path)
    except OSError as exc:  # a name too long for the file system, a loop of links
        return None, f"{path}: {(exc.strerror or str(exc)).lower()}"


def _find_on_disk(path: Path) -> tuple[Path | None, str | None]:
    if path.exists():
        return path, None
    parts = path.parts
    current = Path(parts[0])
    for part in parts[1:]:
        following = current / part
        if following.exists():
            current = following
            continue
        try:
            names = sorted(n for n in os.listdir(current) if n.casefold() == part.casefold())
        except OSError:
            names = []
        if len(names) == 1:
            current = current / names[0]
            continue
        if names:
            return None, f"{path} does not exist, and {len(names)} folders match it in another letter case " \
                         f"({', '.join(names)})"
        return None, f"{path} does not exist"
    return current, None


class RepoMap:
    """Explicit mappings (first given wins) and an optional template, looked up by ``owner/name``."""

    def __init__(self, mappings: tuple[Mapping, ...] = (), template: str | None = None,
                 template_origin: str = "--memreport-repo-template", template_base: Path = Path(".")) -> None:
        self.mappings = mappings
        self.template = template
        self.template_origin = template_origin
        self.template_base = template_base
        self._by_key: dict[str, Mapping] = {}
        for mapping in mappings:
            self._by_key.setdefault(mapping.key.casefold(), mapping)
        self._cache: dict[str, Lookup | None] = {}

    def __bool__(self) -> bool:
        return bool(self.mappings or self.template)

    def mapping(self, repo_id: str) -> Mapping | None:
        return self._by_key.get(repo_id.casefold())

    def lookup(self, repo_id: str) -> Lookup | None:
        """Where ``owner/name`` is checked out; ``None`` when nothing maps it at all."""
        key = repo_id.casefold()
        if key not in self._cache:
            self._cache[key] = self._lookup(repo_id)
        return self._cache[key]

    def _lookup(self, repo_id: str) -> Lookup | None:
        mapping = self.mapping(repo_id)
        if mapping is not None:
            return Lookup(Path(mapping.path), mapping.origin)
        if self.template is None or "/" not in repo_id:
            return None
        origin = f"{self.template_origin} {self.template}"
        problem = name_problem(repo_id)
        if problem is not None:
            return Lookup(None, origin, problem)  # never a path outside the template's folders
        owner, name = repo_id.split("/", 1)
        try:
            formatted = expand_home(self.template.format(owner=owner, name=name), origin)
        except OptionError as exc:  # a ``~{owner}`` no user of that name fills
            return Lookup(None, origin, str(exc))
        if not formatted.is_absolute():
            formatted = self.template_base / formatted
        found, problem = find_on_disk(formatted)
        if found is None:
            return Lookup(None, origin, f"{problem} (from {origin})")
        return Lookup(found, origin)

    def suggestion(self, repo_id: str, named: AbstractSet[str] = frozenset()) -> str | None:
        """The repository closest to an unmapped ``owner/name`` (a typo) among the explicit
        mappings and those of ``named`` that this map finds a clone for."""
        from rapidfuzz import fuzz, process

        keys = {m.key.casefold(): m.key for m in self.mappings}
        for other in sorted(named):
            found = self.lookup(other) if other.casefold() != repo_id.casefold() else None
            if found is not None and found.path is not None:
                keys.setdefault(other.casefold(), other)
        keys.pop(repo_id.casefold(), None)
        if not keys:
            return None
        best = process.extractOne(repo_id.casefold(), sorted(keys), scorer=fuzz.ratio, score_cutoff=80)
        return keys[best[0]] if best else None

    def unused(self, used: set[str]) -> list[Mapping]:
        """Explicit mappings no loaded report names (compared case-insensitively)."""
        wanted = {u.casefold() for u in used}
        return [m for key, m in self._by_key.items() if key not in wanted]


def repo_id(report: Report, source_id: str | None) -> str | None:
    """The ``owner/name`` a source names: a review's repository, or its URL's."""
    from .dialects.core.links import repository_of  # here: the plugin loads this module without reports

    if source_id is not None and "/" in source_id:
        return source_id
    source = report.source(source_id)
    if source is not None and getattr(source, "repository", None):  # what the report (or its run) names
        return source.repository
    named = repository_of(source.url) if source is not None and source.url else None
    return named[0] if named else None


def repositories_named(report: Report) -> set[str]:
    """Every ``owner/name`` the report's sources and evidence name."""
    named = {repo_id(report, source.id) for source in report.sources}
    named |= {e.source for e in report.all_evidence() if e.source and "/" in e.source}
    return {n for n in named if n}


def no_clone(report_path: str, source_id: str, found: Lookup | None, repo_map: RepoMap | None,
             close: str | None) -> Said:
    """One line: which repository has no clone, where it was looked for, what is close, what to give.

    ``report_path`` may carry the line that names the repository (``report.md:3``)."""
    if found is not None and found.problem is not None and name_problem(source_id) is not None:
        return Said(report_path, None, found.problem)  # no mapping or template can fix the name
    where = f": {found.problem}" if found is not None and found.problem else ""
    hint = ""
    close_found = repo_map.lookup(close) if close and repo_map is not None else None
    if close and close_found is not None:
        hint = f"; did you mean {close} (found by {close_found.origin})?"
    fix = f"give --memreport-repo {source_id}=PATH"
    if not (repo_map and repo_map.template):
        fix += " or --memreport-repo-template TEMPLATE"
    return Said(report_path, None, f"no local clone for {source_id}{where}{hint}; {fix}")
