# ruff: noqa  (DSL test data: unused names and nested withs are what the samples exercise)
# Loops, ifs and rebinding: what ConvertToSSA versions (printer round-trip sample).
import pypto.language as pl


@pl.program
class ControlFlow:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [64, 64])
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function
    def loops(
        self,
        a: pl.Tensor[[256, 64], pl.FP32],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[256, 64], pl.FP32]],
    ) -> pl.Tensor[[256, 64], pl.FP32]:
        total = 0
        for i in pl.range(4):
            total = total + i
            t = pl.load(a, [i * 64, 0], [64, 64])
            out = pl.store(t, [i * 64, 0], out)
        for j in pl.range(1, n, 2):
            if j > 2:
                total = total * 2
            else:
                total = total - 1
        for k, (s,) in pl.range(8, init_values=(total,)):
            s2 = s + k
            r = pl.yield_(s2)
        for p in pl.parallel(0, 4):
            q = p + r
        for u in pl.unroll(2):
            twice = u * 2
        for v in pl.pipeline(4, stage=2):
            w = v * 3
        for (x,) in pl.while_(init_values=(total,)):
            pl.cond(x < 100)
            y = pl.yield_(x + 1)
        return out

    @pl.function
    def branches(
        self,
        a: pl.Tensor[[64, 64], pl.FP32],
        flag: pl.Scalar[pl.BOOL],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        c = 1
        if flag:
            c = 2
            d = 3
        else:
            d = 4
        if c == 2:
            only_here = c + d
        if flag:
            e = pl.yield_(c)
        else:
            e = pl.yield_(d)
        m = pl.cast(e, pl.INT32)
        out = self.kernel(a, out)
        return out

    @pl.function
    def early_exit(self, n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        acc = 0
        for i in pl.range(n):
            if i == 3:
                break
            if i == 1:
                continue
            acc = acc + i
        return acc

    @pl.function
    def rebinds_an_iter_arg(self, x: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        for i, (acc,) in pl.range(4, init_values=(x,)):
            for j in pl.range(2):
                acc = acc + j
            acc = acc * 2
            r = pl.yield_(acc)
        return r
