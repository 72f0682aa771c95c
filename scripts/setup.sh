#!/usr/bin/env bash
# Installs what is missing (Debian 12 packages), then configures and builds
# everything into build/. Sourced by example.sh and test.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

packages=(cmake ninja-build clang-19 clang-tidy-19 llvm-19-dev libclang-19-dev
          libclang-cpp19-dev libgtest-dev libtorch-dev
          libomp-19-dev
          libclang-rt-19-dev  # sanitizer runtimes, for scripts/sanitize.sh
          pre-commit)  # for the test of .pre-commit-hooks.yaml (installs in under a minute)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# Two cores build this in about ten minutes; more go faster.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DLLVM_DIR="$(llvm-config-19 --cmakedir)" >/dev/null
cmake --build build
