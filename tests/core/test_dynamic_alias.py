"""`ROWS = pl.dynamic("M")`: a dynamic symbol bound to a variable of another name is named by
its string, as the compiler names it (its DynVar is `M`: types print `[M, 128]`, the outlined
scalar parameter is `M`), whichever variable the code reads it through. A `@pl.jit` body (an
entry or a `@pl.jit.inline` helper) cannot read it through the other name: the specialiser
declares the symbol of the program it generates by its string and substitutes reads of that
name only, so its parser says "Undefined variable 'ROWS'" (PTO210); a `@pl.program` body reads
the symbol itself. Every expectation here is the compiler's (e2d0f78, the oracle) on the same
code."""

from __future__ import annotations

from textwrap import indent

from test_analysis_incremental import each_edit_then_undone

from pypto_core.analysis import FileAnalysis, analyse_source

from markers import extract

X = "x: pl.Tensor[[ROWS, 128], pl.FP32]"
Y = "y: pl.Out[pl.Tensor[[64, 128], pl.FP32]]"
HEAD = 'import pypto.language as pl\n\nROWS = pl.dynamic("M")\n\n\n'
COPY = """\
with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy"):
    t = pl.load(x, [0, 0], [64, 128], valid_shape=[{extent}, 128])
    pl.store(t, [0, 0], y)
"""


def _copy(extent: str, depth: int) -> str:
    return indent(COPY.format(extent=extent), "    " * depth)


JIT = HEAD + f"@pl.jit\ndef entry({X}, {Y}):\n    n = pl.tensor.dim(x, 0)\n{_copy('n', 1)}    return y\n"
PROGRAM = (
    HEAD
    + "@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.Orchestration)\n"
    + f"    def main(self, {X}, {Y}) -> pl.Tensor[[64, 128], pl.FP32]:\n{_copy('ROWS', 2)}        return y\n"
)
INLINE = (
    HEAD
    + f"@pl.jit.inline\ndef copy_rows({X}, y: pl.Tensor[[64, 128], pl.FP32]):\n{_copy('[|ROWS|]', 1)}\n\n"
    + f"@pl.jit\ndef entry({X}, {Y}):\n    copy_rows(x, y)\n    return y\n"
)

EXPECTED = [
    ("x", "In", "Tensor[[M, 128], FP32]"),
    ("M", "In", "Scalar[INDEX]"),
    ("y", "Out", "Tensor[[64, 128], FP32]"),
]


def _params(analysis: FileAnalysis) -> list[tuple[str, str, str]]:
    return [(p.name, p.direction.value, str(p.type)) for r in analysis.outlined for p in r.params]


def _errors(analysis: FileAnalysis) -> list[str]:
    return [d.code for d in analysis.diagnostics if d.severity.value == "error"]


def test_a_jit_entrys_symbol_is_its_string_in_types_and_the_parameter_list() -> None:
    analysis = analyse_source(JIT)
    assert _params(analysis) == EXPECTED
    assert _errors(analysis) == []


def test_a_program_body_reads_the_symbol_through_the_other_name() -> None:
    analysis = analyse_source(PROGRAM)
    assert _params(analysis) == EXPECTED
    assert _errors(analysis) == []


def test_a_jit_body_reading_the_other_name_is_undefined_pto210() -> None:
    marked = extract(INLINE)
    analysis = analyse_source(marked.text)
    (found,) = [d for d in analysis.diagnostics if d.code == "PTO210"]
    assert found.message == "Undefined variable 'ROWS'"
    assert found.span == marked.range
    assert found.hint is not None and "'M'" in found.hint
    assert _params(analysis) == EXPECTED  # still outlined, with the symbol's name


def test_the_symbols_own_name_is_no_error_in_a_jit_body() -> None:
    text = extract(INLINE).text.replace('ROWS = pl.dynamic("M")', 'ROWS = pl.dynamic("ROWS")')
    analysis = analyse_source(text)
    assert _errors(analysis) == []
    assert [p[0] for p in _params(analysis)] == ["x", "ROWS", "y"]


def test_incremental_equals_fresh_when_the_string_changes() -> None:
    edits = [
        lambda t: t.replace('pl.dynamic("M")', 'pl.dynamic("ROWS")'),
        lambda t: t.replace('pl.dynamic("M")', 'pl.dynamic("N")'),
    ]
    shown = [_params(after)[0][2] for after in each_edit_then_undone(JIT, edits)]
    assert shown == ["Tensor[[ROWS, 128], FP32]", "Tensor[[N, 128], FP32]"]


def test_a_bind_dynamic_axis_is_named_by_the_variable() -> None:
    """`x.bind_dynamic(0, ROWS)` in a jit body (the specialiser deletes the statement) makes the
    axis the symbol `ROWS`, the variable's name, and a read of `ROWS` is defined."""
    text = JIT.replace(
        "    n = pl.tensor.dim(x, 0)\n", "    x.bind_dynamic(0, ROWS)\n    n = pl.tensor.dim(x, 0)\n"
    )
    analysis = analyse_source(text)
    assert _params(analysis) == [
        ("x", "In", "Tensor[[ROWS, 128], FP32]"),
        ("ROWS", "In", "Scalar[INDEX]"),
        EXPECTED[2],
    ]
    assert _errors(analysis) == []


def test_incremental_equals_fresh_when_a_bind_dynamic_comes_and_goes() -> None:
    bound = JIT.replace(
        "    n = pl.tensor.dim(x, 0)\n", "    x.bind_dynamic(0, ROWS)\n    n = pl.tensor.dim(x, 0)\n"
    )
    edits = [lambda t: t.replace("    x.bind_dynamic(0, ROWS)\n", "")]
    shown = [_params(after)[0][2] for after in each_edit_then_undone(bound, edits)]
    assert shown == ["Tensor[[M, 128], FP32]"]


TWO_AXES = (
    HEAD
    + "@pl.jit\ndef entry(\n    x: pl.Tensor[[ROWS, 128], pl.FP32],\n    z: pl.Tensor[[ROWS, 128], pl.FP32],\n"
    + f"    {Y},\n):\n    x.bind_dynamic(0, ROWS)\n    n = pl.tensor.dim(z, 0)\n"
    + '    with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy"):\n'
    + "        t = pl.load(z, [0, 0], [64, 128], valid_shape=[n, 128])\n"
    + "        u = pl.load(x, [0, 0], [64, 128], valid_shape=[n, 128])\n"
    + "        pl.store(pl.add(t, u), [0, 0], y)\n    return y\n"
)


def test_a_bind_dynamic_names_the_axis_it_binds_only() -> None:
    """The specialiser names each parameter axis by its own source: the axis `x.bind_dynamic`
    binds is `ROWS`, `z`'s axis read through the same variable in its annotation is `M`."""
    analysis = analyse_source(TWO_AXES)
    assert _params(analysis) == [
        ("z", "In", "Tensor[[M, 128], FP32]"),
        ("M", "In", "Scalar[INDEX]"),
        ("x", "In", "Tensor[[ROWS, 128], FP32]"),
        EXPECTED[2],
    ]
    assert _errors(analysis) == []


def test_a_bind_dynamic_makes_a_static_axis_the_symbol() -> None:
    text = TWO_AXES.replace(
        "    x: pl.Tensor[[ROWS, 128], pl.FP32],", "    x: pl.Tensor[[64, 128], pl.FP32],"
    )
    assert _params(analyse_source(text))[2] == ("x", "In", "Tensor[[ROWS, 128], FP32]")


def test_incremental_equals_fresh_when_the_bound_axis_changes() -> None:
    edits = [
        lambda t: t.replace("    x.bind_dynamic(0, ROWS)\n", "    z.bind_dynamic(0, ROWS)\n"),
        lambda t: t.replace("    x.bind_dynamic(0, ROWS)\n", "    x.bind_dynamic(1, ROWS)\n"),
    ]
    shown = [
        [p[2] for p in _params(after) if p[0] in "xz"] for after in each_edit_then_undone(TWO_AXES, edits)
    ]
    assert shown == [
        ["Tensor[[ROWS, 128], FP32]", "Tensor[[M, 128], FP32]"],
        ["Tensor[[M, 128], FP32]", "Tensor[[M, ROWS], FP32]"],
    ]
