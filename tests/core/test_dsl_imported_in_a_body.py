"""A file that imports the DSL only inside a function (`def build(): import pypto.language as
pl`, a test method doing the same) is a DSL file: the compiler parses the program when the
function runs, with the module's names and the function's own as its closure."""

from __future__ import annotations

from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.results import FileAnalysis

from markers import extract

BUILDER = extract(
    """
    from pypto import ir  # not the DSL: the module itself is no DSL file

    N = 64


    def build(rows):
        import pypto.language as pl

        @pl.program
        class P:
            @pl.function
            def main(self, x: pl.Tensor[[N, 32], pl.FP32]) -> pl.Tensor[[N, 32], pl.FP32]:
                ${scope}with pl.at(level=pl.Level.CORE_GROUP, name_hint="tile"):
                    t = pl.load(x, [0, 0], [N, 32])
                    x = pl.store(t, [0, 0], x)
                return x

        return P


    class TestKernels:
        def test_kernel(self, tmp_path):
            from pypto import language as lang

            @lang.jit
            def kernel(a: lang.Tensor[[16], lang.FP32], out: lang.Out[lang.Tensor[[16], lang.FP32]]):
                ${spmd}with lang.at(level=lang.Level.CORE_GROUP, name_hint="rows"):
                    t = lang.load(a, [0], [16])
                    out = lang.store(t, [0], out)
                return out
    """
)


def summary(a: FileAnalysis) -> tuple[object, ...]:
    return (a.is_dsl, a.diagnostics, a.outlined, a.promoted, [p.name for p in a.programs])


def test_programs_of_a_body_importing_the_dsl_are_analysed_with_the_module_names() -> None:
    analysis = analyse_source(BUILDER.text)
    assert analysis.is_dsl
    by_name = {o.name: o for o in analysis.outlined}
    assert {"tile", "rows"} <= set(by_name)
    assert by_name["tile"].header_span.start_line == BUILDER.point("scope")[0]
    assert [(p.name, p.direction.value, p.type) for p in by_name["tile"].params] == [
        ("x", "InOut", "Tensor[[64, 32], FP32]")  # N folded from the module's constant
    ]
    assert by_name["rows"].header_span.start_line == BUILDER.point("spmd")[0]
    assert [d.code for d in analysis.diagnostics] == []


def test_a_body_importing_something_else_is_no_dsl_file() -> None:
    text = "import os\n\n\ndef build():\n    import pypto\n    from pypto import ir\n    return os, ir\n"
    assert not analyse_source(text).is_dsl


def test_incremental_equals_fresh_when_the_body_import_comes_and_goes() -> None:
    analyzer = DocumentAnalyzer()
    texts = [
        BUILDER.text,
        BUILDER.text.replace("import pypto.language as pl", "import pypto.lang as pl"),  # no DSL now
        BUILDER.text.replace("N = 64", "N = 128"),
        BUILDER.text,
    ]
    for text in texts:
        assert summary(analyzer.update(text)) == summary(analyse_source(text))
    assert {o.name for o in analyse_source(texts[1]).outlined} == {"rows"}  # the test method's import
