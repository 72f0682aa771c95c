#!/usr/bin/env bash
# Builds and runs the device-mismatch witness against the LibTorch of the
# installed PyTorch (which must be a CUDA build) on an NVIDIA GPU.
# Usage: runtime/device-mismatch-witness/run.sh [build-dir]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
build="${1:-${TMPDIR:-/tmp}/device-mismatch-witness-build}"
prefix="$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)')"
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$prefix"
cmake --build "$build" -j "$(nproc)"
"$build/device-mismatch-witness"
