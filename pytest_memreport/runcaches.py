"""The caches of one run's data, owned by the engine that checks the run.

Parsing, matching and git answers share work through caches (syntax trees, text
indexes, reduced forms, compiled quotations, word indexes, parse counts). None of
them is a module's: each lives in a :class:`RunCaches`, which an
:class:`~pytest_memreport.engine.Engine` makes, makes current while one of its
calls runs (:meth:`RunCaches.active`) and empties in ``close()``. Two engines in one
process, one after the other or interleaved, each see their own caches; nothing is
left in the process once an engine is closed.

Outside an active run (a library function called on its own) nothing is kept: each
call computes afresh and counts nowhere. A test that wants the caches opens a run
of its own: ``with RunCaches().active(): ...``.

The one module-level object here, the context variable naming the current run,
holds no data: it points at the active run's caches only while an engine's call
runs (or a test's ``with`` block), and is reset when it returns.
"""

from __future__ import annotations

import functools
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Generic, Iterator, ParamSpec, TypeVar

T = TypeVar("T")
P = ParamSpec("P")
R = TypeVar("R")

#: the run whose caches are current (``None``: no run; nothing is cached)
_CURRENT: ContextVar["RunCaches | None"] = ContextVar("pytest_memreport_run_caches", default=None)


class RunCaches:
    """One run's caches, each made on first use by the module that uses it."""

    def __init__(self) -> None:
        self._parts: dict[object, Any] = {}

    def part(self, owner: object, make: Callable[[], T]) -> T:
        """The cache ``owner`` keeps in this run, made by ``make`` the first time."""
        found = self._parts.get(owner)
        if found is None:
            found = self._parts[owner] = make()
        return found

    def __len__(self) -> int:
        """How many caches the run holds."""
        return len(self._parts)

    def drop(self, owner: object) -> None:
        """Let go of one cache (made again when next used)."""
        self._parts.pop(owner, None)

    def clear(self) -> None:
        """Let go of every cache of the run."""
        self._parts.clear()

    def call(self, function: Callable[..., R], *args: Any, **kwargs: Any) -> R:
        """``function(*args, **kwargs)`` with these caches current, as inside :meth:`active`.
        An engine's calls run tens of thousands of times a run (several per check), often
        one inside another: a generator-based context each time cost more than some of the
        calls themselves, so a call inside the same run just runs."""
        if _CURRENT.get() is self:
            return function(*args, **kwargs)
        token = _CURRENT.set(self)
        try:
            return function(*args, **kwargs)
        finally:
            _CURRENT.reset(token)

    @contextmanager
    def active(self) -> Iterator["RunCaches"]:
        """These caches current for the calls inside the block (nested blocks of other
        runs are theirs; the previous run is current again after it)."""
        token = _CURRENT.set(self)
        try:
            yield self
        finally:
            _CURRENT.reset(token)


def current() -> RunCaches | None:
    """The active run's caches, or ``None``."""
    return _CURRENT.get()


def part(owner: object, make: Callable[[], T]) -> T:
    """The active run's cache ``owner`` (made by ``make`` on first use); outside a run, a
    fresh one that nothing keeps."""
    caches = _CURRENT.get()
    return make() if caches is None else caches.part(owner, make)


def drop(owner: object) -> None:
    """The active run's cache ``owner`` let go of (nothing outside a run)."""
    caches = _CURRENT.get()
    if caches is not None:
        caches.drop(owner)


class PerRun:
    """A module's handle on a cache it keeps per run: attribute and item access go to the
    active run's object, made by ``make`` on first use (outside a run, to a fresh one that
    nothing keeps). The handle itself holds nothing but ``make``."""

    __slots__ = ("_make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        object.__setattr__(self, "_make", make)

    def _target(self) -> Any:
        return part(self, self._make)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target(), name)

    # The caches' own lookups, named: reached through ``__getattr__`` each would first fail
    # the handle's own attribute lookup (a matching run asks tens of thousands of times).
    def get(self, *args: Any) -> Any:
        return self._target().get(*args)

    def put(self, *args: Any) -> Any:
        return self._target().put(*args)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._target(), name, value)

    def __getitem__(self, key: Any) -> Any:
        return self._target()[key]

    def __setitem__(self, key: Any, value: Any) -> None:
        self._target()[key] = value

    def __contains__(self, key: Any) -> bool:
        return key in self._target()

    def __len__(self) -> int:
        return len(self._target())


class RunCached(Generic[P, R]):
    """A function whose results are kept per run (see :func:`run_cached`)."""

    def __init__(self, func: Callable[P, R], maxsize: int | None) -> None:
        self._func = func
        #: the run's cache, made once per run by a factory made once (this runs per check)
        self._make = lambda: functools.lru_cache(maxsize=maxsize)(func)
        functools.update_wrapper(self, func)

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        caches = _CURRENT.get()
        if caches is None:
            return self._func(*args, **kwargs)
        cached: Callable[..., R] = caches.part(self, self._make)
        return cached(*args, **kwargs)

    def cache_clear(self) -> None:
        """Empty the active run's results of this function."""
        drop(self)


def run_cached(maxsize: int | None = 128) -> Callable[[Callable[P, R]], RunCached[P, R]]:
    """:func:`functools.lru_cache` per run: the results are kept in the active run's
    caches (one ``lru_cache`` of ``maxsize`` per run and function), and not at all
    outside a run. ``cache_clear()`` empties the active run's."""

    def decorate(func: Callable[P, R]) -> RunCached[P, R]:
        return RunCached(func, maxsize)

    return decorate
