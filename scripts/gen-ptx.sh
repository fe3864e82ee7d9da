#!/usr/bin/env bash
# Regenerates the shipped PTX of the CUDA backend from its source, with NVRTC from PyPI:
#   ./scripts/gen-ptx.sh            writes runtime/kernels/reuse_kernels.ptx
#   ./scripts/gen-ptx.sh OUT.ptx    writes OUT.ptx instead (the agreement test uses this)
# Needs: pip install nvidia-cuda-nvrtc-cu12==12.4.127 (scripts/test-all.sh installs it). No GPU needed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/runtime/kernels/reuse_kernels.ptx}"
exec python3 "$root/scripts/gen_ptx.py" "$root/runtime/kernels/reuse_kernels.cu" "$out"
