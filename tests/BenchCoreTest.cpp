//===--- BenchCoreTest.cpp - xfer-bench's host-only core ------------------===//
//
// Part of xfer-tidy. Runs without a GPU: statistics, JSON writing, the
// command line, provenance, and xfer-bench's no-GPU exit status.
//
//===----------------------------------------------------------------------===//

#include "benchcore/BenchOptions.h"
#include "benchcore/BenchSession.h"
#include "benchcore/BenchStats.h"
#include "benchcore/CostModelDocument.h"
#include "benchcore/HostProvenance.h"
#include "benchcore/JsonValue.h"
#include "benchcore/Sweep.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace xferbench;

namespace {

TEST(BenchStatsTest, QuantilesInterpolateBetweenRanks) {
  const std::vector<double> Sorted = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_DOUBLE_EQ(quantileOfSorted(Sorted, 0.5), 5.5);
  EXPECT_DOUBLE_EQ(quantileOfSorted(Sorted, 0.1), 1.9);
  EXPECT_DOUBLE_EQ(quantileOfSorted(Sorted, 0.9), 9.1);
  EXPECT_DOUBLE_EQ(quantileOfSorted(Sorted, 0.0), 1);
  EXPECT_DOUBLE_EQ(quantileOfSorted(Sorted, 1.0), 10);
  EXPECT_DOUBLE_EQ(quantileOfSorted({42}, 0.9), 42);
}

TEST(BenchStatsTest, SummarizeIgnoresOrderAndIsRobustToOutliers) {
  SampleSummary S = summarize({9, 1, 5, 3, 7, 1000}, /*Warmup=*/4);
  EXPECT_EQ(S.Reps, 6u);
  EXPECT_EQ(S.Warmup, 4u);
  EXPECT_DOUBLE_EQ(S.MedianUs, 6);
  EXPECT_DOUBLE_EQ(S.MinUs, 1);
  EXPECT_DOUBLE_EQ(S.MaxUs, 1000);
  EXPECT_DOUBLE_EQ(S.MeanUs, 1025.0 / 6);
  EXPECT_DOUBLE_EQ(S.P10Us, 2);
  EXPECT_DOUBLE_EQ(S.P90Us, 504.5);
  EXPECT_DOUBLE_EQ(S.relativeSpread(), (504.5 - 2) / 6);
}

TEST(BenchStatsTest, EmptySummaryIsZero) {
  SampleSummary S = summarize({});
  EXPECT_EQ(S.Reps, 0u);
  EXPECT_EQ(S.MedianUs, 0);
  EXPECT_EQ(S.relativeSpread(), 0);
}

TEST(BenchStatsTest, FitLineSeparatesSlopeFromIntercept) {
  // Iteration time = 3 us once + 2 us per launch, launches 4..32.
  LineFit Fit = fitLine({4, 8, 16, 32}, {11, 19, 35, 67});
  EXPECT_DOUBLE_EQ(Fit.Slope, 2);
  EXPECT_DOUBLE_EQ(Fit.Intercept, 3);
  LineFit Flat = fitLine({8, 8}, {1, 2});
  EXPECT_EQ(Flat.Slope, 0);
  EXPECT_EQ(Flat.Intercept, 0);
}

TEST(BenchStatsTest, CollectRunsWarmupThenAtLeastMinReps) {
  int Calls = 0;
  double FakeNow = 0;
  RepetitionPolicy Policy;
  Policy.Warmup = 3;
  Policy.MinReps = 5;
  Policy.MaxReps = 100;
  Policy.BudgetMs = 0; // Over budget at once: stop right after MinReps.
  SampleSummary S = collectSamples(
      Policy, [&] { return double(++Calls); }, [&] { return FakeNow += 1; });
  EXPECT_EQ(Calls, 8);
  EXPECT_EQ(S.Reps, 5u);
  EXPECT_EQ(S.Warmup, 3u);
  EXPECT_DOUBLE_EQ(S.MinUs, 4) << "warm-up values are not recorded";
  EXPECT_DOUBLE_EQ(S.MaxUs, 8);
}

TEST(BenchStatsTest, CollectStopsAtTheBudgetOrMaxReps) {
  double FakeNow = 0;
  RepetitionPolicy Policy;
  Policy.Warmup = 0;
  Policy.MinReps = 2;
  Policy.MaxReps = 1000;
  Policy.BudgetMs = 1; // 1000 us; each repetition advances the clock 100 us.
  SampleSummary S = collectSamples(
      Policy,
      [&] {
        FakeNow += 100;
        return 100.0;
      },
      [&] { return FakeNow; });
  EXPECT_EQ(S.Reps, 10u);

  Policy.BudgetMs = 1e9;
  Policy.MaxReps = 7;
  S = collectSamples(
      Policy, [&] { return 1.0; }, [&] { return 0.0; });
  EXPECT_EQ(S.Reps, 7u);
}

TEST(BenchStatsTest, PairedDifferences) {
  EXPECT_EQ(pairedDifferences({5, 7, 9}, {1, 2}), (std::vector<double>{4, 5}));
}

TEST(JsonValueTest, EscapesStrings) {
  EXPECT_EQ(JsonValue::quote("a\"b\\c\nd\te\x01"),
            "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
  EXPECT_EQ(JsonValue::quote("µs"), "\"µs\"") << "UTF-8 passes through";
}

TEST(JsonValueTest, FormatsNumbers) {
  EXPECT_EQ(JsonValue::formatNumber(268435456), "268435456");
  EXPECT_EQ(JsonValue::formatNumber(0.5), "0.5");
  EXPECT_EQ(JsonValue::formatNumber(6.711), "6.711");
  EXPECT_EQ(JsonValue::formatNumber(-2), "-2");
  EXPECT_EQ(JsonValue::formatNumber(NAN), "null");
  EXPECT_EQ(JsonValue::formatNumber(INFINITY), "null");
}

TEST(JsonValueTest, SerializesInInsertionOrder) {
  JsonValue Root = JsonValue::object();
  Root.set("zeta", 1);
  Root.set("alpha", JsonValue());
  Root.set("list", JsonValue::array());
  Root.set("zeta", 2); // Replaces in place.
  JsonValue Point = JsonValue::object();
  Point.set("bytes", uint64_t(4));
  Point.set("median_us", 7.5);
  JsonValue Points = JsonValue::array();
  Points.push(Point);
  Root.set("points", Points);
  Root.set("flag", true);
  // Containers of scalars stay on one line; the others break.
  EXPECT_EQ(Root.serialize(), "{\n"
                              "  \"zeta\": 2,\n"
                              "  \"alpha\": null,\n"
                              "  \"list\": [],\n"
                              "  \"points\": [\n"
                              "    {\"bytes\": 4, \"median_us\": 7.5}\n"
                              "  ],\n"
                              "  \"flag\": true\n"
                              "}\n");
  ASSERT_TRUE(Root.get("zeta"));
  EXPECT_FALSE(Root.get("missing"));
  EXPECT_EQ(Root.size(), 5u);
}

TEST(JsonValueTest, BreaksLongContainersIntoLines) {
  JsonValue Root = JsonValue::object();
  Root.set("description", std::string(200, 'x'));
  Root.set("n", 1);
  const std::string Text = Root.serialize();
  EXPECT_EQ(Text, "{\n  \"description\": \"" + std::string(200, 'x') +
                      "\",\n  \"n\": 1\n}\n");
}

TEST(CostModelDocumentTest, WritesTheSchema) {
  CostModelDocument Document;
  Document.Provenance.Device = "GPU";
  Document.Provenance.Driver = std::nullopt;
  LatencyPattern Pattern;
  Pattern.Id = "torch.item";
  SampleSummary S = summarize({7.0004, 7.0006, 7.2});
  Pattern.Points.push_back({std::nullopt, S});
  Document.addLatency(Pattern);
  Pattern.Points.clear();
  Pattern.Id = "empty";
  Document.addLatency(Pattern);
  ASSERT_EQ(Document.latencies().size(), 1u);
  EXPECT_TRUE(Document.findLatency("torch.item"));

  JsonValue Json = Document.toJson();
  ASSERT_TRUE(Json.get("schema_version"));
  EXPECT_EQ(Json.get("schema_version")->serialize(), "1\n");
  const JsonValue *Provenance = Json.get("provenance");
  ASSERT_TRUE(Provenance);
  EXPECT_EQ(Provenance->get("driver")->serialize(), "null\n");
  EXPECT_EQ(Provenance->get("device")->serialize(), "\"GPU\"\n");
  EXPECT_FALSE(Provenance->get("host_name")) << "no host name, ever";
  const JsonValue *Item = Json.get("patterns")->get("torch.item");
  ASSERT_TRUE(Item);
  EXPECT_EQ(Item->get("kind")->serialize(), "\"latency\"\n");
  // Rounded to the nanosecond: p10 = 7.00044 -> 7.
  EXPECT_EQ(Item->get("points")->serialize(),
            "[\n  {\"median_us\": 7.001, \"p10_us\": 7, \"p90_us\": 7.16, "
            "\"min_us\": 7, \"max_us\": 7.2, \"spread\": 0.023, \"reps\": 3, "
            "\"warmup\": 0}\n]\n");
  EXPECT_FALSE(Json.get("patterns")->get("empty"));
}

TEST(BenchOptionsTest, ParsesEveryOption) {
  const char *Argv[] = {"xfer-bench",   "--output", "costs.json",
                        "--quick",      "--only",   "cuda.*,torch.item",
                        "--only=loop.*"};
  BenchOptions Options;
  std::string Error;
  ASSERT_TRUE(parseBenchOptions(7, Argv, Options, Error)) << Error;
  EXPECT_EQ(Options.OutputPath, "costs.json");
  EXPECT_TRUE(Options.Quick);
  EXPECT_FALSE(Options.Help);
  EXPECT_EQ(Options.OnlyGlobs,
            (std::vector<std::string>{"cuda.*", "torch.item", "loop.*"}));
  EXPECT_TRUE(Options.selects("cuda.kernel_launch"));
  EXPECT_TRUE(Options.selects("torch.item"));
  EXPECT_FALSE(Options.selects("torch.item.after_op"));
  EXPECT_TRUE(Options.selects("loop.sync_overlap"));
  EXPECT_TRUE(Options.selectsAnyWithPrefix("torch."));
  EXPECT_FALSE(Options.selectsAnyWithPrefix("fidelity."));
}

TEST(BenchOptionsTest, DefaultsSelectEverything) {
  const char *Argv[] = {"xfer-bench"};
  BenchOptions Options;
  std::string Error;
  ASSERT_TRUE(parseBenchOptions(1, Argv, Options, Error));
  EXPECT_TRUE(Options.OutputPath.empty());
  EXPECT_FALSE(Options.Quick);
  EXPECT_TRUE(Options.selects("anything"));
  EXPECT_TRUE(Options.selectsAnyWithPrefix("fidelity."));
}

TEST(BenchOptionsTest, RejectsBadCommandLines) {
  BenchOptions Options;
  std::string Error;
  const char *Unknown[] = {"xfer-bench", "--fast"};
  EXPECT_FALSE(parseBenchOptions(2, Unknown, Options, Error));
  EXPECT_EQ(Error, "unknown argument '--fast'");
  const char *NoValue[] = {"xfer-bench", "--output"};
  EXPECT_FALSE(parseBenchOptions(2, NoValue, Options, Error));
  EXPECT_EQ(Error, "--output needs a value");
  const char *EmptyGlob[] = {"xfer-bench", "--only", ","};
  EXPECT_FALSE(parseBenchOptions(3, EmptyGlob, Options, Error));
  const char *Help[] = {"xfer-bench", "--help"};
  EXPECT_TRUE(parseBenchOptions(2, Help, Options, Error));
  EXPECT_TRUE(Options.Help);
  EXPECT_NE(benchUsage("xfer-bench").find("--output"), std::string::npos);
}

TEST(BenchOptionsTest, GlobMatching) {
  EXPECT_TRUE(globMatches("*", ""));
  EXPECT_TRUE(globMatches("cuda.*", "cuda.memcpy_d2h.pinned"));
  EXPECT_TRUE(globMatches("*.pinned", "cuda.memcpy_d2h.pinned"));
  EXPECT_TRUE(globMatches("cuda.memcpy_?2h.*", "cuda.memcpy_d2h.pinned"));
  EXPECT_TRUE(globMatches("*memcpy*pinned*", "cuda.memcpy_h2d.pinned_return"));
  EXPECT_FALSE(globMatches("cuda.*", "torch.item"));
  EXPECT_FALSE(globMatches("torch.item", "torch.item.after_op"));
  EXPECT_FALSE(globMatches("?", ""));
}

TEST(HostProvenanceTest, ReadsCpuModel) {
  EXPECT_EQ(cpuModelFromCpuinfo("processor\t: 0\nvendor_id\t: GenuineIntel\n"
                                "model name\t: Intel(R) Xeon(R) Processor \n"
                                "model name\t: second\n"),
            "Intel(R) Xeon(R) Processor");
  EXPECT_EQ(cpuModelFromCpuinfo("processor : 0\n"), "");
  EXPECT_FALSE(readCpuModel().empty());
}

TEST(HostProvenanceTest, FormatsUtcDates) {
  EXPECT_EQ(formatUtc(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(formatUtc(1795309445), "2026-11-22T01:04:05Z");
  EXPECT_EQ(utcNow().size(), 20u);
}

TEST(HostProvenanceTest, ReadsTheDriverVersion) {
  EXPECT_EQ(driverFromProcVersion(
                "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
                "580.159.04  Release Build  (dvs-builder@U16)\nGCC version:"),
            "580.159.04");
  EXPECT_EQ(driverFromProcVersion("NVRM version: NVIDIA UNIX x86_64 Kernel "
                                  "Module  535.104.05  Sat Aug 19 01:15:15"),
            "535.104.05");
  EXPECT_FALSE(driverFromProcVersion("nothing here"));
}

TEST(HostProvenanceTest, CommandLineDropsTheProgramDirectory) {
  const char *Argv[] = {"/some/build/dir/xfer-bench", "--only", "cuda.*",
                        "--output", "my costs.json"};
  EXPECT_EQ(joinCommandLine(5, Argv),
            "xfer-bench --only 'cuda.*' --output 'my costs.json'");
}

class AtomicWriteTest : public ::testing::Test {
protected:
  void SetUp() override {
    Directory = std::filesystem::temp_directory_path() /
                ("xfer-bench-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(Directory);
  }
  void TearDown() override { std::filesystem::remove_all(Directory); }
  std::filesystem::path Directory;
};

TEST_F(AtomicWriteTest, ReplacesTheFileAndLeavesNoTemporary) {
  const std::string Path = (Directory / "costs.json").string();
  std::string Error;
  ASSERT_TRUE(writeFileAtomically(Path, "first", Error)) << Error;
  ASSERT_TRUE(writeFileAtomically(Path, "second", Error)) << Error;
  EXPECT_EQ(readTextFile(Path), "second");
  size_t Files = 0;
  for ([[maybe_unused]] const auto &Entry :
       std::filesystem::directory_iterator(Directory))
    ++Files;
  EXPECT_EQ(Files, 1u);
}

TEST_F(AtomicWriteTest, FailsCleanlyInAMissingDirectory) {
  const std::string Path = (Directory / "missing" / "costs.json").string();
  std::string Error;
  EXPECT_FALSE(writeFileAtomically(Path, "data", Error));
  EXPECT_NE(Error.find("cannot create"), std::string::npos) << Error;
  EXPECT_FALSE(std::filesystem::exists(Path));
}

TEST_F(AtomicWriteTest, SessionCheckpointsAreMarkedIncomplete) {
  BenchOptions Options;
  BenchSession Session(Options);
  const std::string Path = (Directory / "costs.json").string();
  Session.setOutputPath(Path);
  Session.document().Provenance.Device = "GPU";
  std::string Error;
  ASSERT_TRUE(Session.checkpoint(Error)) << Error;
  EXPECT_NE(readTextFile(Path)->find("\"complete\": false"), std::string::npos);
  ASSERT_TRUE(Session.writeFinal(Error)) << Error;
  EXPECT_NE(readTextFile(Path)->find("\"complete\": true"), std::string::npos);
}

TEST(SweepTest, GeometricSizes) {
  std::vector<uint64_t> Sizes = geometricSizes(4, 256u << 20, 4);
  ASSERT_EQ(Sizes.size(), 14u);
  EXPECT_EQ(Sizes.front(), 4u);
  EXPECT_EQ(Sizes[1], 16u);
  EXPECT_EQ(Sizes.back(), 256u << 20);
  EXPECT_EQ(geometricSizes(4, 100, 4), (std::vector<uint64_t>{4, 16, 64, 100}));
  EXPECT_TRUE(geometricSizes(0, 100, 4).empty());
}

TEST(SweepTest, RotatingOffsetsStayInsideTheArenaAndMove) {
  const size_t Arena = 1 << 20;
  for (size_t Bytes : {size_t(4), size_t(5000), size_t(300000)}) {
    std::vector<size_t> Seen;
    for (size_t Rep = 0; Rep < 64; ++Rep) {
      size_t Offset = rotatingOffset(Rep, Bytes, Arena);
      EXPECT_LE(Offset + Bytes, Arena) << Bytes;
      EXPECT_EQ(Offset % 4096, 0u);
      Seen.push_back(Offset);
    }
    EXPECT_NE(Seen[0], Seen[1]) << "consecutive repetitions use new memory";
  }
  EXPECT_EQ(rotatingOffset(5, Arena, Arena), 0u) << "one copy fits: no move";
}

// Without a visible GPU, xfer-bench says why on one line and exits with 2;
// CUDA_VISIBLE_DEVICES="" hides any GPU, so this holds on GPU machines too.
#ifdef XFER_BENCH_EXECUTABLE
struct ProcessResult {
  int Status = -1;
  std::string Output;
};

ProcessResult runBench(const std::string &Arguments) {
  const std::string Command = std::string("CUDA_VISIBLE_DEVICES= '") +
                              XFER_BENCH_EXECUTABLE + "' " + Arguments;
  ProcessResult Result;
  FILE *Pipe = popen(Command.c_str(), "r");
  if (!Pipe)
    return Result;
  char Buffer[512];
  while (size_t N = fread(Buffer, 1, sizeof(Buffer), Pipe))
    Result.Output.append(Buffer, N);
  int Raw = pclose(Pipe);
  Result.Status = WIFEXITED(Raw) ? WEXITSTATUS(Raw) : -1;
  return Result;
}

TEST(XferBenchExecutableTest, ExitsWithTwoWithoutAGpu) {
  const std::string Output =
      (std::filesystem::temp_directory_path() /
       ("xfer-bench-nogpu-" + std::to_string(getpid()) + ".json"))
          .string();
  // stderr only: the reason must be there, and stdout must stay empty.
  ProcessResult Result =
      runBench("--quick --output '" + Output + "' 2>&1 1>/dev/null");
  EXPECT_EQ(Result.Status, 2) << Result.Output;
  EXPECT_EQ(Result.Output.rfind("xfer-bench: no CUDA device available", 0), 0u)
      << Result.Output;
  ASSERT_FALSE(Result.Output.empty());
  EXPECT_EQ(Result.Output.find('\n'), Result.Output.size() - 1)
      << "one line: " << Result.Output;
  EXPECT_FALSE(std::filesystem::exists(Output)) << "no cost model written";
}

TEST(XferBenchExecutableTest, HelpAndUsageErrorsNeedNoGpu) {
  ProcessResult Help = runBench("--help 2>&1");
  EXPECT_EQ(Help.Status, 0);
  EXPECT_NE(Help.Output.find("usage: xfer-bench"), std::string::npos);
  ProcessResult Bad = runBench("--frobnicate 2>&1");
  EXPECT_EQ(Bad.Status, 64);
  EXPECT_NE(Bad.Output.find("unknown argument '--frobnicate'"),
            std::string::npos);
}
#endif

} // namespace
