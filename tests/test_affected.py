"""``--memreport-affected BASE..HEAD``: from the target's side, which claims a change touches.

A real target repository, a knowledge base pinned before the range's base, and four
ranges branching from the base, each run through pytest as a target's CI runs it:
an edit of a quoted line, a function moved to another file, a folder in a predicate's
scope renamed, and a change of nothing cited.
"""

from __future__ import annotations

import json
import subprocess
import textwrap

import pytest

from conftest import summary_outcomes
from kb_support import review
from pytest_memreport.options import OptionError, parse_affected

STORE_PY = textwrap.dedent(
    '''\
    MAX_ENTRIES = 8_000


    def forget(entries, entry_id):
        return [e for e in entries if e["id"] != entry_id]


    def keep(entries):
        return list(entries)
    '''
)
CACHE_PY = "def lookup(table, key):\n    return table.get(key)\n"
README = "# store\n"


def report_text(pin: str) -> str:
    return textwrap.dedent(
        f"""\
        Store memory report

        Boundary and evidence

        SRC-1 commit {pin} is the boundary.

        Routes

        MEM-RTE-forget

        Label: Forget

        Forgetting drops the exact ID in `forget`. SRC-1: store.py.

        return [e for e in entries if e["id"] != entry_id] --- store.py

          • implementation conclusion status: afforded

        MEM-RTE-keep

        Label: Keep

        Keeping copies the entries. SRC-1: store.py.

        return list(entries) --- store.py

          • implementation conclusion status: afforded

        Evidenced absences

        MEM-ABS-no-cas

        Label: No compare-and-swap

        The cache has no compare-and-swap. SRC-1: legacy/cache.py.

        return table.get(key) --- legacy/cache.py
        """
    )


CLAIMS = textwrap.dedent(
    """\
    schema: memreport-claims/1
    records:
      MEM-RTE-forget:
        predicates:
          - contains: {path: store.py, text: "e[\\"id\\"] != entry_id"}
      MEM-ABS-no-cas:
        predicates:
          - absent: {glob: "legacy/**", regex: "compare_and_swap"}
    """
)


@pytest.fixture
def target(pytester, make_repo):
    """The target with a knowledge base pinned one commit before the ranges' base."""
    repo = make_repo("target")
    pin = repo.commit({"store.py": STORE_PY, "legacy/cache.py": CACHE_PY, "README.md": README}, "store")
    base = repo.commit({"store.py": "# the store\n" + STORE_PY}, "document the store")
    kb = pytester.path / "kb"
    kb.mkdir()
    (kb / "store.md").write_text(report_text(pin), encoding="utf-8")
    (kb / "store.claims.yaml").write_text(CLAIMS, encoding="utf-8")
    return repo, pin, base


def run(pytester, repo, base, *extra):
    json_path = pytester.path / "affected.json"
    result = pytester.runpytest("--memreport", "kb", f"--memreport-repo={repo.path}",
                                f"--memreport-affected={base}..HEAD", f"--memreport-json={json_path}",
                                "-rA", *extra)
    data = json.loads(json_path.read_text(encoding="utf-8")) if json_path.exists() else None
    return result, data


def listed(result) -> dict[str, str]:
    """nodeid -> outcome of every item the run listed."""
    return {node: outcome for node, outcome in summary_outcomes(result).items() if node.startswith("kb/")}


def record_json(data: dict, record_id: str) -> dict:
    return next(r for r in data["reports"][0]["records"] if r["id"] == record_id)


def test_a_range_editing_a_quoted_line_breaks_its_quotation_and_predicate(pytester, target):
    repo, _, base = target
    culprit = repo.commit({"store.py": "# the store\n" + STORE_PY.replace('e["id"]', 'e["key"]')}, "key by key")
    repo.commit({"README.md": README + "more\n"}, "later")
    before = repo.state()

    result, data = run(pytester, repo, base)

    assert repo.state() == before  # the target is only read

    assert listed(result) == {
        "kb/store.md::MEM-RTE-forget::path@L13:store.py::affected": "PASSED",
        "kb/store.md::MEM-RTE-forget::symbol@L13:forget::affected": "PASSED",
        "kb/store.md::MEM-RTE-forget::quote@L15::affected": "FAILED",
        "kb/store.md::MEM-RTE-forget::predicate[0]:contains::affected": "FAILED",
        "kb/store.md::MEM-RTE-keep::path@L23:store.py::affected": "PASSED",
        "kb/store.md::MEM-RTE-keep::quote@L25::affected": "PASSED",
    }
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    out = result.stdout.str()
    assert f'broken by {culprit[:12]} "key by key"' in out
    forget = record_json(data, "MEM-RTE-forget")
    quote = next(e for e in forget["evidence"] if e["kind"] == "quote")
    assert quote["at_against"]["status"] == "changed"
    assert quote["at_against"]["broken_by"]["commit"] == culprit
    keep = next(e for e in record_json(data, "MEM-RTE-keep")["evidence"] if e["kind"] == "quote")
    assert keep["at_against"]["status"] == "unchanged"  # located at the base, where the comment line is
    (predicate,) = data["reports"][0]["predicates"]
    assert predicate["kind"] == "contains" and predicate["at_against"]["status"] == "fails"
    assert predicate["at_against"]["broken_by"]["commit"] == culprit
    assert [r["id"] for r in data["reports"][0]["records"]] == ["MEM-RTE-forget", "MEM-RTE-keep"]
    assert data["affected"]["base"] == base and data["affected"]["changed_paths"] == 2


FORGET = '''def forget(entries, entry_id):
    return [e for e in entries if e["id"] != entry_id]
'''


def test_a_range_moving_a_cited_function_to_another_file(pytester, target):
    repo, _, base = target
    moved = "# the store\n" + STORE_PY.replace(FORGET + "\n\n", "")
    assert moved != "# the store\n" + STORE_PY
    culprit = repo.commit({"store.py": moved, "ops.py": FORGET}, "move forget to ops")

    result, data = run(pytester, repo, base)

    assert listed(result) == {
        "kb/store.md::MEM-RTE-forget::path@L13:store.py::affected": "PASSED",
        "kb/store.md::MEM-RTE-forget::symbol@L13:forget::affected": "PASSED",
        "kb/store.md::MEM-RTE-forget::quote@L15::affected": "PASSED",
        "kb/store.md::MEM-RTE-forget::predicate[0]:contains::affected": "FAILED",
        "kb/store.md::MEM-RTE-keep::path@L23:store.py::affected": "PASSED",
        "kb/store.md::MEM-RTE-keep::quote@L25::affected": "PASSED",
    }
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    forget = {e["kind"]: e for e in record_json(data, "MEM-RTE-forget")["evidence"]}
    assert forget["quote"]["at_against"]["status"] == "relocated"
    assert forget["quote"]["at_against"]["candidates"] == [{"path": "ops.py", "lines": [2, 2]}]
    assert forget["symbol"]["at_against"]["status"] == "relocated"
    assert forget["symbol"]["at_against"]["path"] == "ops.py"
    keep = next(e for e in record_json(data, "MEM-RTE-keep")["evidence"] if e["kind"] == "quote")
    assert keep["at_against"]["status"] == "shifted"
    assert f'broken by {culprit[:12]} "move forget to ops"' in result.stdout.str()
    (predicate,) = data["reports"][0]["predicates"]
    assert predicate["at_against"]["status"] == "fails" and predicate["at_against"]["broken_by"]["commit"] == culprit


def test_a_range_renaming_a_folder_in_a_predicates_scope(pytester, target):
    repo, _, base = target
    repo.move("legacy", "old")
    repo.commit(message="legacy is old")

    result, data = run(pytester, repo, base)

    assert listed(result) == {
        "kb/store.md::MEM-ABS-no-cas::path@L35:legacy/cache.py::affected": "PASSED",
        "kb/store.md::MEM-ABS-no-cas::quote@L37::affected": "PASSED",
        "kb/store.md::MEM-ABS-no-cas::predicate[0]:absent::affected": "PASSED",
    }
    assert result.ret == pytest.ExitCode.OK
    record = record_json(data, "MEM-ABS-no-cas")
    assert {e["at_against"]["status"] for e in record["evidence"]} == {"moved"}
    assert {e["at_against"]["path"] for e in record["evidence"]} == {"old/cache.py"}
    (predicate,) = data["reports"][0]["predicates"]
    assert predicate["at_against"]["status"] == "holds"
    assert predicate["followed"] == [["legacy/", "old/"]]  # the glob's folder, followed


def test_a_rename_then_an_edit_in_the_scope_is_blamed_on_the_edit(pytester, target):
    repo, _, base = target
    repo.move("legacy", "old")
    repo.commit(message="legacy is old")
    culprit = repo.commit({"old/swap.py": "def put(x):\n    return compare_and_swap(x)\n"}, "swap atomically")
    repo.commit({"old/cache.py": CACHE_PY + "\n# cached\n"}, "a comment")

    result, data = run(pytester, repo, base)

    assert listed(result) == {
        "kb/store.md::MEM-ABS-no-cas::path@L35:legacy/cache.py::affected": "PASSED",
        "kb/store.md::MEM-ABS-no-cas::quote@L37::affected": "PASSED",
        "kb/store.md::MEM-ABS-no-cas::predicate[0]:absent::affected": "FAILED",
    }
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert f'broken by {culprit[:12]} "swap atomically"' in result.stdout.str()
    (predicate,) = data["reports"][0]["predicates"]
    assert predicate["at_against"]["broken_by"]["commit"] == culprit  # not the rename before it
    assert predicate["followed"] == [["legacy/", "old/"]]


def test_a_range_touching_nothing_cited_lists_nothing_and_passes(pytester, target, monkeypatch):
    repo, _, base = target
    repo.commit({"README.md": README + "Usage.\n", "docs/guide.md": "# guide\n"}, "document")
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))

    result, data = run(pytester, repo, base)

    assert result.ret == pytest.ExitCode.OK
    assert listed(result) == {}
    assert data["reports"] == []
    assert data["affected"]["changed_paths"] == 2
    assert data["timing"]["blobs_read"] == 0  # nothing cited was read, at the base or the head
    result.stdout.fnmatch_lines(["memreport: *..HEAD in *: 2 changed path(s) touch nothing the reports cite"])
    assert f"2 changed path(s) of {base}..HEAD touch nothing the reports cite" in summary.read_text(encoding="utf-8")


def test_evidence_broken_before_the_range_is_skipped_as_not_this_changes_doing(pytester, make_repo):
    repo = make_repo("target")
    pin = repo.commit({"store.py": STORE_PY, "legacy/cache.py": CACHE_PY, "README.md": README}, "store")
    base = repo.commit({"store.py": STORE_PY.replace('e["id"]', 'e["uid"]')}, "uid")  # the kb went stale here
    repo.commit({"store.py": STORE_PY.replace('e["id"]', 'e["uid"]') + "\n\nLIMIT = 3\n"}, "a limit")
    kb = pytester.path / "kb"
    kb.mkdir()
    (kb / "store.md").write_text(report_text(pin), encoding="utf-8")
    (kb / "store.claims.yaml").write_text(CLAIMS, encoding="utf-8")

    result, data = run(pytester, repo, base, "-rs")

    result.assert_outcomes(passed=4, skipped=2)
    (predicate,) = data["reports"][0]["predicates"]
    assert predicate["at_pin"]["status"] == "fails" and predicate["at_against"]["status"] == "not-checked"
    quote = next(e for e in record_json(data, "MEM-RTE-forget")["evidence"] if e["kind"] == "quote")
    assert quote["at_against"]["status"] == "not-checked"
    assert result.ret == pytest.ExitCode.OK  # the range broke nothing
    result.stdout.fnmatch_lines([
        f"SKIPPED * kb/store.md:15: quotation of store.py does not hold at the range's base {base[:12]} (missing): "
        "broken before this change, not by it*",
        f"SKIPPED * kb/store.claims.yaml:5: MEM-RTE-forget contains predicate does not hold at the range's base "
        f"{base[:12]} (it fails)*",
    ])


def test_reports_of_another_repository_are_not_listed(pytester, target, make_repo):
    repo, _, base = target
    other = make_repo("other")
    other_pin = other.commit({"store.py": STORE_PY}, "another store")
    other.commit({"store.py": "# changed\n" + STORE_PY}, "changed")
    (pytester.path / "kb" / "elsewhere.md").write_text(review("acme/other", other_pin, "store.py", "5", "Other"),
                                                       encoding="utf-8")
    repo.commit({"store.py": "# the store\n" + STORE_PY + "\n# end\n"}, "a comment")
    args = ["--memreport", "kb", f"--memreport-repo={repo.path}", f"--memreport-repo=acme/other={other.path}", "-rA"]
    normal = pytester.runpytest(*args)
    assert any(node.startswith("kb/elsewhere.md::") for node in listed(normal))  # a normal run checks both

    result = pytester.runpytest(*args, "--memreport-affected", f"{base}..HEAD")

    assert result.ret == pytest.ExitCode.OK
    outcomes = listed(result)
    assert outcomes and all(node.startswith("kb/store.md::") for node in outcomes)
    result.stdout.fnmatch_lines([f"memreport: {base}..HEAD in {repo.path} *"])


def test_k_selects_a_record(pytester, target):
    repo, _, base = target
    repo.commit({"store.py": "# the store\n" + STORE_PY.replace('e["id"]', 'e["key"]')}, "key by key")

    result, _ = run(pytester, repo, base, "-k", "MEM-RTE-keep")

    assert set(listed(result)) == {"kb/store.md::MEM-RTE-keep::path@L23:store.py::affected",
                                   "kb/store.md::MEM-RTE-keep::quote@L25::affected"}
    assert result.ret == pytest.ExitCode.OK


def test_the_step_summary_names_the_range_and_the_broken_claims(pytester, target, monkeypatch):
    repo, _, base = target
    repo.commit({"store.py": "# the store\n" + STORE_PY.replace('e["id"]', 'e["key"]')}, "key by key")
    summary = pytester.path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))

    run(pytester, repo, base)

    text = summary.read_text(encoding="utf-8")
    assert f"## memreport: the claims {base}..HEAD touches" in text
    assert "kb/store.md" in text and "2 failures" in text


@pytest.mark.parametrize(("args", "message"), [
    (["--memreport-affected", "main"], "*--memreport-affected 'main': give a range BASE..HEAD (two dots)*"),
    (["--memreport-affected", "a...b"], "*give a range BASE..HEAD (two dots)*"),
    (["--memreport-affected", "HEAD~1..HEAD", "--memreport-pin", "HEAD"],
     "*--memreport-pin cannot be given with --memreport-affected*"),
    (["--memreport-affected", "0123456789abcdef..HEAD"], "*0123456789abcdef resolves in none of the reports' "
                                                          "repositories*--memreport-repo owner/name=.*"),
])
def test_usage_errors_are_one_line(pytester, target, args, message):
    repo, _, _ = target
    result = pytester.runpytest("--memreport", "kb", f"--memreport-repo={repo.path}", *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])
    assert "Traceback" not in result.stderr.str() + result.stdout.str()


def test_the_ini_key_gives_the_range(pytester, target):
    repo, _, base = target
    repo.commit({"legacy/cache.py": CACHE_PY.replace("table.get(key)", "table[key]")}, "strict lookups")
    pytester.makeini(f"[pytest]\nmemreport_affected = {base}..HEAD\n")

    result = pytester.runpytest("--memreport", "kb", f"--memreport-repo={repo.path}", "-rA")

    assert listed(result) == {
        "kb/store.md::MEM-ABS-no-cas::path@L35:legacy/cache.py::affected": "PASSED",
        "kb/store.md::MEM-ABS-no-cas::quote@L37::affected": "FAILED",
        "kb/store.md::MEM-ABS-no-cas::predicate[0]:absent::affected": "PASSED",
    }


def test_the_cost_follows_the_diff_not_the_knowledge_base(pytester, make_repo):
    """Git processes and blobs read by a one-file range: the same for 3 reports and for 30."""
    repo = make_repo("target")
    files = {f"pkg/m{i}.py": f"def step_{i}(value):\n    return value + {i}\n" for i in range(30)}
    base = repo.commit(files, "thirty modules")
    repo.commit({"pkg/m0.py": "def step_0(value):\n    return value * 2\n"}, "double")
    for count in (3, 30):
        kb = pytester.path / f"kb{count}"
        kb.mkdir()
        for i in range(count):
            text = report_text(base).replace("store.py", f"pkg/m{i}.py").replace(
                'return [e for e in entries if e["id"] != entry_id]', f"return value + {i}")
            (kb / f"r{i}.md").write_text(text, encoding="utf-8")
    counts = {}
    for count in (3, 30):
        out = pytester.path / f"kb{count}.json"
        result = pytester.runpytest("--memreport", f"kb{count}", f"--memreport-repo={repo.path}",
                                    f"--memreport-affected={base}..HEAD", f"--memreport-json={out}", "-p", "no:cacheprovider")
        assert result.ret == pytest.ExitCode.TESTS_FAILED  # the quotation of pkg/m0.py broke
        data = json.loads(out.read_text(encoding="utf-8"))
        assert [r["path"] for r in data["reports"]] == [f"kb{count}/r0.md"]
        counts[count] = (data["timing"]["git_processes"], data["timing"]["blobs_read"])
    assert counts[3] == counts[30], counts


@pytest.mark.slow
def test_xdist_gives_the_serial_results(pytester, target):
    repo, _, base = target
    repo.commit({"store.py": "# the store\n" + STORE_PY.replace('e["id"]', 'e["key"]')}, "key by key")
    _, serial = run(pytester, repo, base)

    result, data = run(pytester, repo, base, "-n", "2", "-p", "xdist")

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert data["reports"] == serial["reports"] and data["affected"] == serial["affected"]
    result.stdout.fnmatch_lines(["memreport: *..HEAD in *: 1 changed path(s) touch 6 affected check(s)"])


def test_a_pull_requests_head_is_checked_from_where_it_forked(pytester, target):
    """BASE the base branch's tip, HEAD the pull request's head: the range starts at their merge
    base, so what the base branch changed since the fork is not the pull request's doing."""
    repo, _, fork = target
    git = repo.repo.git
    git.checkout("-q", "-b", "feature")
    culprit = repo.commit({"legacy/cache.py": CACHE_PY.replace("table.get(key)", "table[key]")}, "strict lookups")
    git.checkout("-q", "main")
    main_tip = repo.commit({"store.py": "# the store\n" + STORE_PY.replace('e["id"]', 'e["key"]')}, "key by key")
    git.checkout("-q", "feature")

    result, data = run(pytester, repo, main_tip)

    assert data["affected"]["base"] == fork and data["affected"]["changed_paths"] == 1
    assert set(listed(result)) == {"kb/store.md::MEM-ABS-no-cas::path@L35:legacy/cache.py::affected",
                                   "kb/store.md::MEM-ABS-no-cas::quote@L37::affected",
                                   "kb/store.md::MEM-ABS-no-cas::predicate[0]:absent::affected"}
    assert f'broken by {culprit[:12]} "strict lookups"' in result.stdout.str()


def test_a_shallow_checkout_lacking_the_base_says_how_to_fetch_it(pytester, target, tmp_path):
    repo, _, base = target
    repo.commit({"store.py": "# the store\n" + STORE_PY + "\n# end\n"}, "a comment")
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo.path}", str(shallow)], check=True)

    result = pytester.runpytest("--memreport", "kb", f"--memreport-repo={shallow}",
                                f"--memreport-affected={base}..HEAD")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: --memreport-affected {base}..HEAD: {base} is not in the shallow clone "
                                 f"{shallow}*fetch-depth: 0*"])


def test_a_branch_name_every_clone_has_picks_the_clone_pytest_runs_in(pytester, target, make_repo, monkeypatch):
    repo, _, base = target
    other = make_repo("other")
    other_pin = other.commit({"store.py": STORE_PY}, "another store")
    (pytester.path / "kb" / "elsewhere.md").write_text(review("acme/other", other_pin, "store.py", "5", "Other"),
                                                       encoding="utf-8")
    repo.repo.git.branch("base", base)
    other.repo.git.branch("base", other_pin)
    repo.commit({"legacy/cache.py": CACHE_PY.replace("table.get(key)", "table[key]")}, "strict lookups")
    kb = str(pytester.path / "kb")
    args = ["--memreport", kb, f"--memreport-repo={repo.path}", f"--memreport-repo=acme/other={other.path}",
            "--memreport-affected=base..HEAD", "-p", "no:cacheprovider", "-rA"]

    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --memreport-affected base..HEAD: base resolves in several of the reports' "
                                 "repositories (*); give BASE as a commit id, or run inside the target"])

    monkeypatch.chdir(repo.path)
    before = repo.state()
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert repo.state() == before  # the target's checkout is only read
    result.stdout.fnmatch_lines([f"memreport: base..HEAD in {repo.path} *: 1 changed path(s) touch 3 affected check(s)"])


@pytest.mark.parametrize(("option", "ini", "expected"), [
    ("origin/main..HEAD", None, ("origin/main", "HEAD")),
    ("abc123..feature", "x..y", ("abc123", "feature")),  # the command line before the ini key
    ("abc123..", None, ("abc123", "HEAD")),
    (None, "main..topic", ("main", "topic")),
    (None, None, None),
    (None, "", None),
])
def test_the_range_is_read_from_the_option_then_the_ini_key(option, ini, expected):
    assert parse_affected(option, ini) == expected


@pytest.mark.parametrize("given", ["main", "..HEAD", "a...b", "a b..HEAD", ""])
def test_a_malformed_range_is_an_option_error(given):
    with pytest.raises(OptionError, match="give a range BASE..HEAD"):
        parse_affected(given, None)
