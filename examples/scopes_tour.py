"""One of each scope construct, as the outlining passes see them.

`pypto-check --show-outlined examples/scopes_tour.py` lists the function every scope becomes.
"""

import pypto.language as pl

LAYERS = 4
ROWS = 64
COLS = 128


@pl.program
class Tour:
    @pl.function
    def hierarchy(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        # pl.at at any level but CORE_GROUP: an Opaque function tagged with level and role.
        with pl.at(level=pl.Level.POD, role=pl.Role.Orchestrator):
            y = pl.add(x, x)
            with pl.at(level=pl.Level.HOST):
                z = pl.mul(y, y)
        with pl.at(level=pl.Level.CHIP):
            w = pl.add(z, x)
        return w

    @pl.function(type=pl.FunctionType.Orchestration)
    def graph(
        self,
        w: pl.Tensor[[256, COLS], pl.FP32],
        acc: pl.InOut[pl.Tensor[[ROWS, COLS], pl.FP32]],
    ) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        # pl.graph: a recordable orchestration fragment; the InCore scope inside it is outlined
        # from the Graph function it becomes.
        for i in pl.range(LAYERS):
            with pl.graph("band"):
                base = i * ROWS
                with pl.at(level=pl.Level.CORE_GROUP):
                    pl.set_cache_policy(w, pl.CachePolicy.BYPASS)
                    b = pl.load(w, [base, 0], [ROWS, COLS])
                    c = pl.load(acc, [0, 0], [ROWS, COLS])
                    pl.store(pl.add(c, b), [0, 0], acc)
        return acc

    @pl.function(type=pl.FunctionType.Orchestration)
    def spmd(
        self,
        a: pl.Tensor[[512, COLS], pl.FP32],
        out: pl.Out[pl.Tensor[[512, COLS], pl.FP32]],
    ) -> pl.Tensor[[512, COLS], pl.FP32]:
        # for ... in pl.spmd: an InCore kernel plus the Spmd launch wrapper that calls it.
        for i in pl.spmd(4, name_hint="proj"):
            t = pl.load(a, [i * COLS, 0], [COLS, COLS])
            out = pl.store(t, [i * COLS, 0], out)
        return out

    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[ROWS, COLS], pl.FP32],
        out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    ) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        t = pl.load(a, [0, 0], [ROWS, COLS])
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def cluster(
        self,
        a: pl.Tensor[[ROWS, COLS], pl.FP32],
        out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]],
    ) -> pl.Tensor[[ROWS, COLS], pl.FP32]:
        # pl.cluster: a co-scheduled Group; the callee's Out slot makes `out` Out.
        with pl.cluster():
            out = self.kernel(a, out)
        return out
