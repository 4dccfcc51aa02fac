"""The citation forms other analysis runs write (issue 35), and reading without pygments (issue 36).

Unit tests of :mod:`pytest_memreport.dialects.core.anchors` on cells and sentences;
fixture runs of several writers' styles mixed, checked end to end against a real
repository built in a temporary folder (tests/fixtures/runs/forms-run); and a
property: whatever mix of forms a run is written in, the evidence parsed is the set
of citations written.
"""

from __future__ import annotations

import collections
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from repo_builder import RepoBuilder
from run_target import materialize
from test_repin_run_folder import moved  # noqa: F401 - the fixture: a target whose core/ became engine/
from test_repin_run_folder import run as repin_run

from pytest_memreport.checks import verify
from pytest_memreport.dialects import parse_folder, read_report, tables
from pytest_memreport.dialects.core import anchors
from pytest_memreport.dialects.runs import RunFile
from pytest_memreport.engine import Engine
from pytest_memreport.options import RunOptions

ROOT = Path(__file__).resolve().parent.parent


def cited(text: str, prose: bool = False) -> list[tuple]:
    found, _ = anchors.scan(anchors.plain_unit(text, 1), prose=prose)
    return [(c.path, c.source, tuple(str(r) for r in c.ranges), c.form) for c in found]


# --------------------------------------------------------------------------- issue 36


def test_the_anchors_read_with_pygments_absent():
    # pytest 8.3.5 does not bring pygments: reading a run must not need it, nor the
    # machine's MIME table (``mimetypes`` is blocked too).
    code = textwrap.dedent("""
        import sys
        sys.modules["pygments"] = None
        sys.modules["mimetypes"] = None
        from pytest_memreport.dialects.core import anchors
        found, _ = anchors.scan(anchors.plain_unit("`index.ts`, then `:12`; `JSON.stringify`, `:9`", 1))
        print([(c.path, c.form) for c in found])
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    # ``:9`` continues index.ts: JSON.stringify names a member, not a file.
    assert done.stdout.strip() == ("[('index.ts', 'path'), ('index.ts', 'continuation'), "
                                   "('JSON.stringify', 'path'), ('index.ts', 'continuation')]")


def test_the_extension_list_is_static_and_tells_files_from_members():
    from pytest_memreport.dialects.core.extensions import KNOWN_EXTENSIONS

    assert {"ts", "md", "py", "json", "sql", "yml", "png", "gz"} <= KNOWN_EXTENSIONS
    assert not {"length", "stringify", "keys", "error", "log", "env", "path"} & KNOWN_EXTENSIONS


# --------------------------------------------------------------------------- forms, unit by unit


@pytest.mark.parametrize(
    "text, prose, expected",
    [
        # a register entry of any upper-case prefix, en dash; a file inside a folder entry
        ("`PROPOSED-SRC-24:495–500`", False, [(None, "PROPOSED-SRC-24", ("495-500",), "source")]),
        ("EXT-07a:3", True, [(None, "EXT-7a", ("3",), "source")]),
        ("`SRC-5:package-lock.json:808–817`, `:900`", False,
         [("package-lock.json", "SRC-5", ("808-817",), anchors.INSIDE),
          ("package-lock.json", "SRC-5", ("900",), "continuation")]),
        ("PROPOSED-SRC-24:495–500, 510", True,
         [(None, "PROPOSED-SRC-24", ("495-500",), "source"), (None, "PROPOSED-SRC-24", ("510",), "continuation")]),
        # the root's leading slash, kept for the pin to decide (root, else a checkout)
        ("`/.github/workflows/`, /scripts/", False,
         [("/.github/workflows/", None, (), "absolute"), ("/scripts/", None, (), "absolute")]),
        ("repo-root `package.json` and root `tsconfig.json`", True,
         [("/package.json", None, (), "absolute"), ("/tsconfig.json", None, (), "absolute")]),
        # lines after a file named another way: backticked, after "lines", L-prefixed, after a link
        ("`src/schema.sql` then `512-520`", False,
         [("src/schema.sql", None, (), "path"), ("src/schema.sql", None, ("512-520",), "continuation")]),
        ("the schema in src/schema.sql at lines 512-520", True,
         [("src/schema.sql", None, ("512-520",), "continuation")]),
        ("src/schema.sql L512-L520", False,
         [("src/schema.sql", None, (), "path"), ("src/schema.sql", None, ("512-520",), "continuation")]),
        # braces holding a folder
        ("`src/core/minions/{handlers/,queue.ts}`", True,
         [("src/core/minions/handlers/", None, (), "brace"), ("src/core/minions/queue.ts", None, (), "brace")]),
        # folders with their slash in running prose; plain files there only anchor
        ("The folders src/, packages/ and docs/ hold it; index.ts too.", True,
         [("src/", None, (), "path"), ("packages/", None, (), "path"), ("docs/", None, (), "path")]),
    ],
)
def test_forms_other_runs_write(text, prose, expected):
    assert cited(text, prose) == expected


@pytest.mark.parametrize(
    "text",
    [
        "`index.ts` handles 3-5 retries",  # a plain count after a file is no range of it
        "built with Node.js at :40",  # a library's name is no file to continue
        "between 2019-2020 the docs/design changed",  # a span of years in prose
    ],
)
def test_what_only_looks_like_lines_after_a_file_is_not_read_as_them(text):
    assert all(form != "continuation" for *_, form in cited(text)) and all(
        form != "continuation" for *_, form in cited(text, prose=True))


def test_a_cell_of_lines_continues_the_one_file_of_its_row():
    report = tables.parse("lens.md", "| ID | File | Lines | Retries |\n|---|---|---|---|\n"
                                     "| OBJ-1 | `src/schema.sql` | lines 512-520, 600 | 3-5 |\n"
                                     "| OBJ-2 | `src/a.ts` | see the notes | `10-12` |\n"
                                     "| OBJ-3 | `src/a.ts`, `src/b.ts` | 4-5 | |\n")
    lines = {record.id: [str(e.cited_lines) for e in record.evidence if e.cited_lines] for record in report.records}
    # under a Lines column, plain ranges; elsewhere only a backticked one; two files: no guess
    assert lines == {"OBJ-1": ["512-520", "600"], "OBJ-2": ["10-12"], "OBJ-3": []}


def test_an_entry_no_file_of_the_run_defines():
    report = tables.parse("lens.md", "**Revision:** `0123456789abcdef0123456789abcdef01234567`\n\n"
                                     "| ID | Anchor |\n|---|---|\n| OBJ-1 | `PROPOSED-SRC-9:3-4` |\n"
                                     "| OBJ-2 | UTC-5:30 |\n")
    # a source register's entry that names no file is a finding; another prefix (a time zone) is a word
    assert [f.line for f in report.findings] == [5]
    assert "PROPOSED-SRC-9:3-4 cites lines, but the source register names no file" in report.findings[0].message
    assert [e for r in report.records for e in r.evidence] == []


# --------------------------------------------------------------------------- the forms, end to end


def numbered_sql(count: int) -> str:
    return "".join(f"ALTER TABLE parcels ADD COLUMN c{i} INTEGER;\n" for i in range(1, count + 1))


def numbered_ts(prefix: str, count: int, special: dict[int, str] | None = None) -> str:
    special = special or {}
    return "".join(special.get(i, f"export const {prefix}{i} = {i};") + "\n" for i in range(1, count + 1))


#: the target of tests/fixtures/runs/forms-run: root folders a run cites with a leading slash,
#: a bare name in two places (worker.ts), a folder register entry (deploy/)
DEPOT = {
    "README.md": "# Depot\n\nA store of parcels.\n",
    "package.json": '{\n  "name": "depot",\n  "private": true,\n  "workspaces": ["packages/*"]\n}\n',
    ".github/workflows/ci.yml": "name: ci\non: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n",
    "scripts/build.sh": "#!/bin/sh\nset -e\nnpm run build\n",
    "evals/cases.json": '{"cases": []}\n',
    "docs/design.md": ("# Design\n\nEvery parcel is weighed before it is stored.\n"
                       "A parcel that fails the scale is returned to its sender.\n"),
    "src/schema.sql": numbered_sql(600),
    "src/core/minions/queue.ts": numbered_ts("queueStep", 40, {2: "// parcels wait here for a free minion"}),
    "src/core/minions/worker.ts": numbered_ts("minionStep", 40),
    "src/core/minions/handlers/weigh.ts": "export function weigh(parcel) {\n  return parcel.grams;\n}\n",
    "src/legacy/worker.ts": numbered_ts("legacyStep", 40),
    "packages/labels/index.ts": "export const LABEL = 'parcel';\n",
    "deploy/package-lock.json": '{\n  "name": "depot",\n  "lockfileVersion": 3,\n  "packages": {}\n}\n',
}


@pytest.fixture
def forms_run(pytester, make_repo):
    repo = make_repo("depot")
    pin = repo.commit(DEPOT, "depot")
    folder = materialize("forms-run", pytester.path, PIN=pin)
    out = pytester.path / "out.json"
    result = pytester.runpytest("--memreport", str(folder), f"--memreport-repo=acme/depot={repo.path}",
                                "--memreport-json", str(out), "-rA", "--memreport-against", "none")
    data = json.loads(out.read_text())
    read = set()
    for report in data["reports"]:
        name = report["path"].rsplit("/", 1)[-1]
        for evidence in [e for rec in report["records"] for e in rec["evidence"]] + report["evidence"]:
            at_pin = evidence["at_pin"]
            read.add((name, evidence["line"], evidence["kind"], at_pin.get("path") or evidence["path"],
                      tuple(evidence.get("cited_lines") or ()), at_pin["status"]))
    return result, read, data


#: every citation a careful reader counts in forms-run: (file, line, kind, path at the pin, lines, status)
READER = {
    # the register, and register entries of another prefix defined in a file of their own
    ("evidence-packet.md", 9, "path", "src/core/minions/queue.ts", (), "found"),
    ("evidence-packet.md", 10, "path", "docs/design.md", (), "found"),
    ("evidence-packet.md", 11, "path", "src/schema.sql", (), "found"),
    ("evidence-packet.md", 12, "directory", "deploy", (), "found"),
    ("proposals.md", 5, "path", "src/core/minions/worker.ts", (), "found"),
    ("proposals.md", 6, "path", "docs/design.md", (), "found"),
    # terse table cells
    ("lens-store.md", 5, "lines", "src/core/minions/worker.ts", (3, 5), "found"),
    ("lens-store.md", 6, "lines", "docs/design.md", (3, 4), "found"),
    ("lens-store.md", 6, "lines", "deploy/package-lock.json", (2, 4), "found"),
    ("lens-store.md", 7, "path", "src/schema.sql", (), "found"),
    ("lens-store.md", 7, "lines", "src/schema.sql", (512, 520), "found"),
    ("lens-store.md", 8, "directory", "src/core/minions/handlers", (), "found"),
    ("lens-store.md", 8, "path", "src/core/minions/queue.ts", (), "found"),
    ("lens-store.md", 9, "directory", ".github/workflows", (), "found"),
    ("lens-store.md", 9, "lines", "scripts/build.sh", (2, 2), "found"),
    ("lens-store.md", 9, "directory", "evals", (), "found"),
    ("lens-store.md", 10, "quote", "docs/design.md", (3, 3), "found"),
    ("lens-store.md", 10, "lines", "src/core/minions/queue.ts", (3, 3), "found"),
    ("lens-store.md", 10, "lines", "docs/design.md", (4, 4), "found"),
    ("lens-store.md", 11, "path", "/home/ana/notes/todo.txt", (), "not-evidence"),
    ("lens-store.md", 11, "directory", "/tmp/depot-cache", (), "not-evidence"),
    ("lens-store.md", 15, "path", "src/schema.sql", (), "found"),  # a Lines column; 3-5 retries are no lines
    ("lens-store.md", 15, "lines", "src/schema.sql", (590, 600), "found"),
    # running prose, and a link followed by its lines
    ("lens-flow.md", 5, "lines", "src/core/minions/queue.ts", (10, 12), "found"),
    ("lens-flow.md", 5, "lines", "src/core/minions/queue.ts", (20, 20), "found"),
    ("lens-flow.md", 6, "directory", "src", (), "found"),
    ("lens-flow.md", 6, "directory", "packages", (), "found"),
    ("lens-flow.md", 6, "directory", "docs", (), "found"),
    ("lens-flow.md", 7, "directory", ".github/workflows", (), "found"),
    ("lens-flow.md", 7, "path", "scripts/build.sh", (), "found"),
    ("lens-flow.md", 9, "lines", "src/core/minions/handlers/weigh.ts", (1, 3), "found"),
    ("lens-flow.md", 9, "lines", "src/core/minions/worker.ts", (7, 7), "found"),
    ("lens-flow.md", 10, "quote", "docs/design.md", (), "found"),
    ("lens-flow.md", 10, "lines", "src/core/minions/queue.ts", (2, 2), "found"),
    ("lens-flow.md", 10, "lines", "docs/design.md", (3, 3), "found"),
    ("lens-flow.md", 12, "path", "package.json", (), "found"),
    ("lens-flow.md", 12, "lines", "deploy/package-lock.json", (2, 2), "found"),
    ("lens-flow.md", 12, "directory", "/home/ana/depot-notes", (), "not-evidence"),
    ("lens-flow.md", 16, "path", "src/core/minions/handlers/weigh.ts", (), "found"),
    ("lens-flow.md", 16, "lines", "src/core/minions/handlers/weigh.ts", (2, 3), "found"),
    # a register row of the analyst's checkout in a third file, cited from a fourth; fenced lines
    ("runtime-account.md", 7, "path", "scripts/build.sh", (), "found"),
    ("runtime-account.md", 10, "lines", "src/core/minions/worker.ts", (10, 12), "found"),
    ("runtime-account.md", 11, "lines", "scripts/build.sh", (1, 3), "found"),
    ("trial-notes.md", 3, "lines", "scripts/build.sh", (3, 3), "found"),
    ("trial-notes.md", 3, "path", ".github/workflows/ci.yml", (), "found"),
    ("trial-notes.md", 4, "lines", "docs/design.md", (3, 3), "found"),
    ("trial-notes.md", 4, "quote", "docs/design.md", (), "found"),
}


def test_a_run_of_mixed_writers_reads_as_a_reader_counts(forms_run):
    result, read, _ = forms_run
    assert read == READER
    outcomes = result.parseoutcomes()
    assert "failed" not in outcomes and outcomes["skipped"] == 3, outcomes


def test_a_leading_slash_is_the_repository_root_not_a_checkout(tmp_path, make_repo):
    repo = make_repo("depot")
    folder = materialize("forms-run", tmp_path, PIN=repo.commit(DEPOT, "depot"))
    files = [RunFile(str(p), read_report(p)[0]) for p in sorted(folder.glob("*.md"))]
    (run,) = parse_folder(str(folder), files)
    engine = Engine(RunOptions(repos={"acme/depot": str(repo.path)}, against="none", rootdir=folder))
    said: list[str] = []
    engine.progress = said.append
    store = next(r for r in run.reports if r.path.endswith("lens-store.md"))
    rooted = [e for e in engine.checkable(store, tuple(store.all_evidence())) if e.written == "/.github/workflows"]
    assert [(e.path, engine.pin_result(store, e).status) for e in rooted] == [(".github/workflows", "found")]
    # read as the root's: no checkout was mapped onto the repository (a machine path still is)
    assert not [line for line in said if "mapped the checkout" in line and "/.github" in line]
    assert not [line for line in said if "mapped the checkout  onto" in line]


# --------------------------------------------------------------------------- the property


QUEUE, WORKER, DESIGN, SCHEMA = ("src/core/minions/queue.ts", "src/core/minions/worker.ts", "docs/design.md",
                                 "src/schema.sql")
LOCK = "deploy/package-lock.json"


def _lines(low: int, high: int, span: int = 5, dash: bool = False):
    """Line ranges ``(a, b)`` within ``low..high``; ``dash``: at least two lines (``12-15``)."""
    return st.integers(low, high - 1 if dash else high).flatmap(
        lambda a: st.tuples(st.just(a), st.integers(a + 1 if dash else a, min(a + span, high))))


def _written(r: tuple[int, int], dash: str = "-") -> str:
    return str(r[0]) if r[0] == r[1] else f"{r[0]}{dash}{r[1]}"


#: one form of citation: (what the writer writes, the evidence it is: (kind, path at the pin, lines))
FORM = st.one_of(
    # register entries of another prefix, defined in another file of the run (en dash or not)
    _lines(1, 40).map(lambda r: (f"`PROPOSED-SRC-21:{_written(r, '–')}`", [("lines", WORKER, r)])),
    _lines(1, 4).map(lambda r: (f"PROPOSED-SRC-22:{_written(r)}", [("lines", DESIGN, r)])),
    # a file inside a folder entry
    _lines(1, 5).map(lambda r: (f"`SRC-5:package-lock.json:{_written(r, '–')}`", [("lines", LOCK, r)])),
    st.tuples(_lines(1, 5), _lines(1, 5)).map(lambda rs: (
        f"`SRC-5:package-lock.json:{_written(rs[0])}`, `:{_written(rs[1])}`", [("lines", LOCK, r) for r in rs])),
    st.tuples(_lines(1, 40), _lines(1, 40)).map(lambda rs: (
        f"PROPOSED-SRC-21:{_written(rs[0], '–')}, {_written(rs[1], '–')}", [("lines", WORKER, r) for r in rs])),
    # a file named one way, its lines after it in another
    _lines(1, 600, dash=True).map(lambda r: (f"`src/schema.sql` then `{r[0]}-{r[1]}`",
                                             [("path", SCHEMA, None), ("lines", SCHEMA, r)])),
    _lines(1, 600, dash=True).map(lambda r: (f"`src/schema.sql` at lines {r[0]}-{r[1]}",
                                             [("path", SCHEMA, None), ("lines", SCHEMA, r)])),
    # braces holding a folder
    st.just(("`src/core/minions/{handlers/,queue.ts}`",
             [("directory", "src/core/minions/handlers", None), ("path", QUEUE, None)])),
    # the leading slash of the repository root
    st.just(("`/.github/workflows/`", [("directory", ".github/workflows", None)])),
    st.just(("/evals/", [("directory", "evals", None)])),
    _lines(1, 3).map(lambda r: (f"`/scripts/build.sh:{_written(r)}`", [("lines", "scripts/build.sh", r)])),
    # plain folders
    st.sampled_from(["src/", "packages/", "docs/"]).map(lambda p: (p, [("directory", p.rstrip("/"), None)])),
    # a bare name with two places in the tree, beside a file of one of them
    st.tuples(_lines(1, 40), _lines(1, 40)).map(lambda rs: (
        f"`{QUEUE}:{_written(rs[0])}` and `worker.ts:{_written(rs[1])}`",
        [("lines", QUEUE, rs[0]), ("lines", WORKER, rs[1])])),
    st.tuples(_lines(1, 40), _lines(1, 40)).map(lambda rs: (
        f"`queue.ts:{_written(rs[0])}`, `worker.ts:{_written(rs[1])}`",
        [("lines", QUEUE, rs[0]), ("lines", WORKER, rs[1])])),
    # a quotation its nearest citation's file does not hold, another cited beside it does
    _lines(1, 40).map(lambda r: (
        f'"A parcel that fails the scale is returned to its sender" (`SRC-1:{_written(r)}`, `SRC-2:4`)',
        [("quote", DESIGN, None), ("lines", QUEUE, r), ("lines", DESIGN, (4, 4))])),
)


@pytest.fixture(scope="module")
def depot(tmp_path_factory):
    repo = RepoBuilder(tmp_path_factory.mktemp("property") / "depot")
    return repo, repo.commit(DEPOT, "depot")


def _lens(rows: list[list[tuple]], paragraphs: list[list[tuple]]) -> str:
    lines = ["# Lens — RUN `DEPOT-7`", "", "| ID | What | Anchor |", "|---|---|---|"]
    for number, row in enumerate(rows, start=1):
        lines.append(f"| OBJ-{number} | part {number} | {'; '.join(text for text, _ in row)} |")
    lines += ["", "## Notes", ""]
    for paragraph in paragraphs:
        lines += [" ".join(f"See {text}." for text, _ in paragraph), ""]
    return "\n".join(lines) + "\n"


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.lists(FORM, min_size=1, max_size=4), max_size=5),
       paragraphs=st.lists(st.lists(FORM, min_size=1, max_size=4), max_size=3))
def test_the_evidence_read_is_the_citations_written_whatever_the_mix(depot, tmp_path_factory, rows, paragraphs):
    repo, pin = depot
    folder = materialize("forms-run", tmp_path_factory.mktemp("run"), PIN=pin)
    for other in ("lens-store.md", "lens-flow.md", "runtime-account.md", "trial-notes.md"):
        (folder / other).unlink()
    (folder / "lens.md").write_text(_lens(rows, paragraphs), encoding="utf-8")
    files = [RunFile(str(p), read_report(p)[0]) for p in sorted(folder.glob("*.md"))]
    (run,) = parse_folder(str(folder), files)
    lens = next(r for r in run.reports if r.path.endswith("lens.md"))
    assert lens.findings == ()
    engine = Engine(RunOptions(repos={"acme/depot": str(repo.path)}, against="none", rootdir=folder))
    read = collections.Counter()
    for item in engine.checkable(lens, tuple(lens.all_evidence())):
        assert engine.not_evidence(lens, item) is None, item
        result = engine.pin_result(lens, item)
        assert result.status == verify.FOUND and not result.misplaced, (item, result.message)
        lines = (item.cited_lines.start, item.cited_lines.end) if item.cited_lines else None
        read[(item.kind.value, item.path, lines)] += 1
    written = collections.Counter(evidence for unit in rows + paragraphs for _, forms in unit
                                  for evidence in forms)
    assert read == written


# --------------------------------------------------------------------------- re-pin of a brace group holding a folder


def test_a_brace_group_holding_a_moved_folder_refuses_the_repin_instead_of_claiming_a_write(pytester, moved):
    # ``core/`` became ``engine/``: the group cannot be rewritten as one, so the re-pin says so
    # and keeps every byte (it once said "wrote" and wrote nothing).
    repo, pin, _head = moved
    report = pytester.path / "braces.md"
    text = (f"# Run 9: relay\n\nThe run reads github.com/acme/relay.\n\n**Revision:** `{pin[:7]}`\n\n"
            "| ID | Path |\n| --- | --- |\n| SRC-1 | `src/relay/index.ts` |\n\n"
            "| ID | Object | Anchor |\n| --- | --- | --- |\n"
            "| OBJ-1 | the engine and its notes | `src/relay/{core/,README.md}` |\n")
    report.write_text(text, encoding="utf-8")
    result = repin_run(pytester, report, repo, "--memreport-write", "--memreport-repin=HEAD")
    out = result.stdout.str()
    assert "braces.md: re-pin to HEAD refused" in out
    assert "braces.md:13: not rewritten: src/relay/core must read src/relay/engine" in out
    assert "wrote braces.md" not in out
    assert report.read_text(encoding="utf-8") == text


def test_a_register_entry_of_another_prefix_is_the_first_file_its_row_names_in_any_file_of_the_run(tmp_path):
    pin = "0123456789abcdef0123456789abcdef01234567"
    (tmp_path / "proposed.md").write_text(
        f"# Proposed — RUN `Q-1`\n\n**Revision:** `{pin}`\n\n| ID | Source | Why |\n|---|---|---|\n"
        "| PROPOSED-SRC-3 | `src/a.ts` | unlike `src/b.ts` |\n", encoding="utf-8")
    (tmp_path / "lens.md").write_text(
        "# Lens — RUN `Q-1`\n\n| ID | Anchor |\n|---|---|\n| OBJ-1 | `PROPOSED-SRC-3:4–6`, `PROPOSED-SRC-3a:7` |\n",
        encoding="utf-8")
    files = [RunFile(str(p), read_report(p)[0]) for p in sorted(tmp_path.glob("*.md"))]
    (run,) = parse_folder(str(tmp_path), files)
    lens = next(r for r in run.reports if r.path.endswith("lens.md"))
    assert lens.findings == ()
    assert [(e.path, str(e.cited_lines), e.source) for e in lens.all_evidence()] == [
        ("src/a.ts", "4-6", None), ("src/a.ts", "7", None)]


def test_a_bare_name_with_several_places_is_the_one_beside_the_files_cited_with_it():
    from pytest_memreport.checks.paths import TreeIndex, resolve

    index = TreeIndex.build(["src/core/worker.ts", "src/core/queue.ts", "src/core/handlers/weigh.ts",
                             "src/legacy/worker.ts", "src/legacy/README.md"])
    assert resolve(index, "worker.ts", "file", near=("src/core/handlers/weigh.ts",)).path == "src/core/worker.ts"
    assert resolve(index, "worker.ts", "file", near=("queue.ts",)).path == "src/core/worker.ts"
    assert resolve(index, "worker.ts", "file", near=("README.md",)).path == "src/legacy/worker.ts"
    # nothing beside it decides: the candidates are listed, nothing is guessed
    undecided = resolve(index, "worker.ts", "file", near=("docs/guide.md",))
    assert (undecided.path, undecided.candidates) == (None, ("src/core/worker.ts", "src/legacy/worker.ts"))


def test_a_path_written_from_above_the_checkout_is_read_from_its_root():
    from pytest_memreport.checks.paths import TreeIndex, resolve

    index = TreeIndex.build(["stdlib/os.pyi", "widgets/README.md", "README.md"])
    assert resolve(index, "typeshed/stdlib/os.pyi", "file", checkouts=("typeshed",)).path == "stdlib/os.pyi"
    # only the checkout's own name is dropped, and never a folder the tree has
    assert resolve(index, "vendor/stdlib/os.pyi", "file", checkouts=("typeshed",)).path is None
    assert resolve(index, "widgets/README.md", "file", checkouts=("widgets",)).path == "widgets/README.md"


def test_a_cited_path_under_the_checkouts_name_is_checked_at_the_root(pytester, make_repo):
    # `widgets/src/a.py:1` as written from the folder above the checkout: file-missing before
    repo = make_repo("widgets")
    pin = repo.commit({"src/a.py": "alpha = 1\n"}, "pin")
    (pytester.path / "note.md").write_text(
        f"# Note\n\nPinned to the acme/widgets revision `{pin}`.\n\nAlpha is `widgets/src/a.py:1`.\n",
        encoding="utf-8")
    result = pytester.runpytest("--memreport", "note.md", f"--memreport-repo=widgets={repo.path}", "-rA")

    assert result.ret == 0, result.stdout.str()[-2000:]
    result.assert_outcomes(passed=4)


def test_a_register_naming_each_entrys_repository_checks_each_in_its_own(pytester, make_repo):
    # A run over two repositories: each register entry was given the run's one repository, so
    # SRC-2's pin was "no commit" in widgets and its citations unchecked.
    widgets, gadgets = make_repo("widgets"), make_repo("gadgets")
    widgets_pin = widgets.commit({"src/queue.py": "queue = []\n"}, "widgets")
    gadgets_pin = gadgets.commit({"lib/scale.py": "def weigh(grams):\n    return grams // 1000\n"}, "gadgets")
    run = pytester.path / "run"
    run.mkdir()
    (run / "evidence-packet.md").write_text(
        "# Evidence packet\n\n| ID | Identity | Repository | Revision |\n| --- | --- | --- | --- |\n"
        f"| SRC-1 | `src/queue.py` | acme/widgets | `{widgets_pin[:10]}` |\n"
        f"| SRC-2 | `lib/scale.py` | acme/gadgets | `{gadgets_pin[:10]}` |\n", encoding="utf-8")
    (run / "lens-flow.md").write_text(
        "# Lens: flow\n\n| ID | Claim | Evidence |\n| --- | --- | --- |\n"
        "| OBJ-1 | Parcels queue | `SRC-1:1` |\n| OBJ-2 | Weighing divides | `SRC-2:1-2` |\n", encoding="utf-8")
    out = pytester.path / "out.json"
    result = pytester.runpytest("--memreport", "run", f"--memreport-repo=acme/widgets={widgets.path}",
                                f"--memreport-repo=acme/gadgets={gadgets.path}", f"--memreport-json={out}")

    assert result.ret == 0, result.stdout.str()[-3000:]
    lens = next(r for r in json.loads(out.read_text())["reports"] if r["path"].endswith("lens-flow.md"))
    assert {e["path"]: e["at_pin"]["status"] for r in lens["records"] for e in r["evidence"]} == {
        "src/queue.py": "found", "lib/scale.py": "found"}


def test_a_cited_file_the_clone_lacks_holds_no_quotation_and_breaks_nothing(tmp_path, make_repo):
    import os

    repo = make_repo("depot")
    pin = repo.commit({"src/queue.ts": "export const q = 1;\n", "docs/lost.md": "# Lost\n\nThe scale returns parcels.\n",
                       "docs/design.md": "# Design\n\nEvery parcel is weighed first.\n"}, "depot")
    lost = subprocess.run(["git", "-C", str(repo.path), "rev-parse", f"{pin}:docs/lost.md"], capture_output=True,
                          text=True, check=True).stdout.strip()
    os.remove(repo.path / ".git" / "objects" / lost[:2] / lost[2:])
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "lens.md").write_text(
        f"github.com/acme/depot, **Revision:** `{pin}`\n\n| ID | Claim | Anchor |\n|---|---|---|\n"
        '| OBJ-1 | "Every parcel is weighed first" | `src/queue.ts:1`, `docs/lost.md:3`, `docs/design.md:3` |\n',
        encoding="utf-8")
    files = [RunFile(str(p), read_report(p)[0]) for p in sorted((tmp_path / "run").glob("*.md"))]
    (run,) = parse_folder(str(tmp_path / "run"), files, dialect="tables")
    (lens,) = run.reports
    engine = Engine(RunOptions(repos={"acme/depot": str(repo.path)}, rootdir=tmp_path, against="none"))
    checked = engine.checkable(lens, tuple(lens.all_evidence()))
    # the lost file is passed over (its own item says it cannot be read); the next one holds it
    (quote,) = [e for e in checked if e.kind.value == "quote"]
    assert (quote.path, engine.pin_result(lens, quote).status) == ("docs/design.md", verify.FOUND)
    lost_lines = next(e for e in checked if e.path == "docs/lost.md")
    assert engine.pin_result(lens, lost_lines).status == verify.UNREADABLE
