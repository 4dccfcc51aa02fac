"""The notes fixtures' target: a small job runner ``acme/lantern`` built commit by commit.

Its history, oldest first: ``old`` (what a note was originally written against), ``fix``
(a commit a note links), ``pin`` (what the notes read), then ``later`` (a rewording of
the design the notes quote), and ``side``, a branch off ``fix`` never merged. Every
commit is dated in 2025, so a note dated 2026 is newer than any clone of it.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "notes"
REPO = "https://github.com/acme/lantern"

README = textwrap.dedent(
    """\
    # Lantern

    Lantern is a small job runner. It keeps every job in a durable queue
    and *never drops a job silently*.

    The scheduler runs jobs in order of arrival (unless a priority is set).
    """
)
DESIGN = textwrap.dedent(
    """\
    # Design

    The planner keeps every rewrite reversible: each step
    records its inverse. We call this a two-phase commit of the plan.

    The planner (never the workers) owns the queue order.
    Workers never block the queue; the planner hands them slices.
    """
)
SCHED_OLD = textwrap.dedent(
    '''\
    """Scheduling: jobs run in order of arrival."""


    class Scheduler:
        def next_job(self, queue):
            return queue.pop()
    '''
)
SCHED = textwrap.dedent(
    '''\
    """Scheduling: jobs run in order of arrival, unless a priority is set."""


    class Scheduler:
        def next_job(self, queue):
            # retried jobs keep their place
            return queue.pop_ready()
    '''
)
OPERATIONS = "# Operations\n\nBack up the queue file before an upgrade; restores are idempotent.\n"


@dataclass(frozen=True)
class Lantern:
    path: Path
    old: str
    fix: str
    pin: str
    side: str
    later: str | None = None

    def tokens(self) -> dict[str, str]:
        """What the fixtures' ``@NAME@`` tokens stand for."""
        out = {"@REPO@": REPO}
        for name in ("old", "fix", "pin", "side", "later"):
            sha = getattr(self, name)
            if sha:
                out[f"@{name.upper()}@"] = sha
                out[f"@{name.upper()}7@"] = sha[:7]
        return out


def dated(monkeypatch, day: str) -> None:
    """Commits made from now on are dated ``day`` (``YYYY-MM-DD``, noon UTC)."""
    for name in ("GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"):
        monkeypatch.setenv(name, f"{day}T12:00:00+0000")


def build(make_repo, monkeypatch, *, later: bool = False) -> Lantern:
    """The target, up to ``pin`` (and ``later`` on top of it when asked)."""
    repo = make_repo("lantern")
    dated(monkeypatch, "2025-01-10")
    old = repo.commit({"README.md": README, "docs/DESIGN.md": DESIGN, "src/lantern/sched.py": SCHED_OLD}, "initial")
    dated(monkeypatch, "2025-02-03")
    fix = repo.commit({"src/lantern/sched.py": SCHED}, "keep the order of retried jobs")
    repo.repo.git.checkout("-q", "-b", "experiment")
    dated(monkeypatch, "2025-02-04")
    side = repo.commit({"src/lantern/sched.py": SCHED.replace("pop_ready", "pop_any")}, "experiment: any order")
    repo.repo.git.checkout("-q", "main")
    dated(monkeypatch, "2025-03-01")
    pin = repo.commit({"docs/OPERATIONS.md": OPERATIONS}, "operations notes")
    shas = None
    if later:
        dated(monkeypatch, "2025-04-01")
        shas = repo.commit({"docs/DESIGN.md": DESIGN.replace("every rewrite reversible", "every rewrite undoable")},
                           "design: say undoable")
    return Lantern(repo.path, old, fix, pin, side, shas)


def note(name: str, target: Lantern) -> str:
    """A fixture note with its tokens filled in."""
    text = (FIXTURES / name).read_text(encoding="utf-8")
    for token, value in target.tokens().items():
        text = text.replace(token, value)
    return text
