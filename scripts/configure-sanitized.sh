#!/usr/bin/env bash
# Configures build-sanitize/, the tree that scripts/sanitize.sh and
# scripts/fuzz.sh share: AddressSanitizer and UndefinedBehaviorSanitizer,
# the fuzz targets, no CUDA harness. -O1 with line tables only: sanitizer
# reports keep their file:line stacks, and the tree builds in CI's time
# (the matcher- and visitor-heavy sources take minutes each at -O2 -g).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only -DNDEBUG" \
  -DXFER_SANITIZE=address,undefined -DXFER_BUILD_RUNTIME=OFF \
  -DXFER_BUILD_FUZZERS=ON -DLLVM_DIR="$(llvm-config-19 --cmakedir)" >/dev/null
