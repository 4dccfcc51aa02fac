"""The citation forms other analysis runs write (issue 35), and reading without pygments (issue 36).

Unit tests of :mod:`pytest_memreport.dialects.core.anchors` on cells and sentences;
fixture runs of several writers' styles mixed, checked end to end against a real
repository built in a temporary folder (tests/fixtures/runs/forms-run); and a
property: whatever mix of forms a run is written in, the evidence parsed is the set
of citations written.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from pytest_memreport.dialects.core import anchors

ROOT = Path(__file__).resolve().parent.parent


def cited(text: str, prose: bool = False) -> list[tuple]:
    found, _ = anchors.scan(anchors.plain_unit(text, 1), prose=prose)
    return [(c.path, c.source, tuple(str(r) for r in c.ranges), c.form) for c in found]


# --------------------------------------------------------------------------- issue 36


def test_the_anchors_read_with_pygments_absent():
    # pytest 8.3.5 does not bring pygments: reading a run must not need it, nor the
    # machine's MIME table (``mimetypes`` is blocked too).
    code = textwrap.dedent("""
        import sys
        sys.modules["pygments"] = None
        sys.modules["mimetypes"] = None
        from pytest_memreport.dialects.core import anchors
        found, _ = anchors.scan(anchors.plain_unit("`index.ts`, then `:12`; `JSON.stringify`, `:9`", 1))
        print([(c.path, c.form) for c in found])
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    # ``:9`` continues index.ts: JSON.stringify names a member, not a file.
    assert done.stdout.strip() == ("[('index.ts', 'path'), ('index.ts', 'continuation'), "
                                   "('JSON.stringify', 'path'), ('index.ts', 'continuation')]")


def test_the_extension_list_is_static_and_tells_files_from_members():
    from pytest_memreport.dialects.core.extensions import KNOWN_EXTENSIONS

    assert {"ts", "md", "py", "json", "sql", "yml", "png", "gz"} <= KNOWN_EXTENSIONS
    assert not {"length", "stringify", "keys", "error", "log", "env", "path"} & KNOWN_EXTENSIONS
