"""What the analysis hands to its consumers (CLI, language server).

The code lens, hover, symbols and the CLI show these records; they never re-derive them from
the IR. Names shown to users are base names (D11); spans are source spans of the analysed file.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property

from .diagnostics import Diagnostic
from .dsl_names import DslNames
from .ir import Direction, Program, SplicedHelper
from .ir_shift import shift_program
from .span import Shift, Span, then


@dataclass(frozen=True, slots=True)
class OutlinedParam:
    """One parameter of an outlined function. `name` is the compiler's (the captured variable's
    base name, what the oracle and the CLI's JSON compare); `shown` is what the reader sees at the
    scope: the same, except inside a spliced inline helper, where it is the helper's own name for
    the caller's variable (`hidden_states`, not the caller's `cur`)."""

    name: str
    direction: Direction
    type: str  # printed type, e.g. "Tensor[[64], FP32]"
    shown: str


class _TextOnRead:
    """A text field that may also be given as a function returning the text: the function runs
    on the first read and its text is kept. `OutlinedScope.function_text` and `call` use it
    because printing every outlined function is a tenth of an analysis, and printing every
    replacement call a few percent, while only a lens, a hover or the CLI reads them. Every
    read (attribute, `repr`, `==`, `replace`) sees text."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._key = f"_{name}"

    def __get__(self, record: object, owner: type | None = None) -> str:
        if record is None:
            return ""  # the field's default
        value = record.__dict__[self._key]
        if not isinstance(value, str):
            value = record.__dict__[self._key] = value()
        return value

    def __set__(self, record: object, value: str | Callable[[], str]) -> None:
        record.__dict__[self._key] = value  # frozen dataclasses set fields through here too

    def source(self, record: object) -> str | Callable[[], str]:
        """The text, or the function that will give it, without running it."""
        value: str | Callable[[], str] = record.__dict__[self._key]
        return value


_FUNCTION_TEXT = _TextOnRead()
_CALL = _TextOnRead()


@dataclass(frozen=True)
class OutlinedScope:
    """One scope and the function it became.

    `kind` is the scope kind ("InCore", "Hierarchy", "Graph", "Cluster", "Spmd");
    `function_type` the resulting function's type ("InCore", "Opaque", "Graph", "Group",
    "Spmd"). `parent` is the function the call now sits in (an outlined function for nested
    scopes). `call` is the replacement call printed with base names, e.g.
    "out = self.main_incore_0(x, off, out)". `header_span` is the scope's header (lens line),
    `name_span` the name_hint / graph-name literal when written. `function_text` is the
    outlined function printed as DSL with its variables named for people (`display_names`).
    """

    name: str
    kind: str
    function_type: str
    program: str
    parent: str
    level: str | None
    role: str | None
    scope_span: Span
    header_span: Span
    params: tuple[OutlinedParam, ...]
    returns: tuple[str, ...]  # the compiler's names, like OutlinedParam.name
    shown_returns: tuple[str, ...]  # as the reader sees them at the scope, like OutlinedParam.shown
    call: _TextOnRead = _CALL  # a str when read; see _TextOnRead
    name_span: Span | None = None
    function_text: _TextOnRead = _FUNCTION_TEXT  # a str when read; see _TextOnRead
    # from the standalone analysis of an inline helper nothing in its file calls: in a caller
    # the helper is spliced into the caller's function, and this scope may be named after it
    standalone: bool = False

    def revised(self, **changes: object) -> OutlinedScope:
        """`replace(self, **changes)` without running `__init__` over every field (the final
        records of a whole-model program, two thousand per keystroke, are revised each run),
        and without printing a text field it does not change (it copies what `source` gives)."""
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        for name, value in changes.items():
            object.__setattr__(new, name, value)  # a text field through its descriptor
        return new

    def as_standalone(self) -> OutlinedScope:
        return self.revised(standalone=True)

    def in_program(self, program: str) -> OutlinedScope:
        """This record as outlined in program `program` (a host holding the entry it came from)."""
        return self.revised(program=program)

    def shifted(self, line_delta: Shift) -> OutlinedScope:
        if line_delta == 0:
            return self
        return self.revised(  # the texts are not printed just to be moved (`revised` copies them)
            scope_span=self.scope_span.shifted(line_delta),
            header_span=self.header_span.shifted(line_delta),
            name_span=self.name_span.shifted(line_delta) if self.name_span else None,
        )


@dataclass(frozen=True, slots=True)
class Promotion:
    program: str
    function: str
    to: str  # "Orchestration"


@dataclass
class ProgramAnalysis:
    """The result of running the pipeline on one program.

    Spans everywhere here are absolute file positions. When an edit above a program only moved
    it, the incremental analysis reuses its result through `moved(delta)`: the records are
    shifted at once (cheap), the IR only when first asked for, so callers never see stale spans.
    """

    name: str
    span: Span
    source: Program  # the front end's IR (pre-SSA)
    outlined_program: Program | None  # after all passes (None if the pipeline could not run)
    outlined: list[OutlinedScope] = field(default_factory=list)
    promoted: list[Promotion] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # the front end reported an error: the compiler stops there, so the verifier never runs
    front_end_failed: bool = False

    def moved(self, line_delta: Shift) -> ProgramAnalysis:
        """This result for the same program text starting `line_delta` lines further down (its
        units moved apart, each by its own delta, for a `LineShift`)."""
        if line_delta == 0:
            return self
        return _MovedProgramAnalysis(self, line_delta)

    def relocated(self, helpers: Mapping[SplicedHelper, SplicedHelper]) -> ProgramAnalysis:
        """This result with the helpers of other files it spliced defined elsewhere in their
        files (`helpers`: where each was, where it is now): the findings they cause point at
        their new `def` lines, and the IR's `Program.spliced` names them there. Nothing else
        of a program's analysis reads where an imported helper stands (its spliced code takes
        the call's span)."""
        moved: dict[tuple[str | None, Span], Span] = {
            (h.path, h.name_span): n.name_span for h, n in helpers.items() if h != n
        }
        if not moved:
            return self
        return ProgramAnalysis(
            name=self.name,
            span=self.span,
            source=_respliced(self.source, helpers),
            outlined_program=None
            if self.outlined_program is None
            else _respliced(self.outlined_program, helpers),
            outlined=self.outlined,
            promoted=self.promoted,
            diagnostics=[_repointed(d, moved) for d in self.diagnostics],
            front_end_failed=self.front_end_failed,
        )


def _respliced(program: Program, helpers: Mapping[SplicedHelper, SplicedHelper]) -> Program:
    if not program.spliced:
        return program
    relocated = copy.copy(program)  # its functions are shared, as a reused result's are
    relocated.spliced = {at: helpers.get(helper, helper) for at, helper in program.spliced.items()}
    return relocated


def _repointed(d: Diagnostic, moved: Mapping[tuple[str | None, Span], Span]) -> Diagnostic:
    if not any((r.path, r.span) in moved for r in d.related):
        return d
    related = tuple(
        replace(r, span=moved[(r.path, r.span)]) if (r.path, r.span) in moved else r for r in d.related
    )
    return replace(d, related=related)


class _MovedProgramAnalysis(ProgramAnalysis):
    """A reused result whose IR is shifted lazily on first access."""

    def __init__(self, base: ProgramAnalysis, line_delta: Shift) -> None:
        self._base = base
        self._delta = line_delta
        self._shifted: dict[str, Program | None] = {}
        self._outlined: list[OutlinedScope] | None = None
        self.name = base.name
        self.span = base.span.shifted(line_delta)
        self.promoted = list(base.promoted)
        self.diagnostics = [d.shifted(line_delta) for d in base.diagnostics]
        self.front_end_failed = base.front_end_failed

    def _ir(self, attr: str) -> Program | None:
        if attr not in self._shifted:
            program = getattr(self._base, attr)
            self._shifted[attr] = None if program is None else shift_program(program, self._delta)
        return self._shifted[attr]

    @property  # type: ignore[override]
    def source(self) -> Program:
        program = self._ir("source")
        assert program is not None
        return program

    @source.setter
    def source(self, value: Program) -> None:  # dataclass __init__ is never run here
        raise AttributeError("read-only")

    @property  # type: ignore[override]
    def outlined(self) -> list[OutlinedScope]:
        """Shifted on first access: typing Enter above 50 programs moves them all, and most
        edits are followed by nothing that reads their records."""
        if self._outlined is None:
            self._outlined = [o.shifted(self._delta) for o in self._base.outlined]
        return self._outlined

    @outlined.setter
    def outlined(self, value: list[OutlinedScope]) -> None:
        raise AttributeError("read-only")

    @property  # type: ignore[override]
    def outlined_program(self) -> Program | None:
        return self._ir("outlined_program")

    @outlined_program.setter
    def outlined_program(self, value: Program | None) -> None:
        raise AttributeError("read-only")

    def moved(self, line_delta: Shift) -> ProgramAnalysis:
        return self._base.moved(then(self._delta, line_delta))


@dataclass(frozen=True, slots=True)
class DroppedUnit:
    """A program class or jit function left out of the analysis because its text does not
    parse: the Outlined Program says so in its place instead of silently leaving it out."""

    kind: str  # "program", "jit" or "inline"
    name: str
    line: int  # 0-based line of the unit's first line (its decorator)
    error: Diagnostic  # the syntax error (PTO001)


@dataclass(frozen=True, slots=True)
class HelperDef:
    """A module-level inline helper (`@pl.inline`, `@pl.jit.inline`): its name and the span of
    the name in its `def` (where the lens listing its callers sits)."""

    name: str
    name_span: Span


@dataclass
class FileAnalysis:
    """Everything known about one file: its diagnostics (front end + passes, sorted by
    position), every outlined scope in source order, promotions, and per-program results.

    `outlined` is assembled from the programs when first read, so publishing diagnostics after
    an edit never waits for it."""

    diagnostics: list[Diagnostic] = field(default_factory=list)
    promoted: list[Promotion] = field(default_factory=list)
    programs: list[ProgramAnalysis] = field(default_factory=list)
    is_dsl: bool = False  # False for a Python file that does not import the DSL
    dropped: list[DroppedUnit] = field(default_factory=list)
    dsl_names: DslNames = field(default_factory=DslNames)  # how the file imports the DSL
    helpers: list[HelperDef] = field(default_factory=list)
    # names imported from a module that was not found (module, False) or that does not define
    # them statically (module, True: not at all, or as something not static such as `int(env)`):
    # their values are unknown to the analysis (hovers say so)
    unresolved: dict[str, tuple[str, bool]] = field(default_factory=dict)

    @cached_property
    def outlined(self) -> list[OutlinedScope]:
        """Every program's records in source order. A jit helper shared by two entries is
        outlined in both programs, as the compiler builds each entry as its own program: its
        scopes have one record per program."""
        return sorted([o for p in self.programs for o in p.outlined], key=lambda o: span_order(o.scope_span))


def span_order(span: Span) -> tuple[int, int, int, int]:
    """A sort key: by start, then end."""
    return (span.start_line, span.start_col, span.end_line, span.end_col)
