"""One error family: every exception class of the package is a MemreportError (every
warning a MemreportWarning) with a code of its own, documented in docs/ERRORS.md."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import pytest_memreport
from pytest_memreport.errors import MemreportError, MemreportWarning

ERRORS_DOC = Path(__file__).resolve().parent.parent / "docs" / "ERRORS.md"


def _classes_defined_in_package() -> list[type[Exception]]:
    """Every Exception subclass defined (not imported) in a module of the package."""
    found = []
    for info in pkgutil.walk_packages(pytest_memreport.__path__, "pytest_memreport."):
        module = importlib.import_module(info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if value.__module__ == module.__name__ and issubclass(value, Exception):
                found.append(value)
    return found


CLASSES = _classes_defined_in_package()


def test_the_walk_finds_the_errors_of_every_layer():
    names = {cls.__name__ for cls in CLASSES}
    # one of each layer, so an empty or partial walk cannot pass the tests below
    assert {"OptionError", "ReportError", "ClaimsError", "RepoError", "CannotRun", "StoreBroken",
            "OutputError", "WritebackError", "BaseRunError", "CheckFailed", "MemreportConfigWarning"} <= names
    assert len(CLASSES) >= 22


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: f"{cls.__module__}.{cls.__name__}")
def test_every_exception_class_is_of_the_family_with_a_code_of_its_own(cls):
    base = MemreportWarning if issubclass(cls, Warning) else MemreportError
    assert issubclass(cls, base), f"{cls.__module__}.{cls.__name__} does not derive from {base.__name__}"
    assert "code" in vars(cls), f"{cls.__name__} inherits its code; give it one of its own"
    assert re.fullmatch(r"MR\d{3}", cls.code)


def test_codes_are_unique():
    by_code: dict[str, list[str]] = {}
    for cls in CLASSES:
        by_code.setdefault(cls.code, []).append(cls.__name__)
    assert {code: names for code, names in by_code.items() if len(names) > 1} == {}


def test_every_code_is_documented_with_its_class():
    doc = ERRORS_DOC.read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| (MR\d{3}) \| `(\w+)` \|", doc, re.MULTILINE))
    assert rows == {cls.code: cls.__name__ for cls in CLASSES}


def test_a_usage_error_is_caught_as_a_memreport_error_and_keeps_its_message(make_repo):
    from pytest_memreport.gitstore import GitStore, RevisionError

    repo = make_repo()
    repo.commit({"a.txt": "x\n"}, "first")
    store = GitStore.open(repo.path)
    with pytest.raises(MemreportError) as caught:
        store.resolve("no-such-revision")
    assert isinstance(caught.value, RevisionError)
    assert caught.value.code == "MR202"
    assert "no-such-revision" in str(caught.value)
    store.close()
