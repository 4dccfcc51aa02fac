"""Hostile names and places of outputs, fourth round (issue 48): file names that are not
UTF-8 in every output, outputs inside a target's ``.git``, the HTML site beside what it did
not write, report names that would be workflow commands, and previews of every name shape
applied by ``patch -p1`` and ``git apply``."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ci_support import build
from hostile_support import assert_clean, records_report
from test_hostile_outputs import SRC, applies, previewed, usage_error

#: a report's and a target file's names that are not UTF-8, as Python holds them (``os.fsdecode``)
REPORT_NOT_UTF8 = os.fsdecode(b"r\xfe.md")
TARGET_NOT_UTF8 = os.fsdecode(b"bad\xff.py")


@pytest.fixture
def base(pytester, make_repo):
    return build(pytester, make_repo)


def utf8(path: Path) -> str:
    """The file's text, which must be valid UTF-8 (no lone surrogate, no stray byte)."""
    return path.read_bytes().decode("utf-8")


# ---------------------------------------------------------------- 6: names that are not UTF-8

def test_names_that_are_not_utf8_are_shown_escaped_in_every_output(pytester, make_repo, monkeypatch):
    repo = make_repo()
    pin = repo.commit({"ok.py": "LIMIT = 1\nRATE = 2\n"}, "first")
    repo.move("ok.py", TARGET_NOT_UTF8)
    repo.commit({TARGET_NOT_UTF8: "LIMIT = 1\nRATE = 3\n"}, "renamed to a name that is not UTF-8")
    report = pytester.path / REPORT_NOT_UTF8
    report.write_text(records_report(pin, "LIMIT = 1 --- ok.py", "RATE = 2 --- ok.py"), encoding="utf-8")
    summary = pytester.path / "summary.md"
    summary.write_text("", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    out = pytester.path / "out"
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={repo.path}", "-p", "no:randomly",
                                f"--memreport-json={out}.json", f"--memreport-sarif={out}.sarif",
                                f"--memreport-html={out}-site")
    text = assert_clean(result)
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # RATE changed: a real failure, every output written
    for line in ("wrote JSON to", "wrote SARIF to", "appended the step summary to", "wrote the HTML report to"):
        assert f"memreport: {line}" in text
    # the terminal's table names the report escaped
    assert "r\\xfe.md" in text

    data = json.loads(utf8(Path(f"{out}.json")))
    (entry,) = data["reports"]
    assert entry["path"].endswith("r\\xfe.md")
    went = {e["at_against"]["path"] for record in entry["records"] for e in record["evidence"] if e.get("at_against")}
    assert went == {"bad\\xff.py"}

    sarif = json.loads(utf8(Path(f"{out}.sarif")))
    (failure,) = sarif["runs"][0]["results"]
    assert failure["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("r%FE.md")
    assert failure["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad%FF.py"

    shown = utf8(summary)
    assert "r\\\\xfe.md" in shown and "bad\\\\xff.py" in shown  # a backslash, escaped for Markdown

    site = Path(f"{out}-site")
    pages = {page.name: utf8(page) for page in site.iterdir() if page.suffix == ".html"}
    assert len(pages) == 2 and "r\\xfe.md" in pages.pop("index.html")
    (page,) = pages.values()
    assert "r\\xfe.md" in page and "bad\\xff.py" in page


# ---------------------------------------------------------------- 10: no output inside a repository's own folder

def test_no_output_is_written_inside_any_repository_folder(pytester, base, monkeypatch):
    bare = pytester.path / "widget"  # a bare clone, as a mirror layout holds one: its own folder is its git folder
    subprocess.run(["git", "clone", "-q", "--bare", str(base.repo.path), str(bare)], check=True, timeout=60)
    (pytester.path / "into-git").symlink_to(base.repo.path / ".git")
    before = {folder: sorted(p.relative_to(folder) for p in folder.rglob("*"))
              for folder in (base.repo.path / ".git", bare)}
    for option, path in [("--memreport-html", base.repo.path / ".git" / "site"),
                         ("--memreport-html", base.repo.path / ".git"),
                         ("--memreport-html", pytester.path / "into-git" / "site"),
                         ("--memreport-html", bare / "site"),
                         ("--memreport-json", bare / "out.json"),
                         ("--memreport-sarif", bare / "refs" / "out.sarif")]:
        result = pytester.runpytest(*base.args(f"{option}={path}"))
        usage_error(result, f"ERROR: {option} {path}: is inside a repository's .git folder; give a path outside it")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(bare / "summary.md"))
    result = pytester.runpytest(*base.args())
    usage_error(result, f"ERROR: GITHUB_STEP_SUMMARY {bare / 'summary.md'}: is inside a repository's .git folder; *")
    assert before == {folder: sorted(p.relative_to(folder) for p in folder.rglob("*")) for folder in before}


# ---------------------------------------------------------------- 11: the site replaces only what it wrote

def test_a_report_inside_the_site_folder_is_a_usage_error_and_stays(pytester, base):
    folder = pytester.mkdir("site")
    report = folder / "rep.md"
    report.write_bytes(base.report.read_bytes())
    result = pytester.runpytest("--memreport", str(report), f"--memreport-repo={base.repo.path}",
                                f"--memreport-html={folder}")
    usage_error(result, f"ERROR: --memreport-html {folder}: holds the report site/rep.md, which this run reads; "
                        "give the site a folder of its own")
    assert report.read_bytes() == base.report.read_bytes() and os.listdir(folder) == ["rep.md"]


@pytest.mark.parametrize("option, name", [("--memreport-json", "results.json"), ("--memreport-sarif", "index.html"),
                                          ("--memreport-json", "deeper/out.json")])
def test_another_output_inside_the_site_folder_is_a_usage_error(pytester, base, option, name):
    folder = pytester.path / "site"
    result = pytester.runpytest(*base.args(f"--memreport-html={folder}", f"{option}={folder / name}"))
    usage_error(result, f"ERROR: {option} {folder / name}: is inside the --memreport-html folder {folder}, "
                        "which the site writes; give it a path outside that folder")
    assert not folder.exists()


def site_files(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in folder.iterdir()}


def test_the_site_keeps_what_the_user_saved_and_replaces_only_its_own_files(pytester, base):
    folder = pytester.path / "site"
    second = pytester.path / "second.txt"
    second.write_bytes(base.report.read_bytes())
    result = pytester.runpytest(*base.args("--memreport", str(second), f"--memreport-html={folder}"))
    assert_clean(result)
    first_site = site_files(folder)
    pages = {name for name in first_site if name.startswith("report-")}
    assert len(pages) == 2 and "index.html" in first_site
    # the user keeps notes in the site, and a manifest edited to claim more removes nothing else
    (folder / "notes.md").write_text("my triage notes\n", encoding="utf-8")
    (pytester.path / "outside.html").write_text("not the site's\n", encoding="utf-8")
    manifest = folder / ".memreport-site"
    manifest.write_text(manifest.read_text(encoding="utf-8") + "notes.md\n../outside.html\n", encoding="utf-8")
    result = pytester.runpytest(*base.args(f"--memreport-html={folder}"))  # one report now
    assert_clean(result)
    now = site_files(folder)
    assert now["notes.md"] == "my triage notes\n"
    assert (pytester.path / "outside.html").read_text(encoding="utf-8") == "not the site's\n"
    (page,) = {name for name in now if name.startswith("report-")}  # the page of second.txt went with it
    assert page in pages and "second.txt" not in now["index.html"] and "store.txt" in now["index.html"]
    assert set(now) == {"index.html", "style.css", ".memreport-site", "notes.md", page}
    # a page of the site's names that the user saved there is never replaced: refused before the run
    (folder / "report-mine.html").write_text("<p>mine</p>\n", encoding="utf-8")
    (folder / ".memreport-site").unlink()  # without its manifest, none of the folder is the site's
    result = pytester.runpytest(*base.args(f"--memreport-html={folder}"))
    usage_error(result, f"ERROR: --memreport-html {folder}: index.html in it was not written by this plugin, and "
                        "the site would replace it; move it away, or give another folder")
    assert (folder / "report-mine.html").read_text(encoding="utf-8") == "<p>mine</p>\n"


# ---------------------------------------------------------------- 12: names that would be workflow commands

INJECTED = "::warning title=INJECTED::owned"
#: lines GitHub reads as commands that the plugin writes itself
LEGITIMATE = re.compile(r"::(stop-commands::[0-9a-f]+|[0-9a-f]+::|(error|warning|notice) file=[^\n]*)\Z")


def under_github(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    """pytest as a GitHub Actions step runs it: its own process, GITHUB_ACTIONS=true, the output as bytes."""
    environment = dict(os.environ, PYTHONPATH=SRC, GITHUB_ACTIONS="true", GITHUB_WORKSPACE=str(cwd), **env)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly", *args],
                          cwd=cwd, env=environment, capture_output=True, timeout=300)


def commands_in(*texts: bytes) -> list[str]:
    """Every line of ``texts`` that a runner would read as a workflow command but the plugin's own."""
    lines = [line for text in texts for line in text.decode("utf-8", "replace").splitlines()]
    return [line for line in lines if line.lstrip().startswith("::") and not LEGITIMATE.match(line)]


def test_a_report_named_with_a_line_break_is_refused_in_one_line_before_collection(pytester, base):
    folder = pytester.mkdir("kb")
    name = f"x\n{INJECTED}.md"
    (folder / name).write_bytes(base.report.read_bytes())
    for given in (f"kb/{name}", "kb"):  # named, or found in a folder
        done = under_github(pytester.path, "--memreport", given, f"--memreport-repo={base.repo.path}", "-v")
        assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout.decode(errors="replace")
        assert [line for line in done.stderr.decode().splitlines() if line] == [
            f"ERROR: --memreport kb/x\\x0a{INJECTED}.md: the name holds a control character (\\x0a), which pytest "
            "would print as it is; rename the report"]
        assert commands_in(done.stdout, done.stderr) == [] and b"collected" not in done.stdout


def test_a_target_file_named_with_a_line_break_is_escaped_in_every_output(pytester, make_repo):
    repo = make_repo()
    pin = repo.commit({"ok.py": "LIMIT = 1\nRATE = 2\n"}, "first")
    evil = f"pkg/a\n{INJECTED}.py"
    repo.move("ok.py", evil)
    repo.commit({evil: "LIMIT = 1\nRATE = 3\n"}, "renamed to a name with a line break")
    (pytester.path / "rep.md").write_text(records_report(pin, "LIMIT = 1 --- ok.py", "RATE = 2 --- ok.py"),
                                          encoding="utf-8")
    summary = pytester.path / "summary.md"
    done = under_github(pytester.path, "--memreport", "rep.md", f"--memreport-repo={repo.path}", "-v", "-rA",
                        "--memreport-json=out.json", "--memreport-sarif=out.sarif", "--memreport-html=site",
                        GITHUB_STEP_SUMMARY=str(summary))
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout.decode(errors="replace")[-3000:]
    out = done.stdout.decode()
    assert f"ok.py moved to pkg/a\\x0a{INJECTED}.py" in out  # the staleness table's line, -v
    written = [summary, pytester.path / "out.json", pytester.path / "out.sarif", *(pytester.path / "site").iterdir()]
    assert len(written) == 7
    assert commands_in(done.stdout, done.stderr, *(path.read_bytes() for path in written)) == []
    assert any(line.startswith("::error file=rep.md,") for line in out.splitlines())


# ---------------------------------------------------------------- 14: previews patch -p1 and git apply apply

SHAPES = ["my report.md", "r\u00e9p \u2192 1.md", "nested/deeper/notes.md", "sub dir/n\u00e9sted/r\u00e9p 2.md"]
OUTSIDE = ["../outside/rep.md", "../outside dir/r\u00e9p 3.md"]


@pytest.mark.parametrize("names", [SHAPES, SHAPES + OUTSIDE, OUTSIDE[:1]], ids=["inside", "with-outside", "outside"])
def test_the_preview_of_every_name_shape_applies_with_patch_and_git_apply(tmp_path, make_repo, names):
    preview, written, diff = previewed(tmp_path, make_repo, *names)  # the run's whole output, as it is piped
    notes = [line.decode() for line in diff.splitlines() if line.startswith(b"# memreport: ")]
    if any(name.startswith("../") for name in names):
        # names relative to the folder holding the run folder and the reports outside it, said before them
        (note,) = notes
        assert note.endswith(f"every name below is relative to {preview.parent}: apply this diff there "
                             "(patch -p1, or git apply)")
        where = preview.parent
    else:
        assert notes == []
        where = preview
    headers = [line for line in diff.splitlines() if line.startswith((b"--- ", b"+++ "))]
    assert len(headers) == 2 * len(names) and not any(b"../" in line for line in headers)
    assert all(line.endswith(b"\t") for line in headers if b" " in line[4:])  # GNU diff's tab after a name with a space
    before = {name: (preview / name).read_bytes() for name in names}
    applies(where, diff)
    for name in names:
        assert (preview / name).read_bytes() == (written / name).read_bytes() != before[name]
