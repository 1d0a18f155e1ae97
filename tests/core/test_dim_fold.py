"""Where a `pl.tensor.dim` read of a dynamic extent folds onto its `pl.dynamic` symbol (spec 000
"Param dyn-dim reads fold on promotion"; the compiler's `ASTParser._fold_tensor_dim`): the
parser folds in an Orchestration body, the InCore pass in a promoted Opaque parent; an inline
helper's read stays a variable, spliced or not, so the kernel's parameter keeps its name."""

from __future__ import annotations

from outline_cases import Run, clean
from test_analysis_incremental import each_edit_then_undone

from pypto_core.printer import print_function
from pypto_core.results import FileAnalysis

_MODULE = """
import pypto.language as pl

M = pl.dynamic("M")


@pl.jit.inline
def halve(a: pl.Tensor[[M, 64], pl.FP32], out: pl.Tensor[[M, 64], pl.FP32]) -> pl.Tensor[[M, 64], pl.FP32]:
    rows = pl.tensor.dim(a, 0)
    with pl.at(level=pl.Level.CORE_GROUP):
        out[0 : rows // 2, :] = pl.add(a[0 : rows // 2, :], 1.0)
    return out
"""


def clean_with_helper(entry: str) -> Run:
    return clean(_MODULE + entry)


def test_an_orchestration_body_s_own_read_folds_onto_the_symbol() -> None:
    r = clean_with_helper("""

@pl.jit
def entry(a: pl.Tensor[[M, 64], pl.FP32], out: pl.Out[pl.Tensor[[M, 64], pl.FP32]]) -> pl.Tensor[[M, 64], pl.FP32]:
    n = pl.tensor.dim(a, 0)
    with pl.at(level=pl.Level.CORE_GROUP):
        out[0 : n // 2, :] = pl.add(a[0 : n // 2, :], 1.0)
    return out
""")
    assert {name for name, _ in r.params("entry_incore_0")} == {"M", "a", "out"}
    assert "tensor.dim" not in print_function(r.function("entry"))


def test_a_read_spliced_from_an_inline_helper_stays_a_variable() -> None:
    """The compiler parses the helper as Inline, where `tensor.dim` stays a runtime read, and
    InlineFunctions splices it into the Orchestration entry as it is (pypto-lib: `t_dim`, not
    `T_DYN`)."""
    r = clean_with_helper("""

@pl.jit
def entry(a: pl.Tensor[[M, 64], pl.FP32], out: pl.Out[pl.Tensor[[M, 64], pl.FP32]]) -> pl.Tensor[[M, 64], pl.FP32]:
    out = halve(a, out)
    return out
""")
    assert {name for name, _ in r.params("entry_incore_0")} == {"rows", "a", "out"}
    assert "tensor.dim" in print_function(r.function("entry"))


def test_a_promoted_opaque_parent_folds_the_spliced_read_too() -> None:
    """Promotion folds the whole body after InlineFunctions, helper code included."""
    r = clean("""
import pypto.language as pl

M = pl.dynamic("M")


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Inline)
    def halve(self, a: pl.Tensor[[M, 64], pl.FP32], out: pl.Tensor[[M, 64], pl.FP32]) -> pl.Tensor[[M, 64], pl.FP32]:
        rows = pl.tensor.dim(a, 0)
        with pl.at(level=pl.Level.CORE_GROUP):
            out[0 : rows // 2, :] = pl.add(a[0 : rows // 2, :], 1.0)
        return out

    @pl.function
    def main(self, a: pl.Tensor[[M, 64], pl.FP32], out: pl.Out[pl.Tensor[[M, 64], pl.FP32]]) -> pl.Tensor[[M, 64], pl.FP32]:
        out = self.halve(a, out)
        return out
""")
    assert r.promoted == {"main": "Orchestration"}
    assert {name for name, _ in r.params("main_incore_0")} == {"M", "a", "out"}


def test_a_variable_assigned_twice_before_ssa_keeps_its_read() -> None:
    """The parser's fold runs before ConvertToSSA: substituting a reassigned variable would
    reach its later value too, so such a read is left alone. (Reassigned in a loop: at its own
    depth the jit specialiser would bind `n_v1` instead, `jit_renames`.)"""
    r = clean_with_helper("""

@pl.jit
def entry(a: pl.Tensor[[M, 64], pl.FP32], out: pl.Out[pl.Tensor[[M, 64], pl.FP32]]) -> pl.Tensor[[M, 64], pl.FP32]:
    n = pl.tensor.dim(a, 0)
    for i in pl.range(1):
        n = n // 2
    with pl.at(level=pl.Level.CORE_GROUP):
        out[0:n, :] = pl.add(a[0:n, :], 1.0)
    return out
""")
    assert {name for name, _ in r.params("entry_incore_0")} == {"n", "a", "out"}


# an Orchestration entry whose dim read sits in a block, and a host calling it: the front end
# keeps which top-level statements hold a dim read, where the header ends and where the host
# calls its entry with the objects they were found in
_EDITED = (
    _MODULE
    + """

@pl.jit
def entry(
    a: pl.Tensor[[M, 64], pl.FP32],
    out: pl.Out[pl.Tensor[[M, 64], pl.FP32]],
) -> pl.Tensor[[M, 64], pl.FP32]:
    for i in pl.range(2):
        n = pl.tensor.dim(a, 0)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="half"):
        out[0 : n // 2, :] = pl.add(a[0 : n // 2, :], 1.0)
    return out


@pl.jit.host
def host(a: pl.Tensor[[M, 64], pl.FP32], out: pl.Out[pl.Tensor[[M, 64], pl.FP32]]):
    out = entry(a, out)
    return out
"""
)


def test_edits_of_dim_reads_headers_and_host_calls_equal_a_fresh_analysis() -> None:
    edits = [
        lambda t: t.replace("        n = pl.tensor.dim(a, 0)", "        n = 16"),  # no dim read left
        lambda t: t.replace(
            "    for i in pl.range(2):\n", "    m = pl.tensor.dim(a, 0)\n    for i in pl.range(2):\n"
        ),
        lambda t: t.replace('name_hint="half"', 'name_hint="halves"'),  # the header kept
        lambda t: t.replace(
            "    out: pl.Out[pl.Tensor[[M, 64], pl.FP32]],\n) ->",
            "    out: pl.Out[pl.Tensor[[M, 64], pl.FP32]],\n    b: pl.Tensor[[M, 64], pl.FP32],\n) ->",
        ),  # the header ends a line later
        lambda t: t.replace(
            ") -> pl.Tensor[[M, 64], pl.FP32]:\n    for", ") -> pl.Tensor[\n    [M, 64], pl.FP32\n]:\n    for"
        ),
        lambda t: t.replace(
            "    out = entry(a, out)\n", "    out = entry(a, out)\n    out = entry(a, out)\n"
        ),
        lambda t: t.replace("    out = entry(a, out)\n", "    b = a\n    out = entry(b, out)\n"),
    ]
    found = each_edit_then_undone(_EDITED, edits)

    def entry(after: FileAnalysis) -> str:
        (program,) = [p for p in after.programs if p.name == "entry"]
        return print_function(next(f for f in program.source.functions if f.name == "entry"))

    assert "n // 2" in entry(found[0])  # nothing left to fold
    assert "M // 2" in entry(found[1])  # folded again, the read in the loop too
