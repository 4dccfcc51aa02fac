"""SARIF 2.1.0 (``--memreport-sarif PATH``): one result per check that failed or warned.

Code scanning (``github/codeql-action/upload-sarif``) shows each result on its report
line and tracks it across runs by its ``partialFingerprints``. A result's rule is its
status (``memreport/changed``, ``memreport/deleted``, ``memreport/missing``, ...); its
location is the report line (or the claims-file line of a predicate); a related location
names the target as ``owner/name@rev:path:lines``.

The fingerprint is made of what the check is about (report, kind of check, record,
evidence kind, cited path, quoted text or predicate key), never of a line number, a
revision or a message: a report edited above the evidence, or a target that moved on,
keeps its results' identity; two identical pieces of evidence in one record are told
apart by their order.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path
from urllib.parse import quote

from .. import __version__
from ..text.render import printable, short
from . import jsontext
from .annotations import workspace_path
from .kinds import ENCLOSING_CHANGED, CheckType, Verdict
from .verdicts import CheckVerdict

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SARIF_VERSION = "2.1.0"
#: the ``partialFingerprints`` key (versioned: a change of recipe is a new key, not a silent break)
FINGERPRINT = "memreportCheck/v1"


#: what each status means, for the rule's description (unknown statuses get a generic one)
_RULES = {
    "missing": "A quotation is not in its cited file at the report's pinned commit.",
    "file-missing": "A cited file does not exist at the report's pinned commit.",
    "refused": "A cited path is refused (it escapes the repository or goes through a symlink).",
    "unreadable": "A cited file cannot be read as text (binary or over the size limit).",
    "ambiguous": "The evidence matches several places and the report does not say which.",
    "changed": "The quoted code changed since the pinned commit.",
    "deleted": "The quoted code, or its file, is gone at the against-revision.",
    "enclosing-changed": "The definition enclosing a quotation was rewritten since the pin.",
    "diverged": "A commit the report links is not in the against-revision's history.",
    "missing-commit": "The report's pinned commit is not in the target repository.",
    "unpinned": "The report names no commit its evidence can be checked at.",
    "no-repo": "The report's target repository is not available.",
    "predicate-fails": "A claims-file predicate does not hold.",
    "predicate-error": "A claims-file predicate could not be evaluated.",
    "structure": "The report has structural findings (unknown statuses, duplicate IDs, missing labels).",
    "references": "The report cites record IDs that no loaded report declares.",
    "claims": "A claims file does not load.",
}


def rule_id(status: str) -> str:
    return f"memreport/{status}"


def _rule(status: str) -> dict:
    text = _RULES.get(status) or (f"A check of a report's evidence ended with status {status}.")
    return {
        "id": rule_id(status),
        "name": "".join(part.capitalize() for part in status.replace("/", "-").split("-")) or "Failed",
        "shortDescription": {"text": text},
        "fullDescription": {"text": text},
        "help": {"text": f"{text} Fix the report (or re-pin it with --memreport-repin REV --memreport-write "
                         "when everything holds at REV), then run pytest --memreport again."},
        "defaultConfiguration": {"level": "warning" if status == ENCLOSING_CHANGED else "error"},
    }


def _identity(verdict: CheckVerdict) -> str:
    """What a result is about, without line numbers, revisions or messages."""
    if verdict.type.is_evidence:
        # the evidence key (kind:line:path:cited:source:pin) without its line, and the quote's digest
        return "\0".join([verdict.identity, verdict.check.text_digest])
    if verdict.type.is_predicate or verdict.type is CheckType.OBSERVE:
        return verdict.identity  # claims-file:index, without the line
    if verdict.type.is_listing or verdict.type is CheckType.ERROR:
        return verdict.message
    return ""  # a source, an unchecked or unreadable report: one per report and kind


def fingerprints(verdicts: list[CheckVerdict]) -> list[str]:
    """A stable fingerprint per verdict (same order)."""
    seen: Counter = Counter()
    out = []
    for verdict in verdicts:
        base = "\0".join([verdict.report, verdict.kind, verdict.record, _identity(verdict)])
        seen[base] += 1
        digest = hashlib.sha256(f"{base}\0{seen[base]}".encode("utf-8", "surrogatepass")).hexdigest()
        out.append(digest[:32])
    return out


def target_place(verdict: CheckVerdict) -> tuple[str, str, list | None] | None:
    """``(owner/name@rev:path:lines, path, lines)`` for an evidence check, else ``None``."""
    check = verdict.check
    if not check.type.is_evidence:
        return None
    path = check.path
    if check.type is CheckType.DRIFT and check.against_path:
        path = check.against_path
    lines = list(check.lines) if check.lines else None
    if lines and len(lines) == 2:
        span = f"{lines[0]}" if lines[0] == lines[1] else f"{lines[0]}-{lines[1]}"
    else:
        span = ""
    name = f"{check.target_repo or '?'}@{short(check.target_rev) or '?'}:{path}" + (f":{span}" if span else "")
    return printable(name), path, lines


def artifact_uri(path: str) -> str:
    """A file name as SARIF's ``uri`` (an RFC 3986 URI reference): every byte of it but
    letters, digits, ``-._~`` and the ``/`` between folders percent-encoded, so that ``#``,
    ``?``, ``%``, a space or a ``:`` are part of the name (``notes#2 draft%41.md`` is not
    the file ``notes`` at fragment ``2 draft``, nor ``draft%41`` the name ``draftA``). An
    absolute path is a ``file:`` URI."""
    if Path(path).is_absolute():
        return Path(path).as_uri()
    return _encoded(path)


def _encoded(path: str) -> str:
    try:
        raw = path.encode("utf-8", "surrogateescape")  # a name that is not UTF-8 keeps its bytes
    except UnicodeEncodeError:
        raw = path.encode("utf-8", "surrogatepass")
    return quote(raw, safe="/")


def _region(line: int) -> dict:
    return {"startLine": max(1, int(line))}


def _file_of(verdict: CheckVerdict) -> str:
    """The file a verdict is shown at, as it is named on disk: a place names it escaped
    (``r\\xfe.md``, a byte that is not UTF-8), a URI can carry the byte itself (``r%FE.md``)."""
    shown = verdict.place.file
    return verdict.report if verdict.report and shown == printable(verdict.report) else shown


def result(verdict: CheckVerdict, rule_index: int, fingerprint: str, rootdir: Path, workspace: str | None) -> dict:
    file = workspace_path(_file_of(verdict), rootdir, workspace)
    uri = artifact_uri(file)
    out: dict = {
        "ruleId": rule_id(verdict.status),
        "ruleIndex": rule_index,
        "level": "error" if verdict.verdict == Verdict.FAIL else "warning",
        "message": {"text": printable(verdict.message) or verdict.status},
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {"uri": uri, **({} if Path(file).is_absolute() else {"uriBaseId": "%SRCROOT%"})},
                "region": _region(verdict.place.line),
            },
        }],
        "partialFingerprints": {FINGERPRINT: fingerprint},
    }
    target = target_place(verdict)
    if target is not None:
        name, path, lines = target
        related: dict = {"id": 1, "message": {"text": name}}
        if path:
            region = {"startLine": lines[0], "endLine": lines[1]} if lines and len(lines) == 2 and lines[0] >= 1 else None
            related["physicalLocation"] = {
                # a file of the target repository, not of the checkout: its base is named for the target
                "artifactLocation": {"uri": _encoded(path), "uriBaseId": "MEMREPORT_TARGET"},
                **({"region": region} if region else {}),
            }
        out["relatedLocations"] = [related]
    if verdict.record:
        out["properties"] = {"record": verdict.record}
    return out


def build_sarif(verdicts: list[CheckVerdict], rootdir: Path, workspace: str | None) -> dict:
    """The SARIF log of a run: every check that failed or warned, in file and line order."""
    ordered = sorted(verdicts, key=CheckVerdict.sort_key)
    statuses = sorted({v.status for v in ordered})
    index = {status: i for i, status in enumerate(statuses)}
    prints = fingerprints(ordered)
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {"driver": {
                "name": "pytest-memreport",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": [_rule(status) for status in statuses],
            }},
            "columnKind": "unicodeCodePoints",
            "results": [result(v, index[v.status], fp, rootdir, workspace) for v, fp in zip(ordered, prints)],
        }],
    }


def render(verdicts: list[CheckVerdict], rootdir: Path, workspace: str | None) -> str:
    # One result per line (runs, results, result): see jsontext.
    return jsontext.dumps(build_sarif(verdicts, rootdir, workspace), compact_at=4, ensure_ascii=False) + "\n"
