//===--- ResultCache.h - translation units' results kept between runs -----===//
//
// A second run over unchanged inputs reads each translation unit's result
// from the cache instead of parsing it, as ccache's direct mode: an entry's
// key hashes what is known before parsing (the main file, the compile
// command, the configuration, the cost model and project index, the tool
// itself), and the entry lists every file the parse read with a hash of the
// contents it read; it is used only while each of them still hashes the
// same, so a changed header invalidates it.
//
// Entries are written to a temporary file and renamed into place, so runs
// sharing the directory never read a half-written one; an entry is used
// only if it reads back whole (its key and a hash of its contents are
// stored in it): anything else is a miss.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_TOOL_RESULTCACHE_H
#define XFER_TIDY_TOOL_RESULTCACHE_H

#include "XferTidyRunner.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/VirtualFileSystem.h"
#include <map>
#include <optional>
#include <string>

namespace clang {
class CompilerInstance;
} // namespace clang

namespace xfer {

/// $XDG_CACHE_HOME/xfer-tidy, else $HOME/.cache/xfer-tidy; empty when
/// neither variable is set.
std::string defaultCacheDirectory();

/// A hash of \p Data (xxh3, 128 bits) as 32 hex digits.
std::string contentHash(llvm::StringRef Data);

/// Builds a key from fields, each framed by its length, so that different
/// lists of fields never give the same material.
class CacheKeyBuilder {
public:
  CacheKeyBuilder &add(llvm::StringRef Field);
  /// contentHash of the fields.
  std::string key() const;

private:
  std::string Material;
};

/// What makes this build of xfer-tidy: its version, LLVM's, and the size
/// and modification time of the running executable (a rebuild changes the
/// checks without changing the version).
llvm::StringRef toolIdentity();

/// The files a parse read (absolute paths) with the contentHash of what it
/// read.
using FileHashes = std::map<std::string, std::string>;

/// Every file \p Compiler's parse read (absolute, dots removed), with the
/// contentHash of what it read (not of what is on disk by now); the main
/// file too unless \p WithMainFile is false.
FileHashes filesRead(clang::CompilerInstance &Compiler,
                     bool WithMainFile = true);

/// The translation unit's result as stored: diagnostics with their notes,
/// fixes and ranges, and the cost notes' figures. Run-level fields
/// (EnabledChecks, UnitsWithErrors, CacheHits) are not stored.
llvm::json::Value resultToJson(const RunResult &Result);
llvm::Expected<RunResult> resultFromJson(const llvm::json::Value &Stored);

/// Whether \p Result survives a round trip through JSON exactly: every text
/// is UTF-8 and every figure finite.
bool isStorable(const RunResult &Result);

class ResultCache {
public:
  explicit ResultCache(std::string Directory)
      : Directory(std::move(Directory)) {}

  /// The result stored under \p Key, if its entry reads back whole and every
  /// file it lists, read through \p FS, still has the recorded hash.
  std::optional<RunResult> lookup(llvm::StringRef Key,
                                  llvm::vfs::FileSystem &FS) const;

  /// Stores \p Result under \p Key, replacing any entry; nothing is stored
  /// when the result is not storable or the directory cannot be written
  /// (the cache only saves time).
  bool store(llvm::StringRef Key, const RunResult &Result,
             const FileHashes &Dependencies) const;

  /// Where the entry of \p Key lives: <dir>/<first two digits>/<key>.
  std::string entryPath(llvm::StringRef Key) const;

  /// Creates the directory with a CACHEDIR.TAG (which backup tools skip).
  llvm::Error prepare() const;

private:
  std::string Directory;
};

} // namespace xfer

#endif // XFER_TIDY_TOOL_RESULTCACHE_H
