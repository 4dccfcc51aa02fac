"""What an incomplete or outdated clone means for a run, said in one line each.

:func:`pin_guidance` explains a pin the clone lacks (is the clone older than
the report? which option checks a revision instead); :func:`incomplete_clone`
counts the objects the clone lacks in the checked trees and says how to
complete it. Both ask the :class:`~pytest_memreport.gitstore.GitStore` and
run nothing themselves; nothing is ever fetched.
"""

from __future__ import annotations

import calendar
import time
from pathlib import Path

from ..gitstore import RepoError, RevisionError
from ..model import Report


def report_date(report: Report, path: Path) -> tuple[str, float] | None:
    """When the report was last true to its sources, as ``(how it is known, Unix time)``:
    the date a note writes beside its pin (``pin-date``), else the date the document states
    for itself (its front matter's ``date`` or ``last-checked``, "committed on ...": the end
    of that day); ``None`` when it states none. Never the file's modification time: a
    checkout, a copy or an edit sets that, and it says nothing of the pin."""
    del path  # the file's own times are not the document's date
    for key, label in (("pin-date", "its pin is dated"), ("last-checked", "last-checked"),
                       ("stated-date", "dated")):
        stated = str(report.meta.get(key) or "")[:10]
        try:
            day = time.strptime(stated, "%Y-%m-%d")
        except ValueError:
            continue
        return f"{label} {stated}", calendar.timegm(day) + 86400
    return None


def pin_guidance(store, source_id: str, dated: tuple[str, float] | None, pin: str | None = None) -> str:
    """What to do about a pin the clone lacks: whether the clone's newest commit is
    older than the report (``dated``, from :func:`report_date`), and the option that
    checks against a revision instead. A ``pin`` naming a tree or a blob is in the
    clone (the store's message says what it is): its age is beside the point."""
    option = f"to check against a revision instead, give --memreport-pin {source_id}=HEAD"
    if pin is not None and store.object_kind(pin) is not None:
        return option
    newest = store.newest_commit_time()
    if newest is None or dated is None:
        return option
    label, when = dated
    clone = time.strftime("%Y-%m-%d", time.gmtime(newest))
    if newest < when:
        return (f"the clone's newest commit ({clone}) is older than the report ({label}): "
                f"the clone may predate the pin, `git -C {store.path} fetch` updates it; {option}")
    return (f"the clone has commits as new as the report ({label}; newest {clone}) but lacks that commit: it may "
            f"be on a branch the clone lacks (`git -C {store.path} fetch origin` with that branch fetches it), "
            f"or mistyped; {option}")


def incomplete_clone(store, revs: list[str]) -> str | None:
    """One line when the clone lacks objects of the trees at ``revs`` (or that a
    diff had to skip): how many, and how to complete the clone; ``None`` when
    nothing is missing. Evidence needing a missing object is unreadable; the
    rest is checked."""
    try:
        missing = store.missing_blobs(*revs)
    except RepoError:
        return None  # the object walk itself failed: the checks say what they cannot read
    if not missing:
        return None
    count = f"{len(missing)} object{'s' if len(missing) != 1 else ''}"
    if store.is_partial:
        return (f"{store.path} is a partial clone lacking {count} of the checked trees (never fetched): "
                f"evidence needing them is unreadable, the rest is checked; to complete it, run "
                f"`git -C {store.path} config --unset remote.origin.partialclonefilter` and "
                f"`git -C {store.path} fetch --refetch origin`, or clone again without --filter")
    return (f"{store.path} lacks {count} of the checked trees (e.g. {min(missing)[:12]}): evidence needing them "
            f"is unreadable, the rest is checked; to complete the clone, fetch them again "
            f"(`git -C {store.path} fetch --refetch`) or clone again; `git -C {store.path} fsck` lists them")


def cut_history(store, pin: str, against: str) -> str | None:
    """One line when ``store`` is a shallow clone whose boundary cuts the history from
    ``pin`` to ``against`` (a commit, or ``worktree``: its ``HEAD``): a boundary commit
    is an ancestor of ``against`` and not of the pin, so the commits between them are
    not all there and drift cannot be classified from them. Says what to fetch; ``None``
    when the clone is complete or the history between them is whole."""
    boundary = store.shallow_boundary()
    if not boundary:
        return None
    try:
        head = store.resolve("HEAD") if against == "worktree" else against
        cut = store.ancestors_among(head, boundary) - store.ancestors_among(pin, boundary)
        since = store.commit_date(pin) if cut else None
    except (RepoError, RevisionError):
        return None  # the checks themselves say what cannot be read
    if not cut:
        return None
    deepen = f"`git -C {store.path} fetch --unshallow`"
    if since:
        deepen += f", or back to the pin: `git -C {store.path} fetch --shallow-since={since}`"
    return (f"{store.path} is a shallow clone and the history from the pin {pin[:12]} to {head[:12]} lies beyond "
            f"its boundary (cut at {min(cut)[:12]}): drift is not classified from history the clone cannot see; "
            f"deepen it with {deepen} (GitHub Actions: `fetch-depth: 0` in actions/checkout)")
