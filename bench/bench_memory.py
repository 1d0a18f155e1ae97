"""Memory under a day's use: it must level off, not grow with the number of edits.

Run: `.venv/bin/python bench/bench_memory.py` (50 open generated documents of ~2,000 lines,
one one-character edit in every document per round), or
`.venv/bin/python bench/bench_memory.py --type FILE [--chars N]`: type N characters (default
1,000), one per update, at the end of the first comment inside FILE's largest DSL unit, as a
user typing into a real file (issue 20: a pypto-lib model file). Each document is held by a
`DocumentAnalyzer`, as the server holds one per open document. Prints the resident set size
after opening and after each block of edits.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pypto_core.analysis import DocumentAnalyzer
from pypto_core.frontend import split_units

from gen_dsl import generate

DOCUMENTS = 50
LINES = 2_000
ROUNDS = 60


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--type", metavar="FILE", type=Path, help="type into this file instead")
    parser.add_argument("--chars", type=int, default=1_000, help="characters to type (default 1,000)")
    args = parser.parse_args()
    if args.type is not None:
        type_into(args.type.read_text(encoding="utf-8"), args.chars)
    else:
        open_documents()


def type_into(text: str, chars: int) -> None:
    largest = max(split_units(text), key=lambda u: (u.kind != "other", len(u.text)))
    lines = text.split("\n")
    comment = next(
        (n for n in range(largest.start_line, largest.end_line) if "#" in lines[n]), largest.start_line
    )
    offset = sum(len(line) + 1 for line in lines[:comment]) + len(lines[comment])
    analyzer = DocumentAnalyzer()
    start = time.process_time()
    analyzer.update(text)
    print(f"opened {len(lines)} lines in {time.process_time() - start:.2f} s CPU: {rss_mib():.0f} MiB")
    print(
        f"typing {chars} characters at the end of line {comment + 1} ({largest.name}, {len(largest.text)} chars)"
    )
    start = time.process_time()
    for typed in range(1, chars + 1):
        text = f"{text[:offset]}{'ab c'[typed % 4]}{text[offset:]}"
        offset += 1
        analyzer.update(text)
        if typed % 100 == 0:
            cpu_ms = (time.process_time() - start) * 1000 / typed
            print(
                f"after {typed:>5} characters: {rss_mib():.0f} MiB ({cpu_ms:.0f} ms CPU per keystroke)",
                flush=True,
            )


def open_documents() -> None:
    base = generate(LINES)
    marker = "t = pl.load(x, [off, 0], [ROWS, COLS])"
    texts = [base.replace("class Prog", f"class Doc{d}Prog") for d in range(DOCUMENTS)]
    analyzers = [DocumentAnalyzer() for _ in texts]
    start = time.perf_counter()
    for analyzer, text in zip(analyzers, texts, strict=True):
        analyzer.update(text)
    gc.collect()
    print(
        f"opened {DOCUMENTS} x {base.count(chr(10))} lines in {time.perf_counter() - start:.1f} s: {rss_mib():.0f} MiB"
    )
    edits = 0
    for round_ in range(1, ROUNDS + 1):
        for d, analyzer in enumerate(analyzers):
            # a different program and a different character each round: a fresh text every time
            nth = (round_ * 7 + d) % base.count(marker)
            head, sep, tail = texts[d].partition(marker) if nth == 0 else _split_at(texts[d], marker, nth)
            texts[d] = f"{head}{sep}  # {round_}{tail}" if round_ % 2 else f"{head}{sep}{tail}"
            analyzer.update(texts[d])
            edits += 1
        if round_ % 20 == 0:
            gc.collect()
            print(f"after {edits:>5} edits: {rss_mib():.0f} MiB")


def _split_at(text: str, marker: str, nth: int) -> tuple[str, str, str]:
    index = -1
    for _ in range(nth + 1):
        index = text.index(marker, index + 1)
    end = text.index("\n", index)
    return text[:index], text[index:end], text[end:]


if __name__ == "__main__":
    main()
