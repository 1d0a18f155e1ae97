"""A jit program's errors name each variable as its author wrote it (`frontend/jit_messages.py`):
the compiler rewrites the message of every error it raises compiling a jit entry with the
specialiser's rename map (`_rewrite_jit_error`), so `buf_v1` is shown as `buf`. Each message
here is what the compiler (e2d0f78, run as the oracle through `JITFunction`'s rewrite) says
on the same code."""

from __future__ import annotations

from test_analysis_incremental import each_edit_then_undone

from pypto_core.analysis import analyse_source
from pypto_core.diagnostics import Diagnostic

T = "pl.Tensor[[64, 128], pl.FP32]"
FILL = f"""\
import pypto.language as pl


@pl.jit.incore
def fill(x: {T}, out: pl.Out[{T}]):
    t = pl.load(x, [0, 0], [64, 128])
    pl.store(t, [0, 0], out)
    return out


@pl.jit
def entry(x: {T}, y: pl.Out[{T}]):
"""

# `buf` rebound at depth 0 is the specialiser's `buf_v1`, passed as Out and read again
REBOUND = (
    FILL
    + """\
    buf = pl.create_tensor([64, 128], dtype=pl.FP32)
    buf = pl.create_tensor([64, 128], dtype=pl.FP32)
    done = fill(x, buf)
    y = fill(buf, y)
    return y
"""
)

READ_AGAIN = (
    "variable '{}' was passed as InOut/Out to an earlier call; "
    "read the post-call return value instead of the pre-call variable"
)


def _errors(text: str) -> list[Diagnostic]:
    return [d for d in analyse_source(text).diagnostics if d.severity.value == "error"]


def test_an_error_about_a_renamed_variable_names_it_as_written() -> None:
    [found] = _errors(REBOUND)
    assert (found.code, found.message) == ("PTO512", READ_AGAIN.format("buf"))
    assert found.hint == "bind the call's result (`buf = callee(...)`) and read that"
    assert [r.message for r in found.related] == ["'buf' passed as InOut/Out here"]
    # what a quick fix reads stays the IR's: the alias is one binding of several `buf`s
    assert found.data["variable"] == "buf_v1"
    # the IR keeps the specialiser's name (the outlined parameters and calls carry it)
    [program] = analyse_source(REBOUND).programs
    assert [s.target.name for s in program.source.get("entry").body[:2]] == ["buf", "buf_v1"]


def test_a_name_of_that_shape_the_author_binds_is_shown_as_it_is() -> None:
    text = REBOUND.replace("    buf = pl.create_tensor([64, 128], dtype=pl.FP32)\n", "", 1).replace(
        "buf", "buf_v1"
    )
    [found] = _errors(text)
    assert found.message == READ_AGAIN.format("buf_v1")


def test_a_bridged_loop_carry_is_named_as_written() -> None:
    """`acc` first bound in one loop body and read first in a sibling's: the bridge
    `acc_v1 = acc` reads a value the first loop does not hand out, and the second loop's
    `acc_v1` is read after it with no value before it. Both findings name `acc`."""
    text = f"""\
import pypto.language as pl


@pl.jit
def entry(x: {T}, y: pl.Out[{T}]):
    for i in pl.range(4):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="first"):
            acc = pl.load(x, [0, 0], [64, 128])
    for j in pl.range(4):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="second"):
            acc = pl.add(acc, acc)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy_out"):
        pl.store(acc, [0, 0], y)
    return y
"""
    found = _errors(text)
    assert [(d.code, d.span.start_line + 1) for d in found] == [("PTO511", 8), ("PTO511", 11)]
    assert all(d.message.startswith("Variable 'acc' used outside its defining scope") for d in found)
    assert all("acc_v1" not in (d.hint or "") for d in found)


def test_a_program_keeps_its_names() -> None:
    """A `@pl.program` is not specialised: no rename, no rewrite (its own `buf_v1` stays)."""
    text = f"""\
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def fill(self, x: {T}, out: pl.Out[{T}]) -> {T}:
        t = pl.load(x, [0, 0], [64, 128])
        out = pl.store(t, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, x: {T}, y: pl.Out[{T}]) -> {T}:
        buf = pl.create_tensor([64, 128], dtype=pl.FP32)
        buf_v1 = pl.create_tensor([64, 128], dtype=pl.FP32)
        done = self.fill(x, buf_v1)
        y = self.fill(buf_v1, y)
        return y
"""
    [found] = _errors(text)
    assert found.message == READ_AGAIN.format("buf_v1")


def test_incremental_equals_fresh_when_an_edit_makes_or_takes_the_name() -> None:
    edits = [
        # the author binds `buf_v1` elsewhere in the body: the rename skips it, `buf_v2`
        lambda t: t.replace("    return y\n", "    buf_v1 = x\n    return y\n"),
        # the rebinding taken out: no rename, the finding names `buf` of the IR
        lambda t: t.replace("    buf = pl.create_tensor([64, 128], dtype=pl.FP32)\n", "", 1),
        # a comment naming the alias changes nothing
        lambda t: t.replace("    done = fill(x, buf)\n", "    done = fill(x, buf)  # buf_v1\n"),
    ]
    messages = [
        [d.message for d in after.diagnostics if d.code == "PTO512"]
        for after in each_edit_then_undone(REBOUND, edits)
    ]
    assert messages == [[READ_AGAIN.format("buf")]] * 3


LOOP_LOCAL = f"""\
import pypto.language as pl


@pl.jit
def entry(x: {T}, y: pl.Out[{T}]):
    acc = pl.create_tensor([64, 128], dtype=pl.FP32)
    for i in pl.range(4):
        tmp = pl.create_tensor([64, 128], dtype=pl.FP32)
        tmp = pl.create_tensor([64, 128], dtype=pl.FP32)
        acc = pl.add(acc, tmp)
    tmp = acc
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="copy_out"):
        pl.store(tmp, [0, 0], y)
    return y
"""


def test_the_programs_aliases_are_the_renames_its_build_made() -> None:
    """Handed on from the build (`Program.aliases`), not read off the IR: `tmp_v1`, made in
    the loop body, whose `tmp` is forgotten after it (the next `tmp` is the name itself), is
    one; a build taking the loop from its record (an edit after it) has it too."""
    [program] = analyse_source(LOOP_LOCAL).programs
    assert program.source.aliases == ("tmp_v1",)
    edits = [lambda t: t.replace("    tmp = acc\n", "    tmp = pl.add(acc, acc)\n")]
    [after] = each_edit_then_undone(LOOP_LOCAL, edits)
    assert after.programs[0].source.aliases == ("tmp_v1",)


def test_a_moved_program_keeps_its_aliases() -> None:
    edits = [lambda t: "# a line above it\n" + t]
    [after] = each_edit_then_undone(REBOUND, edits)
    assert after.programs[0].source.aliases == ("buf_v1", "y_v1")  # `y = fill(buf, y)` rebinds a parameter
