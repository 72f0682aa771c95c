//===--- XferTidyRunner.cpp - runs the checks through clang-tidy's engine -===//

#include "XferTidyRunner.h"
#include "CheckConfiguration.h"
#include "CudaCompilation.h"
#include "CudaLaunchSpelling.h"
#include "Findings.h"
#include "MissingDeclarations.h"
#include "PreambleCache.h"
#include "ResultCache.h"
#include "analysis/ProjectFacts.h"
#include "analysis/UserCodeTraversal.h"
#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/xxhash.h"
#include <chrono>
#include <csignal>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>

using namespace clang;
using namespace clang::tidy;

// Keeps the xfer-* module's registration in statically linked binaries.
extern volatile int XferTidyModuleAnchorSource;
static int LLVM_ATTRIBUTE_UNUSED XferTidyModuleAnchorDestination =
    XferTidyModuleAnchorSource;

namespace xfer {
namespace {

/// Whether the checks never look into the body of \p D: a function that only
/// runs on the device, or one in a system header.
bool checksNeverReadBodyOf(Decl *D) {
  const FunctionDecl *FD = D->getAsFunction();
  if (!FD)
    return false;
  bool OnDevice =
      FD->hasAttr<CUDADeviceAttr>() || FD->hasAttr<CUDAGlobalAttr>();
  if (OnDevice && !FD->hasAttr<CUDAHostAttr>())
    return true;
  const SourceManager &SM = D->getASTContext().getSourceManager();
  return SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation()));
}

/// Forwards to clang-tidy's consumer but lets the parser skip the bodies of
/// functions the checks never look into: those that only run on the device,
/// and those in system headers (LibTorch's and the C++ library's inline
/// functions are most of a translation unit; the checks only see their
/// declarations). Clang itself never skips constexpr functions or ones whose
/// return type is deduced.
class BodySkippingConsumer : public MultiplexConsumer {
public:
  explicit BodySkippingConsumer(std::unique_ptr<ASTConsumer> Inner)
      : MultiplexConsumer(wrap(std::move(Inner))) {}

  static std::vector<std::unique_ptr<ASTConsumer>>
  wrap(std::unique_ptr<ASTConsumer> Inner) {
    std::vector<std::unique_ptr<ASTConsumer>> Consumers;
    Consumers.push_back(std::move(Inner));
    return Consumers;
  }

  bool shouldSkipFunctionBody(Decl *D) override {
    return checksNeverReadBodyOf(D);
  }

  /// The matchers then walk only the user's top-level declarations, not the
  /// system headers' (most of a LibTorch translation unit), as clangd does
  /// for its main file; the parent map covers only what they walk. The
  /// analyses still reach system declarations through the user's code.
  void HandleTranslationUnit(ASTContext &Ctx) override {
    tidy::xfer::narrowTraversalToUserCode(Ctx);
    MultiplexConsumer::HandleTranslationUnit(Ctx);
  }
};

class XferTidyAction : public ASTFrontendAction {
public:
  XferTidyAction(ClangTidyASTConsumerFactory &Factory, bool SkipBodies,
                 FileHashes *FilesRead)
      : Factory(Factory), SkipBodies(SkipBodies), FilesRead(FilesRead) {}

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &Compiler,
                                                 StringRef File) override {
    std::unique_ptr<ASTConsumer> Consumer =
        Factory.createASTConsumer(Compiler, File);
    if (SkipBodies)
      Consumer = std::make_unique<BodySkippingConsumer>(std::move(Consumer));
    std::vector<std::unique_ptr<ASTConsumer>> Consumers;
    Consumers.push_back(::xfer::installMissingDeclarations(Compiler));
    Consumers.push_back(std::move(Consumer));
    return std::make_unique<MultiplexConsumer>(std::move(Consumers));
  }

protected:
  bool BeginSourceFileAction(CompilerInstance &Compiler) override {
    // A missing third-party header is a fatal error, after which clang
    // skips every further #include and the rest of the file would yield no
    // findings. As an error, the code that does not depend on the header
    // still parses and is analysed.
    Compiler.getDiagnostics().setFatalsAsError(true);
    return true;
  }

  /// Records every file the parse read, with a hash of what it read (not
  /// of what is on disk by now), for the result cache.
  void EndSourceFileAction() override {
    if (!FilesRead)
      return;
    for (auto &[Path, Hash] : filesRead(getCompilerInstance()))
      (*FilesRead)[Path] = std::move(Hash);
  }

private:
  ClangTidyASTConsumerFactory &Factory;
  bool SkipBodies;
  FileHashes *FilesRead;
};

class XferTidyActionFactory : public tooling::FrontendActionFactory {
public:
  XferTidyActionFactory(ClangTidyContext &Context,
                        IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> FS,
                        bool SkipBodies)
      : ConsumerFactory(Context, FS), FS(std::move(FS)),
        SkipBodies(SkipBodies) {}

  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<XferTidyAction>(ConsumerFactory, SkipBodies,
                                            FilesRead);
  }

  /// Where the actions record the files their parses read; null: nowhere.
  void recordFilesRead(FileHashes *Into) { FilesRead = Into; }

  /// Parse with a stored preamble (see PreambleCache.h) where there is one,
  /// and keep one for a file analysed again.
  void usePreambles(std::string CacheDirectory,
                    RunOptions::PreamblePolicy When) {
    Preambles.emplace(
        std::move(CacheDirectory),
        [this](Decl *D) { return SkipBodies && checksNeverReadBodyOf(D); },
        When);
  }
  PreambleUse preambleUse() const { return LastPreambleUse; }

  bool runInvocation(std::shared_ptr<CompilerInvocation> Invocation,
                     FileManager *Files,
                     std::shared_ptr<PCHContainerOperations> PCHContainerOps,
                     DiagnosticConsumer *DiagConsumer) override {
    // As clang-tidy: code may test __clang_analyzer__ to hide constructs.
    Invocation->getPreprocessorOpts().SetUpStaticAnalyzer = true;
    // Diagnostics are reported through clang-tidy's consumer; without carets
    // clang does not also print "N warnings generated." on stderr.
    Invocation->getDiagnosticOpts().ShowCarets = false;
    // Errors from a missing header cascade; none may end the analysis.
    Invocation->getDiagnosticOpts().ErrorLimit = 0;
    // The stand-in type for what missing headers declare (see
    // MissingDeclarations.h).
    Invocation->getPreprocessorOpts().Includes.push_back(
        ::xfer::missingDeclarationsHeaderPath().str());
    // The parser consults the consumer per function only when skipping is
    // on; BodySkippingConsumer then keeps every body of user host code.
    if (SkipBodies)
      Invocation->getFrontendOpts().SkipFunctionBodies = true;
    if (Preambles) {
      FileHashes PreambleFiles;
      LastPreambleUse =
          Preambles->prepare(*Invocation, Files->getVirtualFileSystem(), *FS,
                             PCHContainerOps, PreambleFiles);
      if (FilesRead)
        FilesRead->insert(PreambleFiles.begin(), PreambleFiles.end());
    }
    return FrontendActionFactory::runInvocation(
        std::move(Invocation), Files, std::move(PCHContainerOps),
        DiagConsumer);
  }

  std::vector<std::string> checkNames() {
    return ConsumerFactory.getCheckNames();
  }

private:
  ClangTidyASTConsumerFactory ConsumerFactory;
  IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> FS;
  bool SkipBodies;
  FileHashes *FilesRead = nullptr;
  std::optional<PreambleCache> Preambles;
  PreambleUse LastPreambleUse = PreambleUse::None;
};

/// The commands of one file, already adjusted: clang-tidy's tool runs them
/// as they are (its own adjusters cleared).
class AdjustedCommands : public tooling::CompilationDatabase {
public:
  explicit AdjustedCommands(std::vector<tooling::CompileCommand> Commands)
      : Commands(std::move(Commands)) {}
  std::vector<tooling::CompileCommand>
  getCompileCommands(StringRef) const override {
    return Commands;
  }
  std::vector<tooling::CompileCommand> getAllCompileCommands() const override {
    return Commands;
  }

private:
  std::vector<tooling::CompileCommand> Commands;
};

/// contentHash of the file at \p Path, each file read once per process
/// (the project index and cost model are read for every translation unit's
/// key, and do not change during a run).
std::string fileHashOnce(StringRef Path) {
  static std::mutex Lock;
  static llvm::StringMap<std::string> Hashes;
  std::lock_guard<std::mutex> Guard(Lock);
  auto [It, Inserted] = Hashes.try_emplace(Path);
  if (Inserted) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Contents =
        llvm::MemoryBuffer::getFile(Path);
    It->second =
        Contents ? contentHash((*Contents)->getBuffer()) : "unreadable";
  }
  return It->second;
}

/// The key of a translation unit's result: everything known before the
/// parse that can change what the checks report. The files the parse reads
/// are checked on lookup (ResultCache).
std::string resultKey(StringRef File, StringRef MainContents,
                      const std::vector<tooling::CompileCommand> &Commands,
                      const ClangTidyOptions &FileOptions,
                      const RunOptions &Options) {
  CacheKeyBuilder Key;
  Key.add("result")
      .add(toolIdentity())
      .add(File)
      .add(contentHash(MainContents));
  for (const tooling::CompileCommand &Command : Commands) {
    Key.add("command").add(Command.Directory).add(Command.Filename);
    for (const std::string &Arg : Command.CommandLine)
      Key.add(Arg);
  }
  // The configuration, check options sorted; files named by options count
  // by their contents (the index is a new temporary file on every run).
  ClangTidyOptions Rest = FileOptions;
  Rest.CheckOptions.clear();
  Key.add("configuration").add(configurationAsText(Rest));
  std::map<std::string, std::string> CheckOptions;
  for (const auto &[Name, Value] : FileOptions.CheckOptions)
    CheckOptions[Name.str()] = Value.Value;
  for (const auto &[Name, Value] : CheckOptions) {
    StringRef Option = StringRef(Name).rsplit('.').second;
    if (Option.empty())
      Option = Name;
    Key.add(Name);
    // Where the first pass writes facts does not change them.
    if (Option == "OutputDirectory")
      continue;
    if (Option == "ProjectIndex" || Option == "CostModel") {
      if (Option == "CostModel")
        Key.add(Value);
      Key.add(Value.empty() ? "" : fileHashOnce(Value));
    } else {
      Key.add(Value);
    }
  }
  Key.add("skip-bodies").add(Options.SkipFunctionBodies ? "1" : "0");
  for (const auto &[Path, Contents] : Options.VirtualFiles)
    Key.add(Path).add(contentHash(Contents));
  return Key.key();
}

tooling::ArgumentsAdjuster resourceDirAdjuster(std::string ResourceDir) {
  return [ResourceDir](const tooling::CommandLineArguments &Args,
                       StringRef) -> tooling::CommandLineArguments {
    if (ResourceDir.empty())
      return Args;
    for (const std::string &Arg : Args)
      if (StringRef(Arg).starts_with("-resource-dir"))
        return Args;
    tooling::CommandLineArguments Adjusted = Args;
    appendCompilerArguments(Adjusted, {"-resource-dir=" + ResourceDir});
    return Adjusted;
  };
}

/// A `.h` file given on its own (a pre-commit hook passes the changed
/// headers) is a C header to the driver, so a C++ command fails at once
/// ("-std=c++17 not allowed with 'C'") and LibTorch's headers do not parse.
/// The code this tool reads is C++: the header is parsed as a C++ header
/// unless the command names a language or a C standard.
tooling::ArgumentsAdjuster headerLanguageAdjuster() {
  return [](const tooling::CommandLineArguments &Args,
            StringRef File) -> tooling::CommandLineArguments {
    if (llvm::sys::path::extension(File) != ".h")
      return Args;
    for (StringRef Arg : Args) {
      if (Arg == "-x" || Arg.starts_with("--language") ||
          (Arg.starts_with("-x") && Arg.size() > 2))
        return Args;
      if ((Arg.consume_front("-std=") || Arg.consume_front("--std=")) &&
          (Arg.starts_with("c") || Arg.starts_with("gnu")) &&
          !Arg.contains("++"))
        return Args;
    }
    tooling::CommandLineArguments Adjusted = Args;
    auto Position = Adjusted.empty() ? Adjusted.end() : Adjusted.begin() + 1;
    Adjusted.insert(Position, {"-x", "c++-header"});
    return Adjusted;
  };
}

std::unique_ptr<ClangTidyOptionsProvider>
makeOptionsProvider(const RunOptions &Options,
                    IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS) {
  ClangTidyGlobalOptions Global;
  ClangTidyOptions Override;
  if (!Options.Checks.empty())
    Override.Checks = Options.Checks;
  Override.HeaderFilterRegex = Options.HeaderFilter;
  Override.ExcludeHeaderFilterRegex = Options.ExcludeHeaderFilter;
  ClangTidyOptions Defaults = defaultXferOptions(Options.DefaultHeaderFilter);
  if (!Options.WarningsAsErrors.empty())
    Override.WarningsAsErrors = Options.WarningsAsErrors;
  for (const auto &[Key, Value] : Options.GlobalCheckOptions)
    Override.CheckOptions[Key] = ClangTidyOptions::ClangTidyValue(Value);
  if (Options.Config)
    return std::make_unique<ConfigOptionsProvider>(
        Global, Defaults, *Options.Config, Override, FS);
  return std::make_unique<FileOptionsProvider>(Global, Defaults, Override, FS);
}

/// "<unit>: compiler errors; ... (first: <where>: <message>)" when \p Unit's
/// \p Diagnostics have compiler errors: the unit, not the header the error
/// is in, is what could not be analysed, and its first error is the reason
/// (a missing generated header).
std::vector<std::string>
unitErrors(StringRef Unit, const std::vector<ClangTidyError> &Diagnostics) {
  for (const ClangTidyError &Error : Diagnostics) {
    if (Error.DiagLevel != ClangTidyError::Error ||
        !StringRef(Error.DiagnosticName).starts_with("clang-diagnostic-"))
      continue;
    std::string Where;
    StringRef ErrorFile = Error.Message.FilePath;
    if (!ErrorFile.empty()) {
      unsigned Line = 1, Column = 1;
      if (llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Text =
              llvm::MemoryBuffer::getFile(ErrorFile)) {
        StringRef Before =
            (*Text)->getBuffer().take_front(Error.Message.FileOffset);
        Line += Before.count('\n');
        Column += Before.size() - (Before.rfind('\n') + 1);
      }
      llvm::SmallString<256> AbsoluteUnit(Unit);
      llvm::sys::fs::make_absolute(AbsoluteUnit);
      Where =
          llvm::formatv("{0}{1}:{2}: ",
                        ErrorFile == AbsoluteUnit.str() ? std::string()
                                                        : ErrorFile.str() + ":",
                        Line, Column);
    }
    return {(Unit + ": compiler errors; findings may be incomplete (first: " +
             Where + Error.Message.Message + ")")
                .str()};
  }
  return {};
}

/// \p Path made absolute against the directory the unit was compiled in:
/// a compilation database may name its files relative to its "directory",
/// and the report is read from wherever xfer-tidy ran.
std::string againstBuildDirectory(StringRef Path, StringRef BuildDirectory) {
  if (Path.empty() || llvm::sys::path::is_absolute(Path) ||
      BuildDirectory.empty())
    return Path.str();
  llvm::SmallString<256> Absolute(BuildDirectory);
  llvm::sys::path::append(Absolute, Path);
  llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/false);
  return Absolute.str().str();
}

void makePathsAbsolute(ClangTidyError &Error) {
  StringRef Build = Error.BuildDirectory;
  auto Fix = [&](tooling::DiagnosticMessage &Message) {
    Message.FilePath = againstBuildDirectory(Message.FilePath, Build);
    for (tooling::FileByteRange &Range : Message.Ranges)
      Range.FilePath = againstBuildDirectory(Range.FilePath, Build);
    llvm::StringMap<tooling::Replacements> Fixes;
    for (const auto &Entry : Message.Fix)
      for (const tooling::Replacement &R : Entry.second) {
        std::string File = againstBuildDirectory(R.getFilePath(), Build);
        llvm::consumeError(Fixes[File].add(tooling::Replacement(
            File, R.getOffset(), R.getLength(), R.getReplacementText())));
      }
    Message.Fix = std::move(Fixes);
  };
  Fix(Error.Message);
  for (tooling::DiagnosticMessage &Note : Error.Notes)
    Fix(Note);
}

/// Runs one translation unit with its own clang-tidy context (contexts are
/// not thread-safe), or takes its result from the cache.
RunResult runFile(const tooling::CompilationDatabase &Database,
                  const std::string &File, const RunOptions &FileOptions) {
  // A file system per file: ClangTool changes its working directory, which
  // must not leak between threads (the default real file system's working
  // directory is the process's).
  IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> FS(
      new llvm::vfs::OverlayFileSystem(createLaunchSpellingFileSystem(
          llvm::vfs::createPhysicalFileSystem())));
  IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> Memory(
      new llvm::vfs::InMemoryFileSystem);
  for (const auto &[Path, Contents] : FileOptions.VirtualFiles)
    Memory->addFile(Path, 0, llvm::MemoryBuffer::getMemBufferCopy(Contents));
  Memory->addFile(::xfer::missingDeclarationsHeaderPath(), 0,
                  llvm::MemoryBuffer::getMemBuffer(
                      ::xfer::missingDeclarationsHeaderText()));
  FS->pushOverlay(Memory);
  std::string AbsoluteFile = File;
  if (llvm::Expected<std::string> Absolute =
          tooling::getAbsolutePath(*FS, File))
    AbsoluteFile = std::move(*Absolute);
  else
    llvm::consumeError(Absolute.takeError());

  // The first pass: the unit's facts go to a directory of its own, so that
  // they can be stored with its result and written back from the cache.
  RunOptions Options = FileOptions;
  std::string UnitFacts;
  if (!Options.FactsDirectory.empty()) {
    llvm::SmallString<256> Path(Options.FactsDirectory);
    llvm::sys::path::append(Path,
                            llvm::utohexstr(llvm::xxh3_64bits(AbsoluteFile)));
    UnitFacts = Path.str().str();
    llvm::sys::fs::create_directories(UnitFacts);
    Options.GlobalCheckOptions.emplace_back(
        "xferindex-project-facts.OutputDirectory", UnitFacts);
  }
  ClangTidyContext Context(
      withExplicitXferChecks(makeOptionsProvider(Options, FS)));

  // The commands as clang-tidy's tool would adjust them (its own adjusters
  // first), adjusted once here: the cache key hashes them and the tool runs
  // them unchanged.
  tooling::ArgumentsAdjuster Adjuster = tooling::combineAdjusters(
      tooling::getClangStripOutputAdjuster(),
      tooling::combineAdjusters(
          tooling::getClangSyntaxOnlyAdjuster(),
          tooling::getClangStripDependencyFileAdjuster()));
  auto Append = [&](tooling::ArgumentsAdjuster Next) {
    if (Next)
      Adjuster =
          tooling::combineAdjusters(std::move(Adjuster), std::move(Next));
  };
  Append([&Context](const tooling::CommandLineArguments &Args,
                    StringRef Filename) {
    ClangTidyOptions FileOptions = Context.getOptionsForFile(Filename);
    tooling::CommandLineArguments Adjusted = Args;
    if (FileOptions.ExtraArgsBefore) {
      auto It = Adjusted.begin();
      if (It != Adjusted.end() && !StringRef(*It).starts_with("-"))
        ++It; // skip the compiler
      Adjusted.insert(It, FileOptions.ExtraArgsBefore->begin(),
                      FileOptions.ExtraArgsBefore->end());
    }
    if (FileOptions.ExtraArgs)
      appendCompilerArguments(Adjusted, *FileOptions.ExtraArgs);
    return Adjusted;
  });
  Append(Options.CommandAdjuster);
  if (!Options.ExtraArgsBefore.empty())
    Append(tooling::getInsertArgumentAdjuster(
        Options.ExtraArgsBefore, tooling::ArgumentInsertPosition::BEGIN));
  if (!Options.ExtraArgs.empty())
    Append(tooling::getInsertArgumentAdjuster(
        Options.ExtraArgs, tooling::ArgumentInsertPosition::END));
  Append(tooling::getStripPluginsAdjuster());
  Append(resourceDirAdjuster(Options.ResourceDir));
  Append(headerLanguageAdjuster());

  std::vector<tooling::CompileCommand> Commands =
      Database.getCompileCommands(AbsoluteFile);
  for (tooling::CompileCommand &Command : Commands)
    Command.CommandLine = Adjuster(Command.CommandLine, Command.Filename);

  if (Commands.empty()) {
    // ClangTool would print "Skipping" and succeed.
    RunResult Skipped;
    Skipped.FailedFiles.push_back(
        File + ": not analysed: the compilation database has no command for "
               "it");
    return Skipped;
  }

  XferTidyActionFactory Factory(Context, FS, Options.SkipFunctionBodies);
  // The checks enabled for the current directory (the context's file until
  // the run starts).
  std::vector<std::string> EnabledChecks = Factory.checkNames();
  // What is not stored in the cache: it follows from the diagnostics.
  auto Finish = [&](RunResult &Done) {
    Done.EnabledChecks = std::move(EnabledChecks);
    Done.UnitsWithErrors = unitErrors(File, Done.Diagnostics);
  };

  std::optional<ResultCache> Cache;
  std::string Key;
  FileHashes FilesRead;
  if (!Options.CacheDirectory.empty() && !Commands.empty()) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Main =
        FS->getBufferForFile(AbsoluteFile);
    if (Main) {
      Cache.emplace(Options.CacheDirectory);
      Key = resultKey(AbsoluteFile, (*Main)->getBuffer(), Commands,
                      Context.getOptionsForFile(AbsoluteFile), Options);
      if (std::optional<RunResult> Hit = Cache->lookup(Key, *FS)) {
        Hit->CacheHits = 1;
        for (const auto &Fact : Hit->Facts) {
          llvm::SmallString<256> Path(UnitFacts);
          llvm::sys::path::append(Path, Fact.first);
          if (llvm::Error Failed =
                  llvm::writeToOutput(Path, [&](llvm::raw_ostream &OS) {
                    OS << Fact.second;
                    return llvm::Error::success();
                  }))
            llvm::consumeError(std::move(Failed)); // the index lacks them
        }
        Finish(*Hit);
        return std::move(*Hit);
      }
      Factory.recordFilesRead(&FilesRead);
      if (Options.Preambles != RunOptions::PreamblePolicy::Never)
        Factory.usePreambles(Options.CacheDirectory, Options.Preambles);
    }
  }

  AdjustedCommands Adjusted(std::move(Commands));
  tooling::ClangTool Tool(Adjusted, {File},
                          std::make_shared<PCHContainerOperations>(), FS);
  Tool.clearArgumentsAdjusters();

  ClangTidyDiagnosticConsumer DiagConsumer(Context, nullptr,
                                           /*RemoveIncompatibleErrors=*/true,
                                           /*GetFixesFromNotes=*/false);
  DiagnosticsEngine Engine(new DiagnosticIDs(), new DiagnosticOptions(),
                           &DiagConsumer, /*ShouldOwnClient=*/false);
  Context.setDiagnosticsEngine(&Engine);
  Tool.setDiagnosticConsumer(&DiagConsumer);
  Tool.setPrintErrorMessage(false);

  RunResult Result;
  {
    clang::tidy::xfer::CostNoteTable::RecordingScope Recording(
        Result.CostNotes);
    Tool.run(&Factory);
  }
  Result.Diagnostics = DiagConsumer.take();
  Result.PreamblesBuilt = Factory.preambleUse() == PreambleUse::Built;
  Result.PreamblesReused = Factory.preambleUse() == PreambleUse::Reused;
  for (ClangTidyError &Error : Result.Diagnostics)
    makePathsAbsolute(Error);
  if (!UnitFacts.empty()) {
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator It(UnitFacts, EC), End;
         It != End && !EC; It.increment(EC))
      if (llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Contents =
              llvm::MemoryBuffer::getFile(It->path()))
        Result.Facts.emplace_back(llvm::sys::path::filename(It->path()).str(),
                                  (*Contents)->getBuffer().str());
    llvm::sort(Result.Facts);
  }
  Finish(Result);
  // A unit with compiler errors is not stored: a header it did not find is
  // not among the files it read, and may appear.
  if (Cache && !FilesRead.empty() && Result.UnitsWithErrors.empty())
    Cache->store(Key, Result, FilesRead);
  return Result;
}

/// The last line \p Path holds that is not blank, if any.
std::string lastLineOf(StringRef Path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path);
  if (!Buffer)
    return "";
  SmallVector<StringRef> Lines;
  (*Buffer)->getBuffer().split(Lines, '\n', -1, /*KeepEmpty=*/false);
  while (!Lines.empty() && Lines.back().trim().empty())
    Lines.pop_back();
  return Lines.empty() ? "" : Lines.back().trim().str();
}

/// Runs one translation unit in a worker process (RunOptions::WorkerCommand)
/// and stops it after RunOptions::TimeoutPerFile seconds: a unit that hangs
/// or crashes fails alone, with a reason, and the run goes on.
RunResult runFileInWorker(const tooling::CompilationDatabase &Database,
                          const std::string &File, const RunOptions &Options) {
  RunResult Result;
  auto Fail = [&](const Twine &Reason) {
    Result.FailedFiles.push_back((File + ": " + Reason).str());
    return std::move(Result);
  };
  // The command adjuster runs here as in a run without workers: it reports
  // progress and collects the errors of nvcc commands for the run.
  if (Options.CommandAdjuster) {
    llvm::SmallString<256> AbsoluteFile(File);
    llvm::sys::fs::make_absolute(AbsoluteFile);
    for (const tooling::CompileCommand &Command :
         Database.getCompileCommands(AbsoluteFile))
      Options.CommandAdjuster(Command.CommandLine, Command.Filename);
  }

  llvm::SmallString<128> ResultPath, ErrorPath;
  if (std::error_code EC = llvm::sys::fs::createTemporaryFile(
          "xfer-tidy-unit", "json", ResultPath))
    return Fail("cannot create a temporary file: " + EC.message());
  if (std::error_code EC = llvm::sys::fs::createTemporaryFile(
          "xfer-tidy-unit", "log", ErrorPath)) {
    llvm::sys::fs::remove(ResultPath);
    return Fail("cannot create a temporary file: " + EC.message());
  }
  // Interrupted runs leave neither behind.
  llvm::sys::RemoveFileOnSignal(ResultPath);
  llvm::sys::RemoveFileOnSignal(ErrorPath);
  auto RemoveTemporaries = llvm::make_scope_exit([&] {
    llvm::sys::fs::remove(ResultPath);
    llvm::sys::fs::remove(ErrorPath);
    llvm::sys::DontRemoveFileOnSignal(ResultPath);
    llvm::sys::DontRemoveFileOnSignal(ErrorPath);
  });

  WorkerRequest Request;
  Request.File = File;
  Request.ResultPath = ResultPath.str().str();
  Request.FactsDirectory = Options.FactsDirectory;
  Request.DefaultHeaderFilter = Options.DefaultHeaderFilter;
  for (const auto &[Key, Value] : Options.GlobalCheckOptions)
    if (Key == "ProjectIndex")
      Request.ProjectIndex = Value;
  // Right after the program's name: the command may end in "-- <flags>".
  std::vector<std::string> Arguments = Options.WorkerCommand;
  std::vector<std::string> Extra = workerArguments(Request);
  Arguments.insert(Arguments.begin() + 1, Extra.begin(), Extra.end());
  std::vector<StringRef> ArgumentRefs(Arguments.begin(), Arguments.end());
  std::optional<StringRef> Redirects[] = {StringRef(""), StringRef(""),
                                          StringRef(ErrorPath)};
  std::string StartError;
  llvm::sys::ProcessInfo Worker = llvm::sys::ExecuteNoWait(
      Arguments.front(), ArgumentRefs, std::nullopt, Redirects,
      /*MemoryLimit=*/0, &StartError);
  if (Worker.Pid == llvm::sys::ProcessInfo::InvalidPid)
    return Fail("cannot start the analysis: " + StartError);

  // Polled, not waited for with a timeout: LLVM's timed wait uses the
  // process-wide alarm, which parallel units would share.
  using Clock = std::chrono::steady_clock;
  const Clock::time_point Deadline =
      Clock::now() + std::chrono::seconds(Options.TimeoutPerFile);
  std::string WaitError;
  llvm::sys::ProcessInfo Ended;
  for (;;) {
    Ended = llvm::sys::Wait(Worker, /*SecondsToWait=*/0, &WaitError);
    if (Ended.Pid != 0)
      break;
    if (Options.TimeoutPerFile && Clock::now() >= Deadline) {
      ::kill(Worker.Pid, SIGKILL);
      llvm::sys::Wait(Worker, std::nullopt);
      return Fail(llvm::formatv("not analysed: it took longer than {0} s "
                                "(--timeout-per-file)",
                                Options.TimeoutPerFile));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (Ended.ReturnCode != 0) {
    std::string Detail = lastLineOf(ErrorPath);
    std::string How =
        Ended.ReturnCode == -2
            ? "the analysis crashed (" + WaitError + ")"
            : llvm::formatv("the analysis failed (exit status {0})",
                            Ended.ReturnCode)
                  .str();
    return Fail(How + (Detail.empty() ? "" : ": " + Detail));
  }

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Written =
      llvm::MemoryBuffer::getFile(ResultPath);
  llvm::Expected<llvm::json::Value> Parsed =
      Written ? llvm::json::parse((*Written)->getBuffer())
              : llvm::Expected<llvm::json::Value>(
                    llvm::errorCodeToError(Written.getError()));
  if (!Parsed)
    return Fail("the analysis left no readable result: " +
                llvm::toString(Parsed.takeError()));
  const llvm::json::Object *Root = Parsed->getAsObject();
  const llvm::json::Value *Stored = Root ? Root->get("result") : nullptr;
  if (!Stored)
    return Fail("the analysis left no readable result");
  llvm::Expected<RunResult> Read = resultFromJson(*Stored);
  if (!Read)
    return Fail("the analysis left no readable result: " +
                llvm::toString(Read.takeError()));
  Result = std::move(*Read);
  if (const llvm::json::Array *Checks = Root->getArray("enabledChecks"))
    for (const llvm::json::Value &Check : *Checks)
      if (std::optional<StringRef> Name = Check.getAsString())
        Result.EnabledChecks.push_back(Name->str());
  if (const llvm::json::Array *Failed = Root->getArray("failedFiles"))
    for (const llvm::json::Value &Failure : *Failed)
      if (std::optional<StringRef> Message = Failure.getAsString())
        Result.FailedFiles.push_back(Message->str());
  Result.CacheHits = Root->getInteger("cacheHits").value_or(0);
  Result.PreamblesBuilt = Root->getInteger("preamblesBuilt").value_or(0);
  Result.PreamblesReused = Root->getInteger("preamblesReused").value_or(0);
  Result.UnitsWithErrors = unitErrors(File, Result.Diagnostics);
  return Result;
}

} // namespace

std::vector<std::string> workerArguments(const WorkerRequest &Request) {
  std::vector<std::string> Arguments = {
      std::string("--") + WorkerRequest::FileOption + "=" + Request.File,
      std::string("--") + WorkerRequest::ResultOption + "=" +
          Request.ResultPath};
  Arguments.push_back(std::string("--") + WorkerRequest::ParentOption + "=" +
                      std::to_string(llvm::sys::Process::getProcessId()));
  Arguments.push_back(std::string("--") + WorkerRequest::HeaderFilterOption +
                      "=" + Request.DefaultHeaderFilter);
  if (!Request.FactsDirectory.empty())
    Arguments.push_back(std::string("--") + WorkerRequest::FactsOption + "=" +
                        Request.FactsDirectory);
  if (!Request.ProjectIndex.empty())
    Arguments.push_back(std::string("--") + WorkerRequest::IndexOption + "=" +
                        Request.ProjectIndex);
  return Arguments;
}

llvm::Error writeWorkerResult(StringRef Path, const RunResult &Result) {
  llvm::json::Array Checks, Failed;
  for (const std::string &Check : Result.EnabledChecks)
    Checks.push_back(Check);
  for (const std::string &Failure : Result.FailedFiles)
    Failed.push_back(Failure);
  llvm::json::Value Handed = llvm::json::Object{
      {"result", resultToJson(Result)},
      {"enabledChecks", std::move(Checks)},
      {"failedFiles", std::move(Failed)},
      {"cacheHits", static_cast<int64_t>(Result.CacheHits)},
      {"preamblesBuilt", static_cast<int64_t>(Result.PreamblesBuilt)},
      {"preamblesReused", static_cast<int64_t>(Result.PreamblesReused)}};
  return llvm::writeToOutput(Path, [&](llvm::raw_ostream &OS) {
    OS << Handed;
    return llvm::Error::success();
  });
}

llvm::Expected<ClangTidyOptions> parseConfigOption(llvm::StringRef Text) {
  llvm::ErrorOr<ClangTidyOptions> Parsed =
      parseConfiguration(llvm::MemoryBufferRef(Text, "--config"));
  if (!Parsed)
    return llvm::createStringError(
        Parsed.getError(), "invalid --config: " + Parsed.getError().message());
  return std::move(*Parsed);
}

ClangTidyOptions defaultXferOptions(llvm::StringRef HeaderFilter) {
  ClangTidyOptions Defaults = ClangTidyOptions::getDefaults();
  Defaults.Checks = "-*,xfer-*";
  Defaults.HeaderFilterRegex = HeaderFilter.str();
  return Defaults;
}

std::string projectRoot(const std::vector<std::string> &Files) {
  if (Files.empty())
    return "";
  auto DirectoryOf = [](llvm::StringRef File) {
    llvm::SmallString<256> Absolute(File);
    llvm::sys::fs::make_absolute(Absolute);
    llvm::sys::path::remove_dots(Absolute, /*remove_dot_dot=*/true);
    return std::string(llvm::sys::path::parent_path(Absolute));
  };
  // The git work tree: a project's headers often sit beside, not under, the
  // directories of its sources (include/ next to src/).
  const std::string First = DirectoryOf(Files.front());
  for (llvm::StringRef Directory = First; !Directory.empty();
       Directory = llvm::sys::path::parent_path(Directory)) {
    llvm::SmallString<256> Git(Directory);
    llvm::sys::path::append(Git, ".git");
    if (llvm::sys::fs::exists(Git))
      return Directory.str();
  }
  std::string Root = First;
  for (const std::string &File : Files) {
    std::string Directory = DirectoryOf(File);
    while (!Root.empty() && Directory != Root &&
           !llvm::StringRef(Directory).starts_with(Root + "/"))
      Root = llvm::sys::path::parent_path(Root).str();
  }
  return Root;
}

std::string projectHeaderFilter(const std::vector<std::string> &Files) {
  if (Files.empty())
    return "";
  std::string Root = projectRoot(Files);
  if (Root.empty() || Root == "/")
    return ".*";
  return "^" + llvm::Regex::escape(Root) + "/";
}

unsigned shardOf(llvm::StringRef File, llvm::StringRef Root, unsigned Count) {
  assert(Count > 0 && "no shards");
  return llvm::xxh3_64bits(pathBelow(File, Root)) % Count;
}

std::unique_ptr<ClangTidyOptionsProvider>
createOptionsProvider(const RunOptions &Options) {
  return withExplicitXferChecks(
      makeOptionsProvider(Options, llvm::vfs::getRealFileSystem()));
}

RunResult runChecks(const tooling::CompilationDatabase &Database,
                    const std::vector<std::string> &Files,
                    const RunOptions &Options) {
  // One file per clang-tidy tool: a tool given several files prints its own
  // "[i/n] Processing file" lines on stderr, unsynchronised between threads
  // and regardless of --quiet (xfer-tidy reports progress itself).
  unsigned Jobs = std::max(1u, std::min<unsigned>(Options.Jobs, Files.size()));
  std::vector<RunResult> Partial(Files.size());
  auto Run = [&](size_t I) {
    auto Start = std::chrono::steady_clock::now();
    Partial[I] = Options.WorkerCommand.empty()
                     ? runFile(Database, Files[I], Options)
                     : runFileInWorker(Database, Files[I], Options);
    if (Options.OnUnitDone)
      Options.OnUnitDone(Files[I], Partial[I],
                         std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - Start)
                             .count());
  };
  if (Jobs <= 1) {
    for (size_t I = 0; I < Files.size(); ++I)
      Run(I);
  } else {
    llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(Jobs));
    for (size_t I = 0; I < Files.size(); ++I)
      Pool.async([&, I] { Run(I); });
    Pool.wait();
  }

  // A finding in a header that several batches include is reported once.
  RunResult Merged;
  std::set<std::tuple<std::string, std::string, unsigned, std::string>> Seen;
  // The same header is often spelled differently by different units
  // (src/a/../utils.h, src/b/../utils.h): compare real paths.
  llvm::StringMap<std::string> RealPaths;
  auto Identity = [&](const ClangTidyError &Error) -> const std::string & {
    llvm::StringRef File = Error.Message.FilePath;
    auto [It, Inserted] = RealPaths.try_emplace(File);
    if (Inserted) {
      llvm::SmallString<256> Real;
      It->second = llvm::sys::fs::real_path(File, Real) ? File.str()
                                                         : Real.str().str();
    }
    return It->second;
  };
  for (RunResult &Part : Partial) {
    for (ClangTidyError &Error : Part.Diagnostics)
      if (Seen.emplace(Error.DiagnosticName, Identity(Error),
                       Error.Message.FileOffset, Error.Message.Message)
              .second)
        Merged.Diagnostics.push_back(std::move(Error));
    for (std::string &Message : Part.UnitsWithErrors)
      Merged.UnitsWithErrors.push_back(std::move(Message));
    for (std::string &Failure : Part.FailedFiles)
      Merged.FailedFiles.push_back(std::move(Failure));
    if (Merged.EnabledChecks.empty())
      Merged.EnabledChecks = std::move(Part.EnabledChecks);
    Merged.CostNotes.merge(std::move(Part.CostNotes));
    Merged.CacheHits += Part.CacheHits;
    Merged.PreamblesBuilt += Part.PreamblesBuilt;
    Merged.PreamblesReused += Part.PreamblesReused;
  }
  return Merged;
}

RunOptions indexingOptions(const RunOptions &Options,
                           StringRef FactsDirectory) {
  RunOptions First = Options;
  First.Checks = "-*,xferindex-project-facts";
  First.FactsDirectory = FactsDirectory.str();
  // The first pass reads a stored preamble but neither notes nor builds
  // one: the checks' pass decides, so that a whole project's first run
  // stores none.
  if (First.Preambles != RunOptions::PreamblePolicy::Never)
    First.Preambles = RunOptions::PreamblePolicy::ReuseOnly;
  return First;
}

llvm::Error writeProjectIndex(const tooling::CompilationDatabase &Database,
                              const std::vector<std::string> &Files,
                              const RunOptions &Options, std::string &IndexPath,
                              std::vector<std::string> *FailedFiles) {
  llvm::SmallString<128> FactsDirectory;
  if (std::error_code EC = llvm::sys::fs::createUniqueDirectory(
          "xfer-tidy-facts", FactsDirectory))
    return llvm::createStringError(EC, "cannot create a directory for the "
                                       "project facts: %s",
                                   EC.message().c_str());
  auto RemoveFacts = llvm::make_scope_exit(
      [&] { llvm::sys::fs::remove_directories(FactsDirectory); });

  // Compiler errors are reported by the second pass.
  RunResult First =
      runChecks(Database, Files, indexingOptions(Options, FactsDirectory));
  if (FailedFiles)
    llvm::append_range(*FailedFiles, First.FailedFiles);

  // Merged in the order of their paths: the same facts give the same index,
  // whose contents the result cache's keys hash.
  std::vector<std::string> FactFiles;
  std::error_code EC;
  for (llvm::sys::fs::recursive_directory_iterator It(FactsDirectory, EC), End;
       It != End && !EC; It.increment(EC))
    if (It->type() == llvm::sys::fs::file_type::regular_file)
      FactFiles.push_back(It->path());
  llvm::sort(FactFiles);
  clang::tidy::xfer::ProjectFacts Merged;
  for (const std::string &FactFile : FactFiles) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
        llvm::MemoryBuffer::getFile(FactFile);
    if (!Buffer)
      continue;
    if (llvm::Expected<llvm::json::Value> Unit =
            llvm::json::parse((*Buffer)->getBuffer()))
      Merged.merge(*Unit);
    else
      llvm::consumeError(Unit.takeError());
  }

  if (IndexPath.empty()) {
    llvm::SmallString<128> Temporary;
    if (std::error_code TempEC = llvm::sys::fs::createTemporaryFile(
            "xfer-tidy-index", "json", Temporary))
      return llvm::createStringError(TempEC, "cannot create the project "
                                             "index: %s",
                                     TempEC.message().c_str());
    IndexPath = Temporary.str().str();
    llvm::sys::RemoveFileOnSignal(IndexPath); // an interrupted run's
  }
  return llvm::writeToOutput(IndexPath, [&](llvm::raw_ostream &OS) {
    OS << Merged.toJSON();
    return llvm::Error::success();
  });
}

} // namespace xfer
