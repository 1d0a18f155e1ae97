"""DSL definitions under a module-level `if` / `try` block are analysed as the module runs
(issue 11, real-code shapes): a condition that folds (with the module's names so far) selects
its branch alone, as the compiler sees only the definitions that ran; one that does not fold
leaves every branch analysed and the later definition of a name bound (as in builder bodies)."""

from __future__ import annotations

from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.results import FileAnalysis

from markers import extract

SOURCE = """
import pypto.language as pl

FLAVOR = {flavor}
HAS_PROGRAM = True


if FLAVOR == "flash":
    @pl.jit.inline
    def pick(x: pl.Tensor, out: pl.Out[pl.Tensor]):
        with {{|flash:pl.at(level=pl.Level.CORE_GROUP, name_hint="flash_pick")|}}:
            t = pl.load(x, [0], [16])
            out = pl.store(t, [0], out)
        return out
else:
    @pl.jit.inline
    def pick(x: pl.Tensor, out: pl.Out[pl.Tensor]):
        with {{|pro:pl.at(level=pl.Level.CORE_GROUP, name_hint="pro_pick")|}}:
            t = pl.load(x, [0], [16])
            out = pl.store(t, [0], out)
        return out


@pl.jit
def entry(x: pl.Tensor[[16], pl.FP32], out: pl.Out[pl.Tensor[[16], pl.FP32]]):
    out = pick(x, out)
    return out


try:
    @pl.program
    class Guarded:
        @pl.function
        def main(self, x: pl.Tensor[[16], pl.FP32]) -> pl.Tensor[[16], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="guarded"):
                x = pl.add(x, x)
            return x
except ImportError:
    pass
"""


def marked(flavor: str):
    return extract(SOURCE.format(flavor=flavor))


def summary(a: FileAnalysis) -> tuple[object, ...]:
    return (a.is_dsl, a.diagnostics, a.outlined, a.promoted, [p.name for p in a.programs])


def test_a_folded_condition_selects_its_branch_and_the_other_says_why() -> None:
    source = marked('"flash"')
    analysis = analyse_source(source.text)
    assert sorted(o.name for o in analysis.outlined) == ["flash_pick", "guarded"]
    (hint,) = analysis.diagnostics
    assert (hint.code, hint.span) == ("PTO605", source.named["pro"])
    assert "defined in a branch the module does not take" in hint.message
    other = marked('"pro"')
    assert sorted(o.name for o in analyse_source(other.text).outlined) == ["guarded", "pro_pick"]


def test_a_condition_that_does_not_fold_keeps_the_later_definition() -> None:
    source = marked("read_flavor()")  # unknown: both branches are analysed, `else` binds last
    analysis = analyse_source(source.text)
    assert sorted(o.name for o in analysis.outlined) == ["guarded", "pro_pick"]
    (hint,) = analysis.diagnostics
    assert (hint.code, hint.span) == ("PTO605", source.named["flash"])
    assert "a later definition of 'pick' replaces this one" in hint.message


def test_incremental_equals_fresh_as_the_condition_flips() -> None:
    analyzer = DocumentAnalyzer()
    for flavor in ['"flash"', '"pro"', "read_flavor()", '"flash"']:
        text = marked(flavor).text
        assert summary(analyzer.update(text)) == summary(analyse_source(text))
