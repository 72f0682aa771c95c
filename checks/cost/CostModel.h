//===--- CostModel.h - Measured costs the diagnostics cite ------*- C++ -*-===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//
//
// Reads the cost model that xfer-bench writes (JSON, schema version 1,
// docs/cost-model.md): per-pattern latencies, swept over bytes where the
// pattern moves data, and grids of what a per-iteration sync costs a loop as
// a function of its host and device work.
//
// Compiled into the clang-tidy plugin as well, so it depends on LLVMSupport
// only and reports errors through llvm::Error (no exceptions).
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_CHECKS_COST_COSTMODEL_H
#define XFER_TIDY_CHECKS_COST_COSTMODEL_H

#include "xfer/CostPatterns.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clang::tidy::xfer {

/// The pattern ids the checks cite (include/xfer/CostPatterns.def).
namespace patterns = ::xfer::patterns;

/// A measured cost in microseconds: the median and the 10th/90th
/// percentiles of the repetitions.
struct CostPoint {
  double MedianUs = 0;
  double P10Us = 0;
  double P90Us = 0;
};

/// Where and how a model was measured.
struct Provenance {
  std::string Device;            ///< e.g. "NVIDIA H200"
  std::string ComputeCapability; ///< e.g. "9.0"
  std::string Driver;            ///< Kernel driver, e.g. "580.159.04"
  std::string CudaRuntime;       ///< e.g. "13.0"
  std::string LibTorch;          ///< Empty when measured without LibTorch.
  std::string CpuModel;
  std::string Date; ///< UTC, ISO 8601.
  std::string ToolVersion;
  std::string CommandLine;
  bool Quick = false;   ///< A --quick run (few repetitions).
  bool Complete = true; ///< False for a checkpoint of an unfinished run.

  /// One line for diagnostics and reports, e.g. "NVIDIA H200, driver
  /// 580.159.04, CUDA 13.0, LibTorch 2.11.0, measured 2026-11-22".
  std::string summary() const;
};

/// A measured hazard -> fix pair of a reference loop (the "fidelity"
/// section): what the fix saved per loop iteration.
struct MeasuredSaving {
  std::string Id;
  std::string Source;
  std::string HazardFunction;
  std::string FixedFunction;
  std::string Hazard;
  std::string Fix;
  std::string Device;
  uint64_t Iterations = 0;
  CostPoint Saving;
  CostPoint HazardIteration;
  CostPoint FixedIteration;
};

class CostModel {
public:
  /// The grid syncOverlapLossUs() reads by default: cudaStreamSynchronize
  /// ending iterations whose host work precedes their GPU work.
  static constexpr llvm::StringLiteral DefaultOverlapGrid =
      patterns::LoopSyncOverlap;

  /// Parses and validates a model. Errors name \p SourceName and the JSON
  /// path of the offending field, e.g. "costs.json:
  /// patterns.torch.item.points[0].median_us: expected a number".
  static llvm::Expected<CostModel> parse(llvm::StringRef JsonText,
                                         llvm::StringRef SourceName);
  static llvm::Expected<CostModel> loadFile(llvm::StringRef Path);

  /// The model embedded at build time (testdata/cost-models/default.json),
  /// parsed once; nullptr if the build embedded none.
  static const CostModel *builtin();

  /// The cost of one occurrence of \p PatternId. For a pattern swept over
  /// sizes, \p Bytes selects the point: log-log interpolation between the
  /// two nearest measured sizes; below the smallest size, the smallest
  /// size's cost (latency dominates there); above the largest, a linear
  /// extrapolation in bytes along the last measured segment (bandwidth
  /// dominates there). Without \p Bytes a swept pattern answers its
  /// smallest size. nullopt for unknown ids and for grids.
  std::optional<CostPoint>
  latency(llvm::StringRef PatternId,
          std::optional<uint64_t> Bytes = std::nullopt) const;

  /// What ending every iteration with a sync adds per iteration to a loop
  /// with \p HostWorkUs of host work and \p DeviceWorkUs of GPU work:
  /// bilinear interpolation in the measured grid; beyond its largest
  /// amounts, the part above the no-work corner (H = D = 0) is scaled up in
  /// proportion to the work (see docs/cost-model.md). Never negative.
  /// nullopt if the model has no such grid.
  std::optional<double> syncOverlapLossUs(double HostWorkUs,
                                          double DeviceWorkUs) const {
    return syncOverlapLossUs(DefaultOverlapGrid, HostWorkUs, DeviceWorkUs);
  }
  std::optional<double> syncOverlapLossUs(llvm::StringRef GridId,
                                          double HostWorkUs,
                                          double DeviceWorkUs) const;

  const Provenance &provenance() const { return Prov; }
  bool hasPattern(llvm::StringRef PatternId) const {
    return Latencies.count(PatternId) || Grids.count(PatternId);
  }
  /// All pattern ids, sorted.
  std::vector<std::string> patternIds() const;
  llvm::ArrayRef<MeasuredSaving> fidelity() const { return Fidelity; }
  const MeasuredSaving *fidelity(llvm::StringRef Id) const;

private:
  friend class CostModelParser;

  struct SizedPoint {
    uint64_t Bytes = 0;
    CostPoint Cost;
  };
  struct LatencyEntry {
    bool Sized = false;
    std::vector<SizedPoint> Points; ///< Increasing Bytes when Sized.
  };
  struct OverlapGrid {
    std::vector<double> HostUs;   ///< Increasing.
    std::vector<double> DeviceUs; ///< Increasing.
    std::vector<double> CostUs;   ///< Row-major [host][device].
    double at(size_t H, size_t D) const {
      return CostUs[H * DeviceUs.size() + D];
    }
    double interpolate(double HostUs, double DeviceUs) const;
  };

  Provenance Prov;
  llvm::StringMap<LatencyEntry> Latencies;
  llvm::StringMap<OverlapGrid> Grids;
  std::vector<MeasuredSaving> Fidelity;
};

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_COST_COSTMODEL_H
