"""Throughput of the static core on generated files: front end + SSA + all outlining passes.

Run: `.venv/bin/python bench/bench_core.py`. Every run starts cold: the unit caches (parse,
line scan) are cleared first, so every unit is parsed again, as when a file is opened. Prints
the CPU time (`time.process_time`, immune to other jobs on a shared machine) as the best of
several runs, and the median wall time next to it.
Targets (issues 2 and 3): 10k lines in under 0.5 s for the front end + SSA, under 1 s with
all passes.
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pypto_core import frontend
from pypto_core.analysis import analyse_source
from pypto_core.frontend import line_scan, unit_parts, units
from pypto_core.gc_pause import gc_paused
from pypto_core.passes import convert_to_ssa

from gen_dsl import generate


def front_end_and_ssa(text: str) -> int:
    with gc_paused():  # as the analysis runs it (analyse_source pauses it itself)
        module = frontend.parse_module(text)
        ssa = convert_to_ssa()
        return sum(len(ssa(p).functions) for p in module.programs)


def full_pipeline(text: str) -> int:
    return len(analyse_source(text).outlined)


def clear_caches() -> None:
    caches = (unit_parts.parse, unit_parts._statement, unit_parts._skeleton_parse, units._unit_facts)
    for cached in (*caches, units._scan_chunk, line_scan.scan_line):
        cached.cache_clear()


def measure(fn: Callable[[str], int], text: str, runs: int) -> tuple[float, float]:
    """(best CPU seconds, median wall seconds) over `runs` cold runs."""
    cpu, wall = [], []
    for _ in range(runs):
        clear_caches()
        gc.collect()
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        fn(text)
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start_wall)
    return min(cpu), statistics.median(wall)


def main() -> None:
    print(
        f"{'lines':>7} {'programs':>8} {'front end + SSA, CPU (wall)':>28} {'+ all passes, CPU (wall)':>26} {'scopes':>7}"
    )
    for lines in (1_000, 10_000, 50_000):
        text = generate(lines)
        runs = 5 if lines <= 10_000 else 3
        fe_cpu, fe_wall = measure(front_end_and_ssa, text, runs)
        all_cpu, all_wall = measure(full_pipeline, text, runs)
        print(
            f"{text.count(chr(10)):>7} {text.count('@pl.program'):>8}"
            f" {fe_cpu * 1000:>15.0f} ms ({fe_wall * 1000:5.0f} ms)"
            f" {all_cpu * 1000:>13.0f} ms ({all_wall * 1000:5.0f} ms) {full_pipeline(text):>7}"
        )


if __name__ == "__main__":
    main()
