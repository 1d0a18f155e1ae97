# ruff: noqa  (DSL test data: unused names and nested withs are what the samples exercise)
# A jit entry with its sub-functions (printer round-trip sample).
import pypto.language as pl


@pl.jit.incore
def scale(x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
    t = pl.load(x, [0], [64])
    out = pl.store(pl.mul(t, 2.0), [0], out)
    return out


@pl.jit
def entry(x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
    out = scale(x, out)
    return out
