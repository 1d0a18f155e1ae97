"""A module of inline helpers nothing in it calls is analysed as each helper's standalone
compilation would be shown (the scopes it brings to a caller), and a scope no program outlines
says why (PTO605)."""

from __future__ import annotations

import pytest

from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.diagnostics import Severity
from pypto_core.results import FileAnalysis

from markers import extract

# The shape of pypto-lib's helper-only modules: constants, two `@pl.jit.inline` helpers with
# scopes (one calling the other), a helper without a scope, no entry.
HELPERS = """
import pypto.language as pl

ROWS = 16
COLS = 128


@pl.jit.inline
def norm_rows(x: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Tensor[[ROWS, COLS], pl.FP32]):
    with ${norm}pl.at(level=pl.Level.CORE_GROUP, name_hint="norm_rows"):
        t = pl.load(x, [0, 0], [ROWS, COLS])
        pl.store(pl.exp(t), [0, 0], out)
    return out


@pl.jit.inline
def project(x: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Tensor[[ROWS, COLS], pl.FP32]):
    out = norm_rows(x, out)
    for block in ${spmd}pl.spmd(4):
        t = pl.load(x, [block * 4, 0], [4, COLS])
        pl.store(t, [block * 4, 0], out)
    return out


@pl.jit.inline
def scale(x: pl.Tensor[[ROWS, COLS], pl.FP32]):
    return pl.mul(x, 2.0)
"""


def test_a_helper_nothing_calls_is_analysed_standalone_with_the_helpers_it_splices() -> None:
    marked = extract(HELPERS)
    analysis = analyse_source(marked.text)
    assert [p.name for p in analysis.programs] == ["project"]  # norm_rows has a caller: project
    names = [(o.name, o.kind, o.parent, o.program, o.standalone) for o in analysis.outlined]
    assert names == [
        ("norm_rows", "InCore", "project", "project", True),
        ("project_incore_1", "InCore", "project_spmd_0", "project", True),
        ("project_spmd_0", "Spmd", "project", "project", True),
    ]
    norm = analysis.outlined[0]
    assert norm.header_span.start_line == marked.point("norm")[0]
    assert {p.name: p.direction.value for p in norm.params} == {"x": "In", "out": "Out"}
    assert analysis.promoted == []


def test_a_helper_gets_no_standalone_program_once_an_entry_calls_it() -> None:
    text = extract(HELPERS).text + (
        "\n\n@pl.jit\n"
        "def entry(x: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):\n"
        "    out = project(x, out)\n"
        "    return out\n"
    )
    analysis = analyse_source(text)
    assert [p.name for p in analysis.programs] == ["entry"]
    assert [(o.name, o.standalone) for o in analysis.outlined] == [
        ("norm_rows", False),
        ("entry_incore_1", False),  # named after the caller it is spliced into
        ("entry_spmd_0", False),
    ]


def test_what_the_passes_report_on_a_standalone_helper_is_left_to_its_callers() -> None:
    # the scalar `n` leaves the scope: PTO301 in a caller, not in the helper on its own
    text = extract(HELPERS).text.replace(
        "        pl.store(pl.exp(t), [0, 0], out)\n    return out",
        "        pl.store(pl.exp(t), [0, 0], out)\n        n = pl.read(x, [0, 0])\n    m = pl.read(x, [n, 0])\n    return out",
        1,
    )
    assert {d.code for d in analyse_source(text).diagnostics} == set()
    called = text + (
        "\n\n@pl.jit\n"
        "def entry(x: pl.Tensor[[ROWS, COLS], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, COLS], pl.FP32]]):\n"
        "    out = project(x, out)\n"
        "    return out\n"
    )
    assert "PTO301" in {d.code for d in analyse_source(called).diagnostics}


def test_a_builders_helper_is_standalone_too() -> None:
    text = """
import pypto.language as pl


def bind():
    @pl.jit.inline
    def local(x: pl.Tensor[[64], pl.FP32], out: pl.Tensor[[64], pl.FP32]):
        with pl.at(level=pl.Level.CORE_GROUP):
            pl.store(pl.load(x, [0], [64]), [0], out)
        return out

    return local
"""
    analysis = analyse_source(text)
    assert [(o.name, o.standalone) for o in analysis.outlined] == [("local_incore_0", True)]


def test_a_scope_outside_any_program_gets_a_hint_saying_why() -> None:
    marked = extract(
        """
        import pypto.language as pl


        def plain(x):
            with [|pl.at(level=pl.Level.CORE_GROUP)|]:
                pass


        @pl.jit.inline
        def helper(x: pl.Tensor[[64], pl.FP32]):
            with [|pl.at(level=pl.Level.CORE_GROUP, name_hint="first")|]:
                pass
            return x


        @pl.jit.inline
        def helper(x: pl.Tensor[[64], pl.FP32]):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="second"):
                pass
            return x
        """
    )
    analysis = analyse_source(marked.text)
    hints = [d for d in analysis.diagnostics if d.code == "PTO605"]
    assert [(d.severity, d.span) for d in hints] == [(Severity.HINT, span) for span in marked.ranges]
    assert "not inside a @pl.program function or jit kernel" in hints[0].message
    assert "a later definition of 'helper' replaces this one" in hints[1].message
    assert [o.name for o in analysis.outlined] == ["second"]


def test_a_construct_of_another_module_named_at_is_not_a_scope() -> None:
    text = "import pypto.language as pl\nimport other\n\n\ndef f():\n    with other.at(1):\n        pass\n"
    assert analyse_source(text).diagnostics == []


def summary(a: FileAnalysis) -> tuple[object, ...]:
    return (a.diagnostics, a.outlined, [p.name for p in a.programs])


@pytest.mark.parametrize(
    "edit",
    [
        lambda t: t.replace("    out = norm_rows(x, out)\n", ""),  # norm_rows loses its caller
        lambda t: t.replace("@pl.jit.inline\ndef project", "@pl.jit\ndef project"),  # an entry now
        lambda t: t.replace("ROWS = 16", "ROWS = 32"),
        lambda t: "# moved\n" + t,
    ],
)
def test_incremental_equals_fresh_on_helper_modules(edit) -> None:
    text = extract(HELPERS).text
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    edited = edit(text)
    assert summary(analyzer.update(edited)) == summary(analyse_source(edited))
    assert summary(analyzer.update(text)) == summary(analyse_source(text))
