"""The worked examples of dsl-reference §6 as marked test sources (`${name}` points,
`{|name:...|}` ranges; the DSL import is prepended by `open_doc`)."""

EXAMPLE_1 = """
@pl.program
class Ex1:
    @pl.function
    def main(self, x: pl.Tensor[[128, 64], pl.FP32], base: pl.Scalar[pl.INDEX],
             out: pl.Out[pl.Tensor[[128, 64], pl.FP32]]) -> pl.Tensor[[128, 64], pl.FP32]:
        w${with_keyword}ith {|first:p${first}l.at(level=pl.Level.CORE_GROUP)|}:${first_end}
            off = base * 64
            t = pl.load(x, [off, 0], [64, 64])
            e = pl.exp(t)
            pl.store(e, [off, 0], out)
        with {|tail:pl.at(level=pl.Level.CORE_GROUP, name_hint={|hint:"ta${hint}il"|})|}:${tail_end}
            u = pl.load(x, [off, 0], [64, 64])
            out = pl.store(pl.neg(u), [0, 0], out)
        return out
"""

EXAMPLE_2 = """
@pl.program
class Ex2:
    @pl.function
    def k(self, a: pl.Tensor[[256, 128], pl.FP32], acc: pl.InOut[pl.Tensor[[64, 128], pl.FP32]],
          out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        for i in pl.range(4):
            with {|scope:pl.at(level=pl.Level.CORE_GROUP)|}:
                t = pl.load(${a}a, [i * 64, 0], [64, 128])
                s = pl.load(a${acc}cc, [0, 0], [64, 128])
                pl.store(pl.add(t, s), [0, 0], acc)
                pl.store(pl.mul(${t}t, 2.0), [i * 64, 0], ${out}out)
        return out
"""

EXAMPLE_3 = """
@pl.program
class Ex3:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        with {|outer:pl.at(level=pl.Level.POD, role=pl.Role.Orchestrator)|}:
            y = pl.add(x, x)
            with {|inner:pl.at(level=pl.Level.HOST)|}:
                z = pl.mul(y, y)
        with {|chip:pl.at(level=pl.Level.CHIP)|}:
            w = pl.add(z, x)
        return w
"""

EXAMPLE_4 = """
@pl.program
class Ex4:
    @pl.function(type=pl.FunctionType.Orchestration)
    def a_main(self, a: pl.Tensor[[512, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
        for i in {|a_spmd:pl.s${a_spmd}pmd(4, name_hint="proj")|}:
            t = pl.load(a, [i * 128, 0], [128, 128])
            out = pl.store(t, [i * 128, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def b_main(self, a: pl.Tensor[[512, 128], pl.FP32],
               out: pl.Out[pl.Tensor[[512, 128], pl.FP32]]) -> pl.Tensor[[512, 128], pl.FP32]:
        for i in {|b_spmd:pl.spmd(4, name_hint="proj")|}:
            t = pl.load(a, [i * 128, 0], [128, 128])
            out = pl.store(t, [i * 128, 0], out)
        return out
"""

EXAMPLE_5_GRAPH = """
@pl.program
class Ex5:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, w: pl.Tensor[[256, 128], pl.FP32],
             acc: pl.InOut[pl.Tensor[[64, 128], pl.FP32]]) -> pl.Tensor[[64, 128], pl.FP32]:
        for i in pl.range(4):
            with {|band:pl.graph({|name:"b${band}and"|})|}:
                base = i * 64
                with {|incore:pl.at(level=pl.Level.CORE_GROUP)|}:
                    pl.set_cache_policy(w, pl.CachePolicy.BYPASS)
                    b = pl.load(w, [base, 0], [64, 128])
                    c = pl.load(acc, [0, 0], [64, 128])
                    pl.store(pl.add(c, b), [0, 0], acc)
        return acc
"""

KERNEL_CALLS = """
@pl.program
class Calls:
    @pl.function(type=pl.FunctionType.InCore)
    def {|def:kernel|}(self, a: pl.Tensor[[64], pl.FP32],
               out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(a, [0], [64])
        out = pl.store(t, [0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: pl.Tensor[[64], pl.FP32],
             out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        out = self.{|call1:ker${call}nel|}(a, out)
        out = self.{|call2:kernel|}(a, out)
        return out
"""

JIT_CALLS = """
@pl.jit.incore
def {|def:kernel|}(a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
    t = pl.load(a, [0], [64])
    out = pl.store(t, [0], out)
    return out


@pl.jit
def entry(a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
    out = {|call:ker${call}nel|}(a, out)
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0], [64])
        out = pl.store(t, [0], out)
    return out
"""

# The shape of a real decode file: an inline helper holding the scopes, reached from two jit
# entries that pass their own variables (`cur`, `h`) for its parameter `hidden_states`; the
# second entry also captures one tensor more.
SHARED_HELPER = """
@pl.jit.inline
def rms_block(hidden_states: pl.Tensor[[16, 64], pl.FP32], inv_rms: pl.Tensor[[16, 1], pl.FP32], extra: pl.Tensor[[16, 64], pl.FP32], wide: pl.Scalar[pl.INDEX]):
    with {|recip:p${recip}l.at(level=pl.Level.CORE_GROUP, name_hint="rms_recip")|}:
        sq = pl.mul(${hidden}hidden_states, hidden_states)
        inv_rms = pl.assemble(${inv}inv_rms, pl.row_sum(sq), [0, 0])
        if wide > 1:
            inv_rms = pl.assemble(inv_rms, pl.row_sum(extra), [0, 0])
    return inv_rms


@pl.jit
def decode(cur: pl.Tensor[[16, 64], pl.FP32], inv: pl.Out[pl.Tensor[[16, 1], pl.FP32]]):
    inv = rms_block(cur, inv, cur, 1)
    return inv


@pl.jit
def decode_layers(h: pl.Tensor[[16, 64], pl.FP32], e: pl.Tensor[[16, 64], pl.FP32], inv: pl.Out[pl.Tensor[[16, 1], pl.FP32]], n: pl.Scalar[pl.INDEX]):
    inv = rms_block(h, inv, e, n)
    return inv
"""

# A helper whose scope one entry reaches three times: three functions (`stage`, `stage_0`, ...).
THRICE = """
@pl.jit.inline
def step(x: pl.Tensor[[16, 64], pl.FP32], o: pl.Tensor[[16, 64], pl.FP32]):
    with {|stage:pl.at(level=pl.Level.CORE_GROUP, name_hint="stage")|}:
        o = pl.assemble(o, pl.add(x, x), [0, 0])
    return o


@pl.jit
def entry(x: pl.Tensor[[16, 64], pl.FP32], o: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    o = step(x, o)
    o = step(x, o)
    o = step(x, o)
    return o
"""


# a kernel and a caller with a scope, the cursor line `${end}` after them (completion and
# signature help type there)
KERNEL_AND_CALLER = """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        t = pl.load(a, [0], [64])
        out = pl.store(t, [0], out)
        return out

    @pl.function
    def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(a, [0], [64])
            out = pl.store(t, [0], out)
        out = self.kernel(a, out)
        return out
${end}"""

# Example 2 with every captured variable's occurrence marked (highlights, semantic tokens)
CAPTURES = """
@pl.program
class P:
    @pl.function
    def k(self, a: pl.Tensor[[256, 128], pl.FP32], acc: pl.InOut[pl.Tensor[[64, 128], pl.FP32]],
          out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]) -> pl.Tensor[[256, 128], pl.FP32]:
        for i in pl.range(4):
            with pl.at(level=pl.Level.CORE_GROUP):
                t${t} = pl.load({|a:a|}, [{|i:i|} * 64, 0], [64, 128])
                s = pl.load({|acc1:a${acc}cc|}, [0, 0], [64, 128])
                pl.store(pl.add(t, s), [0, 0], {|acc2:acc|})
                pl.store(pl.mul(t, 2.0), [{|i2:i|} * 64, 0], {|out:o${out}ut|})
        return out
"""
