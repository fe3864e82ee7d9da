#!/usr/bin/env bash
# Every test of reuse-check. `.ci/run` calls this; so can you: `./scripts/test-all.sh`.
# Installs what the tests need (npm packages, Debian packages) idempotently.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

step() { printf '\n=== %s\n' "$*"; }

step "clippy, warnings denied (the fixtures and the macro expansion included)"
cargo clippy --workspace --all-targets -- -D warnings
cargo clippy --workspace --all-targets --all-features -- -D warnings

step "unit, snapshot, compile-fail and fixture tests"
cargo test --workspace
step "the macros alone: with the runtime feature off, the expansion is the function as written"
# (cargo unifies features across a workspace build, and the runtime's tests turn the feature on)
cargo test -p reuse-macros
step "the same with the runtime shim on"
cargo test --workspace --all-features

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

for extra in scripts/validate-sarif.sh vscode-extension/run-tests.sh; do
    if [ -x "$extra" ]; then
        step "$extra"
        "$extra"
    fi
done
step "all tests passed"
