"""Done-when of issue 17: a real review of a target whose files were renamed since its pin
is re-pinned to HEAD in one command; the re-pinned review passes at the new pin with zero
failures, and a second run changes nothing.

Two reviews of one shape (blob and tree links pinned at the old commit, several per line,
reference-style definitions, ``#L`` anchors on code that shifted, blockquotes attributed
with a link or `` `path` @ `sha` ``, backticked symbols and words that are not evidence, a
link at another commit on purpose):

* tests/fixtures/reviews/servers-everything-tools.md, of the real target
  ``../shared/samples/repos/servers.git`` (github.com/modelcontextprotocol/servers, a
  bare clone missing one blob), pinned on the branch that split the "everything" server's
  tools; git finds five of its cited files renamed by HEAD (no commit of that clone has
  more renamed files by HEAD) and most cited lines shifted. Skipped when the clone is absent.
* a synthetic twin built here, whose target renames twelve cited files (six moved, six
  moved and renamed) and shifts their lines: it always runs.

What both must show: every link at the old pin now names HEAD, the renamed file's new
path and anchors whose lines at HEAD are exactly the lines the old anchor named at the
pin (read back from git); nothing else of the review changed; then a run at the new pin
has no failure and ``--memreport-write`` writes nothing.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from conftest import summary_outcomes

FIXTURE = Path(__file__).parent / "fixtures" / "reviews" / "servers-everything-tools.md"
SERVERS = Path(__file__).resolve().parents[2] / "shared" / "samples" / "repos" / "servers.git"
SERVERS_PIN = "8530747606308e1e171bac5b1b07729b7a088c4a"
#: links of the real review at other commits on purpose: they stay as written
SERVERS_OTHER_COMMITS = ("c7d60d635abcad61fc0cf0bb3f0ca8d83bcd2eec", "f759d9eaa1192a1d950971077dca55230f83485a")
SERVERS_RENAMED = {
    "src/everything/tools/add.ts": "src/everything/tools/get-sum.ts",
    "src/everything/tools/annotated-message.ts": "src/everything/tools/get-annotated-message.ts",
    "src/everything/tools/print-env.ts": "src/everything/tools/get-env.ts",
    "src/everything/tools/toggle-logging.ts": "src/everything/tools/toggle-simulated-logging.ts",
    "src/everything/tools/long-running-operation.ts": "src/everything/tools/trigger-long-running-operation.ts",
}

_BLOB = re.compile(r"https://github\.com/([\w.-]+/[\w.-]+)/(blob|tree|commit)/([0-9a-f]{40})(/[^)\s#\"]*)?(?:#L(\d+)(?:-L(\d+))?)?")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={repo}" if repo.suffix == ".git" else f"--git-dir={repo / '.git'}",
                           *args], check=True, capture_output=True, text=True).stdout


def lines_at(repo: Path, commit: str, path: str, first: int, last: int) -> list[str]:
    return git(repo, "show", f"{commit}:{path}").splitlines()[first - 1:last]


def links(text: str) -> list[re.Match]:
    return list(_BLOB.finditer(text))


def run(pytester, review: Path, key: str, repo: Path, *args: str):
    return pytester.runpytest("-rA", "-p", "no:cacheprovider", "--memreport", str(review),
                              "--memreport-repo", f"{key}={repo}", *args)


def failures(result) -> list[str]:
    return list(summary_outcomes(result, ("FAILED", "ERROR")))


def assert_repinned(before: str, after: str, repo: Path, repository: str, pin: str, head: str,
                    renamed: dict[str, str], kept_commits: tuple[str, ...]) -> None:
    """What a re-pin from ``pin`` to ``head`` must have done to the review, and nothing more."""
    ours = _BLOB.sub(lambda m: m.group(0) if m.group(1) == repository else "", after)
    assert pin not in ours and pin[:10] not in ours
    for commit in kept_commits:
        assert before.count(commit) == after.count(commit) > 0
    # Lines that cite neither the pin nor a renamed file keep every byte.
    old_lines, new_lines = before.split("\n"), after.split("\n")
    assert len(old_lines) == len(new_lines)
    for old, new in zip(old_lines, new_lines):
        if pin[:10] not in old and not any(path.rsplit("/", 1)[-1] in old for path in renamed):
            assert old == new
    # Every link of the repository at the pin: HEAD, the new path, the same lines of code.
    old_links, new_links = links(before), links(after)
    assert len(old_links) == len(new_links)
    moved = 0
    for old, new in zip(old_links, new_links):
        if old.group(1) != repository or old.group(3) != pin:
            assert old.group(0) == new.group(0)  # another repository, or another commit on purpose
            continue
        assert new.group(3) == head and new.group(2) == old.group(2)
        if old.group(2) == "commit":
            continue
        old_path, new_path = old.group(4).lstrip("/"), new.group(4).lstrip("/")
        assert new_path == renamed.get(old_path, old_path)
        assert git(repo, "cat-file", "-t", f"{head}:{new_path}").strip() in ("blob", "tree")
        if old.group(5):
            first, last = int(old.group(5)), int(old.group(6) or old.group(5))
            new_first, new_last = int(new.group(5)), int(new.group(6) or new.group(5))
            assert lines_at(repo, head, new_path, new_first, new_last) == lines_at(repo, pin, old_path, first, last)
            moved += (new_first != first)
    assert moved >= 5, "the fixture must cite lines that shifted"
    for old_path, new_path in renamed.items():
        if "." in old_path.rsplit("/", 1)[-1]:  # a file (a moved folder is checked by its links)
            assert f"/blob/{pin}/{old_path}" in before
            assert f"/{old_path}" not in ours and f"/blob/{head}/{new_path}" in after


def repin_and_rerun(pytester, review: Path, key: str, repo: Path) -> tuple[str, str, str]:
    """Check at the pin, re-pin in one command, check at the new pin, write again."""
    before = review.read_text(encoding="utf-8")
    first = run(pytester, review, key, repo)
    assert first.ret == 0 and failures(first) == [], first.stdout.str()

    result = run(pytester, review, key, repo, "--memreport-write", "--memreport-repin", "HEAD")
    assert result.ret == 0, result.stdout.str()
    assert "refused" not in result.stdout.str()
    after = review.read_text(encoding="utf-8")

    again = run(pytester, review, key, repo)
    out = again.stdout.str()
    assert again.ret == 0 and failures(again) == [], out
    # fresh; or partial when a link names a repository with no clone (nothing of it was read)
    assert re.search(r"^(fresh +\S+ +\d+ checks hold|partial +\S+ +\d+ checks hold; partly unchecked: "
                     r"\d+ source\(s\) with no clone)$", out, re.M), out
    second = run(pytester, review, key, repo, "--memreport-write", "--memreport-repin", "HEAD")
    assert second.ret == 0 and "nothing to write" in second.stdout.str(), second.stdout.str()
    assert review.read_text(encoding="utf-8") == after
    return before, after, result.stdout.str()


@pytest.mark.skipif(not (SERVERS / "HEAD").is_file(), reason="../shared/samples/repos/servers.git is absent")
def test_the_real_review_of_the_servers_clone_is_repinned_to_head(pytester):
    if subprocess.run(["git", f"--git-dir={SERVERS}", "cat-file", "-e", f"{SERVERS_PIN}^{{commit}}"],
                      capture_output=True).returncode != 0:
        pytest.skip("the servers clone lacks the review's pin")
    head = git(SERVERS, "rev-parse", "HEAD").strip()
    found = {old: new for status, old, new in (line.split("\t") for line in git(
        SERVERS, "diff", "-M", "--name-status", "--diff-filter=R", SERVERS_PIN, head).splitlines())}
    assert {old: found[old] for old in SERVERS_RENAMED} == SERVERS_RENAMED
    review = pytester.path / FIXTURE.name
    shutil.copyfile(FIXTURE, review)

    before, after, out = repin_and_rerun(pytester, review, "modelcontextprotocol/servers", SERVERS)
    assert_repinned(before, after, SERVERS, "modelcontextprotocol/servers", SERVERS_PIN, head,
                    SERVERS_RENAMED, SERVERS_OTHER_COMMITS)
    assert f"**Reviewed commit:** [{head}](https://github.com/modelcontextprotocol/servers/commit/{head})" in after
    # link texts showing the file, its name or its lines; the `path` @ `sha` attribution
    assert "[get-sum.ts line 41](" in after and "[get-annotated-message.ts][annotated]" in after
    assert f"> --- `src/everything/tools/trigger-long-running-operation.ts` @ `{head[:10]}`" in after
    assert "> --- [src/everything/tools/toggle-simulated-logging.ts](" in after
    # words that are not evidence stayed words and blocked nothing
    assert "`readOnlyHint`, `sessionId` or `z.object`" in after


# ------------------------------------------------------------------ the synthetic twin

TOOLS = ("add", "echo", "env", "image", "links", "logging", "long", "notify", "prompt", "roots", "sample",
         "subscribe")
#: six tools move to the new tree as they are named, six are renamed as they move
NEW_NAMES = {name: (f"get-{name}" if i % 2 else name) for i, name in enumerate(TOOLS)}
HEADER = "// SPDX-License-Identifier: MIT\n// Part of the tools package.\n\n"


def tool_source(name: str) -> str:
    cap = name.capitalize()
    return textwrap.dedent(
        f"""\
        import {{ Server }} from "../server/index.js";

        // The {name} tool answers one request at a time.
        const NAME = "{name}";

        export function register{cap}Tool(server: Server) {{
          server.register(NAME, async (args) => {{
            const {name}Value = args.{name} ?? "{name}-default";
            server.log("{name} called");
            return {{ text: `{name}: ${{{name}Value}}` }};
          }});
        }}
        """
    )


SERVER = "export class Server {\n  register(name, handler) {}\n  log(message) {}\n}\n"


@pytest.fixture
def renamed_target(make_repo):
    repo = make_repo("toolbox")
    first = repo.commit({"docs/README.md": "# Toolbox\n\nTwelve small tools.\n", "src/server/index.ts": SERVER},
                        "server")
    pin = repo.commit({f"src/tools/{name}.ts": tool_source(name) for name in TOOLS}, "tools")
    for name in TOOLS:
        repo.move(f"src/tools/{name}.ts", f"packages/tools/src/{NEW_NAMES[name]}.ts")
    repo.commit(message="the tools become a package")
    head = repo.commit({f"packages/tools/src/{NEW_NAMES[name]}.ts": HEADER + tool_source(name) for name in TOOLS}
                       | {"src/server/index.ts": "// The server.\n" + SERVER}, "license headers")
    return repo, first, pin, head


def twin_review(pin: str, first: str) -> str:
    blob = f"https://github.com/acme/toolbox/blob/{pin}"
    rows = []
    for i, name in enumerate(TOOLS):
        after = TOOLS[(i + 1) % len(TOOLS)]
        rows.append(
            f"The `{name}` tool, `register{name.capitalize()}Tool` of [{name}.ts]({blob}/src/tools/{name}.ts), "
            f"reads its argument ([line 8]({blob}/src/tools/{name}.ts#L8)) and logs ([lines 9-10][{name}-log]); "
            f"compare [{after}.ts]({blob}/src/tools/{after}.ts#L6-L12)."
        )
    quotes = []
    for name in TOOLS[:4]:
        quotes.append(
            f'> const {name}Value = args.{name} ?? "{name}-default";\n'
            f'> server.log("{name} called");\n'
            f"> --- [src/tools/{name}.ts]({blob}/src/tools/{name}.ts#L8-L9)\n"
        )
    quotes.append(f'> server.log("long called");\n> --- `src/tools/long.ts` @ `{pin[:10]}`\n')
    definitions = "\n".join(f"[{name}-log]: {blob}/src/tools/{name}.ts#L9-L10" for name in TOOLS)
    body = "\n".join(rows)
    quoted = "\n".join(quotes)
    return (
        "---\ndescription: Toolbox tools review\ntype: notes/types/code-review.md\n---\n\n"
        "# Toolbox tools\n\n"
        "**Repository:** https://github.com/acme/toolbox\n"
        f"**Reviewed commit:** [{pin}](https://github.com/acme/toolbox/commit/{pin})\n\n"
        f"Tools live in [src/tools](https://github.com/acme/toolbox/tree/{pin}/src/tools) and talk to "
        f"[the server]({blob}/src/server/index.ts#L2-L3); the README was written first "
        f"([README](https://github.com/acme/toolbox/blob/{first}/docs/README.md#L3)), and a fork keeps "
        f"[its own add](https://github.com/other/toolbox/blob/{pin}/src/tools/add.ts).\n"
        "Words such as `args.add`, `NAME` or `server.log` are not evidence.\n\n"
        f"{body}\n\n{quoted}\n{definitions}\n"
    )


def test_a_synthetic_twin_with_twelve_renamed_files_is_repinned_to_head(pytester, renamed_target):
    repo, first, pin, head = renamed_target
    renamed = {f"src/tools/{name}.ts": f"packages/tools/src/{NEW_NAMES[name]}.ts" for name in TOOLS}
    found = dict(line.split("\t")[1:] for line in git(
        repo.path, "diff", "-M", "--name-status", "--diff-filter=R", pin, head).splitlines())
    assert found == renamed
    renamed["src/tools"] = "packages/tools/src"  # the folder moved as a whole: its tree link follows
    review = pytester.path / "toolbox.md"
    review.write_text(twin_review(pin, first), encoding="utf-8")

    before, after, out = repin_and_rerun(pytester, review, "acme/toolbox", repo.path)
    assert_repinned(before, after, repo.path, "acme/toolbox", pin, head, renamed, (first,))
    blob = f"https://github.com/acme/toolbox/blob/{head}"
    assert (f"The `env` tool, `registerEnvTool` of [env.ts]({blob}/packages/tools/src/env.ts), "
            f"reads its argument ([line 11]({blob}/packages/tools/src/env.ts#L11)) and logs "
            f"([lines 12-13][env-log]); compare [get-image.ts]({blob}/packages/tools/src/get-image.ts#L9-L15).") in after
    assert f"[env-log]: {blob}/packages/tools/src/env.ts#L12-L13" in after
    assert "([lines 12-13][echo-log]); compare [env.ts](" in after
    assert f"[the server]({blob}/src/server/index.ts#L3-L4)" in after
    assert f"> --- [packages/tools/src/get-echo.ts]({blob}/packages/tools/src/get-echo.ts#L11-L12)" in after
    assert f"> --- `packages/tools/src/long.ts` @ `{head[:10]}`" in after
    assert f"https://github.com/other/toolbox/blob/{pin}/src/tools/add.ts" in before
    assert after.count(f"https://github.com/other/toolbox/blob/{pin}/src/tools/add.ts") == 1
