//===--- Findings.h - diagnostics with resolved source positions ----------===//

#ifndef XFER_TIDY_TOOL_FINDINGS_H
#define XFER_TIDY_TOOL_FINDINGS_H

#include "clang-tidy/ClangTidyDiagnosticConsumer.h"
#include "cost/CostNote.h"
#include "llvm/ADT/StringMap.h"
#include <optional>
#include <string>
#include <vector>

namespace xfer {

/// A position in a source file; Line and Column are 1-based, Column counts
/// bytes as clang does. Line 0 means no position (a command-line error).
struct SourcePosition {
  std::string File;
  unsigned Offset = 0;
  unsigned Line = 0;
  unsigned Column = 0;
};

struct FindingNote {
  SourcePosition Where;
  std::string Message;
  /// The figures of a cost note, which Message states.
  std::optional<clang::tidy::xfer::CostNote> Cost;
};

struct Finding {
  std::string CheckName; // "xfer-sync-in-loop", "clang-diagnostic-error"
  enum class Level { Warning, Error } Severity = Level::Warning;
  /// A check's warning made an error by WarningsAsErrors.
  bool WarningAsError = false;
  SourcePosition Where;
  std::string Message;
  std::vector<FindingNote> Notes;
  /// Replacements of the fix-it, if any.
  std::vector<clang::tooling::Replacement> Fixes;
  /// The directory of the compile command, against which relative file
  /// names are resolved.
  std::string BuildDirectory;

  bool isCompilerDiagnostic() const {
    return llvm::StringRef(CheckName).starts_with("clang-diagnostic-");
  }
};

/// \p File as an absolute path: relative names are taken from
/// \p BuildDirectory, or the current directory when it is empty.
std::string absolutePath(llvm::StringRef File, llvm::StringRef BuildDirectory);

/// \p File relative to the directory \p Root when it lies below it (both
/// made absolute, '/' separated), else the absolute path.
std::string pathBelow(llvm::StringRef File, llvm::StringRef Root,
                      llvm::StringRef BuildDirectory = "");

/// A fingerprint of a finding that survives edits elsewhere in the file:
/// a hash of the check, the file (as given, normally relative to a root)
/// and the text of the finding's line without white space, not its number.
std::string lineFingerprint(llvm::StringRef Check, llvm::StringRef File,
                            llvm::StringRef LineText);

/// The directory holding README.md and docs/: the one installed with the
/// running executable (<prefix>/share/doc/xfer-tidy), else the source tree
/// xfer-tidy was built from.
std::string documentationRoot();

/// The cost models shipped with xfer-tidy: installed with the running
/// executable (<prefix>/share/xfer-tidy/cost-models), else the source
/// tree's testdata/cost-models.
std::string costModelDirectory();

/// Resolves offsets to lines and columns, reading each file once.
class PositionResolver {
public:
  SourcePosition resolve(llvm::StringRef File, unsigned Offset);
  /// The text of line \p Line of \p File, without its newline.
  llvm::StringRef lineText(llvm::StringRef File, unsigned Line);

private:
  struct FileLines {
    std::string Contents;
    std::vector<unsigned> LineStarts;
  };
  const FileLines *load(llvm::StringRef File);
  llvm::StringMap<std::unique_ptr<FileLines>> Files;
};

/// Converts clang-tidy's errors, sorted by file, line, column and check;
/// the figures of their cost notes are taken from \p CostNotes.
std::vector<Finding>
toFindings(const std::vector<clang::tidy::ClangTidyError> &Errors,
           PositionResolver &Resolver,
           const clang::tidy::xfer::CostNoteTable *CostNotes = nullptr);

} // namespace xfer

#endif // XFER_TIDY_TOOL_FINDINGS_H
