"""Small reports in three dialects about one target, the store of ``acme/store``: a record
report, a review and an analysis run (for the HTML site's and the gold files' collections)."""

from __future__ import annotations

import textwrap

#: the target's store and its queue, at the pin
STORE_PY = textwrap.dedent("""\
    LIMIT = 200


    def keep(entries):
        return entries[-LIMIT:]


    def drop(entries):
        return []
    """)
QUEUE_PY = "class Queue:\n    def push(self, item):\n        self.items.append(item)\n"
#: a quotation that is markup
HOSTILE = "<script>document.title='pwned'</script>"


def record_report(pin: str, name: str, quote: str, cited: str, record_id: str | None = None) -> str:
    return textwrap.dedent(f"""\
        {name} memory report

        Boundary and evidence

        The target is the store at SRC-1 commit {pin}.

        Operative objects

        {record_id or f"MEM-OBJ-{name.lower()}"}

        Label: {name}

        The store keeps the newest entries. SRC-1: pkg/store.py.

        {quote} --- {cited}
        """)


def review_report(pin: str, path: str, lines: str, quote: str, title: str) -> str:
    start, end = lines.split("-")
    return textwrap.dedent(f"""\
        # {title}

        **Repository:** https://github.com/acme/store
        **Reviewed commit:** [{pin}](https://github.com/acme/store/commit/{pin})

        ## Findings

        The code lives in [{path}](https://github.com/acme/store/blob/{pin}/{path}#L{start}-L{end}).

        > {quote}
        > --- [{path}](https://github.com/acme/store/blob/{pin}/{path}#L{start}-L{end})
        """)


def run_report(pin: str, anchor: str, title: str) -> str:
    return textwrap.dedent(f"""\
        # Analysis run: {title}

        **Revision:** `{pin}`

        ## Source register

        | Source | Repository | Revision | Path |
        | --- | --- | --- | --- |
        | SRC-01 | https://github.com/acme/store | `{pin}` | |

        ## Objects

        | ID | Label | Anchors | Status |
        | --- | --- | --- | --- |
        | OBJ-1 | {title} | `{anchor}` | implementation conclusion status: afforded. |
        """)
