"""A fixture knowledge base: a dozen reviews of four target repositories, cloned under one folder.

The targets are real git repositories built commit by commit (a file edited, a
file moved, a file deleted after the reviews' pins); the clones sit under
``clones/<Owner>/<name>`` with the owners' letter case as GitHub spells them,
which the reviews do not always follow. Written for the CI tests (template,
ini mapping, verdict, staleness table, conventions).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from repo_builder import RepoBuilder

ENGINE_RS = "pub fn run() {\n    let limit = 64;\n    step(limit);\n}\n"
UTIL_RS = "pub fn clamp(x: u32) -> u32 {\n    x.min(10)\n}\n"
CORE_PY = "def load(path):\n    return open(path).read()\n"
HELPERS_PY = "def size(items):\n    return len(items)\n"
LIB_TS = "export function parse(input: string) {\n  return input.trim();\n}\n"
TOOL_GO = "package tool\n\nfunc Run() int {\n\treturn 7\n}\n"
MAIN_GO = "package main\n\nfunc main() {\n\tRun()\n}\n"


def review(repo: str, sha: str, path: str, lines: str, title: str) -> str:
    """A review (FORMAT.md §2 shape) of ``repo`` pinned at ``sha``, citing ``path`` lines ``lines``."""
    start, _, end = lines.partition("-")
    anchor = f"#L{start}-L{end}" if end else f"#L{start}"
    return textwrap.dedent(
        f"""\
        ---
        description: {title}
        type: code-review
        ---

        # {title}

        **Repository:** https://github.com/{repo}
        **Reviewed commit:** [{sha}](https://github.com/{repo}/commit/{sha})

        ## Finding

        The behaviour lives in [{path}](https://github.com/{repo}/blob/{sha}/{path}{anchor}).
        """
    )


@dataclass
class KnowledgeBase:
    root: Path
    reviews: Path
    clones: Path
    pins: dict = field(default_factory=dict)

    def write(self, name: str, text: str) -> Path:
        path = self.reviews / name
        path.write_text(text, encoding="utf-8")
        return path


def build_clones(clones: Path) -> dict[str, str]:
    """The four targets under ``clones`` (read-only once built: a run never writes to them);
    returns their pins (and the later commits drift is checked against, ``*_now``):

    * acme/widget: ``src/engine.rs`` edited after the pin, ``src/util.rs`` kept;
    * acme/gadget: ``lib/core.py`` moved to ``pkg/core.py``;
    * Zeta/Lib on disk (``zeta/lib`` and ``Zeta/lib`` in the reviews): unchanged;
    * beta/tool: ``tool.go`` deleted, ``main.go`` kept.
    """
    pins = {}
    widget = RepoBuilder(clones / "acme" / "widget")
    pins["widget"] = widget.commit({"src/engine.rs": ENGINE_RS, "src/util.rs": UTIL_RS}, "widget")
    pins["widget_now"] = widget.commit(
        {"src/engine.rs": ENGINE_RS.replace("let limit = 64;\n    step(limit);", "step(128);")}, "edit")

    gadget = RepoBuilder(clones / "acme" / "gadget")
    pins["gadget"] = gadget.commit({"lib/core.py": CORE_PY, "lib/helpers.py": HELPERS_PY}, "gadget")
    gadget.move("lib/core.py", "pkg/core.py")
    gadget.commit(message="move core")

    lib = RepoBuilder(clones / "Zeta" / "Lib")
    pins["lib"] = lib.commit({"src/lib.ts": LIB_TS}, "lib")

    tool = RepoBuilder(clones / "beta" / "tool")
    pins["tool"] = tool.commit({"tool.go": TOOL_GO, "main.go": MAIN_GO}, "tool")
    tool.delete("tool.go")
    pins["tool_now"] = tool.commit(message="drop tool.go")
    return pins


def build(root: Path, clones: Path, pins: dict[str, str]) -> KnowledgeBase:
    """Twelve reviews under ``root/reviews`` of the targets of :func:`build_clones`: two per
    target, a review of a repository with no clone, one of ``acme/widgets`` (a typo'd name),
    one pinned at a commit the clone lacks, and a superseded copy."""
    kb = KnowledgeBase(root, root / "reviews", clones, dict(pins))
    kb.reviews.mkdir(parents=True)
    w, g, lib, t = (pins[k] for k in ("widget", "gadget", "lib", "tool"))
    kb.write("widget-engine.md", review("acme/widget", w, "src/engine.rs", "2-3", "Widget engine"))
    kb.write("widget-util.md", review("acme/widget", w, "src/util.rs", "1-3", "Widget util"))
    kb.write("widget-engine.replaced.2026-07-06.md", review("acme/widget", w, "src/engine.rs", "2-3", "Old"))
    kb.write("gadget-core.md", review("acme/gadget", g, "lib/core.py", "1-2", "Gadget core"))
    kb.write("gadget-helpers.md", review("acme/gadget", g, "lib/helpers.py", "1-2", "Gadget helpers"))
    kb.write("lib-parse.md", review("zeta/lib", lib, "src/lib.ts", "1-3", "Lib parse"))
    kb.write("lib-trim.md", review("Zeta/lib", lib, "src/lib.ts", "2", "Lib trim"))
    kb.write("tool-run.md", review("beta/tool", t, "tool.go", "3-5", "Tool run"))
    kb.write("tool-main.md", review("beta/tool", t, "main.go", "3-5", "Tool main"))
    kb.write("nowhere.md", review("gamma/nowhere", w, "src/x.rs", "1", "Nowhere"))
    kb.write("widgets-typo.md", review("acme/widgets", w, "src/util.rs", "1", "Typo"))
    kb.write("widget-future.md", review("acme/widget", "1" * 40, "src/util.rs", "1", "Future"))
    return kb


#: each fixture review's state with every clone mapped (the superseded copy left out)
EXPECTED_STATES = {
    "widget-engine.md": "stale",
    "widget-util.md": "fresh",
    "gadget-core.md": "fresh",
    "gadget-helpers.md": "fresh",
    "lib-parse.md": "fresh",
    "lib-trim.md": "fresh",
    "tool-run.md": "stale",
    "tool-main.md": "fresh",
    "nowhere.md": "unchecked",
    "widgets-typo.md": "unchecked",
    "widget-future.md": "unchecked",
}


@pytest.fixture(scope="module")
def targets(tmp_path_factory):
    """The four target clones, built once per module (runs only read them)."""
    clones = tmp_path_factory.mktemp("kb") / "clones"
    return clones, build_clones(clones)


@pytest.fixture
def kb(pytester, targets):
    """The knowledge base of :func:`build` in the pytester folder, over the module's clones."""
    clones, pins = targets
    return build(pytester.path, clones, pins)
