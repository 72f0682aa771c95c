//===- CostModelDocument.cpp - The cost model xfer-bench writes -----------===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//

#include "benchcore/CostModelDocument.h"

#include <cmath>

namespace xferbench {

double CostModelDocument::roundUs(double Us) {
  return std::round(Us * 1000.0) / 1000.0;
}

void CostModelDocument::addLatency(LatencyPattern Pattern) {
  if (Pattern.Points.empty())
    return; // A pattern with nothing measured is left out, never zero-filled.
  for (auto &Existing : Latencies) {
    if (Existing.Id == Pattern.Id) {
      Existing = std::move(Pattern);
      return;
    }
  }
  Latencies.push_back(std::move(Pattern));
}

void CostModelDocument::addGrid(OverlapGrid Grid) {
  if (Grid.Cells.empty())
    return;
  Grids.push_back(std::move(Grid));
}

void CostModelDocument::addFidelity(FidelityRecord Record) {
  Fidelity.push_back(std::move(Record));
}

const LatencyPattern *
CostModelDocument::findLatency(const std::string &Id) const {
  for (const auto &Pattern : Latencies)
    if (Pattern.Id == Id)
      return &Pattern;
  return nullptr;
}

JsonValue CostModelDocument::pointToJson(const MeasuredPoint &Point) {
  JsonValue Json = JsonValue::object();
  if (Point.Bytes)
    Json.set("bytes", *Point.Bytes);
  const SampleSummary &S = Point.Summary;
  Json.set("median_us", roundUs(S.MedianUs));
  Json.set("p10_us", roundUs(S.P10Us));
  Json.set("p90_us", roundUs(S.P90Us));
  Json.set("min_us", roundUs(S.MinUs));
  Json.set("max_us", roundUs(S.MaxUs));
  Json.set("spread", std::round(S.relativeSpread() * 1000.0) / 1000.0);
  Json.set("reps", S.Reps);
  Json.set("warmup", S.Warmup);
  return Json;
}

static JsonValue summaryToJson(const SampleSummary &Summary) {
  return CostModelDocument::pointToJson(MeasuredPoint{std::nullopt, Summary});
}

static JsonValue optionalString(const std::optional<std::string> &Value) {
  return Value ? JsonValue(*Value) : JsonValue();
}

static JsonValue provenanceToJson(const ProvenanceRecord &P) {
  JsonValue Json = JsonValue::object();
  Json.set("tool", "xfer-bench");
  Json.set("tool_version", P.ToolVersion);
  Json.set("command_line", P.CommandLine);
  Json.set("date_utc", P.DateUtc);
  Json.set("quick", P.Quick);
  Json.set("complete", P.Complete);
  Json.set("device", P.Device);
  Json.set("compute_capability", P.ComputeCapability);
  Json.set("multiprocessors", P.Multiprocessors);
  Json.set("device_memory_bytes", P.DeviceMemoryBytes);
  Json.set("l2_cache_bytes", P.L2CacheBytes);
  Json.set("driver", optionalString(P.Driver));
  Json.set("cuda_driver_api", P.CudaDriverApi);
  Json.set("cuda_runtime", P.CudaRuntime);
  Json.set("libtorch", optionalString(P.LibTorch));
  Json.set("cpu_model", P.CpuModel);
  Json.set("cpu_logical_cores", P.CpuLogicalCores);
  Json.set("clocks_mhz", P.ClocksMhz);
  JsonValue Reps = JsonValue::object();
  Reps.set("warmup", P.Repetitions.Warmup);
  Reps.set("min_reps", P.Repetitions.MinReps);
  Reps.set("max_reps", P.Repetitions.MaxReps);
  Reps.set("budget_ms", P.Repetitions.BudgetMs);
  Reps.set("note", "default policy; every point records the reps and "
                   "warm-up it actually used");
  Json.set("repetitions", std::move(Reps));
  if (P.Extra.size())
    Json.set("extra", P.Extra);
  return Json;
}

static JsonValue latencyToJson(const LatencyPattern &Pattern) {
  JsonValue Json = JsonValue::object();
  Json.set("kind", "latency");
  Json.set("description", Pattern.Description);
  Json.set("timer", Pattern.Timer);
  Json.set("sized", Pattern.Sized);
  if (Pattern.Params.kind() == JsonValue::Kind::Object)
    Json.set("params", Pattern.Params);
  JsonValue Points = JsonValue::array();
  for (const auto &Point : Pattern.Points)
    Points.push(CostModelDocument::pointToJson(Point));
  Json.set("points", std::move(Points));
  return Json;
}

static JsonValue numbers(const std::vector<double> &Values) {
  JsonValue Array = JsonValue::array();
  for (double Value : Values)
    Array.push(CostModelDocument::roundUs(Value));
  return Array;
}

static JsonValue gridToJson(const OverlapGrid &Grid) {
  JsonValue Json = JsonValue::object();
  Json.set("kind", "overlap_grid");
  Json.set("description", Grid.Description);
  Json.set("sync", Grid.Sync);
  Json.set("timer", Grid.Timer);
  Json.set("host_us", numbers(Grid.HostUs));
  Json.set("device_us", numbers(Grid.DeviceUs));
  JsonValue Cells = JsonValue::array();
  for (const auto &Cell : Grid.Cells) {
    JsonValue C = JsonValue::object();
    C.set("host_us", CostModelDocument::roundUs(Cell.HostUs));
    C.set("device_us", CostModelDocument::roundUs(Cell.DeviceUs));
    C.set("per_iteration_cost_us",
          CostModelDocument::roundUs(Cell.Cost.MedianUs));
    C.set("cost_p10_us", CostModelDocument::roundUs(Cell.Cost.P10Us));
    C.set("cost_p90_us", CostModelDocument::roundUs(Cell.Cost.P90Us));
    C.set("no_sync_iteration_us",
          CostModelDocument::roundUs(Cell.NoSync.MedianUs));
    C.set("sync_iteration_us",
          CostModelDocument::roundUs(Cell.WithSync.MedianUs));
    C.set("device_measured_us",
          CostModelDocument::roundUs(Cell.DeviceMeasuredUs));
    C.set("iterations", Cell.Iterations);
    C.set("reps", Cell.Cost.Reps);
    Cells.push(std::move(C));
  }
  Json.set("cells", std::move(Cells));
  return Json;
}

static JsonValue fidelityToJson(const FidelityRecord &R) {
  JsonValue Json = JsonValue::object();
  Json.set("source", R.Source);
  Json.set("hazard_function", R.HazardFunction);
  Json.set("fixed_function", R.FixedFunction);
  Json.set("hazard", R.Hazard);
  Json.set("fix", R.Fix);
  Json.set("device", R.Device);
  Json.set("iterations", R.Iterations);
  Json.set("saving_per_iteration_us",
           CostModelDocument::roundUs(R.Saving.MedianUs));
  Json.set("saving_p10_us", CostModelDocument::roundUs(R.Saving.P10Us));
  Json.set("saving_p90_us", CostModelDocument::roundUs(R.Saving.P90Us));
  Json.set("hazard_iteration", summaryToJson(R.HazardIteration));
  Json.set("fixed_iteration", summaryToJson(R.FixedIteration));
  return Json;
}

JsonValue CostModelDocument::toJson() const {
  JsonValue Root = JsonValue::object();
  Root.set("schema_version", CostModelSchemaVersion);
  Root.set("provenance", provenanceToJson(Provenance));
  JsonValue Patterns = JsonValue::object();
  for (const auto &Pattern : Latencies)
    Patterns.set(Pattern.Id, latencyToJson(Pattern));
  for (const auto &Grid : Grids)
    Patterns.set(Grid.Id, gridToJson(Grid));
  Root.set("patterns", std::move(Patterns));
  JsonValue FidelitySection = JsonValue::object();
  for (const auto &Record : Fidelity)
    FidelitySection.set(Record.Id, fidelityToJson(Record));
  Root.set("fidelity", std::move(FidelitySection));
  return Root;
}

} // namespace xferbench
