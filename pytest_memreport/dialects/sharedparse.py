"""A folder's reports parsed in two processes: this one takes its planned members from the
front, a helper process (:mod:`..parsehelper`) from the back, one at a time, until they meet.

Each planned member parses on its own, a pure function of its plan
(:func:`.parse_member`), and parsing is Python's own work, which one process
does on one core. On a large report set it is a third of a cold run; a helper (the same
interpreter and package, started with this process's ``sys.path``) does its share on
another core, serving one folder at a time (:func:`serve`). Whatever it does not answer (it
could not start, it died, an answer did not load, its parse raised) this process parses
itself: the reports are the same either way. It is stopped once the run's reports are
parsed, and killed when the run ends.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO

from ..model import Report
from ..parsehelper import DONE, Helper, MemberEnds, send_message
from .. import runcaches
from . import parse_member
from .runs import MemberParse


@dataclass(frozen=True)
class SharedParse:
    """What a shared parse did: the reports in member order, and how many the helper gave."""

    reports: tuple[Report, ...]
    by_helper: int = 0


def parse_shared(members: Sequence[MemberParse], parse: Callable[[MemberParse], Report],
                 helper: Helper | None, reserve: int = 0) -> SharedParse:
    """``members`` parsed, this process's share by ``parse``, the rest by ``helper`` (when
    there is one and it is alive). The last ``reserve`` members are the helper's from the
    start (parsed here only if it fails): the rest go to whichever process asks first."""
    ends = MemberEnds(len(members), reserve)
    # The folder's parses share what each would work out again (a link read in each of a
    # note's passes), as the helper's do (:func:`serve`); inside a run, the run's caches.
    caches = runcaches.current()
    if caches is None:
        caches, own = runcaches.RunCaches(), parse
        parse = lambda member: caches.call(own, member)  # noqa: E731
    if helper is not None and (len(members) < 2 or not helper.share(members, ends)):
        helper = None  # this process parses them all
    reports: dict[int, Report] = {}
    try:
        while (at := ends.take_front()) is not None:
            reports[at] = parse(members[at])
    except BaseException:
        if helper is not None:
            helper.stop()
        raise
    answered = {at: report for at, report in (helper.collect() if helper is not None else {}).items()
                if isinstance(report, Report)}
    reports.update(answered)
    for at in range(len(members)):
        if at not in reports:  # what the helper did not answer
            reports[at] = parse(members[at])
    return SharedParse(tuple(reports[at] for at in range(len(members))), len(answered))


def serve(asked: IO[bytes], answers: IO[bytes]) -> None:
    """The helper's side: a folder's members, then for each index received its report
    (``None`` when its parse raised: the other process parses it and says why), until the
    folder is done; then the next folder's, until its input ends."""
    caches = runcaches.RunCaches()
    while True:
        try:
            members: list[MemberParse] = pickle.load(asked)
        except EOFError:
            return
        while (at := pickle.load(asked)) != DONE:
            try:
                report: Report | None = caches.call(parse_member, members[at])
            except Exception:  # noqa: BLE001 - said by the other process, which parses it again
                report = None
            # The report goes as bytes, so that the other process can ask for the next
            # member before it reads this one.
            send_message(answers, (at, pickle.dumps(report, protocol=pickle.HIGHEST_PROTOCOL)))
        caches.clear()
