//===--- ReportFilters.h - which findings a run reports -------------------===//
//
// Filters applied to a run's findings before they are reported:
//
//  * a line filter, in clang-tidy's --line-filter JSON syntax, or built from
//    `git diff -U0 <revision>` (--diff): only findings on those lines;
//  * a baseline (--baseline): findings recorded earlier (--write-baseline)
//    are not reported again. Entries are keyed by check, file and a
//    fingerprint of the code on the finding's line, not by its number, so
//    edits elsewhere in the file do not bring them back.
//
// Compiler diagnostics are never filtered: they say why a run failed.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_TOOL_REPORTFILTERS_H
#define XFER_TIDY_TOOL_REPORTFILTERS_H

#include "Findings.h"
#include "clang-tidy/ClangTidyOptions.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace xfer {

using LineFilter = std::vector<clang::tidy::FileFilter>;

/// Parses clang-tidy's line filter syntax:
/// [{"name": "file.cpp", "lines": [[1, 3], [5, 7]]}, {"name": "file.h"}].
llvm::Expected<LineFilter> parseLineFilter(llvm::StringRef Json);

/// The added and changed lines of `git diff -U0` output \p Diff, whose paths
/// are relative to \p TopLevel (the repository's top-level directory).
/// Files with deletions only are left out.
LineFilter lineFilterFromDiff(llvm::StringRef Diff, llvm::StringRef TopLevel);

/// True if \p F passes \p Filter as clang-tidy decides: an empty filter
/// passes everything; else the first entry whose name ends the finding's
/// file name (as reported, absolute or real path) decides: no ranges pass
/// the whole file, else the line must be in a range; a file no entry names
/// does not pass.
bool passesLineFilter(const Finding &F, const LineFilter &Filter);

/// Findings accepted earlier, read from or written to a baseline file:
/// {"version": 1, "tool": "xfer-tidy", "findings": [{"check", "file",
/// "fingerprint", "line", "message"}]}, files relative to the baseline's
/// directory.
class Baseline {
public:
  static llvm::Expected<Baseline> load(llvm::StringRef Path);

  /// Writes the check findings of \p Findings as the baseline \p Path
  /// (atomically).
  static llvm::Error write(llvm::StringRef Path,
                           const std::vector<Finding> &Findings,
                           PositionResolver &Resolver);

  /// True if \p F is in the baseline; each entry matches one finding.
  bool consume(const Finding &F, PositionResolver &Resolver);

  size_t size() const { return Entries; }

private:
  static std::string key(const Finding &F, llvm::StringRef Directory,
                         PositionResolver &Resolver, std::string *File = nullptr,
                         std::string *Fingerprint = nullptr);

  std::string Directory;
  llvm::StringMap<unsigned> Remaining;
  size_t Entries = 0;
};

} // namespace xfer

#endif // XFER_TIDY_TOOL_REPORTFILTERS_H
