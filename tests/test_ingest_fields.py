"""A source ingest whose front matter names its file as fields, not as one link
(docs/FORMATS.md, "Any document"): the repository, commit and path each a key of their own
(``source_repo:``, ``source_commit:``, ``source_path:``), or of a mapping under ``source:``
or ``origin:``, or one value ``owner/name@<sha>:path``. Each was read as nothing: no pin, no
file, and the ingest's blockquotes of the file unchecked ("no evidence to check")."""

from __future__ import annotations

import textwrap

import pytest
from finding_support import run_one

GUIDE = "# Widgets guide\n\nThe queue keeps items in arrival order.\nDraining empties it at once.\n"


def _front_matter(form: str, pin: str) -> str:
    return {
        "flat": f"source_repo: acme/widgets\nsource_commit: {pin}\nsource_path: docs/guide.md",
        "nested": f"source:\n  repo: https://github.com/acme/widgets\n  ref: {pin}\n  path: docs/guide.md",
        "origin": f"origin:\n  repository: acme/widgets\n  commit: {pin[:12]}\n  file: docs/guide.md",
        "one value": f"ingested_from: acme/widgets@{pin}:docs/guide.md",
    }[form]


def _ingest(form: str, pin: str, quoted: str) -> str:
    return "---\n" + _front_matter(form, pin) + "\n---\n" + textwrap.dedent(f"""\
        # Guide ingest

        > {quoted}

        What the guide promises about order.
        """)


@pytest.mark.parametrize("form", ["flat", "nested", "origin", "one value"])
def test_an_ingests_file_named_as_fields_is_checked_with_its_quotations(pytester, make_repo, form):
    repo = make_repo("widgets")
    pin = repo.commit({"docs/guide.md": GUIDE})
    mapped = f"--memreport-repo=acme/widgets={repo.path}"

    result, report = run_one(pytester, _ingest(form, pin, "The queue keeps items in arrival order."), mapped,
                             "--memreport-against=none")
    checked = sorted((e["kind"], e["path"], e["at_pin"]["status"]) for e in report["evidence"])
    assert checked == [("path", "docs/guide.md", "found"), ("quote", "docs/guide.md", "found")], \
        result.stdout.str()[-2000:]
    assert report["state"] == "fresh" and result.ret == 0

    result, report = run_one(pytester, _ingest(form, pin, "The queue keeps items in random order."), mapped,
                             "--memreport-against=none")
    assert [e["at_pin"]["status"] for e in report["evidence"] if e["kind"] == "quote"] == ["missing"]
    assert result.ret == 1


def test_fields_naming_no_commit_or_no_repository_make_no_ingest(pytester, make_repo):
    repo = make_repo("widgets")
    pin = repo.commit({"docs/guide.md": GUIDE})
    for front in ("source_repo: acme/widgets\nsource_path: docs/guide.md",
                  f"source_commit: {pin}\nsource_path: docs/guide.md",
                  f"source_repo: acme/widgets\nsource_commit: {pin}\nsource_path: ../outside.md"):
        text = "---\n" + front + "\n---\n# Guide ingest\n\n> The queue keeps items in arrival order.\n"
        result, report = run_one(pytester, text, f"--memreport-repo=acme/widgets={repo.path}",
                                 "--memreport-against=none", "--memreport-allow-unchecked")
        assert not any(e["kind"] == "quote" for e in report["evidence"]), (front, report["evidence"])
