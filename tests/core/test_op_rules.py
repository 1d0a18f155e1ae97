"""PTO200 / PTO204: argument rules of the compiler's op registry and DSL wrappers that need an
operand's type (window-bound or not, tile or tensor, dtype, rank), reported at the argument;
and `pld` calls naming no operation."""

from __future__ import annotations

import pytest

from pypto_core.analysis import analyse_source

from markers import extract

HEADER = """import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def main(
        self,
        x: pl.Tensor[[8, 32], pl.FP32],
        flat: pl.Tensor[[256], pl.FP16],
        idx16: pl.Tensor[[16], pl.FP16],
        bt: pl.Tensor[[8], pl.INT32],
        win: pld.DistributedTensor[[8, 32], pl.FP32],
        win16: pld.DistributedTensor[[8, 32], pl.BF16],
        sig: pld.DistributedTensor[[4, 1], pl.INT32],
        fsig: pld.DistributedTensor[[4, 1], pl.FP32],
        n: pl.Scalar[pl.INT32],
        f: pl.Scalar[pl.FP32],
        h: pl.Scalar[pl.FP16],
        mx: pl.Tensor[[16, 8], pl.FP8E8M0, pl.MX_A_ZZ],
        small: pl.Tensor[[16, 8], pl.FP16],
        w16: pld.DistributedTensor[[64, 32], pl.FP16],
    ):
"""


def _found(body: str) -> tuple[list[tuple[str, object, str]], object]:
    marked = extract(HEADER + "".join(f"        {line}\n" for line in body.splitlines()), dedent=False)
    found = [
        (d.code, d.span, d.message) for d in analyse_source(marked.text).diagnostics if d.severity == "error"
    ]
    return found, marked


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("t = pld.tile.remote_load([|x|], n, [0, 0], [8, 32])", "pld.tile.remote_load expects a DistributedTensor target"),
        ("t = pld.tile.remote_load(win, n, [|0|], [8, 32])", "'int' object is not iterable"),
        ("t = pl.load(x, [0, 0], [8, 32])\npld.tile.remote_store(t, [|x|], n, [0, 0])", "got pl.Tensor[[8, 32], pl.FP32]"),
        (
            "t = pld.tile.remote_load(win, n, [0, 0], [8, 32])\npld.tensor.remote_store([|t|], win, n, [0, 0])",
            "pld.tensor.remote_store expects a Tensor src (a tensor-level value); got pl.Tile[[8, 32], pl.FP32]",
        ),
        ("y = pld.tensor.allreduce([|x|], sig)", "pld.tensor.allreduce expects a DistributedTensor target"),
        ("y = pld.tensor.allreduce([|win16|], sig)", "target dtype must be FP16 or FP32, got bfloat16"),
        ("y = pld.tensor.allreduce(win, [|fsig|])", "signal must have INT32 element type (the barrier slot"),
        ("y = pld.tensor.reduce_scatter(win, sig, op=[|pld.ReduceOp.Max|])", "must be ReduceOp.Sum (got int 1)"),
        ("c = pld.get_comm_ctx([|x|])", "get_comm_ctx expects a DistributedTensor (window-bound), got TensorType"),
        ("r = pld.rank([|win|])", "expects a CommCtx (output of pld.system.get_comm_ctx), got DistributedTensorType"),
        ("d = pld.window([|x|], [8], dtype=pl.FP32)", "pld.tensor.window expects a Ptr handle"),
        ("pld.system.defer_wait(sig, offsets=[|[f, 0]|], expected=1, cmp=pld.WaitCmp.Ge)", "offset 0 must be an integer"),
        ("pld.system.defer_wait(sig, offsets=[0, 0], expected=[|f|], cmp=pld.WaitCmp.Ge)", "expected must be an integer"),
        ("pld.system.defer_wait([|x|], offsets=[0, 0], expected=1, cmp=pld.WaitCmp.Ge)", "signal must be a DistributedTensor"),
        ("y = pl.tensor.cast(x, pl.BF16, mode=[|9|])", "Invalid rounding mode 9. Expected int in range [0, 6]."),
        ("y = pl.tensor.cast(x, target_type=pl.BF16, mode=[|'up'|])", "Invalid rounding mode 'up'. Expected one of"),
        ("t = pl.load(x, [0, 0], [8, 32])\ny = pl.load([|t|], [0, 0], [8, 32])", "tile.load requires first argument"),
        ("t = pl.load(x, [0, 0], [8, 32])\ny = pl.store(t, [0, 0], [|t|])", "tile.store requires third argument"),
        ("y = pl.paged_gather([|flat|], bt, bt, block_size=128, size=128, max_indices=16)", "requires 2D src, but got rank 1"),
        ("y = pl.paged_gather(x, [|idx16|], bt, block_size=128, size=128, max_indices=16)", "indices dtype to be INT32, but got fp16"),
        ("y = pl.tensor.gather(x, -1, bt, kvalue=[|f|], cmp_mode='eq', out_cols=8)", "are mutually exclusive"),
        ("t = pl.load(x, [0, 0], [8, 32])\ny = pl.tile.gather_compare(t, [|h|], t, cmp_mode='eq', out_cols=8)", "kvalue dtype equal to src dtype fp32 , but got fp16"),
        ("kv = pl.create_l1([8, 32], pl.BF16)\nkv = pl.gather_row(kv, [|x|], [0, 0], [0, 0], [1, 32])", "share dtype, but got bfloat16 and fp32"),
        ("kv = pl.create_l1([8, 32], pl.FP32)\nkv = pl.gather_row(kv, x, [0, 0], [0, 0], [4, 32], valid_shape=[|[5, 32]|])", "dimension 0 extent 5 provably exceeds physical shape extent 4"),
        ("rows = pl.cast(n, pl.INDEX)\nkv = pl.create_l1([8, 32], pl.FP32)\nkv = pl.gather_row(kv, x, [0, 0], [0, 0], [|[rows, 32]|])", "requires shapes[0] to be a compile-time constant"),
        ("rows = pl.cast(n, pl.INDEX)\nkv = pl.create_l1([8, 32], pl.FP32)\nkv = pl.gather_row(kv, x, [0, 0], [0, 0], [8, 32], valid_shape=[|[rows, 32]|], transpose=True)", "dynamic valid_shape together with transpose=True"),
        ("kv = pl.create_l1([|[8, 0]|], pl.FP32)", "tensor.create_l1 shape element 1 must be a positive compile-time ConstInt"),
        ("t = pl.tile.create([8, 32], dtype=pl.FP32, target_memory=pl.Mem.Vec, transpose=[|True|])", "transpose=true only for a 2D tile with target_memory=Mat"),
        ("s = pl.slice([|mx|], [8, 8], [0, 0])", "tensor.slice does not support MX-layout tensors"),
        ("pld.tensor.remote_store(small, w16, n, [|[56, 0]|])", "push exceeds the peer's target region in dimension 0 (offset=56, extent=16, target_dim=64)"),
        ("y = pl.exp([|f|])", "pl.exp: expected Tensor or Tile, got Scalar"),
        ("y = pl.row_sum([|n|])", "pl.row_sum: expected Tensor or Tile, got Scalar"),
    ],
)  # fmt: skip
def test_an_operand_the_op_rejects_is_pto200_at_the_argument(body: str, message: str) -> None:
    found, marked = _found(body)
    assert [(code, span) for code, span, _ in found] == [("PTO200", marked.range)], found  # type: ignore[attr-defined]
    assert message in found[0][2]


@pytest.mark.parametrize(
    "body",
    [
        "t = pld.tile.remote_load(win, n, [0, 0], [8, 32])",
        "y = pld.tensor.allreduce(win, sig)",
        "y = pld.tensor.reduce_scatter(win, sig, op=pld.ReduceOp.Sum)",
        "c = pld.get_comm_ctx(win)\nr = pld.rank(c)",
        "v = win[0:4, :]\nt = pld.tile.remote_load(v, n, [0, 0], [4, 32])",  # a view: binding not inferred
        "pld.system.defer_wait(sig, offsets=[n, 0], expected=n + 1, cmp=pld.WaitCmp.Ge)",
        "y = pl.tensor.cast(x, pl.BF16, mode='rint')",
        "y = pl.tensor.cast(x, pl.BF16, mode=6)",
        "y = pl.tensor.gather(x, mask_pattern=1)",
        "y = pl.tensor.gather(x, kvalue=f, cmp_mode='eq', out_cols=8)",
        "y = pl.exp(x)",
        "kv = pl.create_l1([8, 32], pl.FP32)\nkv = pl.gather_row(kv, x, [0, 0], [0, 0], [4, 32], valid_shape=[n, 32])",
        "t = pl.tile.create([8, 32], dtype=pl.FP32, target_memory=pl.Mem.Mat, transpose=True)",
        "pld.tensor.remote_store(small, w16, n, [48, 24])",
        "m = pl.max(n, 4)",
    ],
)
def test_an_operand_the_op_takes_is_not_reported(body: str) -> None:
    found, _ = _found(body)
    assert found == []


@pytest.mark.parametrize(
    "call",
    ["[|pld.tile.no_such_op|](win, n)", "[|pld.system.foo|]()", "[|pld.bogus|](win)"],
)
def test_a_pld_call_naming_no_operation_is_pto204(call: str) -> None:
    found, marked = _found(f"y = {call}")
    assert [(code, span) for code, span, _ in found] == [("PTO204", marked.range)]  # type: ignore[attr-defined]
    assert found[0][2].startswith("Unknown distributed operation 'pld.")


def test_a_private_pld_helper_is_not_judged() -> None:
    found, _ = _found(
        "t = pld.tile._remote_load_with_physical_tail_padding(win, n, [0, 0], [8, 32], [8, 30])"
    )
    assert [code for code, _, _ in found if code == "PTO204"] == []


def test_a_parameter_rebinding_a_dynamic_symbol_an_earlier_annotation_read_is_pto205() -> None:
    marked = extract(
        """import pypto.language as pl

VALID = pl.dynamic("VALID")


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self,
        a: pl.Tensor[[16, 64], pl.FP32, pl.TensorView(valid_shape=[16, VALID], layout=pl.TensorLayout.ND)],
        [|VALID: pl.Scalar[pl.INDEX]|],
        b: pl.Tensor[[16, 64], pl.FP32, pl.TensorView(valid_shape=[16, VALID], layout=pl.TensorLayout.ND)],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        return a
""",
        dedent=False,
    )
    found = [(d.code, d.span) for d in analyse_source(marked.text).diagnostics if d.severity == "error"]
    assert found == [("PTO205", marked.range)]


def test_declaring_the_symbol_parameter_first_is_not_pto205() -> None:
    source = """import pypto.language as pl

VALID = pl.dynamic("VALID")


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self,
        VALID: pl.Scalar[pl.INDEX],
        a: pl.Tensor[[16, 64], pl.FP32, pl.TensorView(valid_shape=[16, VALID], layout=pl.TensorLayout.ND)],
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        return a
"""
    assert [d.code for d in analyse_source(source).diagnostics if d.code == "PTO205"] == []


def test_an_aiv_shard_of_a_tensor_is_a_tensor_src() -> None:
    """`pl.aiv_shard(t)` of a tensor is `tensor.aiv_shard`: pushing it with
    `pld.tensor.remote_store` is no tile src (pypto-lib's lm_head.py does)."""
    body = (
        "for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n"
        "    s = pl.aiv_shard(small)\n"
        "    pld.tensor.remote_store(s, w16, n, [0, 0])"
    )
    found, _ = _found(body)
    assert [code for code, _, _ in found if code == "PTO200"] == []


HOST = """import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class P:
    @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
    def host_orch(self):
        data_buf = pld.alloc_window_buffer(256)
        signal_buf = pld.alloc_window_buffer(16)
        data = pld.window(data_buf, [256], dtype=pl.DTYPE)
        signal = pld.window(signal_buf, [4], dtype=pl.INT32)
        pld.tensor.allreduce([|data|], signal, op=pld.ReduceOp.Sum)
        return 0
"""


@pytest.mark.parametrize(("dtype", "reported"), [("BF16", True), ("FP32", False)])
def test_a_pld_window_is_window_bound_with_its_dtype(dtype: str, reported: bool) -> None:
    marked = extract(HOST.replace("DTYPE", dtype), dedent=False)
    found = [
        (d.code, d.span, d.message) for d in analyse_source(marked.text).diagnostics if d.severity == "error"
    ]
    if reported:
        assert [(code, span) for code, span, _ in found] == [("PTO200", marked.range)]
        assert "target dtype must be FP16 or FP32, got bfloat16" in found[0][2]
    else:
        assert found == []
