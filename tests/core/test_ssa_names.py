"""The auto-name grammar shared by ConvertToSSA and the outliners (`base__[qualifier_][role_]vN`)."""

from __future__ import annotations

import pytest

from pypto_core.passes.names import NameAllocator, ParsedName, base_name, build_name, parse_name, ssa_name


@pytest.mark.parametrize(
    ("name", "parsed"),
    [
        ("out", ParsedName("out")),
        ("out__ssa_v1", ParsedName("out", "", "ssa", 1)),
        ("acc__iter_v12", ParsedName("acc", "", "iter", 12)),
        ("ret__tmp_v0", ParsedName("ret", "", "tmp", 0)),
        ("out__store", ParsedName("out", "", "store", None)),
        ("x__l0_rm_rv_v3", ParsedName("x", "l0_rm", "rv", 3)),
        ("x__v2", ParsedName("x", "", None, 2)),
        ("my_kernel_0", ParsedName("my_kernel_0")),
        ("__dunder", ParsedName("__dunder")),
    ],
)
def test_parse_name(name: str, parsed: ParsedName) -> None:
    assert parse_name(name) == parsed
    assert build_name(parsed.base, parsed.qualifier, parsed.role, parsed.version) == name


def test_base_name_is_the_users_name() -> None:
    assert base_name("out__rv_v2") == "out"
    assert base_name("tile_a") == "tile_a"


def test_base_name_strips_stacked_splice_suffixes() -> None:
    # a helper spliced into a helper that is spliced in turn: `request_inline1_inline16`
    assert base_name("request_inline1_inline16__ssa_v0") == "request"
    assert base_name("row_inline_x") == "row_inline_x"  # not a splice counter


def test_ssa_name_rebases_names_that_already_carry_a_suffix() -> None:
    assert ssa_name("x", "phi", 2) == "x__phi_v2"
    assert ssa_name("out__ssa_v0", "iter", 1) == "out__iter_v1"
    assert ssa_name("t__l0_ssa_v4", "rv", 5) == "t__l0_rv_v5"


def test_fresh_like_takes_the_next_unused_version_after_the_names_own() -> None:
    names = NameAllocator.of(["out__ssa_v0", "out__ssa_v1", "out__iter_v2"])
    assert names.fresh_like("out__ssa_v0") == "out__ssa_v2"  # v1 is taken
    assert names.fresh_like("out__ssa_v0") == "out__ssa_v3"  # the previous answer is reserved
    assert names.fresh_like("ret", "tmp") == "ret__tmp_v0"
    assert names.fresh_like("tid") == "tid__ssa_v0"


def test_fresh_like_is_the_smallest_free_version_from_the_names_own_whatever_was_minted_before() -> None:
    """The allocator remembers how far each name's versions are taken (so the N-th `ret__tmp`
    of a function is not found by testing N names); names reserved around it, and a mint from
    a later version, leave the answer the smallest free one."""
    names = NameAllocator.of(["x__tmp_v0", "x__tmp_v1", "x__tmp_v2"])
    assert names.fresh_like("x", "tmp") == "x__tmp_v3"
    names.reserve("x__tmp_v5")
    assert [names.fresh_like("x", "tmp") for _ in range(2)] == ["x__tmp_v4", "x__tmp_v6"]
    assert names.fresh_like("x__tmp_v7") == "x__tmp_v8"  # from after its own version
    assert [names.fresh_like("x", "tmp") for _ in range(2)] == ["x__tmp_v7", "x__tmp_v9"]
    names.reserve("x__tmp_v10")
    assert names.fresh_like("x__tmp_v1") == "x__tmp_v11"
    assert names.fresh_like("x", "ssa") == "x__ssa_v0"  # each role counts apart


def test_fresh_version_is_one_number_free_for_every_role() -> None:
    names = NameAllocator.of(["out__ssa_v0", "out__ssa_v1", "out__rv_v1"])
    assert names.fresh_version("out__ssa_v1", ("iter", "rv"), start=1) == 2
    assert {"out__iter_v2", "out__rv_v2"} <= names.used
    assert names.fresh_version("out", ("iter", "rv"), start=1) == 3


def test_unique_suffixes_a_taken_candidate() -> None:
    names = NameAllocator.of(["my_kernel"])
    assert names.unique("other") == "other"
    assert names.unique("my_kernel") == "my_kernel_0"
    assert names.unique("my_kernel") == "my_kernel_1"
    assert "my_kernel_1" in names
