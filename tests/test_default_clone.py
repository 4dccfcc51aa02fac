"""The clone given with no key (``--memreport-repo PATH``) and the repositories reports link.

Read in real audit findings: a finding links the target (``acme/widgets``) and a library it
uses (``other/lib``); given the target's clone with no key, the library's links were checked
in the target's clone and failed as files the target lacks. The clone given with no key now
serves a repository named ``owner/name`` only when it is the one such repository the reports
name that nothing else maps, and the user's own mappings name none.
"""

from __future__ import annotations

import json
import textwrap

POOL = "def newest(entries):\n    return entries[-1]\n"
GUARD = "def guard(owner):\n    return owner is not None\n"


def finding(widgets_pin: str, lib_pin: str | None) -> str:
    lib = (f"The library checks its owner in [guard.py#L2](https://github.com/other/lib/blob/{lib_pin}/guard.py#L2).\n"
           if lib_pin else "")
    return textwrap.dedent(f"""\
        # Finding: the newest entry

        The pool returns its last entry ([pool.py#L2](https://github.com/acme/widgets/blob/{widgets_pin}/pool.py#L2)).
        """) + lib


def run(pytester, text: str, *repos: str):
    (pytester.path / "finding.md").write_text(text, encoding="utf-8")
    out = pytester.path / "out.json"
    result = pytester.runpytest("-rs", "-p", "no:cacheprovider", "--memreport", "finding.md",
                                *(f"--memreport-repo={repo}" for repo in repos), "--memreport-against=none",
                                "--memreport-json", str(out))
    return result, json.loads(out.read_text(encoding="utf-8"))["reports"][0]


def statuses(report: dict) -> dict[str, str]:
    return {e["path"]: e["at_pin"]["status"] for e in report["evidence"]}


def test_with_the_target_mapped_by_name_the_clone_given_with_no_key_checks_no_library_link(pytester, make_repo):
    widgets, lib = make_repo("widgets"), make_repo("lib")
    widgets_pin, lib_pin = widgets.commit({"pool.py": POOL}), lib.commit({"guard.py": GUARD})

    result, report = run(pytester, finding(widgets_pin, lib_pin), f"acme/widgets={widgets.path}", str(widgets.path))

    assert statuses(report)["pool.py"] == "found"
    assert statuses(report)["guard.py"] != "file-missing"  # (it was: looked for in the target's clone)
    assert report["state"] == "partial"
    out = result.stdout.str()
    assert "no local clone for other/lib" in out
    assert "--memreport-repo PATH with no key serves no repository named owner/name once another mapping" in out


def test_two_repositories_linked_and_one_clone_given_with_no_key_each_asks_for_its_own(pytester, make_repo):
    widgets, lib = make_repo("widgets"), make_repo("lib")
    widgets_pin, lib_pin = widgets.commit({"pool.py": POOL}), lib.commit({"guard.py": GUARD})

    result, report = run(pytester, finding(widgets_pin, lib_pin), str(widgets.path))

    assert "file-missing" not in statuses(report).values()
    assert report["state"] == "unchecked"
    assert result.ret != 0  # a run that checked nothing is never green
    assert "only when the reports name one, and they name 2 (" in result.stdout.str()


def test_one_repository_linked_is_the_clone_given_with_no_key(pytester, make_repo):
    widgets = make_repo("widgets")
    widgets_pin = widgets.commit({"pool.py": POOL})

    result, report = run(pytester, finding(widgets_pin, None), str(widgets.path))

    assert statuses(report) == {"pool.py": "found"}
    assert report["state"] == "fresh"
    assert result.ret == 0


def test_a_pin_whose_words_name_an_unmapped_project_asks_for_that_key(pytester, make_repo):
    # "using a `vendored-lib` version ..., commit: `<sha>`": the pin is the library's. With
    # nothing mapping it, the message said the report's folder "is not inside a git
    # repository"; it names the key to give, which then checks the file at that commit.
    lib = make_repo("lib")
    pin = lib.commit({"guard.py": GUARD})
    text = textwrap.dedent(f"""\
        # Low findings

        The project is using a `vendored-lib` version from last year, commit: `{pin}`.
        Its guard is in `guard.py`.
        """)

    result, report = run(pytester, text)
    assert "the report's pin names `vendored-lib`" in result.stdout.str()
    assert "give --memreport-repo vendored-lib=PATH" in result.stdout.str()
    assert "not inside a git repository" not in result.stdout.str()

    result, report = run(pytester, text, f"vendored-lib={lib.path}")
    assert statuses(report) == {"guard.py": "found"}
    assert report["state"] == "fresh"
