"""One annotation text read in many functions gives each function its own reading.

`types.annotation_type` keeps a one-line annotation's type per module by its text; these
cases change what the same text means from one function to the next (class constants, a
parameter shadowing a module constant, `self.` constants) or make it report a diagnostic,
and check every function still gets what it would get alone.
"""

from __future__ import annotations

import textwrap

from pypto_core import ir
from pypto_core.frontend import parse_module

SOURCE = """
import pypto.language as pl

N = 64

@pl.program
class A:
    @pl.function
    def f(self, x: pl.Tensor[[N, 8], pl.FP32]) -> pl.Tensor[[N, 8], pl.FP32]:
        return x

@pl.program
class B:
    N = 32
    W = 4

    @pl.function
    def f(self, x: pl.Tensor[[N, 8], pl.FP32], y: pl.Tensor[[self.W], pl.FP32]) -> pl.Tensor[[N, 8], pl.FP32]:
        return x

@pl.program
class C:
    W = 16

    @pl.function
    def f(self, N: pl.Scalar[pl.INDEX], x: pl.Tensor[[N, 8], pl.FP32], y: pl.Tensor[[self.W], pl.FP32]):
        return x

@pl.program
class D:
    @pl.function
    def f(self, x: pl.Tensor[[N, 8], pl.FP32, pl.DN], y: pl.Tensor[[N, 8], pl.FP32, pl.DN]):
        return x
"""


def _param_types(program: ir.Program) -> list[ir.Type]:
    (function,) = program.functions
    return [param.var.type for param in function.params]


def test_the_same_annotation_text_is_read_with_each_functions_constants() -> None:
    result = parse_module(textwrap.dedent(SOURCE))
    a, b, c, d = result.programs
    assert _param_types(a) == [ir.TensorType((64, 8), "FP32")]
    assert a.functions[0].return_types == [ir.TensorType((64, 8), "FP32")]
    assert _param_types(b) == [ir.TensorType((32, 8), "FP32"), ir.TensorType((4,), "FP32")]
    assert b.functions[0].return_types == [ir.TensorType((32, 8), "FP32")]
    # the parameter `N` shadows the module constant in the annotations after it
    assert _param_types(c) == [
        ir.ScalarType("INDEX"),
        ir.TensorType(("N", 8), "FP32"),
        ir.TensorType((16,), "FP32"),
    ]
    # a diagnostic is reported for every occurrence, not only the first reading
    pto105 = [diag.span.start_line for diag in result.diagnostics if diag.code == "PTO105"]
    assert len(pto105) == 2
    assert _param_types(d) == [ir.TensorType((64, 8), "FP32", "DN")] * 2
