//===--- AnnotatedSource.h - expectations written next to test code -------===//
//
// Test sources carry their own expectations, next to the code they are about
// (in the manner of clang-tidy's lit tests, with names of their own):
//
//   loss.item<float>();
//   // XFER-WARNING: :[[@LINE-1]]:10: warning: 'item<float>()' ...
//   [xfer-sync-in-loop]
//   // XFER-NOTE: :[[@LINE-5]]:3: note: loop starts here
//   auto T = torch::zeros({N}).to(Device);
//   // XFER-FIXES: auto T = torch::zeros({N}, Device);
//
// and directives:
//   // XFER-ARGS: <compiler arguments; %include is testdata/include>
//   // XFER-CHECKS: <check globs>
//   // XFER-CONFIG: <clang-tidy configuration, YAML on one line>
//   // XFER-COST-MODEL: <cost model under testdata/cost-models>
//
// Without XFER-COST-MODEL the measured-cost notes are turned off, so that
// the other tests do not depend on measurements.
//
// Every warning must be listed. Notes are compared only in files that list
// at least one XFER-NOTE line, and then all of them must be listed. A
// message is matched exactly, unless its expectation ends in " ...": then
// the message must start with the text before it (for figures that depend
// on a measurement). XFER-FIXES gives the code line above it (the closest
// line that is not a comment) as it reads once every fix is applied; in a
// file with one, every line a fix changes must have one.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_TESTS_ANNOTATEDSOURCE_H
#define XFER_TIDY_TESTS_ANNOTATEDSOURCE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace xfer::test {

/// One diagnostic, rendered as "<line>:<column>: <level>: <message>".
using RenderedDiagnostic = std::string;

/// An expected diagnostic: exact, or (\c Prefix) the start of one.
struct ExpectedDiagnostic {
  RenderedDiagnostic Text;
  bool Prefix = false;

  bool matches(llvm::StringRef Actual) const {
    return Prefix ? Actual.starts_with(Text) : Actual == Text;
  }
};

/// The text one source line has once every fix is applied.
struct ExpectedFix {
  unsigned Line; // 1-based
  std::string Text;
};

struct AnnotatedSource {
  std::string Path;
  std::vector<std::string> CompilerArgs;
  std::string Checks;
  std::string Config;
  std::string CostModel;
  std::vector<ExpectedDiagnostic> ExpectedWarnings;
  std::vector<ExpectedDiagnostic> ExpectedNotes;
  bool ComparesNotes = false;
  std::vector<ExpectedFix> ExpectedFixes;
};

/// Parses the directives and expectations of the file at \p Path.
/// \p IncludeDir replaces %include in XFER-ARGS.
llvm::Expected<AnnotatedSource> parseAnnotatedSource(llvm::StringRef Path,
                                                      llvm::StringRef IncludeDir);

} // namespace xfer::test

#endif // XFER_TIDY_TESTS_ANNOTATEDSOURCE_H
