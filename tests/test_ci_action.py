"""The GitHub Action's steps (``pytest_memreport/ci/action.py``), run as ``action.yml`` runs them.

A knowledge base of reviews of three ``file://`` targets goes through the steps twice,
with a fake ``GITHUB_*`` environment and a local HTTP server on 127.0.0.1 standing in
for GitHub's REST API: the targets are listed, cloned bare (then, with the folder kept
as the cache would keep it, only updated), checked, and the step summary, SARIF and the
pull-request comment written; the comment is posted once and rewritten on the second
run, compared with the first run's results (as the cache step hands them over).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import kb_support
from repo_builder import RepoBuilder

ROOT = Path(__file__).resolve().parent.parent
MARKER = "<!-- pytest-memreport -->"


class FakeGitHub:
    """Issue comments of one pull request, served as GitHub's REST API serves them."""

    def __init__(self, repo: str, number: int, writable: bool = True) -> None:
        self.repo, self.number, self.writable = repo, number, writable
        self.comments = [{"id": 11, "body": "Looks good to me (a reviewer's comment)."}]
        self.requests: list[tuple[str, str, str, dict | None]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def _reply(self, code: int, data) -> None:
                body = json.dumps(data).encode("utf-8")
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                data = json.loads(self.rfile.read(length)) if length else None
                fake.requests.append((self.command, self.path, self.headers.get("Authorization", ""), data))
                listing = f"/repos/{fake.repo}/issues/{fake.number}/comments"
                if self.command == "GET" and self.path.split("?")[0] == listing:
                    return self._reply(200, fake.comments)
                if self.command in ("POST", "PATCH") and not fake.writable:
                    return self._reply(403, {"message": "Resource not accessible by integration"})
                if self.command == "POST" and self.path == listing:
                    made = {"id": 100 + len(fake.comments), "body": data["body"]}
                    fake.comments.append(made)
                    return self._reply(201, made)
                prefix = f"/repos/{fake.repo}/issues/comments/"
                if self.command == "PATCH" and self.path.startswith(prefix):
                    found = next(c for c in fake.comments if c["id"] == int(self.path[len(prefix):]))
                    found["body"] = data["body"]
                    return self._reply(200, found)
                return self._reply(404, {"message": "Not Found"})

            do_GET = do_POST = do_PATCH = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        # stops by itself should a test never get to its teardown
        self.timer = threading.Timer(600, self.server.shutdown)

    def __enter__(self) -> FakeGitHub:
        self.thread.start()
        self.timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self.timer.cancel()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)

    def writes(self) -> list[tuple[str, str]]:
        return [(method, path) for method, path, _, _ in self.requests if method != "GET"]


def outputs(path: Path) -> dict[str, str]:
    """The last value of each step output written to ``GITHUB_OUTPUT``."""
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        name, _, value = line.partition("=")
        found[name] = value
    return found


@pytest.fixture
def world(tmp_path):
    """Three upstream targets (served over file://), a knowledge base reviewing them, and
    the folders and environment of a pull request's job."""
    upstream = tmp_path / "upstream"
    pins = kb_support.build_clones(upstream)
    kb = tmp_path / "kb"
    (kb / "reviews").mkdir(parents=True)
    review = kb_support.review
    (kb / "reviews" / "widget-engine.md").write_text(
        review("acme/widget", pins["widget"], "src/engine.rs", "2-3", "Engine"), encoding="utf-8")
    (kb / "reviews" / "widget-util.md").write_text(
        review("acme/widget", pins["widget"], "src/util.rs", "1-3", "Util"), encoding="utf-8")
    (kb / "reviews" / "gadget-helpers.md").write_text(
        review("acme/gadget", pins["gadget"], "lib/helpers.py", "1-2", "Helpers"), encoding="utf-8")
    (kb / "reviews" / "tool-main.md").write_text(
        review("beta/tool", pins["tool"], "main.go", "3-5", "Main"), encoding="utf-8")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7}}), encoding="utf-8")
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "MEMREPORT_", "RUNNER_"))}
    environment = {
        **base_env,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "MEMREPORT_REPORTS": "reviews/",
        "MEMREPORT_TARGETS": str(tmp_path / "targets"),
        "MEMREPORT_CLONE_BASE_URL": f"file://{upstream}",
        "MEMREPORT_OUT": str(tmp_path / "out"),
        "MEMREPORT_RESULTS": str(tmp_path / "cache" / "results.json"),
        "MEMREPORT_PYTEST_ARGS": "-p no:cacheprovider",
        "GITHUB_ACTIONS": "true",
        "GITHUB_OUTPUT": str(tmp_path / "github_output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GITHUB_WORKSPACE": str(kb),
        "GITHUB_REPOSITORY": "keeper/kb",
        "GITHUB_SHA": "c0ffee",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_TOKEN": "t0ken",
    }
    (tmp_path / "cache").mkdir()
    return tmp_path, kb, upstream, pins, environment


def step(name: str, kb: Path, environment: dict, **more: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest_memreport.ci.action", name], cwd=kb,
                          env={**environment, **more}, capture_output=True, text=True, timeout=300)


def run_action(kb: Path, environment: dict, api: str) -> tuple[dict[str, str], dict[str, str]]:
    """Every step of action.yml in order (the install step apart: the package is on PYTHONPATH);
    returns the step outputs and each step's output text."""
    Path(environment["GITHUB_OUTPUT"]).write_text("", encoding="utf-8")
    texts = {}
    for name in ("targets", "clone", "check"):
        done = step(name, kb, environment)
        texts[name] = done.stdout + done.stderr
        assert done.returncode == 0, texts[name]
    said = outputs(Path(environment["GITHUB_OUTPUT"]))
    done = step("comment", kb, environment, GITHUB_API_URL=api)
    texts["comment"] = done.stdout + done.stderr
    assert done.returncode == 0, texts["comment"]
    finish = step("finish", kb, environment, MEMREPORT_EXIT_CODE=said["exit-code"])
    said["finish"] = str(finish.returncode)
    return said, texts


def test_the_action_lists_clones_checks_and_comments_then_updates_and_rewrites(world):
    tmp_path, kb, upstream, pins, environment = world
    targets = tmp_path / "targets"
    with FakeGitHub("keeper/kb", 7) as github:
        first, texts = run_action(kb, environment, github.url)

        listed = json.loads((tmp_path / "out" / "targets.json").read_text(encoding="utf-8"))["targets"]
        assert [t["repository"] for t in listed] == ["acme/gadget", "acme/widget", "beta/tool"]
        assert (first["cloned"], first["updated"], first["failed"]) == ("3", "0", "0")
        for owner, name in (("acme", "widget"), ("acme", "gadget"), ("beta", "tool")):
            bare = subprocess.run(["git", "-C", str(targets / owner / name), "rev-parse", "--is-bare-repository"],
                                  capture_output=True, text=True)
            assert bare.stdout.strip() == "true"
        # checked: widget-engine.md is stale (its lines were edited upstream), so the job fails at the end
        assert first["exit-code"] == "1" and first["finish"] == "1"
        summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
        assert "## memreport: which reports are stale" in summary and "reviews/widget-engine.md" in summary
        sarif = json.loads(Path(first["sarif"]).read_text(encoding="utf-8"))
        assert len(sarif["runs"][0]["results"]) == 1
        assert "No base run to compare with" in Path(first["comment"]).read_text(encoding="utf-8")
        assert github.writes() == [("POST", "/repos/keeper/kb/issues/7/comments")]
        assert all(auth == "Bearer t0ken" for _, _, auth, _ in github.requests)
        ours = github.comments[-1]
        assert ours["body"].startswith(MARKER) and "reviews/widget-engine.md" in ours["body"]

        # upstream moves on: util.rs edited; the second run must fetch it to see it
        util = RepoBuilder(upstream / "acme" / "widget")
        util.commit({"src/util.rs": kb_support.UTIL_RS.replace("x.min(10)", "x.min(12)")}, "clamp to 12")
        second, texts = run_action(kb, environment, github.url)

        assert second["key"] == first["key"]  # the same targets: the cache key restores the same clones
        assert (second["cloned"], second["updated"]) == ("0", "3")
        assert "memreport: cloned " not in texts["clone"] and "memreport: updated acme/widget" in texts["clone"]
        assert "base.json" in texts["check"]  # the first run's results, handed over as the cache does
        assert github.writes() == [("POST", "/repos/keeper/kb/issues/7/comments"),
                                   ("PATCH", f"/repos/keeper/kb/issues/comments/{ours['id']}")]
        assert len(github.comments) == 2  # the reviewer's and ours, rewritten
        body = github.comments[-1]["body"]
        assert body.startswith(MARKER)
        assert "- **became stale**: reviews/widget-util.md (was fresh; now stale" in body
        assert "- **became stale**: reviews/widget-engine.md" not in body  # stale in the base run already


def test_a_read_only_token_is_a_warning_not_a_failed_job(world):
    tmp_path, kb, _, _, environment = world
    with FakeGitHub("keeper/kb", 7, writable=False) as github:
        said, texts = run_action(kb, environment, github.url)
    assert "::warning title=memreport::the pull-request comment could not be posted (HTTP 403" in texts["comment"]
    assert github.writes() == [("POST", "/repos/keeper/kb/issues/7/comments")]
    assert said["finish"] == "1"  # the job fails for the stale report, not for the comment


def test_outside_a_pull_request_no_comment_is_posted(world, tmp_path):
    _, kb, _, _, environment = world
    push = tmp_path / "push.json"
    push.write_text(json.dumps({"ref": "refs/heads/main"}), encoding="utf-8")
    with FakeGitHub("keeper/kb", 7) as github:
        done = step("comment", kb, {**environment, "GITHUB_EVENT_PATH": str(push), "GITHUB_API_URL": github.url})
    assert done.returncode == 0 and "not a pull request" in done.stdout
    assert github.requests == []


def test_an_empty_reports_input_says_what_to_give(world):
    _, kb, _, _, environment = world
    done = step("targets", kb, {**environment, "MEMREPORT_REPORTS": " "})
    assert done.returncode == 1
    assert "the action's `reports` input is empty" in done.stderr and "Traceback" not in done.stderr


def test_action_yml_runs_each_step_through_the_script():
    """Every shell step of action.yml is one call of the script (no logic in YAML), and
    every step the script has is used."""
    import yaml

    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    runs = [s["run"] for s in action["runs"]["steps"] if "run" in s]
    used = [r.split()[-1] for r in runs]
    assert all(r.startswith("python3 ") and len(r.splitlines()) == 1 for r in runs)
    assert used == ["install", "targets", "clone", "check", "comment", "finish"]
    assert set(action["inputs"]) >= {"reports", "targets", "clone-base-url", "against", "sarif", "comment",
                                     "pytest-args", "affected", "target-checkout"}


def test_a_check_stopped_by_a_usage_error_hands_on_nothing_to_upload_or_post(world):
    tmp_path, kb, _, _, environment = world
    Path(environment["GITHUB_OUTPUT"]).write_text("", encoding="utf-8")
    done = step("check", kb, {**environment, "MEMREPORT_PYTEST_ARGS": "--memreport-shard=9/2"})
    said = outputs(Path(environment["GITHUB_OUTPUT"]))
    assert done.returncode == 0 and said["exit-code"] == "4"
    assert "sarif" not in said and "comment" not in said
    assert step("finish", kb, environment, MEMREPORT_EXIT_CODE=said["exit-code"]).returncode == 4


@pytest.mark.slow
def test_install_puts_the_actions_own_version_in_the_environment(tmp_path):
    """The first step, run as action.yml runs it (a file, before the package is importable):
    the checkout the workflow's ``uses:`` names is what gets installed."""
    venv = tmp_path / "venv"
    # the dependencies come from this environment; the package itself is built from the checkout
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = venv / "bin" / "python"
    base_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH",) and not k.startswith("GITHUB_")}
    done = subprocess.run([str(python), str(ROOT / "pytest_memreport" / "ci" / "action.py"), "install"],
                          cwd=tmp_path, env={**base_env, "GITHUB_ACTION_PATH": str(ROOT)},
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    found = subprocess.run([str(python), "-c", "import pytest_memreport as p; print(p.__version__, p.__file__)"],
                           cwd=tmp_path, env=base_env, capture_output=True, text=True, check=True)
    version, where = found.stdout.split()
    assert str(venv) in where  # the venv's own copy, not the editable one outside it
    assert f'__version__ = "{version}"' in (ROOT / "pytest_memreport" / "__init__.py").read_text(encoding="utf-8")


def test_install_outside_the_action_says_so(tmp_path):
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    done = subprocess.run([sys.executable, str(ROOT / "pytest_memreport" / "ci" / "action.py"), "install"],
                          cwd=tmp_path, env=base_env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "GITHUB_ACTION_PATH is not set" in done.stderr


def test_the_affected_input_checks_the_workflows_own_checkout_from_the_range(tmp_path):
    """A target's own workflow: the target checked out in the workspace, the knowledge base
    beside it; only the range's evidence is checked, and no target is cloned."""
    workspace = tmp_path / "workspace"
    target = RepoBuilder(workspace / "widget")
    pin = target.commit({"src/engine.rs": kb_support.ENGINE_RS, "src/util.rs": kb_support.UTIL_RS}, "engine")
    (workspace / "kb" / "reviews").mkdir(parents=True)
    review = kb_support.review
    (workspace / "kb" / "reviews" / "engine.md").write_text(
        review("acme/widget", pin, "src/engine.rs", "2-3", "Engine"), encoding="utf-8")
    (workspace / "kb" / "reviews" / "util.md").write_text(
        review("acme/widget", pin, "src/util.rs", "1-3", "Util"), encoding="utf-8")
    culprit = target.commit({"src/engine.rs": kb_support.ENGINE_RS.replace("64", "128")}, "a larger limit")
    output = tmp_path / "github_output"
    output.write_text("", encoding="utf-8")
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "MEMREPORT_", "RUNNER_"))}
    environment = {
        **base_env,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "MEMREPORT_REPORTS": "kb/reviews/", "MEMREPORT_TARGETS": str(tmp_path / "targets"),
        "MEMREPORT_OUT": str(tmp_path / "out"), "MEMREPORT_PYTEST_ARGS": "-p no:cacheprovider -rA",
        "MEMREPORT_AFFECTED": f"{pin}..HEAD", "MEMREPORT_TARGET_CHECKOUT": "widget", "MEMREPORT_COMMENT": "false",
        "GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": str(output), "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GITHUB_WORKSPACE": str(workspace), "GITHUB_REPOSITORY": "acme/widget",
    }
    texts = {}
    for name in ("targets", "clone", "check"):
        done = step(name, workspace, environment)
        texts[name] = done.stdout + done.stderr
        assert done.returncode == 0, texts[name]
    assert not (tmp_path / "targets").exists()  # nothing cloned: the checkout is the target
    assert outputs(output)["exit-code"] == "1"
    assert "--memreport-affected=" in texts["check"]
    assert "FAILED kb/reviews/engine.md::" in texts["check"]
    assert "util.md::" not in texts["check"]  # a file the range does not touch
    assert f"broken by {culprit[:12]}" in texts["check"]
    assert "the claims" in (tmp_path / "summary.md").read_text(encoding="utf-8")
