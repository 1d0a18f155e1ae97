"""A keystroke inside a program does not rebuild the module context (issue 20: with 20,000
module constants it refolded every one of them per keystroke); any edit to what the context
is built from (a constant, an import, an inline helper, a decorator, an imported module) does,
and the incremental result equals a fresh analysis either way."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pypto_core import frontend
from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.results import FileAnalysis
from pypto_core.workspace import ModuleIndex, SearchPath

HEADER = "import pypto.language as pl\n\nN = 64\nM = N * 2\n\n"
HELPER = """
@pl.inline
def twice(t: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    return pl.add(t, t)
"""
PROGRAM = """
@pl.program
class P:
    @pl.function
    def main(self, x: pl.Tensor[[N], pl.FP32]) -> pl.Tensor[[N], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            y = pl.add(x, x)
        return y
"""
TEXT = HEADER + HELPER + PROGRAM


def summary(a: FileAnalysis) -> tuple[object, ...]:
    return (a.is_dsl, a.diagnostics, a.outlined, a.promoted, [p.name for p in a.programs])


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many times the module context was built (`frontend.module_context` calls)."""
    count = [0]
    build = frontend.module_context

    def counted(*args: object, **kwargs: object) -> object:
        count[0] += 1
        return build(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(frontend, "module_context", counted)
    yield count


def test_typing_inside_a_program_keeps_the_module_context(builds: list[int]) -> None:
    analyzer = DocumentAnalyzer()
    analyzer.update(TEXT)
    assert builds[0] == 1
    for edited in (
        TEXT.replace("y = pl.add(x, x)", "y = pl.add(x, x)  # typing"),
        TEXT.replace("y = pl.add(x, x)", "y = pl.add(x, x)\n\n            z = y"),  # lines added
        TEXT.replace("y = pl.add(x, x)", "y = pl.mul(x, x)"),
    ):
        result = analyzer.update(edited)
        assert summary(result) == summary(analyse_source(edited))
    assert builds[0] == 1 + 3  # (the fresh analyses built theirs)


@pytest.mark.parametrize(
    "edit",
    [
        ("M = N * 2", "M = N * 3"),  # a constant
        ("N = 64", "N = 32"),  # a constant the program's types read
        ("import pypto.language as pl", "import pypto.language as pl\nimport pypto.language as pk"),
        ("return pl.add(t, t)", "return pl.mul(t, t)"),  # an inline helper's body
        ("@pl.program\nclass P:", "@pl.jit\nclass P:"),  # a decorator
        ("class P:", "class Q:"),  # the name a definition binds
        ("\n@pl.program", "\nP = 1\n@pl.program"),  # a statement added before the program
    ],
)
def test_an_edit_to_what_the_context_is_built_from_rebuilds_it(
    builds: list[int], edit: tuple[str, str]
) -> None:
    analyzer = DocumentAnalyzer()
    analyzer.update(TEXT)
    edited = TEXT.replace(*edit, 1)
    assert edited != TEXT
    result = analyzer.update(edited)
    assert builds[0] == 2
    assert summary(result) == summary(analyse_source(edited))


def test_a_changed_imported_module_rebuilds_the_context(tmp_path: Path) -> None:
    config = tmp_path / "config.py"
    config.write_text("ROWS = 64\n")
    model = tmp_path / "model.py"
    text = "import pypto.language as pl\nfrom config import ROWS\n" + PROGRAM.replace("[N]", "[ROWS]")
    model.write_text(text)
    index = ModuleIndex(search=SearchPath(extra=()))
    analyzer = DocumentAnalyzer()
    first = analyzer.update(text, modules=index.lookup_for(model))
    assert [p.type for o in first.outlined for p in o.params] == ["Tensor[[64], FP32]"]
    config.write_text("ROWS = 128\n")
    index.changed(config)
    typed = text.replace("y = pl.add(x, x)", "y = pl.add(x, x)  # typing")
    second = analyzer.update(typed, modules=index.lookup_for(model))
    assert [p.type for o in second.outlined for p in o.params] == ["Tensor[[128], FP32]"]
    fresh = analyse_source(typed, str(model), ModuleIndex(search=SearchPath(extra=())).lookup_for(model))
    assert summary(second) == summary(fresh)
