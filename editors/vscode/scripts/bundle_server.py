"""Fill editors/vscode/bundled/libs with the server and its dependencies for one .vsix target.

    python scripts/bundle_server.py --target universal    # pure Python: no libcst, no quick fixes
    python scripts/bundle_server.py --target linux-x64    # plus libcst for CPython 3.10-3.14

Everything comes from PyPI through pip, pinned with hashes (bundled/requirements.txt,
bundled/libcst.txt), and the project itself from this repository (a wheel built here, or the
one given with --wheel or $PYPTO_WHEEL). The libcst wheels of the CPython versions share their Python files,
so they are unpacked into one folder, each adding only its native module, whose file name
names its version; the script fails if the shared files differ. bundled/libs/BUNDLE.json
records what went in. Run with an interpreter that has pip; it never imports the project.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

EXTENSION = Path(__file__).resolve().parent.parent
REPO = EXTENSION.parent.parent
BUNDLED = EXTENSION / "bundled"
LIBS = BUNDLED / "libs"
PYTHONS = ("3.10", "3.11", "3.12", "3.13", "3.14")
# vsce target -> pip platform tags, most compatible first
PLATFORMS = {"linux-x64": ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")}
TARGETS = ("universal", *PLATFORMS)
# Test suites inside libcst's wheel: a quarter of its Python files, never imported.
PRUNED_DIRS = ("tests",)


def pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args], check=True)


def project_wheel(scratch: Path) -> Path:
    """A wheel of this repository's pypto-lsp (pypto_core + pypto_lsp), built in `scratch`."""
    pip("wheel", "--quiet", "--no-deps", "--wheel-dir", str(scratch), str(REPO))
    (wheel,) = scratch.glob("pypto_lsp-*.whl")
    return wheel


def install_pure(wheel: Path) -> None:
    pip(
        "install", "--quiet", "--target", str(LIBS), "--no-deps", "--only-binary=:all:",
        "--require-hashes", "-r", str(BUNDLED / "requirements.txt"),
    )  # fmt: skip
    pip("install", "--quiet", "--target", str(LIBS), "--no-deps", str(wheel))


def download_libcst(platform: str, scratch: Path) -> list[Path]:
    """One libcst wheel per CPython version in PYTHONS, for `platform`."""
    wheels = []
    for version in PYTHONS:
        where = scratch / f"libcst-{version}"
        platform_args = [arg for tag in PLATFORMS[platform] for arg in ("--platform", tag)]
        pip(
            "download", "--quiet", "--no-deps", "--only-binary=:all:", "--implementation", "cp",
            "--python-version", version, *platform_args, "--require-hashes",
            "-r", str(BUNDLED / "libcst.txt"), "--dest", str(where),
        )  # fmt: skip
        (wheel,) = where.glob("libcst-*.whl")
        wheels.append(wheel)
    return wheels


def is_native(name: str) -> bool:
    return name.endswith((".so", ".pyd"))


def unpack_libcst(wheels: list[Path]) -> list[str]:
    """Unpacks the first wheel whole and every other one's native module; returns the native
    module names. The wheels' other files must be byte-identical (RECORD and WHEEL name the
    wheel's own tag and are taken from the first)."""
    reference: dict[str, str] = {}
    natives = []
    for index, wheel in enumerate(wheels):
        with zipfile.ZipFile(wheel) as archive:
            shared = {}
            for name in archive.namelist():
                if is_native(name):
                    archive.extract(name, LIBS)
                    natives.append(Path(name).name)
                elif not name.endswith(("/RECORD", "/WHEEL")):
                    shared[name] = hashlib.sha256(archive.read(name)).hexdigest()
            if index == 0:
                archive.extractall(LIBS, [n for n in archive.namelist() if not is_native(n)])
                reference = shared
            elif shared != reference:
                differ = sorted(set(shared.items()) ^ set(reference.items()))[:5]
                raise SystemExit(
                    f"{wheel.name} differs from {wheels[0].name} beyond its native module: {differ}"
                )
    return natives


def prune() -> None:
    for folder in sorted(LIBS.rglob("*"), reverse=True):
        if folder.is_dir() and (folder.name in PRUNED_DIRS or folder.name == "__pycache__"):
            shutil.rmtree(folder)
    # console scripts written by `pip install --target`, with this machine's interpreter in them
    shutil.rmtree(LIBS / "bin", ignore_errors=True)


def distributions() -> dict[str, str]:
    found = {}
    for info in sorted(LIBS.glob("*.dist-info")):
        name, _, version = info.name.removesuffix(".dist-info").partition("-")
        found[name] = version
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", choices=TARGETS, required=True)
    parser.add_argument(
        "--wheel",
        type=Path,
        default=os.environ.get("PYPTO_WHEEL") or None,
        help="pypto-lsp wheel to bundle (default: $PYPTO_WHEEL, else one built from this repository)",
    )
    args = parser.parse_args()
    shutil.rmtree(LIBS, ignore_errors=True)
    LIBS.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as scratch:
        wheel = args.wheel.resolve() if args.wheel else project_wheel(Path(scratch))
        install_pure(wheel)
        natives = (
            [] if args.target == "universal" else unpack_libcst(download_libcst(args.target, Path(scratch)))
        )
    prune()
    manifest = {
        "target": args.target,
        "pythons": list(PYTHONS),
        "quickFixes": bool(natives),
        "libcstNativeModules": natives,
        "distributions": distributions(),
    }
    (LIBS / "BUNDLE.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    size = sum(f.stat().st_size for f in LIBS.rglob("*") if f.is_file())
    files = sum(1 for f in LIBS.rglob("*") if f.is_file())
    print(f"bundled/libs for {args.target}: {files} files, {size / 1e6:.1f} MB; {manifest['distributions']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
