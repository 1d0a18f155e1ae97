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


def test_an_edit_parses_the_unit_it_changed_and_moves_the_calls_below_it(tmp_path: Path) -> None:
    """A helper lens is resolved again at every keystroke into its file: the file's other
    top-level units keep what they said, their calls moved by the lines the edit added."""
    units = ["def a(x, out):\n    rms(x, out)\n", "def b(x, out):\n    rms(x, out)\n", "rms(1, 2)\n"]
    helper = tmp_path / "norms.py"
    helper.write_text("def rms(x, out):\n    return out\n\n" + "\n".join(units))
    modules = ModuleIndex(search=SearchPath(roots=(tmp_path,)))
    index = CallerIndex(modules)
    before = calls(index.callers(helper, "rms", [helper]))
    parsed = index.units_parsed
    edited = "def rms(x, out):\n    return out\n\n" + "\n".join([units[0] + "    y = 1\n\n", *units[1:]])
    modules.sources.open(helper.resolve(), edited)
    after = calls(index.callers(helper, "rms", [helper]))
    assert index.units_parsed == parsed + 1  # the edited `def a` only
    fresh = CallerIndex(ModuleIndex(modules.sources, SearchPath(roots=(tmp_path,))))
    assert after == calls(fresh.callers(helper, "rms", [helper]))
    assert [span[0] for _, span in after] == [before[0][1][0], before[1][1][0] + 2, before[2][1][0] + 2]


def test_a_unit_that_does_not_parse_hides_only_its_own_calls(tmp_path: Path) -> None:
    helper = tmp_path / "norms.py"
    helper.write_text("def rms(x, out):\n    return out\n\ndef a(x, out):\n    rms(x, out) +\n\nrms(1, 2)\n")
    index = CallerIndex(ModuleIndex(search=SearchPath(roots=(tmp_path,))))
    assert [span[:2] for _, span in calls(index.callers(helper, "rms", [helper]))] == [(6, 0)]


def test_a_deleted_file_leaves_nothing_of_it_in_the_index(tmp_path: Path) -> None:
    helper = tmp_path / "norms.py"
    helper.write_text("def rms(x, out):\n    return out\n")
    user = tmp_path / "user.py"
    user.write_text("from norms import rms\nrms(1, 2)\n")
    modules = ModuleIndex(search=SearchPath(roots=(tmp_path,)))
    index = CallerIndex(modules)
    assert [c.path.name for c in index.callers(helper, "rms", [user])] == ["user.py"]
    user.unlink()
    modules.changed(user.resolve())
    assert index.callers(helper, "rms", [user]) == []
    held = (index._files, index._splitters, index._units)
    assert all(user.resolve() not in known for known in held)
