"""Static constants beyond literals: frozen dataclass configs, their properties, tuples, dicts,
indexing and the few builtins real shape arithmetic uses. Nothing runs; anything else is
unknown, never an error."""

from __future__ import annotations

import textwrap

import pytest

from pypto_core.analysis import analyse_source
from pypto_core.frontend import module_context, split_units
from pypto_core.frontend.context import ModuleContext
from pypto_core.frontend.static_eval import StaticObject

CONFIG = """
import dataclasses
from dataclasses import dataclass, field
from typing import ClassVar

import pypto.language as pl

BASE = 8


@dataclass(frozen=True)
class ModelConfig:
    hidden: int
    heads: int
    head_dim: int = 64
    ratios: tuple = (0, 4, 128)
    eps: float = field(default=1e-6)
    tag: ClassVar[str] = "cfg"
    LANES = 16

    @property
    def qk_dim(self) -> int:
        return self.heads * self.head_dim

    @property
    def padded(self) -> int:
        \"\"\"Rounded up to BASE (a module constant).\"\"\"
        return (self.qk_dim + BASE - 1) // BASE * BASE

    @property
    def not_static(self) -> int:
        x = self.heads
        return x


@dataclasses.dataclass(frozen=True)
class Small:
    rows: int


@dataclass
class Mutable:
    rows: int


CFG = ModelConfig(4096, heads=12)
SMALL = Small(rows=CFG.heads * 2)
MUT = Mutable(rows=3)
SIZES = [16, 32, 64]
TABLE = {"a": 1, 2: "b"}
"""


def _ctx(text: str) -> ModuleContext:
    ctx, _ = module_context(split_units(textwrap.dedent(text)))
    return ctx


def _const(expr: str) -> object:
    ctx = _ctx(CONFIG + f"\nVALUE = {expr}\n")
    return ctx.constants.get("VALUE", ctx.values.get("VALUE"))


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("CFG.hidden", 4096),
        ("CFG.heads", 12),
        ("CFG.head_dim", 64),  # a default
        ("CFG.eps", 1e-6),  # field(default=...)
        ("CFG.qk_dim", 768),  # a property of fields
        ("CFG.padded", 768),  # a property of a property and a module constant
        ("CFG.ratios[2]", 128),
        ("CFG.ratios[-1] // CFG.ratios[1]", 32),
        ("CFG.LANES", 16),  # a class attribute, read on the instance
        ("CFG.tag", "cfg"),
        ("SMALL.rows", 24),
        ("SIZES[1] + TABLE['a']", 33),
        ("TABLE[2]", "b"),
        ("min(CFG.heads, 8) + max(1, 2, 3)", 11),
        ("max(SIZES)", 64),
        ("abs(-5) + int(2.9) + int('7')", 14),
        ("CFG.hidden % 1000 + (1 << 3) + (256 >> 2)", 168),
        ("len(SIZES)", 3),
        ("SIZES[1:][0]", 32),
        ("64 if CFG.heads > 8 else 32", 64),
        ("CFG.heads == 12 and CFG.hidden", 4096),
        ("(A := 1)", None),  # not a constant expression
        ("CFG.not_static", None),  # a property that is not one `return <expr>`
        ("MUT.rows", None),  # a mutable dataclass may be changed: unknown
        ("CFG.missing", None),
        ("SIZES[7]", None),
        ("TABLE['zzz']", None),
        ("min()", None),
        ("int('x')", None),
        ("ModelConfig(1)", None),  # a required field missing: it raises when run
        ("ModelConfig(1, 2, nope=3)", None),
        ("(0,) * 10 ** 9", None),  # too big to build
    ],
)
def test_static_values_fold_like_closure_values(expr: str, value: object) -> None:
    assert _const(expr) == value


def test_a_config_instance_is_a_static_object_with_its_properties() -> None:
    cfg = _ctx(CONFIG).values["CFG"]
    assert isinstance(cfg, StaticObject)
    assert cfg.get("qk_dim") == 768 and cfg.get("hidden") == 4096


def test_a_rebinding_to_something_unknown_forgets_the_value() -> None:
    ctx = _ctx(CONFIG + "\nCFG = load()\nA, B = 1, 2\nC, D = 1, CFG\n")
    assert "CFG" not in ctx.values and "C" not in ctx.constants
    assert (ctx.constants["A"], ctx.constants["B"]) == (1, 2)


def test_the_fingerprint_is_stable_for_equal_configs() -> None:
    assert _ctx(CONFIG).fingerprint() == _ctx(CONFIG).fingerprint()
    assert _ctx(CONFIG).fingerprint() != _ctx(CONFIG.replace("4096", "2048")).fingerprint()


def test_config_fields_and_properties_are_shapes_in_a_kernel() -> None:
    text = (
        CONFIG
        + """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: pl.Tensor[[CFG.qk_dim, CFG.ratios[1]], pl.FP32]) -> pl.Tensor[[CFG.padded, 4], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0, 0], [min(CFG.heads, 16), SIZES[0]])
            y = pl.store(t, [0, 0], x)
        return y
"""
    )
    analysis = analyse_source(textwrap.dedent(text))
    assert [d.code for d in analysis.diagnostics] == []
    (record,) = analysis.outlined
    assert [(p.name, str(p.type)) for p in record.params] == [("x", "Tensor[[768, 4], FP32]")]


def test_a_local_variable_shadows_a_config_of_the_same_name() -> None:
    text = (
        CONFIG
        + """
@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, CFG: pl.Tensor[[64], pl.FP32], y: pl.Tensor[[64], pl.FP32]):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(CFG, [0], [64])
            y = pl.store(t, [0], y)
        return y
"""
    )
    (record,) = analyse_source(textwrap.dedent(text)).outlined
    assert [p.name for p in record.params] == ["CFG", "y"]


def test_an_environment_read_with_a_default_is_its_default() -> None:
    ctx = _ctx(
        """
        import os

        import pypto.language as pl

        IMPL = os.environ.get("IMPL", "Separate").lower()
        SEQ = int(os.getenv("SEQ", "4096"))
        PADDED = " x ".strip().upper()
        NO_DEFAULT = os.environ.get("IMPL")
        INDEXED = os.environ["IMPL"]
        """
    )
    assert ctx.constants == {"IMPL": "separate", "SEQ": 4096, "PADDED": "X"}
