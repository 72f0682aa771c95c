//===- CostModelDocument.h - The cost model xfer-bench writes ---*- C++ -*-===//
//
// Part of xfer-tidy. Host-only.
//
//===----------------------------------------------------------------------===//
//
// The in-memory form of the cost-model JSON (schema version 1, documented in
// docs/cost-model.md) on the writer's side. The reader the checks use lives
// in checks/CostModel.{h,cpp}; tests round-trip between the two.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_BENCHCORE_COSTMODELDOCUMENT_H
#define XFER_BENCHCORE_COSTMODELDOCUMENT_H

#include "benchcore/BenchStats.h"
#include "benchcore/JsonValue.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace xferbench {

constexpr int CostModelSchemaVersion = 1;

/// Timers a figure can come from; written into every pattern.
constexpr const char *HostClockTimer = "host_steady_clock";
constexpr const char *CudaEventTimer = "cuda_event";

struct MeasuredPoint {
  std::optional<uint64_t> Bytes; ///< Set for sized patterns.
  SampleSummary Summary;
};

/// One pattern id with one point (unsized) or a sweep over bytes (sized).
struct LatencyPattern {
  std::string Id;
  std::string Description;
  std::string Timer = HostClockTimer;
  bool Sized = false;
  /// Free-form facts about the setup (element counts, kernels per
  /// iteration...); an object or null.
  JsonValue Params;
  std::vector<MeasuredPoint> Points;
  /// Summary tables print bytes / time for it (a copy, not a call's
  /// return time). Not part of the JSON.
  bool ReportsBandwidth = false;
};

/// One (host work, device work) cell of a sync-overlap grid. All figures are
/// per loop iteration.
struct OverlapCell {
  double HostUs = 0;           ///< Requested host spin.
  double DeviceUs = 0;         ///< Requested device spin.
  SampleSummary NoSync;        ///< Iteration time without the sync.
  SampleSummary WithSync;      ///< Iteration time with the sync.
  SampleSummary Cost;          ///< Paired WithSync - NoSync.
  double DeviceMeasuredUs = 0; ///< Event-timed length of the device spin.
  unsigned Iterations = 0;     ///< Loop iterations per repetition.
};

struct OverlapGrid {
  std::string Id;
  std::string Description;
  std::string Sync; ///< The call that ends each iteration.
  std::string Timer = HostClockTimer;
  std::vector<double> HostUs;   ///< Increasing.
  std::vector<double> DeviceUs; ///< Increasing.
  /// Row-major: Cells[H * DeviceUs.size() + D].
  std::vector<OverlapCell> Cells;
};

/// A measured hazard -> fix pair of one reference loop.
struct FidelityRecord {
  std::string Id;
  std::string Source; ///< Repository-relative path of the loop's source.
  std::string HazardFunction;
  std::string FixedFunction;
  std::string Hazard;
  std::string Fix;
  std::string Device; ///< "cuda" or "cpu".
  unsigned Iterations = 0;
  SampleSummary HazardIteration; ///< Per-iteration time of the hazard.
  SampleSummary FixedIteration;  ///< Per-iteration time of the fix.
  SampleSummary Saving;          ///< Paired hazard - fix, per iteration.
};

struct ProvenanceRecord {
  std::string ToolVersion;
  std::string CommandLine;
  std::string DateUtc;
  bool Quick = false;
  /// False in the checkpoints written while the run goes on.
  bool Complete = false;
  std::string Device;
  std::string ComputeCapability;
  int Multiprocessors = 0;
  uint64_t DeviceMemoryBytes = 0;
  uint64_t L2CacheBytes = 0;
  std::optional<std::string> Driver;
  std::string CudaDriverApi;
  std::string CudaRuntime;
  std::optional<std::string> LibTorch;
  std::string CpuModel;
  unsigned CpuLogicalCores = 0;
  /// Clock readings in MHz (e.g. "sm_max", "sm_at_start"); null where
  /// unreadable.
  JsonValue ClocksMhz = JsonValue::object();
  RepetitionPolicy Repetitions;
  /// Anything else worth keeping (LibTorch CPU threads, ...).
  JsonValue Extra = JsonValue::object();
};

class CostModelDocument {
public:
  ProvenanceRecord Provenance;

  void addLatency(LatencyPattern Pattern);
  void addGrid(OverlapGrid Grid);
  void addFidelity(FidelityRecord Record);

  const std::vector<LatencyPattern> &latencies() const { return Latencies; }
  const std::vector<OverlapGrid> &grids() const { return Grids; }
  const std::vector<FidelityRecord> &fidelity() const { return Fidelity; }
  const LatencyPattern *findLatency(const std::string &Id) const;

  JsonValue toJson() const;

  /// The point fields the reader knows, in one place.
  static JsonValue pointToJson(const MeasuredPoint &Point);
  /// Microseconds are kept to the nanosecond.
  static double roundUs(double Us);

private:
  std::vector<LatencyPattern> Latencies;
  std::vector<OverlapGrid> Grids;
  std::vector<FidelityRecord> Fidelity;
};

} // namespace xferbench

#endif // XFER_BENCHCORE_COSTMODELDOCUMENT_H
