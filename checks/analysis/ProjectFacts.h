//===--- ProjectFacts.h - facts about a program across translation units --===//
//
// A program decides devices in main.cpp and reads them back in train.cpp.
// xfer-tidy first collects, per translation unit, where the arguments of
// every call into user code live and whether the unit uses a CUDA device
// (TranslationUnitFacts); merged over the program they give each
// parameter the join of its callers' arguments in every file
// (ProjectFacts), which DeviceInference consults where its own
// translation unit holds no caller.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_CHECKS_ANALYSIS_PROJECTFACTS_H
#define XFER_TIDY_CHECKS_ANALYSIS_PROJECTFACTS_H

#include "analysis/DeviceInference.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <memory>

namespace clang::tidy::xfer {

/// Where a function that runs on every step is driven from.
struct StepOrigin {
  /// "trainer.cpp:87": the loop whose iterations call it.
  std::string Loop;
};

/// A key for \p Function that is the same in every translation unit:
/// its qualified name and parameter count.
std::string functionKey(const FunctionDecl *Function);

class ProjectFacts {
public:
  /// The facts of one translation unit, as JSON:
  /// {"usesCuda": bool, "parameters": {"<key>": ["cuda", null, ...]},
  ///  "stepCalls": {"<callee key>": "<file>:<line> of the loop"},
  ///  "calls": [["<caller key>", "<callee key>"], ...]}: the calls made on
  /// every iteration of a hot loop, and the unconditional calls between
  /// functions outside loops, through which a step reaches further.
  static llvm::json::Value collect(ASTContext &Ctx, DeviceInference &Devices);

  /// Merges the facts of several translation units (the join of known
  /// placements per parameter).
  void merge(const llvm::json::Value &TranslationUnit);
  llvm::json::Value toJSON() const;

  /// Reads an index written by toJSON(); each path is read once per
  /// process and shared.
  static llvm::Expected<std::shared_ptr<const ProjectFacts>>
  load(llvm::StringRef Path);

  /// The index a check's ProjectIndex option names: null when \p Path is
  /// empty or the file cannot be read (then \p OnError hears why).
  static std::shared_ptr<const ProjectFacts>
  loadOption(llvm::StringRef Path,
             llvm::function_ref<void(llvm::Error)> OnError);

  /// The join of what callers anywhere in the program pass to parameter
  /// \p Index of \p Function, when any caller passes something known.
  std::optional<Placement> parameter(const FunctionDecl *Function,
                                     unsigned Index) const;
  bool usesCuda() const { return UsesCuda; }

  /// The loop that calls \p Function on each of its iterations, directly
  /// or through unconditional calls, in any file of the program.
  const StepOrigin *stepOrigin(const FunctionDecl *Function) const;

private:
  /// Spreads step origins from the functions called in loops to what they
  /// call unconditionally: derived once, when an index is loaded.
  void propagateSteps();

  llvm::StringMap<llvm::SmallVector<Placement, 4>> Parameters;
  llvm::StringMap<std::string> StepCalls;
  std::vector<std::pair<std::string, std::string>> Calls;
  llvm::StringMap<StepOrigin> Steps;
  bool UsesCuda = false;
};

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_ANALYSIS_PROJECTFACTS_H
