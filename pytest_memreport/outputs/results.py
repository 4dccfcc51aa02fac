"""The results model, and its serialisation as the JSON results (schema ``memreport/1``).

Items attach a JSON payload to each check entry they report (pytest-xdist carries
it from a worker as text); the controlling process (also under pytest-xdist) reads
each payload once into a :class:`CheckResult`, a frozen value whose facts outputs
read as attributes (its type, pytest outcome, status at the pin, drift class, where
moved evidence went), and keeps them in a :class:`ResultLog`. The payload itself
stays on the result as its serialisation: :func:`build_json` lays the results over
the parsed reports, so the JSON has every record and every piece of evidence,
checked or not, in the format it has always had.

A check that passed quietly in this process (a record item's quotation found where it
is cited) reaches the log as its :class:`CheckResult` already, its payload made only
when an output asks for it: most checks of a large run pass, and most runs write no
JSON.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from dataclasses import dataclass, field, replace
from typing import Any

from .claims_json import claims_json
from .kinds import CheckType, Drift, Outcome, PinStatus, RunEnd, check_type, member, outcome_of
from ..checks.verify import PinResult
from ..model import Evidence, EvidenceKind, Record, Report
from ..text.syntax.languages import language_for

SCHEMA = "memreport/1"

#: pytest's exit codes (``pytest.ExitCode``; this module does not import pytest)
_INTERRUPTED, _INTERNAL_ERROR = 2, 3
#: why a report none of whose checks ran has no result, in a run that went to its end
NOT_SELECTED = "not selected (no check of its evidence ran)"


@dataclass(frozen=True)
class RunState:
    """Whether the run went to its end: ``complete``; ``crashed`` (errors during collection,
    an internal error: no report's silence means it was not selected); ``interrupted``
    (Ctrl-C, a signal). The JSON's ``run``."""

    state: str
    exit_status: int
    reason: str | None = None

    @property
    def unrun_reason(self) -> str:
        """The JSON's reason for a report none of whose checks ran."""
        if self.state == RunEnd.COMPLETE:
            return NOT_SELECTED
        return f"not checked: the run {self.state} ({self.reason})"

    def as_json(self) -> dict:
        return {"state": self.state, "exit_status": self.exit_status, "reason": self.reason}


def run_state(exit_status: int, collection_errors: int) -> RunState:
    """The run's state from pytest's exit status and its count of collection errors."""
    status = int(exit_status)
    if status == _INTERNAL_ERROR:
        return RunState(RunEnd.CRASHED, status, "an internal error; see the INTERNALERROR lines")
    if status == _INTERRUPTED and collection_errors:
        plural = "s" if collection_errors != 1 else ""
        return RunState(RunEnd.CRASHED, status, f"{collection_errors} error{plural} during collection; no check ran")
    if status == _INTERRUPTED:
        return RunState(RunEnd.INTERRUPTED, status, "stopped before every check ran")
    return RunState(RunEnd.COMPLETE, status)


@dataclass(frozen=True)
class Position:
    """A place in the target: a path and, when known, its first and last line."""

    path: str
    start: int | None = None
    end: int | None = None

    def __str__(self) -> str:
        if self.start is None or self.end is None:
            return self.path
        return f"{self.path}:{self.start}" if self.start == self.end else f"{self.path}:{self.start}-{self.end}"


def _position(path, lines) -> Position:
    if not lines:
        return Position(str(path))
    return Position(str(path), int(lines[0]), int(lines[-1]))


@dataclass(frozen=True)
class Blame:
    """The commit after which a piece of evidence stopped holding (``git blame`` of the range)."""

    commit: str
    subject: str | None = None


def evidence_payload_head(report_path: str, evidence: Evidence, kind: str,
                          names: tuple[str, str, str] | None = None) -> dict:
    """The head of a piece of evidence's check payload; ``names``: the evidence's
    :meth:`~..model.Evidence.names`, when known."""
    key, _, digest = names or evidence.names()
    return {
        "type": kind,
        "report": report_path,
        "key": key,
        "record": evidence.owner,
        "line": evidence.line,
        "path": evidence.path,
        # what the evidence says, in a few bytes: fingerprints (SARIF) tell two quotes of a file apart
        "text_digest": digest,
    }


#: the evidence whose pin payload names the file's language (matched by its grammar or as text)
HAS_LANGUAGE = (EvidenceKind.QUOTE, EvidenceKind.LINES)


def pin_payload(report_path: str, key: str, digest: str, evidence: Evidence, repo_label: str | None,
                result: PinResult) -> dict:
    """A pin check's payload: ``key`` and ``digest`` are the evidence's key and text digest
    (:meth:`~..model.Evidence.names`), ``result`` what it looks like at the pin."""
    payload = evidence_payload_head(report_path, evidence, "pin", (key, "", digest))
    payload["at_pin"] = result.as_json()
    payload["target"] = {"repo": repo_label or None, "rev": result.rev}
    if evidence.kind in HAS_LANGUAGE:
        payload["language"] = language_for(evidence.path)
    return payload


#: what a payload lacks, read as empty (never written to)
_NONE: dict = {}


def _lines(lines) -> tuple[int, ...] | None:
    return tuple(map(int, lines)) if lines else None


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One check as the run ended it, read once from the payload its item reported.

    ``at_pin`` is the status at the pin (a :class:`PinStatus`), ``at_against`` the drift
    class (a :class:`Drift`); both ``None`` where the check has none, and a word this
    version does not know stays a plain string. ``moved_to`` is where evidence that moved
    now lives. :attr:`payload` is the check's serialisation in the JSON results (``memreport/1``).
    """

    type: CheckType
    report: str
    key: str
    outcome: Outcome
    #: the payload; ``None`` until an output asks for a quiet pass's (see the module's
    #: docstring), made then from :attr:`evidence` and :attr:`pin_result`. Not compared: a
    #: result is the same before and after its payload is made
    made_payload: dict | None = field(compare=False)
    #: the failure's first line (empty when the check did not fail)
    headline: str = ""
    at_pin: PinStatus | str | None = None
    at_against: Drift | PinStatus | str | None = None
    record: str | None = None
    line: int = 0
    path: str = ""
    #: the enclosing definition of passing evidence changed (a warning)
    enclosing_changed: bool = False
    moved_to: tuple[Position, ...] = ()
    #: a source check's status of its pin (``ok``, ``missing-commit``, ``no-repo``, ...)
    source_pin_status: str | None = None
    #: the pin a source check is about; the commit a commit-pinned citation is read at
    source_pin: str | None = None
    target_rev: str | None = None
    #: a report no repository could check: its reason and code
    reason: str | None = None
    reason_code: str | None = None
    #: the repository keys an unchecked report's sources ask to map (``--memreport-repo KEY=PATH``)
    keys_to_map: tuple[str, ...] = ()
    #: the file's language at the pin (``None``: matched as text only)
    language: str | None = ""
    #: a few bytes of what the evidence says (fingerprints tell two quotations of a file apart)
    text_digest: str = ""
    #: the repository and revision a piece of evidence was read in
    target_repo: str | None = None
    #: the lines of the target the check found its evidence at (at the pin; at the
    #: against-revision for drift, where it went or was), and the path there
    lines: tuple[int, ...] | None = None
    against_path: str | None = None
    broken_by: Blame | None = None
    #: an observation's run status (``passed``, ``failed``, ...)
    observation_status: str | None = None
    #: the claims file a predicate or observation is written in (at :attr:`line`)
    file: str = ""
    #: a quiet pass's evidence and what it looks like at the pin, its payload's making (kept
    #: here, not in a value of their own: the garbage collector walks each value a run keeps)
    evidence: Evidence | None = field(default=None, compare=False)
    pin_result: PinResult | None = field(default=None, compare=False)

    @classmethod
    def of(cls, payload: dict, outcome: str, headline: str = "") -> CheckResult:
        # Read once per check (ten thousand times in a large run): each part of the payload
        # looked up once, and what most checks lack (a drift's places, a source's pin, a
        # culprit) read only where it is.
        get = payload.get
        kind = check_type(payload)
        at_pin = get("at_pin") or _NONE
        at_against = get("at_against") or _NONE
        target = get("target") or _NONE
        if kind is CheckType.DRIFT:
            lines = at_against.get("lines") or (at_against.get("candidate") or _NONE).get("lines") \
                or at_against.get("old_lines")
        else:
            lines = at_pin.get("lines") or (at_pin.get("candidate") or _NONE).get("lines")
        moved_to: tuple[Position, ...] = ()
        broken_by = None
        if at_against:
            places = at_against.get("candidates") or (
                [{"path": at_against.get("path"), "lines": at_against.get("lines")}] if at_against.get("path") else [])
            moved_to = tuple(_position(p.get("path"), p.get("lines")) for p in places)
            broken = at_against.get("broken_by") or _NONE
            if broken.get("commit"):
                broken_by = Blame(str(broken["commit"]), broken.get("subject"))
        source = (get("source") or _NONE) if kind is CheckType.SOURCE else _NONE
        unchecked = kind is CheckType.UNCHECKED
        return cls(
            type=kind,
            report=str(get("report", "")),
            key=str(get("key") or get("name") or get("type", "")),
            outcome=outcome_of(outcome),
            made_payload=payload,
            headline=str(headline),
            at_pin=member(PinStatus, at_pin.get("status")),
            at_against=member(PinStatus if kind.is_predicate else Drift, at_against.get("status")),
            record=get("record") or None,
            line=int(get("line") or 0),
            path=str(get("path") or ""),
            enclosing_changed=bool(at_against.get("enclosing_changed")),
            moved_to=moved_to,
            source_pin_status=source.get("pin_status"),
            source_pin=source.get("pin"),
            target_rev=target.get("rev"),
            reason=get("reason") if unchecked or kind is CheckType.SOURCE else None,
            reason_code=get("code") if unchecked else None,
            keys_to_map=tuple(dict.fromkeys(s["key_to_map"] for s in get("sources") or () if s.get("key_to_map")))
            if unchecked else (),
            language=get("language", ""),
            text_digest=str(get("text_digest") or ""),
            target_repo=target.get("repo"),
            lines=_lines(lines),
            against_path=at_against.get("path"),
            broken_by=broken_by,
            observation_status=(get("observation") or _NONE).get("status"),
            file=str(get("file") or ""),
        )

    @classmethod
    def passed_at_pin(cls, report_path: str, evidence: Evidence, repo_label: str | None,
                      result: PinResult) -> CheckResult:
        """A pin check that passed, read from its values as :meth:`of` reads the payload
        :func:`pin_payload` makes of them; the payload made from them when first asked."""
        key, _, digest = evidence.names()
        lines = result.lines or (result.candidate.lines if result.candidate is not None else None)
        return cls(
            type=CheckType.PIN, report=report_path, key=key, outcome=Outcome.PASSED, made_payload=None,
            at_pin=member(PinStatus, result.status), record=evidence.owner or None, line=evidence.line,
            path=evidence.path, target_rev=result.rev, text_digest=digest, target_repo=repo_label or None,
            language=language_for(evidence.path) if evidence.kind in HAS_LANGUAGE else "",
            lines=lines.pair() if lines else None, evidence=evidence, pin_result=result)

    @property
    def payload(self) -> dict:
        """The check's serialisation in the JSON results (made once, when first asked)."""
        made = self.made_payload
        if made is None:
            if self.evidence is None or self.pin_result is None:
                raise ValueError("a check result with neither its payload nor what makes it")
            made = pin_payload(self.report, self.key, self.text_digest, self.evidence, self.target_repo,
                               self.pin_result)
            object.__setattr__(self, "made_payload", made)
        return made

    @property
    def ran(self) -> bool:
        """The check ran to a verdict (passed or failed), not skipped."""
        return self.outcome in (Outcome.PASSED, Outcome.FAILED)

    def to_json(self) -> dict:
        """The check's serialisation in the JSON results."""
        return self.payload


class ResultLog:
    """The run's :class:`CheckResult` values by report, by kind, by evidence key; plus the
    counts the summary reads, gathered as each result comes in."""

    def __init__(self) -> None:
        self.checks: dict[str, dict[tuple[str, str], CheckResult]] = defaultdict(dict)
        self.outcomes: dict[str, Counter] = defaultdict(Counter)
        self.drift: dict[str, Counter] = defaultdict(Counter)
        self.pin: dict[str, Counter] = defaultdict(Counter)
        #: mentions that look like paths but are no target evidence, by report
        self.not_evidence: Counter = Counter()
        #: quotations in files no tree-sitter grammar covers, by file kind
        self.text_only: Counter = Counter()
        self.failures: dict[str, list[str]] = defaultdict(list)
        #: every check's result by report, as reported (the staleness table's input)
        self.results: dict[str, list[CheckResult]] = defaultdict(list)

    def add(self, payload: dict, outcome: str, headline: str = "") -> CheckResult:
        """Read one check's payload and pytest outcome word into the model (once)."""
        return self.add_result(CheckResult.of(payload, outcome, headline), str(payload.get("type", "")))

    def add_result(self, result: CheckResult, type_word: str | None = None) -> CheckResult:
        """One check's result into the model; ``type_word``: its payload's ``type`` as
        written (a word this version does not know is kept), its type's when not given."""
        report = result.report
        if type_word is None:
            type_word = result.type.value
        self.checks[report][(result.type.value or type_word, result.key)] = result
        self.results[report].append(result)
        self.outcomes[report][f"{type_word}:{result.outcome.value}"] += 1
        headline = result.headline
        if result.type is CheckType.PIN and result.at_pin is PinStatus.NOT_EVIDENCE:
            self.not_evidence[report] += 1  # counted on their own, never as a pin status
        elif result.type is CheckType.PIN:
            self.pin[report][result.at_pin] += 1
            if result.language is None and result.at_pin is PinStatus.FOUND:
                suffix = result.path.rsplit("/", 1)[-1]
                suffix = "*." + suffix.rsplit(".", 1)[-1] if "." in suffix else suffix
                self.text_only[suffix] += 1
        if result.type is CheckType.DRIFT:
            self.drift[report][result.at_against] += 1
        if result.outcome is Outcome.FAILED and headline:
            self.failures[report].append(headline)
        return result

    def entries(self, report: str) -> list[CheckResult]:
        return self.results.get(report, [])

    def check(self, report: str, kind: CheckType, key: str) -> CheckResult | None:
        """One check's result, or ``None`` when it did not run."""
        return self.checks.get(report, {}).get((kind, key))

    def checks_of(self, report: str, kind: CheckType) -> list[CheckResult]:
        return [c for (k, _), c in self.checks.get(report, {}).items() if k == kind]

    def get(self, report: str, kind: str, key: str) -> dict | None:
        """One check's serialisation (for the re-pin's moves, which still read its JSON)."""
        found = self.checks.get(report, {}).get((kind, key))
        return found.payload if found is not None else None


def _evidence_json(evidence: Evidence, log: ResultLog, report: str, key: str | None = None) -> dict:
    key = key or evidence.key
    pin = log.check(report, CheckType.PIN, key)
    drift = log.check(report, CheckType.DRIFT, key)
    out = {
        "kind": evidence.kind.value,
        "path": evidence.path,
        "text": evidence.text,
        "line": evidence.line,
        "cited_lines": evidence.cited_lines.pair() if evidence.cited_lines else None,
        "at_pin": pin.to_json()["at_pin"] if pin else {"status": PinStatus.NOT_CHECKED, "lines": None},
    }
    if evidence.source:
        out["source"] = evidence.source
    if evidence.pin:
        out["pin"] = evidence.pin
    if evidence.label:
        out["label"] = evidence.label
    if evidence.role is not None:  # what it is to its report (model.EvidenceRole)
        out["role"] = evidence.role.value
    if evidence.context and evidence.kind is EvidenceKind.QUOTE:
        out["also_in"] = list(evidence.context)  # the other files it may quote
    if drift:
        out["at_against"] = drift.to_json()["at_against"]
    return out


def _evidence_list(evidence: tuple[Evidence, ...], log: ResultLog, report: str) -> list[dict]:
    """Evidence as JSON; a proposed symbol reference that named no definition is not evidence."""
    out = []
    for item in evidence:
        key = item.key
        pin = log.check(report, CheckType.PIN, key)
        if item.kind is EvidenceKind.SYMBOL and pin is None and log.check(report, CheckType.DRIFT, key) is None:
            continue  # (checked from a range's base, it has a drift result only: --memreport-affected)
        if pin is not None and pin.path and pin.path != item.path:
            item = replace(item, path=pin.path)  # resolved at collection (symbol, basename)
        out.append(_evidence_json(item, log, report, key))
    return out


def _record_json(record: Record, log: ResultLog, report: str) -> dict:
    out = {
        "id": record.id,
        "kind": record.kind,
        "label": record.label,
        "line": record.line,
        "statuses": [
            {"axis": s.axis, "qualifier": s.qualifier, "value": s.value, "line": s.line} for s in record.statuses
        ],
        "evidence": _evidence_list(record.evidence, log, report),
    }
    if record.part_of:
        out["part_of"] = record.part_of
    if record.is_annotation:
        out["annotation"] = True
    return out


def report_json(report: Report, log: ResultLog) -> dict:
    """One report's entry in the results."""
    sources = []
    against = None
    by_source = {c.to_json()["source"]["id"]: c.to_json() for c in log.checks_of(report.path, CheckType.SOURCE)}
    for unchecked in (c.to_json() for c in log.checks_of(report.path, CheckType.UNCHECKED)):  # a report no repository could check
        for seen in unchecked.get("sources", []):
            by_source.setdefault(seen["id"], {"source": seen, "against": None})
    for source in report.sources:
        seen = by_source.get(source.id)
        if seen:
            sources.append({"id": source.id, **{k: v for k, v in seen["source"].items() if k != "id"}})
            against = against or seen.get("against")
        else:
            sources.append({"id": source.id, "repo": None, "pin": source.pin,
                            "pin_status": "unpinned" if source.pin is None else "not-checked"})
    for sid, seen in by_source.items():
        if all(s["id"] != sid for s in sources):
            sources.append({"id": sid, **{k: v for k, v in seen["source"].items() if k != "id"}})
            against = against or seen.get("against")
    out = {
        "path": report.path,
        "dialect": report.dialect,
        "sources": sources,
        "against": against,
        "records": [_record_json(r, log, report.path) for r in report.records],
        "evidence": _evidence_list(report.evidence, log, report.path),
        "statuses": [
            {"axis": s.axis, "qualifier": s.qualifier, "value": s.value, "line": s.line} for s in report.statuses
        ],
        "findings": [{"line": f.line, "message": f.message, "code": f.code} for f in report.findings],
    }
    return out


def build_json(reports: list[Report], log: ResultLog, extra: dict | None = None, coverage: dict | None = None,
               claims: dict | None = None, run: RunState | None = None) -> dict:
    """The results; ``claims`` maps a report path to its ``(predicates, observations)`` by owner;
    ``run`` says whether the run went to its end."""
    data: dict[str, Any] = {"schema": SCHEMA, "reports": [report_json(r, log) for r in reports]}
    if run is not None:
        data["run"] = run.as_json()
    for entry in data["reports"]:
        if coverage and entry["path"] in coverage:
            entry["coverage"] = coverage[entry["path"]]
        if claims is not None:
            predicates, observations = claims.get(entry["path"], ({}, {}))
            entry.update(claims_json(entry["path"], predicates, observations, log.check))
    if extra:
        data.update(extra)
    return data


def text_only_line(log: ResultLog) -> str | None:
    """Which kinds of files had quotations matched as text only (no tree-sitter grammar)."""
    if not log.text_only:
        return None
    kinds = ", ".join(f"{k} ({v})" for k, v in sorted(log.text_only.items()))
    return f"text-only matching (no tree-sitter grammar) for quotations in: {kinds}"
