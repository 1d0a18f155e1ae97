"""Across files in the server (issue 11): an edit to an open module re-analyses the open
documents that import it, as does a change on disk (workspace/didChangeWatchedFiles, registered
dynamically for **/*.py), and `pypto.analysis.extraPaths` extends the search. Each test starts
its own server on a private copy of tests/fixtures/workspace."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import pytest_lsp
from lsp_session import (
    Doc,
    RecordingClient,
    code_lenses,
    open_file,
    server_config,
    vscode_params,
    wait_for_publish,
)
from lsprotocol import types
from lsprotocol.converters import get_converter
from pygls import uris
from spliced_sources import LEAKY_CALLER, LEAKY_HELPER

converter = get_converter()
FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "workspace"


@pytest_lsp.fixture(config=server_config())
async def fresh(lsp_client: RecordingClient):
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(FIXTURE, root)
    return root


async def start(client: RecordingClient, root: Path, options: dict | None = None) -> None:
    settings = {"analysis": {"debounceMs": 0, **(options or {})}}
    await client.initialize_session(vscode_params(settings, root_uri=uris.from_fs_path(str(root))))


async def lens_titles(client: RecordingClient, uri: str) -> list[str]:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return [lens.command.title for lens in found or [] if lens.command]


def titled(titles: list[str], name: str) -> str:
    """What the lens of scope `name` says after its name (`normed: Out (+2 In)`)."""
    (title,) = [t for t in titles if t.startswith(f"⇢ {name} · ")]
    return title.removeprefix(f"⇢ {name} · ")


async def test_an_edit_to_an_open_helper_republishes_the_document_importing_it(
    fresh: RecordingClient, workspace: Path
) -> None:
    await start(fresh, workspace)
    model = open_file(fresh, workspace / "model.py")
    assert [d.code for d in await model.diagnostics()] == ["PTO604"]
    assert titled(await lens_titles(fresh, model.uri), "norm") == "normed: Out (+2 In)"
    norms = open_file(fresh, workspace / "norms.py")
    await norms.diagnostics()
    since = len(fresh.published)
    norms.set_text(norms.text.replace('name_hint="norm"', 'name_hint="renamed"'))
    republished = await wait_for_publish(fresh, model.uri, model.version, since=since)
    assert [d.code for d in republished.diagnostics] == ["PTO604"]
    titles = await lens_titles(fresh, model.uri)
    assert titled(titles, "renamed") == "normed: Out (+2 In)"
    # closed, the helper is read from disk again: the name there is the original one
    since = len(fresh.published)
    norms.close()
    await wait_for_publish(fresh, model.uri, model.version, since=since)
    assert titled(await lens_titles(fresh, model.uri), "norm") == "normed: Out (+2 In)"


async def test_a_file_changed_on_disk_republishes_its_importers(
    fresh: RecordingClient, workspace: Path
) -> None:
    await start(fresh, workspace)
    model = open_file(fresh, workspace / "model.py")
    await model.diagnostics()
    (watch,) = [r for r in fresh.registrations if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    assert [w["globPattern"] for w in watch.register_options["watchers"]] == ["**/*.py"]
    assert titled(await lens_titles(fresh, model.uri), "attend") == "out: Out, q: InOut, cache: InOut (+1 In)"
    externs = workspace / "externs.py"
    externs.write_text(externs.read_text().replace("query: pl.InOut[pl.Tensor]", "query: pl.Tensor"))
    since = len(fresh.published)
    fresh.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams(
            changes=[
                types.FileEvent(uri=uris.from_fs_path(str(externs)) or "", type=types.FileChangeType.Changed)
            ]
        )
    )
    await wait_for_publish(fresh, model.uri, model.version, since=since)
    assert titled(await lens_titles(fresh, model.uri), "attend") == "out: Out, cache: InOut (+2 In)"


async def test_extra_paths_resolve_a_module_outside_the_workspace(
    fresh: RecordingClient, workspace: Path, tmp_path: Path
) -> None:
    extra = tmp_path / "vendor"
    extra.mkdir()
    (extra / "fused_ops.py").write_text(
        "import pypto.language as pl\n\n\n@pl.jit.extern(core_type='aiv', source='g.cpp')\n"
        "def fused_gate(q: pl.InOut[pl.Tensor], table: pl.Tensor) -> pl.Tensor: ...\n"
    )
    await start(fresh, workspace, {"extraPaths": [str(extra)]})
    model = open_file(fresh, workspace / "model.py")
    assert await model.diagnostics() == []
    assert titled(await lens_titles(fresh, model.uri), "gate") == "q: InOut (+1 In)"


async def test_an_error_from_an_imported_helpers_body_points_into_the_helpers_file(
    fresh: RecordingClient, tmp_path: Path
) -> None:
    """At the call (the compiler compiling this file raises it), naming the helper and its
    file, with relatedInformation at the helper's `def` under the helper file's URI; the
    helper's own columns are counted over its own lines (an open helper's live text)."""
    (tmp_path / "helpers.py").write_text(LEAKY_HELPER)
    (tmp_path / "model.py").write_text(LEAKY_CALLER)
    await start(fresh, tmp_path)
    model = open_file(fresh, tmp_path / "model.py")
    (found,) = [d for d in await model.diagnostics() if d.code == "PTO301"]
    assert found.range.start == types.Position(line=6, character=4)
    assert "(in inline helper 'leaky' of helpers.py, spliced at this call)" in found.message
    (related,) = found.related_information or []
    assert related.message == "'leaky' is defined here"
    assert related.location.uri == (tmp_path / "helpers.py").resolve().as_uri()
    assert related.location.range == types.Range(
        start=types.Position(line=4, character=4), end=types.Position(line=4, character=9)
    )


def _seen_from(root: Path, found: object) -> str:
    """`found` as JSON with the workspace's folder spelled `ROOT` (a file URI names it)."""
    text = json.dumps(found, sort_keys=True)
    return text.replace((root.resolve().as_uri()), "ROOT").replace(str(root.resolve()), "ROOT")


async def _shown(client: RecordingClient, doc: Doc, root: Path, *, since: int = 0) -> tuple[str, str]:
    """What the editor shows of `doc`: its diagnostics as last published, its lenses."""
    published = await wait_for_publish(client, doc.uri, doc.version, since=since)
    lenses = await code_lenses(client, doc.uri)
    return (
        _seen_from(root, [converter.unstructure(d) for d in published.diagnostics]),
        _seen_from(root, [converter.unstructure(lens) for lens in lenses]),
    )


# Edits to the helper module's `scaled_norm`, in turn, each shown in the importer: its scope
# renamed, the scope reading one parameter less, a device scalar read leaking out of the scope
# (errors the importer reports at its call), the scope renamed again.
HELPER_EDITS = [
    ('name_hint="norm"', 'name_hint="renamed"'),
    ("        g = pl.load(w, [0, 0], [32, N])\n        y = pl.mul(t, g)\n", "        y = pl.mul(t, t)\n"),
    (
        "        out = pl.store(y, [0, 0], out)\n    return out\n",
        "        out = pl.store(y, [0, 0], out)\n        s = pl.tensor.read(x, [0, 0])\n"
        "    out = pl.add(out, s)\n    return out\n",
    ),
    ('name_hint="renamed"', 'name_hint="third"'),
]


async def test_an_edited_helper_shows_in_its_importer_as_a_fresh_analysis_would(
    fresh: RecordingClient, workspace: Path, tmp_path: Path
) -> None:
    """After each edit of the open helper module, the importer's diagnostics and lenses equal
    those of a document never analysed before: a copy of the workspace with the edited helper
    on disk, opened in the same server (its imports resolve in its own folder)."""
    await start(fresh, workspace)
    model = open_file(fresh, workspace / "model.py")
    await model.diagnostics()
    norms = open_file(fresh, workspace / "norms.py")
    await norms.diagnostics()
    seen = set()
    for step, (old, new) in enumerate(HELPER_EDITS):
        assert old in norms.text
        since = len(fresh.published)
        norms.set_text(norms.text.replace(old, new, 1))
        shown = await _shown(fresh, model, workspace, since=since)
        copy = tmp_path / f"fresh{step}"
        shutil.copytree(FIXTURE, copy)
        (copy / "norms.py").write_text(norms.text)
        assert await _shown(fresh, open_file(fresh, copy / "model.py"), copy) == shown
        seen.add(shown)
    assert len(seen) == len(HELPER_EDITS)  # each edit showed in the importer


async def test_an_edit_to_a_helper_reanalyses_only_the_open_documents_importing_it(
    fresh: RecordingClient, workspace: Path
) -> None:
    """Counted by publishes: the importer of the edited module is published again, a document
    importing only another module of the workspace is not (it is asked for its lenses after
    the edit: a re-analysis scheduled for it would have published first)."""
    (workspace / "rows.py").write_text(
        "import pypto.language as pl\nfrom shapes import ROWS\n\n\n@pl.jit\n"
        "def rows(x: pl.Tensor[[ROWS, 64], pl.FP32], out: pl.Out[pl.Tensor[[ROWS, 64], pl.FP32]]):\n"
        '    with pl.at(level=pl.Level.CORE_GROUP, name_hint="rows"):\n'
        "        t = pl.load(x, [0, 0], [ROWS, 64])\n"
        "        out = pl.store(t, [0, 0], out)\n"
        "    return out\n"
    )
    await start(fresh, workspace)
    docs = [open_file(fresh, workspace / name) for name in ("model.py", "rows.py", "norms.py", "shapes.py")]
    for doc in docs:
        await doc.diagnostics()
    model, rows, norms, shapes = docs
    for edited, importers in [(norms, {model.uri}), (shapes, {model.uri, rows.uri, norms.uri})]:
        since = len(fresh.published)
        edited.set_text(edited.text.replace("\n\n\n", "\n\n\n# edited\n", 1))
        for doc in docs:
            await code_lenses(fresh, doc.uri)  # waits for its analysis when one is due
        published = [p.uri for p in fresh.published[since:]]
        assert sorted(published) == sorted([edited.uri, *importers])  # once each


async def test_an_edit_to_an_imported_entry_republishes_the_host_that_compiles_it(
    fresh: RecordingClient, tmp_path: Path
) -> None:
    """tests/fixtures/hosts: `serve` (a `@pl.jit.host`) calls `head`, a `@pl.jit` entry of
    `heads.py`; the host's program holds the entry's scopes, all shown at the call (one lens,
    as for an imported helper's scopes)."""
    root = tmp_path / "hosts"
    shutil.copytree(FIXTURE.parent / "hosts", root)
    await start(fresh, root)
    serve = open_file(fresh, root / "serve.py")
    assert await serve.diagnostics() == []
    # `head_accumulate` reads `out_v1`, the entry's `out = project(...)` (the jit specialiser's
    # rename), not `out`
    assert titled(await lens_titles(fresh, serve.uri), "head_project") == "out: Out, acc: InOut (+3 In)"
    heads = open_file(fresh, root / "heads.py")
    await heads.diagnostics()
    since = len(fresh.published)
    heads.set_text(heads.text.replace('name_hint="head_project"', 'name_hint="head_scale"'))
    await wait_for_publish(fresh, serve.uri, serve.version, since=since)
    titles = await lens_titles(fresh, serve.uri)
    assert titled(titles, "head_scale") == "out: Out, acc: InOut (+3 In)"
    assert not [t for t in titles if t.startswith("⇢ head_project ")]
