"""CPU per stage of one keystroke in real files: the splice of inline helpers and each pass of
the pipeline (what `pipeline._stages` yields: a stage's figure holds the checks run before
it, `verify_structure` in UnrollLoops', PTO515/516 in ConvertToSSA's, PTO513/514 in
Simplify's), beside the whole `DocumentAnalyzer.update`.

Run: `.venv/bin/python -P bench/bench_stages.py FILE ... [--edits N]` from a neutral folder
(`PYTHONPATH=<checkout>`: the checkout measured). Each file is opened as the server opens a
document (`open_document_analyzer`), typed into three times, then `--edits` more characters
typed into the `name_hint` string nearest its middle (`bench_edit.typed_versions`), its
imports resolved as the server resolves them; the figures are medians over those edits, CPU
time (the machine may be shared: compare figures taken in the same minutes).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_edit import imports_of, typed_versions

from pypto_core.frontend import programs
from pypto_core.passes import pipeline
from pypto_lsp.session import open_document_analyzer

WARM = 3  # keystrokes before the measured ones: a statement is kept from its second meeting on
sys.setrecursionlimit(100_000)  # a whole-model entry nests deep


class Clock:
    """CPU seconds per stage of the current update."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}

    def add(self, name: str, seconds: float) -> None:
        self.spent[name] = self.spent.get(name, 0.0) + seconds


def _timed_stages(
    clock: Clock, stages: Callable[..., Iterator[tuple[str, Any]]]
) -> Callable[..., Iterator[Any]]:
    def timed(*args: Any, **kwargs: Any) -> Iterator[tuple[str, Any]]:
        start = time.process_time()
        for name, program in stages(*args, **kwargs):
            clock.add(name, time.process_time() - start)
            yield name, program
            start = time.process_time()

    return timed


def _timed_splice(clock: Clock, splice: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return splice(*args, **kwargs)
        finally:
            clock.add("splice", time.process_time() - start)

    return timed


def measure(path: Path, edits: int) -> dict[str, float]:
    """Median CPU milliseconds per keystroke: the update and each stage."""
    text = path.read_text()
    imports = imports_of(path.resolve())
    analyzer = open_document_analyzer()
    analyzer.update(text, None, imports())
    versions = typed_versions(text, WARM + edits)
    for version in versions[:WARM]:
        analyzer.update(version, None, imports())
    clock = Clock()
    stages, splice = pipeline._stages, programs.splice
    pipeline._stages = _timed_stages(clock, stages)  # type: ignore[assignment]
    programs.splice = _timed_splice(clock, splice)
    per_stage: dict[str, list[float]] = {}
    updates = []
    try:
        for version in versions[WARM:]:
            clock.spent.clear()
            start = time.process_time()
            analyzer.update(version, None, imports())
            updates.append(time.process_time() - start)
            for name, seconds in clock.spent.items():
                per_stage.setdefault(name, []).append(seconds)
    finally:
        pipeline._stages, programs.splice = stages, splice  # type: ignore[assignment]
    figures = {"update": 1000 * statistics.median(updates)}
    figures.update((name, 1000 * statistics.median(spent)) for name, spent in per_stage.items())
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--edits", type=int, default=16)
    args = parser.parse_args()
    for path in args.files:
        figures = measure(path, args.edits)
        parts = ", ".join(f"{name} {ms:.2f}" for name, ms in figures.items())
        print(f"{path.name}: {parts} ms", flush=True)


if __name__ == "__main__":
    main()
