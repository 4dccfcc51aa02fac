"""A knowledge base of documents in no described shape (FORMAT.md §7): pilots, a comparison
of two repositories, a manifest, a source ingest, a trial folder, and a record report with
permalinks, over two real target repositories cloned in a mirror layout.

Every document is written here, with every piece of evidence a careful reader counts
listed beside it (``Expected``), so tests can ask the product to find exactly those.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from repo_builder import RepoBuilder

QUEUE_TS = textwrap.dedent("""\
    // The queue hands parcels to workers in arrival order.
    export class Queue {
      private items: string[] = [];
      push(item: string) {
        this.items.push(item);
      }
      drain(): string[] {
        const all = this.items;
        this.items = [];
        return all;
      }
    }
    """)
WORKER_TS = textwrap.dedent("""\
    import { Queue } from "./queue";
    export function classify(parcel: string): string {
      if (parcel.length > 80) {
        return "oversize";
      }
      return "standard";
    }
    export function run(queue: Queue) {
      for (const parcel of queue.drain()) {
        classify(parcel);
      }
    }
    """)
README_MD = "# Widgets\n\nWidgets sort parcels before they ship.\n"
VERSION = "2.4.0\n"
GADGET_RS = textwrap.dedent("""\
    pub fn weigh(grams: u32) -> u32 {
        grams / 1000
    }

    pub fn label(kilos: u32) -> String {
        format!("{kilos} kg")
    }
    """)


@dataclass
class Targets:
    """The two target repositories, each at its pin and moved on since."""

    widgets: RepoBuilder
    gadgets: RepoBuilder
    widgets_pin: str
    gadgets_pin: str
    blobs: dict[str, str] = field(default_factory=dict)


def build_targets(clones: Path) -> Targets:
    """``clones/acme+widgets/repo`` and ``clones/acme+gadgets/repo``: pinned, then edited."""
    widgets = RepoBuilder(clones / "acme+widgets" / "repo")
    widgets_pin = widgets.commit({"src/queue.ts": QUEUE_TS, "src/worker.ts": WORKER_TS, "README.md": README_MD,
                                  "VERSION": VERSION, "docs/notes.md": "Notes.\n"}, "widgets")
    blobs = {path: widgets.repo.git.rev_parse(f"{widgets_pin}:{path}") for path in ("README.md", "VERSION")}
    # Later: the oversize limit changes, the README grows; the queue stays.
    widgets.commit({"src/worker.ts": WORKER_TS.replace("> 80", "> 120"),
                    "README.md": README_MD + "\nMore.\n"}, "raise the oversize limit")
    gadgets = RepoBuilder(clones / "acme+gadgets" / "repo")
    gadgets_pin = gadgets.commit({"lib/gadget.rs": GADGET_RS}, "gadgets")
    gadgets.commit({"lib/other.rs": "pub fn other() {}\n"}, "unrelated")
    return Targets(widgets, gadgets, widgets_pin, gadgets_pin, blobs)


def pilot(t: Targets) -> str:
    """A pilot of one target: front matter pins it by owner/name; citations by path:lines."""
    return textwrap.dedent(f"""\
        ---
        title: Pilot of the parcel queue
        date: 2026-05-02
        code_revisions:
          acme/widgets: {t.widgets_pin}
        ---

        # Pilot: parcels through the queue

        The queue keeps arrival order (`src/queue.ts:2-12`), and the worker drains it
        in `src/worker.ts` (lines 8-12).

        The sorter `classify` exists (`src/worker.ts:2-7`), and oversize parcels are
        those over the limit (:3-5).

        The queue "hands parcels to workers in arrival order" ([src/queue.ts](https://github.com/acme/widgets/blob/{t.widgets_pin}/src/queue.ts#L1)).

        Labels such as O5-like and K1-K5 are this pilot's own, not records.
        """)


#: the quotation the pilot ties to a link (file, words)
PILOT_QUOTE = ("src/queue.ts", "hands parcels to workers in arrival order")
PILOT_EXPECTED = {
    ("lines", "src/queue.ts", "2-12"),
    ("lines", "src/worker.ts", "8-12"),
    ("lines", "src/worker.ts", "2-7"),
    ("lines", "src/worker.ts", "3-5"),
    ("lines", "src/queue.ts", "1"),
}


def comparison(t: Targets) -> str:
    """A comparison of two repositories pinned by short names in one statement."""
    return textwrap.dedent(f"""\
        # Comparing widgets and gadgets

        **Reviewed revisions:** `widgets` `{t.widgets_pin}`; `gadgets` `{t.gadgets_pin}`.

        ## widgets

        Parcels wait in `src/queue.ts:4-6` of widgets.

        ## gadgets

        Weighing is in [lib/gadget.rs](https://github.com/acme/gadgets/blob/{t.gadgets_pin}/lib/gadget.rs#L1-L3),
        and gadgets labels parcels in `lib/gadget.rs:5-7`.
        """)


def manifest(t: Targets) -> str:
    """A manifest of files with their blob ids and lengths; pinned by a snapshot line."""
    return textwrap.dedent(f"""\
        # Manifest of the widgets snapshot

        **Repository snapshot:** [`acme/widgets@{t.widgets_pin}`](https://github.com/acme/widgets/commit/{t.widgets_pin})

        | File | Blob | Lines |
        | --- | --- | --- |
        | `README.md` | `{t.blobs["README.md"]}` | 3 |
        | `VERSION` | `{t.blobs["VERSION"]}` | 1 |
        """)


def ingest(t: Targets) -> str:
    """A source ingest: front matter with a bare ``commit``, and a prose pin statement."""
    return textwrap.dedent(f"""\
        ---
        source: https://github.com/acme/gadgets
        commit: {t.gadgets_pin}
        ---

        # Ingest: gadgets

        The ingest is pinned to the Acme Gadgets revision `{t.gadgets_pin[:10]}`.
        The earlier ingest, pinned to `{"e" * 40}`, is superseded.

        Weights are whole kilos (`lib/gadget.rs:1-3`).
        """)


def record_report(t: Targets) -> str:
    """A record report (§1) whose evidence is commit-pinned permalinks."""
    return textwrap.dedent(f"""\
        # Parcel memory

        Source: https://github.com/acme/widgets
        The analysis is of SRC-1 commit {t.widgets_pin}.

        PM-OBJ-queue

        Label: The parcel queue

        The queue is an array ([queue.ts](https://github.com/acme/widgets/blob/{t.widgets_pin}/src/queue.ts#L3)),
        drained whole (`src/queue.ts:7-11`).
        """)


def write_kb(root: Path, t: Targets) -> dict[str, Path]:
    """The knowledge base's documents under ``root/kb``: one folder of separately written
    documents (no register), and a record report beside it."""
    docs = {
        "pilots/pilot-queue.md": pilot(t),
        "pilots/compare.md": comparison(t),
        "pilots/manifest.md": manifest(t),
        "pilots/ingest-gadgets.md": ingest(t),
        "records/parcel-memory.md": record_report(t),
    }
    return _write(root / "kb", docs)


def protocol(t: Targets) -> str:
    """A review protocol: a snapshot line naming no repository, the repository named in a
    sentence of its own, a table of files and cited lines, a name beside its citation and a
    quotation beside a backticked citation."""
    return textwrap.dedent(f"""\
        # Protocol, second pass

        **Repository snapshot:** `{t.widgets_pin}`

        This pass reads acme/widgets only.

        | File | Lines | Why |
        | --- | --- | --- |
        | `src/queue.ts` | L2-L12 | the queue |
        | `src/worker.ts` | 8–12 | the drain loop |
        | `README.md` | 3 | a length, not a line |

        `classify` is defined at `src/worker.ts` (lines 2-7), and the queue's comment says
        "hands parcels to workers" (`src/queue.ts:1`). `src/queue.ts` L7-L11 drains it, and
        `src/worker.ts` (L9-L11) loops.

        The class opens in `src/queue.ts`:

        ```ts
        export class Queue {{
          private items: string[] = [];
        ```

        A caller would write, in `src/worker.ts`:

        ```ts
        const waiting = new Queue();
        ```

        Build it with `scripts/build.sh`:

        ```sh
        npm run build
        ```
        """)


PROTOCOL_EXPECTED = {
    ("lines", "src/queue.ts", "2-12"),
    ("lines", "src/worker.ts", "8-12"),
    ("lines", "src/worker.ts", "2-7"),
    ("lines", "src/queue.ts", "1"),
    ("lines", "src/queue.ts", "7-11"),
    ("lines", "src/worker.ts", "9-11"),
}


def trial(t: Targets) -> str:
    """A trial note pinned in words that name the repository: "pinned to the owner/name revision"."""
    return textwrap.dedent(f"""\
        # Trial 2

        The trial is pinned to the acme/gadgets revision `{t.gadgets_pin}`.

        Labels are made in `lib/gadget.rs:5-7`.
        """)


def caption(t: Targets) -> str:
    """A list of files read whose only pin is its caption: ``owner/name at `sha` ``."""
    return textwrap.dedent(f"""\
        # Files read (acme/widgets at `{t.widgets_pin}`)

        - `src/queue.ts:2-4`
        """)


def unnamed(t: Targets) -> str:
    """A pin that names no repository, in a knowledge base whose own clone lacks it."""
    return textwrap.dedent(f"""\
        # Trial 3

        Repository revision at freeze: `{t.widgets_pin}`

        The queue starts at `src/queue.ts:2`.
        """)


def write_more(root: Path, t: Targets) -> dict[str, Path]:
    """Documents whose pins name their repository only in words (``root/kb2``)."""
    docs = {"protocol.md": protocol(t), "trial-2.md": trial(t), "files-read.md": caption(t),
            "trial-3.md": unnamed(t)}
    return _write(root / "kb2", docs)


def _write(folder: Path, docs: dict[str, str]) -> dict[str, Path]:
    written = {}
    for rel, text in docs.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written[rel] = path
    return written
