"""The ``memreport-claims/1`` schema: sources, predicates and observations from YAML nodes.

Each function validates one section with a :class:`~.nodes.Reader`, records
every problem it finds (one line each) and returns what is valid; a caller
that got problems refuses the whole file, listing them all.
"""

from __future__ import annotations

import re
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .model import (
    COVERS_FORMATS,
    IN_VALUES,
    PREDICATE_KINDS,
    SYMBOL_KINDS,
    ClaimsSource,
    Observation,
    Predicate,
    RecordClaims,
)
from .nodes import Reader, is_null, shape
from ..core.grammar import CLAIMS_SOURCE

DEFAULT_TIMEOUT = 600.0
#: the longest an observation may be given: a week
MAX_TIMEOUT = 7 * 24 * 3600.0
#: ``run`` and ``env`` size caps: the kernel's own per-argument limit (MAX_ARG_STRLEN)
MAX_COMMAND_BYTES = 128 * 1024
MAX_ENV_BYTES = 128 * 1024
#: counts compared by ``count`` stay within a signed 64-bit integer
MAX_COUNT = 2**63 - 1

_BOUNDARY_KEYS = ("path", "glob")
_PATTERN_KEYS = ("text", "regex")
_TEXT_KEYS = ("path", "glob", "text", "regex", "in", "source")
_ALLOWED_KEYS: dict[str, tuple[str, ...]] = {
    "contains": _TEXT_KEYS,
    "absent": _TEXT_KEYS + ("skip_unreadable",),
    "count": _TEXT_KEYS + ("equals", "min", "max", "skip_unreadable"),
    "symbol": ("path", "glob", "name", "kind", "source"),
    "value": ("path", "symbol", "equals", "source"),
}
OBSERVATION_KEYS = ("run", "cwd", "timeout", "env", "axis", "covers", "covers_file", "covers_format")
SOURCE_KEYS = ("repo", "pin")
ENTRY_KEYS = ("predicates", "observe")

# A source ID is ``SRC-n`` or a repository ``owner/name``.
_ENV_NAME = re.compile(r"[^=\0]+")


def source(r: Reader, sid: str, key_node: Node, node: Node) -> ClaimsSource | None:
    before = len(r.problems)
    with r.each():
        if not CLAIMS_SOURCE.fullmatch(sid):
            r.bad(key_node, f"source id {sid!r} is neither SRC-n nor owner/name; name it like the report does (SRC-1)")
    repo = pin = None
    with r.each():
        entries = r.mapping(node, f"source {sid}", SOURCE_KEYS)
        if "repo" in entries:
            with r.each():
                repo = r.string(entries["repo"][1], f"{sid} repo")
                if not repo.strip():
                    r.bad(entries["repo"][1], f"{sid} repo is empty; give a folder path")
        if "pin" in entries:
            with r.each():
                pin_node = entries["pin"][1]
                pin = r.string(pin_node, f"{sid} pin")
                if not re.fullmatch(r"[^\s~^:]+", pin):
                    r.bad(pin_node, f"{sid} pin {pin!r} is not a revision; give a commit sha")
    if len(r.problems) > before:
        return None
    return ClaimsSource(id=sid, repo=repo, pin=pin, file=r.file, line=r.line(node))


def entry(r: Reader, owner: str, line: int, node: Node) -> RecordClaims:
    """A record's (or, with ``owner == ""``, the report's) ``{predicates, observe}``."""
    what = f"record {owner}" if owner else "report"
    predicates: list[Predicate] = []
    observations: list[Observation] = []
    if is_null(node):
        return RecordClaims(owner, (), (), line)
    with r.each():
        entries = r.mapping(node, what, ENTRY_KEYS)
        if "predicates" in entries:
            with r.each():
                for i, item in enumerate(r.sequence(entries["predicates"][1], f"{owner or 'report'} predicates")):
                    found = predicate(r, item, i, owner)
                    if found is not None:
                        predicates.append(found)
        if "observe" in entries:
            with r.each():
                for i, item in enumerate(r.sequence(entries["observe"][1], f"{owner or 'report'} observe")):
                    observed = observation(r, item, i, owner)
                    if observed is not None:
                        observations.append(observed)
    return RecordClaims(owner, tuple(predicates), tuple(observations), line)


def predicates_list(r: Reader, node: SequenceNode, owner: str) -> tuple[Predicate, ...]:
    """A bare list of predicates (an inline block's older form)."""
    found = [predicate(r, item, i, owner) for i, item in enumerate(node.value)]
    return tuple(p for p in found if p is not None)


def repo_path(r: Reader, value: str, node: Node, what: str, allow_glob: bool) -> str:
    """A repository-relative path or glob, refusing anything that escapes the repository."""
    if not value or not value.strip():
        r.bad(node, f"{what} is empty; give a path relative to the repository root")
    if "\\" in value:
        r.bad(node, f"{what} {value!r} uses '\\'; write repository paths with '/'")
    if value.startswith("/") or re.match(r"[A-Za-z]:", value):
        r.bad(node, f"{what} {value!r} is absolute; write it relative to the repository root")
    if ".." in value.split("/"):
        r.bad(node, f"{what} {value!r} leaves the repository ('..'); write it relative to the repository root")
    if not allow_glob and any(ch in value for ch in "*?["):
        r.bad(node, f"{what} {value!r} has wildcards; use 'glob:' for patterns")
    if value.endswith("/") and not allow_glob and what not in ("cwd", "covers_file"):
        r.bad(node, f"{what} {value!r} names a directory; use 'glob: {value}**'")
    # git paths have no "./" or "//"; normalise so "./src/a.py" names src/a.py
    segments = [s for s in value.split("/") if s not in ("", ".")]
    if not segments:
        if what == "cwd":
            return "."
        r.bad(node, f"{what} {value!r} names the repository root; name files in it")
    return "/".join(segments) + ("/" if value.endswith("/") and allow_glob else "")


def _regex(r: Reader, value: str, node: Node) -> str:
    try:
        compiled = re.compile(value, re.MULTILINE)
    except (re.error, OverflowError, RecursionError) as exc:
        r.bad(node, f"invalid regex {value[:80]!r}: {exc}; fix the pattern")
    if compiled.fullmatch("") is not None:
        r.bad(node, f"regex {value[:80]!r} can match empty text, so it matches everywhere; "
                    "make it require at least one character")
    return value


def _count(r: Reader, node: Node, what: str) -> int:
    value = r.value(node, what)
    if isinstance(value, bool) or not isinstance(value, int):
        r.bad(node, f"{what} must be a whole number; got {shape(node)}")
    if value < 0:
        r.bad(node, f"{what} must not be negative; got {value}")
    if value > MAX_COUNT:
        r.bad(node, f"{what} {value} is out of range (at most {MAX_COUNT})")
    return value


def _boolean(r: Reader, node: Node, what: str) -> bool:
    value = r.value(node, what)
    if not isinstance(value, bool):
        r.bad(node, f"{what} must be true or false; got {shape(node)}")
    return value


def predicate(r: Reader, node: Node, index: int, owner: str) -> Predicate | None:
    """One ``<kind>: {...}`` entry, or ``None`` when it has problems (all recorded)."""
    known = ", ".join(PREDICATE_KINDS)
    before = len(r.problems)
    with r.each():
        r.check(node)
        if not isinstance(node, MappingNode) or len(node.value) != 1:
            r.bad(node, f"a predicate is one '<kind>: {{...}}' entry; kinds: {known}")
        key_node, body = node.value[0]
        r.check(key_node)
        kind = key_node.value if isinstance(key_node, ScalarNode) else None
        if kind not in _ALLOWED_KEYS:
            r.bad(key_node, f"unknown predicate kind {kind!r}; known kinds: {known}")
        line = r.line(key_node)
        entries = r.mapping(body, f"{kind} predicate", _ALLOWED_KEYS[kind])
        args: dict[str, Any] = {}
        _boundary(r, kind, line, entries, args)
        if kind in ("contains", "absent", "count"):
            _pattern(r, kind, line, entries, args)
        if kind in ("absent", "count"):  # opting out of failing closed on unread files
            if "skip_unreadable" in entries:
                with r.each():
                    if _boolean(r, entries["skip_unreadable"][1], "skip_unreadable"):
                        args["skip_unreadable"] = True
        if kind == "count":
            _bounds(r, line, entries, args)
        if kind == "symbol":
            _symbol(r, line, entries, args)
        if kind == "value":
            _value(r, line, entries, args)
        src = None
        if "source" in entries:
            with r.each():
                source_node = entries["source"][1]
                src = r.string(source_node, "source")
                if not CLAIMS_SOURCE.fullmatch(src):
                    r.bad(source_node, f"source {src!r} is neither SRC-n nor owner/name; fix it")
        if len(r.problems) > before:
            return None
        return Predicate(kind, args, r.file, line, index, owner, src)
    return None


def _require_one(r: Reader, kind: str, line: int, entries: dict, keys: tuple[str, ...]) -> str:
    present = [k for k in keys if k in entries]
    if len(present) != 1:
        got = "both " + " and ".join(present) if present else "neither"
        r.bad(line, f"{kind} predicate needs exactly one of {' or '.join(keys)} ({got} given); give one")
    return present[0]


def _require(r: Reader, kind: str, line: int, entries: dict, key: str) -> Node:
    if key not in entries:
        r.bad(line, f"{kind} predicate has no {key!r}; add '{key}: ...'")
    return entries[key][1]


def _boundary(r: Reader, kind: str, line: int, entries: dict, args: dict) -> None:
    with r.each():
        if kind == "value":
            _require(r, kind, line, entries, "path")
            boundary = "path"
        else:
            boundary = _require_one(r, kind, line, entries, _BOUNDARY_KEYS)
        node = entries[boundary][1]
        if boundary == "path":
            args["path"] = repo_path(r, r.string(node, "path"), node, "path", False)
        else:
            args["glob"] = [repo_path(r, g, node, "glob", True) for g in r.strings(node, "glob")]


def _pattern(r: Reader, kind: str, line: int, entries: dict, args: dict) -> None:
    with r.each():
        pattern = _require_one(r, kind, line, entries, _PATTERN_KEYS)
        node = entries[pattern][1]
        value = r.string(node, pattern)
        if pattern == "regex":
            value = _regex(r, value, node)
        elif not value.strip():
            r.bad(node, "text is empty; give the text to look for")
        args[pattern] = value
    args["in"] = "any"
    if "in" in entries:
        with r.each():
            node = entries["in"][1]
            where = r.string(node, "in")
            if where not in IN_VALUES:
                r.bad(node, f"in: {where!r} is not one of {', '.join(IN_VALUES)}; pick one")
            args["in"] = where


def _bounds(r: Reader, line: int, entries: dict, args: dict) -> None:
    with r.each():
        bounds = [k for k in ("equals", "min", "max") if k in entries]
        if not bounds:
            r.bad(line, "count predicate needs equals, min or max; add one")
        if "equals" in entries and len(bounds) > 1:
            r.bad(line, "count predicate has equals with min/max; use one or the other")
        for key in bounds:
            with r.each():
                args[key] = _count(r, entries[key][1], key)
        if "min" in args and "max" in args and args["min"] > args["max"]:
            r.bad(entries["max"][1], f"count max {args['max']} is below min {args['min']}; swap them")


def _symbol(r: Reader, line: int, entries: dict, args: dict) -> None:
    with r.each():
        args["name"] = _identifier(r, _require(r, "symbol", line, entries, "name"), "name")
    if "kind" in entries:
        with r.each():
            node = entries["kind"][1]
            kind = r.string(node, "kind")
            if kind not in SYMBOL_KINDS:
                r.bad(node, f"kind: {kind!r} is not a definition kind; use one of {', '.join(SYMBOL_KINDS)}")
            args["kind"] = kind


def _value(r: Reader, line: int, entries: dict, args: dict) -> None:
    with r.each():
        args["symbol"] = _identifier(r, _require(r, "value", line, entries, "symbol"), "symbol")
    with r.each():
        node = _require(r, "value", line, entries, "equals")
        if not isinstance(node, ScalarNode) or is_null(node):
            r.bad(node, f"value equals must be a number or a string; got {shape(node)}")
        if node.tag == "tag:yaml.org,2002:timestamp":
            args["equals"] = node.value  # a date-like literal: compared as written
            return
        value = r.value(node, "value equals")
        if not isinstance(value, (str, int, float, bool)):
            value = node.value  # timestamps and the like: compare them as written
        args["equals"] = value


def _identifier(r: Reader, node: Node, what: str) -> str:
    value = r.string(node, what).strip()
    if not re.fullmatch(r"[^\s()]+", value):
        r.bad(node, f"{what} {value!r} is not a symbol name; write e.g. Store.forget")
    return value


def observation(r: Reader, node: Node, index: int, owner: str) -> Observation | None:
    """One ``observe:`` entry, or ``None`` when it has problems (all recorded)."""
    before = len(r.problems)
    with r.each():
        entries = r.mapping(node, f"{owner or 'report'} observation", OBSERVATION_KEYS)
        line = r.line(node)
        run = _run(r, line, entries)
        cwd = "."
        if "cwd" in entries:
            with r.each():
                cwd_node = entries["cwd"][1]
                cwd = repo_path(r, r.string(cwd_node, "cwd"), cwd_node, "cwd", False)
        timeout = _timeout(r, entries)
        env = _env(r, entries)
        axis = "operation"
        if "axis" in entries:
            with r.each():
                axis_node = entries["axis"][1]
                axis = r.string(axis_node, "axis").strip()
                if not re.fullmatch(r"[a-z][a-z-]*", axis):
                    r.bad(axis_node, f"axis {axis!r} is not a status axis; write e.g. 'axis: operation'")
                if axis == "implementation":
                    r.bad(axis_node, "an observation cannot promote the implementation axis: running the code "
                                     "shows operation, not what the code affords; use axis: operation")
        covers, covers_file, covers_format = _covers(r, entries)
        if len(r.problems) > before:
            return None
        return Observation(run, cwd, timeout, env, axis, covers, r.file, line, index, owner,
                           covers_file, covers_format)
    return None


def _run(r: Reader, line: int, entries: dict) -> tuple[str, ...] | str:
    if "run" not in entries:
        r.bad(line, "observation has no 'run'; add the test command to run")
    node = entries["run"][1]
    run: tuple[str, ...] | str
    if isinstance(node, SequenceNode):
        run = tuple(r.strings(node, "run"))
        size = sum(len(word.encode("utf-8", "surrogatepass")) + 1 for word in run)
    else:
        run = r.string(node, "run")
        if not run.strip():
            r.bad(node, "run is empty; give the test command")
        size = len(run.encode("utf-8", "surrogatepass"))
    if size > MAX_COMMAND_BYTES:
        r.bad(node, f"run is {size} bytes long (at most {MAX_COMMAND_BYTES}); put a long command in a script "
                    "of the target and run that")
    return run


def _timeout(r: Reader, entries: dict) -> float:
    if "timeout" not in entries:
        return DEFAULT_TIMEOUT
    with r.each():
        node = entries["timeout"][1]
        value = r.value(node, "timeout")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= MAX_TIMEOUT:
            r.bad(node, f"timeout must be a positive number of seconds, at most {MAX_TIMEOUT:g}; got {shape(node)}")
        return float(value)
    return DEFAULT_TIMEOUT


def _env(r: Reader, entries: dict) -> dict[str, str]:
    env: dict[str, str] = {}
    if "env" not in entries or is_null(entries["env"][1]):
        return env
    with r.each():
        size = 0
        for key, (key_node, value_node) in r.mapping(entries["env"][1], "env", None).items():
            with r.each():
                if not _ENV_NAME.fullmatch(key):
                    r.bad(key_node, f"env name {key!r} is not a variable name (no '=', NUL or empty name); fix it")
                env[key] = r.string(value_node, f"env {key}")
                size += len(key) + len(env[key]) + 2
        if size > MAX_ENV_BYTES:
            r.bad(entries["env"][1], f"env is {size} bytes (at most {MAX_ENV_BYTES}); keep the variables short")
    return env


def _covers(r: Reader, entries: dict) -> tuple[bool, str | None, str]:
    covers = False
    if "covers" in entries:
        with r.each():
            covers = _boolean(r, entries["covers"][1], "covers")
    covers_file: str | None = None
    covers_format = "lcov"
    if "covers_format" in entries:
        with r.each():
            node = entries["covers_format"][1]
            covers_format = r.string(node, "covers_format")
            if covers_format not in COVERS_FORMATS:
                r.bad(node, f"covers_format {covers_format!r} is not one of {', '.join(COVERS_FORMATS)}")
            if "covers_file" not in entries:
                r.bad(node, "covers_format needs covers_file: the file the command writes")
    if "covers_file" in entries:
        with r.each():
            node = entries["covers_file"][1]
            covers_file = repo_path(r, r.string(node, "covers_file"), node, "covers_file", False)
            if "covers" in entries and not covers:
                r.bad(entries["covers"][1], "covers: false with covers_file; drop one of them")
            covers = True
    return covers, covers_file, covers_format
