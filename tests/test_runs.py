"""Analysis runs (FORMAT.md §3) as users run them: a folder of files is one run with one
repository, one register and one pin (issue 14).

The runs are tests/fixtures/runs/*; their target is built for real by run_target.py.
Every run here is checked with no --memreport-pin and no --memreport-dialect.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest
from run_target import build_target, materialize

from pytest_memreport.checks.structure import dangling_references, structure_findings
from pytest_memreport.dialects import parse_folder, read_report
from pytest_memreport.dialects.runs import RunFile


def parse(folder: Path):
    files = [RunFile(str(p), read_report(p)[0]) for p in sorted(folder.glob("*.md"))]
    return parse_folder(str(folder), files)


def run_json(result_path: Path) -> dict:
    data = json.loads(result_path.read_text())
    return {Path(r["path"]).name: r for r in data["reports"]}


def all_evidence(report_json: dict) -> list[dict]:
    found = list(report_json.get("evidence", []))
    for record in report_json.get("records", []):
        found.extend(record.get("evidence", []))
    return found


# --------------------------------------------------------------------------- one run, parsed


def test_a_folder_is_one_run_sharing_register_repository_and_pin(tmp_path, make_repo):
    repo, pin = build_target(make_repo)
    folder = materialize("subtree-run", tmp_path, PIN=pin, PIN7=pin[:7])
    (run,) = parse(folder)
    assert run.identity == "WID-7-widgets"
    assert [Path(r.path).name for r in run.reports] == [
        "RESULT.md", "evidence-packet.md", "lens-queue.md", "runtime-account.md", "trial-notes.md",
    ]
    # Every file is read as the tables dialect, though only the packet has a register.
    assert {r.dialect for r in run.reports} == {"tables"}
    for report in run.reports:
        src1 = report.source("SRC-1")
        # The register's short spelling of the run's pin is the run's full pin.
        assert (src1.pin, src1.repository, src1.subject) == (pin, "Acme/Servers", "src/widgets")
        assert Path(src1.file).name == "evidence-packet.md" and src1.registered
    lens = next(r for r in run.reports if r.path.endswith("lens-queue.md"))
    # SRC-2:7 in the lens resolves through the packet's register.
    assert ("src/widgets/README.md", 12, "SRC-2") in {(e.path, e.line, e.source) for e in lens.all_evidence()}
    # Every SRC-n and record reference resolves across the run; no record-report rules apply.
    assert dangling_references(run.reports) == {}
    assert all(structure_findings(r) == [] for r in run.reports)


def test_ids_are_read_as_written(tmp_path, make_repo):
    _, pin = build_target(make_repo)
    (run,) = parse(materialize("subtree-run", tmp_path, PIN=pin, PIN7=pin[:7]))
    packet = next(r for r in run.reports if r.path.endswith("evidence-packet.md"))
    ids = [r.id for r in packet.records]
    assert {"OBJ-05a", "OBJ-05/OBJ-01", "CLM-1/a1", "CLM-1/a2", "RTE-10-accept", "PROPOSED-SRC-22"} <= set(ids)
    runtime = next(r for r in run.reports if r.path.endswith("runtime-account.md"))
    # OBJ-05 and OBJ-01, declared together in one cell, and RTE-10-accept resolve from another file.
    assert {"RTE-10-accept", "OBJ-05", "OBJ-01"} <= {ref.target for ref in runtime.all_references()}


# --------------------------------------------------------------------------- runs as users run them


def test_subtree_run_binds_the_repository_case_insensitively_and_passes(pytester, make_repo):
    repo, pin = build_target(make_repo)
    folder = materialize("subtree-run", pytester.path, PIN=pin, PIN7=pin[:7])
    out = pytester.path / "out.json"
    # The run says github.com/Acme/Servers; the user spells it acme/servers.
    result = pytester.runpytest("--memreport", str(folder), f"--memreport-repo=acme/servers={repo.path}",
                                "--memreport-json", str(out), "-rs")
    # a mention found to be no evidence when its item runs skips at the pin and at HEAD
    result.assert_outcomes(passed=128, skipped=2 * 11)
    reports = run_json(out)
    lens = all_evidence(reports["lens-queue.md"])
    by_written = {(e["line"], e["path"], tuple(e["cited_lines"] or ())) for e in lens if e["kind"] == "lines"}
    assert (9, "src/widgets/core/think/index.ts", (3, 4)) in by_written  # partial path, unique in the subject
    assert (8, "src/widgets/core/queue.ts", (50, 52)) in by_written  # "cols at :50-52"
    assert (13, "src/widgets/core/worker.ts", (20, 21)) in by_written  # comma and space
    assert (7, "src/widgets/index.ts", (42, 42)) in by_written  # `:42` continues `index.ts:41`
    elided = next(e for e in lens if e["line"] == 9 and e["kind"] == "path")
    assert elided["path"] == "src/widgets/README.md" and elided["at_pin"]["status"] == "found"
    stdout = result.stdout.str()
    result.stdout.fnmatch_lines(["fresh*subtree-run/RESULT.md*4 checks hold (8 not evidence)"])
    assert "not evidence: `P@5/R@5`: the pinned tree has no top folder 'P@5'" in stdout
    assert "not evidence: `evidence-packet.md` is a path of the report's own folders" in stdout
    assert "file-missing" not in stdout


def test_run_without_repository_line_binds_the_default_clone_and_maps_checkout_paths(pytester, make_repo):
    repo, pin = build_target(make_repo)
    folder = materialize("checkout-run", pytester.path, PIN=pin, PIN7=pin[:7])
    out = pytester.path / "out.json"
    result = pytester.runpytest("--memreport", str(folder), f"--memreport-repo={repo.path}", "-v",
                                "--memreport-json", str(out))
    result.assert_outcomes(passed=41, skipped=2)  # the one mention that is no evidence, at the pin and HEAD
    stdout = result.stdout.str()
    assert f"memreport: mapped the checkout /Users/bo/code/servers onto {repo.path}" in stdout
    lens = all_evidence(run_json(out)["lens-queue.md"])
    worker = next(e for e in lens if e["line"] == 6)
    assert worker["path"] == "src/widgets/core/worker.ts" and worker["at_pin"]["status"] == "found"
    packet = all_evidence(run_json(out)["evidence-packet.md"])
    # The stated checkout root maps the register's absolute paths.
    assert {e["path"] for e in packet} >= {"src/widgets/core/queue.ts", "src/widgets/README.md", "docs"}


def test_a_named_repository_without_its_clone_is_one_clear_line(pytester, make_repo):
    repo, pin = build_target(make_repo)
    folder = materialize("subtree-run", pytester.path, PIN=pin, PIN7=pin[:7])
    result = pytester.runpytest("--memreport", str(folder), f"--memreport-repo=acme/other={repo.path}")
    stdout = result.stdout.str()
    assert "the report names Acme/Servers, but --memreport-repo maps only acme/other; " \
           "give --memreport-repo Acme/Servers=PATH" in stdout
    assert "Traceback" not in stdout


# --------------------------------------------------------------------------- pins


def _commit_object(tree: str, parent: str, message: str) -> bytes:
    stamp = "Fixture Author <fixture@example.invalid> 1700000000 +0000"
    return f"tree {tree}\nparent {parent}\nauthor {stamp}\ncommitter {stamp}\n\n{message}\n".encode()


def craft_ambiguous_prefix(repo) -> tuple[str, str, str]:
    """Two real commits whose ids share their first 7 hex digits: ``(prefix, a, b)``.

    The ids are computed as git does (sha1 of ``commit <size>\\0<body>``) until two
    collide on 7 digits (about 2**14 tries), then written with ``git hash-object``."""
    head = repo.repo.head.commit.hexsha
    tree = repo.repo.head.commit.tree.hexsha
    seen: dict[str, bytes] = {}
    attempt = 0
    while True:
        body = _commit_object(tree, head, f"variant {attempt}")
        oid = hashlib.sha1(b"commit %d\0" % len(body) + body).hexdigest()
        prior = seen.get(oid[:7])
        if prior is not None:
            break
        seen[oid[:7]] = body
        attempt += 1
    made = []
    for index, content in enumerate((prior, body)):
        written = subprocess.run(["git", "hash-object", "-t", "commit", "-w", "--stdin"], cwd=repo.path,
                                 input=content, capture_output=True, check=True).stdout.decode().strip()
        subprocess.run(["git", "update-ref", f"refs/heads/variant-{index}", written], cwd=repo.path, check=True)
        made.append(written)
    assert made[0][:7] == made[1][:7] and made[0] != made[1]
    return made[0][:7], made[0], made[1]


def test_abbreviated_pin_resolves_to_the_unique_commit(pytester, make_repo):
    repo, pin = build_target(make_repo)
    folder = materialize("subtree-run", pytester.path, PIN=pin[:9], PIN7=pin[:7])
    result = pytester.runpytest("--memreport", str(folder), f"--memreport-repo=acme/servers={repo.path}")
    result.assert_outcomes(passed=128, skipped=2 * 11)


def test_ambiguous_prefix_lists_the_candidates_on_one_line(pytester, make_repo):
    repo, pin = build_target(make_repo)
    prefix, first, second = craft_ambiguous_prefix(repo)
    folder = materialize("subtree-run", pytester.path, PIN=prefix, PIN7=prefix)
    result = pytester.runpytest("--memreport", str(folder), f"--memreport-repo=acme/servers={repo.path}")
    stdout = result.stdout.str()
    line = next(row for row in stdout.splitlines() if "is ambiguous in" in row)
    assert f"revision '{prefix}' is ambiguous in {repo.path}: 2 commits begin with it:" in line
    assert first[:12] in line and second[:12] in line and "give more digits" in line
    assert result.ret == 1 and "0 failed" not in stdout  # nothing was checked: never green
    # every report of the run is unchecked for that reason: one table line, never a pass
    result.stdout.fnmatch_lines(["*report(s): * unchecked*"])
    assert "fresh" not in stdout


def test_prefix_matching_nothing_says_how_old_the_clone_is(pytester, make_repo):
    repo, pin = build_target(make_repo)
    unknown = "0000000" if not pin.startswith("0000000") else "fffffff"
    folder = materialize("subtree-run", pytester.path, PIN=unknown, PIN7=unknown)
    result = pytester.runpytest("--memreport", str(folder), f"--memreport-repo=acme/servers={repo.path}")
    stdout = result.stdout.str()
    assert f"revision '{unknown}' matches no commit in {repo.path}; its newest commit is from 20" in stdout


def test_two_pins_in_one_run_are_one_finding_and_each_file_keeps_its_own(pytester, make_repo):
    repo, pin = build_target(make_repo)
    later = repo.commit({"src/widgets/core/queue.ts": "export const moved = 1;\n" + "\n" * 3 +
                         "".join(f"export const queueStep{i} = {i};\n" for i in range(1, 61))}, "shift")
    folder = materialize("subtree-run", pytester.path, PIN=pin, PIN7=pin[:7])
    runtime = folder / "runtime-account.md"
    runtime.write_text(runtime.read_text().replace(f"`{pin[:7]}`", f"`{later[:10]}`"), encoding="utf-8")
    out = pytester.path / "out.json"
    result = pytester.runpytest("--memreport", str(folder), f"--memreport-repo=acme/servers={repo.path}",
                                "--memreport-json", str(out), "--memreport-against", pin)
    stdout = result.stdout.str()
    assert f"this file pins {later[:10]}, but {folder.relative_to(pytester.path)}/evidence-packet.md:11 " \
           f"pins {pin} for the same run" in stdout
    reports = run_json(out)
    assert later.startswith(reports["runtime-account.md"]["sources"][0]["pin"])
    assert reports["lens-queue.md"]["sources"][0]["pin"] == pin
    # The runtime account's route is checked at its own pin, where queue.ts line 1 moved.
    route = next(e for e in all_evidence(reports["runtime-account.md"]) if e["line"] == 7 and
                 e["path"].endswith("queue.ts"))
    assert route["at_pin"]["status"] == "found"


def test_a_register_row_naming_no_file_fails_its_citations_with_the_row(pytester, make_repo):
    repo, pin = build_target(make_repo)
    folder = materialize("subtree-run", pytester.path, PIN=pin, PIN7=pin[:7])
    packet = folder / "evidence-packet.md"
    packet.write_text(packet.read_text().replace("`src/widgets/README.md` |", "`src/widgets/READ.md` |"),
                      encoding="utf-8")
    result = pytester.runpytest("--memreport", str(folder), f"--memreport-repo=acme/servers={repo.path}")
    stdout = result.stdout.str()
    assert "lens-queue.md:12: lines 7 of src/widgets/READ.md file-missing" in stdout
    assert f"the source register names it for SRC-2 at {folder.relative_to(pytester.path)}/evidence-packet.md:20" \
           in stdout


def test_a_folder_mixing_two_runs_parses_each_on_its_own(tmp_path, make_repo):
    _, pin = build_target(make_repo)
    one = materialize("subtree-run", tmp_path / "a", PIN=pin, PIN7=pin[:7])
    two = materialize("checkout-run", tmp_path / "b", PIN=pin, PIN7=pin[:7])
    mixed = tmp_path / "mixed"
    mixed.mkdir()
    for source, prefix in ((one, "w7-"), (two, "w9-")):
        for path in source.iterdir():
            (mixed / (prefix + path.name)).write_text(path.read_text(), encoding="utf-8")
    runs = parse(mixed)
    assert sorted((run.identity, len(run.reports)) for run in runs) == [("WID-7-widgets", 5), ("WID-9-checkout", 4)]
    for run in runs:
        register = {s.id: s for s in run.reports[0].sources if s.registered}
        assert all(r.source("SRC-1").file == register["SRC-1"].file for r in run.reports)
    w9 = next(run for run in runs if run.identity == "WID-9-checkout")
    lens = next(r for r in w9.reports if r.path.endswith("lens-queue.md"))
    # SRC-1 there is the checkout run's queue.ts, not the subtree run's index.ts.
    assert {e.path for e in lens.all_evidence() if e.source == "SRC-1"} == {"src/widgets/core/queue.ts"}


def test_a_file_alone_is_still_a_run_of_one(tmp_path, make_repo):
    _, pin = build_target(make_repo)
    folder = materialize("subtree-run", tmp_path, PIN=pin, PIN7=pin[:7])
    lens = folder / "lens-queue.md"
    (alone,) = parse_folder(str(folder), [RunFile(str(lens), lens.read_text())])
    (report,) = alone.reports
    # Alone, nothing says it is an analysis run (no register, no revision): read as today.
    assert report.dialect == "records" and report.run is None
    packet = folder / "evidence-packet.md"
    (alone,) = parse_folder(str(folder), [RunFile(str(packet), packet.read_text())])
    assert alone.reports[0].dialect == "tables" and alone.reports[0].findings == ()


@pytest.mark.parametrize("dialect", ["tables", "records"])
def test_a_forced_dialect_still_overrides(tmp_path, make_repo, dialect):
    _, pin = build_target(make_repo)
    folder = materialize("subtree-run", tmp_path, PIN=pin, PIN7=pin[:7])
    files = [RunFile(str(p), read_report(p)[0]) for p in sorted(folder.glob("*.md"))]
    runs = parse_folder(str(folder), files, dialect)
    assert {r.dialect for run in runs for r in run.reports} == {dialect}


PIN_SHA = "9a0bae8c1d2e3f405162738495a6b7c8d9e0f1a2"


@pytest.mark.parametrize(
    "stated, expected",
    [
        (f"**Revision:** `{PIN_SHA}`", PIN_SHA),
        ("**Revision.** `9a0bae8`", "9a0bae8"),
        (f"**Frozen revision:** {PIN_SHA}", PIN_SHA),
        (f"| Field | Value |\n|---|---|\n| Revision | `{PIN_SHA}` |", PIN_SHA),
        ("| Key | Value |\n|---|---|\n| **reviewed revision/version** | `9a0bae8c1d` (dated 2026-01-02) |", "9a0bae8c1d"),
        ("Target: widgets at `9a0bae8`, inspected read-only.", "9a0bae8"),
        ("All four files were read in full at `9a0bae8`.", "9a0bae8"),
    ],
)
def test_every_pin_shape_stated_in_one_file_holds_for_the_run(tmp_path, stated, expected):
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "boundary.md").write_text(f"# Boundary — RUN `S-1`\n\n{stated}\n", encoding="utf-8")
    (folder / "packet.md").write_text(
        "# Packet — RUN `S-1`\n\n| ID | Identity |\n|---|---|\n| SRC-1 | `src/a.ts` |\n", encoding="utf-8")
    (folder / "lens.md").write_text(
        "# Lens — RUN `S-1`\n\n| ID | Anchor |\n|---|---|\n| OBJ-1 | `SRC-1:3` |\n", encoding="utf-8")
    (run,) = parse(folder)
    for report in run.reports:
        assert report.source("SRC-1").pin == expected
    lens = next(r for r in run.reports if r.path.endswith("lens.md"))
    assert [(e.path, str(e.cited_lines)) for e in lens.all_evidence()] == [("src/a.ts", "3")]


def test_a_claims_file_source_binds_the_named_repository_case_insensitively(pytester, make_repo):
    repo, pin = build_target(make_repo)
    folder = materialize("subtree-run", pytester.path, PIN=pin, PIN7=pin[:7])
    claims = pytester.path / "run.claims.yaml"
    # The run says github.com/Acme/Servers; the claims file spells it acme/SERVERS.
    claims.write_text(f"schema: memreport-claims/1\nsources:\n  acme/SERVERS: {{repo: {repo.path}}}\nrecords: {{}}\n",
                      encoding="utf-8")
    result = pytester.runpytest("--memreport", str(folder), "--memreport-claims", str(claims))
    # The evidence of the subtree run (128 passed, 11 not evidence at the pin and at HEAD) plus
    # a claims item per file.
    result.assert_outcomes(passed=133, skipped=2 * 11)


def test_a_review_beside_a_run_stays_a_review(tmp_path, make_repo):
    _, pin = build_target(make_repo)
    folder = materialize("subtree-run", tmp_path, PIN=pin, PIN7=pin[:7])
    (folder / "widgets-review.md").write_text(
        "---\ntype: review\n---\n\n**Repository:** https://github.com/acme/servers\n\n"
        "The queue lives in `src/widgets/core/queue.ts`.\n", encoding="utf-8")
    dialects = {Path(r.path).name: r.dialect for run in parse(folder) for r in run.reports}
    assert dialects["widgets-review.md"] == "review"
    assert dialects["RESULT.md"] == "tables"


def test_not_evidence_is_one_part_in_record_items_and_says_why_in_json(pytester, make_repo):
    repo, pin = build_target(make_repo)
    folder = materialize("subtree-run", pytester.path, PIN=pin, PIN7=pin[:7])
    out = pytester.path / "out.json"
    result = pytester.runpytest("--memreport", str(folder), f"--memreport-repo=acme/servers={repo.path}",
                                "--memreport-items=record", "--memreport-json", str(out))
    assert result.ret == 0
    result.stdout.fnmatch_lines(["fresh*subtree-run/RESULT.md*4 checks hold (8 not evidence)"])
    result_md = all_evidence(run_json(out)["RESULT.md"])
    mention = next(e for e in result_md if e["path"] == "P@5/R@5")
    assert mention["at_pin"]["status"] == "not-evidence" and "no top folder 'P@5'" in mention["at_pin"]["reason"]
    assert "at_against" not in mention  # one item: no drift check of what is no evidence
