"""Re-pinning a multi-file analysis run (tests/fixtures/runs/repin-run/) in one command.

The run's four files share one register and one pin: the evidence packet states the
revision in full and holds the register, the runtime account states it again
abbreviated, the lens and the result only cite ``SRC-n:a-b`` and ``path:a-b``. Since
the pin the target moved ``src/relay/core/`` to ``src/relay/engine/`` and gained header
lines above the cited code, so ranges shift and register rows name moved files.

After ``--memreport-write --memreport-repin HEAD`` every file that states the revision
states the new one, every shifted range reads its new lines, every register row and
citation of a moved file names its new path, and nothing else of any file changed;
a run at the new pin then has no failure and a second write changes nothing.

The same is then shown on the real run of ../shared/samples (eight files, the pin in
23 places and three spellings), skipped when the samples are absent.
"""

from __future__ import annotations

import difflib
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from run_target import materialize, numbered

from conftest import summary_outcomes

RUN = "repin-run"


START = (
    "export function start(limit = 40) {\n"                      # 40
    "  const queue = new Queue(limit);\n"                        # 41
    "  const worker = new Worker(queue);\n"                      # 42
    '  worker.on("done", (job) => queue.ack(job));\n'            # 43
    '  worker.on("fail", (job) => queue.retry(job));\n'          # 44
    "  for (const job of queue.pending()) {\n"                   # 45
    "    worker.take(job);\n"                                    # 46
    "  }\n"                                                      # 47
    "  if (queue.size() > limit) {\n"                            # 48
    '    throw new Error("queue over limit");\n'                 # 49
    "  }\n"                                                      # 50
    "  return worker;\n"                                         # 51
    "}\n"                                                        # 52
)
INDEX = numbered("boot", 39) + START + numbered("tail", 8)
QUEUE = numbered("queueStep", 60)
WORKER = numbered("workerStep", 40)
README = "# Relay\n\n## Promises\n\n- Hand every message to exactly one worker\n- Keep the queue in arrival order\n"
INDEX_HEADER = "// The relay's entry point.\n// It starts one queue and one worker.\n// Nothing else runs here.\n\n"
QUEUE_HEADER = "// The queue of pending messages.\n\n"


@pytest.fixture
def moved(make_repo):
    """The target at the run's pin, then ``core/`` renamed to ``engine/`` and headers added."""
    repo = make_repo("relay")
    pin = repo.commit({
        "package.json": '{\n  "name": "relay"\n}\n',
        "src/relay/index.ts": INDEX,
        "src/relay/README.md": README,
        "src/relay/core/queue.ts": QUEUE,
        "src/relay/core/worker.ts": WORKER,
    }, "relay")
    repo.move("src/relay/core/queue.ts", "src/relay/engine/queue.ts")
    repo.move("src/relay/core/worker.ts", "src/relay/engine/worker.ts")
    repo.commit(message="core becomes engine")
    head = repo.commit({"src/relay/index.ts": INDEX_HEADER + INDEX,
                        "src/relay/engine/queue.ts": QUEUE_HEADER + QUEUE}, "headers")
    return repo, pin, head


def run(pytester, folder, repo, *args):
    return pytester.runpytest("-rA", "-p", "no:cacheprovider", "--memreport", str(folder),
                              f"--memreport-repo=acme/relay={repo.path}", *args)


def failures(result) -> list[str]:
    return list(summary_outcomes(result, ("FAILED", "ERROR")))


def files_of(folder) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("*.md"))}


def expected(original: dict[str, bytes], pin: str, head: str) -> dict[str, str]:
    """Each file as the re-pin must leave it: these replacements and no other byte."""
    text = {name: data.decode("utf-8") for name, data in original.items()}
    edits = {
        "evidence-packet.md": [
            (f"**Revision:** `{pin}`", f"**Revision:** `{head}`"),
            (f"| `{pin[:7]}` |", f"| `{head[:7]}` |"),
            ("| `src/relay/core/queue.ts` |", "| `src/relay/engine/queue.ts` |"),
            ("| `src/relay/core/` |", "| `src/relay/engine/` |"),
            ("| `SRC-1:40-52` |", "| `SRC-1:44-56` |"),
            ("`src/relay/core/worker.ts:5-9`", "`src/relay/engine/worker.ts:5-9`"),
            ("`queue.ts:50-52`", "`queue.ts:52-54`"),
        ],
        "lens-relay.md": [
            ("| `SRC-1:40-52` |", "| `SRC-1:44-56` |"),
            ("`SRC-2:10-14`, `:30`", "`SRC-2:12-16`, `:32`"),
            ("`src/relay/core/worker.ts:20-24`", "`src/relay/engine/worker.ts:20-24`"),
            ("`src/relay/index.ts:41`", "`src/relay/index.ts:45`"),
        ],
        "runtime-account.md": [
            (f"**Revision.** `{pin[:7]}`", f"**Revision.** `{head[:7]}`"),
            ("`SRC-1:12-15`, `SRC-2:3`", "`SRC-1:16-19`, `SRC-2:5`"),
            ("`SRC-2:30-33` then `src/relay/core/worker.ts:12–14, 20–21`",
             "`SRC-2:32-35` then `src/relay/engine/worker.ts:12–14, 20–21`"),
        ],
        "RESULT.md": [
            ("`SRC-1:41`, `SRC-2:30-33`", "`SRC-1:45`, `SRC-2:32-35`"),
        ],
    }
    out = {}
    for name, body in text.items():
        for old, new in edits.get(name, ()):
            assert old in body, (name, old)
            body = body.replace(old, new)
        out[name] = body
    return out


def test_a_multi_file_run_is_repinned_in_every_file(pytester, moved):
    repo, pin, head = moved
    folder = materialize(RUN, pytester.path, PIN=pin, PIN7=pin[:7])
    before = run(pytester, folder, repo)
    assert before.ret == 0 and failures(before) == [], before.stdout.str()
    original = files_of(folder)

    result = run(pytester, folder, repo, "--memreport-write", "--memreport-repin=HEAD")
    out = result.stdout.str()
    assert result.ret == 0, out
    written = {name: data.decode("utf-8") for name, data in files_of(folder).items()}
    wanted = expected(original, pin, head)
    for name in wanted:
        assert written[name] == wanted[name], "".join(difflib.unified_diff(
            wanted[name].splitlines(True), written[name].splitlines(True), "expected", name))
    # a file that states no revision and cites nothing that moved keeps every byte
    assert pin not in "".join(written.values()) and pin[:7] not in "".join(written.values())

    again = run(pytester, folder, repo)
    assert again.ret == 0 and failures(again) == [], again.stdout.str()
    assert "fresh" in again.stdout.str() and "stale" not in again.stdout.str()
    second = run(pytester, folder, repo, "--memreport-write", "--memreport-repin=HEAD")
    assert second.ret == 0, second.stdout.str()
    assert "wrote" not in second.stdout.str()
    assert {name: data.decode("utf-8") for name, data in files_of(folder).items()} == written


# ------------------------------------------------------------- the real run of the samples

SAMPLES = Path(__file__).resolve().parents[2] / "shared" / "samples"
REAL_RUN = SAMPLES / "runs" / "sequentialthinking"
REAL_REPO = SAMPLES / "repos" / "servers.git"
REAL_PIN = "2ecb382a02d7921511180dfbadcef24eb66a052f"
#: the next first-parent commits leave the run's subtree alone until d5b6b4c; this one is three days later
REAL_NEW = "5b5e24c2233a7d7c68384a5449b3ab75f16c60ba"
_SHA_WORD = re.compile(r"(?<![0-9A-Za-z])[0-9a-f]{7,40}(?![0-9A-Za-z])")


@pytest.mark.skipif(not (REAL_RUN.is_dir() and (REAL_REPO / "HEAD").is_file()),
                    reason="../shared/samples (the real run and its target) is absent")
def test_the_real_run_is_repinned_in_all_eight_files(pytester):
    """The samples' run states its pin in full in some files, abbreviated in others, in
    prose, a register column and table rows; one inline quotation's anchor is a line off.
    Re-pinned to a later commit that leaves the subtree as it was, every spelling of the
    pin reads the new commit, that anchor is corrected, and nothing else changes."""
    for sha in (REAL_PIN, REAL_NEW):
        if subprocess.run(["git", f"--git-dir={REAL_REPO}", "cat-file", "-e", f"{sha}^{{commit}}"],
                          capture_output=True).returncode != 0:
            pytest.skip(f"the servers clone lacks {sha[:12]}")
    folder = pytester.path / "run"
    shutil.copytree(REAL_RUN, folder)
    for path in [folder, *folder.iterdir()]:
        path.chmod(path.stat().st_mode | stat.S_IWUSR)  # the samples are read-only; the copy is ours
    original = files_of(folder)
    key = f"--memreport-repo=modelcontextprotocol/servers={REAL_REPO}"

    def memreport(*args):
        return pytester.runpytest("-q", "-p", "no:cacheprovider", "--memreport", str(folder), key, *args)

    result = memreport("--memreport-write", f"--memreport-repin={REAL_NEW}", f"--memreport-against={REAL_NEW}")
    out = result.stdout.str()
    assert result.ret == 0, out
    assert "range corrected: the quotation is at line 207 at the pin" in out
    written = {name: data.decode("utf-8") for name, data in files_of(folder).items()}
    for name, data in original.items():
        text = data.decode("utf-8")
        assert REAL_PIN[:7] in text
        wanted = _SHA_WORD.sub(lambda m: REAL_NEW[:len(m.group())] if REAL_PIN.startswith(m.group()) else m.group(),
                               text)
        if name == "lens-epistemic.md":
            assert wanted.count('thoughts needed" (`SRC-1:206`)') == 1
            wanted = wanted.replace('thoughts needed" (`SRC-1:206`)', 'thoughts needed" (`SRC-1:207`)')
        assert written[name] == wanted, name

    again = memreport(f"--memreport-against={REAL_NEW}")
    assert again.ret == 0, again.stdout.str()
    assert re.search(r"^\d+ passed, \d+ skipped", again.stdout.lines[-1]), again.stdout.lines[-1]
    second = memreport("--memreport-write", f"--memreport-repin={REAL_NEW}", f"--memreport-against={REAL_NEW}")
    assert second.ret == 0 and "wrote" not in second.stdout.str(), second.stdout.str()
    assert files_of(folder) == {name: text.encode("utf-8") for name, text in written.items()}


def test_a_citation_the_rewrite_cannot_spell_refuses_the_repin_naming_it(pytester, moved):
    """``src/relay/core/{queue,worker}.ts:12`` names two files that moved and one range that
    shifts for one of them only: no single rewrite of it is right. Re-pinning the rest would
    leave it failing at the new pin, so the re-pin is refused, naming each citation, and the
    report keeps every byte."""
    repo, pin, head = moved
    report = pytester.path / "braces.md"
    text = (f"# Run 9: relay\n\nThe run reads github.com/acme/relay.\n\n**Revision:** `{pin[:7]}`\n\n"
            "| ID | Path |\n| --- | --- |\n| SRC-1 | `src/relay/index.ts` |\n\n"
            "| ID | Object | Anchor |\n| --- | --- | --- |\n"
            "| OBJ-1 | both | `src/relay/core/{queue,worker}.ts:12` |\n")
    report.write_text(text, encoding="utf-8")
    result = run(pytester, report, repo, "--memreport-write", "--memreport-repin=HEAD")
    out = result.stdout.str()
    assert result.ret != 0, out
    assert "braces.md: re-pin to HEAD refused" in out
    assert ("braces.md:13: not rewritten: src/relay/core/queue.ts:12 must read src/relay/engine/queue.ts:14, "
            "but this run cannot find where the report writes it; write it out by hand") in out
    assert "braces.md:13: not rewritten: src/relay/core/worker.ts:12 must read src/relay/engine/worker.ts:12" in out
    assert "wrote" not in out
    assert report.read_text(encoding="utf-8") == text
