"""The review fixtures' target: a small Rust repository ``acme/widget`` (its files as
``FILES``) and the GitHub URL prefixes of its blob and tree links."""

from __future__ import annotations

import textwrap

BLOB = "https://github.com/acme/widget/blob"
TREE = "https://github.com/acme/widget/tree"

ENGINE_RS = textwrap.dedent(
    """\
    use crate::queue::Queue;

    pub struct Engine {
        queue: Queue,
    }

    impl Engine {
        pub fn tick(&mut self) -> usize {
            self.queue.drain_ready()
        }
    }
    """
)
LIMITS_RS = "pub const MAX_RETRIES: u32 = 5;\npub const BACKOFF_MS: u64 = 250;\n"
QUEUE_RS = "pub struct Queue;\n\nimpl Queue {\n    pub fn drain_ready(&mut self) -> usize { 0 }\n}\n"
FILES = {
    "src/core/engine.rs": ENGINE_RS,
    "src/core/limits.rs": LIMITS_RS,
    "src/queue.rs": QUEUE_RS,
    "docs/tuning.md": "# Tuning\n\nRaise the backoff before the retries.\n",
    "Cargo.toml": '[package]\nname = "widget"\n',
}
