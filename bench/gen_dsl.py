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
        for i in pl.spmd(4, name_hint="proj{n}"):
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


# -- real-shaped jit programs ---------------------------------------------------------------------
# A pypto-lib model file is one `@pl.jit` entry calling tens of `@pl.jit.inline` helpers and
# `@pl.jit.incore` kernels: one program of thousands of lines, in which helpers reuse the same
# local names and `name_hint`s (so outlined names collide across functions) and some helpers
# are spliced twice.

JIT_HEADER = """import pypto.language as pl

ROWS = 64
COLS = 128
TILES = 4

"""

JIT_KERNEL = """
@pl.jit.incore
def kernel{n}(
    a: pl.Tensor[[256, COLS], pl.FP32],
    out: pl.Out[pl.Tensor[[256, COLS], pl.FP32]],
) -> pl.Tensor[[256, COLS], pl.FP32]:
    for i in pl.range(TILES):
        t = pl.load(a, [i * ROWS, 0], [ROWS, COLS])
        u = pl.mul(t, t)
        out = pl.store(pl.add(u, t), [i * ROWS, 0], out)
    return out
"""

JIT_HELPER = """
@pl.jit.inline
def helper{n}(
    x: pl.Tensor[[256, COLS], pl.FP32],
    acc: pl.Tensor[[ROWS, COLS], pl.FP32],
    out: pl.Tensor[[256, COLS], pl.FP32],
    base: pl.Scalar[pl.INDEX],
) -> pl.Tensor[[256, COLS], pl.FP32]:
    # the same local names in every helper, and the name_hint "tile" in all of them and
    # twice in each: outlined names collide across functions
    off = base * ROWS
    scratch = pl.create_tensor([ROWS, COLS], dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj{n}"):
        t = pl.load(x, [off, 0], [ROWS, COLS])
        s = pl.load(acc, [0, 0], [ROWS, COLS])
        scratch = pl.store(pl.add(t, s), [0, 0], scratch)
    for i in pl.range(TILES):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="tile"):
            a = pl.load(x, [i * ROWS, 0], [ROWS, COLS])
            b = pl.load(scratch, [0, 0], [ROWS, COLS])
            c = pl.mul(a, b)
            out = pl.store(pl.exp(c), [i * ROWS, 0], out)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="norm{n}"):
        u = pl.load(out, [off, 0], [ROWS, COLS])
        v = pl.neg(u)
        w = pl.add(u, v)
        out = pl.store(w, [off, 0], out)
    for j in pl.spmd(2, name_hint="spread{n}"):
        p = pl.load(x, [j * ROWS, 0], [ROWS, COLS])
        out = pl.store(pl.add(p, p), [j * ROWS, 0], out)
    with pl.at(level=pl.Level.CORE_GROUP):
        q = pl.load(out, [0, 0], [ROWS, COLS])
        r = pl.load(acc, [0, 0], [ROWS, COLS])
        q2 = pl.sub(q, r)
        q3 = pl.mul(q2, q2)
        out = pl.store(q3, [0, 0], out)
    for k in pl.range(2):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="tile"):
            e = pl.load(out, [k * ROWS, 0], [ROWS, COLS])
            f = pl.load(x, [k * ROWS, 0], [ROWS, COLS])
            g = pl.add(e, f)
            h = pl.mul(g, e)
            out = pl.store(h, [k * ROWS, 0], out)
    if base > 2:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="edge{n}"):
            m = pl.load(acc, [0, 0], [ROWS, COLS])
            n2 = pl.load(out, [off, 0], [ROWS, COLS])
            out = pl.store(pl.add(m, n2), [off, 0], out)
    for r0 in pl.range(TILES):
        for r1 in pl.range(2):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="grid{n}"):
                y0 = pl.load(x, [r0 * ROWS, 0], [ROWS, COLS])
                y1 = pl.load(acc, [0, 0], [ROWS, COLS])
                y2 = pl.add(y0, y1)
                out = pl.store(y2, [r0 * ROWS, 0], out)
    return out
"""

JIT_ENTRY_HEAD = """
@pl.jit
def entry(
    x: pl.Tensor[[256, COLS], pl.FP32],
    acc: pl.InOut[pl.Tensor[[ROWS, COLS], pl.FP32]],
    out: pl.Out[pl.Tensor[[256, COLS], pl.FP32]],
    base: pl.Scalar[pl.INDEX],
) -> pl.Tensor[[256, COLS], pl.FP32]:
    mid = pl.create_tensor([256, COLS], dtype=pl.FP32)
"""

JIT_ENTRY_TAIL = """    with pl.at(level=pl.Level.CORE_GROUP, name_hint="finish"):
        z = pl.load(mid, [0, 0], [ROWS, COLS])
        out = pl.store(z, [0, 0], out)
    return out
"""

# kernels per helper: one kernel follows every KERNEL_EVERY-th helper
KERNEL_EVERY = 3


def generate_jit(lines: int = 2_000) -> str:
    """One `@pl.jit` program of roughly `lines` lines (never fewer): inline helpers and incore
    kernels, defined before the entry that calls them all, every third helper twice."""
    helper, kernel = JIT_HELPER.count("\n"), JIT_KERNEL.count("\n")
    fixed = JIT_HEADER.count("\n") + JIT_ENTRY_HEAD.count("\n") + JIT_ENTRY_TAIL.count("\n")
    helpers = 1
    while fixed + helpers * (helper + 2) + (helpers // KERNEL_EVERY) * (kernel + 1) < lines:
        helpers += 1
    parts = [JIT_HEADER]
    calls = []
    for n in range(helpers):
        parts.append(JIT_HELPER.format(n=n))
        times = 2 if n % 3 == 0 else 1
        calls += [f"    mid = helper{n}(x, acc, mid, base + {k})\n" for k in range(times)]
        if n % KERNEL_EVERY == KERNEL_EVERY - 1:
            parts.append(JIT_KERNEL.format(n=n))
            calls.append(f"    mid = kernel{n}(x, mid)\n")
    parts += [JIT_ENTRY_HEAD, *calls, JIT_ENTRY_TAIL]
    return "".join(parts)


ONE_SCOPE_PROGRAM = """
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.add(x, x)
        return y
"""
ONE_SCOPE_ANCHOR = "y = pl.add(x, x)"  # the program's one statement in its scope


def with_one_program(module_code: str) -> str:
    """The DSL import, `module_code` (module-level lines) and a program with one scope: a
    file whose analysis costs what the module code costs (`bench_constants.py`, odd inputs)."""
    return "import pypto.language as pl\n" + module_code + ONE_SCOPE_PROGRAM


def constant_chain(count: int) -> str:
    """`count` module constants, each its own unit and each read by the next (issue 20)."""
    return "".join(f"C{i} = {i} * 2 + C{i - 1}\n" if i else "C0 = 1\n" for i in range(count))
