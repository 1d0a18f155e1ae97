"""Completion of the DSL surface: members after `pl.` / `pld.` (under the file's aliases),
an enum's members after `pl.Level.`, the keywords of a construct or decorator call with the
values they take, a program's functions after `self.`.

Answered from the text near the cursor and the document's last analysis (its DSL aliases and
programs), never by analysing again: a keystroke's completion must not wait for the worker.
Nothing is offered in a file that does not import the DSL.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from lsprotocol import types

from pypto_core import dsl_surface
from pypto_core.dsl_names import DslNames
from pypto_core.dsl_surface import Entry, Kind
from pypto_core.results import FileAnalysis

from .call_context import attribute_before, call_before, program_class
from .dsl_docs import detail, markdown, param_values
from .session import LiveText

_ITEM_KINDS = {
    Kind.OP: types.CompletionItemKind.Function,
    Kind.CONSTRUCT: types.CompletionItemKind.Function,
    Kind.LOOP: types.CompletionItemKind.Function,
    Kind.DECORATOR: types.CompletionItemKind.Function,
    Kind.HELPER: types.CompletionItemKind.Function,
    Kind.TYPE: types.CompletionItemKind.Class,
    Kind.DTYPE: types.CompletionItemKind.Constant,
    Kind.LAYOUT: types.CompletionItemKind.Constant,
    Kind.ENUM: types.CompletionItemKind.Enum,
    Kind.MEMBER: types.CompletionItemKind.EnumMember,
    Kind.NAMESPACE: types.CompletionItemKind.Module,
}


def completion(live: LiveText, lazy_documentation: bool = False) -> types.CompletionList | None:
    """`lazy_documentation`: the client resolves an item's documentation when it shows it
    (`completionItem/resolve`), so a member list carries only labels and details: `pl.` has
    217 items, whose documentation is most of the answer's size."""
    snapshot = live.latest
    if snapshot is None or not snapshot.analysis.is_dsl or live.line >= len(live.lines):
        return None
    analysis = snapshot.analysis
    attribute = attribute_before(live.prefix)
    if attribute is not None:
        items = _attribute_items(live, attribute.base, attribute.start_col, lazy_documentation)
        return None if items is None else types.CompletionList(is_incomplete=False, items=items)
    call = call_before(live.lines, live.line, live.col)
    if call is None:
        return None
    path = analysis.dsl_names.surface_path(call.callee)
    entry = dsl_surface.entry(path) if path else None
    if entry is None or entry.signature is None:
        return None
    alias = analysis.dsl_names.pl_alias
    params = entry.params
    if call.keyword is not None:
        param = next((p for p in params if p.name == call.keyword and not p.star), None)
        values = param_values(param, alias) if param is not None else []
        return types.CompletionList(is_incomplete=False, items=_value_items(values))
    if not call.at_name_start:
        return None
    items = []
    positional = [p for p in params if not p.keyword_only and not p.star]
    if call.arg_index < len(positional) and not call.used_keywords:
        items += _value_items(param_values(positional[call.arg_index], alias))
    for index, param in enumerate(params):
        filled = not param.keyword_only and index < call.arg_index
        if param.star or filled or param.name in call.used_keywords:
            continue
        items.append(
            types.CompletionItem(
                label=f"{param.name}=",
                kind=types.CompletionItemKind.Property,
                detail=param.text,
                documentation=f"keyword of `{entry.path}`",
                insert_text=f"{param.name}=",
                sort_text=f"0{index:03d}",
            )
        )
    return types.CompletionList(is_incomplete=False, items=items)


def _attribute_items(
    live: LiveText, base: str, base_col: int, lazy_documentation: bool
) -> list[types.CompletionItem] | None:
    assert live.latest is not None
    names = live.latest.analysis.dsl_names
    if base == "self":
        programs = (live.complete or live.latest).analysis
        return _self_items(programs, names, live.lines, live.line)
    path = names.surface_path(base)
    if path is None:
        return None
    entries = dsl_surface.members(path)
    if not entries:
        return None
    items = list(_member_items(path, lazy_documentation))
    prefix = live.prefix
    stripped = prefix.lstrip()
    statement_col = len(prefix) - len(stripped) if stripped.startswith(("with ", "for ")) else base_col
    for entry in entries:
        for snippet in _snippets(entry):
            items.append(_snippet_item(entry, snippet, base, live, statement_col))
    return items


@functools.lru_cache(maxsize=64)
def _member_items(path: str, lazy_documentation: bool) -> tuple[types.CompletionItem, ...]:
    """The items of one namespace, built once: they do not depend on the document."""
    return tuple(
        types.CompletionItem(
            label=entry.name,
            kind=_ITEM_KINDS[entry.kind],
            detail=detail(entry),
            documentation=None if lazy_documentation else _documentation(entry),
            data={RESOLVE_KEY: entry.path} if lazy_documentation else None,
        )
        for entry in dsl_surface.members(path)
    )


RESOLVE_KEY = "pyptoPath"


def resolve(item: types.CompletionItem) -> types.CompletionItem:
    """`completionItem/resolve`: the documentation of a member item, from the table."""
    data = item.data
    path = data.get(RESOLVE_KEY) if isinstance(data, dict) else getattr(data, RESOLVE_KEY, None)
    entry = dsl_surface.entry(path) if isinstance(path, str) else None
    if entry is not None and item.documentation is None:
        item.documentation = _documentation(entry)
    return item


def _documentation(entry: Entry) -> types.MarkupContent:
    return types.MarkupContent(kind=types.MarkupKind.Markdown, value=markdown(entry))


def _snippets(entry: Entry) -> list[str]:
    if entry.snippet is None:
        return []
    return [entry.snippet, *entry.extra.values()] if entry.kind is Kind.CONSTRUCT else []


def _snippet_item(
    entry: Entry, snippet: str, base: str, live: LiveText, start_col: int
) -> types.CompletionItem:
    """A construct's whole statement, replacing what was typed of it (`with pl.` included)."""
    text = snippet.replace("{pl}", base.split(".")[0] if base != "pld" else base)
    typed = live.prefix[start_col:]
    head = text.split("(", 1)[0]
    return types.CompletionItem(
        label=head,
        kind=types.CompletionItemKind.Snippet,
        detail=f"{entry.path} statement",
        documentation=_documentation(entry),
        filter_text=typed[: typed.rfind(".") + 1] + entry.name,
        insert_text_format=types.InsertTextFormat.Snippet,
        text_edit=types.TextEdit(
            range=types.Range(
                start=live.mapper.position(live.line, start_col),
                end=live.mapper.position(live.line, live.col),
            ),
            new_text=text,
        ),
        sort_text=f"~{entry.name}",
    )


def _self_items(
    analysis: FileAnalysis, names: DslNames, lines: Sequence[str], line: int
) -> list[types.CompletionItem] | None:
    """The functions of the `@pl.program` class around the cursor. Read from the text: while
    `self.` is being typed the class usually does not parse, and the last analysis may have
    left it out; the analysis (when it has the class) adds each function's parameters."""
    found = program_class(lines, line, names)
    if found is None:
        return None
    name, functions = found
    analysed = next((p for p in analysis.programs if p.name == name and p.source.origin == "program"), None)
    items = []
    for function_name in functions:
        function = analysed.source.get(function_name) if analysed is not None else None
        params = ", ".join(p.var.base_name for p in function.params) if function is not None else "…"
        kind = f", `{function.type.value}`" if function is not None else ""
        items.append(
            types.CompletionItem(
                label=function_name,
                kind=types.CompletionItemKind.Method,
                detail=f"{function_name}({params})",
                documentation=f"program function of `{name}`{kind}",
            )
        )
    return items


def _value_items(values: list[str]) -> list[types.CompletionItem]:
    return [
        types.CompletionItem(
            label=value,
            kind=types.CompletionItemKind.EnumMember if "." in value else types.CompletionItemKind.Value,
            sort_text=f"1{i:03d}",
        )
        for i, value in enumerate(values)
    ]
