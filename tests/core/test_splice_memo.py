"""A program's splice of its inline helpers is kept with the builds it was spliced from
(`frontend/splice_memo.py`): a host takes its entry's, an edit in a kernel that calls no helper
splices nothing, an edit in a helper splices again; each result equals a fresh analysis. The
members' signatures are kept likewise (`FunctionMemo.signatures`): a rebuilt program reads
the signature of its edited functions only."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from test_analysis_incremental import HOST, _insert, full

from pypto_core import ir
from pypto_core.analysis import DocumentAnalyzer, analyse_source
from pypto_core.frontend import builder, splice_memo
from pypto_core.passes import inline_functions as splicing

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from gen_dsl import generate_jit


def recorded(monkeypatch: pytest.MonkeyPatch, owner: object, name: str, what: Callable[..., object]) -> list:
    """From now on, what each call of `owner.name` is, as `what` says from its arguments."""
    calls: list[object] = []
    original = getattr(owner, name)

    def recording(*args, **kwargs):
        calls.append(what(*args))
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, recording)
    return calls


@pytest.fixture
def splices(monkeypatch: pytest.MonkeyPatch) -> list:
    """Each splice computed: the functions it spliced into (the kept ones it was given)."""
    return recorded(
        monkeypatch,
        splice_memo,
        "inline_functions",
        lambda program, *_: [fn.name for fn in program.functions if fn.type is not ir.FunctionType.Inline],
    )


def test_a_host_takes_its_entrys_splice_and_an_edited_helper_is_spliced_again(splices) -> None:
    text = generate_jit(200) + HOST
    analyzer = DocumentAnalyzer()
    first = analyzer.update(text)
    assert [p.name for p in first.programs] == ["entry", "host"]
    # the host's function calls no helper: the host holds the entry's functions as spliced once
    assert splices == [["entry"]]
    entry, host = first.programs
    assert host.source.get("entry") is entry.source.get("entry")
    splices.clear()
    edited = _insert(text, 'name_hint="norm', 1, "q")
    after = analyzer.update(edited)
    assert analyzer.rebuilt == 2
    assert splices == [["entry"]]  # the helper's new build invalidates the kept splice
    assert "normq" in repr(after.programs[0].source.get("entry"))
    assert full(after) == full(analyse_source(edited))


def test_an_edit_in_a_kernel_that_calls_no_helper_splices_nothing(splices) -> None:
    text = generate_jit(420)
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    kernel = text.replace("u = pl.mul(t, t)", "u = pl.add(t, t)", 1)  # no line moves
    again = kernel.replace("u = pl.add(t, t)", "u = pl.sub(t, t)", 1)
    entry = again.replace('name_hint="finish"', 'name_hint="finishq"', 1)
    for edited, spliced in [(kernel, []), (again, []), (entry, [["entry"]])]:
        assert edited != text
        expected = full(analyse_source(edited))
        splices.clear()
        assert full(analyzer.update(edited)) == expected
        assert analyzer.rebuilt == 1
        # the entry and its helpers built as before keep their splice; an edited entry not
        assert splices == spliced
        text = edited


@pytest.fixture
def leftover_walks(monkeypatch: pytest.MonkeyPatch) -> list:
    """The kept functions walked for calls splicing left."""
    return recorded(monkeypatch, splicing._Splicer, "detach_leftover_calls", lambda _, fn, *__: fn.name)


HELPERS = """
import pypto.language as pl

@pl.jit.inline
def one(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    with pl.at(level=pl.Level.CORE_GROUP):
        y = pl.add(x, x)
    return y

@pl.jit.inline
def two(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    z = one(x)
    return z

@pl.jit
def entry(a: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
    b = two(a)
    c = BODY
    return c
"""


def test_no_kept_body_is_walked_for_leftover_calls_when_every_helper_call_was_spliced(leftover_walks) -> None:
    clean = analyse_source(textwrap.dedent(HELPERS).replace("BODY", "one(b)"))
    assert leftover_walks == []
    assert [d.code for d in clean.diagnostics] == []
    # a helper call nested in an expression is left by splicing: the walk finds and reports it
    nested = analyse_source(textwrap.dedent(HELPERS).replace("BODY", "two(one(b))"))
    assert leftover_walks == ["entry"]
    assert [d.code for d in nested.diagnostics] == ["PTO415"]


def test_splice_facts_say_which_helper_calls_no_statement_makes_directly() -> None:
    x, r = ir.Var("x"), ir.Var("r")
    nested = ir.Call("g", [x], callee="g")
    fn = ir.Function(
        "main",
        [ir.Param(x)],
        [
            ir.AssignStmt(r, ir.Call("h", [x], callee="h")),
            ir.ForStmt(
                ir.Var("i"),
                ir.Const(0),
                ir.Const(2),
                ir.Const(1),
                [ir.EvalStmt(ir.Call("k", [x], callee="k"))],
            ),
            ir.ReturnStmt([ir.Call("tensor.add", [r, nested])]),
        ],
    )
    facts = splicing.splice_facts(fn)
    assert facts.called == {"h", "k", "g", None}  # an op call names no callee
    assert facts.nested == {"g"}


def test_a_rebuilt_program_reads_the_signatures_of_its_edited_functions_only(monkeypatch) -> None:
    read = recorded(monkeypatch, builder, "read_signature", lambda node, *_: node.name)
    text = generate_jit(420) + HOST
    analyzer = DocumentAnalyzer()
    analyzer.update(text)
    functions = text.count("@pl.jit")
    assert len(read) == len(set(read)) == functions  # the host's entry functions: read for the entry
    read.clear()
    edited = _insert(text, 'name_hint="norm', 2, "q")
    expected = full(analyse_source(edited))
    read.clear()
    assert full(analyzer.update(edited)) == expected
    assert analyzer.rebuilt == 2
    # built again (in the entry's program; the host takes that build), from its last signature
    # read: an edit in a body reads no signature
    assert read == []
    # a parameter renamed: its signature is read again, and its caller built again from its
    # own kept signature read (the caller's header did not change)
    renamed = edited.replace("def helper2(\n    x:", "def helper2(\n    xx:", 1)
    assert renamed != edited
    expected = full(analyse_source(renamed))
    read.clear()
    assert full(analyzer.update(renamed)) == expected
    assert read == ["helper2"]
