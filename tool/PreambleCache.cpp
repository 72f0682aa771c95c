//===--- PreambleCache.cpp - stored preambles of files analysed again -----===//

#include "PreambleCache.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/Basic/FileManager.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/PrecompiledPreamble.h"
#include "clang/Lex/PreprocessorOptions.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <optional>

using namespace clang;

namespace xfer {
namespace {

/// A file the preamble read, as it was when the preamble was built.
struct Dependency {
  std::string Path;
  uint64_t Size = 0;
  int64_t ModifiedNs = 0;
  std::string Hash;
};

/// What is stored per file and command. An empty PreambleKey: the file was
/// analysed once, without a preamble.
struct Record {
  std::string PreambleKey;
  /// contentHash of the stored header: a damaged one is rebuilt.
  std::string HeaderHash;
  unsigned Size = 0;
  bool EndsAtStartOfLine = false;
  std::vector<Dependency> Files;
};

llvm::json::Value toJson(const Record &R) {
  llvm::json::Array Files;
  for (const Dependency &D : R.Files)
    Files.push_back(llvm::json::Array{D.Path, static_cast<int64_t>(D.Size),
                                      D.ModifiedNs, D.Hash});
  return llvm::json::Object{{"version", 1},
                            {"preamble", R.PreambleKey},
                            {"header", R.HeaderHash},
                            {"size", static_cast<int64_t>(R.Size)},
                            {"startOfLine", R.EndsAtStartOfLine},
                            {"files", std::move(Files)}};
}

std::optional<Record> readRecord(llvm::StringRef Path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Text =
      llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!Text)
    return std::nullopt;
  llvm::Expected<llvm::json::Value> Parsed =
      llvm::json::parse((*Text)->getBuffer());
  if (!Parsed) {
    llvm::consumeError(Parsed.takeError());
    return std::nullopt;
  }
  const llvm::json::Object *Root = Parsed->getAsObject();
  if (!Root || Root->getInteger("version") != 1)
    return std::nullopt;
  Record R;
  std::optional<llvm::StringRef> Key = Root->getString("preamble");
  std::optional<llvm::StringRef> HeaderHash = Root->getString("header");
  std::optional<int64_t> Size = Root->getInteger("size");
  std::optional<bool> StartOfLine = Root->getBoolean("startOfLine");
  const llvm::json::Array *Files = Root->getArray("files");
  if (!Key || !HeaderHash || !Size || *Size < 0 || !StartOfLine || !Files)
    return std::nullopt;
  R.PreambleKey = Key->str();
  R.HeaderHash = HeaderHash->str();
  R.Size = static_cast<unsigned>(*Size);
  R.EndsAtStartOfLine = *StartOfLine;
  for (const llvm::json::Value &Entry : *Files) {
    const llvm::json::Array *Fields = Entry.getAsArray();
    if (!Fields || Fields->size() != 4)
      return std::nullopt;
    std::optional<llvm::StringRef> FilePath = (*Fields)[0].getAsString();
    std::optional<int64_t> FileSize = (*Fields)[1].getAsInteger();
    std::optional<int64_t> Modified = (*Fields)[2].getAsInteger();
    std::optional<llvm::StringRef> Hash = (*Fields)[3].getAsString();
    if (!FilePath || !FileSize || !Modified || !Hash)
      return std::nullopt;
    R.Files.push_back({FilePath->str(), static_cast<uint64_t>(*FileSize),
                       *Modified, Hash->str()});
  }
  return R;
}

bool writeRecord(llvm::StringRef Path, const Record &R) {
  // writeToOutput writes a temporary beside the record and renames it.
  llvm::Error Failed = llvm::writeToOutput(Path, [&](llvm::raw_ostream &OS) {
    OS << toJson(R);
    return llvm::Error::success();
  });
  if (!Failed)
    return true;
  llvm::consumeError(std::move(Failed));
  return false;
}

int64_t modifiedNs(const llvm::vfs::Status &Status) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             Status.getLastModificationTime().time_since_epoch())
      .count();
}

/// Whether every file the preamble read is as it was: the same size and
/// time, or, when touched, the same contents.
bool unchanged(const std::vector<Dependency> &Files,
               llvm::vfs::FileSystem &FS) {
  for (const Dependency &D : Files) {
    llvm::ErrorOr<llvm::vfs::Status> Status = FS.status(D.Path);
    if (!Status)
      return false;
    if (Status->getSize() == D.Size && modifiedNs(*Status) == D.ModifiedNs)
      continue;
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Contents =
        FS.getBufferForFile(D.Path, /*FileSize=*/-1,
                            /*RequiresNullTerminator=*/false);
    if (!Contents || contentHash((*Contents)->getBuffer()) != D.Hash)
      return false;
  }
  return true;
}

/// Skips the bodies the main parse skips, and lists the files the
/// preamble's parse read.
class BuildCallbacks : public PreambleCallbacks {
public:
  BuildCallbacks(const PreambleCache::BodySkipping &SkipBody,
                 std::vector<Dependency> &Files)
      : SkipBody(SkipBody), Files(Files) {}

  bool shouldSkipFunctionBody(Decl *D) override { return SkipBody(D); }

  void AfterExecute(CompilerInstance &CI) override {
    // The main file's preamble is checked by its own key.
    for (const auto &[Path, Hash] : filesRead(CI, /*WithMainFile=*/false)) {
      llvm::ErrorOr<llvm::vfs::Status> Status =
          CI.getFileManager().getVirtualFileSystem().status(Path);
      if (!Status)
        continue; // a buffer without a file: nothing to check later
      Files.push_back({Path, Status->getSize(), modifiedNs(*Status), Hash});
    }
  }

private:
  const PreambleCache::BodySkipping &SkipBody;
  std::vector<Dependency> &Files;
};

} // namespace

PreambleUse
PreambleCache::prepare(CompilerInvocation &Invocation,
                       llvm::vfs::FileSystem &FS,
                       llvm::vfs::OverlayFileSystem &Overlay,
                       std::shared_ptr<PCHContainerOperations> PCHOps,
                       FileHashes &FilesRead) const {
  FrontendOptions &Frontend = Invocation.getFrontendOpts();
  PreprocessorOptions &Preprocessor = Invocation.getPreprocessorOpts();
  if (Frontend.Inputs.size() != 1 || !Frontend.Inputs[0].isFile() ||
      !Preprocessor.ImplicitPCHInclude.empty())
    return PreambleUse::None; // a command that brings its own header
  if (Invocation.getLangOpts().CUDA)
    return PreambleUse::None; // see the file comment
  std::string MainFile = Frontend.Inputs[0].getFile().str();
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Main =
      FS.getBufferForFile(MainFile);
  if (!Main)
    return PreambleUse::None;
  PreambleBounds Bounds =
      ComputePreambleBounds(Invocation.getLangOpts(), **Main, 0);
  if (Bounds.Size == 0)
    return PreambleUse::None;

  CacheKeyBuilder Command;
  Command.add(toolIdentity());
  if (llvm::ErrorOr<std::string> Directory = FS.getCurrentWorkingDirectory())
    Command.add(*Directory);
  for (const std::string &Argument : Invocation.getCC1CommandLine())
    Command.add(Argument);
  std::string CommandKey = Command.key();
  std::string PreambleKey =
      CacheKeyBuilder()
          .add(CommandKey)
          .add((*Main)->getBuffer().take_front(Bounds.Size))
          .add(Bounds.PreambleEndsAtStartOfLine ? "1" : "0")
          .key();

  llvm::SmallString<256> Folder(Directory);
  llvm::sys::path::append(Folder, "preambles");
  auto PathIn = [&](llvm::StringRef Name) {
    llvm::SmallString<256> Path(Folder);
    llvm::sys::path::append(Path, Name);
    return Path.str().str();
  };
  std::string RecordPath = PathIn(CommandKey + ".json");
  std::string HeaderPath = PathIn(PreambleKey + ".pch");

  // Reads the stored header into memory (so that a run replacing it cannot
  // pull it away mid-parse) and points the parse at it.
  auto Use = [&](const Record &Stored) -> bool {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Header =
        llvm::MemoryBuffer::getFile(HeaderPath, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (!Header || contentHash((*Header)->getBuffer()) != Stored.HeaderHash)
      return false;
    IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> Memory(
        new llvm::vfs::InMemoryFileSystem);
    Memory->addFile(HeaderPath, 0, std::move(*Header));
    Overlay.pushOverlay(Memory);
    Preprocessor.ImplicitPCHInclude = HeaderPath;
    Preprocessor.PrecompiledPreambleBytes = {Stored.Size,
                                             Stored.EndsAtStartOfLine};
    Preprocessor.DisablePCHOrModuleValidation =
        DisableValidationForModuleKind::PCH; // checked here instead
    Preprocessor.UsePredefines = false;      // the header has them
    for (const Dependency &D : Stored.Files)
      FilesRead[D.Path] = D.Hash;
    return true;
  };

  std::optional<Record> Previous = readRecord(RecordPath);
  if (Previous && Previous->PreambleKey == PreambleKey &&
      Previous->Size == Bounds.Size && unchanged(Previous->Files, FS) &&
      Use(*Previous))
    return PreambleUse::Reused;
  // A preamble that failed to build is not tried again until its text
  // changes: each try costs a parse.
  std::string FailedKey = "failed " + PreambleKey;
  if (Previous && Previous->PreambleKey == FailedKey)
    return PreambleUse::None;
  using Policy = RunOptions::PreamblePolicy;
  if (When == Policy::ReuseOnly || When == Policy::Never ||
      llvm::sys::fs::create_directories(Folder))
    return PreambleUse::None;
  if (!Previous && When == Policy::WhenAnalysedAgain) {
    // First analysis of this file with this command: remember it only.
    writeRecord(RecordPath, Record());
    return PreambleUse::None;
  }

  // Built in a directory of its own: clang names the header itself.
  llvm::SmallString<256> Scratch;
  if (llvm::sys::fs::createUniqueDirectory(PathIn("build"), Scratch))
    return PreambleUse::None;
  auto RemoveScratch = [&] {
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator It(Scratch, EC), End;
         It != End && !EC; It.increment(EC))
      llvm::sys::fs::remove(It->path());
    llvm::sys::fs::remove(Scratch);
  };
  Record Built;
  Built.PreambleKey = PreambleKey;
  Built.Size = Bounds.Size;
  Built.EndsAtStartOfLine = Bounds.PreambleEndsAtStartOfLine;
  IgnoringDiagConsumer Ignore;
  IntrusiveRefCntPtr<DiagnosticsEngine> Diagnostics =
      CompilerInstance::createDiagnostics(
          new DiagnosticOptions(Invocation.getDiagnosticOpts()), &Ignore,
          /*ShouldOwnClient=*/false);
  BuildCallbacks Callbacks(SkipBody, Built.Files);
  bool Stored = false;
  {
    llvm::ErrorOr<PrecompiledPreamble> Preamble = PrecompiledPreamble::Build(
        Invocation, Main->get(), Bounds, *Diagnostics,
        IntrusiveRefCntPtr<llvm::vfs::FileSystem>(&FS), PCHOps,
        /*StoreInMemory=*/false, Scratch, Callbacks);
    // A preamble with errors (a missing header) would hide them from the
    // report: such a file is parsed whole, as without a cache.
    if (Preamble && !Diagnostics->hasErrorOccurred()) {
      std::error_code EC;
      for (llvm::sys::fs::directory_iterator It(Scratch, EC), End;
           It != End && !EC && !Stored; It.increment(EC))
        if (llvm::StringRef(It->path()).ends_with(".pch")) {
          llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Header =
              llvm::MemoryBuffer::getFile(It->path(), /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
          if (!Header)
            break;
          Built.HeaderHash = contentHash((*Header)->getBuffer());
          Stored = !llvm::sys::fs::rename(It->path(), HeaderPath);
        }
    }
  }
  RemoveScratch();
  if (!Stored || !writeRecord(RecordPath, Built)) {
    Record Failed;
    Failed.PreambleKey = FailedKey;
    writeRecord(RecordPath, Failed);
    return PreambleUse::None;
  }
  if (Previous && !Previous->PreambleKey.empty() &&
      Previous->PreambleKey != PreambleKey)
    llvm::sys::fs::remove(PathIn(Previous->PreambleKey + ".pch"));
  return Use(Built) ? PreambleUse::Built : PreambleUse::None;
}

} // namespace xfer
