"""Binder functions: a module-level `X = f()` where `f` only defines a DSL helper named X (in
any branch) and returns it, the way pypto-lib picks one of two implementations
(`hc_pre = _bind_hc_pre()`). The name is the definition the call runs last, read without
running anything, in the module and in its importers; an environment read with a default is
its default."""

from __future__ import annotations

import textwrap
from pathlib import Path

from pypto_core.analysis import analyse_source
from pypto_core.workspace import ModuleIndex, SearchPath

T = "pl.Tensor[[64], pl.FP32]"

HELPERS = (
    textwrap.dedent(
        """
    import os

    import pypto.language as pl

    VARIANT = os.environ.get("MY_VARIANT", "Split").lower()


    @pl.jit.inline
    def _split(a: T, out: pl.Out[T]):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="split_first"):
            t = pl.load(a, [0], [64])
            out = pl.store(pl.add(t, 1.0), [0], out)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="split_second"):
            t = pl.load(out, [0], [64])
            out = pl.store(pl.add(t, 2.0), [0], out)
        return out


    @pl.jit.inline
    def _fused(a: T, out: pl.Out[T]):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="fused"):
            t = pl.load(a, [0], [64])
            out = pl.store(pl.add(t, 3.0), [0], out)
        return out


    def _bind_step():
        \"\"\"Pick the implementation.\"\"\"
        if VARIANT == "split":
            @pl.jit.inline
            def step(a: T, out: pl.Out[T]):
                _split(a, out)
                return out
        else:
            @pl.jit.inline
            def step(a: T, out: pl.Out[T]):
                _fused(a, out)
                return out
        return step


    step = _bind_step()


    @pl.jit
    def step_test(a: T, out: pl.Out[T]):
        step(a, out)
        return out


    if __name__ == "__main__":
        VARIANT = "fused"
        step = _bind_step()
    """
    )
    .replace("T)", f"{T})")
    .replace("T]", f"{T}]")
    .replace(": T,", f": {T},")
)

IMPORTER = textwrap.dedent(
    f"""
    import pypto.language as pl

    from helpers import step


    @pl.jit
    def model(a: {T}, out: pl.Out[{T}]):
        step(a, out)
        return out
    """
)


def _names(text: str, program: str) -> list[str]:
    return [r.name for r in analyse_source(text).outlined if r.program == program]


def test_the_name_a_binder_call_binds_is_the_definition_its_taken_branch_returns() -> None:
    # VARIANT is the environment read's default lowered: "split"; the __main__ block's
    # rebinding is the script's, not what importing the module binds
    assert _names(HELPERS, "step_test") == ["split_first", "split_second"]


def test_a_condition_that_does_not_fold_runs_both_branches_and_the_later_definition_wins() -> None:
    text = HELPERS.replace('os.environ.get("MY_VARIANT", "Split").lower()', "os.environ['MY_VARIANT']")
    assert text != HELPERS
    assert _names(text, "step_test") == ["fused"]


def test_a_binder_that_does_more_than_define_its_helper_is_not_followed() -> None:
    text = HELPERS.replace('"""Pick the implementation."""', "counter = 1")
    assert text != HELPERS
    assert _names(text, "step_test") == []


def test_an_importer_splices_the_helper_a_binder_call_bound(tmp_path: Path) -> None:
    (tmp_path / "helpers.py").write_text(HELPERS, encoding="utf-8")
    (tmp_path / "model.py").write_text(IMPORTER, encoding="utf-8")
    index = ModuleIndex(search=SearchPath(extra=()))
    analysis = analyse_source(IMPORTER, str(tmp_path / "model.py"), index.lookup_for(tmp_path / "model.py"))
    assert [(r.program, r.name) for r in analysis.outlined] == [
        ("model", "split_first"),
        ("model", "split_second"),
    ]
