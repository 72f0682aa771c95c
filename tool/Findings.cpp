//===--- Findings.cpp - diagnostics with resolved source positions --------===//

#include "Findings.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <tuple>

namespace xfer {

std::string absolutePath(llvm::StringRef File, llvm::StringRef BuildDirectory) {
  llvm::SmallString<256> Path(File);
  if (llvm::sys::path::is_relative(Path)) {
    if (BuildDirectory.empty())
      llvm::sys::fs::make_absolute(Path);
    else
      llvm::sys::fs::make_absolute(BuildDirectory, Path);
  }
  llvm::sys::path::remove_dots(Path, /*remove_dot_dot=*/true);
  return Path.str().str();
}

std::string pathBelow(llvm::StringRef File, llvm::StringRef Root,
                      llvm::StringRef BuildDirectory) {
  std::string Absolute = absolutePath(File, BuildDirectory);
  std::string Base = absolutePath(Root, "");
  llvm::StringRef Rest(Absolute);
  if (Rest.consume_front(Base) &&
      (Base.empty() || llvm::sys::path::is_separator(Base.back()) ||
       Rest.consume_front("/")))
    return llvm::sys::path::convert_to_slash(Rest);
  return llvm::sys::path::convert_to_slash(Absolute);
}

std::string lineFingerprint(llvm::StringRef Check, llvm::StringRef File,
                            llvm::StringRef LineText) {
  std::string Code;
  for (char C : LineText)
    if (!llvm::isSpace(C))
      Code += C;
  llvm::MD5 Hash;
  Hash.update(Check);
  Hash.update(llvm::ArrayRef<uint8_t>{0});
  Hash.update(File);
  Hash.update(llvm::ArrayRef<uint8_t>{0});
  Hash.update(Code);
  llvm::MD5::MD5Result Digest;
  Hash.final(Digest);
  return Digest.digest().substr(0, 16).str();
}

/// <prefix>/<Relative> for the prefix the running executable is installed
/// in (<prefix>/bin/xfer-tidy), if that directory exists.
static std::optional<std::string> installed(llvm::StringRef Relative) {
  std::string Self = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  if (Self.empty())
    return std::nullopt;
  llvm::SmallString<256> Path(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(Self)));
  llvm::sys::path::append(Path, Relative);
  if (!llvm::sys::fs::is_directory(Path))
    return std::nullopt;
  return Path.str().str();
}

std::string documentationRoot() {
  return installed("share/doc/xfer-tidy").value_or(XFER_SOURCE_DIR);
}

std::string costModelDirectory() {
  return installed("share/xfer-tidy/cost-models")
      .value_or(XFER_SOURCE_DIR "/testdata/cost-models");
}

const PositionResolver::FileLines *PositionResolver::load(llvm::StringRef File) {
  auto [It, Inserted] = Files.try_emplace(File);
  if (!Inserted)
    return It->second.get();
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(File);
  if (!Buffer)
    return nullptr;
  auto Lines = std::make_unique<FileLines>();
  Lines->Contents = (*Buffer)->getBuffer().str();
  Lines->LineStarts.push_back(0);
  for (unsigned I = 0; I < Lines->Contents.size(); ++I)
    if (Lines->Contents[I] == '\n')
      Lines->LineStarts.push_back(I + 1);
  It->second = std::move(Lines);
  return It->second.get();
}

SourcePosition PositionResolver::resolve(llvm::StringRef File,
                                         unsigned Offset) {
  SourcePosition Position{File.str(), Offset, 0, 0};
  const FileLines *Lines = File.empty() ? nullptr : load(File);
  if (!Lines)
    return Position;
  auto Next = std::upper_bound(Lines->LineStarts.begin(),
                               Lines->LineStarts.end(), Offset);
  unsigned LineIndex = static_cast<unsigned>(Next - Lines->LineStarts.begin());
  Position.Line = LineIndex;
  Position.Column = Offset - Lines->LineStarts[LineIndex - 1] + 1;
  return Position;
}

llvm::StringRef PositionResolver::lineText(llvm::StringRef File,
                                           unsigned Line) {
  const FileLines *Lines = load(File);
  if (!Lines || Line == 0 || Line > Lines->LineStarts.size())
    return "";
  unsigned Begin = Lines->LineStarts[Line - 1];
  unsigned End = Line < Lines->LineStarts.size() ? Lines->LineStarts[Line] - 1
                                                 : Lines->Contents.size();
  return llvm::StringRef(Lines->Contents).slice(Begin, End).rtrim("\r");
}

std::vector<Finding>
toFindings(const std::vector<clang::tidy::ClangTidyError> &Errors,
           PositionResolver &Resolver,
           const clang::tidy::xfer::CostNoteTable *CostNotes) {
  std::vector<Finding> Findings;
  for (const clang::tidy::ClangTidyError &Error : Errors) {
    Finding F;
    F.CheckName = Error.DiagnosticName;
    F.Severity = Error.DiagLevel == clang::tooling::Diagnostic::Error ||
                         Error.IsWarningAsError
                     ? Finding::Level::Error
                     : Finding::Level::Warning;
    F.Where = Resolver.resolve(Error.Message.FilePath, Error.Message.FileOffset);
    F.WarningAsError = Error.IsWarningAsError;
    F.Message = Error.Message.Message;
    F.BuildDirectory = Error.BuildDirectory;
    for (const clang::tooling::DiagnosticMessage &Note : Error.Notes) {
      FindingNote N{Resolver.resolve(Note.FilePath, Note.FileOffset),
                    Note.Message, std::nullopt};
      if (CostNotes)
        if (const clang::tidy::xfer::CostNote *Cost = CostNotes->find(
                F.CheckName, Note.FilePath, Note.FileOffset, Note.Message))
          N.Cost = *Cost;
      F.Notes.push_back(std::move(N));
    }
    for (const auto &[File, Replacements] : Error.Message.Fix)
      for (const clang::tooling::Replacement &R : Replacements)
        F.Fixes.push_back(R);
    Findings.push_back(std::move(F));
  }
  std::stable_sort(Findings.begin(), Findings.end(),
                   [](const Finding &A, const Finding &B) {
                     return std::tie(A.Where.File, A.Where.Line,
                                     A.Where.Column, A.CheckName) <
                            std::tie(B.Where.File, B.Where.Line,
                                     B.Where.Column, B.CheckName);
                   });
  return Findings;
}

} // namespace xfer
