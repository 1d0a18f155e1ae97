"""Every parser-level scope / loop error (PTO101-PTO199, dsl-reference §2.3) with its range.

Each row is a function body whose `[|...|]` marks where the error must be reported, the code,
and a fragment of the compiler's message. The scope is still built (a bad keyword is ignored),
so a row also checks that the body's statements survive.
"""

from __future__ import annotations

import pytest
from builder_util import build, walk
from test_scopes import main

from pypto_core import ir
from pypto_core.analysis import analyse_source
from pypto_core.ir import ScopeKind

CASES: list[tuple[str, str, str, str]] = [
    # (code, body of `main` with the expected range `[|...|]` or `{|r:...|}`, message fragment,
    # function type)
    # 2.3.1 with in general
    (
        "PTO101",
        "with pl.at(level=pl.Level.CORE_GROUP), [|pl.cluster()|]:\n    pass",
        "single context manager",
        "",
    ),
    ("PTO102", "with [|open(a)|]:\n    pass", "Unsupported context manager", ""),
    ("PTO103", "with pl.cluster() as [|c|]:\n    pass", "is not supported", ""),
    ("PTO103", 'with pl.graph("g") as [|g|]:\n    pass', "as ...:` is not supported", ""),
    ("PTO104", "with pl.at(level=pl.Level.CORE_GROUP) as [|(x, y)|]:\n    pass", "plain variable name", ""),
    # 2.3.2 pl.at
    ("PTO110", "with pl.at(pl.Level.HOST, pl.Role.Orchestrator, [|1, 2|]):\n    pass", "got 4", ""),
    ("PTO111", "with [|pl.at(name_hint='x')|]:\n    pass", "requires a level argument", ""),
    (
        "PTO112",
        "with pl.at(pl.Level.HOST, [|level=pl.Level.CHIP|]):\n    pass",
        "multiple values for argument 'level'",
        "",
    ),
    (
        "PTO113",
        "with pl.at(level=pl.Level.CORE_GROUP, [|colour=1|]):\n    pass",
        "Unknown keyword argument 'colour'",
        "",
    ),
    ("PTO113", "with pl.at(level=pl.Level.CORE_GROUP, [|**opts|]):\n    pass", "Unsupported **kwargs", ""),
    ("PTO114", "with pl.at(level=[|pl.Level.CORE|]):\n    pass", "Unknown Level value: CORE", ""),
    ("PTO114", "with pl.at(level=[|'CORE_GROUP'|]):\n    pass", "Expected pl.Level.<name>", ""),
    ("PTO114", "with pl.at(pl.Level.HOST, [|pl.Role.Boss|]):\n    pass", "Unknown Role value: Boss", ""),
    (
        "PTO114",
        "with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split([|pl.SplitMode.DIAGONAL|])]):\n    pass",
        "Unknown SplitMode value",
        "",
    ),
    (
        "PTO115",
        "with pl.at(level=pl.Level.CORE_GROUP, allow_early_resolve=[|1|]):\n    pass",
        "boolean literal",
        "",
    ),
    ("PTO115", "with pl.at(level=pl.Level.CORE_GROUP, windowize=[|flag|]):\n    pass", "boolean literal", ""),
    (
        "PTO116",
        "with pl.at(level=pl.Level.CORE_GROUP, name_hint=[|NAME|]):\n    pass",
        "must be a string literal",
        "",
    ),
    ("PTO117", "with pl.at(level=pl.Level.CORE_GROUP, name_hint=[|'2x'|]):\n    pass", "got '2x'", ""),
    ("PTO117", "with pl.cluster(name_hint=[|'class'|]):\n    pass", "non-keyword identifier", ""),
    ("PTO117", "with pl.spmd(4, name_hint=[|'a b'|]):\n    out = self.kernel(a, out)", "identifier", ""),
    (
        "PTO118",
        "with pl.at(level=pl.Level.CORE_GROUP, optimizations=[|pl.split(pl.SplitMode.NONE)|]):\n    pass",
        "must be a list literal",
        "",
    ),
    (
        "PTO119",
        "with pl.at(level=pl.Level.CORE_GROUP, optimizations=[{|r:3|}]):\n    pass",
        "Unsupported entry",
        "",
    ),
    (
        "PTO119",
        "with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.NONE), "
        "[|pl.split(pl.SplitMode.UP_DOWN)|]]):\n    pass",
        "Duplicate 'pl.split(...)'",
        "",
    ),
    (
        "PTO119",
        "with pl.at(level=pl.Level.CORE_GROUP, optimizations=[{|r:pl.cross_core_slot()|}]):\n    pass",
        "requires slot_num=",
        "",
    ),
    (
        "PTO119",
        "with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.cross_core_slot(slot_num=[|0|])]):\n    pass",
        "positive integer",
        "",
    ),
    (
        "PTO119",
        "with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.NONE, slot_num=2), "
        "pl.cross_core_slot(slot_num=[|4|])]):\n    pass",
        "slot count twice",
        "",
    ),
    (
        "PTO120",
        "with pl.at(level=pl.Level.HOST, optimizations=[{|r:pl.split(pl.SplitMode.UP_DOWN)|}]):\n    pass",
        "only supported with level=pl.Level.CORE_GROUP",
        "",
    ),
    (
        "PTO121",
        "with pl.at(pl.Level.CORE_GROUP, [|pl.Role.Orchestrator|]):\n    pass",
        "role= is not supported",
        "",
    ),
    ("PTO122", "with pl.at(level=pl.Level.HOST, [|role=pl.Role.SubWorker|]):\n    pass", "SubWorker", ""),
    (
        "PTO122",
        "with pl.at(level=pl.Level.CHIP, [|role=pl.Role.SubWorker|]):\n    pass",
        "SubWorker",
        "",
    ),  # D1
    ("PTO123", "with pl.at(level=pl.Level.CORE_GROUP, dumps=[|a|]):\n    pass", "list or tuple literal", ""),
    (
        "PTO123",
        "with pl.at(level=pl.Level.CORE_GROUP, no_dep_args=[a, [|a|]]):\n    pass",
        "more than once",
        "",
    ),
    ("PTO123", "with pl.at(level=pl.Level.CORE_GROUP, dumps=[{|r:ghost|}]):\n    pass", "not defined", ""),
    ("PTO123", "with pl.at(level=pl.Level.CORE_GROUP, dumps=[{|r:n|}]):\n    pass", "not a tensor", ""),
    (
        "PTO123",
        "with pl.at(level=pl.Level.CORE_GROUP, dumps=[{|r:a[0]|}]):\n    pass",
        "bare tensor names",
        "",
    ),
    (
        "PTO124",
        "with pl.at(level=pl.Level.HOST, [|predicate=(n > 0)|]):\n    pass",
        "only supported with level=pl.Level.CORE_GROUP",
        "",
    ),
    (
        "PTO124",
        "with pl.cluster():\n    with pl.at(level=pl.Level.CORE_GROUP, [|predicate=(n > 0)|]):\n        pass",
        "silently dropped",
        "",
    ),
    ("PTO125", "with pl.at(level=pl.Level.CORE_GROUP, deps=[|a|]):\n    pass", "list or tuple literal", ""),
    ("PTO125", "with pl.at(level=pl.Level.CORE_GROUP, deps=[{|r:a|}]):\n    pass", "not a TaskId", ""),
    (
        "PTO125",
        "with pl.at(level=pl.Level.CORE_GROUP, deps=[{|r:f()|}]):\n    pass",
        "TaskId variables or None",
        "",
    ),
    (
        "PTO126",
        "with pl.spmd(1, predicate=([|a[0, 0] % 8 == 0|])):\n    out = self.kernel(a, out)",
        "must compare one tensor element",
        "",
    ),
    (
        "PTO126",
        "with pl.spmd(1, predicate=([|0 < a[0, 0] < 8|])):\n    out = self.kernel(a, out)",
        "Only simple comparisons",
        "",
    ),
    (
        "PTO127",
        "with pl.at(level=pl.Level.CORE_GROUP) as g:\n    out = pl.store(pl.load(a, [0, 0], [8, 8]), [0, 0], out)\n"
        "with pl.spmd(1, predicate=([|out|][0, 0] > 0)):\n    out = self.kernel(a, out)",
        "not in deps=",
        "",
    ),
    # runtime scopes (no code in §2.3: PTO132-134)
    ("PTO132", "with pl.scope([|1|]):\n    pass", "does not accept positional arguments", ""),
    ("PTO132", "with pl.manual_scope([|name='x'|]):\n    pass", "unexpected keyword argument 'name'", ""),
    (
        "PTO116",
        "with pl.manual_scope(name_hint=[|42|]):\n    pass",
        "'name_hint' argument must be a string literal",
        "",
    ),
    ("PTO133", "with [|pl.scope()|]:\n    pass", "auto_scope=False", ""),
    (
        "PTO134",
        "with pl.manual_scope():\n    with [|pl.scope()|]:\n        pass",
        "inside a MANUAL scope",
        "",
    ),
    # 2.3.3 pl.cluster
    ("PTO130", "with pl.cluster([|'grp'|]):\n    pass", "does not accept positional arguments", ""),
    ("PTO131", "with pl.cluster([|level=1|]):\n    pass", "unexpected keyword argument 'level'", ""),
    # 2.3.4 pl.graph
    ("PTO140", "with [|pl.graph()|]:\n    pass", "exactly one positional argument", ""),
    ("PTO140", "with pl.graph('a', [|'b'|]):\n    pass", "exactly one positional argument", ""),
    ("PTO141", "with pl.graph([|4|]):\n    pass", "must be a string literal", ""),
    ("PTO142", "with pl.graph([|''|]):\n    pass", "must not be empty", ""),
    ("PTO143", "with pl.graph([|'my region'|]):\n    pass", "valid Python identifier", ""),
    ("PTO144", "with [|pl.graph('g')|]:\n    pass", "not valid inside a InCore function", "InCore"),
    (
        "PTO145",
        "with pl.at(level=pl.Level.CORE_GROUP):\n    with [|pl.graph('g')|]:\n        pass",
        "cannot be nested inside `pl.at(...)`",
        "",
    ),
    ("PTO145", "with pl.cluster():\n    with [|pl.graph('g')|]:\n        pass", "`pl.cluster(...)`", ""),
    ("PTO145", "for i in pl.spmd(4):\n    with [|pl.graph('g')|]:\n        pass", "`pl.spmd(...)`", ""),
    (
        "PTO146",
        "with pl.graph('a'):\n    with [|pl.graph('b')|]:\n        pass",
        'inside `pl.graph("a")`',
        "",
    ),
    # 2.3.5 pl.spmd
    ("PTO150", "with pl.spmd(4, [|8|]):\n    out = self.kernel(a, out)", "at most one positional", ""),
    ("PTO151", "with [|pl.spmd()|]:\n    out = self.kernel(a, out)", "requires core_num", ""),
    ("PTO151", "with pl.spmd(4, [|core_num=8|]):\n    out = self.kernel(a, out)", "multiple values", ""),
    ("PTO152", "with pl.spmd([|0|]):\n    out = self.kernel(a, out)", "positive integer, got 0", ""),
    ("PTO152", "with pl.spmd([|1.5|]):\n    out = self.kernel(a, out)", "integer expression, got FP32", ""),
    ("PTO152", "with pl.spmd([|a|]):\n    out = self.kernel(a, out)", "integer expression", ""),
    ("PTO153", "with pl.spmd(4, sync_start=[|1|]):\n    out = self.kernel(a, out)", "boolean literal", ""),
    ("PTO154", "with pl.spmd(4, [|colour=1|]):\n    out = self.kernel(a, out)", "unexpected keyword", ""),
    ("PTO154", "with pl.spmd(4, [|**kw|]):\n    out = self.kernel(a, out)", "**kwargs", ""),
    ("PTO156", "with [|pl.spmd(4)|]:\n    y = pl.add(a, a)", "every block would run identical work", ""),
    (
        "PTO157",
        "with [|pl.spmd(4)|]:\n    out = self.kernel(a, out)\n    out = self.kernel(a, out)",
        "launches 2 kernels",
        "",
    ),
    (
        "PTO158",
        "with pl.spmd(4, optimizations={|r:[pl.split(pl.SplitMode.UP_DOWN)]|}):\n"
        "    with pl.at(level=pl.Level.CORE_GROUP):\n        t = pl.load(a, [0, 0], [8, 8])",
        "belongs on the InCore scope",
        "",
    ),
    (
        "PTO159",
        "with pl.cluster():\n    with pl.spmd(4) as [|tid|]:\n        out = self.kernel(a, out)",
        "cannot capture a TaskId",
        "",
    ),
    (
        "PTO160",
        "with pl.cluster():\n    with pl.spmd(4, [|allow_early_resolve=True|]):\n        out = self.kernel(a, out)",
        "cannot be nested inside `pl.cluster()`",
        "",
    ),
    ("PTO161", "for [|i, j|] in pl.spmd(4):\n    pass", "single loop variable", ""),
    ("PTO162", "for i in pl.spmd(4, [|chunk=2|]):\n    pass", "does not accept 'chunk='", ""),
    (
        "PTO163",
        "with pl.cluster():\n    out, t = pl.submit(self.kernel, a, out, {|r:deps=[]|})",
        "per-task dispatch metadata",
        "",
    ),
    # 2.3.6 pl.split_aiv
    (
        "PTO170",
        "for x in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n"
        "    for y in [|pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN)|]:\n        pass",
        "nested 'for ... in pl.split_aiv(...)'",
        "",
    ),
    (
        "PTO171",
        "with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.NONE)]):\n"
        "    for x in [|pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN)|]:\n        pass",
        "mutually exclusive",
        "",
    ),
    (
        "PTO172",
        "for [|x, y|] in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n    pass",
        "single loop variable",
        "",
    ),
    (
        "PTO173",
        "for x in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN, [|stage=2|]):\n    pass",
        "does not accept 'stage='",
        "",
    ),
    (
        "PTO173",
        "for x in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN, {|r:optimizations=[]|}):\n    pass",
        "IS the split declaration",
        "",
    ),
    ("PTO174", "for x in pl.split_aiv([|4|], mode=pl.SplitMode.UP_DOWN):\n    pass", "requires n == 2", ""),
    (
        "PTO174",
        "for x in [|pl.split_aiv(mode=pl.SplitMode.UP_DOWN)|]:\n    pass",
        "exactly one positional",
        "",
    ),
    ("PTO175", "for x in [|pl.split_aiv(2)|]:\n    pass", "requires mode=", ""),
    (
        "PTO176",
        "for x in pl.split_aiv(2, mode=pl.SplitMode.NONE, [|colour=1|]):\n    pass",
        "unexpected keyword",
        "",
    ),
    # 2.3.8 pl.set_cache_policy
    ("PTO180", "[|pl.set_cache_policy(a, pl.CachePolicy.BYPASS)|]", "must be a standalone statement", ""),
    (
        "PTO180",
        "with pl.at(level=pl.Level.CORE_GROUP):\n    if n > 0:\n        [|pl.set_cache_policy(a, pl.CachePolicy.BYPASS)|]",
        "directly inside",
        "",
    ),
    (
        "PTO181",
        "with pl.spmd(4):\n    [|pl.set_cache_policy(a, pl.CachePolicy.BYPASS)|]\n    out = self.kernel(a, out)",
        "nothing to attach to on this Spmd scope",
        "",
    ),
    (
        "PTO181",
        "with pl.cluster():\n    [|pl.set_cache_policy(a, pl.CachePolicy.BYPASS)|]",
        "on this Cluster scope",
        "",
    ),
    (
        "PTO182",
        "with pl.at(level=pl.Level.CORE_GROUP):\n    {|r:pl.set_cache_policy(a, policy=pl.CachePolicy.BYPASS)|}",
        "exactly two positional arguments",
        "",
    ),
    (
        "PTO183",
        "with pl.at(level=pl.Level.CORE_GROUP):\n    pl.set_cache_policy({|r:a[0]|}, pl.CachePolicy.BYPASS)",
        "bare variable name",
        "",
    ),
    (
        "PTO184",
        "with pl.at(level=pl.Level.CORE_GROUP):\n    pl.set_cache_policy([|t|], pl.CachePolicy.BYPASS)\n"
        "    t = pl.create_tensor([8], pl.FP32)",
        "'t' is not defined at this point",
        "",
    ),
    (
        "PTO185",
        "with pl.at(level=pl.Level.CORE_GROUP):\n    pl.set_cache_policy([|n|], pl.CachePolicy.BYPASS)",
        "'n' is not a tensor",
        "",
    ),
    # 2.3.7 loop surface
    ("PTO190", "for [|i, j|] in pl.range(4):\n    pass", "single variable", ""),
    ("PTO190", "for [|i|] in pl.range(4, init_values=(a,)):\n    pass", "i, (c1, c2, ...)", ""),
    (
        "PTO191",
        "for i, [|(x, y)|] in pl.range(4, init_values=(a,)):\n    r = pl.yield_(x)",
        "Mismatch: 2 iter_args but 1 init_values",
        "",
    ),
    ("PTO191", "for i, (x,) in [|pl.range(4, init_values=(a,))|]:\n    y = x", "must end with", ""),
    ("PTO192", "for i in pl.unroll([|n|]):\n    pass", "compile-time integer", ""),
    ("PTO192", "for i in pl.unroll(0, 8, [|0|]):\n    pass", "step cannot be zero", ""),
    (
        "PTO192",
        "for i in pl.unroll([|0, 4100, 4|]):\n    pass",
        "trip count 1025 exceeds maximum allowed (1024)",
        "",
    ),
    ("PTO192", "for i in pl.unroll([|8, -3000, -2|]):\n    pass", "trip count 1504 exceeds", ""),
    ("PTO192", "for i, (x,) in pl.unroll(4, init_values=[|(a,)|]):\n    r = pl.yield_(x)", "init_values", ""),
    ("PTO193", "for i in [|pl.range()|]:\n    pass", "1 to 3 positional arguments", ""),
    ("PTO193", "for i in pl.range(0, 8, 1, [|2|]):\n    pass", "got 4", ""),
    ("PTO194", "for i in pl.range(4, [|colour=1|]):\n    pass", "Unknown keyword argument 'colour'", ""),
    ("PTO194", "for i in [|pl.pipeline(8)|]:\n    pass", "pl.pipeline() requires stage=", ""),
    ("PTO194", "for i in pl.pipeline(8, stage=[|0|]):\n    pass", "stage must be >= 1, got 0", ""),
    ("PTO194", "for i in pl.pipeline(8, stage=[|-2|]):\n    pass", "stage must be >= 1, got -2", ""),
    (
        "PTO194",
        "for i in pl.pipeline(8, stage=[|n|]):\n    pass",
        "stage must be a compile-time constant",
        "",
    ),
    (
        "PTO194",
        "for i in pl.range(8, stage=[|2|]):\n    pass",
        "only supported on pl.pipeline(), not pl.range()",
        "",
    ),
    ("PTO194", "for i in pl.unroll(8, stage=[|2|]):\n    pass", "not pl.unroll()", ""),
    ("PTO195", "for i, (x,) in pl.range(4, init_values=[|a|]):\n    r = pl.yield_(x)", "list or tuple", ""),
    ("PTO197", "{|r:out[0:8, 0]|} = a", "strict_ssa", "strict"),
    ("PTO198", "for i in pl.parallel(4):\n    [|break|]", "'break' is only supported", ""),
    ("PTO198", "for i in pl.spmd(4):\n    [|continue|]", "'continue'", ""),
    ("PTO186", "[|bad__x|] = a", "IR auto-name base cannot contain reserved delimiter '__': bad__x", ""),
    ("PTO186", "for [|__i|] in pl.range(4):\n    pass", "reserved delimiter '__': __i", ""),
    ("PTO199", "[|raise ValueError()|]", "Unsupported statement 'Raise'", ""),
    ("PTO199", "k = n\n[|k += 1|]", "Unsupported statement type: AugAssign", ""),
    ("PTO199", "ids = [|[i * 2 for i in range(4)]|]", "Unsupported expression type: ListComp", ""),
    ("PTO199", "n: pl.Scalar[pl.INDEX] = [|4 if a else 8|]", "Unsupported expression type: IfExp", ""),
    ("PTO199", "for i in [|foo(4)|]:\n    pass", "Unsupported iterator", ""),
    ("PTO199", "for (x,) in pl.while_(init_values=(0,)):\n    [|y = x|]", "must start with pl.cond", ""),
    ("PTO199", "y = a\n[|pl.func_attr({'windowize': True})|]", "before every other statement", ""),
]


def _build(body: str, kind: str):  # type: ignore[no-untyped-def]
    params = "a: T64, out: OUT64, n: pl.Scalar[pl.INDEX]"
    if kind == "strict":
        return build(
            main(body, params=params).replace(
                "@pl.function\ndef main", "@pl.function(strict_ssa=True)\ndef main"
            )
        )
    return build(main(body, params=params, kind=kind))


@pytest.mark.parametrize(
    ("code", "body", "message", "kind"), CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_parser_error_is_reported_at_its_range(code: str, body: str, message: str, kind: str) -> None:
    b = _build(body, kind)
    found = [d for d in b.diagnostics if d.code == code]
    assert len(found) == 1, [(d.code, d.message) for d in b.diagnostics]
    diagnostic = found[0]
    assert diagnostic.severity.value == "error"
    assert diagnostic.span == b.marked.named.get("r", b.marked.ranges[0] if b.marked.ranges else None)
    assert message in diagnostic.message


def test_every_code_of_the_parser_range_is_covered() -> None:
    covered = {code for code, *_ in CASES} | {"PTO196", "PTO505", "PTO506", "PTO509"}
    assert {"PTO126", "PTO127", "PTO132", "PTO133", "PTO134"} <= covered  # beyond §2.3
    expected = (
        {f"PTO{n}" for n in range(101, 105)}
        | {f"PTO{n}" for n in range(110, 126)}
        | {"PTO130", "PTO131"}
        | {f"PTO{n}" for n in range(140, 147)}
        | {f"PTO{n}" for n in range(150, 164)} - {"PTO155"}  # D8: deps= is accepted everywhere
        | {f"PTO{n}" for n in range(170, 177)}
        | {f"PTO{n}" for n in range(180, 186)}
        | {f"PTO{n}" for n in range(190, 200)}
    )
    assert expected <= covered


def test_strict_ssa_rebinding_is_reported_at_the_second_binding() -> None:
    b = build(
        main("y = pl.add(a, a)\n[|y|] = pl.mul(y, y)").replace(
            "@pl.function\ndef main", "@pl.function(strict_ssa=True)\ndef main"
        )
    )
    assert b.only("PTO196").span == b.marked.range


def test_strict_ssa_allows_a_loop_variable_name_in_two_loops() -> None:
    b = build(
        main("for i in pl.range(2):\n    pass\nfor i in pl.spmd(2):\n    pass").replace(
            "@pl.function\ndef main", "@pl.function(strict_ssa=True)\ndef main"
        )
    )
    assert "PTO196" not in b.codes


def test_strict_ssa_allows_one_binding_per_if_arm() -> None:
    b = build(
        main("if out is None:\n    y = a\nelse:\n    y = out").replace(
            "@pl.function\ndef main", "@pl.function(strict_ssa=True)\ndef main"
        )
    )
    assert b.codes == []


def test_spmd_deps_without_as_tid_is_accepted() -> None:
    """D8: the newer DSL accepts `deps=` on every spmd form, so PTO155 is never reported."""
    b = build(
        main(
            "with pl.at(level=pl.Level.CORE_GROUP) as t:\n    pass\nwith pl.spmd(4, deps=[t]):\n    out = self.kernel(a, out)"
        )
    )
    assert b.codes == []
    assert b.scopes()[1].deps == [b.fn().body[0].target]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("with pl.at(level=pl.Level.CORE_GROUP):\n    with [|pl.cluster()|]:\n        pass", "PTO505"),
        (
            "with pl.at(level=pl.Level.CORE_GROUP):\n    with [|pl.spmd(4)|]:\n        out = self.kernel(a, out)",
            "PTO506",
        ),
        ("for i in pl.spmd(4):\n    with [|pl.at(level=pl.Level.CORE_GROUP)|]:\n        pass", "PTO509"),
        (
            "with pl.at(level=pl.Level.CORE_GROUP):\n    with [|pl.at(level=pl.Level.CORE_GROUP)|]:\n        pass",
            "PTO509",
        ),
    ],
)
def test_launch_scopes_nested_in_incore_code_are_reported_at_the_inner_header(body: str, code: str) -> None:
    """D12: reported at parse time, with the enclosing InCore scope as related information."""
    b = _build(body, "")
    diagnostic = b.only(code)
    assert diagnostic.span == b.marked.range
    assert diagnostic.related and diagnostic.related[0].span.start_line == b.marked.range.start_line - 1


@pytest.mark.parametrize(("construct", "code"), [("pl.cluster()", "PTO505"), ("pl.spmd(4)", "PTO506")])
def test_launch_scopes_in_an_incore_function_are_reported(construct: str, code: str) -> None:
    b = _build(f"with [|{construct}|]:\n    pass", "InCore")
    assert b.only(code).span == b.marked.range


def test_nested_graph_error_points_at_the_outer_region_too() -> None:
    b = _build("with {|outer:pl.at(level=pl.Level.HOST)|}:\n    with [|pl.graph('g')|]:\n        pass", "")
    diagnostic = b.only("PTO145")
    assert [r.span for r in diagnostic.related] == [b.marked.named["outer"]]
    assert diagnostic.hint


def test_a_scope_with_an_unknown_keyword_is_still_built() -> None:
    b = _build("with pl.at(level=pl.Level.CORE_GROUP, colour=1, name_hint='k'):\n    y = pl.add(a, a)", "")
    [scope] = b.scopes()
    assert (scope.kind, scope.name_hint, len(scope.body)) == (ScopeKind.InCore, "k", 1)


def test_unsupported_context_manager_keeps_its_body_statements() -> None:
    b = _build("with open(a):\n    y = pl.add(a, a)\nout = pl.add(y, y)", "")
    assigns = [s for s in walk(b.fn().body) if isinstance(s, ir.AssignStmt)]
    assert [s.target.name for s in assigns] == ["y", "out"]
    assert assigns[1].value.args[0] is assigns[0].target


def test_every_error_carries_a_message_and_most_a_hint() -> None:
    hinted = 0
    for code, body, _, kind in CASES:
        b = _build(body, kind)
        diagnostic = next(d for d in b.diagnostics if d.code == code)
        assert diagnostic.message
        hinted += bool(diagnostic.hint)
    assert hinted >= len(CASES) // 2


def test_predicate_whose_producer_is_listed_in_deps_is_accepted() -> None:
    b = _build(
        "with pl.at(level=pl.Level.CORE_GROUP) as g:\n    out = pl.store(pl.load(a, [0, 0], [8, 8]), [0, 0], out)\n"
        "with pl.spmd(1, deps=[g], predicate=(out[0, 0] > 0)):\n    out = self.kernel(a, out)",
        "",
    )
    assert b.codes == []
    assert b.scopes()[1].predicate is not None


def test_auto_scope_is_accepted_when_the_function_opts_out() -> None:
    b = build(
        main("with pl.scope():\n    out = self.kernel(a, out)").replace(
            "@pl.function\ndef main", "@pl.function(auto_scope=False)\ndef main"
        )
    )
    assert b.codes == []


def test_graph_region_in_a_device_function_leaves_its_body_in_place() -> None:
    b = _build("with pl.graph('g'):\n    y = pl.add(a, a)", "InCore")
    assert b.codes == ["PTO144"]
    assert b.scopes() == []
    assert b.body()[0] == "y = tensor.add(a, a)"


@pytest.mark.parametrize(
    ("signature", "code"),
    [
        ("def main(self, a: pl.Tensor[ [64], pl.FP32, [|pl.DN|]]) -> T64:", "PTO105"),
        ("def main(self, a: [|pl.Tuple[T64, T64 ]|]) -> T64:", "PTO106"),
        ("def main(self, a: T64) -> [|pl.Out[T64]|]:", "PTO107"),
        ("def main(self, a: T64) -> tuple[T64, [|pl.InOut[T64]|] ]:", "PTO107"),
    ],
)
def test_annotation_errors_are_reported_at_the_annotation(signature: str, code: str) -> None:
    b = build(f"@pl.function\n{signature}\n    return a\n")
    assert b.only(code).span == b.marked.range


def test_zero_step_is_only_an_error_for_pl_unroll() -> None:
    # the parser rejects step 0 for pl.unroll only; pl.range/pl.parallel/pl.pipeline accept it
    for kind in ("range", "parallel"):
        b = _build(f"for i in pl.{kind}(0, 4, 0):\n    pass", "")
        assert [d.code for d in b.diagnostics] == [], kind


def test_an_unroll_of_exactly_the_limit_is_accepted() -> None:
    assert [d.code for d in _build("for i in pl.unroll(1024):\n    pass", "").diagnostics] == []


def test_a_name_that_is_already_an_auto_name_is_not_reserved() -> None:
    # printed SSA IR parses back: ConvertToSSA re-bases `x__ssa_v0` on `x`
    b = _build("x__ssa_v0 = a\nout__rv_v2 = x__ssa_v0\nT__store = out__rv_v2", "")
    assert [d.code for d in b.diagnostics] == []


def test_if_branches_yielding_a_different_number_of_results_is_pto191_at_the_short_yield() -> None:
    b = _build(
        "if n > 0:\n    x, y = pl.yield_(a, a)\nelse:\n    [|x = pl.yield_(a)|]\nout = x",
        "",
    )
    d = b.only("PTO191")
    assert d.span == b.marked.ranges[0]
    assert d.message == "IfStmt else-branch YieldStmt value count (1) != return_vars count (2)"


def test_if_branches_yielding_the_same_results_are_accepted() -> None:
    b = _build("if n > 0:\n    x, y = pl.yield_(a, a)\nelse:\n    x, y = pl.yield_(a, a)\nout = x", "")
    assert [d.code for d in b.diagnostics] == []


def test_an_augmented_assignment_in_a_jit_body_is_rejected_and_built_as_an_assignment() -> None:
    """The compiler's parser rejects `x += v` in a jit body too (its specialiser keeps it)."""
    analysis = analyse_source(
        "import pypto.language as pl\n\n\n@pl.jit\n"
        "def entry(x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]):\n"
        "    k = 0\n    k += 1\n"
        "    with pl.at(level=pl.Level.CORE_GROUP):\n"
        "        t = pl.load(x, [k], [64])\n        out = pl.store(t, [0], out)\n    return out\n"
    )
    (d,) = analysis.diagnostics
    assert (d.code, d.message, d.span.start_line) == (
        "PTO199",
        "Unsupported statement type: AugAssign",
        6,
    )  # 0-based: `k += 1`
    assert d.hint is not None and "`k = k + ...`" in d.hint
    assert [r.name for r in analysis.outlined] == ["entry_incore_0"]  # the rest is analysed
