"""Names for people: what each variable of a printed function is called in hovers and the
Outlined Program document.

The IR names every version of a variable (`out__ssa_v1`, `acc__iter_v2`, the spliced copy
`n0_inline5__ssa_v0` of an inline helper's `n0`). A reader wants the name they wrote (D11), so
every variable is shown by its base name, unless that would make the text lie: a use of one
version at a point where the name, read as Python reads it, holds another version. Only such a
stale version gets a suffix, `ʹ1`, `ʹ2`, ... per name in order of appearance (U+02B9 MODIFIER
LETTER PRIME, a letter, so `outʹ1` is still an identifier and the text still parses). Renaming
exactly the stale versions is enough: every other use still sees the version it reads, and the
body keeps reading like the source (`acc = pl.add(acc, t)`).

A parameter keeps its name, since the signature is what lenses and hovers list: when a
parameter is read stale, every other version of its name gets a suffix instead. So an InCore
function that writes its `Out` parameter and returns the parameter itself,
`out__ssa_v1 = pl.tile.store(e, ..., out__ssa_v0)` then `return out__ssa_v0`, prints
`outʹ1 = pl.tile.store(e, ..., out)` / `return out`, while the chain
`out__ssa_v2 = self.k(out__ssa_v0)` / `return out__ssa_v2` prints `out = self.k(out)` /
`return out`.

"Holds" follows the printed structure: both branches of an `if` start from the names before
it, and a name bound differently in the two is ambiguous after it; a loop's body is read once;
`r = pl.yield_(v)` binds the loop's or if's results where it is printed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from . import ir

PRIME = "\u02b9"
_AMBIGUOUS = ""  # a name bound to different versions on the paths reaching a point


def display_names(fn: ir.Function) -> dict[str, str]:
    """IR name -> the name shown for it, for every variable of `fn`."""
    walk = _Walk()
    for p in fn.params:
        walk.bind(p.var)
    walk.block(fn.body, [])
    return walk.names({p.var.name for p in fn.params})


def _base(name: str) -> str:
    return ir.strip_splice_suffix(name.split("__", 1)[0] or name)


class _Walk:
    def __init__(self) -> None:
        self.current: dict[str, str] = {}  # base name -> IR name it holds here
        self.versions: dict[str, list[str]] = {}  # base name -> IR names, in order of appearance
        self.stale: set[str] = set()  # IR names read where their base name holds another version

    def names(self, params: set[str]) -> dict[str, str]:
        shown: dict[str, str] = {}
        taken = set(self.versions)
        for base, versions in self.versions.items():
            marked = self.stale.intersection(versions)
            if marked & params:
                marked = set(versions) - params
            number = 0
            for raw in versions:
                if raw not in marked:
                    shown[raw] = base
                    continue
                number += 1
                while f"{base}{PRIME}{number}" in taken:
                    number += 1
                shown[raw] = f"{base}{PRIME}{number}"
        return shown

    def _seen(self, base: str, raw: str) -> None:
        versions = self.versions.setdefault(base, [])
        if raw not in versions:
            versions.append(raw)

    def bind(self, var: ir.Var) -> None:
        base = _base(var.name)
        self._seen(base, var.name)
        self.current[base] = var.name

    def use(self, expr: Any) -> None:
        for var in _vars_in(expr):
            base = _base(var.name)
            self._seen(base, var.name)
            held = self.current.get(base)
            if held is not None and held != var.name:
                self.stale.add(var.name)

    def block(self, stmts: list[ir.Stmt], results: list[ir.Var]) -> None:
        for s in stmts:
            self.stmt(s, results)

    def stmt(self, s: ir.Stmt, results: list[ir.Var]) -> None:
        if isinstance(s, ir.AssignStmt):
            self.use(s.value)
            self.bind(s.target)
        elif isinstance(s, ir.EvalStmt):
            self.use(s.expr)
        elif isinstance(s, ir.ReturnStmt):
            self.use(s.values)
        elif isinstance(s, ir.YieldStmt):
            self.use(s.values)
            for var in results:
                self.bind(var)
        elif isinstance(s, ir.ForStmt):
            self.use([s.start, s.stop, s.step, *s.kwargs.values(), *(a.init for a in s.iter_args)])
            self.bind(s.loop_var)
            self.loop(s.iter_args, None, s.body, s.return_vars)
        elif isinstance(s, ir.WhileStmt):
            self.use([a.init for a in s.iter_args])
            self.loop(s.iter_args, s.cond, s.body, s.return_vars)
        elif isinstance(s, ir.IfStmt):
            self.if_stmt(s)
        elif isinstance(s, ir.ScopeStmt):
            self.scope(s, results)

    def loop(
        self, iter_args: list[ir.IterArg], cond: ir.Expr | None, body: list[ir.Stmt], results: list[ir.Var]
    ) -> None:
        for carried in iter_args:
            self.bind(carried)
        if cond is not None:
            self.use(cond)
        self.block(body, results)
        for var in results:  # bound by the body's yield; also when it has none
            self.bind(var)

    def if_stmt(self, s: ir.IfStmt) -> None:
        self.use(s.cond)
        before = dict(self.current)
        self.block(s.then_body, s.return_vars)
        after_then, self.current = self.current, dict(before)
        self.block(s.else_body or [], s.return_vars)
        for base in set(after_then) | set(self.current):
            if after_then.get(base) != self.current.get(base):
                self.current[base] = _AMBIGUOUS
        for var in s.return_vars:
            self.bind(var)

    def scope(self, s: ir.ScopeStmt, results: list[ir.Var]) -> None:
        self.use([*s.deps, *s.no_dep_args, *s.dump_vars, *(d.var for d in s.cache_policies)])
        self.use([e for e in (s.predicate, s.core_num) if e is not None])
        if s.task_id_var is not None:
            self.bind(s.task_id_var)
        self.block(s.body, results)


def _vars_in(value: Any) -> Iterator[ir.Var]:
    """Every variable an expression (or a list/dict/tuple of them, as attrs hold) reads, in
    printed order."""
    if isinstance(value, ir.Var):
        yield value
    elif isinstance(value, ir.Call):
        yield from _vars_in([value.args, list(value.kwargs.values()), list(value.attrs.values())])
    elif isinstance(value, ir.BinaryExpr):
        yield from _vars_in([value.left, value.right])
    elif isinstance(value, ir.UnaryExpr):
        yield from _vars_in(value.operand)
    elif isinstance(value, (ir.TupleExpr, ir.ListExpr)):
        yield from _vars_in(value.items)
    elif isinstance(value, ir.TupleGetItem):
        yield from _vars_in(value.tuple)
    elif isinstance(value, ir.OpaqueExpr):
        yield from _vars_in(value.operands)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _vars_in(item)
    elif isinstance(value, dict):
        yield from _vars_in(list(value.values()))
