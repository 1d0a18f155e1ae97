"""Scope surface (parser) cases of the compiler's own unit tests, re-expressed for our analysis.

Sources: hw-native-sys/pypto tests/ut/language/parser/test_scope_parsing.py and
test_split_aiv_parsing.py. An error case asserts the stable code §2.3 assigns to the compiler's
message; a shape case (the compiler inspects the parsed scope tree) asserts what that shape
becomes after outlining, which is what our analysis shows. Where §7 decides differently from
the compiler (D1 SubWorker, D5 callee evidence, D8 `deps=` without `as tid`), the test pins our
decision and names the difference.
"""

from __future__ import annotations

import textwrap

import pytest
from reference_util import clean, dispatch_of, outline

T512 = "pl.Tensor[[512, 128], pl.FP32]"

MAIN = f"""
@pl.function(type=pl.FunctionType.Orchestration)
def main(self, a: {T512}, out: pl.Out[{T512}]) -> {T512}:
{{body}}
    return out
"""

KERNEL = f"""
@pl.function(type=pl.FunctionType.InCore)
def kernel(self, a: {T512}, out: pl.Out[{T512}]) -> {T512}:
    t = pl.load(a, [0, 0], [512, 128])
    out = pl.store(t, [0, 0], out)
    return out
"""


def main_with(body: str, *, kernel: bool = False) -> str:
    members = MAIN.replace("{body}", textwrap.indent(textwrap.dedent(body).strip("\n"), "    "))
    return (KERNEL + members) if kernel else members


def _flat(text: str) -> str:
    return text.replace(" ", "").replace("'", '"')


# --- errors: one compiler case per row -------------------------------------------------------------

ERROR_CASES: list[tuple[str, str, str, bool]] = [
    # (compiler test, body of `main`, our code, needs the `kernel` function)
    (
        "test_parse_invalid_name_raises_error",
        """
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="has space"):
            t = pl.load(a, [0, 0], [128, 128])
        """,
        "PTO117",
        False,
    ),
    ("test_for_spmd_rejects_tuple_target", "for i, j in pl.spmd(4):\n    _ = i + j", "PTO161", False),
    ("test_for_spmd_rejects_chunk_kwarg", "for i in pl.spmd(4, chunk=2):\n    _ = i", "PTO162", False),
    (
        "test_for_spmd_rejects_init_values",
        "for i in pl.spmd(4, init_values=(0,)):\n    _ = i",
        "PTO162",
        False,
    ),
    ("test_for_spmd_requires_core_num", "for i in pl.spmd():\n    _ = i", "PTO151", False),
    ("test_for_spmd_rejects_zero_core_num", "for i in pl.spmd(0):\n    _ = i", "PTO152", False),
    ("test_for_spmd_rejects_float_core_num", "for i in pl.spmd(1.5):\n    _ = i", "PTO152", False),
    ("test_for_spmd_rejects_bool_core_num", "for i in pl.spmd(True):\n    _ = i", "PTO152", False),
    (
        "test_for_spmd_rejects_duplicate_core_num",
        "for i in pl.spmd(4, core_num=4):\n    _ = i",
        "PTO151",
        False,
    ),
    ("test_for_spmd_rejects_extra_positional", "for i in pl.spmd(4, 2):\n    _ = i", "PTO150", False),
    (
        "test_for_spmd_rejects_non_bool_sync_start",
        "for i in pl.spmd(4, sync_start=1):\n    _ = i",
        "PTO153",
        False,
    ),
    ("test_for_spmd_rejects_kwargs_unpacking", "for i in pl.spmd(**a):\n    _ = i", "PTO154", False),
    (
        "test_cross_core_slot_must_be_positive",
        """
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.cross_core_slot(slot_num=0)]):
            t = pl.load(a, [0, 0], [128, 128])
        """,
        "PTO119",
        False,
    ),
    (
        "test_split_slot_num_must_be_positive",
        """
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN, slot_num=0)]):
            t = pl.load(a, [0, 0], [128, 128])
        """,
        "PTO119",
        False,
    ),
    (
        "test_split_rejects_unknown_kwarg",
        """
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN, foo=1)]):
            t = pl.load(a, [0, 0], [128, 128])
        """,
        "PTO119",
        False,
    ),
    (
        "test_spmd_rejects_unknown_optimization_entry",
        "for i in pl.spmd(4, optimizations=[pl.range]):\n    _ = i",
        "PTO119",
        False,
    ),
    (
        "test_spmd_rejects_duplicate_split",
        "for i in pl.spmd(4, optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.split(pl.SplitMode.LEFT_RIGHT)]):\n    _ = i",
        "PTO119",
        False,
    ),
    (
        "test_spmd_rejects_non_list_optimizations (and ..._error_names_api)",
        "for i in pl.spmd(4, optimizations=pl.split(pl.SplitMode.NONE)):\n    _ = i",
        "PTO118",
        False,
    ),
    (
        "test_spmd_unsupported_entry_error_names_api",
        "for i in pl.spmd(4, optimizations=[42]):\n    _ = i",
        "PTO119",
        False,
    ),
    (
        "test_as_tid_tuple_target_rejected",
        """
        with pl.spmd(4) as (x, y):
            i = pl.tile.get_block_idx()
            out = pl.store(pl.load(a, [i * 128, 0], [128, 128]), [i * 128, 0], out)
        """,
        "PTO104",
        False,
    ),
    (
        "test_as_tid_nested_in_cluster_rejected",
        """
        with pl.cluster():
            with pl.spmd(4) as tid:
                i = pl.tile.get_block_idx()
                out = pl.store(pl.load(a, [i * 128, 0], [128, 128]), [i * 128, 0], out)
        """,
        "PTO159",
        False,
    ),
    (
        "test_other_scope_as_tid_still_rejected",
        """
        with pl.cluster() as tid:
            t = pl.load(a, [0, 0], [128, 128])
        """,
        "PTO103",
        False,
    ),
    (
        "test_inline_with_spmd_missing_block_idx_rejected",
        """
        with pl.spmd(4):
            t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [0, 0], [128, 128])
            out = pl.store(pl.add(t, t), [0, 0], out)
        """,
        "PTO156",
        False,
    ),
    (
        "test_inline_as_tid_missing_block_idx_rejected",
        """
        with pl.spmd(4) as tid:
            t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [0, 0], [128, 128])
            out = pl.store(pl.add(t, t), [0, 0], out)
        """,
        "PTO156",
        False,
    ),
    (
        "TestSpmdAllowEarlyResolve.test_cluster_nested_plain_with_form_rejected",
        """
        with pl.cluster():
            with pl.spmd(4, allow_early_resolve=True):
                out = self.kernel(a, out)
        """,
        "PTO160",
        True,
    ),
    (
        "TestSpmdAllowEarlyResolve.test_cluster_nested_for_form_rejected",
        """
        with pl.cluster():
            for i in pl.spmd(4, allow_early_resolve=True):
                t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [i * 128, 0], [128, 128])
                out = pl.store(t, [i * 128, 0], out)
        """,
        "PTO160",
        False,
    ),
    (
        "TestSpmdAllowEarlyResolve.test_cluster_nested_as_tid_form_rejected",
        """
        with pl.cluster():
            with pl.spmd(4, allow_early_resolve=True) as tid:
                i = pl.tile.get_block_idx()
                t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [i * 128, 0], [128, 128])
                out = pl.store(t, [i * 128, 0], out)
        """,
        "PTO159",
        False,
    ),
    (
        "TestSpmdAllowEarlyResolve.test_non_bool_literal_rejected_for_form",
        """
        for i in pl.spmd(4, allow_early_resolve=1):
            t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [i * 128, 0], [128, 128])
            out = pl.store(t, [i * 128, 0], out)
        """,
        "PTO153",
        False,
    ),
    (
        "TestSpmdAllowEarlyResolve.test_non_bool_literal_rejected_as_tid_form",
        """
        with pl.spmd(4, allow_early_resolve=1) as tid:
            i = pl.tile.get_block_idx()
            t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [i * 128, 0], [128, 128])
            out = pl.store(t, [i * 128, 0], out)
        """,
        "PTO153",
        False,
    ),
    (
        "test_optimizations_specified_on_both_scopes_rejected",
        """
        with pl.spmd(4, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)]):
                out = self.kernel(a, out)
        """,
        "PTO158",
        True,
    ),
    (
        "test_optimizations_on_outer_scope_only_with_carrier_rejected",
        """
        with pl.spmd(4, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            with pl.at(level=pl.Level.CORE_GROUP):
                out = self.kernel(a, out)
        """,
        "PTO158",
        True,
    ),
    (
        "test_multiple_kernel_dispatches_rejected",
        """
        with pl.spmd(4):
            b = self.kernel(a, out)
            out = self.kernel(a, out)
        """,
        "PTO157",
        True,
    ),
    # test_split_aiv_parsing.py
    (
        "TestSplitAivParsing.test_rejects_n_not_2",
        "for aiv_id in pl.split_aiv(4, mode=pl.SplitMode.UP_DOWN):\n    _ = aiv_id",
        "PTO174",
        False,
    ),
    (
        "TestSplitAivParsing.test_requires_mode",
        "for aiv_id in pl.split_aiv(2):\n    _ = aiv_id",
        "PTO175",
        False,
    ),
    (
        "TestSplitAivParsing.test_split_aiv_rejects_nested",
        """
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            for aiv2 in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                offset = (aiv_id + aiv2) * 128
                t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [offset, 0], [128, 128])
                out = pl.store(t, [offset, 0], out)
        """,
        "PTO170",
        False,
    ),
    (
        "TestSplitAivValidation.test_rejects_loop_kwarg",
        "for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN, init_values=(0,)):\n    _ = aiv_id",
        "PTO173",
        False,
    ),
    (
        "TestSplitAivValidation.test_rejects_co_present_optimizations",
        "for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):\n    _ = aiv_id",
        "PTO173",
        False,
    ),
    (
        "TestSplitAivValidation.test_rejects_tuple_target",
        "for i, j in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):\n    _ = i + j",
        "PTO172",
        False,
    ),
]


@pytest.mark.parametrize(
    ("body", "code", "kernel"),
    [pytest.param(body, code, kernel, id=name) for name, body, code, kernel in ERROR_CASES],
)
def test_scope_surface_error_is_reported_with_its_code(body: str, code: str, kernel: bool) -> None:
    r = outline(main_with(body, kernel=kernel))
    assert code in r.codes, [(d.code, d.message) for d in r.problems]
    assert all(d.severity.value == "error" for d in r.problems if d.code == code)


@pytest.mark.parametrize("stmt", ["break", "continue"])
def test_break_or_continue_in_split_aiv_body_is_an_error(stmt: str) -> None:
    """compiler: TestSplitAivParsing.test_split_aiv_rejects_break / _continue (InvalidOperationError
    "'break' not supported inside"; our loop-surface code from the §2.3.7 range is PTO198)."""
    r = outline(
        main_with(f"""
        for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
            offset = aiv_id * 128
            t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [offset, 0], [128, 128])
            out = pl.store(t, [offset, 0], out)
            {stmt}
        """)
    )
    assert r.errors == ["PTO198"]


# --- deliberate differences ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(
            """
            with pl.spmd(4, name_hint="s1") as tid0:
                i = pl.tile.get_block_idx()
                out = pl.store(pl.load(a, [i * 128, 0], [128, 128]), [i * 128, 0], out)
            with pl.spmd(4, deps=[tid0]):
                j = pl.tile.get_block_idx()
                out = pl.store(pl.load(out, [j * 128, 0], [128, 128]), [j * 128, 0], out)
            """,
            id="test_deps_without_tid_rejected",
        ),
        pytest.param(
            """
            for i in pl.spmd(4, deps=[]):
                t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [i * 128, 0], [128, 128])
                out = pl.store(t, [i * 128, 0], out)
            """,
            id="test_for_spmd_deps_rejected",
        ),
    ],
)
def test_spmd_deps_without_as_clause_is_accepted(body: str) -> None:
    """compiler: test_deps_without_tid_rejected, test_for_spmd_deps_rejected (PTO155 there).
    Deliberate difference (§7 D8): `deps=` is accepted on every `pl.spmd` form."""
    r = clean(main_with(body))
    assert "PTO155" not in r.codes
    assert any(o.kind == "Spmd" for o in r.fns.values())


def test_empty_deps_on_dispatch_body_without_as_clause_is_accepted() -> None:
    """compiler: test_empty_deps_without_tid_rejected (PTO155 there; accepted by §7 D8)."""
    r = clean(main_with("with pl.spmd(4, deps=[]):\n    out = self.kernel(a, out)", kernel=True))
    assert r.names == ["main_spmd_0"]


def test_subworker_hierarchy_inside_spmd_is_rejected() -> None:
    """compiler: test_non_core_group_scope_is_not_a_carrier. The compiler accepts
    `pl.at(level=CHIP_DIE, role=SubWorker)` as a Hierarchy scope; §7 D1 rejects an inline
    SubWorker at every level, so we report PTO122 on the same source."""
    r = outline(
        main_with("""
        with pl.spmd(4):
            with pl.at(level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker):
                i = pl.tile.get_block_idx()
                tl: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [i * 128, 0], [128, 128])
                out = pl.store(tl, [i * 128, 0], out)
        """)
    )
    assert "PTO122" in r.codes


# --- shapes: what the parsed scope becomes after outlining -----------------------------------------


def test_named_hierarchy_scope_takes_its_name_hint() -> None:
    """compiler: test_parse_named_hierarchy_scope."""
    r = clean("""
        @pl.function
        def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
            with pl.at(level=pl.Level.HOST, name_hint="host_func"):
                y: pl.Tensor[[64], pl.FP32] = pl.add(x, x)
            return y
        """)
    assert r.summary() == {"host_func": ("Hierarchy", [("x", "In")], ("y",))}


_LOOP_BODY = """
    offset = i * 128
    t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [offset, 0], [128, 128])
    out = pl.store(t, [offset, 0], out)
"""


def _spmd_loop(header: str) -> str:
    return main_with(f"for i in {header}:" + textwrap.indent(_LOOP_BODY, "    "))


@pytest.mark.parametrize(
    ("header", "core_num", "prelude"),
    [
        pytest.param("pl.spmd(core_num=4)", "4", "", id="test_for_spmd_accepts_core_num_kwarg"),
        pytest.param(
            "pl.spmd(core_num=max_ctx_blocks)",
            "64",
            "max_ctx_blocks = 64\n",
            id="test_for_spmd_accepts_closure_int_variable",
        ),
        pytest.param(
            "pl.spmd(core_num=MAX_CTX_BLOCKS // SB_BATCH)",
            "64",
            "MAX_CTX_BLOCKS = 128\nSB_BATCH = 2\n",
            id="test_for_spmd_accepts_closure_binop",
        ),
    ],
)
def test_spmd_block_count_spellings_reach_the_dispatch(header: str, core_num: str, prelude: str) -> None:
    """Module-level int constants fold statically, as the compiler folds closure ints."""
    source = "import pypto.language as pl\n\n" + prelude + "\n\n@pl.program\nclass Prog:\n"
    source += textwrap.indent(_spmd_loop(header).strip("\n"), "    ") + "\n"
    r = clean(source)
    [wrapper] = [o for o in r.fns.values() if o.kind == "Spmd"]
    assert f'"core_num":{core_num}' in _flat(wrapper.call.text)


def test_spmd_loop_sync_start_and_name_hint() -> None:
    """compiler: test_for_spmd_sync_start_and_name_hint."""
    r = clean(_spmd_loop('pl.spmd(8, sync_start=True, name_hint="my_kernel")'))
    assert set(r.names) == {"my_kernel", "my_kernel_spmd"}
    text = _flat(r.fns["my_kernel_spmd"].call.text)
    assert '"core_num":8' in text
    assert '"sync_start":True' in text


@pytest.mark.parametrize(
    ("hint", "incore", "spmd"),
    [
        pytest.param(
            "q_proj", "q_proj", "q_proj_spmd", id="test_for_spmd_name_hint_split_base_and_spmd_suffix"
        ),
        pytest.param(
            "gate_proj_spmd",
            "gate_proj",
            "gate_proj_spmd",
            id="test_for_spmd_name_hint_already_has_spmd_suffix",
        ),
    ],
)
def test_spmd_loop_name_hint_is_split_between_kernel_and_wrapper(hint: str, incore: str, spmd: str) -> None:
    r = clean(_spmd_loop(f'pl.spmd(4, name_hint="{hint}")'))
    assert (r.fns[incore].kind, r.fns[spmd].kind) == ("InCore", "Spmd")
    assert r.fns[incore].parent == spmd


def test_dispatch_body_without_optimizations_gets_no_incore_wrapper() -> None:
    """compiler: test_with_spmd_single_call_still_supported, test_with_spmd_no_optimizations_preserves_ir_shape."""
    r = clean(main_with("with pl.spmd(4):\n    out = self.kernel(a, out)", kernel=True))
    assert r.summary() == {"main_spmd_0": ("Spmd", [("a", "In"), ("out", "Out")], ("out",))}


@pytest.mark.parametrize(
    ("optimizations", "split"),
    [
        pytest.param(
            "[pl.split(pl.SplitMode.UP_DOWN)]", "UP_DOWN", id="test_for_spmd_split_sets_inner_incore_split"
        ),
        pytest.param(
            "[pl.optimizations.split(pl.SplitMode.LEFT_RIGHT)]",
            "LEFT_RIGHT",
            id="test_for_spmd_qualified_split_sets_inner_incore_split",
        ),
        pytest.param("[]", None, id="test_for_spmd_empty_optimizations_matches_no_kwarg"),
    ],
)
def test_spmd_loop_split_lands_on_the_kernel(optimizations: str, split: str | None) -> None:
    r = clean(_spmd_loop(f"pl.spmd(4, optimizations={optimizations})"))
    kernel = r.function("main_incore_0")
    value = kernel.attrs.get("split")
    assert getattr(value, "value", value) == split


def test_spmd_loop_cross_core_slot_lands_on_the_kernel() -> None:
    """compiler: test_for_spmd_cross_core_slot_sets_scope_attr."""
    r = clean(
        _spmd_loop(
            "pl.spmd(4, optimizations=[pl.split(pl.SplitMode.UP_DOWN), pl.cross_core_slot(slot_num=4)])"
        )
    )
    kernel = r.function("main_incore_0")
    assert kernel.attrs.get("slot_num") == 4
    assert getattr(kernel.attrs.get("split"), "value", kernel.attrs.get("split")) == "UP_DOWN"


def test_dispatch_body_with_split_is_wrapped_in_a_kernel_that_calls_the_user_kernel() -> None:
    """compiler: test_with_spmd_split_wraps_call_in_incore and test_with_spmd_split_splits_name_hint.

    Deliberate difference (§7 D5): the compiler's InCore pass does not resolve callees, so `out`
    (passed only to `kernel`'s Out slot) would stay `In` and the wrapper would return the
    kernel-allocated value; with callee evidence we make it `Out` and return the parameter."""
    r = clean(
        main_with(
            """
        with pl.spmd(4, name_hint="my_kernel", optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            out = self.kernel(a, out)
        """,
            kernel=True,
        )
    )
    assert r.summary() == {
        "my_kernel": ("InCore", [("a", "In"), ("out", "Out")], ("out",)),
        "my_kernel_spmd": ("Spmd", [("a", "In"), ("out", "Out")], ("out",)),
    }
    assert getattr(r.function("my_kernel").attrs.get("split"), "value", None) == "UP_DOWN"


@pytest.mark.parametrize("capture", ["", " as tid"])
def test_dispatch_body_with_slot_count_alone_is_wrapped_in_a_kernel(capture: str) -> None:
    """compiler: test_with_spmd_cross_core_slot_alone_wraps_call_in_incore and
    test_with_spmd_as_tid_cross_core_slot_alone_wraps_call_in_incore."""
    r = clean(
        main_with(
            f"with pl.spmd(4, optimizations=[pl.cross_core_slot(slot_num=8)]){capture}:\n    out = self.kernel(a, out)",
            kernel=True,
        )
    )
    [kernel] = [o for o in r.fns.values() if o.kind == "InCore"]
    assert r.function(kernel.name).attrs.get("slot_num") == 8
    [wrapper] = [o for o in r.fns.values() if o.kind == "Spmd"]
    assert wrapper.call.submit == bool(capture)


@pytest.mark.parametrize(
    "read",
    ["pl.tile.get_block_idx()", "pl.get_block_idx()", "pl.tensor.get_block_idx()"],
)
def test_inline_spmd_body_reading_the_block_index_is_outlined(read: str) -> None:
    """compiler: test_inline_with_spmd_no_tid_wraps_incore, test_inline_with_spmd_accepts_top_level_get_block_idx,
    test_block_idx_guard_matches_every_get_block_idx_spelling."""
    r = clean(
        main_with(f"""
        with pl.spmd(4, name_hint="stage1"):
            i = {read}
            t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [i * 128, 0], [128, 128])
            out = pl.store(pl.add(t, t), [i * 128, 0], out)
        """)
    )
    assert r.summary() == {
        "stage1": ("InCore", [("a", "In"), ("out", "Out")], ("out",)),
        "stage1_spmd": ("Spmd", [("a", "In"), ("out", "Out")], ("out",)),
    }
    assert not r.fns["stage1_spmd"].call.submit


@pytest.mark.parametrize(
    ("at_args", "capture"),
    [
        pytest.param("level=pl.Level.CORE_GROUP", "", id="keyword level"),
        pytest.param("pl.Level.CORE_GROUP", "", id="positional level"),
        pytest.param("level=pl.Level.CORE_GROUP", " as tid", id="with a TaskId capture"),
        pytest.param('level=pl.Level.CORE_GROUP, name_hint="k"', "", id="with a name hint"),
    ],
)
def test_explicit_carrier_is_not_wrapped_twice(at_args: str, capture: str) -> None:
    """compiler: test_carrier_recognised_across_spellings."""
    r = clean(
        main_with(f"""
        with pl.spmd(4):
            with pl.at({at_args}){capture}:
                i = pl.tile.get_block_idx()
                tl: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [i * 128, 0], [128, 128])
                out = pl.store(tl, [i * 128, 0], out)
        """)
    )
    assert [o.kind for o in r.fns.values()].count("InCore") == 1
    assert [o.kind for o in r.fns.values()].count("Spmd") == 1


def test_explicit_carrier_is_exempt_from_the_block_index_check() -> None:
    """compiler: test_explicit_carrier_exempt_from_block_differentiation_check."""
    r = outline("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
            with pl.spmd(4):
                with pl.at(level=pl.Level.CORE_GROUP):
                    out = pl.add(a, a)
            return out
        """)
    assert "PTO156" not in r.codes
    assert [o.kind for o in r.fns.values()].count("InCore") == 1


# --- split_aiv shapes -------------------------------------------------------------------------------

_SPLIT_BODY = """
for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.LEFT_RIGHT):
    offset = aiv_id * 128
    t: pl.Tile[[128, 128], pl.FP32] = pl.load(a, [offset, 0], [128, 128])
    out = pl.store(t, [offset, 0], out)
"""


def test_top_level_split_aiv_region_is_wrapped_and_outlined() -> None:
    """compiler: TestSplitAivParsing.test_top_level_wrapped_in_incore, test_builds_node_not_incore_attr,
    test_builds_node_none_mode."""
    r = clean(main_with(_SPLIT_BODY))
    assert r.summary() == {"main_incore_0": ("InCore", [("a", "In"), ("out", "Out")], ("out",))}
    assert "aiv_id" not in r.fns["main_incore_0"].param_names


def test_split_aiv_region_written_directly_in_an_incore_function_is_reported() -> None:
    """compiler: test_incore_function_gets_no_wrapper (the parser emits the region bare; the
    AivSplitValid check (h) then rejects an authored region in an InCore function: PTO510)."""
    source = main_with(_SPLIT_BODY).replace("pl.FunctionType.Orchestration", "pl.FunctionType.InCore")
    r = outline(source)
    assert r.names == []
    assert "PTO510" in r.codes


def test_split_aiv_region_in_an_incore_function_stamped_split_aiv_is_accepted() -> None:
    # the `split_aiv` attribute is AivSplitValid's sign that the outliner made the function (a
    # printed outlined function carries it), so its bare region is no authoring error
    source = main_with(_SPLIT_BODY).replace(
        "pl.FunctionType.Orchestration", 'pl.FunctionType.InCore, attrs={"split_aiv": True}'
    )
    assert "PTO510" not in outline(source).codes


def test_split_aiv_region_in_a_loop_inside_a_named_scope() -> None:
    """compiler: test_nested_in_loop_builds_node (a parse-shape test; the direction is ours).

    `out` is written only through the carry of the loop inside the scope (the store's destination
    is that loop's iter_arg). The spec lifts "a captured tensor the scope writes" off `In`; seeding
    the carry is a use outside a write slot, a read, so `InOut`. (The compiler snapshot's
    store-target set skips iter_arg destinations and would leave it `In`.)"""
    r = clean("""
        @pl.function(type=pl.FunctionType.Opaque)
        def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="qk"):
                a_l1 = pl.load(a, [0, 0], [64, 64], target_memory=pl.MemorySpace.Mat)
                b_l1 = pl.load(b, [0, 0], [64, 64], target_memory=pl.MemorySpace.Mat)
                a_left = pl.move(a_l1, target_memory=pl.MemorySpace.Left)
                b_right = pl.move(b_l1, target_memory=pl.MemorySpace.Right)
                qk = pl.matmul(a_left, b_right)
                for i in pl.range(2):
                    for aiv_id in pl.split_aiv(2, mode=pl.SplitMode.UP_DOWN):
                        qk_h = pl.aiv_shard(qk)
                        sc = pl.mul(qk_h, 2.0)
                        offset = aiv_id * 32
                        out = pl.store(sc, [offset, 0], out)
            return out
        """)
    assert r.names == ["qk"]
    assert r.fns["qk"].params == (("a", "In"), ("b", "In"), ("out", "InOut"))
    assert r.function("qk").attrs.get("split_aiv") is True


def test_dump_tag_before_a_bare_split_aiv_region_reaches_the_dispatch() -> None:
    """compiler: test_split_aiv_bare_form_merges_dump_tag."""
    r = clean(main_with("pl.dump_tag(a)\n" + _SPLIT_BODY))
    assert "dump_vars" in dispatch_of(r.function("main"), "main_incore_0").attrs


def test_deprecated_split_with_slot_count_reads_as_cross_core_slot() -> None:
    """compiler: test_deprecated_split_slot_num_prints_as_cross_core_slot (a DeprecationWarning
    naming `pl.cross_core_slot` there; a non-error note here) and test_at_incore_cross_core_slot_roundtrips
    (the kernel carries both the split mode and the slot count)."""
    r = clean(_spmd_loop("pl.spmd(4, optimizations=[pl.split(pl.SplitMode.UP_DOWN, slot_num=4)])"))
    kernel = r.function("main_incore_0")
    assert kernel.attrs.get("slot_num") == 4
    assert getattr(kernel.attrs.get("split"), "value", None) == "UP_DOWN"
    notes = [d for d in r.analysis.diagnostics if d.severity.value in ("info", "hint")]
    assert any("cross_core_slot" in d.message + (d.hint or "") for d in notes)
