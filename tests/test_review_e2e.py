"""Reviews end to end: a real target repository, a review whose links point into
it, and ``pytest --memreport`` over the review.

The review names its repository as ``acme/widget`` (a GitHub URL), and the
run maps that name onto the local clone with ``--memreport-repo
acme/widget=PATH``. A hypothesis property then writes reviews from the
repository's own files and line counts: every one must pass.
"""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_memreport.dialects import parse_report

from widget_target import BLOB, FILES, LIMITS_RS, TREE


@pytest.fixture
def widget(make_repo):
    repo = make_repo("widget")
    first = repo.commit(FILES, "initial")
    # A later commit that moves nothing the review cites at its pin.
    pin = repo.commit({"src/core/limits.rs": LIMITS_RS + "pub const JITTER: bool = true;\n"}, "jitter")
    return repo, first, pin


def review_text(pin: str, first: str) -> str:
    return textwrap.dedent(
        f"""\
        ---
        description: Widget engine review
        type: notes/types/code-review.md
        ---

        # Widget engine review

        **Repository:** https://github.com/acme/widget
        **Reviewed commit:** [{pin}](https://github.com/acme/widget/commit/{pin})

        ## Loop

        The loop is [engine.rs]({BLOB}/{pin}/src/core/engine.rs), its body
        [lines 8-10]({BLOB}/{pin}/src/core/engine.rs#L8-L10); the first commit already had
        [the limits]({BLOB}/{first}/src/core/limits.rs#L1-L2). Sources live under
        [src/core]({TREE}/{pin}/src/core). Tuning is in `docs/tuning.md`, the manifest is `Cargo.toml`.

        > pub fn tick(&mut self) -> usize {{
        >     self.queue.drain_ready()
        > }}
        > --- [src/core/engine.rs]({BLOB}/{pin}/src/core/engine.rs#L8-L10)

        > pub const JITTER: bool = true;
        > --- `src/core/limits.rs` @ `{pin}`

        The queue is small (src/queue.rs).
        """
    )


def run(pytester, repo, text: str, *args: str):
    path = pytester.path / "review.md"
    path.write_text(text, encoding="utf-8")
    return pytester.runpytest("--memreport", str(path), f"--memreport-repo=acme/widget={repo.path}", *args)


def test_review_passes_at_its_pin(pytester, widget):
    repo, first, pin = widget
    text = review_text(pin, first)
    report = parse_report("review.md", text)
    assert report.dialect == "review"
    assert len(report.evidence) == 9
    before = repo.state()
    result = run(pytester, repo, text, "-v", "--memreport-against", "none")
    # source, structure, and one item per piece of evidence
    result.assert_outcomes(passed=11)
    result.stdout.fnmatch_lines([
        "*review.md::structure PASSED*",
        "*review.md::lines@L14:src/core/engine.rs:8-10@* PASSED*",
        "*review.md::directory@L16:src/core@* PASSED*",
        "*review.md::quote@L18 PASSED*",
        "*review.md::quote@L23 PASSED*",
        "*review.md::path@L26:src/queue.rs* PASSED*",
    ])
    assert repo.state() == before


def test_review_with_drift_passes_when_nothing_moved(pytester, widget):
    repo, first, pin = widget
    result = run(pytester, repo, review_text(pin, first))
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0
    assert outcomes["passed"] >= 11


def test_link_at_another_commit_is_checked_there(pytester, widget):
    repo, first, pin = widget
    # JITTER exists at the pin, not at the first commit: quoting it at ``first`` fails.
    text = review_text(pin, first).replace(f"`src/core/limits.rs` @ `{pin}`", f"`src/core/limits.rs` @ `{first}`")
    result = run(pytester, repo, text, "--memreport-against", "none")
    result.assert_outcomes(passed=10, failed=1)
    result.stdout.fnmatch_lines(["*quotation not found in src/core/limits.rs*"])


def test_missing_linked_file_fails_and_names_the_report_line(pytester, widget):
    repo, first, pin = widget
    text = review_text(pin, first).replace("src/core/engine.rs), its body", "src/core/motor.rs), its body")
    result = run(pytester, repo, text, "--memreport-against", "none")
    result.assert_outcomes(passed=10, failed=1)
    result.stdout.fnmatch_lines(["*no file src/core/motor.rs*"])


# --------------------------------------------------------------------------- property


@pytest.fixture(scope="module")
def widget_repo(tmp_path_factory):
    """One repository for every hypothesis example (a function-scoped fixture
    would be shared across examples anyway)."""
    from repo_builder import RepoBuilder

    repo = RepoBuilder(tmp_path_factory.mktemp("prop") / "widget")
    pin = repo.commit(FILES, "initial")
    return repo, pin


CITATION = st.tuples(
    st.sampled_from(sorted(FILES)),
    st.sampled_from(["link", "anchor", "tree", "backticks", "quote", "parentheses"]),
    st.integers(min_value=0, max_value=50),
    st.integers(min_value=0, max_value=50),
    st.sampled_from(["", "Loop", "Limits and queue"]),
)


def citation_markdown(pin: str, path: str, form: str, a: int, b: int) -> str:
    lines = FILES[path].rstrip("\n").split("\n")
    start = a % len(lines) + 1
    end = start + b % (len(lines) - start + 1)
    directory = path.rsplit("/", 1)[0] if "/" in path else ""
    if form == "link":
        return f"See [{path}]({BLOB}/{pin}/{path}).\n"
    if form == "anchor":
        return f"See [{path} {start}-{end}]({BLOB}/{pin}/{path}#L{start}-L{end}).\n"
    if form == "tree" and directory:
        return f"See [{directory}]({TREE}/{pin}/{directory}).\n"
    if form == "backticks" and ("/" in path or path == "Cargo.toml"):
        return f"Read `{path}:{start}-{end}` first.\n"
    if form == "parentheses" and "/" in path:
        return f"It is cited here ({path}).\n"
    quoted = lines[start - 1 : end]
    if not any(line.strip() for line in quoted):
        return f"See [{path}]({BLOB}/{pin}/{path}).\n"
    # The lines go in as they are, Markdown-looking ones (``# Tuning``, ``[package]``) too:
    # the quotation is the raw text of the ``>`` lines.
    body = "".join(f"> {line}\n" if line.strip() else ">\n" for line in quoted)
    return f"{body}> --- [{path}]({BLOB}/{pin}/{path}#L{start}-L{end})\n"


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(CITATION, min_size=1, max_size=6))
def test_any_review_pointing_into_the_repository_at_its_pin_passes(pytester, widget_repo, citations):
    repo, pin = widget_repo
    parts = [f"# Generated review\n\n**Repository:** https://github.com/acme/widget\n"
             f"**Reviewed commit:** `{pin}`\n"]
    heading = None
    for path, form, a, b, section in citations:
        if section and section != heading:
            parts.append(f"## {section}\n")
            heading = section
        parts.append(citation_markdown(pin, path, form, a, b))
    text = "\n".join(parts)
    report = parse_report("review.md", text)
    assert report.evidence, text
    assert report.findings == (), text
    result = run(pytester, repo, text, "--memreport-against", "none")
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0 and outcomes.get("error", 0) == 0, text + result.stdout.str()
    assert outcomes.get("skipped", 0) == 0, text + result.stdout.str()
    assert outcomes["passed"] >= len(report.evidence) + 1
