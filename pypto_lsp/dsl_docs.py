"""How a DSL surface entry reads in the editor: its signature with the argument it writes
marked, and its documentation. Completion, signature help and hover all show these, so one
name reads the same everywhere."""

from __future__ import annotations

from dataclasses import dataclass

from pypto_core.dsl_surface import Entry, Kind, Param
from pypto_core.ops import Effect, SlotEffect

WRITTEN = "⟵ written"
READ_WRITTEN = "⟷ read-written"


@dataclass(frozen=True)
class SignatureLabel:
    """`store(tile: Tile, offsets: ..., output_tensor ⟵ written, ...)` and, per parameter,
    its [start, end) in the label in UTF-16 code units."""

    label: str
    params: tuple[tuple[int, int], ...]


def slot_mark(slots: list[tuple[str, SlotEffect]]) -> str:
    """The mark of a written slot: `⟵ written`, `⟷ read-written`, or both when the IR ops
    (a unified op's tensor and tile forms) or a keyword make it either."""
    effects = {slot.effect for _, slot in slots}
    if Effect.Read in effects and len(effects) == 1:
        return ""  # read unless a keyword says otherwise: marked in the documentation only
    if effects == {Effect.Write}:
        return WRITTEN
    if effects == {Effect.ReadWrite}:
        return READ_WRITTEN
    return f"{WRITTEN} / {READ_WRITTEN}"


def signature_label(entry: Entry) -> SignatureLabel:
    slots = entry.slot_effects()
    texts = []
    for index, param in enumerate(entry.params):
        mark = slot_mark(slots[index]) if index in slots and not param.keyword_only else ""
        texts.append(f"{param.text} {mark}" if mark else param.text)
    return _label(f"{entry.path}(", texts)


def written_label(name: str, texts: list[str]) -> SignatureLabel:
    """The label of a call of `name` whose parameters read `texts`."""
    return _label(f"{name}(", texts)


def _label(head: str, texts: list[str]) -> SignatureLabel:
    spans, label = [], head
    for i, text in enumerate(texts):
        if i:
            label += ", "
        spans.append((_utf16(label), _utf16(label + text)))
        label += text
    return SignatureLabel(label + ")", tuple(spans))


def _utf16(text: str) -> int:
    """A label offset as LSP counts it (UTF-16 code units, like positions)."""
    return len(text.encode("utf-16-le")) // 2


def detail(entry: Entry) -> str:
    """One line: the signature for what is called, the kind otherwise."""
    if entry.signature is not None and entry.kind is not Kind.MEMBER:
        return signature_label(entry).label
    return f"{entry.path} ({entry.kind.value})"


def markdown(entry: Entry) -> str:
    """What the entry is, in Markdown: for an op the IR op(s) it becomes and what each
    argument is, the result's alias, and the scalar hoist."""
    parts = []
    if entry.signature is not None:
        parts.append(f"```python\n{signature_label(entry).label}\n```")
    if entry.doc:
        parts.append(entry.doc)
    if entry.kind is Kind.OP:
        parts.append(op_facts(entry, entry.ir_ops))
    elif entry.kind is not Kind.MEMBER:
        parts.append(f"*{entry.kind.value}*")
    return "\n\n".join(parts)


def op_facts(entry: Entry, ir_ops: tuple[str, ...]) -> str:
    """The op's effects, for the IR op(s) `ir_ops` (one when the call's operand is known)."""
    params = entry.params
    lines = [_becomes(entry, ir_ops)]
    written: dict[int, list[tuple[str, SlotEffect]]] = {
        i: [(op, s) for op, s in slots if op in ir_ops] for i, slots in entry.slot_effects().items()
    }
    for index, param in enumerate(params):
        if param.keyword_only or param.star:
            continue
        slots = written.get(index) or []
        lines.append(f"- `{param.name}`: {_slot_text(slots, len(ir_ops) > 1)}")
    aliases = [(op, i) for op, i in entry.result_aliases() if op in ir_ops]
    for op, index in aliases:
        name = params[index].name if index < len(params) else f"argument {index + 1}"
        where = f" (`{op}`)" if len(ir_ops) > 1 else ""
        lines.append(f"\nthe result names `{name}`{where}: reading it reads the written buffer")
    if not aliases:
        lines.append("\nthe result is a fresh value")
    lines.append(
        "\nblocks the scalar hoist: a scalar computed by an op call inside a scope cannot be "
        "computed by the caller"
    )
    return "\n".join(lines)


def _becomes(entry: Entry, ir_ops: tuple[str, ...]) -> str:
    if len(ir_ops) == 1:
        return f"becomes IR op `{ir_ops[0]}`; arguments:"
    listed = " or ".join(f"`{op}`" for op in ir_ops)
    return f"becomes IR op {listed} by its first operand (Tensor or Tile); arguments:"


def _slot_text(slots: list[tuple[str, SlotEffect]], per_op: bool) -> str:
    if not slots:
        return "read"
    texts = []
    for op, slot in slots:
        text = {Effect.Write: "written", Effect.ReadWrite: "read-written", Effect.Read: "read"}[slot.effect]
        if slot.note:
            text += f" ({slot.note})"
        texts.append(f"{text} in `{op}`" if per_op else text)
    return "; ".join(texts)


def param_values(param: Param, alias: str) -> list[str]:
    """The literal values `param` takes, spelled with the module's DSL alias."""
    return [v if v in ("True", "False") else f"{alias}.{v}" for v in param.values]
