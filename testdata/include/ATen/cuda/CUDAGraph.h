// Minimal stand-in for ATen/cuda/CUDAGraph.h: LibTorch's CUDA graph
// capture and replay.
#pragma once

namespace at {
namespace cuda {
struct CUDAGraph {
  CUDAGraph();
  void capture_begin();
  void capture_end();
  void replay();
  void reset();
};
} // namespace cuda
} // namespace at
