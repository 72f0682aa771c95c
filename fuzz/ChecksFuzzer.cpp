//===--- ChecksFuzzer.cpp - the xfer-* checks over mutated sources --------===//
//
// Runs every xfer-* check through clang-tidy's engine, as xfer-tidy does,
// on the input as a C++17 source that may include the LibTorch and CUDA
// stand-in headers of testdata/include, with the built-in cost model's
// notes on; then converts the findings and writes the text, JSON and SARIF
// reports. An input with CUDA syntax (a kernel, a launch, or the annotated
// tests' "-x cuda" argument line) is parsed as CUDA host code, the way the
// annotated tests parse theirs. Sources that do not parse are analysed as
// far as clang gets, as in a real run.
//
//===----------------------------------------------------------------------===//

#include "Findings.h"
#include "FuzzSupport.h"
#include "OutputFormats.h"
#include "XferTidyRunner.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

/// The input is written to a file of a directory private to this process:
/// the runner, like clang-tidy, reads sources from disk and the reports
/// read their lines back.
const std::string &inputPath() {
  // Never destroyed: the exit handler that removes the file runs after
  // static destructors would have.
  static const std::string *Path = [] {
    llvm::SmallString<128> Directory;
    if (std::error_code EC = llvm::sys::fs::createUniqueDirectory(
            "xfer-checks-fuzzer", Directory)) {
      std::fprintf(stderr, "cannot create a directory for the input: %s\n",
                   EC.message().c_str());
      std::exit(1);
    }
    llvm::SmallString<128> File(Directory);
    llvm::sys::path::append(File, "input.cpp");
    return new std::string(File.str());
  }();
  static const bool RemovedAtExit = [] {
    return std::atexit([] {
             llvm::sys::fs::remove(*Path);
             llvm::sys::fs::remove(llvm::sys::path::parent_path(*Path));
           }) == 0;
  }();
  (void)RemovedAtExit;
  return *Path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  const std::string &Path = inputPath();
  {
    std::error_code EC;
    llvm::raw_fd_ostream Out(Path, EC);
    if (EC)
      std::abort();
    Out.write(reinterpret_cast<const char *>(Data), Size);
  }
  llvm::StringRef Source(reinterpret_cast<const char *>(Data), Size);
  std::vector<std::string> Flags{"-std=c++17", "-isystem",
                                 XFER_TESTDATA_DIR "/include"};
  if (Source.contains("__global__") || Source.contains("<<<") ||
      Source.contains("-x cuda"))
    Flags.insert(Flags.begin(), {"-x", "cuda", "--cuda-host-only", "-nocudainc",
                                 "-nocudalib"});
  clang::tooling::FixedCompilationDatabase Database(".", Flags);
  xfer::RunOptions Options;
  Options.Checks = "-*,xfer-*";
  Options.ResourceDir = XFER_CLANG_RESOURCE_DIR;
  Options.DefaultHeaderFilter = ".*";
  xfer::RunResult Result = xfer::runChecks(Database, {Path}, Options);

  xfer::PositionResolver Resolver;
  std::vector<xfer::Finding> Findings =
      xfer::toFindings(Result.Diagnostics, Resolver, &Result.CostNotes);
  std::string Text;
  llvm::raw_string_ostream OS(Text);
  xfer::writeText(OS, Findings, Resolver, /*Color=*/false);
  xfer::writeGithub(OS, Findings, "/");
  xfer::fuzz::requireValidJson(xfer::toJson(Findings), "JSON");
  xfer::SarifOptions Sarif;
  Sarif.EnabledChecks = Result.EnabledChecks;
  xfer::fuzz::requireValidJson(xfer::toSarif(Findings, Resolver, Sarif),
                               "SARIF");
  return 0;
}
