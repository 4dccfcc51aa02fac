"""The steps of the GitHub Action (``action.yml`` at the repository root), one subcommand each.

``action.yml`` holds no logic of its own: each of its shell steps is one line,
``python3 -m pytest_memreport.ci.action STEP``, so the steps run (and are tested)
anywhere, with a fake ``GITHUB_*`` environment and ``file://`` targets:

``install``   install this action's own version (``GITHUB_ACTION_PATH``); run as a file,
              before the package is importable, so it imports only the standard library
``targets``   list the repositories the reports need (``pytest --memreport-targets=json``)
              and a cache key for them
``clone``     clone each target bare into the targets folder, or update the clone the
              cache restored (``git fetch``): all fetching is done before the check runs
              (with ``affected``, in a target's own workflow, nothing: its checkout is the target)
``check``     run pytest on the reports (the step summary, JSON, SARIF and the pull-request
              comment); its exit code is kept for ``finish``, so that the SARIF upload and
              the comment happen on a failing run, when they matter most
``comment``   post the comment on the pull request, or rewrite the one posted before
              (found by its hidden marker) through the REST API; a read-only token (a
              fork's pull request) is a warning, never a failed job
``finish``    exit with the check's exit code

Inputs come as ``MEMREPORT_*`` variables (set by ``action.yml`` from its inputs), so no
input is ever pasted into a shell line. Files go to ``MEMREPORT_OUT`` (default
``$RUNNER_TEMP/memreport``).

This is CI tooling beside the plugin (it runs git to clone and fetch, which the plugin
never does); it only runs pytest, as a user would.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

#: the pull-request comment's hidden first line (as ``outputs.comment.MARKER``; kept here so
#: that the steps import nothing of the plugin)
MARKER = "<!-- pytest-memreport -->"

#: seconds a request to the REST API may take
API_TIMEOUT = 30


def env(name: str, default: str = "") -> str:
    return os.environ.get(name, "").strip() or default


def out_dir() -> Path:
    base = env("MEMREPORT_OUT") or str(Path(env("RUNNER_TEMP", os.getcwd())) / "memreport")
    folder = Path(base)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def targets_dir() -> Path:
    return Path(os.path.expanduser(env("MEMREPORT_TARGETS", "~/.memreport-targets"))).absolute()


def template() -> str:
    return str(targets_dir() / "{owner}" / "{name}")


def set_output(name: str, value: str) -> None:
    """A step output (``GITHUB_OUTPUT``), and the same line on stdout for the log."""
    print(f"memreport: {name}={value}")
    path = env("GITHUB_OUTPUT")
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(f"{name}={value}\n")


def warning(message: str) -> None:
    print(f"::warning title=memreport::{message}", flush=True)


def reports() -> list[str]:
    given = shlex.split(env("MEMREPORT_REPORTS"))
    if not given:
        raise SystemExit("memreport: the action's `reports` input is empty: give the reports (files, folders "
                         "or globs), e.g. reports: reviews/")
    return given


def memreport_args() -> list[str]:
    """``--memreport PATH`` for every report, and the template the targets are cloned by."""
    args = []
    for report in reports():
        args += ["--memreport", report]
    return args + ["--memreport-repo-template", template()]


# -- steps ---------------------------------------------------------------------------


def install() -> int:
    """Install the action's own checkout (the version the workflow's ``uses:`` names)."""
    source = env("GITHUB_ACTION_PATH")
    if not source:
        raise SystemExit("memreport: GITHUB_ACTION_PATH is not set: this step runs inside the action")
    return subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", source]).returncode


def list_targets() -> int:
    """``targets.json`` (``--memreport-targets=json``) and the cache key of the target clones."""
    listed = subprocess.run([sys.executable, "-m", "pytest", *memreport_args(), "--memreport-targets=json"],
                            stdout=subprocess.PIPE)
    if listed.returncode != 0:
        print(listed.stdout.decode("utf-8", "replace"))
        return listed.returncode
    path = out_dir() / "targets.json"
    path.write_bytes(listed.stdout)
    targets = json.loads(listed.stdout)["targets"]
    names = sorted(t["repository"].casefold() for t in targets)
    for target in targets:
        pins = ", ".join(p[:12] for p in target["pins"]) or "no pin"
        print(f"memreport: target {target['repository']} ({pins})")
    set_output("targets", str(path))
    set_output("key", hashlib.sha256("\n".join(names).encode("utf-8")).hexdigest()[:16])
    return 0


def _git(*args: str) -> subprocess.CompletedProcess:
    # no terminal prompt for credentials: a private target without a token fails, it does not hang
    return subprocess.run(["git", *args], env={**os.environ, "GIT_TERMINAL_PROMPT": "0"},
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def affected_args() -> list[str]:
    """With the ``affected`` input (a range, in a target's own workflow): ``--memreport-affected``,
    and the workflow's repository mapped to its checkout (``target-checkout``), which the
    range resolves in; nothing otherwise."""
    given = env("MEMREPORT_AFFECTED")
    if not given:
        return []
    repository = env("GITHUB_REPOSITORY")
    if not repository:
        raise SystemExit("memreport: GITHUB_REPOSITORY is not set: the `affected` input checks the workflow's "
                         "own repository")
    checkout = Path(env("GITHUB_WORKSPACE", os.getcwd())) / env("MEMREPORT_TARGET_CHECKOUT", ".")
    return [f"--memreport-affected={given}", "--memreport-repo", f"{repository}={checkout}"]


def clone() -> int:
    """Each listed target cloned bare (``clone-base-url/owner/name``), or its clone updated."""
    if env("MEMREPORT_AFFECTED"):
        # the range is the workflow's own repository's: its checkout is the one target checked
        print("memreport: affected: the workflow's own checkout is the target; nothing is cloned")
        for name in ("cloned", "updated", "failed"):
            set_output(name, "0")
        return 0
    listed = json.loads((out_dir() / "targets.json").read_text(encoding="utf-8"))["targets"]
    base = env("MEMREPORT_CLONE_BASE_URL", "https://github.com").rstrip("/")
    cloned = updated = failed = 0
    for target in listed:
        name = target["repository"]
        if target["clone"]:
            done = _git("-C", target["clone"], "fetch", "--quiet", "--prune", "--tags", "origin",
                        "+refs/heads/*:refs/heads/*")
            verb = "updated"
        else:
            dest = targets_dir() / target["owner"] / target["name"]
            done = _git("clone", "--quiet", "--bare", f"{base}/{name}", str(dest))
            verb = "cloned"
        if done.returncode != 0:
            failed += 1
            reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
            warning(f"{name}: could not be {verb.replace('updated', 'updated (fetch)')}: "
                    f"{reason[-1] if reason else 'git failed'}; its reports are unchecked")
            continue
        print(f"memreport: {verb} {name}")
        cloned += verb == "cloned"
        updated += verb == "updated"
    set_output("cloned", str(cloned))
    set_output("updated", str(updated))
    set_output("failed", str(failed))
    return 0


def check() -> int:
    """pytest on the reports; the outputs' paths and its exit code as step outputs."""
    folder = out_dir()
    results = Path(env("MEMREPORT_RESULTS") or folder / "results.json")
    args = [sys.executable, "-m", "pytest", *memreport_args(), f"--memreport-json={results}"]
    against = env("MEMREPORT_AGAINST")
    affected = affected_args()
    if affected:
        args += affected  # the range's head is what drift is checked against
    elif against:
        args.append(f"--memreport-against={against}")
    sarif, comment = folder / "memreport.sarif", folder / "comment.md"
    for stale in (sarif, comment):  # a file of an earlier run on this runner is never passed on
        stale.unlink(missing_ok=True)
    if env("MEMREPORT_SARIF", "true") == "true":
        args.append(f"--memreport-sarif={sarif}")
    if env("MEMREPORT_COMMENT", "true") == "true":
        args.append(f"--memreport-comment={comment}")
        if results.is_file():  # the base branch's results, restored by the cache step
            base = folder / "base.json"
            results.replace(base)
            args.append(f"--memreport-comment-base={base}")
    args += shlex.split(env("MEMREPORT_PYTEST_ARGS"))
    print("memreport: " + shlex.join(args[1:]), flush=True)
    code = subprocess.run(args).returncode
    set_output("exit-code", str(code))
    # only what the run wrote: a run stopped by a usage error wrote nothing to upload or post
    for name, path in (("sarif", sarif), ("comment", comment)):
        if path.is_file():
            set_output(name, str(path))
    return 0


def _pull_request() -> int | None:
    """The pull request's number, from the event GitHub hands the job (``GITHUB_EVENT_PATH``)."""
    path = env("GITHUB_EVENT_PATH")
    if not path:
        return None
    try:
        event = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    number = (event.get("pull_request") or {}).get("number")
    return int(number) if isinstance(number, int) else None


def _api(method: str, url: str, body: dict | None = None):
    request = urllib.request.Request(url, method=method, data=json.dumps(body).encode("utf-8") if body else None)
    request.add_header("Accept", "application/vnd.github+json")
    request.add_header("X-GitHub-Api-Version", "2022-11-28")
    request.add_header("Authorization", f"Bearer {env('GITHUB_TOKEN')}")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=API_TIMEOUT) as response:
        return json.loads(response.read() or b"null"), response.headers.get("Link", "")


def _own_comment(api: str, repo: str, number: int) -> int | None:
    """The id of the comment this action posted before (its body starts with the marker)."""
    url: str | None = f"{api}/repos/{repo}/issues/{number}/comments?per_page=100"
    while url:
        comments, link = _api("GET", url)
        for found in comments:
            if str(found.get("body") or "").startswith(MARKER):
                return int(found["id"])
        url = next((part.split(";")[0].strip(" <>") for part in link.split(",") if 'rel="next"' in part), None)
    return None


def comment() -> int:
    """Post the comment on the pull request, or rewrite the one posted before."""
    body_path = out_dir() / "comment.md"
    number = _pull_request()
    if number is None:
        print("memreport: not a pull request: no comment posted")
        return 0
    if not body_path.is_file():
        warning("no comment was written (the check did not run to its end): nothing to post")
        return 0
    body = body_path.read_text(encoding="utf-8")
    api = env("GITHUB_API_URL", "https://api.github.com").rstrip("/")
    repo = env("GITHUB_REPOSITORY")
    try:
        found = _own_comment(api, repo, number)
        if found is None:
            posted, _ = _api("POST", f"{api}/repos/{repo}/issues/{number}/comments", {"body": body})
            print(f"memreport: posted comment {posted.get('id')} on pull request #{number}")
        else:
            _api("PATCH", f"{api}/repos/{repo}/issues/comments/{found}", {"body": body})
            print(f"memreport: rewrote comment {found} on pull request #{number}")
    except urllib.error.HTTPError as exc:
        if exc.code in (401, 403, 404):
            # A fork's pull request gets a read-only token: the results are in the step summary.
            warning(f"the pull-request comment could not be posted (HTTP {exc.code}: the token may not write "
                    "to pull requests, as on a fork's pull request; grant `pull-requests: write`); "
                    "the step summary has the results")
            return 0
        print(f"memreport: posting the pull-request comment failed: HTTP {exc.code} {exc.reason}", file=sys.stderr)
        return 1
    except (urllib.error.URLError, TimeoutError) as exc:
        print(f"memreport: posting the pull-request comment failed: {exc}", file=sys.stderr)
        return 1
    return 0


def finish() -> int:
    code = env("MEMREPORT_EXIT_CODE", "1")
    return int(code) if code.isdigit() else 1


STEPS = {"install": install, "targets": list_targets, "clone": clone, "check": check, "comment": comment,
         "finish": finish}


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in STEPS:
        print(f"usage: python -m pytest_memreport.ci.action {{{','.join(STEPS)}}}", file=sys.stderr)
        return 2
    return STEPS[argv[0]]()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
