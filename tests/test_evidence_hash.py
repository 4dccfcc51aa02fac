"""Evidence keys the run's result tables and is hashed about fifteen times per check: its
hash is kept once computed (:class:`pytest_memreport.model.Evidence`). The kept hash is this
process's: a report the parse helper pickled is read here, where strings hash otherwise."""

from __future__ import annotations

import copy
import dataclasses
import os
import pickle
import subprocess
import sys

from pytest_memreport.model import Evidence, EvidenceKind, LineRange


def quotation(path: str = "src/store.py", text: str = "limit = 40") -> Evidence:
    return Evidence(EvidenceKind.QUOTE, path, 12, 12, text, LineRange(3, 4), source="SRC-1")


def test_a_kept_hash_is_the_hash_of_its_fields():
    evidence = quotation()
    assert hash(evidence) == hash(evidence) == hash(quotation())
    assert {evidence: "found"}[quotation()] == "found"
    assert hash(dataclasses.replace(evidence, path="src/other.py")) == hash(quotation(path="src/other.py"))


def test_the_kept_hash_is_not_compared_copied_or_pickled():
    evidence = quotation()
    hash(evidence)
    for made in (pickle.loads(pickle.dumps(evidence)), copy.copy(evidence), copy.deepcopy(evidence),
                 dataclasses.replace(evidence)):
        assert made == evidence and not hasattr(made, "_hash")
    assert "_hash" not in repr(evidence) and "_hash" not in [f.name for f in dataclasses.fields(evidence)]


_OTHER_PROCESS = """
import pickle, sys
from pytest_memreport.model import Evidence, EvidenceKind, LineRange
read = pickle.loads(sys.stdin.buffer.read())
fresh = Evidence(EvidenceKind.QUOTE, "src/store.py", 12, 12, "limit = 40", LineRange(3, 4), source="SRC-1")
table = {fresh: "found"}
print(table.get(read), hash(read) == hash(fresh))
"""


def test_evidence_hashed_here_keys_the_tables_of_another_process():
    evidence = quotation()
    hash(evidence)  # kept here, with this process's string hashes
    env = {**os.environ, "PYTHONHASHSEED": "12345"}  # another process, other string hashes
    done = subprocess.run([sys.executable, "-c", _OTHER_PROCESS], input=pickle.dumps(evidence),
                          capture_output=True, env=env, check=True)
    assert done.stdout.decode().split() == ["found", "True"]
