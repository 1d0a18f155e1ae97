"""PTO166-PTO169: the parser's rules for `pld.system.world_size()` and window-buffer
allocations, each at the call (or argument) responsible."""

from __future__ import annotations

import pytest
from outline_cases import run

HOST = "@pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)"


@pytest.mark.parametrize(
    ("decorator", "body", "level"),
    [
        ("@pl.function", "n = [|pld.world_size()|]", "None"),
        (HOST, "with pl.at(level=pl.Level.CORE_GROUP):\n    n = [|pld.system.world_size()|]", "Level.HOST"),
        ("@pl.function", "buf = [|pld.alloc_window_buffer(64)|]", "None"),
        (HOST, "with pl.spmd(2):\n    buf = [|pld.tensor.alloc_window_buffer(64)|]", "Level.HOST"),
    ],
)
def test_a_host_only_op_outside_host_orchestration_code_is_pto166(
    decorator: str, body: str, level: str
) -> None:
    r = run(
        f"{decorator}\ndef main(self):\n"
        + "\n".join("    " + line for line in body.splitlines())
        + "\n    return 0"
    )
    d = r.only("PTO166")
    assert d.span == r.range()
    assert "can only be called in HOST orchestration context" in d.message and d.message.endswith(level)


@pytest.mark.parametrize(
    ("statement", "fragment"),
    [
        ("[|pld.alloc_window_buffer(64)|]", "RHS of a simple assignment"),
        ("a, b = [|pld.alloc_window_buffer(64)|], 0", "RHS of a simple assignment"),
        ("n = pl.add([|pld.alloc_window_buffer(64)|], 1)", "RHS of a simple assignment"),
        ("buf = pld.alloc_window_buffer(64, [|name='b'|])", "'name' kwarg cannot be passed explicitly"),
    ],
)
def test_an_allocation_not_bound_to_a_plain_name_by_the_parser_is_pto167(
    statement: str, fragment: str
) -> None:
    r = run(f"{HOST}\ndef main(self):\n    {statement}\n    return 0")
    d = r.only("PTO167")
    assert d.span == r.range() and fragment in d.message


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        (
            "pld.alloc_window_buffer(64, [|dtype=pl.FP32|])",
            "dtype= is only valid when the first argument is a shape",
        ),
        ("[|pld.alloc_window_buffer([4, 8])|]", "requires dtype="),
        ("pld.alloc_window_buffer([|[]|], dtype=pl.FP32)", "shape must be non-empty"),
        ("pld.alloc_window_buffer([4, [|ROWS - 16|]], dtype=pl.FP32)", "shape dimension[1] is 0"),
        ("pld.alloc_window_buffer([[|-2|]], dtype=pl.FP32)", "shape dimension[0] is -2"),
    ],
)
def test_size_shape_and_dtype_the_dsl_function_rejects_are_pto169(value: str, fragment: str) -> None:
    r = run(f"ROWS = 16\n\n{HOST}\ndef main(self):\n    buf = {value}\n    return buf")
    d = r.only("PTO169")
    assert d.span == r.range() and fragment in d.message


def test_a_buffer_name_declared_in_two_functions_is_pto168_at_the_second() -> None:
    r = run(f"""
        {HOST}
        def first(self):
            buf = {{|one:pld.alloc_window_buffer(64)|}}
            return buf

        {HOST}
        def second(self):
            other = pld.alloc_window_buffer(64)
            buf = {{|two:pld.alloc_window_buffer(128)|}}
            return buf
        """)
    d = r.only("PTO168")
    assert d.span == r.range("two") and "name 'buf' is already declared in this program" in d.message
    assert [rel.span for rel in d.related] == [r.range("one")]


def test_allocations_and_world_size_in_host_orchestration_code_are_accepted() -> None:
    r = run(f"""
        {HOST}
        def main(self):
            a = pld.alloc_window_buffer(256 * 4)
            b: pl.Ptr = pld.tensor.alloc_window_buffer([ROWS, 8], dtype=pl.INT32)
            for r in pl.range(pld.world_size()):
                n = pld.system.world_size()
            return 0
        """)
    assert r.errors == []
