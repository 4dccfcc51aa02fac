"""The notes dialect read on its own (docs/FORMATS.md §4): the evidence-basis pin, the
ties of quotations in prose, and a property: every quotation written next to a link
becomes exactly one quote item."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_memreport.dialects import detect_dialect, parse_report
from pytest_memreport.dialects.core.basis import read_basis
from pytest_memreport.model import EvidenceKind, EvidenceRole
from pytest_memreport.outputs import staleness
from pytest_memreport.outputs.results import CheckResult

PIN = "4f1c9e02" + "7" * 32
OLD = "77ab01c3" + "5" * 32
BLOB = f"https://github.com/acme/widgets/blob/{PIN}"


def notes(body: str, basis: str | None = None) -> str:
    basis = basis or (f"**Evidence basis:** reading of the `acme/widgets` checkout at commit "
                      f"[4f1c9e02](https://github.com/acme/widgets/commit/{PIN}) (2026-05-14).")
    return f"---\ndescription: a note\n---\n\n# A note\n\n{basis}\n\n{body}\n"


def quotes(report):
    return [e for e in report.evidence if e.kind is EvidenceKind.QUOTE]


def test_an_evidence_basis_makes_a_note_and_a_review_stays_a_review():
    assert detect_dialect(notes("Nothing quoted."), "n.md") == "notes"
    review = f"---\ntype: review\n---\n\n**Reviewed commit:** [{PIN}](https://github.com/acme/widgets/commit/{PIN})\n"
    assert detect_dialect(review, "r.md") == "review"


def test_the_pin_from_a_bare_sha_and_history_from_a_link():
    basis = textwrap.dedent(f"""\
        **Evidence basis:** the `acme/widgets` checkout at commit `{PIN[:10]}`, read on 2026-05-14.
        It was first written at [{OLD[:8]}](https://github.com/acme/widgets/commit/{OLD}) in March.""")
    report = parse_report("n.md", notes("Nothing quoted.", basis))
    [source] = report.sources
    assert (source.id, source.pin) == ("acme/widgets", PIN[:10])
    assert report.meta["originally-written-against"] == [OLD]
    assert report.meta["pin-date"] == "2026-05-14"
    assert not [e for e in report.evidence if e.kind is EvidenceKind.COMMIT]


def test_read_basis_takes_the_links_full_sha_over_its_short_text():
    text = f"Evidence basis: checkout at commit {PIN[:8]} (2026-05-14). Originally written against `{OLD[:8]}`."
    basis = read_basis(text, [(text.index(PIN[:8]), f"https://github.com/acme/widgets/commit/{PIN}")], 3)
    assert (basis.sha, basis.repo, basis.date, basis.history) == (PIN, "acme/widgets", "2026-05-14", (OLD[:8],))


def test_a_phrase_in_a_sentence_naming_two_files_is_held_by_either():
    report = parse_report("n.md", notes(
        f'Both [the loop]({BLOB}/src/loop.rs) and `src/tick.rs` say "the tick never sleeps twice".'))
    [quote] = quotes(report)  # the nearest first; the link is at the note's own pin
    assert (quote.path, quote.context, quote.role) == ("src/tick.rs", ("src/loop.rs",), EvidenceRole.PROSE)
    report = parse_report("n.md", notes(
        f'Both [the loop]({BLOB}/src/loop.rs) and [the tick]({BLOB}/src/tick.rs) say "the tick never sleeps twice".'))
    [quote] = quotes(report)
    assert (quote.path, quote.context, quote.pin) == ("src/tick.rs", ("src/loop.rs",), PIN)
    # a link at another commit is not read at the note's pin
    other = BLOB.replace(PIN, OLD)
    report = parse_report("n.md", notes(
        f'Both [the loop]({other}/src/loop.rs) and `src/tick.rs` say "the tick never sleeps twice".'))
    [quote] = quotes(report)
    assert (quote.path, quote.context, quote.pin) == ("src/tick.rs", (), None)


@pytest.mark.parametrize("sentence", [
    'The loop is declared as "fn tick(&mut self) -> Duration" (src/tick.rs:3).',
    'The file src/tick.rs says "the tick never sleeps twice".',
])
def test_a_phrase_beside_or_attributed_to_a_file_in_plain_words_quotes_it(sentence):
    # With the file in backticks the phrase quoted it; in plain words it was the note's own
    # term, never a failure where the file lacks it.
    [quote] = quotes(parse_report("n.md", notes(sentence)))
    assert (quote.path, quote.role) == ("src/tick.rs", EvidenceRole.PROSE)


def test_a_path_in_quotation_marks_is_the_quotation_not_its_file():
    [quote] = quotes(parse_report("n.md", notes('The loop imports "crate/src/tick.rs" and nothing else.')))
    assert (quote.path, quote.role) == ("", EvidenceRole.TERM)


def test_a_phrase_only_near_a_file_is_a_quotation_only_where_found():
    report = parse_report("n.md", notes(
        f'The [router]({BLOB}/src/router.rs) is the "brain of the whole system" here. '
        f'The [router]({BLOB}/src/router.rs) says it is "the only entry point".'))
    near, said = quotes(report)
    assert (near.role, near.path) == (EvidenceRole.TERM, "src/router.rs")
    assert (said.role, said.path) == (EvidenceRole.PROSE, "src/router.rs")


def test_the_project_and_terms_look_in_the_linked_files_first():
    report = parse_report("n.md", notes(
        f'The engine lives in [engine.rs]({BLOB}/src/engine.rs).\n\n'
        'The README says the engine is "safe to restart at any time". It is no "silver bullet of scheduling".'))
    project, term = quotes(report)
    assert (project.role, project.path) == (EvidenceRole.PROJECT, "src/engine.rs")
    assert (term.role, term.path) == (EvidenceRole.TERM, "src/engine.rs")


def test_a_blockquote_whose_last_line_links_its_file():
    report = parse_report("n.md", notes(
        f"> The queue is drained before shutdown,\n> and never twice.\n> — [src/queue.rs]({BLOB}/src/queue.rs#L4-L5)"))
    [quote] = quotes(report)
    assert quote.text == "The queue is drained before shutdown,\nand never twice."
    assert quote.path == "src/queue.rs" and quote.line == 9


def test_a_file_of_the_readers_own_project_is_not_evidence():
    report = parse_report("n.md", notes("Add a `docs/AGENTS.md` to your own repository; `src/engine.rs` is theirs."))
    own, theirs = sorted((e for e in report.evidence if e.kind is EvidenceKind.PATH), key=lambda e: e.path)
    assert own.declared_not_evidence and "reader's own project" in own.declared_not_evidence
    assert theirs.declared_not_evidence is None and theirs.lookup == "tree"


# --------------------------------------------------------------------------- property

_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=8)
_PHRASE = st.lists(_WORD, min_size=3, max_size=7).map(" ".join)
_PATH = st.sampled_from(["src/engine.rs", "docs/DESIGN.md", "README.md", "src/core/queue.py", "lib/a-b/c_d.ts"])
_FILLER = st.lists(_WORD, min_size=1, max_size=6).map(lambda words: " ".join(words).capitalize() + ".")


@st.composite
def _sentence(draw):
    phrase, path = draw(_PHRASE), draw(_PATH)
    curly = draw(st.booleans())
    opened, closed = ("“", "”") if curly else ('"', '"')
    lead = draw(st.lists(_WORD, min_size=0, max_size=4).map(" ".join))
    parens = draw(st.booleans())
    link = f"[{draw(st.sampled_from([path, 'here', 'the file']))}]({BLOB}/{path})"
    cited = f"({link})" if parens else link
    text = f"{lead.capitalize() or 'It'} {opened}{phrase}{closed} {cited}."
    return text, phrase, path


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(_sentence(), _FILLER), min_size=1, max_size=8), st.integers(min_value=1, max_value=3))
def test_every_quotation_next_to_a_link_is_one_quote_item(parts, per_paragraph):
    sentences = [p if isinstance(p, str) else p[0] for p in parts]
    paragraphs = ["\n".join(sentences[i:i + per_paragraph]) for i in range(0, len(sentences), per_paragraph)]
    report = parse_report("n.md", notes("\n\n".join(paragraphs)))
    wanted = sorted((p[1], p[2]) for p in parts if not isinstance(p, str))
    found = sorted((e.text, e.path) for e in quotes(report))
    assert found == wanted
    assert all(e.role is EvidenceRole.PROSE and e.pin == PIN for e in quotes(report))


# --------------------------------------------------------------------------- staleness


def _source(status: str, outcome: str, pin: str = "abc"):
    return CheckResult.of({"type": "source", "source": {"id": "acme/wick", "pin": pin, "pin_status": status}}, outcome)


def _pin(status: str, outcome: str, rev: str = "def"):
    return CheckResult.of({"type": "pin", "line": 3, "path": "a.py", "at_pin": {"status": status},
                           "target": {"rev": rev}}, outcome)


def _drift(status: str, outcome: str):
    return CheckResult.of({"type": "drift", "line": 3, "path": "a.py", "at_against": {"status": status}}, outcome)


def test_fresh_only_when_everything_cited_was_checked():
    from pytest_memreport.model import Report

    report = Report("n.md", "notes")
    held = [_pin("found", "passed"), _drift("unchanged", "passed")]
    assert staleness.build_row(report, held).state == "fresh"
    # a second repository with no clone: partly unchecked, not fresh
    row = staleness.build_row(report, [*held, _source("no-repo", "skipped")])
    assert row.state == "partial" and row.summary.endswith("partly unchecked: 1 source(s) with no clone")
    # a pin the clone lacks is never stale (its citations are said once, with it)
    row = staleness.build_row(report, [*held, _source("missing-commit", "failed"), _pin("commit-missing", "skipped",
                                                                                        rev="abc")])
    assert (row.state, row.failing, row.unread) == ("partial", (), (("pin-missing", 1),))
    # a linked commit the clone lacks, an object an incomplete clone lacks
    row = staleness.build_row(report, [*held, _pin("commit-missing", "skipped"), _pin("unreadable", "failed")])
    assert (row.state, row.unread) == ("partial", (("commit-missing", 1), ("unreadable", 1)))
    # drift is stale, and what was not read is still said
    row = staleness.build_row(report, [_pin("found", "passed"), _drift("diverged", "failed"),
                                       _source("no-repo", "skipped")])
    assert row.state == "stale" and row.summary == "1 diverged of 2 checks; partly unchecked: 1 source(s) with no clone"


def test_a_review_style_header_pins_a_note_whose_basis_names_no_commit():
    basis = (f"**Reviewed commit:** [{PIN}](https://github.com/acme/widgets/commit/{PIN})\n\n"
             "**Evidence basis:** first-hand reading of the checkout; originally written against "
             f"[{OLD[:8]}](https://github.com/acme/widgets/commit/{OLD}).")
    report = parse_report("n.md", notes("Nothing quoted.", basis))
    assert report.dialect == "notes"
    [source] = report.sources
    assert (source.id, source.pin) == ("acme/widgets", PIN)
    assert report.meta["originally-written-against"] == [OLD]
    assert not [e for e in report.evidence if e.kind is EvidenceKind.COMMIT]


def test_a_note_never_raises_on_odd_prose():
    odd = [
        '"unclosed quote and [link](https://github.com/a/b/blob/x/y.md',
        '> > nested "quote of three words" ([f.py](https://github.com/a/b/blob/abcdef1/f.py))\n> — [',
        '“ ” "" "a b c" `"a b c"` "d e f" ([x](https://github.com/a/b/commit/zzz))',
        "**Evidence basis:** at commit `deadbee` and again at commit `deadbee`.",
    ]
    for body in odd:
        for text in (notes(body), notes(body).replace("**Evidence basis:**", "Evidence basis:")):
            parse_report("n.md", text)
            parse_report("n.txt", text)


def test_a_basis_that_goes_on_in_a_list_under_its_heading():
    basis = textwrap.dedent(f"""\
        ## Evidence basis

        - first-hand reading of `acme/widgets@{PIN[:9]}`, on 2026-05-14;
        - originally written against `{OLD[:8]}`.

        ## Body""")
    report = parse_report("n.md", notes('The docs state that "restores are idempotent".', basis))
    assert report.dialect == "notes"
    [source] = report.sources
    assert (source.id, source.pin) == ("acme/widgets", PIN[:9])
    assert report.meta["pin-date"] == "2026-05-14"
    assert report.meta["originally-written-against"] == [OLD[:8]]


# --------------------------------------------------------------------------- linear time

_LINK = f"[f.py]({BLOB}/src/f.py)"
#: run-on prose a note could hold: each a function of the wanted size in characters
_RUN_ON = {
    "quotations beside links": lambda n: f'"alpha beta gamma" ({_LINK}), ' * (n // 60),
    "quotations and files in one sentence": lambda n: f'`src/a.py` says "alpha beta gamma" and {_LINK} ' * (n // 70),
    "backticked paths in one clause": lambda n: "add `src/x.py` to the repository and " * (n // 40),
    "attributions": lambda n: 'the docs state "alpha beta gamma delta" and ' * (n // 45),
    "quote marks": lambda n: '" ' * (n // 2),
    "introduced blockquotes": lambda n: f"As {_LINK} puts it:\n\n> alpha beta gamma\n\n" * (n // 80),
    "basis lines": lambda n: "**Evidence basis:** at commit `abc1234` " * (n // 40),
}


@pytest.mark.parametrize("name", sorted(_RUN_ON))
def test_run_on_prose_parses_in_linear_time(name):
    from hostile_support import cpu_seconds

    make = _RUN_ON[name]

    def seconds(size: int) -> float:
        return max(cpu_seconds(parse_report, "n.md", notes(make(size)), "notes", runs=2), 5e-3)

    small = seconds(16_000)
    growth = seconds(64_000) / small
    if growth > 10:
        growth = seconds(64_000) / small  # once more before calling it superlinear: the machine is shared
    assert growth <= 10, f"{name}: 4x the text took {growth:.1f}x the time"


def _unit_word_by_word(pieces):
    """The unit a paragraph's quotations were once read from: a word for every
    whitespace-separated run of its text and code pieces (links are not words)."""
    from pytest_memreport.dialects.core import anchors

    unit = anchors.unit(pieces)  # the word-reading unit, less the words it makes of links
    return anchors.Unit(unit.text, tuple(word for word in unit.words if not word.href), unit.line)


_PIECE_TEXT = st.lists(st.sampled_from([*'ab c"“”.;:`\n', "said ", "README.md", "docs/a.md"]),
                       max_size=24).map("".join)
_PIECE = st.builds(lambda kind, text, step, href: (kind, text, step, href if kind == "link" else ""),
                   st.sampled_from(["text", "code", "link"]), _PIECE_TEXT, st.integers(0, 1),
                   st.sampled_from(["", f"{BLOB}/docs/a.md", "https://example.com/x"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECE, max_size=8))
def test_a_paragraph_read_by_pieces_ties_what_reading_it_word_by_word_did(drawn):
    """A paragraph is read for its quotations by its pieces alone (their offsets, lines and
    code spans), not a word object per word: every quotation, its line and its tie are the
    ones the word-by-word unit gave (the words were only asked for code spans and lines)."""
    from pytest_memreport.dialects.core import anchors, ties
    from pytest_memreport.dialects.core.layout import Piece

    pieces, line = [], 1
    for kind, text, step, href in drawn:
        line += step
        pieces.append(Piece(kind, text, line, href))

    def is_file(href, text):
        return bool(href) and href.startswith(BLOB) or text.endswith(".md")

    para = ties.paragraph(pieces, is_file)
    citations = [ties._citation(named) for named in para.named]
    by_pieces = anchors.quotes_in(para.text, para.line, list(para.code_spans), list(para.line_marks), citations)
    by_words = anchors.quotes(_unit_word_by_word(pieces), citations)
    assert by_pieces == by_words
    assert [p.text for p in pieces if p.kind == "code"] == [para.text[s:e] for s, e in para.code_spans]
