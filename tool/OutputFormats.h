//===--- OutputFormats.h - text, JSON and SARIF reports -------------------===//

#ifndef XFER_TIDY_TOOL_OUTPUTFORMATS_H
#define XFER_TIDY_TOOL_OUTPUTFORMATS_H

#include "Findings.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <vector>

namespace xfer {

enum class OutputFormat { Text, Json, Sarif, Github };

/// clang-tidy's layout: "file:line:col: warning: message [check]", the
/// source line and a caret, then the notes.
void writeText(llvm::raw_ostream &OS, const std::vector<Finding> &Findings,
               PositionResolver &Resolver, bool Color);

/// GitHub Actions workflow commands, one per finding:
/// "::warning file=<path>,line=L,col=C,title=<check>::<message> (<cost>)",
/// paths relative to \p Root (the current directory) when below it.
void writeGithub(llvm::raw_ostream &OS, const std::vector<Finding> &Findings,
                 llvm::StringRef Root);

/// The cost note of \p F ("measured cost: ..."), or null: the note that
/// carries cost figures, else one whose text starts as a cost note's (a
/// note made without its figures).
const FindingNote *costNote(const Finding &F);

/// {"version": 1, "tool": ..., "findings": [...]}; see README.md.
llvm::json::Value toJson(const std::vector<Finding> &Findings);

struct SarifOptions {
  /// %SRCROOT%: artifact URIs below it are relative to it.
  std::string Root = ".";
  /// The checks that ran: each becomes a rule, with or without results.
  std::vector<std::string> EnabledChecks;
  /// Warnings about the configuration (toolConfigurationNotifications).
  std::vector<std::string> ConfigurationWarnings;
  /// Errors of the run (toolExecutionNotifications; executionSuccessful
  /// false).
  std::vector<std::string> ExecutionErrors;
};

/// A SARIF 2.1.0 log as code-scanning services take it: a rule per check
/// with its descriptions, help and documentation URI; results with
/// artifact URIs relative to %SRCROOT%, a region, and partialFingerprints
/// that do not depend on the line number; notes as related locations and
/// the steps of a code flow. Diagnostics without a location are execution
/// notifications, not results.
llvm::json::Value toSarif(const std::vector<Finding> &Findings,
                          PositionResolver &Resolver,
                          const SarifOptions &Options);

/// One log with one run from the SARIF logs of several xfer-tidy runs over
/// one project (the shards of a run, --shard=K/N), given as (name, log):
/// the rules of every run, each once, in order of first appearance; the
/// results sorted by file, line, column and rule, a finding that several
/// runs reported (in a header they share) once, with ruleIndex renumbered;
/// one invocation, successful if every run was, with every run's
/// notifications. Errors name the log: one that is not a SARIF 2.1.0 log of
/// one xfer-tidy run, or whose %SRCROOT% or tool version differs from the
/// first's.
llvm::Expected<llvm::json::Value>
mergeSarif(std::vector<std::pair<std::string, llvm::json::Value>> Logs);

/// Where xfer-tidy's documentation lives: XFER_DOCS_URL when the build set
/// one (the repository's web address), else a file URI of the copy
/// installed with xfer-tidy (or of the source tree).
std::string documentationUri(llvm::StringRef RelativePath);

/// "docs/checks/sync-in-loop.md" for "xfer-sync-in-loop".
std::string checkDocumentationPath(llvm::StringRef Check);

/// Writes \p Value indented by two spaces, keys sorted, with numbers as a
/// person would write them: 15 significant digits at most, so that 5.18
/// stays 5.18 rather than llvm::json's round-trip 5.1799999999999997.
void writeJson(llvm::raw_ostream &OS, const llvm::json::Value &Value);

/// The figures of \p F's cost note, as JSON properties (see
/// CostNote::properties; an empty object when no note carries figures).
llvm::json::Object costProperties(const Finding &F);

} // namespace xfer

#endif // XFER_TIDY_TOOL_OUTPUTFORMATS_H
