"""Calls of a module's plain Python functions, followed over the tree as importing it runs them.

Real configs pick their variant at import by calling a function of their own:
`ACTIVE_VARIANT = _consume_variant_argv()` (deepseek_v4_pro's `config.py`: an environment read
with a default, then a scan of `sys.argv` for `--variant`), `EP = _parse_ep_argv()`,
`TP_SIZE = _parse_int_argv("--tp") or _TP_DEFAULT`. The compiler sees the values those calls
return. They are read here as a run that sets nothing returns them, the reading `static_eval`
already gives an environment read with a default: `sys.argv` holds only the script's path (no
option), so every such scan returns its default.

Nothing is executed: the function's statements are interpreted over static values by
`static_eval`'s evaluator (`Evaluator`), within its step budget. A statement or expression the
interpreter does not follow (a call with side effects, a `raise`, a `global`) makes the whole
call unknown (`NotStatic`), never a guess. This module knows nothing of the evaluator's values
but what `Evaluator` answers, so `static_eval` can import it without a cycle.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

_MAX_DEPTH = 16  # calls within calls


class _ScriptPath:
    """`sys.argv[0]`: the path of the script run, not known, but never an option."""

    def __repr__(self) -> str:
        return "sys.argv[0]"

    def startswith(self, prefix: str) -> bool | None:
        """What `startswith(prefix)` answers whatever the path is; None when that depends on it."""
        return False if prefix.startswith("-") else None


SCRIPT_PATH = _ScriptPath()
ARGV = (SCRIPT_PATH,)
"""`sys.argv` of a run that passes no option: the script's path alone."""


class NotStatic(Exception):
    """The call cannot be followed statically: its value is unknown."""


class Evaluator(Protocol):
    """What the interpreter needs of `static_eval`'s expression evaluator."""

    lookup: Callable[[str], Any]
    depth: int

    def eval(self, node: ast.expr) -> Any: ...

    def tick(self) -> None:
        """Count one step against the evaluator's budget."""
        ...

    def known(self, value: Any) -> bool:
        """Whether `value` is a value (not the evaluator's UNKNOWN)."""
        ...

    def truth(self, value: Any) -> bool:
        """The truth of a known value; NotStatic when it is not a plain one."""
        ...


@dataclass(frozen=True, eq=False, slots=True)
class StaticFunction:
    """An undecorated module-level `def`; `globals` reads the module's names at call time."""

    node: ast.FunctionDef
    globals: Callable[[str], Any]


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


def call(evaluator: Evaluator, function: StaticFunction, args: list[Any], keywords: dict[str, Any]) -> Any:
    """What `function(*args, **keywords)` returns, its names read through a frame of its own
    (locals, then the module's); NotStatic when the call cannot be followed."""
    if evaluator.depth >= _MAX_DEPTH:
        raise NotStatic
    node = function.node
    frame = _bind(evaluator, function, args, keywords)
    local_names = _assigned_names(node)

    def lookup(name: str) -> Any:
        if name in frame:
            return frame[name]
        if name in local_names:
            raise NotStatic  # read before it is bound: UnboundLocalError when it runs
        return function.globals(name)

    saved = evaluator.lookup
    evaluator.lookup = lookup
    evaluator.depth += 1
    try:
        _run(evaluator, node.body, frame)
    except _Return as returned:
        return returned.value
    except (_Break, _Continue):
        raise NotStatic from None
    finally:
        evaluator.lookup = saved
        evaluator.depth -= 1
    return None


def _bind(
    evaluator: Evaluator, function: StaticFunction, args: list[Any], keywords: dict[str, Any]
) -> dict[str, Any]:
    """The frame a call starts with: positional and keyword arguments, then defaults (read
    with the module's names)."""
    spec = function.node.args
    if spec.vararg or spec.kwarg or spec.posonlyargs:
        raise NotStatic
    names = [a.arg for a in spec.args]
    if len(args) > len(names):
        raise NotStatic
    frame = dict(zip(names, args, strict=False))
    kwonly = [a.arg for a in spec.kwonlyargs]
    for name, value in keywords.items():
        if name in frame or name not in names + kwonly:
            raise NotStatic  # a TypeError when it runs
        frame[name] = value
    defaults = dict(zip(names[len(names) - len(spec.defaults) :], spec.defaults, strict=True))
    defaults.update((a.arg, d) for a, d in zip(spec.kwonlyargs, spec.kw_defaults, strict=True) if d)
    saved = evaluator.lookup
    evaluator.lookup = function.globals
    try:
        for name in names + kwonly:
            if name not in frame:
                if name not in defaults:
                    raise NotStatic
                frame[name] = _known(evaluator, evaluator.eval(defaults[name]))
    finally:
        evaluator.lookup = saved
    return frame


def _assigned_names(node: ast.FunctionDef) -> set[str]:
    """The function's local names: every name it binds (Python decides that per function)."""
    found = {a.arg for a in (*node.args.args, *node.args.kwonlyargs)}
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            found.add(sub.id)
    return found


def _known(evaluator: Evaluator, value: Any) -> Any:
    if not evaluator.known(value):
        raise NotStatic
    return value


def _run(evaluator: Evaluator, body: list[ast.stmt], frame: dict[str, Any]) -> None:
    for stmt in body:
        _STATEMENTS.get(type(stmt), _unsupported)(evaluator, stmt, frame)


def _unsupported(evaluator: Evaluator, stmt: Any, frame: dict[str, Any]) -> None:
    raise NotStatic  # `raise`, `global`, `import`, `with`, `try`, a nested `def`, ...


def _expr(evaluator: Evaluator, stmt: ast.Expr, frame: dict[str, Any]) -> None:
    """A docstring, or `items.append(x)` on a local list (kept as a tuple: rebound)."""
    value = stmt.value
    if isinstance(value, ast.Constant):
        return
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == "append"
        and isinstance(value.func.value, ast.Name)
        and isinstance(frame.get(value.func.value.id), tuple)
        and len(value.args) == 1
        and not value.keywords
    ):
        name = value.func.value.id
        frame[name] = (*frame[name], _known(evaluator, evaluator.eval(value.args[0])))
        return
    raise NotStatic


def _assign(evaluator: Evaluator, stmt: ast.Assign, frame: dict[str, Any]) -> None:
    value = _known(evaluator, evaluator.eval(stmt.value))
    for target in stmt.targets:
        _store(evaluator, target, value, frame)


def _ann_assign(evaluator: Evaluator, stmt: ast.AnnAssign, frame: dict[str, Any]) -> None:
    if stmt.value is None:
        return
    _store(evaluator, stmt.target, _known(evaluator, evaluator.eval(stmt.value)), frame)


def _aug_assign(evaluator: Evaluator, stmt: ast.AugAssign, frame: dict[str, Any]) -> None:
    if not isinstance(stmt.target, ast.Name):
        raise NotStatic
    read = ast.Name(stmt.target.id, ast.Load())
    value = _known(evaluator, evaluator.eval(ast.BinOp(read, stmt.op, stmt.value)))
    frame[stmt.target.id] = value


def _store(evaluator: Evaluator, target: ast.expr, value: Any, frame: dict[str, Any]) -> None:
    if isinstance(target, ast.Name):
        frame[target.id] = value
    elif isinstance(target, ast.Tuple | ast.List):
        if not isinstance(value, tuple) or len(value) != len(target.elts):
            raise NotStatic
        for element, item in zip(target.elts, value, strict=True):
            _store(evaluator, element, item, frame)
    elif _writes_argv(target):
        # `sys.argv[:] = remaining`: consuming the options; with none given it keeps argv
        # as it is, anything else would change what later reads see
        if value != ARGV:
            raise NotStatic
    else:
        raise NotStatic  # an attribute or item of something else


def _writes_argv(target: ast.expr) -> bool:
    if isinstance(target, ast.Subscript):
        target = target.value
    return (
        isinstance(target, ast.Attribute)
        and target.attr == "argv"
        and isinstance(target.value, ast.Name)
        and target.value.id == "sys"
    )


def _if(evaluator: Evaluator, stmt: ast.If, frame: dict[str, Any]) -> None:
    test = evaluator.truth(_known(evaluator, evaluator.eval(stmt.test)))
    _run(evaluator, stmt.body if test else stmt.orelse, frame)


def _while(evaluator: Evaluator, stmt: ast.While, frame: dict[str, Any]) -> None:
    while evaluator.truth(_known(evaluator, evaluator.eval(stmt.test))):
        if not _iteration(evaluator, stmt.body, frame):
            return
    _run(evaluator, stmt.orelse, frame)


def _for(evaluator: Evaluator, stmt: ast.For, frame: dict[str, Any]) -> None:
    items = _known(evaluator, evaluator.eval(stmt.iter))
    if not isinstance(items, tuple | str):
        raise NotStatic
    for item in items:
        _store(evaluator, stmt.target, item, frame)
        evaluator.tick()  # an empty body still counts
        if not _iteration(evaluator, stmt.body, frame):
            return
    _run(evaluator, stmt.orelse, frame)


def _iteration(evaluator: Evaluator, body: list[ast.stmt], frame: dict[str, Any]) -> bool:
    """Runs one pass of a loop body; False when it ended in `break` (the loop and its `else`
    end), True after it ran through or reached `continue`."""
    try:
        _run(evaluator, body, frame)
    except _Break:
        return False
    except _Continue:
        pass
    return True


def _return(evaluator: Evaluator, stmt: ast.Return, frame: dict[str, Any]) -> None:
    raise _Return(_known(evaluator, evaluator.eval(stmt.value)) if stmt.value is not None else None)


def _pass(evaluator: Evaluator, stmt: ast.Pass, frame: dict[str, Any]) -> None:
    return


def _break(evaluator: Evaluator, stmt: ast.Break, frame: dict[str, Any]) -> None:
    raise _Break


def _continue(evaluator: Evaluator, stmt: ast.Continue, frame: dict[str, Any]) -> None:
    raise _Continue


_STATEMENTS: dict[type, Callable[[Evaluator, Any, dict[str, Any]], None]] = {
    ast.Expr: _expr,
    ast.Assign: _assign,
    ast.AnnAssign: _ann_assign,
    ast.AugAssign: _aug_assign,
    ast.If: _if,
    ast.While: _while,
    ast.For: _for,
    ast.Return: _return,
    ast.Pass: _pass,
    ast.Break: _break,
    ast.Continue: _continue,
}
