# ruff: noqa  (DSL test data: unused names and nested withs are what the samples exercise)
# Every scope construct and launch surface (printer round-trip sample).
import pypto.language as pl


@pl.program
class Scopes:
    @pl.function(type=pl.FunctionType.InCore)
    def kern(
        self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        t = pl.load(a, [0, 0], [64, 64])
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration, auto_scope=False)
    def orch(
        self,
        a: pl.Tensor[[64, 64], pl.FP32],
        b: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
        n: pl.Scalar[pl.INDEX],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(
            level=pl.Level.CORE_GROUP,
            optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=4)],
            name_hint="first",
        ):
            t = pl.load(a, [0, 0], [64, 64])
            pl.store(t, [0, 0], out)
        with pl.at(
            level=pl.Level.CORE_GROUP,
            deps=[],
            dumps=[a],
            no_dep_args=[b],
            allow_early_resolve=True,
            windowize=True,
        ) as tid:
            u = pl.load(b, [0, 0], [64, 64])
            out = pl.store(u, [0, 0], out)
        with pl.at(level=pl.Level.CORE_GROUP, deps=[tid]) as tid2:
            pl.set_cache_policy(a, pl.CachePolicy.BYPASS)
            v = pl.load(a, [0, 0], [64, 64])
            pl.store(v, [0, 0], out, atomic=pl.AtomicType.Add)
        with pl.spmd(4):
            out = self.kern(a, out)
        with pl.spmd(n, sync_start=True, name_hint="wide"):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="wide_body"):
                bi = pl.tile.get_block_idx()
                w = pl.load(a, [bi * 16, 0], [16, 64])
                pl.store(w, [bi * 16, 0], out)
        with pl.spmd(2, deps=[tid2]) as tid3:
            out = self.kern(b, out)
        with pl.cluster(name_hint="grp"):
            out = self.kern(a, out)
        with pl.scope():
            out = self.kern(b, out)
        with pl.scope(mode=pl.ScopeMode.MANUAL):
            out, t4 = pl.submit(self.kern, a, out, deps=[tid3])
            out, t5 = pl.spmd_submit(self.kern, b, out, core_num=4, deps=[t4])
        return out

    @pl.function
    def split(
        self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
                t = pl.load(a, [0, aiv_id * 32], [64, 32])
                pl.store(t, [0, aiv_id * 32], out)
        with pl.at(level=pl.Level.HOST, role=pl.Role.Orchestrator, name_hint="host_side"):
            with pl.at(level=pl.Level.CHIP):
                out = self.kern(a, out)
        return out

    @pl.function
    def tagged(
        self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]
    ) -> pl.Tensor[[64], pl.FP32]:
        pl.dump_tag(a)
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0], [64])
            out = pl.store(t, [0], out)
        with pl.at(level=pl.Level.CORE_GROUP, dumps=[out]):
            t2 = pl.load(a, [0], [64])
            out = pl.store(t2, [0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def desugared(
        self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP) as t0:
            x = pl.load(a, [0, 0], [16, 64])
            pl.store(x, [0, 0], out)
        with pl.spmd(4, deps=[t0], name_hint="inl") as tid:
            b = pl.tile.get_block_idx()
            t = pl.load(a, [b * 16, 0], [16, 64])
            pl.store(t, [b * 16, 0], out)
        for i in pl.spmd(4, name_hint="lp", optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            u = pl.load(a, [i * 16, 0], [16, 64])
            out = pl.store(u, [i * 16, 0], out)
        for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            v = pl.load(a, [aiv * 32, 0], [32, 64])
            pl.store(v, [aiv * 32, 0], out)
        with pl.spmd(4, predicate=(a[0, 0] > 0)):
            out = self.kern(a, out)
        return out
