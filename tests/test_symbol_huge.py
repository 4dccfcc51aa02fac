"""A symbol naming a huge definition: its drift and blame cost a bounded number of parses."""

from __future__ import annotations

from pytest_memreport.checks import symbolrefs
from pytest_memreport.gitstore import GitStore
from pytest_memreport.model import Evidence, EvidenceKind
from pytest_memreport.text import symbols


def _machine(methods: int, edits: dict[int, str]) -> str:
    lines = ['"""States."""', "", "", "class Machine:"]
    for m in range(methods):
        lines += [f"    def on_{m}(self, event):", edits.get(m, f"        return self.states[{m}]"), ""]
    return "\n".join(lines) + "\n"


def test_blame_of_a_huge_definition_parses_no_version_of_its_history(make_repo, monkeypatch):
    """A 600-line class, commented (layout only) three times, then changed, then
    commented again: the change is named, and no version between pin and HEAD is parsed."""
    repo = make_repo()
    edits: dict[int, str] = {}
    pin = repo.commit({"pkg/machine.py": _machine(200, edits), "notes.txt": "0\n"}, "pin")
    for k in range(3):
        edits[10 + k] = f"        return self.states[{10 + k}]  # checked {k}"
        repo.commit({"pkg/machine.py": _machine(200, edits)}, f"comment {k}")
    edits[150] = "        return self.states[150] or self.default"
    culprit = repo.commit({"pkg/machine.py": _machine(200, edits)}, "a default state")
    for k in range(3):
        edits[20 + k] = f"        return self.states[{20 + k}]  # later {k}"
        repo.commit({"pkg/machine.py": _machine(200, edits)}, f"later {k}")

    evidence = Evidence(EvidenceKind.SYMBOL, "pkg/machine.py", 1, 1, text="Machine")
    with GitStore.open(repo.path) as store:
        found = symbolrefs.at_pin(evidence, store.snapshot(pin))
        assert found.ok and found.lines.end - found.lines.start > symbols.WHOLE_LINES
        searched: list[str] = []  # the files a definition was looked for in (each one parsed whole)
        real = symbols.find_definitions

        def counting(text, path, *args, **kwargs):
            searched.append(path)
            return real(text, path, *args, **kwargs)

        monkeypatch.setattr(symbols, "find_definitions", counting)
        result = symbolrefs.classify(evidence, found, store, pin, store.snapshot("HEAD"))
    assert result.enclosing_changed and "or self . default" in result.enclosing_diff
    assert result.broken_by is not None and result.broken_by.sha == culprit
    assert searched == ["pkg/machine.py"]  # HEAD's file, to find the definition; no version of the bisection
