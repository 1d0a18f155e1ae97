"""Generated DSL files of a chosen size, for the benchmarks.

Each program exercises the paths the analysis spends time on: an InCore scope with a scalar
hoist, a scope inside a loop (carry threading), a named scope, a hierarchy scope and an spmd
loop. About 45 lines per program.
"""

from __future__ import annotations

HEADER = """import pypto.language as pl

ROWS = 64
COLS = 128

"""

PROGRAM = """
@pl.program
class Prog{n}:
    @pl.function
    def main(
        self,
        x: pl.Tensor[[256, COLS], pl.FP32],
        base: pl.Scalar[pl.INDEX],
        acc: pl.InOut[pl.Tensor[[ROWS, COLS], pl.FP32]],
        out: pl.Out[pl.Tensor[[256, COLS], pl.FP32]],
    ) -> pl.Tensor[[256, COLS], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            off = base * ROWS
            t = pl.load(x, [off, 0], [ROWS, COLS])
            pl.store(pl.exp(t), [off, 0], out)
        for i in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                a = pl.load(x, [i * ROWS, 0], [ROWS, COLS])
                s = pl.load(acc, [0, 0], [ROWS, COLS])
                pl.store(pl.add(a, s), [0, 0], acc)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="tail{n}"):
            u = pl.load(x, [off, 0], [ROWS, COLS])
            out = pl.store(pl.neg(u), [0, 0], out)
        with pl.at(level=pl.Level.HOST):
            v = pl.add(x, x)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def spread(
        self,
        a: pl.Tensor[[512, COLS], pl.FP32],
        out: pl.Out[pl.Tensor[[512, COLS], pl.FP32]],
    ) -> pl.Tensor[[512, COLS], pl.FP32]:
        for i in pl.spmd(4, name_hint="proj"):
            t = pl.load(a, [i * COLS, 0], [COLS, COLS])
            out = pl.store(t, [i * COLS, 0], out)
        return out
"""


def generate(lines: int) -> str:
    """A DSL module of roughly `lines` lines (never fewer)."""
    parts = [HEADER]
    total = HEADER.count("\n")
    n = 0
    while total < lines:
        chunk = PROGRAM.format(n=n)
        parts.append(chunk)
        total += chunk.count("\n")
        n += 1
    return "".join(parts)


def program_count(lines: int) -> int:
    return generate(lines).count("@pl.program")
