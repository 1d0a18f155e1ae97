"""Where the workspace calls an inline helper (issue 11 item 5): the calls of the names an
import binds to the helper, in any file and any import form, never a same-named function of
another module; parsed once per file text."""

from __future__ import annotations

from pathlib import Path

from caller_sources import expected_calls, write

from pypto_core.workspace import ModuleIndex, SearchPath
from pypto_core.workspace.callers import CallerIndex


def calls(found: list) -> list[tuple[Path, tuple[int, int, int, int]]]:
    return [(c.path, (c.span.start_line, c.span.start_col, c.span.end_line, c.span.end_col)) for c in found]


def test_every_call_of_the_helper_is_found_and_nothing_else(tmp_path: Path) -> None:
    files = write(tmp_path)
    index = CallerIndex(ModuleIndex(search=SearchPath(roots=(tmp_path,))))
    found = index.callers(tmp_path / "norms.py", "rms", files)
    assert calls(found) == expected_calls(tmp_path)
    # the call after `s = "é"; ` is counted in code points (the file's UTF-8 bytes differ)
    decode = [span for path, span in calls(found) if path.name == "decode.py"]
    assert decode[1][1] == len('    s = "é"; out = ')


def test_a_file_that_imports_the_module_from_elsewhere_is_not_a_caller(tmp_path: Path) -> None:
    files = write(tmp_path)
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "norms.py").write_text("def rms(x, out):\n    return out\n")
    (other / "uses.py").write_text("from norms import rms\nrms(1, 2)\n")  # its own folder's norms
    index = CallerIndex(ModuleIndex(search=SearchPath(roots=(tmp_path,))))
    found = index.callers(tmp_path / "norms.py", "rms", [*files, other / "uses.py"])
    assert {c.path.name for c in found} == {"norms.py", "decode.py", "prefill.py"}
    assert [c.path.parent for c in index.callers(other / "norms.py", "rms", [other / "uses.py"])] == [other]


def test_asking_again_parses_only_what_changed(tmp_path: Path) -> None:
    files = write(tmp_path)
    modules = ModuleIndex(search=SearchPath(roots=(tmp_path,)))
    index = CallerIndex(modules)
    index.callers(tmp_path / "norms.py", "rms", files)
    parsed = index.parsed
    # the files whose imports of `norms` resolve to it (other.py names `rms` but is not parsed)
    assert parsed == 4
    index.callers(tmp_path / "norms.py", "rms", files)
    assert index.parsed == parsed
    modules.sources.open((tmp_path / "decode.py").resolve(), "from norms import rms\nrms(1, 2)\n")
    found = index.callers(tmp_path / "norms.py", "rms", files)
    assert index.parsed == parsed + 1
    assert [(c.span.start_line, c.span.start_col) for c in found if c.path.name == "decode.py"] == [(1, 0)]
