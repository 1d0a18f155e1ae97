#!/usr/bin/env bash
# Build the Python package (wheel + sdist, `python -m build`) and check that what the READMEs
# tell users to run works: the wheel installs into a fresh venv (its dependencies from PyPI),
# `pypto-lsp --version` answers, and `pypto-check` finds the PTO301 in examples/quickstart.py.
#
#   .ci/check-python-package.sh [python]    # python with `build` installed (default .venv/bin/python)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${1:-$ROOT/.venv/bin/python}"
DIST="$ROOT/dist"
SCRATCH="$(mktemp -d "${TMPDIR:-/tmp}/pypto-wheel.XXXXXX")"
trap 'rm -rf "$SCRATCH"' EXIT
rm -rf "$DIST"
"$PYTHON" -m build --outdir "$DIST" "$ROOT" >"$SCRATCH/build.log" 2>&1 || { tail -30 "$SCRATCH/build.log"; exit 1; }
WHEEL="$(ls "$DIST"/pypto_lsp-*-py3-none-any.whl)"
SDIST="$(ls "$DIST"/pypto_lsp-*.tar.gz)"
MEMBERS="$(tar tzf "$SDIST")"
for member in pyproject.toml pypto_core/analysis.py pypto_lsp/server.py; do
  grep -qx "pypto_lsp-[^/]*/$member" <<<"$MEMBERS" || { echo "sdist lacks $member"; exit 1; }
done
VENV="$SCRATCH/venv"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check "$WHEEL"
"$VENV/bin/pypto-lsp" --version
set +e
OUT="$(cd "$ROOT" && "$VENV/bin/pypto-check" examples/quickstart.py)"
STATUS=$?
set -e
echo "$OUT" | grep -q PTO301 && [ "$STATUS" -eq 1 ] ||
  { echo "pypto-check from the wheel: exit $STATUS, output: $OUT"; exit 1; }
echo "python package: $(basename "$WHEEL") $(du -k "$WHEEL" | cut -f1) KB, $(basename "$SDIST") $(du -k "$SDIST" | cut -f1) KB; the wheel installs and runs"
