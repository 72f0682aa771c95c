//===--- CostCitation.cpp - the measured cost a warning cites -------------===//

#include "cost/CostCitation.h"
#include "analysis/ApiCatalogue.h"
#include "analysis/AstUtils.h"
#include "analysis/AstWalk.h"
#include "analysis/CallSummaries.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include <memory>
#include <mutex>

namespace clang::tidy::xfer {
namespace {

/// What one execution of a statement issues to the GPU.
struct LaunchCounts {
  unsigned TorchOps = 0;
  unsigned KernelLaunches = 0;
};

/// Adds what one execution of \p S issues to \p Counts, following the
/// functions defined here that it calls (\p Visiting breaks recursion).
void countLaunches(const Stmt *S, const SourceManager &SM, LaunchCounts &Counts,
                   llvm::DenseSet<const FunctionDecl *> &Visiting) {
  walkStmt(S, [&](const Stmt &Node) {
    if (isa<LambdaExpr>(Node))
      return WalkStep::SkipChildren;
    if (isa<CUDAKernelCallExpr>(Node)) {
      ++Counts.KernelLaunches;
      return WalkStep::Continue;
    }
    const auto *Call = dyn_cast<CallExpr>(&Node);
    if (!Call)
      return WalkStep::Continue;
    // A LibTorch operation that launches GPU work returns a tensor (reads
    // such as item() return scalars); functions defined here are followed.
    const FunctionDecl *Defined = definedCallee(Call, SM);
    if (isTensorType(Call->getType()) && Call->getDirectCallee() && !Defined) {
      ++Counts.TorchOps;
      return WalkStep::Continue;
    }
    if (std::optional<CudaApi> Api = identifyCudaCall(Call))
      if (*Api == CudaApi::LaunchKernel)
        ++Counts.KernelLaunches;
    if (Defined && Visiting.insert(Defined).second) {
      countLaunches(Defined->getBody(), SM, Counts, Visiting);
      Visiting.erase(Defined);
    }
    return WalkStep::Continue;
  });
}

/// Models shared by all checks and threads, read once per path.
struct SharedModels {
  std::mutex Lock;
  llvm::StringMap<std::unique_ptr<CostModel>> Models;
  llvm::StringMap<std::string> Problems;

  static SharedModels &instance() {
    static SharedModels Shared;
    return Shared;
  }
};

const CostModel *loadShared(llvm::StringRef Path, std::string &Problem) {
  SharedModels &Shared = SharedModels::instance();
  auto &[Lock, Models, Problems] = Shared;
  std::lock_guard<std::mutex> Guard(Lock);
  if (auto It = Models.find(Path); It != Models.end())
    return It->second.get();
  if (auto It = Problems.find(Path); It != Problems.end()) {
    Problem = It->second;
    return nullptr;
  }
  llvm::Expected<CostModel> Loaded = CostModel::loadFile(Path);
  if (!Loaded) {
    Problem = llvm::toString(Loaded.takeError());
    Problems[Path] = Problem;
    return nullptr;
  }
  auto &Slot = Models[Path];
  Slot = std::make_unique<CostModel>(std::move(*Loaded));
  return Slot.get();
}

} // namespace

void shareCostModel(llvm::StringRef Path, CostModel Model) {
  SharedModels &Shared = SharedModels::instance();
  std::lock_guard<std::mutex> Guard(Shared.Lock);
  Shared.Problems.erase(Path);
  Shared.Models[Path] = std::make_unique<CostModel>(std::move(Model));
}

std::optional<uint64_t> constantFactoryBytes(const CallExpr *Factory,
                                             const ASTContext &Ctx) {
  if (Factory->getNumArgs() == 0)
    return std::nullopt;
  // Only the sizes may be written: options could change the element type.
  for (unsigned I = 1; I < Factory->getNumArgs(); ++I)
    if (!isa<CXXDefaultArgExpr>(Factory->getArg(I)))
      return std::nullopt;
  const Expr *Sizes = ignoreCopiesAndConversions(Factory->getArg(0));
  if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(Sizes))
    Sizes = ignoreTemporaries(List->getSubExpr());
  const auto *Init = dyn_cast<InitListExpr>(Sizes);
  if (!Init || Init->getNumInits() == 0)
    return std::nullopt;
  uint64_t Elements = 1;
  for (const Expr *Dim : Init->inits()) {
    std::optional<uint64_t> Size = evaluateCount(Dim, Ctx);
    if (!Size)
      return std::nullopt;
    Elements *= *Size;
  }
  return Elements * sizeof(float);
}

double estimateHostWorkPerIterationUs(const Stmt *Loop, ASTContext &Ctx,
                                      const CostModel &Model) {
  LaunchCounts Counter;
  llvm::DenseSet<const FunctionDecl *> Visiting;
  countLaunches(loopBody(Loop), Ctx.getSourceManager(), Counter, Visiting);
  double Us = 0;
  if (std::optional<CostPoint> Dispatch =
          Model.latency(patterns::TorchOpDispatch))
    Us += Counter.TorchOps * Dispatch->MedianUs;
  if (std::optional<CostPoint> Launch =
          Model.latency(patterns::CudaKernelLaunch))
    Us += Counter.KernelLaunches * Launch->MedianUs;
  return Us;
}

void describeOverlap(CostQuery &Query, bool IsLibTorch) {
  Query.OverlapGrid =
      IsLibTorch ? llvm::StringRef(patterns::LoopSyncOverlapLaunchFirst)
                 : llvm::StringRef(CostModel::DefaultOverlapGrid);
  Query.RefillPattern = IsLibTorch ? patterns::TorchOpDispatch : "";
}

std::optional<CostNote> estimateCost(const CostQuery &Query,
                                     const CostModel &Model, ASTContext &Ctx) {
  std::optional<CostPoint> Hazard = Model.latency(Query.Pattern, Query.Bytes);
  if (!Hazard)
    return std::nullopt;
  CostNote Estimate;
  Estimate.PatternId = Query.Pattern.str();
  Estimate.FixPatternId = Query.FixPattern.str();
  Estimate.MeasuredOn = Model.provenance().summary();
  Estimate.PerCallUs = Hazard->MedianUs;
  if (!Query.FixPattern.empty()) {
    std::optional<CostPoint> Fix = Model.latency(Query.FixPattern, Query.Bytes);
    if (!Fix)
      return std::nullopt;
    Estimate.PerCallUs = std::max(0.0, Hazard->MedianUs - Fix->MedianUs);
  }
  const ExecutionFrequency *Frequency = Query.Frequency;
  if (!Frequency || !Frequency->inLoop())
    return Estimate;
  if (Query.BlocksHost) {
    double HostUs = estimateHostWorkPerIterationUs(
        Frequency->Loops.front().Loop, Ctx, Model);
    // A model measured without this grid falls back to the default one.
    llvm::StringRef Grid = Model.hasPattern(Query.OverlapGrid)
                               ? Query.OverlapGrid
                               : CostModel::DefaultOverlapGrid;
    // The grid's no-work corner is the sync's own latency, cited separately.
    std::optional<double> WithWork =
        Model.syncOverlapLossUs(Grid, HostUs, HostUs);
    std::optional<double> LatencyOnly = Model.syncOverlapLossUs(Grid, 0, 0);
    if (WithWork && LatencyOnly)
      Estimate.OverlapUs = std::max(0.0, *WithWork - *LatencyOnly);
    if (!Query.RefillPattern.empty())
      if (std::optional<CostPoint> Refill = Model.latency(Query.RefillPattern))
        Estimate.OverlapUs = Estimate.OverlapUs.value_or(0) + Refill->MedianUs;
  }
  Estimate.Executions = Frequency->totalExecutions();
  return Estimate;
}

std::optional<CostNote>
estimateLaunchSaving(const LaunchMix &Mix, const ExecutionFrequency &Iteration,
                     const CostModel &Model) {
  auto Saving = [&](llvm::StringRef Eager,
                    llvm::StringRef Replay) -> std::optional<double> {
    std::optional<CostPoint> E = Model.latency(Eager);
    std::optional<CostPoint> R = Model.latency(Replay);
    if (!E || !R)
      return std::nullopt;
    return std::max(0.0, E->MedianUs - R->MedianUs);
  };
  std::optional<double> PerKernel = Saving(patterns::CudaGraphEagerPerKernel,
                                           patterns::CudaGraphReplayPerKernel);
  if (!PerKernel || Mix.launches() == 0)
    return std::nullopt;
  std::optional<double> PerOp =
      Saving(patterns::TorchGraphEagerPerOp, patterns::TorchGraphReplayPerOp);
  std::optional<double> PerAutogradOp =
      Saving(patterns::TorchGraphAutogradEagerPerOp,
             patterns::TorchGraphAutogradReplayPerOp);
  std::optional<double> PerBackward = Saving(
      patterns::TorchGraphBackwardEager, patterns::TorchGraphBackwardReplay);
  const bool TorchFigures = PerOp && PerAutogradOp && PerBackward;
  const uint64_t TorchOps = Mix.PlainOps + Mix.AutogradOps;
  double IterationUs = *PerKernel * double(Mix.Kernels);
  if (TorchFigures)
    IterationUs += *PerOp * double(Mix.PlainOps) +
                   *PerAutogradOp * double(Mix.AutogradOps) +
                   *PerBackward * double(Mix.BackwardCalls);
  else
    IterationUs += *PerKernel * double(TorchOps);
  CostNote Note;
  Note.Kind = CostNote::Form::LaunchSaving;
  const bool CitesTorch = TorchFigures && TorchOps > 0;
  Note.PatternId = CitesTorch ? patterns::TorchGraphEagerPerOp
                              : patterns::CudaGraphEagerPerKernel;
  Note.FixPatternId = CitesTorch ? patterns::TorchGraphReplayPerOp
                                 : patterns::CudaGraphReplayPerKernel;
  // The mean over the iteration's launches, so that per launch times
  // launches is the iteration's saving.
  Note.PerCallUs = IterationUs / double(Mix.launches());
  Note.LaunchesPerIteration = Mix.launches();
  Note.Executions = Iteration.totalExecutions();
  Note.MeasuredOn = Model.provenance().summary();
  return Note;
}

void recordCostNote(const CostNote &Note, llvm::StringRef Check,
                    SourceLocation Loc, const SourceManager &SM) {
  CostNoteTable *Table = CostNoteTable::recording();
  if (!Table || Loc.isInvalid())
    return;
  // Where clang-tidy records the note: the file location it is rendered at.
  SourceLocation FileLoc = SM.getFileLoc(Loc);
  Table->add(Check, SM.getFilename(FileLoc), SM.getFileOffset(FileLoc), Note);
}

CostCitations::CostCitations(ClangTidyCheck::OptionsView &Options)
    : ModelPath(Options.getLocalOrGlobal("CostModel", "").str()),
      Enabled(Options.getLocalOrGlobal("CostNotes", true)) {}

void CostCitations::storeOptions(ClangTidyCheck::OptionsView &Options,
                                 ClangTidyOptions::OptionMap &Opts) const {
  Options.store(Opts, "CostModel", ModelPath);
  Options.store(Opts, "CostNotes", Enabled);
}

const CostModel *CostCitations::model(const ClangTidyCheck &Check) {
  if (!Enabled)
    return nullptr;
  if (!Loaded) {
    Loaded = true;
    std::string Problem;
    Model = ModelPath.empty() ? CostModel::builtin()
                              : loadShared(ModelPath, Problem);
    if (!Problem.empty())
      Check.configurationDiag("cannot read the cost model: %0") << Problem;
  }
  return Model;
}

std::optional<CostNote> CostCitations::note(const CostQuery &Query,
                                            ASTContext &Ctx,
                                            const ClangTidyCheck &Check) {
  const CostModel *M = model(Check);
  if (!M)
    return std::nullopt;
  return estimateCost(Query, *M, Ctx);
}

std::optional<CostNote>
CostCitations::launchSavingNote(const LaunchMix &Mix,
                                const ExecutionFrequency &Iteration,
                                const ClangTidyCheck &Check) {
  const CostModel *M = model(Check);
  if (!M)
    return std::nullopt;
  return estimateLaunchSaving(Mix, Iteration, *M);
}

} // namespace clang::tidy::xfer
