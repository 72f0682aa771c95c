//===- Benchmarks.h - The benchmark groups of xfer-bench --------*- C++ -*-===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_RUNTIME_BENCHMARKS_H
#define XFER_RUNTIME_BENCHMARKS_H

#include "benchcore/BenchSession.h"

#include <optional>
#include <string>

namespace xferbench {

/// CUDA runtime patterns, the sync-overlap grids and the CUDA reference loop.
void runCudaBenchmarks(BenchSession &Session);

/// Whether this build has the LibTorch benchmarks.
bool haveTorchBenchmarks();
/// LibTorch's version string, when built with it.
std::optional<std::string> libTorchVersion();
/// LibTorch patterns, the seed's loops and tables, the LibTorch reference
/// loops. A no-op in builds without LibTorch.
void runTorchBenchmarks(BenchSession &Session);

} // namespace xferbench

#endif // XFER_RUNTIME_BENCHMARKS_H
