"""The statement facts an outliner run hands to the next pass's run (`PassContext.kept_facts`)
describe the statements as they are after the run: the next run reads them instead of walking
those statements again, so a stale fact would change what it outlines."""

from __future__ import annotations

import pytest
from outline_cases import HEADER, T64, source_text

from pypto_core.analysis import analyse_source
from pypto_core.passes.context import PassContext
from pypto_core.passes.pipeline import PASS_NAMES, _stages
from pypto_core.passes.stmt_facts import StmtFacts

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
        with pl.spmd(4):
            pl.store(pl.load(a, [0], [64]), [0], out)
        return out
"""
)


def _facts(facts: StmtFacts, stmt: object) -> tuple[object, ...]:
    return (facts.mentions(stmt), facts.scope_kinds(stmt), facts.reads(stmt), facts.own_calls(stmt))  # type: ignore[arg-type]


@pytest.mark.parametrize("source", ["carries", "generated", "jit", "scopes_tour.py"])
def test_kept_facts_equal_fresh_facts_after_every_outliner(source: str) -> None:
    checked = 0
    for analysed in analyse_source(source_text(source, {"carries": CARRIES})).programs:
        ctx = PassContext(front_end_checked=True)
        for name, _program in _stages(analysed.source, (), ctx):
            if name not in PASS_NAMES[3:]:
                continue
            for kept in ctx.kept_facts.values():
                for stmt in list(kept._facts):  # every statement the next run may read of
                    assert _facts(kept, stmt) == _facts(StmtFacts(), stmt), (name, stmt)
                    checked += 1
    assert checked > 0
