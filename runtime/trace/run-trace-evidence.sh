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
# XFER_TRACE_OPTIONS (xfer-trace options for the traced runs, default none:
# the defaults), XFER_TRACE_COMPARE (options of a second traced run in each
# pair, e.g. --sample=all, whose overhead is listed beside; default none),
# XFER_TRACE_BREAKDOWN=1 (first, the collector's cost by part, in
# XFER_TRACE_BREAKDOWN_ROUNDS rounds, default 3, of 5 x 1000 iterations per
# configuration, on XFER_TRACE_BREAKDOWN_PROGRAMS, default
# "cuda readback,torch inference"),
# XFER_TRACE_QUICK=1 (a short smoke run).

set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT_DIR=${OUT:-$PWD/trace-evidence-out}
BUILD=${XFER_TRACE_BUILD_DIR:-$ROOT/build-trace}
ROUNDS=${XFER_TRACE_ROUNDS:-15}
ITERATIONS=${XFER_TRACE_ITERATIONS:-200}
TRACE_ROUNDS=5
OVERHEAD_RUNS=${XFER_TRACE_OVERHEAD_RUNS:-5}
read -r -a TRACE_OPTIONS <<<"${XFER_TRACE_OPTIONS:-}"
read -r -a COMPARE_OPTIONS <<<"${XFER_TRACE_COMPARE:-}"
BREAKDOWN_ROUNDS=${XFER_TRACE_BREAKDOWN_ROUNDS:-3}
if [[ ${XFER_TRACE_QUICK:-0} == 1 ]]; then
  ROUNDS=3 ITERATIONS=50 TRACE_ROUNDS=2 OVERHEAD_RUNS=2
fi
mkdir -p "$OUT_DIR"
OUT_DIR=$(cd "$OUT_DIR" && pwd)

step() { printf '\n=== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }

# Appends one traced or untraced loop time to a JSON-lines file:
# record <file> <fields to add> -- <command...>
record() {
  local file=$1 fields=$2 start end rc
  shift 3
  start=$EPOCHREALTIME
  timeout 300 "$@" >"$OUT_DIR/tmp.json"
  rc=$?
  end=$EPOCHREALTIME
  sed "s|^{|{$fields, \"wallS\": $(awk "BEGIN{print $end - $start}"), |" \
    "$OUT_DIR/tmp.json" | tee -a "$file"
  return $rc
}

# The collector's cost by part: each configuration (label|xfer-trace
# options|XFER_TRACE_COST) against an untraced run of the same round.
breakdown() {
  local trace=$1 cuda=$2 torch=$3
  local configs=(
    "untraced||"
    "all|--sample=all|"
    "all, nothing enabled|--sample=all|kernels,copies,sets,callbacks"
    "all, callbacks only|--sample=all|kernels,copies,sets"
    "all, activity only|--sample=all|callbacks"
    "all, first 0.2 s only|--sample=all --max-seconds=0.2|"
    "sample 1/20|--sample=1/20|"
    "sample 5/100|--sample=5/100|"
  )
  local programs=() entry
  IFS=',' read -r -a programs <<<"${XFER_TRACE_BREAKDOWN_PROGRAMS:-cuda readback,torch inference}"
  for entry in "${programs[@]}"; do
    [[ $entry == torch* && ! -x $torch ]] && { echo "no torch-hazards: $entry left out"; programs=("${programs[@]/$entry/}"); }
  done
  : >"$OUT_DIR/breakdown.jsonl"
  local round kind name exe config label options cost rc
  for ((round = 1; round <= BREAKDOWN_ROUNDS; ++round)); do
    for entry in "${programs[@]}"; do
      [[ -n $entry ]] || continue
      read -r kind name <<<"$entry"
      exe=$cuda; [[ $kind == torch ]] && exe=$torch
      for config in "${configs[@]}"; do
        IFS='|' read -r label options cost <<<"$config"
        local fields="\"config\": \"$label\", \"round\": $round"
        if [[ $label == untraced ]]; then
          record "$OUT_DIR/breakdown.jsonl" "$fields" -- "$exe" "$name" trace 5 1000
        else
          # shellcheck disable=SC2086
          XFER_TRACE_COST=$cost record "$OUT_DIR/breakdown.jsonl" "$fields" -- \
            "$trace" $options --output="$OUT_DIR/breakdown-$kind-$name-${label//[^a-z0-9]/_}.trace.json" \
            -- "$exe" "$name" trace 5 1000
        fi
        rc=$?
        [[ $rc == 0 ]] || echo "!!! $label: exit status $rc"
      done
    done
  done
}

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

  if [[ ${XFER_TRACE_BREAKDOWN:-0} == 1 ]]; then
    step "the collector's cost by part"
    breakdown "$trace" "$cuda" "$torch"
  fi

  local programs=("cuda readback" "cuda multi")
  [[ -x $torch ]] && programs+=("torch seed" "torch inference" "torch multi")
  : >"$OUT_DIR/overhead.jsonl"
  for entry in "${programs[@]}"; do
    read -r kind name <<<"$entry"
    local exe=$cuda; [[ $kind == torch ]] && exe=$torch
    step "$kind $name: untraced, traced, measured"
    # Untraced and traced runs alternate: the overhead is the median of the
    # pairs' ratios (a pair shares the machine's state of the moment).
    local run
    for ((run = 1; run <= OVERHEAD_RUNS; ++run)); do
      record "$OUT_DIR/overhead.jsonl" '"traced": false' -- \
        "$exe" "$name" trace "$TRACE_ROUNDS" "$ITERATIONS"
      record "$OUT_DIR/overhead.jsonl" '"traced": true' -- \
        "$trace" "${TRACE_OPTIONS[@]}" --output="$OUT_DIR/$kind-$name.trace.json" \
        -- "$exe" "$name" trace "$TRACE_ROUNDS" "$ITERATIONS"
      rc=$?
      [[ $rc == 0 ]] || { echo "!!! traced run exited with $rc"; status=1; }
      if ((${#COMPARE_OPTIONS[@]})); then
        record "$OUT_DIR/overhead.jsonl" '"traced": "compare"' -- \
          "$trace" "${COMPARE_OPTIONS[@]}" --output="$OUT_DIR/compare-$kind-$name.trace.json" \
          -- "$exe" "$name" trace "$TRACE_ROUNDS" "$ITERATIONS"
        rc=$?
        [[ $rc == 0 ]] || { echo "!!! traced run (${COMPARE_OPTIONS[*]}) exited with $rc"; status=1; }
      fi
    done
    "$exe" "$name" measure "$ROUNDS" "$ITERATIONS" | tee "$OUT_DIR/$kind-$name.measure.jsonl"
  done
  rm -f "$OUT_DIR/tmp.json"

  if [[ -x $BUILD/evidence/seed-training-loop ]]; then
    step "the seed example (testdata/examples/seed_training_loop.cpp), traced"
    "$trace" "${TRACE_OPTIONS[@]}" --output="$OUT_DIR/seed_training_loop.trace.json" -- \
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
