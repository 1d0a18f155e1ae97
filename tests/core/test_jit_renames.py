"""A jit body is built with the names the compiler's specialiser gives its variables
(`frontend/jit_renames.py`): a name rebound at the depth of its first binding is `x_v1`, `x_v2`,
..., and the outlined parameters, call sites and returns carry those names. Each expectation
here is what the compiler (e2d0f78, run as the oracle on the same fixture) outlines."""

from __future__ import annotations

from outline_cases import clean
from test_analysis_incremental import full

from pypto_core.analysis import DocumentAnalyzer, analyse_source

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


def test_a_parameter_rebound_in_the_body_is_renamed() -> None:
    r = clean(
        _entry("""\
    x = pl.reshape(x, [64, 128])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="read_param"):
        t = pl.load(x, [0, 0], [64, 128])
        pl.store(t, [0, 0], y)
""")
    )
    assert r.params("read_param") == [("x_v1", "In"), ("y", "Out")]


def test_a_rebinding_deeper_down_keeps_the_current_name() -> None:
    """`acc` first bound at depth 0 and rebound in a loop body is the loop's carry, not renamed."""
    r = clean(
        _entry("""\
    acc = pl.create_tensor([64, 128], dtype=pl.FP32)
    for i in pl.range(2):
        acc = scale(x, acc)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="after_loop"):
        t = pl.load(acc, [0, 0], [64, 128])
        pl.store(t, [0, 0], y)
""")
    )
    assert r.params("after_loop") == [("acc", "In"), ("y", "Out")]


def test_a_name_the_function_binds_is_skipped() -> None:
    r = clean(
        _entry("""\
    buf = pl.create_tensor([64, 128], dtype=pl.FP32)
    buf_v1 = pl.create_tensor([64, 128], dtype=pl.FP32)
    buf = scale(x, buf)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="skips_taken"):
        t = pl.load(buf, [0, 0], [64, 128])
        pl.store(t, [0, 0], y)
""")
    )
    assert r.params("skips_taken") == [("buf_v2", "In"), ("y", "Out")]


def test_a_sibling_loop_reading_a_name_first_is_bridged_and_carries_the_new_name() -> None:
    """`acc` bound by both branches at depth 1, then read before written in a loop body at
    depth 1: a bridge `acc_v1 = acc` before the loop, which carries `acc_v1`."""
    r = clean(
        _entry(
            """\
    if n > 0:
        acc = pl.create_tensor([64, 128], dtype=pl.FP32)
    else:
        acc = pl.create_tensor([64, 128], dtype=pl.FP32)
    for j in pl.range(2):
        acc = scale(acc, acc)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="after_bridge"):
        t = pl.load(acc, [0, 0], [64, 128])
        pl.store(t, [0, 0], y)
""",
            ", n: pl.Scalar[pl.INDEX]",
        )
    )
    assert r.params("after_bridge") == [("acc_v1", "In"), ("y", "Out")]
    [program] = r.analysis.programs
    entry = program.source.get("entry")
    bridge = entry.body[1]
    assert (bridge.target.name, bridge.value.name) == ("acc_v1", "acc")


def test_a_sibling_loop_writing_a_name_first_binds_it_afresh() -> None:
    """`tmp` renamed in the first loop, written before read in the second: forgotten, the
    second loop's `tmp` is `tmp` again."""
    r = clean(
        _entry("""\
    for i in pl.range(2):
        tmp = pl.create_tensor([64, 128], dtype=pl.FP32)
        tmp = scale(x, tmp)
    for j in pl.range(2):
        tmp = pl.create_tensor([64, 128], dtype=pl.FP32)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="fresh_local"):
            t = pl.load(x, [0, 0], [64, 128])
            pl.store(t, [0, 0], tmp)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="reads_fresh"):
            u = pl.load(tmp, [0, 0], [64, 128])
            pl.store(u, [0, 0], y)
""")
    )
    assert r.params("fresh_local") == [("x", "In"), ("tmp", "Out")]
    assert r.params("reads_fresh") == [("tmp", "In"), ("y", "Out")]


def test_an_else_branch_does_not_rename_what_the_then_branch_bound_but_skips_its_names() -> None:
    r = clean(
        _entry("""\
    for i in pl.range(2):
        if i == 0:
            t = pl.create_tensor([64, 128], dtype=pl.FP32)
            t = scale(x, t)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="then_side"):
                a = pl.load(t, [0, 0], [64, 128])
                pl.store(a, [0, 0], y)
        else:
            t = pl.create_tensor([64, 128], dtype=pl.FP32)
            t = scale(x, t)
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="else_side"):
                b = pl.load(t, [0, 0], [64, 128])
                pl.store(b, [0, 0], y)
""")
    )
    assert r.params("then_side") == [("t_v1", "In"), ("y", "Out")]
    assert r.params("else_side") == [("t_v2", "In"), ("y", "Out")]


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
    analyzer = DocumentAnalyzer()
    text = REBOUND
    analyzer.update(text)
    names = []
    for edit in RENAME_EDITS:
        edited = edit(text)
        assert edited != text
        after = analyzer.update(edited)
        assert full(after) == full(analyse_source(edited))
        names.append([p.name for r in after.outlined if r.name == "copy_out" for p in r.params])
        assert full(analyzer.update(text)) == full(analyse_source(text))  # and undone
    assert names[0][0] == "buf_v2" and names[1][0] == "buf" and names[2][0] == "buf"
    assert names[3][0] == "buf_v2"
