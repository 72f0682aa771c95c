//===--- LaunchBoundLoopCheck.cpp - xfer-launch-bound-loop ----------------===//

#include "LaunchBoundLoopCheck.h"
#include "analysis/AstUtils.h"
#include "analysis/AstWalk.h"
#include "analysis/LoopContext.h"
#include "analysis/TranslationUnitAnalyses.h"
#include "analysis/UserCodeTraversal.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::xfer {
namespace {

std::string count(uint64_t N, llvm::StringRef One, llvm::StringRef Many) {
  return std::to_string(N) + " " + (N == 1 ? One : Many).str();
}

/// "launches 10 kernels", "issues 9 LibTorch operations on the GPU",
/// "issues 2 kernel launches and 7 LibTorch operations on the GPU".
std::string describeLaunches(uint64_t Kernels, uint64_t TorchOps) {
  if (!TorchOps)
    return "launches " + count(Kernels, "kernel", "kernels");
  std::string Operations =
      count(TorchOps, "LibTorch operation", "LibTorch operations") +
      " on the GPU";
  if (!Kernels)
    return "issues " + Operations;
  return "issues " + count(Kernels, "kernel launch", "kernel launches") +
         " and " + Operations;
}

std::string describeRepeats(uint64_t Repeats) {
  return Repeats > 1 ? ", " + std::to_string(Repeats) + " times per iteration"
                     : "";
}

/// "a synchronization ('cudaDeviceSynchronize')", ...
std::string describeBlocker(const CaptureBlocker &Blocker) {
  switch (Blocker.Kind) {
  case CaptureBlocker::Sync:
    return "a synchronization ('" + Blocker.Operation + "')";
  case CaptureBlocker::Copy:
    return "a host<->device copy ('" + Blocker.Operation + "')";
  case CaptureBlocker::Allocation:
    return "a memory allocation or release ('" + Blocker.Operation + "')";
  case CaptureBlocker::DeviceBranch:
    return "a branch on a device result";
  case CaptureBlocker::HostValue:
    return "a host value that changes between iterations ('" +
           Blocker.Operation + "')";
  case CaptureBlocker::HostOptimizer:
    return "an optimizer step that keeps its state on the host ('" +
           Blocker.Operation + "')";
  }
  llvm_unreachable("unknown capture blocker");
}

/// Host code launches; kernels and device functions do not.
bool isDeviceCode(const FunctionDecl *Function) {
  return Function->hasAttr<CUDAGlobalAttr>() ||
         (Function->hasAttr<CUDADeviceAttr>() &&
          !Function->hasAttr<CUDAHostAttr>());
}

} // namespace

LaunchBoundLoopCheck::LaunchBoundLoopCheck(llvm::StringRef Name,
                                           ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context),
      MinLaunchesPerIteration(Options.get("MinLaunchesPerIteration", 8U)),
      MinTripCount(Options.get("MinTripCount", 10U)),
      ReportBlockedLoops(Options.get("ReportBlockedLoops", false)),
      RequireCudaEvidence(
          Options.getLocalOrGlobal("RequireCudaEvidence", true)),
      ProjectUsesCuda(Options.getLocalOrGlobal("ProjectUsesCuda", false)),
      ReportSetupAndTimingLoops(
          Options.getLocalOrGlobal("ReportSetupAndTimingLoops", false)),
      ProjectIndex(Options.getLocalOrGlobal("ProjectIndex", "")),
      Costs(Options) {}

void LaunchBoundLoopCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "MinLaunchesPerIteration", MinLaunchesPerIteration);
  Options.store(Opts, "MinTripCount", MinTripCount);
  Options.store(Opts, "ReportBlockedLoops", ReportBlockedLoops);
  Options.store(Opts, "RequireCudaEvidence", RequireCudaEvidence);
  Options.store(Opts, "ProjectUsesCuda", ProjectUsesCuda);
  Options.store(Opts, "ReportSetupAndTimingLoops", ReportSetupAndTimingLoops);
  Options.store(Opts, "ProjectIndex", ProjectIndex);
  Costs.storeOptions(Options, Opts);
}

void LaunchBoundLoopCheck::registerMatchers(MatchFinder *Finder) {
  walkOnlyUserCode(*Finder);
  // Every loop of user code; whether one is launch-bound is decided by the
  // graph-capture analysis, which a matcher cannot express.
  const auto LoopStatement =
      stmt(anyOf(forStmt(), cxxForRangeStmt(), whileStmt(), doStmt()));
  const auto InUserCode = unless(isExpansionInSystemHeader());
  Finder->addMatcher(stmt(LoopStatement, InUserCode).bind("loop"), this);
}

void LaunchBoundLoopCheck::onStartOfTranslationUnit() {
  if (!Facts)
    Facts = ProjectFacts::loadOption(ProjectIndex, [&](llvm::Error Failed) {
      configurationDiag("cannot read the project index: %0")
          << llvm::toString(std::move(Failed));
    });
  Verdicts.clear();
  Reported.clear();
  Capture.reset();
  Analyses.reset();
}

bool LaunchBoundLoopCheck::programUsesCuda(ASTContext &Ctx) {
  if (ProjectUsesCuda || (Facts && Facts->usesCuda()))
    return true;
  return Analyses->cudaEvidence().Found;
}

const LaunchBoundLoopCheck::Verdict &
LaunchBoundLoopCheck::verdictFor(const Stmt *Loop, ASTContext &Ctx) {
  if (auto It = Verdicts.find(Loop); It != Verdicts.end())
    return It->second;
  Verdict V;
  auto Judge = [&] {
    const FunctionDecl *Function = enclosingFunction(Loop, Ctx);
    // Templates are judged in their instantiations.
    if (!Function || isDeviceCode(Function) || Function->isDependentContext())
      return;
    ExecutionFrequency Iteration = Capture->frequency(loopBody(Loop));
    if (!Iteration.inLoop() || Iteration.Loops.front().Loop != Loop)
      return; // do { ... } while (0)
    // Capturing and instantiating a graph is paid once; a handful of
    // replays does not repay it.
    if (std::optional<uint64_t> Trips = Iteration.Loops.front().TripCount;
        Trips && *Trips < MinTripCount)
      return;
    // Setup and teardown loops queue no device work; timing harnesses
    // repeat launches to measure them.
    if (!ReportSetupAndTimingLoops &&
        Analyses->roleOf(Loop) != LoopRole::Steady)
      return;
    // Code the compiler could not resolve (a call on a type from a missing
    // header) may sync or copy: no claim that nothing does.
    bool Unresolved = false;
    walkStmt(
        loopBody(Loop),
        [&](const Stmt &S) {
          const auto *E = dyn_cast<Expr>(&S);
          Unresolved |= E && E->containsErrors();
          return Unresolved ? WalkStep::Stop : WalkStep::Continue;
        },
        [&](const Decl &D) {
          Unresolved |= D.isInvalidDecl();
          return Unresolved ? WalkStep::Stop : WalkStep::Continue;
        });
    if (Unresolved)
      return;
    V.Work = Capture->analyzeIteration(Loop);
    const IterationWork &Work = V.Work;
    if (Work.launches() < MinLaunchesPerIteration || Work.UsesGraphs ||
        Work.UncountedLaunches || Work.DynamicShapes)
      return;
    if (Work.TorchOps && RequireCudaEvidence && !programUsesCuda(Ctx))
      return;
    V.Kind = Work.Blocker ? Verdict::Blocked : Verdict::Capturable;
  };
  Judge();
  return Verdicts[Loop] = std::move(V);
}

void LaunchBoundLoopCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Loop = Result.Nodes.getNodeAs<Stmt>("loop");
  ASTContext &Ctx = *Result.Context;
  if (!Analyses) {
    Analyses = TranslationUnitAnalyses::of(Ctx, Facts);
    // A capture must not be recommended past a sync on a tensor of unknown
    // placement: for capture blockers, unknown counts.
    Capture = std::make_unique<GraphCaptureAnalysis>(
        Analyses->devices(),
        Analyses->summaries(/*ReportUnknownPlacement=*/true));
  }

  Verdict V = verdictFor(Loop, Ctx);
  if (V.Kind == Verdict::Quiet ||
      (V.Kind == Verdict::Blocked && !ReportBlockedLoops))
    return;
  // An inner loop that is launch-bound on its own is the one to capture,
  // not the loop around it that would unroll it into one large graph.
  for (const Stmt *Inner : V.Work.CountedInnerLoops)
    if (verdictFor(Inner, Ctx).Kind == Verdict::Capturable)
      return;
  if (!Reported.insert(Loop->getBeginLoc()).second)
    return;
  report(Loop, V, Ctx);
}

void LaunchBoundLoopCheck::report(const Stmt *Loop, const Verdict &V,
                                  ASTContext &Ctx) {
  const IterationWork &Work = V.Work;
  // LibTorch code captures with its own graph class, which also records the
  // raw kernels launched on its stream.
  unsigned Api = Work.TorchOps ? 2 : Work.KernelArgumentsChange ? 1 : 0;
  std::string Launches = describeLaunches(Work.Kernels, Work.TorchOps);
  if (V.Kind == Verdict::Capturable)
    diag(Loop->getBeginLoc(),
         "loop is launch-bound: each iteration %0 with fixed shapes and no "
         "synchronization, host<->device copy, allocation or branch on a "
         "device result; %select{capture one iteration into a CUDA graph "
         "with cudaStreamBeginCapture/cudaStreamEndCapture and replay it "
         "with cudaGraphLaunch|capture one iteration into a CUDA graph with "
         "cudaStreamBeginCapture/cudaStreamEndCapture and replay it with "
         "cudaGraphLaunch, applying the kernel parameters that change "
         "between iterations with cudaGraphExecUpdate|capture one iteration "
         "with at::cuda::CUDAGraph (capture_begin/capture_end) on static "
         "input tensors and replay() it}1")
        << Launches << Api;
  else
    diag(Loop->getBeginLoc(),
         "loop would be launch-bound: each iteration %0, but %1 stops stream "
         "capture; fixing it first makes the loop capturable %select{with "
         "cudaStreamBeginCapture/cudaStreamEndCapture and "
         "cudaGraphLaunch|with cudaStreamBeginCapture/cudaStreamEndCapture, "
         "cudaGraphLaunch and cudaGraphExecUpdate|with at::cuda::CUDAGraph "
         "on static input tensors}2")
        << Launches << describeBlocker(*Work.Blocker) << Api;
  noteLaunches(Work, Ctx.getSourceManager());
  if (V.Kind == Verdict::Blocked)
    noteBlocker(*Work.Blocker);
  ExecutionFrequency Iteration = Capture->frequency(loopBody(Loop));
  LaunchMix Mix;
  Mix.Kernels = Work.Kernels;
  Mix.AutogradOps = Work.AutogradOps;
  Mix.PlainOps = Work.TorchOps - Work.AutogradOps;
  Mix.BackwardCalls = Work.BackwardCalls;
  if (std::optional<CostNote> Cost =
          Costs.launchSavingNote(Mix, Iteration, *this)) {
    diag(Loop->getBeginLoc(), "%0", DiagnosticIDs::Note) << Cost->text();
    recordCostNote(*Cost, getID(), Loop->getBeginLoc(), Ctx.getSourceManager());
  }
}

void LaunchBoundLoopCheck::noteLaunches(const IterationWork &Work,
                                        const SourceManager &SM) {
  // In source order: the analysis visits an expression before its operands.
  llvm::SmallVector<const LaunchSite *, 8> Sites;
  for (const LaunchSite &Site : Work.Launches)
    Sites.push_back(&Site);
  llvm::sort(Sites, [&](const LaunchSite *A, const LaunchSite *B) {
    return SM.isBeforeInTranslationUnit(
        SM.getExpansionLoc(A->Where->getExprLoc()),
        SM.getExpansionLoc(B->Where->getExprLoc()));
  });
  for (const LaunchSite *SitePtr : Sites) {
    const LaunchSite &Site = *SitePtr;
    std::string Repeats = describeRepeats(Site.Repeats);
    SourceLocation Where = Site.Where->getExprLoc();
    switch (Site.Kind) {
    case LaunchSite::Kernel:
      diag(Where, "kernel '%0' is launched here%1", DiagnosticIDs::Note)
          << Site.Name << Repeats;
      break;
    case LaunchSite::LaunchKernel:
      diag(Where, "'%0' launches a kernel here%1", DiagnosticIDs::Note)
          << Site.Name << Repeats;
      break;
    case LaunchSite::TorchOp:
      diag(Where, "'%0' runs on the GPU here%1", DiagnosticIDs::Note)
          << Site.Name << Repeats;
      break;
    case LaunchSite::TorchCompound:
      diag(Where, "'%0' issues %1 here%2%3", DiagnosticIDs::Note)
          << Site.Name
          << count(Site.TorchOps, "LibTorch operation", "LibTorch operations") +
                 " on the GPU"
          << Site.Detail << Repeats;
      break;
    case LaunchSite::Call:
      diag(Where, "'%0()' %1 here%2", DiagnosticIDs::Note)
          << Site.Name << describeLaunches(Site.Kernels, Site.TorchOps)
          << Repeats;
      break;
    }
  }
}

void LaunchBoundLoopCheck::noteBlocker(const CaptureBlocker &Blocker) {
  // The call chain down to the operation, as xfer-sync-in-loop notes it.
  for (const Stmt *Step : Blocker.Steps) {
    if (Step != Blocker.Steps.back()) {
      const auto *Call = cast<CallExpr>(Step);
      diag(Call->getExprLoc(),
           Step == Blocker.Steps.front() ? "the iteration calls '%0()' here"
                                         : "which calls '%0()' here",
           DiagnosticIDs::Note)
          << Call->getDirectCallee()->getName();
      continue;
    }
    switch (Blocker.Kind) {
    case CaptureBlocker::Sync:
      diag(cast<Expr>(Step)->getExprLoc(),
           "'%0' synchronizes with the GPU here", DiagnosticIDs::Note)
          << Blocker.Operation;
      break;
    case CaptureBlocker::Copy:
      diag(cast<Expr>(Step)->getExprLoc(),
           "'%0' copies between host and device here", DiagnosticIDs::Note)
          << Blocker.Operation;
      break;
    case CaptureBlocker::Allocation:
      diag(cast<Expr>(Step)->getExprLoc(),
           "'%0' allocates or frees memory here", DiagnosticIDs::Note)
          << Blocker.Operation;
      break;
    case CaptureBlocker::DeviceBranch:
      diag(Step->getBeginLoc(),
           "this condition reads a device result on the host",
           DiagnosticIDs::Note);
      break;
    case CaptureBlocker::HostValue:
      diag(Step->getBeginLoc(),
           "'%0' changes between iterations; a replay would reuse the value "
           "captured",
           DiagnosticIDs::Note)
          << Blocker.Operation;
      break;
    case CaptureBlocker::HostOptimizer:
      diag(cast<Expr>(Step)->getExprLoc(),
           "'%0' updates its step count and learning rate on the host; a "
           "replay would reuse the values captured",
           DiagnosticIDs::Note)
          << Blocker.Operation;
      break;
    }
  }
}

} // namespace clang::tidy::xfer
