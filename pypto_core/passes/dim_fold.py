"""Param dyn-dim reads fold onto the symbol (spec 000 "Param dyn-dim reads fold on
promotion"): a tensor's declared extent is its runtime extent, so `m = pl.tensor.dim(a, 0)` on
a parameter whose axis is a `pl.dynamic` symbol is one quantity under two names. The parser
folds such a read in an Orchestration body, OutlineIncoreScopes folds a promoted Opaque
parent's whole body; a read in an Inline helper's body stays a runtime read (the compiler's
`ASTParser._fold_tensor_dim`), so what a spliced helper reads is named as the helper wrote it.
"""

from __future__ import annotations

import weakref
from collections import Counter
from dataclasses import dataclass, field

from ..ir import (
    INDEX,
    AssignStmt,
    Call,
    Const,
    Dim,
    Expr,
    Function,
    ListExpr,
    Stmt,
    TensorType,
    TupleExpr,
    Var,
)
from .outline_ir import stmt_children, walk_stmts
from .outline_memo import rebuilt, renamed
from .stmt_facts import StmtFacts


def fold_param_dim_reads(fn: Function) -> bool:
    """Spec 000 "Param dyn-dim reads fold on promotion": `v = tensor.dim(t, k)` whose extent is
    a symbol the signature declares is deleted and `v` becomes the symbol. One forward walk is
    transitive: a tensor created with a folded extent makes a later `dim` of it foldable.
    True if it folded a read (else the statements are as they were).

    Also run by the front end on an Orchestration body before InlineFunctions (the parser's
    fold), where the IR is not yet in SSA form: a variable assigned more than once there keeps
    its read (substituting it would reach the later values too)."""
    symbols = {
        d
        for p in fn.params
        if isinstance(p.var.type, TensorType) and p.var.type.shape is not None
        for d in p.var.type.shape
        if isinstance(d, str) and d.isidentifier()
    }
    if not symbols:
        return False
    walk = _DimFold(
        symbols,
        _symbol_vars(fn, symbols),
        Counter(s.target for s in walk_stmts(fn.body) if isinstance(s, AssignStmt)),
    )
    fn.body = walk.fold(fn.body)
    return bool(walk.folded)


# per function, by its first parameter's variable (the same object while its header is), the
# variable each symbol folds onto: the front end folds an Orchestration body at every build,
# and new symbol variables would make every statement reading one new, and so the splice's
# clones of the helper calls passing one, and every pass after it
_SYMBOL_VARS: weakref.WeakKeyDictionary[Var, dict[str, Var]] = weakref.WeakKeyDictionary()


def _symbol_vars(fn: Function, symbols: set[str]) -> dict[str, Var]:
    kept = _SYMBOL_VARS.setdefault(fn.params[0].var, {})
    found: dict[str, Var] = {}
    for name in sorted(symbols):
        var = kept.get(name)
        if var is None or var.span != fn.name_span:
            var = kept[name] = Var(name, INDEX, fn.name_span)
        found[name] = var
    return found


@dataclass
class _DimFold:
    """One forward walk of `fold_param_dim_reads` (an object, not a closure naming itself: that
    left a reference cycle per function walked, issue 15's memory)."""

    symbols: set[str]
    symbol_vars: dict[str, Var]
    assigned: Counter[Var]
    folded: dict[Var, Var] = field(default_factory=dict)  # a read's target -> its symbol's variable
    extents: dict[Var, tuple[Dim | None, ...]] = field(default_factory=dict)
    facts: StmtFacts = field(default_factory=StmtFacts)

    def fold(self, stmts: list[Stmt]) -> list[Stmt]:
        """`stmts` folded (copy-on-write: a statement nothing in changes is kept as it is, and
        one changed alike the last fold's of it: `renamed`, `rebuilt`)."""
        kept: list[Stmt] = []
        for stmt in stmts:
            stmt = renamed(stmt, self.facts.mentions(stmt), self.folded)
            if isinstance(stmt, AssignStmt):
                symbol = _folded_symbol(stmt.value, self.symbols, self.extents)
                if symbol is not None and self.assigned[stmt.target] == 1:
                    self.folded[stmt.target] = self.symbol_vars[symbol]
                    continue
                created = _created_extents(stmt.value, self.symbol_vars)
                if created is not None:
                    self.extents[stmt.target] = created
            blocks = stmt_children(stmt)
            if blocks:
                stmt = rebuilt(stmt, [self.fold(block) for block in blocks])
            kept.append(stmt)
        return kept


def _shape_of(var: Var, extents: dict[Var, tuple[Dim | None, ...]]) -> tuple[Dim | None, ...] | None:
    if var in extents:
        return extents[var]
    return var.type.shape if isinstance(var.type, TensorType) else None


def _folded_symbol(value: Expr, symbols: set[str], extents: dict[Var, tuple[Dim | None, ...]]) -> str | None:
    if not (isinstance(value, Call) and value.op == "tensor.dim" and len(value.args) == 2):
        return None
    tensor, axis = value.args
    if not isinstance(tensor, Var) or not isinstance(axis, Const) or type(axis.value) is not int:
        return None
    shape = _shape_of(tensor, extents)
    if shape is None or not -len(shape) <= axis.value < len(shape):
        return None
    extent = shape[axis.value]
    return extent if isinstance(extent, str) and extent in symbols else None


def _created_extents(value: Expr, symbol_vars: dict[str, Var]) -> tuple[Dim | None, ...] | None:
    """The extents of `tensor.create([...])` whose entries are constants or folded symbols."""
    if not (isinstance(value, Call) and value.op == "tensor.create" and value.args):
        return None
    shape = value.args[0]
    if not isinstance(shape, (ListExpr, TupleExpr)):
        return None
    by_var = {v: name for name, v in symbol_vars.items()}
    dims: list[Dim | None] = []
    for item in shape.items:
        if isinstance(item, Var) and item in by_var:
            dims.append(by_var[item])
        elif isinstance(item, Const) and type(item.value) is int:
            dims.append(item.value)
        else:
            dims.append(None)
    return tuple(dims)
