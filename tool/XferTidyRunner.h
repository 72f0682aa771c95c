//===--- XferTidyRunner.h - runs the checks through clang-tidy's engine ---===//
//
// Owns the frontend action around clang-tidy's AST consumer factory, so that
// NOLINT comments, .clang-tidy files, check options and fix export behave as
// in clang-tidy, while xfer-tidy controls parsing: CUDA-specific command-line
// adjustments, skipping device-only function bodies, and parallel runs.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_TOOL_XFERTIDYRUNNER_H
#define XFER_TIDY_TOOL_XFERTIDYRUNNER_H

#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "cost/CostNote.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace xfer {

struct RunResult;

struct RunOptions {
  /// Check globs given on the command line; empty keeps the configuration's
  /// (.clang-tidy files, then the default "-*,xfer-*").
  std::string Checks;
  /// Globs of the checks whose findings are errors, appended to the
  /// configuration's WarningsAsErrors (clang-tidy's --warnings-as-errors).
  std::string WarningsAsErrors;
  /// A configuration that replaces .clang-tidy lookup, as clang-tidy's
  /// --config (see parseConfigOption).
  std::optional<clang::tidy::ClangTidyOptions> Config;
  /// Check options set for every check, over any configuration
  /// ("CostModel", "CostNotes").
  std::vector<std::pair<std::string, std::string>> GlobalCheckOptions;
  /// Extra compiler arguments, appended or prepended to every command.
  std::vector<std::string> ExtraArgs;
  std::vector<std::string> ExtraArgsBefore;
  /// Clang's builtin headers; added unless a command names its own.
  std::string ResourceDir;
  /// Adjusts each compile command before parsing (nvcc translation, CUDA
  /// host-analysis flags). May be null.
  clang::tooling::ArgumentsAdjuster CommandAdjuster;
  /// Skip the bodies of __device__/__global__-only functions and of
  /// functions in system headers: the checks never look inside them, clang
  /// 19 cannot always parse device code against newer CUDA toolkits, and
  /// LibTorch's inline functions are most of the parse.
  bool SkipFunctionBodies = true;
  /// Parallel translation units.
  unsigned Jobs = 1;
  /// Headers whose findings are shown, as clang-tidy's --header-filter:
  /// \c HeaderFilter (command line) overrides any configuration, which
  /// overrides \c DefaultHeaderFilter (the project's own headers).
  std::optional<std::string> HeaderFilter;
  std::optional<std::string> ExcludeHeaderFilter;
  std::string DefaultHeaderFilter;
  /// Files served from memory, over the real file system: (path, contents).
  std::vector<std::pair<std::string, std::string>> VirtualFiles;
  /// Where translation units' results are kept between runs (see
  /// ResultCache.h); empty: no cache.
  std::string CacheDirectory;
  /// With a cache: when a translation unit's preamble is stored and parsed
  /// from the cache (see PreambleCache.h).
  enum class PreamblePolicy {
    Never,
    ReuseOnly,         ///< read a stored one, never store (the first pass)
    WhenAnalysedAgain, ///< built at a file's second analysis, then reused
    Always             ///< built at its first analysis already
  };
  PreamblePolicy Preambles = PreamblePolicy::WhenAnalysedAgain;
  /// The first pass (writeProjectIndex): each unit's facts are written to a
  /// subdirectory of this one by the xferindex-project-facts check.
  std::string FactsDirectory;
  /// When not empty, each translation unit is analysed in a process of its
  /// own, started with this command line and the worker options
  /// (workerArguments), so that a unit that takes too long or crashes fails
  /// alone. The command must configure the run as this one is configured.
  std::vector<std::string> WorkerCommand;
  /// With WorkerCommand: seconds after which a unit's process is stopped
  /// (0: no limit).
  unsigned TimeoutPerFile = 0;
  /// Called as each translation unit finishes, from the thread that
  /// analysed it, with the unit's result and its wall time in seconds.
  /// May be null.
  std::function<void(llvm::StringRef File, const RunResult &Result,
                     double Seconds)>
      OnUnitDone;
};

/// What one run produced.
struct RunResult {
  /// Check findings and compiler diagnostics, as clang-tidy reports them
  /// (NOLINT and check filters already applied).
  std::vector<clang::tidy::ClangTidyError> Diagnostics;
  /// The translation units that had compiler errors, each with its first
  /// error: "<file>: compiler errors; findings may be incomplete (first:
  /// <where>: <message>)".
  std::vector<std::string> UnitsWithErrors;
  /// Names of the checks that were enabled.
  std::vector<std::string> EnabledChecks;
  /// The figures of the cost notes among the diagnostics' notes.
  clang::tidy::xfer::CostNoteTable CostNotes;
  /// Translation units whose result came from the cache.
  unsigned CacheHits = 0;
  /// Translation units parsed with a preamble built in this run, and with
  /// one read from the cache (see PreambleCache.h).
  unsigned PreamblesBuilt = 0;
  unsigned PreamblesReused = 0;
  /// The first pass: the files of facts written for the unit (name,
  /// contents), kept in the cache with its result.
  std::vector<std::pair<std::string, std::string>> Facts;
  /// Translation units that could not be analysed at all (stopped by
  /// --timeout-per-file, crashed): "<file>: <reason>".
  std::vector<std::string> FailedFiles;
};

/// The options that make a worker process of a run analyse one unit
/// (RunOptions::WorkerCommand): the unit, where the worker writes its
/// result (writeWorkerResult), and the first pass's facts directory and
/// the project index when the run has them.
struct WorkerRequest {
  /// The hidden options that carry the fields below.
  static constexpr const char *FileOption = "worker-unit";
  static constexpr const char *ResultOption = "worker-result";
  static constexpr const char *FactsOption = "worker-facts";
  static constexpr const char *IndexOption = "worker-index";
  /// Carries the run's RunOptions::DefaultHeaderFilter, which depends on
  /// all of its files.
  static constexpr const char *HeaderFilterOption = "worker-header-filter";
  /// The run's process id: a worker whose parent is no longer that process
  /// (the run ended before the worker started) exits at once.
  static constexpr const char *ParentOption = "worker-parent";

  std::string File;
  std::string ResultPath;
  std::string FactsDirectory;
  std::string ProjectIndex;
  std::string DefaultHeaderFilter;
};
std::vector<std::string> workerArguments(const WorkerRequest &Request);

/// Writes what a worker process hands back to the run that started it.
llvm::Error writeWorkerResult(llvm::StringRef Path, const RunResult &Result);

/// Parses the text of --config (YAML or JSON, as clang-tidy's --config),
/// once, before anything runs; the error reads "invalid --config: ...".
llvm::Expected<clang::tidy::ClangTidyOptions>
parseConfigOption(llvm::StringRef Text);

/// The clang-tidy options every file starts from (checks "-*,xfer-*",
/// findings shown in headers matching \p HeaderFilter).
clang::tidy::ClangTidyOptions
defaultXferOptions(llvm::StringRef HeaderFilter = "");

/// The root of the project \p Files belong to: the root of the git work
/// tree of the first, or, outside one, the deepest directory that holds all
/// of them; empty for no files.
std::string projectRoot(const std::vector<std::string> &Files);

/// A header filter that matches the files of the project \p Files belong
/// to: everything below projectRoot(Files).
std::string projectHeaderFilter(const std::vector<std::string> &Files);

/// The shard, of \p Count (0-based), that \p File is analysed in: a hash
/// (xxh3) of its path relative to \p Root, dots removed, '/'-separated. A
/// file keeps its shard when files are added or removed, and machines that
/// check the project out in different directories agree.
unsigned shardOf(llvm::StringRef File, llvm::StringRef Root, unsigned Count);

/// The configuration a run reads: .clang-tidy files (or --config) over the
/// defaults, then --checks and the global check options; configuration
/// files and --config turn xfer checks on or off only through globs that
/// name them (see CheckConfiguration.h).
std::unique_ptr<clang::tidy::ClangTidyOptionsProvider>
createOptionsProvider(const RunOptions &Options);

/// Runs the enabled xfer-* checks over \p Files with the commands in
/// \p Database.
RunResult runChecks(const clang::tooling::CompilationDatabase &Database,
                    const std::vector<std::string> &Files,
                    const RunOptions &Options);

/// The first pass over a program: collects every translation unit's facts
/// (see checks/analysis/ProjectFacts.h) with the same commands and options,
/// merges them and writes the project index to \p IndexPath (a new
/// temporary file when empty; set on return).
/// The units the first pass could not analyse (RunResult::FailedFiles) are
/// added to \p FailedFiles when given.
llvm::Error
writeProjectIndex(const clang::tooling::CompilationDatabase &Database,
                  const std::vector<std::string> &Files,
                  const RunOptions &Options, std::string &IndexPath,
                  std::vector<std::string> *FailedFiles = nullptr);

/// \p Options as the first pass runs them: only the facts check, writing
/// into \p FactsDirectory.
RunOptions indexingOptions(const RunOptions &Options,
                           llvm::StringRef FactsDirectory);

} // namespace xfer

#endif // XFER_TIDY_TOOL_XFERTIDYRUNNER_H
