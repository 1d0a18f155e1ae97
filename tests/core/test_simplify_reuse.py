"""Simplify takes what it made of a statement in an earlier run again where the statement and
what it reads of the walk (the constants and bounds of the variables it mentions) are as they
were (`simplify._KEPT`), and decides dead code from each statement's kept facts (`dead_scalars`),
so after an edit only the statements around the edit are simplified again. Taken or not, the
result is what a Simplify that takes nothing gives, and the analysis after any edit what a fresh
one gives: on a real-shaped jit program whose entry Simplify changes in every way it can (top-
level constants propagated into scopes and loop seeds, branches folded on a constant, on a
loop variable's bound and on a scalar's bound, one-trip and zero-trip loops, dead scalars and
a chain of them, a dead if-phi whose scalar dies with it, nested phis that die in two rounds),
an inline helper spliced three times and a kernel."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from ir_builder import BOOL, IDX, FunctionBuilder, add, assign, call, const, load, span, store

from pypto_core import ir
from pypto_core.analysis import DocumentAnalyzer, analyse_source, outlined_program_text
from pypto_core.ir_equal import ir_difference
from pypto_core.passes import dead_scalars, pipeline, simplify
from pypto_core.passes.context import PassContext
from pypto_core.printer import print_function

HEADER = """import pypto.language as pl

ROWS = 64
COLS = 128
LAYERS = 3
WIDE = 2

T = pl.Tensor[[256, COLS], pl.FP32]

"""

STAGE = """
@pl.jit.inline
def stage(x: T, out: T, base: pl.Scalar[pl.INDEX], rows: pl.Scalar[pl.INDEX]) -> T:
    off = base * rows
    spare = off + 1
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="stage"):
        t = pl.load(x, [off, 0], [ROWS, COLS])
        out = pl.store(pl.exp(t), [off, 0], out)
    k = base + 1
    if base > 0:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="edge"):
            k = pl.tile.get_block_idx()
            out = pl.store(pl.load(x, [k, 0], [ROWS, COLS]), [0, 0], out)
    return out


@pl.jit.incore
def square(a: T, out: pl.Out[T]) -> T:
    for i in pl.range(4):
        t = pl.load(a, [i * ROWS, 0], [ROWS, COLS])
        out = pl.store(pl.mul(t, t), [i * ROWS, 0], out)
    return out

"""

ENTRY = """
@pl.jit
def entry(x: T, out: pl.Out[T], base: pl.Scalar[pl.INDEX]) -> T:
    mid = pl.create_tensor([256, COLS], dtype=pl.FP32)
    rows = 4
    half = rows // 2
    lane = base % 10
    unused = base * 3
    chain = unused + half
    mid = stage(x, mid, base, rows)
    for i, (carry,) in pl.range(4, init_values=(half,)):
        carry2 = pl.yield_(carry + i)
    for layer in pl.range(LAYERS):
        hca = pl.cast(layer * 2 + 3, pl.INT32)
        if hca >= 3:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="hca"):
                mid = pl.store(pl.load(x, [layer * half, 0], [ROWS, COLS]), [0, 0], mid)
        else:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="csa"):
                mid = pl.store(pl.load(x, [rows, 0], [ROWS, COLS]), [0, 0], mid)
        mid = stage(x, mid, layer, half)
        if WIDE > 1:
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="wide"):
                mid = pl.store(pl.load(mid, [half, 0], [ROWS, COLS]), [0, 0], mid)
        for t0 in pl.range(layer, layer + 8, 8):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="once"):
                mid = pl.store(pl.load(x, [t0, 0], [ROWS, COLS]), [t0, 0], mid)
        for w in pl.range(0):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="never"):
                mid = pl.store(pl.load(x, [w, 0], [ROWS, COLS]), [w, 0], mid)
    g = base + 2
    if base > 5:
        if base > 7:
            g = base + 4
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="deep"):
            mid = pl.store(pl.load(x, [0, 0], [ROWS, COLS]), [0, 0], mid)
    if lane < 12:
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="lane"):
            mid = pl.store(pl.load(x, [lane, 0], [ROWS, COLS]), [0, 0], mid)
    mid = square(mid, mid)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="finish"):
        z = pl.load(mid, [carry2, 0], [ROWS, COLS])
        out = pl.store(z, [0, 0], out)
    return out
"""

SOURCE = HEADER + STAGE + ENTRY


def _in_entry(old: str, new: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        at = text.index("def entry(")
        assert old in text[at:], old
        return text[:at] + text[at:].replace(old, new, 1)

    return edit


def _in_stage(old: str, new: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        at, end = text.index("def stage("), text.index("def square(")
        assert old in text[at:end], old
        return text[:at] + text[at:end].replace(old, new, 1) + text[end:]

    return edit


# each applied to the text the one before left
EDITS: list[Callable[[str], str]] = [
    _in_entry('name_hint="hca"', 'name_hint="hcax"'),  # a keystroke in the loop
    _in_entry('name_hint="hcax"', 'name_hint="hcaxy"'),
    _in_entry('name_hint="finish"', 'name_hint="finishx"'),  # at the top level, after the loop
    _in_entry("rows = 4\n", "rows = 5\n"),  # a constant every later statement reads
    _in_entry("lane = base % 10", "lane = base % 20"),  # a bound only: `lane < 12` is no longer decided
    _in_entry("[carry2, 0]", "[chain, 0]"),  # a dead chain made live (and a loop result unread)
    _in_stage('name_hint="stage"', 'name_hint="stagex"'),  # in the helper spliced three times
    _in_stage("spare = off + 1", "spare = off + 2"),  # a dead scalar of every splice
    _in_entry("if WIDE > 1:", "if WIDE > 2:"),  # a constant branch flips
    _in_entry("pl.range(layer, layer + 8, 8)", "pl.range(layer, layer + 16, 8)"),  # one trip becomes two
    _in_entry("pl.range(0)", "pl.range(1)"),  # zero trips become one
    _in_entry("            g = base + 4\n", "            g = base + 4\n            lane = lane + g\n"),
    _in_entry("hca >= 3", "hca >= 5"),  # a loop variable's bound no longer decides it
    _in_entry(
        "    mid = stage(x, mid, base, rows)\n",
        "    mid = stage(x, mid, base, rows)\n    mid = square(mid, mid)\n",
    ),  # one more version of `mid` before the loop: every later read of it reads another version
    _in_entry("[chain, 0]", "[g, 0]"),  # the nested phis live again
    lambda text: text.replace("pl.mul(t, t)", "pl.add(t, t)"),  # in the kernel
    lambda text: _in_entry("[g, 0]", "[g + late, 0]")(
        _in_entry("    mid = square(mid, mid)\n", "    mid = square(mid, mid)\n    late = 7\n")(text)
    ),  # a constant near the end, read after it
    # ... no longer one: the resume near the end takes the last run's maps with what the
    # statements from the edited one on wrote taken out (`simplify._resumed`), its constant too
    _in_entry("    late = 7\n", "    late = base + 1\n"),
    lambda text: SOURCE,
]


def _summary(analysis: Any) -> tuple[object, ...]:
    a = analysis
    return (a.diagnostics, a.outlined, a.promoted, a.dropped, a.helpers, a.unresolved)


def _simplified_by_the_pipeline(program_name: str) -> dict[str, ir.Function]:
    found: dict[str, ir.Function] = {}

    def observe(name: str, program: ir.Program, _diagnostics: object) -> None:
        if name == "Simplify":
            found.update((fn.name, fn) for fn in program.functions)

    [analysis] = [p for p in analyse_source(SOURCE).programs if p.source.name == program_name]
    pipeline.run_pipeline(analysis.source, observe=observe)
    return found


def test_the_program_is_clean_and_simplify_changes_its_entry_in_every_way() -> None:
    analysis = analyse_source(SOURCE)
    assert [d.code for d in analysis.diagnostics if d.severity.value == "error"] == []
    names = {r.name for r in analysis.outlined}
    assert {"hca", "wide", "once", "lane", "deep", "finish", "stage", "stage_0"} <= names
    assert not {"csa", "never"} & names  # folded away
    text = print_function(_simplified_by_the_pipeline("entry")["entry"])
    for gone in ("rows__", "half__", "unused__", "chain__", "spare_", "k_inline3__ssa_v0", "g__", "if 2 > 1"):
        assert gone not in text, gone
    assert "init_values=(2,)" in text and "[layer__idx_v0 * 2, 0]" in text  # propagated constants


@pytest.fixture
def replays(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The statements Simplify takes from earlier runs, per run (a run appends its 0): each
    kept propagation taken, and each top-level statement a resumed run takes with the walk's
    state before or after it (`simplify._resumed`, `_take_rest`)."""
    taken: list[int] = []
    replay, resumed, take_rest = simplify._Env.replay, simplify._resumed, simplify._take_rest

    def counted(self: simplify._Env, kept: Any) -> None:
        taken[-1] += 1
        replay(self, kept)

    def counted_head(run: Any, stmts: list[ir.Stmt], env: simplify._Env) -> tuple[int, int]:
        start, tail = resumed(run, stmts, env)
        taken[-1] += start
        return start, tail

    def counted_rest(run: Any, j: int, *rest: Any) -> None:
        taken[-1] += len(run.stmts) - j
        take_rest(run, j, *rest)

    monkeypatch.setattr(simplify._Env, "replay", counted)
    monkeypatch.setattr(simplify, "_resumed", counted_head)
    monkeypatch.setattr(simplify, "_take_rest", counted_rest)
    return taken


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch, replays: list[int]) -> list[int]:
    """Every Simplify the pipeline runs is compared with one that takes nothing, printed and
    structurally; `replays` per run."""
    taken = replays
    plain = simplify.simplify

    def compared(context: PassContext | None = None) -> Callable[[ir.Program], ir.Program]:
        def run(program: ir.Program) -> ir.Program:
            taken.append(0)
            got = plain(context)(program)
            want = plain(context, reuse=False)(program)
            for a, b in zip(got.functions, want.functions, strict=True):
                assert ir_difference(a, b) is None, ir_difference(a, b)
                assert print_function(a) == print_function(b)
            return got

        return run

    monkeypatch.setattr(pipeline, "simplify", compared)
    return taken


def test_incremental_equals_fresh_and_reuse_equals_none_after_every_edit(checked: list[int]) -> None:
    analyzer = DocumentAnalyzer()
    text = SOURCE
    analyzer.update(text)
    for n, edit in enumerate(EDITS):
        text = edit(text)
        del checked[:]
        incremental = analyzer.update(text)
        after_edit = sum(checked)
        fresh = analyse_source(text)
        assert _summary(incremental) == _summary(fresh)
        assert outlined_program_text(incremental, raw=True) == outlined_program_text(fresh, raw=True)
        if n == 2:  # ConvertToSSA's output is kept from its second conversion, Simplify's from
            assert after_edit > 0  # its second meeting: the statements this keystroke left were taken


def test_a_keystroke_leaves_every_statement_it_did_not_touch_as_the_object_of_before(
    checked: list[int],
) -> None:
    """After a keystroke in the loop, every top-level statement Simplify made of the entry but
    the loop is the object the run before made (kept, rewritten or not: dead code goes from the
    statement after the loop), and so is each statement of the loop's body the keystroke left,
    a narrowed `if` among them (the loop itself is new)."""
    analyzer = DocumentAnalyzer()
    seen: list[ir.Function] = []

    def observe(name: str, program: ir.Program, _diagnostics: object) -> None:
        if name == "Simplify":
            seen.extend(fn for fn in program.functions if fn.name == "entry")

    for k in range(4):  # from the third on, every statement has been simplified before
        text = SOURCE.replace('name_hint="hca"', 'name_hint="hca' + "x" * k + '"')
        [program] = [p.source for p in analyzer.update(text).programs if p.source.name == "entry"]
        pipeline.run_pipeline(program, observe=observe)
    before, after = seen[-2:]
    loops = [i for i, s in enumerate(after.body) if isinstance(s, ir.ForStmt) and "layer" in s.loop_var.name]
    assert len(loops) == 1 and len(before.body) == len(after.body)
    for i, (old, new) in enumerate(zip(before.body, after.body, strict=True)):
        assert (old is new) is (i not in loops), (i, print_function(after))
    old_loop, new_loop = before.body[loops[0]], after.body[loops[0]]
    assert isinstance(old_loop, ir.ForStmt) and isinstance(new_loop, ir.ForStmt)
    left = [new is old for old, new in zip(old_loop.body, new_loop.body, strict=True)]
    # the scope the keystroke is in (its `if` folded), and the yield ConvertToSSA makes anew
    assert [i for i, same in enumerate(left) if not same] == [0, len(left) - 1]


@pytest.fixture
def verdicts(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The functions whose dead-code verdict a run taking from earlier ones computed."""
    computed: list[str] = []
    verdict = dead_scalars._verdict
    eliminate = dead_scalars.eliminate_dead_code

    def counted(gathered: Any, body: list[ir.Stmt]) -> Any:
        if current[-1]:
            computed.append(current[-1])
        return verdict(gathered, body)

    current = [""]

    def named(body: list[ir.Stmt], reuse: bool = True, name: str = "", owner: object = None) -> list[ir.Stmt]:
        current.append(name if reuse else "")
        return eliminate(body, reuse, name, owner)

    monkeypatch.setattr(dead_scalars, "_verdict", counted)
    monkeypatch.setattr(simplify, "eliminate_dead_code", named)
    return computed


def test_a_keystroke_that_changes_no_read_decides_no_dead_code_again(
    checked: list[int], verdicts: list[str]
) -> None:
    """Dead code is decided function-wide, but from a digest of what the statements read and
    define in which the statements a keystroke left are the parts of before: typing in a
    `name_hint` takes the entry's verdict (and the result is a run taking nothing's, `checked`);
    a read made elsewhere, deep in the loop, decides again."""
    analyzer = DocumentAnalyzer()
    for k in range(5):  # from the fourth on, each statement the keystroke left is taken by SSA
        del verdicts[:]  # and by the propagation (each from its second meeting)
        analyzer.update(SOURCE.replace('name_hint="hca"', 'name_hint="hca' + "x" * k + '"'))
    assert "entry" not in verdicts
    analyzer.update(SOURCE.replace("[layer * half, 0]", "[layer * half + lane, 0]"))
    assert "entry" in verdicts


# One statement object met again under other circumstances (hand-built IR, as a function built
# around a kept statement would be after an edit): taken only where what it reads is as it was.

_F = FunctionBuilder()
X, OUT, BASE = _F.v("x"), _F.v("out"), _F.v("base", IDX)
N, K, C1, C2, CP, CQ = (_F.v(name, IDX) for name in ("n", "k", "c1", "c2", "cp", "cq"))
C = _F.v("c", ir.ScalarType("FP32"))  # a float: its bound tells no value apart


def _scope(body: list[ir.Stmt], line: int) -> ir.ScopeStmt:
    return ir.ScopeStmt(ir.ScopeKind.InCore, body, span=span(line))


def _reads(*values: ir.Expr) -> ir.EvalStmt:
    return ir.EvalStmt(call("tile.use", *values))


def _function(*body: ir.Stmt) -> ir.Function:
    return ir.Function("f", [ir.Param(X), ir.Param(OUT), ir.Param(BASE)], list(body))


def _same_as_taking_nothing(fn: ir.Function, taken: list[int]) -> None:
    taken.append(0)
    got, want = simplify.simplify_function(fn), simplify.simplify_function(fn, reuse=False)
    assert ir_difference(got, want) is None, ir_difference(got, want)
    assert print_function(got) == print_function(want)


def _cases() -> list[tuple[str, ir.Function, list[ir.Function]]]:
    """Each: a function holding the shared statement, and functions around the same object
    that differ in one thing it reads."""
    reading_c = _scope([assign(OUT, store(load(X), OUT)), _reads(C)], 10)
    decided = ir.IfStmt(
        ir.BinaryExpr("<", N, const(12), BOOL),
        [_scope([_reads(X)], 21)],
        [_scope([_reads(OUT)], 22)],
        span=span(20),
    )
    holds_constant = _scope([assign(K, const(4), 31), _reads(K)], 30)
    narrowed = _scope(
        [
            assign(C1, add(BASE, const(1)), 41),
            ir.IfStmt(
                ir.BinaryExpr(">", BASE, const(0), BOOL),
                [assign(C2, add(BASE, const(2)), 43), ir.YieldStmt([C2])],
                [ir.YieldStmt([C1])],
                [CP],
                span(42),
            ),
        ],
        40,
    )
    loop = ir.ForStmt(_F.v("i", IDX), const(0), BASE, const(1), [holds_constant], span=span(50))
    redefines = _scope([assign(K, add(BASE, const(1)), 81), _reads(K)], 80)

    def yielding(*then: ir.Expr) -> ir.Function:
        """An `if` whose first phi nothing reads, its then-branch yielding `then`."""
        return _function(
            assign(C1, add(BASE, const(1)), 71),
            assign(C2, add(BASE, const(2)), 72),
            ir.IfStmt(
                ir.BinaryExpr(">", BASE, const(0), BOOL),
                [ir.YieldStmt(list(then))],
                [ir.YieldStmt([BASE, BASE])],
                [CP, CQ],
                span(73),
            ),
            _reads(CQ),
        )

    def around_narrowed(*inner: ir.Stmt) -> ir.Function:
        """`narrowed` kept in a new scope, a new one beside it holding `inner`."""
        return _function(_scope([narrowed, _scope([_reads(X), *inner], 61)], 60))

    return [
        (  # the constant it reads: another value, and an equal one made anew (taken)
            "constant",
            _function(assign(C, const(4.0), 1), reading_c),
            [_function(assign(C, const(5.0), 1), reading_c), _function(assign(C, const(4.0), 1), reading_c)],
        ),
        (  # the bound it reads: another one decides the branch no longer
            "bound",
            _function(assign(N, ir.BinaryExpr("%", BASE, const(10), IDX), 1), decided),
            [_function(assign(N, ir.BinaryExpr("%", BASE, const(20), IDX), 1), decided)],
        ),
        (  # at the top level its constant is propagated, inside a loop not
            "depth",
            _function(holds_constant),
            [_function(loop)],
        ),
        (  # what reads it after it: its phi's incoming value (live in the second elimination
            "liveness after it",  # too), its phi (no longer dead)
            _function(narrowed),
            [_function(narrowed, _reads(C1)), _function(narrowed, _reads(CP))],
        ),
        (  # the same, read at depth beside the kept statement: the function's verdict (kept by
            "liveness at depth",  # its name, and every case's function is `f`) not taken
            around_narrowed(),
            [around_narrowed(_reads(C1)), around_narrowed(_reads(CP)), around_narrowed()],
        ),
        (  # what it defines defined before it too (not SSA: its read of it reads the constant
            "defined twice",  # before), or the statement met twice
            _function(redefines),
            [_function(assign(K, const(5), 1), redefines), _function(redefines, _reads(K), redefines)],
        ),
        (  # the same variables read by a yield, in other slots: the dropped phi's value reads
            "yield slots",  # both scalars or one
            yielding(add(C1, C2), BASE),
            [yielding(C1, add(C2, BASE))],
        ),
    ]


@pytest.mark.parametrize("case", range(len(_cases())), ids=[name for name, _, _ in _cases()])
def test_a_kept_statement_is_taken_only_where_it_reads_what_it_read(replays: list[int], case: int) -> None:
    _, first, others = _cases()[case]
    for fn in (first, first, first, *others):  # a statement is kept from its second meeting on
        _same_as_taking_nothing(fn, replays)
    assert replays[2] > 0  # and taken where it reads the same


def _flat_body() -> list[ir.Stmt]:
    """A flat entry as pypto-lib's are (one statement per line, hundreds of them): constants
    that later statements read, bounds, a branch the bounds decide, scopes between."""
    body: list[ir.Stmt] = [assign(N, ir.BinaryExpr("%", BASE, const(10), IDX), 1)]
    for line in range(2, 40, 4):
        body += [
            assign(_F.v(f"c{line}", IDX), const(line), line),
            _scope([assign(OUT, store(load(X), OUT)), _reads(N)], line + 1),
            ir.IfStmt(
                ir.BinaryExpr("<", N, const(12), BOOL),
                [_scope([_reads(X)], line + 2)],
                [_scope([_reads(OUT)], line + 3)],
                span=span(line + 2),
            ),
        ]
    return body


def test_a_top_level_propagation_resumes_where_its_statements_are_the_last_runs() -> None:
    """The propagation of a function's body starts from the walk's state before the first
    statement that is not the last run's object, and takes the last run's rest once what it
    learnt since is what the last run learnt (`simplify._Run`): an edited statement anywhere,
    one added or taken out, a constant that every later statement reads changed (no cut-off
    then), each equal to a run taking nothing."""
    body = _flat_body()
    params = [ir.Param(X), ir.Param(OUT), ir.Param(BASE)]  # the record is kept by them
    scope_at = [i for i, s in enumerate(body) if isinstance(s, ir.ScopeStmt)]
    middle, last = scope_at[len(scope_at) // 2], scope_at[-1]
    edited = _scope([_reads(X, N)], 100)
    variants = [
        body,
        body,
        [*body[:middle], edited, *body[middle + 1 :]],  # an edit in the middle
        [*body[:last], edited, *body[last + 1 :]],  # at the end
        [*body[:middle], edited, *body[middle:]],  # one more statement
        [*body[:middle], *body[middle + 1 :]],  # one fewer
        [assign(N, ir.BinaryExpr("%", BASE, const(20), IDX), 1), *body[1:]],  # a bound every `if` reads
        [body[0], assign(_F.v("c2", IDX), const(3), 2), *body[2:]],  # another constant, read by none
        body,
    ]
    resumed: list[tuple[int, int]] = []
    head, rest = simplify._resumed, simplify._take_rest

    def spy_head(run: Any, stmts: list[ir.Stmt], env: simplify._Env) -> tuple[int, int]:
        start, tail = head(run, stmts, env)
        resumed.append((start, 0))
        return start, tail

    def spy_rest(run: Any, j: int, *more: Any) -> None:
        resumed[-1] = (resumed[-1][0], len(run.stmts) - j)
        rest(run, j, *more)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(simplify, "_resumed", spy_head)
        patch.setattr(simplify, "_take_rest", spy_rest)
        for stmts in variants:
            _same_as_taking_nothing(ir.Function("f", params, list(stmts)), [])
    for k, (start, _) in enumerate(resumed, 1):  # from the first statement not the last run's
        before, now = variants[k - 1], variants[k]
        assert start == next(
            (i for i, (a, b) in enumerate(zip(before, now, strict=False)) if a is not b),
            min(len(before), len(now)),
        )
    taken = [rest for _, rest in resumed]
    tails = [_common_tail(variants[k - 1], variants[k]) for k in range(1, len(variants))]
    # the same body: nothing propagated; an edit, one added, one taken out: each alone, the
    # rest taken; every `if` reads the bound, the other constant is learnt: no cut-off
    assert taken[:5] == tails[:5] and min(tails[1:5]) > 0
    assert taken[5:] == [0, 0, 0]
    assert resumed[0][0] == len(body)


def _common_tail(before: list[ir.Stmt], now: list[ir.Stmt]) -> int:
    same = 0
    while same < min(len(before), len(now)) and before[-1 - same] is now[-1 - same]:
        same += 1
    return 0 if same == len(now) else same


def test_a_resume_near_the_end_takes_out_what_the_statements_from_it_on_learnt() -> None:
    """A resume where fewer writes follow its mark than precede it takes the last run's maps
    with those writes taken out (`simplify._Run.maps`): a constant the edited statement no
    longer assigns is not read after it, and one it assigns again is."""
    late = _F.v("late", IDX)
    params = [ir.Param(X), ir.Param(OUT), ir.Param(BASE)]
    body, reading = _flat_body(), _scope([_reads(late)], 91)
    constant = assign(late, const(7), 90)
    variable = assign(late, ir.BinaryExpr("+", BASE, const(1), IDX), 90)
    deciding = ir.IfStmt(  # decided by `late`'s bound while it is the constant
        ir.BinaryExpr("<", late, const(12), BOOL),
        [_scope([_reads(X)], 92)],
        [_scope([_reads(OUT)], 93)],
        span=span(92),
    )
    for at_end in (constant, constant, variable, constant, variable, constant, _reads(BASE)):
        run = simplify._RUNS.get(params[0])
        if run is not None:  # the last run ran to its end, each variable written once
            assert run.maps is not None
        _same_as_taking_nothing(ir.Function("f", params, [*body, at_end, reading, deciding]), [])
    assert simplify._RUNS[params[0]].maps is not None
