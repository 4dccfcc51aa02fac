"""The change that broke it: failing drift names the first-parent commit after which the evidence stopped holding.

Real histories: several commits where one breaks a quotation (also after the
file was renamed), a deleted file, a deleted folder, an edit only in the
working tree, and a long history where the cost in git processes is counted.
"""

from __future__ import annotations

import json

from pytest_memreport.checks import drift, verify
from pytest_memreport.gitstore import GitStore
from pytest_memreport.model import Evidence, EvidenceKind, LineRange

CONFIG = """def load(path):
    with open(path) as handle:
        return parse(handle.read())


def parse(text):
    return dict(line.split("=", 1) for line in text.splitlines())
"""

QUOTE = 'return dict(line.split("=", 1) for line in text.splitlines())'


def quote(path: str, text: str) -> Evidence:
    return Evidence(EvidenceKind.QUOTE, path, line=3, end_line=3, text=text)


def classify(repo, evidence: Evidence, pin_sha: str, against: str = "HEAD"):
    with GitStore.open(repo.path) as store:
        pin = verify.check_at_pin(evidence, store.snapshot(pin_sha))
        assert pin.ok, pin.message
        result = drift.classify(evidence, pin, store, pin_sha, store.snapshot(against))
        commands = store.git_processes
    json.dumps(result.as_json())
    return result, commands


def test_the_third_commit_breaking_a_quote_is_named(make_repo):
    repo = make_repo()
    pin = repo.commit({"conf.py": CONFIG}, "pin")
    repo.commit({"conf.py": "# config loading\n" + CONFIG}, "document the module")
    repo.commit({"README.md": "hello\n"}, "readme")
    culprit = repo.commit({"conf.py": CONFIG.replace('split("=", 1)', 'split(":", 1)')}, "colons separate keys")
    repo.commit({"conf.py": "# config loading, v2\n" + CONFIG.replace('split("=", 1)', 'split(":", 1)')}, "later")

    result, _ = classify(repo, quote("conf.py", QUOTE), pin)

    assert result.status == drift.CHANGED
    assert result.broken_by.sha == culprit
    assert result.broken_by.subject == "colons separate keys"
    assert result.broken_by.author == "Fixture Author"
    assert result.as_json()["broken_by"] == {
        "commit": culprit, "subject": "colons separate keys", "author": "Fixture Author",
        "date": result.broken_by.date,
    }
    assert len(result.broken_by.date) == 10 and result.broken_by.date[4] == "-"
    assert f'broken by {culprit[:12]} "colons separate keys" (Fixture Author, ' in "\n".join(result.explain())


def test_the_breaking_commit_is_named_without_the_files_it_changed(make_repo):
    """A result names its breaking commit (who, when, what it says); the files a large
    commit changed stay in the history, not in every result it broke (nor in the cache)."""
    from pytest_memreport.resultcache import serialize

    repo = make_repo()
    pin = repo.commit({"conf.py": CONFIG}, "pin")
    others = {f"notes/n{i}.md": f"note {i}\n" for i in range(40)}
    culprit = repo.commit({"conf.py": CONFIG.replace('split("=", 1)', 'split(":", 1)'), **others}, "sweep")

    result, _ = classify(repo, quote("conf.py", QUOTE), pin)

    assert result.broken_by.sha == culprit and result.broken_by.subject == "sweep"
    assert result.broken_by.changes == ()
    with GitStore.open(repo.path) as store:  # the history itself still has them
        [logged] = [c for c in store.first_parent_log(pin, culprit) if c.sha == culprit]
        assert len(logged.changes) == 41
    kept = serialize.dump_value(result)
    assert "notes/n" not in kept and serialize.load_value(kept) == result


def test_the_breaking_commit_is_found_across_a_rename(make_repo):
    repo = make_repo()
    pin = repo.commit({"conf.py": CONFIG}, "pin")
    repo.move("conf.py", "settings/conf.py")
    repo.commit(message="move the config under settings")
    repo.commit({"settings/conf.py": CONFIG + "\n\nDEFAULTS = {}\n"}, "defaults")
    culprit = repo.commit({"settings/conf.py": CONFIG.replace("text.splitlines()", "text.split(';')")
                           + "\n\nDEFAULTS = {}\n"}, "semicolons")

    result, _ = classify(repo, quote("conf.py", QUOTE), pin)

    assert result.status == drift.CHANGED and result.path == "settings/conf.py"
    assert result.broken_by.sha == culprit


def test_a_deleted_file_is_blamed_on_the_commit_that_deleted_it(make_repo):
    repo = make_repo()
    pin = repo.commit({"conf.py": CONFIG, "keep.py": "x = 1\n"}, "pin")
    repo.commit({"keep.py": "x = 2\n"}, "unrelated")
    repo.delete("conf.py")
    culprit = repo.commit(message="drop the loader")

    as_quote, _ = classify(repo, quote("conf.py", QUOTE), pin)
    as_path, _ = classify(repo, Evidence(EvidenceKind.PATH, "conf.py", line=4, end_line=4), pin)

    assert as_quote.status == drift.DELETED and as_quote.broken_by.sha == culprit
    assert as_path.status == drift.DELETED and as_path.broken_by.sha == culprit


def test_a_deleted_folder_is_blamed_on_the_commit_that_removed_its_last_file(make_repo):
    repo = make_repo()
    pin = repo.commit({"plugins/a.py": "a = 1\n", "plugins/b.py": "b = 1\n", "main.py": "m = 1\n"}, "pin")
    repo.delete("plugins/a.py")
    repo.commit(message="drop a")
    repo.commit({"main.py": "m = 2\n"}, "main")
    repo.delete("plugins/b.py")
    culprit = repo.commit(message="drop b")

    result, _ = classify(repo, Evidence(EvidenceKind.DIRECTORY, "plugins", line=4, end_line=4), pin)

    assert result.status == drift.DELETED and result.broken_by.sha == culprit


def test_an_edit_only_in_the_working_tree_is_named_as_uncommitted(make_repo):
    repo = make_repo()
    pin = repo.commit({"conf.py": CONFIG}, "pin")
    repo.commit({"README.md": "hello\n"}, "readme")
    (repo.path / "conf.py").write_text(CONFIG.replace("splitlines", "split"))

    result, _ = classify(repo, quote("conf.py", QUOTE), pin, against="worktree")

    assert result.status == drift.CHANGED
    assert result.broken_by is drift.results.UNCOMMITTED
    assert result.as_json()["broken_by"]["commit"] is None
    assert "uncommitted changes in the working tree" in "\n".join(result.explain())


def test_blame_over_a_long_history_costs_a_bounded_number_of_git_processes(make_repo):
    repo = make_repo()
    pin = repo.commit({"conf.py": CONFIG, "log.txt": "0\n"}, "pin")
    text = CONFIG
    for i in range(40):
        text = f"# revision {i}\n" + text
        files = {"conf.py": text, "log.txt": f"{i}\n"}
        if i == 29:
            text = text.replace("splitlines()", "splitlines(True)")
            files["conf.py"] = text
        sha = repo.commit(files, f"step {i}")
        if i == 29:
            culprit = sha

    result, commands = classify(repo, quote("conf.py", QUOTE), pin)

    assert result.status == drift.CHANGED and result.broken_by.sha == culprit
    # opening and resolving (rev-parse), ls-tree of both trees, the pair's diffs, the log and
    # the two persistent cat-file readers (all counted since git_processes): none per commit
    assert commands <= 11, commands


def test_passing_drift_names_no_commit(make_repo):
    repo = make_repo()
    pin = repo.commit({"conf.py": CONFIG}, "pin")
    repo.commit({"conf.py": "# header\n" + CONFIG}, "shift")

    result, _ = classify(repo, quote("conf.py", QUOTE), pin)

    assert result.status == drift.SHIFTED and result.broken_by is None
    assert "broken_by" not in result.as_json()


def test_a_quote_relocated_into_a_rewritten_definition_names_the_commit_that_moved_it(make_repo):
    repo = make_repo()
    pin = repo.commit({"conf.py": CONFIG}, "pin")
    repo.commit({"README.md": "hello\n"}, "readme")
    load_only = CONFIG.split("\n\n\n")[0] + "\n"
    parse_now = ('def parse(text):\n    text = text.strip()\n'
                 '    return dict(line.split("=", 1) for line in text.splitlines())\n')
    culprit = repo.commit({"conf.py": "from parsing import parse\n\n\n" + load_only, "parsing.py": parse_now},
                          "parse on its own")

    result, _ = classify(repo, quote("conf.py", QUOTE), pin)

    assert result.status == drift.RELOCATED and result.path == "parsing.py"
    assert result.enclosing_changed
    assert result.broken_by.sha == culprit


def test_blaming_many_cited_ranges_of_one_file_runs_no_git_process_per_range(make_repo):
    """Twelve cited ranges of one file, each broken by its own commit of a history: each is
    blamed on its commit through the pair's one first-parent log and the persistent blob
    reader, so blaming the twelve runs no more git processes than blaming the first (nor
    do a second file's twelve): git is asked per pair, never per range or per file."""
    from pytest_memreport.model import LineRange

    repo = make_repo()
    source = "\n\n".join(f"def step_{i}(value):\n    total = value + {i}\n    return total * {i + 1}\n"
                         for i in range(12))
    pin = repo.commit({"pkg/steps.py": source, "pkg/other.py": source}, "pin")
    culprits = []
    for i in range(12):
        source = source.replace(f"value + {i}\n", f"value - {i}\n")
        culprits.append(repo.commit({"pkg/steps.py": source, "pkg/other.py": source}, f"change step {i}"))

    def ranges(path: str) -> list[Evidence]:
        # step i's body: its lines 2-3, five lines per function
        return [Evidence(EvidenceKind.LINES, path, line=9, end_line=9, cited_lines=LineRange(2 + 5 * i, 3 + 5 * i))
                for i in range(12)]

    with GitStore.open(repo.path) as store:
        pinned, head = store.snapshot(pin), store.snapshot("HEAD")
        checked = [(path, i, evidence, verify.check_at_pin(evidence, pinned))
                   for path in ("pkg/steps.py", "pkg/other.py") for i, evidence in enumerate(ranges(path))]
        assert all(found.ok for *_, found in checked)
        # as the planner does: where ranges that left their files went is asked once for all
        drift.search.expect_searches(head, store, pin, [(e, found.recorded_text) for _, _, e, found in checked])
        counts, blamed = [], {}
        for path, i, evidence, found in checked:
            result = drift.classify(evidence, found, store, pin, head)
            blamed[path, i] = (result.status, result.broken_by.sha if result.broken_by else None)
            counts.append(store.git_processes)
    assert blamed == {(path, i): (drift.CHANGED, culprits[i]) for path in ("pkg/steps.py", "pkg/other.py")
                      for i in range(12)}
    assert counts[-1] == counts[0], counts


WORKER = """class Worker:
    alive: bool
    loop: object

    def run(self) -> None: ...
"""


def test_a_cited_range_ending_in_a_blank_line_names_the_commit_that_broke_it(make_repo):
    """Lines 1-4 end with a blank line the range cites. A line inserted before that blank
    line breaks the range (its lines no longer stand together): blame read the range
    without its blank edge line, found it whole at every commit, and named no commit;
    the difference said "no difference after normalization" where a blank line differs."""
    repo = make_repo()
    pin = repo.commit({"worker.py": WORKER}, "pin")
    repo.commit({"README.md": "hello\n"}, "readme")
    culprit = repo.commit({"worker.py": WORKER.replace("    loop: object\n", "    loop: object\n    pid: int\n")},
                          "workers know their pid")
    repo.commit({"worker.py": "# workers\n" + WORKER.replace("    loop: object\n", "    loop: object\n    pid: int\n")},
                "later")
    cited = Evidence(EvidenceKind.LINES, "worker.py", line=3, end_line=3, cited_lines=LineRange(1, 4))

    result, _ = classify(repo, cited, pin)

    assert result.status == drift.CHANGED
    assert result.broken_by is not None and result.broken_by.sha == culprit
    assert result.candidate is not None and result.candidate.lines == LineRange(2, 4)
    assert "blank lines differ: 1 quoted, 0 found" in result.diff
