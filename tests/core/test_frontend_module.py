"""Module-level front end: imports, constants, decorators, jit grouping, program plans."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from pypto_core.diagnostics import Diagnostic
from pypto_core.frontend import ModuleContext, Unit, module_context, parse_module, program_plans, split_units
from pypto_core.frontend.decorators import DecoratorReader, FunctionHeader
from pypto_core.ir import FunctionType, Level, Role

from markers import extract


def _context(text: str) -> tuple[list[Unit], ModuleContext, list[Diagnostic]]:
    units = split_units(textwrap.dedent(text))
    ctx, diagnostics = module_context(units)
    return units, ctx, diagnostics


def _plans(text: str) -> list[tuple[str, str, list[str | None]]]:
    units, ctx, _ = _context(text)
    return [(p.name, p.kind, [units[i].name for i in p.unit_indices]) for p in program_plans(units, ctx)]


# -- imports ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("imports", "expr", "path"),
    [
        ("import pypto.language as pl", "pl.jit.incore", ("jit", "incore")),
        ("from pypto import language as pl", "pl.FP32", ("FP32",)),
        ("import pypto.language as dsl", "dsl.program", ("program",)),
        ("import pypto.language", "pypto.language.Level.CHIP", ("Level", "CHIP")),
        (
            "import pypto.language.distributed as pld",
            "pld.system.defer_wait",
            ("distributed", "system", "defer_wait"),
        ),
        ("from pypto.language import distributed as pld", "pld.tensor.put", ("distributed", "tensor", "put")),
        ("import pypto.language.distributed", "pypto.language.distributed.x", ("distributed", "x")),
        ("from pypto.language import Tensor, FP32 as F", "F", ("FP32",)),
        ("from pypto.language import Tensor, FP32 as F", "Tensor", ("Tensor",)),
        ("try:\n    import pypto.language as pl\nexcept ImportError:\n    pl = None", "pl.at", ("at",)),
    ],
)
def test_dsl_imports_resolve_however_written(imports: str, expr: str, path: tuple[str, ...]) -> None:
    _, ctx, _ = _context(imports + "\n")
    assert ctx.is_dsl
    assert ctx.resolve(ast.parse(expr, mode="eval").body) == path


def test_names_that_are_not_the_dsl_do_not_resolve() -> None:
    _, ctx, _ = _context("import pypto.language as pl\nimport numpy as np\n")
    assert ctx.resolve(ast.parse("np.float32", mode="eval").body) is None
    assert ctx.resolve(ast.parse("f(pl).x", mode="eval").body) is None


def test_a_file_without_the_dsl_import_yields_nothing_even_with_syntax_errors() -> None:
    text = "import numpy as np\n\n@pl.program\nclass P:\n    x = (\n\ndef f(:\n    pass\n"
    result = parse_module(text)
    assert not result.is_dsl
    assert result.programs == [] and result.diagnostics == []


def test_a_dsl_file_reports_syntax_errors_of_every_unit() -> None:
    text = "import pypto.language as pl\nx = (\n\ndef f(:\n    pass\n"
    assert [d.span.start_line for d in parse_module(text).diagnostics] == [1, 3]


# -- constants ----------------------------------------------------------------------------------


def test_module_constants_and_dynamic_symbols_are_folded_statically() -> None:
    _, ctx, _ = _context(
        """
        import pypto.language as pl
        ROWS = 64
        COLS = ROWS * 2
        HALF: int = COLS // 4 - 1
        SCALE = 1.5 * 2
        NAME = "tile_" + "x"
        FLAG = not False
        SHIFTED = 1 << 4
        N = 3
        N += 1
        M = pl.dynamic("M")
        HUGE = 2 ** 10 ** 10
        WIDE = "x" * 10 ** 9
        BAD = 1 // 0
        CALL = len("abc")
        UNKNOWN_CALL = sorted("abc")
        REBOUND = 1
        REBOUND = compute()
        if FLAG:
            CONDITIONAL = 5
        """
    )
    assert ctx.constants == {
        "ROWS": 64,
        "COLS": 128,
        "HALF": 31,
        "SCALE": 3.0,
        "NAME": "tile_x",
        "FLAG": True,
        "SHIFTED": 16,
        "N": 4,
        "CALL": 3,
    }
    assert ctx.dynamic_symbols == {"M": "M"}


def test_a_constant_nested_too_deeply_to_fold_is_not_a_constant() -> None:
    text = "import pypto.language as pl\nDEEP = " + " + ".join(["1"] * 3000) + "\nROWS = 64\n"
    _, ctx, _ = _context(text)
    assert ctx.constants == {"ROWS": 64}


def test_fingerprint_changes_with_what_programs_read_and_not_with_positions() -> None:
    base = "import pypto.language as pl\nROWS = 64\n"
    _, ctx, _ = _context(base)
    _, moved, _ = _context("\n\n" + base)
    _, changed, _ = _context(base.replace("64", "65"))
    _, aliased, _ = _context(base.replace(" as pl", " as dsl"))
    assert ctx.fingerprint() == moved.fingerprint()
    assert len({ctx.fingerprint(), changed.fingerprint(), aliased.fingerprint()}) == 3


# -- decorators ---------------------------------------------------------------------------------


def _header(
    decorated: str, imports: str = "import pypto.language as pl"
) -> tuple[FunctionHeader | None, list[Diagnostic]]:
    units, ctx, _ = _context(imports + "\n" + decorated)
    unit = units[-1]
    reader = DecoratorReader(ctx, unit.text.split("\n"), 0)
    assert isinstance(unit.node, ast.FunctionDef)
    return reader.module_header(unit.node), reader.diagnostics


@pytest.mark.parametrize(
    ("decorator", "function_type", "level", "role"),
    [
        ("@pl.jit", FunctionType.Orchestration, None, None),
        ("@pl.jit.host", FunctionType.Opaque, Level.HOST, Role.Orchestrator),
        ("@pl.jit.incore", FunctionType.InCore, None, None),
        ("@pl.jit.incore(level=pl.Level.POD)", FunctionType.InCore, Level.CLUSTER_0, None),
        ("@pl.jit.inline", FunctionType.Inline, None, None),
        ("@pl.jit.opaque", FunctionType.Opaque, None, None),
        ("@pl.jit.graph", FunctionType.Graph, None, None),
        ("@pl.inline", FunctionType.Inline, None, None),
        ("@pl.jit(future_option=3)", FunctionType.Orchestration, None, None),
    ],
)
def test_module_level_decorators(
    decorator: str, function_type: FunctionType, level: object, role: object
) -> None:
    header, diagnostics = _header(f"{decorator}\ndef f(a):\n    return a\n")
    assert header is not None and diagnostics == []
    assert (header.type, header.level, header.role) == (function_type, level, role)


def test_level_is_rejected_on_jit_variants_other_than_incore() -> None:
    m = extract(
        "import pypto.language as pl\n@pl.jit.host(level={|lvl:pl.Level.HOST|})\ndef f(a):\n    pass\n"
    )
    units, ctx, _ = _context(m.text)
    unit = units[-1]
    reader = DecoratorReader(ctx, m.text.split("\n"), unit.start_line)
    assert isinstance(unit.node, ast.FunctionDef)
    reader.module_header(unit.node)
    assert [(d.code, d.span) for d in reader.diagnostics] == [("PTO003", m.named["lvl"])]


def test_function_decorator_keywords_and_unknown_enum_members() -> None:
    text = textwrap.dedent(
        """
        import pypto.language as pl
        @pl.program(strict_ssa=True)
        class P:
            @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP, role=pl.Role.Worker,
                         attrs={"split": 2, "mode": pl.SplitMode.UP_DOWN}, auto_scope=False, brand_new=1)
            def a(self, x):
                return x
            @pl.function(type=pl.FunctionType.NoSuchType)
            def b(self, x):
                return x
            def plain(self, x):
                return x
        """
    )
    units, ctx, _ = _context(text)
    cls = units[-1].node
    assert isinstance(cls, ast.ClassDef)
    reader = DecoratorReader(ctx, text.split("\n"), units[-1].start_line)
    strict = reader.program_strict_ssa(cls)
    assert strict is True
    a, b, plain = (reader.method_header(f, strict) for f in cls.body if isinstance(f, ast.FunctionDef))
    assert a is not None and (a.type, a.level, a.role, a.strict_ssa) == (
        FunctionType.InCore,
        Level.CHIP,
        Role.Worker,
        True,
    )
    assert a.attrs == {"split": 2, "mode": "pl.SplitMode.UP_DOWN"}
    assert b is not None and b.type is FunctionType.Opaque
    assert plain is None
    assert [d.code for d in reader.diagnostics] == ["PTO003"] and "NoSuchType" in reader.diagnostics[
        0
    ].message


def test_a_literal_list_attr_under_an_ordinary_key_is_pto003_at_the_list() -> None:
    # the IR holds a list attr as variables or ArgDirections; integers only under
    # `arg_direction_overrides`
    m = extract(
        "import pypto.language as pl\n@pl.program\nclass P:\n"
        '    @pl.function(attrs={"custom": {|lst:[1, 2]|}, "arg_direction_overrides": [0, 1], "n": 3})\n'
        "    def f(self, a):\n        return a\n"
    )
    units, ctx, _ = _context(m.text)
    cls = units[-1].node
    assert isinstance(cls, ast.ClassDef)
    reader = DecoratorReader(ctx, m.text.split("\n"), units[-1].start_line)
    method = cls.body[0]
    assert isinstance(method, ast.FunctionDef)
    reader.method_header(method, False)
    [d] = reader.diagnostics
    assert (d.code, d.span) == ("PTO003", m.named["lst"])
    assert d.message.startswith("Unsupported list element type for key: custom.")


# -- programs and jit grouping --------------------------------------------------------------------

JIT_MODULE = """
import pypto.language as pl

@pl.jit.incore
def kernel(a, out):
    return out

@pl.jit.incore
def scale(a, out):
    return out

@pl.jit.opaque
def stage(a, out):
    out = scale(a, out)
    return out

@pl.jit
def entry(a, out):
    out = kernel(a, out)
    out = stage(a, out)
    return out

@pl.jit.incore
def unused(a, out):
    return out
"""


def test_jit_entry_with_its_transitive_helpers_is_one_program() -> None:
    assert _plans(JIT_MODULE) == [
        ("entry", "jit", ["entry", "kernel", "stage", "scale"]),
        ("unused", "jit", ["unused"]),  # decision: an uncalled sub-function is its own program
    ]


def test_a_host_reaches_the_entries_it_calls_which_are_programs_of_their_own_too() -> None:
    text = JIT_MODULE + textwrap.dedent(
        """
        @pl.jit.host
        def host(a, out):
            out = entry(a, out)
            return out

        @pl.jit
        def entry_b(a, out):
            out = kernel(a, out)
            return out
        """
    )
    # the compiler specialises every entry on its own, and the host with the entries it calls
    assert _plans(text) == [
        ("entry", "jit", ["entry", "kernel", "stage", "scale"]),
        ("unused", "jit", ["unused"]),
        ("host", "jit", ["host", "entry", "kernel", "stage", "scale"]),
        ("entry_b", "jit", ["entry_b", "kernel"]),
    ]


def test_jit_call_cycles_terminate() -> None:
    text = """
    import pypto.language as pl

    @pl.jit.opaque
    def ping(a):
        return pong(a)

    @pl.jit.opaque
    def pong(a):
        return ping(a)

    @pl.jit
    def entry(a):
        return ping(a)

    @pl.jit.opaque
    def alone(a):
        return alone(a)
    """
    assert _plans(text) == [("entry", "jit", ["entry", "ping", "pong"]), ("alone", "jit", ["alone"])]


def test_uncalled_sub_functions_form_one_program_per_call_graph_root() -> None:
    text = """
    import pypto.language as pl

    @pl.jit.incore
    def leaf(a):
        return a

    @pl.jit.opaque
    def root(a):
        return leaf(a)

    @pl.jit.opaque
    def tick(a):
        return tock(a)

    @pl.jit.opaque
    def tock(a):
        return tick(a)
    """
    assert _plans(text) == [("root", "jit", ["root", "leaf"]), ("tick", "jit", ["tick", "tock"])]


def test_a_later_def_shadows_and_an_alias_keeps_the_first_reachable() -> None:
    text = """
    import pypto.language as pl

    @pl.jit.incore
    def kernel(a):
        return a
    first_kernel = kernel

    @pl.jit.incore
    def kernel(a):
        return a

    @pl.jit
    def entry(a):
        a = kernel(a)
        a = first_kernel(a)
        return a
    """
    units, ctx, _ = _context(text)
    (plan,) = program_plans(units, ctx)
    assert [units[i].start_line for i in plan.unit_indices] == [12, 8, 3]


def test_programs_include_the_inline_helpers_they_call_transitively() -> None:
    text = """
    import pypto.language as pl

    @pl.inline
    def inner(a):
        return a

    @pl.inline
    def outer(a):
        return inner(a)

    @pl.inline
    def unused(a):
        return a

    @pl.program
    class P:
        @pl.function
        def main(self, a):
            return outer(a)
    """
    assert _plans(text) == [("P", "program", ["P", "outer", "inner"])]


def test_plan_fingerprints_ignore_moves_but_see_edits_of_any_member() -> None:
    units, ctx, _ = _context(JIT_MODULE)
    fingerprints = [p.fingerprint for p in program_plans(units, ctx)]
    units, ctx, _ = _context("\n\n\n" + JIT_MODULE)
    assert [p.fingerprint for p in program_plans(units, ctx)] == fingerprints
    units, ctx, _ = _context(
        JIT_MODULE.replace("def scale(a, out):\n    return out", "def scale(a, out):\n    return a")
    )
    edited = [p.fingerprint for p in program_plans(units, ctx)]
    assert edited[0] != fingerprints[0] and edited[1] == fingerprints[1]


def test_a_program_with_a_syntax_error_has_no_plan_and_others_keep_theirs() -> None:
    text = JIT_MODULE.replace("def stage(a, out):", "def stage(a, out:")
    # `scale` was reached only through the broken `stage`: it is analysed on its own meanwhile
    assert _plans(text) == [
        ("scale", "jit", ["scale"]),
        ("entry", "jit", ["entry", "kernel"]),
        ("unused", "jit", ["unused"]),
    ]


# -- never execute ----------------------------------------------------------------------------


def test_module_level_side_effects_are_never_executed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "pwned"
    text = textwrap.dedent(
        f"""
        import os
        import pypto.language as pl
        open({str(target)!r}, "w").write("x")
        os.system("touch {target}")
        print("executed")
        ROWS = __import__("os").system("touch {target}")
        X = pl.dynamic(open({str(target)!r}, "w"))

        @pl.program
        class P:
            open({str(target)!r}, "w")
            @pl.function
            def main(self, a):
                print("executed")
                return a
        """
    )
    parse_module(text)
    units, ctx, _ = _context(text)
    program_plans(units, ctx)
    assert not target.exists()
    assert capsys.readouterr().out == ""


# -- called names, per statement ----------------------------------------------------------------

CALLS_IN_EVERY_PLACE = """
import pypto.language as pl

@pl.jit
def entry(a, b=first(1)):
    x = second(a)
    try:
        third(x)
    except fourth(x):
        fifth(x)
    else:
        sixth(x)
    finally:
        seventh(x)
    match x:
        case 1 if eighth(x):
            ninth(x)
        case _:
            tenth(x)
    @eleventh(x)
    def local(y=twelfth()):
        return thirteenth(y)
    for i in fourteenth(x):
        if fifteenth(i):
            sixteenth(i)
        elif seventeenth(i):
            eighteenth(i)
    with nineteenth(x) as y:
        twentieth(y, second(y), lambda: twentyfirst(y))
    return [twentysecond(k) for k in third(x)]
"""


def _walked_calls(node: ast.AST) -> list[str]:
    calls = [n for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]
    calls.sort(key=lambda call: (call.lineno, call.col_offset))
    return list(dict.fromkeys(call.func.id for call in calls))


def test_called_names_are_in_source_order_through_every_statement_kind() -> None:
    from pypto_core.frontend import UnitSplitter
    from pypto_core.frontend.programs import _called_names

    names = [
        "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth",
        "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth twentyfirst twentysecond",
    ]
    splitter = UnitSplitter()
    for text in (CALLS_IN_EVERY_PLACE, CALLS_IN_EVERY_PLACE.replace("tenth(x)", "tenth(x, y)")):
        # the second text is an edit that keeps the other statements (and their kept calls)
        (unit,) = [u for u in splitter.split(text.split("\n")) if u.name == "entry"]
        assert _called_names(unit.node) == _walked_calls(unit.node) == " ".join(names).split()
