"""Two forms of documents written by hand (docs/FORMATS.md, "Any document"), each read as
nothing before:

- **a manifest written as data**: an ingest's front matter, or a ```yaml or ```json block,
  listing files with their blob ids (``files: [{path: ..., blob: ...}]``,
  ``{"files": {"src/a.py": "<id>"}}``). The documents said "no evidence to check";
- **a section about one file**: a heading naming the file (``## `src/queue.py```) and, under
  it, lines that open with the lines they cite (``Lines 5-6 append ...``, ``- L8-L10: ...``).
  The lines were bound to no file, or to whatever file a line above happened to name.
"""

from __future__ import annotations

import json
import textwrap

import yaml
from finding_support import QUEUE, run_one
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_memreport.dialects import parse_report
from pytest_memreport.dialects.datatables import data_tables
from pytest_memreport.model import EvidenceKind, EvidenceRole
from pytest_memreport.runcaches import RunCaches

README = "# Widgets\n\nA queue and its helpers.\n"
OTHER_BLOB = "1" * 40


def _blob(repo, pin: str, path: str) -> str:
    return repo.repo.git.rev_parse(f"{pin}:{path}")


def _ingest(pin: str, queue_blob: str, readme_blob: str) -> str:
    return textwrap.dedent(f"""\
        ---
        title: Widgets ingest
        source: https://github.com/acme/widgets
        commit: {pin}
        files:
          - path: src/queue.py
            blob: {queue_blob}
            lines: 10
          - path: README.md
            blob: {readme_blob[:10]}
          - path: src/helpers.py
            blob: {OTHER_BLOB}
        ---
        # Widgets ingest

        What the queue keeps, read from the files above.
        """)


def test_an_ingests_front_matter_listing_files_with_their_blob_ids_is_checked(pytester, make_repo):
    repo = make_repo("widgets")
    pin = repo.commit({"src/queue.py": QUEUE, "README.md": README, "src/helpers.py": "X = 1\n"})
    text = _ingest(pin, _blob(repo, pin, "src/queue.py"), _blob(repo, pin, "README.md"))

    result, report = run_one(pytester, text, f"--memreport-repo=acme/widgets={repo.path}", "--memreport-against=none")
    checked = sorted((e["path"], e["line"], e["at_pin"]["status"]) for e in report["evidence"])
    # (the abbreviated id is a prefix of README.md's blob; ``lines: 10`` is a length, no cited line)
    assert checked == [("README.md", 9, "found"), ("src/helpers.py", 11, "missing"),
                       ("src/queue.py", 6, "found")], result.stdout.str()[-2000:]
    assert report["state"] == "stale" and result.ret == 1
    assert "src/helpers.py is blob" in result.stdout.str()


def test_manifests_in_yaml_and_json_blocks_are_checked_and_quote_nothing(pytester, make_repo):
    repo = make_repo("widgets")
    pin = repo.commit({"src/queue.py": QUEUE, "README.md": README})
    queue = _blob(repo, pin, "src/queue.py")
    text = textwrap.dedent(f"""\
        # Widgets manifest

        Pinned to acme/widgets at `{pin}`.

        From the manifest:

        ```yaml
        files:
          - name: queue
            path: src/queue.py
            blob_id: {queue}
        ```

        ```json
        {{"blobs": {{"README.md": "{_blob(repo, pin, "README.md")}", "docs/gone.md": "{OTHER_BLOB}"}}}}
        ```
        """)
    result, report = run_one(pytester, text, f"--memreport-repo=acme/widgets={repo.path}", "--memreport-against=none")
    checked = sorted((e["kind"], e["path"], e["at_pin"]["status"]) for e in report["evidence"])
    # (the yaml block, introduced by a colon, is a manifest, not a quotation of some file)
    assert checked == [("path", "README.md", "found"), ("path", "docs/gone.md", "file-missing"),
                       ("path", "src/queue.py", "found")], result.stdout.str()[-2000:]
    assert result.ret == 1


def _evidence(text: str):
    with RunCaches().active():
        return parse_report("kb/pilot.md", text).all_evidence()


def test_data_that_is_no_manifest_cites_nothing():
    pin = "a" * 40
    commit = "b" * 40
    text = textwrap.dedent(f"""\
        # Release notes

        Pinned to acme/widgets at `{pin}`.

        ```json
        [{{"name": "v1.0", "sha": "{commit}"}}, {{"name": "v1.1", "sha": "{"c" * 40}"}}]
        ```

        ```yaml
        files:
          - path: src/queue.py
            blob: {"d" * 40}
        broken: [unclosed
        ```

        ```yaml
        changed:
          - path: src/a.py
            sha: {commit}
          - path: src/b.py
            sha: {commit}
          - path: src/c.py
            sha: {commit}
        ```
        """)
    evidence = _evidence(text)
    # tags are no files; a block that is not YAML is no manifest; a ``sha`` two files share is
    # the commit each was read at (each file at that commit), never a blob
    assert not any(e.role is EvidenceRole.MANIFEST for e in evidence), evidence
    at = sorted((e.path, e.pin) for e in evidence if e.kind is EvidenceKind.PATH)
    assert at == [("src/a.py", commit), ("src/b.py", commit), ("src/c.py", commit)], evidence


def test_a_manifest_block_that_lists_another_pins_files_fails_naming_the_file(pytester, make_repo):
    repo = make_repo("widgets")
    old = repo.commit({"src/queue.py": QUEUE})
    old_blob = _blob(repo, old, "src/queue.py")
    pin = repo.commit({"src/queue.py": QUEUE.replace("[]", "list()")})
    text = f"# Manifest\n\nPinned to acme/widgets at `{pin}`.\n\n```yaml\npath: src/queue.py\nblob: {old_blob}\n```\n"
    result, report = run_one(pytester, text, f"--memreport-repo=acme/widgets={repo.path}", "--memreport-against=none")
    (evidence,) = report["evidence"]
    assert (evidence["path"], evidence["line"], evidence["at_pin"]["status"]) == ("src/queue.py", 6, "missing")
    assert "not " + old_blob[:12] + " as the manifest states" in result.stdout.str()


def _sections(pin: str) -> str:
    return textwrap.dedent(f"""\
        # Queue review

        Pinned to acme/widgets at `{pin}`.

        ## `src/queue.py`

        Lines 5-6 append to the queue.

        ### Draining

        - L8-L10: `drain` empties it.
        - **Line 40**: the queue's end.

        ## Imports

        - Line 1 `from src.queue import Queue` in the helpers.
        - Line 2 re-exports it.

        ## How src/queue.py keeps its items in order

        Lines 2-3 of the constructor.

        ```text
        Line 7: out, self.items = self.items, []
        ```
        """)


def test_lines_opening_a_files_section_cite_that_file(pytester, make_repo):
    repo = make_repo("widgets")
    pin = repo.commit({"src/queue.py": QUEUE})
    result, report = run_one(pytester, _sections(pin), f"--memreport-repo=acme/widgets={repo.path}",
                             "--memreport-against=none")
    cited = sorted((e["cited_lines"][0], e["cited_lines"][1], e["at_pin"]["status"])
                   for e in report["evidence"] if e["kind"] == "lines")
    # line 40 lies past the file's end: the claim fails, naming it
    assert cited[:2] == [(5, 6, "found"), (8, 10, "found")], result.stdout.str()[-2000:]
    assert len(cited) == 3 and cited[2][:2] == (40, 40) and cited[2][2] != "found"
    drain = [e for e in report["evidence"] if e["kind"] == "symbol"]
    assert [(e["text"], e["at_pin"]["status"]) for e in drain] == [("drain", "found")]
    assert result.ret == 1


def test_a_section_file_binds_only_its_own_sections_lines():
    evidence = _evidence(_sections("a" * 40))
    lines = sorted(e.line for e in evidence if e.kind is EvidenceKind.LINES)
    # the "Imports" section names no file: ``Line 2`` is not bound to the module a line above
    # quotes; a heading that is a sentence about a file makes no section of it; a code
    # block's numbered lines are the block's
    assert lines == [7, 11, 12], [(e.line, e.path, e.cited_lines) for e in evidence]
    assert {e.path for e in evidence if e.kind is EvidenceKind.LINES} == {"src/queue.py"}


_SEGMENT = st.from_regex(r"[a-z0-9_][a-z0-9_-]{0,7}", fullmatch=True)
_PATHS = st.builds(lambda parts, name: "/".join([*parts, name + ".py"]), st.lists(_SEGMENT, max_size=3), _SEGMENT)
_BLOBS = st.from_regex(r"[0-9a-f]{40}", fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(entries=st.lists(st.tuples(_PATHS, _BLOBS), min_size=1, max_size=12, unique_by=lambda entry: entry[0]))
def test_a_manifest_dumped_as_yaml_or_json_reads_back_as_its_rows_at_their_lines(entries):
    data = {"files": [{"path": path, "blob": blob} for path, blob in entries]}
    for text in (yaml.safe_dump(data, sort_keys=False), json.dumps(data, indent=2)):
        (header, rows), = data_tables(text, 1)
        assert header == ["path", "blob"]
        assert [(cells[0], cells[1]) for _, cells in rows] == entries, text
        lines = text.split("\n")
        assert all(cells[0] in lines[line - 1] for line, cells in rows), text


def test_an_evidence_list_in_front_matter_quotes_its_files_at_their_lines(pytester, make_repo):
    # ``evidence: [{file, lines, quote}]``: the file's lines were read, its quotation was not
    repo = make_repo("widgets")
    pin = repo.commit({"src/queue.py": QUEUE})
    front = textwrap.dedent(f"""\
        ---
        title: Queue evidence
        repo: acme/widgets
        commit: {pin}
        evidence:
          - file: src/queue.py
            lines: 5-6
            quote: "self.items.append(item)"
          - file: src/queue.py
            quote: "self.items.prepend(item)"
          - file: src/queue.py
            snippet: "return reversed(out)"
        ---
        # Queue evidence
        """)
    result, report = run_one(pytester, front, f"--memreport-repo=acme/widgets={repo.path}", "--memreport-against=none")
    quoted = [(e["line"], e["text"], e["at_pin"]["status"]) for e in report["evidence"] if e["kind"] == "quote"]
    # the altered quotation fails; code an entry shows and the file lacks is the writer's example
    assert quoted == [(6, "self.items.append(item)", "found"), (9, "self.items.prepend(item)", "missing"),
                      (11, "return reversed(out)", "not-evidence")], result.stdout.str()[-2000:]
    assert result.ret == 1
