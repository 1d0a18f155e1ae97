"""`pypto-check`: the checker for CI jobs and terminals.

Exit status: 0 no errors, 1 errors found, 2 usage or I/O error. JSON output follows the
contract in ARCHITECTURE.md (LSP ranges: 0-based lines, UTF-16 columns).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TextIO

from .analysis import analyse_source, outlined_program_text
from .diagnostics import Diagnostic, Related, Severity, error
from .frontend import decode_source
from .frontend.programs import INTERNAL_ERROR
from .gc_pause import collect_if_grown, gc_paused
from .json_text import dumps_indented
from .kept_to_exit import KeptToExit, limit_for
from .parallel import Failure, Work, run_all, usable_cpus
from .pass_trace import STAGE_KEYS
from .passes.inline_functions import SPLICE_BUDGET
from .results import FileAnalysis, OutlinedParam, OutlinedScope
from .span import Span, split_lines, utf16_column
from .trace_dump import write_all, write_stage
from .workspace import ModuleIndex, SearchPath
from .workspace.files import NotReadable, Skipped, read_regular_file, walk_python_files

_SKIPPED_DIRS = frozenset(
    {".git", ".hg", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".mypy_cache"}
)


@dataclass
class CheckedFile:
    """What the output needs of one checked file, rendered as soon as its analysis is done:
    the analysis itself (every program's IR, the lazily printed texts of its records) is then
    kept to the process's end, never torn down, up to a memory limit, past which it is freed
    (`kept_to_exit`)."""

    output: str  # the text lines, the JSON object (`_file_json_text`), or the outlined program(s)
    errors: int
    warnings: int


def main(argv: Sequence[str] | None = None, *, exits: bool = False) -> int:
    """`exits`: the process ends with `os._exit` right after (`run`), so the analyses may be
    kept to that end instead of freed (`kept_to_exit`); worker processes always end so."""
    try:
        return _main(argv, exits)
    except BrokenPipeError:
        # `pypto-check ... | head`: the reader has what it wanted. Point stdout at devnull so
        # the interpreter's own flush at exit does not raise (and print) again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def run() -> NoReturn:
    """The `pypto-check` command: `main`, then the process ends as soon as its output is out.
    The interpreter's own exit would tear the run's heap down object by object (the module
    index's trees and facts of every file: millions of objects) with full collections
    between: 12 s of CPU after the last byte of a run over pypto-lib's models, 1 s skipped
    so (bench/README.md)."""
    code = main(exits=True)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader left before the last buffer: as in `main`
        code = 1
    os._exit(code)


def _main(argv: Sequence[str] | None, exits: bool) -> int:
    args = _parser().parse_args(argv)
    if args.raw and args.emit is None and args.emit_all is None:
        print("pypto-check: --raw only applies to --emit and --emit-all", file=sys.stderr)
        return 2
    try:
        paths, skipped, named = _python_files(args.paths)
    except FileNotFoundError as missing:
        print(f"pypto-check: no such file or directory: {missing}", file=sys.stderr)
        return 2
    texts: list[_Source] = []
    unreadable = False  # a file named on the command line that could not be read: exit 2
    for path in paths:
        try:
            data = read_regular_file(path)
        except NotReadable as err:
            skipped.append(Skipped(path, str(err)))
            unreadable = unreadable or path in named
            continue
        text, read_diagnostics = decode_source(data)
        texts.append(_Source(path, text, read_diagnostics))
    for entry in skipped:
        print(f"pypto-check: skipped {entry.path}: {entry.reason}", file=sys.stderr)
    options = _Options(
        format=args.format,
        show_outlined=args.show_outlined,
        emit=args.emit,
        raw=args.raw,
        splice_budget=args.splice_budget,
        extra=tuple(Path(p).resolve() for p in args.path),
        keep_limit=_keep_limit(min(args.jobs, len(texts)), exits),
    )
    # One pause of the cyclic collector for the whole run (each file's end collects only
    # when garbage may have piled up, `collect_if_grown`), forked workers included.
    with gc_paused():
        checked, traced = _check_all(
            texts, options, args.jobs, args.emit_all is not None or args.emit not in (None, "outlined")
        )

    out = sys.stdout
    if args.emit_all is not None:
        try:
            folders = write_all(traced, Path(args.emit_all), raw=args.raw)
        except OSError as err:
            print(f"pypto-check: cannot write {err.filename}: {err.strerror}", file=sys.stderr)
            return 2
        wrote = f"wrote the stages of {len(folders)} program(s) under {args.emit_all}"
        print(f"pypto-check: {wrote}", file=sys.stderr)
    if args.emit is not None and args.emit != "outlined":
        write_stage(traced, args.emit, out, raw=args.raw)
    elif args.format == "json" and args.emit is None:
        _write_json([f.output for f in checked], out)
    else:
        for file in checked:
            out.write(file.output)
        if args.emit is None:
            errors, warnings = sum(f.errors for f in checked), sum(f.warnings for f in checked)
            tail = f" ({len(skipped)} skipped, see above)" if skipped else ""
            out.write(f"{len(checked)} file(s) checked: {errors} error(s), {warnings} warning(s){tail}\n")
    if unreadable:
        return 2
    return 1 if any(f.errors for f in checked) else 0


def _check_all(
    texts: list[_Source], options: _Options, jobs: int, trace: bool
) -> tuple[list[CheckedFile], list[tuple[str, FileAnalysis]]]:
    """Every file checked and rendered, in input order; with `trace`, in this process and
    with the whole analyses too (a pass trace needs them)."""
    checker = _Checker(texts, options)
    traced: list[tuple[str, FileAnalysis]] = []
    if trace:
        checked = []
        for i, source in enumerate(texts):
            analysis = checker.analyse(i)
            traced.append((str(source.path), analysis))
            checked.append(checker.render(i, analysis))
            collect_if_grown()
        return checked, traced
    global _checker
    _checker = checker  # the workers' (`_set_up`): a forked one inherits it, index and all
    folders = [source.path.parent for source in texts]
    work = Work(len(texts), _check, _set_up, (texts, options), _start_order(texts, jobs), folders)
    results = run_all(work, jobs)  # each file by itself, on up to --jobs processes
    return [checker.failed(i, r) if isinstance(r, Failure) else r for i, r in enumerate(results)], traced


@dataclass(frozen=True)
class _Source:
    """A file to check: its text as read once (it is also what an importer of it reads)."""

    path: Path
    text: str
    read_diagnostics: list[Diagnostic]


@dataclass(frozen=True)
class _Options:
    """What checking and rendering a file depends on (handed to each worker process)."""

    format: str
    show_outlined: bool
    emit: str | None
    raw: bool
    splice_budget: int
    extra: tuple[Path, ...]  # --path
    keep_limit: int  # the peak resident bytes below which a process keeps its analyses (`kept_to_exit`)


class _Checker:
    """Checks the files of one run by index, in whichever process it is in: every checked
    file's text is open in its module index (read once, whether checked or imported), whose
    caches (module facts, imported helpers built) serve every file it checks."""

    def __init__(self, sources: list[_Source], options: _Options) -> None:
        self.sources = sources
        self.options = options
        # imports resolve from each checked file's folder, then each --path (issue 11)
        self.index = ModuleIndex(search=SearchPath(extra=options.extra))
        for source in sources:
            resolved = source.path.resolve()
            self.index.sources.open(resolved, source.text)
            self.index.resolved_as(source.path, resolved)
        self.lines_of = _line_reader(self.index)
        self.kept = KeptToExit(options.keep_limit)

    def analyse(self, i: int) -> FileAnalysis:
        source = self.sources[i]
        lookup = self.index.lookup_for(source.path)
        assert lookup.importer is not None
        units = self.index.units(lookup.importer, source.text)
        context = self.index.context(lookup.importer, source.text) if units is not None else None
        return analyse_source(
            source.text, str(source.path), lookup, self.options.splice_budget, units, context
        )

    def check(self, i: int) -> CheckedFile:
        """File `i` analysed and rendered; its analysis then kept to the process's end, or
        freed past the process's memory limit (`kept_to_exit`)."""
        analysis = self.analyse(i)
        checked = self.render(i, analysis)
        if not self.kept.keep(analysis):
            del analysis
            collect_if_grown()
        return checked

    def render(self, i: int, analysis: FileAnalysis) -> CheckedFile:
        source = self.sources[i]
        return _checked(
            str(source.path), source.text, analysis, source.read_diagnostics, self.options, self.lines_of
        )

    def failed(self, i: int, failure: Failure) -> CheckedFile:
        """A file whose check failed (a bug): said on stderr, and one PTO900 in its output."""
        path = self.sources[i].path
        print(f"pypto-check: internal error while checking {path}: {failure.reason}", file=sys.stderr)
        if failure.details:
            print(failure.details, file=sys.stderr, end="")
        found = error(
            INTERNAL_ERROR,
            f"internal error while analysing this file: {failure.reason}",
            Span(0, 0, 0, 0),
            "this is a bug in pypto-lsp: please report it with the file; the other files are still checked",
        )
        return self.render(i, FileAnalysis(diagnostics=[found]))


_checker: _Checker | None = None  # a worker process's (`parallel.Work.setup`)


def _set_up(sources: list[_Source], options: _Options) -> None:
    """A worker's checker: the parent's when the worker was forked from it (every checked
    file's text open in its index), else one of its own. Each worker computes the facts of the
    modules its files import: it keeps to one folder's files (`Work.groups`), so two workers
    compute few modules twice (120 facts for pypto-lib's 109 modules with `-j 2`; the parent's
    computing them all before forking was a serial 2 s of a 24 s run)."""
    global _checker
    if _checker is None or _checker.sources is not sources:
        _checker = _Checker(sources, options)


def _check(i: int) -> CheckedFile:
    assert _checker is not None
    return _checker.check(i)


def _keep_limit(processes: int, exits: bool) -> int:
    """What each of a run's `processes` may keep its analyses to (`kept_to_exit.limit_for`):
    nothing when they run in this process and it does not end with `os._exit` (`main` called
    from Python: the analyses would outlive the call)."""
    return limit_for(processes) if processes > 1 or exits else 0


def _start_order(sources: list[_Source], jobs: int) -> list[int] | None:
    """The order to start the files in. One folder's files one after the other: near-copy
    model files share imports and whole units of identical text, which the bounded parse
    cache then still holds (pypto-lib's models in length order parsed 7,388 unit texts,
    3,458 of them distinct; folder by folder 4,729). On one process the walk order (None);
    on several the folders by their longest file, each folder's longest first (a whole-model
    file imports and splices the most), so that no long file starts when the others are
    nearly done."""
    if min(jobs, len(sources)) <= 1:
        return None
    longest: dict[Path, int] = {}
    for source in sources:
        folder = source.path.parent
        longest[folder] = max(longest.get(folder, 0), len(source.text))
    return sorted(
        range(len(sources)),
        key=lambda i: (-longest[sources[i].path.parent], str(sources[i].path.parent), -len(sources[i].text)),
    )


def _write_json(files: list[str], out: TextIO) -> None:
    """`json.dump({"version": 1, "files": [...]}, indent=2)`, byte for byte, from each
    file's object already rendered at its depth (`_file_json_text`)."""
    out.write('{\n  "version": 1,\n  "files": [')
    if files:
        out.write("\n")
        out.write(",\n".join(files))
        out.write("\n  ]")
    else:
        out.write("]")
    out.write("\n}\n")


def _checked(
    path: str,
    text: str,
    analysis: FileAnalysis,
    read_diagnostics: list[Diagnostic],
    args: _Options,
    lines_of: Callable[[str], list[str]],
) -> CheckedFile:
    diagnostics = read_diagnostics + analysis.diagnostics
    output = ""
    if args.emit == "outlined":
        if analysis.is_dsl:
            output = f"# {path}\n{outlined_program_text(analysis, raw=args.raw)}\n"
    elif args.emit is not None:
        pass  # a pass trace: written from the analyses themselves
    elif args.format == "json":
        output = _file_json_text(_file_json(path, text, diagnostics, analysis, lines_of))
    else:
        output = _file_text(path, diagnostics, analysis, show_outlined=args.show_outlined)
    errors = sum(d.severity is Severity.ERROR for d in diagnostics)
    warnings = sum(d.severity is Severity.WARNING for d in diagnostics)
    return CheckedFile(output, errors, warnings)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pypto-check",
        description="Check PyPTO DSL files statically: what each scope becomes, and every user error.",
    )
    parser.add_argument(
        "paths", nargs="+", metavar="PATH", help="files or folders (folders are walked for .py files)"
    )
    parser.add_argument(
        "--path",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder imports are also looked for in, after the checked file's own (repeatable)",
    )
    parser.add_argument(
        "--splice-budget",
        type=_budget,
        default=SPLICE_BUDGET,
        metavar="N",
        help="statements splicing inline helpers may add to one program before the rest is left "
        f"unanalysed (PTO416; default {SPLICE_BUDGET:,})",
    )
    parser.add_argument(
        "--jobs",
        "-j",
        type=_jobs,
        default=usable_cpus(),
        metavar="N",
        help="check files on N worker processes (default: the usable CPUs, here "
        f"{usable_cpus()}); the output is the same for any N. A pass trace (--emit STAGE, "
        "--emit-all) runs in one process",
    )
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.add_argument("--show-outlined", action="store_true", help="list the function each scope becomes")
    parser.add_argument(
        "--emit",
        choices=["outlined", *STAGE_KEYS],
        help="print the outlined program(s) in source order, or each program after one stage of the "
        "pipeline (a pass trace), instead of diagnostics",
    )
    parser.add_argument(
        "--emit-all",
        metavar="DIR",
        help="write each program after every stage to DIR/<file>/<program>/NN_after_<Pass>.py "
        "(the compiler's passes_dump names), with NN_after_<Pass>.log where a stage reported something",
    )
    parser.add_argument(
        "--raw",
        action="store_true",
        help="with --emit / --emit-all: print the IR's own variable names (out__ssa_v1), not the source's",
    )
    return parser


def _budget(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"a splice budget is a count of statements, not {value}")
    return value


def _jobs(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"a count of worker processes is at least 1, not {value}")
    return value


def _python_files(paths: Sequence[str]) -> tuple[list[Path], list[Skipped], set[Path]]:
    """The files to check, the `*.py` entries of walked folders that are not regular files
    (reported, never opened: a FIFO would block for ever), and the files named directly."""
    files: list[Path] = []
    skipped: list[Skipped] = []
    named: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for found in walk_python_files(path, _SKIPPED_DIRS):
                if isinstance(found, Skipped):
                    skipped.append(found)
                else:
                    files.append(found)
        elif path.exists() or path.is_symlink():
            files.append(path)
            named.add(path)
        else:
            raise FileNotFoundError(raw)
    return files, skipped, named


def _file_text(
    path: str, diagnostics: list[Diagnostic], analysis: FileAnalysis, *, show_outlined: bool
) -> str:
    out: list[str] = []
    for d in diagnostics:
        out.append(f"{path}:{d.span.start_line + 1}:{d.span.start_col + 1}: {d.code} {d.severity.value}: ")
        out.append(d.message + "\n")
        if d.hint:
            out.append(f"    hint: {d.hint}\n")
        for r in d.related:
            if r.path:  # a location in the same file is in the message's words already
                out.append(f"    {r.path}:{r.span.start_line + 1}:{r.span.start_col + 1}: {r.message}\n")
    if show_outlined:
        for o in analysis.outlined:
            out.append(f"{path}:{o.header_span.start_line + 1}: {describe(o)}\n")
        for p in analysis.promoted:
            out.append(f"{path}: {p.program}.{p.function} promoted to {p.to}\n")
    return "".join(out)


def describe(o: OutlinedScope) -> str:
    """One-line summary of an outlined scope, as the code lens shows it."""
    params = ", ".join(f"{p.shown}: {p.direction.value}" for p in o.params)
    returns = ", ".join(o.shown_returns)
    arrow = f" -> {returns}" if len(o.returns) == 1 else f" -> ({returns})" if o.returns else ""
    return f"{o.name}({params}){arrow}  [{o.function_type}, in {o.program}.{o.parent}]"


def _line_reader(index: ModuleIndex) -> Callable[[str], list[str]]:
    """The lines of another file a related location points into (an imported helper's),
    read through the index that analysed it, once per file."""
    read: dict[str, list[str]] = {}

    def lines_of(path: str) -> list[str]:
        if path not in read:
            read[path] = split_lines(index.sources.text(Path(path)) or "")
        return read[path]

    return lines_of


def _file_json(
    path: str,
    text: str,
    diagnostics: list[Diagnostic],
    analysis: FileAnalysis,
    lines_of: Callable[[str], list[str]],
) -> dict[str, Any]:
    lines = split_lines(text)

    def rng(span: Span, path: str | None = None) -> dict[str, Any]:
        text = lines_of(path) if path else lines
        return {
            "start": _position(text, span.start_line, span.start_col),
            "end": _position(text, span.end_line, span.end_col),
        }

    def related(r: Related) -> dict[str, Any]:
        return {"message": r.message, **({"path": r.path} if r.path else {}), "range": rng(r.span, r.path)}

    return {
        "path": path,
        "diagnostics": [
            {
                "code": d.code,
                "severity": d.severity.value,
                "message": d.message,
                "range": rng(d.span),
                **({"hint": d.hint} if d.hint else {}),
                **({"related": [related(r) for r in d.related]} if d.related else {}),
            }
            for d in diagnostics
        ],
        "outlined": [
            {
                "name": o.name,
                "kind": o.kind,
                "function_type": o.function_type,
                "program": o.program,
                "parent": o.parent,
                "level": o.level,
                "role": o.role,
                "scope_range": rng(o.scope_span),
                "params": [_param_json(p) for p in o.params],
                "returns": list(o.returns),
                "call": o.call,
            }
            for o in analysis.outlined
        ],
        "promoted": [{"program": p.program, "function": p.function, "to": p.to} for p in analysis.promoted],
    }


def _file_json_text(file: dict[str, Any]) -> str:
    """A file's JSON object as `json.dump(..., indent=2)` writes it inside the report's
    `files` list (two levels deep). Rendered per file, so the workers share the encoding
    (`json_text`: with `indent`, `json`'s own encoder is pure Python, 2.3 s for pypto-lib's
    models)."""
    return "    " + dumps_indented(file, 2)


def _param_json(p: OutlinedParam) -> dict[str, str]:
    """The compiler's name; `shown` too where the reader sees another (inside an inline helper)."""
    entry = {"name": p.name, "direction": p.direction.value, "type": p.type}
    if p.shown != p.name:
        entry["shown"] = p.shown
    return entry


def _position(lines: list[str], line: int, col: int) -> dict[str, int]:
    text = lines[line] if 0 <= line < len(lines) else ""
    return {"line": line, "character": utf16_column(text, col)}


if __name__ == "__main__":
    run()
