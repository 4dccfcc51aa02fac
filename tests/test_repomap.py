"""The repository map as plain functions: templates, ini lines, letter case on disk, typos."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_memreport.options import OptionError
from pytest_memreport.repomap import Mapping, RepoMap, check_template, find_on_disk, parse_repo_lines


@pytest.mark.parametrize("template", ["~/src/{owner}/{name}", "/mirrors/{owner}+{name}/repo", "clones/{name}"])
def test_templates_with_owner_and_name_are_accepted(template):
    assert check_template(template, "--memreport-repo-template") == template


@pytest.mark.parametrize(("template", "message"), [
    ("~/src/{org}/{name}", "unknown key {org}"),
    ("~/src/{}/{name}", "unknown key {}"),
    ("~/src/{owner!r}/{name}", "give {owner} plainly"),
    ("~/src/{owner}", "give {name}"),
    ("~/src/{owner/{name}", "give a path with {owner} and {name}"),
])
def test_a_template_with_other_keys_is_refused(template, message):
    with pytest.raises(OptionError, match=message.replace("{", r"\{").replace("}", r"\}")):
        check_template(template, "--memreport-repo-template")


def test_ini_lines_are_relative_to_the_ini_folder(tmp_path):
    lines = ["", "# targets", "acme/widget = ../clones/widget", "Zeta/Lib=/abs/lib"]
    mappings = parse_repo_lines(lines, tmp_path / "ci", "ini key memreport_repos")
    assert [(m.key, m.path) for m in mappings] == [
        ("acme/widget", str(tmp_path / "ci" / "../clones/widget")), ("Zeta/Lib", "/abs/lib")]


@pytest.mark.parametrize(("line", "message"), [
    ("acme/widget", "is not `owner/name = PATH`"),
    ("widget = x", "is not `owner/name = PATH`"),
    ("acme/widget =", "acme/widget has no path"),
])
def test_bad_ini_lines_are_refused(tmp_path, line, message):
    with pytest.raises(OptionError, match=message):
        parse_repo_lines([line], tmp_path, "ini key memreport_repos")


def test_a_key_mapped_twice_in_another_case_is_refused(tmp_path):
    with pytest.raises(OptionError, match="mapped twice"):
        parse_repo_lines(["acme/widget = a", "ACME/widget = b"], tmp_path, "ini")


def test_a_folder_in_another_letter_case_is_found_when_it_is_the_only_one(tmp_path):
    (tmp_path / "Zeta" / "Lib").mkdir(parents=True)
    assert find_on_disk(tmp_path / "zeta" / "lib") == (tmp_path / "Zeta" / "Lib", None)
    (tmp_path / "ZETA").mkdir()
    found, problem = find_on_disk(tmp_path / "zeta" / "lib")
    assert found is None and "2 folders match it in another letter case (ZETA, Zeta)" in problem


def test_lookups_are_case_insensitive_and_typos_get_a_suggestion(tmp_path):
    (tmp_path / "acme" / "widget").mkdir(parents=True)
    repo_map = RepoMap((Mapping("Beta/Tool", "/clones/tool", "--memreport-repo Beta/Tool=/clones/tool"),),
                       "{owner}/{name}", "--memreport-repo-template", tmp_path)
    assert repo_map.lookup("beta/tool").path == Path("/clones/tool")
    assert repo_map.lookup("ACME/Widget").path == tmp_path / "acme" / "widget"
    missing = repo_map.lookup("acme/widgets")
    assert missing.path is None and missing.problem.endswith("does not exist (from --memreport-repo-template "
                                                             "{owner}/{name})")
    assert repo_map.suggestion("beta/tol") == "Beta/Tool"
    assert repo_map.suggestion("acme/widgets", {"acme/widget", "acme/widgets"}) == "acme/widget"
    assert repo_map.suggestion("gamma/nowhere", {"acme/widget"}) is None
    assert [m.key for m in repo_map.unused({"BETA/tool"})] == []
    assert [m.key for m in repo_map.unused(set())] == ["Beta/Tool"]


@given(st.text(alphabet="abcXYZ-_.", min_size=1, max_size=8), st.text(alphabet="abcXYZ-_.", min_size=1, max_size=8))
def test_any_spelling_of_a_mapped_key_finds_it(owner, name):
    repo_map = RepoMap((Mapping(f"{owner}/{name}", "/clones/x", "ini"),))
    assert repo_map.lookup(f"{owner.swapcase()}/{name.upper()}").path == Path("/clones/x")
