"""Simplify's Fold A on conditions its integer-bound analysis proves (`passes/int_bounds.py`):
a loop variable's range, the bound of each scalar assigned from it (through casts), an INDEX
scalar being non-negative. A decided `if` is its kept branch, so what only the other branch
reads is not captured (pypto-lib `decode_fwd.py`: `hca_layer = pl.cast(loop_i * 2 + 3,
pl.INT32)`, `if layer_id >= 3` inside `gate`)."""

from __future__ import annotations

from outline_cases import clean

LAYER_LOOP = """
import pypto.language as pl


@pl.jit.inline
def route(a: pl.Tensor[[64], pl.FP32], out: pl.Tensor[[64], pl.FP32], bias: pl.Tensor[[64], pl.FP32],
          layer: pl.Scalar[pl.INT32]) -> pl.Tensor[[64], pl.FP32]:
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="route"):
        if layer >= 3:
            out[0:16] = pl.add(a[0:16], bias[0:16])
        else:
            out[0:16] = pl.add(a[0:16], 1.0)
    return out


@pl.jit
def entry(a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]],
          bias: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    for i in pl.range(4):
        later: pl.Scalar[pl.INT32] = pl.cast(i * 2 + 3, pl.INT32)
        out = route(a, out, bias, later)
        first: pl.Scalar[pl.INT32] = pl.cast(i * 2 + 2, pl.INT32)
        out = route(a, out, bias, first)
    return out
"""


def test_a_condition_the_loop_range_proves_keeps_one_branch_and_its_captures() -> None:
    r = clean(LAYER_LOOP)
    # `i * 2 + 3 >= 3` for every i in [0, 4): the else branch goes, with the scalar itself
    assert [name for name, _ in r.params("route")] == ["a", "bias", "out"]
    # `i * 2 + 2` is 2 when i is 0: undecided, both branches stay and read the scalar
    assert [name for name, _ in r.params("route_0")] == ["first", "a", "bias", "out"]


def test_an_index_scalar_is_never_negative() -> None:
    r = clean("""
import pypto.language as pl


@pl.jit
def entry(a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]],
          bias: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INDEX], k: pl.Scalar[pl.INT32]) -> pl.Tensor[[64], pl.FP32]:
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="index"):
        if n < 0:
            out[0:16] = pl.add(a[0:16], bias[0:16])
        else:
            out[0:16] = pl.add(a[0:16], 1.0)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="signed"):
        if k < 0:
            out[16:32] = pl.add(a[16:32], bias[16:32])
        else:
            out[16:32] = pl.add(a[16:32], 1.0)
    return out
""")
    assert [name for name, _ in r.params("index")] == ["a", "out"]
    assert [name for name, _ in r.params("signed")] == ["k", "a", "bias", "out"]
