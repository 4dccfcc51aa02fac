"""Waiting for a git command started ahead (``StartedGit.result``): woken when the process
ends (``Popen.wait`` with a time limit polls, sleeping up to 50 ms between looks), stopped
at the limit, and the same answers either way. Real git processes, nothing mocked."""

from __future__ import annotations

import os
import subprocess

import pytest

from pytest_memreport.gitstore.process import GitRunner, wait_for_exit


def test_a_git_that_ended_is_reaped_and_its_exit_status_returned(make_repo):
    repo = make_repo("target")
    repo.commit({"a.txt": "one\n"}, "first")
    ended = subprocess.Popen(["git", "--version"], stdout=subprocess.DEVNULL)
    assert wait_for_exit(ended, 30) == 0
    assert ended.returncode == 0
    failed = subprocess.Popen(["git", "rev-parse", "--verify", "--quiet", "refs/heads/no-such-branch"],
                              cwd=repo.path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert wait_for_exit(failed, 30) == 1  # no such revision
    assert wait_for_exit(failed, 30) == 1  # asked again: the status it had


def test_a_git_still_running_at_the_limit_raises_and_is_left_to_the_caller(make_repo):
    repo = make_repo("target")
    repo.commit({"a.txt": "one\n"}, "first")
    # ``cat-file --batch`` answers until its input ends: it runs until then
    reader = subprocess.Popen(["git", "cat-file", "--batch"], cwd=repo.path, stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL)
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            wait_for_exit(reader, 0.2)
        assert reader.poll() is None  # still running: the caller stops it, or waits more
        reader.stdin.close()
        assert wait_for_exit(reader, 30) == 0
    finally:
        if reader.poll() is None:
            reader.kill()
            reader.wait()


def test_a_command_started_ahead_answers_once_it_ended(make_repo):
    repo = make_repo("target")
    sha = repo.commit({"a.txt": "one\n", "b.txt": "two\n"}, "first")
    runner = GitRunner(repo.path, {"PATH": os.environ["PATH"]})
    started = runner.start(["ls-tree", "--name-only", sha])
    answer = started.result()
    assert answer.returncode == 0
    assert answer.stdout.split() == [b"a.txt", b"b.txt"]
    assert runner.commands == 1
