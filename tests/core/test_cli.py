"""`pypto-check`: output formats, exit status, folder walking, UTF-16 ranges in JSON."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from spliced_sources import LEAKY_CALLER, LEAKY_HELPER

from pypto_core.cli import main
from pypto_core.frontend import units as units_module

from markers import extract

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "examples" / "quickstart.py"

CLEAN = """
import pypto.language as pl


@pl.program
class Clean:
    @pl.function
    def main(self, x: pl.Tensor[[64], pl.FP32], out: pl.Out[pl.Tensor[[64], pl.FP32]]) -> pl.Tensor[[64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [0], [64])
            pl.store(t, [0], out)
        return out
"""


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().out


def test_text_output_lists_diagnostics_with_one_based_positions_and_outlined_functions(capsys) -> None:
    code, out = run(capsys, "--show-outlined", str(QUICKSTART))
    assert code == 1
    lines = QUICKSTART.read_text().splitlines()
    n_line = next(i for i, line in enumerate(lines) if "n = pl.read(cfg, [0])" in line)
    n_col = lines[n_line].index("n = pl.read")
    assert f"{QUICKSTART}:{n_line + 1}:{n_col + 1}: PTO301 error: " in out
    assert "main_incore_0(x: In, off: In, out: Out) -> out" in out
    assert "tail(x: In, off: In, out: Out) -> out" in out
    assert "Quickstart.main promoted to Orchestration" in out


def test_json_output_follows_the_contract(capsys) -> None:
    code, out = run(capsys, "--format", "json", str(QUICKSTART))
    assert code == 1
    report = json.loads(out)
    assert report["version"] == 1
    (file,) = report["files"]
    assert [d["code"] for d in file["diagnostics"] if d["severity"] == "error"] == ["PTO301"]
    first = next(o for o in file["outlined"] if o["program"] == "Quickstart" and o["name"] == "main_incore_0")
    assert first["kind"] == "InCore"
    assert first["function_type"] == "InCore"
    assert first["parent"] == "main"
    assert first["level"] == "CORE_GROUP"
    assert first["role"] is None
    assert [(p["name"], p["direction"]) for p in first["params"]] == [
        ("x", "In"),
        ("off", "In"),
        ("out", "Out"),
    ]
    assert first["params"][0]["type"] == "Tensor[[128, 64], FP32]"
    assert first["returns"] == ["out"]
    assert "self.main_incore_0(x, off, out)" in first["call"]
    assert {"program": "Quickstart", "function": "main", "to": "Orchestration"} in file["promoted"]


def test_json_ranges_count_utf16_code_units(tmp_path: Path, capsys) -> None:
    marked = extract(
        """
        import pypto.language as pl

        @pl.program
        class P:
            @pl.function
            def main(self, cfg: pl.Tensor[[1], pl.INT32]) -> pl.Tensor[[1], pl.INT32]:
                with pl.at(level=pl.Level.CORE_GROUP):
                    s = "😀"; [|n = pl.read(cfg, [0])|]
                m = pl.read(cfg, [n])
                return cfg
        """
    )
    path = tmp_path / "emoji.py"
    path.write_text(marked.text, encoding="utf-8")
    _, out = run(capsys, "--format", "json", str(path))
    (d,) = [d for d in json.loads(out)["files"][0]["diagnostics"] if d["code"] == "PTO301"]
    start = marked.range.start_col
    assert d["range"]["start"] == {"line": marked.range.start_line, "character": start + 1}


def test_folders_are_walked_and_a_clean_file_exits_zero(tmp_path: Path, capsys) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "clean.py").write_text(CLEAN)
    (tmp_path / "pkg" / "not_dsl.py").write_text("x = (\n")  # not DSL: nothing reported
    (tmp_path / "README.md").write_text("not python")
    code, out = run(capsys, str(tmp_path))
    assert code == 0
    assert out.strip().endswith("2 file(s) checked: 0 error(s), 0 warning(s)")


def test_emit_outlined_prints_the_outlined_program(capsys, tmp_path: Path) -> None:
    path = tmp_path / "clean.py"
    path.write_text(CLEAN)
    code, out = run(capsys, "--emit", "outlined", str(path))
    assert code == 0
    assert "def main_incore_0(" in out
    assert "self.main_incore_0(" in out


def test_missing_path_and_bad_usage_exit_two(capsys, tmp_path: Path) -> None:
    assert main([str(tmp_path / "nope.py")]) == 2
    assert "no such file" in capsys.readouterr().err
    with pytest.raises(SystemExit) as usage:
        main(["--format", "xml", str(QUICKSTART)])
    assert usage.value.code == 2


def test_console_script_runs_as_a_process() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pypto_core.cli", "--format", "json", str(QUICKSTART)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["files"][0]["path"] == str(QUICKSTART)


HELPER_CALLED_WITH_OTHER_NAMES = """
import pypto.language as pl

T = pl.Tensor[[64], pl.FP32]


@pl.jit.inline
def scale(src: T, dst: T):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="k"):
        dst = pl.assemble(dst, pl.add(src, src), [0])
    return dst


@pl.jit
def entry(x: T, out: pl.Out[T]):
    out = scale(x, out)
    return out
"""


def test_json_params_carry_the_compilers_names_and_the_helpers_names_as_shown(tmp_path: Path, capsys) -> None:
    # The compiler names the kernel's parameters after the caller's variables (what the oracle
    # compares); the reader of the helper sees its own names, which lenses and hovers use.
    path = tmp_path / "helper.py"
    path.write_text(HELPER_CALLED_WITH_OTHER_NAMES, encoding="utf-8")
    _, out = run(capsys, "--format", "json", str(path))
    (kernel,) = json.loads(out)["files"][0]["outlined"]
    assert [(p["name"], p["direction"], p["shown"]) for p in kernel["params"]] == [
        ("x", "In", "src"),
        ("out", "Out", "dst"),
    ]
    assert kernel["returns"] == ["out"]


def test_an_error_in_an_imported_helpers_body_is_at_the_call_naming_the_helper_and_its_file(
    tmp_path: Path, capsys
) -> None:
    """The compiler compiling the caller raises it (the helper's code is spliced there), so it
    is the caller's, at the call; it says which helper of which file, and `related` points
    into that file."""
    (tmp_path / "helpers.py").write_text(LEAKY_HELPER)
    (tmp_path / "model.py").write_text(LEAKY_CALLER)
    assert main(["--format", "json", str(tmp_path / "model.py")]) == 1
    (found,) = [
        d for d in json.loads(capsys.readouterr().out)["files"][0]["diagnostics"] if d["code"] == "PTO301"
    ]
    assert found["range"]["start"] == {"line": 6, "character": 4}  # `out = leaky(x, out)`
    assert found["message"].endswith("(in inline helper 'leaky' of helpers.py, spliced at this call)")
    assert found["related"] == [
        {
            "message": "'leaky' is defined here",
            "path": str((tmp_path / "helpers.py").resolve()),
            "range": {"start": {"line": 4, "character": 4}, "end": {"line": 4, "character": 9}},
        }
    ]
    main([str(tmp_path / "model.py")])
    assert (
        f"    {(tmp_path / 'helpers.py').resolve()}:5:5: 'leaky' is defined here" in capsys.readouterr().out
    )


def test_emit_stage_prints_each_program_after_that_stage(capsys) -> None:
    code, out = run(capsys, "--emit", "ssa", "--raw", str(QUICKSTART))
    assert code == 1  # the diagnostics still decide the exit status
    assert (
        f"# {QUICKSTART}: program Quickstart, 02_after_ConvertToSSA.py\n@pl.program\nclass Quickstart:" in out
    )
    assert "__ssa_v" in out  # raw: the IR's own names
    assert "main_incore_0" not in out  # nothing is outlined yet


def test_emit_all_writes_the_compilers_dump_layout_with_a_log_per_stage_that_reported(
    tmp_path, capsys
) -> None:
    code, _ = run(capsys, "--emit-all", str(tmp_path), str(QUICKSTART))
    assert code == 1
    stages = sorted(p.name for p in (tmp_path / "quickstart" / "ReadBack").iterdir())
    assert stages[:2] == ["00_frontend.py", "01_after_UnrollLoops.py"]
    assert "07_after_OutlineClusterScopes.py" in stages
    log = (tmp_path / "quickstart" / "ReadBack" / "06_after_OutlineIncoreScopes.log").read_text()
    assert "error PTO301" in log
    assert (
        "def main_incore_0("
        in (tmp_path / "quickstart" / "ReadBack" / "06_after_OutlineIncoreScopes.py").read_text()
    )


def test_splice_budget_bounds_what_splicing_may_add(tmp_path: Path, capsys) -> None:
    helper = "\n".join(f"    t{i} = pl.add(x, {i}.0)" for i in range(30))
    (tmp_path / "model.py").write_text(
        "import pypto.language as pl\n\n\n@pl.jit.inline\ndef helper(x: pl.Tensor[[64], pl.FP32]):\n"
        f"{helper}\n    return x\n\n\n@pl.jit\ndef entry(x: pl.Tensor[[64], pl.FP32]):\n"
        "    y = helper(x)\n    return y\n",
        encoding="utf-8",
    )
    # the helper's 30 assignments and its return are spliced
    _, out = run(capsys, "--splice-budget", "30", str(tmp_path / "model.py"))
    assert "PTO416" in out and "more than 30 statements" in out
    _, out = run(capsys, "--splice-budget", "31", str(tmp_path / "model.py"))
    assert "PTO416" not in out
    with pytest.raises(SystemExit):
        main(["--splice-budget", "-1", str(tmp_path / "model.py")])


def test_a_tree_splits_each_file_once_whether_checked_or_imported(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The checker analyses a file with the units its module index split for the file's
    importers (or for its own import statements), not with a second split of the same text."""
    root = tmp_path / "ws"
    shutil.copytree(Path(__file__).resolve().parents[1] / "fixtures" / "workspace", root)
    splits: list[str] = []
    original = units_module._split

    def counted(lines: list[str], *args: object) -> object:
        splits.append("\n".join(lines))
        return original(lines, *args)

    monkeypatch.setattr(units_module, "_split", counted)
    _, out = run(capsys, "--format", "json", "--jobs", "1", str(root))
    checked = json.loads(out)["files"]
    assert len(checked) == len(list(root.rglob("*.py"))) > 5
    assert len(splits) == len(set(splits)) == len(checked)
