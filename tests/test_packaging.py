"""Ready to publish as a pytest plugin is expected to be: one version (pyproject, the CLI,
the JSON and SARIF outputs), a LICENSE matching pyproject's, type hints marked, a changelog."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest_memreport
from ci_support import build

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_version_has_one_source():
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "pytest_memreport.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", pytest_memreport.__version__)


def test_license_file_matches_pyproject_and_type_hints_are_shipped():
    assert PYPROJECT["project"]["license"] == {"text": "MIT"}
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
    assert "License :: OSI Approved :: MIT License" in PYPROJECT["project"]["classifiers"]
    assert (ROOT / "pytest_memreport" / "py.typed").is_file()
    assert PYPROJECT["tool"]["setuptools"]["package-data"]["pytest_memreport"] == ["py.typed", "outputs/templates/*"]


def test_the_html_templates_are_package_data():
    """The site's markup lives in template files, shipped with the package (``package-data``)."""
    import fnmatch

    templates = ROOT / "pytest_memreport" / "outputs" / "templates"
    names = sorted(p.name for p in templates.iterdir())
    assert {"page.html", "index.html", "report.html", "detail.html", "diff.html", "style.css", "index.js"} <= set(names)
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]["pytest_memreport"]
    assert all(any(fnmatch.fnmatch(f"outputs/templates/{name}", p) for p in patterns) for name in names)
    assert any(dependency.startswith("Jinja2") for dependency in PYPROJECT["project"]["dependencies"])


def test_the_changelog_names_the_current_version():
    assert f"## [{pytest_memreport.__version__}]" in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def test_the_cli_json_and_sarif_say_the_version(pytester, make_repo):
    base = build(pytester, make_repo)
    result = pytester.runpytest(*base.args("--memreport-json", "out.json", "--memreport-sarif", "out.sarif"))
    version = pytest_memreport.__version__
    result.stdout.fnmatch_lines([f"memreport: pytest-memreport {version}, 1 report(s), drift against HEAD"])
    assert json.loads((pytester.path / "out.json").read_text())["tool"] == {"name": "pytest-memreport",
                                                                             "version": version}
    driver = json.loads((pytester.path / "out.sarif").read_text())["runs"][0]["tool"]["driver"]
    assert driver["version"] == version


def test_the_readme_shows_the_set_up_commands_ci_runs():
    """.ci/run runs the README's own commands: the install with the example, and the
    suite (each ``run_pytest ARGS`` there is ``python3 -m pytest ARGS`` in the README)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    install = [line for line in ci if line.startswith("python3 -m pip install -q -e '.[test]'")]
    suite = [line.replace("run_pytest ", "python3 -m pytest ", 1) for line in ci if line.startswith("run_pytest ")]
    assert install and suite
    for command in install + suite:
        assert command in readme, command

