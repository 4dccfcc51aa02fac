"""A small knowledge base for the CI-output tests: one target, one report whose evidence
ends up unchanged, changed (MEM-OBJ-limits, line 15), deleted (MEM-OBJ-cache, line 27),
moved (MEM-OBJ-helper, line 33) and warned about (MEM-OBJ-put, line 21: its enclosing
definition was rewritten around the quoted line)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

LIMITS = "".join(f"LIMIT_{i} = {i * 7}\n" for i in range(1, 6))
STORE = "def put(store, key, value):\n    store[key] = value\n    return len(store)\n"
STORE_EDITED = "def put(store, key, value):\n    store[key] = value\n    return len(store) + 0\n"
CACHE = "CACHE_SIZE = 512\n"
UTIL = 'HELPER_NAME = "help"\n'


def report_text(pin: str) -> str:
    return f"""Tiny store report

Boundary and evidence

SRC-1 commit {pin}.

Operative objects

MEM-OBJ-limits

Label: Limits

LIMIT_1 = 7 --- pkg/limits.py

LIMIT_2 = 14 --- pkg/limits.py

MEM-OBJ-put

Label: Store put

store[key] = value --- pkg/store.py

MEM-OBJ-cache

Label: Cache

CACHE_SIZE = 512 --- pkg/cache.py

MEM-OBJ-helper

Label: Moved helper

HELPER_NAME = "help" --- pkg/util.py
"""


@dataclass
class Base:
    repo: object
    report: Path
    pin: str

    def args(self, *more: str) -> list[str]:
        return ["--memreport", str(self.report), f"--memreport-repo={self.repo.path}", "-p", "no:randomly", *more]


def build(pytester, make_repo, name: str = "store.txt") -> Base:
    """The target at its pin and one commit later: LIMIT_2 changed, cache.py deleted,
    util.py moved, put's body edited around an unchanged quoted line (a warning)."""
    repo = make_repo()
    pin = repo.commit({"pkg/limits.py": LIMITS, "pkg/store.py": STORE, "pkg/cache.py": CACHE, "pkg/util.py": UTIL},
                      "first")
    repo.delete("pkg/cache.py")
    repo.move("pkg/util.py", "pkg/core/util.py")
    repo.commit({"pkg/limits.py": LIMITS.replace("LIMIT_2 = 14", "LIMIT_2 = 15"), "pkg/store.py": STORE_EDITED},
                "edit")
    report = pytester.path / name
    report.write_text(report_text(pin), encoding="utf-8")
    return Base(repo, report, pin)
