"""A file cited by its name alone after the document has named it in full (``see
`src/fetch/server.py` ...``, then ``In server.py (L3-L4) ...``): where that name names
several files at the pin, it was "ambiguous", never checked, though the document had said
which one it meant. It is the one of them the document cites in full; where the document
cites two of them in full, it stays ambiguous."""

from __future__ import annotations

import textwrap

from finding_support import run_one

FETCH = "def fetch(url):\n    return url\n\n\ndef robots(url):\n    return url + '/robots.txt'\n"
CLOCK = "def now():\n    return 0\n"


def _review(pin: str, *full: str) -> str:
    named = " and ".join(f"`{path}:1`" for path in full)
    return textwrap.dedent(f"""\
        # Servers review

        Pinned to acme/servers at `{pin}`.

        The fetching lives in {named}.

        In server.py (L5-L6) `robots` builds the robots address.
        """)


def test_a_bare_name_is_the_one_of_its_files_the_document_names_in_full(pytester, make_repo):
    repo = make_repo("servers")
    pin = repo.commit({"src/fetch/server.py": FETCH, "src/time/server.py": CLOCK})
    mapped = f"--memreport-repo=acme/servers={repo.path}"

    result, report = run_one(pytester, _review(pin, "src/fetch/server.py"), mapped, "--memreport-against=none")
    bare = [e for e in report["evidence"] if e["kind"] == "lines" and e["line"] == 7]
    assert [(e["path"], e["at_pin"]["status"]) for e in bare] == [("src/fetch/server.py", "found")], \
        result.stdout.str()[-2000:]
    assert "of its 2 files at the pin, the one the report names in full" in bare[0]["at_pin"]["note"]
    assert report["state"] == "fresh" and result.ret == 0

    # the lines lie past the end of the file the document named: a failure, not "ambiguous"
    text = _review(pin, "src/time/server.py")
    result, report = run_one(pytester, text, mapped, "--memreport-against=none")
    bare = [e for e in report["evidence"] if e["kind"] == "lines" and e["line"] == 7]
    assert [(e["path"], e["at_pin"]["status"]) for e in bare] == [("src/time/server.py", "missing")]
    assert result.ret == 1


def test_a_bare_name_the_document_names_two_of_in_full_stays_ambiguous(pytester, make_repo):
    repo = make_repo("servers")
    pin = repo.commit({"src/fetch/server.py": FETCH, "src/time/server.py": CLOCK})
    result, report = run_one(pytester, _review(pin, "src/fetch/server.py", "src/time/server.py"),
                             f"--memreport-repo=acme/servers={repo.path}", "--memreport-against=none")
    bare = [e for e in report["evidence"] if e["kind"] == "lines" and e["line"] == 7]
    assert [(e["path"], e["at_pin"]["status"]) for e in bare] == [("server.py", "ambiguous")]
    assert result.ret == 0
