"""Re-pinning a review in one command: every link of the repository at the reviewed
commit (inline, several per line, reference-style), the reviewed-commit line,
renamed paths in URLs and link texts, shifted ``#L`` anchors, blockquote
attributions; other repositories and commits cited on purpose stay as written.

The target is a real repository whose ``src/`` tree moved under ``crates/widget/``
after the review's pin, with lines inserted above the quoted code.
"""

from __future__ import annotations

import textwrap

import pytest

from conftest import summary_outcomes

from widget_target import BLOB, ENGINE_RS, FILES, LIMITS_RS, TREE
HEADER = "//! The engine drives the queue.\n//! It owns no state of its own.\n\n"


def review_text(pin: str, first: str) -> str:
    return textwrap.dedent(
        f"""\
        ---
        description: Widget engine review
        type: notes/types/code-review.md
        ---

        # Widget engine review

        **Repository:** https://github.com/acme/widget
        **Reviewed commit:** [{pin[:12]}](https://github.com/acme/widget/commit/{pin})

        ## Loop

        The loop is [src/core/engine.rs]({BLOB}/{pin}/src/core/engine.rs), its body [lines 8-10]({BLOB}/{pin}/src/core/engine.rs#L8-L10) and the [queue]({BLOB}/{pin}/src/queue.rs#L3-L5).
        The first commit already had [the limits]({BLOB}/{first}/src/core/limits.rs#L1-L2); a fork keeps
        [its own engine](https://github.com/other/widget/blob/{pin}/src/core/engine.rs). Sources live under
        [src/core]({TREE}/{pin}/src/core). Tuning is in `docs/tuning.md`, limits in `src/core/limits.rs`,
        the manifest is `Cargo.toml`; `tick` drains the queue, `drain_ready` says how much.
        Words such as `retry_budget` or `Engine::new` are not evidence here.

        See [the engine][engine] and [the queue type][queue].

        > pub fn tick(&mut self) -> usize {{
        >     self.queue.drain_ready()
        > }}
        > --- [src/core/engine.rs]({BLOB}/{pin}/src/core/engine.rs#L2-L4)

        > pub struct Queue;
        > --- `src/queue.rs` @ `{pin[:10]}`

        [engine]: {BLOB}/{pin}/src/core/engine.rs#L8
        [queue]: {BLOB}/{pin}/src/queue.rs "the queue"
        """
    )


@pytest.fixture
def moved(make_repo):
    """A target at its pin, then the whole src/ tree moved and the engine shifted."""
    repo = make_repo("widget")
    first = repo.commit(FILES, "initial")
    pin = repo.commit({"src/core/limits.rs": LIMITS_RS + "pub const JITTER: bool = true;\n"}, "jitter")
    for path in ("src/core/engine.rs", "src/core/limits.rs", "src/queue.rs"):
        repo.move(path, "crates/widget/" + path)
    repo.commit(message="move the crate")
    head = repo.commit({"crates/widget/src/core/engine.rs": HEADER + ENGINE_RS}, "document the engine")
    return repo, first, pin, head


def run(pytester, report, repo, *args):
    return pytester.runpytest("-rA", "-p", "no:cacheprovider", "--memreport", str(report),
                              f"--memreport-repo=acme/widget={repo.path}", *args)


def failures(result) -> list[str]:
    return [node for node, outcome in summary_outcomes(result, ("FAILED", "ERROR")).items()]


def test_a_renamed_review_is_repinned_in_one_command(pytester, moved):
    repo, first, pin, head = moved
    report = pytester.path / "widget.md"
    report.write_text(review_text(pin, first), encoding="utf-8")
    result = run(pytester, report, repo, "--memreport-write", "--memreport-repin=HEAD")
    out = result.stdout.str()
    assert result.ret == 0, out
    new = report.read_text(encoding="utf-8")
    expected = review_text(pin, first)
    expected = expected.replace(f"**Reviewed commit:** [{pin[:12]}](https://github.com/acme/widget/commit/{pin})",
                                f"**Reviewed commit:** [{head[:12]}](https://github.com/acme/widget/commit/{head})")
    expected = expected.replace(
        f"[src/core/engine.rs]({BLOB}/{pin}/src/core/engine.rs),",
        f"[crates/widget/src/core/engine.rs]({BLOB}/{head}/crates/widget/src/core/engine.rs),")
    expected = expected.replace(f"[lines 8-10]({BLOB}/{pin}/src/core/engine.rs#L8-L10)",
                                f"[lines 11-13]({BLOB}/{head}/crates/widget/src/core/engine.rs#L11-L13)")
    expected = expected.replace(f"[queue]({BLOB}/{pin}/src/queue.rs#L3-L5)",
                                f"[queue]({BLOB}/{head}/crates/widget/src/queue.rs#L3-L5)")
    expected = expected.replace(f"[src/core]({TREE}/{pin}/src/core)",
                                f"[crates/widget/src/core]({TREE}/{head}/crates/widget/src/core)")
    expected = expected.replace("limits in `src/core/limits.rs`", "limits in `crates/widget/src/core/limits.rs`")
    # the quotation sat at lines 8-10, not 2-4, at the pin: corrected, then shifted by the header
    expected = expected.replace(
        f"> --- [src/core/engine.rs]({BLOB}/{pin}/src/core/engine.rs#L2-L4)",
        f"> --- [crates/widget/src/core/engine.rs]({BLOB}/{head}/crates/widget/src/core/engine.rs#L11-L13)")
    expected = expected.replace(f"> --- `src/queue.rs` @ `{pin[:10]}`",
                                f"> --- `crates/widget/src/queue.rs` @ `{head[:10]}`")
    expected = expected.replace(f"[engine]: {BLOB}/{pin}/src/core/engine.rs#L8",
                                f"[engine]: {BLOB}/{head}/crates/widget/src/core/engine.rs#L11")
    expected = expected.replace(f'[queue]: {BLOB}/{pin}/src/queue.rs "the queue"',
                                f'[queue]: {BLOB}/{head}/crates/widget/src/queue.rs "the queue"')
    assert new == expected
    # untouched: another repository's link at the same sha, and a commit cited on purpose
    assert f"https://github.com/other/widget/blob/{pin}/src/core/engine.rs" in new
    assert f"{BLOB}/{first}/src/core/limits.rs#L1-L2" in new
    assert "range corrected" in out

    again = run(pytester, report, repo)
    assert again.ret == 0, again.stdout.str()
    assert failures(again) == []
    second = run(pytester, report, repo, "--memreport-write", "--memreport-repin=HEAD")
    assert second.ret == 0 and "nothing to write" in second.stdout.str()
    assert report.read_text(encoding="utf-8") == new

