#!/usr/bin/env bash
# Regenerates the shipped PTX of the CUDA backend from its sources, with NVRTC from PyPI:
#   ./scripts/gen-ptx.sh          runtime/kernels/NAME.cu -> runtime/kernels/NAME.ptx, for every NAME
#   ./scripts/gen-ptx.sh DIR      writes DIR/NAME.ptx instead (the agreement test uses this)
# Needs: pip install nvidia-cuda-nvrtc-cu12==12.4.127 (scripts/test-all.sh installs it). No GPU needed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/runtime/kernels}"
mkdir -p "$out"
for src in "$root"/runtime/kernels/*.cu; do
    name="$(basename "$src" .cu)"
    python3 "$root/scripts/gen_ptx.py" "$src" "$out/$name.ptx"
done
