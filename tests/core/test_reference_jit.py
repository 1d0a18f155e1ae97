"""`@pl.jit` programs whose kernels come from outlining, checked against the compiler's
hw-native-sys/pypto tests/ut/jit/test_dump_tag_outline.py (the compiler lowers the jit entry
with real tensors; we analyse the same source statically, so bare `pl.Tensor` shapes stay
unknown and only names, directions and dump tags are compared).
"""

from __future__ import annotations

from reference_util import clean, dispatches

from pypto_core.ir import Function

HEADER = "import pypto.language as pl\n\n\n"

ADD_TAGGED = """
@pl.jit.inline
def _add_inline(a: pl.Tensor, c: pl.Tensor):
    pl.dump_tag(a)
    with pl.at(level=pl.Level.CORE_GROUP):
        tile_a = pl.load(a, [0, 0], [128, 128])
        tile_c = pl.add(tile_a, 1.0)
        pl.store(tile_c, [0, 0], c)
    return c
"""

ADD_UNTAGGED = ADD_TAGGED.replace("_add_inline", "_add_inline_untagged").replace("    pl.dump_tag(a)\n", "")

MUL = """
@pl.jit.inline
def _mul_inline(a: pl.Tensor, c: pl.Tensor):
    with pl.at(level=pl.Level.CORE_GROUP):
        tile_a = pl.load(a, [0, 0], [128, 128])
        tile_c = pl.mul(tile_a, 2.0)
        pl.store(tile_c, [0, 0], c)
    return c
"""


def dispatch_dump_tags(fn: Function) -> dict[str, set[str]]:
    """{callee: base names in the dispatch's dump_vars} for every call of a program function."""
    return {
        call.callee or "": {
            getattr(v, "name", str(v)).split("__")[0] for v in call.attrs.get("dump_vars") or []
        }
        for _, call in dispatches(fn)
    }


def test_tags_from_the_entry_and_the_inline_helper_reach_the_one_kernel_that_uses_them() -> None:
    """compiler: test_dump_tag_reaches_outlined_dispatch_single_func."""
    r = clean(
        HEADER
        + ADD_TAGGED
        + MUL
        + """
@pl.jit
def entry(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    intermediate = pl.create_tensor([128, 128], dtype=pl.FP32)
    pl.dump_tag(intermediate)
    intermediate = _add_inline(a, intermediate)
    c = _mul_inline(intermediate, c)
    return c
"""
    )
    assert r.summary() == {
        "entry_incore_0": ("InCore", [("a", "In"), ("intermediate", "Out")], ("intermediate",)),
        # `intermediate = _add_inline(...)` binds `intermediate_v1` (`jit_renames`)
        "entry_incore_1": ("InCore", [("intermediate_v1", "In"), ("c", "Out")], ("c",)),
    }
    assert dispatch_dump_tags(r.function("entry")) == {
        "entry_incore_0": {"a", "intermediate"},
        "entry_incore_1": set(),
    }


def test_tag_on_the_entry_reaches_a_kernel_two_inline_levels_down() -> None:
    """compiler: test_tag_survives_multi_level_inline_passthrough."""
    r = clean(
        HEADER
        + ADD_UNTAGGED
        + """
@pl.jit.inline
def _passthrough_outer(a: pl.Tensor, c: pl.Tensor):
    c = _add_inline_untagged(a, c)
    return c


@pl.jit
def entry(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    pl.dump_tag(a)
    c = _passthrough_outer(a, c)
    return c
"""
    )
    assert r.names == ["entry_incore_0"]
    assert dispatch_dump_tags(r.function("entry")) == {"entry_incore_0": {"a"}}


def test_no_tag_means_no_dispatch_dumps() -> None:
    """compiler: test_no_dump_tag_yields_no_dispatch_dump_vars."""
    r = clean(
        HEADER
        + ADD_UNTAGGED
        + MUL
        + """
@pl.jit
def entry(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    intermediate = pl.create_tensor([128, 128], dtype=pl.FP32)
    intermediate = _add_inline_untagged(a, intermediate)
    c = _mul_inline(intermediate, c)
    return c
"""
    )
    tags = dispatch_dump_tags(r.function("entry"))
    assert set(tags) == {"entry_incore_0", "entry_incore_1"}
    assert all(not t for t in tags.values())


def test_tag_before_an_spmd_loop_reaches_the_kernel_dispatch() -> None:
    """compiler: test_dump_tag_reaches_for_form_spmd_dispatch (IR half; the codegen half is
    past our passes). The tag lands on the inner kernel's dispatch inside the Spmd wrapper."""
    r = clean(
        HEADER
        + """
@pl.jit.inline
def _spmd_for_writeback(a: pl.Tensor[[128, 128], pl.FP32], c: pl.Tensor[[128, 128], pl.FP32]):
    c_view = pl.reshape(c, [128, 128])
    pl.dump_tag(c_view)
    for ob in pl.spmd(2):
        t0 = ob * 64
        c_view[t0 : t0 + 64, 0:128] = pl.add(a[t0 : t0 + 64, 0:128], 1.0)
    c = pl.reshape(c_view, [128, 128])
    return c


@pl.jit
def entry(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    c = _spmd_for_writeback(a, c)
    return c
"""
    )
    [kernel] = [o for o in r.fns.values() if o.kind == "InCore"]
    [wrapper] = [o for o in r.fns.values() if o.kind == "Spmd"]
    assert kernel.parent == wrapper.name
    [tag] = dispatch_dump_tags(r.function(wrapper.name))[kernel.name]
    assert tag.startswith("c_view")  # a helper-local variable keeps its `_inlineN` suffix, as upstream


def test_tag_reaches_the_kernel_dispatched_inside_a_cluster_group() -> None:
    """compiler: test_dump_tag_survives_cluster_group_mixed_split (outlining half: the kernel
    call inside the Group carries the tag; the AIC/AIV split that follows is past our passes)."""
    r = clean(
        HEADER
        + """
@pl.jit.inline
def _cluster_mixed_writeback(a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32], bias: pl.Tensor[[64, 64], pl.FP32], c: pl.Tensor[[64, 64], pl.FP32]):
    pl.dump_tag(a)
    with pl.cluster():
        with pl.at(level=pl.Level.CORE_GROUP):
            mm = pl.matmul(a, b, out_dtype=pl.FP32)
            c = pl.add(mm, bias)
    return c


@pl.jit
def entry(a: pl.Tensor, b: pl.Tensor, bias: pl.Tensor, c: pl.Out[pl.Tensor]):
    c = _cluster_mixed_writeback(a, b, bias, c)
    return c
"""
    )
    [kernel] = [o for o in r.fns.values() if o.kind == "InCore"]
    [group] = [o for o in r.fns.values() if o.kind == "Cluster"]
    assert kernel.parent == group.name
    assert "a" in dispatch_dump_tags(r.function(group.name))[kernel.name]


# --- hw-native-sys/pypto tests/ut/jit/test_spmd.py ----------------------------------------------------


def test_spmd_loop_in_a_jit_entry_becomes_kernel_and_spmd_wrapper() -> None:
    """compiler: test_spmd.py::test_jit_spmd_for_loop."""
    r = clean(
        HEADER
        + """
@pl.jit
def spmd_add(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    for i in pl.spmd(2):
        offset = i * 64
        tile_a = pl.load(a, [offset, 0], [64, 128])
        tile_b = pl.load(b, [offset, 0], [64, 128])
        c = pl.store(pl.add(tile_a, tile_b), [offset, 0], c)
    return c
"""
    )
    assert r.summary() == {
        "spmd_add_incore_0": ("InCore", [("a", "In"), ("b", "In"), ("c", "Out")], ("c",)),
        "spmd_add_spmd_0": ("Spmd", [("a", "In"), ("b", "In"), ("c", "Out")], ("c",)),
    }
    assert r.function_type("spmd_add") == "Orchestration"


def test_spmd_dispatch_of_a_jit_incore_kernel_becomes_an_spmd_wrapper() -> None:
    """compiler: test_spmd.py::test_jit_spmd_with_form."""
    r = clean(
        HEADER
        + """
@pl.jit.incore
def add_kernel(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    tile_a = pl.load(a, [0, 0], [64, 128])
    tile_b = pl.load(b, [0, 0], [64, 128])
    c = pl.store(pl.add(tile_a, tile_b), [0, 0], c)
    return c


@pl.jit
def entry(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.spmd(2):
        c = add_kernel(a, b, c)
    return c
"""
    )
    assert r.summary() == {"entry_spmd_0": ("Spmd", [("a", "In"), ("b", "In"), ("c", "Out")], ("c",))}
    assert r.function_type("add_kernel") == "InCore"


def test_inline_spmd_body_in_a_jit_entry_is_a_plain_dispatch() -> None:
    """compiler: test_spmd.py::test_jit_spmd_inline_with_form_no_tid."""
    r = clean(
        HEADER
        + """
@pl.jit
def entry(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    with pl.spmd(2):
        i = pl.tile.get_block_idx()
        offset = i * 64
        tile_a = pl.load(a, [offset, 0], [64, 128])
        tile_b = pl.load(b, [offset, 0], [64, 128])
        c = pl.store(pl.add(tile_a, tile_b), [offset, 0], c)
    return c
"""
    )
    [wrapper] = [o for o in r.fns.values() if o.kind == "Spmd"]
    assert not wrapper.call.submit
    assert [o.kind for o in r.fns.values()].count("InCore") == 1


def test_spmd_loop_in_an_inline_helper_is_outlined_from_the_entry() -> None:
    """compiler: test_spmd.py::test_jit_inline_helper_spmd_for_loop."""
    r = clean(
        HEADER
        + """
@pl.jit.inline
def spmd_helper(a: pl.Tensor, b: pl.Tensor, c: pl.Tensor):
    for i in pl.spmd(2):
        offset = i * 64
        tile_a = pl.load(a, [offset, 0], [64, 128])
        tile_b = pl.load(b, [offset, 0], [64, 128])
        c = pl.store(pl.add(tile_a, tile_b), [offset, 0], c)
    return c


@pl.jit
def entry(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
    c = spmd_helper(a, b, c)
    return c
"""
    )
    assert sorted(o.kind for o in r.fns.values()) == ["InCore", "Spmd"]
    assert all(o.parent in ("entry", "entry_spmd_0") for o in r.fns.values())
    assert "spmd_helper" not in [f.name for p in r.analysis.programs for f in p.outlined_program.functions]


def test_sibling_pipeline_loops_in_an_spmd_block_may_reuse_loop_local_names() -> None:
    """compiler: test_spmd.py::test_jit_spmd_sibling_pipeline_loops_reuse_names (module
    constants fold statically; the compiler lowers without error, so must we). `out` is written
    through the second loop's carry (lifted off In, docs/compatibility.md) and seeds it (a read)."""
    r = clean(
        """import pypto.language as pl

_BATCH = 16
_HIDDEN = 512
_K_CHUNK = 128
_HALF = _HIDDEN // 2
_CHUNKS = _HALF // _K_CHUNK


@pl.jit.inline
def rmsnorm_like(a: pl.Tensor, out: pl.Tensor):
    for blk in pl.spmd(2):
        base = blk * _HALF
        acc = pl.full([1, _BATCH], dtype=pl.FP32, value=0.0)
        for kb in pl.pipeline(_CHUNKS, stage=2):
            k0 = base + kb * _K_CHUNK
            chunk = pl.cast(a[:, k0 : k0 + _K_CHUNK], target_type=pl.FP32)
            acc = pl.add(acc, pl.reshape(pl.row_sum(pl.mul(chunk, chunk)), [1, _BATCH]))
        for kb in pl.pipeline(_CHUNKS, stage=2):
            k0 = base + kb * _K_CHUNK
            chunk = pl.cast(a[:, k0 : k0 + _K_CHUNK], target_type=pl.FP32)
            out = pl.assemble(out, pl.cast(chunk, target_type=pl.BF16), [0, k0])
    return out


@pl.jit
def entry(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    out = rmsnorm_like(a, out)
    return out
"""
    )
    [wrapper] = [o for o in r.fns.values() if o.kind == "Spmd"]
    assert wrapper.params == (("a", "In"), ("out", "InOut"))


def test_captured_spmd_dispatches_in_a_jit_entry_keep_their_dependency() -> None:
    """compiler: test_spmd.py::test_jit_spmd_with_form_as_tid_captures_and_wires_deps."""
    r = clean(
        HEADER
        + """
@pl.jit
def entry(a: pl.Tensor, out1: pl.Out[pl.Tensor], out2: pl.Out[pl.Tensor]):
    with pl.spmd(2, name_hint="stage1") as tid0:
        i = pl.tile.get_block_idx()
        t = pl.load(a, [i * 64, 0], [64, 128])
        out1 = pl.store(pl.add(t, t), [i * 64, 0], out1)
    with pl.spmd(2, name_hint="stage2", deps=[tid0]) as tid1:
        j = pl.tile.get_block_idx()
        u = pl.load(a, [j * 64, 0], [64, 128])
        out2 = pl.store(pl.add(u, u), [j * 64, 0], out2)
    return out2
"""
    )
    first, second = r.fns["stage1_spmd"], r.fns["stage2_spmd"]
    assert first.call.submit and second.call.submit
    assert "deps" not in first.call.text
    assert "deps=[tid0]" in second.call.text.replace(" ", "")
