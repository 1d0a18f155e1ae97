"""Scope constructs -> `ScopeStmt`s, exactly as the compiler's parser builds them
(dsl-reference §2.1), with the lexical nesting rules of §2.2 and the parser errors of §2.3.

The interesting shapes: `pl.spmd` comes in three forms (dispatch body, explicit `pl.at`
carrier, inline/loop body wrapped in a parser-made InCore scope with the name-hint split);
`pl.split_aiv` is a SplitAiv scope in place inside InCore code and wrapped in an unnamed InCore
scope elsewhere; `pl.set_cache_policy` statements are hoisted onto the scope they configure;
`as tid` adds a placeholder `tid = system.task_invalid()` before the scope.
"""

from __future__ import annotations

import ast
import builtins
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..diagnostics import Related
from ..ir import (
    INDEX,
    LEVEL_ALIASES,
    TASK_ID,
    AssignStmt,
    CachePolicyDecl,
    Call,
    FunctionType,
    Level,
    ScopeKind,
    ScopeStmt,
    Stmt,
    Var,
)
from ..span import Span
from .body_state import BodyState, ScopeFrame
from .context import PL
from .dump_tags import written_vars
from .exprs import enum_member
from .scope_args import (
    ScopeArgs,
    parse_at,
    parse_cache_policy,
    parse_cluster,
    parse_graph,
    parse_runtime,
    parse_split_aiv,
    parse_spmd,
    predicate_operand,
)

if TYPE_CHECKING:
    from .stmts import StmtBuilder

_WITH_CONSTRUCTS = ("at", "cluster", "graph", "spmd", "scope", "manual_scope", "incore", "auto_incore")
_TID_CONSTRUCTS = ("at", "spmd")
_LAUNCH_KINDS = (ScopeKind.InCore, ScopeKind.Hierarchy, ScopeKind.Cluster, ScopeKind.Spmd)
_NOT_LAUNCHES = (ScopeKind.Runtime, ScopeKind.Graph, ScopeKind.SplitAiv)
SPMD_DEPS_IN_CLUSTER = "PTO164"  # `pl.spmd(..., deps=[...])` inside `pl.cluster()` (#2593)
# why the parser rejects task metadata on a cluster-nested pl.spmd (PTO159/PTO160/PTO164)
_UNWRAPPED = "a cluster-nested pl.spmd is unwrapped into the Group function and never produces a Submit"
_INCORE_HINT = "write `with pl.at(level=pl.Level.CORE_GROUP):`"


@dataclass
class _Header:
    """One `with`/`for` scope header being built."""

    node: ast.With | ast.For
    call: ast.Call
    construct: str  # "pl.at(...)", ...
    tid_target: ast.Name | None = None


def split_spmd_hint(hint: str) -> tuple[str, str]:
    """The parser's name-hint split: (Spmd scope name, InCore scope name)."""
    if not hint:
        return "", ""
    if hint.endswith("_spmd"):
        return hint, hint.removesuffix("_spmd")
    return hint + "_spmd", hint


class ScopeBuilder:
    def __init__(self, state: BodyState, stmts: StmtBuilder) -> None:
        self.state = state
        # the statement builder owns this one: a weak reference back keeps the pair from being
        # a reference cycle that holds the built IR until a full collection
        self._stmts = weakref.ref(stmts)

    @property
    def stmts(self) -> StmtBuilder:
        stmts = self._stmts()
        assert stmts is not None  # only called while its statement builder builds
        return stmts

    # -- with ------------------------------------------------------------------------------

    def build_with(self, node: ast.With) -> list[Stmt]:
        state = self.state
        if len(node.items) > 1:
            last = node.items[-1]
            state.error(
                "PTO101",
                "Only single context manager supported in with statement",
                state.span_between(node.items[1].context_expr, last.optional_vars or last.context_expr),
                hint="nest one `with` per scope",
            )
        item = node.items[0]
        call = item.context_expr
        name = self._construct_name(call)
        if name is None or not isinstance(call, ast.Call):
            state.error(
                "PTO102",
                "Unsupported context manager in with statement",
                call,
                hint="use pl.at(...), pl.cluster(), pl.spmd(...), pl.graph(...), pl.scope() or "
                "pl.manual_scope()",
            )
            return self.stmts.block(node.body)
        header = _Header(node, call, f"pl.{name}(...)")
        target = item.optional_vars
        if target is not None and name not in _TID_CONSTRUCTS:
            state.error(
                "PTO103",
                f"`with pl.{name}(...) as ...:` is not supported — the `as` clause only applies to "
                "`with pl.at(...) as tid:` and `with pl.spmd(...) as tid:`",
                target,
                hint="remove the `as` clause",
            )
        elif target is not None and not isinstance(target, ast.Name):
            state.error(
                "PTO104",
                "`as` target on `with pl.at(...)` / `pl.spmd(...)` must be a plain variable name",
                target,
            )
        elif isinstance(target, ast.Name):
            header.tid_target = target
        return getattr(self, f"_with_{name}")(header)

    def _construct_name(self, node: ast.expr) -> str | None:
        if not isinstance(node, ast.Call):
            return None
        path = self.state.dsl_path(node.func)
        if path is None or path[0] != PL or len(path) != 2 or path[1] not in _WITH_CONSTRUCTS:
            return None
        return path[1]

    def _with_at(self, header: _Header) -> list[Stmt]:
        state = self.state
        args = parse_at(state, header.call)
        incore = args.level in (Level.CORE_GROUP, None) or args.legacy_optimization
        kind = ScopeKind.InCore if incore else ScopeKind.Hierarchy
        if incore:
            self._check_incore_nesting(header, args)
            self._check_predicate(args)
        return self._emit(header, kind, args, cache="attach")

    def _with_incore(self, header: _Header) -> list[Stmt]:
        self.state.info(
            "PTO603",
            "pl.incore() is a legacy form, read as `pl.at(level=pl.Level.CORE_GROUP)`",
            header.call,
            hint=_INCORE_HINT,
        )
        self._check_incore_nesting(header, ScopeArgs())
        return self._emit(header, ScopeKind.InCore, ScopeArgs(level=Level.CORE_GROUP), cache="attach")

    def _with_auto_incore(self, header: _Header) -> list[Stmt]:
        self.state.info(
            "PTO603",
            "pl.auto_incore() is a legacy form, read as `pl.at(level=pl.Level.CORE_GROUP)`",
            header.call,
            hint="write `with pl.at(level=pl.Level.CORE_GROUP, optimizations=[...]):`",
        )
        self._check_incore_nesting(header, ScopeArgs())
        return self._emit(header, ScopeKind.InCore, ScopeArgs(level=Level.CORE_GROUP), cache="attach")

    def _with_cluster(self, header: _Header) -> list[Stmt]:
        args = parse_cluster(self.state, header.call)
        self._check_launch_in_device(header, "PTO505", "pl.cluster()")
        return self._emit(header, ScopeKind.Cluster, args, cache="reject")

    def _with_graph(self, header: _Header) -> list[Stmt]:
        state = self.state
        args = parse_graph(state, header.call)
        if state.function_type.is_device:
            state.error(
                "PTO144",
                f"`pl.graph` is not valid inside a {state.function_type.value} function",
                header.call,
                hint="put the pl.graph region in the orchestration function that launches this kernel",
            )
            return self.stmts.block(header.node.body)  # no region: it could never be outlined
        outer = state.innermost(ScopeKind.Graph, *_LAUNCH_KINDS)
        if outer is not None and outer.kind is ScopeKind.Graph:
            inner = _graph_construct(args)
            state.error(
                "PTO146",
                f"`{inner}` cannot be nested inside `{outer.construct}`"
                if inner != outer.construct
                else f"`{inner}` cannot be nested inside another `{outer.construct}`",
                header.call,
                hint="mark only one of the two regions",
                related=(Related("the enclosing pl.graph region", outer.header_span),),
            )
        elif outer is not None:
            state.error(
                "PTO145",
                f"`pl.graph` cannot be nested inside `{outer.construct}`: that becomes one device task, "
                "while a graph records a topology of tasks",
                header.call,
                hint=f"move the pl.graph region around the `{outer.construct}` scope",
                related=(Related(f"the enclosing {outer.construct} region", outer.header_span),),
            )
        return self._emit(header, ScopeKind.Graph, args, cache="reject")

    def _with_scope(self, header: _Header) -> list[Stmt]:
        return self._runtime(header, alias=False)

    def _with_manual_scope(self, header: _Header) -> list[Stmt]:
        return self._runtime(header, alias=True)

    def _runtime(self, header: _Header, *, alias: bool) -> list[Stmt]:
        """`pl.scope()` (AUTO) needs `@pl.function(auto_scope=False)` and may not sit inside a
        MANUAL scope; MANUAL scopes are allowed anywhere."""
        state = self.state
        mode, args = parse_runtime(state, header.call, alias=alias)
        if mode == "AUTO":
            manual = next((f for f in reversed(state.scopes) if f.runtime_mode == "MANUAL"), None)
            if manual is not None:
                state.error(
                    "PTO134",
                    "An AUTO `pl.scope()` cannot be nested inside a MANUAL scope",
                    header.call,
                    hint="use pl.scope(mode=pl.ScopeMode.MANUAL) here too, or move the AUTO scope out",
                    related=(Related("the enclosing MANUAL scope", manual.header_span),),
                )
            elif state.auto_scope:
                state.error(
                    "PTO133",
                    "A hand-placed AUTO `pl.scope()` needs @pl.function(auto_scope=False); by default "
                    "the compiler places AUTO scopes itself",
                    header.call,
                    hint="add auto_scope=False to @pl.function(...), or use "
                    "pl.scope(mode=pl.ScopeMode.MANUAL)",
                )
        return self._emit(header, ScopeKind.Runtime, args, cache="reject", runtime_mode=mode)

    def _with_spmd(self, header: _Header) -> list[Stmt]:
        state = self.state
        args = parse_spmd(state, header.call, loop_form=False)
        self._check_spmd_nesting(header, args)
        self._check_predicate(args)
        node = header.node
        body = [stmt for stmt in node.body if not self._is_cache_policy(stmt)]
        carrier = self._carrier(body)
        if carrier is not None:
            if args.optimizations_node is not None:
                inner_has = any(kw.arg == "optimizations" for kw in carrier.keywords)
                message = (
                    "`optimizations=` is specified twice: on pl.spmd(...) and on its pl.at(...) body"
                    if inner_has
                    else "`optimizations=` belongs on the InCore scope, but the body already provides one "
                    "(`pl.at(level=pl.Level.CORE_GROUP)`)"
                )
                state.error(
                    "PTO158",
                    message,
                    args.optimizations_node,
                    hint="write optimizations= on the inner pl.at(...) only",
                )
            return self._emit(header, ScopeKind.Spmd, args, cache="reject")
        if self._reads_block_index(node.body) or args.optimizations_node is not None:
            return self._wrapped_spmd(header, args, node.body)
        self._check_dispatch(header, body)
        return self._emit(header, ScopeKind.Spmd, args, cache="reject")

    # -- for -------------------------------------------------------------------------------

    def build_spmd_for(self, node: ast.For, call: ast.Call) -> list[Stmt]:
        """`for i in pl.spmd(n)`: Spmd{InCore{i = tile.get_block_idx(); body}}."""
        state = self.state
        header = _Header(node, call, "pl.spmd(...)")
        args = parse_spmd(state, call, loop_form=True)
        self._check_spmd_nesting(header, args)
        self._check_predicate(args)
        target = node.target if isinstance(node.target, ast.Name) else None
        if target is None:
            state.error("PTO161", "for ... in pl.spmd(...) must use a single loop variable", node.target)
        return self._wrapped_spmd(header, args, node.body, index_target=target)

    def build_split_aiv(self, node: ast.For, call: ast.Call) -> list[Stmt]:
        state = self.state
        header = _Header(node, call, "pl.split_aiv(...)")
        args = parse_split_aiv(state, call)
        target = node.target if isinstance(node.target, ast.Name) else None
        if target is None:
            state.error("PTO172", "for ... in pl.split_aiv(...) must use a single loop variable", node.target)
        outer = state.innermost(ScopeKind.SplitAiv)
        if outer is not None:
            state.error(
                "PTO170",
                "nested 'for ... in pl.split_aiv(...)' is not allowed",
                call,
                hint="a pl.split_aiv region already splits this code across the two AIV cores",
                related=(Related("the enclosing pl.split_aiv region", outer.header_span),),
            )
        incore = state.innermost(ScopeKind.InCore)
        if incore is not None and incore.declares_split:
            state.error(
                "PTO171",
                "scope combines a function-level pl.split(...) (optimizations=[pl.split(...)]) with a "
                "pl.split_aiv region; these are mutually exclusive AIV-split mechanisms",
                call,
                hint="remove one of them; use pl.cross_core_slot(slot_num=N) for the slot count",
                related=(Related("the scope declaring pl.split(...)", incore.header_span),),
            )
        in_place = incore is not None or state.function_type is FunctionType.InCore
        if in_place:
            return [self._split_aiv_scope(header, args, target)]
        wrapper = ScopeFrame(ScopeKind.InCore, "pl.split_aiv(...)", state.span(call), parser_made=True)
        state.scopes.append(wrapper)
        try:
            inner = self._split_aiv_scope(header, args, target)
        finally:
            state.scopes.pop()
        return [
            ScopeStmt(
                ScopeKind.InCore,
                [inner],
                span=state.span(node),
                header_span=state.span(call),
            )
        ]

    def _split_aiv_scope(self, header: _Header, args: ScopeArgs, target: ast.Name | None) -> ScopeStmt:
        state = self.state
        prologue = self._bind_index(target, "tile.get_subblock_idx", header.call)
        frame = ScopeFrame(ScopeKind.SplitAiv, header.construct, state.span(header.call))
        state.scopes.append(frame)
        state.loops.append("split_aiv")
        try:
            body = self.stmts.block(header.node.body)
        finally:
            state.loops.pop()
            state.scopes.pop()
        return ScopeStmt(
            ScopeKind.SplitAiv,
            prologue + body,
            span=state.span(header.node),
            header_span=state.span(header.call),
            split=args.split,
        )

    # -- shared ----------------------------------------------------------------------------

    def _wrapped_spmd(
        self,
        header: _Header,
        args: ScopeArgs,
        body_nodes: list[ast.stmt],
        index_target: ast.Name | None = None,
    ) -> list[Stmt]:
        """Spmd(h_spmd){InCore(h){body}}: the inline and loop forms, and any form with
        `optimizations=` (which go onto the inner InCore scope)."""
        state = self.state
        spmd_name, incore_name = split_spmd_hint(args.name_hint)
        prologue = self._task_id(header)
        call_span = state.span(header.call)
        spmd_frame = ScopeFrame(ScopeKind.Spmd, header.construct, call_span)
        incore_frame = ScopeFrame(
            ScopeKind.InCore,
            header.construct,
            call_span,
            declares_split=args.split is not None,
            parser_made=True,
        )
        state.scopes.extend((spmd_frame, incore_frame))
        if index_target is not None:
            state.loops.append("spmd")
        try:
            index = self._bind_index(index_target, "tile.get_block_idx", header.call) if index_target else []
            body, cache = self._body(header, body_nodes, ScopeKind.InCore, "attach")
        finally:
            if index_target is not None:
                state.loops.pop()
            del state.scopes[-2:]
        incore = ScopeStmt(
            ScopeKind.InCore,
            index + body,
            span=state.span(header.node),
            header_span=call_span,
            name_hint=incore_name,
            name_span=args.name_span,
            level=Level.CORE_GROUP,
            split=args.split,
            slot_num=args.slot_num,
            cache_policies=cache,
        )
        spmd = self._scope_stmt(header, ScopeKind.Spmd, args, [incore], [])
        spmd.name_hint = spmd_name
        self._record_producer(spmd)
        return [*prologue, spmd]

    def _emit(
        self,
        header: _Header,
        kind: ScopeKind,
        args: ScopeArgs,
        *,
        cache: str,
        runtime_mode: str | None = None,
    ) -> list[Stmt]:
        state = self.state
        prologue = self._task_id(header)
        frame = ScopeFrame(
            kind,
            _graph_construct(args) if kind is ScopeKind.Graph else header.construct,
            state.span(header.call),
            declares_split=args.split is not None,
            runtime_mode=runtime_mode,
        )
        state.scopes.append(frame)
        try:
            body, policies = self._body(header, header.node.body, kind, cache)
        finally:
            state.scopes.pop()
        scope = self._scope_stmt(header, kind, args, body, policies)
        scope.runtime_mode = runtime_mode
        self._record_producer(scope)
        return [*prologue, scope]

    def _scope_stmt(
        self,
        header: _Header,
        kind: ScopeKind,
        args: ScopeArgs,
        body: list[Stmt],
        policies: list[CachePolicyDecl],
    ) -> ScopeStmt:
        """The scope with the attributes its kind carries (forward-sticky `pl.dump_tag`
        tensors join `dump_vars` later, in `dump_tags`)."""
        state = self.state
        tid = state.variables.get(header.tid_target.id) if header.tid_target is not None else None
        incore, hierarchy = kind is ScopeKind.InCore, kind is ScopeKind.Hierarchy
        return ScopeStmt(
            kind,
            body,
            span=state.span(header.node),
            header_span=state.span(header.call),
            name_hint=args.name_hint,
            name_span=args.name_span,
            level=Level.CORE_GROUP if incore else args.level if hierarchy else None,
            role=args.role if hierarchy else None,
            split=args.split if incore else None,
            slot_num=args.slot_num if incore else None,
            windowize=args.windowize,
            allow_early_resolve=args.allow_early_resolve,
            deps=args.deps,
            no_dep_args=args.no_dep_args,
            dump_vars=list(args.dump_vars),
            task_id_var=tid,
            predicate=args.predicate,
            cache_policies=policies,
            core_num=args.core_num,
            sync_start=args.sync_start,
        )

    def _body(
        self, header: _Header, nodes: list[ast.stmt], kind: ScopeKind, cache: str
    ) -> tuple[list[Stmt], list[CachePolicyDecl]]:
        """The scope body with its top-level `pl.set_cache_policy` statements hoisted (attached
        when `cache == "attach"`, PTO181 otherwise)."""
        state = self.state
        entry_vars = dict(state.variables)
        policies: list[CachePolicyDecl] = []
        remaining: list[ast.stmt] = []
        for stmt in nodes:
            if not self._is_cache_policy(stmt):
                remaining.append(stmt)
                continue
            assert isinstance(stmt, ast.Expr)
            if cache != "attach":
                state.error(
                    "PTO181",
                    f"pl.set_cache_policy() has nothing to attach to on this {kind.value} scope",
                    stmt,
                    hint="put it at the top of the pl.at(level=pl.Level.CORE_GROUP) body that reads "
                    "the tensor",
                    related=(Related(f"the {header.construct} scope", state.span(header.call)),),
                )
                continue
            decl = parse_cache_policy(state, stmt, entry_vars)
            if decl is not None and all(existing.var is not decl.var for existing in policies):
                policies.append(decl)
        return self.stmts.block(remaining), policies

    def _is_cache_policy(self, stmt: ast.stmt) -> bool:
        if not isinstance(stmt, ast.Expr) or not isinstance(stmt.value, ast.Call):
            return False
        return self.state.dsl_path(stmt.value.func) == (PL, "set_cache_policy")

    def _task_id(self, header: _Header) -> list[Stmt]:
        """`as tid`: bind `tid` and emit the placeholder `tid = system.task_invalid()`."""
        target = header.tid_target
        if target is None:
            return []
        state = self.state
        state.note_definition(target.id, target)
        var = state.fresh(target.id, target, TASK_ID)
        span = state.span(target)
        return [AssignStmt(var, Call("system.task_invalid", [], {}, TASK_ID, span), span)]

    def _bind_index(self, target: ast.Name | None, op: str, call: ast.Call) -> list[Stmt]:
        if target is None:
            return []
        state = self.state
        var = state.fresh(target.id, target, INDEX)  # a loop variable: rebinding rules do not apply
        span = state.span(target)
        return [AssignStmt(var, Call(op, [], {}, INDEX, state.span(call)), span)]

    # -- nesting checks --------------------------------------------------------------------

    def _check_incore_nesting(self, header: _Header, args: ScopeArgs) -> None:
        state = self.state
        outer = state.innermost(ScopeKind.InCore)
        if outer is not None:
            state.error(
                "PTO509",
                f"pl.at(level=pl.Level.CORE_GROUP) cannot be nested inside another InCore scope "
                f"(`{outer.construct}`)",
                header.call,
                hint="remove the inner pl.at(...)",
                related=(Related(f"the enclosing {outer.construct} scope", outer.header_span),),
            )
        if args.predicate_node is None:
            return
        host = state.innermost(ScopeKind.InCore, ScopeKind.Cluster, ScopeKind.Spmd)
        if host is not None:
            state.error(
                "PTO124",
                f"pl.at(predicate=...) cannot be used inside `{host.construct}`: the predicate would be "
                "silently dropped",
                args.predicate_node,
                hint="write the predicated pl.at(...) at orchestration top level",
                related=(Related(f"the enclosing {host.construct} scope", host.header_span),),
            )

    def _check_launch_in_device(self, header: _Header, code: str, construct: str) -> None:
        state = self.state
        outer = state.innermost(ScopeKind.InCore)
        if outer is not None:
            state.error(
                code,
                f"`{construct}` cannot be nested inside `{outer.construct}` (an InCore scope)",
                header.call,
                hint="move it to orchestration level, around the InCore scope",
                related=(Related(f"the enclosing {outer.construct} scope", outer.header_span),),
            )
        elif state.function_type.is_device:
            state.error(
                code,
                f"`{construct}` is not valid inside a {state.function_type.value} function",
                header.call,
                hint="launch it from an orchestration function",
            )

    def _check_spmd_nesting(self, header: _Header, args: ScopeArgs) -> None:
        state = self.state
        self._check_launch_in_device(header, "PTO506", "pl.spmd(...)")
        cluster = state.innermost(ScopeKind.Cluster)
        if cluster is None:
            return
        related = (Related("the enclosing pl.cluster() region", cluster.header_span),)
        if header.tid_target is not None:
            state.error(
                "PTO159",
                "`with pl.spmd(...) as tid:` cannot capture a TaskId when nested inside `pl.cluster()` "
                f"— {_UNWRAPPED}.",
                header.tid_target,
                hint="Use a standalone `with pl.spmd(...) as tid:` (implicit cluster) to capture the "
                "dispatch TaskId.",
                related=related,
            )
        deps = next((kw for kw in header.call.keywords if kw.arg == "deps"), None)
        if deps is not None and args.deps:
            # hw-native-sys/pypto#2593: deps= is accepted on every pl.spmd form, but not on
            # one nested in pl.cluster() (unwrapped into the Group function, it is no task)
            state.error(
                SPMD_DEPS_IN_CLUSTER,
                f"`pl.spmd(..., deps=[...])` cannot be nested inside `pl.cluster()` — {_UNWRAPPED}, so "
                "its dependency edges would be lost.",
                deps,
                hint="Drop the `pl.cluster()` wrapper — a standalone `pl.spmd` is its own implicit "
                "cluster and does take `deps=`.",
                related=related,
            )
            args.deps = []  # as rejected: the Group function does not read the TaskIds
        for kw in header.call.keywords:
            early = kw.arg == "allow_early_resolve" and isinstance(kw.value, ast.Constant) and kw.value.value
            if early or kw.arg == "predicate":
                written, lost = (
                    ("allow_early_resolve=True", "the early-dispatch hint")
                    if early
                    else ("predicate=(...)", "the dispatch predicate")
                )
                state.error(
                    "PTO160",
                    f"`pl.spmd(..., {written})` cannot be nested inside `pl.cluster()` — {_UNWRAPPED}, so "
                    f"{lost} would be lost.",
                    kw,
                    hint=f"Use a standalone `with pl.spmd(..., {written}):` (implicit cluster) to keep it.",
                    related=related,
                )

    # -- predicate= -------------------------------------------------------------------------

    def _record_producer(self, scope: ScopeStmt) -> None:
        """Remember a finished launch scope, for the predicate deps rule. What it writes is
        found only once a predicate asks (`_producer`): most bodies have no predicate, and the
        search walks the scope's whole body."""
        if scope.kind in _NOT_LAUNCHES:
            return
        self.state.unindexed_launches.append(scope)

    def _producer(self, name: str) -> tuple[Var | None, Span] | None:
        """The TaskId and header of the launch scope finished last that writes tensor `name`."""
        state = self.state
        if state.reuse is not None:
            state.reuse.unreusable += 1  # what this reads depends on every launch before it
        for scope in state.unindexed_launches:
            for var in written_vars(scope.body):
                state.producers[var.name] = (scope.task_id_var, scope.header_span)
        state.unindexed_launches.clear()
        return state.producers.get(name)

    def _check_predicate(self, args: ScopeArgs) -> None:
        """`predicate=` reads one tensor element; a task that produced that tensor must be
        listed in `deps=` (PTO127), or the predicate could read it before it is written."""
        state = self.state
        if args.predicate_node is None:
            return
        operand = predicate_operand(state, args.predicate_node)
        producer = self._producer(operand.id) if operand is not None else None
        if operand is None or producer is None:
            return
        tid, producer_span = producer
        if tid is not None and tid in args.deps:
            return
        state.error(
            "PTO127",
            f"predicate= reads '{operand.id}', which is produced by an earlier task that is not in deps=",
            operand,
            hint="capture the producing scope with `as tid` and pass deps=[tid]",
            related=(Related(f"the task producing '{operand.id}'", producer_span),),
        )

    # -- spmd body classification ----------------------------------------------------------

    def _carrier(self, body: list[ast.stmt]) -> ast.Call | None:
        """The `pl.at(CORE_GROUP, ...)` call when that `with` is the body's only statement."""
        if len(body) != 1 or not isinstance(body[0], ast.With):
            return None
        call = body[0].items[0].context_expr
        if self._construct_name(call) != "at" or not isinstance(call, ast.Call):
            return None
        level = (
            call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "level"), None)
        )
        member = enum_member(self.state, level, "Level") if level is not None else None
        return call if member is not None and LEVEL_ALIASES.get(member) is Level.CORE_GROUP else None

    def _reads_block_index(self, body: list[ast.stmt]) -> bool:
        for stmt in body:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Call):
                    func = node.func
                    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
                    if name == "get_block_idx":
                        return True
        return False

    def _check_dispatch(self, header: _Header, body: list[ast.stmt]) -> None:
        state = self.state
        calls = [
            node
            for stmt in body
            for node in ast.walk(stmt)
            if isinstance(node, ast.Call) and self._is_kernel_call(node.func)
        ]
        if not calls:
            state.error(
                "PTO156",
                "`with pl.spmd(...)` body neither reads the per-block index via `pl.tile.get_block_idx()` "
                "nor dispatches a `self.<kernel>(...)` call, so every block would run identical work.",
                header.call,
                hint="call one kernel in the body, or read pl.tile.get_block_idx() to split the work",
            )
        elif len(calls) > 1:
            state.error(
                "PTO157",
                f"dispatch body launches {len(calls)} kernels; only one kernel dispatch per SPMD scope "
                "is supported.",
                header.call,
                hint="use one pl.spmd(...) scope per kernel",
                related=tuple(Related("kernel dispatch", state.span(call)) for call in calls),
            )

    def _is_kernel_call(self, func: ast.expr) -> bool:
        """`self.k(...)`, a jit sub-function, `pl.jit.extern` kernel or inline helper `k(...)` (a
        name resolving to a decorated module function), or a `pl.submit`/`pl.spmd_submit` launch."""
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
            return True
        if self.state.dsl_path(func) in ((PL, "submit"), (PL, "spmd_submit")):
            return True
        state = self.state
        module = state.ctx.module
        callable_names = state.ctx.callees.keys() | module.inline_functions.keys() | module.functions.keys()
        if not isinstance(func, ast.Name) or func.id in state.variables:
            return False
        return func.id in callable_names or _defined_in_another_module(state, func)


def _defined_in_another_module(state: BodyState, func: ast.Name) -> bool:
    """A called name this file does not define (`from kernels import attention`): it may well
    be a kernel, so it is not reported as a missing dispatch (unknown is not wrong)."""
    return (
        func.id not in vars(builtins)
        and func.id not in state.ctx.module.constants
        and state.dsl_path(func) is None
    )


def _graph_construct(args: ScopeArgs) -> str:
    """How messages name a graph region: `pl.graph("band")`, or `pl.graph(...)` unnamed."""
    return f'pl.graph("{args.name_hint}")' if args.name_hint else "pl.graph(...)"
