//===--- PreambleCache.h - stored preambles of files analysed again
//--------===//
//
// A file edited between runs (the pre-commit case) usually keeps its
// #include lines: only the code after them changed. As clangd does, the
// parse of that unchanged prefix (the preamble: the includes and macros at
// the top of the file) is kept as a precompiled header, and the next parse
// reads the headers' declarations from it instead of parsing them again.
//
// Unlike clangd's, the preamble must outlive the process: it is kept in the
// cache directory, one per file and command, with the preamble text's key
// and every file it read (size, time and a hash of the contents). It is
// used only while the file's preamble text, its command and xfer-tidy
// itself are those it was built for and every file it read is unchanged.
//
// A preamble is built for a file seen before (its first analysis only marks
// it): a run over a whole project with an empty cache, as in CI, builds
// none; the file's next analysis, once it changed, builds one and uses it.
// CUDA sources are parsed without one: clang 19 crashed parsing a `.cu`
// file against its own preamble (in Sema, at a `delete` in a destructor).
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_TOOL_PREAMBLECACHE_H
#define XFER_TIDY_TOOL_PREAMBLECACHE_H

#include "ResultCache.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/PCHContainerOperations.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <functional>
#include <string>

namespace clang {
class Decl;
} // namespace clang

namespace xfer {

/// What happened to a translation unit's preamble in this parse.
enum class PreambleUse {
  None,  ///< parsed without one (first analysis, no preamble, or failed)
  Built, ///< built in this run, then used
  Reused ///< read from the cache
};

class PreambleCache {
public:
  /// Decides, as the parse does, which function bodies are skipped.
  using BodySkipping = std::function<bool(clang::Decl *)>;

  /// \p When: when a preamble is built and stored (RunOptions::Preambles;
  /// Never: none is read either).
  PreambleCache(std::string Directory, BodySkipping SkipBody,
                RunOptions::PreamblePolicy When)
      : Directory(std::move(Directory)), SkipBody(std::move(SkipBody)),
        When(When) {}

  /// Prepares \p Invocation (a syntax-only parse of one source file) to read
  /// its preamble from a stored precompiled header, building and storing it
  /// first when the file was analysed before. The header is served from
  /// memory through \p Overlay, so that a concurrent run replacing it never
  /// breaks this parse. Adds the files the preamble read to \p FilesRead.
  PreambleUse prepare(clang::CompilerInvocation &Invocation,
                      llvm::vfs::FileSystem &FS,
                      llvm::vfs::OverlayFileSystem &Overlay,
                      std::shared_ptr<clang::PCHContainerOperations> PCHOps,
                      FileHashes &FilesRead) const;

private:
  std::string Directory;
  BodySkipping SkipBody;
  RunOptions::PreamblePolicy When;
};

} // namespace xfer

#endif // XFER_TIDY_TOOL_PREAMBLECACHE_H
