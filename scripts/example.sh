#!/usr/bin/env bash
# The main job on the bundled examples: the seed's training loop ported to
# LibTorch C++ (parsed with the real LibTorch headers) and a CUDA program with
# an in-loop cudaMemcpy (parsed against the installed CUDA toolkit), first
# with xfer-tidy over a compilation database written the way CMake writes
# one for nvcc, then with the clang-tidy-19 plugin on the same files.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

examples="$PWD/testdata/examples"
torch_api=$(dirname "$(dirname "$(dpkg -L libtorch-dev | grep -m1 '/torch/csrc/api/include/torch/torch.h$')")")
mkdir -p build/examples
cat > build/examples/compile_commands.json <<JSON
[
  {"directory": "$PWD/build/examples",
   "command": "c++ -std=c++17 -isystem $torch_api -c $examples/seed_training_loop.cpp -o seed_training_loop.o",
   "file": "$examples/seed_training_loop.cpp"},
  {"directory": "$PWD/build/examples",
   "command": "nvcc -forward-unknown-to-host-compiler --generate-code=arch=compute_90,code=[compute_90,sm_90] -Xcompiler=-fPIC -x cu -c $examples/memcpy_loop.cu -o memcpy_loop.o",
   "file": "$examples/memcpy_loop.cu"}
]
JSON

echo "== xfer-tidy -p build/examples"
status=0
# The result cache stays in the build tree (a second run of this script
# takes the results from it); users get one in ~/.cache/xfer-tidy.
build/tool/xfer-tidy -p build/examples -j 2 --cache-dir=build/examples/cache || status=$?
echo "(exit status $status: 0 no findings, 1 findings, 2 errors)"

echo
echo "== clang-tidy-19 --load=build/checks/libXferTidy.so (same files)"
# clang-tidy cannot translate nvcc commands, so the CUDA file gets clang's
# CUDA flags by hand (build/cuda-compat holds CUDA 13's removed headers).
plugin=(clang-tidy-19 --load="$PWD/build/checks/libXferTidy.so" --checks='-*,xfer-*')
"${plugin[@]}" -p build/examples "$examples/seed_training_loop.cpp" 2>/dev/null |
  grep -E 'examples/.*(warning|note):' || true
"${plugin[@]}" "$examples/memcpy_loop.cu" -- --cuda-host-only -nocudalib \
  --cuda-path=/usr/local/cuda -Wno-unknown-cuda-version \
  -idirafter "$PWD/build/cuda-compat" -include "$PWD/build/cuda-compat/xfer_tidy_cuda_legacy.h" \
  -isystem /usr/local/cuda/include/cccl 2>/dev/null |
  grep -E 'examples/.*(warning|note):' || true
[[ $status -eq 1 ]]
