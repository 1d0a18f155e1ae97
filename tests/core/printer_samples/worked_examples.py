# ruff: noqa  (DSL test data: unused names and nested withs are what the samples exercise)
# The worked examples of dsl-reference §6, as one module (printer round-trip sample).
import pypto.language as pl


@pl.program
class Ex1:
    @pl.function
    def main(
        self,
        x: pl.Tensor[[128, 64], pl.FP32],
        base: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[128, 64], pl.FP32]],
    ) -> pl.Tensor[[128, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            off = base * 64
            t = pl.load(x, [off, 0], [64, 64])
            e = pl.exp(t)
            pl.store(e, [off, 0], out)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="tail"):
            u = pl.load(x, [off, 0], [64, 64])
            out = pl.store(pl.neg(u), [0, 0], out)
        return out


@pl.program
class Ex2:
    @pl.function
    def k(
        self,
        a: pl.Tensor[[256, 128], pl.FP32],
        acc: pl.InOut[pl.Tensor[[64, 128], pl.FP32]],
        out: pl.Out[pl.Tensor[[256, 128], pl.FP32]],
    ) -> pl.Tensor[[256, 128], pl.FP32]:
        for i in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [i * 64, 0], [64, 128])
                s = pl.load(acc, [0, 0], [64, 128])
                pl.store(pl.add(t, s), [0, 0], acc)
                pl.store(pl.mul(t, 2.0), [i * 64, 0], out)
        return out


@pl.program
class Ex3:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.POD, role=pl.Role.Orchestrator):
            y = pl.add(x, x)
            with pl.at(level=pl.Level.HOST):
                z = pl.mul(y, y)
        with pl.at(level=pl.Level.CHIP):
            w = pl.add(z, x)
        return w


@pl.program
class Ex4:
    @pl.function(type=pl.FunctionType.Orchestration)
    def a_main(
        self, a: pl.Tensor[[512, 128], pl.FP32], out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]
    ) -> pl.Tensor[[512, 128], pl.FP32]:
        for i in pl.spmd(4, name_hint="proj"):
            t = pl.load(a, [i * 128, 0], [128, 128])
            out = pl.store(t, [i * 128, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def b_main(
        self, a: pl.Tensor[[512, 128], pl.FP32], out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]
    ) -> pl.Tensor[[512, 128], pl.FP32]:
        for i in pl.spmd(4, name_hint="proj"):
            t = pl.load(a, [i * 128, 0], [128, 128])
            out = pl.store(t, [i * 128, 0], out)
        return out


@pl.program
class Ex5:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        w: pl.Tensor[[256, 128], pl.FP32],
        cfg: pl.Tensor[[1], pl.INT32],
        acc: pl.InOut[pl.Tensor[[64, 128], pl.FP32]],
    ) -> pl.Tensor[[64, 128], pl.FP32]:
        for i in pl.range(4):
            with pl.graph("band"):
                base = i * 64
                with pl.at(level=pl.Level.CORE_GROUP):
                    pl.set_cache_policy(w, pl.CachePolicy.BYPASS)
                    b = pl.load(w, [base, 0], [64, 128])
                    c = pl.load(acc, [0, 0], [64, 128])
                    pl.store(pl.add(c, b), [0, 0], acc)
        with pl.at(level=pl.Level.CORE_GROUP):
            n = pl.read(cfg, [0])
        m = n + 1
        return acc
