"""The target repository of the fixture runs (tests/fixtures/runs/): a small monorepo whose
subject subtree is ``src/widgets``, built for real in a temporary folder.

``index.ts`` exists in three places and ``think/index.ts`` in two, so bare names and
partial paths are ambiguous in the whole tree and unique in the subject subtree. The
fixture files hold placeholders (``{{PIN}}``, ``{{PIN7}}``, ``{{CHECKOUT}}``) that
:func:`materialize` fills in, since the pin is only known once the repository is built.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "runs"


def numbered(prefix: str, count: int) -> str:
    return "".join(f"export const {prefix}{i} = {i};\n" for i in range(1, count + 1))


INDEX = (
    "import { Queue } from './core/queue';\n"                  # 1
    "import { Worker } from './core/worker';\n"                # 2
    "\n"                                                       # 3
    "const DESCRIPTION = `Widgets keep a queue of jobs.\n"     # 4
    "Each job is handed to one worker at a time.\n"            # 5
    "- Verify the job before it runs\n"                        # 6
    "- Retry a failed job at most three times\n"               # 7
    "Current limit of jobs per worker is 40`;\n"               # 8
    "\n"                                                       # 9
    + numbered("slot", 30)                                     # 10-39
    + "export function start(limit = 40) {\n"                  # 40
    "  const queue = new Queue(limit);\n"                      # 41
    "  return new Worker(queue);\n"                            # 42
    "}\n"                                                      # 43
)
QUEUE = numbered("queueStep", 60)
WORKER = numbered("workerStep", 80)
THINK = numbered("thinkStep", 30)
README = (
    "# Widgets\n"                                              # 1
    "\n"                                                       # 2
    "## Features\n"                                            # 3
    "\n"                                                       # 4
    "- Keep every job in one ordered queue\n"                  # 5
    "- Hand each job to exactly one worker\n"                  # 6
    "- Report the queue length on request\n"                   # 7
)
TREE = {
    "README.md": "# Servers\n\nA monorepo of small servers.\n",
    "package.json": '{\n  "name": "servers",\n  "private": true\n}\n',
    "docs/guide.md": "# Guide\n\nRun one server at a time.\n",
    "src/widgets/index.ts": INDEX,
    "src/widgets/README.md": README,
    "src/widgets/package.json": '{\n  "name": "widgets",\n  "version": "1.2.0",\n  "bin": "dist/index.js"\n}\n',
    "src/widgets/core/queue.ts": QUEUE,
    "src/widgets/core/worker.ts": WORKER,
    "src/widgets/core/think/index.ts": THINK,
    "src/gadgets/index.ts": numbered("gadget", 50),
    "src/gadgets/think/index.ts": numbered("gadgetThink", 30),
    "src/gadgets/README.md": "# Gadgets\n",
}


def packet(run_id: str) -> str:
    """An evidence packet of run ``run_id`` over the subject ``src/widgets``, with a
    ``{pin}`` placeholder and a register of the subject's index.ts and README.md."""
    return f"""\
# Packet — RUN `{run_id}`

The subtree `src/widgets` of github.com/acme/servers.

**Revision:** `{{pin}}`

| ID | Identity |
|---|---|
| SRC-1 | `src/widgets/index.ts` |
| SRC-2 | `src/widgets/README.md` |
"""


def check_run(pytester, make_repo, run_id: str, lens: str):
    """A two-file run (:func:`packet` and ``lens``) over the target at its pin, checked at
    the pin with JSON: ``(pytester result, the lens file's JSON report)``."""
    repo, pin = build_target(make_repo)
    folder = pytester.path / run_id.lower()
    folder.mkdir()
    (folder / "packet.md").write_text(packet(run_id).format(pin=pin), encoding="utf-8")
    (folder / "lens.md").write_text(lens, encoding="utf-8")
    out = pytester.path / "out.json"
    result = pytester.runpytest("--memreport", str(folder), f"--memreport-repo=acme/servers={repo.path}",
                                "--memreport-json", str(out), "-rA", "--memreport-against", "none")
    lens_report = next(r for r in json.loads(out.read_text())["reports"] if r["path"].endswith("lens.md"))
    return result, lens_report


def build_target(make_repo, name: str = "servers"):
    """The target at its pin: ``(RepoBuilder, pin sha)``."""
    repo = make_repo(name)
    pin = repo.commit(TREE, "widgets and gadgets")
    return repo, pin


def materialize(run: str, dest: Path, **values: str) -> Path:
    """Copy fixture run ``run`` into ``dest`` with its placeholders filled; returns the folder."""
    source = FIXTURES / run
    folder = Path(dest) / run
    folder.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.iterdir()):
        text = path.read_text(encoding="utf-8")
        for key, value in values.items():
            text = text.replace("{{" + key + "}}", value)
        (folder / path.name).write_text(text, encoding="utf-8")
    return folder


def copy_tree(run: str, dest: Path) -> Path:
    folder = Path(dest) / run
    shutil.copytree(FIXTURES / run, folder)
    return folder
