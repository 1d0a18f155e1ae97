"""Quick fixes as libcst rewrites of one top-level unit, so formatting and comments survive.

`fixes_for(code, unit_text, line, col, data)` returns (title, new unit text) pairs for a
diagnostic at (1-based line, code-point col) of the unit. A fix is offered only where the
rewrite is certainly what the diagnostic asks for; otherwise nothing is returned.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, ParentNodeProvider, PositionProvider

Fix = tuple[str, str]
Statement = cst.SimpleStatementLine | cst.BaseCompoundStatement
N = TypeVar("N", bound=cst.CSTNode)

REGION_NAME = "region"


@dataclass
class _Unit:
    module: cst.Module
    positions: Any  # Mapping[CSTNode, CodeRange]
    parents: Any  # Mapping[CSTNode, CSTNode]
    line: int
    col: int

    def around(self, kind: type[N], accept: Callable[[N], bool] = lambda _: True) -> list[N]:
        """Nodes of `kind` whose range holds the diagnostic's start, innermost first."""
        found = [
            node
            for node, where in self.positions.items()
            if isinstance(node, kind) and _holds(where, self.line, self.col) and accept(node)
        ]
        return sorted(found, key=lambda n: _size(self.positions[n]))

    def scopes_around(self, accept: Callable[[cst.With | cst.For], bool]) -> list[cst.With | cst.For]:
        """`with`/`for` statements around the diagnostic's start, innermost first."""
        found: list[cst.With | cst.For] = [*self.around(cst.With, accept), *self.around(cst.For, accept)]
        return sorted(found, key=lambda n: _size(self.positions[n]))

    def replaced(self, old: cst.CSTNode, new: Any) -> str:
        """The unit's code with `old` replaced by `new` (a node, or a FlattenSentinel of nodes)."""
        replaced = self.module.deep_replace(old, new)
        assert isinstance(replaced, cst.Module)
        return replaced.code


def fixes_for(code: str, unit_text: str, line: int, col: int, data: dict[str, Any]) -> list[Fix]:
    fixer = _FIXERS.get(code)
    if fixer is None:
        return []
    try:
        wrapper = MetadataWrapper(cst.parse_module(unit_text), unsafe_skip_copy=True)
        positions = wrapper.resolve(PositionProvider)
        parents = wrapper.resolve(ParentNodeProvider)
    except cst.ParserSyntaxError:
        return []
    return fixer(_Unit(wrapper.module, positions, parents, line, col), data)


# -- the fixes --------------------------------------------------------------------------------


def _name_the_graph(unit: _Unit, data: dict[str, Any]) -> list[Fix]:
    """PTO140: `pl.graph()` -> `pl.graph("region")`."""
    calls: list[cst.Call] = unit.around(cst.Call, lambda c: _called(c) == "graph")
    if not calls:
        return []
    call = calls[0]
    positional = [a for a in call.args if a.keyword is None and a.star == ""]
    keywords = [a for a in call.args if a not in positional]
    name = cst.Arg(cst.SimpleString(f'"{REGION_NAME}"'))
    new_args = _fix_commas([name, *keywords])
    new_call = call.with_changes(args=new_args)
    return [(f"Name the region: {_code(new_call)}", unit.replaced(call, new_call))]


def _unwrap_inner_graph(unit: _Unit, data: dict[str, Any]) -> list[Fix]:
    """PTO146: replace the inner `with pl.graph(...)` by its body, dedented into the outer."""
    withs: list[cst.With] = unit.around(cst.With, _is_graph_scope)
    body = _unwrapped_body(withs[0]) if withs else None
    if body is None:
        return []
    return [("Unwrap the nested pl.graph region", unit.replaced(withs[0], cst.FlattenSentinel(body)))]


def _drop_cluster_wrapper(unit: _Unit, data: dict[str, Any]) -> list[Fix]:
    """PTO159/PTO160/PTO164: what the compiler asks for task metadata (`as tid`,
    `allow_early_resolve=`, `predicate=`, `deps=` (#2593)) on a cluster-nested `pl.spmd`: use a
    standalone one (its own implicit cluster), i.e. drop the `pl.cluster()` wrapper. Offered
    only when the spmd is the cluster's one statement, so nothing else leaves the Group."""
    withs: list[cst.With] = unit.around(cst.With, lambda w: _called_scope(w) == "cluster")
    body = _unwrapped_body(withs[0]) if withs else None
    if body is None or len(body) != 1 or _called_scope(body[0]) != "spmd":
        return []
    return [("Drop the pl.cluster() wrapper", unit.replaced(withs[0], cst.FlattenSentinel(body)))]


def _unwrapped_body(scope: cst.With) -> list[Statement] | None:
    """The statements of `scope`'s block, the first carrying the comments above the `with` and
    on its header line, to replace the `with` by (libcst re-indents them); None if empty."""
    block = scope.body
    if not isinstance(block, cst.IndentedBlock) or not block.body:
        return None
    body: list[Statement] = list(block.body)  # type: ignore[arg-type]
    moved_comments = list(scope.leading_lines)
    if block.header.comment is not None:
        moved_comments.append(cst.EmptyLine(comment=block.header.comment))
    body[0] = body[0].with_changes(leading_lines=[*moved_comments, *body[0].leading_lines])
    return body


def _drop_cache_policy(unit: _Unit, data: dict[str, Any]) -> list[Fix]:
    """PTO302/PTO303: remove the `pl.set_cache_policy(...)` statement."""
    lines: list[cst.SimpleStatementLine] = unit.around(
        cst.SimpleStatementLine, lambda s: any(_called(c) == "set_cache_policy" for c in _calls_in(s))
    )
    if not lines:
        return []
    block = unit.parents.get(lines[0])
    alone = isinstance(block, cst.IndentedBlock) and len(block.body) == 1
    title = "Remove the pl.set_cache_policy(...) declaration" + (" (leaves the scope empty)" if alone else "")
    return [(title, _without_statement(unit, lines[0]))]


def _hoist_scalar(unit: _Unit, data: dict[str, Any]) -> list[Fix]:
    """PTO301: move the statement defining the scalar before the scope, only when the caller
    can compute it there: a pure scalar expression over values it has (the pass's own hoist
    rule), or a `pl.read` / `pl.tensor.read` of a tensor the scope only reads (the spec's fix,
    `n = pl.tensor.read(cfg, [0])` outside the scope). A device-side value such as
    `pl.tile.get_block_idx()` gets no fix: it has no host-side equivalent. `data["inputs"]` are
    the names the scope only reads, `data["scalar_inputs"]` the scalars among them (the server
    adds both from the scope's record). A scope left with nothing in it is removed with the
    same edit, unless it names a task id (`as tid`) that later code may read: then the title
    says it is left empty."""
    scalar = data.get("scalar")
    if not isinstance(scalar, str):
        return []
    inputs = set(data.get("inputs") or [])
    scalar_inputs = set(data.get("scalar_inputs") or [])
    for scope in unit.scopes_around(_is_dsl_scope):
        if not isinstance(scope.body, cst.IndentedBlock):
            continue
        body: list[Statement] = list(scope.body.body)  # type: ignore[arg-type]
        index = next((i for i, s in enumerate(body) if scalar in _assigned(s)), None)
        if index is None:
            continue
        statement = body[index]
        defined_inside = _scope_bindings(scope) | {name for s in body[:index] for name in _assigned(s)}
        value = _assigned_value(statement)
        if (
            value is None
            or _read_names(statement) & defined_inside
            or not _host_computable(value, inputs, scalar_inputs)
        ):
            return []
        rest = body[:index] + body[index + 1 :]
        if not rest and not _scope_bindings(scope) - _target_names_of(scope):
            return [
                (
                    f"Move '{scalar}' out of the scope and remove the emptied scope",
                    unit.replaced(scope, statement),
                )
            ]
        title = f"Move '{scalar}' before the scope" + ("" if rest else " (leaves the scope empty)")
        new_scope = scope.with_changes(body=scope.body.with_changes(body=rest or [_pass_like(statement)]))
        return [(title, unit.replaced(scope, cst.FlattenSentinel([statement, new_scope])))]
    return []


def _assigned_value(statement: Statement) -> cst.BaseExpression | None:
    """The value of `name = value` (one plain target), else None."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if (
        isinstance(assign, cst.Assign)
        and len(assign.targets) == 1
        and isinstance(assign.targets[0].target, cst.Name)
    ):
        return assign.value
    if isinstance(assign, cst.AnnAssign) and isinstance(assign.target, cst.Name):
        return assign.value
    return None


_READS = frozenset({"read"})  # pl.read / pl.tensor.read


def _host_computable(value: cst.BaseExpression, inputs: set[str], scalar_inputs: set[str]) -> bool:
    """Whether the caller can compute `value` before the scope (see `_hoist_scalar`)."""
    if isinstance(value, cst.Call):
        args = [a for a in value.args if a.keyword is None]
        return (
            _called(value) in _READS
            and len(args) == len(value.args) == 2
            and isinstance(args[0].value, cst.Name)
            and args[0].value.value in inputs
            and _pure_scalar(args[1].value, inputs, scalar_inputs)
        )
    return _pure_scalar(value, inputs, scalar_inputs)


def _pure_scalar(value: cst.BaseExpression, inputs: set[str], scalar_inputs: set[str]) -> bool:
    """Numbers, names of scalars the scope reads (or constants it does not capture), and
    arithmetic over them (a list of them, for read indices): no call, no tensor."""
    if isinstance(value, (cst.Integer, cst.Float)):
        return True
    if isinstance(value, cst.Name):
        return value.value in scalar_inputs or value.value not in inputs
    if isinstance(value, cst.BinaryOperation):
        return _pure_scalar(value.left, inputs, scalar_inputs) and _pure_scalar(
            value.right, inputs, scalar_inputs
        )
    if isinstance(value, cst.UnaryOperation):
        return _pure_scalar(value.expression, inputs, scalar_inputs)
    if isinstance(value, (cst.List, cst.Tuple)):
        return all(
            isinstance(e, cst.Element) and _pure_scalar(e.value, inputs, scalar_inputs)
            for e in value.elements
        )
    return False


def _target_names_of(scope: cst.CSTNode) -> set[str]:
    """The names a `for ... in pl.spmd(...)` header binds: unused by the moved statement (it
    reads nothing the scope binds), so removing the loop with the scope loses nothing."""
    return _target_names(scope.target) if isinstance(scope, cst.For) else set()


def _declare_written_param(unit: _Unit, data: dict[str, Any]) -> list[Fix]:
    """PTO165: what the compiler's message asks (#2457), declare the written `In` parameter
    `pl.Out` (the body never reads it) or `pl.InOut` (it does): its annotation `T` becomes
    `pl.Out[T]` / `pl.InOut[T]`, spelled with the DSL alias the signature already uses."""
    name, direction = data.get("param"), data.get("direction")
    if direction not in ("Out", "InOut"):
        return []
    defs: list[cst.FunctionDef] = unit.around(cst.FunctionDef, lambda f: f.name.value == data.get("function"))
    if not defs:
        return []
    params = defs[0].params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    param = next((p for p in every if p.name.value == name), None)
    if param is None or param.annotation is None:
        return []
    alias = _dsl_alias([p.annotation.annotation for p in every if p.annotation is not None])
    wrapped = cst.Subscript(
        value=cst.Attribute(value=cst.Name(alias), attr=cst.Name(direction)),
        slice=[cst.SubscriptElement(slice=cst.Index(value=param.annotation.annotation))],
    )
    new_param = param.with_changes(annotation=param.annotation.with_changes(annotation=wrapped))
    return [(f"Declare '{name}' {alias}.{direction}", unit.replaced(param, new_param))]


_SIGNATURE_TYPES = frozenset({"Tensor", "Tile", "Scalar", "Array", "Out", "InOut"})


def _dsl_alias(annotations: list[cst.BaseExpression]) -> str:
    """The name `pypto.language` is imported as, read off annotations like `pl.Tensor[...]`
    (not `pld.DistributedTensor[...]`, the distributed module's); `pl` if none shows it."""
    for annotation in annotations:
        for node in _walk(annotation):
            if (
                isinstance(node, cst.Attribute)
                and isinstance(node.value, cst.Name)
                and node.attr.value in _SIGNATURE_TYPES
            ):
                return node.value.value
    return "pl"


def _walk(node: cst.CSTNode) -> list[cst.CSTNode]:
    found = [node]
    for child in node.children:
        found += _walk(child)
    return found


def _drop_role(unit: _Unit, data: dict[str, Any]) -> list[Fix]:
    """PTO121: remove `role=` (or the positional role) from `pl.at(level=CORE_GROUP, ...)`."""
    calls: list[cst.Call] = unit.around(cst.Call, lambda c: _called(c) == "at")
    if not calls:
        return []
    call = calls[0]
    positional = [a for a in call.args if a.keyword is None and a.star == ""]
    role = next((a for a in call.args if a.keyword is not None and a.keyword.value == "role"), None)
    if role is None and len(positional) >= 2:
        role = positional[1]
    if role is None:
        return []
    new_call = call.with_changes(args=_fix_commas([a for a in call.args if a is not role]))
    return [("Remove role= (not supported with level=pl.Level.CORE_GROUP)", unit.replaced(call, new_call))]


def _resolve_split_conflict(unit: _Unit, data: dict[str, Any]) -> list[Fix]:
    """PTO171: drop the scope's `pl.split(...)` entry, or turn a `pl.split(M, slot_num=N)` into
    `pl.cross_core_slot(slot_num=N)` (the slot count is what it still carried)."""
    scopes = unit.scopes_around(lambda w: (c := _scope_call(w)) is not None and _split_entry(c) is not None)
    if not scopes:
        return []
    call = _scope_call(scopes[0])
    assert call is not None
    optimizations = _keyword(call, "optimizations")
    assert optimizations is not None and isinstance(optimizations.value, cst.List)
    listing = optimizations.value
    entry = _split_entry(call)
    assert entry is not None
    fixes = []
    remaining = [e for e in listing.elements if e is not entry]
    if remaining:
        new_value = listing.with_changes(elements=_fix_commas(remaining))
        new_call = call.with_changes(
            args=[optimizations.with_changes(value=new_value) if a is optimizations else a for a in call.args]
        )
    else:
        new_call = call.with_changes(args=_fix_commas([a for a in call.args if a is not optimizations]))
    fixes.append(("Remove pl.split(...) from optimizations", unit.replaced(call, new_call)))
    split_call = entry.value
    assert isinstance(split_call, cst.Call)
    slot = _keyword(split_call, "slot_num")
    has_slot_entry = any(
        isinstance(e.value, cst.Call) and _called(e.value) == "cross_core_slot" for e in remaining
    )
    if slot is not None and not has_slot_entry:
        assert isinstance(split_call.func, cst.Attribute)
        slot_call = cst.Call(
            func=split_call.func.with_changes(attr=cst.Name("cross_core_slot")),
            args=[slot.with_changes(comma=cst.MaybeSentinel.DEFAULT)],
        )
        new_entry = entry.with_changes(value=slot_call)
        replaced = unit.replaced(entry, new_entry)
        fixes.append((f"Replace with {_code(slot_call)}", replaced))
    return fixes


_FIXERS: dict[str, Callable[[_Unit, dict[str, Any]], list[Fix]]] = {
    "PTO140": _name_the_graph,
    "PTO146": _unwrap_inner_graph,
    "PTO159": _drop_cluster_wrapper,
    "PTO160": _drop_cluster_wrapper,
    "PTO164": _drop_cluster_wrapper,
    "PTO165": _declare_written_param,
    "PTO302": _drop_cache_policy,
    "PTO303": _drop_cache_policy,
    "PTO301": _hoist_scalar,
    "PTO121": _drop_role,
    "PTO171": _resolve_split_conflict,
}

FIXABLE_CODES = frozenset(_FIXERS)


# -- helpers ----------------------------------------------------------------------------------

_SCOPE_CALLS = frozenset({"at", "graph", "cluster", "spmd", "split_aiv", "incore", "auto_incore"})


def _holds(where: CodeRange, line: int, col: int) -> bool:
    return (where.start.line, where.start.column) <= (line, col) <= (where.end.line, where.end.column)


def _size(where: CodeRange) -> tuple[int, int]:
    return (where.end.line - where.start.line, where.end.column - where.start.column)


def _called(call: cst.Call) -> str | None:
    """The called attribute or name: `pl.graph(...)` -> "graph"."""
    if isinstance(call.func, cst.Attribute):
        return call.func.attr.value
    if isinstance(call.func, cst.Name):
        return call.func.value
    return None


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def _scope_call(node: cst.CSTNode) -> cst.Call | None:
    if isinstance(node, cst.With) and len(node.items) == 1 and isinstance(node.items[0].item, cst.Call):
        return node.items[0].item
    if isinstance(node, cst.For) and isinstance(node.iter, cst.Call):
        return node.iter
    return None


def _called_scope(node: cst.CSTNode) -> str | None:
    """The scope construct a `with`/`for` statement opens: `with pl.cluster():` -> "cluster"."""
    call = _scope_call(node)
    return _called(call) if call is not None else None


def _is_graph_scope(node: cst.CSTNode) -> bool:
    return _called_scope(node) == "graph"


def _is_dsl_scope(node: cst.CSTNode) -> bool:
    call = _scope_call(node)
    return call is not None and _called(call) in _SCOPE_CALLS


def _keyword(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def _split_entry(call: cst.Call) -> cst.Element | None:
    optimizations = _keyword(call, "optimizations")
    if optimizations is None or not isinstance(optimizations.value, cst.List):
        return None
    for element in optimizations.value.elements:
        if (
            isinstance(element, cst.Element)
            and isinstance(element.value, cst.Call)
            and _called(element.value) == "split"
        ):
            return element
    return None


def _calls_in(node: cst.CSTNode) -> list[cst.Call]:
    found: list[cst.Call] = []

    class Collect(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            found.append(call)

    node.visit(Collect())
    return found


T = TypeVar("T", cst.Arg, cst.Element)


def _fix_commas(items: Sequence[T]) -> list[T]:
    """Items of a call or list after some were removed: commas between, none after the last
    unless the original last one had a trailing comma."""
    fixed = list(items)
    for i, item in enumerate(fixed[:-1]):
        if item.comma is cst.MaybeSentinel.DEFAULT:
            fixed[i] = item.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))  # type: ignore[assignment]
    if fixed and isinstance(fixed[-1].comma, cst.Comma) and "\n" not in _code_of_comma(fixed[-1].comma):
        fixed[-1] = fixed[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)  # type: ignore[assignment]
    return fixed


def _code_of_comma(comma: cst.Comma) -> str:
    return cst.Module(body=[]).code_for_node(comma)


def _without_statement(unit: _Unit, statement: cst.SimpleStatementLine) -> str:
    """The unit without `statement`; its leading comments stay, on the next statement (or at
    the end of the block), and a block left empty gets a `pass`."""
    block = unit.parents.get(statement)
    if not isinstance(block, cst.IndentedBlock):
        return unit.module.deep_remove(statement).code  # type: ignore[union-attr]
    if len(block.body) == 1:
        return unit.replaced(statement, _pass_like(statement))
    body: list[Statement] = list(block.body)  # type: ignore[arg-type]
    index = body.index(statement)
    comments = list(statement.leading_lines)
    del body[index]
    if index < len(body):
        body[index] = body[index].with_changes(leading_lines=[*comments, *body[index].leading_lines])
        return unit.replaced(block, block.with_changes(body=body))
    return unit.replaced(block, block.with_changes(body=body, footer=[*comments, *block.footer]))


def _pass_like(statement: Statement) -> cst.SimpleStatementLine:
    """A `pass` keeping the statement's leading comments, for a block that would be empty."""
    return cst.SimpleStatementLine(body=[cst.Pass()], leading_lines=statement.leading_lines)


def _assigned(statement: cst.CSTNode) -> set[str]:
    """Names a statement binds (any depth: assignments, loop targets, `with ... as`)."""
    names: set[str] = set()

    class Collect(cst.CSTVisitor):
        def _targets(self, node: cst.CSTNode) -> None:
            if isinstance(node, cst.Name):
                names.add(node.value)
            elif isinstance(node, (cst.Tuple, cst.List)):
                for element in node.elements:
                    self._targets(element.value)

        def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
            self._targets(node.target)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            self._targets(node.target)

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            self._targets(node.target)

        def visit_For(self, node: cst.For) -> None:
            self._targets(node.target)

        def visit_AsName(self, node: cst.AsName) -> None:
            self._targets(node.name)

        def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
            self._targets(node.target)

    statement.visit(Collect())
    return names


def _scope_bindings(scope: cst.CSTNode) -> set[str]:
    """Names the scope header binds (`for i in pl.spmd(...)`, `with pl.at(...) as tid`)."""
    if isinstance(scope, cst.For):
        return _assigned(cst.Expr(scope.target)) | _target_names(scope.target)
    if isinstance(scope, cst.With):
        return {n for item in scope.items if item.asname is not None for n in _target_names(item.asname.name)}
    return set()


def _target_names(target: cst.CSTNode) -> set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {n for e in target.elements for n in _target_names(e.value)}
    return set()


def _read_names(statement: cst.CSTNode) -> set[str]:
    """Names a statement reads (attribute names like `load` in `pl.load` are not reads)."""
    names: set[str] = set()

    class Collect(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
            return False

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            names.add(node.value)

    statement.visit(Collect())
    return names
