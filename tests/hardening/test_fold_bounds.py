"""What the constant folder may build is bounded (issue 15, "Inputs that cost too much"): a
module-level `s = s + s` doubled 24 times took all memory; a tuple or dict holding itself
twice, 40 times over, hung the module context's fingerprint (its repr has 2**40 leaves). A
value past the bounds is unknown, like any value the folder cannot compute, never an error."""

from __future__ import annotations

import tracemalloc

import pytest
from test_adversarial import HEADER, codes, program

from pypto_core.analysis import analyse_source
from pypto_core.frontend import module_context, split_units
from pypto_core.frontend.static_eval import UNKNOWN

CONFIG_CLASS = """\
from dataclasses import dataclass

@dataclass(frozen=True)
class Pair:
    a: object
    b: object

"""

# name -> (the first statement, the statement repeated, how often, how often within the bounds)
GROWTH = {
    "a string doubled": ('v = "ab"', "v = v + v", 24, 8),
    "a string formatted wide": ('v = "%0100000000d" % 1', "", 0, None),
    "a string repeated": ('v = "ab"', "v = v * 2", 24, 8),
    "a tuple doubled": ("v = (1,)", "v = v + v", 24, 8),
    "a tuple holding itself twice": ("v = (1,)", "v = (v, v)", 40, 8),
    "a dict holding itself twice": ("v = {1: 1}", "v = {1: v, 2: v}", 40, 8),
    "a config holding itself twice": ("v = Pair(1, 2)", "v = Pair(v, v)", 40, 8),
    "an integer squared": ("v = 3", "v = v * v", 30, 3),
    "a string added to itself in one expression": (
        'v = "x" * 100000',
        "v = " + " + ".join(["v"] * 300),
        1,
        None,
    ),
}
MEMORY_BOUND = 40 * 1024 * 1024  # bytes traced while the module context is computed


def _module(name: str, times: int, variable: str = "v") -> str:
    first, repeated, _, _ = GROWTH[name]
    return "".join(f"{line}\n" for line in [first, *[repeated] * times]).replace("v", variable)


def _value(module: str) -> object:
    ctx, _ = module_context(split_units(HEADER + CONFIG_CLASS + module))
    assert ctx.body_fingerprint  # hashes the repr of every value: what hung on a shared tuple tree
    return ctx.constants.get("v", ctx.values.get("v", UNKNOWN))


@pytest.mark.parametrize("name", list(GROWTH))
def test_a_value_grown_past_the_bounds_is_unknown_within_bounded_memory(name: str) -> None:
    tracemalloc.start()
    try:
        value = _value(_module(name, GROWTH[name][2]))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    if name == "a config holding itself twice":  # an instance whose fields did not fold is
        assert len(repr(value)) < 10_000_000  # still one, without those fields: it grew again
    else:
        assert value is UNKNOWN
    assert peak < MEMORY_BOUND


@pytest.mark.parametrize("name", [name for name, growth in GROWTH.items() if growth[3] is not None])
def test_the_same_growth_within_the_bounds_still_folds(name: str) -> None:
    assert _value(_module(name, GROWTH[name][3] or 0)) is not UNKNOWN


def test_a_file_whose_module_code_grows_huge_values_is_analysed() -> None:
    module = "".join(_module(name, growth[2], f"v{i}") for i, (name, growth) in enumerate(GROWTH.items()))
    scope = ["with pl.at(level=pl.Level.CORE_GROUP):", "    x = pl.add(x, x)", "return x"]
    tracemalloc.start()
    try:
        analysis = analyse_source(
            HEADER + CONFIG_CLASS + module + "\n\n" + program(scope).removeprefix(HEADER)
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(analysis.outlined) == 1
    assert codes(analysis) == set()
    assert peak < MEMORY_BOUND * 2
