"""A small PyPTO kernel: run `pypto-check --show-outlined examples/quickstart.py`.

It shows the InCore functions the two `pl.at` scopes become, and one user error (PTO301): a
scalar read from device memory inside a scope cannot be returned to the caller.
"""

import pypto.language as pl

ROWS = 64


@pl.program
class Quickstart:
    @pl.function
    def main(
        self,
        x: pl.Tensor[[128, 64], pl.FP32],
        base: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[128, 64], pl.FP32]],
    ) -> pl.Tensor[[128, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            off = base * ROWS
            t = pl.load(x, [off, 0], [ROWS, 64])
            e = pl.exp(t)
            pl.store(e, [off, 0], out)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="tail"):
            u = pl.load(x, [off, 0], [ROWS, 64])
            out = pl.store(pl.neg(u), [0, 0], out)
        return out


@pl.program
class ReadBack:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        cfg: pl.Tensor[[1], pl.INT32],
        acc: pl.InOut[pl.Tensor[[64, 128], pl.FP32]],
    ) -> pl.Tensor[[64, 128], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            n = pl.read(cfg, [0])
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="apply"):
            row = pl.load(acc, [n, 0], [1, 128])
            acc = pl.store(pl.exp(row), [n, 0], acc)
        return acc
