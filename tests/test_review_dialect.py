"""The review dialect (FORMAT.md §2): commit-pinned links, blockquote quotations,
backticked and parenthesised paths, front matter; and dialect detection.

The fixtures are ``reviews/widget-review.md`` (a Markdown review) and
``reviews/widget-review.txt`` (a plain-text rendering of a similar review).
Every expected value below was read off the fixture files by line number.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import load_report
from conftest import SEEDS
from hostile_support import cpu_seconds
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_memreport.dialects import DIALECTS, core, detect_dialect, parse_report, read_report, review
from pytest_memreport.model import Evidence, EvidenceKind, LineRange, Report, Source

FIXTURES = Path(__file__).parent / "fixtures"
MARKDOWN = FIXTURES / "reviews" / "widget-review.md"
PLAIN = FIXTURES / "reviews" / "widget-review.txt"
PIN = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
OLD = "fedcba9876543210fedcba9876543210fedcba98"
GEARS = "00112233445566778899aabbccddeeff00112233"


load = load_report


def rows(report: Report) -> list[tuple]:
    return [
        (e.kind.value, e.path, e.line, e.end_line, e.cited_lines, e.source, e.pin, e.label)
        for e in report.evidence
    ]


@pytest.fixture(scope="module")
def markdown() -> Report:
    return load(MARKDOWN)


@pytest.fixture(scope="module")
def plain() -> Report:
    return load(PLAIN)


# --------------------------------------------------------------------------- the Markdown review


def test_markdown_review_header_and_front_matter(markdown):
    assert markdown.dialect == "review"
    assert markdown.title == "Widget scheduler review"
    assert markdown.line_count == 43
    assert markdown.records == ()
    assert markdown.findings == ()
    assert markdown.meta["description"] == "How the widget scheduler hands work to its gear pool"
    assert markdown.meta["type"] == "notes/types/code-review.md"
    assert markdown.meta["source-tier"] == "primary"
    # YAML reads the date as a date; meta keeps it JSON-safe.
    assert markdown.meta["last-checked"] == "2024-05-02"
    assert markdown.meta["tags"] == ["scheduler", "concurrency"]
    assert set(markdown.meta["front_matter"]) == {"description", "type", "source-tier", "last-checked", "tags"}


def test_markdown_review_sources(markdown):
    # The reviewed repository comes first (line 12 pins it); the second
    # repository is only linked, on line 26, and pins nothing of its own.
    assert markdown.sources == (
        Source("acme/widget", PIN, "https://github.com/acme/widget", 12),
        Source("acme/gears", None, "https://github.com/acme/gears", 26),
    )
    assert markdown.source(None).id == "acme/widget"


def test_markdown_review_links(markdown):
    links = [row for row in rows(markdown) if row[2] in (16, 17, 18, 19, 26, 27)]
    assert links == [
        ("path", "src/core/engine.rs", 16, 16, None, "acme/widget", PIN, "Entry points › engine.rs"),
        ("lines", "src/core/limits.rs", 17, 17, LineRange(4, 9), "acme/widget", PIN,
         "Entry points › limits.rs lines 4-9"),
        # Another commit of the same repository: the link's own pin.
        ("lines", "src/engine.rs", 18, 18, LineRange(12, 12), "acme/widget", OLD, "Entry points › the old loop"),
        ("directory", "src/handlers", 19, 19, None, "acme/widget", PIN, "Entry points › src/handlers"),
        # A second repository in the same note.
        ("lines", "pool/pool.go", 26, 26, LineRange(20, 31), "acme/gears", GEARS,
         "Two repositories › gears/pool.go"),
        # A branch link: the label says which branch; read at the one commit the note's other
        # links name for acme/gears (no statement pins it).
        ("path", "README.md", 27, 27, None, "acme/gears", GEARS, "Two repositories › the gears README @ main"),
    ]


def test_markdown_review_backticked_paths(markdown):
    backticked = [row for row in rows(markdown) if row[7] == review.BACKTICKED_PATH]
    # ``tokio::spawn`` and ``read/write`` on line 22 are not paths.
    assert backticked == [
        ("path", "docs/tuning.md", 21, 21, None, "acme/widget", None, "backticked path"),
        ("lines", "src/core/defaults.toml", 21, 21, LineRange(3, 5), "acme/widget", None, "backticked path"),
        ("path", "Cargo.toml", 22, 22, None, "acme/widget", None, "backticked path"),
    ]


def test_markdown_review_quotations(markdown):
    quotes = [e for e in markdown.evidence if e.kind is EvidenceKind.QUOTE]
    assert quotes == [
        Evidence(
            EvidenceKind.QUOTE, "src/core/engine.rs", 31, 34,
            text="pub fn tick(&mut self) -> Poll {\n    self.queue.drain_ready()\n}",
            cited_lines=LineRange(40, 42), source="acme/widget", pin=PIN, label="Quotations › quotation",
        ),
        Evidence(
            EvidenceKind.QUOTE, "src/core/limits.rs", 38, 39, text="const MAX_RETRIES: u32 = 5;",
            source="acme/widget", pin=PIN, label="Quotations › quotation",
        ),
    ]
    # The blockquote on line 41 has no source line: it is no evidence at all.
    assert not [e for e in markdown.evidence if e.line == 41]


def test_markdown_review_parenthesised_paths(markdown):
    assert [row for row in rows(markdown) if row[2] == 43] == [
        ("path", "src/handlers/mod.rs", 43, 43, None, "acme/widget", None, "cited path"),
        ("path", "src/handlers/http.rs", 43, 43, None, "acme/widget", None, "cited path"),
    ]
    assert len(markdown.evidence) == 14  # 6 links, 3 backticked, 2 quotations, 2 cited, 1 symbol
    # A backticked name beside its paragraph's links is proposed in the files they cite.
    (symbol,) = [e for e in markdown.evidence if e.kind.value == "symbol"]
    assert (symbol.text, symbol.line, symbol.context) == (
        "tokio.spawn", 22, ("docs/tuning.md", "src/core/defaults.toml", "Cargo.toml"))
    assert all(e.owner is None for e in markdown.evidence)


# --------------------------------------------------------------------------- the plain-text rendering


def test_plain_review(plain):
    assert plain.dialect == "review"
    assert plain.title == "Widget scheduler review"
    assert plain.meta == {}
    assert plain.findings == ()
    assert plain.sources == (Source("acme/widget", PIN, "https://github.com/acme/widget", 4),)
    url = f"https://github.com/acme/widget/blob/{OLD}/src/engine.rs#L12-L14"
    assert rows(plain) == [
        ("path", "src/core/engine.rs", 8, 8, None, "acme/widget", None, "cited path"),
        ("path", "src/core/limits.rs", 8, 8, None, "acme/widget", None, "cited path"),
        ("lines", "src/handlers/mod.rs", 9, 9, LineRange(3, 8), "acme/widget", None, "cited path"),
        ("directory", "src/handlers", 9, 9, None, "acme/widget", None, "cited path"),
        # Line 10's parentheses hold words, not paths.
        ("lines", "src/engine.rs", 11, 11, LineRange(12, 14), "acme/widget", OLD, url),
        ("quote", "src/core/engine.rs", 15, 17, None, "acme/widget", None, "quotation"),
        ("quote", "src/core/limits.rs", 19, 20, None, "acme/widget", PIN, "quotation"),
    ]
    quotes = [e.text for e in plain.evidence if e.kind is EvidenceKind.QUOTE]
    assert quotes == ["pub fn tick(&mut self) -> Poll {\n    self.queue.drain_ready()", "const MAX_RETRIES: u32 = 5;"]


# --------------------------------------------------------------------------- smaller cases


def parse_md(text: str) -> Report:
    return review.parse("note.md", text)


def test_reviewed_commit_pairs_with_its_repository_and_conflicts_are_findings():
    text = (
        "**Repository:** https://github.com/acme/widget\n"
        f"**Reviewed commit:** `{PIN}`\n"
        "\n"
        "**Repository:** https://github.com/acme/gears\n"
        f"**Reviewed commit:** [{GEARS[:12]}](https://github.com/acme/gears/commit/{GEARS})\n"
        "\n"
        f"**Reviewed commit:** `{OLD}`\n"
    )
    report = parse_md(text)
    assert [(s.id, s.pin, s.line) for s in report.sources] == [
        ("acme/widget", PIN, 2),
        ("acme/gears", GEARS, 5),  # the commit link's full sha, not the short text
    ]
    assert [(f.line, f.code) for f in report.findings] == [(7, "structure")]
    assert "acme/gears is reviewed at" in report.findings[0].message


def test_reviewed_commit_given_only_by_its_link():
    report = parse_md(f"**Reviewed commit:** [this one](https://github.com/acme/widget/commit/{PIN})\n")
    assert report.sources == (Source("acme/widget", PIN, "https://github.com/acme/widget", 1),)


def test_pin_without_repository_is_the_default_source():
    report = parse_md(f"Reviewed revision: main at {PIN}\n\nSee `src/a.py` and `lib/b.rs`.\n")
    assert report.sources == (Source("SRC-1", PIN, None, 1),)
    assert [(e.path, e.source) for e in report.evidence] == [("src/a.py", "SRC-1"), ("lib/b.rs", "SRC-1")]


def test_repository_casing_follows_first_mention_and_git_suffix_is_dropped():
    text = (
        "**Repository:** https://github.com/Acme/Widget.git\n\n"
        f"[a](https://github.com/acme/widget/blob/{PIN}/a/b.py)\n"
    )
    report = parse_md(text)
    assert [s.id for s in report.sources] == ["Acme/Widget"]
    assert report.evidence[0].source == "Acme/Widget"


def test_bad_line_anchor_is_a_finding_and_the_file_is_still_cited():
    report = parse_md(f"[x](https://github.com/o/r/blob/{PIN}/src/x.py#L20-L10)\n")
    assert [(e.kind, e.path, e.cited_lines) for e in report.evidence] == [(EvidenceKind.PATH, "src/x.py", None)]
    assert [(f.line, f.code) for f in report.findings] == [(1, "path")]


def test_quotation_variants():
    text = "\n".join([
        "> let a = 1; --- [a.rs](https://github.com/o/r/blob/" + PIN + "/src/a.rs)",  # 1: same line
        "",
        "> ```rust",  # 3: fence lines are not quoted text
        "> fn b() {}",  # 4
        "> ```",  # 5
        "> --- `src/b.rs:4-4` at `" + OLD + "`",  # 6
        "",
        "> let c = **not bold**;",  # 8
        "",
        "--- [src/c.rs](https://github.com/o/r/blob/main/src/c.rs)",  # 10: after the blockquote
        "",
        "> --- [nothing above](https://github.com/o/r/blob/" + PIN + "/src/d.rs)",  # 12
        "",
    ])
    report = parse_md(text)
    got = [(e.kind.value, e.path, e.line, e.end_line, e.text, e.cited_lines, e.pin) for e in report.evidence]
    assert got == [
        ("quote", "src/a.rs", 1, 1, "let a = 1;", None, PIN),
        ("quote", "src/b.rs", 4, 6, "fn b() {}", LineRange(4, 4), OLD),
        ("quote", "src/c.rs", 8, 10, "let c = **not bold**;", None, None),
        ("path", "src/d.rs", 12, 12, None, None, PIN),
    ]
    assert [(f.line, f.code) for f in report.findings] == [(12, "structure")]


def test_links_inside_code_and_quotes_are_not_link_evidence():
    text = (
        "```\n"
        f"[x](https://github.com/o/r/blob/{PIN}/in/fence.py)\n"
        "```\n\n"
        f"`https://github.com/o/r/blob/{PIN}/in/code.py` and <https://github.com/o/r/blob/{PIN}/auto/link.py>\n"
    )
    report = parse_md(text)
    assert [(e.path, e.line) for e in report.evidence] == [("auto/link.py", 5)]


@pytest.mark.parametrize(
    "token, expected",
    [
        ("src/core/engine.rs", "src/core/engine.rs"),
        ("src/a.rs:10-20", "src/a.rs"),
        ("Cargo.toml", "Cargo.toml"),
        ("src/core/", "src/core/"),
        ("engine.rs", None),  # a bare name: could be anywhere
        ("read/write", None),
        ("os.path", None),
        ("tokio::spawn", None),
        ("https://example.com/a/b.rs", None),
        ("/etc/hosts.conf", None),
        ("src/*.rs", None),
        ("../up/a.rs", None),
        ("a b/c.rs", None),
    ],
)
def test_repo_path_spec(token, expected):
    spec = review.repo_path_spec(token)
    assert (spec.path if spec else None) == expected


def test_repository_links():
    link = core.parse_repository_link(f"https://github.com/o/r/blob/{PIN}/a/b%20c.py?plain=1#L3-L9")
    assert (link.repo_id, link.kind, link.ref, link.path, link.lines) == ("o/r", "blob", PIN, "a/b c.py", LineRange(3, 9))
    assert core.parse_repository_link("https://gitlab.com/o/r/-/tree/main/docs").path == "docs"
    raw = core.parse_repository_link(f"https://raw.githubusercontent.com/o/r/{PIN}/x/y.rs")
    assert (raw.kind, raw.path, raw.ref_is_sha) == ("blob", "x/y.rs", True)
    # a blame view is the file at its commit, as a blob link is (it was no evidence at all)
    blame = core.parse_repository_link(f"https://github.com/o/r/blame/{PIN}/a/b.py#L9")
    assert (blame.kind, blame.path, blame.lines) == ("blob", "a/b.py", LineRange(9, 9))
    assert core.parse_repository_link("https://github.com/o/r/commit/main") is None
    assert core.parse_repository_link("https://github.com/o/r/issues/4") is None
    assert core.parse_repository_link("src/a.py") is None
    assert core.parse_repository_link("https://github.com/o/r/blob/x/a.py#L0").bad_anchor == "L0"


# --------------------------------------------------------------------------- detection


def test_registry():
    assert DIALECTS["review"] is review.parse
    assert set(DIALECTS) == {"records", "review", "notes", "tables"}


@pytest.mark.parametrize(
    "relative, dialect",
    [
        ("reviews/widget-review.md", "review"),
        ("reviews/widget-review.txt", "review"),
        ("tables/widget-run.md", "tables"),
        ("tables/widget-run.txt", "tables"),
        ("records/lantern-memory.md", "records"),
        ("records/lantern-memory.txt", "records"),
    ],
)
def test_detection_of_fixtures(relative, dialect):
    path = FIXTURES / relative
    text, _ = read_report(path)
    assert detect_dialect(text, str(path)) == dialect
    assert parse_report(str(path), text).dialect == dialect


@pytest.mark.parametrize("name", ["000_179139e58c876b34.txt", "002_d143d614cd576fda.txt", "003_5dd1e8b43d2948ac.txt"])
def test_detection_of_seeds(name):
    path = SEEDS / name
    if not path.is_file():
        pytest.skip(f"seed {name} not available")
    text, _ = read_report(path)
    assert detect_dialect(text, str(path)) == "records"


@pytest.mark.parametrize(
    "text, dialect",
    [
        ("", "records"),
        ("just prose\n", "records"),
        ("---\ntype: x\n---\n\nNotes.\n", "review"),
        ("Reviewed commit: abcdef1\n", "review"),
        ("**Repository:** https://github.com/o/r\n", "review"),
        # A record declaration wins over front matter and review marks.
        ("---\ntype: x\n---\n**Repository:** https://github.com/o/r\n\nMEM-OBJ-a\n\nLabel: A\n", "records"),
        ("### MEM-OBJ-a — A\n\nbody\n", "records"),
        # ID rows need a revision or a register to be a tables report...
        ("| ID | Label |\n| --- | --- |\n| OBJ-1 | A |\n", "records"),
        ("**Revision:** `abcdef1`\n\n| ID | Label |\n| --- | --- |\n| OBJ-1 | A |\n", "tables"),
        ("| Source | Revision |\n|---|---|\n| SRC-1 | abcdef1 |\n\n| ID | X |\n|---|---|\n| CLM-1/a | x |\n", "tables"),
        # ... and "Reviewed revision" is a review's mark, not a run's revision.
        ("Reviewed revision: main at abcdef1\n\n| ID | Label |\n| --- | --- |\n| OBJ-1 | A |\n", "review"),
    ],
)
def test_detection_rules(text, dialect):
    assert detect_dialect(text, "x.md") == dialect


# --------------------------------------------------------------------------- robustness

FRAGMENTS = [
    "\n", "\n\n", "> ", ">", "--- ", "—", "`", "``", "[", "]", "(", ")", "](", "#L", "L10-L2", "|", " | ",
    "**Repository:** ", "**Reviewed commit:** ", "Reviewed revision: main at ", PIN, OLD[:9], "@",
    "https://github.com/o/r/blob/", "https://github.com/o/r/tree/", "https://github.com/o/r/commit/",
    "/src/a.rs", "src/b.py:3-1", "Cargo.toml", "---\n", "```\n", "# T\n", "- ", "1. ", "SRC-1:", "\t",
    "(a/b.rs, c/d.md)", "e.g.", "\u2028", "\x0c", " ", "x",
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=6)), max_size=60),
       st.sampled_from(["r.md", "r.txt"]))
def test_parser_never_raises_and_positions_hold(parts, name):
    text = "".join(parts)
    report = review.parse(name, text)
    count = report.line_count
    for evidence in report.evidence:
        assert 1 <= evidence.line <= evidence.end_line <= max(count, 1)
        if evidence.kind is EvidenceKind.SYMBOL:  # a proposed name: checked in the files its context cites
            assert not evidence.path and evidence.context
            assert all(path and not path.startswith("/") for path in evidence.context)
            continue
        assert evidence.path and not evidence.path.startswith("/")
        if evidence.kind is EvidenceKind.QUOTE:
            assert evidence.text
    for finding in report.findings:
        assert 1 <= finding.line <= max(count, 1)
    assert detect_dialect(text, name) in DIALECTS


@pytest.mark.parametrize(
    "text",
    [
        "> " + "[" * 20000 + "\n> --- `a/b.rs`\n",
        "(" + "a/b.rs, " * 5000 + "\n",
        "> --- " + "`" * 20000 + "\n",
        ">" * 20000 + "\n",
        "**Repository:** " + "*" * 20000 + "\n",
        "x --- " * 5000 + "\n",
        "Reviewed " * 5000 + "\n",
        "`" + "a/" * 20000 + "`\n",
    ],
)
def test_adversarial_lines_parse_quickly(text):
    def parse_all():
        review.parse("r.md", text)
        review.parse("r.txt", text)
        detect_dialect(text, "r.md")

    assert cpu_seconds(parse_all) < 2.0
