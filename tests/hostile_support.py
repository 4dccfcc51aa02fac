"""Shared helpers of the hardening tests: a one-record report around given
evidence lines, a plugin run through pytester, reading its JSON results, and the
processor time an adversarial input costs."""

from __future__ import annotations

import gc
import json
import time
from pathlib import Path


def records_report(pin: str, *evidence: str, record: str = "MEM-OBJ-subject") -> str:
    """A record report pinned at ``pin`` whose one record holds ``evidence``.

    Each evidence line (a quotation ``text --- path`` or a citation
    ``SRC-1: a.py, b.py.``) is its own paragraph; the first one is on report
    line 13 and every next one two lines further down (see :func:`line_of`).
    """
    head = [
        "Hardening report",
        "",
        "Boundary and evidence",
        "",
        f"The target is at SRC-1 commit {pin}.",
        "",
        "Operative objects",
        "",
        record,
        "",
        "Label: Subject under test",
        "",
    ]
    body: list[str] = []
    for line in evidence:
        body += [line, ""]
    return "\n".join(head + body)


def line_of(index: int) -> int:
    """The report line of the ``index``-th (0-based) evidence line of :func:`records_report`."""
    return 13 + 2 * index


def run_report(pytester, text: str | bytes, repo: Path, *args: str, name: str = "report.md"):
    """Write the report into the pytester folder and run the plugin on it (in process)."""
    path = pytester.path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return pytester.runpytest("--memreport", str(path), f"--memreport-repo={repo}", "-rA", *args)


def evidence_results(json_path: Path) -> dict[tuple[int, str, str], dict]:
    """JSON evidence of the first report by ``(report line, kind, path)``."""
    data = json.loads(Path(json_path).read_text(encoding="utf-8"))
    (report,) = data["reports"]
    found: dict[tuple[int, str, str], dict] = {}
    for record in report["records"]:
        for evidence in record["evidence"]:
            found[(evidence["line"], evidence["kind"], evidence["path"])] = evidence
    for evidence in report["evidence"]:
        found[(evidence["line"], evidence["kind"], evidence["path"])] = evidence
    return found


def assert_clean(result) -> str:
    """The run's whole output, after checking it shows no traceback; returned for more asserts."""
    out = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in out, out[-3000:]
    assert "INTERNALERROR" not in out, out[-3000:]
    return out


def cpu_seconds(call, *args, runs: int = 1) -> float:
    """The processor time ``call(*args)`` takes on this thread, the fastest of ``runs``,
    with the garbage collector paused: what an input costs the code under test. Other
    processes' work, another thread's, or a full collection of the suite's own heap
    landing in one run is not its cost (a 0.15 s parse once took 2 s of process time
    in a full serial suite)."""
    best = float("inf")
    paused = gc.isenabled()
    gc.disable()
    try:
        for _ in range(runs):
            start = time.thread_time()
            call(*args)
            best = min(best, time.thread_time() - start)
    finally:
        if paused:
            gc.enable()
    return best


def calls_made(call, *args) -> int:
    """How many function calls ``call(*args)`` makes (Python and C, generators' resumptions
    included), counted by :mod:`cProfile`: the same for the same input however busy the
    machine is. Work that grows faster than its input shows as calls that do, when its
    inner loop calls anything; a loop inside one frame does not count itself."""
    import cProfile
    import pstats

    profile = cProfile.Profile()
    profile.runcall(call, *args)
    return pstats.Stats(profile).total_calls  # type: ignore[attr-defined]


def cpu_of(call):
    """``(call(), processor seconds of this thread)``: what one in-process pytest run costs
    here, not counting other processes (git, another job on a busy machine)."""
    start = time.thread_time()
    result = call()
    return result, time.thread_time() - start


def baseline_run_cpu(pytester, make_repo) -> float:
    """Processor seconds of an in-process run of a one-quotation report against a
    one-file target: the yardstick that a hostile input's run is measured against in
    the same test, so a slow or busy machine moves both alike."""
    repo = make_repo("baseline")
    pin = repo.commit({"ok.py": "LIMIT = 1\n"}, "baseline")
    _, spent = cpu_of(lambda: run_report(pytester, records_report(pin, "LIMIT = 2 --- ok.py"), repo.path,
                                         "--memreport-against", "none", name="baseline.md"))
    return spent


#: A hostile input may cost this many baseline runs (and a few seconds) before the test
#: says its cost grows faster than its size: a quadratic step on these inputs takes hours.
HOSTILE_RUNS = 10
HOSTILE_SLACK = 5.0
