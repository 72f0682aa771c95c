//===--- OutputFormatsTest.cpp - report formats on synthetic findings -----===//

#include "OutputFormats.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <cmath>

namespace xfer {
namespace {

Finding finding(std::string File, unsigned Line, unsigned Column,
                std::string Message) {
  Finding F;
  F.CheckName = "xfer-sync-in-loop";
  F.Where.File = std::move(File);
  F.Where.Line = Line;
  F.Where.Column = Column;
  F.Message = std::move(Message);
  return F;
}

// Workflow commands: '%', CR and LF escaped everywhere, ',' and ':' in
// properties too; the cost note follows the message.
TEST(OutputFormatsTest, GithubWorkflowCommandsAreEscaped) {
  Finding F = finding("/repo/src/a,b:c.cpp", 4, 7, "100% of\r\nthe time: x");
  F.Notes.push_back({{}, "loop starts here"});
  F.Notes.push_back({{}, "measured cost: 9.16 µs per call (measured on X)"});
  Finding Outside = finding("/elsewhere/b.cpp", 2, 1, "m");
  Outside.Severity = Finding::Level::Error;
  Outside.CheckName = "clang-diagnostic-error";
  Finding Nowhere = finding("", 0, 0, "unknown argument: '-foo'");
  Nowhere.Severity = Finding::Level::Error;
  Nowhere.CheckName = "clang-diagnostic-error";

  std::string Text;
  llvm::raw_string_ostream OS(Text);
  writeGithub(OS, {F, Outside, Nowhere}, "/repo");
  EXPECT_EQ("::warning file=src/a%2Cb%3Ac.cpp,line=4,col=7,"
            "title=xfer-sync-in-loop::100%25 of%0D%0Athe time: x (measured "
            "cost: 9.16 µs per call (measured on X))\n"
            "::error file=/elsewhere/b.cpp,line=2,col=1,"
            "title=clang-diagnostic-error::m\n"
            "::error title=clang-diagnostic-error::unknown argument: '-foo'\n",
            Text);
}

TEST(OutputFormatsTest, JsonNumbersAsWritten) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  writeJson(OS, llvm::json::Object{{"b", 5.18}, {"a", 17700.000000000004},
                                   {"c", llvm::json::Array{0.1, 3}}});
  EXPECT_EQ("{\n  \"a\": 17700,\n  \"b\": 5.18,\n  \"c\": [\n    0.1,\n    3\n"
            "  ]\n}",
            Text);
}

/// The property \p Key of \p Properties, written as the JSON report writes
/// it.
std::string written(const llvm::json::Object &Properties, llvm::StringRef Key) {
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  writeJson(OS, *Properties.get(Key));
  return Text;
}

/// A finding of \p Check whose second note carries \p Cost.
Finding findingCiting(const clang::tidy::xfer::CostNote &Cost,
                      std::string Check = "xfer-sync-in-loop") {
  Finding F = finding("/repo/train.cpp", 34, 35, "'item<float>()' ...");
  F.CheckName = std::move(Check);
  F.Notes.push_back({{"/repo/train.cpp", 0, 25, 3}, "loop starts here", {}});
  F.Notes.push_back({{"/repo/train.cpp", 0, 34, 35}, Cost.text(), Cost});
  return F;
}

// A cost note's figures reach the text, the JSON report and the SARIF log
// as the same numbers: the ones the text states.
TEST(OutputFormatsTest, CostNoteRoundTrip) {
  clang::tidy::xfer::CostNote Cost;
  Cost.PatternId = "torch.item";
  Cost.PerCallUs = 9.1583;
  Cost.OverlapUs = 8.54;
  Cost.Executions = 1000;
  Cost.MeasuredOn = "NVIDIA H200, driver 580.159.04, CUDA 13.0";
  EXPECT_EQ("measured cost: 9.16 µs per call + 8.5 µs of lost CPU/GPU "
            "overlap per iteration, ≈ 17.7 ms over 1000 executions "
            "(measured on NVIDIA H200, driver 580.159.04, CUDA 13.0)",
            Cost.text());

  Finding F = findingCiting(Cost);
  llvm::json::Object Properties = costProperties(F);
  EXPECT_EQ(5u, Properties.size());
  EXPECT_EQ("9.16", written(Properties, "latencyMicroseconds"));
  EXPECT_EQ("8.5", written(Properties, "overlapLossMicrosecondsPerIteration"));
  EXPECT_EQ("17700", written(Properties, "totalMicroseconds"));
  EXPECT_EQ("1000", written(Properties, "executions"));
  EXPECT_EQ("\"NVIDIA H200, driver 580.159.04, CUDA 13.0\"",
            written(Properties, "measuredOn"));
  EXPECT_EQ(&F.Notes[1], costNote(F));

  llvm::json::Value Json = toJson({F});
  const llvm::json::Object *Reported =
      (*Json.getAsObject()->getArray("findings"))[0].getAsObject();
  EXPECT_EQ(llvm::json::Value(llvm::json::Object(Properties)),
            *Reported->get("properties"));

  PositionResolver Resolver;
  llvm::json::Value Sarif = toSarif({F}, Resolver, SarifOptions{});
  const llvm::json::Object *Result =
      (*(*Sarif.getAsObject()->getArray("runs"))[0].getAsObject()->getArray(
          "results"))[0]
          .getAsObject();
  EXPECT_EQ(llvm::json::Value(llvm::json::Object(Properties)),
            *Result->get("properties"));
}

// Figures the text leaves out (an overlap below 0.05 µs, a total over one
// execution) are not properties either; totals in seconds keep the text's
// two decimals.
TEST(OutputFormatsTest, CostNoteStatesOnlyWhatItWrites) {
  clang::tidy::xfer::CostNote Cost;
  Cost.PerCallUs = 61.694;
  Cost.OverlapUs = 0.04;
  Cost.Executions = 1;
  Cost.MeasuredOn = "X";
  EXPECT_EQ("measured cost: 61.69 µs per call (measured on X)", Cost.text());
  llvm::json::Object Properties =
      findingCiting(Cost).Notes[1].Cost->properties();
  EXPECT_EQ(2u, Properties.size());
  EXPECT_EQ("61.69", written(Properties, "latencyMicroseconds"));

  Cost.OverlapUs = 1000;
  Cost.Executions = 100000;
  EXPECT_EQ("measured cost: 61.69 µs per call + 1000.0 µs of lost CPU/GPU "
            "overlap per iteration, ≈ 106.17 s over 100000 executions "
            "(measured on X)",
            Cost.text());
  Properties = costProperties(findingCiting(Cost));
  EXPECT_EQ("1000", written(Properties, "overlapLossMicrosecondsPerIteration"));
  EXPECT_EQ("106170000", written(Properties, "totalMicroseconds"));
}

// Found by fuzz/CostModelFuzzer.cpp: figures that overflow are stated as
// the largest double, never as "inf", which is no JSON number.
TEST(OutputFormatsTest, CostNoteFiguresNeverOverflow) {
  clang::tidy::xfer::CostNote Cost;
  Cost.PerCallUs = 1.5e308;
  Cost.OverlapUs = 1.5e308;
  Cost.Executions = 1000000;
  Cost.MeasuredOn = "X";
  EXPECT_TRUE(std::isfinite(Cost.perExecutionUs()));
  EXPECT_TRUE(std::isfinite(Cost.totalUs()));
  std::string Json;
  llvm::raw_string_ostream(Json) << llvm::json::Value(Cost.properties());
  llvm::Expected<llvm::json::Value> Parsed = llvm::json::parse(Json);
  EXPECT_TRUE(static_cast<bool>(Parsed)) << Json;
  if (!Parsed)
    llvm::consumeError(Parsed.takeError());
}

TEST(OutputFormatsTest, LaunchSavingNoteRoundTrip) {
  clang::tidy::xfer::CostNote Saving;
  Saving.Kind = clang::tidy::xfer::CostNote::Form::LaunchSaving;
  Saving.PatternId = "cuda.graph.eager_per_kernel";
  Saving.FixPatternId = "cuda.graph.replay_per_kernel";
  Saving.PerCallUs = 2.6617;
  Saving.LaunchesPerIteration = 10;
  Saving.Executions = 1000;
  Saving.MeasuredOn = "X";
  EXPECT_EQ("measured cost: 2.66 µs per launch (eager launch minus graph "
            "replay) × 10 launches = 26.62 µs per iteration, ≈ 26.6 ms over "
            "1000 iterations (measured on X)",
            Saving.text());
  llvm::json::Object Properties =
      costProperties(findingCiting(Saving, "xfer-launch-bound-loop"));
  EXPECT_EQ(6u, Properties.size());
  EXPECT_EQ("26.62", written(Properties, "latencyMicroseconds"));
  EXPECT_EQ("2.66", written(Properties, "savingPerLaunchMicroseconds"));
  EXPECT_EQ("10", written(Properties, "launchesPerIteration"));
  EXPECT_EQ("26600", written(Properties, "totalMicroseconds"));
  EXPECT_EQ("1000", written(Properties, "executions"));
  EXPECT_EQ("\"X\"", written(Properties, "measuredOn"));
}

// The figures travel beside the text: a table filled while the checks run,
// read when the findings are made.
TEST(OutputFormatsTest, CostNoteTableFindsTheEmittedNote) {
  using clang::tidy::xfer::CostNote;
  using clang::tidy::xfer::CostNoteTable;
  CostNote Cost;
  Cost.PerCallUs = 5.18;
  Cost.MeasuredOn = "X";
  CostNoteTable Table;
  EXPECT_EQ(nullptr, CostNoteTable::recording());
  {
    CostNoteTable::RecordingScope Recording(Table);
    ASSERT_EQ(&Table, CostNoteTable::recording());
    CostNoteTable::recording()->add("xfer-sync-in-loop", "a.cpp", 42, Cost);
  }
  EXPECT_EQ(nullptr, CostNoteTable::recording());
  const CostNote *Found =
      Table.find("xfer-sync-in-loop", "a.cpp", 42, Cost.text());
  ASSERT_NE(nullptr, Found);
  EXPECT_EQ(5.18, Found->PerCallUs);
  EXPECT_EQ(nullptr, Table.find("xfer-copy-in-loop", "a.cpp", 42, Cost.text()));
  EXPECT_EQ(nullptr, Table.find("xfer-sync-in-loop", "a.cpp", 43, Cost.text()));
  EXPECT_EQ(nullptr, Table.find("xfer-sync-in-loop", "a.cpp", 42, "other"));
}

} // namespace
} // namespace xfer
