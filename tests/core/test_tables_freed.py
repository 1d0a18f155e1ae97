"""The per-statement tables the passes keep for the next keystroke (weak by statement) hold
nothing once the analyses that met those statements are dropped: no kept value may hold its
own key, directly or through another table's value (a weak table never frees such an entry,
and a one-shot `pypto-check` over a tree paid a third more memory for them)."""

from __future__ import annotations

import gc
import importlib
import weakref
from collections.abc import Iterator
from types import ModuleType

import pytest
from test_ssa_kept import EDITS, ENTRY

from pypto_core.analysis import DocumentAnalyzer, analyse_source

_MODULES: tuple[ModuleType, ...] = tuple(
    importlib.import_module(f"pypto_core.passes.{name}")
    for name in (
        "dead_scalars",
        "inline_functions",
        "outline_memo",
        "outline_replay",
        "prefix_rejections",
        "records",
        "simplify",
        "ssa",
        "stmt_facts",
        "unroll_loops",
        "verify",
    )
)


def _tables() -> dict[str, weakref.WeakKeyDictionary[object, object]]:
    return {
        f"{module.__name__}.{name}": value
        for module in _MODULES
        for name, value in vars(module).items()
        if isinstance(value, weakref.WeakKeyDictionary)
    }


@pytest.fixture
def earlier() -> Iterator[list[object]]:
    """The keys the tables hold before the test (other tests' analyses still alive), held
    while it runs so that no new key can take one's identity."""
    yield [key for table in _tables().values() for key in list(table.keys())]


def _filled(earlier: list[object]) -> dict[str, int]:
    """Each weak table of the passes holding keys the test added, by name, with their count."""
    old = {id(key) for key in earlier}
    found = {}
    for name, table in _tables().items():
        added = sum(1 for key in list(table.keys()) if id(key) not in old)
        if added:
            found[name] = added
    return found


def test_the_tables_are_filled_while_an_analysis_lives_and_empty_once_it_is_dropped(
    earlier: list[object],
) -> None:
    analyzer = DocumentAnalyzer()
    text = ENTRY
    analyzer.update(text)
    for name in sorted(EDITS):  # each edit, then back: statements met two and three times
        analyzer.update(EDITS[name](ENTRY))
        analyzer.update(text)
    gc.collect()
    assert set(_filled(earlier)) >= {
        f"pypto_core.passes.{t}" for t in ("ssa._KNOWN", "simplify._KEPT", "outline_memo._MADE")
    }
    del analyzer
    gc.collect()
    assert _filled(earlier) == {}


def test_a_one_shot_analysis_leaves_the_tables_empty(earlier: list[object]) -> None:
    analysis = analyse_source(ENTRY)
    assert analysis.outlined
    del analysis
    gc.collect()
    assert _filled(earlier) == {}


# an entry splicing a `@pl.inline` helper: the module context holds the helper's tree (it reads
# the whole tree of such a helper), so each character typed into it makes a new context
INLINE_HELPER_FILE = """\
import pypto.language as pl

ROWS = 16


@pl.inline
def helper(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="h"):
        t = pl.load(x, [0, 0], [ROWS, 64])
        out = pl.store(t, [0, 0], out)
    return out


@pl.jit
def entry(x: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    out = helper(x, out)
    return out
"""


def test_the_front_ends_tables_keep_no_module_context_of_an_earlier_keystroke_alive() -> None:
    # the tables kept per tree (a decorator's reading, a host's allocations, construct lines)
    # hold the context they were made in weakly: it holds the helper's tree, their key
    from pypto_core.frontend.context import ModuleContext

    anchor = INLINE_HELPER_FILE.index('name_hint="h') + len('name_hint="h')
    analyzer = DocumentAnalyzer()
    live = []
    for typed in range(6):
        analyzer.update(INLINE_HELPER_FILE[:anchor] + "x" * typed + INLINE_HELPER_FILE[anchor:])
        assert not analyzer._contexts.reused or typed == 0
        gc.collect()
        live.append(sum(isinstance(o, ModuleContext) for o in gc.get_objects()))
    assert live[-1] <= live[1]
