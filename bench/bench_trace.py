"""Cost of a pass trace (issue 19): `trace_program` on the largest program of a file, as the
`pypto/passTrace` request runs it for the program under the cursor (target: within 200 ms on a
5,000-line file).

Run: `.venv/bin/python bench/bench_trace.py` for generated files (5,000 lines of small
programs, and one real-shaped jit program of about 2,000 and 5,000 lines); `--files F ...` for
real files (imports resolved as the CLI does, from each file's folder). Wall and CPU time are
medians over the repeats; the file is analysed once first, as the server has by then.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pypto_core.analysis import analyse_source
from pypto_core.frontend import decode_source
from pypto_core.pass_trace import trace_program
from pypto_core.results import ProgramAnalysis
from pypto_core.workspace import ModuleIndex, SearchPath

from gen_dsl import generate, generate_jit

REPEATS = 9


def largest(programs: list[ProgramAnalysis]) -> ProgramAnalysis:
    return max(programs, key=lambda p: p.span.end_line - p.span.start_line)


def measure(label: str, text: str, path: Path | None = None) -> None:
    lookup = None
    if path is not None:
        index = ModuleIndex(search=SearchPath())
        index.sources.open(path.resolve(), text)
        lookup = index.lookup_for(path)
    programs = analyse_source(text, modules=lookup).programs
    if not programs:
        print(f"{label:<44} no program")
        return
    program = largest(programs)
    walls, cpus = [], []
    for _ in range(REPEATS):
        wall, cpu = time.perf_counter(), time.process_time()
        trace = trace_program(program)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    lines = text.count("\n") + 1
    span = program.span.end_line - program.span.start_line + 1
    print(
        f"{label:<44} {lines:>6} {span:>8} {len(trace.stages):>6} "
        f"{statistics.median(walls) * 1000:>8.1f} {statistics.median(cpus) * 1000:>8.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", nargs="*", default=[], help="real files to trace")
    args = parser.parse_args()
    print(f"{'file':<44} {'lines':>6} {'program':>8} {'stages':>6} {'wall ms':>8} {'cpu ms':>8}")
    if not args.files:
        measure("generated, 5,000 lines of small programs", generate(5_000))
        measure("generated jit program, 2,000 lines", generate_jit(2_000))
        measure("generated jit program, 5,000 lines", generate_jit(5_000))
    for name in args.files:
        path = Path(name)
        text, _ = decode_source(path.read_bytes())
        measure(path.name, text, path)


if __name__ == "__main__":
    main()
