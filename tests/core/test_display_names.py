"""Names for people in printed functions (`display_names`) and the Outlined Program's text:
base names, a `ʹN` suffix only where the plain name would read as another version, splice
names never, the raw IR on request, functions in source order, dropped programs said."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from pypto_core import ir
from pypto_core.analysis import analyse_source, outlined_program_text
from pypto_core.cli import main
from pypto_core.display_names import PRIME, display_names
from pypto_core.printer import print_function

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "examples" / "quickstart.py"
T64 = "pl.Tensor[[64], pl.FP32]"
HEADER = "import pypto.language as pl\n\n"


def outlined(source: str, **options: bool) -> str:
    return outlined_program_text(analyse_source(HEADER + textwrap.dedent(source)), **options)


def function(text: str, name: str) -> list[str]:
    """The lines of `def name` in printed program text (decorator excluded, stripped)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(f"def {name}("))
    body = [lines[start].strip()]
    for line in lines[start + 1 :]:
        if not line.startswith(" " * 8):
            break
        body.append(line.strip())
    return body


def test_the_quickstart_reads_like_its_source() -> None:
    text = outlined_program_text(analyse_source(QUICKSTART.read_text()))
    assert "__" not in text and not re.search(r"_inline\d", text)
    ast.parse(text)  # `outʹ1` is an identifier: the document still parses
    assert function(text, "main")[1:] == [
        "off = base * 64",
        "out = self.main_incore_0(x, off, out)",
        "out = self.tail(x, off, out)",
        "return out",
    ]
    # the InCore function returns its parameter, not the stored value: the stored-to versions
    # are marked, the parameter keeps the name the lens shows
    assert function(text, "tail")[1:] == [
        "u = pl.tile.load(x, [off, 0], [64, 64])",
        f"out{PRIME}1 = pl.tile.store(pl.tile.neg(u), [0, 0], out)",
        f"out{PRIME}2 = out{PRIME}1",
        "return out",
    ]


def test_a_stale_local_version_is_the_one_marked() -> None:
    """`t__ssa_v0` read after `t__ssa_v1` was bound: printing both as `t` would make the call
    read the second one, so the first is marked; the later one keeps the plain name."""
    t0, t1, x = ir.Var("t__ssa_v0"), ir.Var("t__ssa_v1"), ir.Var("x__ssa_v0")
    body: list[ir.Stmt] = [
        ir.AssignStmt(t0, ir.Call("tensor.neg", [x])),
        ir.AssignStmt(t1, ir.Call("tensor.exp", [x])),
        ir.ReturnStmt([ir.Call("tensor.add", [t0, t1])]),
    ]
    fn = ir.Function("f", [ir.Param(x)], body)
    assert display_names(fn) == {"x__ssa_v0": "x", "t__ssa_v0": f"t{PRIME}1", "t__ssa_v1": "t"}
    assert print_function(fn, display=True).splitlines()[2:] == [
        f"    t{PRIME}1 = pl.tensor.neg(x)",
        "    t = pl.tensor.exp(x)",
        f"    return pl.tensor.add(t{PRIME}1, t)",
    ]


def test_each_branch_of_an_if_reads_the_names_from_before_it() -> None:
    """The else branch reads `a__ssa_v0` although the then branch (printed above it) rebound
    `a`: Python reads it from before the `if`, so nothing is marked."""
    a0, a1, r, c = ir.Var("a__ssa_v0"), ir.Var("a__ssa_v1"), ir.Var("a__phi_v2"), ir.Var("c")
    branch = ir.IfStmt(
        c,
        [ir.AssignStmt(a1, ir.Call("tensor.neg", [a0])), ir.YieldStmt([a1])],
        [ir.YieldStmt([a0])],
        return_vars=[r],
    )
    fn = ir.Function("f", [ir.Param(c), ir.Param(a0)], [branch, ir.ReturnStmt([r])])
    assert set(display_names(fn).values()) == {"a", "c"}


def test_versions_that_are_never_confused_keep_the_plain_name() -> None:
    text = outlined(f"""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: {T64}, n: pl.Scalar[pl.INDEX]) -> {T64}:
                acc = pl.create_tensor([64], dtype=pl.FP32)
                for i in pl.range(n):
                    acc = pl.add(acc, x)
                if n > 2:
                    acc = pl.add(acc, x)
                else:
                    acc = pl.sub(acc, x)
                return acc
        """)
    assert PRIME not in text and "__" not in text
    body = function(text, "main")
    assert "acc = pl.yield_(acc)" in body
    assert body[-1] == "return acc"


def test_spliced_helper_names_are_never_shown() -> None:
    text = outlined(f"""
        @pl.inline
        def twice(a: {T64}) -> {T64}:
            t = pl.add(a, a)
            return t

        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: {T64}) -> {T64}:
                y = twice(x)
                z = twice(y)
                return z
        """)
    assert not re.search(r"_inline\d", text) and "__" not in text
    assert function(text, "main")[1:] == [
        "t = pl.tensor.add(x, x)",
        "y = t",
        "t = pl.tensor.add(y, y)",
        "z = t",
        "return z",
    ]


def test_raw_names_are_the_ir_and_parse_back() -> None:
    raw = outlined_program_text(analyse_source(QUICKSTART.read_text()), raw=True)
    assert "out__ssa_v0" in raw and PRIME not in raw


def test_functions_come_in_source_order_each_followed_by_what_was_outlined_from_it() -> None:
    text = outlined(f"""
        @pl.program
        class P:
            @pl.function
            def zeta(self, x: {T64}, out: pl.Out[{T64}]) -> {T64}:
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="b_first"):
                    pl.store(pl.load(x, [0], [64]), [0], out)
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="a_second"):
                    pl.store(pl.load(x, [0], [64]), [0], out)
                return out

            @pl.function
            def alpha(self, x: {T64}, out: pl.Out[{T64}]) -> {T64}:
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="aa"):
                    pl.store(pl.load(x, [0], [64]), [0], out)
                return out
        """)
    names = re.findall(r"^    def (\w+)\(", text, re.MULTILINE)
    assert names == ["zeta", "b_first", "a_second", "alpha", "aa"]


def test_a_program_that_does_not_parse_is_replaced_by_a_comment_in_its_place() -> None:
    text = outlined(f"""
        @pl.program
        class Broken:
            @pl.function
            def main(self, x: {T64}) -> {T64}:
                y = pl.add(x, x
                return y

        @pl.program
        class Good:
            @pl.function
            def main(self, x: {T64}) -> {T64}:
                return x
        """)
    first, second = text.split("\n\n", 1)
    assert first.startswith(
        "# program Broken (line 4) is not shown: it does not parse\n# line 8: SyntaxError"
    )
    assert second.lstrip().startswith("@pl.program\nclass Good:")


def test_cli_emits_names_for_people_and_the_raw_ir_with_raw(capsys) -> None:
    assert main(["--emit", "outlined", str(QUICKSTART)]) == 1
    shown = capsys.readouterr().out
    assert "out = self.main_incore_0(x, off, out)" in shown
    assert main(["--emit", "outlined", "--raw", str(QUICKSTART)]) == 1
    assert "out__ssa_v2 = self.main_incore_0(x__ssa_v0, off__ssa_v0, out__ssa_v0)" in capsys.readouterr().out
    assert main(["--raw", str(QUICKSTART)]) == 2
    assert "--raw only applies to --emit and --emit-all" in capsys.readouterr().err


def test_cli_output_cut_short_by_its_reader_ends_quietly(tmp_path: Path) -> None:
    """`pypto-check --emit outlined ... | head -1`: no BrokenPipeError traceback."""
    for i in range(40):
        (tmp_path / f"k{i}.py").write_text(QUICKSTART.read_text())
    proc = subprocess.Popen(
        [sys.executable, "-m", "pypto_core.cli", "--emit", "outlined", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().startswith(b"# ")
    proc.stdout.close()  # what `head -1` does after its line
    error = proc.stderr.read().decode()
    proc.wait()
    assert "Traceback" not in error and "BrokenPipe" not in error
