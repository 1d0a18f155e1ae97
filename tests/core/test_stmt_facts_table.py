"""The statement facts kept with each statement object (`stmt_facts._FACTS`) describe the
statements as they are after every pass and after edits: every outliner run reads them instead
of walking a statement again, so a stale fact (a statement modified after it was described)
would change what it outlines."""

from __future__ import annotations

import weakref

import pytest
from outline_cases import HEADER, T64, source_text
from test_ssa_kept import EDITS, ENTRY

from pypto_core import ir
from pypto_core.analysis import DocumentAnalyzer
from pypto_core.passes import inline_functions, stmt_facts, verify
from pypto_core.passes.outline_ir import stmt_children, walk_calls, walk_stmts
from pypto_core.passes.stmt_facts import StmtFacts, walk_kept
from pypto_core.results import FileAnalysis

# A carry rebinds the whole loop body, statements the run never visited included (the load
# before the scope reads `out`, then the carry's iter_arg); an if's trailing yield grows.
CARRIES = (
    HEADER
    + f"""
@pl.program
class P:
    @pl.function
    def main(self, a: {T64}, out: pl.Out[{T64}], n: pl.Scalar[pl.INDEX]) -> {T64}:
        for i in pl.range(4):
            t = pl.load(out, [0], [64])
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(a, [0], [64]), [0], out)
            u = pl.load(out, [0], [64])
            if n > 2:
                with pl.at(level=pl.Level.CORE_GROUP):
                    pl.store(pl.load(a, [0], [64]), [0], out)
            else:
                v = pl.load(a, [0], [64])
                pl.yield_()
        for j in pl.range(pl.tensor.dim(a, 0) // 64):  # a call in a loop's header
            with pl.at(level=pl.Level.CORE_GROUP):
                pl.store(pl.load(a, [0], [64]), [0], out)
        with pl.spmd(4):
            pl.store(pl.load(a, [0], [64]), [0], out)
        return out
"""
)


class _Holding(weakref.WeakKeyDictionary[object, object]):
    """A weak table that also holds every key it was given."""

    def __init__(self) -> None:
        super().__init__()
        self.held: list[object] = []

    def __setitem__(self, key: object, value: object) -> None:
        self.held.append(key)
        super().__setitem__(key, value)


def _walk_outlined(analysis: FileAnalysis) -> None:
    """Each outlined function's body walked by `walk_kept` (the passes walk only the bodies
    that hold what they look for), so its table holds the statements of every analysis."""
    for program in analysis.programs:
        for fn in program.outlined_program.functions if program.outlined_program is not None else ():
            walk_kept(fn.body)


def _facts(stmt: object) -> tuple[object, ...]:
    facts = StmtFacts()
    return (facts.mentions(stmt), facts.scope_kinds(stmt), facts.reads(stmt), facts.own_calls(stmt))  # type: ignore[arg-type]


@pytest.mark.parametrize("source", ["carries", "generated", "jit", "scopes_tour.py"])
def test_kept_facts_equal_fresh_facts_after_the_passes_and_edits(
    source: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the statements of the passes' intermediate programs die with each analysis, and their
    # entries with them: held here, so their facts can be computed again after the edits
    for table in ("_FACTS", "_BINDS", "_WALKED"):
        monkeypatch.setattr(stmt_facts, table, _Holding())
    for table in ("_CALLEES", "_SCOPES", "_COMPUTE_OPS", "_OUTPUT"):  # (_OUTPUT: so this run fills them)
        monkeypatch.setattr(verify, table, _Holding())
    text = source_text(source, {"carries": CARRIES})
    analyzer = DocumentAnalyzer()
    _walk_outlined(analyzer.update(text))
    anchor = text.index("pl.store(") if "pl.store(" in text else len(text) // 2
    for k in range(3):  # edits: a new line, then a comment, above a scope's statement
        line = text.rfind("\n", 0, anchor) + 1
        _walk_outlined(analyzer.update(text[:line] + "\n" * (k % 2) + "# edit\n" * k + text[line:]))
    kept = {stmt: _facts(stmt) for stmt in list(stmt_facts._FACTS)}
    binds = {stmt: set(StmtFacts().binds(stmt)) for stmt in list(stmt_facts._BINDS)}
    callees = dict(verify._CALLEES.items())
    scopes = {stmt: [id(s) for s in inner] for stmt, inner in list(verify._SCOPES.items())}
    ops = {stmt: [id(c) for c in inner] for stmt, inner in list(verify._COMPUTE_OPS.items())}
    walked = {stmt: [id(s) for s in inner] for stmt, inner in list(stmt_facts._WALKED.items())}
    assert kept and binds and callees and walked
    assert scopes or source == "carries"  # (whose PTO156 leaves out the verifier's output checks)
    stmt_facts._FACTS.clear()  # what each statement's facts are, computed again
    stmt_facts._BINDS.clear()
    for stmt, facts in kept.items():
        assert facts == _facts(stmt), stmt
    for stmt, bound in binds.items():
        assert bound == set(StmtFacts().binds(stmt)), stmt
    for stmt, names in callees.items():  # the verifier's: what PTO512's walk needs
        assert names == {c.callee for c in walk_calls([stmt]) if c.callee is not None and not c.submit}, stmt
    for stmt, inner in scopes.items():  # the verifier's leftover scopes and compute tensor ops
        assert inner == [id(s) for s in walk_stmts([stmt])[1:] if isinstance(s, ir.ScopeStmt)], stmt
    for stmt, inner in ops.items():
        below = [s for block in stmt_children(stmt) for s in block]
        assert inner == [id(c) for c in walk_calls(below) if verify._is_compute_tensor_op(c)], stmt
    for stmt, inner in walked.items():  # the verifier's, UnrollLoops' and the splice's walks
        assert inner == [id(s) for s in walk_stmts([stmt])[1:]], stmt


def test_what_the_splice_keeps_of_a_statement_equals_a_fresh_walk_after_edits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`inline_functions._WITHIN` (what a helper's build and its clones bind and call, at any
    depth) read after edits is what walking each statement again finds."""
    monkeypatch.setattr(inline_functions, "_WITHIN", _Holding())
    analyzer = DocumentAnalyzer()
    analyzer.update(ENTRY)
    for name in sorted(EDITS):  # each edit of the fixture in turn: helpers built and cloned again
        analyzer.update(EDITS[name](ENTRY))
    kept = dict(inline_functions._WITHIN.items())
    assert kept
    inline_functions._WITHIN.clear()
    for stmt, within in kept.items():
        again = inline_functions._within(stmt)  # type: ignore[arg-type]
        assert [id(v) for v in within.defined] == [id(v) for v in again.defined], stmt
        assert [id(c) for c in within.calls] == [id(c) for c in again.calls], stmt
        assert (within.returns, within.rebinds) == (again.returns, again.rebinds), stmt
