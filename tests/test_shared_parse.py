"""A large folder's reports are parsed by two processes (:mod:`pytest_memreport.dialects.sharedparse`):
the reports are the same whichever process parsed each, and whatever the helper does not
answer (it died, it answered nonsense) this process parses itself. The helper is a real
process of this interpreter; ``reserve`` gives it members from the start, so that what it
parsed does not depend on which process was quicker."""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from pytest_memreport.dialects import parse_member, plan_folder
from pytest_memreport.dialects.runs import RunFile
from pytest_memreport import parsehelper
from pytest_memreport.dialects.sharedparse import parse_shared
from pytest_memreport.parsehelper import Helper, worth_a_helper
from pytest_memreport.engine.reports import ReportSet, load_folder
from pytest_memreport.engine.timing import Timing
from pytest_memreport.runcaches import RunCaches
from run_target import materialize

PIN = "0123456789abcdef0123456789abcdef01234567"


def record_report(number: int, records: int = 3) -> str:
    parts = [f"Inventory report {number}\n\nThe target is at SRC-1 commit {PIN}.\n"]
    for record in range(records):
        parts.append(textwrap.dedent(f"""
            MEM-OBJ-r{number}-{record}

            Label: shelf {number}.{record}

            Shelf {record} of inventory {number} is bounded where its constant is set.

            shelf_limit_{record} = {record} --- stock/shelves.py:{record + 1}

            `stock/shelves.py:{record + 1}` names `shelf_limit_{record}`.
            """))
    return "".join(parts)


def planned(files: list[RunFile]) -> list:
    return [member for plan in plan_folder("reports", files) for member in plan.members]


def parsed_alone(members) -> list:
    with RunCaches().active():
        return [parse_member(member) for member in members]


def same_reports(ours, theirs) -> bool:
    """Equal reports, and every piece of evidence at the same report position (not compared by ``==``)."""
    spans = [[e.span for e in report.all_evidence()] for report in ours]
    return ours == theirs and spans == [[e.span for e in report.all_evidence()] for report in theirs]


@pytest.fixture
def members():
    return planned([RunFile(f"reports/report-{n}.md", record_report(n)) for n in range(6)])


def shared_by(helper, members, parse=parse_member, reserve=3):
    """``members`` parsed with ``helper``, which is then stopped (as a run's helper is)."""
    assert helper is not None
    try:
        with RunCaches().active():
            return parse_shared(members, parse, helper, reserve=reserve)
    finally:
        helper.close()


def test_a_helper_parses_the_same_reports(members):
    helper = Helper.start()
    shared = shared_by(helper, members)
    assert shared.by_helper >= 3 and not helper.alive and helper.exit_status is not None
    assert len(shared.reports) == 6 and all(report.all_evidence() for report in shared.reports)
    assert same_reports(list(shared.reports), parsed_alone(members))


def test_one_helper_serves_folder_after_folder(members):
    helper = Helper.start()
    try:
        with RunCaches().active():
            first = parse_shared(members[:3], parse_member, helper, reserve=2)
            second = parse_shared(members[3:], parse_member, helper, reserve=2)
    finally:
        helper.close()
    assert first.by_helper >= 2 and second.by_helper >= 2
    assert same_reports([*first.reports, *second.reports], parsed_alone(members))


def test_a_run_folder_with_its_register_parses_the_same_in_the_helper(tmp_path):
    # A run's members carry the run's merged facts (register, pins): they cross to the helper too.
    folder = materialize("subtree-run", tmp_path, PIN=PIN, PIN7=PIN[:7])
    members = planned([RunFile(f"run/{path.name}", path.read_text(encoding="utf-8"))
                       for path in sorted(folder.iterdir()) if path.suffix == ".md"])
    assert len(members) >= 3 and any(member.context is not None for member in members)
    helper = Helper.start()
    shared = shared_by(helper, members, reserve=len(members) - 1)
    assert shared.by_helper == len(members) - 1
    assert same_reports(list(shared.reports), parsed_alone(members))


def test_a_helper_that_dies_leaves_every_report_to_this_process(members):
    helper = Helper.start([sys.executable, "-c", "raise SystemExit(3)"])
    shared = shared_by(helper, members)
    assert shared.by_helper == 0 and helper.exit_status == 3 and not helper.alive
    assert same_reports(list(shared.reports), parsed_alone(members))


# A helper that follows the protocol but answers each member with something other than a report.
_WRONG_ANSWERS = textwrap.dedent("""\
    import pickle, sys
    asked, answers = sys.stdin.buffer, sys.stdout.buffer
    pickle.load(asked)  # the import path
    pickle.load(asked)  # the members
    while (at := pickle.load(asked)) != -1:
        pickle.dump((at, "not a report"), answers); answers.flush()
    """)


def test_answers_that_are_no_report_are_parsed_again_here(members):
    helper = Helper.start([sys.executable, "-c", _WRONG_ANSWERS])
    shared = shared_by(helper, members)
    assert shared.by_helper == 0 and not helper.alive
    assert same_reports(list(shared.reports), parsed_alone(members))


def test_a_helper_answering_nonsense_is_not_believed(members):
    nonsense = "import sys; sys.stdin.buffer.read(1); sys.stdout.write('not a pickle' * 100); sys.stdout.flush()"
    helper = Helper.start([sys.executable, "-c", nonsense])
    shared = shared_by(helper, members)
    assert shared.by_helper == 0 and helper.exit_status is not None and not helper.alive
    assert same_reports(list(shared.reports), parsed_alone(members))


def test_an_error_here_stops_the_helper_and_is_raised(members):
    def failing(member):
        raise RuntimeError(f"cannot parse {member.file.path}")

    before = _children()
    helper = Helper.start()
    with RunCaches().active(), pytest.raises(RuntimeError, match="report-0"):
        parse_shared(members, failing, helper, reserve=3)
    assert not helper.alive and helper.exit_status is not None
    assert _children() <= before  # the helper has exited (and been waited for)


def _children() -> set[int]:
    """This process's child processes still running or unreaped (Linux's /proc)."""
    found: set[int] = set()
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == os.getpid():
                found.add(int(entry))
    return found


def test_a_helper_is_started_for_large_report_sets_only(monkeypatch):
    sizes = [3000] * 6
    assert not worth_a_helper(sizes)  # a few kilobytes: this process parses them sooner alone
    monkeypatch.setattr(parsehelper, "HELPER_TEXT", 1024)
    assert worth_a_helper(sizes) == (parsehelper._cores() >= 2)
    assert not worth_a_helper(sizes[:1])
    assert not worth_a_helper(sizes, readers=(lambda path, text: [],))  # a third party's code stays here


def test_a_folder_parsed_with_a_helper_loads_as_without(tmp_path):
    folder = tmp_path / "reports"
    folder.mkdir()
    for n in range(8):
        (folder / f"report-{n}.md").write_text(record_report(n, records=40), encoding="utf-8")
    paths = sorted(folder.iterdir())
    helper = Helper.start()
    try:
        with RunCaches().active():
            alone = load_folder(paths, str, None)
            helped = load_folder(paths, str, None, helper=helper)
    finally:
        helper.close()
    assert alone.by_helper == 0 and helped.parsed == alone.parsed == 8
    assert list(helped.reports) == list(alone.reports)
    assert same_reports(list(helped.reports.values()), list(alone.reports.values()))


def test_a_large_report_set_starts_a_helper_and_stops_it_once_parsed(tmp_path, monkeypatch):
    monkeypatch.setattr(parsehelper, "HELPER_TEXT", 1024)
    monkeypatch.setattr(parsehelper, "_cores", lambda: 2)  # (the decision on one core is tested above)
    folders = [tmp_path / "first", tmp_path / "second"]
    paths = []
    for index, folder in enumerate(folders):
        folder.mkdir()
        for n in range(3):
            paths.append(folder / f"report-{n}.md")
            paths[-1].write_text(record_report(10 * index + n, records=20), encoding="utf-8")
    before = _children()
    reports = ReportSet(paths, tmp_path, None, Timing(), helper=parsehelper.start_for(parsehelper.folders_of(paths)))
    assert len(_children() - before) == 1  # started with the run, before any report is asked for
    with RunCaches().active():
        loaded = [reports.report(path) for path in paths]
    assert reports.parsed == 6 and _children() <= before  # stopped once the last folder was parsed
    reports.release()
    alone = ReportSet(paths, tmp_path, None, Timing())  # as in a pytest-xdist worker: the cores are shared out already
    assert _children() <= before
    with RunCaches().active():
        assert same_reports(loaded, [alone.report(path) for path in paths])
    assert alone.by_helper == 0


def test_reports_each_alone_in_its_folder_start_no_helper(tmp_path, monkeypatch):
    # A helper shares a folder's members: a folder of one report is this process's whole
    # (parse_shared), so a large set of one-report folders (trial folders, ingests) starts none.
    monkeypatch.setattr(parsehelper, "HELPER_TEXT", 1024)
    monkeypatch.setattr(parsehelper, "_cores", lambda: 2)
    paths = []
    for n in range(6):
        folder = tmp_path / f"trial-{n}"
        folder.mkdir()
        paths.append(folder / "report.md")
        paths[-1].write_text(record_report(n, records=20), encoding="utf-8")
    before = _children()
    reports = ReportSet(paths, tmp_path, None, Timing(), helper=parsehelper.start_for(parsehelper.folders_of(paths)))
    assert _children() <= before
    with RunCaches().active():
        assert all(reports.report(path).all_evidence() for path in paths)
    assert reports.parsed == 6 and reports.by_helper == 0


def test_a_run_whose_helper_parses_finds_what_a_run_alone_finds(pytester, make_repo, monkeypatch):
    # As users run it: the plugin in one process (not an xdist worker), its reports large enough.
    repo = make_repo("target")
    pin = repo.commit({"stock/shelves.py": "".join(f"shelf_limit_{n} = {n}\n" for n in range(60))}, "shelves")
    folder = pytester.path / "reports"
    folder.mkdir()
    for n in range(6):
        (folder / f"report-{n}.md").write_text(record_report(n, records=4).replace(PIN, pin), encoding="utf-8")
    monkeypatch.setattr(parsehelper, "_cores", lambda: 2)

    def run(name: str, helper_text: int) -> dict:
        monkeypatch.setattr(parsehelper, "HELPER_TEXT", helper_text)
        out = pytester.path / f"{name}.json"
        result = pytester.runpytest("-p", "no:cacheprovider", "--memreport", str(folder),
                                    f"--memreport-repo={repo.path}", "--memreport-json", str(out))
        assert result.ret == 0, result.stdout.str()
        return json.loads(out.read_text())

    helped, alone = run("helped", 1024), run("alone", 1 << 40)
    assert alone["timing"]["reports_parsed_by_helper"] == 0
    assert helped["timing"]["reports_parsed"] == alone["timing"]["reports_parsed"] == 6
    assert 0 <= helped["timing"]["reports_parsed_by_helper"] <= 6
    assert verdicts(helped) == verdicts(alone)
    assert len(verdicts(alone)) == 6 * 4 * 3 and {v[3] for v in verdicts(alone)} == {"found"}


def verdicts(data) -> list:
    return [(r["path"], e["line"], e["kind"], e["at_pin"]["status"])
            for r in data["reports"] for rec in r["records"] for e in rec["evidence"]]


def test_a_helper_that_cannot_start_leaves_the_parse_here(members, monkeypatch):
    assert Helper.start([str(members[0].file.path) + ".no-such-program"]) is None  # not a program: OSError
    monkeypatch.setattr(sys, "executable", "")  # an embedded interpreter names none
    assert Helper.start() is None
    with RunCaches().active():
        shared = parse_shared(members, parse_member, None, reserve=3)
    assert shared.by_helper == 0 and same_reports(list(shared.reports), parsed_alone(members))


# A process writing messages as the helper does, with its stdout a raw file (``-u``, as under
# PYTHONUNBUFFERED, which CI images often set).
_WRITER = textwrap.dedent("""\
    import sys
    from pytest_memreport.parsehelper import send_message
    for n in range(40):
        send_message(sys.stdout.buffer, (n, bytes([n]) * 256 * 1024))
    """)


@pytest.mark.skipif(not hasattr(signal, "SIGSTOP"), reason="stop signals are POSIX's")
def test_a_message_arrives_whole_when_a_stop_signal_cuts_a_write_short():
    # Stopped and continued while it writes to a full pipe (Ctrl-Z and fg, a sampling profiler),
    # a raw file's write takes part of the data: the rest must follow, or the reader waits forever.
    writer = subprocess.Popen([sys.executable, "-u", "-c", _WRITER], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    received: list = []

    def read() -> None:
        assert writer.stdout is not None
        for _ in range(40):
            received.append(pickle.load(writer.stdout))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        while reader.is_alive() and writer.poll() is None:
            os.kill(writer.pid, signal.SIGSTOP)
            time.sleep(0.002)
            os.kill(writer.pid, signal.SIGCONT)
            time.sleep(0.003)
        reader.join(timeout=120)
    finally:
        if writer.poll() is None:
            os.kill(writer.pid, signal.SIGCONT)
            writer.kill()
        writer.wait()
    assert not reader.is_alive(), "the reader still waits for bytes the writer never sent"
    assert [n for n, _ in received] == list(range(40))
    assert all(payload == bytes([n]) * 256 * 1024 for n, payload in received)


# A helper that parses as the real one does, slowly, and notes for each member whether the
# next member's index was already in its pipe when it finished parsing this one.
_NOTING_HELPER = textwrap.dedent("""\
    import pickle, select, sys, time
    asked = open(0, "rb", buffering=0)  # unbuffered: what is not read stays in the pipe
    sys.path[:] = pickle.load(asked)
    from pytest_memreport.dialects import parse_member
    from pytest_memreport.parsehelper import send_message
    members = pickle.load(asked)
    while (at := pickle.load(asked)) != -1:
        report = parse_member(members[at])
        time.sleep(0.5)  # a slow parse: the other process has long read the last answer
        with open(sys.argv[1], "a") as out:  # noted before answering: the run stops it once answered
            out.write(f"{at} {bool(select.select([asked], [], [], 0)[0])}\\n")
        send_message(sys.stdout.buffer, (at, pickle.dumps(report)))
    """)


@pytest.mark.skipif(sys.platform == "win32", reason="select on a pipe is POSIX's")
def test_the_helper_finds_its_next_member_waiting_when_it_finishes_one(members, tmp_path):
    # Asked one member at a time, the helper waited after each answer for the run's thread
    # to read it (that thread shares the interpreter with the run's own parse: 10-40 ms a
    # report on a real run). Its next member is now in the pipe before it answers.
    notes = tmp_path / "noted.txt"
    helper = Helper.start([sys.executable, "-c", _NOTING_HELPER, str(notes)])
    shared = shared_by(helper, members, reserve=4)
    assert shared.by_helper == 4
    assert same_reports(list(shared.reports), parsed_alone(members))
    noted = [line.split() for line in notes.read_text().splitlines()]
    assert [at for at, _ in noted] == ["5", "4", "3", "2"]
    assert [waiting for _, waiting in noted] == ["True", "True", "True", "False"]  # the last had no next


def test_a_member_is_asked_for_ahead_only_while_many_are_left():
    ends = parsehelper.MemberEnds(10, 0)
    assert ends.take_back() == 9 and ends.take_back(ahead=3) == 8  # 8 left between the ends
    while ends.take_front() is not None and ends.back - ends.front > 3:
        pass
    assert ends.back - ends.front <= 3
    assert ends.take_back(ahead=3) is None  # near the meeting: this process may parse it sooner
    taken = ends.take_back()
    assert taken is not None and ends.pending == {9, 8, taken}
    ends.answered(9)
    assert ends.pending == {8, taken} and ends.close()
    ends.fail()
    assert not ends.pending and not ends.close()


def test_the_helpers_module_imports_nothing_of_the_package():
    # The plugin starts the helper before the run imports its own modules, so that the
    # helper's imports run beside them: what starts it must not import them first.
    code = ("import sys, pytest_memreport.parsehelper\n"
            "print(sorted(m for m in sys.modules if m.startswith('pytest_memreport')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['pytest_memreport', 'pytest_memreport.parsehelper']"


def _large_folder(root, pin: str = PIN):
    folder = root / "reports"
    folder.mkdir()
    for n in range(6):
        (folder / f"report-{n}.md").write_text(record_report(n, records=20).replace(PIN, pin), encoding="utf-8")
    return folder


def test_the_plugin_starts_the_helper_and_the_engine_takes_it(pytester, make_repo, monkeypatch):
    repo = make_repo("target")
    pin = repo.commit({"stock/shelves.py": "".join(f"shelf_limit_{n} = {n}\n" for n in range(60))}, "shelves")
    folder = _large_folder(pytester.path, pin)
    monkeypatch.setattr(parsehelper, "HELPER_TEXT", 1024)
    monkeypatch.setattr(parsehelper, "_cores", lambda: 2)
    seen: dict = {}

    class Looking:
        @pytest.hookimpl(trylast=True)
        def pytest_sessionstart(self, session):
            from pytest_memreport.integration.session import ENGINE_KEY

            seen["helper"] = session.config.stash[ENGINE_KEY].reports._helper
            seen["started"] = [pid for pid in _children() - before if _is_a_parse_helper(pid)]

    before = _children()
    result = pytester.runpytest("-p", "no:cacheprovider", "--memreport", str(folder),
                                f"--memreport-repo={repo.path}", plugins=[Looking()])
    assert result.ret == 0, result.stdout.str()
    assert seen["helper"] is not None and len(seen["started"]) == 1  # one helper: the plugin's, not a second
    assert _children() <= before  # stopped by the end of the run


def _is_a_parse_helper(pid: int) -> bool:
    """Whether the process runs the parse helper's boot code (not a git process, say)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return b"sharedparse import serve" in cmdline.read()
    except OSError:
        return False


def test_a_usage_error_after_the_helper_started_stops_it(pytester, monkeypatch):
    folder = _large_folder(pytester.path)
    monkeypatch.setattr(parsehelper, "HELPER_TEXT", 1024)
    monkeypatch.setattr(parsehelper, "_cores", lambda: 2)
    before = _children()
    result = pytester.runpytest("-p", "no:cacheprovider", "--memreport", str(folder), "--memreport-shard", "5/2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--memreport-shard" in result.stderr.str()
    assert _children() <= before  # the helper it started for the large folder is gone


def test_reports_are_grouped_by_folder_once_each_and_only_shared_folders_are_the_helpers(tmp_path):
    # One grouping serves the plugin's decision to start a helper and the run's parse, so
    # the two cannot disagree; a report named twice (another spelling of its path) is one.
    for folder, names in (("pair", ["b.md", "a.md"]), ("alone", ["only.md"])):
        (tmp_path / folder).mkdir()
        for name in names:
            (tmp_path / folder / name).write_text(record_report(1), encoding="utf-8")
    given = [tmp_path / "pair" / "b.md", tmp_path / "alone" / "only.md", tmp_path / "pair" / "a.md",
             tmp_path / "alone" / ".." / "pair" / "b.md"]
    folders = parsehelper.folders_of(given)
    root = tmp_path.resolve()
    assert folders == {root / "pair": [root / "pair" / "b.md", root / "pair" / "a.md"],
                       root / "alone": [root / "alone" / "only.md"]}
    assert parsehelper.shareable(folders) == [root / "pair" / "b.md", root / "pair" / "a.md"]


def test_a_report_loads_from_its_pickle_as_it_was_by_names_listed_once():
    # The parse helper's reports come back pickled: tens of thousands of frozen data classes
    # with slots, each loaded by the model's own __setstate__ (the data classes' listed their
    # fields again per instance). The same objects come back, with the same positions, and a
    # state as the data classes write it loads the same way.
    import dataclasses

    from pytest_memreport import model

    report = parsed_alone(planned([RunFile("reports/report-1.md", record_report(1, records=4))]))[0]
    loaded = pickle.loads(pickle.dumps(report, protocol=pickle.HIGHEST_PROTOCOL))
    assert same_reports([loaded], [report])
    assert [hash(e) for e in loaded.all_evidence()] == [hash(e) for e in report.all_evidence()]
    quick = [cls for cls in vars(model).values() if isinstance(cls, type) and dataclasses.is_dataclass(cls)
             and "__slots__" in vars(cls) and cls.__module__ == model.__name__]
    assert {model.Evidence, model.LineRange, model.Span, model.Record, model.Report} <= set(quick)
    for cls in quick:
        assert cls.__setstate__.__qualname__.startswith("_loaded_quickly"), cls
    evidence = report.all_evidence()[0]
    state = [getattr(evidence, f.name) for f in dataclasses.fields(evidence)]  # the data classes' own state
    fresh = object.__new__(model.Evidence)
    fresh.__setstate__(state)
    assert fresh == evidence and fresh.span == evidence.span and hash(fresh) == hash(evidence)


def test_this_process_parses_a_folder_with_caches_current_as_the_helper_does():
    # Outside an engine's call no run was current, so this process's share of a folder read
    # each link anew in every pass of a note (four times each); the helper's share was read
    # with its caches. Both now parse with caches current: a link is read once per folder.
    from pytest_memreport import runcaches
    from pytest_memreport.dialects.core import links

    url = f"https://github.com/acme/widgets/blob/{PIN}/stock/shelves.py"
    note = "".join(f'The shelf says "shelf limit {n}" ([stock/shelves.py]({url})).\n\n' for n in range(20))
    members = planned([RunFile(f"notes/note-{n}.md", f"# Shelves {n}\n\nRead at commit `{PIN}`.\n\n{note}")
                       for n in range(2)])
    seen: list = []

    def parse(member):
        seen.append(runcaches.current())
        report = parse_member(member)
        seen.append(runcaches.current().part(links.parse_repository_link, lambda: None).cache_info())
        return report

    # as at a session's start: no run current (a new thread starts with no context)
    answer: list = []
    reader = threading.Thread(target=lambda: answer.append(parse_shared(members, parse, helper=None)))
    reader.start()
    reader.join()
    [shared] = answer
    assert all(report.all_evidence() for report in shared.reports)
    current, first, _, second = seen
    assert current is not None and seen[2] is current  # one run's caches for the folder
    assert first.misses == 1 and first.hits >= 20 and second.misses == 1
