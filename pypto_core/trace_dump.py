"""`pypto-check --emit STAGE` and `--emit-all DIR`: pass traces (`pass_trace.py`) as text on
stdout or as the compiler's `passes_dump` layout of files, one folder per program, so a user
can diff two stages, or ours with the compiler's, with the tool they already use."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TextIO

from .pass_trace import ProgramTrace, Stage, trace_program
from .results import FileAnalysis


def write_stage(files: Iterable[tuple[str, FileAnalysis]], key: str, out: TextIO, *, raw: bool) -> None:
    """Each program of each file after the stage `key`, under a comment naming both."""
    for path, analysis in files:
        for trace in _traces(analysis, raw=raw):
            stage = trace.stage(key)
            if stage is not None:
                out.write(f"# {path}: program {trace.program}, {stage.file_name}\n{stage.text}\n")


def write_all(files: Iterable[tuple[str, FileAnalysis]], root: Path, *, raw: bool) -> list[Path]:
    """`root/<file>/<program>/NN_after_<Pass>.py` for every stage, and beside a stage that
    reported something, `NN_after_<Pass>.log` with its findings (as the compiler writes its
    warnings). `<file>` is the file's name without `.py`, made unique among the files given.
    Returns the folders written, one per program."""
    written: list[Path] = []
    files_used: set[str] = set()
    for path, analysis in files:
        folder = root / _unique(Path(path).stem, files_used)
        programs_used: set[str] = set()
        for trace in _traces(analysis, raw=raw):
            where = folder / _unique(trace.program, programs_used)
            where.mkdir(parents=True, exist_ok=True)
            for stage in trace.stages:
                (where / stage.file_name).write_text(stage.text, encoding="utf-8")
                if stage.diagnostics:
                    (where / stage.file_name).with_suffix(".log").write_text(_log(stage), encoding="utf-8")
            written.append(where)
    return written


def _traces(analysis: FileAnalysis, *, raw: bool) -> Iterator[ProgramTrace]:
    for program in analysis.programs:
        yield trace_program(program, raw=raw)


def _unique(name: str, used: set[str]) -> str:
    candidate, n = name, 1
    while candidate in used:
        n += 1
        candidate = f"{name}-{n}"
    used.add(candidate)
    return candidate


def _log(stage: Stage) -> str:
    return "".join(
        f"{d.span.start_line + 1}:{d.span.start_col + 1}: {d.severity.value} {d.code}: {d.message}\n"
        for d in stage.diagnostics
    )
