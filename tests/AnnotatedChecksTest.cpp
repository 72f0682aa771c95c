//===--- AnnotatedChecksTest.cpp - every testdata/checks source -----------===//
//
// Runs each annotated source under testdata/checks through the checks with
// clang-tidy's engine and fails on any missing, extra or different
// diagnostic.
//
//===----------------------------------------------------------------------===//

#include "AnnotatedSource.h"
#include "Findings.h"
#include "XferTidyRunner.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Core/Replacement.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"
#include <algorithm>

namespace xfer::test {
namespace {

std::vector<std::string> annotatedSources() {
  std::vector<std::string> Paths;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(XFER_TESTDATA_DIR "/checks", EC),
       End;
       It != End && !EC; It.increment(EC)) {
    llvm::StringRef Ext = llvm::sys::path::extension(It->path());
    if (Ext == ".cpp" || Ext == ".cu")
      Paths.push_back(It->path());
  }
  std::sort(Paths.begin(), Paths.end());
  return Paths;
}

std::string render(const SourcePosition &Where, llvm::StringRef Level,
                   llvm::StringRef Message) {
  return std::to_string(Where.Line) + ":" + std::to_string(Where.Column) +
         ": " + Level.str() + ": " + Message.str();
}

std::string join(const std::vector<std::string> &Lines) {
  std::string Out;
  for (const std::string &Line : Lines)
    Out += "  " + Line + "\n";
  return Out.empty() ? "  (none)\n" : Out;
}

std::string readFile(llvm::StringRef Path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path);
  return Buffer ? (*Buffer)->getBuffer().str() : std::string();
}

/// What differs between \p Expected and \p Actual, each expectation taking
/// one diagnostic it matches; empty when they agree.
std::string unmatched(const std::vector<ExpectedDiagnostic> &Expected,
                      std::vector<std::string> Actual) {
  std::vector<std::string> Missing;
  // Exact expectations first, so that a prefix does not take another's.
  for (bool Prefix : {false, true})
    for (const ExpectedDiagnostic &E : Expected) {
      if (E.Prefix != Prefix)
        continue;
      auto It = llvm::find_if(
          Actual, [&](const std::string &A) { return E.matches(A); });
      if (It == Actual.end())
        Missing.push_back(E.Text + (E.Prefix ? " ..." : ""));
      else
        Actual.erase(It);
    }
  if (Missing.empty() && Actual.empty())
    return "";
  return "expected but not produced:\n" + join(Missing) +
         "produced but not expected:\n" + join(Actual);
}

/// The lines every fix changes, against the XFER-FIXES of the source;
/// empty when they agree.
std::string unmatchedFixes(const std::string &Contents, const RunResult &Run,
                           const std::vector<ExpectedFix> &Expected) {
  clang::tooling::Replacements All;
  for (const clang::tidy::ClangTidyError &Error : Run.Diagnostics)
    for (const auto &[File, Replacements] : Error.Message.Fix)
      for (const clang::tooling::Replacement &R : Replacements)
        if (llvm::Error E = All.add(R))
          return "conflicting fixes: " + llvm::toString(std::move(E));
  llvm::Expected<std::string> Fixed =
      clang::tooling::applyAllReplacements(Contents, All);
  if (!Fixed)
    return "fixes do not apply: " + llvm::toString(Fixed.takeError());
  llvm::SmallVector<llvm::StringRef, 0> Before, After;
  llvm::StringRef(Contents).split(Before, '\n');
  llvm::StringRef(*Fixed).split(After, '\n');
  if (Before.size() != After.size())
    return "the fixes add or remove lines";
  std::string Problems;
  for (const ExpectedFix &Fix : Expected)
    if (After[Fix.Line - 1].trim() != Fix.Text)
      Problems += "line " + std::to_string(Fix.Line) + " reads '" +
                  After[Fix.Line - 1].trim().str() + "', expected '" +
                  Fix.Text + "'\n";
  for (size_t I = 0; I < Before.size(); ++I)
    if (Before[I] != After[I] &&
        llvm::none_of(Expected, [&](const ExpectedFix &Fix) {
          return Fix.Line == I + 1;
        }))
      Problems += "line " + std::to_string(I + 1) + " changed to '" +
                  After[I].trim().str() + "' with no XFER-FIXES\n";
  return Problems;
}

class AnnotatedChecksTest : public ::testing::TestWithParam<std::string> {};

TEST_P(AnnotatedChecksTest, DiagnosticsMatchAnnotations) {
  llvm::Expected<AnnotatedSource> Source =
      parseAnnotatedSource(GetParam(), XFER_TESTDATA_DIR "/include");
  ASSERT_TRUE(static_cast<bool>(Source)) << llvm::toString(Source.takeError());

  std::vector<std::string> Args = Source->CompilerArgs;
  if (llvm::sys::path::extension(Source->Path) != ".cu")
    Args.insert(Args.begin(), "-std=c++17");
  clang::tooling::FixedCompilationDatabase Database(".", Args);
  RunOptions Options;
  Options.Checks = Source->Checks;
  if (!Source->Config.empty()) {
    llvm::Expected<clang::tidy::ClangTidyOptions> Config =
        parseConfigOption(Source->Config);
    ASSERT_TRUE(static_cast<bool>(Config))
        << llvm::toString(Config.takeError());
    Options.Config = std::move(*Config);
  }
  Options.ResourceDir = XFER_CLANG_RESOURCE_DIR;
  if (Source->CostModel.empty())
    Options.GlobalCheckOptions.emplace_back("CostNotes", "false");
  else
    Options.GlobalCheckOptions.emplace_back(
        "CostModel", XFER_TESTDATA_DIR "/cost-models/" + Source->CostModel);
  RunResult Result = runChecks(Database, {Source->Path}, Options);

  // Warnings and notes as the annotations write them, sorted.
  auto Rendered = [](const RunResult &Run) {
    PositionResolver Resolver;
    std::pair<std::vector<std::string>, std::vector<std::string>> Lines;
    for (const Finding &F : toFindings(Run.Diagnostics, Resolver)) {
      Lines.first.push_back(render(
          F.Where, F.Severity == Finding::Level::Error ? "error" : "warning",
          F.Message + " [" + F.CheckName + "]"));
      for (const FindingNote &Note : F.Notes)
        Lines.second.push_back(render(Note.Where, "note", Note.Message));
    }
    std::sort(Lines.first.begin(), Lines.first.end());
    std::sort(Lines.second.begin(), Lines.second.end());
    return Lines;
  };
  auto [ActualWarnings, ActualNotes] = Rendered(Result);
  EXPECT_EQ("", unmatched(Source->ExpectedWarnings, ActualWarnings));
  if (Source->ComparesNotes)
    EXPECT_EQ("", unmatched(Source->ExpectedNotes, ActualNotes));
  if (!Source->ExpectedFixes.empty())
    EXPECT_EQ("", unmatchedFixes(readFile(Source->Path), Result,
                                 Source->ExpectedFixes));

  // The same file edited below its includes, parsed with its preamble
  // stored in the cache: first when the preamble is built, then when it is
  // read back. Every diagnostic and note is the same as without it.
  llvm::SmallString<128> Cache;
  ASSERT_FALSE(
      llvm::sys::fs::createUniqueDirectory("xfer-preamble-test", Cache));
  Options.CacheDirectory = Cache.str().str();
  Options.Preambles = RunOptions::PreamblePolicy::Always;
  std::string Contents = readFile(Source->Path);
  // CUDA sources are parsed without one (see PreambleCache.h).
  bool IsCuda = llvm::sys::path::extension(Source->Path) == ".cu" ||
                llvm::is_contained(Source->CompilerArgs, "cuda");
  for (bool Stored : {false, true}) {
    std::string Edit = Stored ? "\n// edited again\n" : "\n// edited\n";
    Options.VirtualFiles = {{Source->Path, Contents + Edit}};
    RunResult Edited = runChecks(Database, {Source->Path}, Options);
    EXPECT_EQ(0u, Edited.CacheHits);
    EXPECT_EQ(Stored || IsCuda ? 0u : 1u, Edited.PreamblesBuilt)
        << "stored: " << Stored;
    EXPECT_EQ(Stored && !IsCuda ? 1u : 0u, Edited.PreamblesReused)
        << "stored: " << Stored;
    auto [Warnings, Notes] = Rendered(Edited);
    EXPECT_EQ(ActualWarnings, Warnings) << "preamble stored: " << Stored;
    EXPECT_EQ(ActualNotes, Notes) << "preamble stored: " << Stored;
  }
  llvm::sys::fs::remove_directories(Cache);
}

std::string testName(const ::testing::TestParamInfo<std::string> &Info) {
  std::string Name = llvm::sys::path::filename(Info.param).str();
  for (char &C : Name)
    if (!std::isalnum(static_cast<unsigned char>(C)))
      C = '_';
  return Name;
}

INSTANTIATE_TEST_SUITE_P(Testdata, AnnotatedChecksTest,
                         ::testing::ValuesIn(annotatedSources()), testName);

TEST(AnnotatedChecksTest, TestdataIsNotEmpty) {
  // A glob that finds nothing would otherwise pass silently.
  EXPECT_GE(annotatedSources().size(), 4u);
}

} // namespace
} // namespace xfer::test
