"""Statement-level reuse in a function's build: an edit rebuilds what it changed (issue 13).

A real `@pl.jit` entry is hundreds to 1,500 lines, most of it inside a few huge `with pl.at`
/ `pl.spmd` scopes; a one-character edit in it used to build every statement again. Here each
statement's build, at every depth, is kept with what it read and wrote of the builder's
environment (`BodyState`), early cut-off style (salsa, rust-analyzer): a statement whose text
and place are those of a kept one, and which finds the environment it read as it was (the same
`Var` objects and types, constants, dynamic symbols, temporaries counter, enclosing scope and
loop frames when it looked at them), is not built: its IR (the same objects), its diagnostics
and its writes are replayed. A changed compound statement is built, and inside it each
unchanged statement is again taken as kept.

What a statement reads of the environment is its names: every lookup the builder makes is by a
name the statement spells (`mentioned`), so the names of its text, nested statements included,
bound its reads. It writes the same names and the temporaries it makes. Reads that are not by
name are tracked: the scope and loop frames (`FrameStack` counts reads), the temporaries
counter (read only when it makes one), and the launch scopes indexed for `predicate=` (such a
statement is never kept).

A statement built again gets, for each variable it creates, the `Var` the last build created at
the same place with the same name and type (`_Pool`), so the statements after it that read that
name find the same object and are taken as kept: an edit in statement k rebuilds k and only the
later statements whose inputs really changed, and an unchanged statement keeps its IR objects.

Kept IR is never modified: a function whose build retypes a `Var` after creating it (an
unannotated name first bound to an unknown value), or that holds a `pl.dump_tag` (applied in
place), keeps nothing for the next build (`StatementReuse.tainted`); the Orchestration dim fold
runs on a copy (`programs._member_function`).
"""

from __future__ import annotations

import ast
import keyword
import re
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field, replace
from itertools import islice
from operator import is_, itemgetter
from typing import TYPE_CHECKING, Any

from ..diagnostics import Diagnostic
from ..ir import Expr, IterArg, ScopeStmt, Span, Stmt, Type, Var, YieldStmt
from ..ir_clone import clone
from ..passes.inline_functions import SpliceFacts
from ..recurring import mark
from ..span import Shift, line_shift
from .jit_renames import NameState

if TYPE_CHECKING:
    from .body_state import BodyState
    from .stmts import StmtBuilder

_BODIES = frozenset({"body", "orelse", "finalbody"})
# statements with blocks: their names are their headers' and their blocks' statements'
_COMPOUND = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.If,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.TryStar,
    ast.Match,
)
_WORD = re.compile(r"(?<![.\w])[A-Za-z_]\w*")  # an identifier not right after a `.`
_KEYWORDS = frozenset(keyword.kwlist)
_ABSENT = object()  # a name with no current type
_TYPE = itemgetter(1)  # an entry's current type

# What the environment holds for one name: its Var, its current type, whether it is defined
# (strict_ssa rebinding), a module/class constant or static value of that name still visible,
# the dynamic-extent symbol of that name, and a jit body's rename bookkeeping of it (its depth
# counted from the statement's, `jit_renames`).
Entry = tuple[Var | None, object, bool, bool, bool, Var | None, NameState | None]
StmtKey = tuple[int, int, int | None, tuple[str, ...]]


class FrameStack(list):  # type: ignore[type-arg]
    """A list of enclosing scope or loop frames that counts the times it is read (`reads`), so
    a statement's record knows whether its build looked at the frames around it. Pushing and
    popping are not reads."""

    reads = 0

    def __iter__(self):  # type: ignore[no-untyped-def]
        self.reads += 1
        return super().__iter__()

    def __reversed__(self):  # type: ignore[no-untyped-def]
        self.reads += 1
        return super().__reversed__()

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        self.reads += 1
        return super().__getitem__(index)

    def __len__(self) -> int:
        self.reads += 1
        return super().__len__()

    def __contains__(self, item: object) -> bool:
        self.reads += 1
        return super().__contains__(item)


@dataclass(slots=True)
class StmtRecord:
    """One statement's build: what it read, what it wrote, what it made."""

    names: tuple[str, ...]  # the names its text spells, nested statements included
    before: tuple[Entry, ...]  # the environment's entry for each name at its start
    writes: tuple[tuple[str, Entry], ...]  # the entries it changed (variables it bound that its
    # text does not spell, temporaries, included), as they are at its end
    frames: tuple[tuple[object, ...], tuple[str, ...]] | None  # the frames, when it read them
    temps: tuple[int, int] | None  # the temporaries counter before and after, when it made one
    stmts: list[Stmt]
    diagnostics: tuple[Diagnostic, ...]
    launches: tuple[ScopeStmt, ...]  # launch scopes it finished (for a later `predicate=`)
    yields: tuple[tuple[YieldStmt, list[ast.expr]], ...]  # the yields it left to bind
    created: tuple[tuple[_PoolKey, Var], ...]  # the variables it created
    dump_tags: bool
    # the records of the statements inside it, at every depth: a compound statement taken
    # whole hands them on, so the next edit inside it finds them
    inner: tuple[tuple[StmtKey, StmtRecord], ...] = ()


_PoolKey = tuple[str, str, Span, int, bool]  # name, type (its repr: every field), span, id(init), carried


def _pool_key(name: str, value_type: Type, span: Span, init: Expr | None, carried: bool) -> _PoolKey:
    return name, repr(value_type), span, id(init), carried


@dataclass
class KeptStatements:
    """One function's statement records from its last build, under the context they were built
    in (everything the function's build reads besides its statements' text and environment)."""

    context: Hashable
    records: dict[StmtKey, StmtRecord]
    pool: dict[_PoolKey, list[Var]]
    # what splicing reads of each top-level statement (`programs._splice_facts`), by id
    splice_facts: dict[int, tuple[Stmt, SpliceFacts]]
    # the signature read the body was built from (`builder.SignatureRead`), and its top-level
    # statements' keys in order (None: one not recorded): what `StatementReuse.body` certifies
    # the environment by
    read: object | None = None
    top: tuple[StmtKey | None, ...] = ()
    lines: tuple[int, int] = (-1, -1)  # the file lines of the body's first and last statements


@dataclass
class StatementReuse:
    """The statement records of one build of a function: the last build's (`kept`, when its
    context is this one's) are looked up, this build's are collected for the next."""

    context: Hashable
    kept: KeptStatements | None = None
    records: dict[StmtKey, StmtRecord] = field(default_factory=dict)
    pool: dict[_PoolKey, list[Var]] = field(default_factory=dict)  # this build's creations
    splice_facts: dict[int, tuple[Stmt, SpliceFacts]] = field(default_factory=dict)  # this build's
    kept_facts: dict[int, tuple[Stmt, SpliceFacts]] = field(default_factory=dict)  # the last build's
    tainted: bool = False  # the build modified a Var after creating it: nothing is kept
    unreusable: int = 0  # reads of launch history (`predicate=`): a statement doing one is not kept
    reused: int = 0  # statements taken as kept (for tests and bench)
    built: int = 0  # statements built
    _old: dict[StmtKey, StmtRecord] = field(default_factory=dict)
    _old_pool: dict[_PoolKey, list[Var]] = field(default_factory=dict)
    _claimed: set[int] = field(default_factory=set)  # ids of pool Vars handed out in this build
    _created: list[tuple[_PoolKey, Var]] = field(default_factory=list)  # this build's, in order
    _keys: dict[int, StmtKey] = field(default_factory=dict)  # id(node) -> key, this build
    _names: dict[StmtKey, tuple[str, ...]] = field(default_factory=dict)
    moved: int = 0  # statements taken from the last build moved (for tests and bench)
    # the last build's records by text alone (`_by_text`), made on the first miss
    _texts: dict[tuple[int, int | None, tuple[str, ...]], list[StmtRecord]] | None = None
    _lines: dict[int, int] = field(default_factory=dict)  # id(record) -> its first line
    _renamed: dict[int, Var] = field(default_factory=dict)  # id(a last build's Var) -> its moved copy
    certified: int = 0  # top-level statements taken on the environment certified (for tests and bench)
    _read: object | None = None  # the signature read this build's body starts from (`body`)
    _top: list[StmtKey | None] = field(default_factory=list)  # this build's top-level keys
    _old_read: object | None = None
    _old_top: tuple[StmtKey | None, ...] = ()
    _body_lines: tuple[int, int] = (-1, -1)
    _moves: bool = True  # the body's lines are not the last build's: a statement may have moved

    def __post_init__(self) -> None:
        if self.kept is not None and self.kept.context == self.context:
            self._old, self._old_pool = self.kept.records, self.kept.pool
            self.kept_facts = self.kept.splice_facts
            self._old_read, self._old_top, self._body_lines = self.kept.read, self.kept.top, self.kept.lines
        self.kept = None

    def result(self) -> KeptStatements | None:
        """What this build leaves for the next one (nothing when it modified a kept object)."""
        if self.tainted:
            return None
        return KeptStatements(
            self.context,
            self.records,
            self.pool,
            self.splice_facts,
            self._read,
            tuple(self._top),
            self._body_lines,
        )

    # -- the function's top level ------------------------------------------------------------

    def body(self, builder: StmtBuilder, nodes: list[ast.stmt], read: object | None) -> list[Stmt]:
        """The function's top-level statements, built from the signature read `read`.

        Early cut-off along the body: the environment at the body's start is the last build's
        when the context is (`__post_init__`) and the body starts from the same signature read
        (the same parameter `Var`s, constants and counter); while it stays certified, a
        statement at the same index with the last build's key at that index reads exactly what
        its record says it read, so it is taken without comparing its names' entries (a
        whole-model entry's hundred top-level statements spell thousands of names), its writes
        replayed; after one that is not (the edited statement, built again), the environment is
        certified again when its record's effects are the last record's at that index (the
        same writes, counter, no yields). The statements are what `StmtBuilder.block` gives."""
        self._read = read
        certain = read is not None and read is self._old_read
        state = builder.state
        if nodes:
            last = self.key(state, nodes[-1])
            lines = (self.key(state, nodes[0])[0], last[0] + len(last[3]))
            self._moves, self._body_lines = lines != self._body_lines, lines
        old_top, claimed = self._old_top, self._claimed
        result: list[Stmt] = []
        for index, node in enumerate(nodes):
            key = self.key(state, node)
            old_key = old_top[index] if certain and index < len(old_top) else None
            record = self._old.get(old_key) if old_key is not None else None
            if (
                record is not None
                and old_key == key
                and (record.frames is None or record.frames == _frames(state))
                and not any(id(var) in claimed for _, var in record.created)
            ):
                result.extend(self._take(builder, key, record))
                self.certified += 1
                self._top.append(key)
                continue
            result.extend(self._stmt(builder, node, key))
            made = self.records.get(key)
            self._top.append(None if made is None else key)
            certain = record is not None and made is not None and _same_effects(made, record)
        return result

    # -- variables ---------------------------------------------------------------------------

    def new_var(
        self, name: str, value_type: Type, span: Span, init: Expr | None = None, *, carried: bool = False
    ) -> Var:
        """A variable for `name` created at `span` (an `IterArg` when `carried`): the last
        build's one made there alike (the same name, type and, for a loop-carried one, initial
        value) when no statement of this build holds it yet, else a new one."""
        key = _pool_key(name, value_type, span, init, carried)
        var: Var | None = None
        for candidate in self._old_pool.get(key, ()):
            if id(candidate) not in self._claimed:
                var = candidate
                break
        if var is None:
            var = IterArg(name, value_type, span, init) if carried else Var(name, value_type, span)
        self._claimed.add(id(var))
        self._created.append((key, var))
        self.pool.setdefault(key, []).append(var)
        return var

    # -- statements --------------------------------------------------------------------------

    def stmt(self, builder: StmtBuilder, node: ast.stmt) -> list[Stmt]:
        return self._stmt(builder, node, self.key(builder.state, node))

    def _stmt(self, builder: StmtBuilder, node: ast.stmt, key: StmtKey) -> list[Stmt]:
        record = self._old.get(key)
        if record is not None and self._matches(builder.state, record):
            return self._take(builder, key, record)
        # a statement at another line than its record's is there only when lines were typed or
        # taken out in the body (or moved around inside it, which builds it again instead)
        for moved in self._by_text(key) if self._moves else ():
            stmts = self._take_moved(builder, key, moved)
            if stmts is not None:
                return stmts
        return self._build(builder, node, key)

    def _take(self, builder: StmtBuilder, key: StmtKey, record: StmtRecord) -> list[Stmt]:
        """The last build's statements of `record`, taken as kept: its writes replayed, the
        records inside it handed on (the next edit inside it finds them)."""
        self._replay(builder, record)
        self.records.update(record.inner)
        self.records[key] = record
        self.reused += 1
        return record.stmts

    def key(self, state: BodyState, node: ast.stmt) -> StmtKey:
        """The statement's text and place: its lines as they are, where it starts and ends."""
        found = self._keys.get(id(node))
        if found is None:
            offset = state.ctx.line_offset
            first, last = node.lineno - 1 + offset, (node.end_lineno or node.lineno) - 1 + offset
            text = tuple(state.ctx.source_lines[first : last + 1])
            found = self._keys[id(node)] = (first, node.col_offset, node.end_col_offset, text)
        return found

    def _matches(self, state: BodyState, record: StmtRecord) -> bool:
        if record.temps is not None and record.temps[0] != state.temp_counter:
            return False
        if record.frames is not None and record.frames != _frames(state):
            return False
        current = _entries(state, record.names)
        if current != record.before:
            return False
        if not all(map(is_, map(_TYPE, current), map(_TYPE, record.before))):
            for entry, kept in zip(current, record.before, strict=True):
                if entry[1] is not kept[1] and repr(entry[1]) != repr(kept[1]):
                    return False  # types alike in value but not in every field (see `_same`)
        claimed = self._claimed
        return not record.created or not any(id(var) in claimed for _, var in record.created)

    # -- statements that only moved ----------------------------------------------------------

    def _by_text(self, key: StmtKey) -> list[StmtRecord]:
        """The last build's records of a statement with this text (columns included) at
        another line: a line typed or taken out above it, inside its function."""
        if self._texts is None:
            self._texts = {}
            for (first, col, end_col, text), record in self._old.items():
                self._texts.setdefault((col, end_col, text), []).append(record)
                self._lines[id(record)] = first
        return self._texts.get(key[1:], [])

    def _take_moved(self, builder: StmtBuilder, key: StmtKey, record: StmtRecord) -> list[Stmt] | None:
        """The statement built from `record`, made at another line of the same text, when the
        environment it read is as it was but for the `Var`s of statements taken so before
        (their moved copies): its IR cloned with every span moved by the lines between the two
        places, the variables it read the current ones, those it created moved copies; its
        diagnostics moved alike and its writes replayed with the copies. None when that is not
        sure to be what building it gives: it read the frames around it (their places are the
        enclosing statements'), left yields to bind (their targets are the old tree's), or a
        finding of it points outside its lines."""
        state = builder.state
        old_first = self._lines[id(record)]
        delta = key[0] - old_first
        last = old_first + len(key[3]) - 1
        if (
            record.yields
            or record.dump_tags
            or (record.frames is not None and record.frames != _frames(state))
        ):
            return None
        if record.temps is not None and record.temps[0] != state.temp_counter:
            return None
        renamed = self._renamed
        current = _entries(state, record.names)
        for entry, kept in zip(current, record.before, strict=True):
            var, symbol = kept[0], kept[5]
            if var is not None:
                var = renamed.get(id(var), var)
            if symbol is not None:
                symbol = renamed.get(id(symbol), symbol)
            if entry[0] is not var or entry[5] is not symbol or entry[1:5] != kept[1:5]:
                return None
            if entry[6] != _moved_state(kept[6], renamed):
                return None
            if entry[1] is not kept[1] and repr(entry[1]) != repr(kept[1]):
                return None
        for diagnostic in record.diagnostics:
            spans = [diagnostic.span, *(r.span for r in diagnostic.related if r.path is None)]
            if any(not old_first <= span.start_line <= span.end_line <= last for span in spans):
                return None
        memo: dict[int, Any] = {}
        for entry, kept in zip(current, record.before, strict=True):
            if kept[0] is not None:
                memo[id(kept[0])] = entry[0]
            if kept[5] is not None:
                memo[id(kept[5])] = entry[5]
            if kept[6] is not None and kept[6].base is not None:
                memo[id(kept[6].base)] = entry[6].base  # type: ignore[union-attr]
        # the statement's own lines move, and every span its IR holds is in them but those of
        # the variables it reads (the current ones) and of a dynamic symbol it made (`NO_SPAN`):
        # that one stays
        shift: Shift = delta
        if any(not old_first <= var.span.start_line <= last for _, var in record.created):
            shift = line_shift([0, old_first, last + 1], [0, delta, 0])
        stmts = clone(record.stmts, memo, line_delta=shift)
        mark(stmts)
        created = []
        for pool_key, var in record.created:
            copied = memo.get(id(var)) or clone(var, memo, line_delta=shift)
            renamed[id(var)] = copied
            name, value_type, span, _, carried = pool_key
            init = copied.init if isinstance(copied, IterArg) and carried else None
            created.append(((name, value_type, span.shifted(shift), id(init), carried), copied))
        writes = tuple(
            (
                name,
                (
                    renamed.get(id(entry[0]), entry[0]) if entry[0] is not None else None,
                    *entry[1:5],
                    renamed.get(id(entry[5]), entry[5]) if entry[5] is not None else None,
                    _moved_state(entry[6], renamed),
                ),
            )
            for name, entry in record.writes
        )
        launches = tuple(memo.get(id(scope), scope) for scope in record.launches)
        inner = _moved_inner(record.inner, delta, shift, memo, renamed)
        moved = StmtRecord(
            record.names,
            current,
            writes,  # type: ignore[arg-type]
            record.frames,
            record.temps,
            stmts,
            tuple(d.shifted(delta) for d in record.diagnostics),
            launches,
            (),
            tuple(created),
            False,
            inner,
        )
        self._replay(builder, moved)
        self.records.update(inner)
        self.records[key] = moved
        self.moved += 1
        return stmts

    def _replay(self, builder: StmtBuilder, record: StmtRecord) -> None:
        state = builder.state
        for name, entry in record.writes:
            _apply(state, name, entry)
        if record.temps is not None:
            state.temp_counter = record.temps[1]
        state.ctx.diagnostics.extend(record.diagnostics)
        state.unindexed_launches.extend(record.launches)
        if record.dump_tags:
            state.ctx.dump_tags = True
        for yield_stmt, targets in record.yields:
            builder.yield_targets[id(yield_stmt)] = targets
        claimed, pool = self._claimed, self.pool
        for key, var in record.created:
            claimed.add(id(var))
            self._created.append((key, var))
            pool.setdefault(key, []).append(var)

    def _build(self, builder: StmtBuilder, node: ast.stmt, key: StmtKey) -> list[Stmt]:
        state = builder.state
        ctx = state.ctx
        names = self.names(state, node)
        before = _entries(state, names)
        frames = _frames(state)
        reads = state.scopes.reads + state.loops.reads  # type: ignore[attr-defined]
        temps, variables = state.temp_counter, len(state.variables)
        diagnostics, launches = len(ctx.diagnostics), len(state.unindexed_launches)
        yields, created, unreusable = len(builder.yield_targets), len(self._created), self.unreusable
        tags = ctx.dump_tags
        ctx.dump_tags = False
        inner = len(self.records)
        stmts = builder.stmt(node)
        self.built += 1
        made_tags = ctx.dump_tags
        ctx.dump_tags = tags or made_tags
        if self.unreusable != unreusable or len(state.unindexed_launches) < launches:
            return stmts
        spelled = set(names)
        writes = [
            (name, after)
            for name, after, entry in zip(names, _entries(state, names), before, strict=True)
            if not _same(after, entry)
        ]
        added = [name for name in islice(state.variables, variables, None) if name not in spelled]
        writes += zip(added, _entries(state, added), strict=True)
        self.records[key] = StmtRecord(
            names,
            before,
            tuple(writes),
            frames if state.scopes.reads + state.loops.reads != reads else None,  # type: ignore[attr-defined]
            (temps, state.temp_counter) if state.temp_counter != temps else None,
            stmts,
            tuple(ctx.diagnostics[diagnostics:]),
            tuple(state.unindexed_launches[launches:]),
            tuple(islice(builder.yield_targets.items(), yields, None)),  # type: ignore[arg-type]
            tuple(self._created[created:]),
            made_tags,
            tuple(islice(self.records.items(), inner, None)),
        )
        return stmts

    def names(self, state: BodyState, node: ast.stmt) -> tuple[str, ...]:
        """Every name the statement spells (what its build may look up), nested statements
        included: theirs are their records' when kept, so only changed text is walked."""
        key = self.key(state, node)
        found = self._names.get(key)
        if found is not None:
            return found
        kept = self._old.get(key)
        if kept is not None:
            self._names[key] = kept.names
            return kept.names
        spelled: dict[str, None] = {}
        if not isinstance(node, _COMPOUND) and all(map(str.isascii, key[3])):
            # a simple statement: the words of its lines, a superset of its `Name`s (an
            # attribute, a keyword argument, a word in a string or comment too), found by the
            # regular expression in C instead of a walk over its nodes in Python, the largest
            # share of recording a function's first build; an identifier is a `Name` as
            # written only in ASCII (`ast` folds other identifiers to NFKC)
            spelled = dict.fromkeys(_WORD.findall("\n".join(key[3])))
            for word in _KEYWORDS.intersection(spelled):
                del spelled[word]
        else:
            for name, value in ast.iter_fields(node):
                for item in value if isinstance(value, list) else (value,):
                    if not isinstance(item, ast.AST):
                        continue
                    if name in _BODIES and isinstance(item, ast.stmt):
                        spelled.update(dict.fromkeys(self.names(state, item)))
                    else:
                        spelled.update((n.id, None) for n in ast.walk(item) if isinstance(n, ast.Name))
        found = self._names[key] = tuple(spelled)
        return found


def _moved_inner(
    inner: tuple[tuple[StmtKey, StmtRecord], ...],
    delta: int,
    shift: Shift,
    memo: dict[int, Any],
    renamed: dict[int, Var],
) -> tuple[tuple[StmtKey, StmtRecord], ...]:
    """The records of the statements inside a compound statement taken moved, moved with it:
    each one's IR is the clone's object at its place (`memo`: the last build's objects to their
    copies), the `Var`s and types it read and wrote the copies (or the current ones the clone
    read), so an edit inside the statement after it moved finds them as an edit inside a
    statement taken whole does (`StatementReuse.stmt`). A record that read the frames around it
    (the enclosing statements, which moved) or left yields to bind is left out: built again."""
    moved: dict[int, StmtRecord] = {}
    out: list[tuple[StmtKey, StmtRecord]] = []

    def entry(kept: Entry) -> Entry:
        var, current, defined, constant, value, symbol, names = kept
        if var is not None:
            var = renamed.get(id(var)) or memo.get(id(var), var)
        if symbol is not None:
            symbol = renamed.get(id(symbol)) or memo.get(id(symbol), symbol)
        if names is not None and names.base is not None:
            base = renamed.get(id(names.base)) or memo.get(id(names.base), names.base)
            names = replace(names, base=base)
        return var, memo.get(id(current), current), defined, constant, value, symbol, names

    for (first, col, end_col, text), record in inner:
        if record.frames is not None or record.yields or record.dump_tags:
            continue
        if not all(id(s) in memo for s in record.stmts):
            continue
        created = []
        for (name, type_repr, span, _, carried), var in record.created:
            copied = renamed.get(id(var)) or memo[id(var)]
            init = copied.init if isinstance(copied, IterArg) and carried else None
            created.append(((name, type_repr, span.shifted(shift), id(init), carried), copied))
        made = moved[id(record)] = StmtRecord(
            record.names,
            tuple(map(entry, record.before)),
            tuple((name, entry(after)) for name, after in record.writes),
            None,
            record.temps,
            [memo[id(s)] for s in record.stmts],
            tuple(d.shifted(delta) for d in record.diagnostics),
            tuple(memo.get(id(scope), scope) for scope in record.launches),
            (),
            tuple(created),
            False,
            tuple(
                (_moved_key(key, delta), moved[id(nested)])
                for key, nested in record.inner
                if id(nested) in moved
            ),
        )
        out.append(((first + delta, col, end_col, text), made))
    return tuple(out)


def _moved_key(key: StmtKey, delta: int) -> StmtKey:
    return (key[0] + delta, *key[1:])  # type: ignore[return-value]


def _entries(state: BodyState, names: Sequence[str]) -> tuple[Entry, ...]:
    """The environment's entry for each name (one comprehension: a function call per name was
    a fifth of recording a statement)."""
    variables, types, defined = state.variables, state.current_types, state.defined
    constants, values, symbols = state.constants, state.values, state.symbols
    renamer = state.renamer
    renames, depth = (renamer.states, renamer.depth) if renamer is not None else (_NO_RENAMES, 0)
    return tuple(
        [
            (
                variables.get(name),
                types.get(name, _ABSENT),
                name in defined,
                name in constants,
                name in values,
                symbols.get(name),
                None if (known := renames.get(name)) is None else known.at(depth),
            )
            for name in names
        ]
    )


_NO_RENAMES: dict[str, NameState] = {}


def _moved_state(names: NameState | None, renamed: dict[int, Var]) -> NameState | None:
    """A rename bookkeeping entry with its base `Var` the moved copy of it, if any."""
    if names is None or names.base is None or id(names.base) not in renamed:
        return names
    return replace(names, base=renamed[id(names.base)])


def _same_effects(made: StmtRecord, kept: StmtRecord) -> bool:
    """Whether two records of statements built from the same environment leave the same one:
    the same writes (`Var`s by identity, types by every field), counter and no yields left."""
    if made.temps != kept.temps or made.yields or kept.yields or len(made.writes) != len(kept.writes):
        return False
    return all(
        name == old_name and _same(entry, old)
        for (name, entry), (old_name, old) in zip(made.writes, kept.writes, strict=True)
    )


def _same(entry: Entry, kept: Entry) -> bool:
    """Entries alike, types by every field: a type's `distributed` flag is no part of its
    value, but the op argument rules read it."""
    if entry == kept:
        return entry[1] is kept[1] or repr(entry[1]) == repr(kept[1])
    return False


def _apply(state: BodyState, name: str, entry: Entry) -> None:
    var, current, defined, constant, value, symbol, names = entry
    if var is None:
        state.variables.pop(name, None)
    else:
        state.variables[name] = var
    if current is _ABSENT:
        state.current_types.pop(name, None)
    else:
        state.current_types[name] = current  # type: ignore[assignment]
    if defined:
        state.defined.add(name)
    if not constant:
        state.constants.pop(name, None)
    if not value:
        state.values.pop(name, None)
    if symbol is not None:
        state.symbols[name] = symbol
    renamer = state.renamer
    if renamer is not None:
        if names is None:
            renamer.states.pop(name, None)
        else:
            renamer.states[name] = names.at(renamer.depth)


def _frames(state: BodyState) -> tuple[tuple[object, ...], tuple[str, ...]]:
    """The enclosing scope and loop frames, read without counting as the statement's read."""
    return tuple(list.copy(state.scopes)), tuple(list.copy(state.loops))
