#!/usr/bin/env bash
# Real VS Code end-to-end test of the PyPTO extension, offline.
#
# Installs the platform .vsix (PYPTO_E2E_VSIX, else built with `npm run package:linux-x64`) and
# the probe extension in probe/ into code-server (Code-OSS served over HTTP, from npm) with a
# throw-away user-data and extensions dir, opens examples/quickstart.py in a workspace, and
# connects headless Chromium so the workbench and its extension host start. The only Python the
# extension is given is a fresh venv without any package (pypto.server.pythonPath), so the
# server, pygls and libcst all come from the .vsix. The probe asks VS Code's own provider
# commands for diagnostics, code lenses, hover, the PTO301 quick fix and the outlined-program
# document and writes a result file; check-result.js turns that file into PASS/FAIL lines, and
# the extension's log must show the bundled server answering.
#
# Needs: .ci/install-editors.sh apt vscode (chromium, Node 24 + code-server in .e2e/cache) and,
# to build the .vsix, an interpreter with pip (PYPTO_PYTHON, default <repo>/.venv/bin/python).
# Environment: PYPTO_E2E_VSIX, PYPTO_E2E_TIMEOUT_S (default 180), PYPTO_E2E_KEEP=1 keeps the temp dir.
#
# Real-project tour: PYPTO_E2E_PROJECT=<folder> PYPTO_E2E_SAMPLE_SRC=<a .py file in it>
# PYPTO_E2E_SHOTS=<dir> copies the folder as the workspace, opens that file, and only tours and
# photographs what a user sees on it (no checks; see README.md). Exit 0 when the tour ran.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
EXT="$(cd "$HERE/../.." && pwd)"
REPO="$(cd "$EXT/../.." && pwd)"
CACHE="${PYPTO_E2E_CACHE:-$REPO/.e2e/cache}"
NODE24="$CACHE/node24/bin/node"
CODE_SERVER="$CACHE/code-server/out/node/entry.js"
PYTHON="${PYPTO_PYTHON:-$REPO/.venv/bin/python}"
VSIX="${PYPTO_E2E_VSIX:-}"
SAMPLE="${PYPTO_E2E_SAMPLE_SRC:-$REPO/examples/quickstart.py}"
TIMEOUT_S="${PYPTO_E2E_TIMEOUT_S:-180}"
CHROMIUM="$(command -v chromium || command -v chromium-browser || true)"

fail() {
  echo "e2e: FAIL: $*" >&2
  exit 1
}

[ -x "$NODE24" ] || fail "Node 24 not found at $NODE24: run .ci/install-editors.sh vscode"
[ -f "$CODE_SERVER" ] || fail "code-server not found at $CODE_SERVER: run .ci/install-editors.sh vscode"
[ -n "$CHROMIUM" ] || fail "chromium not found: install the Debian package chromium (.ci/install-editors.sh apt)"
[ -x "$PYTHON" ] || fail "no Python at $PYTHON (set PYPTO_PYTHON)"
[ -f "$SAMPLE" ] || fail "sample $SAMPLE is missing"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/pypto-e2e.XXXXXX")"
CS_PID=""
CHROME_PID=""
SHOOT_PID=""
VERDICT=1

# Ends a process group this script started (setsid makes each child a group leader).
stop_group() {
  local pid="$1"
  [ -n "$pid" ] || return 0
  kill -TERM -- "-$pid" 2>/dev/null || return 0
  for _ in $(seq 1 50); do
    kill -0 -- "-$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL -- "-$pid" 2>/dev/null || true
}

cleanup() {
  stop_group "$SHOOT_PID"
  stop_group "$CHROME_PID"
  stop_group "$CS_PID"
  if [ "$VERDICT" -eq 0 ] && [ "${PYPTO_E2E_KEEP:-0}" != 1 ]; then
    rm -rf "$WORK"
  else
    echo "e2e: logs and profile kept in $WORK" >&2
  fi
}
trap cleanup EXIT

# The PyPTO output channel (the cause of a start failure is near its top, later trouble near its end).
show_extension_log() {
  local log
  for log in "$WORK"/user-data/logs/*/exthost*/pypto.pypto-lsp/*.log; do
    [ -f "$log" ] || continue
    echo "--- $log" >&2
    if [ "$(wc -l <"$log")" -le 80 ]; then
      cat "$log" >&2
    else
      head -40 "$log" >&2
      echo "[...]" >&2
      tail -40 "$log" >&2
    fi
  done
  return 0
}

seconds_since() { echo "$(($(date +%s%N) / 1000000 - $1))" | awk '{printf "%.1f", $1 / 1000}'; }
now_ms() { echo "$(($(date +%s%N) / 1000000))"; }
T_START="$(now_ms)"

# 1. the real extension (built unless given) and the probe
T0="$(now_ms)"
if [ -z "$VSIX" ]; then
  (
    cd "$EXT"
    [ -d node_modules ] || npm ci --no-audit --no-fund
    PYPTO_PYTHON="$PYTHON" npm run package:linux-x64
  ) >"$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log" >&2; fail "building the extension .vsix failed"; }
  VSIX="$EXT/pypto-lsp-linux-x64.vsix"
fi
[ -f "$VSIX" ] || fail "no .vsix at $VSIX"
cp "$VSIX" "$WORK/pypto-lsp.vsix"
(
  cd "$HERE/probe"
  "$EXT/node_modules/.bin/vsce" package --no-dependencies --skip-license --allow-missing-repository \
    --out "$WORK/probe.vsix"
) >>"$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log" >&2; fail "building the probe .vsix failed"; }
BUILD_S="$(seconds_since "$T0")"

# 2. a bare interpreter, and a fresh profile with both extensions and settings that point at it
T0="$(now_ms)"
BASE_PYTHON="$("$PYTHON" -c 'import sys; print(getattr(sys, "_base_executable", sys.executable))')"
"$BASE_PYTHON" -m venv --without-pip "$WORK/bare" || fail "could not make a bare venv with $BASE_PYTHON"
BARE="$WORK/bare/bin/python"
"$BARE" -c 'import importlib.util as u, sys; sys.exit(any(u.find_spec(n) for n in ("pygls", "lsprotocol", "libcst", "pypto_lsp")))' ||
  fail "$BARE can import the server's dependencies by itself: the test would prove nothing"
code_server() {
  "$NODE24" "$CODE_SERVER" --user-data-dir "$WORK/user-data" --extensions-dir "$WORK/extensions" "$@"
}
for vsix in "$WORK/pypto-lsp.vsix" "$WORK/probe.vsix"; do
  code_server --install-extension "$vsix" >>"$WORK/install.log" 2>&1 ||
    { cat "$WORK/install.log" >&2; fail "code-server could not install $vsix"; }
done
mkdir -p "$WORK/user-data/User" "$WORK/user-data/Machine" "$WORK/workspace"
PROJECT="${PYPTO_E2E_PROJECT:-}"
if [ -n "$PROJECT" ]; then
  [ -n "${PYPTO_E2E_SHOTS:-}" ] || fail "PYPTO_E2E_PROJECT needs PYPTO_E2E_SHOTS (the tour only takes screenshots)"
  PROJECT="$(cd "$PROJECT" && pwd)"
  SAMPLE="$(cd "$(dirname "$SAMPLE")" && pwd)/$(basename "$SAMPLE")"
  case "$SAMPLE" in "$PROJECT"/*) ;; *) fail "$SAMPLE is not inside $PROJECT" ;; esac
  cp -r "$PROJECT/." "$WORK/workspace/"
  OPENED="$WORK/workspace/${SAMPLE#"$PROJECT"/}"
else
  cp "$SAMPLE" "$WORK/workspace/quickstart.py"
  OPENED="$WORK/workspace/quickstart.py"
fi
# code-server windows are remote windows: VS Code ignores machine-scoped settings (such as
# pypto.server.pythonPath) in User settings there and reads them from Machine/settings.json.
"$NODE24" -e '
  const fs = require("fs");
  const [userData, python] = process.argv.slice(1);
  const write = (file, settings) => fs.writeFileSync(`${userData}/${file}`, JSON.stringify(settings, null, 1));
  write("User/settings.json", {
    "security.workspace.trust.enabled": false,
    "workbench.startupEditor": "none",
    "telemetry.telemetryLevel": "off",
    "extensions.autoCheckUpdates": false,
    "extensions.autoUpdate": false,
  });
  write("Machine/settings.json", { "pypto.server.pythonPath": python });
' "$WORK/user-data" "$BARE"
INSTALL_S="$(seconds_since "$T0")"

# 3. run: code-server, then a headless browser to bring up the workbench and extension host
T0="$(now_ms)"
PORT="$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
RESULT="$WORK/result.json"
PYPTO_E2E_RESULT="$RESULT" PYPTO_E2E_SAMPLE="$OPENED" PYPTO_E2E_SHOTS="${PYPTO_E2E_SHOTS:-}" \
  PYPTO_E2E_TOUR="${PROJECT:+1}" \
  setsid "$NODE24" "$CODE_SERVER" --auth none --bind-addr "127.0.0.1:$PORT" \
  --disable-telemetry --disable-update-check --disable-workspace-trust \
  --user-data-dir "$WORK/user-data" --extensions-dir "$WORK/extensions" \
  "$WORK/workspace" >"$WORK/code-server.log" 2>&1 &
CS_PID=$!
for _ in $(seq 1 150); do
  curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" && break
  kill -0 "$CS_PID" 2>/dev/null || { tail -40 "$WORK/code-server.log" >&2; fail "code-server exited at start"; }
  sleep 0.2
done
curl -sf -o /dev/null "http://127.0.0.1:$PORT/healthz" || fail "code-server did not answer on port $PORT"

# PYPTO_E2E_SHOTS=<dir>: the probe also tours lenses, hovers and the outlined program, and
# shoot.js captures each step through Chromium's DevTools port into <dir>/*.png.
SHOTS_ARGS=()
if [ -n "${PYPTO_E2E_SHOTS:-}" ]; then
  mkdir -p "$PYPTO_E2E_SHOTS"
  rm -f "$PYPTO_E2E_SHOTS"/*.ready "$PYPTO_E2E_SHOTS"/*.png "$PYPTO_E2E_SHOTS"/done
  CDP_PORT="$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  SHOTS_ARGS=(--remote-debugging-port="$CDP_PORT")
fi
setsid "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run --disable-dev-shm-usage \
  --user-data-dir="$WORK/chromium" --window-size=1400,900 "${SHOTS_ARGS[@]}" \
  "http://127.0.0.1:$PORT/?folder=$WORK/workspace" >"$WORK/chromium.log" 2>&1 &
CHROME_PID=$!
if [ -n "${PYPTO_E2E_SHOTS:-}" ]; then
  setsid "$NODE24" "$HERE/shoot.js" "$CDP_PORT" "$PYPTO_E2E_SHOTS" >"$WORK/shoot.log" 2>&1 &
  SHOOT_PID=$!
fi

DEADLINE=$((SECONDS + TIMEOUT_S))
while [ ! -s "$RESULT" ] && [ "$SECONDS" -lt "$DEADLINE" ]; do
  kill -0 "$CS_PID" 2>/dev/null || break
  kill -0 "$CHROME_PID" 2>/dev/null || break
  sleep 0.2
done
RUN_S="$(seconds_since "$T0")"

if [ ! -s "$RESULT" ]; then
  echo "--- code-server.log (tail)" >&2
  tail -30 "$WORK/code-server.log" >&2
  show_extension_log
  kill -0 "$CS_PID" 2>/dev/null || fail "code-server died before the probe reported"
  kill -0 "$CHROME_PID" 2>/dev/null || fail "chromium died before the probe reported (see $WORK/chromium.log)"
  fail "the probe wrote no result within ${TIMEOUT_S}s"
fi

if [ -n "$PROJECT" ]; then
  cat "$RESULT"
  echo "e2e: project tour of $OPENED, screenshots in $PYPTO_E2E_SHOTS, editor run ${RUN_S}s"
  grep -q '"error"' "$RESULT" && exit 1
  exit 0
fi
set +e
"$NODE24" "$HERE/check-result.js" "$RESULT"
VERDICT=$?
set -e
# the extension's log: the bundled server, run by the bare venv, loaded from the installed .vsix
EXT_LOG="$(ls "$WORK"/user-data/logs/*/exthost*/pypto.pypto-lsp/*.log 2>/dev/null | head -1)"
STARTED="the bundled server, run by $BARE"
LOADED="pypto-lsp [^ ]* from $WORK/extensions/pypto.pypto-lsp-[^/]*/bundled/libs/pypto_lsp, Python [^ ]* ($BARE), libcst"
if [ -n "$EXT_LOG" ] && grep -q "$STARTED" "$EXT_LOG" && grep -q "$LOADED" "$EXT_LOG"; then
  echo "PASS bundledServer: $(grep -o "pypto-lsp [^ ]* from .*" "$EXT_LOG" | head -1)"
else
  echo "FAIL bundledServer: no '$STARTED' and '$LOADED' in the extension log ${EXT_LOG:-(none)}"
  VERDICT=1
fi
echo "e2e: build ${BUILD_S}s, profile+install ${INSTALL_S}s, editor run ${RUN_S}s, total $(seconds_since "$T_START")s"
if [ "$VERDICT" -eq 0 ]; then
  echo "e2e: PASS"
else
  show_extension_log
  echo "e2e: FAIL" >&2
fi
exit "$VERDICT"
