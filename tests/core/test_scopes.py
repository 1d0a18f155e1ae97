"""Scope constructs -> ScopeStmt shapes, exactly as dsl-reference §2.1 maps them."""

from __future__ import annotations

import pytest
from builder_util import build, expr

from pypto_core import ir
from pypto_core.frontend.dump_tags import apply_dump_tags
from pypto_core.ir import CachePolicy, Level, Role, ScopeKind, SplitMode

KERNEL = """
@pl.function(type=pl.FunctionType.InCore)
def kernel(self, a: T64, out: OUT64) -> T64:
    return out
"""


def main(body: str, *, params: str = "a: T64, out: OUT64", kind: str = "") -> str:
    decorator = f"@pl.function(type=pl.FunctionType.{kind})" if kind else "@pl.function"
    indented = "\n".join("    " + line for line in body.strip("\n").splitlines())
    return f"{KERNEL}\n{decorator}\ndef main(self, {params}) -> T64:\n{indented}\n    return out\n"


def test_pl_at_core_group_is_an_incore_scope_with_its_attributes() -> None:
    b = build(
        main("""
with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN),
           pl.cross_core_slot(slot_num=4)], no_dep_args=[a], dumps=[out], allow_early_resolve=True,
           windowize=True, name_hint="first"):
    t = pl.load(a, [0, 0], [64, 64])
""")
    )
    assert b.diagnostics == []
    [scope] = b.scopes()
    assert scope.kind is ScopeKind.InCore
    assert scope.level is Level.CORE_GROUP
    assert (scope.split, scope.slot_num, scope.windowize, scope.allow_early_resolve) == (
        SplitMode.UP_DOWN,
        4,
        True,
        True,
    )
    assert [v.name for v in scope.no_dep_args] == ["a"]
    assert [v.name for v in scope.dump_vars] == ["out"]
    assert scope.name_hint == "first"


def test_pl_at_without_split_leaves_split_unset() -> None:
    b = build(main("with pl.at(pl.Level.CORE_GROUP):\n    t = pl.load(a, [0, 0], [64, 64])"))
    assert b.scopes()[0].split is None


@pytest.mark.parametrize(
    ("header", "level", "role"),
    [
        ("pl.at(level=pl.Level.HOST)", Level.HOST, None),
        ("pl.at(pl.Level.POD, pl.Role.Orchestrator)", Level.CLUSTER_0, Role.Orchestrator),
        ("pl.at(level=pl.Level.UMA, role=pl.Role.Orchestrator)", Level.CHIP, Role.Orchestrator),
    ],
)
def test_other_levels_are_hierarchy_scopes_with_canonical_levels(
    header: str, level: Level, role: Role
) -> None:
    b = build(main(f"with {header}:\n    y = pl.add(a, a)"))
    [scope] = b.scopes()
    assert (scope.kind, scope.level, scope.role) == (ScopeKind.Hierarchy, level, role)


def test_cluster_graph_and_runtime_scopes() -> None:
    b = build(
        main("""
with pl.cluster(name_hint="grp"):
    out = self.kernel(a, out)
with pl.graph({|g:"band"|}):
    with pl.scope():
        out = self.kernel(a, out)
    with pl.manual_scope():
        out = self.kernel(a, out)
    with pl.scope(mode=pl.ScopeMode.MANUAL):
        out = self.kernel(a, out)
""").replace("@pl.function\ndef main", "@pl.function(auto_scope=False)\ndef main")
    )
    assert b.diagnostics == []
    cluster, graph, auto, manual, explicit = b.scopes()
    assert (cluster.kind, cluster.name_hint) == (ScopeKind.Cluster, "grp")
    assert (graph.kind, graph.name_hint, graph.name_span) == (ScopeKind.Graph, "band", b.marked.named["g"])
    assert [(s.kind, s.runtime_mode) for s in (auto, manual, explicit)] == [
        (ScopeKind.Runtime, "AUTO"),
        (ScopeKind.Runtime, "MANUAL"),
        (ScopeKind.Runtime, "MANUAL"),
    ]


def test_scope_spans_cover_statement_header_and_name() -> None:
    b = build(
        main("""
{|stmt:with {|head:pl.at(level=pl.Level.CORE_GROUP, name_hint={|name:"k"|})|}:
    t = pl.load(a, [0, 0], [64, 64])|}
""")
    )
    [scope] = b.scopes()
    assert scope.span == b.marked.named["stmt"]
    assert scope.header_span == b.marked.named["head"]
    assert scope.name_span == b.marked.named["name"]


def test_variables_defined_in_a_scope_stay_visible_after_it() -> None:
    b = build(
        main(
            "with pl.at(level=pl.Level.CORE_GROUP):\n    t = pl.load(a, [0, 0], [64, 64])\nout = pl.store(t, [0, 0], out)"
        )
    )
    inner = b.scopes()[0].body[0].target
    after = b.fn().body[1]
    assert after.value.args[0] is inner


# --- pl.spmd --------------------------------------------------------------------------------------


def test_spmd_dispatch_body_keeps_the_name_hint_unsplit() -> None:
    b = build(main('with pl.spmd(4, name_hint="proj"):\n    out = self.kernel(a, out)'))
    assert b.body() == ["Spmd 'proj' core_num=4:", "  out = self.kernel(a, out)", "return out"]


def test_spmd_dispatch_body_may_launch_through_pl_submit() -> None:
    b = build(main("with pl.spmd(4):\n    out, t = pl.submit(self.kernel, a, out)"))
    assert b.codes == []
    assert b.scopes()[0].kind is ScopeKind.Spmd


@pytest.mark.parametrize(
    ("hint", "spmd", "incore"),
    [("proj", "proj_spmd", "proj"), ("proj_spmd", "proj_spmd", "proj"), ("", "", "")],
)
def test_spmd_loop_form_wraps_an_incore_scope_with_the_name_hint_split(
    hint: str, spmd: str, incore: str
) -> None:
    b = build(
        main(f"""
for i in pl.spmd(4, name_hint="{hint}"):
    t = pl.load(a, [i * 16, 0], [16, 64])
    out = pl.store(t, [i * 16, 0], out)
""")
    )
    spmd_scope, incore_scope = b.scopes()
    assert (spmd_scope.kind, spmd_scope.name_hint) == (ScopeKind.Spmd, spmd)
    assert (incore_scope.kind, incore_scope.name_hint) == (ScopeKind.InCore, incore)
    assert expr(spmd_scope.core_num) == "4"
    assert b.body()[2] == "    i = tile.get_block_idx()"


def test_spmd_inline_body_reading_the_block_index_is_wrapped() -> None:
    b = build(
        main("""
with pl.spmd(8, name_hint="w", sync_start=True, optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)]):
    bi = pl.tile.get_block_idx()
    t = pl.load(a, [bi * 8, 0], [8, 64])
    out = pl.store(t, [bi * 8, 0], out)
""")
    )
    spmd_scope, incore_scope = b.scopes()
    assert (spmd_scope.name_hint, spmd_scope.sync_start) == ("w_spmd", True)
    assert (incore_scope.name_hint, incore_scope.split) == ("w", SplitMode.LEFT_RIGHT)
    assert spmd_scope.split is None


def test_spmd_dispatch_body_with_optimizations_is_wrapped_too() -> None:
    b = build(
        main(
            "with pl.spmd(4, optimizations=[pl.cross_core_slot(slot_num=8)]):\n    out = self.kernel(a, out)"
        )
    )
    spmd_scope, incore_scope = b.scopes()
    assert (spmd_scope.kind, incore_scope.kind, incore_scope.slot_num) == (
        ScopeKind.Spmd,
        ScopeKind.InCore,
        8,
    )


def test_spmd_with_an_explicit_pl_at_carrier_gets_no_extra_wrapper() -> None:
    b = build(
        main("""
with pl.spmd(4, name_hint="wide"):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="wide_body"):
        bi = pl.tile.get_block_idx()
        out = pl.store(pl.load(a, [bi * 16, 0], [16, 64]), [bi * 16, 0], out)
""")
    )
    assert b.diagnostics == []
    spmd_scope, incore_scope = b.scopes()
    assert (spmd_scope.name_hint, incore_scope.name_hint) == ("wide", "wide_body")
    assert spmd_scope.body == [incore_scope]


def test_as_tid_emits_a_placeholder_before_the_scope() -> None:
    b = build(
        main("""
with pl.at(level=pl.Level.CORE_GROUP) as tid:
    t = pl.load(a, [0, 0], [64, 64])
with pl.spmd(2, deps=[tid]) as tid2:
    out = self.kernel(a, out)
""")
    )
    assert b.diagnostics == []  # D8: deps= without a wrapper form is accepted
    assert [line for line in b.body() if not line.startswith(" ")] == [
        "tid = system.task_invalid()",
        "InCore tid=tid:",
        "tid2 = system.task_invalid()",
        "Spmd core_num=2 tid=tid2:",
        "return out",
    ]
    spmd_scope = b.scopes()[1]
    assert spmd_scope.deps == [b.fn().body[0].target]
    assert b.fn().body[0].target.type == ir.TASK_ID


# --- pl.split_aiv ---------------------------------------------------------------------------------

SPLIT = """
for aiv in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
    t = pl.load(a, [aiv * 32, 0], [32, 64])
"""


def test_split_aiv_outside_incore_code_is_wrapped_in_an_unnamed_incore_scope() -> None:
    b = build(main(SPLIT))
    assert b.body()[:3] == ["InCore:", "  SplitAiv split=UP_DOWN:", "    aiv = tile.get_subblock_idx()"]


def test_split_aiv_inside_an_incore_scope_stays_in_place() -> None:
    body = "with pl.at(level=pl.Level.CORE_GROUP):\n" + "\n".join(
        "    " + line for line in SPLIT.strip().splitlines()
    )
    b = build(main(body))
    assert b.body()[:2] == ["InCore:", "  SplitAiv split=UP_DOWN:"]
    assert [s.kind for s in b.scopes()] == [ScopeKind.InCore, ScopeKind.SplitAiv]


def test_split_aiv_in_an_incore_function_stays_in_place() -> None:
    b = build(main(SPLIT, kind="InCore"))
    assert b.body()[0] == "SplitAiv split=UP_DOWN:"


# --- hoisted and sticky attributes ----------------------------------------------------------------


def test_set_cache_policy_is_hoisted_onto_the_scope_keyed_by_the_entry_variable() -> None:
    b = build(
        main("""
with pl.at(level=pl.Level.CORE_GROUP):
    {|decl:pl.set_cache_policy(a, pl.CachePolicy.BYPASS)|}
    pl.set_cache_policy(a, pl.CachePolicy.DEFAULT)
    t = pl.load(a, [0, 0], [64, 64])
for i in pl.spmd(4):
    pl.set_cache_policy(a, pl.CachePolicy.DEFAULT)
    out = pl.store(pl.load(a, [i * 16, 0], [16, 64]), [i * 16, 0], out)
""")
    )
    assert b.diagnostics == []
    first, spmd_scope, spmd_incore = b.scopes()
    [decl] = first.cache_policies  # a repeated declaration keeps the first
    assert (decl.var, decl.policy, decl.span) == (
        b.fn().params[0].var,
        CachePolicy.BYPASS,
        b.marked.named["decl"],
    )
    assert first.body[0].target.name == "t"
    assert spmd_scope.cache_policies == []
    assert [d.policy for d in spmd_incore.cache_policies] == [CachePolicy.DEFAULT]


def test_dump_tag_is_forward_sticky_for_every_later_non_runtime_scope() -> None:
    b = build(
        main("""
with pl.at(level=pl.Level.CORE_GROUP):
    t = pl.load(a, [0, 0], [64, 64])
pl.dump_tag(a)
with pl.scope():
    with pl.at(level=pl.Level.CORE_GROUP, dumps=[out]):
        t = pl.load(a, [0, 0], [64, 64])
""")
    )
    before, runtime, after = b.scopes()
    assert before.dump_vars == []
    assert runtime.dump_vars == []
    assert [v.name for v in after.dump_vars] == ["out", "a"]
    assert "dump_tag" not in "\n".join(b.body())


@pytest.mark.parametrize(
    ("header", "form"),
    [("pl.incore()", "pl.incore()"), ("pl.auto_incore()", "pl.auto_incore()")],
)
def test_legacy_incore_forms_are_incore_scopes_with_an_informational_hint(header: str, form: str) -> None:
    b = build(main(f"with [|{header}|]:\n    t = pl.load(a, [0, 0], [64, 64])"))
    [scope] = b.scopes()
    assert scope.kind is ScopeKind.InCore
    hint = b.only("PTO603")
    assert hint.severity.value == "info"
    assert hint.span == b.marked.range
    assert form in hint.message and "pl.at(level=pl.Level.CORE_GROUP" in (hint.hint or "")


def test_legacy_optimization_keyword_makes_an_incore_scope() -> None:
    b = build(
        main(
            "with pl.at(level=pl.Level.HOST, [|optimization=pl.chunked_loop_optimizer|]):\n    y = pl.add(a, a)"
        )
    )
    assert b.scopes()[0].kind is ScopeKind.InCore
    assert b.only("PTO603").span == b.marked.range


def test_rebinding_a_tagged_name_ends_the_tag() -> None:
    b = build(
        main("""
pl.dump_tag(out)
with pl.at(level=pl.Level.CORE_GROUP):
    out = pl.store(pl.load(a, [0, 0], [64, 64]), [0, 0], out)
out = pl.add(out, out)
with pl.at(level=pl.Level.CORE_GROUP):
    out = pl.store(pl.load(a, [0, 0], [64, 64]), [0, 0], out)
""")
    )
    first, second = b.scopes()
    assert [v.name for v in first.dump_vars] == ["out"]
    assert second.dump_vars == []


def test_a_scope_storing_into_a_tagged_tensor_ends_the_tag_after_it() -> None:
    """The outlined call returns the stored tensor as a new value; later scopes read that one."""
    b = build(
        main("""
pl.dump_tag(out)
with pl.at(level=pl.Level.CORE_GROUP):
    pl.store(pl.load(a, [0, 0], [64, 64]), [0, 0], out)
with pl.at(level=pl.Level.CORE_GROUP):
    pl.store(pl.load(out, [0, 0], [64, 64]), [0, 0], a)
""")
    )
    first, second = b.scopes()
    assert [v.name for v in first.dump_vars] == ["out"]
    assert second.dump_vars == []


def test_inline_helpers_keep_their_tags_for_the_splice() -> None:
    """A tag in (or before a call of) an inline helper is resolved only after InlineFunctions
    has spliced the helper: `apply_dump_tags` then runs on the caller."""
    b = build(
        """
        @pl.function(type=pl.FunctionType.Inline)
        def helper(self, a: T64, out: OUT64) -> T64:
            pl.dump_tag(a)
            with pl.at(level=pl.Level.CORE_GROUP):
                out = pl.store(pl.load(a, [0, 0], [64, 64]), [0, 0], out)
            return out
        """
    )
    assert b.body("helper")[0] == "tensor.dump_tag(a)"
    helper = b.fn("helper")
    apply_dump_tags(helper)
    assert [v.name for v in b.scopes("helper")[0].dump_vars] == ["a"]
    assert b.body("helper")[0] == "InCore:"
