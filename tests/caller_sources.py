"""A small workspace whose inline helper is called from other files in every way the callers
lens follows (written for these tests, in the shapes of pypto-lib's models: a helper-only
module, a model importing the helper under another name, a builder function importing the
module inside its body, a package module). `[|...|]` marks each call the lens must list;
`${def}` is on the helper's name. `write(root)` puts the files on disk."""

from __future__ import annotations

from pathlib import Path

from markers import Marked, extract

NORMS = extract(
    """
    import pypto.language as pl


    @pl.jit.inline
    def ${def}rms(x: pl.Tensor, out: pl.Out[pl.Tensor]):
        with pl.spmd(2, name_hint="rms"):
            t = pl.load(x, [0, 0], [32, 64])
            out = pl.store(t, [0, 0], out)
        return out


    @pl.jit.inline
    def twice(x: pl.Tensor, out: pl.Out[pl.Tensor]):
        out = [|rms|](x, out)
        return out
    """
)

DECODE = extract(
    """
    import pypto.language as pl
    from norms import rms as norm  # rms is named here but only `norm(...)` calls it

    T = pl.Tensor[[32, 64], pl.FP32]


    @pl.jit
    def decode(x: T, out: pl.Out[T]):
        out = [|norm|](x, out)
        s = "é"; out = [|norm|](out, out)
        return out
    """
)

PREFILL = extract(
    """
    def build(rows):
        import pypto.language as pl
        import norms as nm

        @pl.jit
        def prefill(x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
            out = nm.[|rms|](x, out)
            return out

        return prefill
    """
)

PKG_USER = extract(
    """
    import pypto.language as pl
    from norms import twice


    @pl.jit
    def user(x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
        out = twice(x, out)  # not a call of rms itself
        return out
    """
)

OTHER = extract(
    """
    def rms(values):  # another module's rms: not the helper
        return values


    rms([1.0])
    """
)

FILES: dict[str, Marked] = {
    "norms.py": NORMS,
    "decode.py": DECODE,
    "prefill.py": PREFILL,
    "pkg/__init__.py": extract(""),
    "pkg/user.py": PKG_USER,
    "other.py": OTHER,
}


def write(root: Path) -> list[Path]:
    """The files, written under `root`; their paths."""
    paths = []
    for name, marked in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(marked.text, encoding="utf-8")
        paths.append(path)
    return paths


def expected_calls(root: Path) -> list[tuple[Path, tuple[int, int, int, int]]]:
    """Every marked call: (file, (start line, start col, end line, end col)), by file name."""
    found = []
    for name in sorted(FILES):
        for span in FILES[name].ranges:
            found.append((root / name, (span.start_line, span.start_col, span.end_line, span.end_col)))
    return found
