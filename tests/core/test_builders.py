"""Programs and jit kernels defined inside function bodies (builder functions, test methods)
are analysed like top-level ones, with the builder's names as their closure."""

from __future__ import annotations

import random

import pytest

from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.results import FileAnalysis

from markers import extract

# The shape of pypto-lib's builder modules: module constants, a builder whose parameters (with
# defaults) feed local names, a program class using both, and the builder returning it.
BUILDER = """
import pypto.language as pl

ROWS = 64
COLS = 32


def build_program(batch: int = 16, cols=COLS):
    tile = ROWS * 2
    blocks = batch // 4
    width = cols

    @pl.program
    class Built:
        @pl.function(type=pl.FunctionType.Opaque)
        def main(
            self,
            x: pl.Tensor[[tile, ROWS], pl.FP32],
            y: pl.Tensor[[width, ROWS], pl.FP32],
            out: pl.Out[pl.Tensor[[tile, ROWS], pl.FP32]],
        ) -> pl.Tensor[[tile, ROWS], pl.FP32]:
            for b in pl.range(blocks):
                with ${scope}pl.at(level=pl.Level.CORE_GROUP, name_hint={|hint:"row_tile"|}):
                    t = pl.load(x, [b * 16, 0], [16, ROWS])
                    out = pl.store(pl.exp(t), [b * 16, 0], out)
            return out

    return Built


def golden(tensors):
    return tensors["x"]
"""


def summary(a: FileAnalysis) -> tuple[object, ...]:
    return (a.is_dsl, a.diagnostics, a.outlined, a.promoted, [p.name for p in a.programs])


def test_a_program_class_in_a_builder_function_is_outlined_with_the_builders_constants() -> None:
    marked = extract(BUILDER)
    analysis = analyse_source(marked.text)
    assert analysis.diagnostics == []
    assert [p.name for p in analysis.programs] == ["Built"]
    (scope,) = analysis.outlined
    assert (scope.name, scope.kind, scope.parent, scope.program) == ("row_tile", "InCore", "main", "Built")
    assert scope.header_span.start_line == marked.point("scope")[0]
    assert scope.name_span == marked.named["hint"]
    # `tile` folds from a module constant; the builder's own locals are its closure
    params = {p.name: (p.direction.value, p.type) for p in scope.params}
    assert params["x"] == ("In", "Tensor[[128, 64], FP32]")
    assert params["out"][0] == "Out"


def y_shape(text: str) -> tuple[object, ...]:
    analysis = analyse_source(text)
    assert analysis.diagnostics == []
    main = analysis.programs[0].source.functions[0]
    return next(p.var.type.shape for p in main.params if p.var.name == "y")  # type: ignore[attr-defined]


def test_a_builder_parameter_is_unknown_even_where_a_module_constant_has_its_name() -> None:
    text = extract(BUILDER).text
    assert y_shape(text) == ("width", 64)  # `width = cols`: a parameter, unknown (not an error)
    from_module = text.replace("width = cols", "width = COLS")
    assert y_shape(from_module) == (32, 64)
    shadowed = from_module.replace("cols=COLS):", "COLS=COLS):")
    assert y_shape(shadowed) == ("width", 64)  # the parameter shadows the module's COLS = 32


# The compiler's tests: jit kernels and an inline helper inside a test method; the class
# body's names are not visible to its methods.
TEST_METHOD = """
import pypto.language as pl

N = 64


class TestKernels:
    N = 999

    def test_entry(self):
        M = N * 2

        @pl.jit.incore
        def add_one(x: pl.Tensor[[M], pl.FP32], out: pl.Out[pl.Tensor[[M], pl.FP32]]):
            t = pl.load(x, [0], [M])
            pl.store(pl.add(t, 1.0), [0], out)
            return out

        @pl.jit
        def entry(x: pl.Tensor[[M], pl.FP32], out: pl.Out[pl.Tensor[[M], pl.FP32]]):
            with ${scope}pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0], [M])
                pl.store(t, [0], out)
            out = add_one(x, out)
            return out

        assert entry is not None
"""


def test_jit_kernels_in_a_test_method_form_one_program_per_entry() -> None:
    marked = extract(TEST_METHOD)
    analysis = analyse_source(marked.text)
    assert analysis.diagnostics == []
    assert [p.name for p in analysis.programs] == ["entry"]
    names = sorted(f.name for f in analysis.programs[0].source.functions)
    assert names == ["add_one", "entry"]
    (scope,) = analysis.outlined
    assert (scope.name, scope.header_span.start_line) == ("entry_incore_0", marked.point("scope")[0])
    x = next(p for p in scope.params if p.name == "x")
    assert x.type == "Tensor[[128], FP32]"  # M = N * 2 with the module's N, not the class's


def test_a_module_whose_only_program_is_in_a_builder_prints_it() -> None:
    from pypto_core.analysis import outlined_program_text

    text = outlined_program_text(analyse_source(extract(BUILDER).text))
    assert "class Built:" in text and "def row_tile(" in text


def test_two_builders_with_the_same_class_text_see_their_own_constants() -> None:
    builder = extract(BUILDER).text
    second = builder[builder.index("def build_program") : builder.index("def golden")]
    text = builder + "\n\n" + second.replace("build_program", "build_small").replace("ROWS * 2", "ROWS // 2")
    analysis = analyse_source(text)
    types = [next(p.type for p in o.params if p.name == "x") for o in analysis.outlined]
    assert types == ["Tensor[[128, 64], FP32]", "Tensor[[32, 64], FP32]"]


def test_an_edit_inside_a_builder_rebuilds_its_program_and_an_edit_above_only_moves_it() -> None:
    text = extract(BUILDER).text
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    edited = text.replace("tile = ROWS * 2", "tile = ROWS * 4")
    result = analyzer.update(edited)
    assert analyzer.rebuilt == 1
    assert summary(result) == summary(analyse_source(edited))
    assert next(p.type for p in result.outlined[0].params if p.name == "x") == "Tensor[[256, 64], FP32]"
    moved = "# a new first line\n" + edited
    result = analyzer.update(moved)
    assert analyzer.rebuilt == 0
    assert summary(result) == summary(analyse_source(moved))
    edited_golden = moved.replace('return tensors["x"]', 'return tensors["y"]')
    analyzer.update(edited_golden)
    assert analyzer.rebuilt == 0  # the rest of the file is not the builder's


@pytest.mark.parametrize("seed", range(6))
def test_incremental_equals_fresh_under_random_line_edits_of_builder_files(seed: int) -> None:
    rng = random.Random(seed)
    lines = (extract(BUILDER).text + "\n" + extract(TEST_METHOD).text).split("\n")
    analyzer = DocumentAnalyzer()
    analyzer.update("\n".join(lines))
    for _ in range(12):
        at = rng.randrange(len(lines))
        choice = rng.randrange(4)
        if choice == 0:
            lines.insert(at, "")
        elif choice == 1 and len(lines) > 1:
            del lines[at]
        elif choice == 2:
            lines[at] = lines[at].replace("ROWS", "COLS")
        else:
            lines.insert(at, lines[at])  # a duplicated line: often a syntax error
        text = "\n".join(lines)
        assert summary(analyzer.update(text)) == summary(analyse_source(text))
