//===--- TraceJoinTest.cpp - xfer-tidy --trace, without a GPU -------------===//
//
// The join of static findings with a checked-in trace.json
// (testdata/trace/), through the library and through the xfer-tidy
// command: matched findings, runtime sites no check reported, findings never
// executed, ranking, and malformed traces.
//
//===----------------------------------------------------------------------===//

#include "TraceJoin.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "gtest/gtest.h"
#include <optional>

namespace {

const std::string Tool = XFER_BINARY_DIR "/tool/xfer-tidy";
const std::string Dir = XFER_TESTDATA_DIR "/trace";
const std::string Source = Dir + "/train_loop.cpp";
const std::string TraceJson = Dir + "/train_loop.trace.json";

std::string readFile(llvm::StringRef Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  return Buffer ? (*Buffer)->getBuffer().str() : std::string();
}

struct RunOutcome {
  int Status = -1;
  std::string Out, Err;
};

RunOutcome runTool(std::vector<std::string> Args) {
  llvm::SmallString<128> OutPath, ErrPath;
  llvm::sys::fs::createTemporaryFile("xfer-trace-out", "txt", OutPath);
  llvm::sys::fs::createTemporaryFile("xfer-trace-err", "txt", ErrPath);
  std::vector<llvm::StringRef> Argv{Tool};
  for (const std::string &Arg : Args)
    Argv.push_back(Arg);
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, OutPath.str(),
                                                ErrPath.str()};
  RunOutcome R;
  R.Status = llvm::sys::ExecuteAndWait(Tool, Argv, std::nullopt, Redirects,
                                       /*SecondsToWait=*/300);
  R.Out = readFile(OutPath);
  R.Err = readFile(ErrPath);
  llvm::sys::fs::remove(OutPath);
  llvm::sys::fs::remove(ErrPath);
  return R;
}

/// The analysis of train_loop.cpp with stub headers, cost notes off so the
/// expected text does not depend on the cost model.
std::vector<std::string> analysis(std::vector<std::string> Options) {
  Options.push_back("--quiet");
  Options.push_back("--no-cache"); // never the user's cache
  Options.push_back("--config={CheckOptions: {CostNotes: false}}");
  Options.push_back(Source);
  Options.push_back("--");
  Options.push_back("-isystem");
  Options.push_back(XFER_TESTDATA_DIR "/include");
  return Options;
}

xfer::Finding finding(llvm::StringRef Check, llvm::StringRef File,
                      unsigned Line) {
  xfer::Finding F;
  F.CheckName = Check.str();
  F.Where.File = File.str();
  F.Where.Line = Line;
  F.Where.Column = 5;
  F.Message = "hazard";
  return F;
}

TEST(TraceJoinTest, MeasuredNoteWording) {
  xfer::TraceSite Site;
  Site.Calls = 1000;
  Site.BlockedMicroseconds = 17500;
  Site.GpuIdleMicroseconds = 88900;
  EXPECT_EQ("measured in this program: 1000 calls, 17.5 ms blocked, 88.9 ms "
            "GPU idle (8.9% of the traced time)",
            xfer::measuredNote(Site, 1e6));
  Site.Calls = 1;
  Site.BlockedMicroseconds = 250000;
  Site.GpuIdleMicroseconds = 4;
  EXPECT_EQ("measured in this program: 1 call, 250 ms blocked, 0.00 ms GPU "
            "idle (0.0% of the traced time)",
            xfer::measuredNote(Site, 1e6));
}

TEST(TraceJoinTest, JoinsByLineAndPathTail) {
  llvm::Expected<xfer::Trace> T = xfer::loadTrace(TraceJson);
  ASSERT_TRUE(bool(T)) << llvm::toString(T.takeError());
  EXPECT_EQ(5u, T->Sites.size()); // the unattributed site is left out
  std::vector<xfer::Finding> Findings{
      finding("xfer-create-on-device", "/src/trace/train_loop.cpp", 8),
      finding("xfer-sync-in-loop", "/src/trace/train_loop.cpp", 10),
      finding("xfer-copy-in-loop", "/src/trace/train_loop.cpp", 12),
      // Same line, other file: not matched.
      finding("xfer-sync-in-loop", "/src/trace/other_loop.cpp", 10),
      // Not a transfer check: neither matched nor "never executed".
      finding("xfer-launch-bound-loop", "/src/trace/train_loop.cpp", 10)};
  xfer::TraceJoin Join =
      xfer::joinTrace(*T, Findings, {"/src/trace/train_loop.cpp"});

  ASSERT_NE(nullptr, Join.Matches[0]);
  EXPECT_EQ(8u, Join.Matches[0]->Line);
  ASSERT_NE(nullptr, Join.Matches[1]);
  EXPECT_EQ(10u, Join.Matches[1]->Line);
  EXPECT_EQ(nullptr, Join.Matches[2]);
  EXPECT_EQ(nullptr, Join.Matches[3]);
  EXPECT_EQ(nullptr, Join.Matches[4]);
  EXPECT_EQ((std::vector<unsigned>{2, 1, 0, 0, 0}), Join.Ranks);
  EXPECT_EQ((std::vector<size_t>{2, 3}), Join.NeverExecuted);

  ASSERT_EQ(1u, Join.Unreported.size()); // not the one-time line 6, not other.cpp
  EXPECT_EQ(18u, Join.Unreported[0]->Line);
  EXPECT_EQ("/src/trace/train_loop.cpp", Join.UnreportedFiles[0]);

  ASSERT_EQ(1u, Findings[1].Notes.size());
  EXPECT_EQ("measured in this program: 1000 calls, 17.5 ms blocked, 88.9 ms "
            "GPU idle (8.9% of the traced time)",
            Findings[1].Notes[0].Message);
  EXPECT_EQ(10u, Findings[1].Notes[0].Where.Line);
  EXPECT_TRUE(Findings[2].Notes.empty());
  EXPECT_TRUE(Findings[4].Notes.empty());
}

TEST(TraceJoinTest, MalformedTracesAreErrorsNamingTheField) {
  auto Error = [](llvm::StringRef Text) {
    llvm::Expected<xfer::Trace> T = xfer::parseTrace(Text, "t.json");
    return T ? std::string("no error") : llvm::toString(T.takeError());
  };
  EXPECT_EQ("t.json: tool: expected \"xfer-trace\"",
            Error(R"({"version": 1, "tool": "xfer-bench"})"));
  EXPECT_EQ("t.json: version: expected 1",
            Error(R"({"version": 2, "tool": "xfer-trace"})"));
  EXPECT_EQ("t.json: sites: expected an array",
            Error(R"({"version": 1, "tool": "xfer-trace",
                      "tracedMicroseconds": 5})"));
  EXPECT_EQ("t.json: sites[0].line: expected a non-negative integer",
            Error(R"({"version": 1, "tool": "xfer-trace",
                      "tracedMicroseconds": 5,
                      "sites": [{"file": "a.cpp", "line": "10"}]})"));
  EXPECT_EQ("t.json: sites[0].apiPaths[0].path: expected a string",
            Error(R"({"version": 1, "tool": "xfer-trace",
                      "tracedMicroseconds": 5,
                      "sites": [{"file": "a.cpp", "line": 10, "calls": 1,
                                 "bytes": 0, "blockedMicroseconds": 1,
                                 "gpuIdleMicroseconds": 1,
                                 "estimatedSavingMicroseconds": 1,
                                 "apiPaths": [{"calls": 1}]}]})"));
  // A number beyond the double range reads as infinity, which the JSON
  // and SARIF reports could not write back (found by fuzz/TraceFuzzer.cpp).
  EXPECT_EQ("t.json: tracedMicroseconds: expected a non-negative number",
            Error(R"({"version": 1, "tool": "xfer-trace",
                      "tracedMicroseconds": 1e999, "sites": []})"));
  EXPECT_TRUE(llvm::StringRef(Error("{\"version\": 1,")).starts_with(
      "t.json: malformed trace: "));
}

TEST(TraceJoinTest, TextReport) {
  RunOutcome R = runTool(analysis({"--trace=" + TraceJson}));
  EXPECT_EQ(1, R.Status) << R.Err;
  const std::string Expected[] = {
      Source + ":8:38: note: measured in this program: 1000 calls, 11.2 ms "
               "blocked, 44.8 ms GPU idle (4.5% of the traced time)\n",
      Source + ":10:16: note: measured in this program: 1000 calls, 17.5 ms "
               "blocked, 88.9 ms GPU idle (8.9% of the traced time)\n",
      Source + ":18: remark: hazard seen at run time that no check reported: "
               "500 calls, 7.25 ms blocked, 3.13 ms GPU idle (0.3% of the "
               "traced time), through cudaMemcpy [xfer-trace]\n",
      Source + ":12:18: remark: finding never executed in the traced run (" +
          TraceJson + ") [xfer-copy-in-loop]\n"};
  for (const std::string &Line : Expected)
    EXPECT_NE(std::string::npos, R.Out.find(Line)) << Line << "\n" << R.Out;
  // Exactly one note each, none on the unexecuted copy, no recall gap for
  // the one-time copy on line 6 or for a file that was not analysed.
  EXPECT_EQ(2u, llvm::StringRef(R.Out).count("measured in this program"));
  EXPECT_EQ(std::string::npos, R.Out.find(":6: remark"));
  EXPECT_EQ(std::string::npos, R.Out.find("other.cpp"));
}

TEST(TraceJoinTest, JsonAndSarifProperties) {
  RunOutcome R = runTool(analysis({"--trace=" + TraceJson, "--format=json"}));
  EXPECT_EQ(1, R.Status) << R.Err;
  llvm::Expected<llvm::json::Value> Report = llvm::json::parse(R.Out);
  ASSERT_TRUE(bool(Report)) << llvm::toString(Report.takeError());
  const llvm::json::Array *Items = Report->getAsObject()->getArray("findings");
  ASSERT_NE(nullptr, Items);
  ASSERT_EQ(3u, Items->size());
  const llvm::json::Object *Item = (*Items)[1].getAsObject();
  EXPECT_EQ(10, Item->getInteger("line"));
  const llvm::json::Object *Properties = Item->getObject("properties");
  ASSERT_NE(nullptr, Properties);
  EXPECT_EQ(1, Properties->getInteger("measuredRank"));
  EXPECT_EQ(1000, Properties->getInteger("measuredCalls"));
  EXPECT_EQ(17.5, Properties->getNumber("measuredBlockedMilliseconds"));
  EXPECT_EQ(88.9, Properties->getNumber("measuredGpuIdleMilliseconds"));
  EXPECT_EQ(8.9, Properties->getNumber("measuredTracedPercent"));
  EXPECT_EQ(2, (*Items)[0].getAsObject()->getObject("properties")->getInteger(
                   "measuredRank"));
  const llvm::json::Object *Unexecuted =
      (*Items)[2].getAsObject()->getObject("properties");
  EXPECT_EQ(false, Unexecuted->getBoolean("executedInTrace"));
  EXPECT_EQ(0, Unexecuted->getInteger("measuredCalls"));

  const llvm::json::Object *Trace = Report->getAsObject()->getObject("trace");
  ASSERT_NE(nullptr, Trace);
  const llvm::json::Array *Gaps = Trace->getArray("unreportedSites");
  ASSERT_EQ(1u, Gaps->size());
  EXPECT_EQ(Source, (*Gaps)[0].getAsObject()->getString("file"));
  EXPECT_EQ(18, (*Gaps)[0].getAsObject()->getInteger("line"));
  const llvm::json::Array *Never = Trace->getArray("neverExecuted");
  ASSERT_EQ(1u, Never->size());
  EXPECT_EQ("xfer-copy-in-loop",
            (*Never)[0].getAsObject()->getString("check"));
  EXPECT_EQ(12, (*Never)[0].getAsObject()->getInteger("line"));

  R = runTool(analysis({"--trace=" + TraceJson, "--format=sarif"}));
  EXPECT_EQ(1, R.Status) << R.Err;
  llvm::Expected<llvm::json::Value> Log = llvm::json::parse(R.Out);
  ASSERT_TRUE(bool(Log)) << llvm::toString(Log.takeError());
  const llvm::json::Object *Run =
      (*Log->getAsObject()->getArray("runs"))[0].getAsObject();
  const llvm::json::Array *Results = Run->getArray("results");
  ASSERT_EQ(3u, Results->size());
  EXPECT_EQ(1, (*Results)[1].getAsObject()->getObject("properties")->getInteger(
                   "measuredRank"));
  ASSERT_NE(nullptr, Run->getObject("properties"));
  EXPECT_NE(nullptr, Run->getObject("properties")->getObject("xferTrace"));
}

TEST(TraceJoinTest, WithoutTraceNothingChanges) {
  RunOutcome R = runTool(analysis({}));
  EXPECT_EQ(1, R.Status) << R.Err;
  EXPECT_EQ(std::string::npos, R.Out.find("measured in this program"));
  EXPECT_EQ(std::string::npos, R.Out.find("remark"));
}

TEST(TraceJoinTest, MalformedTraceExitsTwoWithoutOutput) {
  llvm::SmallString<128> Bad, Output;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("bad-trace", "json", Bad));
  {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Bad, EC);
    OS << R"({"version": 1, "tool": "xfer-trace", "tracedMicroseconds": 1,
             "sites": [{"file": "train_loop.cpp", "line": -3}]})";
  }
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("trace-out", Output));
  llvm::SmallString<128> Report(Output);
  llvm::sys::path::append(Report, "report.json");
  RunOutcome R = runTool(analysis({"--trace=" + Bad.str().str(),
                                   "--format=json",
                                   "--output=" + Report.str().str()}));
  EXPECT_EQ(2, R.Status);
  EXPECT_EQ("xfer-tidy: error: " + Bad.str().str() +
                ": sites[0].line: expected a non-negative integer\n",
            R.Err);
  EXPECT_FALSE(llvm::sys::fs::exists(Report));

  R = runTool(analysis({"--trace=" + Dir + "/no-such-trace.json"}));
  EXPECT_EQ(2, R.Status);
  EXPECT_NE(std::string::npos, R.Err.find("no-such-trace.json: cannot read"))
      << R.Err;
  EXPECT_TRUE(R.Out.empty());
  llvm::sys::fs::remove(Bad);
  llvm::sys::fs::remove_directories(Output);
}

} // namespace
