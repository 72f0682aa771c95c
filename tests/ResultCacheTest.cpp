//===--- ResultCacheTest.cpp - results stored and read back exactly -------===//

#include "ResultCache.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

namespace xfer {
namespace {

using clang::tidy::ClangTidyError;
using clang::tidy::xfer::CostNote;

/// A cost note whose figures do not print exactly in few digits.
CostNote sampleCost() {
  CostNote Cost;
  Cost.PatternId = "torch.item";
  Cost.PerCallUs = 9.1583000000000006;
  Cost.OverlapUs = 1.0 / 3.0;
  Cost.Executions = UINT64_MAX;
  Cost.MeasuredOn = "H200";
  return Cost;
}

/// A result with every field the cache stores set to something unusual.
RunResult sampleResult() {
  RunResult Result;
  ClangTidyError E("xfer-copy-in-loop", ClangTidyError::Warning, "/build",
                   /*IsWarningAsError=*/true);
  E.EnabledDiagnosticAliases = {"alias-a", "alias-b"};
  E.Message.Message = "copies \"µs\" each time";
  E.Message.FilePath = "/src/a.cpp";
  E.Message.FileOffset = 123;
  llvm::cantFail(E.Message.Fix["/src/a.cpp"].add(
      clang::tooling::Replacement("/src/a.cpp", 10, 0, ", D")));
  llvm::cantFail(E.Message.Fix["/src/a.cpp"].add(
      clang::tooling::Replacement("/src/a.cpp", 20, 6, "")));
  clang::tooling::FileByteRange Range;
  Range.FilePath = "/src/a.cpp";
  Range.FileOffset = 7;
  Range.Length = 3;
  E.Message.Ranges.push_back(Range);
  clang::tooling::DiagnosticMessage Note("loop starts here");
  Note.FilePath = "/src/a.cpp";
  Note.FileOffset = 5;
  E.Notes.push_back(Note);
  Result.Diagnostics.push_back(E);
  Result.Diagnostics.emplace_back("clang-diagnostic-error",
                                  ClangTidyError::Error, "/build", false);

  Result.CostNotes.add("xfer-sync-in-loop", "/src/a.cpp", 123, sampleCost());
  CostNote Saving;
  Saving.Kind = CostNote::Form::LaunchSaving;
  Saving.LaunchesPerIteration = 10;
  Result.CostNotes.add("xfer-launch-bound-loop", "/src/b.cpp", 9, Saving);
  Result.Facts = {{"ab12.json", "{\"version\":1}"}};
  return Result;
}

std::string stored(const RunResult &Result) {
  std::string Text;
  llvm::raw_string_ostream(Text) << resultToJson(Result);
  return Text;
}

// Reading a stored result back gives the same result, to the last bit of
// every figure.
TEST(ResultCacheTest, RoundTripIsExact) {
  RunResult Original = sampleResult();
  ASSERT_TRUE(isStorable(Original));
  std::string Text = stored(Original);
  llvm::Expected<llvm::json::Value> Parsed = llvm::json::parse(Text);
  ASSERT_TRUE(static_cast<bool>(Parsed));
  llvm::Expected<RunResult> Read = resultFromJson(*Parsed);
  ASSERT_TRUE(static_cast<bool>(Read)) << llvm::toString(Read.takeError());
  EXPECT_EQ(Text, stored(*Read));

  const ClangTidyError &E = Read->Diagnostics.front();
  EXPECT_TRUE(E.IsWarningAsError);
  EXPECT_EQ(2u, E.Message.Fix.lookup("/src/a.cpp").size());
  const CostNote *Cost = Read->CostNotes.find("xfer-sync-in-loop", "/src/a.cpp",
                                              123, sampleCost().text());
  ASSERT_NE(nullptr, Cost);
  EXPECT_EQ(1.0 / 3.0, *Cost->OverlapUs);
  EXPECT_EQ(UINT64_MAX, *Cost->Executions);
  EXPECT_EQ(9.1583000000000006, Cost->PerCallUs);
}

// Text that JSON cannot hold exactly is not stored.
TEST(ResultCacheTest, InvalidUtf8IsNotStorable) {
  RunResult Result = sampleResult();
  Result.Diagnostics.front().Message.Message = "bad \xff byte";
  EXPECT_FALSE(isStorable(Result));
}

// Anything missing or of the wrong type is an error, not a partial result.
TEST(ResultCacheTest, MalformedStoredResultsAreRejected) {
  for (const char *Text :
       {"{}", "{\"diagnostics\": [], \"costNotes\": []}",
        "{\"diagnostics\": [{\"name\": 1}], \"costNotes\": [], \"facts\": []}",
        "{\"diagnostics\": [], \"costNotes\": [{\"check\": \"c\"}], "
        "\"facts\": []}",
        "{\"diagnostics\": [], \"costNotes\": [], \"facts\": [[\"../x\", "
        "\"{}\"]]}"}) {
    llvm::Expected<llvm::json::Value> Parsed = llvm::json::parse(Text);
    ASSERT_TRUE(static_cast<bool>(Parsed)) << Text;
    llvm::Expected<RunResult> Read = resultFromJson(*Parsed);
    EXPECT_FALSE(static_cast<bool>(Read)) << Text;
    if (!Read)
      llvm::consumeError(Read.takeError());
  }
}

// Entries are found only under their own key and only while the files they
// list are unchanged.
TEST(ResultCacheTest, LookupChecksKeyAndDependencies) {
  llvm::SmallString<128> Directory;
  ASSERT_FALSE(
      llvm::sys::fs::createUniqueDirectory("xfer-cache-test", Directory));
  llvm::SmallString<128> Header(Directory);
  llvm::sys::path::append(Header, "a.h");
  auto WriteHeader = [&](llvm::StringRef Text) {
    std::error_code EC;
    llvm::raw_fd_ostream OS(Header, EC);
    OS << Text;
  };
  WriteHeader("int a;\n");
  ResultCache Cache(Directory.str().str());
  ASSERT_FALSE(static_cast<bool>(Cache.prepare()));
  std::string Key = CacheKeyBuilder().add("unit").key();
  ASSERT_TRUE(Cache.store(Key, sampleResult(),
                          {{Header.str().str(), contentHash("int a;\n")}}));
  auto FS = llvm::vfs::getRealFileSystem();
  EXPECT_TRUE(Cache.lookup(Key, *FS).has_value());
  EXPECT_FALSE(
      Cache.lookup(CacheKeyBuilder().add("other").key(), *FS).has_value());
  // The same bytes under another key (a copied entry) are not trusted.
  std::string Other = CacheKeyBuilder().add("un").add("it").key();
  ASSERT_NE(Key, Other);
  ASSERT_FALSE(llvm::sys::fs::create_directories(
      llvm::sys::path::parent_path(Cache.entryPath(Other))));
  ASSERT_FALSE(
      llvm::sys::fs::copy_file(Cache.entryPath(Key), Cache.entryPath(Other)));
  EXPECT_FALSE(Cache.lookup(Other, *FS).has_value());
  WriteHeader("int b;\n");
  EXPECT_FALSE(Cache.lookup(Key, *FS).has_value());
  llvm::sys::fs::remove_directories(Directory);
}

} // namespace
} // namespace xfer
