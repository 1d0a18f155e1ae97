"""A `pl.dynamic` symbol reached through a static value names the extent by its string, as the
compiler names it: its specialiser evaluates an annotation's extent (a closure value, here a
`pl.dynamic("ROWS_DYN")` held in a config dataclass's field, a name bound to the field, a
conditional choosing it) and emits the symbol's own name. Read as written, the extent was
`_ROWS`, the variable the annotation spells, and so was the outlined scalar parameter the
`pl.tensor.dim` read folds onto. What the compiler (e2d0f78, the oracle) outlines on
`qwen3_14b/rope_qkv_regen.py`'s shape: `BATCH_DYN`."""

from __future__ import annotations

from pathlib import Path

from test_analysis_incremental import each_edit_then_undone

from pypto_core.analysis import FileAnalysis, analyse_source
from pypto_core.workspace import ModuleIndex

CONFIG = """\
from dataclasses import dataclass
from typing import Any

import pypto.language as pl


@dataclass(frozen=True)
class Dims:
    rows: Any
    width: int


DIMS = Dims(rows=pl.dynamic("ROWS_DYN"), width=128)
"""

KERNEL = """\
import pypto.language as pl
{imports}
ROWS_ALIAS = D.rows
DYNAMIC = True
_ROWS = ROWS_ALIAS if DYNAMIC else 64


@pl.jit
def entry(x: pl.Tensor[[_ROWS, 128], pl.FP32], y: pl.Out[pl.Tensor[[64, 128], pl.FP32]]):
    n = pl.tensor.dim(x, 0)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy"):
        t = pl.load(x, [0, 0], [64, 128], valid_shape=[n, 128])
        pl.store(t, [0, 0], y)
    return y
"""


def _params(analysis: FileAnalysis) -> list[tuple[str, str]]:
    return [(p.name, str(p.type)) for r in analysis.outlined if r.name == "copy" for p in r.params]


EXPECTED = [
    ("x", "Tensor[[ROWS_DYN, 128], FP32]"),
    ("ROWS_DYN", "Scalar[INDEX]"),
    ("y", "Tensor[[64, 128], FP32]"),
]


def test_a_symbol_in_an_imported_config_dataclass_is_named_by_its_string(tmp_path: Path) -> None:
    (tmp_path / "config.py").write_text(CONFIG)
    (tmp_path / "kernel.py").write_text(KERNEL.format(imports="from config import DIMS as D\n"))
    path = (tmp_path / "kernel.py").resolve()
    analysis = analyse_source(path.read_text(), modules=ModuleIndex().lookup_for(path))
    assert _params(analysis) == EXPECTED
    assert not [d for d in analysis.diagnostics if d.severity.value == "error"]


def test_a_symbol_in_the_modules_own_dataclass_is_named_by_its_string() -> None:
    own = CONFIG.replace("import pypto.language as pl\n", "") + "D = DIMS\n"
    text = KERNEL.format(imports=own)
    assert _params(analyse_source(text)) == EXPECTED


def test_a_direct_symbol_keeps_its_name() -> None:
    """`ROWS_DYN = pl.dynamic("ROWS_DYN")` read by its own name: as before."""
    text = KERNEL.format(imports="").replace("ROWS_ALIAS = D.rows\n", "ROWS_ALIAS = 0\n")
    text = text.replace("_ROWS = ROWS_ALIAS if DYNAMIC else 64\n", 'ROWS_DYN = pl.dynamic("ROWS_DYN")\n')
    text = text.replace("[[_ROWS, 128]", "[[ROWS_DYN, 128]")
    assert _params(analyse_source(text)) == EXPECTED


def test_incremental_equals_fresh_when_the_symbols_string_or_the_choice_changes() -> None:
    own = CONFIG.replace("import pypto.language as pl\n", "") + "D = DIMS\n"
    text = KERNEL.format(imports=own)
    edits = [
        lambda t: t.replace('pl.dynamic("ROWS_DYN")', 'pl.dynamic("ROWS_RT")'),
        lambda t: t.replace("DYNAMIC = True", "DYNAMIC = False"),
    ]
    shown = [_params(after)[0][1] for after in each_edit_then_undone(text, edits)]
    assert shown == ["Tensor[[ROWS_RT, 128], FP32]", "Tensor[[64, 128], FP32]"]
