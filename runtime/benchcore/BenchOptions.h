//===- BenchOptions.h - xfer-bench command line -----------------*- C++ -*-===//
//
// Part of xfer-tidy. Host-only.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_BENCHCORE_BENCHOPTIONS_H
#define XFER_BENCHCORE_BENCHOPTIONS_H

#include <string>
#include <vector>

namespace xferbench {

/// Exit statuses of xfer-bench (documented in docs/xfer-bench.md).
enum ExitStatus : int {
  ExitSuccess = 0,
  ExitFailure = 1, ///< A CUDA call or a sanity check failed.
  ExitNoGpu = 2,   ///< No usable CUDA device.
  ExitUsage = 64,  ///< Bad command line (EX_USAGE).
};

struct BenchOptions {
  std::string OutputPath; ///< Empty: print the table only.
  bool Quick = false;
  bool Help = false;
  /// Globs over pattern ids (`*` and `?`); empty selects everything.
  std::vector<std::string> OnlyGlobs;

  /// True if \p PatternId is selected by the --only globs.
  bool selects(const std::string &PatternId) const;
  /// True if any id starting with \p Prefix could be selected: lets a whole
  /// benchmark group be skipped before any setup.
  bool selectsAnyWithPrefix(const std::string &Prefix) const;
};

/// Parses argv. On error returns false and sets \p Error to a one-line
/// message.
bool parseBenchOptions(int Argc, const char *const *Argv, BenchOptions &Out,
                       std::string &Error);

std::string benchUsage(const char *ProgramName);

/// Shell-style glob match supporting `*` (any run) and `?` (one char).
bool globMatches(const std::string &Pattern, const std::string &Text);

} // namespace xferbench

#endif // XFER_BENCHCORE_BENCHOPTIONS_H
