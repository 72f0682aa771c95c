//===--- NvccCommandFuzzer.cpp - nvcc -> clang translation under libFuzzer ===//
//
// The input is an nvcc command line, tokenized as a compilation database's
// "command" string is. It is translated after an `nvcc` prepended, and
// adjusted as written (it may name another compiler or a launcher). The
// options files it may name are served from memory: self.rsp holds the
// input itself, so options files can nest and recurse; defs.rsp is a
// small fixed one. The input is also read as a toolkit's driver_types.h.
//
//===----------------------------------------------------------------------===//

#include "CudaCompilation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

void requireClangCommand(const std::vector<std::string> &Args) {
  if (Args.empty() || Args.front() != "clang++") {
    std::fprintf(stderr, "nvcc translation did not start with clang++\n");
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  llvm::StringRef Input(reinterpret_cast<const char *>(Data), Size);
  llvm::BumpPtrAllocator Allocator;
  llvm::StringSaver Saver(Allocator);
  llvm::SmallVector<const char *, 32> Tokens;
  llvm::cl::TokenizeGNUCommandLine(Input, Saver, Tokens);
  std::vector<std::string> Command(Tokens.begin(), Tokens.end());

  auto FS = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  FS->addFile("/build/self.rsp", 0, llvm::MemoryBuffer::getMemBufferCopy(Input));
  FS->addFile("/build/defs.rsp", 0,
              llvm::MemoryBuffer::getMemBuffer("-DFROM_FILE=1 -I/inc "
                                               "-Xcompiler=-fPIC"));
  FS->setCurrentWorkingDirectory("/build");

  std::vector<std::string> NvccCommand = {"nvcc"};
  NvccCommand.insert(NvccCommand.end(), Command.begin(), Command.end());
  llvm::Expected<std::vector<std::string>> Translated =
      xfer::translateNvccArguments(NvccCommand, *FS, "/build");
  if (Translated)
    requireClangCommand(*Translated);
  else
    llvm::consumeError(Translated.takeError());

  const std::string File = Command.empty() ? "a.cu" : Command.back();
  xfer::CudaAnalysisSetup Setup; // no toolkit: nothing read from disk
  llvm::Expected<std::vector<std::string>> Adjusted =
      xfer::adjustCudaCommand(Command, File, Setup, *FS, "/build");
  if (Adjusted) {
    if (xfer::isNvccCommand(Command))
      requireClangCommand(*Adjusted);
    xfer::appendCompilerArguments(*Adjusted, {"-fsyntax-only"});
  } else {
    llvm::consumeError(Adjusted.takeError());
  }

  // The adjuster as ClangTool runs it, recording what it cannot translate.
  auto Errors = std::make_shared<xfer::CudaCommandErrors>();
  clang::tooling::ArgumentsAdjuster Adjuster =
      xfer::makeCudaArgumentsAdjuster(Setup, FS, Errors);
  (void)Adjuster(Command, File);
  (void)Errors->takeMessages();

  for (const std::string &Token : Command) {
    (void)xfer::isClangKnownCudaArch(Token);
    (void)xfer::isCudaSource(Token, Command);
  }
  (void)xfer::patchDriverTypesHeader(Input);
  return 0;
}
