//===--- CheckConfiguration.h - which checks run, with which options ------===//
//
// xfer-tidy reads the same configuration as clang-tidy (.clang-tidy files,
// --config), but a project's configuration is written for clang-tidy's other
// checks: "Checks: '-*,bugprone-*'" must not silently turn xfer-tidy off.
// The xfer checks are on unless a glob that names them turns them off: in
// configuration files and --config only globs beginning with "xfer" count;
// --checks on the command line applies as written.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_TOOL_CHECKCONFIGURATION_H
#define XFER_TIDY_TOOL_CHECKCONFIGURATION_H

#include "clang-tidy/ClangTidyOptions.h"
#include "llvm/ADT/ArrayRef.h"
#include <memory>
#include <string>
#include <vector>

namespace xfer {

/// The globs of a comma-separated check list that name xfer checks (those
/// whose pattern, without its '-', begins with "xfer"), in order.
std::string xferCheckGlobs(llvm::StringRef Checks);

/// Wraps \p Inner so that the Checks of every source other than the
/// defaults and --checks keep only their xfer globs (see xferCheckGlobs).
std::unique_ptr<clang::tidy::ClangTidyOptionsProvider> withExplicitXferChecks(
    std::unique_ptr<clang::tidy::ClangTidyOptionsProvider> Inner);

/// What the configuration the run would use says, over all its files.
struct ConfigurationReport {
  /// Problems that make the run meaningless: an option value a check
  /// cannot use ("invalid configuration value 'x' for option ...").
  std::vector<std::string> Errors;
  /// Mistakes worth a warning: option keys no xfer check reads (with the
  /// closest known key), globs that match no check.
  std::vector<std::string> Warnings;
  /// True if some file has at least one check enabled.
  bool AnyCheckEnabled = false;
};

/// Instantiates the checks each of \p Files would run with, as the run
/// will, and collects the configuration's errors and warnings, each once.
ConfigurationReport
verifyConfiguration(clang::tidy::ClangTidyOptionsProvider &Provider,
                    llvm::ArrayRef<std::string> Files);

/// Where configuration \p Source (an OptionsSource's name) came from, for
/// messages: "--checks", "--config", or the configuration file.
std::string describeOptionsSource(llvm::StringRef Source);

} // namespace xfer

#endif // XFER_TIDY_TOOL_CHECKCONFIGURATION_H
