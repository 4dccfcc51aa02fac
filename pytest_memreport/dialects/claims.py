"""Claims files (``memreport-claims/1``) and inline ```memreport blocks.

A claims file sits beside a report (``<report stem>.claims.yaml``) and turns a
record's prose into executable checks: *predicates* over the target's source
(``contains``, ``absent``, ``count``, ``symbol``, ``value``) and *observations*
(target test runs, executed elsewhere). The schema is documented in
``docs/CLAIMS.md``.

Loading goes through PyYAML's node API rather than ``safe_load`` so every
predicate and observation keeps the file and line it was written on: a failing
check must point at the line the author has to fix. Every problem with the
input becomes a :class:`ClaimsError` whose message is one line,
``file:line: what is wrong; what to do``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .inputs import MAX_CLAIMS_BYTES, InputRefused, read_regular

if TYPE_CHECKING:
    from ..model import Report

#: The schema string this module reads. New optional keys keep ``/1``; any
#: change in the meaning of an existing key bumps the version.
SCHEMA = "memreport-claims/1"

#: Predicate kinds, in the order the documentation presents them.
PREDICATE_KINDS: tuple[str, ...] = ("contains", "absent", "count", "symbol", "value")

#: Where in a file a text predicate looks (``any`` is the default).
IN_VALUES: tuple[str, ...] = ("code", "comments", "strings", "any")

#: Suffix that makes a report's claims file: ``memory.md`` -> ``memory.claims.yaml``.
CLAIMS_SUFFIX = ".claims.yaml"

_DEFAULT_TIMEOUT = 600.0

# Keys each predicate kind accepts. ``source`` and ``in`` are handled apart.
_BOUNDARY_KEYS = ("path", "glob")
_PATTERN_KEYS = ("text", "regex")
_ALLOWED_KEYS: dict[str, tuple[str, ...]] = {
    "contains": ("path", "glob", "text", "regex", "in", "source"),
    "absent": ("path", "glob", "text", "regex", "in", "source"),
    "count": ("path", "glob", "text", "regex", "in", "equals", "min", "max", "source"),
    "symbol": ("path", "glob", "name", "kind", "source"),
    "value": ("path", "symbol", "equals", "source"),
}
_OBSERVATION_KEYS = ("run", "cwd", "timeout", "env", "axis", "covers")
_SOURCE_KEYS = ("repo", "pin")
_RECORD_KEYS = ("predicates", "observe")
_TOP_KEYS = ("schema", "sources", "records")

# A source ID is ``SRC-n`` or a repository ``owner/name``.
_SOURCE_ID = re.compile(r"SRC-\d+|[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
# Record IDs are PREFIX-KIND-slug; kept loose so a typo is reported by
# ``unknown_records`` (which can name the declared IDs) rather than here.
_RECORD_ID = re.compile(r"[A-Za-z][A-Za-z0-9]*-[A-Za-z]+-\S+")


class ClaimsError(Exception):
    """Bad claims input. ``message`` is one line: ``file:line: problem; fix``."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class ClaimsSource:
    """A source repository named by a claims file (``SRC-1: {repo, pin}``).

    ``repo`` is as written (relative to the claims file); ``repo_path`` is it
    resolved against the claims file's folder.
    """

    id: str
    repo: str | None
    pin: str | None
    file: str
    line: int

    @property
    def repo_path(self) -> Path | None:
        if self.repo is None:
            return None
        return (Path(self.file).parent / self.repo).resolve()


@dataclass(frozen=True)
class Predicate:
    """One executable check of a record, from a claims file or an inline block.

    ``args`` is plain and JSON-able, normalised: ``glob`` is always a list,
    text predicates always carry ``in``. ``index`` is the predicate's position
    in its record's list (0-based), ``source`` the repository it applies to
    (``None``: the report's default source).
    """

    kind: str
    args: dict[str, Any] = field(hash=False)
    file: str
    line: int
    index: int
    record_id: str
    source: str | None = None

    @property
    def name(self) -> str:
        """The item-name fragment: ``absent@L12``."""
        return f"{self.kind}@L{self.line}"

    @property
    def where(self) -> str:
        """The ``in:`` restriction (``any`` for predicates without one)."""
        return self.args.get("in", "any")


@dataclass(frozen=True)
class Observation:
    """A target test run that would observe a record's behaviour.

    Parsed and kept here; running it is another module's job. ``run`` is a
    shell string or an argument tuple; ``cwd`` is relative to the target
    repository's root.
    """

    run: tuple[str, ...] | str
    cwd: str
    timeout: float
    env: dict[str, str] = field(hash=False)
    axis: str
    covers: bool
    file: str
    line: int
    index: int
    record_id: str

    @property
    def name(self) -> str:
        return f"observe@L{self.line}"


@dataclass(frozen=True)
class RecordClaims:
    """Everything a claims file says about one record."""

    record_id: str
    predicates: tuple[Predicate, ...]
    observations: tuple[Observation, ...]
    line: int


@dataclass(frozen=True)
class ClaimsFile:
    """A loaded claims file."""

    path: str
    sources: tuple[ClaimsSource, ...]
    records: dict[str, RecordClaims] = field(hash=False)

    def source(self, source_id: str) -> ClaimsSource | None:
        for src in self.sources:
            if src.id == source_id:
                return src
        return None


# --------------------------------------------------------------------------- finding


def claims_path_for(report_path: str | Path) -> Path:
    """Where a report's claims file lives: beside it, ``<stem>.claims.yaml``."""
    report = Path(report_path)
    return report.with_name(report.stem + CLAIMS_SUFFIX)


def find_claims(report_path: str | Path) -> ClaimsFile | None:
    """Load the claims file beside ``report_path``, or ``None`` if there is none."""
    candidate = claims_path_for(report_path)
    if not candidate.exists():  # one that exists but is no file is refused by load_claims
        return None
    return load_claims(candidate)


def load_claims(path: str | Path) -> ClaimsFile:
    """Read and validate a claims file; raises :class:`ClaimsError`."""
    path = Path(path)
    try:
        data = read_regular(path, MAX_CLAIMS_BYTES)
    except InputRefused as refused:
        raise ClaimsError(f"{path}:1: claims file {refused.reason}; give a claims YAML file") from None
    except OSError as exc:
        raise ClaimsError(f"{path}:1: cannot read claims file ({exc.strerror}); check the path") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ClaimsError(
            f"{path}:1: claims file is not UTF-8 (byte {exc.start}); save it as UTF-8"
        ) from None
    return parse_claims(text, str(path))


def parse_claims(text: str, path: str) -> ClaimsFile:
    """Validate claims-file ``text`` (named ``path`` in messages)."""
    root = _compose(text, path, first_line=1)
    where = _Where(path, 1)
    if root is None:
        raise ClaimsError(f"{path}:1: claims file is empty; start it with 'schema: {SCHEMA}'")
    top = _mapping(root, where, "the claims file", _TOP_KEYS)
    if "schema" not in top:
        raise ClaimsError(f"{where.at(root)}: no 'schema' key; add 'schema: {SCHEMA}' as the first line")
    schema_node = top["schema"][1]
    schema = _string(schema_node, where, "schema")
    if schema != SCHEMA:
        raise ClaimsError(
            f"{where.at(schema_node)}: unsupported schema {schema!r}; this version of "
            f"pytest-memreport reads {SCHEMA!r}"
        )
    sources: list[ClaimsSource] = []
    if "sources" in top:
        sources_node = top["sources"][1]
        for sid, (key_node, value_node) in _mapping(sources_node, where, "sources", None).items():
            if not _SOURCE_ID.fullmatch(sid):
                raise ClaimsError(
                    f"{where.at(key_node)}: source id {sid!r} is neither SRC-n nor owner/name; "
                    "name it like the report does (SRC-1)"
                )
            sources.append(_source(sid, value_node, where))
    records: dict[str, RecordClaims] = {}
    if "records" in top:
        records_node = top["records"][1]
        if not _is_null(records_node):
            for rid, (key_node, value_node) in _mapping(records_node, where, "records", None).items():
                records[rid] = _record(rid, key_node, value_node, where)
    return ClaimsFile(path=path, sources=tuple(sources), records=records)


def parse_inline(block_text: str, report_path: str, first_line: int, record_id: str) -> tuple[Predicate, ...]:
    """Parse a ```memreport fenced block of a Markdown report into predicates.

    ``block_text`` is the block's YAML (a list of predicates); ``first_line``
    is the report line of its first line, so every predicate points at its
    own report line. Fence lines (```` ```memreport ```` / ```` ``` ````) are
    tolerated and skipped, keeping the line mapping right.
    """
    lines = block_text.split("\n")
    if lines and lines[0].lstrip().startswith(("```", "~~~")):
        lines = lines[1:]
        first_line += 1
    if lines and lines[-1].strip() in ("```", "~~~"):
        lines = lines[:-1]
    text = "\n".join(lines)
    where = _Where(report_path, first_line)
    root = _compose(text, report_path, first_line=first_line)
    if root is None:
        raise ClaimsError(
            f"{report_path}:{first_line}: empty memreport block for {record_id}; "
            "list predicates in it, e.g. '- contains: {path: a.py, text: x}'"
        )
    if not isinstance(root, SequenceNode):
        raise ClaimsError(
            f"{where.at(root)}: a memreport block must be a YAML list of predicates; "
            "start each predicate with '- '"
        )
    return tuple(_predicate(node, index, record_id, where) for index, node in enumerate(root.value))


def unknown_records(claims: Iterable[ClaimsFile], declared_ids: Iterable[str]) -> list[tuple[str, int, str]]:
    """Records named by claims files that no loaded report declares.

    Returns ``(claims file, line, record id)`` in file and line order; such
    predicates would otherwise never run, silently.
    """
    declared = set(declared_ids)
    missing: list[tuple[str, int, str]] = []
    for claims_file in claims:
        for rid, record in claims_file.records.items():
            if rid not in declared:
                missing.append((claims_file.path, record.line, rid))
    return sorted(missing)


def describe_unknown_record(file: str, line: int, record_id: str, declared_ids: Iterable[str]) -> str:
    """The one-line message for an entry of :func:`unknown_records`, with the
    nearest declared ID as a suggestion when one is close."""
    from rapidfuzz import process

    suggestion = ""
    choices = sorted(set(declared_ids))
    if choices:
        best = process.extractOne(record_id, choices, score_cutoff=80)
        if best is not None:
            suggestion = f" (did you mean {best[0]}?)"
    return (
        f"{file}:{line}: no loaded report declares {record_id}{suggestion}; "
        "fix the ID or load the report that declares it"
    )


# --------------------------------------------------------------------------- YAML nodes


@dataclass(frozen=True)
class _Where:
    """Maps a node's 0-based mark onto a file line."""

    file: str
    first_line: int

    def line(self, node: Node) -> int:
        return node.start_mark.line + self.first_line

    def at(self, node: Node) -> str:
        return f"{self.file}:{self.line(node)}"


def _compose(text: str, path: str, first_line: int) -> Node | None:
    try:
        return yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = (mark.line if mark is not None else 0) + first_line
        problem = " ".join(str(exc.problem or exc.context or "invalid YAML").split())
        raise ClaimsError(
            f"{path}:{line}: malformed YAML ({problem}); fix the YAML syntax at this line"
        ) from None
    except yaml.YAMLError as exc:
        problem = " ".join(str(exc).split())
        raise ClaimsError(f"{path}:{first_line}: malformed YAML ({problem}); fix the YAML syntax") from None
    except RecursionError:
        # PyYAML recurses once per nesting level: thousands of "[" exhaust the stack.
        raise ClaimsError(f"{path}:{first_line}: the YAML nests too deeply to read; simplify it") from None


def _is_null(node: Node) -> bool:
    return isinstance(node, ScalarNode) and node.tag == "tag:yaml.org,2002:null"


def _mapping(
    node: Node, where: _Where, what: str, allowed: tuple[str, ...] | None
) -> dict[str, tuple[Node, Node]]:
    """A mapping node's entries by key, refusing duplicates and unknown keys."""
    if not isinstance(node, MappingNode):
        raise ClaimsError(f"{where.at(node)}: {what} must be a mapping (key: value); got {_shape(node)}")
    entries: dict[str, tuple[Node, Node]] = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
            raise ClaimsError(f"{where.at(key_node)}: keys of {what} must be plain names; write 'name: value'")
        key = key_node.value
        if key in entries:
            raise ClaimsError(
                f"{where.at(key_node)}: duplicate key {key!r} in {what} "
                f"(first at line {where.line(entries[key][0])}); keep one"
            )
        if allowed is not None and key not in allowed:
            raise ClaimsError(
                f"{where.at(key_node)}: unknown key {key!r} in {what}; allowed keys: {', '.join(allowed)}"
            )
        entries[key] = (key_node, value_node)
    return entries


def _shape(node: Node) -> str:
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list"
    if _is_null(node):
        return "nothing"
    return f"{node.value!r}"


def _string(node: Node, where: _Where, what: str) -> str:
    """A scalar as written (``pin: 1234567`` stays the string ``"1234567"``)."""
    if not isinstance(node, ScalarNode) or _is_null(node):
        raise ClaimsError(f"{where.at(node)}: {what} must be a string; got {_shape(node)}")
    return node.value


def _strings(node: Node, where: _Where, what: str) -> list[str]:
    """One string or a non-empty list of strings."""
    if isinstance(node, SequenceNode):
        if not node.value:
            raise ClaimsError(f"{where.at(node)}: {what} is an empty list; give at least one")
        return [_string(item, where, what) for item in node.value]
    return [_string(node, where, what)]


_SCALAR_CONSTRUCTOR = yaml.SafeLoader("")


def _scalar_value(node: ScalarNode) -> Any:
    """A scalar as YAML types it (``8_000`` is the int 8000)."""
    return _SCALAR_CONSTRUCTOR.construct_object(node, deep=True)


def _count(node: Node, where: _Where, what: str) -> int:
    value = _scalar_value(node) if isinstance(node, ScalarNode) else None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ClaimsError(f"{where.at(node)}: {what} must be a whole number; got {_shape(node)}")
    if value < 0:
        raise ClaimsError(f"{where.at(node)}: {what} must not be negative; got {value}")
    return value


def _repo_path(value: str, node: Node, where: _Where, what: str, allow_glob: bool) -> str:
    """A repository-relative path or glob, refusing anything that escapes the repository."""
    if not value or not value.strip():
        raise ClaimsError(f"{where.at(node)}: {what} is empty; give a path relative to the repository root")
    if "\\" in value:
        raise ClaimsError(f"{where.at(node)}: {what} {value!r} uses '\\'; write repository paths with '/'")
    if value.startswith("/") or re.match(r"[A-Za-z]:", value):
        raise ClaimsError(
            f"{where.at(node)}: {what} {value!r} is absolute; write it relative to the repository root"
        )
    if ".." in value.split("/"):
        raise ClaimsError(
            f"{where.at(node)}: {what} {value!r} leaves the repository ('..'); "
            "write it relative to the repository root"
        )
    if not allow_glob and any(ch in value for ch in "*?["):
        raise ClaimsError(f"{where.at(node)}: {what} {value!r} has wildcards; use 'glob:' for patterns")
    if value.endswith("/") and not allow_glob and what != "cwd":
        raise ClaimsError(f"{where.at(node)}: {what} {value!r} names a directory; use 'glob: {value}**'")
    # git paths have no "./" or "//"; normalise so "./src/a.py" names src/a.py
    segments = [s for s in value.split("/") if s not in ("", ".")]
    if not segments:
        if what == "cwd":
            return "."
        raise ClaimsError(f"{where.at(node)}: {what} {value!r} names the repository root; name files in it")
    return "/".join(segments) + ("/" if value.endswith("/") and allow_glob else "")


def _regex(value: str, node: Node, where: _Where) -> str:
    try:
        compiled = re.compile(value, re.MULTILINE)
    except re.error as exc:
        raise ClaimsError(f"{where.at(node)}: invalid regex {value!r}: {exc}; fix the pattern") from None
    if compiled.fullmatch("") is not None:
        raise ClaimsError(
            f"{where.at(node)}: regex {value!r} can match empty text, so it matches everywhere; "
            "make it require at least one character"
        )
    return value


# --------------------------------------------------------------------------- sections


def _source(sid: str, node: Node, where: _Where) -> ClaimsSource:
    entries = _mapping(node, where, f"source {sid}", _SOURCE_KEYS)
    repo = pin = None
    if "repo" in entries:
        repo = _string(entries["repo"][1], where, f"{sid} repo")
        if not repo.strip():
            raise ClaimsError(f"{where.at(entries['repo'][1])}: {sid} repo is empty; give a folder path")
    if "pin" in entries:
        pin_node = entries["pin"][1]
        pin = _string(pin_node, where, f"{sid} pin")
        if not re.fullmatch(r"[^\s~^:]+", pin):
            raise ClaimsError(f"{where.at(pin_node)}: {sid} pin {pin!r} is not a revision; give a commit sha")
    return ClaimsSource(id=sid, repo=repo, pin=pin, file=where.file, line=where.line(node))


def _record(rid: str, key_node: Node, node: Node, where: _Where) -> RecordClaims:
    if not _RECORD_ID.fullmatch(rid):
        raise ClaimsError(
            f"{where.at(key_node)}: {rid!r} is not a record ID; use the report's ID, e.g. MEM-CLM-some-slug"
        )
    predicates: tuple[Predicate, ...] = ()
    observations: tuple[Observation, ...] = ()
    if not _is_null(node):
        entries = _mapping(node, where, f"record {rid}", _RECORD_KEYS)
        if "predicates" in entries:
            items = _sequence(entries["predicates"][1], where, f"{rid} predicates")
            predicates = tuple(_predicate(item, i, rid, where) for i, item in enumerate(items))
        if "observe" in entries:
            items = _sequence(entries["observe"][1], where, f"{rid} observe")
            observations = tuple(_observation(item, i, rid, where) for i, item in enumerate(items))
    return RecordClaims(rid, predicates, observations, where.line(key_node))


def _sequence(node: Node, where: _Where, what: str) -> list[Node]:
    if _is_null(node):
        return []
    if not isinstance(node, SequenceNode):
        raise ClaimsError(f"{where.at(node)}: {what} must be a list; start each item with '- '")
    return list(node.value)


def _predicate(node: Node, index: int, record_id: str, where: _Where) -> Predicate:
    known = ", ".join(PREDICATE_KINDS)
    if not isinstance(node, MappingNode) or len(node.value) != 1:
        raise ClaimsError(
            f"{where.at(node)}: a predicate is one '<kind>: {{...}}' entry; kinds: {known}"
        )
    key_node, body = node.value[0]
    kind = key_node.value if isinstance(key_node, ScalarNode) else None
    if kind not in _ALLOWED_KEYS:
        raise ClaimsError(f"{where.at(key_node)}: unknown predicate kind {kind!r}; known kinds: {known}")
    entries = _mapping(body, where, f"{kind} predicate", _ALLOWED_KEYS[kind])
    args: dict[str, Any] = {}
    line = where.line(key_node)

    def require_one(keys: tuple[str, ...]) -> str:
        present = [k for k in keys if k in entries]
        if len(present) != 1:
            got = "both " + " and ".join(present) if present else "neither"
            raise ClaimsError(
                f"{where.file}:{line}: {kind} predicate needs exactly one of {' or '.join(keys)} ({got} given); "
                f"give one"
            )
        return present[0]

    def require(key: str) -> Node:
        if key not in entries:
            raise ClaimsError(f"{where.file}:{line}: {kind} predicate has no {key!r}; add '{key}: ...'")
        return entries[key][1]

    if kind == "value":
        boundary = "path"
        require("path")
    else:
        boundary = require_one(_BOUNDARY_KEYS)
    boundary_node = entries[boundary][1]
    if boundary == "path":
        args["path"] = _repo_path(_string(boundary_node, where, "path"), boundary_node, where, "path", False)
    else:
        args["glob"] = [
            _repo_path(g, boundary_node, where, "glob", True) for g in _strings(boundary_node, where, "glob")
        ]

    if kind in ("contains", "absent", "count"):
        pattern = require_one(_PATTERN_KEYS)
        pattern_node = entries[pattern][1]
        value = _string(pattern_node, where, pattern)
        if pattern == "regex":
            value = _regex(value, pattern_node, where)
        elif not value.strip():
            raise ClaimsError(f"{where.at(pattern_node)}: text is empty; give the text to look for")
        args[pattern] = value
        args["in"] = "any"
        if "in" in entries:
            in_node = entries["in"][1]
            where_value = _string(in_node, where, "in")
            if where_value not in IN_VALUES:
                raise ClaimsError(
                    f"{where.at(in_node)}: in: {where_value!r} is not one of {', '.join(IN_VALUES)}; pick one"
                )
            args["in"] = where_value
    if kind == "count":
        bounds = [k for k in ("equals", "min", "max") if k in entries]
        if not bounds:
            raise ClaimsError(f"{where.file}:{line}: count predicate needs equals, min or max; add one")
        if "equals" in entries and len(bounds) > 1:
            raise ClaimsError(f"{where.file}:{line}: count predicate has equals with min/max; use one or the other")
        for key in bounds:
            args[key] = _count(entries[key][1], where, key)
        if "min" in args and "max" in args and args["min"] > args["max"]:
            raise ClaimsError(
                f"{where.at(entries['max'][1])}: count max {args['max']} is below min {args['min']}; swap them"
            )
    if kind == "symbol":
        args["name"] = _identifier(require("name"), where, "name")
        if "kind" in entries:
            args["kind"] = _string(entries["kind"][1], where, "kind")
    if kind == "value":
        args["symbol"] = _identifier(require("symbol"), where, "symbol")
        equals_node = require("equals")
        if not isinstance(equals_node, ScalarNode) or _is_null(equals_node):
            raise ClaimsError(
                f"{where.at(equals_node)}: value equals must be a number or a string; got {_shape(equals_node)}"
            )
        args["equals"] = _scalar_value(equals_node)
        if not isinstance(args["equals"], (str, int, float, bool)):
            # timestamps and the like: compare them as written
            args["equals"] = equals_node.value

    source = None
    if "source" in entries:
        source_node = entries["source"][1]
        source = _string(source_node, where, "source")
        if not _SOURCE_ID.fullmatch(source):
            raise ClaimsError(f"{where.at(source_node)}: source {source!r} is neither SRC-n nor owner/name; fix it")
    return Predicate(kind, args, where.file, line, index, record_id, source)


def _identifier(node: Node, where: _Where, what: str) -> str:
    value = _string(node, where, what).strip()
    if not re.fullmatch(r"[^\s()]+", value):
        raise ClaimsError(f"{where.at(node)}: {what} {value!r} is not a symbol name; write e.g. Store.forget")
    return value


def _observation(node: Node, index: int, record_id: str, where: _Where) -> Observation:
    entries = _mapping(node, where, f"{record_id} observation", _OBSERVATION_KEYS)
    line = where.line(node)
    if "run" not in entries:
        raise ClaimsError(f"{where.file}:{line}: observation has no 'run'; add the test command to run")
    run_node = entries["run"][1]
    run: tuple[str, ...] | str
    if isinstance(run_node, SequenceNode):
        run = tuple(_strings(run_node, where, "run"))
    else:
        run = _string(run_node, where, "run")
        if not run.strip():
            raise ClaimsError(f"{where.at(run_node)}: run is empty; give the test command")
    cwd = "."
    if "cwd" in entries:
        cwd_node = entries["cwd"][1]
        cwd = _repo_path(_string(cwd_node, where, "cwd"), cwd_node, where, "cwd", False)
    timeout = _DEFAULT_TIMEOUT
    if "timeout" in entries:
        timeout_node = entries["timeout"][1]
        value = _scalar_value(timeout_node) if isinstance(timeout_node, ScalarNode) else None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise ClaimsError(
                f"{where.at(timeout_node)}: timeout must be a positive number of seconds; got {_shape(timeout_node)}"
            )
        timeout = float(value)
    env: dict[str, str] = {}
    if "env" in entries:
        env_node = entries["env"][1]
        if not _is_null(env_node):
            for key, (_, value_node) in _mapping(env_node, where, "env", None).items():
                env[key] = _string(value_node, where, f"env {key}")
    axis = "operation"
    if "axis" in entries:
        axis = _string(entries["axis"][1], where, "axis")
    covers = False
    if "covers" in entries:
        covers_node = entries["covers"][1]
        value = _scalar_value(covers_node) if isinstance(covers_node, ScalarNode) else None
        if not isinstance(value, bool):
            raise ClaimsError(f"{where.at(covers_node)}: covers must be true or false; got {_shape(covers_node)}")
        covers = value
    return Observation(run, cwd, timeout, env, axis, covers, where.file, line, index, record_id)


def inline_predicates(report: "Report") -> dict[str, tuple[Predicate, ...]]:
    """The predicates of every ```memreport block of a parsed report, by record.

    An annotation's block checks the annotated record. Raises
    :class:`ClaimsError` at the first bad block (its report line).
    """
    found: dict[str, list[Predicate]] = {}
    for record in report.records:
        for block in record.inline_predicates:
            found.setdefault(record.id, []).extend(parse_inline(block.text, report.path, block.line, record.id))
    return {rid: tuple(preds) for rid, preds in found.items()}


def merge_predicates(*sources: Mapping[str, Iterable[Predicate]]) -> dict[str, tuple[Predicate, ...]]:
    """Predicates by record from several origins (claims files, inline blocks), in order."""
    merged: dict[str, list[Predicate]] = {}
    for mapping in sources:
        for rid, predicates in mapping.items():
            merged.setdefault(rid, []).extend(predicates)
    return {rid: tuple(preds) for rid, preds in merged.items()}
