//===--- XferTidyRunner.cpp - runs the checks through clang-tidy's engine -===//

#include "XferTidyRunner.h"
#include "CheckConfiguration.h"
#include "CudaCompilation.h"
#include "analysis/ProjectFacts.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "clang-tidy/ClangTidy.h"
#include "clang-tidy/ClangTidyModule.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/ThreadPool.h"
#include <mutex>

using namespace clang;
using namespace clang::tidy;

// Keeps the xfer-* module's registration in statically linked binaries.
extern volatile int XferTidyModuleAnchorSource;
static int LLVM_ATTRIBUTE_UNUSED XferTidyModuleAnchorDestination =
    XferTidyModuleAnchorSource;

namespace xfer {
namespace {

/// Forwards to clang-tidy's consumer but lets the parser skip the bodies of
/// functions that only run on the device.
class DeviceBodySkippingConsumer : public MultiplexConsumer {
public:
  explicit DeviceBodySkippingConsumer(std::unique_ptr<ASTConsumer> Inner)
      : MultiplexConsumer(wrap(std::move(Inner))) {}

  static std::vector<std::unique_ptr<ASTConsumer>>
  wrap(std::unique_ptr<ASTConsumer> Inner) {
    std::vector<std::unique_ptr<ASTConsumer>> Consumers;
    Consumers.push_back(std::move(Inner));
    return Consumers;
  }

  bool shouldSkipFunctionBody(Decl *D) override {
    const FunctionDecl *FD = D->getAsFunction();
    if (!FD)
      return false;
    bool OnDevice = FD->hasAttr<CUDADeviceAttr>() ||
                    FD->hasAttr<CUDAGlobalAttr>();
    return OnDevice && !FD->hasAttr<CUDAHostAttr>();
  }
};

class XferTidyAction : public ASTFrontendAction {
public:
  XferTidyAction(ClangTidyASTConsumerFactory &Factory, bool SkipDeviceBodies)
      : Factory(Factory), SkipDeviceBodies(SkipDeviceBodies) {}

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &Compiler,
                                                 StringRef File) override {
    std::unique_ptr<ASTConsumer> Consumer =
        Factory.createASTConsumer(Compiler, File);
    if (!SkipDeviceBodies || !Compiler.getLangOpts().CUDA)
      return Consumer;
    return std::make_unique<DeviceBodySkippingConsumer>(std::move(Consumer));
  }

private:
  ClangTidyASTConsumerFactory &Factory;
  bool SkipDeviceBodies;
};

class XferTidyActionFactory : public tooling::FrontendActionFactory {
public:
  XferTidyActionFactory(ClangTidyContext &Context,
                        IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> FS,
                        bool SkipDeviceBodies)
      : ConsumerFactory(Context, std::move(FS)),
        SkipDeviceBodies(SkipDeviceBodies) {}

  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<XferTidyAction>(ConsumerFactory, SkipDeviceBodies);
  }

  bool runInvocation(std::shared_ptr<CompilerInvocation> Invocation,
                     FileManager *Files,
                     std::shared_ptr<PCHContainerOperations> PCHContainerOps,
                     DiagnosticConsumer *DiagConsumer) override {
    // As clang-tidy: code may test __clang_analyzer__ to hide constructs.
    Invocation->getPreprocessorOpts().SetUpStaticAnalyzer = true;
    // Diagnostics are reported through clang-tidy's consumer; without carets
    // clang does not also print "N warnings generated." on stderr.
    Invocation->getDiagnosticOpts().ShowCarets = false;
    // The parser consults the consumer per function only when skipping is
    // on; DeviceBodySkippingConsumer then keeps every host body.
    if (SkipDeviceBodies && Invocation->getLangOpts().CUDA)
      Invocation->getFrontendOpts().SkipFunctionBodies = true;
    return FrontendActionFactory::runInvocation(
        std::move(Invocation), Files, std::move(PCHContainerOps),
        DiagConsumer);
  }

  std::vector<std::string> checkNames() {
    return ConsumerFactory.getCheckNames();
  }

private:
  ClangTidyASTConsumerFactory ConsumerFactory;
  bool SkipDeviceBodies;
};

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

std::unique_ptr<ClangTidyOptionsProvider>
makeOptionsProvider(const RunOptions &Options,
                    IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS) {
  ClangTidyGlobalOptions Global;
  ClangTidyOptions Override;
  if (!Options.Checks.empty())
    Override.Checks = Options.Checks;
  if (!Options.WarningsAsErrors.empty())
    Override.WarningsAsErrors = Options.WarningsAsErrors;
  for (const auto &[Key, Value] : Options.GlobalCheckOptions)
    Override.CheckOptions[Key] = ClangTidyOptions::ClangTidyValue(Value);
  if (!Options.Config.empty()) {
    llvm::ErrorOr<ClangTidyOptions> Parsed =
        parseConfiguration(llvm::MemoryBufferRef(Options.Config, "--config"));
    if (Parsed)
      return std::make_unique<ConfigOptionsProvider>(
          Global, defaultXferOptions(), *Parsed, Override, FS);
  }
  return std::make_unique<FileOptionsProvider>(Global, defaultXferOptions(),
                                               Override, FS);
}

/// Runs one batch of files with its own clang-tidy context (contexts are
/// not thread-safe).
RunResult runBatch(const tooling::CompilationDatabase &Database,
                   const std::vector<std::string> &Files,
                   const RunOptions &Options) {
  // A file system per batch: ClangTool changes its working directory, which
  // must not leak between threads (the default real file system's working
  // directory is the process's).
  IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> FS(
      new llvm::vfs::OverlayFileSystem(llvm::vfs::createPhysicalFileSystem()));
  if (!Options.VirtualFiles.empty()) {
    IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> Memory(
        new llvm::vfs::InMemoryFileSystem);
    for (const auto &[Path, Contents] : Options.VirtualFiles)
      Memory->addFile(Path, 0, llvm::MemoryBuffer::getMemBufferCopy(Contents));
    FS->pushOverlay(Memory);
  }
  ClangTidyContext Context(
      withExplicitXferChecks(makeOptionsProvider(Options, FS)));
  tooling::ClangTool Tool(Database, Files,
                          std::make_shared<PCHContainerOperations>(), FS);

  Tool.appendArgumentsAdjuster(
      [&Context](const tooling::CommandLineArguments &Args,
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
  if (Options.CommandAdjuster)
    Tool.appendArgumentsAdjuster(Options.CommandAdjuster);
  if (!Options.ExtraArgsBefore.empty())
    Tool.appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
        Options.ExtraArgsBefore, tooling::ArgumentInsertPosition::BEGIN));
  if (!Options.ExtraArgs.empty())
    Tool.appendArgumentsAdjuster(tooling::getInsertArgumentAdjuster(
        Options.ExtraArgs, tooling::ArgumentInsertPosition::END));
  Tool.appendArgumentsAdjuster(tooling::getStripPluginsAdjuster());
  Tool.appendArgumentsAdjuster(resourceDirAdjuster(Options.ResourceDir));

  ClangTidyDiagnosticConsumer DiagConsumer(Context, nullptr,
                                           /*RemoveIncompatibleErrors=*/true,
                                           /*GetFixesFromNotes=*/false);
  DiagnosticsEngine Engine(new DiagnosticIDs(), new DiagnosticOptions(),
                           &DiagConsumer, /*ShouldOwnClient=*/false);
  Context.setDiagnosticsEngine(&Engine);
  Tool.setDiagnosticConsumer(&DiagConsumer);
  Tool.setPrintErrorMessage(false);

  XferTidyActionFactory Factory(Context, FS, Options.SkipDeviceFunctionBodies);
  RunResult Result;
  Result.EnabledChecks = Factory.checkNames();
  Tool.run(&Factory);
  Result.Diagnostics = DiagConsumer.take();
  for (const ClangTidyError &Error : Result.Diagnostics)
    if (Error.DiagLevel == ClangTidyError::Error &&
        StringRef(Error.DiagnosticName).starts_with("clang-diagnostic-")) {
      StringRef File = Error.Message.FilePath;
      if (File.empty())
        File = Error.BuildDirectory;
      Result.FilesWithErrors.push_back(File.str());
    }
  return Result;
}

} // namespace

ClangTidyOptions defaultXferOptions() {
  ClangTidyOptions Defaults = ClangTidyOptions::getDefaults();
  Defaults.Checks = "-*,xfer-*";
  return Defaults;
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
  if (Jobs <= 1) {
    for (size_t I = 0; I < Files.size(); ++I)
      Partial[I] = runBatch(Database, {Files[I]}, Options);
  } else {
    llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(Jobs));
    for (size_t I = 0; I < Files.size(); ++I)
      Pool.async([&, I] {
        Partial[I] = runBatch(Database, {Files[I]}, Options);
      });
    Pool.wait();
  }

  RunResult Merged;
  for (RunResult &Part : Partial) {
    for (ClangTidyError &Error : Part.Diagnostics)
      Merged.Diagnostics.push_back(std::move(Error));
    for (std::string &File : Part.FilesWithErrors)
      Merged.FilesWithErrors.push_back(std::move(File));
    if (Merged.EnabledChecks.empty())
      Merged.EnabledChecks = std::move(Part.EnabledChecks);
  }
  return Merged;
}

llvm::Error writeProjectIndex(const tooling::CompilationDatabase &Database,
                              const std::vector<std::string> &Files,
                              const RunOptions &Options,
                              std::string &IndexPath) {
  llvm::SmallString<128> FactsDirectory;
  if (std::error_code EC = llvm::sys::fs::createUniqueDirectory(
          "xfer-tidy-facts", FactsDirectory))
    return llvm::createStringError(EC, "cannot create a directory for the "
                                       "project facts: %s",
                                   EC.message().c_str());
  auto RemoveFacts = llvm::make_scope_exit(
      [&] { llvm::sys::fs::remove_directories(FactsDirectory); });

  RunOptions First = Options;
  First.Checks = "-*,xferindex-project-facts";
  First.GlobalCheckOptions.emplace_back(
      "xferindex-project-facts.OutputDirectory", FactsDirectory.str().str());
  runChecks(Database, Files, First); // errors are reported by the real run

  clang::tidy::xfer::ProjectFacts Merged;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(FactsDirectory, EC), End;
       It != End && !EC; It.increment(EC)) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
        llvm::MemoryBuffer::getFile(It->path());
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
  }
  return llvm::writeToOutput(IndexPath, [&](llvm::raw_ostream &OS) {
    OS << Merged.toJSON();
    return llvm::Error::success();
  });
}

} // namespace xfer
