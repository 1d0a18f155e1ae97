"""Memory under a day's use: 50 open documents of ~2,000 lines, edited round after round.

Run: `.venv/bin/python bench/bench_memory.py`. Each document is held by a `DocumentAnalyzer`,
as the server holds one per open document; every round makes one one-character edit in every
document. Prints the resident set size after opening and after each block of rounds: it must
level off, not grow with the number of edits.
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pypto_core.analysis import DocumentAnalyzer

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
