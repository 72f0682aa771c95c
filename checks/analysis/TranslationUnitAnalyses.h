//===--- TranslationUnitAnalyses.h - analyses the checks share ------------===//
//
// Six checks ask the same questions of one translation unit: where a value
// lives, which functions synchronize or copy inside, whether the unit uses
// CUDA, what a loop is for. Each answer is computed once per translation
// unit and memoised here, and every check of the unit holds the same
// object, the way clang's AnalysisDeclContext shares LiveVariables.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_CHECKS_ANALYSIS_TRANSLATIONUNITANALYSES_H
#define XFER_TIDY_CHECKS_ANALYSIS_TRANSLATIONUNITANALYSES_H

#include "analysis/CallSummaries.h"
#include "analysis/CudaEvidence.h"
#include "analysis/DeviceInference.h"
#include "analysis/LoopContext.h"
#include "analysis/ProjectFacts.h"
#include "llvm/ADT/DenseMap.h"
#include <array>
#include <memory>
#include <optional>

namespace clang::tidy::xfer {

class TranslationUnitAnalyses {
public:
  /// The analyses of the translation unit \p Ctx belongs to, read with the
  /// project index \p Index (null: each translation unit on its own). Every
  /// check of the unit that passes the same index gets the same object; it
  /// lives as long as one of them holds it.
  static std::shared_ptr<TranslationUnitAnalyses>
  of(ASTContext &Ctx, std::shared_ptr<const ProjectFacts> Index);

  TranslationUnitAnalyses(ASTContext &Ctx,
                          std::shared_ptr<const ProjectFacts> Index);
  ~TranslationUnitAnalyses();
  TranslationUnitAnalyses(const TranslationUnitAnalyses &) = delete;
  TranslationUnitAnalyses &operator=(const TranslationUnitAnalyses &) = delete;

  /// Where values live (see DeviceInference.h).
  DeviceInference &devices() { return Devices; }

  /// Hazards through calls; \p ReportUnknownPlacement counts LibTorch
  /// hazards on tensors of unknown placement (a check option).
  CallSummaries &summaries(bool ReportUnknownPlacement);

  /// The first sign that the unit uses a CUDA device.
  const CudaEvidence &cudaEvidence();

  /// classifyLoop() with the project index, once per loop.
  LoopRole roleOf(const Stmt *Loop);
  /// True if one of the loops around a statement (\p Frequency's) is a
  /// steady loop: not only setup, teardown or timing.
  bool inSteadyLoop(const ExecutionFrequency &Frequency);

private:
  ASTContext &Ctx;
  const std::shared_ptr<const ProjectFacts> Index;
  DeviceInference Devices;
  std::array<std::unique_ptr<CallSummaries>, 2> Summaries;
  std::optional<CudaEvidence> Evidence;
  llvm::DenseMap<const Stmt *, LoopRole> LoopRoles;
};

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_ANALYSIS_TRANSLATIONUNITANALYSES_H
