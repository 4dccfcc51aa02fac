"""Command-line values turned into plain :class:`RunOptions`.

Kept apart from ``plugin.py`` so that the parsing of ``KEY=VALUE`` options is a
plain function with plain inputs (and tested as such), and light: the plugin
validates options in every pytest run, and imports the engine only when there
are reports to check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import OptionError  # noqa: F401 - raised here, caught by the plugin

if TYPE_CHECKING:  # imported where mappings are parsed: options stay light to import
    from .repomap import RepoMap


_SHARD = re.compile(r"^(\d+)/(\d+)$")


#: ``--memreport-against`` values that are not revisions
AGAINST_WORKTREE = "worktree"
AGAINST_NONE = "none"


@dataclass(frozen=True)
class RunOptions:
    """Everything a run is told, as plain values (parsed once by the plugin).

    In ``repos`` and ``pins`` the key ``None`` is the default for every source
    without its own entry; other keys are ``SRC-n`` ids (and, in ``pins``,
    ``owner/name``). Repositories named ``owner/name`` are found through
    ``repo_map`` (``--memreport-repo owner/name=PATH``, ini ``memreport_repos``,
    a template).
    """

    repos: dict = field(default_factory=dict)
    #: ``None``: nothing maps owner/name
    repo_map: RepoMap | None = None
    #: fail the run when any report could not be checked (``--memreport-require-checked``)
    require_checked: bool = False
    #: let a report that states a pin but could check nothing be skipped (``--memreport-allow-unchecked``)
    allow_unchecked: bool = False
    pins: dict = field(default_factory=dict)
    against: str = "HEAD"
    dialect: str | None = None
    #: claims files named on the command line (each report's own is found beside it)
    claims: tuple = ()
    #: record-ID prefixes declared elsewhere on purpose (``--memreport-external``)
    external: tuple = ()
    strict: bool = False
    #: run claims-file observations (``--memreport-run``)
    run_observations: bool = False
    #: look up every quotation's enclosing definition at the pin (for JSON); without
    #: it, drift looks it up only for files that changed since the pin
    want_symbols: bool = True
    max_file_bytes: int = 5 * 1024 * 1024
    rootdir: Path = Path(".")
    #: readers of forms third parties register (``pytest_memreport_read_forms``), ``(path, text) -> evidence``
    form_readers: tuple = ()
    #: ``evidence``: a pin and a drift item per evidence; ``record``: one item per record
    #: checking all its evidence (``--memreport-items``)
    items: str = "evidence"
    #: ``(BASE, HEAD)`` of ``--memreport-affected BASE..HEAD``: only the evidence and predicates
    #: of the target's reports that the range touches are checked, from BASE's merge base to HEAD
    affected: tuple[str, str] | None = None


def split_keyed(values: list[str] | None, option: str) -> dict:
    """``["PATH", "SRC-2=PATH2"]`` → ``{None: "PATH", "SRC-2": "PATH2"}``."""
    out: dict = {}
    if not values:
        return out
    # The grammar loads with the dialects: only a run given these options imports them.
    from .dialects.core.grammar import REPOSITORY_KEY

    for value in values:
        m = REPOSITORY_KEY.match(value)
        key, val = (m.group(1), m.group(2)) if m else (None, value)
        if not val.strip():
            example = f"{key}=VALUE" if key else "SRC-1=VALUE"
            raise OptionError(f"{option} {value!r}: nothing after the '='; give a value, e.g. {option} {example}")
        if key in out and out[key] != val:
            shown = key or "the default"
            raise OptionError(f"{option} given twice for {shown}: {out[key]!r} and {val!r}")
        out[key] = val
    return out


def parse_shard(value: str | None) -> tuple[int, int] | None:
    """``"2/4"`` → ``(2, 4)`` (1-based K of N)."""
    if not value:
        return None
    m = _SHARD.match(value.strip())
    if not m or not (1 <= int(m.group(1)) <= int(m.group(2))):
        raise OptionError(f"--memreport-shard {value!r}: give K/N with 1 <= K <= N, e.g. 1/4")
    return int(m.group(1)), int(m.group(2))


#: ``--memreport-items`` values: one item per evidence check, or one per record
ITEM_MODES = ("evidence", "record")


def parse_items(option: str | None, ini: str | None) -> str:
    """``--memreport-items`` (or, without it, the ``memreport_items`` ini key) → ``evidence`` or ``record``."""
    value, name = (option, "--memreport-items") if option is not None else (ini, "ini key memreport_items")
    mode = (value or "evidence").strip()
    if mode not in ITEM_MODES:
        raise OptionError(f"{name} {value!r}: give evidence (an item per evidence) or record (an item per record)")
    return mode


def parse_affected(option: str | None, ini: str | None) -> tuple[str, str] | None:
    """``--memreport-affected BASE..HEAD`` (or, without it, the ``memreport_affected`` ini key)
    → ``(BASE, HEAD)``; ``None`` when neither is given. ``BASE..`` means ``BASE..HEAD``."""
    value, name = (option, "--memreport-affected") if option is not None else (ini, "ini key memreport_affected")
    text = (value or "").strip()
    if not text:
        if option is not None:
            raise OptionError(f"{name}: give a range BASE..HEAD, e.g. {name} origin/main..HEAD")
        return None
    base, dots, head = text.partition("..")
    head = head or "HEAD"
    if not dots or not base.strip() or head.startswith(".") or any(c.isspace() for c in base + head):
        raise OptionError(f"{name} {value!r}: give a range BASE..HEAD (two dots), e.g. {name} origin/main..HEAD")
    return base.strip(), head.strip()


def parse_size(value: str | int | None, default: int) -> int:
    """``"5M"``, ``"512k"``, ``"1000000"`` → bytes."""
    if value in (None, ""):
        return default
    text = str(value).strip().lower()
    m = re.fullmatch(r"(\d+)\s*([kmg]?)i?b?", text)
    if not m:
        raise OptionError(f"--memreport-max-file-size {value!r}: give bytes, or a number with k/M/G")
    scale = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}[m.group(2)]
    return int(m.group(1)) * scale


def build_options(
    *,
    repos: list[str] | None,
    pins: list[str] | None,
    against: str | None,
    dialect: str | None,
    strict: bool,
    claims: list[str] | None = None,
    run_observations: bool = False,
    want_symbols: bool = True,
    external: list[str] | None = None,
    max_file_size: str | None,
    rootdir: Path,
    items: str | None = None,
    items_ini: str | None = None,
    template: str | None = None,
    template_ini: str | None = None,
    repo_lines: list[str] | None = None,
    ini_dir: Path | None = None,
    require_checked: bool = False,
    allow_unchecked: bool = False,
    affected: tuple[str, str] | None = None,
) -> RunOptions:
    """Plain :class:`RunOptions` from the raw option values.

    ``template``/``repo_lines`` from the ini file (``template_ini``,
    ``repo_lines``) are relative to ``ini_dir``; from the command line, to ``rootdir``.
    """
    given = {k: str(expand_home(v, "--memreport-repo")) for k, v in split_keyed(repos, "--memreport-repo").items()}
    named = {k: v for k, v in given.items() if k is not None and "/" in k}
    repo_map = None
    if named or repo_lines or template or template_ini:  # loaded only when used: see plugin.py
        repo_map = _repo_map(named, rootdir, ini_dir or rootdir, repo_lines or [], template, template_ini)
    return RunOptions(
        repos={k: v for k, v in given.items() if k not in named},
        repo_map=repo_map,
        require_checked=require_checked,
        allow_unchecked=allow_unchecked,
        pins=split_keyed(pins, "--memreport-pin"),
        # a range is checked from its base to its head: drift is against the head
        against=affected[1] if affected else (against or "HEAD").strip() or "HEAD",
        dialect=dialect or None,
        claims=tuple(str(Path(c)) for c in claims or ()),
        external=tuple(p.strip().rstrip("-") for p in external or () if p.strip()),
        strict=strict,
        run_observations=run_observations,
        want_symbols=want_symbols,
        max_file_bytes=parse_size(max_file_size, RunOptions().max_file_bytes),
        rootdir=rootdir,
        items=parse_items(items, items_ini),
        affected=affected,
    )


def expand_home(value: str, origin: str) -> Path:
    """``value`` as a path, a leading ``~`` expanded; :class:`OptionError` when there is no
    home directory to expand it to (no ``HOME``, and a uid with no passwd entry, as in
    some containers)."""
    try:
        return Path(value).expanduser()
    except RuntimeError:
        head = value.split("/", 1)[0]
        raise OptionError(f"{origin} {value!r}: `{head}` cannot be expanded: there is no home directory "
                          "(HOME is unset and this user has no passwd entry); give an absolute path") from None


def _repo_map(named: dict, rootdir: Path, base: Path, repo_lines: list[str], template: str | None,
              template_ini: str | None):
    """The run's ``owner/name`` mappings: command line first, then the ini file; and a template
    (the command line's, else the ini file's; relative to where it was given)."""
    from . import repomap

    mappings = tuple(repomap.Mapping(k, v if Path(v).is_absolute() else str(rootdir / v), f"--memreport-repo {k}={v}")
                     for k, v in named.items())
    mappings += repomap.parse_repo_lines(repo_lines, base, "ini key memreport_repos")
    if template:
        chosen = repomap.check_template(template, "--memreport-repo-template")
        return repomap.RepoMap(mappings, chosen, "--memreport-repo-template", rootdir)
    chosen = repomap.check_template(template_ini, "ini key memreport_repo_template")
    return repomap.RepoMap(mappings, chosen, "ini key memreport_repo_template", base)


def drift_enabled(options: RunOptions) -> bool:
    return options.against.lower() != AGAINST_NONE
