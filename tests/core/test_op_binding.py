"""PTO202: a `pld.*` op call whose arguments do not bind to the op function's parameters,
reported as the compiler's parser does (Python's TypeError under the op's name), at the call."""

from __future__ import annotations

import pytest
from outline_cases import run

from pypto_core.dsl_surface import binding_problem

HOST = """
        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host_orch(self):
            buf = pld.alloc_window_buffer(8)
            {|call:CALL|}
            return 0
"""


def _host(call: str) -> str:
    return (
        "import pypto.language as pl\nimport pypto.language.distributed as pld\n\n\n@pl.program\nclass P:"
        + (HOST.replace("CALL", call))
    )


@pytest.mark.parametrize(
    ("call", "problem"),
    [
        ("n = pld.world_size(4)", "world_size() takes 0 positional arguments but 1 was given"),
        ("d = pld.window(buf, dtype=pl.FP32)", "window() missing 1 required positional argument: 'shape'"),
        ("d = pld.window(buf, [8])", "window() missing 1 required keyword-only argument: 'dtype'"),
        (
            "d = pld.tensor.window(buf, [8], dtype=pl.FP32, memory=1)",
            "window() got an unexpected keyword argument 'memory'",
        ),
    ],
)
def test_a_pld_call_that_does_not_bind_is_pto202_at_the_call(call: str, problem: str) -> None:
    r = run(_host(call))
    d = r.only("PTO202")
    assert d.span.start_line == r.range("call").start_line and d.message.endswith(problem)
    assert d.hint is not None and d.hint.startswith("pld.") and "(" in d.hint  # the op's signature


def test_a_pld_call_that_binds_is_accepted() -> None:
    r = run(_host("d = pld.window(buf, [8], dtype=pl.FP32, attrs={'k': 1})"))
    assert "PTO202" not in r.codes


def test_binding_follows_python_for_defaults_and_repeated_names() -> None:
    assert binding_problem("pld.tile.remote_load", 6, []) == (
        "remote_load() takes from 4 to 5 positional arguments but 6 were given"
    )
    assert binding_problem("pld.tile.remote_load", 4, ["target"]) == (
        "remote_load() got multiple values for argument 'target'"
    )
    assert binding_problem("pld.tile.remote_load", 1, []) == (
        "remote_load() missing 3 required positional arguments: 'peer', 'offsets' and 'shape'"
    )
    assert binding_problem("pld.tile.remote_load", 4, ["valid_shape"]) is None
    assert binding_problem("pld.no_such_op", 9, ["x"]) is None  # unknown ops are never an error (D13)


KERNEL = """\
import pypto.language as pl


@pl.jit
def entry(x: pl.Tensor[[64, 128], pl.FP32], y: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy"):
        {|call:CALL|}
        pl.store(t, [0, 0], y)
    return y
"""


@pytest.mark.parametrize(
    ("call", "message"),
    [
        # the compiler (e2d0f78, the oracle) on this code: its parser's InvalidOperationError
        (
            "t = pl.load(x, [0, 0], [64, 128], valid_shapes=[64, 128])",
            "pl operation 'load': load() got an unexpected keyword argument 'valid_shapes'",
        ),
        (
            "t = pl.tile.load(x, [0, 0], [64, 128], memory=pl.MemorySpace.Vec)",
            "pl.tile operation 'load': load() got an unexpected keyword argument 'memory'",
        ),
    ],
)
def test_a_keyword_a_pl_op_does_not_take_is_pto202_at_the_call(call: str, message: str) -> None:
    r = run(KERNEL.replace("CALL", call))
    d = r.only("PTO202")
    assert d.span.start_line == r.range("call").start_line and d.message == message
    assert d.hint is not None and "valid_shape: Sequence[IntLike]" in d.hint


@pytest.mark.parametrize(
    "call",
    [
        "t = pl.load(x, [0, 0], [64, 128], valid_shape=[64, 128], attrs={'k': 1})",
        # positional arguments the parser rewrites, and ops it parses itself, are not checked
        "t = pl.load(x, [0, 0])",
        "t = pl.aiv_shard(pl.load(x, [0, 0], [64, 128]), split=1)",
    ],
)
def test_a_pl_op_call_is_checked_only_for_its_keywords(call: str) -> None:
    assert "PTO202" not in run(KERNEL.replace("CALL", call)).codes
