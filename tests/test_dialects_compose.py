"""Dialects share a core by composition (issue 49): no dialect module subclasses a class
of another dialect or reaches for another dialect's private names; what two dialects
both need lives in ``dialects/core/`` under a public name."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_memreport.dialects as dialects_package

FOLDER = Path(dialects_package.__file__).parent
PACKAGE = "pytest_memreport.dialects"
#: the registered dialects, each a module or a package of the dialects package
#: (helper modules such as ``tablefacts`` belong to no dialect and are checked as any module)
DIALECTS = frozenset(parse.__module__[len(PACKAGE) + 1:].split(".")[0]
                     for parse in dialects_package.DIALECTS.values())


def _module_name(relative: Path) -> str:
    parts = list(relative.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([PACKAGE, *parts])


def _dialect_of(module: str) -> str | None:
    """The dialect a module of the package belongs to (``None``: the shared core, a helper, the package)."""
    if not module.startswith(PACKAGE + "."):
        return None
    first = module[len(PACKAGE) + 1:].split(".")[0]
    return first if first in DIALECTS else None


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The module an ``ImportFrom`` in ``module`` names."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[:len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def crossings(module: str, source: str, *, is_package: bool = False) -> list[str]:
    """Where ``source`` (the module ``module``) subclasses another dialect's class or uses
    another dialect's private name, one line each."""
    own = _dialect_of(module)
    modules: dict[str, str] = {}  # local name -> another dialect's module
    names: dict[str, str] = {}  # local name -> a name imported from another dialect
    found = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _absolute(module, is_package, node)
            for alias in node.names:
                local = alias.asname or alias.name
                submodule = f"{target}.{alias.name}"
                if _dialect_of(submodule) not in (None, own) and target == PACKAGE:
                    modules[local] = submodule  # ``from . import review``
                elif _dialect_of(target) not in (None, own):
                    names[local] = f"{target}.{alias.name}"
                    if alias.name.startswith("_"):
                        found.append(f"{module}:{node.lineno}: imports {target}.{alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if _dialect_of(alias.name) not in (None, own):
                    modules[alias.asname or alias.name] = alias.name
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules
                and node.attr.startswith("_")):
            found.append(f"{module}:{node.lineno}: uses {modules[node.value.id]}.{node.attr}")
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                root = base
                while isinstance(root, ast.Attribute):
                    root = root.value
                if isinstance(root, ast.Name) and (root.id in modules or root.id in names):
                    found.append(f"{module}:{node.lineno}: class {node.name} subclasses {ast.unparse(base)}"
                                 " of another dialect")
    return found


def test_no_dialect_subclasses_or_reaches_into_another() -> None:
    found = []
    for path in sorted(FOLDER.rglob("*.py")):
        relative = path.relative_to(FOLDER)
        found += crossings(_module_name(relative), path.read_text(encoding="utf-8"),
                           is_package=path.name == "__init__.py")
    assert found == [], "share it through dialects/core/ instead:\n" + "\n".join(found)


def test_the_check_sees_a_subclass_of_another_dialects_parser() -> None:
    # How notes was built before: subclassing review's private parser, calling its helpers.
    source = (
        "from . import core, review\n"
        "from .review import _strip_marker, repo_path_spec\n"
        "class _Parser(review._Parser):\n"
        "    def pin(self, a, b):\n"
        "        return review._same_commit(a, b) and _strip_marker(a) and repo_path_spec(b)\n"
    )
    found = crossings(f"{PACKAGE}.notes", source)
    assert sorted(found) == sorted([
        f"{PACKAGE}.notes:2: imports {PACKAGE}.review._strip_marker",
        f"{PACKAGE}.notes:3: uses {PACKAGE}.review._Parser",
        f"{PACKAGE}.notes:5: uses {PACKAGE}.review._same_commit",
        f"{PACKAGE}.notes:3: class _Parser subclasses review._Parser of another dialect",
    ])


def test_the_registered_dialects_are_the_ones_checked() -> None:
    assert {"review", "notes", "tables", "records"} <= DIALECTS
    assert "core" not in DIALECTS


def test_the_check_lets_a_dialect_use_the_core_and_its_own_modules() -> None:
    source = (
        "from .core import linked\n"
        "from .core.linked import LinkReader, strip_marker\n"
        "from . import core\n"
        "from .vocabulary import _FIELDS\n"
        "class _Note:\n"
        "    pass\n"
        "class Reader(LinkReader):\n"
        "    def f(self):\n"
        "        return linked._private, core._x, _FIELDS, strip_marker\n"
    )
    assert crossings(f"{PACKAGE}.records.parse", source) == []
    # A class imported from another dialect is a base all the same.
    assert crossings(f"{PACKAGE}.notes", "from .review import Reader\nclass Note(Reader):\n    pass\n") == [
        f"{PACKAGE}.notes:2: class Note subclasses Reader of another dialect"]
