"""Reading and parsing a run's reports, a folder at a time (an analysis run is a folder).

Each folder's files are read once (the bytes parsed are the bytes a rewrite checks
against), planned together (:func:`.dialects.plan_folder`: dialects and the run's
merged facts), and then each file parses on its own. A large knowledge base gives
the last of those files to the worker process (:mod:`.textworker`) while this one
parses the first: parsing is pure Python, and a thread would wait on the GIL.
Whatever the worker cannot give back is parsed here: slower, never different.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .dialects import ReportError, decode_report, parse_member, plan_folder, read_report_bytes
from .dialects.core.lines import is_markdown
from .dialects.runs import MemberParse, RunFile
from .model import Report
from .textworker import PARSE, UNKNOWN, TextWorker

#: less than this to parse, in all (in plain-text characters, see :func:`parse_cost`), is
#: parsed here: the worker takes ~0.3 s to start, about what parsing 300,000 takes
MIN_WORKER_COST = 800_000
#: the most of the cost the worker is offered (the last files): the engine takes back each
#: file not sent yet when it gets there (:mod:`.textworker`), so the two meet wherever
#: the worker's late start puts them
WORKER_SHARE = 0.6
#: a Markdown character costs this many plain-text ones (markdown-it tokenizes it first)
MARKDOWN_COST = 2.4

_BATCHES = itertools.count()


@dataclass
class Loaded:
    """What loading some folders gave: each file's report or the error reading it said,
    and the bytes of each report read (by display path)."""

    reports: dict[Path, Report | ReportError] = field(default_factory=dict)
    report_bytes: dict[str, bytes] = field(default_factory=dict)


def load_folders(folders: list[list[Path]], display_path: Callable[[Path], str], dialect: str | None,
                 worker: TextWorker | None = None, min_worker_cost: float = MIN_WORKER_COST) -> Loaded:
    """Read, plan and parse ``folders`` (each a list of one folder's report files, in
    order); ``worker``, when given, parses part of a batch that costs ``min_worker_cost``
    or more (:func:`parse_cost`)."""
    loaded = Loaded()
    planned: list[tuple[MemberParse, Path]] = []
    for members in folders:
        files: list[RunFile] = []
        paths: dict[str, Path] = {}
        for member in members:
            try:
                data = read_report_bytes(member)
                text, read_findings = decode_report(str(member), data)
            except ReportError as exc:
                loaded.reports[member] = exc
                continue
            name = display_path(member)
            paths[name] = member
            files.append(RunFile(name, text, tuple(read_findings)))
            loaded.report_bytes[name] = data
        if not files:
            continue
        try:
            plans = plan_folder(display_path(members[0].parent), files, dialect)
        except ReportError as exc:
            for member in paths.values():
                loaded.reports[member] = exc
            continue
        planned.extend((member, paths[member.file.path]) for plan in plans for member in plan.members)
    reports = parse_members([member for member, _ in planned], worker, min_worker_cost)
    for (_member, path), report in zip(planned, reports):
        loaded.reports[path] = report
    return loaded


def parse_members(members: list[MemberParse], worker: TextWorker | None = None,
                  min_worker_cost: float = MIN_WORKER_COST) -> list[Report]:
    """Every planned file parsed, in order; the worker's share of a large batch parsed there."""
    share = worker_share(members, min_worker_cost) if worker is not None else set()
    batch = next(_BATCHES)  # display paths may repeat across calls: the answers are this batch's
    if share and not worker.submit("", [(members[i].file.path, members[i], None, [(batch, i)])
                                        for i in sorted(share)], kind=PARSE):
        share = set()
    out: list[Report | None] = [None if i in share else parse_member(member) for i, member in enumerate(members)]
    for i in sorted(share):
        found = worker.parsed((batch, i))
        out[i] = found if isinstance(found, Report) else parse_member(members[i])
    return out


def parse_cost(member: MemberParse) -> float:
    """What parsing ``member`` costs, in plain-text characters (measured: 0.9 MB/s of plain
    text, 0.4 MB/s of Markdown)."""
    size = len(member.file.text)
    return size * MARKDOWN_COST if is_markdown(member.file.path) else size


def worker_share(members: list[MemberParse], min_cost: float = MIN_WORKER_COST) -> set[int]:
    """Which members the worker parses: the last ones, up to :data:`WORKER_SHARE` of the
    cost, when there is ``min_cost`` or more of it (worth its start); none otherwise."""
    sizes = [parse_cost(member) for member in members]
    total = sum(sizes)
    if len(members) < 2 or total < min_cost:
        return set()
    share: set[int] = set()
    budget = WORKER_SHARE * total
    for index in range(len(members) - 1, -1, -1):
        if sizes[index] <= budget:
            share.add(index)
            budget -= sizes[index]
    # Less than half its share (one large file elsewhere) is not worth the worker's start.
    return share if budget <= WORKER_SHARE * total / 2 else set()
