"""Results as JSON and back, driven by each dataclass's fields and type hints.

One generic codec, not one per result type: a value is written as its declared
type says (a field ``lines: LineRange | None`` as ``null`` or ``{"start": .., "end": ..}``)
and read back by the same declaration, so what comes back is an equal object of the
same type: enums (also those that are ``str`` subclasses) as members, tuples as
tuples, frozensets as frozensets, nested dataclasses as themselves. A union of
several types carries the index of its member.

Writing refuses (:class:`NotKeepable`) anything its declaration does not describe
exactly: an ``int`` in a ``float`` field, a subclass in place of its class, a tuple
under ``Any``. Reading refuses (:class:`Unreadable`) anything this module did not
write for that type. Classes are never named by the data: the top-level type comes
from :data:`kept_types`, a fixed list, so a cache file cannot make this code build
anything else. Readers follow the declared types, never the data's depth.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
import types
import typing
from typing import Any, Callable

from ..errors import MemreportError


class NotKeepable(MemreportError, TypeError):
    """A value its declared type does not describe (it is not written)."""

    code = "MR401"


class Unreadable(MemreportError, ValueError):
    """Data that is not what :func:`dump` writes for the type asked for."""

    code = "MR402"


_NoneType = type(None)
#: the types that are their own JSON data, and their own key data (:func:`key_data`)
PRIMITIVES = (str, int, float, bool)


def dump(value, hint) -> Any:
    """``value`` as JSON-able data, as its declared type ``hint`` says."""
    return _codec(hint)[0](value)


def load(data, hint) -> Any:
    """The value :func:`dump` wrote as ``data`` for ``hint``; :class:`Unreadable` otherwise."""
    try:
        return _codec(hint)[1](data)
    except Unreadable:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, IndexError) as exc:
        # a constructor's own check (LineRange's start <= end), an enum with no such value
        raise Unreadable(str(exc)) from None


# -- the kept values: one list of top-level types ----------------------------------------


@functools.cache
def kept_types() -> dict[str, type]:
    """Every result type the cache keeps, by the name written beside its data."""
    from ..checks.drift.results import DriftResult
    from ..checks.observe.results import ObservationResult
    from ..checks.predicates import PredicateResult
    from ..checks.quotesites import Holding
    from ..checks.verify import PinResult
    from ..engine.reports import ParsedReport
    from ..model import Evidence

    # Evidence: a symbol reference resolved to the file that defines it (or None);
    # ParsedReport: a report as parsed, keyed by its folder's bytes; Holding: which of
    # the files a row cites holds its quotation
    return {cls.__name__: cls for cls in (PinResult, DriftResult, Evidence, PredicateResult, ObservationResult,
                                          ParsedReport, Holding)}


def dump_value(value) -> str:
    """A kept result (one of :func:`kept_types`, or ``None``) as JSON text."""
    if value is None:
        return "null"
    name = type(value).__name__
    if kept_types().get(name) is not type(value):
        raise NotKeepable(f"a {name} is not a result the cache keeps")
    try:
        # ASCII escapes keep lone surrogates (undecodable paths) writable.
        return json.dumps([name, dump(value, type(value))], separators=(",", ":"), ensure_ascii=True,
                          allow_nan=False)
    except ValueError:  # NaN or infinity: not JSON
        raise NotKeepable("a float JSON cannot hold") from None


def load_value(text: str):
    """The inverse of :func:`dump_value`; :class:`Unreadable` for anything else."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError, TypeError) as exc:  # RecursionError: hostile nesting
        raise Unreadable(f"not JSON: {type(exc).__name__}") from None
    if data is None:
        return None
    if not (isinstance(data, list) and len(data) == 2 and isinstance(data[0], str)):
        raise Unreadable("not a kept result")
    cls = kept_types().get(data[0])
    if cls is None:
        raise Unreadable(f"{data[0]!r} is not a result the cache keeps")
    return load(data[1], cls)


def key_data(value) -> Any:
    """``value`` as JSON-able data for a cache key, by its own type; a value the codec
    cannot describe falls back to its ``repr`` (a key only has to be deterministic)."""
    try:
        return dump(value, type(value))
    except NotKeepable:
        return {"repr": repr(value)}


# -- codecs, compiled once per type ---------------------------------------------------------

_Codec = tuple[Callable[[Any], Any], Callable[[Any], Any]]


@functools.lru_cache(maxsize=None)
def _codec(hint) -> _Codec:
    if hint is None or hint is _NoneType:
        return _none_codec()
    if hint is Any or hint is object:
        return _json_codec()
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is typing.Union or origin is types.UnionType:
        return _union_codec(args)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return _enum_codec(hint)
    if hint in PRIMITIVES:
        return _primitive_codec(hint)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _dataclass_codec(hint)
    if hint is tuple or origin is tuple:
        return _tuple_codec(args)
    if hint in (frozenset, set) or origin in (frozenset, set):
        return _set_codec(origin or hint, args[0] if args else Any)
    if hint is list or origin is list:
        return _list_codec(args[0] if args else Any)
    if hint is dict or origin is dict:
        return _dict_codec(*(args or (str, Any)))
    raise NotKeepable(f"no codec for {hint!r}")


def _none_codec() -> _Codec:
    def write(value):
        if value is not None:
            raise NotKeepable(f"{value!r} where None is declared")
        return None

    def read(data):
        if data is not None:
            raise Unreadable("expected null")
        return None

    return write, read


def _primitive_codec(hint: type) -> _Codec:
    def write(value):
        if type(value) is not hint:  # exact: True is no int, an enum member no str
            raise NotKeepable(f"a {type(value).__name__} where {hint.__name__} is declared")
        return value

    if hint is float:
        def read(data):
            if type(data) is float:
                return data
            if type(data) is int:  # JSON writes 2.0 as 2.0, but be lenient with integral floats
                return float(data)
            raise Unreadable("expected a number")
    else:
        def read(data):
            if type(data) is not hint:
                raise Unreadable(f"expected {hint.__name__}")
            return data

    return write, read


def _enum_codec(cls: type[enum.Enum]) -> _Codec:
    def write(value):
        if type(value) is not cls:
            raise NotKeepable(f"a {type(value).__name__} where {cls.__name__} is declared")
        inner = value.value
        if type(inner) not in PRIMITIVES:
            raise NotKeepable(f"{cls.__name__} has a value JSON cannot hold")
        return inner

    def read(data):
        if type(data) not in PRIMITIVES:
            raise Unreadable(f"expected a {cls.__name__} value")
        return cls(data)

    return write, read


def _union_codec(members: tuple) -> _Codec:
    optional = _NoneType in members
    others = tuple(m for m in members if m is not _NoneType)
    if len(others) == 1:  # ``X | None``: null or X's own form
        write_one, read_one = _codec(others[0])

        def write_optional(value):
            return None if value is None else write_one(value)

        def read_optional(data):
            return None if data is None else read_one(data)

        return write_optional, read_optional
    # Several types: ``[member index, data]`` (null stays null when None is allowed).
    codecs = [_codec(m) for m in others]
    matchers = [_matcher(m) for m in others]

    def write(value):
        if value is None and optional:
            return None
        for index, matches in enumerate(matchers):
            if matches(value):
                return [index, codecs[index][0](value)]
        raise NotKeepable(f"a {type(value).__name__} is none of {others!r}")

    def read(data):
        if data is None and optional:
            return None
        if not (type(data) is list and len(data) == 2 and type(data[0]) is int and 0 <= data[0] < len(codecs)):
            raise Unreadable("expected a union member")
        return codecs[data[0]][1](data[1])

    return write, read


def _matcher(hint) -> Callable[[Any], bool]:
    """Whether a value is of union member ``hint`` (exact classes, as the codecs require)."""
    if hint is Any or hint is object:
        return lambda value: True
    origin = typing.get_origin(hint) or hint
    if isinstance(origin, type) and (origin in PRIMITIVES or issubclass(origin, enum.Enum)
                                     or dataclasses.is_dataclass(origin)):
        return lambda value: type(value) is origin
    return lambda value: isinstance(value, origin)


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls)
    except Exception as exc:  # an annotation that does not resolve: nothing of this class is kept
        raise NotKeepable(f"{cls.__name__}'s type hints do not resolve: {exc}") from None


def _dataclass_codec(cls: type) -> _Codec:
    hints = _hints(cls)
    fields = [f for f in dataclasses.fields(cls) if f.init]
    for f in fields:
        if f.name not in hints:
            raise NotKeepable(f"{cls.__name__}.{f.name} has no type hint")
    required = frozenset(f.name for f in fields
                         if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
    names = frozenset(f.name for f in fields)
    missing = dataclasses.MISSING
    # Each field's (write, read, default or MISSING) by name, in field order: compiled at first
    # use (a dataclass may name itself in its fields), then kept: a warm run reads thousands.
    compiled: dict[str, tuple[Callable, Callable, Any]] = {}

    def codecs() -> dict[str, tuple[Callable, Callable, Any]]:
        if not compiled:
            compiled.update((f.name, (*_codec(hints[f.name]), f.default)) for f in fields)
        return compiled

    def write(value):
        if type(value) is not cls:
            raise NotKeepable(f"a {type(value).__name__} where {cls.__name__} is declared")
        out = {}
        for name, (write_field, _, default) in codecs().items():
            item = getattr(value, name)
            if default is not missing and type(item) is type(default) and item == default:
                continue  # a field at its default is left out
            out[name] = write_field(item)
        return out

    def read(data):
        if type(data) is not dict or not names.issuperset(data) or not required.issubset(data):
            raise Unreadable(f"expected the fields of {cls.__name__}")
        known = codecs()
        # only the fields written: one at its default was left out
        return cls(**{name: known[name][1](value) for name, value in data.items()})

    return write, read


def _tuple_codec(args: tuple) -> _Codec:
    if not args or (len(args) == 2 and args[1] is Ellipsis):  # tuple[X, ...]
        return _sequence_codec(tuple, args[0] if args else Any)
    if args == ((),):  # tuple[()]
        args = ()
    codecs = [_codec(a) for a in args]

    def write_fixed(value):
        if type(value) is not tuple or len(value) != len(codecs):
            raise NotKeepable(f"expected a tuple of {len(codecs)}")
        return [c[0](v) for c, v in zip(codecs, value)]

    def read_fixed(data):
        if type(data) is not list or len(data) != len(codecs):
            raise Unreadable(f"expected a list of {len(codecs)}")
        return tuple([c[1](v) for c, v in zip(codecs, data)])

    return write_fixed, read_fixed


def _set_codec(kind: type[set] | type[frozenset], item) -> _Codec:
    write_one, read_one = _codec(item)

    def write(value):
        if type(value) is not kind:
            raise NotKeepable(f"a {type(value).__name__} where a {kind.__name__} is declared")
        # sorted by their JSON text: the same set is always written the same way
        return sorted((write_one(v) for v in value), key=_sort_text)

    def read(data):
        if type(data) is not list:
            raise Unreadable("expected a list")
        return kind([read_one(v) for v in data])

    return write, read


def _sort_text(data) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=True)


def _list_codec(item) -> _Codec:
    return _sequence_codec(list, item)


def _sequence_codec(kind: type[list] | type[tuple], item) -> _Codec:
    """A ``list[X]`` or ``tuple[X, ...]``: a JSON list, read back as the same kind."""
    write_one, read_one = _codec(item)

    def write(value):
        if type(value) is not kind:
            raise NotKeepable(f"a {type(value).__name__} where a {kind.__name__} is declared")
        return [write_one(v) for v in value]

    def read(data):
        if type(data) is not list:
            raise Unreadable("expected a list")
        return kind([read_one(v) for v in data])  # (a list first: a generator costs more)

    return write, read


def _dict_codec(key, item) -> _Codec:
    write_key, read_key = _codec(key)
    write_one, read_one = _codec(item)
    if key is str:
        def write(value):
            if type(value) is not dict:
                raise NotKeepable(f"a {type(value).__name__} where a dict is declared")
            return {write_key(k): write_one(v) for k, v in value.items()}

        def read(data):
            if type(data) is not dict:
                raise Unreadable("expected an object")
            return {k: read_one(v) for k, v in data.items()}

        return write, read

    def write_pairs(value):  # keys JSON objects cannot have: a list of pairs
        if type(value) is not dict:
            raise NotKeepable(f"a {type(value).__name__} where a dict is declared")
        return [[write_key(k), write_one(v)] for k, v in value.items()]

    def read_pairs(data):
        if type(data) is not list or not all(type(p) is list and len(p) == 2 for p in data):
            raise Unreadable("expected a list of pairs")
        return {read_key(k): read_one(v) for k, v in data}

    return write_pairs, read_pairs


def _json_codec() -> _Codec:
    """``Any``: plain JSON values only (so what is read back is what was written)."""
    def write(value):
        _check_json(value, 0)
        return value

    def read(data):
        return data  # json.loads made it: plain JSON values

    return write, read


_MAX_JSON_DEPTH = 64


def _check_json(value, depth: int) -> None:
    if depth > _MAX_JSON_DEPTH:
        raise NotKeepable("nested too deeply")
    if value is None or type(value) in PRIMITIVES:
        return
    if type(value) is list:
        for v in value:
            _check_json(v, depth + 1)
        return
    if type(value) is dict:
        for k, v in value.items():
            if type(k) is not str:
                raise NotKeepable("a dict key that is not a str")
            _check_json(v, depth + 1)
        return
    raise NotKeepable(f"a {type(value).__name__} under Any")
