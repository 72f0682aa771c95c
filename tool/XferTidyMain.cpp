//===--- XferTidyMain.cpp - the xfer-tidy command -------------------------===//
//
//   xfer-tidy [options] <source>... [-- <compiler flags>]
//   xfer-tidy [options] -p <build dir> [<source>...]
//
// Exit status: 0 no findings, 1 findings, 2 usage or input errors (missing
// files, an unreadable or malformed compilation database, a translation unit
// with compiler errors).
//
//===----------------------------------------------------------------------===//

#include "cost/CostModel.h"
#include "CudaCompilation.h"
#include "Findings.h"
#include "OutputFormats.h"
#include "XferTidyRunner.h"
#include "clang-tidy/ClangTidy.h"
#include "clang/Tooling/CompilationDatabase.h"
#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace clang;

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
               clEnumValN(xfer::OutputFormat::Sarif, "sarif", "SARIF 2.1.0")),
    cl::cat(XferCategory));
cl::opt<std::string> OutputFile(
    "output", cl::desc("Write the report to <file> instead of stdout; the "
                       "file is replaced atomically"),
    cl::value_desc("file"), cl::cat(XferCategory));
cl::opt<std::string> ExportFixes(
    "export-fixes",
    cl::desc("Write suggested fixes as YAML for clang-apply-replacements"),
    cl::value_desc("yaml"), cl::cat(XferCategory));
cl::opt<bool> Fix("fix", cl::desc("Apply the suggested fixes in place"),
                  cl::cat(XferCategory));
cl::opt<unsigned> Jobs("j", cl::desc("Translation units analysed in parallel"),
                       cl::init(1), cl::cat(XferCategory));
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
             "warnings cite; default: the measured model built in"),
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
cl::opt<bool> ListChecks("list-checks",
                         cl::desc("List the enabled checks and exit"),
                         cl::cat(XferCategory));
cl::opt<bool> Quiet("quiet", cl::desc("Do not print the summary line"),
                    cl::cat(XferCategory));

void printVersion(raw_ostream &OS) {
  OS << "xfer-tidy " << XFER_VERSION << " (LLVM " << LLVM_VERSION_STRING
     << ")\n";
}

int inputError(const Twine &Message) {
  WithColor::error(errs(), "xfer-tidy") << Message << '\n';
  return InputError;
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

/// Applies the fixes of check findings, one atomic write per file.
Error applyFixes(const std::vector<tidy::ClangTidyError> &Errors,
                 unsigned &Applied) {
  std::map<std::string, tooling::Replacements> ByFile;
  for (const tidy::ClangTidyError &Error : Errors)
    for (const auto &[File, Replacements] : Error.Message.Fix)
      for (const tooling::Replacement &R : Replacements)
        if (auto Err = ByFile[R.getFilePath().str()].add(R))
          consumeError(std::move(Err)); // conflicting fix: leave it out
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

} // namespace

int main(int argc, const char **argv) {
  InitLLVM Init(argc, argv);
  cl::HideUnrelatedOptions(XferCategory);
  cl::SetVersionPrinter(printVersion);

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

  if (!Config.empty()) {
    ErrorOr<tidy::ClangTidyOptions> Parsed =
        tidy::parseConfiguration(MemoryBufferRef(Config, "--config"));
    if (!Parsed)
      return inputError("invalid --config: " + Parsed.getError().message());
  }

  if (!CostModelFile.empty()) {
    llvm::Expected<clang::tidy::xfer::CostModel> Model =
        clang::tidy::xfer::CostModel::loadFile(CostModelFile);
    if (!Model)
      return inputError(toString(Model.takeError()));
  }

  xfer::RunOptions Options;
  if (!CostModelFile.empty())
    Options.GlobalCheckOptions.emplace_back("CostModel", CostModelFile);
  Options.Checks = Checks;
  Options.Config = Config;
  Options.ExtraArgs = ExtraArgs;
  Options.ExtraArgsBefore = ExtraArgsBefore;
  Options.ResourceDir = ResourceDir;
  Options.Jobs = std::max(1u, Jobs.getValue());

  if (ListChecks) {
    tidy::ClangTidyOptions Effective = xfer::defaultXferOptions();
    if (!Checks.empty())
      Effective.Checks = *Effective.Checks + "," + Checks;
    for (const std::string &Name : tidy::getCheckNames(Effective, false))
      outs() << Name << '\n';
    return NoFindings;
  }

  // The compilation database: -p, "--", or a compile_commands.json found
  // above the first source.
  std::unique_ptr<tooling::CompilationDatabase> Database;
  if (!BuildPath.empty()) {
    SmallString<256> DatabaseFile(BuildPath);
    if (!sys::fs::is_directory(BuildPath) &&
        sys::path::filename(BuildPath) == "compile_commands.json")
      DatabaseFile = BuildPath;
    else
      sys::path::append(DatabaseFile, "compile_commands.json");
    if (!sys::fs::exists(DatabaseFile))
      return inputError(DatabaseFile + ": no compilation database");
    std::string Error;
    Database = tooling::JSONCompilationDatabase::loadFromFile(
        DatabaseFile, Error, tooling::JSONCommandLineSyntax::AutoDetect);
    if (!Database)
      return inputError(DatabaseFile + ": malformed compilation database: " +
                        Error);
    Database = tooling::inferMissingCompileCommands(std::move(Database));
  } else if (FixedDatabase) {
    Database = std::move(FixedDatabase);
  } else if (!Sources.empty()) {
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

  std::vector<std::string> Files(Sources.begin(), Sources.end());
  if (Files.empty())
    Files = Database->getAllFiles();
  if (Files.empty())
    return inputError("the compilation database lists no files");
  for (const std::string &File : Files)
    if (!sys::fs::exists(File))
      return inputError(File + ": no such file");
  Options.DefaultHeaderFilter = xfer::projectHeaderFilter(Files);
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

  // CUDA sources: nvcc commands translated, CUDA 13 compatibility headers.
  xfer::CudaAnalysisSetup Cuda{
      xfer::detectCudaPath(CudaPath, XFER_DEFAULT_CUDA_PATH)};
  auto CudaErrors = std::make_shared<xfer::CudaCommandErrors>();
  Options.CommandAdjuster =
      xfer::makeCudaArgumentsAdjuster(Cuda, nullptr, CudaErrors);
  Options.VirtualFiles = xfer::cudaCompatFiles(Cuda.CudaPath);

  // The translation units of one run are one program: a first pass
  // collects where each call's arguments live and which units use CUDA,
  // so that train.cpp sees the device main.cpp chose.
  if (!NoIndex && (Files.size() > 1 || !IndexFile.empty())) {
    std::string Index = IndexFile;
    if (Error Failed = xfer::writeProjectIndex(*Database, Files, Options,
                                               Index))
      return inputError(toString(std::move(Failed)));
    Options.GlobalCheckOptions.emplace_back("ProjectIndex", Index);
  }
  auto RemoveIndex = llvm::make_scope_exit([&] {
    if (IndexFile.empty())
      for (const auto &[Key, Value] : Options.GlobalCheckOptions)
        if (Key == "ProjectIndex")
          sys::fs::remove(Value);
  });

  xfer::RunResult Result = xfer::runChecks(*Database, Files, Options);

  xfer::PositionResolver Resolver;
  std::vector<xfer::Finding> Findings =
      xfer::toFindings(Result.Diagnostics, Resolver);

  Error WriteError = writeReport(OutputFile, [&](raw_ostream &OS) {
    switch (Format) {
    case xfer::OutputFormat::Text:
      xfer::writeText(OS, Findings, Resolver,
                      OutputFile.empty() && sys::Process::StandardOutIsDisplayed());
      break;
    case xfer::OutputFormat::Json:
      OS << formatv("{0:2}", xfer::toJson(Findings)) << '\n';
      break;
    case xfer::OutputFormat::Sarif:
      OS << formatv("{0:2}", xfer::toSarif(Findings)) << '\n';
      break;
    }
  });
  if (WriteError)
    return inputError("cannot write " + OutputFile + ": " +
                      toString(std::move(WriteError)));

  if (!ExportFixes.empty()) {
    if (Error Err = writeToOutput(ExportFixes, [&](raw_ostream &OS) {
          tidy::exportReplacements(Files.front(), Result.Diagnostics, OS);
          return Error::success();
        }))
      return inputError("cannot write " + ExportFixes + ": " +
                        toString(std::move(Err)));
  }
  unsigned Applied = 0;
  if (Fix)
    if (Error Err = applyFixes(Result.Diagnostics, Applied))
      return inputError("cannot apply fixes: " + toString(std::move(Err)));

  unsigned Warnings = 0;
  for (const xfer::Finding &F : Findings)
    if (!F.isCompilerDiagnostic())
      ++Warnings;

  bool HadErrors = false;
  for (const std::string &Message : CudaErrors->takeMessages()) {
    WithColor::error(errs(), "xfer-tidy") << Message << '\n';
    HadErrors = true;
  }
  StringSet<> Reported;
  for (const std::string &File : Result.FilesWithErrors)
    if (Reported.insert(File).second) {
      WithColor::error(errs(), "xfer-tidy")
          << File << ": compiler errors; findings may be incomplete\n";
      HadErrors = true;
    }
  if (!Quiet)
    errs() << Warnings << (Warnings == 1 ? " finding" : " findings") << " in "
           << Files.size() << (Files.size() == 1 ? " file" : " files")
           << (Fix ? formatv(", {0} fixes applied", Applied).str() : "")
           << '\n';
  if (HadErrors)
    return InputError;
  return Warnings ? FoundFindings : NoFindings;
}
