"""The final records of the scopes a keystroke left (`records.finalise_records`: each scope's
record revised from the final program, its call site and function) are the records of before
when their sites and functions are the objects of before (`records._FINALS`), so a keystroke in
a whole-model program revises the records of the path to the edit, not its hundreds of scopes;
after every edit they are what a fresh analysis gives, and the table keeps nothing of an
analysis once it is dropped."""

from __future__ import annotations

import gc

from test_analysis_incremental import full, summary
from test_ssa_kept import EDITS, ENTRY

from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.passes import records


def _typed(k: int) -> str:
    return ENTRY.replace('name_hint="layer"', 'name_hint="layer' + "z" * k + '"')


def test_a_keystroke_keeps_the_final_records_of_the_scopes_it_left() -> None:
    analyzer = DocumentAnalyzer()
    for k in range(3):  # from the third on the outliners replay the visits the keystroke left
        analyzer.update(_typed(k))
    before = {r.name: r for r in analyzer.update(_typed(3)).outlined}
    after = {r.name: r for r in analyzer.update(_typed(4)).outlined}
    assert "layerzzz" in before and "layerzzzz" in after
    kept = {name for name in after if name in before and after[name] is before[name]}
    # all but the edited scope's and that of the helper spliced beside it in the loop (the
    # outliners make its record anew: the loop is the path to the edit)
    assert kept == set(after) - {"layerzzzz", "mix_0"}
    assert full(analyzer.update(_typed(5))) == full(analyse_source(_typed(5)))


def test_after_each_edit_the_records_are_a_fresh_analysis_s_and_the_table_is_freed_after() -> None:
    earlier = set(records._FINALS)
    analyzer = DocumentAnalyzer()
    analyzer.update(ENTRY)
    for name in sorted(EDITS):  # each edit, then back: records met two and three times
        for text in (EDITS[name](ENTRY), ENTRY, EDITS[name](ENTRY)):  # (`summary`: a tensor
            assert summary(analyzer.update(text)) == summary(analyse_source(text)), name  # type's
    # `distributed` flag, no part of its value, differs in the IR's repr after some of these)
    assert set(records._FINALS) - earlier
    del analyzer
    gc.collect()
    assert not set(records._FINALS) - earlier
