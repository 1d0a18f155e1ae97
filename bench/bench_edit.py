"""Cost of one keystroke in the static core: `DocumentAnalyzer.update` after a one-character
edit inside one scope's `name_hint` string.

Run: `.venv/bin/python bench/bench_edit.py` for the generated files: a 100-line file, a
5,000-line file of many small `@pl.program`s, and a real-shaped jit file (one `@pl.jit` entry
with tens of inline helpers and kernels, about 2,000 lines in one program) next to its
100-line counterpart. `--corpus DIR` instead edits the largest `.py` DSL files of a folder
(`--top N` of them, pypto-lib's `models/` for instance); `--files F ...` edits the given files.

Each edit types one more character into the `name_hint` string nearest the middle of the file
(`--comment`: at the end of the comment nearest that string, one character per edit;
`--helper`: in the `name_hint` string nearest the middle among those of `@pl.jit.inline` /
`@pl.inline` helpers, a code edit whose callers are spliced again; `--newline`: Enter pressed
once more at the start of that string's line per edit, a blank line more above the statement
holding it, which moves every statement below; with `--then N`, N characters typed into the
string after each line break, each one's CPU shown by its place; `--sites N`: at N `name_hint`
strings spread evenly over the file in turn, `--edits` characters at each, then taken back: the
median over the sites and the dearest, for the one string nearest the middle says little of a
file whose helpers differ in cost by 10x), so every text is new (no parse cache hit for the edited unit), as when a user types. Wall and
CPU time (the machine may be shared) are medians over the edits; the rebuilt column is the
programs the analyzer rebuilt per edit.

A real file's imports are resolved as `pypto-check` and the server resolve them (its own folder
first, `pypto_core.workspace`; one lookup per update, as the server makes one per analysis), so
the helpers it imports from sibling modules are spliced into it: what a user typing into it
pays. `--no-imports` analyses it alone, every imported name unknown (the figures this script
printed before 3 Dec 2026, which left out most of a real file's work).
"""

from __future__ import annotations

import argparse
import ast
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from pypto_core.analysis import DocumentAnalyzer
from pypto_core.frontend.imports import ModuleLookup
from pypto_core.workspace import ModuleIndex, SearchPath

from gen_dsl import generate, generate_jit

EDITS = 24
HINT = 'name_hint="'


Imports = Callable[[], ModuleLookup | None]  # the module lookup for one update of a document


def no_imports() -> None:
    return None


def imports_of(path: Path) -> Imports:
    """A fresh lookup of `path`'s imports per update over one module index (as the server's)."""
    index = ModuleIndex(search=SearchPath())
    return lambda: index.lookup_for(path)


@dataclass
class Figures:
    wall: float  # median seconds per edit
    cpu: float
    rebuilt: set[int]


def typed_versions(text: str, count: int, anchor: int | None = None, newline: bool = False) -> list[str]:
    """`count` successive texts, each one character longer inside the `name_hint` string
    nearest the middle of `text` (or at `anchor`); `newline`: each one line longer, a line
    break more at the start of the anchor's line."""
    if anchor is None:
        anchor = edit_anchor(text)
    if newline:
        anchor = text.rfind("\n", 0, anchor) + 1
        return [text[:anchor] + "\n" * k + text[anchor:] for k in range(1, count + 1)]
    return [text[:anchor] + "x" * k + text[anchor:] for k in range(1, count + 1)]


def edit_anchor(text: str) -> int:
    """Where the edits type: just inside the middle `name_hint` string's opening quote."""
    anchors, at = [], text.find(HINT)
    while at >= 0:
        anchors.append(at + len(HINT))
        at = text.find(HINT, at + 1)
    if not anchors:
        raise ValueError("no name_hint string to edit")
    return min(anchors, key=lambda a: abs(a - len(text) // 2))


def helper_anchor(text: str) -> int:
    """Just inside the opening quote of the `name_hint` string nearest the middle of `text`
    among those in inline helpers (a function whose decorator's name ends in `inline`)."""
    lines, anchors = text.split("\n"), []
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef) and any(
            ast.unparse(d.func if isinstance(d, ast.Call) else d).endswith("inline")
            for d in node.decorator_list
        ):
            for kw in ast.walk(node):
                if (
                    isinstance(kw, ast.keyword)
                    and kw.arg == "name_hint"
                    and isinstance(kw.value, ast.Constant)
                ):
                    line = kw.value.lineno - 1
                    # a column in UTF-8 bytes: exact for the ASCII source lines a name_hint is on
                    anchors.append(starts[line] + kw.value.col_offset + 1)
    if not anchors:
        raise ValueError("no name_hint string in an inline helper to edit")
    return min(anchors, key=lambda a: abs(a - len(text) // 2))


def comment_anchor(text: str) -> int:
    """The end of the comment line nearest `edit_anchor`'s string (one there is in code)."""
    hint, best = edit_anchor(text), None
    start = 0
    for line in text.split("\n"):
        end = start + len(line)
        if line.lstrip().startswith("#") and (best is None or abs(end - hint) < abs(best - hint)):
            best = end
        start = end + 1
    if best is None:
        raise ValueError("no comment line to edit")
    return best


def per_edit(
    text: str,
    edits: int = EDITS,
    comment: bool = False,
    helper: bool = False,
    newline: bool = False,
    imports: Imports = no_imports,
) -> Figures:
    """Median wall and CPU seconds per edit."""
    analyzer = DocumentAnalyzer()
    analyzer.update(text, None, imports())
    walls, cpus, rebuilt = [], [], set()
    anchor = comment_anchor(text) if comment else helper_anchor(text) if helper else None
    for version in typed_versions(text, edits, anchor, newline):
        wall, cpu = time.perf_counter(), time.process_time()
        analyzer.update(version, None, imports())
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        rebuilt.add(analyzer.rebuilt)
    return Figures(statistics.median(walls), statistics.median(cpus), rebuilt)


def after_line_breaks(
    text: str, rounds: int, then: int, helper: bool = False, imports: Imports = no_imports
) -> list[float]:
    """`rounds` times Enter at the start of the edited line and then `then` characters typed
    into its `name_hint` (what typing a line break is followed by): the median CPU seconds of
    the line break, then of each character after it, by its place in the round."""
    analyzer = DocumentAnalyzer()
    analyzer.update(text, None, imports())
    anchor = helper_anchor(text) if helper else edit_anchor(text)
    line = text.rfind("\n", 0, anchor) + 1
    cpus: list[list[float]] = [[] for _ in range(then + 1)]
    for _ in range(rounds):
        versions = [text[:line] + "\n" + text[line:]]
        anchor += 1
        versions += [versions[0][:anchor] + "x" * k + versions[0][anchor:] for k in range(1, then + 1)]
        for place, version in enumerate(versions):
            cpu = time.process_time()
            analyzer.update(version, None, imports())
            cpus[place].append(time.process_time() - cpu)
        text, anchor = versions[-1], anchor + then
    return [statistics.median(c) for c in cpus]


def per_site(text: str, sites: int, edits: int, imports: Imports = no_imports) -> list[tuple[int, float]]:
    """(1-based line, median CPU seconds per keystroke) at each of `sites` `name_hint` strings
    spread evenly over `text` (all of them when it has fewer), `edits` characters typed at
    each, the text put back before the next site (a user moving on to another function)."""
    analyzer = DocumentAnalyzer()
    analyzer.update(text, None, imports())
    anchors, at = [], text.find(HINT)
    while at >= 0:
        anchors.append(at + len(HINT))
        at = text.find(HINT, at + 1)
    chosen = [anchors[i * len(anchors) // sites] for i in range(sites)] if len(anchors) > sites else anchors
    figures = []
    for anchor in chosen:
        cpus = []
        for version in typed_versions(text, edits, anchor):
            cpu = time.process_time()
            analyzer.update(version, None, imports())
            cpus.append(time.process_time() - cpu)
        analyzer.update(text, None, imports())
        figures.append((text.count("\n", 0, anchor) + 1, statistics.median(cpus)))
    return figures


def corpus_files(folder: Path, top: int) -> list[Path]:
    """The `top` largest `.py` files under `folder` that hold a `name_hint` to edit."""
    files = sorted(folder.rglob("*.py"), key=lambda p: p.stat().st_size, reverse=True)
    return [p for p in files if HINT in p.read_text(encoding="utf-8", errors="replace")][:top]


def row(label: str, text: str, figures: Figures) -> str:
    rebuilt = ",".join(str(n) for n in sorted(figures.rebuilt))
    return (
        f"{label:<52} {text.count(chr(10)):>6} {rebuilt:>7} "
        f"{figures.wall * 1000:>8.1f} ms {figures.cpu * 1000:>7.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, help="edit the largest .py files of this folder")
    parser.add_argument("--top", type=int, default=3, help="how many files of --corpus (default 3)")
    parser.add_argument("--files", type=Path, nargs="*", default=[], help="edit these files")
    parser.add_argument("--edits", type=int, default=EDITS, help=f"edits per file (default {EDITS})")
    parser.add_argument("--comment", action="store_true", help="type into a comment instead")
    parser.add_argument("--helper", action="store_true", help="type into an inline helper's name_hint")
    parser.add_argument(
        "--newline", action="store_true", help="press Enter at the start of the edited line instead"
    )
    parser.add_argument(
        "--then",
        type=int,
        default=0,
        help="with --newline: type this many characters into the name_hint after each line break "
        "(CPU of the line break and of each character after it)",
    )
    parser.add_argument(
        "--sites",
        type=int,
        default=0,
        help="type at this many name_hint strings spread over each file, in turn",
    )
    parser.add_argument(
        "--no-imports", action="store_true", help="analyse each real file alone, its imports unresolved"
    )
    args = parser.parse_args()
    documents: list[tuple[str, str, Imports]] = []
    files = [*args.files, *(corpus_files(args.corpus, args.top) if args.corpus else [])]
    for path in files:
        imports = no_imports if args.no_imports else imports_of(path.resolve())
        documents.append((str(path)[-52:], path.read_text(encoding="utf-8"), imports))
    if not files:
        documents += [
            ("generated, 100 lines, @pl.program", generate(100), no_imports),
            ("generated, 5,000 lines, @pl.program x135", generate(5_000), no_imports),
            ("generated jit, 100 lines (1 helper)", generate_jit(100), no_imports),
            ("generated jit, 2,000 lines (one program)", generate_jit(2_000), no_imports),
        ]
    if args.newline and args.then:
        for label, text, imports in documents:
            enter, *chars = after_line_breaks(text, args.edits, args.then, args.helper, imports)
            after = " / ".join(f"{c * 1000:.1f}" for c in chars)
            print(f"{label:<52} {text.count(chr(10)):>6}  Enter {enter * 1000:.1f} ms CPU, then {after} ms")
        return
    if args.sites:
        print(f"{'file':<52} {'lines':>6} {'sites':>5} {'p50 CPU':>10} {'dearest':>18}")
        for label, text, imports in documents:
            figures = per_site(text, args.sites, args.edits, imports)
            cpus = [cpu for _, cpu in figures]
            line, dearest = max(figures, key=lambda f: f[1])
            print(
                f"{label:<52} {text.count(chr(10)):>6} {len(figures):>5} "
                f"{statistics.median(cpus) * 1000:>7.1f} ms {dearest * 1000:>7.1f} ms (line {line})",
                flush=True,
            )
        return
    if files:
        print(
            "imports: "
            + ("unresolved (--no-imports)" if args.no_imports else "resolved from each file's folder")
        )
    print(f"{'file':<52} {'lines':>6} {'rebuilt':>7} {'wall/edit':>11} {'cpu/edit':>10}")
    for label, text, imports in documents:
        figures = per_edit(text, args.edits, args.comment, args.helper, args.newline, imports)
        print(row(label, text, figures), flush=True)


if __name__ == "__main__":
    main()
