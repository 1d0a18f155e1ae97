"""The DSL file every editor test opens: examples/quickstart.py with position markers."""

from __future__ import annotations

from pathlib import Path

from markers import Marked, extract

QUICKSTART = """
import pypto.language as pl

ROWS = 64


@pl.program
class Quickstart:
    @pl.function
    def main(
        self,
        x: pl.Tensor[[128, 64], pl.FP32],
        base: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[128, 64], pl.FP32]],
    ) -> pl.Tensor[[128, 64], pl.FP32]:
        with ${scope_main}pl.at(level=pl.Level.CORE_GROUP):
            off = base * ROWS
            t = pl.load(x, [off, 0], [ROWS, 64])
            e = pl.exp(t)
            pl.store(e, [off, 0], out)
        with ${scope_tail}pl.at(level=pl.Level.CORE_GROUP, name_hint="t${hint}ail"):
            u = pl.load(x, [off, 0], [ROWS, 64])
            out = pl.store(pl.neg(u), [0, 0], out)
        return out


@pl.program
class ReadBack:
    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        cfg: pl.Tensor[[1], pl.INT32],
        acc: pl.InOut[pl.Tensor[[64, 128], pl.FP32]],
    ) -> pl.Tensor[[64, 128], pl.FP32]:
        with ${scope_readback}pl.at(level=pl.Level.CORE_GROUP):
            ${pto301}n = pl.read(cfg, [0])
        m = pl.read(cfg, [n + 1])
        return acc
"""

SCOPE_MARKERS = ("scope_main", "scope_tail", "scope_readback")


def write_sample(folder: Path) -> tuple[Path, Marked]:
    """Write the sample as `quickstart.py` in a project folder of its own (with a pyproject.toml,
    so every editor finds the same root) and return its path with the marker positions."""
    marked = extract(QUICKSTART)
    (folder / "pyproject.toml").write_text('[project]\nname = "editor-sample"\nversion = "0"\n')
    path = folder / "quickstart.py"
    path.write_text(marked.text)
    return path, marked
