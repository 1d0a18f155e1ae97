"""Types of scalars, window-bound tensors and tensors sized by variables as the compiler gives
them, in outlined functions' parameters. Every expectation is the compiler's (e2d0f78, the
oracle) on the same code, its variables shown by their base names.

A scalar binary operation promotes as the compiler's `PromoteSameCategoryDtype`: two integers
(or two floats) give the wider, the left one at equal width; a Python integer is an INDEX
constant, so `INT32 + 1` and `pl.max(INT32, 1)` are INDEX (pypto-lib's `active_eff =
pl.max(active, 1)`). A parameter declared `pld.DistributedTensor[...]` stays one. A tensor
created, reshaped or sliced with an extent computed from scalar variables has that extent in
its type (`[t_dim, 64]`), not an unknown shape."""

from __future__ import annotations

from pypto_core.analysis import FileAnalysis, analyse_source

SCALARS = """\
import pypto.language as pl


@pl.jit
def entry(
    counts: pl.Tensor[[4], pl.INT32],
    x: pl.Tensor[[64, 128], pl.FP32],
    y: pl.Out[pl.Tensor[[64, 128], pl.FP32]],
):
    active = pl.read(counts, [0])
    eff = pl.max(active, 1)
    eff2 = pl.min(active, 4)
    eff3 = active + 1
    eff4 = pl.max(active, active)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy"):
        t = pl.load(x, [0, 0], [64, 128], valid_shape=[eff, 128])
        u = pl.load(x, [0, 0], [64, 128], valid_shape=[eff2, 128])
        v = pl.load(x, [0, 0], [64, 128], valid_shape=[eff3, 128])
        w = pl.load(x, [0, 0], [64, 128], valid_shape=[eff4, 128])
        pl.store(pl.add(pl.add(t, u), pl.add(v, w)), [0, 0], y)
    return y
"""

WINDOW = """\
import pypto.language as pl
import pypto.language.distributed as pld


@pl.jit
def entry(
    x: pl.Tensor[[64, 128], pl.FP32],
    win: pld.DistributedTensor[[64, 128], pl.FP32],
    y: pl.Out[pl.Tensor[[64, 128], pl.FP32]],
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy"):
        t = pl.load(win, [0, 0], [64, 128])
        u = pl.load(x, [0, 0], [64, 128])
        pl.store(pl.add(t, u), [0, 0], y)
    return y
"""


def _params(analysis: FileAnalysis) -> list[tuple[str, str]]:
    (record,) = analysis.outlined
    return [(p.name, str(p.type)) for p in record.params]


def test_an_integer_scalar_and_a_literal_promote_to_index() -> None:
    assert _params(analyse_source(SCALARS)) == [
        ("x", "Tensor[[64, 128], FP32]"),
        ("eff", "Scalar[INDEX]"),
        ("eff2", "Scalar[INDEX]"),
        ("eff3", "Scalar[INDEX]"),
        ("eff4", "Scalar[INT32]"),  # two INT32 operands
        ("y", "Tensor[[64, 128], FP32]"),
    ]


def test_a_narrower_left_operand_takes_the_wider_right_one() -> None:
    text = SCALARS.replace(
        "eff4 = pl.max(active, active)", "eff4 = pl.max(active, pl.cast(active, pl.INT64))"
    )
    assert ("eff4", "Scalar[INT64]") in _params(analyse_source(text))


def test_a_distributed_tensor_parameter_keeps_its_type() -> None:
    assert _params(analyse_source(WINDOW)) == [
        ("win", "DistributedTensor[[64, 128], FP32]"),
        ("x", "Tensor[[64, 128], FP32]"),
        ("y", "Tensor[[64, 128], FP32]"),
    ]


SIZED = """\
import pypto.language as pl

T_DYN = pl.dynamic("T_DYN")


@pl.jit.inline
def fill(x: pl.Tensor[[T_DYN, 64], pl.FP32], y: pl.Tensor[[T_DYN, 64], pl.FP32]):
    t_dim = pl.tensor.dim(x, 0)
    tmp = pl.create_tensor([t_dim, 64], dtype=pl.FP32)
    flat = pl.reshape(x, [t_dim * 4, 16])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="a"):
        t = pl.load(x, [0, 0], [16, 64])
        tmp = pl.store(t, [0, 0], tmp)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="b"):
        u = pl.load(tmp, [0, 0], [16, 64])
        v = pl.load(flat, [0, 0], [16, 16])
        y = pl.store(u, [0, 0], y)
    return y


@pl.jit
def entry(x: pl.Tensor[[T_DYN, 64], pl.FP32], y: pl.Out[pl.Tensor[[T_DYN, 64], pl.FP32]]):
    y = fill(x, y)
    return y
"""


def test_a_tensor_sized_by_a_variable_has_the_extent_in_its_type() -> None:
    analysis = analyse_source(SIZED)
    assert [(r.name, [(p.name, str(p.type)) for p in r.params]) for r in analysis.outlined] == [
        ("a", [("x", "Tensor[[T_DYN, 64], FP32]"), ("tmp", "Tensor[[t_dim, 64], FP32]")]),
        (
            "b",
            [
                ("tmp", "Tensor[[t_dim, 64], FP32]"),
                ("flat", "Tensor[[t_dim * 4, 16], FP32]"),
                ("y", "Tensor[[T_DYN, 64], FP32]"),
            ],
        ),
    ]
