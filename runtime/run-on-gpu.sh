#!/usr/bin/env bash
# Builds xfer-bench on a machine with a CUDA GPU, sanity-checks it and runs
# the whole sweep, in one go (well under 10 minutes on an H100/H200).
#
#   runtime/run-on-gpu.sh            # from the repository root
#
# Results go to $OUT when it is set, else to ./xfer-bench-out:
#   costs.json   the cost model (schema: docs/cost-model.md)
#   quick.json   the --quick sanity pass
#   table.txt    the short summary table
#   log          everything printed, build included
# LibTorch is used when python3 can import torch (its CMake prefix is taken
# from torch.utils.cmake_prefix_path); otherwise, or if that build fails, the
# CUDA-runtime part is built and measured alone.
#
# Environment: XFER_BENCH_BUILD_DIR (default build-bench), XFER_BENCH_TIMEOUT
# (seconds for the full sweep, default 420), XFER_BENCH_ARGS (extra
# arguments for the full sweep, split at blanks, e.g. "--only cuda.*").

set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT_DIR=${OUT:-$PWD/xfer-bench-out}
BUILD_DIR=${XFER_BENCH_BUILD_DIR:-$ROOT/build-bench}
FULL_TIMEOUT=${XFER_BENCH_TIMEOUT:-420}
mkdir -p "$OUT_DIR"

step() { printf '\n=== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }

configure_and_build() {
  local with_torch=$1 prefix=$2
  cmake -G Ninja -S "$ROOT/runtime" -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DXFER_BENCH_WITH_TORCH="$with_torch" \
    ${prefix:+-DCMAKE_PREFIX_PATH="$prefix"} &&
    cmake --build "$BUILD_DIR" -j "$(nproc)"
}

# Checks that a cost model parses and holds what it should.
validate() {
  python3 - "$1" <<'EOF'
import json, sys
model = json.load(open(sys.argv[1]))
assert model["schema_version"] == 1, "schema_version"
patterns = model["patterns"]
assert patterns, "no patterns"
for name, entry in patterns.items():
    if entry["kind"] == "latency":
        assert entry["points"], name
        for p in entry["points"]:
            assert p["p10_us"] <= p["median_us"] <= p["p90_us"], name
    else:
        assert len(entry["cells"]) == len(entry["host_us"]) * len(entry["device_us"]), name
print("valid: %d patterns, %d fidelity records, device %s" % (
    len(patterns), len(model["fidelity"]), model["provenance"]["device"]))
EOF
}

main() {
  local status=0
  step "environment"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw --format=csv || true
  nvcc --version | tail -2 || true
  cmake --version | head -1
  local torch_prefix
  torch_prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null || true)
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>/dev/null || echo "no torch"

  step "build"
  local with_torch=OFF
  [[ -n "$torch_prefix" ]] && with_torch=ON
  if ! configure_and_build "$with_torch" "$torch_prefix"; then
    if [[ $with_torch == ON ]]; then
      echo "!!! build with LibTorch failed; building the CUDA-runtime part alone"
      rm -rf "$BUILD_DIR"
      configure_and_build OFF "" || { echo "!!! build failed"; return 1; }
    else
      echo "!!! build failed"
      return 1
    fi
  fi
  local bench=$BUILD_DIR/xfer-bench

  step "sanity: no-GPU path, --help, quick pass"
  CUDA_VISIBLE_DEVICES= "$bench" --quick
  local no_gpu=$?
  echo "exit status with no visible GPU: $no_gpu (expected 2)"
  [[ $no_gpu == 2 ]] || status=1
  "$bench" --help >/dev/null || status=1
  (cd "$OUT_DIR" && timeout 150 "$bench" --quick --output quick.json) ||
    { echo "!!! quick pass exited with $?"; status=1; }
  [[ -f $OUT_DIR/quick.json ]] && { validate "$OUT_DIR/quick.json" || status=1; }

  step "full sweep"
  # Relative output path: the command line recorded in the model names no
  # directory of this machine.
  local extra_args=()
  read -ra extra_args <<<"${XFER_BENCH_ARGS:-}"
  (cd "$OUT_DIR" &&
    timeout "$FULL_TIMEOUT" "$bench" --output costs.json "${extra_args[@]}" 2>&1 |
    tee full.stdout; exit "${PIPESTATUS[0]}")
  local full=$?
  echo "full sweep exit status: $full"
  [[ $full == 0 ]] || status=1
  if [[ -f $OUT_DIR/costs.json ]]; then
    validate "$OUT_DIR/costs.json" || status=1
  fi
  sed -n '/^== summary/,$p' "$OUT_DIR/full.stdout" >"$OUT_DIR/table.txt"
  rm -f "$OUT_DIR/full.stdout"
  nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv || true
  step "done (status $status)"
  return $status
}

main 2>&1 | tee "$OUT_DIR/log"
exit "${PIPESTATUS[0]}"
