"""How an outlined scope is written in lenses, hovers, hints and symbols (one wording everywhere)."""

from __future__ import annotations

from collections.abc import Sequence

from pypto_core.ir import Direction
from pypto_core.results import OutlinedScope

LENS_ARROW = "⇢"
# the characters of a lens title up to which its written parameters are listed; the rest are
# counted (`+4 more`): a real kernel writes up to twenty, a title of 280 characters runs off
# the editor, and the hover lists them all
LENS_BUDGET = 100

_ACCESS = {
    Direction.In: "read only",
    Direction.Out: "written",
    Direction.InOut: "read and written",
}


def declared_param(name: str, direction: Direction, type_text: str) -> str:
    """A program function's parameter as declared: `x: Tensor[...]`, `out: Out[Tensor[...]]`."""
    if direction is Direction.In:
        return f"{name}: {type_text}"
    return f"{name}: {direction.value}[{type_text}]"


def param_list(scope: OutlinedScope) -> str:
    """`x: In, off: In, out: Out`"""
    return ", ".join(f"{p.shown}: {p.direction.value}" for p in scope.params)


def returns(scope: OutlinedScope) -> str:
    if not scope.shown_returns:
        return ""
    if len(scope.shown_returns) == 1:
        return f" -> {scope.shown_returns[0]}"
    return f" -> ({', '.join(scope.shown_returns)})"


def signature(scope: OutlinedScope) -> str:
    """`main_incore_0(x: In, off: In, out: Out) -> out`"""
    return f"{scope.name}({param_list(scope)}){returns(scope)}"


def lens_title(
    scope: OutlinedScope,
    variants: int = 1,
    params: Sequence[tuple[str, Sequence[Direction]]] | None = None,
    copies: int = 1,
) -> str:
    """Short enough for one line: the function, the parameters the scope writes with their
    direction (as many as fit `LENS_BUDGET`, the others counted), a count of the ones it only
    reads (`⇢ k · out: Out, acc: InOut (+15 In)`, `⇢ k · a: Out, ... (+6 more, +9 In)`),
    `×N` after the name when one program outlines the scope N times (`k`, `k_0`, ...: a helper
    called in an unrolled loop), and `×N callers` when the callers of its helper make N
    different functions of it (`params` is then what they capture together, each name with its
    directions). The full signatures are in the hover."""
    if params is None:
        params = [(p.shown, [p.direction]) for p in scope.params]
    written = [
        f"{name}: {'/'.join(d.value for d in directions)}"
        for name, directions in params
        if any(d is not Direction.In for d in directions)
    ]
    read = len(params) - len(written)
    head = f"{LENS_ARROW} {scope.name}" + (f" ×{copies}" if copies > 1 else "")
    listed = 1
    while listed < len(written) and len(head) + len(", ".join(written[: listed + 1])) <= LENS_BUDGET:
        listed += 1
    if written:
        counts = [f"+{len(written) - listed} more"] if len(written) > listed else []
        counts += [f"+{read} In"] if read else []
        parts = ", ".join(written[:listed]) + (f" ({', '.join(counts)})" if counts else "")
    else:
        parts = f"{read} In" if read else ""
    title = head + (f" · {parts}" if parts else "")
    title += f" · ×{variants} callers" if variants > 1 else ""
    return title + (" · standalone" if scope.standalone else "")


def standalone_note(scope: OutlinedScope) -> str:
    """Why a standalone record's name is provisional (empty for any other record)."""
    if not scope.standalone:
        return ""
    return (
        f"standalone analysis of the inline helper `{scope.program}`, which nothing in this file calls: "
        "a caller splices it into its own function, where this scope may be named after the caller"
    )


def access(direction: Direction) -> str:
    """What a direction says about the scope's use of a captured variable."""
    return _ACCESS[direction]


def placement(scope: OutlinedScope) -> str:
    """`level CORE_GROUP, role Orchestrator` (only the parts that are set)."""
    parts = []
    if scope.level:
        parts.append(f"level `{scope.level}`")
    if scope.role:
        parts.append(f"role `{scope.role}`")
    return ", ".join(parts)


def unresolved_note(names: Sequence[str], unresolved: dict[str, tuple[str, bool]]) -> str | None:
    """Why `names` (imported, used by what the hover shows) have no known value: their module
    was not found or does not define them statically, and the setting that fixes it."""
    by_module: dict[tuple[str, bool], list[str]] = {}
    for name in dict.fromkeys(names):
        if name in unresolved:
            by_module.setdefault(unresolved[name], []).append(name)
    if not by_module:
        return None
    reasons = []
    for (module, found), listed in by_module.items():
        quoted = ", ".join(f"`{n}`" for n in listed)
        plural = "s" if len(listed) > 1 else ""
        why = "does not define it statically" if found else "was not found"
        reasons.append(f"{quoted}: value{plural} unknown, module `{module}` {why}")
    fix = (
        "add the folder that holds it to the `pypto.analysis.extraPaths` setting "
        "(or `pypto-check --path DIR`)"
        if any(not found for _, found in by_module)
        else "only constants and static values written in the module come across"
    )
    return "; ".join(reasons) + f" ({fix})"
