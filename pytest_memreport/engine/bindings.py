"""A report's source bound to what it is checked in: a repository, a resolved pin and
the against-revision drift is checked at."""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from ..checks import clones
from ..dialects.core import anchors
from ..gitstore import GitStore, RepoError, RevisionError
from ..model import Report, Source, run_pin_key
from ..text import render
from ..options import AGAINST_NONE, AGAINST_WORKTREE, RunOptions
from .timing import Timing

if TYPE_CHECKING:
    from .claims import ClaimsRegistry
    from .reports import ReportSet
    from .repositories import TargetRepositories


@dataclass(frozen=True, slots=True)
class PinnedTree:
    """A checkable binding's repository and the commit its pin resolved to."""

    store: GitStore
    pin: str

    @property
    def key(self) -> tuple[Path, str]:
        """``(repository path, pin sha)``: what git is asked once for."""
        return self.store.path, self.pin


@dataclass(frozen=True)
class Binding:
    """Where one source of one report is checked: a repository and a resolved pin.

    When the source cannot be checked, ``store`` or ``pin`` is ``None`` and
    ``problem`` says why in one line (``pin_status`` is then
    ``missing-commit`` or ``unpinned``; ``no-repo`` when the repository
    itself is unavailable).
    """

    source_id: str
    store: GitStore | None
    pin: str | None
    pin_status: str
    problem: str | None = None
    repo_label: str = ""
    stated_pin: str | None = None
    line: int | None = None
    #: the branches its evidence links where the report pins nothing (``main``): an unpinned
    #: source cited only that way is skipped, not failed (the report claims no commit)
    branches: tuple[str, ...] = ()
    #: the repository key its problem asks the user to map (``--memreport-repo KEY=PATH``)
    key_to_map: str | None = None

    @property
    def checkable(self) -> bool:
        return self.store is not None and self.pin is not None

    @cached_property  # asked for by every piece of evidence's check: made once
    def pinned(self) -> PinnedTree | None:
        """The repository and resolved pin; ``None`` when the source cannot be checked."""
        if self.store is None or self.pin is None:
            return None
        return PinnedTree(self.store, self.pin)


def is_register_entry(source_id: str) -> bool:
    """Whether a source ID is a register entry (``SRC-1``): the document's own numbering, no
    repository's name."""
    return anchors.ENTRY_ID.fullmatch(source_id) is not None


def said_at(report: Report, source: Source, text: str) -> render.Said:
    """``text`` said at the ``file:line`` where a source (its register row or pin) is stated."""
    return render.Said(source.file or report.path, source.line or None, text)


def _pinned_elsewhere(link_pin: str, stated: str | None) -> bool:
    """Whether a link's own commit is not the report's pin for its repository."""
    if not stated:
        return False
    one, two = link_pin.lower(), stated.lower()
    return not (one.startswith(two) or two.startswith(one))


class Bindings:
    """Every source's binding and every repository's against-revision, resolved once."""

    def __init__(self, options: RunOptions, reports: ReportSet, claims: ClaimsRegistry,
                 repositories: TargetRepositories, timing: Timing) -> None:
        self._options = options
        self._reports = reports
        self._claims = claims
        self._repositories = repositories
        self._timing = timing
        self._bindings: dict[tuple[str, str | None, str | None], Binding] = {}
        self._against: dict[Path, str | RevisionError] = {}
        #: (repository, revisions) whose missing objects a source item has warned about
        self._incomplete_said: set = set()
        #: (repository, pin, against) -> why a shallow clone cannot show the history between them
        self._cut: dict[tuple[Path, str, str], str | None] = {}
        #: repository -> the commit every source bound to it is checked at, whatever the
        #: report pins (``--memreport-affected``: the range's base, :mod:`.affected`)
        self.range_pins: dict[Path, str] = {}
        #: the loaded reports' pinned sources by folder (an unpinned document's hint), once
        self._folder_pins: dict[Path, list[tuple[Report, Source]]] | None = None

    def release(self) -> None:
        """Let go of the bindings (each holds its repository's store and the store its
        caches); asked again, they are made again."""
        self._bindings.clear()
        self._against.clear()
        self._cut.clear()

    @property
    def drift_enabled(self) -> bool:
        return self._options.against.lower() != AGAINST_NONE

    def binding(self, report: Report, source_id: str | None, pin: str | None = None) -> Binding:
        """Resolve the repository and pinned commit for evidence of ``source_id``.

        ``pin`` is an evidence's own commit (a review link); otherwise the
        override, then the report's stated pin, applies.
        """
        key = (report.path, source_id, pin)
        found = self._bindings.get(key)
        if found is None:
            found = self._bindings[key] = self._bind(report, source_id, pin)
        return found

    def stated_pin(self, report: Report, source_id: str | None, own_pin: str | None = None) -> str | None:
        """The revision a source's evidence is checked at, as given (not resolved): an
        evidence's own commit, the override, the claims file's pin, the report's."""
        source = report.source(source_id) or Source(id=source_id or "SRC-1")
        pins = self._options.pins
        claimed = self._claims.claims_for(report).source(source.id)
        claimed_pin = claimed.pin if claimed is not None else None
        key = run_pin_key(pins, source.id)
        override = pins[key] if key is not False else None
        if own_pin and override and not _pinned_elsewhere(own_pin, claimed_pin or source.pin):
            # --memreport-pin moves the links at the report's own pin too (not those
            # citing another commit on purpose).
            own_pin = None
        return own_pin or override or claimed_pin or source.pin

    def _bind(self, report: Report, source_id: str | None, own_pin: str | None) -> Binding:
        source = report.source(source_id) or Source(id=source_id or "SRC-1")
        sid = source.id
        stated = self.stated_pin(report, source_id, own_pin)
        branches = _branches_only(report, source) if stated is None else ()
        if branches:  # (no clone would help: the report names no commit to check its links at)
            return Binding(
                sid, None, None, "unpinned",
                said_at(report, source, f"{sid} is cited only by links to a branch ({', '.join(branches)}), "
                        f"at no commit: give --memreport-pin {sid}=REV to check them at a revision"),
                stated_pin=None, line=source.line, branches=branches)
        try:
            store: GitStore | None = self._repositories.store_for(report, source_id)
        except RepoError as exc:
            if stated is None and source.repository is None and is_register_entry(sid):
                # (a document naming neither its repository nor a commit: the missing pin is what to
                # say, not that its folder is no clone; a repository it names is asked for by name)
                store = None
            else:
                said = exc.args[0] if exc.args and isinstance(exc.args[0], render.Said) else str(exc)
                return Binding(sid, None, None, "no-repo", said, stated_pin=stated, line=source.line,
                               key_to_map=exc.key)
        label = str(store.path) if store is not None else ""
        if store is not None and store.path in self.range_pins:
            return Binding(sid, store, self.range_pins[store.path], "ok", None, label, stated, source.line)
        if stated is None:
            looks = report.meta.get("pin-like")
            seen = (f"; line {looks[0]} looks like one but is not read as a pin ({render.clip(looks[1], 80)}): "
                    f"write it as `Revision: <sha>`" if looks else "")
            # (a record report registers its sources; any other document states its pin in words)
            example = f"`{sid} commit <sha>`" if report.dialect == "records" and report.records else \
                "a line `Pinned to <owner/name> at <sha>`"
            return Binding(
                sid, store, None, "unpinned",
                said_at(report, source, f"no pinned commit for {sid}{seen}; state it in the report "
                        f"(e.g. {example}) or give --memreport-pin {sid}=REV{self._pinned_beside(report)}"),
                label, None, source.line,
            )
        assert store is not None  # (only a report stating no pin goes on without its clone)
        try:
            start = time.perf_counter()
            sha = store.resolve(stated)
            self._timing.add("git", time.perf_counter() - start)
        except RevisionError as exc:
            if self._repositories.default_folder(report, source_id) and source.repository:
                # The report names the pin's repository, which nothing maps: the knowledge base's
                # own clone was tried for it (the report may live in its target) and lacks it.
                said = self._repositories.unmapped_problem(report, source.repository)
                return Binding(sid, store, None, "no-repo",
                               said_at(report, source, f"{said.text} (the report's own repository, {store.path}, "
                                                       f"lacks commit {render.short(stated)})"),
                               label, stated, source.line, key_to_map=source.repository)
            if self._repositories.default_folder(report, source_id):
                # Nothing names or maps the pin's repository, and the knowledge base's own clone
                # lacks it: the pin may be another repository's (name it), or this clone stale.
                fix = (f"if it is {source.mentioned[0]}, which the report names, give --memreport-repo "
                       f"{source.mentioned[0]}=PATH" if len(source.mentioned) == 1 else
                       f"name it beside the pin (`owner/name@<sha>`) or give --memreport-repo {sid}=PATH")
                return Binding(sid, store, None, "no-repo",
                               said_at(report, source, f"commit {stated} is not in the report's own repository "
                                                       f"({store.path}), and the report does not say which "
                                                       f"repository it is of: {fix}; if it is this one: "
                                                       f"{exc}"),
                               label, stated, source.line)
            report_file = self._reports.report_file(report)
            guidance = clones.pin_guidance(store, sid, clones.report_date(report, report_file), stated)
            return Binding(sid, store, None, "missing-commit", said_at(report, source, f"{exc}; {guidance}"), label,
                           stated, source.line)
        return Binding(sid, store, sha, "ok", None, label, stated, source.line)

    def _pinned_beside(self, report: Report) -> str:
        """A hint for an unpinned document: the pin a document of its folder states (a trial
        folder's README), which applies to that document only (``""`` when none does)."""
        beside = [(other, source) for other, source in self._pins_by_folder().get(self._folder_of(report), ())
                  if other is not report]
        # (only where the folder's documents state one commit: a folder of unrelated documents
        # pinning several says nothing of this one)
        if not beside or len({(source.pin or "")[:12].lower() for _, source in beside}) != 1:
            return ""
        other, pinned = beside[0]
        named = pinned.repository or (pinned.mentioned[0] if pinned.mentioned else pinned.id)
        return (f" ({other.path} beside it pins {named} at {render.short(pinned.pin)}; a pin applies to "
                f"its own document: if this one reads that commit too, say so here)")

    def _folder_of(self, report: Report) -> Path:
        return self._reports.report_file(report).resolve().parent

    def _pins_by_folder(self) -> dict[Path, list[tuple[Report, Source]]]:
        """The pinned sources of the loaded reports, by their reports' folder (computed once)."""
        if self._folder_pins is None:
            self._folder_pins = {}
            for other in self._reports.loaded():
                for source in other.sources:
                    if source.pin:
                        self._folder_pins.setdefault(self._folder_of(other), []).append((other, source))
        return self._folder_pins

    def _stated_and_located(self, report: Report, source_id: str | None, pin: str | None) -> bool:
        """Whether a source states a pin and its repository opens (no pin is resolved)."""
        if self.stated_pin(report, source_id, pin) is None:
            return False
        try:
            self._repositories.store_for(report, source_id)
        except RepoError:
            return False
        return True

    # -- the against-revision ---------------------------------------------------------
    def against_rev(self, store: GitStore) -> str:
        """The against-revision in ``store``: a commit sha or ``worktree``; raises RevisionError."""
        found = self._against.get(store.path)
        if found is None:
            wanted = self._options.against
            try:
                if wanted.lower() == AGAINST_WORKTREE and store.is_bare:
                    # Said once by the source item, rather than by every drift item.
                    raise RevisionError(f"{store.path} is a bare repository and has no working tree; "
                                        "give a revision instead")
                found = AGAINST_WORKTREE if wanted.lower() == AGAINST_WORKTREE else store.resolve(wanted)
            except RevisionError as exc:
                found = RevisionError(f"--memreport-against {wanted}: {exc}")
                found.__cause__ = exc  # what the store said, for a message naming the option once
            self._against[store.path] = found
        if isinstance(found, RevisionError):
            raise found
        return found

    def against_or_none(self, binding: Binding) -> str | None:
        """The against-revision of a checkable binding with drift on; ``None`` otherwise,
        and when a shallow clone cuts the history between the pin and it (:meth:`cut_history`)."""
        if not self.drift_enabled or binding.store is None or binding.pin is None:
            return None
        try:
            against = self.against_rev(binding.store)
        except RevisionError:
            return None
        return None if self.cut_history(binding, against) else against

    def cut_history(self, binding: Binding, against: str) -> str | None:
        """Why a shallow clone cannot show the history from the binding's pin to ``against``
        (:func:`.checks.clones.cut_history`), asked once per pair; ``None`` when it can."""
        if binding.store is None or binding.pin is None or against == binding.pin:
            return None
        key = (binding.store.path, binding.pin, against)
        if key not in self._cut:
            start = time.perf_counter()
            self._cut[key] = clones.cut_history(binding.store, binding.pin, against)
            self._timing.add("git", time.perf_counter() - start)
        return self._cut[key]

    def against_label(self, binding: Binding) -> str | None:
        """What JSON and the source item say drift is checked against."""
        if not self.drift_enabled or binding.store is None:
            return None
        try:
            return self.against_rev(binding.store)
        except RevisionError as exc:
            return f"error: {exc}"

    def against_problem(self, binding: Binding) -> str | None:
        if not self.drift_enabled or binding.store is None:
            return None
        try:
            against = self.against_rev(binding.store)
        except RevisionError as exc:
            return str(exc)
        return self.cut_history(binding, against)

    def incomplete_clone(self, binding: Binding) -> str | None:
        """One line when the clone lacks objects of the pin's or the against tree
        (:func:`.checks.clones.incomplete_clone`), said once per clone and revisions."""
        if binding.store is None or binding.pin is None:
            return None
        revs = [binding.pin]
        if self.drift_enabled:
            try:
                revs.append(self.against_rev(binding.store))
            except RevisionError:
                pass
        key = (binding.store.path, tuple(revs))
        if key in self._incomplete_said:
            return None  # said once, not by every source the clone serves
        start = time.perf_counter()
        message = clones.incomplete_clone(binding.store, revs)
        self._timing.add("git", time.perf_counter() - start)
        if message is not None:
            self._incomplete_said.add(key)
        return message

    def unchecked(self, report: Report, resolve: bool = True) -> tuple[str, str, list[Binding]] | None:
        """Why none of the report's evidence can be checked against a repository:
        ``(code, one line, bindings)``; ``None`` when some of it can.

        Without ``resolve`` (a listing, ``--collect-only``) a source whose repository opens and
        whose pin is stated counts as checkable: no pin is resolved, so a clone that lacks it
        is found out when the items run, not when they are listed.

        Codes: ``no-evidence``, ``no-repository``, ``pin-missing``, ``unpinned``
        (see :data:`~pytest_memreport.outputs.staleness.REASONS`).
        """
        claims = self._claims.claims_for(report)
        wanted = {(e.source, e.pin) for e in report.all_evidence()}
        wanted |= {(p.source, None) for preds in claims.predicates.values() for p in preds}
        wanted |= {(None, None) for obs in claims.observations.values() if obs}
        if not wanted:
            return ("no-evidence", render.Said(report.path, None,
                                               "no evidence to check (no quotation, cited path or line range)"), [])
        problems = []
        bindings = []
        for source_id, pin in sorted(wanted, key=lambda k: (k[0] or "", k[1] or "")):
            if not resolve and self._stated_and_located(report, source_id, pin):
                return None
            binding = self.binding(report, source_id, pin)
            if binding.checkable:
                return None
            bindings.append(binding)
            code = {"no-repo": "no-repository", "missing-commit": "pin-missing"}.get(binding.pin_status,
                                                                                      binding.pin_status)
            problems.append((code, binding.problem or code))
        code, message = problems[0]
        return code, message, bindings


def _branches_only(report: Report, source: Source) -> tuple[str, ...]:
    """The branches ``report`` links ``source``'s files at, when every piece of its evidence
    is such a link (``/blob/main/...``) and the report pins nothing; else ``()``."""
    default = report.sources[0].id if report.sources else "SRC-1"
    refs: list[str] = []
    for item in report.all_evidence():
        if (item.source or default) != source.id:
            continue
        if item.ref is None:
            return ()
        if item.ref not in refs:
            refs.append(item.ref)
    return tuple(refs)
