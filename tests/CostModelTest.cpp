//===--- CostModelTest.cpp - The cost-model reader ------------------------===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//

#include "cost/CostModel.h"

#ifdef XFER_HAVE_BENCH_CORE
#include "benchcore/CostModelDocument.h"
#endif

#include "llvm/Support/Error.h"
#include "gtest/gtest.h"

#include <cmath>
#include <string>

using namespace clang::tidy::xfer;

namespace {

const std::string TestData = XFER_TESTDATA_DIR;
const std::string CostModels = TestData + "/cost-models";

CostModel parseOrFail(llvm::StringRef Json) {
  llvm::Expected<CostModel> Model = CostModel::parse(Json, "test.json");
  if (!Model) {
    ADD_FAILURE() << llvm::toString(Model.takeError());
    return std::move(*CostModel::parse(
        R"({"schema_version": 1, "provenance": {"device": "x"}, "patterns":
           {"p": {"kind": "latency", "sized": false,
                  "points": [{"median_us": 0, "p10_us": 0, "p90_us": 0}]}}})",
        "fallback"));
  }
  return std::move(*Model);
}

std::string parseError(llvm::StringRef Json) {
  llvm::Expected<CostModel> Model = CostModel::parse(Json, "test.json");
  if (Model)
    return "(no error)";
  return llvm::toString(Model.takeError());
}

// Sizes 4 B, 1 KiB, 1 MiB, 2 MiB; an unsized pattern; a 3x3 grid whose cost
// is min(H, D) + 5, as the measured grids roughly are.
const char *SyntheticModel = R"json({
  "schema_version": 1,
  "provenance": {"device": "Synthetic GPU", "compute_capability": "9.0",
                 "driver": "580.1", "cuda_runtime": "13.0", "libtorch": null,
                 "cpu_model": "Test CPU", "date_utc": "2026-11-22T00:00:00Z",
                 "tool_version": "0.1.0", "command_line": "xfer-bench",
                 "quick": false, "complete": true},
  "patterns": {
    "copy": {"kind": "latency", "sized": true, "points": [
      {"bytes": 4, "median_us": 10, "p10_us": 9, "p90_us": 12},
      {"bytes": 1024, "median_us": 20, "p10_us": 18, "p90_us": 24},
      {"bytes": 1048576, "median_us": 100, "p10_us": 90, "p90_us": 120},
      {"bytes": 2097152, "median_us": 180, "p10_us": 170, "p90_us": 200}]},
    "sync": {"kind": "latency", "sized": false, "points": [
      {"median_us": 5, "p10_us": 4.5, "p90_us": 6}]},
    "loop.sync_overlap": {"kind": "overlap_grid",
      "host_us": [0, 10, 100], "device_us": [0, 10, 100], "cells": [
      {"host_us": 0, "device_us": 0, "per_iteration_cost_us": 5},
      {"host_us": 0, "device_us": 10, "per_iteration_cost_us": 5},
      {"host_us": 0, "device_us": 100, "per_iteration_cost_us": 5},
      {"host_us": 10, "device_us": 0, "per_iteration_cost_us": 5},
      {"host_us": 10, "device_us": 10, "per_iteration_cost_us": 15},
      {"host_us": 10, "device_us": 100, "per_iteration_cost_us": 15},
      {"host_us": 100, "device_us": 0, "per_iteration_cost_us": 5},
      {"host_us": 100, "device_us": 10, "per_iteration_cost_us": 15},
      {"host_us": 100, "device_us": 100, "per_iteration_cost_us": 105}]}
  },
  "fidelity": {
    "loop.fix": {"source": "loop.cpp", "hazard_function": "slow",
                 "fixed_function": "fast", "hazard": "h", "fix": "f",
                 "device": "cuda", "iterations": 1000,
                 "saving_per_iteration_us": 16.1, "saving_p10_us": 14.6,
                 "saving_p90_us": 16.8,
                 "hazard_iteration": {"median_us": 28, "p10_us": 27, "p90_us": 29},
                 "fixed_iteration": {"median_us": 12, "p10_us": 11, "p90_us": 13}}
  }
})json";

TEST(CostModelTest, ReadsProvenance) {
  CostModel Model = parseOrFail(SyntheticModel);
  const Provenance &P = Model.provenance();
  EXPECT_EQ(P.Device, "Synthetic GPU");
  EXPECT_EQ(P.ComputeCapability, "9.0");
  EXPECT_EQ(P.Driver, "580.1");
  EXPECT_EQ(P.CudaRuntime, "13.0");
  EXPECT_EQ(P.LibTorch, ""); // null
  EXPECT_EQ(P.Date, "2026-11-22T00:00:00Z");
  EXPECT_TRUE(P.Complete);
  EXPECT_FALSE(P.Quick);
  EXPECT_EQ(P.summary(),
            "Synthetic GPU, driver 580.1, CUDA 13.0, measured 2026-11-22");
}

TEST(CostModelTest, UnsizedPatternIgnoresBytes) {
  CostModel Model = parseOrFail(SyntheticModel);
  for (std::optional<uint64_t> Bytes :
       {std::optional<uint64_t>(), std::optional<uint64_t>(1 << 20)}) {
    std::optional<CostPoint> Sync = Model.latency("sync", Bytes);
    ASSERT_TRUE(Sync);
    EXPECT_DOUBLE_EQ(Sync->MedianUs, 5);
    EXPECT_DOUBLE_EQ(Sync->P10Us, 4.5);
    EXPECT_DOUBLE_EQ(Sync->P90Us, 6);
  }
  EXPECT_FALSE(Model.latency("no.such.pattern"));
  EXPECT_FALSE(Model.latency("loop.sync_overlap")) << "grids have no latency";
}

TEST(CostModelTest, SizedPatternHitsMeasuredPoints) {
  CostModel Model = parseOrFail(SyntheticModel);
  EXPECT_DOUBLE_EQ(Model.latency("copy", 4)->MedianUs, 10);
  EXPECT_DOUBLE_EQ(Model.latency("copy", 1024)->MedianUs, 20);
  EXPECT_DOUBLE_EQ(Model.latency("copy", 1048576)->P90Us, 120);
  EXPECT_DOUBLE_EQ(Model.latency("copy", 2097152)->P10Us, 170);
  // Without a size: the smallest measured size.
  EXPECT_DOUBLE_EQ(Model.latency("copy")->MedianUs, 10);
}

TEST(CostModelTest, SizedPatternInterpolatesLogLog) {
  CostModel Model = parseOrFail(SyntheticModel);
  // 64 B lies halfway between 4 B and 1 KiB in log(bytes): the geometric
  // mean of the two times.
  std::optional<CostPoint> Mid = Model.latency("copy", 64);
  ASSERT_TRUE(Mid);
  EXPECT_NEAR(Mid->MedianUs, std::sqrt(10.0 * 20.0), 1e-9);
  EXPECT_NEAR(Mid->P10Us, std::sqrt(9.0 * 18.0), 1e-9);
  EXPECT_NEAR(Mid->P90Us, std::sqrt(12.0 * 24.0), 1e-9);
  // Monotone between points.
  double Previous = 0;
  for (uint64_t Bytes = 4; Bytes <= 2097152; Bytes *= 2) {
    double Median = Model.latency("copy", Bytes)->MedianUs;
    EXPECT_GE(Median, Previous) << Bytes;
    Previous = Median;
  }
}

TEST(CostModelTest, SizedPatternClampsBelowAndExtrapolatesAbove) {
  CostModel Model = parseOrFail(SyntheticModel);
  EXPECT_DOUBLE_EQ(Model.latency("copy", 0)->MedianUs, 10);
  EXPECT_DOUBLE_EQ(Model.latency("copy", 1)->MedianUs, 10);
  // Beyond 2 MiB: linear in bytes along the last segment, 80 us per MiB.
  std::optional<CostPoint> Big = Model.latency("copy", 4 * 1048576);
  ASSERT_TRUE(Big);
  EXPECT_NEAR(Big->MedianUs, 180 + 2 * 80, 1e-9);
  EXPECT_NEAR(Big->P10Us, 170 + 2 * 80, 1e-9);
  EXPECT_NEAR(Big->P90Us, 200 + 2 * 80, 1e-9);
}

TEST(CostModelTest, ExtrapolationSurvivesAFlatLastSegment) {
  CostModel Model = parseOrFail(R"({
    "schema_version": 1, "provenance": {"device": "x"},
    "patterns": {"copy": {"kind": "latency", "sized": true, "points": [
      {"bytes": 1000, "median_us": 100, "p10_us": 90, "p90_us": 110},
      {"bytes": 2000, "median_us": 100, "p10_us": 80, "p90_us": 120}]}}})");
  // A non-increasing last segment (noise) falls back to scaling with size.
  std::optional<CostPoint> Big = Model.latency("copy", 4000);
  ASSERT_TRUE(Big);
  EXPECT_NEAR(Big->MedianUs, 200, 1e-9);
  EXPECT_LE(Big->P10Us, Big->MedianUs);
  EXPECT_GE(Big->P90Us, Big->MedianUs);
}

TEST(CostModelTest, GridIsBilinearInside) {
  CostModel Model = parseOrFail(SyntheticModel);
  EXPECT_DOUBLE_EQ(*Model.syncOverlapLossUs(0, 0), 5);
  EXPECT_DOUBLE_EQ(*Model.syncOverlapLossUs(10, 10), 15);
  EXPECT_DOUBLE_EQ(*Model.syncOverlapLossUs(100, 100), 105);
  // Halfway between (10,10)=15, (100,10)=15, (10,100)=15, (100,100)=105.
  EXPECT_DOUBLE_EQ(*Model.syncOverlapLossUs(55, 55), 37.5);
  EXPECT_DOUBLE_EQ(*Model.syncOverlapLossUs(5, 0), 5);
  EXPECT_DOUBLE_EQ(*Model.syncOverlapLossUs(5, 5), 7.5);
  EXPECT_DOUBLE_EQ(*Model.syncOverlapLossUs("loop.sync_overlap", 10, 100), 15);
  EXPECT_FALSE(Model.syncOverlapLossUs("loop.no_such_grid", 10, 10));
  EXPECT_DOUBLE_EQ(*Model.syncOverlapLossUs(-5, -5), 5) << "clamped to 0";
}

TEST(CostModelTest, GridScalesBeyondItsEdge) {
  CostModel Model = parseOrFail(SyntheticModel);
  // (200, 200) scales back to (100, 100): 5 + 2 * (105 - 5).
  EXPECT_DOUBLE_EQ(*Model.syncOverlapLossUs(200, 200), 205);
  // (1000, 10) scales to (100, 1): bilinear gives 6, so 5 + 10 * 1 = 15,
  // i.e. min(H, D) + 5 as the grid's shape says.
  EXPECT_NEAR(*Model.syncOverlapLossUs(1000, 10), 15, 1e-9);
}

TEST(CostModelTest, GridBelowItsCornerIsNotScaled) {
  // Host work that runs while the GPU works hides the sync: the cost falls
  // below the no-work corner and must not be scaled below zero.
  CostModel Model = parseOrFail(R"({
    "schema_version": 1, "provenance": {"device": "x"},
    "patterns": {"loop.sync_overlap.launch_first": {"kind": "overlap_grid",
      "host_us": [0, 100], "device_us": [0, 100], "cells": [
      {"host_us": 0, "device_us": 0, "per_iteration_cost_us": 5},
      {"host_us": 0, "device_us": 100, "per_iteration_cost_us": 7},
      {"host_us": 100, "device_us": 0, "per_iteration_cost_us": 1.5},
      {"host_us": 100, "device_us": 100, "per_iteration_cost_us": 5}]}}})");
  EXPECT_DOUBLE_EQ(
      *Model.syncOverlapLossUs("loop.sync_overlap.launch_first", 1000, 0), 1.5);
  EXPECT_DOUBLE_EQ(
      *Model.syncOverlapLossUs("loop.sync_overlap.launch_first", 1000, 1000),
      5);
  // Above the corner the excess still scales: (0, 200) -> 7 + 1 * 2.
  EXPECT_DOUBLE_EQ(
      *Model.syncOverlapLossUs("loop.sync_overlap.launch_first", 0, 200), 9);
  EXPECT_FALSE(Model.syncOverlapLossUs(10, 10)) << "no default grid here";
}

TEST(CostModelTest, HugeTimesSaturateInsteadOfOverflowing) {
  // Found by fuzz/CostModelFuzzer.cpp: finite times near the largest double
  // extrapolated or scaled to infinity, which a note cannot state and JSON
  // cannot hold.
  CostModel Model = parseOrFail(R"({
    "schema_version": 1, "provenance": {"device": "x"},
    "patterns": {
      "copy": {"kind": "latency", "sized": true, "points": [
        {"bytes": 1, "median_us": 1e300, "p10_us": 1e300, "p90_us": 1e300},
        {"bytes": 2, "median_us": 1.5e308, "p10_us": 1.5e308,
         "p90_us": 1.5e308}]},
      "loop.sync_overlap": {"kind": "overlap_grid",
        "host_us": [0, 1], "device_us": [0, 1], "cells": [
        {"host_us": 0, "device_us": 0, "per_iteration_cost_us": 1},
        {"host_us": 0, "device_us": 1, "per_iteration_cost_us": 1.7e308},
        {"host_us": 1, "device_us": 0, "per_iteration_cost_us": 1.7e308},
        {"host_us": 1, "device_us": 1, "per_iteration_cost_us": 1.7e308}]}}})");
  std::optional<CostPoint> Copy = Model.latency("copy", uint64_t(1) << 40);
  ASSERT_TRUE(Copy);
  EXPECT_TRUE(std::isfinite(Copy->MedianUs));
  EXPECT_TRUE(std::isfinite(Copy->P90Us));
  std::optional<double> Loss = Model.syncOverlapLossUs(1e6, 1e6);
  ASSERT_TRUE(Loss);
  EXPECT_TRUE(std::isfinite(*Loss));
}

TEST(CostModelTest, ReadsFidelity) {
  CostModel Model = parseOrFail(SyntheticModel);
  ASSERT_EQ(Model.fidelity().size(), 1u);
  const MeasuredSaving *Saving = Model.fidelity("loop.fix");
  ASSERT_TRUE(Saving);
  EXPECT_EQ(Saving->Source, "loop.cpp");
  EXPECT_EQ(Saving->Iterations, 1000u);
  EXPECT_DOUBLE_EQ(Saving->Saving.MedianUs, 16.1);
  EXPECT_DOUBLE_EQ(Saving->Saving.P10Us, 14.6);
  EXPECT_DOUBLE_EQ(Saving->HazardIteration.MedianUs, 28);
  EXPECT_DOUBLE_EQ(Saving->FixedIteration.P90Us, 13);
  EXPECT_FALSE(Model.fidelity("other"));
}

TEST(CostModelTest, ListsPatterns) {
  CostModel Model = parseOrFail(SyntheticModel);
  EXPECT_EQ(Model.patternIds(),
            (std::vector<std::string>{"copy", "loop.sync_overlap", "sync"}));
  EXPECT_TRUE(Model.hasPattern("loop.sync_overlap"));
  EXPECT_FALSE(Model.hasPattern("loop"));
}

TEST(CostModelTest, ErrorsNameTheSourceAndTheField) {
  EXPECT_EQ(parseError(R"({"schema_version": 1, "provenance": {"device": "x"},
      "patterns": {"torch.item": {"kind": "latency", "sized": false,
      "points": [{"median_us": "7", "p10_us": 7, "p90_us": 8}]}}})"),
            "test.json: patterns.torch.item.points[0].median_us: expected a "
            "number");
  EXPECT_EQ(parseError(R"({"schema_version": 3})"),
            "test.json: schema_version: unsupported version 3 (this build "
            "reads version 1)");
  EXPECT_EQ(parseError("[]"), "test.json: (root): expected an object");
  EXPECT_NE(parseError("{").find("test.json: invalid JSON: "),
            std::string::npos);
}

struct MalformedCase {
  const char *File;
  const char *Message; ///< Everything after "<path>: ".
};

class MalformedModelTest : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(MalformedModelTest, IsRejectedNamingTheField) {
  const MalformedCase &Case = GetParam();
  const std::string Path = CostModels + "/malformed/" + Case.File;
  llvm::Expected<CostModel> Model = CostModel::loadFile(Path);
  ASSERT_FALSE(Model) << Case.File << " was accepted";
  const std::string Message = llvm::toString(Model.takeError());
  EXPECT_EQ(Message.rfind(Path + ": ", 0), 0u) << Message;
  EXPECT_NE(Message.find(Case.Message), std::string::npos)
      << "expected \"" << Case.Message << "\" in: " << Message;
}

INSTANTIATE_TEST_SUITE_P(
    AllFixtures, MalformedModelTest,
    ::testing::Values(
        MalformedCase{"not-json.json", "invalid JSON: "},
        MalformedCase{"not-an-object.json", "(root): expected an object"},
        MalformedCase{"missing-version.json", "schema_version: missing"},
        MalformedCase{"wrong-version.json",
                      "schema_version: unsupported version 2"},
        MalformedCase{"version-not-integer.json",
                      "schema_version: expected an integer"},
        MalformedCase{"missing-device.json", "provenance.device: missing"},
        MalformedCase{"no-patterns.json",
                      "patterns: expected at least one pattern"},
        MalformedCase{"median-not-a-number.json",
                      "patterns.torch.item.points[0].median_us: expected a "
                      "number"},
        MalformedCase{"percentiles-out-of-order.json",
                      "patterns.cuda.kernel_launch.points[0]: expected "
                      "p10_us <= median_us <= p90_us"},
        MalformedCase{"unsized-with-two-points.json",
                      "patterns.cuda.kernel_launch.points: expected exactly "
                      "one point"},
        MalformedCase{"missing-bytes.json",
                      "patterns.cuda.memcpy_d2h.pinned.points[0].bytes: "
                      "missing"},
        MalformedCase{"sizes-not-increasing.json",
                      "patterns.cuda.memcpy_d2h.pinned.points[1].bytes: "
                      "expected sizes in increasing order"},
        MalformedCase{"unknown-kind.json",
                      "patterns.cuda.kernel_launch.kind: expected "
                      "\"latency\" or \"overlap_grid\""},
        MalformedCase{"grid-wrong-cell-count.json",
                      "patterns.loop.sync_overlap.cells: expected 4 cells"},
        MalformedCase{"grid-cell-misplaced.json",
                      "patterns.loop.sync_overlap.cells[1].host_us: expected "
                      "0"},
        MalformedCase{"grid-axis-not-increasing.json",
                      "patterns.loop.sync_overlap.host_us[1]: expected "
                      "increasing values"},
        MalformedCase{"fidelity-without-saving.json",
                      "fidelity.cuda_readback_loop.every_100.saving_per_"
                      "iteration_us: missing"}),
    [](const ::testing::TestParamInfo<MalformedCase> &Info) {
      std::string Name = Info.param.File;
      Name = Name.substr(0, Name.find('.'));
      for (char &C : Name)
        if (!std::isalnum(static_cast<unsigned char>(C)))
          C = '_';
      return Name;
    });

TEST(CostModelTest, MissingFileIsAnError) {
  llvm::Expected<CostModel> Model =
      CostModel::loadFile(CostModels + "/no-such-model.json");
  ASSERT_FALSE(Model);
  EXPECT_NE(llvm::toString(Model.takeError()).find("cannot read"),
            std::string::npos);
}

// The committed, measured model: complete, and it answers every pattern id
// the checks look up.
TEST(CostModelTest, DefaultModelIsCompleteAndMeasured) {
  llvm::Expected<CostModel> Model =
      CostModel::loadFile(CostModels + "/default.json");
  ASSERT_TRUE(bool(Model)) << llvm::toString(Model.takeError());
  const Provenance &P = Model->provenance();
  EXPECT_FALSE(P.Device.empty());
  EXPECT_FALSE(P.Driver.empty());
  EXPECT_FALSE(P.CudaRuntime.empty());
  EXPECT_FALSE(P.Date.empty());
  EXPECT_TRUE(P.Complete);
  EXPECT_FALSE(P.Quick);

  // Every pattern the warnings cite (include/xfer/CostPatterns.def).
  const char *const LatencyPatterns[] = {
#define XFER_LATENCY_PATTERN(Identifier, Id) Id,
#include "xfer/CostPatterns.def"
  };
  for (const char *Id : LatencyPatterns) {
    std::optional<CostPoint> Cost = Model->latency(Id, 8000);
    ASSERT_TRUE(Cost) << Id;
    EXPECT_GT(Cost->MedianUs, 0) << Id;
    EXPECT_LE(Cost->P10Us, Cost->MedianUs) << Id;
    EXPECT_GE(Cost->P90Us, Cost->MedianUs) << Id;
  }
  const char *const OverlapGrids[] = {
#define XFER_OVERLAP_GRID(Identifier, Id) Id,
#include "xfer/CostPatterns.def"
  };
  for (const char *Grid : OverlapGrids) {
    std::optional<double> Idle = Model->syncOverlapLossUs(Grid, 0, 0);
    ASSERT_TRUE(Idle) << Grid;
    EXPECT_GT(*Idle, 0) << Grid;
  }
  // Host work that precedes the GPU work it feeds: a sync loses about
  // min(H, D) on top of its latency.
  EXPECT_GT(*Model->syncOverlapLossUs(300, 300), 250);
  EXPECT_LT(*Model->syncOverlapLossUs(300, 300), 350);
  // Pinned copies are faster than pageable ones at 256 MiB.
  EXPECT_LT(Model->latency("cuda.memcpy_h2d.pinned", 256u << 20)->MedianUs,
            Model->latency("cuda.memcpy_h2d.pageable", 256u << 20)->MedianUs);

  for (const char *Id :
       {"cuda_readback_loop.every_100", "cuda_readback_loop.after_loop",
        "torch_inference_loop.item_every_100",
        "torch_inference_loop.cpu_every_100",
        "seed_training_loop.item_every_100.cuda",
        "seed_training_loop.resident_data.cuda"})
    EXPECT_TRUE(Model->fidelity(Id)) << Id;
}

TEST(CostModelTest, DeviceNamedCopyMatchesDefault) {
  llvm::Expected<CostModel> Default =
      CostModel::loadFile(CostModels + "/default.json");
  llvm::Expected<CostModel> Named =
      CostModel::loadFile(CostModels + "/nvidia-h200.json");
  ASSERT_TRUE(bool(Default)) << llvm::toString(Default.takeError());
  ASSERT_TRUE(bool(Named)) << llvm::toString(Named.takeError());
  EXPECT_EQ(Default->provenance().Date, Named->provenance().Date);
  EXPECT_EQ(Default->patternIds(), Named->patternIds());
}

TEST(CostModelTest, BuiltinMatchesDefaultWhenEmbedded) {
  const CostModel *Builtin = CostModel::builtin();
#ifdef XFER_EXPECT_BUILTIN_COST_MODEL
  ASSERT_TRUE(Builtin) << "the build should have embedded default.json";
#endif
  if (!Builtin)
    GTEST_SKIP() << "this build embeds no default cost model";
  EXPECT_EQ(Builtin, CostModel::builtin()) << "parsed once";
  llvm::Expected<CostModel> Default =
      CostModel::loadFile(CostModels + "/default.json");
  ASSERT_TRUE(bool(Default)) << llvm::toString(Default.takeError());
  EXPECT_EQ(Builtin->provenance().Device, Default->provenance().Device);
  EXPECT_EQ(Builtin->provenance().Date, Default->provenance().Date);
  EXPECT_EQ(Builtin->patternIds(), Default->patternIds());
}

#ifdef XFER_HAVE_BENCH_CORE
// What xfer-bench writes, the checks read back.
TEST(CostModelTest, RoundTripsWhatTheBenchWrites) {
  xferbench::CostModelDocument Document;
  Document.Provenance.ToolVersion = "0.1.0";
  Document.Provenance.CommandLine = "xfer-bench --output costs.json";
  Document.Provenance.DateUtc = "2026-11-22T01:02:03Z";
  Document.Provenance.Complete = true;
  Document.Provenance.Device = "Round Trip GPU";
  Document.Provenance.ComputeCapability = "9.0";
  Document.Provenance.Driver = "580.159.04";
  Document.Provenance.CudaRuntime = "13.0";
  Document.Provenance.LibTorch = std::nullopt;
  Document.Provenance.CpuModel = "CPU \"quoted\" \\ model";

  auto Summary = [](double Median, double P10, double P90) {
    xferbench::SampleSummary S;
    S.MedianUs = Median;
    S.P10Us = P10;
    S.P90Us = P90;
    S.MinUs = P10;
    S.MaxUs = P90;
    S.Reps = 100;
    return S;
  };
  xferbench::LatencyPattern Sized;
  Sized.Id = "cuda.memcpy_d2h.pinned";
  Sized.Sized = true;
  Sized.Points.push_back({4, Summary(6.7114, 6.6, 7.16)});
  Sized.Points.push_back({1u << 20, Summary(25.73, 25.4, 26.27)});
  Document.addLatency(Sized);
  xferbench::LatencyPattern Unsized;
  Unsized.Id = "torch.item";
  Unsized.Points.push_back({std::nullopt, Summary(7.08, 7.0, 7.26)});
  Document.addLatency(Unsized);
  xferbench::LatencyPattern Empty;
  Empty.Id = "never.measured";
  Document.addLatency(Empty); // Left out, never written as zeros.

  xferbench::OverlapGrid Grid;
  Grid.Id = "loop.sync_overlap";
  Grid.HostUs = {0, 10};
  Grid.DeviceUs = {0, 10};
  for (double H : Grid.HostUs)
    for (double D : Grid.DeviceUs) {
      xferbench::OverlapCell Cell;
      Cell.HostUs = H;
      Cell.DeviceUs = D;
      Cell.Cost =
          Summary(std::min(H, D) + 5, std::min(H, D) + 4, std::min(H, D) + 6);
      Grid.Cells.push_back(Cell);
    }
  Document.addGrid(Grid);

  xferbench::FidelityRecord Record;
  Record.Id = "cuda_readback_loop.every_100";
  Record.Source = "runtime/reference-loops/CudaReadbackLoop.cu";
  Record.Iterations = 1000;
  Record.Saving = Summary(16.1, 14.6, 16.8);
  Record.HazardIteration = Summary(28.17, 28, 28.5);
  Record.FixedIteration = Summary(11.77, 11.7, 11.9);
  Document.addFidelity(Record);

  const std::string Json = Document.toJson().serialize();
  llvm::Expected<CostModel> Model = CostModel::parse(Json, "roundtrip.json");
  ASSERT_TRUE(bool(Model)) << llvm::toString(Model.takeError()) << "\n" << Json;
  EXPECT_EQ(Model->provenance().Device, "Round Trip GPU");
  EXPECT_EQ(Model->provenance().CpuModel, "CPU \"quoted\" \\ model");
  EXPECT_EQ(Model->provenance().LibTorch, "");
  EXPECT_EQ(Model->provenance().CommandLine, "xfer-bench --output costs.json");
  EXPECT_TRUE(Model->provenance().Complete);
  EXPECT_FALSE(Model->hasPattern("never.measured"));
  // Microseconds are kept to the nanosecond.
  EXPECT_DOUBLE_EQ(Model->latency("cuda.memcpy_d2h.pinned", 4)->MedianUs,
                   6.711);
  EXPECT_DOUBLE_EQ(Model->latency("cuda.memcpy_d2h.pinned", 1u << 20)->P90Us,
                   26.27);
  EXPECT_DOUBLE_EQ(Model->latency("torch.item")->P10Us, 7.0);
  EXPECT_DOUBLE_EQ(*Model->syncOverlapLossUs(10, 10), 15);
  EXPECT_DOUBLE_EQ(*Model->syncOverlapLossUs(5, 5), 7.5);
  const MeasuredSaving *Saving =
      Model->fidelity("cuda_readback_loop.every_100");
  ASSERT_TRUE(Saving);
  EXPECT_DOUBLE_EQ(Saving->Saving.MedianUs, 16.1);
  EXPECT_DOUBLE_EQ(Saving->HazardIteration.MedianUs, 28.17);
  EXPECT_EQ(Saving->Iterations, 1000u);
}
#endif

} // namespace
