#!/usr/bin/env bash
# The evidence for xfer-launch-bound-loop, in one run on a machine with a
# CUDA GPU: xfer-bench's graph patterns (CUDA and LibTorch), then, on the
# same machine and in the same run, what the check predicts from them
# against what capturing saves in
#  - the purpose-written loop of testdata/examples/launch_bound_loop.cu
#    (launch_bound_measure), and
#  - the seed graph example (seed_graph_measure: eager steps and replays
#    interleaved over 30 rounds, paired savings, medians with p10-p90, the
#    host time of each part of the step, the torch.graph.* patterns measured
#    again in every round so that prediction and saving see the same host,
#    CPU probes, steal time, and a CUPTI census of the kernels and CUDA
#    calls one step makes; seed_graph_census.py cross-checks the census
#    with torch.profiler at the operator level).
#
#   runtime/evidence/graph-evidence.sh      # from the repository root
#
# Results go to $OUT when it is set, else to ./graph-evidence-out:
#   graph-costs.json   the cost model of the graph patterns (this run)
#   launch-bound.txt   launch_bound_measure, 3 runs at each size
#   seed-graph.txt     seed_graph_measure and seed_graph_census.py
#   prediction.txt     graph_prediction.py: predicted against measured
#   log                everything printed, builds included
# runtime/evidence/seed-graph-conditions.sh, run after this script, repeats
# the seed measurement under other CPU conditions.

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
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "intra-op threads", torch.get_num_threads())' 2>/dev/null || echo "no torch"
  uname -r
  echo "cpus: $(nproc) online to this process; OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}"
  grep -m1 'model name' /proc/cpuinfo || true
  grep 'cpu MHz' /proc/cpuinfo | sort | uniq -c | head -4 || true
  cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null || echo "no cpufreq governor visible"
  cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo "no cpuidle driver visible"

  step "build launch_bound_measure"
  nvcc -O2 -std=c++17 -arch=sm_90 -o "$BUILD_DIR/launch_bound_measure" \
    "$ROOT/runtime/evidence/launch_bound_measure.cu" || status=1

  step "build xfer-bench and seed_graph_measure (side by side)"
  (cmake -G Ninja -S "$ROOT/runtime" -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DXFER_BENCH_WITH_TORCH=ON ${torch_prefix:+-DCMAKE_PREFIX_PATH="$torch_prefix"} &&
    cmake --build "$BUILD_DIR" -j "$(nproc)") > "$BUILD_DIR/bench-build.log" 2>&1 &
  local bench_build=$!
  (cmake -G Ninja -S "$ROOT/runtime/evidence" -B "$BUILD_DIR/evidence" \
    -DCMAKE_BUILD_TYPE=Release ${torch_prefix:+-DCMAKE_PREFIX_PATH="$torch_prefix"} &&
    cmake --build "$BUILD_DIR/evidence" -j "$(nproc)") > "$BUILD_DIR/evidence-build.log" 2>&1 &
  local evidence_build=$!
  wait "$bench_build" || { echo "!!! xfer-bench build failed"; status=1; }
  tail -5 "$BUILD_DIR/bench-build.log"
  wait "$evidence_build" || { echo "!!! seed_graph_measure build failed"; status=1; }
  tail -5 "$BUILD_DIR/evidence-build.log"
  [[ $status == 0 ]] || tail -40 "$BUILD_DIR/bench-build.log" "$BUILD_DIR/evidence-build.log"

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

  step "seed graph example: eager against replayed, interleaved, with a census"
  if [[ -x $BUILD_DIR/evidence/seed_graph_measure ]]; then
    timeout 180 "$BUILD_DIR/evidence/seed_graph_measure" --rounds 30 --steps 200 \
      --census --label same-run > "$OUT_DIR/seed-graph.txt" 2>&1 ||
      { echo "!!! seed_graph_measure exited with $?"; status=1; }
    cat "$OUT_DIR/seed-graph.txt"
  fi
  step "seed graph example: torch.profiler census (Python, same step)"
  timeout 120 python3 "$ROOT/runtime/evidence/seed_graph_census.py" 2>&1 |
    tee -a "$OUT_DIR/seed-graph.txt" || echo "!!! seed_graph_census.py failed"

  step "predicted (this run's cost model) against measured"
  if [[ -f $OUT_DIR/graph-costs.json ]]; then
    python3 "$ROOT/runtime/evidence/graph_prediction.py" "$OUT_DIR/graph-costs.json" \
      --seed "$OUT_DIR/seed-graph.txt" --launch-bound "$OUT_DIR/launch-bound.txt" |
      tee "$OUT_DIR/prediction.txt" || status=1
  fi
  nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv || true
  step "done (status $status)"
  return $status
}

main 2>&1 | tee "$OUT_DIR/log"
exit "${PIPESTATUS[0]}"
