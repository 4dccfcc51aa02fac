"""Commit links of notes: which linked commits are in the against-revision's history, asked
of git once for all of them (:meth:`GitStore.ancestors_among`)."""

from __future__ import annotations

from notes_target import build

from pytest_memreport.checks.drift import classify
from pytest_memreport.gitstore import GitStore
from pytest_memreport.model import Evidence, EvidenceKind


def test_one_rev_list_answers_for_every_linked_commit(make_repo, monkeypatch):
    lantern = build(make_repo, monkeypatch, later=True)
    with GitStore.open(lantern.path) as store:
        head = store.resolve("HEAD")
        before = store.git_processes
        linked = {lantern.old, lantern.fix, lantern.side, lantern.pin}
        assert store.ancestors_among(head, linked) == {lantern.old, lantern.fix, lantern.pin}
        assert store.git_processes == before + 1
        # asked again, or about a subset: answered from what git said
        assert store.ancestors_among(head, {lantern.side, lantern.fix}) == {lantern.fix}
        assert store.git_processes == before + 1
        # the side branch holds the fix, not what came after it on main
        assert store.ancestors_among(lantern.side, {lantern.fix, lantern.pin}) == {lantern.fix}


def test_a_commit_link_classified_at_the_against_revision(make_repo, monkeypatch):
    lantern = build(make_repo, monkeypatch)
    links = (lantern.fix, lantern.side)
    with GitStore.open(lantern.path) as store:
        head = store.snapshot("HEAD")
        for sha, status in ((lantern.fix, "unchanged"), (lantern.side, "diverged")):
            evidence = Evidence(EvidenceKind.COMMIT, "", 3, 3, source="acme/lantern", pin=sha, context=links)
            result = classify(evidence, None, store, sha, head)
            assert result.status == status, result.message
        assert "is not an ancestor of" in result.message
