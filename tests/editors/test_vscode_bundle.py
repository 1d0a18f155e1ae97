"""The server bundle of the VS Code extension: its pins, their completeness, its launcher.

The .vsix carries the server's dependencies pinned in editors/vscode/bundled/*.txt; these
tests keep the pins inside what pyproject.toml allows, make sure nothing a dependency needs
on Python 3.10-3.14 is missing from them, and that the launcher puts the bundle first.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, requires
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[2]
BUNDLED = REPO / "editors" / "vscode" / "bundled"
PYTHONS = ("3.10", "3.11", "3.12", "3.13", "3.14")
# libcst's YAML dependency serves only libcst.tool, its codemod command line (see libcst.txt)
NOT_BUNDLED = {"pyyaml", "pyyaml-ft"}


def pins() -> dict[str, str]:
    found = {}
    for name in ("requirements.txt", "libcst.txt"):
        for line in (BUNDLED / name).read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                spec = line.split(" --hash")[0]
                assert "--hash=sha256:" in line, f"{spec} is pinned without a hash"
                package, _, version = spec.partition("==")
                found[canonicalize_name(package)] = version
    return found


def project_requirements() -> list[Requirement]:
    """pyproject.toml's dependencies, as the installed project's metadata has them."""
    return [Requirement(spec) for spec in requires("pypto-lsp") or [] if "extra ==" not in spec]


def test_every_dependency_of_the_project_is_pinned_within_its_range() -> None:
    pinned = pins()
    for requirement in project_requirements():
        name = canonicalize_name(requirement.name)
        assert name in pinned, f"{name} is not bundled"
        assert requirement.specifier.contains(pinned[name]), (
            f"{name}=={pinned[name]} is outside {requirement}"
        )


def test_what_the_dependencies_need_on_every_supported_python_is_bundled() -> None:
    """The closure of the project's dependencies over their metadata (as installed here),
    with markers evaluated for each Python version the packages support. A dependency not
    installed here (exceptiongroup, for Python 3.10 only) must be pinned; its own
    dependencies are not followed."""
    pinned = set(pins())
    needed: set[str] = set()
    todo = [r.name for r in project_requirements()]
    while todo:
        name = canonicalize_name(todo.pop())
        if name in needed or name in NOT_BUNDLED:
            continue
        needed.add(name)
        try:
            specs = requires(name) or []
        except PackageNotFoundError:
            continue
        for spec in specs:
            requirement = Requirement(spec)
            applies = requirement.marker is None or any(
                requirement.marker.evaluate({"python_version": version, "extra": ""}) for version in PYTHONS
            )
            if applies:
                todo.append(requirement.name)
    assert needed - pinned == set()
    assert {"exceptiongroup", "typing-extensions", "attrs", "cattrs"} <= needed  # the walk saw them


def test_the_launcher_puts_the_bundle_before_an_installed_server(tmp_path: Path) -> None:
    """The venv running the tests has pypto_lsp installed; the bundle's copy must win."""
    tool = tmp_path / "bundled" / "tool"
    package = tmp_path / "bundled" / "libs" / "pypto_lsp"
    tool.mkdir(parents=True)
    package.mkdir(parents=True)
    shutil.copy(BUNDLED / "tool" / "launch.py", tool)
    (package / "__init__.py").write_text("")
    (package / "__main__.py").write_text(
        "import sys\ndef main(argv):\n    print(__file__, argv, sys.path[0])\n    return 7\n"
    )
    run = subprocess.run(
        [sys.executable, str(tool / "launch.py"), "--stdio"], capture_output=True, text=True, cwd=tmp_path
    )
    assert run.returncode == 7
    assert run.stdout.split() == [str(package / "__main__.py"), "['--stdio']", str(package.parent)]


def test_the_launcher_says_when_the_bundle_is_missing(tmp_path: Path) -> None:
    (tmp_path / "bundled" / "tool").mkdir(parents=True)
    shutil.copy(BUNDLED / "tool" / "launch.py", tmp_path / "bundled" / "tool")
    run = subprocess.run(
        [sys.executable, str(tmp_path / "bundled" / "tool" / "launch.py")], capture_output=True, text=True
    )
    assert run.returncode == 2
    assert "the bundled server is missing" in run.stderr and run.stdout == ""
