#!/usr/bin/env bash
# Builds the tool and the tests with AddressSanitizer and
# UndefinedBehaviorSanitizer (clang 19) into build-sanitize/ and runs the
# suite; any sanitizer report fails the run. Tests that load the plugin into
# clang-tidy-19 are left out: an uninstrumented host program cannot load an
# instrumented plugin (the ASan runtime must come first). The tree is
# configured with the fuzz targets as well, so that scripts/fuzz.sh reuses
# it instead of compiling everything a second time.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/configure-sanitized.sh
cmake --build build-sanitize
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-sanitize --output-on-failure -j 2 \
  -E 'RealLibTorchHeadersAndPluginAgree|InstalledToolFindsItsFiles|CMakeRecipeRunsThePluginDuringTheBuild'
