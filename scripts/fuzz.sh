#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ in the sanitized tree of
# scripts/sanitize.sh (configured the same way, so a CI run after it only
# links them) and runs each: first its regression inputs, once each, then
# XFER_FUZZ_SECONDS (default 30) of fuzzing from the seeds under testdata/.
# Any crash, hang, out-of-memory or sanitizer report fails the run; the
# input that caused it is left in build-sanitize/fuzz/artifacts/.
#
#   scripts/fuzz.sh [target...]     (default: every target)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds=${XFER_FUZZ_SECONDS:-30}

# Seed directories of each target (libFuzzer reads them recursively).
declare -A seeds=(
  [cost-model]="testdata/cost-models testdata/fuzz/cost-model"
  [nvcc-command]="testdata/fuzz/nvcc-command"
  [compilation-database]="testdata/fuzz/compilation-database"
  [trace]="testdata/trace testdata/fuzz/trace"
  [checks]="testdata/checks testdata/examples testdata/fuzz/checks"
)
targets=("$@")
[ ${#targets[@]} -gt 0 ] ||
  targets=(cost-model nvcc-command compilation-database trace checks)

bash scripts/configure-sanitized.sh || exit 1
cmake --build build-sanitize --target "${targets[@]/%/-fuzzer}" || exit 1

# LLVM's and clang's process-lifetime allocations are not leaks of an input.
export ASAN_OPTIONS=detect_leaks=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=()
for target in "${targets[@]}"; do
  fuzzer=build-sanitize/fuzz/$target-fuzzer
  corpus=build-sanitize/fuzz/corpus/$target
  artifacts=build-sanitize/fuzz/artifacts/$target/
  mkdir -p "$corpus" "$artifacts"
  regressions=(testdata/fuzz/"$target"/regressions/*)
  if [ -e "${regressions[0]}" ]; then
    echo "== $target: ${#regressions[@]} regression inputs"
    if ! "$fuzzer" -timeout=60 -artifact_prefix="$artifacts" \
        "${regressions[@]}" >"$artifacts/regressions.log" 2>&1; then
      tail -n 40 "$artifacts/regressions.log"
      failed+=("$target (regressions)")
      continue
    fi
  fi
  existing=()
  for dir in ${seeds[$target]}; do
    [ -d "$dir" ] && existing+=("$dir")
  done
  echo "== $target: fuzzing for ${seconds}s"
  # -max_total_time is checked between inputs; timeout(1) bounds the rest.
  if ! timeout $((seconds + 120)) "$fuzzer" -max_total_time="$seconds" \
      -timeout=60 -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix="$artifacts" "$corpus" "${existing[@]}" \
      >"$artifacts/fuzz.log" 2>&1; then
    tail -n 40 "$artifacts/fuzz.log"
    failed+=("$target")
    continue
  fi
  grep -aE '^(stat::number_of_executed_units|stat::peak_rss_mb)' \
    "$artifacts/fuzz.log" | tr '\n' ' '
  echo
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzzing failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzzing: no crash in ${targets[*]}"
