"""ConvertToSSA resumed from the state its last conversion of a function had before a top-level
statement, and the rest taken wholesale where the state fits again (`ssa_resume`): every
conversion equals one from the top taking nothing, printed and structurally, with the same
problems; over edits before, at and after the edited statement, statements added and taken
out, undo, line breaks, edits in an imported helper module, an inline helper spliced twice,
and an open that keeps everything."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from test_analysis_incremental import full
from test_outline_replay import edits_in_the_model_and_its_helper_module
from test_ssa_kept import ENTRY, _after

from pypto_core import ir
from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.diagnostics import Diagnostic
from pypto_core.ir_equal import ir_difference
from pypto_core.passes import ssa, ssa_resume
from pypto_core.printer import print_function


class Checked:
    """Per conversion of the pipeline's: whether it resumed past its first statement, took its
    record apart to (`ssa_resume.start_at`: near the end of its logs) and took a rest
    wholesale; each compared with a conversion from the top taking nothing."""

    def __init__(self) -> None:
        self.resumed = 0
        self.consumed = 0
        self.cut = 0
        self.conversions = 0


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch) -> Iterator[Checked]:
    seen = Checked()
    convert, resume_at, take_rest = (
        ssa.convert_function,
        ssa._SSAConverter._resume_at,
        ssa._SSAConverter._take_rest,
    )

    def spy_resume(self: ssa._SSAConverter, body: ssa._Top, record: ssa_resume.Resume, start: int) -> None:
        seen.resumed += start > 0
        resume_at(self, body, record, start)
        seen.consumed += body.consumed

    def spy_take(self: ssa._SSAConverter, body: ssa._Top, i: int) -> list[ir.Stmt]:
        seen.cut += 1
        return take_rest(self, body, i)

    def spy_convert(fn: ir.Function, diagnostics: list[Diagnostic] | None = None) -> ir.Function:
        found: list[Diagnostic] = []
        got = convert(fn, found)
        if diagnostics is not None:
            diagnostics += found
        # the plain conversion writes no pool the pipeline's next one would read
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(ssa, "_POOLS", weakref.WeakKeyDictionary())
            plain = ssa._SSAConverter(fn, reuse=False)
            want = plain.run()
        assert print_function(got) == print_function(want), fn.name
        assert ir_difference(got, want) is None, fn.name
        assert found == plain.problems, fn.name
        seen.conversions += 1
        return got

    monkeypatch.setattr(ssa, "convert_function", spy_convert)
    monkeypatch.setattr(ssa._SSAConverter, "_resume_at", spy_resume)
    monkeypatch.setattr(ssa._SSAConverter, "_take_rest", spy_take)
    yield seen


def _entry_edits() -> list[tuple[str, Callable[[str], str]]]:
    """Edits of the entry of `test_ssa_kept`, each on the text the one before left: at its
    first statement, in the middle (the layer loop, a scope), at its last, statements added and
    taken out (the rest moves by a statement), in a helper spliced twice, then the undos."""
    return [
        (
            "the first statement",
            lambda t: t.replace(
                "    mid = pl.create_tensor([256, COLS]", "    mid = pl.create_tensor([256, COLS + 0]"
            ),
        ),
        ("a scope's name_hint", lambda t: _after(t, 'name_hint="first', "x")),
        ("again", lambda t: _after(t, 'name_hint="firstx', "y")),
        ("the layer loop's name_hint", lambda t: _after(t, 'name_hint="layer', "z")),
        ("again", lambda t: _after(t, 'name_hint="layerz', "w")),
        ("the last scope", lambda t: _after(t, 'name_hint="finish', "q")),
        (
            "the last statement",
            lambda t: t.replace("    return out\n", "    total = total + 2\n    return out\n"),
        ),
        (
            "a statement more before the loop",
            lambda t: _after(t, "    total = base + 0\n", "    spare = base * 3\n"),
        ),
        ("it taken out", lambda t: t.replace("    spare = base * 3\n", "")),
        (
            "a read after the loop of what it hides",
            lambda t: _after(t, "    mid = scaled(x, mid, total)\n", "    total = total + layer\n"),
        ),
        ("it taken out", lambda t: t.replace("    total = total + layer\n", "")),
        ("a helper spliced twice", lambda t: _after(t, 'name_hint="scaled', "k")),
        (
            "the loop's extent",
            lambda t: t.replace("for layer in pl.range(LAYERS):", "for layer in pl.range(LAYERS + 1):"),
        ),
        (
            "undone",
            lambda t: t.replace("for layer in pl.range(LAYERS + 1):", "for layer in pl.range(LAYERS):"),
        ),
        (
            "a line break above the loop",
            lambda t: t.replace("    for layer in pl.range(", "\n    for layer in pl.range("),
        ),
        ("a keystroke after it", lambda t: _after(t, 'name_hint="layerzw', "v")),
        ("everything undone", lambda t: ENTRY),
    ]


@pytest.mark.parametrize("take_apart", [ssa_resume.TAKE_APART, 0])
@pytest.mark.parametrize("keep_all_at_open", [False, True])
def test_every_conversion_equals_one_from_the_top(
    checked: Checked, keep_all_at_open: bool, take_apart: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(`take_apart` 0: every resume past the first statement takes its record apart)"""
    monkeypatch.setattr(ssa_resume, "TAKE_APART", take_apart)
    analyzer = DocumentAnalyzer(keep_all_at_open=keep_all_at_open)
    text = ENTRY
    analyzer.update(text)
    for name, edit in _entry_edits():
        edited = edit(text)
        assert edited != text, name
        text = edited
        assert full(analyzer.update(text)) == full(analyse_source(text)), name
    assert checked.resumed and checked.cut  # resumed past the edited statement's head, and cut off
    assert checked.consumed  # and from a record taken apart (edits in the last statements)


def test_a_keystroke_in_a_scope_takes_the_statements_around_it_whole(checked: Checked) -> None:
    """A name_hint keystroke resumes before the statement holding it and takes every statement
    after it wholesale, from the second keystroke on (the first meets the open's conversion,
    which kept nothing else)."""
    analyzer = DocumentAnalyzer()
    text = ENTRY
    analyzer.update(text)
    for letter in "abc":
        text = _after(text, 'name_hint="first', letter)
        checked.resumed = checked.cut = 0
        analyzer.update(text)
    assert checked.resumed >= 1 and checked.cut >= 1


@pytest.mark.parametrize("seed", range(4))
def test_edits_in_the_model_and_its_helper_module(tmp_path: Path, checked: Checked, seed: int) -> None:
    """The spliced statements of an edited helper module are new objects at each call (another
    file's spans): the conversion resumes before the first, and equals one from the top."""
    edits_in_the_model_and_its_helper_module(tmp_path, seed, 12, keep_all_at_open=seed % 2 == 1)
    assert checked.conversions


def _hiding_function(step: int, mention: bool) -> tuple[ir.Function, ir.Stmt]:
    """A loop, whose variable `i` it hides after it, then a statement reading `i` out of scope
    (PTO517, the loop its related location) when `mention`, else one reading `a`; the
    parameters and the statements after the loop are the same objects on every call."""
    made = _HIDING.get(mention)
    if made is None:
        t = ir.TensorType((64,), "FP32")
        a, i = ir.Var("a", t), ir.Var("i", ir.INDEX)
        read = ir.AssignStmt(ir.Var("y", ir.INDEX), i) if mention else ir.AssignStmt(ir.Var("y", t), a)
        made = _HIDING[mention] = (a, i, [read, ir.ReturnStmt([a])], [ir.Param(a)])
    a, i, rest, params = made
    add = ir.Call("tensor.add", [a, a], type=a.type)
    span = ir.Span(3, 4, 3 + step, 0)
    loop = ir.ForStmt(i, ir.Const(0), ir.Const(4), ir.Const(step), [ir.EvalStmt(add)], span=span)
    return ir.Function("hides", params, [loop, *rest]), loop


_HIDING: dict[bool, tuple[ir.Var, ir.Var, list[ir.Stmt], list[ir.Param]]] = {}


@pytest.mark.parametrize("mention", [True, False])
def test_a_rest_after_an_edited_loop_is_taken_only_where_it_reads_none_of_what_the_loop_hides(
    checked: Checked, mention: bool
) -> None:
    """The edited loop is a new object hiding `t`: a rest reading `t` is converted again (its
    PTO517 names the new loop), one reading none of it is taken."""
    for step in (1, 1, 2):
        fn, loop = _hiding_function(step, mention)
        checked.cut = 0
        found: list[Diagnostic] = []
        ssa.convert_function(fn, found)
    assert checked.cut == (0 if mention else 1)
    if mention:
        (problem,) = found
        assert problem.code == ssa.SSA_SCOPE and problem.related[1].span == loop.span
    else:
        assert found == []


def test_a_record_is_per_function_and_parameters() -> None:
    """Two documents' functions of one name keep a record each (their parameters differ)."""
    ssa_resume.forget_all()
    one, _ = _hiding_function(1, False)
    other = ir.Function("hides", [ir.Param(ir.Var("a", one.params[0].var.type))], list(one.body))
    ssa.convert_function(one)
    ssa.convert_function(other)
    assert ssa_resume.last(one) is not None and ssa_resume.last(other) is not None
    assert ssa_resume.last(one) is not ssa_resume.last(other)
