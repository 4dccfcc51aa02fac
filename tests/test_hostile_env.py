"""The environment a run meets, as users meet it: git variables a hook or a CI wrapper
set, a target configuration that never ends, a non-UTF-8 locale, no home directory,
Git LFS pointers, a sparse checkout, and a repository name too long for a file name.
Each case reads the target as stored, or ends in one clear line."""

from __future__ import annotations

import errno
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from hostile_support import assert_clean, evidence_results, line_of, records_report, run_report
from test_interruptions import STORE_PY, claims_text, report_text


def git(*args: str, cwd=None, env=None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout


def review(repo: str, sha: str, path: str) -> str:
    return (f"# A review\n\n**Repository:** https://github.com/{repo}\n"
            f"**Reviewed commit:** [{sha}](https://github.com/{repo}/commit/{sha})\n\n## Finding\n\n"
            f"The behaviour lives in [{path}](https://github.com/{repo}/blob/{sha}/{path}#L1).\n")


# -- 13. a repository name too long for a file name ----------------------------------------


def test_a_300_character_repository_name_in_a_review_is_one_line(pytester, make_repo, tmp_path):
    repo = make_repo("target")
    sha = repo.commit({"a.py": "A = 1\n"}, "a")
    named = "acme/" + "w" * 300
    (tmp_path / "clones" / "acme").mkdir(parents=True)  # the owner's folder exists: the name is looked up in it
    (pytester.path / "review.md").write_text(review(named, sha, "a.py"), encoding="utf-8")
    result = pytester.runpytest("--memreport", "review.md",
                                f"--memreport-repo-template={tmp_path}/clones/{{owner}}/{{name}}", "-rA")
    out = assert_clean(result)
    assert result.ret != 0
    assert re.search(r"review\.md:4: not checked: no local clone for acme/w{300}: \S+: file name too long \(from --memreport-repo-template", out), out[-3000:]


# -- a plugin run in a process of its own, in the environment under test --------------------


def plugin_run(cwd: Path, *args: str, env: dict[str, str], prefix: tuple[str, ...] = (), timeout: float = 120):
    """``pytest ARGS`` in a subprocess (the plugin loaded from this checkout) with exactly
    ``env`` (plus the import path), bounded in time: a hang fails the test, never stalls it."""
    full = {**env, "PYTHONPATH": os.pathsep.join(sys.path), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([*prefix, sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=cwd,
                          env=full, capture_output=True, timeout=timeout)


def _plain_environment() -> dict[str, str]:
    """This process's environment without what a run under test must not see."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("PYTEST_", "GITHUB_", "GIT_")) and k not in ("PYTHONPATH",)}


# -- 5. no home directory ------------------------------------------------------------------


#: a uid no passwd entry names; the process keeps the right to read the interpreter's folders
NO_PASSWD_UID = 54321


def _homeless(tmp_path: Path) -> tuple[tuple[str, ...], Path]:
    """A command prefix that runs as a uid with no passwd entry, and a folder it may write."""
    import pwd

    if os.geteuid() != 0 or not Path("/usr/bin/setpriv").exists():
        pytest.skip("needs root and setpriv to run as a uid with no passwd entry")
    with pytest.raises(KeyError):
        pwd.getpwuid(NO_PASSWD_UID)
    folder = tmp_path / "homeless"
    folder.mkdir()
    folder.chmod(0o777)
    prefix = ("/usr/bin/setpriv", f"--reuid={NO_PASSWD_UID}", f"--regid={NO_PASSWD_UID}", "--clear-groups",
              "--inh-caps=+dac_read_search", "--ambient-caps=+dac_read_search")
    return prefix, folder


@pytest.mark.parametrize("given", ["template", "mapping", "ini"])
def test_a_tilde_without_a_home_directory_is_one_line(tmp_path, given):
    prefix, folder = _homeless(tmp_path)
    (folder / "review.md").write_text(review("acme/widget", "a" * 40, "a.py"), encoding="utf-8")
    args = ["--memreport", "review.md"]
    if given == "template":
        args.append("--memreport-repo-template=~/src/{owner}/{name}")
    elif given == "mapping":
        args.append("--memreport-repo=acme/widget=~/clones/widget")
    else:
        (folder / "pytest.ini").write_text("[pytest]\nmemreport_repos =\n    acme/widget = ~/clones/widget\n")
    env = {k: v for k, v in _plain_environment().items() if k != "HOME"}
    result = plugin_run(folder, *args, env=env, prefix=prefix)
    out = (result.stdout + result.stderr).decode("utf-8", "replace")
    assert "Traceback" not in out and "INTERNALERROR" not in out, out[-3000:]
    lines = [line for line in out.splitlines() if "cannot be expanded" in line]
    assert len(lines) == 1, out[-3000:]
    assert "`~` cannot be expanded: there is no home directory" in lines[0]
    assert lines[0].endswith("give an absolute path")
    assert result.returncode not in (0, 1), out[-3000:]  # a usage error, before any check


# -- 1. no hook of any repository runs ---------------------------------------------------------


HOOKS = ("post-index-change", "reference-transaction", "post-checkout", "post-commit")


@pytest.fixture
def hooked(make_repo, tmp_path):
    """A target whose committed ``.githooks`` folder holds hooks that leave a witness file,
    and a report with one observation (``--memreport-run`` checks the pin out)."""
    witness = tmp_path / "witness"
    witness.mkdir()
    repo = make_repo("target")
    hooks = {f".githooks/{name}": f"#!/bin/sh\ntouch '{witness}/{name}'\n" for name in HOOKS}
    pin = repo.commit({"store.py": STORE_PY, **hooks}, "store")
    for name in HOOKS:
        (repo.path / ".githooks" / name).chmod(0o755)
        git("add", f".githooks/{name}", cwd=repo.path)
    pin = repo.commit(message="executable hooks")
    work = tmp_path / "work"
    work.mkdir()
    (work / "report.md").write_text(report_text(pin), encoding="utf-8")
    # the target's own command does not get the outer configuration either
    (work / "report.claims.yaml").write_text(
        claims_text('test -z "$GIT_CONFIG_PARAMETERS$GIT_CONFIG_COUNT$GIT_CONFIG_KEY_0"'), encoding="utf-8")
    return repo, work, witness


@pytest.mark.parametrize("carried", ["parameters", "count"])
def test_configuration_in_the_environment_runs_no_hook_of_the_checkout(hooked, carried):
    """As under a hook or a CI wrapper that passes ``-c core.hooksPath=...`` on: git hands
    it to every git below it through ``GIT_CONFIG_PARAMETERS`` (or ``GIT_CONFIG_COUNT``)."""
    repo, work, witness = hooked
    if carried == "parameters":
        config = {"GIT_CONFIG_PARAMETERS": "'core.hooksPath'='.githooks'"}
    else:
        config = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.hooksPath", "GIT_CONFIG_VALUE_0": ".githooks"}
    # the environment does run the committed hooks for git itself
    subprocess.run(["git", "-C", str(repo.path), "commit", "-q", "--allow-empty", "-m", "hooked"],
                   env={**_plain_environment(), **config}, check=True)
    assert (witness / "post-commit").exists()
    for ran in witness.iterdir():
        ran.unlink()
    before = repo.state()
    result = plugin_run(work, "--memreport", "report.md", f"--memreport-repo={repo.path}", "--memreport-run",
                        "-rA", env={**_plain_environment(), **config})
    out = (result.stdout + result.stderr).decode("utf-8", "replace")
    assert result.returncode == 0, out[-3000:]
    assert re.search(r"PASSED report\.md::MEM-RTE-forget::observe\[0\]", out), out[-3000:]  # the checkout ran
    assert sorted(p.name for p in witness.iterdir()) == []
    assert repo.state() == before


# -- 2. git variables that select another repository ----------------------------------------


#: every variable that points git at a repository, object store, index, namespace or
#: configuration other than the target's (GIT_CONFIG_GLOBAL/SYSTEM are the user's own: kept)
def outer_variables(outer: Path) -> dict[str, str]:
    return {
        "GIT_DIR": str(outer / ".git"),
        "GIT_WORK_TREE": str(outer),
        "GIT_INDEX_FILE": str(outer / ".git" / "index"),
        "GIT_OBJECT_DIRECTORY": str(outer / ".git" / "objects"),
        "GIT_ALTERNATE_OBJECT_DIRECTORIES": str(outer / ".git" / "objects"),
        "GIT_COMMON_DIR": str(outer / ".git"),
        "GIT_NAMESPACE": "elsewhere",
        "GIT_CONFIG": str(outer / ".git" / "config"),
        "GIT_CONFIG_PARAMETERS": "'core.repositoryformatversion'='9'",
    }


@pytest.fixture
def inside_a_hook(make_repo, tmp_path):
    """A target with one file, and another repository a hook's variables would name."""
    repo = make_repo("target")
    pin = repo.commit({"store.py": STORE_PY}, "store")
    outer = make_repo("outer")
    outer.commit({"other.py": "OTHER = 1\n"}, "other")
    return repo, pin, outer


@pytest.mark.parametrize("variables", ["GIT_OBJECT_DIRECTORY", "all"])
def test_variables_of_a_hook_do_not_move_the_reads(pytester, inside_a_hook, monkeypatch, variables):
    repo, pin, outer = inside_a_hook
    chosen = outer_variables(outer.path)
    if variables != "all":
        chosen = {variables: chosen[variables]}
    for name, value in chosen.items():
        monkeypatch.setenv(name, value)
    text = records_report(pin, "return [e for e in entries if e != key] --- store.py",
                          "return [e for e in entries if e == key] --- store.py")
    result = run_report(pytester, text, repo.path, "--memreport-against", "HEAD",
                        f"--memreport-json={pytester.path / 'out.json'}")
    assert_clean(result)
    found = evidence_results(pytester.path / "out.json")
    assert found[(line_of(0), "quote", "store.py")]["at_pin"]["status"] == "found", found
    assert found[(line_of(0), "quote", "store.py")]["at_against"]["status"] == "unchanged", found
    assert found[(line_of(1), "quote", "store.py")]["at_pin"]["status"] == "missing", found  # a false one still fails
    assert "missing or corrupt" not in result.stdout.str()


# -- 3. a configuration that never ends ------------------------------------------------------------


def test_a_configuration_including_a_fifo_ends_in_one_line_naming_the_repository(make_repo, tmp_path):
    repo = make_repo("target")
    pin = repo.commit({"store.py": STORE_PY}, "store")
    fifo = tmp_path / "never-written"
    os.mkfifo(fifo)
    with (repo.path / ".git" / "config").open("a", encoding="utf-8") as config:
        config.write(f"[include]\n\tpath = {fifo}\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / "report.md").write_text(report_text(pin), encoding="utf-8")
    result = plugin_run(work, "--memreport", "report.md", f"--memreport-repo={repo.path}",
                        env=_plain_environment(), timeout=180)  # a hang fails here, after 3 minutes at most
    out = (result.stdout + result.stderr).decode("utf-8", "replace")
    assert "Traceback" not in out and "INTERNALERROR" not in out, out[-3000:]
    lines = [line for line in out.splitlines() if "did not finish within" in line]
    assert lines, out[-3000:]
    assert all(f"{repo.path}: `git rev-parse` did not finish within 10 s and was stopped" in line for line in lines)
    assert "`include.path`" in lines[0]
    assert result.returncode != 0
    # and no git is left waiting on the FIFO: nothing has it open for reading
    with pytest.raises(OSError) as no_reader:
        os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    assert no_reader.value.errno == errno.ENXIO


# -- 8. Git LFS pointers ------------------------------------------------------------------------


LFS_CONTENT = "region,limit\nnorth,200\nsouth,300\n" * 40


def lfs_pointer(content: bytes) -> bytes:
    """The pointer git-lfs stores in place of ``content`` (its spec, v1)."""
    import hashlib

    return (f"version https://git-lfs.github.com/spec/v1\noid sha256:{hashlib.sha256(content).hexdigest()}\n"
            f"size {len(content)}\n").encode()


@pytest.fixture
def lfs_target(make_repo):
    """A target whose ``limits.csv`` is stored with Git LFS: the blob at the pin is its pointer
    (committed by git-lfs itself when it is installed, else written as git-lfs writes it)."""
    import shutil

    repo = make_repo("target")
    repo.commit({"store.py": STORE_PY}, "store")
    if shutil.which("git-lfs"):
        git("lfs", "install", "--local", cwd=repo.path)
        git("lfs", "track", "*.csv", cwd=repo.path)
        pin = repo.commit({".gitattributes": (repo.path / ".gitattributes").read_text(), "limits.csv": LFS_CONTENT},
                          "limits in LFS")
    else:
        pin = repo.commit({".gitattributes": "*.csv filter=lfs diff=lfs merge=lfs -text\n",
                           "limits.csv": lfs_pointer(LFS_CONTENT.encode())}, "limits in LFS")
    stored = git("cat-file", "-p", f"{pin}:limits.csv", cwd=repo.path)
    assert stored.startswith("version https://git-lfs.github.com/spec/v1\n") and f"size {len(LFS_CONTENT)}" in stored
    return repo, pin


def test_a_quotation_of_a_file_stored_with_lfs_says_its_content_is_not_in_git(pytester, lfs_target):
    repo, pin = lfs_target
    text = records_report(pin, "north,200 --- limits.csv", "return [e for e in entries if e != key] --- store.py")
    result = run_report(pytester, text, repo.path, "--memreport-against", "HEAD",
                        f"--memreport-json={pytester.path / 'out.json'}")
    out = assert_clean(result)
    found = evidence_results(pytester.path / "out.json")
    lfs = found[(line_of(0), "quote", "limits.csv")]["at_pin"]
    assert lfs["status"] == "unreadable" and "candidate" not in lfs, lfs
    assert "limits.csv at the pin is a Git LFS pointer: its content is not in git" in out
    assert "nearest candidate" not in out and "size 1" not in out  # not an ordinary miss near the pointer's lines
    assert found[(line_of(1), "quote", "store.py")]["at_pin"]["status"] == "found"
    assert result.ret == 1


def test_a_pointer_quoted_as_it_is_stored_is_found(pytester, lfs_target):
    """The pointer's own lines are what git holds: quoting them is a true quotation."""
    repo, pin = lfs_target
    result = run_report(pytester, records_report(pin, "version https://git-lfs.github.com/spec/v1 --- limits.csv"),
                        repo.path, "--memreport-against", "none")
    assert_clean(result)
    assert result.ret == 0


# -- 9. sparse checkouts -------------------------------------------------------------------------


@pytest.fixture
def sparse_target(make_repo):
    """A target checked out sparsely (cone: ``src``), so ``docs/limits.md`` is not on disk
    while ``git status`` is clean; plus a file marked skip-worktree by hand."""
    repo = make_repo("target")
    pin = repo.commit({"src/store.py": STORE_PY, "docs/limits.md": "The limit is 200 entries.\n",
                       "setup.cfg": "[metadata]\nname = store\n"}, "store")
    git("sparse-checkout", "set", "--cone", "src", cwd=repo.path)
    git("update-index", "--skip-worktree", "setup.cfg", cwd=repo.path)
    (repo.path / "setup.cfg").unlink()
    assert not (repo.path / "docs").exists() and not (repo.path / "setup.cfg").exists()
    assert git("status", "--porcelain", cwd=repo.path) == ""
    return repo, pin


def test_a_file_outside_the_sparse_cone_is_read_from_the_index_not_deleted(pytester, sparse_target):
    repo, pin = sparse_target
    text = records_report(pin, "The limit is 200 entries. --- docs/limits.md", "name = store --- setup.cfg",
                          "return [e for e in entries if e != key] --- src/store.py")
    result = run_report(pytester, text, repo.path, "--memreport-against", "worktree",
                        f"--memreport-json={pytester.path / 'out.json'}")
    assert_clean(result)
    found = evidence_results(pytester.path / "out.json")
    for index, path in enumerate(["docs/limits.md", "setup.cfg", "src/store.py"]):
        evidence = found[(line_of(index), "quote", path)]
        assert evidence["at_pin"]["status"] == "found", evidence
        assert evidence["at_against"]["status"] == "unchanged", evidence
    assert result.ret == 0


# -- 4. a locale that is not UTF-8 -------------------------------------------------------------------


def _locale_environment(name: str) -> dict[str, str]:
    """The plain environment under the locale ``name``, Python's UTF-8 mode off; skips
    the test when the locale does not exist here or Python would use UTF-8 anyway."""
    env = {k: v for k, v in _plain_environment().items()
           if k not in ("PYTHONIOENCODING", "PYTHONUTF8", "LANG", "LANGUAGE") and not k.startswith("LC_")}
    env.update(LC_ALL=name, PYTHONUTF8="0")
    probe = subprocess.run([sys.executable, "-c", "import locale, sys; locale.setlocale(locale.LC_ALL, ''); "
                            "print(sys.getfilesystemencoding())"], env=env, capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"no {name} locale here (.ci/run makes one with localedef)")
    if probe.stdout.strip().lower().replace("-", "") == "utf8":
        pytest.skip(f"Python uses UTF-8 under {name}")
    return env


@pytest.mark.parametrize("locale_name", ["en_US.ISO-8859-1", "C"])
def test_non_ascii_paths_hold_and_are_repinned_under_a_non_utf8_locale(make_repo, tmp_path, locale_name):
    env = _locale_environment(locale_name)
    repo = make_repo("target")
    pin = repo.commit({"rép → 1.py": STORE_PY, "dossier é/limits.py": "LIMIT = 200\n"}, "store")
    repo.move("rép → 1.py", "rép → 2.py")
    head = repo.commit(message="rename")
    work = tmp_path / "work"
    work.mkdir()
    report = work / "rép 1.md"
    report.write_text(records_report(pin, "return [e for e in entries if e != key] --- rép → 1.py",
                                     "LIMIT = 200 --- dossier é/limits.py"), encoding="utf-8")
    result = plugin_run(work, "--memreport", report.name, f"--memreport-repo={repo.path}", "-rA",
                        "--memreport-json=out.json", env=env)
    out = (result.stdout + result.stderr).decode("utf-8", "replace")
    assert result.returncode == 0, out[-3000:]
    assert "Traceback" not in out, out[-3000:]
    found = evidence_results(work / "out.json")
    moved = found[(line_of(0), "quote", "rép → 1.py")]
    assert moved["at_pin"]["status"] == "found", moved
    assert moved["at_against"]["path"] == "rép → 2.py", moved
    assert found[(line_of(1), "quote", "dossier é/limits.py")]["at_pin"]["status"] == "found"
    # a worktree read goes to the same files on disk
    worktree = plugin_run(work, "--memreport", report.name, f"--memreport-repo={repo.path}",
                          "--memreport-against", "worktree", "--memreport-json=worktree.json", env=env)
    assert worktree.returncode == 0, (worktree.stdout + worktree.stderr).decode("utf-8", "replace")[-3000:]
    on_disk = evidence_results(work / "worktree.json")[(line_of(1), "quote", "dossier é/limits.py")]
    assert on_disk["at_against"]["status"] == "unchanged", on_disk
    # the re-pin writes the new name's UTF-8 bytes
    repin = plugin_run(work, "--memreport", report.name, f"--memreport-repo={repo.path}", "--memreport-write",
                       "--memreport-repin", "HEAD", env=env)
    assert repin.returncode == 0, (repin.stdout + repin.stderr).decode("utf-8", "replace")[-3000:]
    written = report.read_bytes()
    assert "--- rép → 2.py".encode() in written and head.encode() in written
    assert written.decode("utf-8") == report.read_text(encoding="utf-8")  # valid UTF-8 throughout
    assert "rÃ©p".encode() not in written and b"\xe9" not in written
