"""A small evaluator for the constant expressions real configs are written in, over the tree.

Real kernels take their shapes from config modules: `FLASH = DeepSeekV4Config(hidden_size=4096,
...)` of a frozen dataclass, `M.hidden_size`, `M.hc_dim` (a `@property` returning
`self.hc_mult * self.hidden_size`), `RATIOS[3]`, `min(T, 64)`, `(N + 31) // 32 << 5`. The compiler
sees those as closure values; this module computes the same values without running anything:
literals, names, arithmetic, comparisons, `a if c else b`, tuples/lists/dicts and indexing into
them, `min`/`max`/`abs`/`int`/`float`/`len`, frozen dataclass instances, their fields, class
attributes and single-`return` properties, `dataclasses.replace` of an instance, dict and list
comprehensions, f-strings, modules (`config.FLASH`), and calls of the module's plain functions
(`static_exec`: `ACTIVE_VARIANT = _consume_variant_argv()`). Anything else is unknown
(`UNKNOWN`), never an error. Sizes and steps are bounded so no input can hang the server.

An environment variable read with a default (`os.environ.get("X", "separate")`, `os.getenv`)
is its default: the editor's environment is not the one the model is compiled in, and the
default is what a run that sets nothing compiles (pypto-lib picks kernel variants so). Then
`.lower()` / `.upper()` / `.strip()`, `.startswith(p)` / `.endswith(p)` / `.split(sep)` of a
string constant fold too. For the same reason `sys.argv` is a run's that passes no option: the
script's path alone (`static_exec.ARGV`), so an option scan returns its default.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, TypeAlias

from .static_exec import ARGV, SCRIPT_PATH, NotStatic, StaticFunction, call

Scalar: TypeAlias = int | float | str | bool


@dataclass(frozen=True, slots=True)
class StaticDict:
    """A dict of constants (immutable: its items in insertion order)."""

    items: tuple[tuple[Any, Any], ...]

    def get(self, key: Any) -> Any:
        for k, v in self.items:
            if type(k) is type(key) and k == key:
                return v
        return UNKNOWN


@dataclass(frozen=True, slots=True)
class StaticClass:
    """A frozen dataclass definition: its fields in order with their default values (absent:
    no default or an unknown one), class attributes, and the `return` expression of each
    single-statement `@property`. `globals` looks names up in the defining module, for the
    properties that name module constants."""

    name: str
    fields: tuple[str, ...]
    defaults: tuple[tuple[str, Any], ...]
    attributes: tuple[tuple[str, Any], ...]
    properties: tuple[tuple[str, ast.expr], ...] = field(compare=False, repr=False)
    # for equality and fingerprints: the properties' source (trees compare by identity)
    property_source: tuple[tuple[str, str], ...]
    globals: Callable[[str], Any] = field(compare=False, repr=False, hash=False)


@dataclass(frozen=True, slots=True)
class StaticObject:
    """An instance of a frozen dataclass: every attribute that folded (fields, class
    attributes, properties), by name."""

    class_name: str
    attributes: tuple[tuple[str, Any], ...]
    # the class it was built from (`dataclasses.replace` builds another)
    cls: StaticClass | None = field(default=None, compare=False, repr=False, hash=False)

    def get(self, name: str) -> Any:
        for k, v in self.attributes:
            if k == name:
                return v
        return UNKNOWN


@dataclass(frozen=True, slots=True)
class StaticModule:
    """An imported module (`import config`): the values it defines, by name. `path`: its
    file, which an assignment to one of its attributes names (`module_context`); not part of
    its value (its repr is hashed into fingerprints)."""

    name: str
    values: tuple[tuple[str, Any], ...]
    path: str = field(default="", compare=False, repr=False)

    def get(self, name: str) -> Any:
        for k, v in self.values:
            if k == name:
                return v
        return UNKNOWN


@dataclass(frozen=True, slots=True)
class DynamicSymbol:
    """`pl.dynamic("BATCH_DYN")` held in a static value (a config dataclass's field, a name
    bound to one, `a if c else b` choosing one): the compiler names the extent symbol by its
    string, whatever variable the annotation reads it through. Folded only where a DSL
    resolver is given (`evaluate(dsl=...)`: a module's own statements)."""

    name: str


# resolves a DSL name as the module imports it (`pl.dynamic` -> ("dynamic",)), else None
DslResolver: TypeAlias = Callable[[ast.expr], tuple[str, ...] | None]


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN: Final = _Unknown()
"""The value of anything this evaluator does not know (None is a known value)."""

_MAX_INT_BITS = 4096
_MAX_STR_LEN = 100_000
_MAX_ITEMS = 10_000  # items of one tuple/list/dict
# What one folded value may hold: its items, their items and so on, a part shared by several
# counted at each place (as its repr, which the module fingerprint hashes, writes it), plus
# the characters of its strings. `v = (v, v)` forty times is a 2**40-leaf value in a few
# hundred bytes: bounded by item count alone, its fingerprint never finished (issue 15).
_MAX_SIZE = 200_000
_MAX_STEPS = 20_000  # nodes one `evaluate` may visit (properties of properties included)

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Invert: operator.invert,
    ast.Not: operator.not_,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}
_BUILTINS: dict[str, Callable[..., Any]] = {
    "min": min,
    "max": max,
    "abs": abs,
    "int": int,
    "float": float,
    "len": len,
}
_DATACLASS_REPLACE = {"replace", "dataclasses.replace"}
_SEQUENCE_BUILTINS = {"enumerate", "tuple", "list"}  # of a tuple or string: a tuple


class _OutOfSteps(Exception):
    pass


def evaluate(expr: ast.expr, lookup: Callable[[str], Any], dsl: DslResolver | None = None) -> Any:
    """The value of `expr`, names read through `lookup` (which answers UNKNOWN for a name it
    does not know); UNKNOWN when it is not a constant expression. `dsl`: how the module
    resolves DSL names, for `pl.dynamic("M")` (a `DynamicSymbol`)."""
    try:
        value = _Evaluator(lookup, dsl).eval(expr)
    except (_OutOfSteps, RecursionError):
        return UNKNOWN
    return value if _within_size(value) else UNKNOWN


def _within_size(value: Any) -> bool:
    """Whether `value` holds at most `_MAX_SIZE` parts (see there); walked without recursion,
    and never further than the bound. A string on its own is a literal of the source or was
    built within `_MAX_STR_LEN` (`_affordable`): a 1 MB literal still folds."""
    if isinstance(value, str):
        return True
    budget = _MAX_SIZE
    pending = [value]
    while pending:
        current = pending.pop()
        budget -= 1 + (len(current) if isinstance(current, str) else 0)
        if budget < 0:
            return False
        if isinstance(current, tuple):
            pending.extend(current)
        elif isinstance(current, StaticDict):
            pending.extend(current.items)
        elif isinstance(current, StaticObject):
            pending.extend(v for _, v in current.attributes)
    return True


def is_scalar(value: Any) -> bool:
    return isinstance(value, int | float | str | bool)


def frozen_dataclass(node: ast.ClassDef, lookup: Callable[[str], Any]) -> StaticClass | None:
    """The class as a `StaticClass` when it is decorated `@dataclass(frozen=True)` (however
    `dataclasses` was imported); None for any other class."""
    if not any(_is_frozen_dataclass(d) for d in node.decorator_list):
        return None
    fields: list[str] = []
    defaults: dict[str, Any] = {}
    attributes: dict[str, Any] = {}
    properties: dict[str, ast.expr] = {}
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            name = stmt.target.id
            if _is_classvar(stmt.annotation):
                attributes[name] = evaluate(stmt.value, lookup) if stmt.value else UNKNOWN
                continue
            fields.append(name)
            if stmt.value is not None:
                defaults[name] = _field_default(stmt.value, lookup)
        elif (
            isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
        ):
            attributes[stmt.targets[0].id] = evaluate(stmt.value, lookup)
        elif isinstance(stmt, ast.FunctionDef):
            returned = _property_expression(stmt)
            attributes.pop(stmt.name, None)
            if returned is not None:
                properties[stmt.name] = returned
    return StaticClass(
        node.name,
        tuple(dict.fromkeys(fields)),
        tuple((k, v) for k, v in defaults.items() if v is not UNKNOWN),
        tuple((k, v) for k, v in attributes.items() if v is not UNKNOWN),
        tuple(properties.items()),
        tuple((k, ast.unparse(v)) for k, v in properties.items()),
        lookup,
    )


def _is_frozen_dataclass(decorator: ast.expr) -> bool:
    if not isinstance(decorator, ast.Call):
        return False
    if _last_name(decorator.func) != "dataclass":
        return False
    return any(
        kw.arg == "frozen" and isinstance(kw.value, ast.Constant) and kw.value.value is True
        for kw in decorator.keywords
    )


def _is_classvar(annotation: ast.expr) -> bool:
    target = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    name = (
        target.attr
        if isinstance(target, ast.Attribute)
        else target.id
        if isinstance(target, ast.Name)
        else ""
    )
    return name == "ClassVar"


def _field_default(value: ast.expr, lookup: Callable[[str], Any]) -> Any:
    """`x: int = 4`, or `field(default=4)` (a `default_factory` is unknown)."""
    if isinstance(value, ast.Call) and _last_name(value.func) == "field":
        default = next((kw.value for kw in value.keywords if kw.arg == "default"), None)
        return evaluate(default, lookup) if default is not None else UNKNOWN
    return evaluate(value, lookup)


def _last_name(expr: ast.expr) -> str:
    """`dataclasses.field` -> "field", `field` -> "field"; "" for anything else."""
    if isinstance(expr, ast.Attribute):
        return expr.attr
    return expr.id if isinstance(expr, ast.Name) else ""


def _property_expression(node: ast.FunctionDef) -> ast.expr | None:
    """The returned expression of `@property def p(self): return <expr>` (a docstring allowed)."""
    if not any(isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list):
        return None
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
        return body[0].value
    return None


class _Evaluator:
    def __init__(self, lookup: Callable[[str], Any], dsl: DslResolver | None = None) -> None:
        self.lookup = lookup
        self.dsl = dsl
        self.steps = 0
        self.depth = 0  # plain-function calls in progress (`static_exec`)

    def eval(self, node: ast.expr) -> Any:
        self.tick()
        method = _METHODS.get(type(node))
        return method(self, node) if method is not None else UNKNOWN

    def tick(self) -> None:
        self.steps += 1
        if self.steps > _MAX_STEPS:
            raise _OutOfSteps

    def known(self, value: Any) -> bool:
        return value is not UNKNOWN

    def truth(self, value: Any) -> bool:
        if not _plain(value):
            raise NotStatic
        return bool(value)

    def _constant(self, node: ast.Constant) -> Any:
        value = node.value
        if isinstance(value, int) and value.bit_length() > _MAX_INT_BITS:
            return UNKNOWN  # a literal past the limit too (`0x` + 3,600 digits broke the fingerprint)
        return value if value is None or is_scalar(value) else UNKNOWN

    def _name(self, node: ast.Name) -> Any:
        return self.lookup(node.id)

    def _unary(self, node: ast.UnaryOp) -> Any:
        operand = self.eval(node.operand)
        if not isinstance(operand, int | float | bool):
            return UNKNOWN
        return _checked(_UNARY[type(node.op)], operand)

    def _binary(self, node: ast.BinOp) -> Any:
        left = self.eval(node.left)
        if left is UNKNOWN:
            return UNKNOWN
        right = self.eval(node.right)
        if right is UNKNOWN or not _affordable(node.op, left, right):
            return UNKNOWN
        return _checked(_BINARY[type(node.op)], left, right)

    def _compare(self, node: ast.Compare) -> Any:
        left = self.eval(node.left)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.eval(comparator)
            if left is UNKNOWN or right is UNKNOWN:
                return UNKNOWN
            holds = _compared(op, left, right)
            if holds is UNKNOWN or not holds:
                return holds
            left = right
        return True

    def _bool_op(self, node: ast.BoolOp) -> Any:
        value: Any = UNKNOWN
        for operand in node.values:
            value = self.eval(operand)
            if value is UNKNOWN or not _plain(value):
                return UNKNOWN
            if bool(value) is isinstance(node.op, ast.Or):
                return value
        return value

    def _if_exp(self, node: ast.IfExp) -> Any:
        test = self.eval(node.test)
        if test is UNKNOWN or not _plain(test):
            return UNKNOWN
        return self.eval(node.body if test else node.orelse)

    def _sequence(self, node: ast.Tuple | ast.List) -> Any:
        if len(node.elts) > _MAX_ITEMS:
            return UNKNOWN
        items = []
        for elt in node.elts:
            value = self.eval(elt)
            if value is UNKNOWN:
                return UNKNOWN
            items.append(value)
        return tuple(items)

    def _dict(self, node: ast.Dict) -> Any:
        if len(node.keys) > _MAX_ITEMS:
            return UNKNOWN
        items: dict[Any, Any] = {}
        for key, value_node in zip(node.keys, node.values, strict=True):
            if key is None:
                return UNKNOWN  # `**other`
            k, v = self.eval(key), self.eval(value_node)
            if k is UNKNOWN or v is UNKNOWN or not (k is None or is_scalar(k) or isinstance(k, tuple)):
                return UNKNOWN
            items[k] = v
        return StaticDict(tuple(items.items()))

    def _subscript(self, node: ast.Subscript) -> Any:
        container = self.eval(node.value)
        if isinstance(node.slice, ast.Slice):
            return self._slice(container, node.slice)
        key = self.eval(node.slice)
        if key is UNKNOWN:
            return UNKNOWN
        if isinstance(container, StaticDict):
            return container.get(key)
        if isinstance(container, tuple | str) and _is_int(key):
            return container[key] if -len(container) <= key < len(container) else UNKNOWN
        return UNKNOWN

    def _slice(self, container: Any, node: ast.Slice) -> Any:
        if not isinstance(container, tuple | str):
            return UNKNOWN
        bounds = [
            self.eval(part) if part is not None else None for part in (node.lower, node.upper, node.step)
        ]
        if any(
            b is UNKNOWN or not (b is None or (isinstance(b, int) and not isinstance(b, bool)))
            for b in bounds
        ):
            return UNKNOWN
        if bounds[2] == 0:
            return UNKNOWN
        return container[slice(*bounds)]

    def _attribute(self, node: ast.Attribute) -> Any:
        if node.attr == "argv" and isinstance(node.value, ast.Name) and node.value.id == "sys":
            return ARGV if self.lookup("sys") is UNKNOWN else UNKNOWN
        owner = self.eval(node.value)
        if isinstance(owner, StaticObject | StaticModule):
            return owner.get(node.attr)
        if isinstance(owner, StaticClass):
            return dict(owner.attributes).get(node.attr, UNKNOWN)
        return UNKNOWN

    def _call(self, node: ast.Call) -> Any:
        if isinstance(node.func, ast.Attribute) and not node.keywords:
            method = self._method(node.func, node.args)
            if method is not UNKNOWN:
                return method
        func = self.eval(node.func) if not isinstance(node.func, ast.Name) else self.lookup(node.func.id)
        if isinstance(func, StaticClass):
            return self._instantiate(func, node)
        if isinstance(func, StaticFunction):
            return self._call_function(func, node)
        if func is UNKNOWN and dotted_name(node.func) in _DATACLASS_REPLACE:
            return self._replace(node)
        if func is UNKNOWN and self.dsl is not None and self.dsl(node.func) == ("dynamic",):
            return self._dynamic(node)
        if not isinstance(node.func, ast.Name) or func is not UNKNOWN or node.keywords:
            return UNKNOWN
        if any(isinstance(a, ast.Starred) for a in node.args):
            return UNKNOWN
        if node.func.id in _SEQUENCE_BUILTINS and len(node.args) == 1:
            items = self.eval(node.args[0])
            if not isinstance(items, tuple | str):
                return UNKNOWN
            return tuple(enumerate(items)) if node.func.id == "enumerate" else tuple(items)
        builtin = _BUILTINS.get(node.func.id)  # only when the name is not rebound (looked up first)
        if builtin is None:
            return UNKNOWN
        args = [self.eval(a) for a in node.args]
        if any(a is UNKNOWN for a in args) or not args:
            return UNKNOWN
        if node.func.id in ("min", "max") and len(args) == 1 and isinstance(args[0], tuple):
            args = list(args[0])
        if node.func.id in ("min", "max") and not all(isinstance(a, int | float) for a in args):
            return UNKNOWN
        if node.func.id in ("int", "float", "abs") and (
            len(args) != 1 or not isinstance(args[0], int | float | str)
        ):
            return UNKNOWN
        return _checked(builtin, *args)

    def _dynamic(self, node: ast.Call) -> Any:
        """`pl.dynamic("M")`: the symbol named by its string (a name that is not a literal
        string, or any other argument, is not static here)."""
        if len(node.args) != 1 or node.keywords:
            return UNKNOWN
        name = self.eval(node.args[0])
        return DynamicSymbol(name) if isinstance(name, str) and name.isidentifier() else UNKNOWN

    def _call_function(self, func: StaticFunction, node: ast.Call) -> Any:
        """A plain function's result, followed through its body (`static_exec`)."""
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return UNKNOWN
        args = [self.eval(a) for a in node.args]
        keywords = {k.arg: self.eval(k.value) for k in node.keywords if k.arg is not None}
        if any(a is UNKNOWN for a in (*args, *keywords.values())):
            return UNKNOWN
        try:
            return call(self, func, args, keywords)
        except NotStatic:
            return UNKNOWN

    def _replace(self, node: ast.Call) -> Any:
        """`dataclasses.replace(instance, field=value, ...)`: another instance of its class."""
        if len(node.args) != 1 or any(k.arg is None for k in node.keywords):
            return UNKNOWN
        instance = self.eval(node.args[0])
        if not isinstance(instance, StaticObject) or instance.cls is None:
            return UNKNOWN
        cls = instance.cls
        values = {name: instance.get(name) for name in cls.fields}
        for kw in node.keywords:
            if kw.arg not in cls.fields:
                return UNKNOWN  # a TypeError when it runs
            values[kw.arg] = self.eval(kw.value)
        return self._construct(cls, values)

    def _method(self, func: ast.Attribute, args: list[ast.expr]) -> Any:
        """An environment read's default, or a string method of a constant."""
        if dotted_name(func) in _ENVIRONMENT_READS and len(args) == 2 and self.lookup("os") is UNKNOWN:
            return self.eval(args[1])
        if func.attr in _STRING_METHODS and not args:
            owner = self.eval(func.value)
            if isinstance(owner, str):
                return getattr(owner, func.attr)()
        if func.attr in _STRING_TESTS and len(args) == 1:
            owner, prefix = self.eval(func.value), self.eval(args[0])
            if isinstance(owner, str) and isinstance(prefix, str):
                return getattr(owner, func.attr)(prefix)
            if owner is SCRIPT_PATH and func.attr == "startswith" and isinstance(prefix, str):
                tested = SCRIPT_PATH.startswith(prefix)
                return UNKNOWN if tested is None else tested
        if func.attr == "index" and len(args) == 1:
            owner, item = self.eval(func.value), self.eval(args[0])
            if isinstance(owner, tuple) and _plain(item) and all(map(_plain, owner)) and item in owner:
                return owner.index(item)
        if func.attr == "split" and 1 <= len(args) <= 2:
            owner, separator, *limit = (self.eval(a) for a in (func.value, *args))
            if isinstance(owner, str) and _is_separator(separator) and all(map(_is_int, limit)):
                parts = owner.split(separator, *limit)
                return tuple(parts) if len(parts) <= _MAX_ITEMS else UNKNOWN
        return UNKNOWN

    def _instantiate(self, cls: StaticClass, node: ast.Call) -> Any:
        if len(node.args) > len(cls.fields) or any(isinstance(a, ast.Starred) for a in node.args):
            return UNKNOWN
        values: dict[str, Any] = dict(cls.defaults)
        for name, arg in zip(cls.fields, node.args, strict=False):
            values[name] = self.eval(arg)
        for kw in node.keywords:
            if kw.arg is None or kw.arg not in cls.fields:
                return UNKNOWN  # `**kwargs`, or an error when it runs
            values[kw.arg] = self.eval(kw.value)
        if any(name not in values for name in cls.fields):
            return UNKNOWN  # a required field missing: it raises when it runs
        return self._construct(cls, values)

    def _construct(self, cls: StaticClass, values: dict[str, Any]) -> StaticObject:
        """The instance with these field values (an unknown one left out), then its properties."""
        attributes = {**dict(cls.attributes), **{k: v for k, v in values.items() if v is not UNKNOWN}}
        instance = StaticObject(cls.name, tuple(attributes.items()), cls)
        for name, expr in cls.properties:
            value = self._property(cls, instance, expr)
            if value is not UNKNOWN:
                attributes[name] = value
                instance = StaticObject(cls.name, tuple(attributes.items()), cls)
        return instance

    def _formatted(self, node: ast.JoinedStr) -> Any:
        """An f-string of constants (`f"--{name}="`), without conversions or format specs."""
        parts = []
        for part in node.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                parts.append(part.value)
                continue
            if not isinstance(part, ast.FormattedValue) or part.conversion != -1 or part.format_spec:
                return UNKNOWN
            value = self.eval(part.value)
            if not is_scalar(value):
                return UNKNOWN
            parts.append(str(value))
        text = "".join(parts)
        return text if len(text) <= _MAX_STR_LEN else UNKNOWN

    def _comprehension(self, node: ast.ListComp | ast.DictComp) -> Any:
        """`[f(x) for x in T if c]`, `{k(x): v(x) for x in T}` over known tuples: a tuple, a
        StaticDict. The loop names shadow the module's while it runs, as a comprehension's own
        scope does."""
        frame: dict[str, Any] = {}
        saved = self.lookup

        def lookup(name: str) -> Any:
            return frame[name] if name in frame else saved(name)

        produced: list[Any] = []
        self.lookup = lookup
        try:
            if not self._generate(node, node.generators, frame, produced):
                return UNKNOWN
        finally:
            self.lookup = saved
        if isinstance(node, ast.ListComp):
            return tuple(produced)
        if not all(k is None or is_scalar(k) or isinstance(k, tuple) for k, _ in produced):
            return UNKNOWN
        return StaticDict(tuple(dict(produced).items()))

    def _generate(
        self,
        node: ast.ListComp | ast.DictComp,
        generators: list[ast.comprehension],
        frame: dict[str, Any],
        produced: list[Any],
    ) -> bool:
        """Run the comprehension's loops from `generators` on; False when a part is unknown."""
        if not generators:
            if isinstance(node, ast.ListComp):
                item = self.eval(node.elt)
                if item is UNKNOWN:
                    return False
            else:
                item = (self.eval(node.key), self.eval(node.value))
                if any(part is UNKNOWN for part in item):
                    return False
            produced.append(item)
            return len(produced) <= _MAX_ITEMS
        first, rest = generators[0], generators[1:]
        items = self.eval(first.iter)
        if first.is_async or not isinstance(items, tuple | str):
            return False
        for item in items:
            if not _bind_target(first.target, item, frame):
                return False
            tests = [self.eval(test) for test in first.ifs]
            if any(t is UNKNOWN or not _plain(t) for t in tests):
                return False
            if all(tests) and not self._generate(node, rest, frame, produced):
                return False
        return True

    def _property(self, cls: StaticClass, instance: StaticObject, expr: ast.expr) -> Any:
        """A property's value: `self` is the instance so far (earlier properties included, as
        written in that order in real configs), other names the class's module."""
        module = cls.globals

        def lookup(name: str) -> Any:
            return instance if name == "self" else module(name)

        saved = self.lookup
        self.lookup = lookup
        try:
            return self.eval(expr)
        finally:
            self.lookup = saved


_METHODS: dict[type, Callable[[_Evaluator, Any], Any]] = {
    ast.Constant: _Evaluator._constant,
    ast.Name: _Evaluator._name,
    ast.UnaryOp: _Evaluator._unary,
    ast.BinOp: _Evaluator._binary,
    ast.Compare: _Evaluator._compare,
    ast.BoolOp: _Evaluator._bool_op,
    ast.IfExp: _Evaluator._if_exp,
    ast.Tuple: _Evaluator._sequence,
    ast.List: _Evaluator._sequence,
    ast.Dict: _Evaluator._dict,
    ast.Subscript: _Evaluator._subscript,
    ast.Attribute: _Evaluator._attribute,
    ast.Call: _Evaluator._call,
    ast.JoinedStr: _Evaluator._formatted,
    ast.ListComp: _Evaluator._comprehension,
    ast.DictComp: _Evaluator._comprehension,
}


_ENVIRONMENT_READS = {"os.environ.get", "os.getenv"}
_STRING_METHODS = {"lower", "upper", "strip"}
_STRING_TESTS = {"startswith", "endswith"}


def _bind_target(target: ast.expr, value: Any, frame: dict[str, Any]) -> bool:
    """Bind a loop target (`x`, `i, tok`) in `frame`; False when the value does not unpack."""
    if isinstance(target, ast.Name):
        frame[target.id] = value
        return True
    if isinstance(target, ast.Tuple | ast.List) and _unpacks(value, len(target.elts)):
        return all(_bind_target(t, v, frame) for t, v in zip(target.elts, value, strict=True))
    return False


def _is_separator(value: Any) -> bool:
    return isinstance(value, str) and value != ""


def _unpacks(value: Any, count: int) -> bool:
    return isinstance(value, tuple) and len(value) == count


def _compared(op: ast.cmpop, left: Any, right: Any) -> Any:
    """`left op right` of two known values; UNKNOWN when it is not decided by them. The script's
    path (`sys.argv[0]`) equals no option (a string starting with `-`); anything else about it
    is unknown."""
    if isinstance(op, ast.In | ast.NotIn):
        if not isinstance(right, tuple | str) or (isinstance(right, str) and not isinstance(left, str)):
            return UNKNOWN
        if isinstance(right, tuple) and SCRIPT_PATH in right and not _is_option(left):
            return UNKNOWN
        if not _plain(left) or any(not _plain(item) and item is not SCRIPT_PATH for item in right):
            return UNKNOWN
        return (left in right) is isinstance(op, ast.In)
    if SCRIPT_PATH in (left, right):
        other = right if left is SCRIPT_PATH else left
        if isinstance(op, ast.Eq | ast.NotEq) and _is_option(other):
            return isinstance(op, ast.NotEq)
        return UNKNOWN
    fn = _COMPARE.get(type(op))
    if fn is None or not _comparable(left, right):
        return UNKNOWN
    holds = _checked(fn, left, right)  # `1 < "a"` raises: unknown
    return holds if holds is UNKNOWN else bool(holds)


def _is_option(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("-")


def dotted_name(expr: ast.expr) -> str | None:
    """`a.b.c` -> "a.b.c"; None for anything that is not a plain attribute chain. Asked for
    most names and attributes of every body: the two usual shapes are told by exact type
    (parsed trees hold no subclasses of `ast` nodes), the rest walks the chain."""
    kind = type(expr)
    if kind is ast.Name:
        return expr.id  # type: ignore[attr-defined]
    if kind is ast.Attribute and type(expr.value) is ast.Name:  # type: ignore[attr-defined]  # `pl.x`
        return f"{expr.value.id}.{expr.attr}"  # type: ignore[attr-defined]
    parts: list[str] = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    parts.append(expr.id)
    return ".".join(reversed(parts))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _plain(value: Any) -> bool:
    return value is None or is_scalar(value) or isinstance(value, tuple)


def _comparable(left: Any, right: Any) -> bool:
    return _plain(left) and _plain(right)


def _affordable(op: ast.operator, left: Any, right: Any) -> bool:
    """Refuse folds whose result could be huge (a constant folder must never hang)."""
    if isinstance(op, ast.Pow) and isinstance(left, int) and isinstance(right, int):
        return abs(left) <= 1 or right <= 0 or right * abs(left).bit_length() <= _MAX_INT_BITS
    if isinstance(op, ast.LShift) and isinstance(right, int):
        return right <= _MAX_INT_BITS
    if isinstance(op, ast.Mult) and (isinstance(left, str | tuple) or isinstance(right, str | tuple)):
        count = right if isinstance(left, str | tuple) else left
        items = left if isinstance(left, str | tuple) else right
        limit = _MAX_STR_LEN if isinstance(items, str) else _MAX_ITEMS
        return isinstance(count, int) and len(items) * max(count, 0) <= limit
    if isinstance(op, ast.Add) and isinstance(left, tuple) and isinstance(right, tuple):
        return len(left) + len(right) <= _MAX_ITEMS
    if isinstance(op, ast.Add) and isinstance(left, str) and isinstance(right, str):
        return len(left) + len(right) <= _MAX_STR_LEN  # `s = s + s`, 24 times: 32 MiB and on
    if isinstance(op, ast.Mod) and isinstance(left, str):
        return False  # %-formatting: `"%0100000000d" % 1` is 100 MB from a 14-character literal
    return _plain(left) and _plain(right)


def _checked(fn: Callable[..., Any], *args: Any) -> Any:
    try:
        value = fn(*args)
    except (ArithmeticError, TypeError, ValueError):
        return UNKNOWN
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > _MAX_INT_BITS:
        return UNKNOWN
    return value if _plain(value) else UNKNOWN
