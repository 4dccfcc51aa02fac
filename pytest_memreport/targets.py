"""Where a run's evidence lies in its target, and which mentions are no evidence of it.

Mixed into :class:`~pytest_memreport.engine.Engine`: paths written loosely (bare
names, partial and elided paths, folders without their slash, the analyst's
checkout paths) are resolved against the pinned tree (:mod:`.checks.paths`); a
mention found nowhere is *not evidence* when it is a path of the report's own
folders or cites no lines under a top folder the tree does not have (one
skipped item says why), and a failure otherwise. An inline quotation whose
first letter was adapted to its sentence is found.
"""

from __future__ import annotations

from dataclasses import replace

from .checks import paths as tree_paths
from .checks import verify
from .binding import Binding
from .gitstore import GitStore
from .model import LOOKUP_CHECKOUT, Evidence, EvidenceKind, Report



class TargetPaths:
    """The path-resolving part of the engine (its bindings, caches and announcements)."""

    def _adapted_initial(self, evidence: Evidence, snapshot, missing: verify.PinResult) -> verify.PinResult:
        """An inline quotation whose first letter was adapted to the sentence around it
        (``the "current estimate ..." reading`` of ``Current estimate ...``) is found; any
        other difference of case still is not."""
        text = evidence.text or ""
        if not text[:1].isalpha():
            return missing
        variant = replace(evidence, text=text[0].swapcase() + text[1:])
        found = verify.check_at_pin(variant, snapshot, with_symbol=self.options.want_symbols)
        if not found.ok:
            return missing
        return replace(found, note="the quotation's first letter is capitalised differently in the file")

    def _tree_index(self, binding: Binding) -> tree_paths.TreeIndex:
        key = (binding.store.path, binding.pin)
        index = self._tree_indexes.get(key)
        if index is None:
            index = self._tree_indexes[key] = tree_paths.TreeIndex.build(
                binding.store.snapshot(binding.pin).files())
        return index

    def _resolve_path(self, report: Report, evidence: Evidence) -> Evidence:
        """A loosely written path bound to the one path of the pinned tree it names;
        several candidates are remembered so the pin check can list them, and a
        mention that is no target evidence at all is remembered with its reason."""
        binding = self.binding(report, evidence.source, evidence.pin)
        if binding.pin is None:
            return evidence
        index = self._tree_index(binding)
        source = report.source(evidence.source)
        subject = source.subject if source is not None else None
        want = {EvidenceKind.DIRECTORY: "dir", EvidenceKind.PATH: "any"}.get(evidence.kind, "file")
        absolute = evidence.lookup == LOOKUP_CHECKOUT
        found = tree_paths.resolve(index, evidence.path, want, subject, absolute=absolute)
        if found.path is not None:
            if found.path == evidence.path:
                return evidence
            resolved = replace(evidence, path=found.path, written=evidence.path)
            self._mapped[(report.path, resolved)] = f"`{evidence.path}` read as {found.path} ({found.how})"
            if absolute:
                root = evidence.path[: len(evidence.path) - len(found.path)].rstrip("/")
                if (binding.store.path, root) not in self._announced_roots:
                    self._announced_roots.add((binding.store.path, root))
                    self._announce(f"memreport: mapped the checkout {root} onto {binding.store.path} "
                                   f"(no checkout root stated; longest suffix in the pinned tree)")
            return resolved
        if found.candidates:
            self._ambiguous[(report.path, evidence)] = list(found.candidates)
            return evidence
        reason = self._not_target(report, evidence, index, subject, binding.store)
        if reason is not None:
            self._not_evidence_reasons[(report.path, evidence)] = reason
        return evidence

    def _in_own_folders(self, report: Report, relative: str, store: GitStore) -> bool:
        """Whether ``relative`` exists beside the report or in a folder above it (a
        knowledge base's own files), not counting the target's own working tree."""
        folder = self.report_file(report).resolve().parent
        target = store.path.resolve()
        for ancestor in [folder, *list(folder.parents)[:4]]:
            if ancestor == target or target in ancestor.parents or ancestor in target.parents:
                break
            try:
                if (ancestor / relative).exists():
                    return True
            except OSError:
                continue
        return False

    def _not_target(self, report: Report, evidence: Evidence, index, subject: str | None,
                    store: GitStore) -> str | None:
        """Why a path found nowhere at the pin is no evidence of the target, or ``None``
        when it is (and so fails): a file of the report's own folders, or a mention that
        cites no lines and whose top folder the pinned tree does not have."""
        written = evidence.path
        relative = written.strip("/")
        if not written.startswith(("/", "~")) and relative and self._in_own_folders(report, relative, store):
            return f"`{written}` is a path of the report's own folders (its run, its knowledge base), not of the target"
        if evidence.kind not in (EvidenceKind.PATH, EvidenceKind.DIRECTORY):
            return None  # cited lines or a quotation of a missing file: a failure
        if written.startswith("~"):
            return f"`{written}` is a path in a user's home folder, not of the target"
        if evidence.lookup == LOOKUP_CHECKOUT:
            return f"`{written}` lies outside the target's checkout and cites no lines"
        if not index.top_exists(written, subject):
            head = written.strip("/").split("/", 1)[0]
            what = f"no {head!r} anywhere" if "/" not in written.strip("/") else f"no top folder {head!r}"
            return f"`{written}`: the pinned tree has {what}, and no line anchor or quotation cites it"
        return None

    def _backticked(self, report: Report, evidence: Evidence) -> None:
        """A review's backticked word that looks like a path is evidence only if the pin
        has it; otherwise it is one "not evidence" item, as in analysis runs."""
        binding = self.binding(report, evidence.source, evidence.pin)
        if binding.pin is None:
            return
        index = self._tree_index(binding)
        if not index.has(evidence.path.strip("/"), "any"):
            self._not_evidence_reasons[(report.path, evidence)] = f"`{evidence.path}` is not a path at the pin"

    def not_evidence(self, report: Report, evidence: Evidence) -> str | None:
        """Why a mention that looks like a path is no evidence of the target (one
        skipped item says so), or ``None``. Known once :meth:`checkable` saw it."""
        return evidence.declared_not_evidence or self._not_evidence_reasons.get((report.path, evidence))
