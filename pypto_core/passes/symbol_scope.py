"""The compiler's SSA verifier (after ConvertToSSA) on the dynamic symbols in tensor types
(PTO511, "Variable 'T_DYN' used outside its defining scope"): a `pl.dynamic` extent is a
variable to it, defined in a function by its parameters' and return types and, in the current
block, by every assignment whose target's type names it (`verify_ssa_pass.cpp`:
`RegisterTypeVars` after the right-hand side); a loop body and each branch of an `if` are
blocks of their own, dropped on leaving. Every read of a variable reads its type's extents
too, so a value typed with a symbol the function does not declare is rejected where it is
read outside the block that typed it: an `if` merge (its phi takes the then-branch's type)
read after the branch. The shape real code has: an inline helper whose parameter is declared
`[T_DYN, 64]` and assigned in one branch (`rows[r:r+1, :] = ...`), spliced into a caller
whose own types never name `T_DYN` (the splice keeps the helper's types; a symbol is one
variable per program, by its string).

Only functions an inline helper was spliced into are checked (a call's result is typed by the
compiler with the caller's extents, `DeduceCallReturnType`), and only `pl.dynamic` extents
(`ir.Symbol`): an extent naming a local scalar is its variable, which ConvertToSSA scopes
(PTO511/PTO517 elsewhere).

A jit program is the specialiser's (`jit/decorator.py`): a helper's parameter is typed with
its argument's metadata, a static axis overlaid with the helper's own symbol, a dynamic one
keeping the caller's (`_resolve_dep_call_metadata`), and each helper's symbols flow up to the
caller's parameter its argument names (`_compute_per_func_dyndim_maps`), so the entry declares
them. A helper symbol at an axis whose argument is a parameter of the function spliced into,
or whose argument's axis is not a known integer, is covered (`cover_symbols`, at each splice:
after a round the argument a nested call passes is the caller's own variable); one whose
argument is a local tensor with a static axis keeps the helper's symbol, which the splice
carries into the caller: `prefill_layer.py`'s `position_ids_tile`. A `for ... in pl.spmd(...)`
body is no block: the parser makes it a Spmd scope around an InCore one (`_parse_spmd_for_loop`),
which the verifier looks through as it does every scope (the oracle's run agrees).

Only the suspect symbols (a helper's the function does not declare) are followed: a read of a
value typed with a declared symbol, nearly every read of a whole-model entry, is no need at
all, and a statement that mentions no variable typed with a suspect (`stmt_facts`, which the
passes after this one read too) is not walked: a cold open of prefill_cp_fwd_draft.py walked
its entry's 18,669 converted statements, 60 ms. What a statement needs from the blocks around
it and what it defines in its own is kept with the statement object for the suspects it was
walked for (ConvertToSSA hands the same output objects out again after an edit), so a
keystroke walks only the statements it changed."""

from __future__ import annotations

import weakref
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import NamedTuple

from ..diagnostics import Diagnostic, Related, error
from ..ir import (
    AssignStmt,
    EvalStmt,
    Expr,
    ForStmt,
    Function,
    IfStmt,
    Param,
    Program,
    ReturnStmt,
    ScopeStmt,
    SplicedHelper,
    Stmt,
    Symbol,
    TensorType,
    Type,
    Var,
    WhileStmt,
    YieldStmt,
)
from ..span import Span
from .outline_ir import add_vars, scope_attr_exprs, stmt_children, walk_stmts
from .stmt_facts import StmtFacts

SSA_VERIFY = "PTO511"


class _Need(NamedTuple):
    """A read of `var`, whose type names `symbol`, that no assignment before it in its own
    block (or a block around it inside the statement) defined: the blocks around the
    statement must."""

    symbol: str
    var: Var
    stmt: Stmt  # the innermost statement reading it


class _Summary(NamedTuple):
    needs: tuple[_Need, ...]
    defines: frozenset[str]  # the symbols the statement defines in the block holding it


_NOTHING = _Summary((), frozenset())
# a compound or top-level statement's summary, with the suspect symbols it was made for
_KEPT: weakref.WeakKeyDictionary[Stmt, tuple[frozenset[str], _Summary]] = weakref.WeakKeyDictionary()
# by the function a splice made (the object the pipeline is handed): the helper symbols its
# splices cover in a jit program (`cover_symbols`); a function no helper was spliced into has none
_COVERS: weakref.WeakKeyDictionary[Function, _Cover] = weakref.WeakKeyDictionary()
# a top-level statement's variables typed with a suspect symbol, with the suspects
_TYPED_VARS: weakref.WeakKeyDictionary[Stmt, tuple[frozenset[str], frozenset[Var]]] = (
    weakref.WeakKeyDictionary()
)
_FACTS = StmtFacts()


class _Source(NamedTuple):
    """The helper parameter a symbol was met in: its annotation names the symbol. `defined`:
    for a helper of another file, where its `def` is (its spliced code takes the call's span,
    so a finding can point there only: a nested helper's too)."""

    symbol: str
    helper: str
    param: str
    span: Span  # the parameter's, in the file of the function spliced into
    kept: bool  # its argument there has a known extent (the specialiser keeps the helper's symbol)
    defined: SplicedHelper | None


@dataclass
class _Cover:
    """What the splices into one function do to the helpers' symbols in the specialiser's
    program: `declared` flow up to the function's parameters; `kept` stay in a helper's
    parameter type (a local argument with a known extent there); every other one is replaced
    by the caller's own symbol where it was passed. `splices`: the fates that met a symbol, in
    splice order, whose sources a finding reads (a replayed splice only hands its fates on)."""

    params: frozenset[int]  # the function's parameters' variables, by id
    declared: set[str] = field(default_factory=set)
    seen: set[str] = field(default_factory=set)
    kept: set[str] = field(default_factory=set)
    splices: list[Fates] = field(default_factory=list)

    def sources(self, symbol: str) -> list[_Source]:
        """Where `symbol` was met, once each, in splice order."""
        found = {s: None for fates in self.splices for s in fates.sources if s.symbol == symbol}
        return list(found)

    def covered(self) -> set[str]:
        """The helper symbols the function's types declare, or that its specialised code
        does not hold."""
        return self.declared | (self.seen - self.kept)


class Fates(NamedTuple):
    """What one splice of a helper does to its symbols (`_Cover`), and which of the call's
    arguments were parameters of the function spliced into (what the fates read of it): a
    splice replayed with the same arguments (`inline_functions._replay`) applies these again
    where those are still so, not reading the helper's parameter types again."""

    seen: frozenset[str]
    declared: frozenset[str]
    kept: frozenset[str]
    params: tuple[bool, ...]  # per argument: a parameter of the function spliced into
    sources: tuple[_Source, ...]  # where each symbol was met, for a finding's related location
    helper: str
    defined: SplicedHelper | None  # another file's helper: where it is


def cover_symbols(
    fn: Function, helper: str, helper_params: list[Param], args: list[Expr], defined: SplicedHelper | None
) -> Fates:
    """Record a splice of `helper` (its parameters; `defined`: where it is, for one of another
    file) into `fn` with `args` (`_Cover`)."""
    cover = _cover(fn)
    seen: set[str] = set()
    declared: set[str] = set()
    kept: set[str] = set()
    sources: list[_Source] = []
    for param, arg in zip(helper_params, args, strict=False):
        for axis, symbol in _axes(param.var.type):
            seen.add(symbol)
            fate = _fate(cover.params, arg, axis)
            if fate == "declared":
                declared.add(symbol)
            elif fate == "kept":
                kept.add(symbol)
            sources.append(_Source(symbol, helper, param.var.name, param.var.span, fate == "kept", defined))
    fates = Fates(
        frozenset(seen),
        frozenset(declared),
        frozenset(kept),
        _params_among(cover, args),
        tuple(sources),
        helper,
        defined,
    )
    _apply(cover, fates)
    return fates


def cover_again(fn: Function, fates: Fates, helper_params: list[Param], args: list[Expr]) -> None:
    """`cover_symbols` of a splice made before with these arguments, whose `fates` it returned."""
    cover = _cover(fn)
    if fates.params == _params_among(cover, args):
        _apply(cover, fates)
    else:
        cover_symbols(fn, fates.helper, helper_params, args, fates.defined)


def _cover(fn: Function) -> _Cover:
    cover = _COVERS.get(fn)
    if cover is None:
        cover = _COVERS[fn] = _Cover(frozenset(id(p.var) for p in fn.params))
    return cover


def _params_among(cover: _Cover, args: list[Expr]) -> tuple[bool, ...]:
    return tuple(map(cover.params.__contains__, map(id, args)))


def _apply(cover: _Cover, fates: Fates) -> None:
    if fates.seen:
        cover.seen |= fates.seen
        cover.declared |= fates.declared
        cover.kept |= fates.kept
        cover.splices.append(fates)


def _axes(t: Type) -> Iterator[tuple[int, Symbol]]:
    if isinstance(t, TensorType) and t.shape is not None:
        for axis, d in enumerate(t.shape):
            if isinstance(d, Symbol):
                yield axis, d


def _fate(params: frozenset[int], arg: Expr, axis: int) -> str:
    """What the specialiser makes of the helper's symbol at `axis` of the parameter `arg` is
    passed to: it flows up to the parameter `arg` ("declared"), unless that axis of it is a
    symbol already (then the helper's parameter takes the caller's there: "replaced"); a local
    argument leaves the helper its own where its extent is an integer ("kept"), takes its
    symbol where it is one. An argument whose extent is not known declares it (no false
    error)."""
    if not isinstance(arg, Var):
        return "declared"
    shape = arg.type.shape if isinstance(arg.type, TensorType) else None
    extent = shape[axis] if shape is not None and axis < len(shape) else None
    if isinstance(extent, Symbol):
        return "replaced"
    if type(extent) is int and id(arg) not in params:
        return "kept"
    return "declared"


def symbol_scope_problems(program: Program, spliced: Program) -> list[Diagnostic]:
    """PTO511 for each variable read outside the block that typed it with a symbol, in each
    function of `program` (ConvertToSSA's output) a helper was spliced into in `spliced` (the
    pipeline's input): the symbols of the helpers' parameters that the function does not
    declare. A function whose helpers' symbols it all declares is not walked (nearly all)."""
    found: list[Diagnostic] = []
    covers = {fn.name: _COVERS.get(fn) for fn in spliced.functions}
    for fn in program.functions:
        cover = covers.get(fn.name)
        if cover is None:
            continue
        declared = _declared(fn) | (cover.covered() if program.origin == "jit" else frozenset())
        suspects = frozenset(cover.seen - declared)
        if not suspects:
            continue
        suspect_vars = _typed_with(fn.body, suspects)
        if not suspect_vars:
            continue
        block = _block(fn.body, (), suspects, suspect_vars, top=True)
        seen: set[tuple[str, Var]] = set()
        typed: dict[Var, Span] | None = None
        for need in block.needs:
            if (need.symbol, need.var) not in seen:
                seen.add((need.symbol, need.var))
                typed = _typed_at(fn) if typed is None else typed
                found.append(_problem(fn, need, typed, _source(cover.sources(need.symbol), need.var)))
    return found


def _declared(fn: Function) -> frozenset[str]:
    names = {s for p in fn.params for s in _symbols(p.var.type)}
    for t in fn.return_types:
        names.update(_symbols(t))
    return frozenset(names)


def _symbols(t: Type) -> Iterator[str]:
    if isinstance(t, TensorType) and t.shape is not None:
        for d in t.shape:
            if isinstance(d, Symbol):
                yield d


def _typed_with(body: list[Stmt], suspects: frozenset[str]) -> frozenset[Var]:
    """The variables the statements mention whose type names one of `suspects` (each
    top-level statement's kept with it)."""
    found: set[Var] = set()
    for stmt in body:
        kept = _TYPED_VARS.get(stmt)
        if kept is None or kept[0] != suspects:
            typed = frozenset(v for v in _FACTS.mentions(stmt) if not suspects.isdisjoint(_symbols(v.type)))
            kept = _TYPED_VARS[stmt] = (suspects, typed)
        found |= kept[1]
    return frozenset(found)


def _block(
    stmts: list[Stmt],
    first: tuple[_Need, ...],
    suspects: frozenset[str],
    typed: frozenset[Var],
    top: bool = False,
) -> _Summary:
    """A block's statements in order (`first`: what is read before them, a loop condition),
    of `suspects` only; a statement mentioning none of the variables `typed` with one of them
    needs and defines none. `top`: a function body, each of whose statements' summary is kept
    (a keystroke in a flat entry of 600 statements reads one again)."""
    defined: set[str] = set()
    needs = [n for n in first]
    for stmt in stmts:
        if typed.isdisjoint(_FACTS.mentions(stmt)):
            continue
        summary = _kept(stmt, suspects, typed) if top else _summary(stmt, suspects, typed)
        if summary.needs:
            needs.extend(n for n in summary.needs if n.symbol not in defined)
        if summary.defines:
            defined |= summary.defines
    return _Summary(tuple(needs), frozenset(defined))


def _summary(stmt: Stmt, suspects: frozenset[str], typed: frozenset[Var]) -> _Summary:
    """A compound statement's is kept with it (a keystroke walks the path to the edit); a
    simple one's is read again, cheaper than keeping one per statement of a whole model."""
    if not stmt_children(stmt):
        return _made(stmt, suspects, typed)
    return _kept(stmt, suspects, typed)


def _kept(stmt: Stmt, suspects: frozenset[str], typed: frozenset[Var]) -> _Summary:
    """`_made`, kept with the statement (for these `suspects`) unless a need of it names the
    statement itself (its own reads: kept, the entry would hold its weak key alive)."""
    kept = _KEPT.get(stmt)
    if kept is not None and kept[0] == suspects:
        return kept[1]
    made = _made(stmt, suspects, typed)
    if all(need.stmt is not stmt for need in made.needs):
        _KEPT[stmt] = (suspects, made)
    return made


def _made(stmt: Stmt, suspects: frozenset[str], typed: frozenset[Var]) -> _Summary:
    """What its own expressions read, then its blocks: a loop body and each branch a block of
    its own, a scope body the block around it (the verifier looks through a scope)."""
    if isinstance(stmt, AssignStmt):
        defines = suspects.intersection(_symbols(stmt.target.type))
        return _Summary(_reads(stmt, [stmt.value], suspects), defines)
    if isinstance(stmt, EvalStmt):
        return _Summary(_reads(stmt, [stmt.expr], suspects), frozenset())
    if isinstance(stmt, ReturnStmt | YieldStmt):
        return _Summary(_reads(stmt, stmt.values, suspects), frozenset())
    if isinstance(stmt, ForStmt | WhileStmt):
        header = [stmt.cond] if isinstance(stmt, WhileStmt) else [stmt.start, stmt.stop, stmt.step]
        header += [a.init for a in stmt.iter_args if a.init is not None]
        return _Summary(
            _reads(stmt, header, suspects) + _block(stmt.body, (), suspects, typed).needs, frozenset()
        )
    if isinstance(stmt, IfStmt):
        needs = _reads(stmt, [stmt.cond], suspects) + _block(stmt.then_body, (), suspects, typed).needs
        if stmt.else_body is not None:
            needs += _block(stmt.else_body, (), suspects, typed).needs
        return _Summary(needs, frozenset())
    if isinstance(stmt, ScopeStmt):
        return _block(stmt.body, _reads(stmt, scope_attr_exprs(stmt), suspects), suspects, typed)
    return _NOTHING


def _reads(stmt: Stmt, exprs: list[Expr], suspects: frozenset[str]) -> tuple[_Need, ...]:
    read: list[Var] = []
    for expr in exprs:
        add_vars(expr, read)
    return tuple(_Need(s, var, stmt) for var in read for s in _symbols(var.type) if s in suspects)


def _source(sources: Sequence[_Source], var: Var) -> _Source | None:
    """The parameter `var` stands for: one of its name (a spliced helper's argument is named
    by the caller, who passes its own `rope_cos_t` for the parameter `rope_cos_t`), else the
    first whose symbol the specialiser kept, else the first."""
    return next(
        (s for s in sources if s.param == var.base_name),
        next((s for s in sources if s.kept), sources[0] if sources else None),
    )


def _problem(fn: Function, need: _Need, typed: dict[Var, Span], source: _Source | None) -> Diagnostic:
    """At the assignment that typed the value (an `if` merge's then-branch value), else at the
    read; the statement merging it (the `if`) is the related location, and so is the helper
    parameter whose annotation the symbol comes from (the fix the hint names), however deep
    the helper was spliced: its `def` in another file."""
    name = need.var.base_name
    found = error(
        SSA_VERIFY,
        f"Variable '{need.symbol}' used outside its defining scope: '{name}' is typed with the "
        f"dynamic extent '{need.symbol}' inside a branch or loop body and read after it, where no "
        f"type of '{fn.name}' names '{need.symbol}'",
        typed.get(need.var, need.stmt.span),
        hint=f"'{need.symbol}' comes from a parameter annotation '{fn.name}' does not share (an "
        f"inline helper's, spliced here): declare that parameter with the extent its argument "
        f"has, or give one of the parameters of '{fn.name}' the extent '{need.symbol}'",
        variable=name,
    )
    merged = Related(f"'{name}' leaves the branch here, typed with '{need.symbol}'", need.var.span)
    if source is None:
        return replace(found, related=(merged,))
    return replace(found, related=(merged, _origin(need.symbol, source)))


def _origin(symbol: str, source: _Source) -> Related:
    passed = ", passed a tensor whose extent there is static" if source.kept else ""
    what = f"'{symbol}' comes from the parameter '{source.param}' of '{source.helper}'{passed}"
    if source.defined is None:
        return Related(what, source.span)
    return Related(f"{what}, defined here", source.defined.name_span, source.defined.path)


def _typed_at(fn: Function) -> dict[Var, Span]:
    """For each `if` merge (phi) of `fn`, where the then-branch value it takes is assigned (the
    phi's type is that value's). Made only for a function with a finding, from each compound
    statement's, kept with it (a keystroke in a function with findings walks the path to it)."""
    found: dict[Var, Span] = {}
    for stmt in fn.body:
        found.update(_typed_in(stmt))
    return found


_TYPED: weakref.WeakKeyDictionary[Stmt, dict[Var, Span]] = weakref.WeakKeyDictionary()
_NONE_TYPED: dict[Var, Span] = {}


def _typed_in(stmt: Stmt) -> dict[Var, Span]:
    children = stmt_children(stmt)
    if not children:
        return _NONE_TYPED
    known = _TYPED.get(stmt)
    if known is None:
        known = dict(_merged_at(stmt)) if isinstance(stmt, IfStmt) else {}
        for block in children:
            for child in block:
                known.update(_typed_in(child))
        _TYPED[stmt] = known or _NONE_TYPED
    return known


def _merged_at(stmt: IfStmt) -> Iterator[tuple[Var, Span]]:
    last = stmt.then_body[-1] if stmt.then_body else None
    if not isinstance(last, YieldStmt) or len(last.values) != len(stmt.return_vars):
        return
    assigned = {s.target: s.span for s in walk_stmts(stmt.then_body) if isinstance(s, AssignStmt)}
    for var, value in zip(stmt.return_vars, last.values, strict=True):
        if isinstance(value, Var) and value in assigned:
            yield var, assigned[value]
