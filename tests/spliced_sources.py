"""A helper module whose inline helper's body has an error only a caller shows (PTO301: a
scalar read on the device, used after its scope), and a model that imports and calls it.
Written for the tests of diagnostics across files (CLI and server)."""

LEAKY_HELPER = """\
import pypto.language as pl


@pl.jit.inline
def leaky(x: pl.Tensor, out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="leak"):
        t = pl.load(x, [0, 0], [32, 32])
        s = pl.tensor.read(x, [0, 0])
        out = pl.store(t, [0, 0], out)
    for i in pl.range(s):
        out = pl.add(out, out)
    return out
"""

LEAKY_CALLER = """\
import pypto.language as pl
from helpers import leaky


@pl.jit
def entry(x: pl.Tensor[[32, 32], pl.FP32], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]):
    out = leaky(x, out)
    return out
"""
