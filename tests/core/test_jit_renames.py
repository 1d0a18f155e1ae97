"""A jit body is built with the names the compiler's specialiser gives its variables
(`frontend/jit_renames.py`): a name rebound at the depth of its first binding is `x_v1`, `x_v2`,
..., and the outlined parameters, call sites and returns carry those names. Each expectation
here is what the compiler (e2d0f78, run as the oracle on the same fixture) outlines."""

from __future__ import annotations

import pytest
from outline_cases import clean
from test_analysis_incremental import each_edit_then_undone

T = "pl.Tensor[[64, 128], pl.FP32]"
HEADER = f"""\
import pypto.language as pl


@pl.jit.incore
def scale(x: {T}, out: pl.Out[{T}]):
    t = pl.load(x, [0, 0], [64, 128])
    pl.store(pl.mul(t, 2.0), [0, 0], out)
    return out
"""


def _entry(body: str, extra: str = "") -> str:
    return HEADER + f"\n\n@pl.jit\ndef entry(x: {T}, y: pl.Out[{T}]{extra}):\n" + body + "    return y\n"


REBOUND = _entry("""\
    buf = pl.create_tensor([64, 128], dtype=pl.FP32)
    buf = scale(x, buf)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy_out"):
        t = pl.load(buf, [0, 0], [64, 128])
        t = pl.add(t, t)
        pl.store(t, [0, 0], y)
""")


def test_a_name_rebound_at_its_depth_is_renamed_and_the_scope_reads_the_new_name() -> None:
    r = clean(REBOUND)
    assert r.params("copy_out") == [("buf_v1", "In"), ("y", "Out")]
    assert r.call("copy_out") == "y = self.copy_out(buf_v1, y)"
    body = r.function("copy_out").body
    # inside the scope too: the second `t = ...` is `t_v1`
    assert [s.target.base_name for s in body if hasattr(s, "target")][:2] == ["t", "t_v1"]


def _scope(name: str, reads: str, writes: str = "y") -> str:
    """A scope `name` copying `reads` into `writes` (each case ends with one or two)."""
    return (
        f'    with pl.at(level=pl.Level.CORE_GROUP, name_hint="{name}"):\n'
        f"        t = pl.load({reads}, [0, 0], [64, 128])\n"
        f"        pl.store(t, [0, 0], {writes})\n"
    )


def _indented(text: str, levels: int) -> str:
    return "".join("    " * levels + line if line.strip() else line for line in text.splitlines(True))


# (body, the parameters the compiler's specialised program gives each scope)
CASES = {
    "a parameter rebound in the body": (
        "    x = pl.reshape(x, [64, 128])\n" + _scope("read_param", "x"),
        {"read_param": [("x_v1", "In"), ("y", "Out")]},
    ),
    "a rebinding deeper down keeps the current name (the loop carries it)": (
        "    acc = pl.create_tensor([64, 128], dtype=pl.FP32)\n"
        "    for i in pl.range(2):\n"
        "        acc = scale(x, acc)\n" + _scope("after_loop", "acc"),
        {"after_loop": [("acc", "In"), ("y", "Out")]},
    ),
    "a name the function binds is skipped": (
        "    buf = pl.create_tensor([64, 128], dtype=pl.FP32)\n"
        "    buf_v1 = pl.create_tensor([64, 128], dtype=pl.FP32)\n"
        "    buf = scale(x, buf)\n" + _scope("skips_taken", "buf"),
        {"skips_taken": [("buf_v2", "In"), ("y", "Out")]},
    ),
    "a sibling loop writing a name first binds it afresh": (
        "    for i in pl.range(2):\n"
        "        tmp = pl.create_tensor([64, 128], dtype=pl.FP32)\n"
        "        tmp = scale(x, tmp)\n"
        "    for j in pl.range(2):\n"
        "        tmp = pl.create_tensor([64, 128], dtype=pl.FP32)\n"
        + _indented(_scope("fresh_local", "x", "tmp") + _scope("reads_fresh", "tmp"), 1),
        {"fresh_local": [("x", "In"), ("tmp", "Out")], "reads_fresh": [("tmp", "In"), ("y", "Out")]},
    ),
    "an else-branch does not rename what the then-branch bound but skips its numbers": (
        "    for i in pl.range(2):\n"
        "        if i == 0:\n"
        "            t = pl.create_tensor([64, 128], dtype=pl.FP32)\n"
        "            t = scale(x, t)\n" + _indented(_scope("then_side", "t"), 2) + "        else:\n"
        "            t = pl.create_tensor([64, 128], dtype=pl.FP32)\n"
        "            t = scale(x, t)\n" + _indented(_scope("else_side", "t"), 2),
        {"then_side": [("t_v1", "In"), ("y", "Out")], "else_side": [("t_v2", "In"), ("y", "Out")]},
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_scopes_read_the_names_the_specialiser_gives(name: str) -> None:
    body, expected = CASES[name]
    r = clean(_entry(body))
    assert {scope: r.params(scope) for scope in expected} == expected


def test_a_sibling_loop_reading_a_name_first_is_bridged_and_carries_the_new_name() -> None:
    """`acc` bound by both branches at depth 1, then read before written in a loop body at
    depth 1: a bridge `acc_v1 = acc` before the loop, which carries `acc_v1`."""
    body = (
        "    if n > 0:\n"
        "        acc = pl.create_tensor([64, 128], dtype=pl.FP32)\n"
        "    else:\n"
        "        acc = pl.create_tensor([64, 128], dtype=pl.FP32)\n"
        "    for j in pl.range(2):\n"
        "        acc = scale(acc, acc)\n" + _scope("after_bridge", "acc")
    )
    r = clean(_entry(body, ", n: pl.Scalar[pl.INDEX]"))
    assert r.params("after_bridge") == [("acc_v1", "In"), ("y", "Out")]
    [program] = r.analysis.programs
    bridge = program.source.get("entry").body[1]
    assert (bridge.target.name, bridge.value.name) == ("acc_v1", "acc")


def test_a_program_is_not_renamed() -> None:
    """Only a jit body goes through the specialiser: a `@pl.program` method keeps its names."""
    r = clean(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {T}, y: pl.Out[{T}]) -> {T}:
            buf = pl.create_tensor([64, 128], dtype=pl.FP32)
            buf = pl.create_tensor([64, 128], dtype=pl.FP32)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy_out"):
                t = pl.load(x, [0, 0], [64, 128])
                buf = pl.store(t, [0, 0], buf)
            return y
        """)
    assert r.params("copy_out") == [("x", "In"), ("buf", "Out")]


# edits that change a rename, each text -> text
RENAME_EDITS = [
    # a third binding of `buf` at its depth: the scope reads `buf_v2`
    lambda t: t.replace("    buf = scale(x, buf)\n", "    buf = scale(x, buf)\n    buf = scale(x, buf)\n"),
    # the rebinding moved into a `with`: deeper, no rename (same line, same text after it)
    lambda t: t.replace(
        "    buf = scale(x, buf)\n",
        "    with pl.at(level=pl.Level.CORE_GROUP):\n        buf = scale(x, buf)\n",
    ),
    # the first binding taken out: `buf = scale(...)` is the first one
    lambda t: t.replace("    buf = pl.create_tensor([64, 128], dtype=pl.FP32)\n", ""),
    # a user name the rename must skip typed into the body
    lambda t: t.replace("        t = pl.add(t, t)\n", "        t = pl.add(t, t)\n        buf_v1 = t\n"),
]


def test_incremental_equals_fresh_after_edits_that_change_a_rename() -> None:
    names = [
        [p.name for r in after.outlined if r.name == "copy_out" for p in r.params]
        for after in each_edit_then_undone(REBOUND, RENAME_EDITS)
    ]
    assert names[0][0] == "buf_v2" and names[1][0] == "buf" and names[2][0] == "buf"
    assert names[3][0] == "buf_v2"
