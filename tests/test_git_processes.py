"""git processes per run grow with repositories, pairs and batches, never with evidence:
the JSON ``timing.git_processes`` of a run citing twice the ranges that left their files
is the same."""

from __future__ import annotations

import json


def _code(i: int) -> str:
    """Letters only: a word no other module holds, yet no compound name; the quotation's
    longest word, so that each quotation's scan needs a word of its own."""
    return "zqxwvu" + "".join("abcdefghij"[int(d)] for d in f"{i:03d}")


def _function(i: int) -> list[str]:
    return [f"def settle_account_{i}(ledger, amount):",
            f"    # the ledger closes early for {_code(i)} accounts",
            f"    balance_after_{i} = ledger.balance_of({i}) + amount",
            f"    ledger.record_transfer_{i}(balance_after_{i}, reason='settle {i}')",
            f"    return balance_after_{i}"]


def _target(make_repo, count: int):
    """``count`` modules at the pin, each function of which leaves its file later (half of
    them edited on the way), cited by a run report as line ranges and by a quotation of
    plain words (which no compound name narrows: the tree is scanned for it)."""
    repo = make_repo(f"target-{count}")
    files = {f"pkg/mod_{i}.py": "\n".join([f'"""Module {i}."""', "", *_function(i), ""]) for i in range(count)}
    pin = repo.commit(files, "pin")
    moved = {}
    for i in range(count):
        body = _function(i)
        if i % 2:
            body[1] = body[1].replace("closes early", "closes late")
            body[3] = body[3].replace("reason=", "why=")
        moved[f"pkg/mod_{i}.py"] = f'"""Module {i}: its function moved to lib/."""\n'
        moved[f"lib/moved_{i}.py"] = "\n".join(["import ledger", "", *body, ""])
    repo.commit(moved, "move every function to lib/")
    records = []
    for start in range(0, count, 8):
        cited = ", ".join(f"pkg/mod_{i}.py:3-7" for i in range(start, min(count, start + 8)))
        quoted = [f"the ledger closes early for {_code(i)} accounts --- pkg/mod_{i}.py:4"
                  for i in range(start, min(count, start + 8))]
        records += [f"MEM-OBJ-{start}", "", f"Label: functions from {start}", "",
                    f"The record cites its code. SRC-1: {cited}.", "", *quoted, "",
                    "• implementation conclusion status: afforded", "• operation conclusion status: uninspected", ""]
    report = "\n".join(["Run report", "", f"The target is at SRC-1 commit {pin}.", "", *records])
    return repo, report


def _run(pytester, repo, report: str, name: str) -> dict:
    path = pytester.path / f"{name}.txt"
    path.write_text(report, encoding="utf-8")
    out = pytester.path / f"{name}.json"
    result = pytester.runpytest("-p", "no:cacheprovider", "--memreport", str(path), f"--memreport-repo={repo.path}",
                                "--memreport-against", "HEAD", "--memreport-json", str(out))
    data = json.loads(out.read_text())
    statuses = [(e["kind"], (e.get("at_against") or {}).get("status")) for rep in data["reports"]
                for r in rep["records"] for e in r["evidence"]]
    return {"outcomes": result.parseoutcomes(), "statuses": statuses, "timing": data["timing"]}


def test_git_processes_stay_flat_when_the_ranges_that_left_their_files_double(pytester, make_repo):
    small = _run(pytester, *_target(make_repo, 40), "small")
    large = _run(pytester, *_target(make_repo, 80), "large")
    # every range and quotation left its file: half found again elsewhere, half changed on the way
    for run, count in ((small, 40), (large, 80)):
        assert run["statuses"].count(("lines", "relocated")) == count // 2
        assert run["statuses"].count(("quote", "relocated")) == count // 2
        assert len(run["statuses"]) == 2 * count
    assert small["timing"]["git_processes"] > 0
    assert large["timing"]["git_processes"] == small["timing"]["git_processes"]


def test_each_file_is_parsed_once_however_its_quotations_are_spread(pytester, make_repo):
    """The JSON names each quotation's enclosing definition, so every quoted file is parsed.
    Quotations of 600 files, each file quoted in two records far apart (more files than the
    parse cache keeps): each file is parsed once, not once per stretch of its quotations."""
    count = 600
    repo = make_repo("many-files")
    pin = repo.commit({f"pkg/mod_{i}.py": "\n".join(_function(i)) + "\n" for i in range(count)}, "pin")
    records = []
    for half in range(2):
        for start in range(0, count, 50):
            quoted = [f"ledger.record_transfer_{i}(balance_after_{i}, reason='settle {i}') --- pkg/mod_{i}.py:4"
                      if half else f"balance_after_{i} = ledger.balance_of({i}) + amount --- pkg/mod_{i}.py:3"
                      for i in range(start, start + 50)]
            records += [f"MEM-OBJ-{half}-{start}", "", f"Label: part {half} from {start}", "", *quoted, "",
                        "• implementation conclusion status: afforded", "• operation conclusion status: uninspected", ""]
    path = pytester.path / "spread.txt"
    path.write_text("\n".join(["Run report", "", f"The target is at SRC-1 commit {pin}.", "", *records]),
                    encoding="utf-8")
    result = pytester.runpytest("-p", "no:cacheprovider", "--memreport", str(path), f"--memreport-repo={repo.path}",
                                "--memreport-against", "none", "--memreport-json", "out.json")
    assert result.parseoutcomes().get("failed", 0) == 0
    data = json.loads((pytester.path / "out.json").read_text())
    quoted = [e["at_pin"] for rep in data["reports"] for r in rep["records"] for e in r["evidence"] if e["kind"] == "quote"]
    assert len(quoted) == 2 * count and all(found["status"] == "found" for found in quoted)
    assert all(found.get("symbol") for found in quoted), quoted[0]  # each one's definition was found
    assert data["timing"]["tree_sitter_parses"] == count


def test_reports_pinned_at_a_commit_the_clone_lacks_ask_why_once(pytester, make_repo):
    """A stale clone: every report written after its last fetch names a pin it lacks. Why
    the pin names no commit (shallow? ambiguous? how old is the clone?) is asked of git
    once per clone and revision, not once per report: six such reports cost what two do."""
    repo = make_repo("stale-clone")
    pin = repo.commit({"pkg/ledger.py": "def settle(amount):\n    return amount\n"}, "pin")
    later = "b" * 40  # written against a commit fetched after this clone was made
    held = f"Run report\n\nThe target is at SRC-1 commit {pin}.\n\nMEM-OBJ-1\n\nLabel: held\n\n" \
           "def settle(amount): --- pkg/ledger.py:1\n"

    def run(lacking: int) -> dict:
        folder = pytester.path / f"reports-{lacking}"
        folder.mkdir()
        (folder / "held.md").write_text(held, encoding="utf-8")
        for n in range(lacking):
            (folder / f"newer-{n}.md").write_text(held.replace(pin, later).replace("held", f"newer {n}"),
                                                  encoding="utf-8")
        out = pytester.path / f"out-{lacking}.json"
        pytester.runpytest("-p", "no:cacheprovider", "--memreport", str(folder), f"--memreport-repo={repo.path}",
                           "--memreport-against", "HEAD", "--memreport-json", str(out))
        data = json.loads(out.read_text())
        states = sorted(report["state"] for report in data["reports"])
        assert states == ["fresh"] + ["unchecked"] * lacking
        assert all(later in (report["reason"] or "") for report in data["reports"] if report["state"] == "unchecked")
        return data["timing"]

    two, six = run(2), run(6)
    assert two["git_processes"] > 0
    assert six["git_processes"] == two["git_processes"]
