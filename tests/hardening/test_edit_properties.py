"""Random edits never make the incremental analysis disagree with a fresh one, and never make
any analysis fail internally (PTO900) or raise."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from corpus import Edit, bursts, corpus, log_burst, real_path, text_of
from hypothesis import example, given, settings

from pypto_core.analysis import DocumentAnalyzer, analyse_source, outlined_program_text
from pypto_core.frontend import UnitSplitter, split_units
from pypto_core.frontend.imports import ModuleLookup
from pypto_core.results import FileAnalysis
from pypto_core.span import split_lines
from pypto_core.workspace import ModuleIndex, SearchPath

CORPUS = corpus()
EDITS = [0]  # edits applied in this session (reported by the module fixture)
INTERNAL_ERROR = "PTO900"
# Real files' imports (their sibling modules, read from disk, which no test changes): one index
# for the incremental and the fresh analyses, each asking it in a round of its own.
MODULES = ModuleIndex(search=SearchPath())


@pytest.fixture(scope="module", autouse=True)
def _report_edit_count() -> Iterator[None]:
    yield
    print(f"\nincremental analysis: {EDITS[0]} edits")


def summary(a: FileAnalysis) -> tuple[object, ...]:
    """Everything an analysis reports but its programs' IR (printed once per burst)."""
    return (a.is_dsl, a.diagnostics, a.outlined, a.promoted, a.dropped, a.helpers, a.unresolved, a.dsl_names)


def internal_errors(a: FileAnalysis) -> list[str]:
    return [d.message for d in a.diagnostics if d.code == INTERNAL_ERROR]


def imports_of(name: str) -> ModuleLookup | None:
    """A real file's imports as the server answers them for the file opened in place; an
    example imports nothing."""
    path = real_path(name)
    return MODULES.lookup_for(path) if path is not None else None


@given(case=bursts(CORPUS, max_size=12))
def test_incremental_analysis_equals_fresh_analysis_after_every_edit(case: tuple[str, list[Edit]]) -> None:
    name, burst = case
    text = CORPUS[name]
    analyzer = DocumentAnalyzer()
    analyzer.update(text, modules=imports_of(name))
    for edit in burst:
        text = edit.apply(text)
        EDITS[0] += 1
        incremental = analyzer.update(text, modules=imports_of(name))
        fresh = analyse_source(text, modules=imports_of(name))
        assert internal_errors(fresh) == []
        assert summary(incremental) == summary(fresh)
    # and the programs' IR, printed, once per burst (printing a real file costs a quarter of
    # its analysis): a reused or shifted program that kept a stale body
    assert outlined_program_text(incremental, raw=True) == outlined_program_text(fresh, raw=True)
    log_burst("edit-properties", name, len(burst))


def _prefix_cuts(text: str) -> list[int]:
    """Every line end, and three points inside each line (after its indent, middle, one before its end)."""
    cuts: set[int] = {0, len(text)}
    offset = 0
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\r\n")
        indent = len(body) - len(body.lstrip())
        cuts.update(offset + c for c in (indent, len(body) // 2, max(0, len(body) - 1)))
        offset += len(line)
        cuts.add(offset)
    return sorted(cuts)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_every_prefix_of_an_example_analyses_without_internal_errors(name: str) -> None:
    text = CORPUS[name]
    failures = []
    analyzer = DocumentAnalyzer()
    for cut in _prefix_cuts(text):
        fresh = analyse_source(text[:cut])
        failures += [(cut, m) for m in internal_errors(fresh)]
        assert summary(analyzer.update(text[:cut])) == summary(fresh), cut
    assert failures == []
    assert analyse_source(text).is_dsl


def unit_facts(units: list) -> list[tuple[object, ...]]:
    return [
        (u.kind, u.name, u.text, u.start_line, u.end_line, u.key, u.syntax_error, u.decorator) for u in units
    ]


@settings(max_examples=300)  # cheap: no analysis, only the split
@given(case=bursts(CORPUS, max_size=12))
@example(  # the text is cut off right where the first changed unit began
    case=(
        "JIT_CALLS",
        [
            Edit(start=0.498046875, length=110, insert="with pl.at(level=pl.Level.CORE_GROUP):\n"),
            Edit(start=0.0, length=110, insert=""),
            Edit(start=0.625, length=100, insert=""),
            Edit(start=0.0, length=155, insert=""),
            Edit(start=0.34375, length=42, insert=""),
        ],
    )
)
def test_the_incremental_unit_split_equals_a_fresh_split_after_every_edit(
    case: tuple[str, list[Edit]],
) -> None:
    name, burst = case
    text = text_of(CORPUS, name)
    splitter = UnitSplitter()
    splitter.split(split_lines(text))
    for edit in burst:
        text = edit.apply(text)
        lines = split_lines(text.removeprefix("\ufeff"))
        assert unit_facts(splitter.split(lines)) == unit_facts(split_units(text))
