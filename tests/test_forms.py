"""Evidence by form in any document (FORMAT.md §7; issue 45): pins of every form bound to the
repository they name, citations read whatever the document's shape, a folder of separate
documents never sharing pins, and the keys a user gives for repositories."""

from __future__ import annotations

import hashlib
import json
import os
import textwrap
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import forms_support as kb
from repo_builder import RepoBuilder
from pytest_memreport.dialects import parse_folder, parse_report
from pytest_memreport.dialects.core import anchors, pinforms
from pytest_memreport.dialects.runs import RunFile
from pytest_memreport.model import EvidenceKind, EvidenceRole

SHA = "1234567890abcdef1234567890abcdef12345678"
OTHER = "abcdef1234567890abcdef1234567890abcdef12"


def rows(report) -> set[tuple[str, str, str]]:
    return {(e.kind.value, e.path, str(e.cited_lines)) for e in report.all_evidence()
            if e.kind is EvidenceKind.LINES}


# -- pin statements ----------------------------------------------------------------------------

@pytest.mark.parametrize(("line", "expected"), [
    (f"**Reviewed revisions:** `widgets` `{SHA}`; `widgets-rs` `{OTHER}`.",
     [(SHA, None, "widgets"), (OTHER, None, "widgets-rs")]),
    (f"**Repository snapshot:** `{SHA}`", [(SHA, None, None)]),
    (f"Repository revision at freeze: `{SHA}`", [(SHA, None, None)]),
    (f"The audit is pinned to the Acme Widgets revision `{SHA}`.", [(SHA, None, None)]),
    (f"The inspected revision is [`acme/widgets@{SHA}`](https://github.com/acme/widgets/commit/{SHA}).",
     [(SHA, "acme/widgets", None)]),
    (f"| Git revision | `{SHA}` |", [(SHA, None, None)]),
    (f"Analysed as of `{SHA[:12]}`.", [(SHA[:12], None, None)]),
    (f"Version: `{SHA}`", [(SHA, None, None)]),
    (f"**Target:** acme/widgets @ `{SHA}`", [(SHA, "acme/widgets", None)]),
    (f"Read at `{SHA[:12]}` (2025-12-13).", [(SHA[:12], None, None)]),
    (f"Checked at commit [{SHA[:8]}](https://github.com/acme/widgets/commit/{SHA}).",
     [(SHA, "acme/widgets", None)]),  # the link's full sha (a run of digits alone is no sha)
    # a short sha of digits alone, after its backticked name or an emphasised commit word
    # (it was no pin: the gadgets citations went unpinned, or to widgets)
    (f"**Reviewed revisions:** `widgets` `{SHA[:10]}`; `gadgets` `1713796`.",
     [(SHA[:10], None, "widgets"), ("1713796", None, "gadgets")]),
    ("**Revision:** `1713796`", [("1713796", None, None)]),
    # a heading naming owner/name@sha needs no pin word; "against" is one (both were unread)
    (f"# Audit of acme/widgets @ `{SHA}`", [(SHA, "acme/widgets", None)]),
    (f"This reading was committed on 2026-08-01 against acme/widgets `{SHA}`.", [(SHA, None, None)]),
    (f"Read on main at `{SHA}` (acme/widgets).", [(SHA, None, None)]),  # (a branch between the verb and "at")
    # a line that is only a repository and its full commit (a short name marked as a name)
    (f"- **widgets**: `{SHA}`", [(SHA, None, "widgets")]),
    (f"**gadgets:** `{OTHER}`", [(OTHER, None, "gadgets")]),
    (f"- acme/widgets: `{SHA}`", [(SHA, "acme/widgets", None)]),
    # a pin word labelling the sha names no repository (it was a short name "Commit" to map)
    (f"- **Commit:** `{SHA}`", [(SHA, None, None)]),
    # a short sha written bare after a commit word, a repository read at a sha, a repository's
    # whole tree at a commit (each was read as no pin: "no pinned commit")
    (f"All line numbers refer to commit {SHA[:12]} of acme/widgets.", [(SHA[:12], None, None)]),
    (f"Snapshot: acme/widgets, commit {SHA[:11]}", [(SHA[:11], None, None)]),
    (f"We read the widgets repository at `{SHA[:12]}` (August 2025).", [(SHA[:12], None, None)]),
    (f"Source: https://github.com/acme/widgets/tree/{SHA}", [(SHA, "acme/widgets", None)]),
    (f"_Last verified at `{SHA[:12]}` on 2025-08-20._", [(SHA[:12], None, None)]),
    # a checkout, a snapshot taken at a bare sha, a heading's repository and sha, a short name
    # at its sha in one code span (each was read as no pin)
    (f"We cloned acme/widgets and checked out `{SHA[:12]}`.", [(SHA[:12], None, None)]),
    (f"Snapshot of acme/widgets taken at {SHA[:12]}.", [(SHA[:12], None, None)]),
    (f"## acme/widgets (`{SHA[:12]}`)", [(SHA[:12], "acme/widgets", None)]),
    (f"## acme/gadgets {OTHER}", [(OTHER, "acme/gadgets", None)]),
    (f"Target: `widgets@{SHA[:12]}`", [(SHA[:12], None, "widgets")]),
    # a repository's address and the commit it was read at (each was "looks like a pin")
    (f"Cloned from https://github.com/acme/widgets at `{SHA[:12]}`.", [(SHA[:12], "acme/widgets", None)]),
    (f"[acme/widgets](https://github.com/acme/widgets) @ `{SHA[:12]}`", [(SHA[:12], "acme/widgets", None)]),
    (f"Reviewed: https://github.com/acme/widgets.git at {SHA}", [(SHA, "acme/widgets", None)]),
])
def test_every_pin_statement_form_is_read_with_the_repository_it_names(line, expected):
    found = [(p.sha, p.repository, p.name) for p in pinforms.line_pins(line, 3)]

    assert found == expected


@pytest.mark.parametrize("line", [
    f"The earlier review, pinned to `{SHA}`, is superseded.",
    f"Originally written against `{SHA[:9]}` and refreshed since.",
    f"See [src/a.ts](https://github.com/acme/widgets/blob/{SHA}/src/a.ts) for the revision logic.",
    "A revision of deadbeefcafe words, no digits in it.",
    f"The bug was fixed in `{SHA[:10]}`.",
    f"Built from {SHA}.",
    "The revision counted 2024104 lines, `python` `3110` among them.",
    f"Diffed against `{SHA}` to see the changes.",
    f"The fix is in acme/widgets@{SHA[:10]}.",
    f"- fixed: `{SHA}`",  # (an unmarked word and a commit: a list of fixes, not of targets)
    f"- **widgets**: `{SHA[:12]}`",  # (a short sha with no pin word may be a number)
    f"The bug was fixed in commit {SHA[:8]} upstream.",
    # a bare short sha after "as of" (an RFC's "the index content (as of eb037b4863) takes
    # 176MiB") is the state of something it mentions, not the document's pin
    f"The index content (as of {SHA[:12]}) takes 176MiB.",
    "Run `git commit defaced` first; the revision 1234567 was a number.",
    f"See the [pages](https://github.com/acme/widgets/tree/{SHA}/docs) of the revision.",
    # a whole repository's tree linked in passing (a prototype, a dependency) is not the pin
    f"[prototype implementation]: https://github.com/acme/widgets/tree/{SHA}",
    f"The [`gadgets`](https://github.com/acme/gadgets/tree/{SHA}) crate seals its trait.",
    # a command's flag in a code span ("--start-commit <sha>")
    "- List the commits between the commit and the tag: `scales log --start-commit 0b9743a --final 1.0.0`",
    # a heading's number that is no sha, a package at a version, a heading's fix
    "## acme/widgets (2024123)",
    "Install `widgets@1.2.3` first.",
    f"## Fixed in acme/widgets `{SHA[:12]}`",
    # a page of the repository, or a change, at a commit; a number after an address
    f"See https://github.com/acme/widgets/issues/4 at `{SHA[:12]}`.",
    f"The bug was fixed in https://github.com/acme/widgets at `{SHA[:12]}`.",
    "Mirrored at https://github.com/acme/widgets @ 2024123 downloads.",
])
def test_another_documents_pin_history_and_a_links_own_commit_are_not_pins(line):
    assert pinforms.line_pins(line, 1) == []


def test_links_into_other_forges_cite_their_files_lines_at_their_commit():
    # A note linking Codeberg, Bitbucket or Sourcegraph pages read as no evidence at all.
    text = textwrap.dedent(f"""\
        # Elsewhere

        The queue [is built](https://codeberg.org/acme/widgets/src/commit/{SHA}/src/queue.ts#L2-L3) here,
        [drained](https://bitbucket.org/acme/widgets/src/{SHA}/src/queue.ts#lines-7:11) there, and
        [pushed](https://sourcegraph.com/github.com/acme/widgets@{SHA}/-/blob/src/queue.ts?L4-6) too.
        """)
    report = parse_report("kb/forges.md", text)

    assert sorted((e.path, str(e.cited_lines), e.pin) for e in report.all_evidence()) == [
        ("src/queue.ts", "2-3", SHA), ("src/queue.ts", "4-6", SHA), ("src/queue.ts", "7-11", SHA)]
    assert {report.source(e.source).id for e in report.all_evidence()} == {"acme/widgets"}


def test_a_file_at_a_commit_written_as_git_writes_it_is_that_file_at_that_commit():
    # `88a80f3:src/a.py` (git's own notation, also inside `git show ...`) was read as nothing,
    # and `src/a.py@88a80f3:4-6` as a citation of a file named "src/a.py@88a80f3", missing.
    rev = SHA[:11]
    body = (f"The queue is `{rev}:src/queue.ts` (`git show {rev}:src/worker.ts` shows the other), and "
            f"`src/queue.ts@{rev}:4-6` drains it; `acme/widgets@{rev}` is a pin, not a folder.\n")
    pinned = parse_report("kb/revs.md", f"# Revisions\n\nRead at commit `{SHA}`.\n\n{body}")

    assert sorted((e.kind.value, e.path, str(e.cited_lines), e.pin) for e in pinned.all_evidence()) == [
        ("lines", "src/queue.ts", "4-6", rev), ("path", "src/queue.ts", "None", rev),
        ("path", "src/worker.ts", "None", rev)]
    # in a document that reads no repository (a git tutorial's commands), they are words
    assert parse_report("kb/revs.md", f"# Revisions\n\n{body}").all_evidence() == []


def test_a_sha_in_an_indented_block_is_output_not_a_pin():
    # A benchmark's output indented under its sentence ("commit: 7cd9055") pinned the document
    # once a bare short sha after a commit word was read as a pin.
    text = textwrap.dedent("""\
        # Benchmarks

        The tool prints a header, then one line per benchmark:

            commit: 7cd9055a
            goos: linux
            BenchmarkDecode-8   100   154125 ns/op

        Nothing here is pinned.
        """)
    report = parse_report("kb/bench.md", text)

    assert [source.pin for source in report.sources if source.pin] == []
    assert [p.sha for p in pinforms.line_pins("Read at commit 7cd9055a.", 1)] == ["7cd9055a"]  # (as prose it is one)


def test_a_sha_inside_any_address_and_a_checksum_are_not_pins():
    # Read in real design documents (Kubernetes enhancement proposals, Python PEPs): a pull
    # request's commit link with a diff anchor, `/pull/130556/commits/<sha>#diff-<sha256 of a
    # path>`, pinned the document to the anchor's 64 digits (only links into a repository's
    # files were set aside), and "The archive's SHA-256 is `<digest>`" read "SHA" as a pin word.
    digest = hashlib.sha256(b"pkg/apis/core/types.go").hexdigest()
    pull = f"https://github.com/acme/widgets/pull/130556/commits/{SHA}#diff-{digest}"
    assert pinforms.line_pins(f"You can find the validation logic in [this commit]({pull}).", 3) == []
    assert pinforms.line_pins(f"The archive's SHA-256 is `{digest}`.", 3) == []
    assert pinforms.line_pins(f"- sha512 of the wheel: `{SHA}`", 3) == []
    # A commit stays a pin when the words say so, in a repository whose commits have 64 digits too.
    assert [p.sha for p in pinforms.line_pins(f"Reviewed at commit `{digest}`.", 3)] == [digest]
    assert [p.sha for p in pinforms.line_pins(f"**Commit SHA:** `{SHA}`", 3)] == [SHA]
    text = f"# Stop signals\n\nYou can find the logic in [this commit]({pull}).\n\nIt lives in `pkg/store.go`.\n"
    assert [source.pin for source in parse_report("kep.md", text).sources if source.pin] == []


def test_a_name_beside_links_into_several_repositories_is_looked_for_in_each_ones_files():
    # Read in a real design document: `ContainerConfig` beside links to two projects' files at
    # `main` (nothing pins either) was proposed in no repository, then read at the one commit
    # a third project's link named elsewhere (microsoft/hcsshim), where neither file is.
    link = "https://github.com/{}/blob/{}/{}#L{}"
    runtime = link.format("acme/runtime", "main", "signal/signal.go", 38)
    engine = link.format("acme/engine", "main", "oci/container.go", 259)
    text = textwrap.dedent(f"""\
        # Stop signals

        `ContainerConfig` is validated by [ParseSignal]({runtime}) and [here]({engine}).

        Windows [supports two signals]({link.format("acme/shim", SHA, "signals/signal.go", 74)}).
        """)
    report = parse_report("kep.md", text)
    names = [(e.text, e.source, e.pin) for e in report.all_evidence() if e.kind is EvidenceKind.SYMBOL]
    assert ("ContainerConfig", "acme/shim", SHA) not in names
    # Beside a link at a commit and one at a branch of one repository it is that repository's,
    # looked for in both files at the commit the document reads it at, as the sentence says.
    both = textwrap.dedent(f"""\
        # Tables

        `TableConvertor` is defined in [the store]({link.format("acme/engine", SHA, "store/table.go", 12)}) and
        [the registry]({link.format("acme/engine", "main", "registry/rest.go", 40)}).
        """).replace(" and\n", " and ")
    found = [(e.text, e.source, e.pin, sorted(e.context), e.role) for e in parse_report("kep.md", both).all_evidence()
             if e.kind is EvidenceKind.SYMBOL and e.pin]
    assert found == [("TableConvertor", "acme/engine", SHA, ["registry/rest.go", "store/table.go"],
                      EvidenceRole.DECLARED)]
    # A run's register entries are files of one repository, not repositories: the name beside
    # two of them is one proposal in both files, as before.
    from pytest_memreport.dialects import nameforms
    from pytest_memreport.model import Evidence, LineRange
    cited = [Evidence(EvidenceKind.LINES, path, 3, 3, cited_lines=LineRange(1, 9), source=source)
             for path, source in (("README.md", "SRC-2"), ("package.json", "SRC-3"))]
    proposed = nameforms.symbols_beside(["", "", "Built by `tsc` (SRC-2: README.md:1-9; SRC-3: package.json:1-9)"], cited)
    assert [(e.text, e.source, e.context) for e in proposed] == [("tsc", None, ("README.md", "package.json"))]


def test_a_commit_cited_in_passing_a_commands_flag_and_a_range_of_history_are_not_pins():
    # Markdown that is no report: "/commit/" inside a link's URL made any commit link a pin
    # statement ("the change [added weight](.../commit/<sha>)"), a command's `--sha <hex>`
    # read "sha" as a pin word, and "commits between the commit `<sha>` and the tag" pinned
    # a range's end; each document then cited its backticked names at that commit and failed.
    link = f"https://github.com/acme/widgets/commit/{SHA}"
    assert pinforms.line_pins(f"The scale later [added weight]({link}) to every parcel.", 4) == []
    assert pinforms.line_pins(f"`scales lookup --sha {{{{{SHA}}}}}`", 4) == []
    assert pinforms.line_pins(f"`scales log --commit {SHA[:10]}`", 4) == []
    assert pinforms.line_pins("- Show the commits between the commit `9f3c2a1` and the tag `2.0.0`:", 4) == []
    assert pinforms.line_pins(f"Unchanged since commit `{SHA}`.", 4) == []
    # an advisory's "corrected in commit `<sha>`" names the fix, not what the document read
    assert pinforms.line_pins(f"The overflow was corrected in commit `{SHA[:12]}` by a bounds check.", 4) == []
    assert pinforms.line_pins(f"It was introduced by `{SHA}`.", 4) == []
    assert [p.sha for p in pinforms.line_pins(f"We read the patched code at commit `{SHA}`.", 4)] == [SHA]
    # a commit link written as its own sha, or standing alone on its line, still states its commit
    assert [(p.sha, p.repository) for p in pinforms.line_pins(f"[{SHA[:12]}]({link})", 4)] == [
        (SHA[:12], "acme/widgets")]
    assert [(p.sha, p.repository) for p in pinforms.line_pins(f"- <{link}>", 4)] == [(SHA, "acme/widgets")]
    assert [p.sha for p in pinforms.line_pins(f"Checked at commit [{SHA[:12]}]({link}).", 4)] == [SHA[:12]]
    # and a pin word with a hyphen inside a word is still one
    assert [p.sha for p in pinforms.line_pins(f"Re-pinned to `{SHA}`.", 4)] == [SHA]


def test_a_command_in_one_code_span_a_host_and_its_port_and_an_issue_number_are_not_line_citations():
    # Read in real Markdown: `pack a/b.txt --pages 1-3` cited a/b.txt's lines 1-3 (a number in
    # the same code span as a file was read as its range), `example.org:80` line 80 of a file
    # example.org, and "acme/widgets#42" (an issue) line 42 of a file acme/widgets.
    text = textwrap.dedent(f"""\
        # Notes

        Read at commit `{SHA}`.

        Run `pack docs/manual.txt --pages 1-3` first, then `serve --bind api.internal.dev:8443`.
        The proxy forwards `localhost:9999` to `example.org:80`, as acme/widgets#42 asked.
        The class opens in `src/queue.ts` `2-3`; the agenda sits in `notes.org:12` and `lib/a.py#L4`.
        """)
    report = parse_report("kb/notes.md", text)

    assert rows(report) == {("lines", "src/queue.ts", "2-3"), ("lines", "notes.org", "12"),
                            ("lines", "lib/a.py", "4")}
    assert not any(e.path in ("example.org", "acme/widgets", "api.internal.dev") for e in report.all_evidence())


@pytest.mark.parametrize("sentence", [
    "The queue is built in src/queue.ts (L2-L3), its workers elsewhere.",
    "- src/queue.ts (L2-L3) builds the queue.",
    "The queue is built in `src/queue.ts` (L2-L3).",
    "The queue is built in src/queue.ts (lines 2-3).",
    "The queue is built in src/queue.ts L2-L3.",  # (an L range after a plain path: the file alone before)
    "The queue is built in (src/queue.ts L2-3).",
])
def test_a_range_in_parentheses_after_a_plain_path_cites_its_lines(sentence):
    # Beside a path in backticks "(L2-L3)" cited the lines; beside the same path in plain words
    # the range was no citation, and only the file was checked.
    report = parse_report("kb/plain.md", f"# Plain\n\nRead at commit `{SHA}`.\n\n{sentence}\n")

    assert rows(report) == {("lines", "src/queue.ts", "2-3")}


@pytest.mark.parametrize("sentence, expected", [
    ("`src/queue.ts` lines 2, 4 and 6-7", {"2", "4", "6-7"}),
    ("`src/queue.ts` lines 2, 4, and 6", {"2", "4", "6"}),
    ("See lines 2 and 6-7 of `src/queue.ts`.", {"2", "6-7"}),
    ("See `src/queue.ts:2`, 4 and 12 other files.", {"2"}),  # (no line word began the list)
    ("Lines 2, 4 and 6-7 of `src/queue.ts` build it.", {"2", "4", "6-7"}),  # (the file after the list)
])
def test_the_last_range_of_a_worded_list_of_lines_is_cited(sentence, expected):
    # "and 6-7" ended a list of lines: it was dropped after a comma-separated list, and a
    # range after "and" was dropped even after one number; with the file after the list,
    # no number of it was cited
    report = parse_report("kb/list.md", f"# List\n\nRead at commit `{SHA}`.\n\n{sentence}\n")

    assert rows(report) == {("lines", "src/queue.ts", cited) for cited in expected}


@pytest.mark.parametrize("body", [
    "- **File:** `src/queue.ts`\n- **Lines:** 2–3\n- **Claim:** the queue is built there.",
    "**File:** `src/queue.ts`  \n**Line(s):** L2-L3",
    "- Path: `src/queue.ts`\n- Line range: 2-3",
    "- **File:** `src/worker.ts`\n- **Lines:** 2-3 of `src/queue.ts`",  # (its own file: read as written)
])
def test_a_list_of_fields_binds_its_lines_to_the_file_above(body):
    # A file and its lines written as fields on lines of their own (a pilot's list of
    # findings): the lines were read as nothing, and only the file was checked.
    report = parse_report("kb/pilot.md", f"# Pilot\n\nRead at commit `{SHA}`.\n\n{body}\n")

    assert rows(report) == {("lines", "src/queue.ts", "2-3")}


def test_lines_after_a_blank_line_or_without_a_label_bind_to_no_file_above():
    # (a paragraph's end ends the fields; a line "3-5 apples" is no field of lines)
    text = f"# Pilot\n\nRead at commit `{SHA}`.\n\n- **File:** `src/queue.ts`\n\n- **Lines:** 2-3\n" \
           "\n- `src/worker.ts`\n- 3-5 apples\n"
    assert rows(parse_report("kb/pilot.md", text)) == set()


@pytest.mark.parametrize("sentence", [
    "The queue is built (see src/queue.ts, ll. 2-3).",
    "The queue is built in `src/queue.ts`, l. 2.",
])
def test_the_abbreviated_line_words_continue_the_file_before_them(sentence):
    # "ll." ended the sentence for the reader (its dot), so its range bound to nothing
    report = parse_report("kb/plain.md", f"# Plain\n\nRead at commit `{SHA}`.\n\n{sentence}\n")

    assert {(kind, path) for kind, path, _ in rows(report)} == {("lines", "src/queue.ts")}


@pytest.mark.parametrize(("header", "cell", "expected"), [
    ("Line(s)", "2-3", "2-3"),
    ("Line(s)", "4", "4"),  # (the header says line: a plain number is one)
    ("Line #", "4", "4"),
    ("Lines", "4", None),  # (a length, as before)
])
def test_a_table_column_headed_line_s_cites_its_rows_lines(header, cell, expected):
    text = f"# Pilot\n\nRead at commit `{SHA}`.\n\n| Claim | File | {header} |\n| --- | --- | --- |\n" \
           f"| built | `src/queue.ts` | {cell} |\n"
    cited = rows(parse_report("kb/pilot.md", text))

    assert cited == ({("lines", "src/queue.ts", expected)} if expected else set())


@pytest.mark.parametrize("sentence", [
    "`Queue` is defined in `src/queue.ts`.",
    "The `drain()` method lives in `src/queue.ts`.",
    "`Queue` is declared in the file `src/queue.ts`.",
])
def test_a_name_a_sentence_says_a_file_defines_is_that_files_symbol(sentence):
    report = parse_report("kb/plain.md", f"# Plain\n\nRead at commit `{SHA}`.\n\n{sentence}\n")

    symbols = [(e.text, e.context, e.role) for e in report.all_evidence() if e.kind is EvidenceKind.SYMBOL]
    assert len(symbols) == 1 and symbols[0][1:] == (("src/queue.ts",), EvidenceRole.DECLARED)


@pytest.mark.parametrize("sentence", [
    "`Queue` is used in `src/queue.ts`.",  # (a use, not a definition)
    "`Queue` is defined in `docs/`.",  # (a folder)
    "```\n`Queue` is defined in `src/queue.ts`.\n```",  # (code)
])
def test_a_name_beside_a_file_the_sentence_does_not_say_defines_it_is_no_symbol(sentence):
    report = parse_report("kb/plain.md", f"# Plain\n\nRead at commit `{SHA}`.\n\n{sentence}\n")

    assert not [e for e in report.all_evidence() if e.kind is EvidenceKind.SYMBOL]


def test_a_continuation_binds_across_a_line_of_code_spans_that_name_no_file():
    # Lines whose code spans name no file (`needsMore`, `OBJ-3`) are not read for citations
    # (a fifth of reading prose), but they are still their paragraph's: the lone ranges two
    # lines below the file keep binding to it, and the names beside them stay words.
    text = textwrap.dedent(f"""\
        # Notes

        Read at commit `{SHA}`.

        Every record was checked against `src/queue.ts` and found accurate, with
        `OBJ-3`'s claim of two read sites and `needsMore` having no consumer
        (declared `:21`, copied `:54`, read nowhere), and `Makefile` names the target.
        """)
    report = parse_report("kb/notes.md", text)

    assert rows(report) >= {("lines", "src/queue.ts", "21"), ("lines", "src/queue.ts", "54")}
    assert {e.path for e in report.all_evidence() if e.kind is EvidenceKind.PATH} >= {"src/queue.ts", "Makefile"}
    assert not any(e.path in ("OBJ-3", "needsMore") for e in report.all_evidence())


def test_a_file_in_backticks_inside_brackets_is_named_and_a_links_code_text_is_the_links():
    # "(`src/pool.py`)" was one word of the plain-text reading, not a code span: the file went
    # unread, and "(`pool.py`:26)" cited nothing. A link whose text is a code span stays the
    # link's (its repository and commit), not a file of the document's pin.
    text = textwrap.dedent(f"""\
        # Pool study

        The audit is pinned to the Acme Widgets revision `{SHA}`.

        The pool (`src/pool.py`) keeps workers alive.

        The queue [`src/queue.py`] hands them work.

        Its limit is set once (`src/limits.py`:26).

        The linker (`link.exe`) is named in passing.

        The stub is short: [`lib/stub.pyi#L9-L12`](https://github.com/acme/stubs/blob/{OTHER}/lib/stub.pyi#L9-L12).
        """)
    report = parse_report("kb/pool.md", text)

    named = {(e.path, e.line): e.role for e in report.all_evidence() if e.kind is EvidenceKind.PATH}
    assert named[("src/pool.py", 5)] is EvidenceRole.MENTION
    assert named[("src/queue.py", 7)] is EvidenceRole.MENTION
    assert named[("link.exe", 11)] is EvidenceRole.BASENAME
    assert ("lines", "src/limits.py", "26") in rows(report)
    stub = [e for e in report.all_evidence() if e.path == "lib/stub.pyi"]
    assert stub and all(e.source == "acme/stubs" and e.pin == OTHER for e in stub)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab/.`()[] \t:1", max_size=60))
def test_the_plain_reading_of_a_line_keeps_every_code_span_as_code_words_in_order(line):
    # Each word is the text it covers, in order, none overlapping; every backticked span
    # standing on its own, glued to brackets or not, gives code words, and nothing else does.
    words = anchors.plain_unit(line, 1).words

    assert all(line[w.start:w.end] == w.text for w in words)
    assert all(a.end <= b.start for a, b in zip(words, words[1:]))
    for word in words:
        if word.code:
            assert "`" not in word.text and line.rfind("`", 0, word.start) >= 0


def test_the_text_a_finding_proposes_is_not_a_quotation_of_the_file():
    # Read in real audit findings: "The correct comment should be: "..."" beside a link to the
    # line was checked as a quotation of the file, and failed as missing (it is what the
    # file should say, not what it says). What it says, beside the same link, still is one.
    link = f"https://github.com/acme/widgets/blob/{SHA}/src/Pool.sol#L50"
    text = textwrap.dedent(f"""\
        # Findings

        The comment reads "Mapping of address to fighter points." ([Pool.sol#L50]({link})).
        The correct comment should be: "Mapping of token ID to fighter points." ([Pool.sol#L50]({link})).
        Consider changing the natspec to "Mapping of fighter ID to its points." ([Pool.sol#L50]({link})).
        Replace "the old wording of it" with "a new wording for it" ([Pool.sol#L50]({link})).
        """)
    report = parse_report("kb/finding.md", text)

    quoted = sorted(e.text for e in report.all_evidence() if e.kind is EvidenceKind.QUOTE)
    assert quoted == ["Mapping of address to fighter points.", "the old wording of it"]


def test_a_document_of_links_and_quotations_is_read_by_the_link_reader_once(monkeypatch):
    # The forms read its links (as a review would) and its quotation ties (as notes do) with
    # one reading: each was a reading of the whole document (a fifth of a bot report's parse).
    from pytest_memreport.dialects.core import linked

    readings = []
    original = linked.LinkReader.parse
    monkeypatch.setattr(linked.LinkReader, "parse", lambda self, *a, **k: readings.append(1) or original(self, *a, **k))
    link = f"https://github.com/acme/widgets/blob/{SHA}/src/Pool.sol#L50"
    text = f"# Findings\n\nThe comment reads \"Mapping of address to fighter points.\" ([Pool.sol#L50]({link})).\n"
    report = parse_report("kb/finding.md", text)

    assert len(readings) == 1
    assert {(e.kind, e.path) for e in report.all_evidence()} == {(EvidenceKind.LINES, "src/Pool.sol"),
                                                                 (EvidenceKind.QUOTE, "src/Pool.sol")}


def test_a_blockquote_whose_own_sentence_cites_a_file_is_someones_words_not_the_files():
    # A judging discussion quotes a comment ("> > Escalate ...") and answers "it handles it, see
    # [the losses](...)": the link at the end of the blockquote's last sentence made the whole
    # blockquote a quotation of that file (missing, the report stale). An attribution set off
    # from the text ("... ([src/queue.ts](...))", "— [src/queue.ts](...)") still ties it.
    blob = f"https://github.com/acme/widgets/blob/{SHA}/src/queue.ts"
    text = textwrap.dedent(f"""\
        # Discussion

        Read at commit `{SHA}`.

        **reviewer**

        > > Escalate: this issue is valid.
        >
        > The queue handles it, see [the drain]({blob}#L7-L10).

        > I read that the default limit is wrong, as [these comments]({blob}#L2) say.

        > The queue hands parcels to workers in arrival order ([src/queue.ts]({blob}#L1)).

        > hands parcels to workers
        > — [src/queue.ts]({blob}#L1)
        """)
    quotes = {(e.line, e.path, " ".join((e.text or "").rstrip(" .").split()))
              for e in parse_report("kb/discussion.md", text).all_evidence() if e.kind is EvidenceKind.QUOTE}

    assert quotes == {(13, "src/queue.ts", "The queue hands parcels to workers in arrival order"),
                      (15, "src/queue.ts", "hands parcels to workers")}, quotes


def test_a_stack_traces_installed_dependencies_are_not_files_of_the_target():
    # A finding pasted its test run's stack trace: each frame under node_modules/ was read as
    # a cited line of the target (file-missing, the report stale); its own frames still count.
    text = textwrap.dedent(f"""\
        # Reverts

        Read at commit `{SHA}`.

        ```
          at Logger.makeError (node_modules/@scales/logger/src/index.ts:269:28)
          File "/usr/lib/python3/site-packages/scales/weigh.py", line 12, in weigh
          at run (src/queue.ts:4:2)
        ```
        """)
    report = parse_report("kb/trace.md", text)

    assert rows(report) == {("lines", "src/queue.ts", "4")}
    assert not any("packages/" in e.path or "node_modules" in e.path for e in report.all_evidence())
    # a test run's output in a console block names the writer's own test file: no citation
    # (it failed file-missing, the report stale)
    console = text.replace("```\n", "```console\n", 1)
    assert rows(parse_report("kb/trace.md", console)) == set()


def test_a_document_that_pins_nothing_has_no_evidence_in_its_phrases_names_and_gists():
    # A cheat sheet's phrases in quotation marks ("1 week 2 days"), its names in backticks and
    # a gist's hex id in a URL made documents that pin nothing ask for a clone ("no repository");
    # each is evidence only where a pinned tree holds it.
    text = textwrap.dedent("""\
        # weigh

        > Weigh parcels. See the [agreement](https://gist.github.com/someone/e50feec13683e565769fbd58ce503d4e).

        - Weigh everything older than "1 week 2 days":

        `weigh --older {{1 week}}`

        - Keep the scales' settings in `conf/weights.toml`:

        `weigh --older {{1 week}} --config weights.toml`
        """)
    report = parse_report("kb/weigh.md", text)

    assert not report.all_evidence() and "pin-like" not in report.meta
    # the same phrases beside a pin are looked for in its tree
    pinned = parse_report("kb/weigh.md", text + f"\nChecked at commit `{SHA}`.\n")
    assert {e.role for e in pinned.all_evidence()} >= {EvidenceRole.TERM, EvidenceRole.MENTION}


@pytest.mark.parametrize(("front", "expected"), [
    ({"repo": "https://github.com/acme/widgets", "ref": SHA}, (SHA, "acme/widgets")),
    ({"repository_url": "https://github.com/acme/widgets", "sha": SHA}, (SHA, "acme/widgets")),
    ({"github": "acme/widgets", "commit_sha": SHA}, (SHA, "acme/widgets")),
    ({"repo": "acme/widgets", "ref": "main"}, (None, "acme/widgets")),  # a branch is no pin
])
def test_front_matter_keys_writers_use_for_the_repository_and_its_commit(front, expected):
    # `repo:` + `ref:` stated nothing (no pin), and `repository_url:` named no repository.
    pins = pinforms.front_matter_pins(front, 1)
    named = pinforms.front_matter_repository(front)

    assert ((pins[0].sha if pins else None), named[0] if named else None) == expected


@pytest.mark.parametrize(("front", "expected"), [
    # a mapping naming a repository and its commit, alone or in a list; a repository's tree at
    # a commit; a pin key with the repository's role before it (each stated no pin)
    ({"target": {"repo": "acme/widgets", "commit": SHA}}, [(SHA, "acme/widgets", None)]),
    ({"sources": [{"repository": "https://github.com/acme/widgets", "revision": SHA},
                  {"name": "gadgets", "sha": OTHER}]}, [(SHA, "acme/widgets", None), (OTHER, None, "gadgets")]),
    ({"repos": {"acme/widgets": SHA}}, [(SHA, "acme/widgets", None)]),
    # one repository's mapping under a key of several (its "commit" was a repository to map)
    ({"sources": {"repo": "acme/widgets", "commit": SHA}}, [(SHA, "acme/widgets", None)]),
    ({"upstream": "https://github.com/acme/widgets", "upstream_commit": SHA}, [(SHA, None, None)]),
    ({"source": f"https://github.com/acme/widgets/tree/{SHA}"}, [(SHA, "acme/widgets", None)]),
    ({"source": f"https://github.com/acme/widgets/tree/{SHA}", "commit": SHA}, [(SHA, "acme/widgets", None)]),
    # not pins: a list of changes' commits, a folder's tree at a commit (an ingest's file is
    # read by :func:`front_matter_file`), a branch
    ({"changes": [{"commit": SHA, "note": "fixed the queue"}]}, []),
    ({"source": f"https://github.com/acme/widgets/tree/{SHA}/docs"}, []),
    ({"target": {"repo": "acme/widgets", "commit": "main"}}, []),
])
def test_front_matter_pins_in_the_shapes_writers_nest_them(front, expected):
    assert [(p.sha, p.repository, p.name) for p in pinforms.front_matter_pins(front, 1)] == expected


def test_front_matter_pins_keyed_by_repository_or_bare():
    keyed = pinforms.front_matter_pins({"code_revisions": {"acme/widgets": SHA, "gadgets": OTHER}}, 1)
    bare = pinforms.front_matter_pins({"commit": SHA}, 1)

    assert [(p.sha, p.repository, p.name) for p in keyed] == [(SHA, "acme/widgets", None), (OTHER, None, "gadgets")]
    assert [(p.sha, p.key) for p in bare] == [(SHA, None)]


def test_a_pin_word_is_looked_for_close_before_its_sha_so_long_lines_stay_linear():
    # Each sha's words are read in a bounded window before it (not the whole line before it):
    # a line of many statements gives each its pin, and a pin word far away makes none.
    many = "**Evidence basis:** at commit `abc1234` " * 2000
    far = "Revision " + "word " * 200 + f"`{SHA}`"  # one sentence, its pin word 1,000 characters back

    assert len(pinforms.line_pins(many, 1)) == 2000
    assert pinforms.line_pins(far, 1) == []


@pytest.mark.parametrize(("line", "mentioned"), [
    (f"The trial is pinned to the acme/gadgets revision `{SHA}`.", ("acme/gadgets",)),
    (f"# Files read (acme/widgets at `{SHA}`)", ("acme/widgets",)),
    (f"**Repository snapshot:** `{SHA}`", ()),
    # what the document calls it: the key the user maps it with, as the message asks for it
    (f"The audit is pinned to the gadgets revision `{SHA}`.", ("gadgets",)),
    (f"The audit is pinned to the Acme Gadgets commit `{SHA}`.", ("acme-gadgets",)),
    (f"Checked at the same revision `{SHA}`.", ()),
    (f"The audit is pinned to the upstream main revision `{SHA}`.", ()),
])
def test_a_pin_that_names_its_repository_only_in_words_keeps_the_words(line, mentioned):
    # Written like a path, ``owner/name`` in words is a candidate: the user's mapping decides.
    [pin] = pinforms.line_pins(line, 1)

    assert (pin.sha, pin.repository, pin.mentioned) == (SHA, None, mentioned)


# -- documents of every shape ------------------------------------------------------------------

@pytest.fixture(scope="module")
def targets(tmp_path_factory):
    return kb.build_targets(tmp_path_factory.mktemp("forms") / "clones")


def test_a_pilot_with_no_dialect_of_its_own_finds_every_citation_and_its_pin(targets):
    report = parse_report("kb/pilots/pilot-queue.md", kb.pilot(targets))

    assert rows(report) == kb.PILOT_EXPECTED
    quotes = [(e.path, e.text) for e in report.all_evidence() if e.kind is EvidenceKind.QUOTE]
    assert quotes == [kb.PILOT_QUOTE]
    assert [(s.pin, s.repository or s.id) for s in report.sources] == [(targets.widgets_pin, "acme/widgets")]
    assert report.meta["stated-date"] == "2026-05-02"
    # the pilot's own labels are not record references
    assert not [f for f in report.findings if "O5" in f.message or "K1" in f.message]


def test_a_comparison_binds_each_citation_to_the_repository_its_section_or_link_names(targets):
    report = parse_report("kb/pilots/compare.md", kb.comparison(targets))
    by_path = {(e.path, str(e.cited_lines)): e for e in report.all_evidence()}
    sources = {s.id: s for s in report.sources}

    widgets = by_path[("src/queue.ts", "4-6")]
    assert report.source(widgets.source).id == "widgets" and sources["widgets"].pin == targets.widgets_pin
    gadgets = report.source(by_path[("lib/gadget.rs", "5-7")].source)
    assert gadgets.pin == targets.gadgets_pin and "acme/gadgets" in (gadgets.repository or gadgets.id)
    assert by_path[("lib/gadget.rs", "1-3")].pin == targets.gadgets_pin  # the link's own commit


def test_a_sentence_with_an_ellipsis_binds_to_its_sections_repository(targets):
    # "..." (or a full stop standing alone) was read as an empty word, which named every
    # source with no owner/name: the gadgets line went to widgets, and failed "file-missing".
    report = parse_report("kb/pilots/compare.md", kb.comparison(targets)
                          + "\nIts signature is `pub fn weigh(...) -> u32` (`lib/gadget.rs:1`) .\n")
    [weigh] = [e for e in report.all_evidence() if e.path == "lib/gadget.rs" and str(e.cited_lines) == "1"]

    assert report.source(weigh.source).pin == targets.gadgets_pin


def _two_targets(targets, gadgets_section: str) -> str:
    """A comparison whose only link is into widgets, then a section on gadgets."""
    return textwrap.dedent(f"""\
        # Two targets

        **Reviewed revisions:** `widgets` `{targets.widgets_pin}`; `gadgets` `{targets.gadgets_pin}`.

        ## widgets

        Parcels wait in [src/queue.ts](https://github.com/acme/widgets/blob/{targets.widgets_pin}/src/queue.ts#L4-L6).

        ## gadgets

        """) + textwrap.dedent(gadgets_section)


def test_a_quotation_no_link_ties_binds_to_its_sections_repository_not_the_one_linked(targets):
    # A note gives every quotation the one repository it links; in a document of several, the
    # quotation attributed to `lib/gadget.rs` in the gadgets section went to widgets.
    report = parse_report("kb/pilots/two.md", _two_targets(targets, """\
        `lib/gadget.rs` declares "pub fn label(kilos: u32) -> String" for the labels.
        """))
    [quote] = [e for e in report.all_evidence() if e.kind is EvidenceKind.QUOTE]

    assert (quote.path, report.source(quote.source).pin) == ("lib/gadget.rs", targets.gadgets_pin)


def test_a_continuation_opening_a_line_that_cites_another_file_continues_the_line_above(targets):
    report = parse_report("kb/pilots/two.md", _two_targets(targets, """\
        Labels come from `lib/gadget.rs`
        (:5-7), and weighing is at `lib/gadget.rs:1`.
        """))

    assert {str(e.cited_lines) for e in report.all_evidence() if e.path == "lib/gadget.rs"} >= {"5-7", "1"}


def test_a_table_of_files_and_the_commit_each_was_read_at_cites_each_file_at_it(targets):
    # ``| File | Git revision | Lines |``: no blob, and the lines are lengths; it was "no evidence
    # to check". Each row's file is a citation at its commit, as a blob link is.
    report = parse_report("kb/trial/files.md", textwrap.dedent(f"""\
        # Files read

        | File | Git revision | Lines |
        | --- | --- | --- |
        | `src/queue.ts` | `{targets.widgets_pin}` | 13 |
        | `src/` | `{targets.widgets_pin[:12]}` | 2 |
        | `README.md` | not read | 3 |
        """))

    assert [(e.kind.value, e.path, e.pin, e.cited_lines) for e in report.all_evidence()] == [
        ("path", "src/queue.ts", targets.widgets_pin, None), ("directory", "src", targets.widgets_pin[:12], None)]


def _blockquoted(targets, body: str) -> list[tuple[str, str | None, str]]:
    """A document of no dialect's shape (no quotation marks anywhere) pinning widgets by a
    link, then ``body``: its evidence as ``(kind, path, lines)``, its quotations' text."""
    pin = targets.widgets_pin
    report = parse_report("kb/pilots/quoted.md", f"# Queue reading\n\nThe inspected revision is "
                          f"[`acme/widgets@{pin}`](https://github.com/acme/widgets/commit/{pin}).\n\n"
                          + textwrap.dedent(body).replace("PIN", pin))
    return [(e.kind.value, e.path, e.text if e.kind is EvidenceKind.QUOTE else str(e.cited_lines))
            for e in report.all_evidence()]


def test_a_blockquote_a_sentence_introduces_is_a_quotation_in_a_document_with_no_quotation_marks(targets):
    # The ties were read only where the text had a '"': a document quoting in blockquotes
    # alone checked the link and not the quotation.
    found = _blockquoted(targets, """\
        The queue [src/queue.ts](https://github.com/acme/widgets/blob/PIN/src/queue.ts) puts it this way:

        > The queue hands parcels to workers in arrival order.
        """)

    assert ("quote", "src/queue.ts", "The queue hands parcels to workers in arrival order.") in found


def test_a_blockquote_attributed_on_its_last_line_in_backticks_is_that_files_quotation(targets):
    found = _blockquoted(targets, """\
        > export class Queue {
        > -- `src/queue.ts:2`
        """)

    assert ("quote", "src/queue.ts", "export class Queue {") in found and ("lines", "src/queue.ts", "2") in found


@pytest.mark.parametrize(("attribution", "lines"), [
    ("— from `src/queue.ts`, near line 2.", "2"),
    ("— from src/queue.ts, lines 2 to 3", "2-3"),
    ("— in `src/queue.ts` line 2", "2"),
])
def test_a_blockquote_attributed_after_it_from_a_file_near_a_line_is_that_files_quotation(targets, attribution,
                                                                                           lines):
    # An epigraph's attribution ("— from <file>, near line N") was no attribution: the file and
    # its line were checked, the quoted words not at all.
    pin = targets.widgets_pin
    report = parse_report("kb/pilots/epigraph.md", f"# Queue reading\n\nThe inspected revision is "
                          f"[`acme/widgets@{pin}`](https://github.com/acme/widgets/commit/{pin}).\n\n"
                          f"> export class Queue {{\n\n{attribution}\n")

    assert [(e.path, e.text, str(e.cited_lines)) for e in report.all_evidence() if e.kind is EvidenceKind.QUOTE] == [
        ("src/queue.ts", "export class Queue {", lines)]


def test_a_blockquote_after_a_citation_that_does_not_introduce_it_is_the_writers_own(targets):
    # Outside a note, a blockquote after a paragraph that does not end with a colon is an
    # aside: it was read as a quotation of the file the list item above cites.
    found = _blockquoted(targets, """\
        - Draining is at `src/queue.ts:7-11`.

        > Draining empties the queue (our reading).
        """)

    assert [kind for kind, _, _ in found] == ["lines"]


def test_an_attribution_link_with_no_quoted_text_keeps_its_lines(targets):
    found = _blockquoted(targets, """\
        > — [queue.ts](https://github.com/acme/widgets/blob/PIN/src/queue.ts#L2-L3)
        """)

    assert found == [("lines", "src/queue.ts", "2-3")]


def test_a_range_written_backwards_in_any_document_is_one_line_saying_what_to_write(targets):
    # The forms' readers dropped it without a word: the row checked nothing and said nothing.
    pin = targets.widgets_pin
    report = parse_report("kb/pilots/claims.md", textwrap.dedent(f"""\
        # Claims

        Revision: `{pin}` (acme/widgets)

        | Claim | Evidence |
        | --- | --- |
        | drain empties | `src/queue.ts:11-7` |
        | push appends | [queue](https://github.com/acme/widgets/blob/{pin}/src/queue.ts#L6-L4) |
        """))

    assert [(f.line, f.message) for f in report.findings] == [
        (7, "src/queue.ts:11-7 is not a line range; write start-end with 1 <= start <= end"),
        (8, "src/queue.ts: line anchor #L6-L4 is not a line range; write #L<start>-L<end> with 1 <= start <= end")]


def _side_by_side(targets, more_rows: str = "") -> str:
    """A comparison pinning both targets in its front matter, a column for each."""
    return textwrap.dedent(f"""\
        ---
        code_revisions:
          acme/widgets: {targets.widgets_pin}
          acme/gadgets: {targets.gadgets_pin}
        ---
        # Side by side

        | Aspect | widgets | gadgets |
        | --- | --- | --- |
        | Entry | `src/queue.ts:2` | `lib/gadget.rs:1` |
        """) + more_rows


def test_a_comparison_tables_columns_bind_each_cell_to_the_repository_its_header_names(targets):
    # The gadgets column went to widgets (the document's first pin), the gadgets pin was dropped
    # for want of evidence, and the same citation under both columns was read once.
    report = parse_report("kb/pilots/columns.md", _side_by_side(targets, "| Licence | `LICENSE:1` | `LICENSE:1` |\n"))
    pins = sorted((e.path, report.source(e.source).pin) for e in report.all_evidence())

    assert pins == sorted([("src/queue.ts", targets.widgets_pin), ("lib/gadget.rs", targets.gadgets_pin),
                           ("LICENSE", targets.widgets_pin), ("LICENSE", targets.gadgets_pin)])


def test_a_comparisons_commit_row_pins_each_column_to_the_repository_its_header_names():
    # `| | acme/widgets | gadgets |` then `| Commit | <sha> | <sha> |`: one pin read of two (the
    # row's first), the second repository's citations went to the first's commit.
    report = parse_report("kb/comparisons/two.md", textwrap.dedent(f"""\
        # Two queues

        | | acme/widgets | gadgets |
        | --- | --- | --- |
        | Commit | `{SHA[:12]}` | `{OTHER[:12]}` |
        | Where | `src/queue.ts:2-3` | `lib/queue.rs:4` |
        """))

    assert sorted((s.pin, s.repository, s.id) for s in report.sources) == [
        (SHA[:12], "acme/widgets", "acme/widgets"), (OTHER[:12], None, "gadgets")]
    bound = {e.path: e.source for e in report.all_evidence() if e.kind is EvidenceKind.LINES}
    assert bound["lib/queue.rs"] == "gadgets" and bound["src/queue.ts"] in (None, "acme/widgets")


@pytest.mark.parametrize("table", [
    # one repository's column: its facts, its pin read as any labelled sha is
    f"| | acme/widgets |\n| --- | --- |\n| Commit | `{SHA[:12]}` |\n",
    # a row of commits under columns that are no repositories' names
    f"| | before | after the fix |\n| --- | --- | --- |\n| Commit | `{SHA[:12]}` | `{OTHER[:12]}` |\n",
    # one commit twice: no two states
    f"| | Before | After |\n| --- | --- | --- |\n| Commit | `{SHA[:12]}` | `{SHA[:12]}` |\n",
])
def test_a_commit_row_is_no_pin_per_column_unless_the_columns_are_repositories(table):
    from pytest_memreport.dialects.tableforms import pipe_tables, table_pins

    assert table_pins(list(pipe_tables(table.split("\n")))) == []


@pytest.mark.parametrize("table, labels", [
    (f"| | Before | After |\n| --- | --- | --- |\n| Commit | `{SHA[:12]}` | `{OTHER[:12]}` |\n", ["Before", "After"]),
    (f"| | v1.2 | main |\n| --- | --- | --- |\n| SHA | `{SHA[:12]}` | `{OTHER[:12]}` |\n", ["v1.2", "main"]),
])
def test_a_commit_row_under_states_of_one_repository_labels_its_commits(table, labels):
    # They pinned nothing (states of one repository, no repositories): now each is a commit of
    # the document's one repository, labelled by its column, as `**Before:** ...@<sha>` is
    from pytest_memreport.dialects.tableforms import pipe_tables, table_pins

    pins = table_pins(list(pipe_tables(table.split("\n"))))
    assert [(pin.sha, pin.repository, pin.name, pin.label) for pin in pins] == [
        (SHA[:12], None, None, labels[0]), (OTHER[:12], None, None, labels[1])]


@pytest.mark.parametrize("cell", ["src/queue.ts", "`src/queue.ts`"])
def test_a_table_with_a_repository_column_cites_each_rows_file_in_the_repository_it_names(targets, cell):
    # A column headed "Repository" made the whole table a list of pins: rows citing a file and
    # its lines in either repository were read nowhere (a comparison's summary table).
    report = parse_report("kb/pilots/repo-rows.md", _two_targets(targets, f"""\
        Weighing is in `lib/gadget.rs:1-3`.

        ## Both

        | Repository | File | Lines |
        | --- | --- | --- |
        | widgets | {cell} | L4-L6 |
        | gadgets | lib/gadget.rs | 5-7 |
        """))
    rows = sorted((e.line, e.path, str(e.cited_lines), report.source(e.source).pin)
                  for e in report.all_evidence() if e.line > 15)

    assert rows == [(17, "src/queue.ts", "4-6", targets.widgets_pin), (18, "lib/gadget.rs", "5-7", targets.gadgets_pin)]


@pytest.mark.parametrize(("sentence", "expected"), [
    # the project says it; the file after other words is the sentence's next thought
    ('The docs state "Widgets sort parcels before they ship", and parcels wait in `src/queue.ts:4-6`.',
     ("src/queue.ts", EvidenceRole.PROJECT)),
    ('The docs state "Widgets sort parcels before they ship" while `src/queue.ts` holds them.',
     ("src/queue.ts", EvidenceRole.PROJECT)),
    # a file right beside it is the quotation's, whoever says it
    ('The docs state "Widgets sort parcels before they ship" (`README.md`).', ("README.md", EvidenceRole.PROSE)),
    ('`README.md` says "Widgets sort parcels before they ship", and so on.', ("README.md", EvidenceRole.PROSE)),
])
def test_a_quotation_the_project_says_is_the_projects_though_its_sentence_then_names_a_file(targets, sentence,
                                                                                             expected):
    # It was tied to the file named later in its sentence, and failed "found instead in README.md".
    report = parse_report("kb/pilots/said.md", f"# Said\n\nPinned to the acme/widgets revision "
                                               f"`{targets.widgets_pin}`.\n\n{sentence}\n")
    [quote] = [e for e in report.all_evidence() if e.kind is EvidenceKind.QUOTE]

    assert (quote.path, quote.role) == expected


def test_a_table_rows_quotation_is_the_file_its_row_cites_and_a_brace_group_names_each_file(targets):
    # A quotation cell beside a citation cell was no evidence (the cells are separate
    # paragraphs to a note's reader); `src/{queue,worker}.ts` named only the file some other
    # line happened to write.
    report = parse_report("kb/pilots/rows.md", textwrap.dedent(f"""\
        # Rows

        Pinned to the acme/widgets revision `{targets.widgets_pin}`.

        | Quote | Where |
        | --- | --- |
        | "The queue hands parcels to workers" | `src/queue.ts:1` |
        | "The queue hands parcels to strangers" | `src/queue.ts:1` |
        | "Two files, no one tie" | `src/queue.ts:1`, `src/worker.ts:2` |

        Both live in `src/{{queue,worker}}.ts`.
        """))
    quotes = [(e.path, str(e.cited_lines), e.text) for e in report.all_evidence() if e.kind is EvidenceKind.QUOTE]
    named = sorted(e.path for e in report.all_evidence() if e.kind is EvidenceKind.PATH)

    assert quotes == [("src/queue.ts", "1", "The queue hands parcels to workers"),
                      ("src/queue.ts", "1", "The queue hands parcels to strangers")]
    assert named == ["src/queue.ts", "src/worker.ts"]


def test_a_column_of_code_a_row_shows_of_its_file_is_that_files_quotation(targets):
    # A cell of code under "Snippet" (or "Excerpt", "Code") beside its file was no evidence;
    # a pipe escaped inside it split the row into cells that were no table's.
    report = parse_report("kb/pilots/snippets.md", textwrap.dedent(f"""\
        # Snippets

        Pinned to the acme/widgets revision `{targets.widgets_pin}`.

        | Where | Snippet |
        | --- | --- |
        | `src/queue.ts:2` | `return a \\|\\| b + c` |
        | `src/worker.ts` | `ok` |

        | Where | Note |
        | --- | --- |
        | `src/queue.ts:2` | `not a quotation at all` |
        """))
    quotes = [(e.path, str(e.cited_lines), e.text, e.role) for e in report.all_evidence()
              if e.kind is EvidenceKind.QUOTE]

    # (a cell of fewer than three words is a name; a column no header calls code is the writer's)
    assert quotes == [("src/queue.ts", "2", "return a || b + c", EvidenceRole.LOOSE)]


def test_a_sha_column_whose_rows_share_their_sha_is_the_commit_each_file_was_read_at(targets):
    # `| File | SHA |` with the pin on every row was read as a manifest of blob ids: each
    # file's blob compared with a commit, a failure whatever the file held.
    pin, readme, version = targets.widgets_pin, targets.blobs["README.md"], targets.blobs["VERSION"]

    def read(header: str, one: str, two: str) -> list[tuple[str, str | None, str | None]]:
        report = parse_report("kb/trial/files.md", f"# Files\n\n| File | {header} |\n| --- | --- |\n"
                                                   f"| `README.md` | `{one}` |\n| `VERSION` | `{two}` |\n")
        return [(e.path, e.pin, e.role.value if e.role else None) for e in report.all_evidence()]

    assert read("SHA", pin, pin) == [("README.md", pin, None), ("VERSION", pin, None)]
    assert read("SHA", readme, version) == [("README.md", None, "manifest"), ("VERSION", None, "manifest")]
    # a column that says blob is one, though two files share their bytes
    assert read("Blob", readme, readme) == [("README.md", None, "manifest"), ("VERSION", None, "manifest")]


def test_a_repository_named_right_after_a_citation_is_its_own(targets):
    # "`README.md:1` in widgets and `README.md:1` in gadgets" was read once, for the first pin.
    report = parse_report("kb/pilots/after.md", textwrap.dedent(f"""\
        # Pilot

        **Reviewed revisions:** `widgets` `{targets.widgets_pin}`; `gadgets` `{targets.gadgets_pin}`.

        Evidence: `lib/gadget.rs:1` (gadgets), then `LICENSE:1` in widgets and `LICENSE:1` in gadgets.
        """))
    pins = sorted((e.path, report.source(e.source).pin) for e in report.all_evidence())

    assert pins == sorted([("lib/gadget.rs", targets.gadgets_pin), ("LICENSE", targets.widgets_pin),
                           ("LICENSE", targets.gadgets_pin)])


def test_a_files_name_beside_a_citation_is_no_symbol_but_a_call_is(targets):
    # `queue.md` was proposed as a symbol of the cited file: a skipped item saying it "names
    # no definition", on every note that names a file by its name alone.
    report = parse_report("kb/pilots/two.md", _two_targets(targets, """\
        Weighing (`lib/gadget.rs:1-3`) is in `weighing.md` and `scale.yaml`; `weigh` divides, `label.json()` too.
        """))

    assert sorted(e.text for e in report.all_evidence() if e.kind is EvidenceKind.SYMBOL) == ["label.json", "weigh"]


def test_a_reviews_own_citations_bind_to_the_repository_their_section_names(targets):
    # A review gives every citation no link ties to its one repository (the gadgets link's):
    # the widgets section's `src/queue.ts:4-6` was checked in gadgets, and failed file-missing.
    report = parse_report("kb/pilots/review-both.md", textwrap.dedent(f"""\
        ---
        code_revisions:
          acme/widgets: {targets.widgets_pin}
          acme/gadgets: {targets.gadgets_pin}
        ---
        # Both targets

        ## acme/widgets

        Parcels wait in `src/queue.ts:4-6`.

        ## acme/gadgets

        Weighing is in [lib/gadget.rs](https://github.com/acme/gadgets/blob/{targets.gadgets_pin}/lib/gadget.rs#L1-L3),
        and labels in `lib/gadget.rs:5-7`.
        """))
    assert report.dialect == "review"
    pins = {(e.path, str(e.cited_lines)): report.source(e.source).pin for e in report.all_evidence()
            if e.kind is EvidenceKind.LINES}

    assert pins == {("src/queue.ts", "4-6"): targets.widgets_pin, ("lib/gadget.rs", "1-3"): targets.gadgets_pin,
                    ("lib/gadget.rs", "5-7"): targets.gadgets_pin}


def test_a_blame_link_cites_its_lines_at_its_commit_in_any_document(targets):
    report = parse_report("kb/pilots/blame.md", textwrap.dedent(f"""\
        # Who wrote the queue

        See [the blame](https://github.com/acme/widgets/blame/{targets.widgets_pin}/src/queue.ts#L4-L6).
        """))

    assert [(e.kind.value, e.path, str(e.cited_lines), e.pin) for e in report.all_evidence()] == [
        ("lines", "src/queue.ts", "4-6", targets.widgets_pin)]


def test_a_document_with_no_records_reads_every_tie_of_a_quotation(targets):
    # A pilot of prose, links and blockquotes (the records dialect by default, with none): it
    # read only phrases beside a citation; "declares" tied nothing, and a blockquote a link
    # attributes, a phrase near a file, and a document citing no lines were not read at all.
    pin = targets.widgets_pin
    report = parse_report("kb/pilots/quoting.md", textwrap.dedent(f"""\
        # Quoting the queue

        Pinned to the acme/widgets revision `{pin}`.

        `src/queue.ts` declares "private items: string[] = [];" for the parcels.

        > drain(): string[] {{
        >   const all = this.items;
        >
        > — [src/queue.ts](https://github.com/acme/widgets/blob/{pin}/src/queue.ts#L7-L8)

        Beside `src/worker.ts` sits "return the standard label" as a heading.
        """))
    quotes = {e.line: (e.path, e.role.value if e.role else None) for e in report.all_evidence()
              if e.kind is EvidenceKind.QUOTE}

    assert quotes == {5: ("src/queue.ts", "prose"), 7: ("src/queue.ts", None), 12: ("src/worker.ts", "term")}


def test_a_manifest_written_as_a_list_claims_each_files_blob(targets):
    # "`README.md` — blob `<id>`" outside a table was nothing: the document had no evidence,
    # and its pin (with nothing bound to it) was dropped as well.
    report = parse_report("kb/pilots/listed.md", textwrap.dedent(f"""\
        # The widgets files

        Snapshot of acme/widgets at `{targets.widgets_pin}`.

        - `README.md` — blob `{targets.blobs["README.md"]}`, 3 lines
        - `VERSION`: blob {targets.blobs["VERSION"]}
        - `src/queue.ts` changed in `{targets.widgets_pin}` (a commit, not a blob)
        - docs/README.md: blob {targets.blobs["README.md"][:12]}
        """))

    assert [(e.path, e.text, e.role) for e in report.all_evidence()] == [
        ("README.md", targets.blobs["README.md"], EvidenceRole.MANIFEST),
        ("VERSION", targets.blobs["VERSION"], EvidenceRole.MANIFEST),
        ("src/queue.ts", None, EvidenceRole.MENTION),  # (a file named: its commit is no blob)
        # (a file in plain words was read as no file: the manifest's row was lost)
        ("docs/README.md", targets.blobs["README.md"][:12], EvidenceRole.MANIFEST)]
    assert [s.pin for s in report.sources] == [targets.widgets_pin]


def test_a_listing_git_writes_in_a_code_block_and_abbreviated_blob_ids_are_a_manifest(targets):
    # `git ls-tree` and `sha256sum` output in a code block was a block of code no file held (or
    # nothing); a blob id abbreviated as git abbreviates it, a mention of the file alone.
    readme, version = targets.blobs["README.md"], targets.blobs["VERSION"]
    digest = "ab" * 32
    report = parse_report("kb/manifests/listing.md", textwrap.dedent(f"""\
        # The widgets files

        Snapshot of acme/widgets at `{targets.widgets_pin}`.

        ```text
        100644 blob {readme}\tREADME.md
        100644 blob {version}    12\tVERSION
        ```

            100644 {readme} 0\tdocs/README.md

        ```
        {digest}  src/queue.ts
        ```

        - `src/worker.ts` (blob `{readme[:12]}`)
        - `src/gone.ts` (blob `1234567`)

        | File | Blob |
        | --- | --- |
        | `LICENSE` | {version[:10]} |

        ```text
        100644 blob {readme}\tREADME.md
        and a line of prose: the block is no listing
        ```
        """))
    rows = [(e.path, e.text, e.line) for e in report.all_evidence() if e.role is EvidenceRole.MANIFEST]

    # (seven digits alone may be a number; the last block quotes nothing listed)
    assert rows == [("README.md", readme, 6), ("VERSION", version, 7), ("docs/README.md", readme, 10),
                    ("src/queue.ts", digest, 13), ("src/worker.ts", readme[:12], 16), ("LICENSE", version[:10], 21)]


def test_an_ingest_of_one_file_is_pinned_by_its_source_link_and_cites_that_file(targets):
    # ``source:`` a blob link at a commit (an ingest of one file): no pin and no evidence before
    report = parse_report("kb/ingests/queue.md", textwrap.dedent(f"""\
        ---
        source: https://github.com/acme/widgets/blob/{targets.widgets_pin}/src/queue.ts
        ---
        # Ingest: the queue

        The queue is an array of items.
        """))

    assert [(e.kind.value, e.path, e.pin) for e in report.all_evidence()] == [
        ("path", "src/queue.ts", targets.widgets_pin)]
    assert [(s.pin, s.repository or s.id) for s in report.sources] == [(targets.widgets_pin, "acme/widgets")]


def test_an_html_links_address_in_quotation_marks_is_no_quotation(targets):
    # `href="https://..."` was read as a quoted phrase of the document's own words: a skipped
    # item saying no file holds it, beside the link's own citation
    report = parse_report("kb/pilots/html.md", textwrap.dedent(f"""\
        # Pushing

        Pinned to the acme/widgets revision `{targets.widgets_pin}`.

        See <a href="https://github.com/acme/widgets/blob/{targets.widgets_pin}/src/queue.ts#L4">push</a>.
        """))

    assert [(e.kind.value, e.path, str(e.cited_lines)) for e in report.all_evidence()] == [
        ("lines", "src/queue.ts", "4")]


def test_a_pin_whose_words_name_another_repository_is_not_the_linked_ones(targets):
    # The document links only gadgets, and its pin's words name widgets: the widgets commit was
    # given to gadgets, and every widgets citation failed in the gadgets clone.
    report = parse_report("kb/pilots/aside.md", textwrap.dedent(f"""\
        # Parcels, with an aside

        Pinned to the acme/widgets revision `{targets.widgets_pin}`.

        Parcels wait in `src/queue.ts:4-6`; weighing is
        [lib/gadget.rs](https://github.com/acme/gadgets/blob/{targets.gadgets_pin}/lib/gadget.rs#L1-L3).
        """))
    by_path = {e.path: e for e in report.all_evidence()}
    default = report.sources[0]

    assert (default.pin, default.mentioned[:1]) == (targets.widgets_pin, ("acme/widgets",))
    assert report.source(by_path["src/queue.ts"].source) is default
    assert (by_path["lib/gadget.rs"].source, by_path["lib/gadget.rs"].pin) == ("acme/gadgets", targets.gadgets_pin)


def test_a_manifest_claims_each_files_blob_and_its_lines_column_is_a_length(targets):
    report = parse_report("kb/pilots/manifest.md", kb.manifest(targets))
    evidence = report.all_evidence()

    manifest = {(e.path, e.text) for e in evidence if e.role is EvidenceRole.MANIFEST}
    assert manifest == {("README.md", targets.blobs["README.md"]), ("VERSION", targets.blobs["VERSION"])}
    assert not [e for e in evidence if e.kind is EvidenceKind.LINES]
    assert report.source(None).pin == targets.widgets_pin


def test_a_table_of_files_and_lines_cites_its_ranges_and_a_plain_number_under_lines_is_a_length(targets):
    report = parse_report("kb2/protocol.md", kb.protocol(targets))

    assert rows(report) == kb.PROTOCOL_EXPECTED  # README.md's "3" under "Lines" is not cited
    source = report.source(None)
    assert source.pin == targets.widgets_pin and source.repository is None
    assert "acme/widgets" in source.mentioned


def test_a_name_beside_a_citation_is_a_symbol_and_a_quotation_beside_one_is_checked(targets):
    report = parse_report("kb2/protocol.md", kb.protocol(targets))
    evidence = report.all_evidence()

    symbols = {(e.text, e.context) for e in evidence if e.kind is EvidenceKind.SYMBOL}
    assert ("classify", ("src/worker.ts",)) in symbols
    quotes = {(e.path, e.text) for e in evidence if e.kind is EvidenceKind.QUOTE and e.role is not EvidenceRole.LOOSE}
    assert quotes == {("src/queue.ts", "hands parcels to workers")}


def test_a_code_block_a_sentence_gives_to_one_file_is_a_quotation_of_it_where_the_file_holds_it(targets):
    report = parse_report("kb2/protocol.md", kb.protocol(targets))

    blocks = {(e.path, e.text) for e in report.all_evidence() if e.role is EvidenceRole.LOOSE}
    # the shell block is a command, not a file's text; both ts blocks are proposed
    assert blocks == {("src/queue.ts", "export class Queue {\n  private items: string[] = [];"),
                      ("src/worker.ts", "const waiting = new Queue();")}


def test_a_code_block_that_names_its_own_file_quotes_that_file():
    # A fence's title (```ts title="..."```, ```ts:path```), a first line that is only a comment
    # naming the file, a caption right below: each block was code no file held (the whole tree
    # searched), and the comment was read as the file's own first line.
    body = textwrap.dedent("""\
        ```ts title="src/queue.ts"
        export class Queue {
        ```

        ```ts:src/worker.ts
        const waiting = new Queue();
        ```

        ```python
        # pkg/tasks.py
        def drain(queue):
            return list(queue)
        ```

        ```ts
        private items: string[] = [];
        ```

        *Source: `src/queue.ts:2`*

        ```bash
        # scripts/run.sh
        ./run --all
        ```
        """)
    report = parse_report("kb/pilots/titled.md", f"# Titled\n\nRead at commit `{SHA}`.\n\n{body}")
    blocks = sorted((e.path, e.line, e.text) for e in report.all_evidence()
                    if e.kind is EvidenceKind.QUOTE and e.role is EvidenceRole.LOOSE)

    # (the shell block is a command: no file's text, whatever its comment says)
    assert blocks == [("pkg/tasks.py", 15, "def drain(queue):\n    return list(queue)"),
                      ("src/queue.ts", 6, "export class Queue {"),
                      ("src/queue.ts", 20, "private items: string[] = [];"),
                      ("src/worker.ts", 10, "const waiting = new Queue();")]


def test_a_plain_number_is_a_line_only_under_a_header_that_says_one_line():
    text = ("# T\n\nRevision: `%s`\n\n| Path | Line |\n| --- | --- |\n| `src/a.py` | 7 |\n\n"
            "| Path | Lines |\n| --- | --- |\n| `src/b.py` | 7 |\n| `src/c.py` | see below |\n" % SHA)
    report = parse_report("t.md", text)

    assert rows(report) == {("lines", "src/a.py", "7")}


def test_a_table_of_repositories_and_commits_pins_each_and_is_no_manifest():
    text = (f"# Two targets\n\n| Repository | SHA |\n| --- | --- |\n| acme/widgets | `{SHA}` |\n"
            f"| acme/gadgets | `{OTHER}` |\n\n## acme/widgets\n\nSee `src/a.ts:1-2`.\n\n"
            "## acme/gadgets\n\nSee `lib/b.rs:3-4`.\n")
    report = parse_report("two.md", text)

    pins = {s.repository or s.id: s.pin for s in report.sources}
    assert pins == {"acme/widgets": SHA, "acme/gadgets": OTHER}
    bound = {e.path: report.source(e.source).repository for e in report.all_evidence()}
    assert bound == {"src/a.ts": "acme/widgets", "lib/b.rs": "acme/gadgets"}
    assert not [e for e in report.all_evidence() if e.role is EvidenceRole.MANIFEST]


def test_an_ingest_is_pinned_by_its_front_matter_not_by_the_earlier_ingest_it_mentions(targets):
    report = parse_report("kb/pilots/ingest-gadgets.md", kb.ingest(targets))

    source = report.source(None)
    assert source.pin == targets.gadgets_pin and source.repository == "acme/gadgets"
    assert rows(report) == {("lines", "lib/gadget.rs", "1-3")}


def test_a_record_reports_permalinks_are_evidence_of_the_record_bound_to_its_source(targets):
    report = parse_report("kb/records/parcel-memory.md", kb.record_report(targets))

    (record,) = report.records
    linked = [e for e in record.evidence if e.pin == targets.widgets_pin]
    assert [(e.path, str(e.cited_lines), e.owner, e.source) for e in linked] == [
        ("src/queue.ts", "3", "PM-OBJ-queue", "SRC-1")]
    assert ("lines", "src/queue.ts", "7-11") in rows(report)


def test_every_dialect_forced_still_sees_the_forms(targets):
    text = kb.pilot(targets)
    for dialect in ("records", "review", "notes", "tables"):
        assert rows(parse_report("pilot.md", text, dialect)) >= kb.PILOT_EXPECTED - {("lines", "src/worker.ts", "3-5")}, dialect


# -- a folder of separate documents --------------------------------------------------------------

def _doc(name: str, sha: str, path: str) -> str:
    return f"# {name}\n\n**Repository snapshot:** `{sha}`\n\nThe part is in `{path}:1-2`.\n"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from([SHA, OTHER]), st.sampled_from(["a/x.py", "b/y.rs", "c.go"])),
                min_size=2, max_size=5))
def test_a_documents_evidence_is_the_same_alone_or_beside_others_in_its_folder(docs):
    files = [RunFile(f"kb/d{i}.md", _doc(f"d{i}", sha, path)) for i, (sha, path) in enumerate(docs)]
    together = {r.path: r for run in parse_folder("kb", files) for r in run.reports}
    for run_file in files:
        (alone,) = [r for run in parse_folder("kb", [run_file]) for r in run.reports]
        beside = together[run_file.path]
        assert beside.all_evidence() == alone.all_evidence()
        assert [(s.id, s.pin) for s in beside.sources] == [(s.id, s.pin) for s in alone.sources]


def test_files_sharing_a_register_are_still_one_run():
    packet = ("# Packet\n\n| ID | Identity |\n| --- | --- |\n| SRC-1 | `src/a.ts` |\n\n"
              f"**Revision:** `{SHA}`\n")
    lens = "# Lens\n\n| ID | Claim | Evidence |\n| --- | --- | --- |\n| OBJ-1 | a thing | `SRC-1:3-4` |\n"
    runs = parse_folder("run", [RunFile("run/packet.md", packet), RunFile("run/lens.md", lens)])

    assert len(runs) == 1
    lens_report = next(r for r in runs[0].reports if r.path == "run/lens.md")
    assert [(e.path, str(e.cited_lines)) for e in lens_report.all_evidence() if e.kind is EvidenceKind.LINES] == [
        ("src/a.ts", "3-4")]
    assert lens_report.source("SRC-1").pin == SHA


# -- as users run it -----------------------------------------------------------------------------

TEMPLATE = "clones/{owner}+{name}/repo"


def _knowledge_base(pytester, write) -> kb.Targets:
    pytester.run("git", "init", "-q", str(pytester.path))  # the knowledge base is a repository too
    targets = kb.build_targets(pytester.path / "clones")
    write(pytester.path, targets)
    return targets


@pytest.fixture
def knowledge_base(pytester):
    return _knowledge_base(pytester, kb.write_kb)


def _run(pytester, *args):
    out = pytester.path / "out.json"
    result = pytester.runpytest("--memreport", "kb", f"--memreport-repo-template={TEMPLATE}",
                                f"--memreport-json={out}", "-rA", *args)
    return result, json.loads(out.read_text(encoding="utf-8")) if out.exists() else None


def _states(data) -> dict[str, str]:
    return {Path(r["path"]).name: r["state"] for r in data["reports"]}


def _at_pin(pytester, *args: str):
    """pytest over ``args`` (the report first), clones by the template, checked at the pin only."""
    return pytester.runpytest("--memreport", *args[:1], f"--memreport-repo-template={TEMPLATE}",
                              "--memreport-against=none", *args[1:])


def _tracked(pytester, path: Path, text: str) -> None:
    """``text`` written to ``path`` and committed to the knowledge base (a write-back asks for a tracked file)."""
    path.write_text(text, encoding="utf-8")
    pytester.run("git", "-C", str(pytester.path), "add", str(path.relative_to(pytester.path)))
    pytester.run("git", "-C", str(pytester.path), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "kb")


def test_one_command_reads_every_document_and_checks_each_in_its_own_repository(pytester, knowledge_base):
    result, data = _run(pytester, "--memreport-repo=widgets=clones/acme+widgets/repo")
    out = result.stdout.str()

    assert _states(data) == {"pilot-queue.md": "stale", "compare.md": "fresh", "manifest.md": "stale",
                             "ingest-gadgets.md": "fresh", "parcel-memory.md": "fresh"}
    # the pilot's range broke where the limit changed, and says it is lines, not a quotation
    assert "lines 2-7 of src/worker.ts changed" in out and "cited lines no longer in src/worker.ts" in out
    assert 'broken by' in out and "raise the oversize limit" in out
    # the manifest's README blob is gone at HEAD; its VERSION still holds
    assert "the manifest's blob" in out
    assert "no evidence to check" not in out and "has no commits" not in out


def test_a_short_name_the_document_uses_is_asked_for_by_that_name(pytester, knowledge_base):
    result, data = _run(pytester)

    assert "give --memreport-repo widgets=PATH" in result.stdout.str()
    assert _states(data)["compare.md"] == "partial"


def test_a_repository_key_no_report_uses_is_a_usage_error_naming_the_keys_they_do(pytester, knowledge_base):
    result, _ = _run(pytester, "--memreport-repo=wigdets=clones/acme+widgets/repo")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "no loaded report names wigdets" in err and "widgets" in err and "acme/gadgets" in err


def test_a_repository_linked_in_full_is_mapped_by_the_short_name_another_document_uses(pytester, knowledge_base):
    # compare.md calls it `widgets`, the pilot and the record report acme/widgets: one key for
    # all. Before, the record report said "maps only ...; give --memreport-repo acme/widgets=PATH".
    out = pytester.path / "out.json"
    result = pytester.runpytest("--memreport", "kb", "--memreport-repo=widgets=clones/acme+widgets/repo",
                                "--memreport-repo=gadgets=clones/acme+gadgets/repo", f"--memreport-json={out}")
    data = json.loads(out.read_text(encoding="utf-8"))

    assert _states(data) == {"pilot-queue.md": "stale", "compare.md": "fresh", "manifest.md": "stale",
                             "ingest-gadgets.md": "fresh", "parcel-memory.md": "fresh"}, result.stdout.str()[-3000:]


def test_a_repository_a_document_pins_and_cites_nothing_of_is_still_a_name_it_gives(pytester, knowledge_base):
    # The gadgets pin, with no evidence of gadgets read, left the report: mapping gadgets (as a
    # user maps every repository the documents pin) was "no loaded report names gadgets", and
    # the whole run stopped.
    (pytester.path / "kb" / "one-sided.md").write_text(textwrap.dedent(f"""\
        # One side

        **Reviewed revisions:** `widgets` `{knowledge_base.widgets_pin}`; `gadgets` `{knowledge_base.gadgets_pin}`.

        | File | Lines |
        | --- | --- |
        | `src/queue.ts` | L4-L6 |
        """), encoding="utf-8")
    result = pytester.runpytest("--memreport", "kb/one-sided.md", "--memreport-repo=widgets=clones/acme+widgets/repo",
                                "--memreport-repo=gadgets=clones/acme+gadgets/repo", "--memreport-against=none")
    typo = pytester.runpytest("--memreport", "kb/one-sided.md", "--memreport-repo=widgets=clones/acme+widgets/repo",
                              "--memreport-repo=gadgest=clones/acme+gadgets/repo", "--memreport-against=none")

    result.assert_outcomes(passed=3)  # the source, the structure, the row's range
    assert typo.ret == pytest.ExitCode.USAGE_ERROR and "no loaded report names gadgest" in typo.stderr.str()


def test_a_short_name_two_repositories_share_maps_neither(pytester, knowledge_base):
    (pytester.path / "kb" / "fork.md").write_text(
        f"# A fork\n\nThe fork is [here](https://github.com/other/gadgets/tree/{knowledge_base.gadgets_pin}/lib).\n",
        encoding="utf-8")
    result = pytester.runpytest("--memreport", "kb/pilots/ingest-gadgets.md", "--memreport", "kb/fork.md",
                                "--memreport-repo=gadgets=clones/acme+gadgets/repo")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "no loaded report names gadgets" in err and "acme/gadgets" in err and "other/gadgets" in err


def test_a_pin_the_document_calls_by_a_name_asks_for_that_name_and_is_checked_with_it(pytester, knowledge_base):
    (pytester.path / "kb" / "audit.md").write_text(textwrap.dedent(f"""\
        # Audit

        The audit is pinned to the gadgets revision `{knowledge_base.gadgets_pin}`.

        Weighing divides by a thousand (`lib/gadget.rs:1-3`).
        """), encoding="utf-8")
    unmapped = pytester.runpytest("--memreport", "kb/audit.md")
    assert "give --memreport-repo gadgets=PATH" in unmapped.stdout.str()

    mapped = pytester.runpytest("--memreport", "kb/audit.md", "--memreport-repo=gadgets=clones/acme+gadgets/repo")
    assert mapped.ret == 0, mapped.stdout.str()[-2000:]
    mapped.assert_outcomes(passed=4)  # the source, the structure, the range at the pin and since


def test_a_section_naming_a_repository_only_its_links_pin_cites_it_at_their_commit(pytester, knowledge_base):
    # The document states widgets' pin; gadgets only has a blob link. The gadgets section's
    # `lib/gadget.rs:5-7` went to widgets (the one stated pin), and failed "file-missing".
    targets = knowledge_base
    (pytester.path / "kb" / "both.md").write_text(textwrap.dedent(f"""\
        # Queues, with a look at gadgets

        Pinned to the acme/widgets revision `{targets.widgets_pin}`.

        ## widgets

        Parcels wait in `src/queue.ts:4-6`.

        ## acme/gadgets

        Weighing is [here](https://github.com/acme/gadgets/blob/{targets.gadgets_pin}/lib/gadget.rs#L1-L3),
        and labels are made at `lib/gadget.rs:5-7`.
        """), encoding="utf-8")
    result = _at_pin(pytester, "kb/both.md", "-rA")
    out = result.stdout.str()

    assert result.ret == 0, out[-2000:]
    assert "lib/gadget.rs:5-7@" in out and "src/queue.ts:4-6" in out and "file-missing" not in out


def test_a_name_its_sentence_says_exists_fails_where_the_cited_file_defines_none(pytester, knowledge_base):
    # `Queu` exists (`src/queue.ts:2-12`) was proposed as a symbol and, naming no definition,
    # dropped as a word: a claim that a definition exists could not fail at the pin.
    pin = knowledge_base.widgets_pin
    (pytester.path / "kb" / "defs.md").write_text(textwrap.dedent(f"""\
        # Definitions

        Pinned to the acme/widgets revision `{pin}`.

        - `Queue` exists (`src/queue.ts:2-12`).
        - `Queu` exists (`src/queue.ts:2-12`).
        - `pending` counts what waits (`src/queue.ts:3`).
        - `Parcels` is defined in the readme (`README.md:1`).
        """), encoding="utf-8")
    result = _at_pin(pytester, "kb/defs.md")
    out = result.stdout.str()

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "no definition named Queu in src/queue.ts (nearest: Queue)" in out
    # two checks: a name merely in backticks, and one in a file of no definitions, stay words
    assert "kb/defs.md: 1 of 2 checks failed" in out and "Parcels" not in out


def test_files_and_folders_named_in_backticks_are_checked_in_a_document_of_no_dialects_shape(pytester, knowledge_base):
    # A claims table citing `src/queue.ts` and `src/` checked nothing but its ranges: a file
    # named in backticks, evidence in a run or a review, was no evidence in any other document.
    pin = knowledge_base.widgets_pin
    (pytester.path / "kb" / "claims.md").write_text(textwrap.dedent(f"""\
        # Claims

        Revision: `{pin}` (acme/widgets)

        | Claim | Evidence |
        | --- | --- |
        | the queue is its own module | `src/queue.ts` |
        | workers live beside it | `src/` |
        | we keep notes | `kb/notes/queue-notes.md` |
        | and names that are no files | `os.path.join`, `typing.Protocol`, `someone@example.com` |

        ```
        `src/made-up.ts` is shown, not named
        ```
        """), encoding="utf-8")
    out = pytester.path / "claims.json"
    result = pytester.runpytest("--memreport", "kb/claims.md", f"--memreport-repo-template={TEMPLATE}",
                                "--memreport-repo=acme/widgets=clones/acme+widgets/repo",
                                f"--memreport-json={out}", "--memreport-against=HEAD")
    data = json.loads(out.read_text(encoding="utf-8"))
    [report] = data["reports"]
    assert result.ret == 0, result.stdout.str()[-2000:]
    statuses = {(e["kind"], e["path"]): e["at_pin"]["status"] for e in report["evidence"]}

    # the knowledge base's own file is a word, not a failure; the fenced name is not read, nor
    # a dotted name or an address (each was a "not evidence" skip); the block, given no file
    # and held by no file of the tree, is the document's own
    assert statuses == {("path", "src/queue.ts"): "found", ("directory", "src"): "found",
                        ("path", "kb/notes/queue-notes.md"): "not-evidence", ("quote", ""): "not-evidence"}


def test_a_commit_another_document_names_the_repository_of_is_checked_there(pytester, knowledge_base):
    # files.md says only which commit each file was read at; summary.md says that commit is
    # acme/widgets'. files.md was looked for in the knowledge base's own repository and left
    # unchecked: a commit is one repository's, whichever document writes it.
    pin = knowledge_base.widgets_pin
    trial = pytester.path / "kb" / "trial"
    trial.mkdir()
    (trial / "summary.md").write_text(f"# Trial\n\nRepository revision at freeze: `{pin}` (acme/widgets).\n\n"
                                      "The queue opens at `src/queue.ts:2`.\n", encoding="utf-8")
    (trial / "files.md").write_text(f"# Files read\n\n| File | Git revision |\n| --- | --- |\n"
                                    f"| `src/queue.ts` | `{pin}` |\n| `src/worker.ts` | `{pin}` |\n", encoding="utf-8")
    result = _at_pin(pytester, "kb/trial", "-rA")
    out = result.stdout.str()

    assert result.ret == 0, out[-2000:]
    assert "path@L5:src/queue.ts" in out and "path@L6:src/worker.ts" in out and "unchecked" not in out


def test_a_repin_writes_nothing_for_a_quotation_attributed_to_the_project(pytester, knowledge_base):
    # "The docs state ..." is found in README.md, a file the note names nowhere: the re-pin
    # said "wrote kb/docs.md:5: src/queue.ts -> README.md" and wrote nothing there.
    note = pytester.path / "kb" / "docs.md"
    before = textwrap.dedent(f"""\
        # What the docs say

        Pinned to the acme/widgets revision `{knowledge_base.widgets_pin}`.

        The docs state "Widgets sort parcels before they ship", and parcels wait in `src/queue.ts:4-6`.
        """)
    _tracked(pytester, note, before)
    head = knowledge_base.widgets.repo.head.commit.hexsha
    result = pytester.runpytest("--memreport", "kb/docs.md", f"--memreport-repo-template={TEMPLATE}",
                                "--memreport-repin", "HEAD", "--memreport-write")
    out = result.stdout.str()

    assert result.ret == 0, out[-2000:]
    assert f"wrote kb/docs.md: SRC-1 pin {knowledge_base.widgets_pin[:12]} -> {head[:12]}" in out
    assert "kb/docs.md:5" not in out
    assert note.read_text(encoding="utf-8") == before.replace(knowledge_base.widgets_pin, head)


def test_a_repin_to_head_moves_the_pin_of_each_repository_a_document_pins(pytester, knowledge_base):
    # Only the first repository's pin moved (HEAD was resolved in its clone alone); the
    # gadgets pin stayed, silently, though everything held at gadgets' HEAD too.
    targets = knowledge_base
    both = pytester.path / "kb" / "both-heads.md"
    before = _side_by_side(targets)
    _tracked(pytester, both, before)
    heads = {pin: repo.repo.head.commit.hexsha for pin, repo in ((targets.widgets_pin, targets.widgets),
                                                                  (targets.gadgets_pin, targets.gadgets))}
    by_sha = pytester.runpytest("--memreport", "kb/both-heads.md", f"--memreport-repo-template={TEMPLATE}",
                                "--memreport-repin", heads[targets.widgets_pin], "--memreport-diff")
    assert "acme/gadgets pin" not in by_sha.stdout.str()  # a widgets commit names nothing in gadgets

    result = pytester.runpytest("--memreport", "kb/both-heads.md", f"--memreport-repo-template={TEMPLATE}",
                                "--memreport-repin", "HEAD", "--memreport-write")

    assert result.ret == 0, result.stdout.str()[-2000:]
    after = before
    for old, new in heads.items():
        after = after.replace(old, new)
    assert both.read_text(encoding="utf-8") == after
    result.stdout.fnmatch_lines([f"wrote kb/both-heads.md: acme/gadgets pin {targets.gadgets_pin[:12]} -> "
                                 f"{heads[targets.gadgets_pin][:12]}"])


def test_a_repin_is_refused_while_a_citation_is_written_so_that_it_checks_nothing(pytester, knowledge_base):
    # `src/queue.ts:11-7` checks nothing; the re-pin said everything held and moved the pin.
    (pytester.path / "kb" / "backwards.md").write_text(textwrap.dedent(f"""\
        # Claims

        Pinned to the acme/widgets revision `{knowledge_base.widgets_pin}`.

        Parcels wait in `src/queue.ts:4-6`, and drain at `src/queue.ts:11-7`.
        """), encoding="utf-8")
    result = pytester.runpytest("--memreport", "kb/backwards.md", f"--memreport-repo-template={TEMPLATE}",
                                "--memreport-repin", "HEAD", "--memreport-diff")

    result.stdout.fnmatch_lines(["kb/backwards.md: re-pin to HEAD refused; these do not hold there:",
                                 "  kb/backwards.md:5: src/queue.ts:11-7 is not a line range; *"])
    assert "would write" not in result.stdout.str()


def test_two_pins_whose_words_name_two_repositories_are_two_sources(pytester, knowledge_base):
    # "acme/widgets at `<w>` with acme/gadgets at `<g>`": the second pin was dropped, and the
    # gadgets section's citations were looked for in widgets (file-missing).
    (pytester.path / "kb" / "compared.md").write_text(textwrap.dedent(f"""\
        # Retrospective

        We compared acme/widgets at `{knowledge_base.widgets_pin}` with acme/gadgets at `{knowledge_base.gadgets_pin}`.

        ## What widgets does

        Parcels wait in `src/queue.ts:4-6`.

        ## What gadgets does

        Weighing divides by a thousand (`lib/gadget.rs:1-3`).
        """), encoding="utf-8")
    result = _at_pin(pytester, "kb/compared.md", "-rA")

    assert result.ret == 0, result.stdout.str()[-2000:]
    result.stdout.fnmatch_lines(["PASSED kb/compared.md::source:SRC-1", "PASSED kb/compared.md::source:SRC-2",
                                 "PASSED kb/compared.md::lines@L7:src/queue.ts:4-6",
                                 "PASSED kb/compared.md::lines@L11:lib/gadget.rs:1-3"], consecutive=False)


def test_a_list_of_targets_and_their_commits_pins_each_and_each_sentence_binds_its_own(pytester, knowledge_base):
    # "- **gadgets**: `<sha>`" was no pin; and on a line of two sentences, each naming one of
    # the targets, both citations went to the first (gadgets' file-missing in widgets).
    (pytester.path / "kb" / "listed.md").write_text(textwrap.dedent(f"""\
        # Two targets

        - **widgets**: `{knowledge_base.widgets_pin}`
        - **gadgets**: `{knowledge_base.gadgets_pin}`

        In widgets, `src/queue.ts:2` opens the class. In gadgets, `lib/gadget.rs:1` weighs.
        """), encoding="utf-8")
    result = pytester.runpytest("--memreport", "kb/listed.md", "--memreport-repo=widgets=clones/acme+widgets/repo",
                                "--memreport-repo=gadgets=clones/acme+gadgets/repo", "--memreport-against=none", "-rA")

    assert result.ret == 0, result.stdout.str()[-2000:]
    result.stdout.fnmatch_lines(["PASSED kb/listed.md::lines@L6:lib/gadget.rs:1",
                                 "PASSED kb/listed.md::lines@L6:src/queue.ts:2"], consecutive=False)


def test_a_link_to_a_branch_of_a_repository_nothing_pins_is_a_reference_not_a_missing_clone(pytester,
                                                                                                knowledge_base):
    # A link to another project's docs at `main` made the document "partial: no local clone for
    # acme/specs": there is no commit to check it at, and nothing to ask the user for.
    def run(extra: str):
        (pytester.path / "kb" / "aside.md").write_text(textwrap.dedent(f"""\
            # Queue notes

            Pinned to the acme/widgets revision `{knowledge_base.widgets_pin}`.

            Parcels wait in `src/queue.ts:4-6`, as [the spec](https://github.com/acme/specs/blob/main/queue.md) asks.
            """) + extra, encoding="utf-8")
        return _at_pin(pytester, "kb/aside.md", "-rA")

    branch = run("")
    assert branch.ret == 0 and "no local clone" not in branch.stdout.str(), branch.stdout.str()[-2000:]
    assert "PASSED kb/aside.md::lines@L5:src/queue.ts:4-6" in branch.stdout.str()
    # a link at a commit of it is evidence: its clone is asked for
    pinned = run(f"The spec's [pinned copy](https://github.com/acme/specs/blob/{'e' * 40}/queue.md) differs.\n")
    assert "no local clone for acme/specs" in pinned.stdout.str()


def test_a_commit_link_whose_text_calls_it_a_commit_states_no_pin_by_that_word():
    # A proposal citing "[this commit]" (inline, or through its reference definition
    # "[this commit]: .../commit/<sha>") read the link's own word "commit" as a pin word: the
    # document was pinned to that commit, its example code became evidence there, and it asked
    # for a clone of the repository it had cited in passing.
    link = f"https://github.com/acme/scales/commit/{SHA}"
    assert pinforms.line_pins(f"[this commit]: {link}", 9) == []
    assert pinforms.line_pins(f"[the commits]: <{link}>", 9) == []
    assert pinforms.line_pins(f"In particular, [this commit]({link}) shows another way.", 4) == []
    # what the sentence says of the link still states it, as does a pin word in its text
    assert [(p.sha, p.repository) for p in pinforms.line_pins(f"**Reviewed commit:** [this commit]({link})", 4)] == [
        (SHA, "acme/scales")]
    assert [p.sha for p in pinforms.line_pins(f"Read at [this commit]({link}).", 4)] == [SHA]
    assert [p.sha for p in pinforms.line_pins(f"See the [pinned commit]({link}).", 4)] == [SHA]
    assert [p.sha for p in pinforms.line_pins(f"[Reviewed commit]({link})", 4)] == [SHA]


def test_a_proposal_citing_a_commit_by_reference_reads_its_examples_as_its_own(pytester):
    # The same proposal as users run it: no pin, so its code blocks are its own examples and
    # the document has no evidence to check (it asked for a clone of acme/scales before).
    (pytester.path / "proposal.md").write_text(textwrap.dedent(f"""\
        # Lazy weights

        The scales could read their weights on first use:

        ```rust
        fn weights() -> &'static Weights {{
            WEIGHTS.get_or_init(|| Weights::read("weights.toml"))
        }}
        ```

        In particular, [this commit] shows another way.

        [this commit]: https://github.com/acme/scales/commit/{SHA}
        """), encoding="utf-8")
    result = pytester.runpytest("-p", "no:cacheprovider", "--memreport", "proposal.md")
    assert "no evidence to check" in result.stdout.str(), result.stdout.str()[-2000:]
    assert "git repository" not in result.stdout.str() and "clone" not in result.stdout.str()


def test_a_guide_linking_only_a_branch_of_its_project_and_a_commit_in_passing_has_no_evidence(pytester,
                                                                                             knowledge_base):
    # A contributing guide whose one repository is linked at `main` (no commit anywhere) failed
    # "no local clone for acme/widgets", and with a clone "no pinned commit": it cites no
    # commit. A commit linked in passing ("[the fix](.../commit/<sha>)") pinned its backticked
    # names to that commit, and failed on the missing clone (acme/scales has none here).
    base = "https://github.com/acme/widgets"
    (pytester.path / "kb" / "guide.md").write_text(textwrap.dedent(f"""\
        # Writing pages

        Keep each page short; [the queue page]({base}/blob/main/src/queue.ts) shows the layout.
        Words such as "parcel" stay in English, as [the glossary]({base}/blob/main/docs/glossary.md) says.
        """), encoding="utf-8")
    (pytester.path / "kb" / "aside.md").write_text(textwrap.dedent(f"""\
        # Weighing

        The scales read `weights.toml` at start; [the fix](https://github.com/acme/scales/commit/{"c" * 40}) made
        that lazy.
        """), encoding="utf-8")
    for name in ("guide.md", "aside.md"):
        result = _at_pin(pytester, f"kb/{name}")
        assert result.ret != 0 and "no evidence to check" in result.stdout.str(), result.stdout.str()[-2000:]
        assert "no local clone" not in result.stdout.str() and "no pinned commit" not in result.stdout.str()
    # the same guide stating the commit it was written against checks its links there
    (pytester.path / "kb" / "guide.md").write_text(
        (pytester.path / "kb" / "guide.md").read_text(encoding="utf-8")
        + f"\nWritten against acme/widgets commit `{knowledge_base.widgets_pin}`.\n", encoding="utf-8")
    pinned = _at_pin(pytester, "kb/guide.md", "-rA")
    assert "PASSED kb/guide.md::path@L3:src/queue.ts" in pinned.stdout.str(), pinned.stdout.str()[-2000:]


def test_a_finding_whose_links_all_name_one_commit_reads_its_names_and_phrases_there(pytester, knowledge_base):
    # An audit finding of the shape contest reports take: links at one commit, a name in
    # backticks on a link's line, a phrase in quotation marks, and code quoted with its import
    # path. The name and the phrase had no commit ("partly unchecked: 1 source(s) with no pin",
    # "at a commit the clone lacks"); "Line 6" under the import was read as line 6 of the
    # imported file, which the target does not hold (stale, file-missing).
    blob = f"https://github.com/acme/widgets/blob/{knowledge_base.widgets_pin}/src"
    (pytester.path / "kb" / "finding.md").write_text(textwrap.dedent(f"""\
        # [M-01] Draining loses nothing

        In [`drain`]({blob}/queue.ts#L7) the items are swapped out before they are returned:
        {blob}/queue.ts#L8-L9

        As the file's first line says, the queue "hands parcels to workers".

        - Line 1 `import {{ Queue }} from "./lib/parcels/queue.ts";`
        - Line 6 `this.items.push(item);`
        """), encoding="utf-8")
    result = _at_pin(pytester, "kb/finding.md", "-rA")

    out = result.stdout.str()
    assert result.ret == 0, out[-3000:]
    assert "fresh      kb/finding.md" in out and "partly unchecked" not in out
    assert "lib/parcels/queue.ts" not in out.split("short test summary")[-1]
    # linking another project too, the document lists no source of its own: the same holds,
    # and only the other project's missing clone is said
    finding = pytester.path / "kb" / "finding.md"
    finding.write_text(finding.read_text(encoding="utf-8") + "\nCompare [the scales' own loop]"
                       f"(https://github.com/acme/scales/blob/{'c' * 40}/src/loop.rs#L3).\n", encoding="utf-8")
    both = _at_pin(pytester, "kb/finding.md").stdout.str()
    assert "partly unchecked: 1 source(s) with no clone" in both, both[-3000:]
    assert "no pin" not in both and "a commit the clone lacks" not in both


def test_a_code_block_under_a_cited_range_or_numbered_under_a_file_header_quotes_that_file(pytester, knowledge_base):
    # Audit findings show their evidence as a link to lines and the code right under it, or
    # as a block an audit tool wrote: `File: <path>` (often with the checkout's folder before
    # it) over numbered lines, several runs of them. None of it was read (4 quotations of 316
    # contest findings); a block naming a file the pin lacks is the report's own code.
    blob = f"https://github.com/acme/widgets/blob/{knowledge_base.widgets_pin}/src/queue.ts"
    fence = "```"
    (pytester.path / "kb" / "gas.md").write_text(textwrap.dedent(f"""\
        # [G-01] Draining copies nothing

        {blob}#L7-L9
        {fence}ts
          drain(): string[] {{
            const all = this.items;
        {fence}

        {fence}ts
        File: widgets/src/queue.ts

        4:   push(item: string) {{
        5:     this.items.push(item);

        8:     const all = this.items;
        {fence}

        {fence}ts
        File: src/scales.ts
        1: weigh(parcel);
        {fence}
        """), encoding="utf-8")
    out = pytester.path / "gas.json"
    result = _at_pin(pytester, "kb/gas.md", f"--memreport-json={out}")

    assert result.ret == 0, result.stdout.str()[-3000:]
    quotes = {(e["line"], e["path"], e["at_pin"]["status"]) for r in json.loads(out.read_text())["reports"]
              for e in r["evidence"] if e["kind"] == "quote"}
    assert quotes == {(5, "src/queue.ts", "found"), (12, "src/queue.ts", "found"), (15, "src/queue.ts", "found"),
                      (20, "src/scales.ts", "not-evidence")}, quotes


def test_a_finding_of_two_projects_reads_its_marked_blocks_in_the_project_whose_link_cites_the_file(pytester,
                                                                                                   knowledge_base):
    # A finding linking its target and another project at their commits (so it lists no
    # source): a block under `File: queue.ts` named no repository ("at a commit the clone
    # lacks"), a block whose lines the writer marked (`// @audit ...`) was its own code, and a
    # link to a fork's file at `main` asked for a pin.
    blob = f"https://github.com/acme/widgets/blob/{knowledge_base.widgets_pin}/src/queue.ts"
    fence = "```"
    (pytester.path / "kb" / "two.md").write_text(textwrap.dedent(f"""\
        # [G-02] Pushing

        The push is in {blob}#L4-L5 and the scales weigh in
        [their loop](https://github.com/acme/scales/blob/{"c" * 40}/src/loop.rs#L3); a fork tries
        [another test](https://github.com/someone/widgets/blob/main/test/push.ts).

        {fence}ts
        File: queue.ts
        4:   push(item: string) {{
        5:     this.items.push(item);
        {fence}

        {blob}#L4-L5
        {fence}ts
          push(item: string) {{ // @audit unbounded
            this.items.push(item);
        {fence}
        """), encoding="utf-8")
    out = pytester.path / "two.json"
    result = _at_pin(pytester, "kb/two.md", f"--memreport-json={out}")

    text = result.stdout.str()
    assert "partly unchecked: 1 source(s) with no clone" in text, text[-3000:]
    assert "no pin" not in text and "a commit the clone lacks" not in text
    quotes = {(e["line"], e["at_pin"]["status"]) for r in json.loads(out.read_text())["reports"]
              for e in r["evidence"] if e["kind"] == "quote"}
    assert quotes == {(9, "found"), (15, "found")}, quotes


def test_a_finding_citing_lines_at_a_branch_only_is_told_so_and_checked_where_the_pin_option_says(pytester,
                                                                                                  knowledge_base):
    # Findings that link `/blob/main/...#L7-L9` and name no commit anywhere failed "no local
    # clone" (a code block under the link carried `main` as if it were a commit), and a clone
    # could not help: no commit is named. Each such report is skipped saying so, and
    # --memreport-pin checks it at a revision.
    blob = "https://github.com/acme/widgets/blob/main/src/queue.ts"
    fence = "```"
    (pytester.path / "kb" / "branch.md").write_text(textwrap.dedent(f"""\
        # [L-02] Draining

        {blob}#L7-L9
        {fence}ts
          drain(): string[] {{
        {fence}
        """), encoding="utf-8")
    told = pytester.runpytest("--memreport", "kb/branch.md", "--memreport-against=none", "-rs")
    out = told.stdout.str()
    assert "failed" not in out.splitlines()[-1], out[-2000:]
    assert ("acme/widgets is cited only by links to a branch (main), at no commit: give --memreport-pin "
            "acme/widgets=REV") in out
    pinned = _at_pin(pytester, "kb/branch.md", f"--memreport-pin=acme/widgets={knowledge_base.widgets_pin}", "-rA")
    assert pinned.ret == 0, pinned.stdout.str()[-2000:]
    pinned.stdout.fnmatch_lines(["PASSED kb/branch.md::lines@L3:src/queue.ts:7-9", "PASSED kb/branch.md::quote@L5*"],
                                consecutive=False)


def test_an_unpinned_document_of_a_trial_folder_is_told_the_pin_its_neighbour_states(pytester, knowledge_base):
    # The pin of README.md is not steps.md's (a pin applies to its own document), but the
    # message left the writer to guess what to state: now it names the neighbour's.
    trial = pytester.path / "kb" / "trial-4"
    trial.mkdir()
    (trial / "README.md").write_text(f"# Trial 4\n\nPinned to the acme/widgets revision "
                                     f"`{knowledge_base.widgets_pin}`.\n\nWe began at `src/queue.ts:2`.\n",
                                     encoding="utf-8")
    (trial / "steps.md").write_text("# Steps\n\n1. Opened `src/queue.ts:4`.\n", encoding="utf-8")
    result = _at_pin(pytester, "kb/trial-4")

    result.stdout.fnmatch_lines([f"unchecked  kb/trial-4/steps.md * no pinned commit for SRC-1; *"
                                 f"(kb/trial-4/README.md beside it pins acme/widgets at "
                                 f"{knowledge_base.widgets_pin[:12]}; a pin applies to its own document*"])
    # a folder whose documents pin several commits says nothing of this one
    (trial / "other.md").write_text(f"# Other\n\nPinned to the acme/gadgets revision "
                                    f"`{knowledge_base.gadgets_pin}`.\n\nSee `lib/gadget.rs:1`.\n", encoding="utf-8")
    mixed = _at_pin(pytester, "kb/trial-4")
    assert "beside it pins" not in mixed.stdout.str()


def test_an_unpinned_document_outside_any_clone_is_told_its_pin_is_missing_not_its_clone(pytester):
    # A trial folder outside any git repository: its results, stating no commit and naming no
    # repository, said "the folder is not inside a git repository: give the path of a clone"
    # although the run mapped the plan's repository; the missing pin is what to state.
    targets = kb.build_targets(pytester.path / "clones")
    trial = pytester.path / "trial"
    trial.mkdir()
    (trial / "plan.md").write_text(f"# Plan\n\n**Target:** acme/widgets @ `{targets.widgets_pin[:12]}`\n\n"
                                   "1. Read `src/queue.ts:2`.\n", encoding="utf-8")
    (trial / "results.md").write_text("# Results\n\nThe queue is built in `src/queue.ts:2-3`.\n", encoding="utf-8")
    result = pytester.runpytest("--memreport", "trial", f"--memreport-repo=acme/widgets={targets.widgets.path}",
                                "--memreport-against=none", "-rs")

    out = result.stdout.str()
    assert "not inside a git repository" not in out
    result.stdout.fnmatch_lines([f"unchecked  trial/results.md * no pinned commit for SRC-1; state it in the report "
                                 f"(e.g. a line `Pinned to <owner/name> at <sha>`)*trial/plan.md beside it pins "
                                 f"acme/widgets at {targets.widgets_pin[:12]}*"])


def test_a_manifest_row_naming_the_pinned_commit_says_so(pytester, knowledge_base):
    # One row under `SHA` naming the pin itself: the failure said the manifest "lists another
    # version of the file", where the column names the commit, not a blob.
    pin = knowledge_base.widgets_pin
    (pytester.path / "kb" / "one-row.md").write_text(
        f"# Files\n\nRevision: `{pin}` (acme/widgets)\n\n| File | SHA |\n| --- | --- |\n| `README.md` | `{pin}` |\n",
        encoding="utf-8")
    result = _at_pin(pytester, "kb/one-row.md")

    result.stdout.fnmatch_lines([f"*{pin[:12]} is the pinned commit, not a blob of README.md: if the column names "
                                 "the commit each file was read at, head it `Commit`*"])


def test_a_manifests_sha256_column_is_each_files_content_digest_checked_at_the_pin(pytester, knowledge_base):
    # 64 hex digits in a repository whose blob ids have 40 (an ingest's checksums) were compared
    # with the blob ids: every row failed, "cited path README.md missing", whatever the file held.
    pin = knowledge_base.widgets_pin
    readme = hashlib.sha256(kb.README_MD.encode()).hexdigest()
    version = hashlib.sha256(b"2.3.9\n").hexdigest()  # (another version of the file)
    (pytester.path / "kb" / "checksums.md").write_text(textwrap.dedent(f"""\
        # Ingested files

        Revision: `{pin}` (acme/widgets)

        | Path | SHA-256 | Bytes |
        | --- | --- | --- |
        | README.md | {readme} | 44 |
        | VERSION | {version} | 6 |
        """), encoding="utf-8")
    result = _at_pin(pytester, "kb/checksums.md", "-rA")

    result.assert_outcomes(passed=3, failed=1)  # the source, the structure, README.md; VERSION fails
    result.stdout.fnmatch_lines([
        f"*VERSION as its manifest names it ({version[:12]}) missing at*",
        f"*VERSION's content has SHA-256 {hashlib.sha256(kb.VERSION.encode()).hexdigest()[:12]} at the pin, "
        f"not {version[:12]} as the manifest states*"])
    assert "cited path" not in result.stdout.str()


def test_an_ingests_unattributed_quotations_are_the_ingested_files(pytester, knowledge_base):
    # An ingest (front matter `source:` a blob link) quotes its file in blockquotes and in
    # sentences that name no file: the blockquote was no evidence, "the docs state" was looked
    # for anywhere, and a phrase attributed to nothing was the writer's term.
    pin = knowledge_base.widgets_pin
    (pytester.path / "kb" / "ingest-queue.md").write_text(textwrap.dedent(f"""\
        ---
        source: https://github.com/acme/widgets/blob/{pin}/src/queue.ts
        ---
        # Ingest: the queue

        > The queue hands parcels to workers in arrival order.

        > The queue hands parcels to workers at random.

        The docs state "export class Queue" up front. We call it "the parcel line".
        """), encoding="utf-8")
    out = pytester.path / "ingest.json"
    result = pytester.runpytest("--memreport", "kb/ingest-queue.md", f"--memreport-repo-template={TEMPLATE}",
                                "--memreport-against=none", f"--memreport-json={out}")
    evidence = json.loads(out.read_text(encoding="utf-8"))["reports"][0]["evidence"]
    quotes = {e["text"]: (e["path"], e["at_pin"]["status"]) for e in evidence if e["kind"] == "quote"}

    assert quotes == {"The queue hands parcels to workers in arrival order.": ("src/queue.ts", "found"),
                      "The queue hands parcels to workers at random.": ("src/queue.ts", "missing"),
                      "export class Queue": ("src/queue.ts", "found"),
                      "the parcel line": ("src/queue.ts", "not-evidence")}, result.stdout.str()[-2000:]


def test_a_document_whose_every_named_path_is_its_own_is_unchecked_not_green(pytester, knowledge_base):
    # Pinned, naming only the knowledge base's files and a folder of its own (`drafts/`, which
    # a suffix search found deep in the target): "1 checks hold", or no line and a green run.
    (pytester.path / "kb" / "index.md").write_text(textwrap.dedent(f"""\
        # Index

        Pinned to the acme/widgets revision `{knowledge_base.widgets_pin}`.

        See `notes/queue-notes.md` and `drafts/`.
        """), encoding="utf-8")
    (pytester.path / "clones" / "acme+widgets" / "repo" / "src" / "drafts").mkdir()  # (untracked: not in the tree)
    result = _at_pin(pytester, "kb/index.md")

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["unchecked  kb/index.md  no evidence to check: the 2 path(s) or code block(s) it names are not in "
                                 "the pinned tree"])
    # beside a document that checks something, it still fails the run, unless allowed
    (pytester.path / "kb" / "fine.md").write_text(f"# Fine\n\nPinned to the acme/widgets revision "
                                                  f"`{knowledge_base.widgets_pin}`.\n\nSee `src/queue.ts:4-6`.\n",
                                                  encoding="utf-8")
    both = ["--memreport", "kb/index.md", "--memreport", "kb/fine.md", f"--memreport-repo-template={TEMPLATE}",
            "--memreport-against=none"]
    assert pytester.runpytest(*both).ret == pytest.ExitCode.TESTS_FAILED
    assert pytester.runpytest(*both, "--memreport-allow-unchecked").ret == pytest.ExitCode.OK


def test_a_folder_named_alone_is_the_targets_only_at_its_top(pytester):
    # `drafts/` in a note's prose was read as `lib/jose/drafts`, the one folder of the target
    # ending so, and "held": a bare folder name is the target's only where the tree has it.
    from repo_builder import RepoBuilder

    repo = RepoBuilder(pytester.path / "clone")
    pin = repo.commit({"lib/jose/drafts/one.py": "x = 1\n", "docs/guide.md": "Guide.\n"}, "tree")
    (pytester.path / "note.md").write_text(f"# Note\n\nRevision: `{pin}`\n\nSee `drafts/` and `docs/`.\n",
                                           encoding="utf-8")
    out = pytester.path / "out.json"
    pytester.runpytest("--memreport", "note.md", f"--memreport-repo={repo.path}", "--memreport-against=none",
                       f"--memreport-json={out}")
    statuses = {e["path"]: e["at_pin"]["status"] for e in json.loads(out.read_text())["reports"][0]["evidence"]}

    assert statuses == {"drafts": "not-evidence", "docs": "found"}


def test_a_path_in_the_analysts_home_is_read_as_a_checkouts(pytester, knowledge_base):
    # `~/src/widgets/src/queue.ts:2` was looked up as written, and failed file-missing; a
    # path under / was mapped onto the pinned tree, one under ~ was not.
    (pytester.path / "kb" / "home.md").write_text(textwrap.dedent(f"""\
        # Home paths

        Pinned to the acme/widgets revision `{knowledge_base.widgets_pin}`.

        The class opens at `~/src/widgets/src/queue.ts:2`, and at `/home/me/src/widgets/src/queue.ts:2`.
        """), encoding="utf-8")
    result = _at_pin(pytester, "kb/home.md")

    assert result.ret == 0, result.stdout.str()[-2000:]
    result.assert_outcomes(passed=4)  # the source, the structure, the two ranges


def test_a_table_of_files_at_a_commit_is_checked_there_and_asks_for_its_repository(pytester, knowledge_base):
    pin = knowledge_base.widgets_pin
    (pytester.path / "kb" / "files.md").write_text(textwrap.dedent(f"""\
        # Files read

        | File | Git revision | Lines |
        | --- | --- | --- |
        | `src/queue.ts` | `{pin}` | 13 |
        | `src/gone.ts` | `{pin}` | 4 |
        """), encoding="utf-8")
    unmapped = pytester.runpytest("--memreport", "kb/files.md")
    assert "give --memreport-repo SRC-1=PATH" in unmapped.stdout.str()  # never "no evidence to check"

    out = pytester.path / "out.json"
    mapped = pytester.runpytest("--memreport", "kb/files.md", "--memreport-repo=SRC-1=clones/acme+widgets/repo",
                                f"--memreport-json={out}")
    statuses = {e["path"]: e["at_pin"]["status"] for r in json.loads(out.read_text())["reports"]
                for e in r["evidence"]}
    assert statuses == {"src/queue.ts": "found", "src/gone.ts": "file-missing"}, mapped.stdout.str()[-2000:]


def test_a_repository_named_in_words_near_its_pin_is_mapped_by_its_name_alone(pytester, knowledge_base):
    # "pinned to the acme/gadgets revision": `gadgets=PATH` was "no loaded report names gadgets;
    # the reports name SRC-1, kb/other.md, acme/gadgets, ..." (a path listed as a name)
    (pytester.path / "kb" / "worded.md").write_text(textwrap.dedent(f"""\
        # Worded

        Pinned to the acme/gadgets revision `{knowledge_base.gadgets_pin}`; see also `kb/other.md`.

        Weighing divides (`lib/gadget.rs:1-3`).
        """), encoding="utf-8")
    mapped = pytester.runpytest("--memreport", "kb/worded.md", "--memreport-repo=gadgets=clones/acme+gadgets/repo")
    assert mapped.ret == 0, mapped.stdout.str()[-2000:]

    typo = pytester.runpytest("--memreport", "kb/worded.md", "--memreport-repo=gadgest=clones/acme+gadgets/repo")
    assert typo.ret == pytest.ExitCode.USAGE_ERROR
    assert "kb/other.md" not in typo.stderr.str()


def test_the_default_sources_src_key_is_honoured(pytester, make_repo):
    # ``--memreport-repo SRC-1=PATH`` was silently ignored when evidence named no source.
    repo = make_repo()
    pin = repo.commit({"pkg/a.py": "alpha = 1\nbeta = 2\n"}, "pin")
    report = pytester.path / "note.md"
    report.write_text(f"# Note\n\n**Repository snapshot:** `{pin}`\n\nAlpha is set in `pkg/a.py:1`.\n",
                      encoding="utf-8")
    elsewhere = pytester.path / "elsewhere"
    elsewhere.mkdir()

    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo=SRC-1={repo.path}",
                                f"--memreport-repo={elsewhere}", "-rA")

    # the default path is no repository: only the SRC-1 key makes the evidence checkable
    assert result.ret == 0, result.stdout.str()[-2000:]
    assert result.parseoutcomes().get("passed", 0) >= 2 and "skipped" not in result.parseoutcomes()


def test_a_template_that_finds_no_clone_never_falls_back_to_the_knowledge_base(pytester, knowledge_base):
    report = pytester.path / "kb" / "other.md"
    report.write_text(f"# Other\n\nSource: https://github.com/acme/absent\nPinned at commit `{SHA}`.\n\n"
                      "See `src/x.ts:1-2`.\n", encoding="utf-8")

    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo-template={TEMPLATE}", "-rA")

    out = result.stdout.str()
    assert "no local clone for acme/absent" in out
    assert "has no commits" not in out and "fetch" not in out.split("no local clone for acme/absent")[1][:200]


def test_a_missing_pins_guidance_uses_the_documents_stated_date_never_the_files_time(pytester, make_repo):
    repo = make_repo()
    repo.commit({"a.py": "x = 1\n"}, "old")
    report = pytester.path / "note.md"
    report.write_text("---\ndate: 2999-01-01\n---\n\n# Note\n\n"
                      f"**Repository snapshot:** `{'f' * 40}`\n\nSee `a.py:1`.\n", encoding="utf-8")
    past = time.time() - 400 * 86400
    os.utime(report, (past, past))

    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "-rA")

    out = result.stdout.str()
    assert "is older than the report (dated 2999-01-01)" in out
    assert "file dated" not in out


# -- a form of one's own -------------------------------------------------------------------------

CONFTEST_FORM = '''
import re

from pytest_memreport.model import Evidence, EvidenceKind, LineRange


def pytest_memreport_read_forms(path, text):
    """``@cite(path line)``: this team's own way of citing a line."""
    found = []
    for number, line in enumerate(text.split("\\n"), start=1):
        for match in re.finditer(r"@cite\\(([\\w/.]+) (\\d+)\\)", line):
            cited = int(match.group(2))
            found.append(Evidence(EvidenceKind.LINES, match.group(1), number, number,
                                  cited_lines=LineRange(cited, cited)))
    return found
'''


def test_a_form_registered_from_a_conftest_is_read_and_checked(pytester, make_repo):
    repo = make_repo()
    pin = repo.commit({"pkg/a.py": "alpha = 1\nbeta = 2\n"}, "pin")
    pytester.makeconftest(CONFTEST_FORM)
    report = pytester.path / "note.md"
    report.write_text(f"# Note\n\n**Repository snapshot:** `{pin}`\n\n"
                      "Beta is set at @cite(pkg/a.py 2); gamma at @cite(pkg/a.py 9).\n", encoding="utf-8")

    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}",
                                "--memreport-against=none", "-rA")

    out = result.stdout.str()
    assert "PASSED note.md::lines@L5:pkg/a.py:2\n" in out
    assert "FAILED note.md::lines@L5:pkg/a.py:9" in out
    assert result.ret == pytest.ExitCode.TESTS_FAILED


# -- what a document says when it cannot be checked ------------------------------------------------

def test_a_document_citing_code_at_a_commit_the_clone_lacks_fails_unless_allowed(pytester, make_repo):
    repo = make_repo()
    repo.commit({"a.py": "x = 1\n"}, "only")
    report = pytester.path / "note.md"
    report.write_text(f"# Note\n\n**Repository snapshot:** `{'c' * 40}`\n\nSee `a.py:1`.\n", encoding="utf-8")

    failing = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "-rA")
    allowed = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "-rA",
                                 "--memreport-allow-unchecked")

    assert failing.ret == pytest.ExitCode.TESTS_FAILED
    failing.stdout.fnmatch_lines(["*note.md:3: not checked: *the report cites code at a commit and none of it was checked*"])
    assert "FAILED note.md::unchecked" in failing.stdout.str()
    assert "SKIPPED" in allowed.stdout.str() and "FAILED note.md::unchecked" not in allowed.stdout.str()


def test_an_unread_pin_is_quoted_in_the_one_line_that_says_why(pytester, make_repo):
    repo = make_repo()
    repo.commit({"a.py": "x = 1\n"}, "only")
    report = pytester.path / "note.md"
    # ("The version we read is `9a0bae8f3`" was this test's line: it is read as a pin now.)
    report.write_text("# Note\n\nThe code we looked over was `9a0bae8f3`.\n\nSee `a.py:1`.\n", encoding="utf-8")

    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "-rA")

    out = result.stdout.str()
    assert "no pinned commit for SRC-1; line 3 looks like one but is not read as a pin" in out
    assert "9a0bae8f3" in out


def _run_note(pytester, make_repo, files: dict[str, str], text):
    """A note (``text(pin)``) about a target of ``files``, run with JSON: ``(result, data)``."""
    repo = make_repo()
    pin = repo.commit(files, "pin")
    report = pytester.path / "note.md"
    out_json = pytester.path / "out.json"
    report.write_text(text(pin), encoding="utf-8")
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "-rA",
                                f"--memreport-json={out_json}")
    return result, json.loads(out_json.read_text(encoding="utf-8"))


def test_a_bare_name_many_files_share_is_ambiguous_never_stale(pytester, make_repo):
    files = {f"skills/s{i}/SKILL.md": f"skill {i}\n" for i in range(5)} | {"a.py": "x = 1\n"}
    result, data = _run_note(pytester, make_repo, files, lambda pin: (
        f"# Note\n\n**Repository snapshot:** `{pin}`\n\nEach skill has `SKILL.md:1`, and `a.py:1` sets x.\n"))

    assert result.ret == 0, result.stdout.str()[-3000:]
    assert "is ambiguous: SKILL.md names 5 files at the pin" in result.stdout.str()
    (entry,) = data["reports"]
    assert entry["state"] == "fresh"


def test_a_mention_that_is_not_evidence_says_so_in_the_json_too(pytester, make_repo):
    result, data = _run_note(pytester, make_repo, {"src/a.py": "x = 1\n"}, lambda pin: (
        f"---\ncommit: {pin}\n---\n\n# Note\n\nThe tool writes `cache/state.json` at run time; see `src/a.py:1`.\n"))

    statuses = {e["path"]: e["at_pin"]["status"] for e in data["reports"][0]["evidence"]}
    assert statuses["cache/state.json"] == "not-evidence", result.stdout.str()[-2000:]
    assert statuses["src/a.py"] == "found"


def test_repin_rewrites_the_pins_the_forms_read_and_nothing_else(pytester, knowledge_base):
    ingest = pytester.path / "kb" / "pilots" / "ingest-gadgets.md"
    before = ingest.read_text(encoding="utf-8")
    head = knowledge_base.gadgets.repo.head.commit.hexsha
    pin = knowledge_base.gadgets_pin

    result = pytester.runpytest("--memreport", str(ingest), f"--memreport-repo-template={TEMPLATE}",
                                "--memreport-repin=HEAD", "--memreport-write")

    assert result.ret == 0, result.stdout.str()[-2000:]
    after = ingest.read_text(encoding="utf-8")
    # the front matter's pin and the prose statement's short sha move; the earlier ingest's pin stays
    assert after == before.replace(pin, head).replace(pin[:10], head[:10])
    assert "e" * 40 in after


@pytest.fixture
def worded_pins(pytester):
    return _knowledge_base(pytester, kb.write_more)


def test_a_pin_binds_to_the_one_repository_its_words_name_that_the_user_maps(pytester, worded_pins):
    # Each of these was checked in the knowledge base's own clone, and failed "not a commit".
    out_json = pytester.path / "out.json"
    result = pytester.runpytest("--memreport", "kb2", f"--memreport-repo-template={TEMPLATE}",
                                f"--memreport-json={out_json}", "-rA")
    data = json.loads(out_json.read_text(encoding="utf-8"))
    out = result.stdout.str()

    states = _states(data)
    # (trial-3 names no repository, but the others name its commit's: it is checked there)
    assert states == {"protocol.md": "stale", "trial-2.md": "fresh", "files-read.md": "fresh",
                      "trial-3.md": "fresh"}, out[-3000:]
    assert "not a commit" not in out
    # the protocol's classify range broke where the limit changed at HEAD
    assert "lines 2-7 of src/worker.ts changed" in out
    checked = [e for r in data["reports"] for e in r["evidence"] if Path(r["path"]).name == "protocol.md"]
    assert {e["kind"] for e in checked} >= {"lines", "symbol", "quote"}
    # the queue's block is its file's text; the caller's example is the report's own words
    blocks = {e["path"]: e["at_pin"]["status"] for e in checked if e.get("role") == "loose"}
    assert blocks == {"src/queue.ts": "found", "src/worker.ts": "not-evidence"}


def test_a_pin_no_words_bind_and_the_knowledge_base_lacks_says_which_key_to_give(pytester, worded_pins):
    result = pytester.runpytest("--memreport", "kb2/trial-3.md", f"--memreport-repo-template={TEMPLATE}", "-rA")
    out = result.stdout.str()

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "is not in the report's own repository" in out and "give --memreport-repo SRC-1=PATH" in out
    # fetching the knowledge base is offered only for the case the pin is its own
    assert "; if it is this one: " in out and out.index("SRC-1=PATH") < out.index("if it is this one")

    mapped = pytester.runpytest("--memreport", "kb2/trial-3.md", "--memreport-repo=SRC-1=clones/acme+widgets/repo")
    assert mapped.ret == 0, mapped.stdout.str()[-2000:]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from([SHA, "`7a1b2c3`", "7a1b2c3", "`7a1b2c`", "7a1b2c", "`", "[", "]", "@", "%", "%61", " ", ":", "#L",
                                 "L", "1", "٣", "12", "-", "commit", "Commit", "pinned at ", "revision ", "HEAD ",
                                 "line ", "lines ", "(", ")", "acme/widgets", "a.py", "https://github.com/acme/widgets/",
                                 "commit/", "blob/", "x"]), max_size=10))
def test_the_lines_the_forms_skip_unread_state_no_pin_and_cite_no_lines(parts):
    """The universal forms skip, by one scan, the lines that cannot state a pin (no sha) or
    cite lines (no digit): none that the readers themselves would find one in."""
    from pytest_memreport.dialects import forms
    from pytest_memreport.dialects.core.grammar import LINE_CITATION_HINT
    from pytest_memreport.dialects.core.spans import LineStarts

    line = "".join(parts)
    if 1 not in forms._lines_that_may_hold_a_sha(line, LineStarts(line)):
        assert pinforms.line_pins(line, 1, 0) == []
        assert not pinforms.names_a_sha(line)
    if LINE_CITATION_HINT.search(line) and "://" not in line:
        assert forms._may_cite_lines(line)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from([
    "`src/a.ts`", "`a.py`", "`Makefile`", "`needs`", "`OBJ-3`", "`x()`", "`--flag`", "``", "```", "```py", "~~~",
    "`:21`", ":21", "(:3-5)", "lines 4-6", "#L9", "src/b.rs", "docs/", "`docs/`", "## ", "# ", "| ", " | ",
    "see", "it", " ", ".", ",", "`", "`os.path`", "(`c.go`)", "`a.py` `2-3`"]), max_size=7), max_size=8))
# (a lone `:21` opening a line continues the file of the line above: that line was not read
# unless a code span on it might name a file)
@example(lines=[["`src/a.ts`"], [":21", "`needs`"]])
def test_reading_only_the_lines_that_may_name_a_file_finds_what_reading_every_line_with_code_does(lines):
    """The run reader reads for backticked files only the lines whose code spans may name one
    (:func:`forms._may_name_files`): the same evidence and findings as reading every line
    with a code span, as it did."""
    from pytest_memreport.dialects import forms

    text = f"# Notes\n\nRead at commit `{SHA}`.\n\n" + "\n".join("".join(parts) for parts in lines) + "\n"
    filtered = parse_report("kb/notes.md", text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(forms, "_may_name_files", lambda line: "`" in line)
        every = parse_report("kb/notes.md", text)
    assert filtered.all_evidence() == every.all_evidence()
    assert filtered.findings == every.findings


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["acme/widgets", "acme/widgets.", "a/b/c.md", "pages/x.md:22", "src/a.ts#L4",
                                           "https://github.com/acme/widgets/blob/main/a.py", "http://x.io/a/b", " ",
                                           ".", "-", "@", "owner/name", "/", "./", "x", "`", ":", "(", ")", "\t"]),
                         max_size=8), max_size=6))
def test_the_mentions_of_a_whole_text_are_each_lines_mentions_in_order(lines):
    """The ``owner/name`` words are found by one scan of the document: the same words, in
    the same order and on the same lines, as a scan of each line with its URLs dropped."""
    import re

    from pytest_memreport.dialects.core.grammar import PIN_LINE_URL, REPOSITORY_MENTION
    from pytest_memreport.dialects.core.spans import LineStarts

    text = "\n".join("".join(parts) for parts in lines)
    starts = LineStarts(text)
    found = [(starts.line_of(offset), word) for offset, word in pinforms.mentions(text)]
    expected = [(number, match.group(1).rstrip("."))
                for number, line in enumerate(text.split("\n"), start=1)
                for match in REPOSITORY_MENTION.finditer(PIN_LINE_URL.sub(" ", line))]
    assert found == expected
    assert re.search(r"\S", text) is None or all(word for _, word in found)


def test_a_dependencys_version_at_a_commit_is_not_the_linked_repositorys_pin():
    # Read in a real audit finding: "using an `openzeppelin-contracts` version from 2 years of
    # commit: `<sha>`" pinned the contest's repository (the one its links name) at the
    # library's commit, and told the findings beside it so.
    link = "https://github.com/acme/widgets/blob/main/src/Pool.sol#L50"
    text = textwrap.dedent(f"""\
        # Low findings

        The pool reads its owner twice ([Pool.sol#L50]({link})).

        The project is using an `openzeppelin-contracts` version from two years ago, commit: `{SHA}`.
        """)
    report = parse_report("kb/finding.md", text)

    assert [p.mentioned for p in pinforms.line_pins(text.splitlines()[4], 5, 0)] == [("openzeppelin-contracts",)]
    assert not any(source.pin == SHA and "acme/widgets" in (source.id, source.repository) for source in report.sources)
    assert not any(item.pin == SHA for item in report.all_evidence())
    # the words of a pin that name the linked repository still bind it there
    same = text.replace("`openzeppelin-contracts` version from two years ago", "`widgets` revision")
    assert [s.id for s in parse_report("kb/finding.md", same).sources if s.pin == SHA] == ["acme/widgets"]


def test_a_short_sha_of_digits_or_letters_only_right_after_a_commit_word_is_a_pin():
    """One 7-character sha in 27 is all digits: written in backticks right after a commit
    word (``revision `9762880033```) it is the document's pin, and re-pin rewrites it (the
    re-pin test above failed whenever its random pin began so). Elsewhere such a word stays a
    number (``version `1234567```)."""
    assert [p.sha for p in pinforms.line_pins("It is pinned to the Acme revision `9762880033`.", 4, 0)] == [
        "9762880033"]
    assert [p.sha for p in pinforms.line_pins("Read at commit `deadbee`.", 4, 0)] == ["deadbee"]
    assert pinforms.line_pins("Bumped to version `1234567`.", 4, 0) == []
    assert pinforms.line_pins("The pin is in issue `1234567`.", 4, 0) == []


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(["/blob/", "/tree/", "/raw/", "raw.githubusercontent.com", "raw.github", "/blob",
                                 "blob/", "/", "raw", ".", "tree", "https://github.com/acme/widgets", "x", " ",
                                 "\n"]), max_size=10))
def test_a_document_is_tested_for_file_links_by_substring_as_the_link_pattern_matches(parts):
    """Whether a document holds a link into a repository's files is asked of the whole text
    by four substring tests: the same answer as the pattern of their alternatives."""
    import re

    from pytest_memreport.dialects.core.grammar import FILE_LINK_MARKS

    text = "".join(parts)
    pattern = re.compile(r"/(?:blob|tree|raw)/|raw\.githubusercontent\.com")
    assert any(mark in text for mark in FILE_LINK_MARKS) == (pattern.search(text) is not None)


_NOISE = st.lists(st.sampled_from(["ted", "tted", "TTED", "commit", " ", "\n", "x", "-", "ſ", "2024"]), max_size=4)


@settings(max_examples=400, deadline=None)
@given(_NOISE, st.sampled_from(["committed", "Committed", "COMMITTED", "CoMmItTeD", "commıtted", "commİtted",
                                "committeD", "comitted", "commit"]),
       st.sampled_from([" ", "\t", " \t ", "", "\n"]), st.sampled_from(["on", "ON", "On", "in"]),
       st.sampled_from([" ", "\t", ""]), st.sampled_from(["2024-05-01", "2024-5-1", "٢٠٢٤-٠٥-٠١", "2024-05-01x"]),
       _NOISE)
def test_the_date_a_document_states_is_the_committed_on_pattern_s_whatever_the_case(
        before, word, gap, on, space, date, after):
    """A document's "committed on <date>" is looked for only where its lowered text holds
    "tted": the pattern ignores case, and only ASCII letters are those four in another case,
    so the date found is the pattern's own in every text (a dotless i and a long s too)."""
    text = "".join(before) + f"{word}{gap}{on}{space}{date}" + "".join(after)
    found = pinforms._COMMITTED_ON.search(text)
    assert pinforms.stated_date(None, text) == (found.group(1) if found else None)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from([":", "#L", "line", "LINE", "Lines", "` L", "` (L", "1", "٣", "a.py", " ", "`",
                                 "(", "L", "https://x.io/a#L1", "x"]), max_size=8))
def test_a_line_may_cite_lines_by_its_substrings_and_a_digit_in_either_order(parts):
    """The substring tests come before the digit's search: the answer is the one both give."""
    import re

    from pytest_memreport.dialects import forms
    from pytest_memreport.dialects.core.grammar import FORM_URL, LINE_CITATION_HINT

    line = "".join(parts)
    hinted = re.search(r"\d", line) is not None and (
        ":" in line or "#L" in line or "line" in line.lower() or "` L" in line or "` (L" in line)
    expected = hinted and LINE_CITATION_HINT.search(FORM_URL.sub(" ", line) if "://" in line else line) is not None
    assert forms._may_cite_lines(line) == expected


def run_record_report(pytester, make_repo, files: dict[str, str], lines: list[str]):
    """A Markdown report of one record writing ``lines``, pinned to a target that holds
    ``files``, checked at its pin: the run's result."""
    repo = make_repo()
    sha = repo.commit(files, "target")
    report = pytester.path / "report.md"
    body = "\n\n".join(lines)
    report.write_text(f"# Report\n\nThe target is at SRC-1 commit {sha}.\n\nMEM-OBJ-one\n\nLabel: one\n\n{body}\n",
                      encoding="utf-8")
    return pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}",
                              "--memreport-against=none", "-rA")


def test_a_host_and_port_or_a_file_named_inside_a_record_quotation_fails_nothing(pytester, make_repo):
    """A record's quotation is the quoted file's words: a ``host:port`` or a ``file.py:3`` in
    it is what the file says, not a citation of the report. Read as one, the run failed
    ``file-missing`` on a name the target never had, and the report went stale."""
    result = run_record_report(pytester, make_repo, {
        "docs/setup.md": "Intro\nForward mirror.example:8080 through the gateway.\nSee helpers.py:3 for the loader.\n",
    }, ["Forward mirror.example:8080 through the gateway. --- docs/setup.md:2",
        "See helpers.py:3 for the loader. --- docs/setup.md:3",
        "The gateway is also named in docs/setup.md:2."])

    out = result.stdout.str()
    assert result.ret == 0, out[-2000:]
    assert "file-missing" not in out and "helpers.py" not in out.split("short test summary")[-1]
    # the citation in the report's own sentence is read and checked
    assert "lines@L13:docs/setup.md:2" in out


def test_a_pin_written_inside_a_record_quotation_is_the_quoted_files_not_the_reports():
    """A quoted release note that states a revision pins nothing: the report states no pin
    of its own, and no line of its own words looks like one."""
    text = ("Release report\n\nMEM-OBJ-release\n\nLabel: release\n\n"
            f"The build is pinned to the acme/gadgets revision `{OTHER}`. --- docs/release.md:4\n")

    report = parse_report("report.md", text)

    assert not [source.pin for source in report.sources if source.pin]
    assert "pin-like" not in report.meta


def test_a_markdown_report_quoting_dunder_names_and_products_finds_them(pytester, make_repo):
    """A Markdown record report quotes code as it is: read as Markdown, ``__init__`` became
    emphasis and ``width*height*depth`` lost its stars, and the quotations were never found
    (one in ten of the benchmark's unaltered typeshed quotations)."""
    result = run_record_report(pytester, make_repo, {
        "src/box.py": "class Box:\n    def __init__(self, size: int) -> None:\n        self.volume = width*height*depth\n",
    }, ["def __init__(self, size: int) -> None: --- src/box.py:2",
        "- self.volume = width*height*depth --- src/box.py:3"])

    assert result.ret == 0, result.stdout.str()[-2000:]
    result.assert_outcomes(passed=4)


def test_a_quotation_escaped_for_markdown_is_found_as_a_reader_sees_it_and_followed_by_drift(pytester, make_repo):
    r"""``\_\_init\_\_`` in a report is ``__init__`` to its reader: read only as written, the
    quotation failed (a regression of reading Markdown quotations as written). Both of a
    line's readings are tried at the pin, the written one first (code may hold ``"\\n"``), and
    drift follows the one the file held; an escaped quotation whose code changed still fails."""
    repo = make_repo()
    pin = repo.commit({"src/box.py": 'class Box:\n    def __init__(self) -> None:\n        self.sep = "\\n"\n'
                                      '        self.raw = "\\\\t"\n    def __new__(cls): ...\n'}, "target")
    repo.commit({"src/box.py": '"""Boxes."""\n\nclass Box:\n    def __init__(self) -> None:\n        self.sep = "\\n"\n'
                               '        self.raw = "\\\\t"\n    def __new__(cls, size): ...\n'}, "boxes grow")
    report = pytester.path / "report.md"
    lines = [r"def \_\_init\_\_(self) -> None: --- src/box.py:2",  # escaped: the file holds the shown text
             r'self.sep = "\\n" --- src/box.py:3',  # the file holds "\n": found as shown
             r'self.raw = "\\t" --- src/box.py:4',  # the file holds "\\t": found as written
             r"def \_\_new\_\_(cls): ... --- src/box.py:5"]  # found at the pin, changed since
    body = "\n\n".join(lines)
    report.write_text(f"# Report\n\nThe target is at SRC-1 commit {pin}.\n\nMEM-OBJ-one\n\nLabel: one\n\n{body}\n",
                      encoding="utf-8")

    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}",
                                "--memreport-against=HEAD", f"--memreport-json={pytester.path / 'out.json'}", "-rA")

    data = json.loads((pytester.path / "out.json").read_text())
    quotes = {e["line"]: e for e in data["reports"][0]["records"][0]["evidence"] if e["kind"] == "quote"}
    assert [quotes[line]["at_pin"]["status"] for line in sorted(quotes)] == ["found"] * 4, result.stdout.str()[-3000:]
    assert [quotes[line]["at_pin"].get("found_as") for line in sorted(quotes)] == ["shown", "shown", None, "shown"]
    assert [quotes[line]["at_against"]["status"] for line in sorted(quotes)] == ["shifted", "shifted", "shifted",
                                                                                  "changed"]
    result.assert_outcomes(passed=9, failed=1)


def test_a_document_naming_its_repository_that_nothing_maps_asks_for_that_repository(pytester, make_repo):
    # Read in a real design document kept in a git repository: a commit link of the
    # repository it names (here the inspected revision as `owner/name@<sha>`, or a link alone
    # on its line) and a file in backticks. Nothing mapped acme/widgets, and the knowledge
    # base's own clone lacked the commit: the message said the report does not say which
    # repository it is of, and to name it beside the pin, as it was.
    target = make_repo("widgets")
    pin = target.commit({"src/queue.ts": "export const LIMIT = 200;\n"})
    link = f"https://github.com/acme/widgets/commit/{pin}"
    pytester.makefile(".md", named=f"# Review\n\nThe inspected revision is [`acme/widgets@{pin}`]({link}).\n\n"
                                   "The queue lives in `src/queue.ts`.\n",
                      listed=f"# Review\n\n- {link}\n\nThe queue lives in `src/queue.ts`.\n")
    kb_repo = RepoBuilder(pytester.path)
    kb_repo.commit(message="the knowledge base")
    for name in ("named.md", "listed.md"):
        result = pytester.runpytest("--memreport", name, "-p", "no:cacheprovider")
        out = result.stdout.str()
        assert result.ret == pytest.ExitCode.TESTS_FAILED
        assert "no local clone for acme/widgets; give --memreport-repo acme/widgets=PATH" in out, out[-2000:]
        assert "does not say which repository" not in out
        assert result.parseoutcomes() == {"failed": 1}
        mapped = pytester.runpytest("--memreport", name, "-p", "no:cacheprovider",
                                    f"--memreport-repo=acme/widgets={target.path}")
        assert mapped.ret == 0, mapped.stdout.str()[-2000:]
    # A report kept in its target's own repository is checked there, named or not.
    inside = target.path / "docs" / "review.md"
    inside.parent.mkdir()
    inside.write_text(f"# Review\n\nThe inspected revision is [`acme/widgets@{pin}`]({link}).\n\n"
                      "The queue lives in `src/queue.ts`.\n", encoding="utf-8")
    own = pytester.runpytest("--memreport", str(inside), "-p", "no:cacheprovider")
    assert own.ret == 0 and own.parseoutcomes().get("passed"), own.stdout.str()[-2000:]
