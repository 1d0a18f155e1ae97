"""Behaviour of compiler changes merged after the e2d0f78 snapshot (21 Aug 2026) that the
analysis follows; each test names the hw-native-sys/pypto pull request it pins. What we do per
pull request is listed in docs/compatibility.md ("Compiler state targeted").
"""

from __future__ import annotations

from reference_util import clean, outline

from pypto_core.analysis import analyse_source, outlined_program_text
from pypto_core.diagnostics import Diagnostic, Severity
from pypto_core.ir import Level, Role

from markers import extract

HEADER = "import pypto.language as pl\n\n"
T = "pl.Tensor[[512, 128], pl.FP32]"


# --- pl.constexpr parameters (#2759 / #2764 / #2772 / #2784) -----------------------------------


def test_constexpr_unroll_bound_is_compile_time_and_no_parameter_of_the_kernel() -> None:
    """#2764: a `pl.constexpr` value is folded into the body at every use, so `pl.unroll(BLOCK)`
    has a compile-time bound (no PTO192) and the outlined kernel does not take BLOCK."""
    r = clean(f"""
        import pypto.language as pl

        @pl.jit
        def kernel(x: {T}, out: pl.Out[{T}], BLOCK: pl.constexpr):
            with pl.at(level=pl.Level.CORE_GROUP):
                for i in pl.unroll(BLOCK):
                    t = pl.load(x, [i * 128, 0], [128, 128])
                    out = pl.store(t, [i * 128, 0], out)
            return out
        """)
    [kernel] = r.fns.values()
    assert "BLOCK" not in kernel.param_names
    assert sorted(kernel.params) == [("out", "Out"), ("x", "In")]
    assert "BLOCK" not in kernel.call.args


def test_constexpr_parameter_leaves_the_program_and_dispatch_abi() -> None:
    """#2764: the parameter reaches neither the generated program nor the dispatch ABI: the
    jit entry's own signature has no BLOCK, and reading it in a shape is no capture."""
    r = clean(f"""
        import pypto.language as pl

        @pl.jit
        def entry(a: {T}, out: pl.Out[{T}], scale: pl.Scalar[pl.FP32], BLOCK: pl.constexpr):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [BLOCK, 128])
                t = pl.mul(t, scale)
                out = pl.store(t, [0, 0], out)
            return out
        """)
    assert [p.var.base_name for p in r.function("entry").params] == ["a", "out", "scale"]
    [kernel] = r.fns.values()
    assert sorted(kernel.param_names) == ["a", "out", "scale"]


def test_constexpr_shadows_a_module_constant_of_its_name() -> None:
    """The call site supplies the value (#2764), so a module constant of the same name is not
    what the body reads: the extent stays symbolic instead of folding to the module's 64."""
    r = clean(f"""
        import pypto.language as pl

        BLOCK = 64

        @pl.jit
        def kernel(x: {T}, out: pl.Out[{T}], BLOCK: pl.constexpr):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0, 0], [BLOCK, 128])
                out = pl.store(t, [0, 0], out)
            return out
        """)
    [kernel] = r.fns.values()
    printed = outlined_program_text(r.analysis)
    assert "[64, 128]" not in printed and "BLOCK" in printed
    assert "BLOCK" not in kernel.param_names


def test_a_dependency_called_with_a_constexpr_argument_drops_it_at_the_call() -> None:
    """#2772: `helper(a, out, 16)` becomes `self.helper(a, out)`, positionally or by keyword;
    the dep's signature has no N."""
    r = clean(f"""
        import pypto.language as pl

        @pl.jit.incore
        def helper(a: {T}, out: pl.Out[{T}], N: pl.constexpr):
            t = pl.load(a, [0, 0], [N, N])
            out = pl.store(t, [0, 0], out)
            return out

        @pl.jit
        def entry(a: {T}, out: pl.Out[{T}]):
            out = helper(a, out, 16)
            out = helper(a, out, N=32)
            return out
        """)
    assert [p.var.base_name for p in r.function("helper").params] == ["a", "out"]
    printed = outlined_program_text(r.analysis)
    # the second `out = ...` of the entry binds `out_v2` (the specialiser's renames, `jit_renames`)
    assert "out_v1 = self.helper(a, out)\n" in printed and "out_v2 = self.helper(a, out_v1)\n" in printed


def test_an_inline_helper_with_a_constexpr_parameter_splices_without_an_arity_error() -> None:
    """A constexpr argument of an inline helper is not one of the spliced parameters: no
    PTO413, and its scope captures only the tensors."""
    r = clean(f"""
        import pypto.language as pl

        @pl.jit.inline
        def tile_copy(a: {T}, out: pl.Out[{T}], M: pl.constexpr):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(a, [0, 0], [M, 128])
                out = pl.store(t, [0, 0], out)
            return out

        @pl.jit
        def entry(a: {T}, out: pl.Out[{T}]):
            out = tile_copy(a, out, 8)
            return out
        """)
    [kernel] = r.fns.values()
    assert sorted(kernel.params) == [("a", "In"), ("out", "Out")]


def test_a_scalar_parameter_used_as_an_unroll_bound_is_still_pto192() -> None:
    """#2758: an ordinary `pl.Scalar` parameter is a runtime value, so it is no compile-time
    bound; `pl.constexpr` is the spelling that is."""
    r = outline(f"""
        import pypto.language as pl

        @pl.jit
        def kernel(x: {T}, out: pl.Out[{T}], n: pl.Scalar[pl.INDEX]):
            with pl.at(level=pl.Level.CORE_GROUP):
                for i in pl.unroll(n):
                    t = pl.load(x, [i * 128, 0], [128, 128])
                    out = pl.store(t, [i * 128, 0], out)
            return out
        """)
    assert r.errors == ["PTO192"]


# --- deps= on pl.spmd inside pl.cluster() (#2593) ------------------------------------------------

EXPERT = f"""
    @pl.function(type=pl.FunctionType.InCore)
    def expert(self, x: {T}, out: pl.Out[{T}]) -> {T}:
        t = pl.load(x, [0, 0], [128, 128])
        out = pl.store(t, [0, 0], out)
        return out
"""


def _after_a_producer(launches: str) -> str:
    """A program whose `main` first runs a scope captured `as t0`, then `launches` (written at
    8 spaces), and returns `out`."""
    return (
        HEADER
        + "@pl.program\nclass P:\n"
        + EXPERT
        + f"""
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {T}, out: pl.Out[{T}]) -> {T}:
        with pl.at(level=pl.Level.CORE_GROUP) as t0:
            t = pl.load(x, [0, 0], [128, 128])
            x = pl.store(t, [0, 0], x)
{launches.rstrip()}
        return out
"""
    )


def _cluster_program(spmd_line: str) -> str:
    return _after_a_producer(f"""
        with pl.cluster():
            {spmd_line}
                out = self.expert(x, out)
""")


def test_spmd_deps_inside_a_cluster_is_pto164_at_the_keyword() -> None:
    """#2593: a cluster-nested pl.spmd is unwrapped into the Group function and never becomes
    a task, so its deps= would be lost: rejected, pointing at `deps=...`, with the enclosing
    cluster as related information and the compiler's advice as hint."""
    marked = extract(_cluster_program("with pl.spmd(4, [|deps=[t0]|]):"))
    analysis = analyse_source(marked.text)
    [diag] = [d for d in analysis.diagnostics if d.code == "PTO164"]
    assert diag.span == marked.range
    assert "cannot be nested inside `pl.cluster()`" in diag.message
    assert diag.hint is not None and diag.hint.startswith("Drop the `pl.cluster()` wrapper")
    assert [r.message for r in diag.related] == ["the enclosing pl.cluster() region"]


def test_the_group_function_does_not_take_the_rejected_taskid() -> None:
    """The rejected deps= are not read by the Group function: no TaskId `In` parameter."""
    r = outline(_cluster_program("with pl.spmd(4, deps=[t0]):"))
    assert r.errors == ["PTO164"]
    [group] = [o for o in r.fns.values() if o.function_type == "Group"]
    assert sorted(group.params) == [("out", "Out"), ("x", "In")]


def test_spmd_deps_on_every_standalone_form_is_accepted() -> None:
    """#2593: deps= is accepted on the dispatch form, the inline-body form and the loop form,
    not only with `as tid`; each becomes a dispatch waiting on the TaskId."""
    r = clean(
        _after_a_producer("""
        with pl.spmd(4, deps=[t0]):
            out = self.expert(x, out)
        with pl.spmd(4, deps=[t0], name_hint="body"):
            i = pl.tile.get_block_idx()
            t = pl.load(x, [i * 128, 0], [128, 128])
            out = pl.store(t, [i * 128, 0], out)
        for j in pl.spmd(4, deps=[t0], name_hint="loop"):
            t = pl.load(x, [j * 128, 0], [128, 128])
            out = pl.store(t, [j * 128, 0], out)
""")
    )
    spmd_calls = [o.call.text for o in r.fns.values() if o.function_type == "Spmd"]
    assert len(spmd_calls) == 3
    assert all("deps=[t0]" in text for text in spmd_calls), spmd_calls


def test_empty_deps_inside_a_cluster_is_accepted() -> None:
    """Only a dependency-bearing pl.spmd is rejected: `deps=[]` carries no edge."""
    r = outline(_cluster_program("with pl.spmd(4, deps=[]):"))
    assert "PTO164" not in r.errors


# --- InParamWritten: an In parameter its own body writes (#2457) --------------------------------

V = "pl.Tensor[[64, 128], pl.FP32]"


def _warnings(members: str) -> list[Diagnostic]:
    return [d for d in outline(members).analysis.diagnostics if d.code == "PTO165"]


def test_an_in_parameter_stored_to_is_warned_at_the_store_naming_the_operator() -> None:
    """#2457: the write comes from tile.store's declared registry effect; the body never reads
    `out` (returning it moves no data), so the hint suggests pl.Out."""
    marked = extract(
        HEADER
        + f"""@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: {V}, {{|param:out: {V}|}}) -> {V}:
        t = pl.load(x, [0, 0], [64, 128])
        out = [|pl.store(t, [0, 0], out)|]
        return out
"""
    )
    [warning] = [d for d in analyse_source(marked.text).diagnostics if d.code == "PTO165"]
    assert warning.severity is Severity.WARNING and warning.span == marked.range
    assert warning.message.startswith(
        "parameter 'out' of function 'k' is declared In but is written by operator 'tile.store'"
    )
    assert warning.hint is not None and "here pl.Out" in warning.hint
    assert [r.span for r in warning.related] == [marked.named["param"]]


def test_an_in_parameter_read_and_written_through_a_loop_carry_suggests_inout() -> None:
    [warning] = _warnings(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: {V}, acc: {V}) -> {V}:
            for i in pl.range(2):
                t = pl.load(acc, [0, 0], [64, 128])
                acc = pl.store(pl.add(t, pl.load(x, [0, 0], [64, 128])), [0, 0], acc)
            return acc
        """)
    assert warning.data["direction"] == "InOut"


def test_an_in_parameter_handed_to_a_callee_out_slot_names_the_callee() -> None:
    """#2457's second source of writes: a callee's declared Out/InOut parameter."""
    [warning] = _warnings(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def fill(self, x: {V}, out: pl.Out[{V}]) -> {V}:
            out = pl.store(pl.load(x, [0, 0], [64, 128]), [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Opaque)
        def stage(self, x: {V}, buf: {V}) -> {V}:
            buf = self.fill(x, buf)
            return buf
        """)
    assert "written by 'fill', which declares that parameter Out or InOut" in warning.message


def test_orchestration_outlined_and_declared_parameters_are_not_warned() -> None:
    """The host ABI (Orchestration) is the user's declaration, an outlined function's
    directions are inferred, and Out/InOut or scalar parameters make no claim to contradict."""
    assert (
        _warnings(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, x: {V}, out: pl.Out[{V}], n: pl.Scalar[pl.INDEX]) -> {V}:
            out = pl.store(pl.load(x, [n, 0], [64, 128]), [0, 0], out)
            return out

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: {V}, out: {V}) -> {V}:
            out = self.k(x, out, 0)
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0, 0], [64, 128])
                out = pl.store(t, [0, 0], out)
            return out
        """)
        == []
    )


# --- per-argument write effects of the op registry (#2454) ------------------------------------


def test_mscatter_lifts_its_output_tensor_like_store() -> None:
    """#2454's standing example: pl.store and pl.mscatter differ only in their write op and
    must derive the same direction; ops.py declares the registry's effect on argument 2."""
    for write in ("out = pl.store(t, [0, 0], out)", "out = pl.tile.mscatter(t, idx, out)"):
        r = clean(f"""
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: {V}, ix: pl.Tensor[[64, 128], pl.INT32], out: pl.Out[{V}]) -> {V}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.load(x, [0, 0], [64, 128])
                    idx = pl.load(ix, [0, 0], [64, 128])
                    {write}
                return out
            """)
        [kernel] = r.fns.values()
        assert kernel.direction("out") == "Out", write


# --- @pl.jit.graph (#2583) ---------------------------------------------------------------------


def test_a_jit_graph_dependency_is_a_chip_orchestrator_graph_whose_scopes_are_outlined() -> None:
    """#2583: `@pl.jit.graph` emits `@pl.function(type=pl.FunctionType.Graph)`; the marker
    survives outlining as a CHIP-level Orchestrator Graph function, and a `pl.at` inside it is
    outlined with it as the parent."""
    r = clean(f"""
        import pypto.language as pl

        @pl.jit.graph
        def band(x: {V}, acc: pl.InOut[{V}]):
            with pl.at(level=pl.Level.CORE_GROUP):
                a = pl.load(acc, [0, 0], [64, 128])
                acc = pl.store(pl.add(a, pl.load(x, [0, 0], [64, 128])), [0, 0], acc)
            return acc

        @pl.jit
        def entry(x: {V}, acc: pl.InOut[{V}]):
            for k in pl.range(4):
                acc = band(x, acc)
            return acc
        """)
    graph = r.function("band")
    assert (graph.type.value, graph.level, graph.role) == ("Graph", Level.CHIP, Role.Orchestrator)
    [kernel] = r.fns.values()
    assert (kernel.parent, sorted(kernel.params)) == ("band", [("acc", "InOut"), ("x", "In")])
