//===--- AnnotatedSource.h - expectations written next to test code -------===//
//
// Test sources carry their own expectations, in the style of clang-tidy's
// lit tests:
//
//   loss.item<float>();
//   // CHECK-MESSAGES: :[[@LINE-1]]:10: warning: 'item<float>()' ... [xfer-sync-in-loop]
//   // CHECK-NOTES: :[[@LINE-5]]:3: note: loop starts here
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
// at least one CHECK-NOTES line, and then all of them must be listed.
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

struct AnnotatedSource {
  std::string Path;
  std::vector<std::string> CompilerArgs;
  std::string Checks;
  std::string Config;
  std::string CostModel;
  std::vector<RenderedDiagnostic> ExpectedWarnings;
  std::vector<RenderedDiagnostic> ExpectedNotes;
  bool ComparesNotes = false;
};

/// Parses the directives and expectations of the file at \p Path.
/// \p IncludeDir replaces %include in XFER-ARGS.
llvm::Expected<AnnotatedSource> parseAnnotatedSource(llvm::StringRef Path,
                                                      llvm::StringRef IncludeDir);

} // namespace xfer::test

#endif // XFER_TIDY_TESTS_ANNOTATEDSOURCE_H
