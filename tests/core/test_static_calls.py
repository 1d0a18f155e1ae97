"""Module-level calls of the module's own plain functions fold as importing it in a run that
sets nothing returns them (`static_exec`): real configs pick their variant so
(`ACTIVE_VARIANT = _consume_variant_argv()`), and the compiler sees the default. Nothing runs;
a call the interpreter cannot follow is unknown, never a guess."""

from __future__ import annotations

import textwrap

from pypto_core.analysis import analyse_source
from pypto_core.frontend import module_context, split_units
from pypto_core.frontend.context import ModuleContext
from pypto_core.frontend.static_eval import StaticObject

VARIANTS = """
import os
import sys
from dataclasses import dataclass, replace

import pypto.language as pl


@dataclass(frozen=True)
class Cfg:
    name: str
    rows: int
    experts: int

    @property
    def padded(self) -> int:
        return (self.experts + 7) // 8 * 8


SMALL = Cfg(name="small", rows=32, experts=5)
BIG = Cfg(name="big", rows=64, experts=16)
PRESETS = {p.name: p for p in (SMALL, BIG)}


def _pick_variant():
    \"\"\"Read and drop `--variant` before the script's own argparse.\"\"\"
    chosen = os.environ.get("VARIANT", "small")
    kept = [sys.argv[0]]
    i = 1
    while i < len(sys.argv):
        token = sys.argv[i]
        if token == "--variant":
            chosen = sys.argv[i + 1]
            i += 2
            continue
        kept.append(token)
        i += 1
    sys.argv[:] = kept
    return chosen.strip().lower()


def _flag(name, default=None):
    for i, tok in enumerate(sys.argv):
        if tok == name and i + 1 < len(sys.argv):
            return int(sys.argv[i + 1])
        if tok.startswith(f"{name}="):
            return int(tok.split("=", 1)[1])
    return default


VARIANT = _pick_variant()
ACTIVE = replace(PRESETS[VARIANT], rows=PRESETS[VARIANT].rows * 2)
TP = _flag("--tp") or 4
HAS_TP = "--tp" in sys.argv
"""


def _ctx(text: str) -> ModuleContext:
    ctx, _ = module_context(split_units(textwrap.dedent(text)))
    return ctx


def test_a_variant_picked_by_a_call_at_import_is_the_default_of_a_run_that_sets_nothing() -> None:
    ctx = _ctx(VARIANTS)
    assert ctx.constants["VARIANT"] == "small"
    assert ctx.constants["TP"] == 4 and ctx.constants["HAS_TP"] is False
    active = ctx.values["ACTIVE"]
    assert isinstance(active, StaticObject)
    # `replace` builds another instance of the class: its property is computed again
    assert (active.get("name"), active.get("rows"), active.get("padded")) == ("small", 64, 8)


def test_a_branch_on_the_picked_variant_is_decided_so_the_other_scope_is_not_outlined() -> None:
    text = (
        VARIANTS
        + """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[ACTIVE.rows, 8], pl.FP32], y: pl.Out[pl.Tensor[[ACTIVE.rows, 8], pl.FP32]]):
        if ACTIVE.experts < ACTIVE.padded:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="padded"):
                t = pl.load(x, [0, 0], [ACTIVE.rows, 8])
                y = pl.store(t, [0, 0], y)
        else:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="exact"):
                t = pl.load(x, [0, 0], [ACTIVE.rows, 8])
                y = pl.store(t, [0, 0], y)
        return y
"""
    )
    analysis = analyse_source(textwrap.dedent(text))
    assert [d.code for d in analysis.diagnostics if d.severity == "error"] == []
    (record,) = analysis.outlined
    assert record.name == "padded"
    assert [(p.name, str(p.type)) for p in record.params] == [
        ("x", "Tensor[[64, 8], FP32]"),
        ("y", "Tensor[[64, 8], FP32]"),
    ]


def test_a_call_the_interpreter_cannot_follow_is_unknown() -> None:
    ctx = _ctx(
        """
        import sys

        import pypto.language as pl

        COUNT = 3


        def _raises():
            raise ValueError("no")


        def _writes_a_global():
            global COUNT
            COUNT = 4
            return COUNT


        def _forever():
            i = 0
            while True:
                i += 1
            return i


        def _reads_before_binding():
            total = total + 1
            return total


        def _appends_to_argv():
            sys.argv.append("--x")
            return 1


        def _script_name():
            return sys.argv[0] == "run.py"


        A = _raises()
        B = _writes_a_global()
        C = _forever()
        D = _reads_before_binding()
        E = _appends_to_argv()
        F = _script_name()
        G = _missing_argument() if False else COUNT
        """
    )
    assert ctx.constants == {"COUNT": 3, "G": 3}


def test_a_function_is_followed_only_once_it_is_defined_and_while_it_is_bound() -> None:
    ctx = _ctx(
        """
        import pypto.language as pl

        BEFORE = _double(2)


        def _double(n):
            return n * 2


        AFTER = _double(n=3)
        _double = None
        GONE = _double(4)
        """
    )
    assert ctx.constants == {"AFTER": 6}


def test_a_layer_schedule_derived_with_tuple_and_index_folds() -> None:
    """`decode_layer.py`: `HIDDEN_RATIOS = tuple(cfg.compress_ratios[:n])`, `ALT_START =
    HIDDEN_RATIOS.index(4)`; a value the tuple does not hold raises when it runs: unknown."""
    ctx = _ctx(
        """
        import pypto.language as pl

        RATIOS = (128, 128, 4, 128, 4, 0)
        HIDDEN = tuple(RATIOS[:5])
        ALT_START = HIDDEN.index(4)
        LEAD = list(HIDDEN)[0]
        PAIRS = tuple(enumerate("ab"))
        MISSING = HIDDEN.index(0)
        """
    )
    assert ctx.values["HIDDEN"] == (128, 128, 4, 128, 4)
    assert (ctx.constants["ALT_START"], ctx.constants["LEAD"]) == (2, 128)
    assert ctx.values["PAIRS"] == ((0, "a"), (1, "b"))
    assert "MISSING" not in ctx.constants


def test_break_ends_the_loop_and_skips_its_else_continue_does_not() -> None:
    ctx = _ctx(
        """
        import pypto.language as pl


        def _first_even(items):
            for item in items:
                if item % 2:
                    continue
                found = item
                break
            else:
                found = -1
            return found


        def _countdown():
            n = 5
            while n > 0:
                n = n - 1
                if n == 2:
                    break
            else:
                n = 100
            return n


        def _no_break():
            n = 0
            while n < 3:
                n = n + 1
            else:
                n = n * 10
            return n


        EVEN = _first_even((1, 3, 4, 6))
        NONE_EVEN = _first_even((1, 3))
        COUNTDOWN = _countdown()
        NO_BREAK = _no_break()
        """
    )
    assert ctx.constants["EVEN"] == 4
    assert ctx.constants["NONE_EVEN"] == -1
    assert ctx.constants["COUNTDOWN"] == 2
    assert ctx.constants["NO_BREAK"] == 30
