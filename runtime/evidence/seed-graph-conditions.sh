#!/usr/bin/env bash
# The seed graph example's eager step and saving under other CPU conditions,
# on the machine graph-evidence.sh has just run on (its builds are reused).
# Under each of
#   default      nothing changed (a second process, minutes later)
#   one-core     taskset -c 0: the main thread, the autograd engine's device
#                thread and the CUDA driver's threads share one core
#   busy         every other core kept busy by a nice-19 spinner, so that no
#                core idles (no thread waits for an idle core to wake up)
# xfer-bench measures the graph patterns and seed_graph_measure the seed
# example, one after the other, and graph_prediction.py sets the prediction
# from that condition's patterns against that condition's measurement.
# Then, with the default patterns only:
#   threads-1    at::set_num_threads(1) and OMP_NUM_THREADS=1 (LibTorch's
#                CPU intra-op threads)
#   two-cores    taskset -c 0,1
#
#   runtime/evidence/seed-graph-conditions.sh   # after graph-evidence.sh
#
# Results go to $OUT when it is set, else to ./graph-evidence-out:
#   conditions.txt            everything printed
#   graph-costs-1core.json    the graph patterns under taskset -c 0
# (the other conditions' cost models stay in the build folder).

set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT_DIR=${OUT:-$PWD/graph-evidence-out}
BUILD_DIR=${XFER_BENCH_BUILD_DIR:-$ROOT/build-bench}
MEASURE=$BUILD_DIR/evidence/seed_graph_measure
ROUNDS=${SEED_ROUNDS:-20}
mkdir -p "$OUT_DIR"

step() { printf '\n=== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }

SPINNERS=()
start_spinners() {
  local n
  for ((n = 1; n < $(nproc); ++n)); do
    nice -n 19 bash -c 'while :; do :; done' &
    SPINNERS+=($!)
  done
}
stop_spinners() {
  local pid
  for pid in "${SPINNERS[@]}"; do
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  SPINNERS=()
}
trap stop_spinners EXIT

measure() { # label, then the command's prefix; $EXTRA_ARGS: more arguments
  local label=$1
  shift
  step "seed graph example: $label"
  # shellcheck disable=SC2086
  timeout 120 "$@" "$MEASURE" --rounds "$ROUNDS" --steps 200 --label "$label" \
    ${EXTRA_ARGS:-} > "$BUILD_DIR/seed-$label.txt" 2>&1 ||
    echo "!!! $label: seed_graph_measure exited with $?"
  grep -v '^  \(kernel\|runtime\|driver\) ' "$BUILD_DIR/seed-$label.txt"
}

bench() { # model file, then the command's prefix
  local model=$1
  shift
  step "xfer-bench graph patterns: ${model##*/}"
  (cd "$(dirname "$model")" && timeout 120 "$@" "$BUILD_DIR/xfer-bench" \
    --output "$(basename "$model")" --only 'cuda.graph.*' --only 'torch.graph.*') |
    grep -E '^  (cuda|torch)\.graph\.(eager|replay)_per|^  torch\.graph\.autograd' ||
    echo "!!! xfer-bench under '$*' failed"
}

predict() { # model file, measurement file
  python3 "$ROOT/runtime/evidence/graph_prediction.py" "$1" --seed "$2" |
    grep -E '^(cost model|  saving|PREDICTED|COMPARE|INROUND)'
}

main() {
  [[ -x $MEASURE ]] || { echo "no $MEASURE: run graph-evidence.sh first"; return 1; }

  bench "$BUILD_DIR/costs-default.json"
  measure default
  predict "$BUILD_DIR/costs-default.json" "$BUILD_DIR/seed-default.txt"

  bench "$OUT_DIR/graph-costs-1core.json" taskset -c 0
  measure one-core taskset -c 0
  predict "$OUT_DIR/graph-costs-1core.json" "$BUILD_DIR/seed-one-core.txt"

  start_spinners
  bench "$BUILD_DIR/costs-busy.json"
  measure busy
  stop_spinners
  predict "$BUILD_DIR/costs-busy.json" "$BUILD_DIR/seed-busy.txt"

  EXTRA_ARGS="--threads 1" measure threads-1 env OMP_NUM_THREADS=1
  predict "$BUILD_DIR/costs-default.json" "$BUILD_DIR/seed-threads-1.txt"
  measure two-cores taskset -c 0,1
  predict "$BUILD_DIR/costs-default.json" "$BUILD_DIR/seed-two-cores.txt"
  step "done"
}

main 2>&1 | tee "$OUT_DIR/conditions.txt"
exit "${PIPESTATUS[0]}"
