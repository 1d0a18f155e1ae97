# ruff: noqa  (DSL test data: unused names and nested withs are what the samples exercise)
# Expression forms: unpacking, subscripts, scalar arithmetic, casts (printer round-trip sample).
import pypto.language as pl


@pl.program
class Exprs:
    @pl.function(type=pl.FunctionType.InCore)
    def pair(
        self, a: pl.Tensor[[64, 64], pl.FP32]
    ) -> tuple[pl.Tensor[[64, 64], pl.FP32], pl.Scalar[pl.INDEX]]:
        return a, 3

    @pl.function
    def main(
        self,
        a: pl.Tensor[[64, 64], pl.FP32],
        s: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        t, k = self.pair(a)
        x = (s + 1) * (s - 2) // 3 % 5
        y = -x
        z = not (x < y)
        f = pl.cast(s, pl.FP32) / 2.5
        v = pl.read(a, [0, 0])
        c = pl.const(7, pl.INT32)
        with pl.at(level=pl.Level.CORE_GROUP):
            tile = pl.load(t, [k, 0], [16, 64])
            acc = pl.create_tile([16, 64], dtype=pl.FP32)
            acc = pl.add(acc, tile)
            out = pl.store(acc, [x, 0], out)
        out[0:16, 0:64] = t[16:32, 0:64]
        return out
