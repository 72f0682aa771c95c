#!/usr/bin/env bash
# Builds xfer-trace and its evidence programs on a machine with a CUDA GPU,
# traces each program, measures what fixing each hazard site alone saves,
# and prints the table: per site, the trace's cost per call against the
# measured saving, and the traced-vs-untraced loop time.
#
#   bash runtime/trace/run-trace-evidence.sh     # from the repository root
#
# Results go to $OUT when set, else ./trace-evidence-out: <program>.trace.json,
# <program>.measure.jsonl, overhead.jsonl, table.txt, log.
# Environment: XFER_TRACE_ROUNDS (interleaved rounds, default 15),
# XFER_TRACE_ITERATIONS (iterations per round, default 200),
# XFER_TRACE_OVERHEAD_RUNS (alternating untraced/traced pairs, default 5),
# XFER_TRACE_QUICK=1 (a short smoke run).

set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT_DIR=${OUT:-$PWD/trace-evidence-out}
BUILD=${XFER_TRACE_BUILD_DIR:-$ROOT/build-trace}
ROUNDS=${XFER_TRACE_ROUNDS:-15}
ITERATIONS=${XFER_TRACE_ITERATIONS:-200}
TRACE_ROUNDS=5
OVERHEAD_RUNS=${XFER_TRACE_OVERHEAD_RUNS:-5}
if [[ ${XFER_TRACE_QUICK:-0} == 1 ]]; then
  ROUNDS=3 ITERATIONS=50 TRACE_ROUNDS=2 OVERHEAD_RUNS=2
fi
mkdir -p "$OUT_DIR"
OUT_DIR=$(cd "$OUT_DIR" && pwd)

step() { printf '\n=== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }

main() {
  local status=0
  step "environment"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv || true
  nvcc --version | tail -1 || true
  local torch_prefix
  torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null || true)
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>/dev/null || echo "no torch"

  step "build"
  cmake -G Ninja -S "$ROOT/runtime" -B "$BUILD/runtime" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DXFER_BENCH_WITH_TORCH=OFF >/dev/null &&
    cmake --build "$BUILD/runtime" -j "$(nproc)" --target xfer-trace xfer-trace-collector ||
    { echo "!!! xfer-trace build failed"; return 1; }
  cmake -G Ninja -S "$ROOT/runtime/trace/evidence" -B "$BUILD/evidence" \
    -DCMAKE_BUILD_TYPE=Release ${torch_prefix:+-DCMAKE_PREFIX_PATH="$torch_prefix"} >/dev/null &&
    cmake --build "$BUILD/evidence" -j "$(nproc)" ||
    { echo "!!! evidence build failed"; return 1; }
  local trace=$BUILD/runtime/bin/xfer-trace
  local cuda=$BUILD/evidence/cuda-hazards torch=$BUILD/evidence/torch-hazards

  step "sanity: no GPU, no CUPTI, usage"
  CUDA_VISIBLE_DEVICES= "$trace" --output="$OUT_DIR/none.json" -- "$cuda" readback trace 1 10
  local rc=$?
  echo "exit status with no visible GPU: $rc (expected 2)"; [[ $rc == 2 ]] || status=1
  "$trace" --collector=/nonexistent/libxfer-trace-collector.so -- "$cuda" readback trace 1 10
  rc=$?; echo "exit status with no collector/CUPTI: $rc (expected 2)"; [[ $rc == 2 ]] || status=1
  [[ ! -e $OUT_DIR/none.json ]] || { echo "!!! a trace was written without a GPU"; status=1; }

  local programs=("cuda readback" "cuda multi")
  [[ -x $torch ]] && programs+=("torch seed" "torch inference" "torch multi")
  : >"$OUT_DIR/overhead.jsonl"
  for entry in "${programs[@]}"; do
    read -r kind name <<<"$entry"
    local exe=$cuda; [[ $kind == torch ]] && exe=$torch
    step "$kind $name: untraced, traced, measured"
    # Untraced and traced runs alternate: the overhead is the median of the
    # pairs' ratios (a pair shares the machine's state of the moment).
    local run start end
    for ((run = 1; run <= OVERHEAD_RUNS; ++run)); do
      start=$EPOCHREALTIME
      "$exe" "$name" trace "$TRACE_ROUNDS" "$ITERATIONS" >"$OUT_DIR/tmp.json"
      end=$EPOCHREALTIME
      sed "s/^{/{\"traced\": false, \"wallS\": $(awk "BEGIN{print $end - $start}"), /" \
        "$OUT_DIR/tmp.json" | tee -a "$OUT_DIR/overhead.jsonl"
      start=$EPOCHREALTIME
      "$trace" --output="$OUT_DIR/$kind-$name.trace.json" -- "$exe" "$name" trace "$TRACE_ROUNDS" "$ITERATIONS" \
        >"$OUT_DIR/tmp.json"
      rc=$?
      end=$EPOCHREALTIME
      sed "s/^{/{\"traced\": true, \"wallS\": $(awk "BEGIN{print $end - $start}"), /" \
        "$OUT_DIR/tmp.json" | tee -a "$OUT_DIR/overhead.jsonl"
      [[ $rc == 0 ]] || { echo "!!! traced run exited with $rc"; status=1; }
    done
    "$exe" "$name" measure "$ROUNDS" "$ITERATIONS" | tee "$OUT_DIR/$kind-$name.measure.jsonl"
  done
  rm -f "$OUT_DIR/tmp.json"

  if [[ -x $BUILD/evidence/seed-training-loop ]]; then
    step "the seed example (testdata/examples/seed_training_loop.cpp), traced"
    "$trace" --output="$OUT_DIR/seed_training_loop.trace.json" -- \
      "$BUILD/evidence/seed-training-loop" >/dev/null || status=1
  fi

  step "table"
  python3 "$ROOT/runtime/trace/evidence/evidence_table.py" "$OUT_DIR" "$ROOT/runtime/trace/evidence" |
    tee "$OUT_DIR/table.txt" || status=1
  # Few files come back from a remote run: one archive of the traces and
  # measurements as well.
  (cd "$OUT_DIR" && tar -czf evidence.tar.gz ./*.json ./*.jsonl table.txt)
  step "done (status $status)"
  return $status
}

main 2>&1 | tee "$OUT_DIR/log"
exit "${PIPESTATUS[0]}"
