"""A trial's setup written as the commands that reproduce it (docs/FORMATS.md, "Any
document"): a shell block that clones the target and checks out a commit is the document's
pin of that repository. A sha in a code block was read as code, so the trial was
"unpinned" and none of its citations checked."""

from __future__ import annotations

import textwrap

from finding_support import QUEUE, run_one



def _trial(setup: str) -> str:
    return textwrap.dedent("""\
        # Trial 3

        ## Setup

        ```bash
        {setup}
        ```

        ## Observations

        - `src/queue.py:5-6` appends to the queue.
        """).format(setup=setup)


def test_a_setup_that_clones_and_checks_out_a_commit_pins_the_trial_where_a_repin_rewrites_it(pytester, make_repo):
    repo = make_repo("widgets")
    pin = repo.commit({"src/queue.py": QUEUE})
    later = repo.commit({"src/queue.py": '"""The queue."""\n\n' + QUEUE})
    text = _trial(f"git clone https://github.com/acme/widgets.git\ncd widgets && git checkout {pin}")
    mapped = f"--memreport-repo=acme/widgets={repo.path}"

    result, report = run_one(pytester, text, mapped, "--memreport-against=none", name="trial.md")
    assert [(e["path"], e["at_pin"]["status"]) for e in report["evidence"]] == [("src/queue.py", "found")], \
        result.stdout.str()[-2000:]
    assert [(s["id"], s["pin"]) for s in report["sources"]] == [("acme/widgets", pin)]
    assert report["state"] == "fresh" and result.ret == 0

    result = pytester.runpytest("-p", "no:cacheprovider", "--memreport", "trial.md", mapped,
                                "--memreport-repin", "HEAD", "--memreport-write")
    written = (pytester.path / "trial.md").read_text(encoding="utf-8")
    assert f"git checkout {later}" in written and pin not in written, written
    assert "`src/queue.py:7-8`" in written, written


def test_a_checkout_with_no_clone_in_its_block_or_of_a_branch_pins_nothing(pytester, make_repo):
    repo = make_repo("widgets")
    pin = repo.commit({"src/queue.py": QUEUE})
    for setup in (f"cd widgets && git checkout {pin}",  # (a commit looked at in passing)
                  "git clone https://github.com/acme/widgets\ngit checkout main"):
        result, report = run_one(pytester, _trial(setup), f"--memreport-repo=acme/widgets={repo.path}",
                                 "--memreport-against=none")
        assert "no pinned commit" in result.stdout.str(), (setup, result.stdout.str()[-2000:])
        assert report["state"] != "fresh" and result.ret == 1
