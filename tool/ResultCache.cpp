//===--- ResultCache.cpp - translation units' results kept between runs ---===//

#include "ResultCache.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include <cmath>
#include <cstdio>
#include <limits>

using clang::tidy::ClangTidyError;
using clang::tidy::xfer::CostNote;
using clang::tidy::xfer::CostNoteTable;

namespace xfer {

namespace {

/// The first line of every entry; bump the number when the layout changes.
constexpr llvm::StringLiteral EntryMagic = "xfer-tidy result cache 1";

// Strings are copied into the JSON values (a json::Value made from a
// StringRef only refers to it).
llvm::json::Value messageToJson(const clang::tooling::DiagnosticMessage &M) {
  llvm::json::Array Fixes;
  for (const auto &Entry : M.Fix) {
    llvm::json::Array Edits;
    for (const clang::tooling::Replacement &R : Entry.getValue())
      Edits.push_back(llvm::json::Array{R.getFilePath().str(), R.getOffset(),
                                        R.getLength(),
                                        R.getReplacementText().str()});
    Fixes.push_back(llvm::json::Array{Entry.getKey().str(), std::move(Edits)});
  }
  llvm::json::Array Ranges;
  for (const clang::tooling::FileByteRange &Range : M.Ranges)
    Ranges.push_back(
        llvm::json::Array{Range.FilePath, Range.FileOffset, Range.Length});
  return llvm::json::Object{{"text", M.Message},
                            {"file", M.FilePath},
                            {"offset", M.FileOffset},
                            {"fix", std::move(Fixes)},
                            {"ranges", std::move(Ranges)}};
}

llvm::json::Value noteToJson(llvm::StringRef Check, llvm::StringRef File,
                             unsigned Offset, const CostNote &Note) {
  llvm::json::Object Stored{{"check", Check.str()},
                            {"file", File.str()},
                            {"offset", Offset},
                            {"kind", static_cast<int64_t>(Note.Kind)},
                            {"pattern", Note.PatternId},
                            {"fixPattern", Note.FixPatternId},
                            {"perCallUs", Note.PerCallUs},
                            {"launches", Note.LaunchesPerIteration},
                            {"measuredOn", Note.MeasuredOn}};
  if (Note.OverlapUs)
    Stored["overlapUs"] = *Note.OverlapUs;
  if (Note.Executions)
    Stored["executions"] = *Note.Executions;
  return Stored;
}

/// Reads what messageToJson, noteToJson and resultToJson wrote; any field
/// missing or of the wrong type makes the whole entry unreadable.
class StoredReader {
public:
  bool failed() const { return Failed; }

  std::string string(const llvm::json::Object &O, llvm::StringRef Key) {
    if (std::optional<llvm::StringRef> S = O.getString(Key))
      return S->str();
    Failed = true;
    return "";
  }
  std::string string(const llvm::json::Value &V) {
    if (std::optional<llvm::StringRef> S = V.getAsString())
      return S->str();
    Failed = true;
    return "";
  }
  uint64_t number(const llvm::json::Value *V) {
    if (V)
      if (std::optional<uint64_t> N = V->getAsUINT64())
        return *N;
    Failed = true;
    return 0;
  }
  unsigned offset(const llvm::json::Value *V) {
    uint64_t N = number(V);
    if (N > std::numeric_limits<unsigned>::max())
      Failed = true;
    return static_cast<unsigned>(N);
  }
  const llvm::json::Array &array(const llvm::json::Object &O,
                                 llvm::StringRef Key) {
    if (const llvm::json::Array *A = O.getArray(Key))
      return *A;
    Failed = true;
    return Empty;
  }
  const llvm::json::Array &array(const llvm::json::Value &V, size_t Size = 0) {
    const llvm::json::Array *A = V.getAsArray();
    if (A && (!Size || A->size() == Size))
      return *A;
    Failed = true;
    return Empty;
  }
  const llvm::json::Object &object(const llvm::json::Value &V) {
    if (const llvm::json::Object *O = V.getAsObject())
      return *O;
    Failed = true;
    return EmptyObject;
  }

  clang::tooling::DiagnosticMessage message(const llvm::json::Value &V) {
    const llvm::json::Object &O = object(V);
    clang::tooling::DiagnosticMessage M(string(O, "text"));
    M.FilePath = string(O, "file");
    M.FileOffset = offset(O.get("offset"));
    for (const llvm::json::Value &Fix : array(O, "fix")) {
      const llvm::json::Array &Pair = array(Fix, 2);
      if (Failed)
        return M;
      clang::tooling::Replacements &Into = M.Fix[string(Pair[0])];
      for (const llvm::json::Value &Edit : array(Pair[1])) {
        const llvm::json::Array &Fields = array(Edit, 4);
        if (Failed)
          return M;
        clang::tooling::Replacement R(string(Fields[0]), offset(&Fields[1]),
                                      offset(&Fields[2]), string(Fields[3]));
        if (llvm::Error Conflict = Into.add(R)) {
          llvm::consumeError(std::move(Conflict));
          Failed = true;
        }
      }
    }
    for (const llvm::json::Value &Range : array(O, "ranges")) {
      const llvm::json::Array &Fields = array(Range, 3);
      if (Failed)
        return M;
      clang::tooling::FileByteRange R;
      R.FilePath = string(Fields[0]);
      R.FileOffset = offset(&Fields[1]);
      R.Length = offset(&Fields[2]);
      M.Ranges.push_back(std::move(R));
    }
    return M;
  }

  void note(const llvm::json::Value &V, CostNoteTable &Into) {
    const llvm::json::Object &O = object(V);
    CostNote Note;
    uint64_t Kind = number(O.get("kind"));
    if (Kind > static_cast<uint64_t>(CostNote::Form::LaunchSaving))
      Failed = true;
    Note.Kind = static_cast<CostNote::Form>(Kind);
    Note.PatternId = string(O, "pattern");
    Note.FixPatternId = string(O, "fixPattern");
    std::optional<double> PerCall = O.getNumber("perCallUs");
    if (!PerCall)
      Failed = true;
    Note.PerCallUs = PerCall.value_or(0);
    if (O.get("overlapUs")) {
      Note.OverlapUs = O.getNumber("overlapUs");
      Failed |= !Note.OverlapUs;
    }
    Note.LaunchesPerIteration = number(O.get("launches"));
    if (O.get("executions"))
      Note.Executions = number(O.get("executions"));
    Note.MeasuredOn = string(O, "measuredOn");
    std::string Check = string(O, "check"), File = string(O, "file");
    unsigned Offset = offset(O.get("offset"));
    if (!Failed)
      Into.add(Check, File, Offset, std::move(Note));
  }

private:
  bool Failed = false;
  llvm::json::Array Empty;
  llvm::json::Object EmptyObject;
};

bool isText(llvm::StringRef S) { return llvm::json::isUTF8(S); }

bool isStorable(const clang::tooling::DiagnosticMessage &M) {
  if (!isText(M.Message) || !isText(M.FilePath))
    return false;
  for (const auto &[File, Replacements] : M.Fix) {
    if (!isText(File))
      return false;
    for (const clang::tooling::Replacement &R : Replacements)
      if (!isText(R.getFilePath()) || !isText(R.getReplacementText()))
        return false;
  }
  for (const clang::tooling::FileByteRange &Range : M.Ranges)
    if (!isText(Range.FilePath))
      return false;
  return true;
}

} // namespace

std::string defaultCacheDirectory() {
  llvm::SmallString<256> Path;
  if (std::optional<std::string> Xdg =
          llvm::sys::Process::GetEnv("XDG_CACHE_HOME");
      Xdg && llvm::sys::path::is_absolute(*Xdg)) {
    Path = *Xdg;
  } else if (std::optional<std::string> Home =
                 llvm::sys::Process::GetEnv("HOME");
             Home && !Home->empty()) {
    Path = *Home;
    llvm::sys::path::append(Path, ".cache");
  } else {
    return "";
  }
  llvm::sys::path::append(Path, "xfer-tidy");
  return Path.str().str();
}

FileHashes filesRead(clang::CompilerInstance &Compiler, bool WithMainFile) {
  FileHashes Files;
  clang::SourceManager &SM = Compiler.getSourceManager();
  clang::OptionalFileEntryRef Main =
      SM.getFileEntryRefForID(SM.getMainFileID());
  for (auto It = SM.fileinfo_begin(), End = SM.fileinfo_end(); It != End;
       ++It) {
    if (!WithMainFile && Main && It->first == *Main)
      continue;
    std::optional<llvm::MemoryBufferRef> Contents =
        It->second->getBufferIfLoaded();
    if (!Contents)
      continue;
    llvm::SmallString<256> Path(It->first.getName());
    Compiler.getFileManager().makeAbsolutePath(Path);
    llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/false);
    Files[Path.str().str()] = contentHash(Contents->getBuffer());
  }
  return Files;
}

std::string contentHash(llvm::StringRef Data) {
  llvm::XXH128_hash_t Hash = llvm::xxh3_128bits(
      llvm::ArrayRef<uint8_t>(Data.bytes_begin(), Data.size()));
  char Hex[33];
  std::snprintf(Hex, sizeof(Hex), "%016llx%016llx",
                static_cast<unsigned long long>(Hash.high64),
                static_cast<unsigned long long>(Hash.low64));
  return Hex;
}

CacheKeyBuilder &CacheKeyBuilder::add(llvm::StringRef Field) {
  Material += std::to_string(Field.size());
  Material += ':';
  Material += Field;
  return *this;
}

std::string CacheKeyBuilder::key() const { return contentHash(Material); }

llvm::StringRef toolIdentity() {
  static const std::string Identity = [] {
    std::string Text = "xfer-tidy " XFER_VERSION " LLVM " LLVM_VERSION_STRING;
    std::string Self = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
    llvm::sys::fs::file_status Status;
    if (!Self.empty() && !llvm::sys::fs::status(Self, Status))
      Text += " " + Self + " " + std::to_string(Status.getSize()) + " " +
              std::to_string(
                  Status.getLastModificationTime().time_since_epoch().count());
    return Text;
  }();
  return Identity;
}

llvm::json::Value resultToJson(const RunResult &Result) {
  llvm::json::Array Diagnostics;
  for (const ClangTidyError &E : Result.Diagnostics) {
    llvm::json::Array Notes;
    for (const clang::tooling::DiagnosticMessage &Note : E.Notes)
      Notes.push_back(messageToJson(Note));
    llvm::json::Array Aliases;
    for (const std::string &Alias : E.EnabledDiagnosticAliases)
      Aliases.push_back(Alias);
    Diagnostics.push_back(
        llvm::json::Object{{"name", E.DiagnosticName},
                           {"level", static_cast<int64_t>(E.DiagLevel)},
                           {"buildDirectory", E.BuildDirectory},
                           {"warningAsError", E.IsWarningAsError},
                           {"aliases", std::move(Aliases)},
                           {"message", messageToJson(E.Message)},
                           {"notes", std::move(Notes)}});
  }
  llvm::json::Array CostNotes;
  Result.CostNotes.forEach([&](llvm::StringRef Check, llvm::StringRef File,
                               unsigned Offset, const CostNote &Note) {
    CostNotes.push_back(noteToJson(Check, File, Offset, Note));
  });
  llvm::json::Array Facts;
  for (const auto &[Name, Contents] : Result.Facts)
    Facts.push_back(llvm::json::Array{Name, Contents});
  return llvm::json::Object{{"diagnostics", std::move(Diagnostics)},
                            {"costNotes", std::move(CostNotes)},
                            {"facts", std::move(Facts)}};
}

llvm::Expected<RunResult> resultFromJson(const llvm::json::Value &Stored) {
  StoredReader Read;
  RunResult Result;
  const llvm::json::Object &Root = Read.object(Stored);
  for (const llvm::json::Value &V : Read.array(Root, "diagnostics")) {
    const llvm::json::Object &O = Read.object(V);
    uint64_t Level = Read.number(O.get("level"));
    if (Level != ClangTidyError::Remark && Level != ClangTidyError::Warning &&
        Level != ClangTidyError::Error)
      break;
    std::optional<bool> AsError = O.getBoolean("warningAsError");
    if (!AsError)
      break;
    ClangTidyError E(Read.string(O, "name"),
                     static_cast<ClangTidyError::Level>(Level),
                     Read.string(O, "buildDirectory"), *AsError);
    for (const llvm::json::Value &Alias : Read.array(O, "aliases"))
      E.EnabledDiagnosticAliases.push_back(Read.string(Alias));
    if (const llvm::json::Value *Message = O.get("message"))
      E.Message = Read.message(*Message);
    else
      break;
    for (const llvm::json::Value &Note : Read.array(O, "notes"))
      E.Notes.push_back(Read.message(Note));
    if (Read.failed())
      break;
    Result.Diagnostics.push_back(std::move(E));
  }
  for (const llvm::json::Value &Note : Read.array(Root, "costNotes"))
    Read.note(Note, Result.CostNotes);
  for (const llvm::json::Value &Fact : Read.array(Root, "facts")) {
    const llvm::json::Array &Pair = Read.array(Fact, 2);
    if (Read.failed())
      break;
    std::string Name = Read.string(Pair[0]);
    // A name, not a path: written back into the unit's facts directory.
    if (Name.empty() || Name.find_first_of("/\\") != std::string::npos ||
        Name == "." || Name == "..")
      break;
    Result.Facts.emplace_back(std::move(Name), Read.string(Pair[1]));
  }
  if (Read.failed() ||
      Result.Diagnostics.size() != Read.array(Root, "diagnostics").size() ||
      Result.Facts.size() != Read.array(Root, "facts").size())
    return llvm::createStringError(std::errc::illegal_byte_sequence,
                                   "malformed cache entry");
  return Result;
}

bool isStorable(const RunResult &Result) {
  for (const ClangTidyError &E : Result.Diagnostics) {
    if (!isText(E.DiagnosticName) || !isText(E.BuildDirectory) ||
        !isStorable(E.Message))
      return false;
    for (const std::string &Alias : E.EnabledDiagnosticAliases)
      if (!isText(Alias))
        return false;
    for (const clang::tooling::DiagnosticMessage &Note : E.Notes)
      if (!isStorable(Note))
        return false;
  }
  for (const auto &[Name, Contents] : Result.Facts)
    if (!isText(Name) || !isText(Contents))
      return false;
  bool Storable = true;
  Result.CostNotes.forEach([&](llvm::StringRef Check, llvm::StringRef File,
                               unsigned, const CostNote &Note) {
    Storable &= isText(Check) && isText(File) && isText(Note.PatternId) &&
                isText(Note.FixPatternId) && isText(Note.MeasuredOn) &&
                std::isfinite(Note.PerCallUs) &&
                (!Note.OverlapUs || std::isfinite(*Note.OverlapUs));
  });
  return Storable;
}

std::string ResultCache::entryPath(llvm::StringRef Key) const {
  llvm::SmallString<256> Path(Directory);
  llvm::sys::path::append(Path, Key.take_front(2), Key);
  return Path.str().str();
}

llvm::Error ResultCache::prepare() const {
  if (std::error_code EC = llvm::sys::fs::create_directories(Directory))
    return llvm::createStringError(EC, "cannot create %s: %s",
                                   Directory.c_str(), EC.message().c_str());
  llvm::SmallString<256> Tag(Directory);
  llvm::sys::path::append(Tag, "CACHEDIR.TAG");
  if (llvm::sys::fs::exists(Tag))
    return llvm::Error::success();
  return llvm::writeToOutput(Tag, [](llvm::raw_ostream &OS) {
    OS << "Signature: 8a477f597d28d172789f06886806bc55\n"
          "# This file is a cache directory tag created by xfer-tidy.\n";
    return llvm::Error::success();
  });
}

// An entry is four parts: the magic line, "key <key>", "contents <hash of
// the rest>", then the JSON of the dependencies and the result.
std::optional<RunResult> ResultCache::lookup(llvm::StringRef Key,
                                             llvm::vfs::FileSystem &FS) const {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Entry =
      llvm::MemoryBuffer::getFile(entryPath(Key), /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!Entry)
    return std::nullopt;
  llvm::StringRef Rest = (*Entry)->getBuffer();
  auto [Magic, AfterMagic] = Rest.split('\n');
  auto [KeyLine, AfterKey] = AfterMagic.split('\n');
  auto [HashLine, Body] = AfterKey.split('\n');
  if (Magic != EntryMagic || KeyLine != ("key " + Key).str() ||
      HashLine != "contents " + contentHash(Body))
    return std::nullopt;
  llvm::Expected<llvm::json::Value> Parsed = llvm::json::parse(Body);
  if (!Parsed) {
    llvm::consumeError(Parsed.takeError());
    return std::nullopt;
  }
  const llvm::json::Object *Root = Parsed->getAsObject();
  const llvm::json::Array *Dependencies =
      Root ? Root->getArray("dependencies") : nullptr;
  const llvm::json::Value *Stored = Root ? Root->get("result") : nullptr;
  if (!Dependencies || !Stored)
    return std::nullopt;
  // The headers the parse read: any changed since makes the entry stale.
  for (const llvm::json::Value &Dependency : *Dependencies) {
    const llvm::json::Array *Pair = Dependency.getAsArray();
    if (!Pair || Pair->size() != 2)
      return std::nullopt;
    std::optional<llvm::StringRef> Path = (*Pair)[0].getAsString();
    std::optional<llvm::StringRef> Hash = (*Pair)[1].getAsString();
    if (!Path || !Hash)
      return std::nullopt;
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Contents =
        FS.getBufferForFile(*Path, /*FileSize=*/-1,
                            /*RequiresNullTerminator=*/false);
    if (!Contents || contentHash((*Contents)->getBuffer()) != *Hash)
      return std::nullopt;
  }
  llvm::Expected<RunResult> Result = resultFromJson(*Stored);
  if (!Result) {
    llvm::consumeError(Result.takeError());
    return std::nullopt;
  }
  return std::move(*Result);
}

bool ResultCache::store(llvm::StringRef Key, const RunResult &Result,
                        const FileHashes &Dependencies) const {
  if (!isStorable(Result))
    return false;
  llvm::json::Array DependencyList;
  for (const auto &[Path, Hash] : Dependencies) {
    if (!isText(Path))
      return false;
    DependencyList.push_back(llvm::json::Array{Path, Hash});
  }
  std::string Body;
  llvm::raw_string_ostream BodyStream(Body);
  BodyStream << llvm::json::Value(
      llvm::json::Object{{"dependencies", std::move(DependencyList)},
                         {"result", resultToJson(Result)}});
  BodyStream.flush();
  std::string Path = entryPath(Key);
  if (llvm::sys::fs::create_directories(llvm::sys::path::parent_path(Path)))
    return false;
  // writeToOutput writes a temporary beside the entry and renames it.
  llvm::Error Failed = llvm::writeToOutput(Path, [&](llvm::raw_ostream &OS) {
    OS << EntryMagic << "\nkey " << Key << "\ncontents " << contentHash(Body)
       << '\n'
       << Body;
    return llvm::Error::success();
  });
  if (Failed) {
    llvm::consumeError(std::move(Failed));
    return false;
  }
  return true;
}

} // namespace xfer
