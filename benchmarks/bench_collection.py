#!/usr/bin/env python
"""A user's whole collection, shaped as FORMAT §6 says, against floors run in the same process (a script).

    python benchmarks/bench_collection.py [--rounds 3] [--workdir /tmp/memreport-realshape]

``bench_realshape`` checks record reports of one target. Users keep other shapes
too, and many targets at once; this builds (deterministic, cached in the work folder)
a knowledge base of them:

- **30 targets**: the real-shaped target of ``bench_realshape`` (4,200 files, 720
  first-parent commits, 150 cited functions that leave their file, a 10,000-line class)
  as ``acme/widgets``, and 29 smaller ones (120 modules and three 40 KB data files
  each, 60 commits with edits, renames and a moved folder), under one folder of clones
  in a mirror layout (``clones/<Owner>+<name>/repo``, owners spelt as GitHub does,
  the reports sometimes in lower case). Most clones are complete and current; three
  are stale (older than some reviews' pin), two shallow, two partial (lacking the
  data files' blobs);
- **about 150 reviews** (§2: front matter, repository and reviewed-commit lines,
  blob links with line anchors, backticked function names beside their link, folder
  links, blockquoted quotations whose last line links their file), four or five per
  target at two pins (written at two times), a dozen superseded copies beside their
  successors (``*.replaced.2026-07-06.md``);
- **12 notes** (§4) of ``acme/widgets``: an evidence-basis line, then prose with
  quotations beside links, blockquotes under a linking sentence, phrases attributed
  to a backticked file or to the project, links to line ranges that later leave their
  file, and the 10,000-line class by name;
- **3 analysis runs** (§3) of ``acme/widgets``: an evidence packet (source,
  frozen revision, a register of files), three lenses of table rows citing
  ``SRC-n:a-b`` and paths with ranges, a runtime account and a result.

Then, round after round, it times (``time.perf_counter`` around each process):

(f)  git's own answer for every (clone, pin) pair the collection checks:
     ``git diff -M pin HEAD`` + ``git log --first-parent -M --raw pin..HEAD``, one after another;
(n)  pytest running as many no-op items as the collection has;
(c)  ``pytest --memreport kb --memreport-repo-template 'clones/{owner}+{name}/repo'
     --memreport-against HEAD`` cold (``--cache-clear``), (w) the same again, warm;
(h)  cold again on half the collection (the reports of every other target, and half the
     notes and runs), to print how the cost grows when the collection doubles,

and prints the medians of the rounds' own ratios: cold ``(c)/((f)+(n))`` (target
2.5x), warm ``(w)/(n)`` (1.5x), growth ``(c)/(h)`` (at most 2x for twice the
collection), the git processes of the cold run and the reports' states. ``--code
DIR`` runs another checkout of the package. See benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import bench_history  # beside this script
import bench_realshape as realshape

HERE = Path(__file__).resolve().parent
GENERATOR_VERSION = 1
SEED = 20261203
BIG = ("acme", "widgets")
SMALL_TARGETS, SMALL_FILES, SMALL_COMMITS, DATA_FILES = 29, 120, 60, 3
#: the commits (0-based, first parent) the reviews of a small target are pinned at: two eras
EARLY_PIN, LATE_PIN = 8, 44
STALE, SHALLOW, PARTIAL = (3, 11, 19), (7, 23), (5, 15)  # which small targets' clones are so
STALE_AT, SHALLOW_DEPTH = 30, 25  # a stale clone ends at commit 30; a shallow one holds the last 25
REVIEWS_PER_TARGET = (4, 5)
NOTES, RUNS, LENSES, ROWS = 12, 3, 3, 40
SUPERSEDED_DATE = "2026-07-06"
OWNERS = ("Acme", "beta-labs", "ZetaCorp", "north", "Orchid-IO", "quill", "Tern", "vega-sys")
WORDS = ("queue planner worker ledger shard cursor budget lease window replica tenant "
         "checkpoint manifest codec channel bucket").split()


# --- targets -------------------------------------------------------------------------------

def data_file(rng: random.Random, target: int, k: int) -> list[str]:
    """A 40 KB data file: the blob a partial clone leaves out."""
    return [f'{{"row": {i}, "target": {target}, "table": {k}, "value": {rng.randint(0, 10**9)}}}'
            for i in range(800)]


def build_small(rng: random.Random, target: int, origin: Path) -> dict:
    """A small target, one fast-import: 120 modules in four folders and three data files,
    then 60 commits (edits; every 10th renames a module; the 30th moves a folder). Returns
    the first-parent shas and the files at the two review pins."""
    folders = ("core", "io", "api", "util")
    files = {f"src/{folders[i % 4]}/m{target}_{i}.py":
             bench_history.gen_file(rng, target * 1000 + i, functions=(4, 8), body=(3, 8))
             for i in range(SMALL_FILES)}
    files.update({f"data/table_{k}.json": data_file(rng, target, k) for k in range(DATA_FILES)})
    stream = realshape.Stream()
    at_pin: dict[int, dict[str, list[str]]] = {}
    for n in range(SMALL_COMMITS):
        changed: set[str] = set(files) if n == 0 else set()
        ops: list[bytes] = []
        if n:
            for path in rng.sample(sorted(p for p in files if p.endswith(".py")), rng.randint(1, 2)):
                lines = files[path]
                at = rng.randrange(len(lines))
                if rng.random() < 0.6:
                    lines[at:at] = [f"# revisited in change {n}"]
                else:
                    lines[at] = lines[at] + f"  # changed in {n}"
                changed.add(path)
            if n % 10 == 5:
                old = rng.choice(sorted(p for p in files if p.endswith(".py") and p not in changed))
                new = old.replace("/m", "/renamed_m", 1)
                files[new] = files.pop(old)
                ops.append(b"D %s\n" % old.encode())
                changed.add(new)
            if n == 30:
                for old in [p for p in sorted(files) if p.startswith("src/io/")]:
                    files["pkg/io/" + old[len("src/io/"):]] = files.pop(old)
                    ops.append(b"D %s\n" % old.encode())
                    changed.discard(old)
                    changed.add("pkg/io/" + old[len("src/io/"):])
        for path in sorted(changed):
            ops.append(b"M 100644 :%d %s\n" % (stream.blob(files[path]), path.encode()))
        stream.commit(f"change {n}", ops)
        if n in (EARLY_PIN, LATE_PIN):
            at_pin[n] = {p: list(lines) for p, lines in files.items()}
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(origin)], check=True)
    subprocess.run(["git", "-C", str(origin), "fast-import", "--quiet"], input=bytes(stream.data), check=True)
    # a partial clone's server must allow the filter (file:// runs this repository's upload-pack)
    subprocess.run(["git", "-C", str(origin), "config", "uploadpack.allowFilter", "true"], check=True)
    shas = subprocess.run(["git", "-C", str(origin), "rev-list", "--first-parent", "--reverse", "main"],
                          capture_output=True, text=True, check=True).stdout.split()
    return {"shas": shas, "at_pin": at_pin}


def clone(origin: Path, dest: Path, kind: str, shas: list[str]) -> None:
    """A clone of ``origin`` as a user's folder holds it: current, stale, shallow or partial."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    if kind == "stale":
        subprocess.run(["git", "-C", str(origin), "branch", "-f", "stale", shas[STALE_AT]], check=True)
        cmd = ["git", "clone", "-q", "--bare", "--no-local", "--single-branch", "--branch", "stale",
               origin.as_uri(), str(dest)]
    elif kind == "shallow":
        cmd = ["git", "clone", "-q", "--bare", "--depth", str(SHALLOW_DEPTH), origin.as_uri(), str(dest)]
    elif kind == "partial":
        cmd = ["git", "clone", "-q", "--bare", "--filter=blob:limit=20k", origin.as_uri(), str(dest)]
    else:
        cmd = ["git", "clone", "-q", "--bare", str(origin), str(dest)]
    subprocess.run(cmd, check=True)


# --- reports -------------------------------------------------------------------------------

def blob(slug: str, sha: str, path: str, first: int | None = None, last: int | None = None) -> str:
    anchor = "" if first is None else f"#L{first}" if last in (None, first) else f"#L{first}-L{last}"
    return f"https://github.com/{slug}/blob/{sha}/{path}{anchor}"


def functions(lines: list[str]) -> list[tuple[str, int, int]]:
    """``(name, first, last)`` 1-based of each ``def`` block of a generated module."""
    return [(lines[a].split("(")[0][4:], a + 1, b + 1) for a, b in realshape.function_blocks(lines)]


def quotable(lines: list[str]) -> list[int]:
    """0-based indexes of a module's body lines (each distinct in its file)."""
    return [i for i, line in enumerate(lines) if "combine_" in line]


def review(rng: random.Random, slug: str, written: str, sha: str, files: dict[str, list[str]], title: str) -> str:
    """A review (§2) of ``slug`` at ``sha``: findings citing functions by link and name,
    line ranges, a folder, a data file, and blockquoted quotations."""
    modules = sorted(p for p in files if p.endswith(".py") and p != realshape.HUGE_PATH)
    body = []
    for _ in range(rng.randint(6, 10)):
        path = rng.choice(modules)
        name, first, last = rng.choice(functions(files[path]))
        other = rng.choice(modules)
        at = rng.choice(quotable(files[other]))
        body.append(f"- The {rng.choice(WORDS)} step `{name}` lives in "
                    f"[{path.rsplit('/', 1)[1]}]({blob(slug, sha, path, first, last)}) and leans on "
                    f"[{other}]({blob(slug, sha, other, at + 1, at + 3)}).")
    data = sorted(p for p in files if p.startswith("data/"))
    if data:
        table = rng.choice(data)
        body.append(f"- Its fixtures are rows of [{table}]({blob(slug, sha, table, 2, 4)}).")
    body.append(f"- The sources sit under [src/core](https://github.com/{slug}/tree/{sha}/src/core).")
    quotes = []
    for _ in range(rng.randint(2, 3)):
        path = rng.choice(modules)
        at = rng.choice(quotable(files[path]))
        quotes.append(f"> {files[path][at].strip()}\n> --- [{path}]({blob(slug, sha, path)})")
    return (f"---\ndescription: {title}\ntype: code-review\nsource-tier: primary\nlast-checked: 2026-06-01\n"
            f"tags: [bench, {slug.split('/')[1]}]\n---\n\n# {title}\n\n**Repository:** https://github.com/{written}\n"
            f"**Reviewed commit:** [{sha}](https://github.com/{written}/commit/{sha})\n\n## Findings\n\n"
            + "\n".join(body) + "\n\n## Quoted\n\n" + "\n\n".join(quotes) + "\n")


def note(rng: random.Random, number: int, pin: str, files: dict, moving: list) -> str:
    """A note (§4) of acme/widgets at ``pin``: prose tying quotations to links, to a backticked
    file and to the project; links to ranges that later leave their file; in the first note,
    the 10,000-line class by name."""
    slug = "/".join(BIG)
    modules = sorted(p for p in files if p != realshape.HUGE_PATH)
    paragraphs = []
    for k in range(rng.randint(14, 20)):
        path = rng.choice(modules)
        at = rng.choice(quotable(files[path]))
        line = files[path][at].strip()
        mpath, first, last = moving[(number * 20 + k) % len(moving)]
        other = rng.choice(modules)
        oat = rng.choice(quotable(files[other]))
        kinds = [
            f'The {rng.choice(WORDS)} code reads "{line}" ([{path}]({blob(slug, pin, path, at + 1)})).',
            f"The step moved later; at the pin it was [these lines]({blob(slug, pin, mpath, first + 1, last + 1)}).",
            f"`{other}` holds \"{files[other][oat].strip()}\", which the {rng.choice(WORDS)} relies on.",
            f"The {rng.choice(WORDS)} is introduced in [{path}]({blob(slug, pin, path)}):\n\n> {line}",
        ]
        paragraphs.append(" ".join(rng.sample(kinds[:3], 2)) if k % 4 else kinds[3])
    if number == 0:
        paragraphs.append(f"`StateMachine` ([machine.py]({blob(slug, pin, realshape.HUGE_PATH)})) keeps "
                          "every state it has been in.")
    return (f"---\ndescription: note {number} on widgets\ntype: note\nlast-checked: 2026-06-01\n---\n\n"
            f"# Widgets, part {number}\n\n**Evidence basis:** first-hand reading of the `acme/widgets` checkout "
            f"at commit [{pin[:8]}](https://github.com/{slug}/commit/{pin}) (2026-05-14), covering `src/`.\n\n"
            + "\n\n".join(paragraphs) + "\n")


def analysis_run(rng: random.Random, number: int, pin: str, files: dict, moving: list) -> dict[str, str]:
    """An analysis run (§3) of acme/widgets: its files by name."""
    run_id = f"WID-{number}"
    modules = sorted(p for p in files if p != realshape.HUGE_PATH)
    register = rng.sample(modules, 25)
    packet = [f"# Evidence packet — RUN `{run_id}`", "", "Source: https://github.com/acme/widgets", "",
              f"**Frozen revision:** `{pin}`", "", "## Source register", "", "| ID | Identity | Role |", "|---|---|---|"]
    packet += [f"| SRC-{i + 1} | `{path}` | {rng.choice(WORDS)} |" for i, path in enumerate(register)]
    out = {"evidence-packet.md": "\n".join(packet) + "\n"}
    moved = iter(moving[number * 40:])
    for lens in range(LENSES):
        rows = [f"# Lens {lens} — RUN `{run_id}`", "", "| ID | Finding | Anchor |", "|---|---|---|"]
        for r in range(ROWS):
            src = rng.randrange(len(register))
            fns = functions(files[register[src]])
            _, first, last = rng.choice(fns)
            path = rng.choice(modules)
            at = rng.choice(quotable(files[path]))
            anchors = [f"SRC-{src + 1}:{first}-{last}", f"`{path}:{at + 1}-{at + 3}`"]
            if r % 5 == 0:
                mpath, mfirst, mlast = next(moved, moving[r])
                anchors.append(f"{mpath}:{mfirst + 1}-{mlast + 1}")
            finding = f"the {rng.choice(WORDS)} {rng.choice(WORDS)}"
            if r % 4 == 0:
                qat = rng.choice(quotable(files[register[src]]))
                finding = f'"{files[register[src]][qat].strip()}" (`SRC-{src + 1}:{qat + 1}`)'
            rows.append(f"| MEM-{lens}-{r} | {finding} | {', '.join(anchors)} |")
        out[f"lens-{WORDS[lens]}.md"] = "\n".join(rows) + "\n"
    routes = [f"# Runtime account — RUN `{run_id}`", "", f"Target: widgets at `{pin[:7]}`.", "",
              "| ID | Route | Anchor |", "|---|---|---|"]
    for r in range(15):
        src = rng.randrange(len(register))
        _, first, last = rng.choice(functions(files[register[src]]))
        routes.append(f"| RTE-{r} | {rng.choice(WORDS)} to {rng.choice(WORDS)} | SRC-{src + 1}:{first}-{last} |")
    out["runtime-account.md"] = "\n".join(routes) + "\n"
    out["RESULT.md"] = (f"# Result — RUN `{run_id}`\n\n| Record | Anchor |\n|---|---|\n"
                        f"| `MEM-0-0` | SRC-1:1-3 |\n")
    return out


def build(root: Path, big_repo: Path, big_pin: str) -> dict:
    rng = random.Random(SEED)
    kb, clones, origins = root / "kb", root / "clones", root / "origins"
    for folder in (kb / "reviews", kb / "notes", kb / "runs", origins):
        folder.mkdir(parents=True)
    clone(big_repo, clones / "Acme+widgets" / "repo", "current", [])
    targets = [{"slug": "/".join(BIG), "clone": "Acme+widgets", "kind": "current", "pins": [big_pin]}]
    big_files, moving = realshape.pinned_tree(random.Random(realshape.SEED))
    reviews = 0
    for t in range(SMALL_TARGETS):
        owner, name = OWNERS[t % len(OWNERS)], f"{WORDS[t % len(WORDS)]}-{t}"
        built = build_small(rng, t, origins / f"{owner}+{name}.git")
        kind = "stale" if t in STALE else "shallow" if t in SHALLOW else "partial" if t in PARTIAL else "current"
        clone(origins / f"{owner}+{name}.git", clones / f"{owner}+{name}" / "repo", kind, built["shas"])
        slug = f"{owner}/{name}"
        pins = [built["shas"][EARLY_PIN], built["shas"][LATE_PIN]]
        targets.append({"slug": slug, "clone": f"{owner}+{name}", "kind": kind, "pins": pins})
        for r in range(rng.randint(*REVIEWS_PER_TARGET)):
            era = EARLY_PIN if r % 2 else LATE_PIN
            sha = built["shas"][era]
            written = slug.lower() if r % 3 == 1 else slug
            stem = f"{name}-{r}"
            (kb / "reviews" / f"{stem}.md").write_text(
                review(rng, slug, written, sha, built["at_pin"][era], f"{name} review {r}"), encoding="utf-8")
            reviews += 1
            if r == 0 and t % 2 == 0:  # its predecessor, written at the early pin, kept beside it
                (kb / "reviews" / f"{stem}.replaced.{SUPERSEDED_DATE}.md").write_text(
                    review(rng, slug, slug, built["shas"][EARLY_PIN], built["at_pin"][EARLY_PIN],
                           f"{name} review {r}, first version"), encoding="utf-8")
                reviews += 1
    for r in range(6):  # reviews of the big target too
        (kb / "reviews" / f"widgets-{r}.md").write_text(
            review(rng, "/".join(BIG), "acme/widgets", big_pin, big_files, f"widgets review {r}"), encoding="utf-8")
        reviews += 1
    for n in range(NOTES):
        (kb / "notes" / f"widgets-note-{n}.md").write_text(note(rng, n, big_pin, big_files, moving), encoding="utf-8")
    for n in range(RUNS):
        folder = kb / "runs" / f"run-{n}"
        folder.mkdir()
        for name, text in analysis_run(rng, n, big_pin, big_files, moving).items():
            (folder / name).write_text(text, encoding="utf-8")
    shutil.rmtree(origins)  # the clones are all a run reads
    return {"targets": targets, "reviews": reviews, "notes": NOTES, "runs": RUNS}


def ensure_input(workdir: Path) -> tuple[Path, dict]:
    big_root, big = realshape.ensure_input(workdir)

    def build_into(root: Path) -> dict:
        manifest = build(root, big_root / "repo", big["pin"])
        write_half(root, manifest)
        return manifest

    return realshape.cached_input(workdir, "collection", [GENERATOR_VERSION, SEED, big["pin"], SMALL_TARGETS,
                                                          SMALL_COMMITS, NOTES, RUNS], build_into)


def write_half(root: Path, manifest: dict) -> None:
    """``half/``: every other target's reviews, half the notes and runs (the same shapes, halved)."""
    half = root / "half"
    halved = {t["slug"].lower() for t in manifest["targets"][1::2]}
    for path in sorted((root / "kb").rglob("*.md")):
        relative = path.relative_to(root / "kb")
        text = path.read_text(encoding="utf-8")
        keep = (relative.parts[0] == "reviews" and not any(f"github.com/{s}/" in text.lower() for s in halved)
                or relative.parts[0] == "notes" and int(path.stem.rsplit("-", 1)[1]) % 2 == 0
                or relative.parts[0] == "runs" and relative.parts[1] != "run-1")
        if keep:
            (half / relative).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, half / relative)


# --- measuring -----------------------------------------------------------------------------

def checked_pairs(root: Path, targets: list[dict]) -> list[tuple[Path, str]]:
    """The (clone, pin) pairs a run can check: the pins each clone holds (untimed)."""
    pairs = []
    for target in targets:
        repo = root / "clones" / target["clone"] / "repo"
        for pin in target["pins"]:
            held = subprocess.run(["git", "-C", str(repo), "cat-file", "-e", f"{pin}^{{commit}}"],
                                  capture_output=True).returncode == 0
            if held:
                pairs.append((repo, pin))
    return pairs


def git_floor(pairs: list[tuple[Path, str]]) -> float:
    began = time.perf_counter()
    for repo, pin in pairs:
        subprocess.run(["git", "-C", str(repo), "diff", "-M", pin, "HEAD"], capture_output=True, check=True)
        subprocess.run(["git", "-C", str(repo), "log", "--first-parent", "-M", "--raw", "--format=%H%x00%an%x00%s",
                        f"{pin}..HEAD"], capture_output=True, check=True)
    return time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of every measure; medians are printed")
    parser.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "memreport-realshape"))
    parser.add_argument("--code", default=str(HERE.parent), help="the checkout whose package is measured")
    args = parser.parse_args()
    root, m = ensure_input(Path(args.workdir))
    code = Path(args.code).resolve()
    env = realshape.environment(root, code)
    kinds = Counter(t["kind"] for t in m["targets"])
    print(f"input: {len(m['targets'])} targets ({', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))} clones), "
          f"{m['reviews']} reviews, {m['notes']} notes, {m['runs']} analysis runs (built in {m['build_seconds']} s); "
          f"code: {code}")
    print(f"load before: {os.getloadavg()}", flush=True)
    pairs = checked_pairs(root, m["targets"])
    half_pairs = [p for p in pairs if p[0].parent.name in
                  {t["clone"] for t in m["targets"][0::2]}]

    def memreport(folder: str, out: str) -> list[str]:
        return [sys.executable, "-m", "pytest", "-q", "--tb=no", "-o", f"cache_dir={root / ('cache-' + folder)}",
                "--memreport", folder, f"--memreport-repo-template={root / 'clones'}/{{owner}}+{{name}}/repo",
                "--memreport-against", "HEAD", "--memreport-json", str(root / out)]

    whole, half = memreport("kb", "kb.json"), memreport("half", "half.json")
    count = realshape.collected(root, env, whole[:5] + whole[7:])
    noop = realshape.noop_file(root, "test_noop_collection.py", count)
    realshape.run(root, env, noop)  # compile, untimed
    rows: dict[str, list[float]] = {}
    notes: dict[str, str] = {}

    def keep(key: str, value: float) -> None:
        rows.setdefault(key, []).append(value)

    for round_ in range(1, args.rounds + 1):
        floor = git_floor(pairs)
        cold, notes["c"] = realshape.run(root, env, whole + ["--cache-clear"])
        data = json.loads((root / "kb.json").read_text())
        warm, notes["w"] = realshape.run(root, env, whole)
        items, _ = realshape.run(root, env, noop)
        halved, notes["h"] = realshape.run(root, env, half + ["--cache-clear"])
        for key, value in (("f", floor), ("c", cold), ("w", warm), ("n", items), ("h", halved),
                           ("cold", cold / (floor + items)), ("warm", warm / items), ("growth", cold / halved),
                           ("git_processes", data["timing"].get("git_processes", -1))):
            keep(key, value)
        notes["states"] = ", ".join(f"{n} {s}" for s, n in sorted(Counter(r["state"] for r in data["reports"]).items()))
        print(f"round {round_}: (f) {floor:.2f} s (c) {cold:.2f} s (w) {warm:.2f} s (n) {items:.2f} s "
              f"(h) {halved:.2f} s: cold {rows['cold'][-1]:.2f}x, warm {rows['warm'][-1]:.2f}x, "
              f"growth {rows['growth'][-1]:.2f}x", flush=True)
    median = statistics.median
    print(f"medians of {args.rounds} round(s):")
    print(f"(f) git floor {median(rows['f']):7.2f} s  (git diff -M + git log --first-parent -M --raw for "
          f"{len(pairs)} (clone, pin) pairs; {len(half_pairs)} in the half)")
    print(f"(n) pytest    {median(rows['n']):7.2f} s  ({count} no-op items)")
    print(f"(c) cold      {median(rows['c']):7.2f} s  ({notes['c']}; git processes {median(rows['git_processes']):.0f}; "
          f"reports {notes['states']})")
    print(f"(w) warm      {median(rows['w']):7.2f} s  ({notes['w']})")
    print(f"(h) half cold {median(rows['h']):7.2f} s  ({notes['h']})")
    print(f"    cold (c)/((f)+(n)) = {median(rows['cold']):.2f}x (target 2.5x); warm (w)/(n) = "
          f"{median(rows['warm']):.2f}x (target 1.5x); growth (c)/(h) = {median(rows['growth']):.2f}x "
          f"(at most 2x for twice the collection)")
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
