"""Throughput of the static core on generated files: front end + SSA + all outlining passes.

Run: `.venv/bin/python bench/bench_core.py`. Prints the median of several runs per size.
Targets (issues 2 and 3): 10k lines in under 0.5 s for the front end + SSA, under 1 s with
all passes.
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pypto_core import frontend
from pypto_core.analysis import analyse_source
from pypto_core.passes import convert_to_ssa

from gen_dsl import generate


def front_end_and_ssa(text: str) -> int:
    module = frontend.parse_module(text)
    ssa = convert_to_ssa()
    return sum(len(ssa(p).functions) for p in module.programs)


def full_pipeline(text: str) -> int:
    return len(analyse_source(text).outlined)


def median_seconds(fn, text: str, runs: int) -> float:
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        fn(text)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    print(f"{'lines':>7} {'programs':>8} {'front end + SSA':>16} {'+ all passes':>13} {'scopes':>7}")
    for lines in (1_000, 10_000, 50_000):
        text = generate(lines)
        runs = 5 if lines <= 10_000 else 3
        fe = median_seconds(front_end_and_ssa, text, runs)
        full = median_seconds(full_pipeline, text, runs)
        print(
            f"{text.count(chr(10)):>7} {text.count('@pl.program'):>8} {fe * 1000:>13.0f} ms"
            f" {full * 1000:>10.0f} ms {full_pipeline(text):>7}"
        )


if __name__ == "__main__":
    main()
