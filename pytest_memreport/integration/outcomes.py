"""Check results → verdicts: pass, fail, skip or warn, with the text and JSON of each.

An :class:`Outcome` is what an item reports. Building it is pure (results in,
outcome out), so the rules "which drift statuses pass" and "what a failure
shows" live here, not in pytest code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..text import render
from ..checks import verify
from ..checks.drift import PASSING as DRIFT_PASSING
from ..model import Evidence, EvidenceKind, EvidenceRole, Report, predicate_key  # noqa: F401 - re-exported
from ..outputs.results import CheckResult, evidence_payload_head, pin_payload

#: drift statuses that still support the claim
#: (``not-checked`` is not among them: drift reports it only for a path the
#: against-revision refuses, e.g. one that now goes through a symlink)


@dataclass(frozen=True, slots=True)
class Outcome:
    """An item's verdict (``pass|fail|skip|warn``), its text and its JSON payload."""

    verdict: str
    headline: str
    details: tuple[str, ...] = ()
    payload: dict = field(default_factory=dict)
    #: plain str values for JUnit properties: record, evidence, status, location
    properties: dict = field(default_factory=dict)
    #: the headline without the place it opens with (``file:line: ``), for formats that show
    #: the place apart (SARIF, annotations, summaries, pytest's skip and warning lines);
    #: empty when the headline opens with no place
    message: str = ""
    #: problems each at a line of a file the user keeps (a claims file's), as
    #: ``(file, line, message)``: shown there, apart from the item's own place
    located: tuple[tuple[str, int, str], ...] = ()


def _at(verdict: str, location: str, message: str, details: tuple[str, ...] = (), payload: dict | None = None,
        properties: dict | None = None) -> Outcome:
    """An outcome whose headline is ``location: message``, the message kept apart."""
    headline = render.Said(location.file, location.line, message) if isinstance(location, render.Location) \
        else f"{location}: {message}"
    return Outcome(verdict, headline, tuple(details), payload if payload is not None else {},
                   properties if properties is not None else {}, message)


def evidence_key(evidence: Evidence) -> str:
    """A stable identity of an evidence within its report: :attr:`Evidence.key`."""
    return evidence.key


def _properties(report: Report, evidence: Evidence, status: str, location: render.Location | None = None,
                identity: str | None = None) -> dict:
    return {
        "record": evidence.owner or "",
        "evidence": f"{evidence.kind.value}:{evidence.path}",
        "status": status,
        "location": location if location is not None else render.location(report, evidence.line),
        "identity": identity if identity is not None else evidence.identity,
    }


def _where(binding, rev: str | None, path: str) -> str:
    repo = binding.repo_label or "?"
    return f"{repo}@{render.short(rev)}:{path}"


def new_location(drift) -> str:
    """Where passing evidence is at the against-revision (``path:lines``; every place of a
    relocated quote, ``; ``-separated), or ``""`` when it is where the report says."""
    if drift.status not in DRIFT_PASSING or drift.status == "unchanged":
        return ""
    if drift.candidates:
        return "; ".join(str(place) for place in drift.candidates)
    if drift.path is None:
        return ""
    return f"{drift.path}:{drift.lines}" if drift.lines else drift.path


def quiet_pass(report: Report, evidence: Evidence, binding, result: verify.PinResult) -> CheckResult | None:
    """The result of a pin check that passes with nothing to say (what it cites found, where
    it cites it), read from the check's values as :meth:`CheckResult.of` reads its payload,
    the payload made only when an output asks; ``None`` when the check says more (its
    outcome does: :func:`evidence_outcome`)."""
    if not result.ok or result.misplaced:
        return None
    return CheckResult.passed_at_pin(report.path, evidence, binding.repo_label, result)


def evidence_outcome(report: Report, evidence: Evidence, binding, result: verify.PinResult,
                     corrects_anchors: bool = False) -> Outcome:
    """The pin item's verdict (``corrects_anchors``: the run rewrites a misplaced anchor, so it warns)."""
    names = evidence.names()  # one digest of its text for all three
    payload = pin_payload(report.path, names[0], names[2], evidence, binding.repo_label, result)
    loc = render.location(report, evidence.line)
    props = _properties(report, evidence, result.status, loc, names[1])
    owner = f"{evidence.owner} " if evidence.owner else ""
    if result.status == verify.COMMIT_MISSING:
        # The source item fails once with the reason; its evidence is not checkable.
        return _at("skip", loc, f"not checked: {binding.problem}", payload=payload, properties=props)
    if result.status == verify.FILE_MISSING and evidence.role is EvidenceRole.MENTION:
        # A backticked word that looks like a path is evidence only if the pin has it; the JSON says
        # what the item says (not evidence), not the file check that decided it.
        reason = f"`{evidence.path}` is not a path at the pin"
        payload["at_pin"] = {"status": NOT_EVIDENCE, "lines": None, "reason": reason}
        return _at("skip", loc, f"{reason}; not evidence", payload=payload,
                   properties=_properties(report, evidence, NOT_EVIDENCE))
    if result.status == verify.AMBIGUOUS:
        # A bare name many files share: the report does not say which, so nothing is wrong with
        # the target; said as a warning, never a failure that makes the document stale.
        return _at("warn", loc, f"{owner}{render.evidence_title(evidence)} is ambiguous: {result.message}",
                   payload=payload, properties=props)
    if result.ok and result.misplaced:
        # The quote is real, the anchor is not: a reader following it sees other code.
        message = (f"{owner}{render.evidence_title(evidence)} outside its cited lines at "
                   f"{_where(binding, result.rev, evidence.path)}: {result.message}")
        fix = ("  --memreport-write corrects the anchor to the lines where the quotation is" if corrects_anchors
               else "  correct the anchor to the lines where the quotation is (--memreport-write does it)")
        details = [f"  {result.message}", fix]
        if evidence.kind is EvidenceKind.QUOTE:
            details.append(f"  quotation: {render.clip(evidence.text or '')}")
        return _at("warn" if corrects_anchors else "fail", loc, message, tuple(details), payload, props)
    if result.ok:
        notes = [result.message]
        if result.note:
            notes.append(result.note)
        return Outcome("pass", "; ".join(notes), payload=payload, properties=props)
    message = f"{owner}{render.evidence_title(evidence)} {result.status} at {_where(binding, result.rev, evidence.path)}"
    details = [f"  {result.message}"]
    if result.note:  # e.g. read as Latin-1: a reason an accented quote may not match
        details.append(f"  {result.note}")
    if evidence.kind is EvidenceKind.QUOTE:
        details.append(f"  quotation: {render.clip(evidence.text or '')}")
    if result.candidate is not None:
        cand = result.candidate
        details.append(f"  nearest candidate at lines {cand.lines} (similarity {cand.score:.0f}%):")
        details.extend(render.numbered(cand.text, cand.lines.start))
        diff = _diff(evidence.text or "", cand.text)
        if diff:
            details.append("  difference (- report, + file):")
            details.extend(render.indent(diff))
    return _at("fail", loc, message, tuple(details), payload, props)


#: the pin status of a mention that looks like a path but is no evidence of the target
NOT_EVIDENCE = "not-evidence"


def not_evidence_outcome(report: Report, evidence: Evidence, reason: str) -> Outcome:
    """The one skipped item of a mention that is no target evidence (no drift item)."""
    payload = evidence_payload_head(report.path, evidence, "pin")
    payload["at_pin"] = {"status": NOT_EVIDENCE, "lines": None, "reason": reason}
    return _at("skip", render.location(report, evidence.line), f"not evidence: {reason}", payload=payload,
               properties=_properties(report, evidence, NOT_EVIDENCE))


def not_evidence_drift_outcome(report: Report, evidence: Evidence, reason: str) -> Outcome:
    """The drift item of a mention found to be no target evidence when it ran: skipped
    with the reason its pin item gives (counted once, by the pin item)."""
    payload = {"type": NOT_EVIDENCE, "report": report.path, "key": evidence_key(evidence), "line": evidence.line}
    return Outcome("skip", f"{render.location(report, evidence.line)}: not evidence: {reason}", payload=payload,
                   properties=_properties(report, evidence, NOT_EVIDENCE))


def unresolved_symbol_outcome(report: Report, evidence: Evidence) -> Outcome:
    """A proposed symbol reference that names no definition at the pin in a file its
    context cites: no evidence (the JSON leaves it out), skipped with that reason."""
    reason = _names_no_definition([evidence.text or ""])
    payload = {"type": "symbol", "report": report.path, "key": evidence_key(evidence), "line": evidence.line}
    return Outcome("skip", f"{render.location(report, evidence.line)}: not evidence: {reason}", payload=payload,
                   properties=_properties(report, evidence, NOT_EVIDENCE))


def unresolved_names_outcome(report: Report, record_id: str, line: int, names: list[str]) -> Outcome:
    """An item of ``names`` proposed as symbols (a record's, or the report's outside records)
    none of which names a definition at the pin in a file cited beside it: no evidence,
    skipped once for all of them."""
    return Outcome("skip", f"{record_id or report.path}: not evidence: {_names_no_definition(names)}",
                   properties={"record": record_id, "status": NOT_EVIDENCE, "location": render.location(report, line)})


def _names_no_definition(names: list[str]) -> str:
    """Why names proposed as symbols are no evidence (each name once, the first few shown)."""
    names = list(dict.fromkeys(names))  # a name proposed on several lines is one name
    shown = ", ".join(f"`{name}`" for name in names[:_NAMES_SHOWN]) + (", ..." if len(names) > _NAMES_SHOWN else "")
    said = (f"{shown} names no definition" if len(names) == 1 else
            f"none of {len(names)} names ({shown}) names a definition")
    return f"{said} in the files cited beside it at the pin"


#: how many of a record's names a skipped item of names shows
_NAMES_SHOWN = 5


def _diff(quote: str, candidate: str) -> str:
    from ..text.match import render_diff

    return render_diff(quote, candidate)


def drift_outcome(report: Report, evidence: Evidence, binding, pin: verify.PinResult, drift, strict: bool,
                  against_problem: str | None = None) -> Outcome:
    """The drift item's verdict."""
    names = evidence.names()
    payload = evidence_payload_head(report.path, evidence, "drift", names)
    loc = render.location(report, evidence.line)
    if drift is not None and drift.status == "ahead":
        # The pin item fails; this one says how to make the report true.
        payload["at_against"] = drift.as_json()
        owner = f"{evidence.owner} " if evidence.owner else ""
        return _at("pass", loc, f"{owner}{render.evidence_title(evidence)} {drift.message}; re-pin with "
                   f"--memreport-repin {render.short(drift.rev)} --memreport-write",
                   payload=payload, properties=_properties(report, evidence, drift.status))
    if not pin.ok or drift is None:
        if pin.status == verify.COMMIT_MISSING:
            why = binding.problem
        elif pin.ok:
            why = against_problem or "the against-revision is not available"
        else:
            why = f"{pin.status} at the pin"
        payload["at_against"] = {"rev": None, "status": "not-checked", "path": None, "lines": None, "candidates": []}
        return _at("skip", loc, f"drift not checked: {why}", payload=payload,
                   properties=_properties(report, evidence, "not-checked"))
    payload["at_against"] = drift.as_json()
    payload["target"] = {"repo": binding.repo_label or None, "rev": drift.rev}
    props = _properties(report, evidence, drift.status, loc, names[1])
    moved_to = new_location(drift)
    if moved_to:
        props["new_location"] = moved_to
    owner = f"{evidence.owner} " if evidence.owner else ""
    title = f"{owner}{render.evidence_title(evidence)}"
    if drift.status not in DRIFT_PASSING:
        details = [f"  {line}" for line in drift.explain()]
        if evidence.kind is EvidenceKind.QUOTE:
            details.insert(0, f"  quotation: {render.clip(evidence.text or '')}")
        verdict = "refused" if drift.status == "not-checked" else drift.status
        return _at("fail", loc, f"{title} {verdict} at {render.short(drift.rev)}", tuple(details), payload, props)
    if getattr(drift, "enclosing_changed", False):
        head = f"{title}: enclosing definition changed {drift.changed_where()} ({drift.symbol_name()})"
        explained = tuple(f"  {line}" for line in drift.explain())
        return _at("fail" if strict else "warn", loc, head, explained, payload, props)
    return _at("pass", loc, f"{title} {drift.status}: {drift.summary()}", payload=payload, properties=props)


#: verdicts from worst to best; a group's status is that of its worst part
_VERDICTS = ("fail", "warn", "skip", "pass")


def group_outcome(report: Report, record_id: str, line: int, parts: list[Outcome]) -> Outcome:
    """The verdict of several checks reported as one item (``--memreport-items=record``).

    Fails when any part failed, showing each failing part's headline and details;
    skips only when every part skipped; passes otherwise. A part's warning is not
    the group's: the item gives it at that part's own report line. ``record_id`` is
    empty for evidence outside any record, which is then named by the report.
    """
    title = record_id or report.path
    worst = min(parts, key=lambda part: _VERDICTS.index(part.verdict))
    props = {"record": record_id, "status": str(worst.properties.get("status", "")),
             "location": render.location(report, line)}
    failed = [part for part in parts if part.verdict == "fail"]
    if failed:
        details: list[str] = []
        for part in failed:
            details += ["", part.headline, *part.details]
        return Outcome("fail", f"{title}: {len(failed)} of {len(parts)} checks failed", tuple(details),
                       properties=props)
    if worst.verdict == "skip":
        return Outcome("skip", f"{title}: none of {len(parts)} checks ran; {worst.headline}", properties=props)
    return Outcome("pass", f"{title}: {len(parts)} checks hold", properties=props)


def source_outcome(report: Report, binding, against: str | None, against_problem: str | None = None,
                   needs_pin: bool = True, unmapped: bool = False, incomplete: str | None = None) -> Outcome:
    """The source item's verdict: the repository opens and the pin resolves.

    A repository known only by URL with no local clone is skipped (its
    citations are not collected); a source whose citations all carry their own
    commit needs no pin of its own.
    """
    payload: dict[str, Any] = {
        "type": "source",
        "report": report.path,
        # the log keeps a check by its key: one per source (a report may have several)
        "key": f"source:{binding.source_id}",
        "line": binding.line or 1,  # where the source is declared: annotations point there
        "source": {
            "id": binding.source_id,
            "repo": binding.repo_label or None,
            "pin": binding.pin or binding.stated_pin,
            "pin_status": binding.pin_status,
        },
        "against": against,
    }
    props = {"record": "", "evidence": f"source:{binding.source_id}", "status": binding.pin_status,
             "location": render.location(report, binding.line or 1)}
    if unmapped:
        problem = binding.problem or f"no local clone for {binding.source_id}"
        payload["reason"] = str(_unprefixed(report, problem))  # (what a report that checked nothing else says)
        return Outcome("skip", problem, payload=payload, properties=props)
    if binding.pin_status == "unpinned" and not needs_pin:
        return Outcome("pass", f"{binding.source_id}: every citation carries its own commit", payload=payload,
                       properties=props)
    if binding.branches:  # the report claims no commit: told what to give, not failed
        payload["reason"] = str(_unprefixed(report, binding.problem or ""))
        return Outcome("skip", binding.problem or "", payload=payload, properties=props)
    if binding.problem:
        said, loc = binding.problem, props["location"]
        # said at the item's own place: the message apart from it is the problem's text
        message = said.text if isinstance(said, render.Said) and said.line == loc.line \
            and said.file in (loc.file, report.path) else ""
        return Outcome("fail", binding.problem, payload=payload, properties=props, message=message)
    if against_problem:
        return _at("fail", render.location(report, binding.line or 1), against_problem,
                   payload=payload, properties=props)
    if incomplete:
        # The clone lacks objects: what it has is checked, the rest is unreadable.
        payload["source"]["incomplete"] = incomplete
        return _at("warn", render.location(report, binding.line or 1), incomplete, payload=payload,
                   properties=props)
    return Outcome("pass", f"{binding.source_id} pinned at {binding.pin}", payload=payload, properties=props)


def unchecked_outcome(report: Report, code: str, reason: str, bindings, line: int, required: bool,
                      allowed: bool = False) -> Outcome:
    """A report no repository could check: skipped with its reason, or failed when every
    report must be checked (``--memreport-require-checked``), and by default when the report
    cites code at a commit (a pin it states): such a report checked for nothing is never
    quietly green (``--memreport-allow-unchecked`` lets it be skipped)."""
    sources = [{"id": b.source_id, "repo": b.repo_label or None, "pin": b.pin or b.stated_pin,
                "pin_status": b.pin_status, **({"key_to_map": b.key_to_map} if b.key_to_map else {})}
               for b in bindings]
    reason = _unprefixed(report, reason)
    payload = {"type": "unchecked", "report": report.path, "line": line, "code": code, "reason": reason,
               "sources": sources}
    props = {"record": "", "evidence": "unchecked", "status": code, "location": render.location(report, line)}
    if required:
        return _at("fail", render.location(report, line), f"not checked (--memreport-require-checked): {reason}",
                   payload=payload, properties=props)
    if not allowed and any(b.stated_pin for b in bindings):
        return _at("fail", render.location(report, line), f"not checked: {reason} (the report cites code at a "
                   "commit and none of it was checked; --memreport-allow-unchecked skips it instead)",
                   payload=payload, properties=props)
    return _at("skip", render.location(report, line), f"not checked: {reason}", payload=payload, properties=props)


def _unprefixed(report: Report, message: str) -> str:
    """``message`` without its place when it is said at the report (which is named once, in front)."""
    if isinstance(message, render.Said) and message.file == report.path:
        return message.text
    return message


def predicate_outcome(report: Report, predicate, result, problem: str | None, rev_label: str) -> Outcome:
    """A claims predicate's verdict at one revision (``rev_label``: ``pin`` or ``against``)."""
    at = "at_against" if rev_label == "against" else "at_pin"
    payload = {
        "type": f"predicate-{rev_label}",
        "report": report.path,
        "key": predicate_key(predicate),
        "record": predicate.record_id or None,
        "kind": predicate.kind,
        "file": predicate.file,
        "line": predicate.line,
        at: predicate_json(result, problem),
    }
    loc = render.Location(predicate.file, predicate.line)
    props = {"record": predicate.record_id, "evidence": f"predicate:{predicate.kind}",
             "identity": f"{predicate.file}:{predicate.index}",
             "status": "error" if result is None or result.error else ("ok" if result.ok else "failed"),
             "location": loc}
    if result is None:
        return _at("skip", loc, f"{predicate.kind} not checked: {problem}", payload=payload, properties=props)
    title = f"{predicate.owner} {predicate.kind} predicate"
    moved = ""
    if result.followed:
        payload["followed"] = [list(pair) for pair in result.followed]
        moved = " (followed " + ", ".join(f"{old} -> {new}" for old, new in result.followed) + ")"
    if result.ok:
        return _at("pass", loc, f"{title} holds at {rev_label}{moved}", payload=payload, properties=props)
    verb = "could not be checked" if result.error else "does not hold"
    details = tuple(f"  {line}" for line in result.message.split("\n"))
    return _at("fail", loc, f"{title} {verb} at {rev_label}{moved}", details, payload, props)


def predicate_json(result, problem: str | None) -> dict:
    if result is None:
        return {"status": "not-checked", "message": problem}
    out = {
        "status": "error" if result.error else ("holds" if result.ok else "fails"),
        "message": result.message,
        "boundary_size": len(result.boundary),
    }
    if result.followed:
        out["followed"] = [list(pair) for pair in result.followed]
    if result.actual is not None:
        out["actual"] = result.actual
    if result.matches:
        out["matches"] = [{"path": h.path, "line": h.line, "text": h.text} for h in result.matches[:50]]
    return out


def listing_outcome(report: Report, kind: str, headline_ok: str, headline_fail: str, entries: list[tuple[int, str]],
                    payload_extra: dict) -> Outcome:
    """A per-report list check (structure, references, claims): fails listing each entry with its line."""
    payload = {"type": kind, "report": report.path, "key": kind, **payload_extra}
    props = {"record": "", "evidence": kind, "status": "ok" if not entries else "failed",
             "location": render.location(report, entries[0][0] if entries else 1)}
    if not entries:
        return Outcome("pass", headline_ok, payload=payload, properties=props)
    details = tuple(f"  {report.path}:{line}: {message}" if line else f"  {message}" for line, message in entries)
    return Outcome("fail", headline_fail, details, payload, props)


def observation_outcome(report: Report, record, observation, result, problem: str | None, enabled: bool) -> Outcome:
    """An observation's verdict: skipped unless enabled; passes when the run passed (and covered)."""
    from ..checks.observe import display_command

    command = display_command(observation.run)
    loc = render.Location(observation.file, observation.line)
    payload = {"type": "observe", "report": report.path, "key": f"{loc}:{observation.index}",
               "record": observation.record_id or None, "file": observation.file, "line": observation.line,
               "axis": observation.axis}
    props = {"record": observation.record_id, "evidence": f"observe:{command}", "location": loc,
             "identity": f"{observation.file}:{observation.index}"}
    if not enabled:
        payload["observation"] = None
        return _at("skip", loc, f"observation `{command}` not run; add --memreport-run to run it at the pin",
                   payload=payload, properties={**props, "status": "not-run"})
    if result is None:
        payload["observation"] = None
        return _at("skip", loc, f"observation not run: {problem}", payload=payload,
                   properties={**props, "status": "not-run"})
    payload["observation"] = result.as_json()
    props["status"] = result.status
    if result.ok:
        how = " and executed the quoted lines" if result.coverage is not None else ""
        return _at("pass", loc, f"`{command}` passed at {render.short(result.pin)}{how}", payload=payload,
                   properties=props)
    details = [f"  {result.message}"]
    if result.output_tail:
        details.append("  output (last lines):")
        details.extend(render.indent(result.output_tail.rstrip("\n"), "    | "))
    return _at("fail", loc, f"{observation.owner} observation `{command}` {result.status} at "
               f"{render.short(result.pin)}", tuple(details), payload, props)
