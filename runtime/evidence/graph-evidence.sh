#!/usr/bin/env bash
# The evidence for xfer-launch-bound-loop, in one run on a machine with a
# CUDA GPU: xfer-bench's graph patterns (CUDA and LibTorch), the seed graph
# example eager against replayed, and the purpose-written loop of
# testdata/examples/launch_bound_loop.cu eager against replayed.
#
#   runtime/evidence/graph-evidence.sh      # from the repository root
#
# Results go to $OUT when it is set, else to ./graph-evidence-out:
#   graph-costs.json   the cost model of the graph patterns
#   launch-bound.txt   launch_bound_measure, 3 runs at each size
#   log                everything printed, builds included

set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT_DIR=${OUT:-$PWD/graph-evidence-out}
BUILD_DIR=${XFER_BENCH_BUILD_DIR:-$ROOT/build-bench}
mkdir -p "$OUT_DIR" "$BUILD_DIR"

step() { printf '\n=== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }

main() {
  local status=0
  step "environment"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv || true
  nvcc --version | tail -2 || true
  local torch_prefix
  torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null || true)
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>/dev/null || echo "no torch"

  step "build launch_bound_measure"
  nvcc -O2 -std=c++17 -arch=sm_90 -o "$BUILD_DIR/launch_bound_measure" \
    "$ROOT/runtime/evidence/launch_bound_measure.cu" || status=1

  step "build xfer-bench"
  cmake -G Ninja -S "$ROOT/runtime" -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DXFER_BENCH_WITH_TORCH=ON ${torch_prefix:+-DCMAKE_PREFIX_PATH="$torch_prefix"} &&
    cmake --build "$BUILD_DIR" -j "$(nproc)" || { echo "!!! build failed"; status=1; }

  step "launch_bound_measure: 16 axpy launches per iteration"
  if [[ -x $BUILD_DIR/launch_bound_measure ]]; then
    for n in 4096 65536; do
      for run in 1 2 3; do
        "$BUILD_DIR/launch_bound_measure" "$n" || status=1
      done
    done | tee "$OUT_DIR/launch-bound.txt"
  fi

  step "xfer-bench: graph patterns and the seed graph example"
  if [[ -x $BUILD_DIR/xfer-bench ]]; then
    # Relative output path: the model's command line names no directory of
    # this machine.
    (cd "$OUT_DIR" && timeout 300 "$BUILD_DIR/xfer-bench" \
      --output graph-costs.json --only 'cuda.graph.*' --only 'torch.graph.*' \
      --only 'torch.graph_example.*' --only 'fidelity.seed_graph_example.*') ||
      { echo "!!! xfer-bench exited with $?"; status=1; }
  fi
  nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv || true
  step "done (status $status)"
  return $status
}

main 2>&1 | tee "$OUT_DIR/log"
exit "${PIPESTATUS[0]}"
