#!/usr/bin/env bash
# The CUDA backend on a machine with an NVIDIA GPU: builds and runs every GPU test and the
# benchmark, and writes the results to OUTDIR. Budget: 8 minutes on one GPU, the build included.
#
#   ./scripts/gpu-check.sh OUTDIR
#
# OUTDIR/summary.txt     one line per step, PASS or FAIL, and the benchmark's numbers
# OUTDIR/gpu-tests.log   the CUDA tests (runtime/tests/cuda.rs): on a GPU none of the gpu_* tests may
#                        say "skipped"; the findings of the fixture workload ported to device buffers
#                        must equal the CPU backend's (gpu_findings_agree_with_the_cpu_backend...)
# OUTDIR/runtime-tests.log  the runtime's other tests with the feature on (the CPU path unchanged)
# OUTDIR/bench.txt, bench.json  fingerprint throughput vs the device's dtod copy bandwidth (same
#                        run); checked vs unchecked paged-KV writes, with and without the null-block guard
#
# Needs cargo and the crates of Cargo.lock; no NVRTC (the kernels ship as PTX). A GPU machine that
# cannot reach crates.io builds offline from `target/gpu-vendor.tar.gz`, which
#   ./scripts/gpu-check.sh --pack
# makes on a machine that can (`cargo vendor`, about 20 MB): carry that one file along.
# A GPU machine without cargo runs binaries built elsewhere (x86-64, glibc no newer than its own):
#   ./scripts/gpu-check.sh --bundle DIR     # here: the test and bench binaries, stripped (~16 MB)
#   ./scripts/gpu-check.sh --prebuilt DIR OUTDIR   # there, in a copy of the same commit
set -uo pipefail
cd "$(dirname "$0")/.."
pack="target/gpu-vendor.tar.gz"
if [ "${1:-}" = "--pack" ]; then
    tmp="$(mktemp -d)"
    cargo vendor --versioned-dirs --locked "$tmp/gpu-vendor" > /dev/null && mkdir -p target \
        && tar czf "$pack" -C "$tmp" gpu-vendor && rm -rf "$tmp" && ls -la "$pack"
    exit $?
fi
if [ "${1:-}" = "--bundle" ]; then
    dir="${2:?usage: scripts/gpu-check.sh --bundle DIR}"
    mkdir -p "$dir" || exit 1
    # cargo names each executable it built (or found fresh): the kind and target name say which.
    { cargo test --release -p reuse-runtime --features cuda --no-run --message-format=json \
        && cargo bench -p reuse-runtime --features cuda --bench cuda --no-run --message-format=json; } \
        | python3 -c '
import json, shutil, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        shutil.copy(m["executable"], sys.argv[1] + "/" + m["target"]["kind"][0] + "-" + m["target"]["name"])
' "$dir" || exit 1
    strip "$dir"/* && ls "$dir"
    exit $?
fi
prebuilt=""
if [ "${1:-}" = "--prebuilt" ]; then
    prebuilt="$(cd "${2:?usage: scripts/gpu-check.sh --prebuilt DIR OUTDIR}" && pwd)" || exit 1
    shift 2
fi
out="${1:?usage: scripts/gpu-check.sh OUTDIR | --pack | --bundle DIR | --prebuilt DIR OUTDIR}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
export CARGO_TERM_COLOR=never
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
flags=(-p reuse-runtime --features cuda)
if [ -f "$pack" ]; then
    rm -rf target/gpu-vendor && tar xzf "$pack" -C target
    flags+=(--offline --config 'source.crates-io.replace-with="vendored-sources"'
            --config "source.vendored-sources.directory=\"$PWD/target/gpu-vendor\"")
fi
summary="$out/summary.txt"
: > "$summary"
failed=0
started=$(date +%s)
note() { echo "$*" | tee -a "$summary"; }
step() { # step NAME LOG TIMEOUT_S COMMAND...
    local name="$1" log="$2" limit="$3"; shift 3
    local t0=$(date +%s)
    # A function of this script (the runs below) applies the limit to each command it runs.
    if declare -F "$1" > /dev/null; then STEP_LIMIT="$limit" "$@" > "$log" 2>&1; else timeout "$limit" "$@" > "$log" 2>&1; fi
    local rc=$?
    local dt=$(( $(date +%s) - t0 ))
    if [ $rc -eq 0 ]; then note "PASS $name (${dt}s)"; else note "FAIL $name (exit $rc after ${dt}s, see $(basename "$log"))"; failed=1; fi
    return $rc
}

# The three runs, from cargo or from the bundle's binaries (run where cargo runs them: in the
# package's directory, which the tests read from CARGO_MANIFEST_DIR).
runtime_tests() {
    [ -z "$prebuilt" ] && { timeout "$STEP_LIMIT" cargo test --release "${flags[@]}" "$@"; return; }
    local rc=0 bin
    if [ "${1:-}" = "--test" ]; then
        (cd runtime && CARGO_MANIFEST_DIR="$PWD" timeout "$STEP_LIMIT" "$prebuilt/test-$2" "${@:4}"); return
    fi
    shift
    for bin in "$prebuilt"/test-* "$prebuilt"/lib-*; do
        (cd runtime && CARGO_MANIFEST_DIR="$PWD" timeout "$STEP_LIMIT" "$bin" "$@") || rc=1
    done
    return $rc
}
bench() {
    if [ -z "$prebuilt" ]; then timeout "$STEP_LIMIT" cargo bench "${flags[@]}" --bench cuda -- "$out"
    else timeout "$STEP_LIMIT" "$prebuilt/bench-cuda" "$out"; fi
}

{ nvidia-smi || echo "nvidia-smi not found"; } > "$out/nvidia-smi.txt" 2>&1
if [ -z "$prebuilt" ]; then
    command -v cargo > /dev/null || { note "FAIL cargo is not installed (see --bundle)"; exit 1; }
    step "build (release, feature cuda)" "$out/build.log" 330 \
        cargo test --release "${flags[@]}" --no-run || { note "the build failed: nothing else runs"; exit 1; }
    cargo bench "${flags[@]}" --bench cuda --no-run >> "$out/build.log" 2>&1 || { note "FAIL bench build"; exit 1; }
fi

step "CUDA tests" "$out/gpu-tests.log" 120 \
    runtime_tests --test cuda -- --test-threads=1 --nocapture
if grep -E '^test gpu_[a-z0-9_]+ \.\.\. skipped' "$out/gpu-tests.log" > "$out/skipped.txt"; then
    note "FAIL GPU tests skipped on a GPU machine:"; cat "$out/skipped.txt" | tee -a "$summary"; failed=1
else
    note "PASS no gpu_* test skipped ($(grep -cE '^test gpu_' "$out/gpu-tests.log") ran)"
fi
grep -oE '(dummy_run|execute|execute_with_fallback|write_padded|clear_blocks \(buggy\)): .*' "$out/gpu-tests.log" \
    | sed 's/^/  same findings as the CPU backend: /' | tee -a "$summary"

step "runtime tests, feature on" "$out/runtime-tests.log" 120 \
    runtime_tests -- --test-threads=4

step "benchmark" "$out/bench.log" 150 bench
if grep -q '^skipped' "$out/bench.log"; then note "FAIL the benchmark found no device: $(grep -m1 "^skipped" "$out/bench.log")"; failed=1; fi
[ -f "$out/bench.txt" ] && sed 's/^/  /' "$out/bench.txt" | tee -a "$summary"

note "total $(( $(date +%s) - started ))s"
if [ $failed -ne 0 ]; then note "gpu-check: FAILED"; exit 1; fi
note "gpu-check: all passed"
