//===--- XferTidyMain.cpp - the xfer-tidy command -------------------------===//
//
//   xfer-tidy [options] <source>... [-- <compiler flags>]
//   xfer-tidy [options] -p <build dir> [<source>...]
//
// Exit status: 0 no findings, 1 findings (with --exit-zero: only findings
// made errors by --warnings-as-errors), 2 usage, configuration or input
// errors (unknown options, missing files, an unreadable, malformed or empty
// compilation database, an option value a check cannot use, no check
// enabled, a translation unit with compiler errors).
//
//===----------------------------------------------------------------------===//

#include "CheckConfiguration.h"
#include "CudaCompilation.h"
#include "Findings.h"
#include "OutputFormats.h"
#include "ReportFilters.h"
#include "ResultCache.h"
#include "TraceJoin.h"
#include "XferTidyRunner.h"
#include "clang-tidy/ClangTidy.h"
#include "cost/CostCitation.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <csignal>
#include <mutex>
#ifdef __linux__
#include <sys/prctl.h>
#include <unistd.h>
#endif

using namespace llvm;
using namespace clang;

namespace llvm {
// Registers LLVM's own --color option (boolean); declared in an internal
// header of libLLVM. xfer-tidy replaces that option with its own.
void initWithColorOptions();
} // namespace llvm

namespace {

enum ExitStatus { NoFindings = 0, FoundFindings = 1, InputError = 2 };

cl::OptionCategory XferCategory("xfer-tidy options");

cl::list<std::string> Sources(cl::Positional, cl::desc("<source>..."),
                              cl::cat(XferCategory));
cl::opt<std::string> BuildPath(
    "p", cl::desc("Build directory containing compile_commands.json; "
                  "without sources, every file in it is analysed"),
    cl::value_desc("build dir"), cl::cat(XferCategory));
cl::opt<std::string> Checks(
    "checks",
    cl::desc("Comma-separated check globs, appended to the configuration's "
             "(default: -*,xfer-*), e.g. -checks=-*,xfer-sync-in-loop"),
    cl::cat(XferCategory));
cl::opt<std::string> Config(
    "config", cl::desc("clang-tidy configuration (YAML/JSON) to use instead "
                       "of .clang-tidy files"),
    cl::cat(XferCategory));
cl::opt<xfer::OutputFormat> Format(
    "format", cl::desc("Report format"), cl::init(xfer::OutputFormat::Text),
    cl::values(clEnumValN(xfer::OutputFormat::Text, "text",
                          "clang-tidy style text (default)"),
               clEnumValN(xfer::OutputFormat::Json, "json", "JSON"),
               clEnumValN(xfer::OutputFormat::Sarif, "sarif", "SARIF 2.1.0"),
               clEnumValN(xfer::OutputFormat::Github, "github",
                          "GitHub Actions workflow commands (annotations)")),
    cl::cat(XferCategory));
cl::opt<std::string> OutputFile(
    "output", cl::desc("Write the report to <file> instead of stdout; the "
                       "file is replaced atomically"),
    cl::value_desc("file"), cl::cat(XferCategory));
cl::opt<std::string> SarifRoot(
    "sarif-root",
    cl::desc("%SRCROOT% of the SARIF report: file URIs below it are relative "
             "to it (default: the current directory)"),
    cl::value_desc("dir"), cl::cat(XferCategory));
cl::opt<std::string> ExportFixes(
    "export-fixes",
    cl::desc("Write suggested fixes as YAML for clang-apply-replacements"),
    cl::value_desc("yaml"), cl::cat(XferCategory));
cl::opt<std::string> WarningsAsErrors(
    "warnings-as-errors",
    cl::desc("Check globs whose findings are errors, appended to the "
             "configuration's WarningsAsErrors; such findings make the exit "
             "status 1 even with --exit-zero"),
    cl::value_desc("globs"), cl::cat(XferCategory));
cl::opt<bool> ExitZero(
    "exit-zero",
    cl::desc("Exit 0 when there are findings (not for findings made errors "
             "by --warnings-as-errors, nor for input errors)"),
    cl::cat(XferCategory));
cl::opt<std::string> LineFilterOption(
    "line-filter",
    cl::desc("Report only findings on these lines, in clang-tidy's syntax: "
             "[{\"name\":\"file.cpp\",\"lines\":[[1,3],[5,7]]},"
             "{\"name\":\"file.h\"}]"),
    cl::value_desc("json"), cl::cat(XferCategory));
cl::opt<std::string> DiffRevision(
    "diff",
    cl::desc("Report only findings on the lines changed since <revision> "
             "(git diff -U0 <revision>); without sources, analyse the changed "
             "files of the compilation database and changed sources"),
    cl::value_desc("revision"), cl::cat(XferCategory));
cl::opt<std::string> BaselineFile(
    "baseline",
    cl::desc("Do not report the findings recorded in <file> by "
             "--write-baseline: report only new ones"),
    cl::value_desc("file"), cl::cat(XferCategory));
cl::opt<std::string> WriteBaselineFile(
    "write-baseline",
    cl::desc("Record the run's findings in <file> as accepted (exit 0 "
             "unless input errors)"),
    cl::value_desc("file"), cl::cat(XferCategory));
cl::opt<std::string> Shard(
    "shard",
    cl::desc("Analyse only part K of N of the translation units (1 <= K <= "
             "N), split by a hash of each file's path in the project, so that "
             "N machines share one run; merge their SARIF with --merge-sarif"),
    cl::value_desc("K/N"), cl::cat(XferCategory));
cl::opt<bool> MergeSarif(
    "merge-sarif",
    cl::desc("Merge the SARIF logs named as sources (the shards of a run) "
             "into one log with one run, written to --output or stdout, and "
             "exit"),
    cl::cat(XferCategory));
cl::opt<std::string> CacheDir(
    "cache-dir",
    cl::desc("Keep each translation unit's result in <dir> and reuse it while "
             "the file, the headers it read, its command and the "
             "configuration are unchanged (default: $XDG_CACHE_HOME/xfer-tidy "
             "or ~/.cache/xfer-tidy)"),
    cl::value_desc("dir"), cl::cat(XferCategory));
cl::opt<bool> NoCache("no-cache",
                      cl::desc("Neither read nor write the result cache"),
                      cl::cat(XferCategory));
cl::opt<bool> Fix("fix", cl::desc("Apply the suggested fixes in place"),
                  cl::cat(XferCategory));
cl::opt<unsigned> Jobs(
    "j",
    cl::desc("Translation units analysed in parallel (default: the number of "
             "hardware threads)"),
    cl::init(0), cl::cat(XferCategory));
cl::list<std::string> ExtraArgs("extra-arg",
                                cl::desc("Append an argument to each command"),
                                cl::cat(XferCategory));
cl::list<std::string>
    ExtraArgsBefore("extra-arg-before",
                    cl::desc("Prepend an argument to each command"),
                    cl::cat(XferCategory));
cl::opt<std::string> CudaPath(
    "cuda-path",
    cl::desc("CUDA toolkit to parse CUDA sources against (default: "
             "$CUDA_PATH, $CUDA_HOME, the build's toolkit, /usr/local/cuda)"),
    cl::cat(XferCategory));
cl::opt<std::string> IndexFile(
    "index",
    cl::desc("Where the first pass writes the program's facts across "
             "translation units (default: a temporary file)"),
    cl::value_desc("file"), cl::cat(XferCategory));
cl::opt<bool> NoIndex(
    "no-index",
    cl::desc("No first pass: analyse each translation unit on its own"),
    cl::cat(XferCategory));
cl::opt<std::string> CostModelFile(
    "cost-model",
    cl::desc("Cost model (from xfer-bench --output) whose measurements the "
             "warnings cite, or the name of one shipped with xfer-tidy "
             "(nvidia-h200); default: the measured model built in"),
    cl::value_desc("file"), cl::cat(XferCategory));
cl::opt<std::string> TraceFile(
    "trace",
    cl::desc("trace.json written by xfer-trace: adds what each finding "
             "measured in the traced program, ranks findings by it, and lists "
             "runtime hazards no check reported and findings never executed"),
    cl::value_desc("file"), cl::cat(XferCategory));
cl::opt<std::string> ResourceDir(
    "resource-dir", cl::desc("Clang 19 resource directory (builtin headers)"),
    cl::init(XFER_CLANG_RESOURCE_DIR), cl::cat(XferCategory));
cl::opt<std::string> HeaderFilter(
    "header-filter",
    cl::desc("Regular expression of the headers whose findings are shown, "
             "as clang-tidy's; overrides .clang-tidy's HeaderFilterRegex "
             "(default: the project's own headers, i.e. everything under the "
             "git work tree of the first source, or under the directory "
             "holding all sources)"),
    cl::value_desc("regex"), cl::cat(XferCategory));
cl::opt<std::string> ExcludeHeaderFilter(
    "exclude-header-filter",
    cl::desc("Regular expression of headers whose findings are not shown, "
             "even when --header-filter matches them"),
    cl::value_desc("regex"), cl::cat(XferCategory));
cl::opt<bool> InstallGitHook(
    "install-git-hook",
    cl::desc("Install a git pre-commit hook running this xfer-tidy on the "
             "staged files into the repository of the current directory, "
             "and exit"),
    cl::cat(XferCategory));
cl::opt<bool> ListChecks("list-checks",
                         cl::desc("List the enabled checks and exit"),
                         cl::cat(XferCategory));
cl::opt<bool> DumpConfig(
    "dump-config",
    cl::desc("Print the configuration the first source (or the current "
             "directory) is analysed with, as YAML, with every enabled "
             "check's options and their values, and exit (as clang-tidy's)"),
    cl::cat(XferCategory));
cl::opt<bool> VerifyConfig(
    "verify-config",
    cl::desc("Check the configuration (.clang-tidy files, --config, --checks) "
             "for globs that match no check, unknown option keys and values "
             "a check cannot use, and exit: 0 if it has no errors, 2 if it "
             "has (as clang-tidy's, which exits 1)"),
    cl::cat(XferCategory));
cl::opt<bool> Quiet(
    "quiet",
    cl::desc("Print nothing on stderr but errors and warnings: no progress "
             "lines, notes or summary"),
    cl::cat(XferCategory));
cl::opt<unsigned> TimeoutPerFile(
    "timeout-per-file",
    cl::desc("Analyse each translation unit in a process of its own and stop "
             "it after <seconds> (in each pass): a unit that takes longer, "
             "or crashes, is reported as not analysed (exit status 2) and "
             "the run goes on (default: 0, no limit, in this process)"),
    cl::value_desc("seconds"), cl::init(0), cl::cat(XferCategory));
// A worker process of a run with --timeout-per-file: the run's own command
// line and these (see xfer::WorkerRequest).
cl::opt<std::string> WorkerFile(StringRef(xfer::WorkerRequest::FileOption),
                                cl::Hidden, cl::cat(XferCategory));
cl::opt<std::string> WorkerResult(StringRef(xfer::WorkerRequest::ResultOption),
                                  cl::Hidden, cl::cat(XferCategory));
cl::opt<std::string> WorkerFacts(StringRef(xfer::WorkerRequest::FactsOption),
                                 cl::Hidden, cl::cat(XferCategory));
cl::opt<std::string> WorkerIndex(StringRef(xfer::WorkerRequest::IndexOption),
                                 cl::Hidden, cl::cat(XferCategory));
cl::opt<std::string> WorkerParent(StringRef(xfer::WorkerRequest::ParentOption),
                                  cl::Hidden, cl::cat(XferCategory));
cl::opt<std::string>
    WorkerHeaderFilter(StringRef(xfer::WorkerRequest::HeaderFilterOption),
                       cl::Hidden, cl::cat(XferCategory));

// Defining -h replaces LLVM's default alias of --help, which prints the help
// as soon as it is seen. A one-letter option groups with the letters after
// it, so LLVM took any unknown option beginning with -h (--header-x) for -h,
// printed the help and exited 0; this -h is only acted on once the whole
// command line has parsed.
cl::opt<bool> ShortHelp("h", cl::desc("Alias for --help"), cl::ValueDisallowed,
                        cl::cat(XferCategory));

enum class ColorChoice { Auto, Always, Never };
bool StderrColor = false;

/// Whether a stream gets colours: --color=always/never, else a terminal
/// unless NO_COLOR is set to something (https://no-color.org).
bool useColor(ColorChoice Mode, bool IsTerminal) {
  if (Mode != ColorChoice::Auto)
    return Mode == ColorChoice::Always;
  if (std::optional<std::string> NoColor = sys::Process::GetEnv("NO_COLOR"))
    if (!NoColor->empty())
      return false;
  return IsTerminal;
}

enum class ProgressChoice { Auto, Always, Never };

/// Progress of a run of several translation units on stderr. On a terminal
/// one line, rewritten as each unit finishes: "[5/12] analysing, 7 findings,
/// 0:42, slowest: train.cpp 12.1 s". Elsewhere (--progress=always in a log)
/// one such line per unit, naming it: "[5/12] analysed train.cpp (3.2 s),
/// 7 findings, 0:42, slowest: train.cpp 12.1 s".
class ProgressDisplay {
public:
  ProgressDisplay(bool Enabled, bool Terminal)
      : Enabled(Enabled), Terminal(Terminal),
        Start(std::chrono::steady_clock::now()) {}
  ~ProgressDisplay() { clear(); }

  /// The two passes over a compilation database: the project index's,
  /// then the checks' (which count findings).
  enum class Pass { Indexing, Analysing };

  /// The callback for \p Stage over \p Total units; null when progress is
  /// off.
  std::function<void(StringRef, const xfer::RunResult &, double)>
  stage(Pass Stage, size_t Total) {
    if (!Enabled)
      return nullptr;
    std::lock_guard<std::mutex> Guard(Lock);
    clear();
    Done = 0;
    Slowest.clear();
    SlowestSeconds = 0;
    return [this, Stage, Total](StringRef File, const xfer::RunResult &Result,
                                double Seconds) {
      unitDone(Stage, Total, File, Result, Seconds);
    };
  }

  /// Removes the terminal's line before anything else is printed.
  void clear() {
    if (Enabled && Terminal && LineShown) {
      errs() << "\r\x1b[K";
      errs().flush();
      LineShown = false;
    }
  }

private:
  void unitDone(Pass Stage, size_t Total, StringRef File,
                const xfer::RunResult &Result, double Seconds) {
    std::lock_guard<std::mutex> Guard(Lock);
    ++Done;
    const bool CountFindings = Stage == Pass::Analysing;
    if (CountFindings)
      Findings += llvm::count_if(Result.Diagnostics,
                                 [](const tidy::ClangTidyError &E) {
                                   return StringRef(E.DiagnosticName)
                                       .starts_with("xfer-");
                                 });
    StringRef Name = sys::path::filename(File);
    if (Seconds >= SlowestSeconds) {
      SlowestSeconds = Seconds;
      Slowest = Name.str();
    }
    unsigned Elapsed = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::steady_clock::now() - Start)
                           .count();
    std::string Status =
        formatv("{0}{1}:{2:2}, slowest: {3} {4:F1} s",
                CountFindings ? formatv("{0} findings, ", Findings).str()
                              : std::string(),
                Elapsed / 60, Elapsed % 60, Slowest, SlowestSeconds)
            .str();
    if (Terminal) {
      errs() << formatv("\r\x1b[K[{0}/{1}] {2}, {3}", Done, Total,
                        CountFindings ? "analysing" : "indexing", Status);
      LineShown = true;
    } else {
      errs() << formatv("[{0}/{1}] {2} {3} ({4:F1} s), {5}\n", Done, Total,
                        CountFindings ? "analysed" : "indexed", File, Seconds,
                        Status);
    }
    errs().flush();
  }

  bool Enabled;
  bool Terminal;
  std::chrono::steady_clock::time_point Start;
  std::mutex Lock;
  size_t Done = 0;
  size_t Findings = 0;
  bool LineShown = false;
  std::string Slowest;
  double SlowestSeconds = 0;
};

int warning(const Twine &Message) {
  WithColor::warning(errs(), "xfer-tidy") << Message << '\n';
  return 0;
}

void printVersion(raw_ostream &OS) {
  OS << "xfer-tidy " << XFER_VERSION << " (LLVM " << LLVM_VERSION_STRING
     << ")\n";
}

int inputError(const Twine &Message) {
  WithColor::error(errs(), "xfer-tidy") << Message << '\n';
  return InputError;
}

/// Prints the configuration's warnings; returns false (after printing its
/// errors) if the run would be meaningless: an option value a check cannot
/// use, or no check enabled.
bool checkConfiguration(tidy::ClangTidyOptionsProvider &Provider,
                        ArrayRef<std::string> Files,
                        std::vector<std::string> *Warnings = nullptr) {
  xfer::ConfigurationReport Report =
      xfer::verifyConfiguration(Provider, Files);
  for (const std::string &Message : Report.Warnings)
    warning(Message);
  if (Warnings)
    *Warnings = Report.Warnings;
  for (const std::string &Message : Report.Errors)
    inputError("configuration: " + Message);
  if (!Report.AnyCheckEnabled)
    inputError("no checks enabled (xfer-tidy --list-checks shows which "
               "checks a configuration enables)");
  return Report.Errors.empty() && Report.AnyCheckEnabled;
}

/// The text of scripts/pre-commit.
constexpr StringRef PreCommitHook =
#include "PreCommitHook.inc"
    ;

/// Runs git with \p Args in the current directory; its standard output.
Expected<std::string> runGit(ArrayRef<StringRef> Args) {
  ErrorOr<std::string> Git = sys::findProgramByName("git");
  if (!Git)
    return createStringError(Git.getError(), "git not found");
  SmallString<128> OutPath;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("xfer-tidy-git", "txt", OutPath))
    return createStringError(EC, "cannot create a temporary file");
  auto Remove = make_scope_exit([&] { sys::fs::remove(OutPath); });
  // The analysed repository's configuration must not run programs: an
  // fsmonitor hook or a textconv filter would (--diff only reads the diff).
  std::vector<StringRef> Argv{*Git, "-c", "core.fsmonitor=false"};
  Argv.insert(Argv.end(), Args.begin(), Args.end());
  std::optional<StringRef> Redirects[] = {std::nullopt, OutPath.str(),
                                          std::nullopt};
  std::string Message;
  int Status = sys::ExecuteAndWait(*Git, Argv, std::nullopt, Redirects, 0, 0,
                                   &Message);
  if (Status != 0) {
    std::string Command = "git";
    for (StringRef Arg : Args)
      Command += " " + Arg.str();
    return createStringError(std::errc::invalid_argument, "'%s' failed%s%s",
                             Command.c_str(), Message.empty() ? "" : ": ",
                             Message.c_str());
  }
  ErrorOr<std::unique_ptr<MemoryBuffer>> Out = MemoryBuffer::getFile(OutPath);
  if (!Out)
    return createStringError(Out.getError(), "cannot read git's output");
  return (*Out)->getBuffer().str();
}

/// Writes scripts/pre-commit, set to run this executable, as the
/// pre-commit hook of the repository of the current directory.
int installGitHook(const char *Argv0) {
  Expected<std::string> Hooks = runGit({"rev-parse", "--git-path", "hooks"});
  if (!Hooks)
    return inputError("cannot install the hook: " +
                      toString(Hooks.takeError()));
  SmallString<256> HookPath(StringRef(*Hooks).rtrim("\r\n"));
  sys::fs::make_absolute(HookPath);
  if (std::error_code EC = sys::fs::create_directories(HookPath))
    return inputError(HookPath + ": " + EC.message());
  sys::path::append(HookPath, "pre-commit");

  std::string Self = sys::fs::getMainExecutable(
      Argv0, reinterpret_cast<void *>(&installGitHook));
  std::string Escaped;
  for (char C : Self) {
    if (StringRef("\"$`\\").contains(C))
      Escaped += '\\';
    Escaped += C;
  }
  std::string Text = PreCommitHook.str();
  StringRef Default = ": \"${XFER_TIDY:=xfer-tidy}\"";
  size_t At = Text.find(Default.str());
  if (At != std::string::npos)
    Text.replace(At, Default.size(), ": \"${XFER_TIDY:=" + Escaped + "}\"");

  if (sys::fs::exists(HookPath)) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Existing =
        MemoryBuffer::getFile(HookPath);
    // Ours (from this or another xfer-tidy) is replaced; another is not.
    if (!Existing || !(*Existing)->getBuffer().contains(
                         "runs xfer-tidy on the staged C, C++ and CUDA"))
      return inputError(HookPath + ": a pre-commit hook exists already; "
                                   "not replacing it (call xfer-tidy from "
                                   "it, or remove it first)");
  }
  if (Error Err = writeToOutput(HookPath, [&](raw_ostream &OS) {
        OS << Text;
        return Error::success();
      }))
    return inputError("cannot write " + HookPath + ": " +
                      toString(std::move(Err)));
  if (std::error_code EC = sys::fs::setPermissions(
          HookPath, sys::fs::all_read | sys::fs::all_exe |
                        sys::fs::owner_write))
    return inputError(HookPath + ": " + EC.message());
  outs() << "installed " << HookPath << " (runs " << Self << ")\n";
  return NoFindings;
}

/// The compile_commands.json nearest above \p Start (a file or directory):
/// in a directory or in the build/ directory within it; empty if none.
std::string findCompilationDatabase(StringRef Start) {
  SmallString<256> Directory(Start);
  sys::fs::make_absolute(Directory);
  sys::path::remove_dots(Directory, /*remove_dot_dot=*/true);
  if (!sys::fs::is_directory(Directory))
    sys::path::remove_filename(Directory);
  for (StringRef Dir = Directory; !Dir.empty();
       Dir = sys::path::parent_path(Dir))
    for (StringRef Sub : {"", "build"}) {
      SmallString<256> Candidate(Dir);
      sys::path::append(Candidate, Sub, "compile_commands.json");
      if (sys::fs::exists(Candidate))
        return Candidate.str().str();
    }
  return "";
}

/// The files --diff changed that a run analyses: those the compilation
/// database lists, and changed sources (not headers) it does not.
std::vector<std::string> changedFiles(const xfer::LineFilter &Changed,
                                      const tooling::CompilationDatabase &DB) {
  StringSet<> Listed;
  for (const std::string &File : DB.getAllFiles()) {
    SmallString<256> Real;
    if (!sys::fs::real_path(File, Real))
      Listed.insert(Real);
  }
  std::vector<std::string> Files;
  for (const auto &Entry : Changed) {
    StringRef Extension = sys::path::extension(Entry.Name);
    bool IsSource = is_contained(
        ArrayRef<StringRef>{".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".cu"},
        Extension);
    SmallString<256> Real;
    if (sys::fs::real_path(Entry.Name, Real))
      continue; // deleted since, or not a file
    if (Listed.contains(Real) || IsSource)
      Files.push_back(Entry.Name);
  }
  return Files;
}

/// What the summary line says of work saved: " (2 from the cache, 1 parsed
/// with a stored preamble)", or nothing.
std::string reuseSummary(const xfer::RunResult &Result) {
  std::vector<std::string> Parts;
  if (Result.CacheHits)
    Parts.push_back(formatv("{0} from the cache", Result.CacheHits).str());
  if (Result.PreamblesReused)
    Parts.push_back(
        formatv("{0} parsed with a stored preamble", Result.PreamblesReused)
            .str());
  if (Result.PreamblesBuilt)
    Parts.push_back(formatv("{0} preamble{1} stored", Result.PreamblesBuilt,
                            Result.PreamblesBuilt == 1 ? "" : "s")
                        .str());
  return Parts.empty() ? "" : " (" + llvm::join(Parts, ", ") + ")";
}

/// The file whose configuration --list-checks shows, as clang-tidy: the
/// first source, or a file in the current directory.
std::string configurationProbe() {
  SmallString<256> Path(Sources.empty() ? "dummy.cpp" : Sources.front());
  sys::fs::make_absolute(Path);
  return Path.str().str();
}

/// Writes through \p Write to \p Path atomically, or to stdout.
Error writeReport(StringRef Path,
                  const std::function<void(raw_ostream &)> &Write) {
  if (Path.empty() || Path == "-") {
    Write(outs());
    outs().flush();
    return Error::success();
  }
  return writeToOutput(Path, [&](raw_ostream &OS) {
    Write(OS);
    return Error::success();
  });
}

/// "--shard=K/N" as (K - 1, N); none unless 1 <= K <= N.
std::optional<std::pair<unsigned, unsigned>> parseShard(StringRef Text) {
  auto [Part, Count] = Text.split('/');
  unsigned K = 0, N = 0;
  if (Part.getAsInteger(10, K) || Count.getAsInteger(10, N) || K == 0 || K > N)
    return std::nullopt;
  return std::pair{K - 1, N};
}

/// --merge-sarif: the logs named as sources, merged into one; nothing is
/// written unless every log reads.
int mergeSarifFiles() {
  if (Sources.empty())
    return inputError("--merge-sarif: name the SARIF logs to merge");
  std::vector<std::pair<std::string, json::Value>> Logs;
  for (const std::string &File : Sources) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(File);
    if (!Buffer)
      return inputError(File + ": cannot read: " + Buffer.getError().message());
    Expected<json::Value> Log = json::parse((*Buffer)->getBuffer());
    if (!Log)
      return inputError(File + ": not JSON: " + toString(Log.takeError()));
    Logs.emplace_back(File, std::move(*Log));
  }
  Expected<json::Value> Merged = xfer::mergeSarif(std::move(Logs));
  if (!Merged)
    return inputError("--merge-sarif: " + toString(Merged.takeError()));
  if (Error WriteError = writeReport(OutputFile, [&](raw_ostream &OS) {
        xfer::writeJson(OS, *Merged);
        OS << '\n';
      }))
    return inputError("cannot write " + OutputFile + ": " +
                      toString(std::move(WriteError)));
  return NoFindings;
}

/// Applies the fixes of check findings, one atomic write per file.
Error applyFixes(const std::vector<tidy::ClangTidyError> &Errors,
                 unsigned &Applied) {
  std::map<std::string, tooling::Replacements> ByFile;
  for (const tidy::ClangTidyError &Error : Errors)
    for (const auto &[File, Replacements] : Error.Message.Fix)
      for (const tooling::Replacement &R : Replacements)
        if (auto Err = ByFile[R.getFilePath().str()].add(R))
          consumeError(std::move(Err)); // conflicting fix: leave it out
  // Every file first: a file without write permission is one its owner
  // does not want changed (even when root could write it), and a run
  // applies all of its fixes or none.
  for (const auto &[File, Replacements] : ByFile) {
    sys::fs::file_status Status;
    if (std::error_code EC = sys::fs::status(File, Status))
      return createStringError(EC, "%s: %s; no fix applied", File.c_str(),
                               EC.message().c_str());
    if (!(Status.permissions() & sys::fs::all_write) ||
        sys::fs::access(File, sys::fs::AccessMode::Write))
      return createStringError(std::errc::permission_denied,
                               "%s is read-only; no fix applied", File.c_str());
  }
  for (auto &[File, Replacements] : ByFile) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer =
        MemoryBuffer::getFile(File);
    if (!Buffer)
      return createStringError(Buffer.getError(), "cannot read %s",
                               File.c_str());
    Expected<std::string> Fixed =
        tooling::applyAllReplacements((*Buffer)->getBuffer(), Replacements);
    if (!Fixed)
      return Fixed.takeError();
    if (auto Err = writeToOutput(File, [&](raw_ostream &OS) {
          OS << *Fixed;
          return Error::success();
        }))
      return Err;
    Applied += Replacements.size();
  }
  return Error::success();
}

/// compile_commands.json at \p Path. An entry's "directory" should be
/// absolute; a relative one (hand-written databases use ".") is taken
/// relative to the database's own directory, where clang's reader would
/// resolve it against the current directory and find no command.
std::unique_ptr<tooling::CompilationDatabase>
loadCompilationDatabase(StringRef Path, std::string &Error) {
  auto Load = [&] {
    return tooling::JSONCompilationDatabase::loadFromFile(
        Path, Error, tooling::JSONCommandLineSyntax::AutoDetect);
  };
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buffer = MemoryBuffer::getFile(Path);
  if (!Buffer)
    return Load();
  Expected<json::Value> Parsed = json::parse((*Buffer)->getBuffer());
  if (!Parsed) {
    consumeError(Parsed.takeError());
    return Load(); // clang's reader words the error
  }
  json::Array *Entries = Parsed->getAsArray();
  if (!Entries)
    return Load();
  SmallString<256> Base(sys::path::parent_path(Path));
  sys::fs::make_absolute(Base);
  bool Rewritten = false;
  for (json::Value &Entry : *Entries)
    if (json::Object *Fields = Entry.getAsObject())
      if (std::optional<StringRef> Directory = Fields->getString("directory"))
        if (sys::path::is_relative(*Directory)) {
          SmallString<256> Absolute(Base);
          sys::path::append(Absolute, *Directory);
          sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
          (*Fields)["directory"] = Absolute.str().str();
          Rewritten = true;
        }
  if (!Rewritten)
    return Load();
  std::string Text;
  raw_string_ostream(Text) << *Parsed;
  return tooling::JSONCompilationDatabase::loadFromBuffer(
      Text, Error, tooling::JSONCommandLineSyntax::AutoDetect);
}

/// The worker process of a run with --timeout-per-file: analyses the one
/// unit it is given, configured as the run that started it, and writes its
/// result for that run to read.
int runWorker(const tooling::CompilationDatabase &Database,
              xfer::RunOptions Options,
              tooling::ArgumentsAdjuster CudaAdjuster) {
  // The run that started this one reports progress and command errors.
  Options.CommandAdjuster = std::move(CudaAdjuster);
  Options.Jobs = 1;
  if (!WorkerFacts.empty())
    Options = xfer::indexingOptions(Options, WorkerFacts);
  if (!WorkerIndex.empty())
    Options.GlobalCheckOptions.emplace_back("ProjectIndex", WorkerIndex);
  xfer::RunResult Result = xfer::runChecks(Database, {WorkerFile}, Options);
  if (Error Failed = xfer::writeWorkerResult(WorkerResult, Result))
    return inputError("cannot write " + WorkerResult + ": " +
                      toString(std::move(Failed)));
  return NoFindings;
}

} // namespace

/// A worker ends with its run, even when the run is killed (SIGTERM from a
/// CI runner): nothing else would stop a unit that takes too long. Done
/// first, before any work; a worker whose run already ended exits.
bool workerOfAnEndedRun(int argc, const char **argv) {
#ifdef __linux__
  std::string Prefix =
      std::string("--") + xfer::WorkerRequest::ParentOption + "=";
  for (int I = 1; I < argc; ++I) {
    StringRef Arg(argv[I]);
    if (Arg == "--")
      break;
    long long Run = 0;
    if (Arg.consume_front(Prefix) && !Arg.getAsInteger(10, Run)) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      return ::getppid() != static_cast<pid_t>(Run);
    }
  }
#endif
  return false;
}

int main(int argc, const char **argv) {
  if (workerOfAnEndedRun(argc, argv))
    return InputError;
  InitLLVM Init(argc, argv);
  // --color=auto|always|never replaces LLVM's boolean --color.
  initWithColorOptions();
  if (cl::Option *LlvmColor = cl::getRegisteredOptions().lookup("color"))
    LlvmColor->removeArgument();
  static cl::opt<ColorChoice> Color(
      "color", cl::desc("Colours in the text report and messages"),
      cl::init(ColorChoice::Auto),
      cl::values(clEnumValN(ColorChoice::Auto, "auto",
                            "on a terminal, unless NO_COLOR is set (default)"),
                 clEnumValN(ColorChoice::Always, "always", "always"),
                 clEnumValN(ColorChoice::Never, "never", "never")),
      cl::cat(XferCategory));
  static cl::opt<ProgressChoice> ShowProgress(
      "progress",
      cl::desc("Progress of a run of several files on stderr: files done, "
               "findings so far, time elapsed and the slowest file"),
      cl::init(ProgressChoice::Auto),
      cl::values(
          clEnumValN(ProgressChoice::Auto, "auto",
                     "one line kept up to date on a terminal, nothing "
                     "elsewhere (default)"),
          clEnumValN(ProgressChoice::Always, "always",
                     "also when stderr is not a terminal: a line per file"),
          clEnumValN(ProgressChoice::Never, "never", "never")),
      cl::cat(XferCategory));
  cl::HideUnrelatedOptions(XferCategory);
  cl::SetVersionPrinter(printVersion);

  // A worker process (--timeout-per-file) gets this command line.
  std::vector<std::string> WorkerCommand(argv, argv + argc);
  WorkerCommand.front() =
      sys::fs::getMainExecutable(argv[0], reinterpret_cast<void *>(&warning));
  // Everything after "--" is the compiler command for the named sources.
  std::string FixedDatabaseError;
  std::unique_ptr<tooling::FixedCompilationDatabase> FixedDatabase =
      tooling::FixedCompilationDatabase::loadFromCommandLine(
          argc, argv, FixedDatabaseError);
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "xfer-tidy: finds host<->device transfer and synchronization "
          "hazards in C++, CUDA and LibTorch code.\n\n"
          "  xfer-tidy [options] <source>... [-- <compiler flags>]\n"
          "  xfer-tidy [options] -p <build dir> [<source>...]\n\n"
          "Exit status: 0 no findings, 1 findings, 2 usage or input errors.\n",
          &errs()))
    return InputError;

  if (ShortHelp) {
    cl::PrintHelpMessage(/*Hidden=*/false, /*Categorized=*/true);
    return NoFindings;
  }

  StderrColor = useColor(Color, errs().is_displayed());
  errs().enable_colors(StderrColor);
  WithColor::setAutoDetectFunction(
      [](const raw_ostream &) { return StderrColor; });

  if (InstallGitHook)
    return installGitHook(argv[0]);
  if (MergeSarif)
    return mergeSarifFiles();
  std::optional<std::pair<unsigned, unsigned>> ShardPart;
  if (Shard.getNumOccurrences()) {
    ShardPart = parseShard(Shard);
    if (!ShardPart)
      return inputError("--shard=" + Shard +
                        ": expected K/N with 1 <= K <= N, e.g. --shard=2/4");
  }

  // --config and the cost model are read here, once: an error ends the run
  // before any analysis, and what was read is passed down.
  xfer::RunOptions Options;
  if (!Config.empty()) {
    Expected<tidy::ClangTidyOptions> Parsed = xfer::parseConfigOption(Config);
    if (!Parsed)
      return inputError(toString(Parsed.takeError()));
    Options.Config = std::move(*Parsed);
  }

  // A name rather than a file: a model shipped with xfer-tidy.
  if (!CostModelFile.empty() && !sys::fs::exists(CostModelFile) &&
      !CostModelFile.getValue().empty() &&
      CostModelFile.find_first_of("/\\") == std::string::npos &&
      !StringRef(CostModelFile).ends_with(".json")) {
    SmallString<256> Shipped(xfer::costModelDirectory());
    sys::path::append(Shipped, CostModelFile + ".json");
    if (sys::fs::exists(Shipped))
      CostModelFile = Shipped.str().str();
  }
  if (!CostModelFile.empty()) {
    llvm::Expected<clang::tidy::xfer::CostModel> Model =
        clang::tidy::xfer::CostModel::loadFile(CostModelFile);
    if (!Model)
      return inputError(toString(Model.takeError()));
    // The checks cite this model by its path without reading it again.
    clang::tidy::xfer::shareCostModel(CostModelFile, std::move(*Model));
    Options.GlobalCheckOptions.emplace_back("CostModel", CostModelFile);
  }

  std::optional<xfer::Trace> Trace;
  if (!TraceFile.empty()) {
    Expected<xfer::Trace> Loaded = xfer::loadTrace(TraceFile);
    if (!Loaded)
      return inputError(toString(Loaded.takeError()));
    Trace = std::move(*Loaded);
  }

  if (CacheDir.getNumOccurrences() && CacheDir.empty())
    return inputError("--cache-dir: empty directory name (--no-cache turns "
                      "the cache off)");
  Options.Checks = Checks;
  Options.WarningsAsErrors = WarningsAsErrors;
  Options.ExtraArgs = ExtraArgs;
  Options.ExtraArgsBefore = ExtraArgsBefore;
  Options.ResourceDir = ResourceDir;
  Options.Jobs = Jobs ? Jobs.getValue()
                      : llvm::hardware_concurrency().compute_thread_count();

  if (VerifyConfig) {
    std::unique_ptr<tidy::ClangTidyOptionsProvider> Provider =
        xfer::createOptionsProvider(Options);
    if (!checkConfiguration(*Provider, {configurationProbe()}))
      return InputError;
    outs() << "No config errors detected.\n";
    return NoFindings;
  }
  if (DumpConfig) {
    std::string Probe = configurationProbe();
    Options.DefaultHeaderFilter = xfer::projectHeaderFilter({Probe});
    std::unique_ptr<tidy::ClangTidyOptionsProvider> Provider =
        xfer::createOptionsProvider(Options);
    if (!checkConfiguration(*Provider, {Probe}))
      return InputError;
    tidy::ClangTidyOptions Effective = Provider->getOptions(Probe);
    // Every enabled check's options with the values it would use, as
    // clang-tidy prints them.
    Effective.CheckOptions = tidy::getCheckOptions(Effective, false);
    outs() << tidy::configurationAsText(
                  tidy::ClangTidyOptions::getDefaults().merge(Effective, 0))
           << '\n';
    return NoFindings;
  }
  if (ListChecks) {
    std::unique_ptr<tidy::ClangTidyOptionsProvider> Provider =
        xfer::createOptionsProvider(Options);
    std::string Probe = configurationProbe();
    if (!checkConfiguration(*Provider, {Probe}))
      return InputError;
    for (const std::string &Name :
         tidy::getCheckNames(Provider->getOptions(Probe), false))
      outs() << Name << '\n';
    return NoFindings;
  }

  // The compilation database: -p, "--", or the compile_commands.json
  // nearest above the first source (or in a build/ directory beside it).
  std::unique_ptr<tooling::CompilationDatabase> Database;
  std::string DatabaseFile;
  if (!BuildPath.empty()) {
    SmallString<256> Path(BuildPath);
    if (sys::fs::is_directory(BuildPath) ||
        sys::path::filename(BuildPath) != "compile_commands.json")
      sys::path::append(Path, "compile_commands.json");
    DatabaseFile = Path.str().str();
    if (!sys::fs::exists(DatabaseFile))
      return inputError(DatabaseFile + ": no compilation database");
  } else if (!FixedDatabase && !Sources.empty()) {
    DatabaseFile = findCompilationDatabase(Sources.front());
  } else if (!FixedDatabase && !DiffRevision.empty()) {
    DatabaseFile = findCompilationDatabase(".");
    if (DatabaseFile.empty())
      return inputError("--diff: no compile_commands.json above the current "
                        "directory (name one with -p)");
  }
  if (!DatabaseFile.empty()) {
    std::string Error;
    Database = loadCompilationDatabase(DatabaseFile, Error);
    if (!Database)
      return inputError(DatabaseFile + ": malformed compilation database: " +
                        Error);
    if (Database->getAllFiles().empty())
      return inputError(DatabaseFile + ": the compilation database is empty");
    // Files it does not list (headers, new files) borrow the command of
    // their closest neighbour, as in clangd.
    Database = tooling::inferMissingCompileCommands(std::move(Database));
  } else if (FixedDatabase) {
    Database = std::move(FixedDatabase);
  } else if (!Sources.empty()) {
    // compile_flags.txt, else no flags at all.
    std::string Error;
    Database = tooling::CompilationDatabase::autoDetectFromSource(
        Sources.front(), Error);
    if (!Database)
      Database = std::make_unique<tooling::FixedCompilationDatabase>(
          ".", std::vector<std::string>{});
  }
  if (!Database)
    return inputError("no input: name source files, or a build directory "
                      "with -p (see --help)");

  // Which lines to report: --line-filter, or the lines --diff changed.
  if (!LineFilterOption.empty() && !DiffRevision.empty())
    return inputError("--line-filter and --diff cannot be combined");
  xfer::LineFilter Filter;
  if (!LineFilterOption.empty()) {
    Expected<xfer::LineFilter> Parsed = xfer::parseLineFilter(LineFilterOption);
    if (!Parsed)
      return inputError("invalid --line-filter: " +
                        toString(Parsed.takeError()));
    Filter = std::move(*Parsed);
  }
  std::vector<std::string> Files(Sources.begin(), Sources.end());
  if (!WorkerFile.empty())
    Files = {WorkerFile};
  if (!DiffRevision.empty() && WorkerFile.empty()) {
    Expected<std::string> TopLevel = runGit({"rev-parse", "--show-toplevel"});
    if (!TopLevel)
      return inputError("--diff: " + toString(TopLevel.takeError()));
    Expected<std::string> Diff =
        runGit({"-c", "core.quotePath=false", "diff", "-U0", "--no-color",
                "--no-ext-diff", "--no-textconv", DiffRevision, "--"});
    if (!Diff)
      return inputError("--diff=" + DiffRevision + ": " +
                        toString(Diff.takeError()));
    Filter = xfer::lineFilterFromDiff(*Diff, StringRef(*TopLevel).rtrim());
    if (Files.empty())
      Files = changedFiles(Filter, *Database);
    if (Files.empty()) {
      if (!Quiet)
        errs() << "no changed source files since " << DiffRevision << '\n';
      return NoFindings;
    }
  }
  std::optional<xfer::Baseline> Accepted;
  if (!BaselineFile.empty() && WorkerFile.empty()) {
    Expected<xfer::Baseline> Loaded = xfer::Baseline::load(BaselineFile);
    if (!Loaded)
      return inputError(toString(Loaded.takeError()));
    Accepted = std::move(*Loaded);
  }
  if (Files.empty())
    Files = Database->getAllFiles();
  if (Files.empty())
    return inputError("the compilation database lists no files");
  for (const std::string &File : Files)
    if (!sys::fs::exists(File))
      return inputError(File + ": no such file");
  for (const std::string &File : Files) {
    if (sys::fs::is_directory(File))
      return inputError(File + ": is a directory, not a source file");
    if (std::error_code EC = sys::fs::access(File, sys::fs::AccessMode::Exist);
        !EC) {
      ErrorOr<std::unique_ptr<MemoryBuffer>> Readable =
          MemoryBuffer::getFile(File, /*IsText=*/false,
                                /*RequiresNullTerminator=*/false);
      if (!Readable)
        return inputError(File + ": cannot read: " +
                          Readable.getError().message());
      // A NUL byte early on: an object file or archive named by mistake.
      StringRef Start = (*Readable)->getBuffer().take_front(64 * 1024);
      if (Start.contains('\0'))
        return inputError(File + ": not a source file (binary content)");
    }
  }
  // Fail before the analysis, not after it, when the report cannot be
  // written where asked.
  for (const std::string *Output : {&OutputFile.getValue(),
                                    &ExportFixes.getValue()})
    if (!Output->empty() && *Output != "-") {
      StringRef Parent = sys::path::parent_path(*Output);
      if (!Parent.empty() && !sys::fs::is_directory(Parent))
        return inputError("cannot write " + *Output + ": no such directory '" +
                          Parent + "'");
    }
  Options.DefaultHeaderFilter = WorkerFile.empty()
                                    ? xfer::projectHeaderFilter(Files)
                                    : WorkerHeaderFilter.getValue();
  if (HeaderFilter.getNumOccurrences())
    Options.HeaderFilter = HeaderFilter;
  if (ExcludeHeaderFilter.getNumOccurrences())
    Options.ExcludeHeaderFilter = ExcludeHeaderFilter;
  for (const auto &[Name, Pattern] :
       {std::pair{"--header-filter", &Options.HeaderFilter},
        std::pair{"--exclude-header-filter", &Options.ExcludeHeaderFilter}}) {
    std::string Invalid;
    if (*Pattern && !Regex(**Pattern).isValid(Invalid))
      return inputError(Twine(Name) + ": invalid regular expression '" +
                        **Pattern + "': " + Invalid);
  }

  // The program is every file named; a shard analyses a part of it with the
  // whole program's header filter, configuration and index, so that the
  // shards' findings together are the unsharded run's.
  const std::vector<std::string> ProgramFiles = Files;
  if (ShardPart && WorkerFile.empty()) {
    std::string Root = xfer::projectRoot(ProgramFiles);
    llvm::erase_if(Files, [&](const std::string &File) {
      return xfer::shardOf(File, Root, ShardPart->second) != ShardPart->first;
    });
    if (!Quiet)
      WithColor::note(errs(), "xfer-tidy")
          << formatv("shard {0}/{1}: {2} of {3} files\n", ShardPart->first + 1,
                     ShardPart->second, Files.size(), ProgramFiles.size());
  }
  auto Absolute = [](const std::vector<std::string> &Names) {
    std::vector<std::string> Paths;
    for (const std::string &Name : Names) {
      SmallString<256> Path(Name);
      sys::fs::make_absolute(Path);
      Paths.push_back(Path.str().str());
    }
    return Paths;
  };
  std::vector<std::string> AbsoluteFiles = Absolute(Files);
  // Say once per file when its command is borrowed from a neighbour.
  if (!DatabaseFile.empty() && !Quiet)
    for (size_t I = 0; I < Files.size(); ++I) {
      const std::string &File = Files[I];
      std::vector<tooling::CompileCommand> Commands =
          Database->getCompileCommands(AbsoluteFiles[I]);
      if (!Commands.empty() && !Commands.front().Heuristic.empty())
        WithColor::note(errs(), "xfer-tidy")
            << File << ": not in " << DatabaseFile << "; analysed with the "
            << "command " << Commands.front().Heuristic << '\n';
    }

  std::vector<std::string> ConfigurationWarnings;
  {
    std::unique_ptr<tidy::ClangTidyOptionsProvider> Provider =
        xfer::createOptionsProvider(Options);
    if (!checkConfiguration(*Provider, Absolute(ProgramFiles),
                            &ConfigurationWarnings))
      return InputError;
  }

  // The result cache: made (with its tag) before the run, or left out.
  if (!NoCache) {
    SmallString<256> Directory(CacheDir.empty() ? xfer::defaultCacheDirectory()
                                                : CacheDir.getValue());
    if (!Directory.empty()) {
      sys::fs::make_absolute(Directory);
      if (Error Unusable = xfer::ResultCache(Directory.str().str()).prepare())
        warning("result cache not used: " + toString(std::move(Unusable)));
      else
        Options.CacheDirectory = Directory.str().str();
    }
  }

  // CUDA sources: nvcc commands translated, CUDA 13 compatibility headers.
  xfer::CudaAnalysisSetup Cuda{
      xfer::detectCudaPath(CudaPath, XFER_DEFAULT_CUDA_PATH)};
  auto CudaErrors = std::make_shared<xfer::CudaCommandErrors>();
  tooling::ArgumentsAdjuster CudaAdjuster =
      xfer::makeCudaArgumentsAdjuster(Cuda, nullptr, CudaErrors);
  Options.VirtualFiles = xfer::cudaCompatFiles(Cuda.CudaPath);
  if (!WorkerFile.empty())
    return runWorker(*Database, Options, CudaAdjuster);
  if (TimeoutPerFile.getNumOccurrences()) {
    Options.WorkerCommand = std::move(WorkerCommand);
    Options.WorkerCommand.insert(Options.WorkerCommand.begin() + 1, "--quiet");
    Options.TimeoutPerFile = TimeoutPerFile;
  }
  bool StderrIsTerminal = errs().is_displayed();
  ProgressDisplay Progress(
      !Quiet && ProgramFiles.size() > 1 &&
          (ShowProgress == ProgressChoice::Always ||
           (ShowProgress == ProgressChoice::Auto && StderrIsTerminal)),
      StderrIsTerminal);

  std::vector<std::string> IndexFailures;
  // The translation units of one run are one program: a first pass
  // collects where each call's arguments live and which units use CUDA,
  // so that train.cpp sees the device main.cpp chose.
  if (!NoIndex && !Files.empty() &&
      (ProgramFiles.size() > 1 || !IndexFile.empty())) {
    Options.CommandAdjuster = CudaAdjuster;
    Options.OnUnitDone =
        Progress.stage(ProgressDisplay::Pass::Indexing, ProgramFiles.size());
    std::string Index = IndexFile;
    std::vector<std::string> NotIndexed;
    if (Error Failed = xfer::writeProjectIndex(*Database, ProgramFiles, Options,
                                               Index, &NotIndexed))
      return inputError(toString(std::move(Failed)));
    Options.GlobalCheckOptions.emplace_back("ProjectIndex", Index);
    // A unit the first pass could not analyse in time is not tried again.
    llvm::erase_if(Files, [&](const std::string &File) {
      return llvm::any_of(NotIndexed, [&](StringRef Failure) {
        return Failure.starts_with(File + ": ");
      });
    });
    IndexFailures = std::move(NotIndexed);
  }
  auto RemoveIndex = llvm::make_scope_exit([&] {
    if (IndexFile.empty())
      for (const auto &[Key, Value] : Options.GlobalCheckOptions)
        if (Key == "ProjectIndex")
          sys::fs::remove(Value);
  });

  Options.CommandAdjuster = CudaAdjuster;
  Options.OnUnitDone =
      Progress.stage(ProgressDisplay::Pass::Analysing, Files.size());
  xfer::RunResult Result = xfer::runChecks(*Database, Files, Options);
  Progress.clear();

  // Configuration diagnostics (a cost model the checks cannot read) are
  // errors of the run, not findings.
  std::vector<std::string> ConfigurationErrors;
  {
    StringSet<> Seen;
    llvm::erase_if(Result.Diagnostics, [&](const tidy::ClangTidyError &E) {
      if (E.DiagnosticName != "clang-tidy-config")
        return false;
      if (Seen.insert(E.Message.Message).second)
        ConfigurationErrors.push_back(E.Message.Message);
      return true;
    });
  }

  // Only the lines asked for, then only findings not in the baseline;
  // compiler diagnostics always pass.
  xfer::PositionResolver Resolver;
  std::vector<xfer::Finding> Current; // what --write-baseline records
  unsigned Baselined = 0;
  {
    std::vector<tidy::ClangTidyError> Reported;
    for (tidy::ClangTidyError &E : Result.Diagnostics) {
      xfer::Finding F =
          xfer::toFindings({E}, Resolver, &Result.CostNotes).front();
      if (!xfer::passesLineFilter(F, Filter))
        continue;
      if (Accepted && Accepted->consume(F, Resolver)) {
        ++Baselined;
        Current.push_back(std::move(F));
        continue;
      }
      Current.push_back(std::move(F));
      Reported.push_back(std::move(E));
    }
    Result.Diagnostics = std::move(Reported);
  }
  std::vector<xfer::Finding> Findings =
      xfer::toFindings(Result.Diagnostics, Resolver, &Result.CostNotes);
  std::optional<xfer::TraceJoin> Joined;
  if (Trace)
    Joined = xfer::joinTrace(*Trace, Findings, AbsoluteFiles);
  if (!WriteBaselineFile.empty())
    if (Error Err = xfer::Baseline::write(WriteBaselineFile, Current, Resolver))
      return inputError("cannot write " + WriteBaselineFile + ": " +
                        toString(std::move(Err)));

  // What makes the run fail (exit 2), printed after the report.
  std::vector<std::string> RunErrors;
  for (const std::string &Message : IndexFailures)
    RunErrors.push_back(Message);
  for (const std::string &Message : Result.FailedFiles)
    RunErrors.push_back(Message);
  for (const std::string &Message : ConfigurationErrors)
    RunErrors.push_back("configuration: " + Message);
  for (std::string &Message : CudaErrors->takeMessages())
    RunErrors.push_back(std::move(Message));
  for (std::string &Message : Result.UnitsWithErrors)
    RunErrors.push_back(std::move(Message));

  Error WriteError = writeReport(OutputFile, [&](raw_ostream &OS) {
    switch (Format) {
    case xfer::OutputFormat::Text: {
      bool Colors = useColor(Color, OutputFile.empty() && OS.is_displayed());
      OS.enable_colors(Colors);
      xfer::writeText(OS, Findings, Resolver, Colors);
      if (Joined)
        xfer::writeTraceText(OS, *Trace, *Joined, Findings);
      break;
    }
    case xfer::OutputFormat::Json: {
      llvm::json::Value Report = xfer::toJson(Findings);
      if (Joined)
        xfer::addTraceToJson(Report, *Trace, *Joined, Findings);
      xfer::writeJson(OS, Report);
      OS << '\n';
      break;
    }
    case xfer::OutputFormat::Sarif: {
      xfer::SarifOptions Sarif;
      Sarif.Root = SarifRoot.empty() ? std::string(".") : SarifRoot.getValue();
      Sarif.EnabledChecks = Result.EnabledChecks;
      Sarif.ConfigurationWarnings = ConfigurationWarnings;
      Sarif.ExecutionErrors = RunErrors;
      llvm::json::Value Log = xfer::toSarif(Findings, Resolver, Sarif);
      if (Joined)
        xfer::addTraceToSarif(Log, *Trace, *Joined, Findings);
      xfer::writeJson(OS, Log);
      OS << '\n';
      break;
    }
    case xfer::OutputFormat::Github: {
      SmallString<256> Cwd;
      sys::fs::current_path(Cwd);
      xfer::writeGithub(OS, Findings, Cwd);
      break;
    }
    }
  });
  if (WriteError)
    return inputError("cannot write " + OutputFile + ": " +
                      toString(std::move(WriteError)));

  if (!ExportFixes.empty()) {
    if (Error Err = writeToOutput(ExportFixes, [&](raw_ostream &OS) {
          tidy::exportReplacements(Files.empty() ? "" : Files.front(),
                                   Result.Diagnostics, OS);
          return Error::success();
        }))
      return inputError("cannot write " + ExportFixes + ": " +
                        toString(std::move(Err)));
  }
  unsigned Applied = 0;
  if (Fix)
    if (Error Err = applyFixes(Result.Diagnostics, Applied))
      return inputError("cannot apply fixes: " + toString(std::move(Err)));

  unsigned Warnings = 0, AsErrors = 0;
  for (const xfer::Finding &F : Findings)
    if (!F.isCompilerDiagnostic()) {
      ++Warnings;
      AsErrors += F.WarningAsError;
    }

  for (const std::string &Message : RunErrors)
    inputError(Message);
  bool HadErrors = !RunErrors.empty();
  if (!Quiet)
    errs() << Warnings << (Warnings == 1 ? " finding" : " findings") << " in "
           << Files.size() << (Files.size() == 1 ? " file" : " files")
           << (AsErrors ? formatv(", {0} as errors", AsErrors).str() : "")
           << (Accepted ? formatv(", {0} more in the baseline", Baselined).str()
                        : "")
           << (WriteBaselineFile.empty()
                   ? ""
                   : ", recorded in " + WriteBaselineFile.getValue())
           << (Fix ? formatv(", {0} fixes applied", Applied).str() : "")
           << reuseSummary(Result) << '\n';
  if (HadErrors)
    return InputError;
  if (!WriteBaselineFile.empty())
    return NoFindings;
  if (AsErrors)
    return FoundFindings;
  return Warnings && !ExitZero ? FoundFindings : NoFindings;
}
