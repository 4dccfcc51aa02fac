"""Shallow clones (CI's default ``fetch-depth: 1``) are named, and drift is never
classified from history the clone cannot see.

Real shallow clones (``git clone --depth 1`` / ``--depth 5`` over ``file://``) of a
fixture target of eight commits: a pin beyond the boundary, a pin fetched on its own
(present, but the history from it to ``HEAD`` cut off), and a pin inside the boundary
(checked as in a full clone).
"""

from __future__ import annotations

import json
import subprocess

import pytest

from kb_support import review
from repo_builder import RepoBuilder

ENGINE = "pub fn run() {\n    let limit = 64;\n    step(limit);\n}\n"
UTIL = "pub fn clamp(x: u32) -> u32 {\n    x.min(10)\n}\n"


@pytest.fixture(scope="module")
def target(tmp_path_factory):
    """acme/widget, eight commits on main; ``pinned`` (a branch) at the second. The
    engine's lines change at the third, the util's at the seventh."""
    repo = RepoBuilder(tmp_path_factory.mktemp("shallow") / "widget")
    shas = [repo.commit({"src/engine.rs": ENGINE}, "c1"), repo.commit({"src/util.rs": UTIL}, "c2")]
    repo.repo.git.branch("pinned")
    shas.append(repo.commit({"src/engine.rs": ENGINE.replace("let limit = 64;\n    step(limit);", "step(128);")},
                            "c3 engine"))
    for n in range(4, 9):
        files = {f"notes/{n}.txt": f"{n}\n"}
        if n == 7:
            files["src/util.rs"] = UTIL.replace("x.min(10)", "x.min(12)")
        shas.append(repo.commit(files, f"c{n}"))
    return repo, shas


def clone(target, dest, *args: str) -> str:
    repo, _ = target
    subprocess.run(["git", "clone", "-q", *args, f"file://{repo.path}", str(dest)], check=True)
    return str(dest)


def run(pytester, clone_path: str, pin: str, path: str, lines: str):
    pytester.makefile(".md", review=review("acme/widget", pin, path, lines, "Widget"))
    out = pytester.path / "out.json"
    result = pytester.runpytest_subprocess("--memreport", "review.md", f"--memreport-repo=acme/widget={clone_path}",
                                           f"--memreport-json={out}", "-rA", "-p", "no:cacheprovider")
    data = json.loads(out.read_text(encoding="utf-8"))["reports"][0]
    return result, data


def drift_statuses(data) -> list[str]:
    return [e.get("at_against", {}).get("status") for e in data["evidence"]]


@pytest.mark.parametrize("depth", ["1", "5"])
def test_a_pin_beyond_the_boundary_is_named_and_given_no_drift_verdict(pytester, target, tmp_path, depth):
    _, shas = target
    path = clone(target, tmp_path / "clone", "--bare", "--depth", depth)
    result, data = run(pytester, path, shas[1], "src/engine.rs", "2-3")
    out = result.stdout.str()
    assert "a shallow clone whose history is cut off" in out
    assert "git fetch --unshallow" in out and "fetch-depth: 0" in out
    assert data["state"] != "stale" and "changed" not in drift_statuses(data)


@pytest.mark.parametrize("depth", ["1", "5"])
def test_a_pin_fetched_apart_from_its_history_is_named_and_drift_not_classified(pytester, target, tmp_path,
                                                                                  depth):
    """The pin is in the clone (its branch fetched too), but the commits between it and
    HEAD are beyond the boundary: the full clone finds the engine's lines changed; the
    shallow one says why it cannot tell."""
    repo, shas = target
    full, full_data = run(pytester, str(repo.path), shas[1], "src/engine.rs", "2-3")
    assert drift_statuses(full_data) == ["changed"] and full_data["state"] == "stale"

    path = clone(target, tmp_path / "clone", "--depth", depth, "--no-single-branch")
    result, data = run(pytester, path, shas[1], "src/engine.rs", "2-3")
    out = result.stdout.str()
    assert f"is a shallow clone and the history from the pin {shas[1][:12]}" in out
    assert "drift is not classified from history the clone cannot see" in out
    assert "fetch --unshallow" in out and "--shallow-since=" in out and "fetch-depth: 0" in out
    assert drift_statuses(data) == ["not-checked"]
    assert data["evidence"][0]["at_pin"]["status"] == "found"  # what the clone has is checked
    assert data["state"] == "partial"
    result.stdout.fnmatch_lines(["SKIPPED*drift not checked:*shallow clone*"])


def test_a_pin_inside_the_boundary_is_checked_as_in_a_full_clone(pytester, target, tmp_path):
    repo, shas = target
    path = clone(target, tmp_path / "clone", "--bare", "--depth", "5")
    pin = shas[4]  # c5: c4..c8 are in the clone; util.rs changed at c7
    result, data = run(pytester, path, pin, "src/util.rs", "1-3")
    _, full_data = run(pytester, str(repo.path), pin, "src/util.rs", "1-3")
    assert drift_statuses(data) == drift_statuses(full_data) == ["changed"]
    assert data["evidence"][0]["at_against"]["broken_by"]["subject"] == "c7"
    assert "shallow" not in result.stdout.str()
