"""Each scope's outlining is kept with the scope statement for the next keystroke's run
(`outline_memo`): the function, its problems and the callee lookups, under the scope's name,
what is live after it and the kinds enclosing it; a call site that comes out alike is the
statement of before. Taken or made, the analysis after any edit is what an analysis that takes
nothing gives: on a real-shaped jit program (an entry with a layer loop calling inline helpers,
one of them twice, whose scopes' name_hints collide; unnamed scopes numbered by a counter;
a cluster holding an spmd; a kernel called inside a scope), over edits inside a scope, between
scopes, adding, removing and renaming scopes, making and removing a name collision, and
making a scope's output live or dead by a later statement."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from pypto_core.analysis import DocumentAnalyzer, analyse_source, outlined_program_text
from pypto_core.diagnostics import Diagnostic
from pypto_core.ir import ScopeStmt
from pypto_core.passes import outline_memo, outline_replay, outliner

SOURCE = """import pypto.language as pl

R = 32
C = 64


@pl.jit.incore
def scale(
    a: pl.Tensor[[128, C], pl.FP32],
    dst: pl.Out[pl.Tensor[[128, C], pl.FP32]],
) -> pl.Tensor[[128, C], pl.FP32]:
    for i in pl.range(4):
        t = pl.load(a, [i * R, 0], [R, C])
        dst = pl.store(pl.mul(t, t), [i * R, 0], dst)
    return dst


@pl.jit.inline
def mix(
    src: pl.Tensor[[128, C], pl.FP32],
    acc: pl.Tensor[[R, C], pl.FP32],
    buf: pl.Tensor[[128, C], pl.FP32],
    row: pl.Scalar[pl.INDEX],
) -> pl.Tensor[[128, C], pl.FP32]:
    at = row * R
    tmp = pl.create_tensor([R, C], dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="gather"):
        g = pl.load(src, [at, 0], [R, C])
        h = pl.load(acc, [0, 0], [R, C])
        tmp = pl.store(pl.add(g, h), [0, 0], tmp)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="blend"):
        k = pl.load(tmp, [0, 0], [R, C])
        buf = pl.store(pl.exp(k), [at, 0], buf)
    with pl.at(level=pl.Level.CORE_GROUP):
        m = pl.load(buf, [at, 0], [R, C])
        buf = pl.store(pl.neg(m), [at, 0], buf)
    return buf


@pl.jit.inline
def spread(
    src: pl.Tensor[[128, C], pl.FP32],
    buf: pl.Tensor[[128, C], pl.FP32],
) -> pl.Tensor[[128, C], pl.FP32]:
    with pl.cluster():
        with pl.spmd(2):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="lane"):
                p = pl.load(src, [0, 0], [R, C])
                buf = pl.store(pl.add(p, p), [0, 0], buf)
    for j in pl.spmd(2, name_hint="fan"):
        q = pl.load(src, [j * R, 0], [R, C])
        buf = pl.store(pl.mul(q, q), [j * R, 0], buf)
    return buf


@pl.jit
def entry(
    x: pl.Tensor[[128, C], pl.FP32],
    acc: pl.InOut[pl.Tensor[[R, C], pl.FP32]],
    out: pl.Out[pl.Tensor[[128, C], pl.FP32]],
    base: pl.Scalar[pl.INDEX],
) -> pl.Tensor[[128, C], pl.FP32]:
    mid = pl.create_tensor([128, C], dtype=pl.FP32)
    side = pl.create_tensor([R, C], dtype=pl.FP32)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="prep"):
        r0 = pl.load(acc, [0, 0], [R, C])
        k0 = base * 2
        side = pl.store(pl.add(r0, r0), [0, 0], side)
        mid = pl.store(r0, [k0, 0], mid)
    mid = mix(x, acc, mid, base)
    for layer in pl.range(2):
        mid = mix(x, acc, mid, base + layer)
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="step"):
            s = pl.load(mid, [0, 0], [R, C])
            mid = pl.store(pl.add(s, s), [0, 0], mid)
        mid = scale(x, mid)
        with pl.at(level=pl.Level.CORE_GROUP):
            e = pl.load(x, [R, 0], [R, C])
            mid = pl.store(e, [R, 0], mid)
    mid = spread(x, mid)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="finish"):
        z = pl.load(mid, [0, 0], [R, C])
        out = pl.store(z, [0, 0], out)
    return out
"""

STEP_TAIL = "            mid = pl.store(pl.add(s, s), [0, 0], mid)\n"
NEW_SCOPE = """        with pl.at(level=pl.Level.CORE_GROUP, name_hint="extra"):
            w = pl.load(mid, [0, 0], [R, C])
            mid = pl.store(pl.neg(w), [0, 0], mid)
"""
READ_K0 = "    mid = mix(x, acc, mid, k0)\n"  # a third splice of the helper, reading `k0`
TOP_SCOPE = """    with pl.at(level=pl.Level.CORE_GROUP):
        y = pl.load(mid, [R, 0], [R, C])
        mid = pl.store(pl.exp(y), [R, 0], mid)
"""
BEFORE_SPREAD = "    mid = spread(x, mid)\n"
BEFORE_FINISH = '    with pl.at(level=pl.Level.CORE_GROUP, name_hint="finish"):\n'
STORE_OUT = """    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.load(x, [0, 0], [R, C]), [R, 0], out)
"""

# each applied to the text the one before left
EDITS: list[Callable[[str], str]] = [
    lambda t: t.replace('name_hint="step"', 'name_hint="stepx"'),  # a keystroke in a name_hint
    lambda t: t.replace('name_hint="stepx"', 'name_hint="stepxy"'),
    lambda t: t.replace("pl.add(r0, r0)", "pl.mul(r0, r0)"),  # code inside a scope
    lambda t: t.replace(
        "        mid = scale(x, mid)\n", "        mid = scale(x, mid)\n        mid = scale(x, mid)\n"
    ),
    lambda t: t.replace(STEP_TAIL, STEP_TAIL + NEW_SCOPE),  # a named scope added
    lambda t: t.replace('name_hint="extra"', ""),  # renamed: now numbered by the counter
    lambda t: t.replace(NEW_SCOPE.replace('name_hint="extra"', ""), ""),  # and removed
    lambda t: t.replace('name_hint="stepxy"', 'name_hint="finish"'),  # a collision made
    lambda t: t.replace('name_hint="finish"', 'name_hint="step"', 1),  # and removed
    lambda t: t.replace(BEFORE_SPREAD, READ_K0 + BEFORE_SPREAD),  # `k0` live after `prep`: hoisted
    lambda t: t.replace(READ_K0, ""),  # and dead again
    lambda t: t.replace(BEFORE_SPREAD, TOP_SCOPE + BEFORE_SPREAD),  # a scope between top-level ones
    lambda t: t.replace("pl.exp(y)", "pl.neg(y)"),
    # a scope storing into `out` before `finish`: the call of `finish` passes another variable
    lambda t: t.replace(BEFORE_FINISH, STORE_OUT + BEFORE_FINISH),
    lambda t: t.replace(STORE_OUT, ""),
    lambda t: t.replace('name_hint="blend"', 'name_hint="blendx"'),  # in the helper called twice
    lambda t: t.replace("dst: pl.Out[", "dst: pl.InOut["),  # a callee's directions
    # what a callee returns (its body, not its signature: the scope calling it is kept)
    lambda t: t.replace("    return dst\n", "    return a\n", 1),
    lambda t: t.replace("    return a\n", "    return dst\n", 1),
    lambda t: t.replace('name_hint="lane"', 'name_hint="lanex"'),  # inside the cluster
    lambda t: t.replace("with pl.spmd(2):\n", "with pl.spmd(4):\n"),
    lambda t: t.replace('name_hint="fan"', 'name_hint="fanx"'),
    lambda t: SOURCE,
]


@contextmanager
def _nothing_taken() -> Iterator[None]:
    """Outlining with nothing kept taken (as on a cold open)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(outliner, "kept", lambda *_args: None)
        patch.setattr(outliner, "kept_run", lambda *_args: None)
        yield


def _summary(analysis: object) -> tuple[object, ...]:
    a = analysis
    return (a.diagnostics, a.outlined, a.promoted, a.dropped, a.helpers, a.unresolved)  # type: ignore[attr-defined]


def _differences(
    patch: pytest.MonkeyPatch, source: str = SOURCE, edits: list[Callable[[str], str]] = EDITS
) -> tuple[list[int], int]:
    """The edits after which the incremental analysis differs from one taking nothing, and how
    many outlinings the edits took."""
    taken = [0]
    real, real_run = outliner.kept, outliner.kept_run

    def counted(*args: object) -> outline_memo.Made | None:
        made = real(*args)  # type: ignore[arg-type]
        taken[0] += made is not None
        return made

    def counted_runs(*args: object) -> outline_replay.StmtRun | None:
        run = real_run(*args)  # type: ignore[arg-type]
        taken[0] += run.outlined if run is not None else 0
        return run

    patch.setattr(outliner, "kept", counted)
    patch.setattr(outliner, "kept_run", counted_runs)
    analyzer = DocumentAnalyzer()
    text = source
    analyzer.update(text)
    differing = []
    for at, edit in enumerate(edits):
        text = edit(text)
        incremental = analyzer.update(text)
        incremental_text = outlined_program_text(incremental, raw=True)
        with _nothing_taken():
            fresh = analyse_source(text)
            fresh_text = outlined_program_text(fresh, raw=True)
        if _summary(incremental) != _summary(fresh) or incremental_text != fresh_text:
            differing.append(at)
    return differing, taken[0]


def test_the_program_outlines_its_scopes_with_collisions_and_a_cluster() -> None:
    analysis = analyse_source(SOURCE)
    assert [d.code for d in analysis.diagnostics if d.severity.value == "error"] == []
    names = {r.name for r in analysis.outlined}
    assert {"step", "finish", "gather", "blend", "fan"} <= names
    assert any(n.startswith("gather_") for n in names)  # the helper called twice collides
    assert {r.function_type for r in analysis.outlined} >= {"InCore", "Group", "Spmd"}


def test_outlining_taken_again_equals_outlining_anew_after_every_edit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    differing, taken = _differences(monkeypatch)
    assert differing == []
    assert taken > len(EDITS)  # the scopes the edits left were taken


@pytest.mark.parametrize("planted", ["live after", "the name"])
def test_a_reuse_that_reads_too_little_is_caught(monkeypatch: pytest.MonkeyPatch, planted: str) -> None:
    """The comparison above fails when the reuse forgets what a scope's outlining reads."""
    key = outliner.ScopeKey
    if planted == "live after":
        monkeypatch.setattr(
            outliner, "ScopeKey", lambda kind, name, _after, *rest: key(kind, name, frozenset(), *rest)
        )
    else:  # the name a scope gets (its name_hint, the counter, the names taken before it)
        monkeypatch.setattr(outliner, "ScopeKey", lambda kind, _name, *rest: key(kind, "", *rest))
    differing, _ = _differences(monkeypatch)
    assert differing


# a scope computing a scalar on the device that is used after it (PTO301), which a later loop
# only carries and overwrites (the hint names the overwrite) until an edit reads it
DEVICE_SCALAR = """import pypto.language as pl


@pl.jit
def entry(
    cfg: pl.InOut[pl.Tensor[[1], pl.INT32]],
    x: pl.Tensor[[64, 32], pl.FP32],
    out: pl.Out[pl.Tensor[[64, 32], pl.FP32]],
) -> pl.Tensor[[64, 32], pl.FP32]:
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="first"):
        n0 = pl.read(cfg, [0])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy"):
        t = pl.load(x, [0, 0], [64, 32])
        out = pl.store(t, [0, 0], out)
    for i in pl.range(4):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="over"):
            n0 = pl.read(cfg, [0])
            pl.tensor.write(cfg, [0], n0)
    return out
"""
LOOP = "    for i in pl.range(4):\n"
READ_N0 = "    v = pl.tensor.slice(x, [16, 32], [n0, 0])\n" + LOOP  # `first`'s `n0` read: live
DEVICE_SCALAR_EDITS: list[Callable[[str], str]] = [
    lambda t: t.replace('name_hint="copy"', 'name_hint="copyx"'),  # keystrokes in another scope
    lambda t: t.replace('name_hint="copyx"', 'name_hint="copyxy"'),
    lambda t: t.replace(LOOP, READ_N0),  # not dead: the hint changes
    lambda t: t.replace('name_hint="copyxy"', 'name_hint="copyx"'),
    lambda t: t.replace(READ_N0, LOOP),  # dead again
    lambda t: t.replace('name_hint="copyx"', 'name_hint="copy"'),
]


def test_a_scope_with_a_device_scalar_is_taken_and_its_pto301_found_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A PTO301 reads the statements after its scope (a dead carry's hint): the outlining is
    taken without it and it is found again at each run, so the hint follows edits below."""

    def first_pto301(text: str) -> Diagnostic:
        (found,) = [d for d in analyse_source(text).diagnostics if "scope 'first'" in d.message]
        assert found.code == "PTO301"
        return found

    assert "overwrites 'n0'" in str(first_pto301(DEVICE_SCALAR).hint)
    assert "overwrites" not in str(first_pto301(DEVICE_SCALAR_EDITS[2](DEVICE_SCALAR)).hint)
    differing, taken = _differences(monkeypatch, DEVICE_SCALAR, DEVICE_SCALAR_EDITS)
    assert differing == []
    assert taken > len(DEVICE_SCALAR_EDITS)  # none while a PTO301 scope was made at every run


def test_a_device_scalars_pto301s_are_read_again_only_when_a_statement_after_it_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The PTO301s of a scope taken are those of the last run while the statements after it
    that mention the scalar are the same objects: keystrokes in another scope read nothing
    again, an edit making the scalar live below does, and its hint follows."""
    found: list[str] = []
    real = outliner.unhoistable_scalars

    def counted(scope: ScopeStmt, name: str, *rest: Any) -> list[Diagnostic]:
        found.append(name)
        return real(scope, name, *rest)

    monkeypatch.setattr(outliner, "unhoistable_scalars", counted)
    analyzer = DocumentAnalyzer()
    text = DEVICE_SCALAR
    analyzer.update(text)
    hints, read_again = [], []
    for edit in DEVICE_SCALAR_EDITS[:3]:
        found.clear()
        text = edit(text)
        after = analyzer.update(text)
        read_again.append("first" in found)
        hints.append([str(d.hint) for d in after.diagnostics if "scope 'first'" in d.message])
        assert after.diagnostics == analyse_source(text).diagnostics
    # the keystrokes in `copy` read nothing again (from the first: ConvertToSSA's output of
    # the statements they left is the open's, `ssa_resume`), the read below makes the scalar live
    assert read_again == [False, False, True]
    assert "overwrites 'n0'" in hints[1][0] and "overwrites" not in hints[2][0]
