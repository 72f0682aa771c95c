//===--- CostCitation.cpp - the measured cost a warning cites -------------===//

#include "cost/CostCitation.h"
#include "analysis/ApiCatalogue.h"
#include "analysis/AstUtils.h"
#include "analysis/CallSummaries.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include <memory>
#include <mutex>

namespace clang::tidy::xfer {
namespace {

/// Counts what one execution of a statement issues to the GPU.
class LaunchCounter : public RecursiveASTVisitor<LaunchCounter> {
public:
  explicit LaunchCounter(ASTContext &Ctx) : Ctx(Ctx) {}

  bool TraverseLambdaExpr(LambdaExpr *) { return true; }

  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *) {
    ++KernelLaunches;
    return true;
  }

  bool VisitCallExpr(CallExpr *Call) {
    if (isa<CUDAKernelCallExpr>(Call))
      return true;
    // A LibTorch operation that launches GPU work returns a tensor (reads
    // such as item() return scalars); functions defined here are followed.
    const FunctionDecl *Defined = definedCallee(Call, Ctx.getSourceManager());
    if (isTensorType(Call->getType()) && Call->getDirectCallee() && !Defined) {
      ++TorchOps;
      return true;
    }
    if (std::optional<CudaApi> Api = identifyCudaCall(Call))
      if (*Api == CudaApi::LaunchKernel)
        ++KernelLaunches;
    if (Defined)
      if (Visiting.insert(Defined).second) {
        TraverseStmt(Defined->getBody());
        Visiting.erase(Defined);
      }
    return true;
  }

  unsigned TorchOps = 0;
  unsigned KernelLaunches = 0;

private:
  ASTContext &Ctx;
  llvm::DenseSet<const FunctionDecl *> Visiting;
};

/// Models shared by all checks and threads, loaded once per path.
const CostModel *loadShared(llvm::StringRef Path, std::string &Problem) {
  static std::mutex Lock;
  static llvm::StringMap<std::unique_ptr<CostModel>> Models;
  static llvm::StringMap<std::string> Problems;
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

std::string formatMicroseconds(double Us) {
  if (Us >= 1e6)
    return llvm::formatv("{0:f2} s", Us / 1e6);
  if (Us >= 1e3)
    return llvm::formatv("{0:f1} ms", Us / 1e3);
  return llvm::formatv("{0:f1} µs", Us);
}

} // namespace

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
    Expr::EvalResult Result;
    if (Dim->isValueDependent() || !Dim->EvaluateAsInt(Result, Ctx) ||
        Result.Val.getInt().isNegative())
      return std::nullopt;
    Elements *= Result.Val.getInt().getZExtValue();
  }
  return Elements * sizeof(float);
}

double estimateHostWorkPerIterationUs(const Stmt *Loop, ASTContext &Ctx,
                                      const CostModel &Model) {
  LaunchCounter Counter(Ctx);
  Counter.TraverseStmt(const_cast<Stmt *>(loopBody(Loop)));
  double Us = 0;
  if (std::optional<CostPoint> Dispatch = Model.latency("torch.op_dispatch"))
    Us += Counter.TorchOps * Dispatch->MedianUs;
  if (std::optional<CostPoint> Launch = Model.latency("cuda.kernel_launch"))
    Us += Counter.KernelLaunches * Launch->MedianUs;
  return Us;
}

void describeOverlap(CostQuery &Query, bool IsLibTorch) {
  Query.OverlapGrid = IsLibTorch
                          ? llvm::StringRef("loop.sync_overlap.launch_first")
                          : llvm::StringRef(CostModel::DefaultOverlapGrid);
  Query.RefillPattern = IsLibTorch ? "torch.op_dispatch" : "";
}

std::optional<CostEstimate> estimateCost(const CostQuery &Query,
                                         const CostModel &Model,
                                         ASTContext &Ctx) {
  std::optional<CostPoint> Hazard = Model.latency(Query.Pattern, Query.Bytes);
  if (!Hazard)
    return std::nullopt;
  CostEstimate Estimate;
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

std::string formatCostNote(const CostEstimate &Estimate,
                           const Provenance &Where) {
  std::string Note =
      llvm::formatv("measured cost: {0:f2} µs per call", Estimate.PerCallUs);
  if (Estimate.OverlapUs && *Estimate.OverlapUs >= 0.05)
    Note += llvm::formatv(" + {0:f1} µs of lost CPU/GPU overlap per iteration",
                          *Estimate.OverlapUs);
  if (Estimate.Executions && *Estimate.Executions > 1)
    Note += ", ≈ " + formatMicroseconds(Estimate.totalUs()) + " over " +
            std::to_string(*Estimate.Executions) + " executions";
  return Note + " (measured on " + Where.summary() + ")";
}

std::optional<LaunchSaving>
estimateLaunchSaving(uint64_t Launches, const ExecutionFrequency &Iteration,
                     const CostModel &Model) {
  std::optional<CostPoint> Eager = Model.latency("cuda.graph.eager_per_kernel");
  std::optional<CostPoint> Replay =
      Model.latency("cuda.graph.replay_per_kernel");
  if (!Eager || !Replay)
    return std::nullopt;
  LaunchSaving Saving;
  Saving.PerLaunchUs = std::max(0.0, Eager->MedianUs - Replay->MedianUs);
  Saving.Launches = Launches;
  Saving.Iterations = Iteration.totalExecutions();
  return Saving;
}

std::string formatLaunchSavingNote(const LaunchSaving &Saving,
                                   const Provenance &Where) {
  std::string Note = llvm::formatv(
      "measured cost: {0:f2} µs per launch (eager launch minus graph "
      "replay) × {1} launches = {2:f2} µs per iteration",
      Saving.PerLaunchUs, Saving.Launches, Saving.perIterationUs());
  if (Saving.Iterations && *Saving.Iterations > 1)
    Note += ", ≈ " + formatMicroseconds(Saving.totalUs()) + " over " +
            std::to_string(*Saving.Iterations) + " iterations";
  return Note + " (measured on " + Where.summary() + ")";
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

std::optional<std::string> CostCitations::note(const CostQuery &Query,
                                               ASTContext &Ctx,
                                               const ClangTidyCheck &Check) {
  const CostModel *M = model(Check);
  if (!M)
    return std::nullopt;
  std::optional<CostEstimate> Estimate = estimateCost(Query, *M, Ctx);
  if (!Estimate)
    return std::nullopt;
  return formatCostNote(*Estimate, M->provenance());
}

std::optional<std::string>
CostCitations::launchSavingNote(uint64_t Launches,
                                const ExecutionFrequency &Iteration,
                                const ClangTidyCheck &Check) {
  const CostModel *M = model(Check);
  if (!M)
    return std::nullopt;
  std::optional<LaunchSaving> Saving =
      estimateLaunchSaving(Launches, Iteration, *M);
  if (!Saving)
    return std::nullopt;
  return formatLaunchSavingNote(*Saving, M->provenance());
}

} // namespace clang::tidy::xfer
