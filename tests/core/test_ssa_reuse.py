"""ConvertToSSA takes a compound statement's last conversion again when the statement and what
it reads are as they were (`ssa._Kept`), and mints the variables it minted before, so after an
edit only the statements around the edit are converted and the SSA program shares the others'
objects with the last one. Taken or converted, the result is what a conversion that takes
nothing gives, and the analysis after any edit what a fresh one gives: on a real-shaped jit
program (an entry with a layer loop and a branch calling inline helpers and kernels, one
helper called twice, the helpers' scopes' names colliding across functions)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from pypto_core import ir
from pypto_core.analysis import DocumentAnalyzer, analyse_source, outlined_program_text
from pypto_core.ir_equal import ir_difference
from pypto_core.passes import ssa, ssa_resume
from pypto_core.passes.unroll_loops import unroll_loops
from pypto_core.printer import print_function

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from gen_dsl import JIT_ENTRY_HEAD, JIT_ENTRY_TAIL, JIT_HEADER, JIT_HELPER, JIT_KERNEL

ENTRY = (
    JIT_ENTRY_HEAD
    + """    mid = helper0(x, acc, mid, base)
    for layer in pl.range(3):
        mid = helper1(x, acc, mid, base + layer)
        mid = helper2(x, acc, mid, base)
        mid = kernel2(x, mid)
        if base > 2:
            mid = helper3(x, acc, mid, base)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="layer_tail"):
            z = pl.load(mid, [0, 0], [ROWS, COLS])
            mid = pl.store(z, [0, 0], mid)
    mid = helper0(x, acc, mid, base + 1)
    mid = kernel5(x, mid)
"""
)
SOURCE = "".join(
    [
        JIT_HEADER,
        *(JIT_HELPER.format(n=n) for n in range(6)),
        *(JIT_KERNEL.format(n=n) for n in (2, 5)),
        ENTRY,
        JIT_ENTRY_TAIL,
    ]
)


def _in_helper(text: str, n: int, old: str, new: str) -> str:
    """`old` replaced by `new` once, in helper `n`'s body."""
    at = text.index(f"def helper{n}(")
    return text[:at] + text[at:].replace(old, new, 1)


# each applied to the text the one before left
EDITS = [
    lambda t: t.replace('name_hint="layer_tail"', 'name_hint="layer_tailx"'),  # a keystroke in the loop
    lambda t: t.replace('name_hint="layer_tailx"', 'name_hint="layer_tailxy"'),
    lambda t: _in_helper(t, 1, 'name_hint="proj1"', 'name_hint="proj1x"'),  # in a helper
    lambda t: t.replace("base + layer)", "base + layer + 1)"),  # code in the loop
    lambda t: _in_helper(t, 0, "off = base * ROWS", "off = base * ROWS + 0"),  # the helper called twice
    lambda t: t.replace("TILES = 4\n", "TILES = 4\nEXTRA = 1\n"),  # every line below moves
    lambda t: t.replace("if base > 2:", "if base > 3:"),
    # one more version of `mid` before the loop: every later read of it reads another version
    lambda t: t.replace(
        "    mid = helper0(x, acc, mid, base)\n",
        "    mid = helper0(x, acc, mid, base)\n    mid = kernel2(x, mid)\n",
    ),
    lambda t: t.replace("        mid = kernel2(x, mid)\n", "", 1),  # and one fewer in the loop
    lambda t: SOURCE,
]


def _summary(analysis: object) -> tuple[object, ...]:
    a = analysis
    return (a.diagnostics, a.outlined, a.promoted, a.dropped, a.helpers, a.unresolved)  # type: ignore[attr-defined]


def test_the_real_shaped_program_is_clean_and_outlines_its_scopes() -> None:
    analysis = analyse_source(SOURCE)
    assert [d.code for d in analysis.diagnostics if d.severity.value == "error"] == []
    names = [r.name for r in analysis.outlined]
    assert "layer_tail" in names and any(n.startswith("tile") and n != "tile" for n in names)  # collisions


def test_incremental_equals_fresh_after_every_edit_of_the_real_shaped_program(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    taken = [0]
    replay = ssa._SSAConverter._replay

    def counted(self: ssa._SSAConverter, *args: Any) -> ir.Stmt:
        taken[0] += 1
        return replay(self, *args)

    monkeypatch.setattr(ssa._SSAConverter, "_replay", counted)
    analyzer = DocumentAnalyzer()
    text = SOURCE
    analyzer.update(text)
    for edit in EDITS:
        text = edit(text)
        taken[0] = 0
        incremental = analyzer.update(text)
        after_edit = taken[0]
        fresh = analyse_source(text)
        assert _summary(incremental) == _summary(fresh)
        assert outlined_program_text(incremental, raw=True) == outlined_program_text(fresh, raw=True)
        if edit is EDITS[1]:
            assert after_edit > 0  # the loop's other statements, and the top level's, were taken


def _converted(program: ir.Program, reuse: bool) -> list[ir.Function]:
    return [ssa._SSAConverter(fn, reuse=reuse).run() for fn in unroll_loops(program).functions]


def test_taking_kept_statements_converts_as_taking_none_and_shares_their_objects() -> None:
    """Edit by edit, the pipeline's conversion (which takes what it kept) equals one that takes
    nothing, printed and structurally; the statements the edit left are the objects of the
    conversion before."""
    analyzer = DocumentAnalyzer()
    text = SOURCE
    analyzer.update(text)
    [before] = [p.source for p in analyzer.update(EDITS[0](text)).programs if p.source.name == "entry"]
    last = _converted(before, reuse=True)
    text = EDITS[0](text)
    shared = 0
    for edit in EDITS[1:]:
        text = edit(text)
        [program] = [p.source for p in analyzer.update(text).programs if p.source.name == "entry"]
        taken, plain = _converted(program, reuse=True), _converted(program, reuse=False)
        for got, want in zip(taken, plain, strict=True):
            assert print_function(got) == print_function(want)
            assert ir_difference(got, want) is None
        old = {id(s) for fn in last for s in fn.body}
        shared += sum(id(s) in old for fn in taken for s in fn.body)
        last = taken
    assert shared > 0


def _duplicate_names() -> ir.Function:
    """Two variables named `x` that an `if` rebinds (phis whose order the versions' order
    decides), after a loop that reads neither."""
    t = ir.TensorType((64,), "FP32")
    a, c = ir.Var("a", t), ir.Var("c", ir.ScalarType("BOOL"))
    x1, x2, y, i = ir.Var("x", t), ir.Var("x", t), ir.Var("y", t), ir.Var("i", ir.INDEX)
    add = ir.Call("tensor.add", [a, a], type=t)
    loop = ir.ForStmt(i, ir.Const(0), ir.Const(4), ir.Const(1), [ir.AssignStmt(y, add)])
    branch = ir.IfStmt(c, [ir.AssignStmt(x2, add), ir.AssignStmt(x1, add)], [ir.AssignStmt(x1, add)])
    body: list[ir.Stmt] = [
        ir.AssignStmt(x1, add),
        ir.AssignStmt(x2, add),
        loop,
        branch,
        ir.ReturnStmt([x1, x2]),
    ]
    return ir.Function("main", [ir.Param(a), ir.Param(c)], body)


def test_a_tie_between_phis_of_one_name_converts_again_taking_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fn = _duplicate_names()
    plain = print_function(ssa._SSAConverter(fn, reuse=False).run())
    for _ in range(2):  # a statement is kept from its second conversion on
        ssa_resume.forget_all()  # else the function's last conversion is taken whole (`ssa_resume`)
        ssa.convert_function(fn)
    made: list[bool] = []
    init = ssa._SSAConverter.__init__

    def spy(self: ssa._SSAConverter, function: ir.Function, reuse: bool = False) -> None:
        made.append(reuse)
        init(self, function, reuse)

    monkeypatch.setattr(ssa._SSAConverter, "__init__", spy)
    ssa_resume.forget_all()
    assert print_function(ssa.convert_function(fn)) == plain
    assert made == [True, False]  # took the loop, met the tie, converted again taking nothing
