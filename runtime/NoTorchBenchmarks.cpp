//===- NoTorchBenchmarks.cpp - Builds without LibTorch --------------------===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//

#include "Benchmarks.h"

namespace xferbench {

bool haveTorchBenchmarks() { return false; }
std::optional<std::string> libTorchVersion() { return std::nullopt; }
void runTorchBenchmarks(BenchSession &) {}

} // namespace xferbench
