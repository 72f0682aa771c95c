//===- CudaCheck.h - Fail loudly on any CUDA error --------------*- C++ -*-===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//
//
// Every CUDA call in xfer-bench goes through XFER_CUDA_CHECK: a benchmark
// that silently times a failed call reports a fast, wrong number.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_RUNTIME_CUDACHECK_H
#define XFER_RUNTIME_CUDACHECK_H

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime_api.h>

namespace xferbench {

inline void checkCudaCall(cudaError_t Status, const char *Call,
                          const char *File, int Line) {
  if (Status == cudaSuccess)
    return;
  std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", File, Line, Call,
               cudaGetErrorString(Status), cudaGetErrorName(Status));
  std::fflush(stdout);
  std::exit(1);
}

} // namespace xferbench

#define XFER_CUDA_CHECK(Call)                                                  \
  ::xferbench::checkCudaCall((Call), #Call, __FILE__, __LINE__)

/// After a kernel launch: launch errors are reported by cudaGetLastError.
#define XFER_CUDA_CHECK_LAUNCH()                                               \
  ::xferbench::checkCudaCall(cudaGetLastError(), "kernel launch", __FILE__,    \
                             __LINE__)

#endif // XFER_RUNTIME_CUDACHECK_H
