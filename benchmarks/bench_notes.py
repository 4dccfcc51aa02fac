"""Parsing notes (docs/FORMATS.md §4): what reading prose ties costs over reading a review.

Builds synthetic notes (an evidence basis, then paragraphs of running prose with quoted
phrases beside links, in sentences naming backticked files, attributed to the project or
to nothing, blockquotes introduced by a linking sentence, commit links) and parses the
same texts as notes and as reviews, in the same process, best of several rounds. Prints:

* notes/review: the cost of the notes dialect over the review dialect it grows from;
* growth: the time per paragraph of one note ``--scale`` times longer, over the short
  note's (about 1: parsing stays linear in a note's length).

    python benchmarks/bench_notes.py                  # 200 notes of 40 paragraphs
    python benchmarks/bench_notes.py --notes 50 --paragraphs 20 --scale 16
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_memreport.dialects import notes, review  # noqa: E402

PIN = "4f1c9e02" + "a" * 32
BLOB = f"https://github.com/acme/widgets/blob/{PIN}"
WORDS = ("queue planner worker rewrite step inverse order arrival priority slice durable job runner "
         "restore upgrade backup engine scheduler state commit plan batch retry limit").split()


def paragraph(rng: random.Random, index: int) -> str:
    def phrase(n: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(n))

    path = f"src/{rng.choice(WORDS)}/{rng.choice(WORDS)}.py"
    kinds = [
        f'The {phrase(2)} "{phrase(5)}" ([{path}]({BLOB}/{path})).',
        f'`{path}` calls this "{phrase(4)}", and the {phrase(3)} agrees.',
        f'The docs state that "{phrase(4)}" for every {phrase(2)}.',
        f'It is not "{phrase(3)}" in any sense; see [the {phrase(1)}]({BLOB}/{path}#L{index + 1}).',
        f'The fix landed in [{PIN[:7]}](https://github.com/acme/widgets/commit/{PIN}).',
        f'The design says so in [{path}]({BLOB}/{path}):\n\n> {phrase(6)}\n> {phrase(5)}',
    ]
    return " ".join(rng.choice(kinds) for _ in range(3))


def note(rng: random.Random, paragraphs: int) -> str:
    body = "\n\n".join(paragraph(rng, i) for i in range(paragraphs))
    return (f"---\ndescription: bench\n---\n\n# Bench\n\n**Evidence basis:** the `acme/widgets` checkout at "
            f"commit [{PIN[:8]}](https://github.com/acme/widgets/commit/{PIN}) (2026-05-14).\n\n{body}\n")


def best(parse, texts: list[str], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for number, text in enumerate(texts):
            parse(f"n{number}.md", text)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notes", type=int, default=200)
    parser.add_argument("--paragraphs", type=int, default=40)
    parser.add_argument("--scale", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(34)
    texts = [note(rng, args.paragraphs) for _ in range(args.notes)]
    as_notes = best(notes.parse, texts, args.rounds)
    as_review = best(review.parse, texts, args.rounds)
    evidence = sum(len(notes.parse("n.md", text).evidence) for text in texts[:10]) / 10
    print(f"{args.notes} notes of {args.paragraphs} paragraphs (~{evidence:.0f} pieces of evidence each)")
    print(f"notes/review parse: {as_notes / as_review:.2f} ({as_notes:.2f} s / {as_review:.2f} s)")
    short = [note(rng, args.paragraphs)]
    long = [note(rng, args.paragraphs * args.scale)]
    per_short = best(notes.parse, short, args.rounds) / args.paragraphs
    per_long = best(notes.parse, long, args.rounds) / (args.paragraphs * args.scale)
    print(f"growth (per paragraph, {args.scale}x longer note / short note): {per_long / per_short:.2f}")


if __name__ == "__main__":
    main()
