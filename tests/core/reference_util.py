"""Run a DSL snippet through our pipeline and reduce the result to what the compiler's own unit
tests compare: outlined function names, kinds, parameter lists with directions, returns, the
replacement call in the parent, promotions and diagnostic codes.

The reference tests (tests/core/test_reference_*.py) re-express cases of the PyPTO compiler's
unit tests with this vocabulary, so each assertion reads like the compiler's `Expected` program.
Sources are written as the body of a `@pl.program` class (methods indented by 0); `program()`
adds the import and the class header. A snippet that already starts with `import` is taken as a
whole file.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass
from typing import Any

from pypto_core.analysis import analyse_source
from pypto_core.diagnostics import Diagnostic, Severity
from pypto_core.ir import AssignStmt, Call, EvalStmt, Function, Stmt
from pypto_core.results import FileAnalysis, OutlinedScope

HEADER = "import pypto.language as pl\nimport pypto.language.distributed as pld\n\n\n"


def program(members: str, name: str = "Prog") -> str:
    """A whole file: the DSL import and `@pl.program class <name>:` around `members`."""
    body = textwrap.indent(textwrap.dedent(members).strip("\n"), "    ")
    return f"{HEADER}@pl.program\nclass {name}:\n{body}\n"


@dataclass(frozen=True)
class CallSite:
    """The replacement call, split into its parts so tests do not depend on spacing."""

    targets: tuple[str, ...]  # names bound by the call (empty for a statement call)
    callee: str
    args: tuple[str, ...]  # positional arguments; keywords (attrs=, deps=, core_num=) stay in `text`
    submit: bool  # dispatched as a task (`pl.submit` / `pl.spmd_submit`) rather than a plain call
    text: str


_SUBMITS = ("submit", "spmd_submit")


def parse_call(text: str) -> CallSite:
    """Read a printed replacement call such as `y, tid = pl.submit(self.k, x, deps=[t])`."""
    stmt = ast.parse(text.strip()).body[0]
    assert isinstance(stmt, (ast.Assign, ast.Expr)), text
    targets: tuple[str, ...] = ()
    if isinstance(stmt, ast.Assign):
        [target] = stmt.targets
        elements = target.elts if isinstance(target, ast.Tuple) else [target]
        targets = tuple(ast.unparse(e) for e in elements)
    call = stmt.value
    assert isinstance(call, ast.Call), text
    submit = isinstance(call.func, ast.Attribute) and call.func.attr in _SUBMITS
    callee, args = (call.args[0], call.args[1:]) if submit else (call.func, call.args)
    assert isinstance(callee, ast.Attribute) and ast.unparse(callee.value) == "self", text
    return CallSite(targets, callee.attr, tuple(ast.unparse(a) for a in args), submit, text)


@dataclass(frozen=True)
class Outlined:
    """One outlined function as the compiler's `Expected` would spell it."""

    name: str
    kind: str
    function_type: str
    params: tuple[tuple[str, str], ...]  # (base name, "In" | "Out" | "InOut")
    returns: tuple[str, ...]
    call: CallSite
    parent: str
    level: str | None
    role: str | None

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.params)

    def direction(self, param: str) -> str:
        return dict(self.params)[param]


def _outlined(scope: OutlinedScope) -> Outlined:
    return Outlined(
        name=scope.name,
        kind=scope.kind,
        function_type=scope.function_type,
        params=tuple((p.name, p.direction.value) for p in scope.params),
        returns=tuple(scope.returns),
        call=parse_call(scope.call),
        parent=scope.parent,
        level=_enum_text(scope.level),
        role=_enum_text(scope.role),
    )


def _enum_text(value: Any) -> str | None:
    return None if value is None else str(getattr(value, "value", value))


@dataclass
class Outcome:
    analysis: FileAnalysis
    fns: dict[str, Outlined]

    @property
    def names(self) -> list[str]:
        """Outlined names in source order of their scopes."""
        return [o.name for o in self.analysis.outlined]

    @property
    def codes(self) -> list[str]:
        """Codes of errors and warnings (informational notes are left out)."""
        return [d.code for d in self.problems]

    @property
    def errors(self) -> list[str]:
        return [d.code for d in self.problems if d.severity is Severity.ERROR]

    @property
    def problems(self) -> list[Diagnostic]:
        return [d for d in self.analysis.diagnostics if d.severity in (Severity.ERROR, Severity.WARNING)]

    @property
    def info_codes(self) -> list[str]:
        return [d.code for d in self.analysis.diagnostics if d.severity is Severity.INFO]

    @property
    def promoted(self) -> dict[str, str]:
        return {p.function: p.to for p in self.analysis.promoted}

    def summary(self) -> dict[str, tuple[str, list[tuple[str, str]], tuple[str, ...]]]:
        """{name: (kind, [(param, direction)], returns)} for every outlined function."""
        return {n: (o.kind, list(o.params), o.returns) for n, o in self.fns.items()}

    def function(self, name: str) -> Function:
        """A function of the outlined program (user-written or outlined), for types and attrs."""
        for prog in self.analysis.programs:
            if prog.outlined_program is not None and (fn := prog.outlined_program.get(name)):
                return fn
        raise AssertionError(f"no function {name!r}; outlined: {self.names}")

    def function_type(self, name: str) -> str:
        return self.function(name).type.value

    def message(self, code: str) -> str:
        for d in self.analysis.diagnostics:
            if d.code == code:
                return d.message
        raise AssertionError(f"no {code}; got {[d.code for d in self.analysis.diagnostics]}")


def outline(members_or_file: str) -> Outcome:
    """Analyse a snippet (class members, or a whole file starting with `import`)."""
    text = textwrap.dedent(members_or_file).strip("\n")
    source = text + "\n" if text.startswith("import") else program(text)
    analysis = analyse_source(source)
    fns = {scope.name: _outlined(scope) for scope in analysis.outlined}
    return Outcome(analysis, fns)


def clean(members_or_file: str, *warnings: str) -> Outcome:
    """`outline()` that also asserts no error was reported and exactly the given warning codes
    (e.g. PTO504 for a compute op the compiler's verifier also warns about) were."""
    result = outline(members_or_file)
    found = [(d.code, d.severity.value, d.message) for d in result.problems]
    assert {d.code for d in result.problems} == set(warnings), found
    assert all(d.severity is Severity.WARNING for d in result.problems), found
    return result


def statements(stmts: list[Stmt]) -> list[Stmt]:
    """Every statement, nested loop / if / scope bodies included, in source order."""
    found: list[Stmt] = []
    for s in stmts:
        found.append(s)
        for attr in ("body", "then_body", "else_body"):
            inner = getattr(s, attr, None)
            if isinstance(inner, list):
                found += statements(inner)
    return found


def dispatches(fn: Function) -> list[tuple[str | None, Call]]:
    """(bound variable, call) for every call of a program function in `fn`, in source order;
    the variable is None for a statement call."""
    found: list[tuple[str | None, Call]] = []
    for s in statements(fn.body):
        if isinstance(s, AssignStmt) and isinstance(s.value, Call) and s.value.callee:
            found.append((s.target.name, s.value))
        elif isinstance(s, EvalStmt) and isinstance(s.expr, Call) and s.expr.callee:
            found.append((None, s.expr))
    return found


def dispatch_of(fn: Function, callee: str) -> Call:
    """The one call of `callee` in `fn`."""
    [call] = [c for _, c in dispatches(fn) if c.callee == callee]
    return call
