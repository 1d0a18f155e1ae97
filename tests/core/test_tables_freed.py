"""The per-statement tables the passes keep for the next keystroke (weak by statement) hold
nothing once the analyses that met those statements are dropped: no kept value may hold its
own key, directly or through another table's value (a weak table never frees such an entry,
and a one-shot `pypto-check` over a tree paid a third more memory for them)."""

from __future__ import annotations

import gc
import importlib
import weakref
from types import ModuleType

from test_ssa_kept import EDITS, ENTRY

from pypto_core.analysis import DocumentAnalyzer, analyse_source

_MODULES: tuple[ModuleType, ...] = tuple(
    importlib.import_module(f"pypto_core.passes.{name}")
    for name in (
        "dead_scalars",
        "inline_functions",
        "outline_memo",
        "prefix_rejections",
        "simplify",
        "ssa",
        "stmt_facts",
        "unroll_loops",
    )
)


def _filled() -> dict[str, int]:
    """Each non-empty weak table of the passes, by name, with its entry count."""
    found = {}
    for module in _MODULES:
        for name, value in vars(module).items():
            if isinstance(value, weakref.WeakKeyDictionary) and len(value):
                found[f"{module.__name__}.{name}"] = len(value)
    return found


def test_the_tables_are_filled_while_an_analysis_lives_and_empty_once_it_is_dropped() -> None:
    analyzer = DocumentAnalyzer()
    text = ENTRY
    analyzer.update(text)
    for name in sorted(EDITS):  # each edit, then back: statements met two and three times
        analyzer.update(EDITS[name](ENTRY))
        analyzer.update(text)
    gc.collect()
    assert set(_filled()) >= {
        f"pypto_core.passes.{t}" for t in ("ssa._KNOWN", "simplify._KEPT", "outline_memo._MADE")
    }
    del analyzer
    gc.collect()
    assert _filled() == {}


def test_a_one_shot_analysis_leaves_the_tables_empty() -> None:
    analysis = analyse_source(ENTRY)
    assert analysis.outlined
    del analysis
    gc.collect()
    assert _filled() == {}
