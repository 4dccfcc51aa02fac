"""A batch of evidence checked at its pin, file by file, each answer in its own place."""

from __future__ import annotations

from pytest_memreport.checks import atpin, verify
from pytest_memreport.gitstore import GitStore
from pytest_memreport.model import Evidence, EvidenceKind
from pytest_memreport.runcaches import RunCaches


def test_a_batch_checked_file_by_file_answers_each_piece_of_evidence_in_the_order_given(make_repo):
    # More files than the text indexes kept, each quoted twice far apart: the batch is
    # checked file by file, and each answer must still land on its own piece of evidence.
    repo = make_repo()
    files = {f"notes/n{n:03}.md": f"# Note {n}\n\nthe kept line of note {n}\nanother line {n}\n" for n in range(300)}
    pin = repo.commit(files, "notes")
    first = [Evidence(EvidenceKind.QUOTE, path, line=n + 1, end_line=n + 1, text=f"the kept line of note {n}")
             for n, path in enumerate(files)]
    # the second quotation of each odd note says what it does not
    second = [Evidence(EvidenceKind.QUOTE, path, line=400 + n, end_line=400 + n,
                       text=f"another line {n}" if n % 2 == 0 else f"a line note {n} never had")
              for n, path in enumerate(files)]
    gone = Evidence(EvidenceKind.QUOTE, "notes/none.md", line=999, end_line=999, text="anything")
    evidence = [*reversed(first), gone, *second]
    with GitStore.open(repo.path) as store, RunCaches().active():
        results = atpin.check_batch(evidence, store.snapshot(pin), want_symbols=False)
    assert len(results) == len(evidence)
    for one, result in zip(evidence, results):
        assert result is not None and result.path == one.path
    by_note = dict(zip(reversed(range(300)), results[:300]))
    assert all(by_note[n].status == verify.FOUND and (by_note[n].lines.start, by_note[n].lines.end) == (3, 3)
               for n in range(300))
    assert results[300].status == verify.FILE_MISSING
    assert [r.status for r in results[301:]] == [verify.FOUND if n % 2 == 0 else verify.MISSING for n in range(300)]
    assert all(r.lines.start == 4 for r in results[301::2])
