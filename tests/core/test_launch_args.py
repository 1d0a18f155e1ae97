"""PTO177/PTO178 (and PTO152 for a launch's block count): the parser's rules for
`pl.submit(self.k, ...)` and `pl.spmd_submit(self.k, ..., core_num=N)`, each at the call,
target or keyword responsible."""

from __future__ import annotations

import pytest
from outline_cases import T64, run

KERNEL = f"""
@pl.function(type=pl.FunctionType.InCore)
def k(self, x: {T64}, out: pl.Out[{T64}]) -> {T64}:
    return out
"""


def _main(statement: str) -> str:
    return (
        KERNEL
        + "\n@pl.function(type=pl.FunctionType.Orchestration)\n"
        + f"def main(self, x: {T64}, out: pl.Out[{T64}], f: pl.Scalar[pl.FP32]) -> {T64}:\n"
        + "    with pl.manual_scope():\n"
        + f"        {statement}\n"
        + "    return out\n"
    )


@pytest.mark.parametrize(
    ("statement", "code", "fragment"),
    [
        ("[|pl.submit(self.k, x, out)|]", "PTO177", "must be unpacked as a 2-tuple"),
        ("y = pl.add([|pl.spmd_submit(self.k, x, out, core_num=2)|], 1.0)", "PTO177", "core_num=N)`"),
        (
            "out, tid, extra = pl.submit(self.k, x, out)",
            "PTO177",
            "exactly 2 targets (result, task_id), got 3",
        ),
        ("(a, (b, c)), tid = pl.submit(self.k, x, out)", "PTO177", "no nested tuples), got '(b, c)'"),
        ("out, t[0] = pl.submit(self.k, x, out)", "PTO177", "task_id target must be a plain variable name"),
        ("out, tid = [|pl.spmd_submit(self.k, x, out)|]", "PTO178", "requires the core_num keyword argument"),
        ("out, tid = pl.submit([|self.k(x, out)|])", "PTO178", "first argument must be a `self.<kernel>`"),
        (
            "out, tid = pl.spmd_submit(self.k, x, out, core_num=4, sync_start=[|1|])",
            "PTO178",
            "sync_start must be a boolean literal",
        ),
        (
            "out, tid = pl.submit(self.k, x, out, allow_early_resolve=[|'yes'|])",
            "PTO178",
            "'k' allow_early_resolve must be a boolean literal",
        ),
        ("out, tid = pl.spmd_submit(self.k, x, out, core_num=[|0|])", "PTO152", "positive integer, got 0"),
        (
            "out, tid = pl.spmd_submit(self.k, x, out, core_num=[|f|])",
            "PTO152",
            "integer expression, got FP32",
        ),
    ],
)
def test_launch_rules(statement: str, code: str, fragment: str) -> None:
    r = run(_main(statement))
    d = r.only(code)
    assert fragment in d.message
    if r.marked.ranges:
        assert d.span == r.range()


def test_a_target_problem_is_reported_at_the_target() -> None:
    r = run(_main("{|target:(a, (b, c)), tid|} = pl.submit(self.k, x, out)"))
    assert r.only("PTO177").span == r.range("target")


def test_the_launch_forms_the_parser_takes_are_accepted() -> None:
    r = run(
        KERNEL
        + f"""
@pl.function(type=pl.FunctionType.Orchestration)
def main(self, x: {T64}, out: pl.Out[{T64}], n: pl.Scalar[pl.INDEX]) -> {T64}:
    with pl.manual_scope():
        out, tid = pl.submit(self.k, x, out, allow_early_resolve=True)
        res = pl.submit(self.k, x, out, deps=[tid])
        out, tid2 = pl.spmd_submit(self.k, x, out, core_num=n, sync_start=False, deps=[tid])
        (o,), tid3 = pl.spmd_submit(self.k, x, out, core_num=4)
    return out
"""
    )
    assert r.errors == []
