"""`pl.prefetch.*`: the ops are built as calls with typed results (a `PrefetchAsyncContext`,
an `AsyncEvent`, an `AsyncSession` handle, a BOOL done flag), and their registry's argument
rules are rows of `ops.py` (PTO200): a flat logical-1D source, each handle where its kind is
expected."""

from __future__ import annotations

import pytest
from outline_cases import run

from pypto_core.dsl_surface import Kind, entry
from pypto_core.ir import AssignStmt, HandleType, ScalarType
from pypto_core.printer import print_type

PROGRAM = """
@pl.function(type=pl.FunctionType.InCore)
def main(self, x: pl.Tensor[SHAPE, pl.FP32]) -> pl.Tensor[SHAPE, pl.FP32]:
    ctx = pl.prefetch.make_context()
    evt = pl.prefetch.async_prefetch(x, ctx)
    session = pl.prefetch.session(ctx)
    BODY
    return x
"""


def _run(body: str, shape: str = "[256]"):
    return run(PROGRAM.replace("SHAPE", shape).replace("BODY", body))


def test_a_well_formed_prefetch_sequence_is_taken_and_typed() -> None:
    r = _run("done = pl.prefetch.wait(evt, session)", "[1, 256]")
    assert "PTO200" not in r.errors, r.problems
    main = r.analysis.programs[0].source.get("main")
    assert main is not None
    types = {s.target.name: s.target.type for s in main.body if isinstance(s, AssignStmt)}
    assert types["ctx"] == HandleType("PrefetchAsyncContext")
    assert types["evt"] == HandleType("AsyncEvent")
    assert types["session"] == HandleType("AsyncSession")
    assert types["done"] == ScalarType("BOOL")
    assert print_type(types["ctx"]) == "pl.PrefetchAsyncContext"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "pl.prefetch.wait(evt, {|r:ctx|})",
            "prefetch.wait expects session to be an AsyncSession (output of prefetch.session), "
            "got PrefetchAsyncContextType",
        ),
        (
            "pl.prefetch.wait({|r:session|}, session)",
            "prefetch.wait expects event to be an AsyncEvent (output of prefetch.async_prefetch), "
            "got AsyncSessionType",
        ),
        (
            "pl.prefetch.async_prefetch(x, {|r:evt|})",
            "prefetch.async_prefetch expects ctx to be a PrefetchAsyncContext (output of "
            "prefetch.make_context), got AsyncEventType",
        ),
        (
            "pl.prefetch.session({|r:x|})",
            "prefetch.session expects ctx to be a PrefetchAsyncContext (output of prefetch.make_context), "
            "got TensorType",
        ),
    ],
)
def test_a_handle_of_another_kind_is_pto200_at_the_argument(body: str, message: str) -> None:
    r = _run(body)
    d = r.only("PTO200")
    assert d.span == r.range("r") and d.message == message and d.hint


def test_a_source_that_is_not_flat_is_pto200() -> None:
    r = run(
        """
        @pl.function(type=pl.FunctionType.InCore)
        def main(self, x: pl.Tensor[[1, 4, 32], pl.FP32]) -> pl.Tensor[[1, 4, 32], pl.FP32]:
            ctx = pl.prefetch.make_context()
            pl.prefetch.async_prefetch({|r:x|}, ctx)
            return x
        """
    )
    d = r.only("PTO200")
    assert d.span == r.range("r")
    assert "but dimension 1 is 4; reshape the tensor to [N] or [1, ..., N]" in d.message


@pytest.mark.parametrize("shape", ["[N, 32]", "[1, 1, 64]"])
def test_a_flat_source_or_one_of_unknown_extent_is_taken(shape: str) -> None:
    r = run(
        f"""
        import pypto.language as pl

        N = pl.dynamic("N")


        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def main(self, x: pl.Tensor[{shape}, pl.FP32]) -> pl.Tensor[{shape}, pl.FP32]:
                ctx = pl.prefetch.make_context()
                pl.prefetch.async_prefetch(x, ctx)
                return x
        """
    )
    assert "PTO200" not in r.errors, r.problems


def test_the_prefetch_namespace_is_in_the_dsl_surface_with_the_compilers_parameters() -> None:
    namespace, wait = entry("pl.prefetch"), entry("pl.prefetch.wait")
    assert namespace is not None and namespace.kind is Kind.NAMESPACE
    assert wait is not None and wait.ir_ops == ("prefetch.wait",)
    assert [p.name for p in wait.params] == ["event", "session_handle"]
    handle = entry("pl.PrefetchAsyncContext")
    assert handle is not None and handle.kind is Kind.TYPE
