//===--- CompilationDatabaseFuzzer.cpp - compile_commands.json handling ---===//
//
// Reads the input as xfer-tidy reads a compile_commands.json (-p): loaded
// with the command-line syntax detected, commands inferred for files it
// does not list, then every command adjusted as the runner adjusts it
// before parsing (ClangTool's defaults, the nvcc translation and CUDA
// flags, the resource directory) and handed to clang's driver to build the
// compiler invocation. Nothing is parsed; options files are served from
// memory.
//
//===----------------------------------------------------------------------===//

#include "CudaCompilation.h"
#include "XferTidyRunner.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/Utils.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/JSONCompilationDatabase.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <cstdint>

namespace {

using clang::tooling::ArgumentsAdjuster;
using clang::tooling::CommandLineArguments;

/// The adjusters the runner appends, in its order.
ArgumentsAdjuster runnerAdjusters(
    llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS,
    std::shared_ptr<xfer::CudaCommandErrors> Errors) {
  using namespace clang::tooling;
  ArgumentsAdjuster Adjuster = combineAdjusters(
      getClangStripOutputAdjuster(), getClangSyntaxOnlyAdjuster());
  Adjuster = combineAdjusters(Adjuster, getClangStripDependencyFileAdjuster());
  Adjuster = combineAdjusters(
      Adjuster, xfer::makeCudaArgumentsAdjuster({}, FS, std::move(Errors)));
  Adjuster = combineAdjusters(Adjuster, getStripPluginsAdjuster());
  return combineAdjusters(
      Adjuster, [](const CommandLineArguments &Args, llvm::StringRef) {
        CommandLineArguments Adjusted = Args;
        xfer::appendCompilerArguments(Adjusted, {"-resource-dir=/resource"});
        return Adjusted;
      });
}

/// What clang's driver makes of the command, as ClangTool would run it.
void buildInvocation(const CommandLineArguments &Args,
                     llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS) {
  if (Args.empty())
    return;
  std::vector<const char *> Argv;
  for (const std::string &Arg : Args)
    Argv.push_back(Arg.c_str());
  clang::DiagnosticOptions *Options = new clang::DiagnosticOptions();
  clang::IgnoringDiagConsumer Ignore;
  clang::CreateInvocationOptions Create;
  Create.Diags = clang::CompilerInstance::createDiagnostics(
      Options, &Ignore, /*ShouldOwnClient=*/false);
  Create.VFS = FS;
  Create.ProbePrecompiled = false;
  (void)clang::createInvocation(Argv, std::move(Create));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Json(reinterpret_cast<const char *>(Data), Size);
  std::string Error;
  std::unique_ptr<clang::tooling::CompilationDatabase> Database =
      clang::tooling::JSONCompilationDatabase::loadFromBuffer(
          Json, Error, clang::tooling::JSONCommandLineSyntax::AutoDetect);
  if (!Database)
    return 0;
  std::vector<std::string> Files = Database->getAllFiles();
  if (Files.empty())
    return 0; // xfer-tidy stops here: "the compilation database is empty"
  (void)xfer::projectHeaderFilter(Files);
  Database = clang::tooling::inferMissingCompileCommands(std::move(Database));

  auto Memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  Memory->addFile("/build/flags.rsp", 0,
                  llvm::MemoryBuffer::getMemBuffer("-DFROM_FILE -I/inc"));
  auto Errors = std::make_shared<xfer::CudaCommandErrors>();
  ArgumentsAdjuster Adjust = runnerAdjusters(Memory, Errors);

  // A header and a source next to the first file borrow their commands.
  llvm::SmallString<256> Directory(Files.front());
  llvm::sys::path::remove_filename(Directory);
  for (llvm::StringRef Unlisted : {"unlisted.h", "unlisted.cu"}) {
    llvm::SmallString<256> Path(Directory);
    llvm::sys::path::append(Path, Unlisted);
    Files.push_back(Path.str().str());
  }
  // Bounded so that one input cannot take seconds.
  constexpr size_t MaxCommands = 8;
  size_t Built = 0;
  for (const std::string &File : Files) {
    for (const clang::tooling::CompileCommand &Command :
         Database->getCompileCommands(File)) {
      Memory->setCurrentWorkingDirectory(Command.Directory);
      CommandLineArguments Adjusted =
          Adjust(Command.CommandLine, Command.Filename);
      if (Built++ < MaxCommands)
        buildInvocation(Adjusted, Memory);
    }
  }
  (void)Errors->takeMessages();
  return 0;
}
