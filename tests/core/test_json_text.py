"""`json_text.dumps_indented` writes what `json.dumps(indent=2, ensure_ascii=False)` writes,
nested at any depth: `pypto-check --format json` is a contract (ARCHITECTURE.md)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from pypto_core.json_text import dumps_indented

STRINGS = ["", 'a"b', "x\\y", "é", "\u2028", "tab\t", "\x00", "line\nbreak", "\ud800", "😀"]


def _value(rng: random.Random, depth: int) -> Any:
    kind = rng.randrange(9 if depth < 4 else 5)
    if kind == 0:
        return rng.choice(STRINGS)
    if kind == 1:
        return rng.randrange(-(10**20), 10**20)
    if kind == 2:
        return rng.choice([True, False, None])
    if kind == 3:
        return rng.choice([0.5, -1e300, 3.0, float("inf")])
    if kind == 4:  # not emitted by pypto-check: left to json
        return rng.choice([(1, "a", []), {"a": 1, 2: [True], None: "n"}, {1.5: {}}])
    if kind in (5, 6):
        return {rng.choice(STRINGS) + str(i): _value(rng, depth + 1) for i in range(rng.randrange(4))}
    return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]


@pytest.mark.parametrize("seed", range(4))
def test_it_writes_what_json_dumps_writes_at_every_depth(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(500):
        value, level = _value(rng, 0), rng.randrange(3)
        expected = json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + "  " * level)
        assert dumps_indented(value, level) == expected


def test_a_checked_files_object() -> None:
    value = {"path": "m.py", "diagnostics": [], "outlined": [{"params": [{"name": "x"}], "role": None}]}
    assert dumps_indented(value) == json.dumps(value, indent=2, ensure_ascii=False)
    assert '"diagnostics": [],' in dumps_indented(value)
