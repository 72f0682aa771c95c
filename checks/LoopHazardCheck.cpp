//===--- LoopHazardCheck.cpp - shared driver of the in-loop checks --------===//

#include "LoopHazardCheck.h"
#include "analysis/ApiCatalogue.h"
#include "analysis/AstUtils.h"
#include "analysis/AstWalk.h"
#include "analysis/StepFunctions.h"
#include "analysis/UserCodeTraversal.h"
#include "clang/AST/ASTContext.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::xfer {

LoopHazardCheck::LoopHazardCheck(llvm::StringRef Name,
                                 ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context),
      MinFrequencyPercent(Options.getLocalOrGlobal("MinFrequencyPercent", 50U)),
      RequireCudaEvidence(
          Options.getLocalOrGlobal("RequireCudaEvidence", true)),
      ProjectUsesCuda(Options.getLocalOrGlobal("ProjectUsesCuda", false)),
      ReportUnknownPlacement(
          Options.getLocalOrGlobal("ReportUnknownPlacement", false)),
      ReportSetupAndTimingLoops(
          Options.getLocalOrGlobal("ReportSetupAndTimingLoops", false)),
      ReportEvaluationLoops(
          Options.getLocalOrGlobal("ReportEvaluationLoops", false)),
      ReportTerminationReadBacks(
          Options.getLocalOrGlobal("ReportTerminationReadBacks", false)),
      ReportFeedbackReadBacks(
          Options.getLocalOrGlobal("ReportFeedbackReadBacks", false)),
      ReportOutputReadBacks(
          Options.getLocalOrGlobal("ReportOutputReadBacks", false)),
      ProjectIndex(Options.getLocalOrGlobal("ProjectIndex", "")),
      Costs(Options) {}

void LoopHazardCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "MinFrequencyPercent", MinFrequencyPercent);
  Options.store(Opts, "RequireCudaEvidence", RequireCudaEvidence);
  Options.store(Opts, "ProjectUsesCuda", ProjectUsesCuda);
  Options.store(Opts, "ReportUnknownPlacement", ReportUnknownPlacement);
  Options.store(Opts, "ReportSetupAndTimingLoops", ReportSetupAndTimingLoops);
  Options.store(Opts, "ReportEvaluationLoops", ReportEvaluationLoops);
  Options.store(Opts, "ReportTerminationReadBacks",
                ReportTerminationReadBacks);
  Options.store(Opts, "ReportFeedbackReadBacks", ReportFeedbackReadBacks);
  Options.store(Opts, "ReportOutputReadBacks", ReportOutputReadBacks);
  Options.store(Opts, "ProjectIndex", ProjectIndex);
  Costs.storeOptions(Options, Opts);
}

void LoopHazardCheck::registerMatchers(MatchFinder *Finder) {
  walkOnlyUserCode(*Finder);
  // Every call in user code; which ones are hazards is decided by the API
  // catalogue and device inference, which a matcher cannot express.
  Finder->addMatcher(
      callExpr(unless(isExpansionInSystemHeader())).bind("call"), this);
  // Local objects: their constructors and destructors run in place, with no
  // call expression to match.
  Finder->addMatcher(declStmt(unless(isExpansionInSystemHeader()),
                              forEach(varDecl(hasLocalStorage()).bind("local")))
                         .bind("declaration"),
                     this);
  Finder->addMatcher(cxxBindTemporaryExpr(unless(isExpansionInSystemHeader()))
                         .bind("temporary"),
                     this);
  Finder->addMatcher(expr(anyOf(cxxNewExpr(), cxxDeleteExpr()),
                          unless(isExpansionInSystemHeader()))
                         .bind("newOrDelete"),
                     this);
}

void LoopHazardCheck::onStartOfTranslationUnit() {
  if (!Facts)
    Facts = ProjectFacts::loadOption(ProjectIndex, [&](llvm::Error Failed) {
      configurationDiag("cannot read the project index: %0")
          << llvm::toString(std::move(Failed));
    });
  Analyses.reset();
  OwnFacts.reset();
}

llvm::SmallVector<HazardPath, 4>
LoopHazardCheck::hazardsThroughCall(const CallExpr *Call, ASTContext &Ctx) {
  for (HazardKind Kind : {HazardKind::HostSync, HazardKind::DeviceToHostCopy,
                          HazardKind::HostToDeviceCopy})
    if (llvm::SmallVector<HazardPath, 4> Paths =
            Analyses->summaries(ReportUnknownPlacement)
                .findAllThroughCall(Call, Kind);
        !Paths.empty() && handles(Paths.front().Operation))
      return Paths;
  return {};
}

const CallSummaries::ParameterUpload *
LoopHazardCheck::uploadThroughCall(const CallExpr *Call, ASTContext &Ctx) {
  const FunctionDecl *Callee = definedCallee(Call, Ctx.getSourceManager());
  if (!Callee)
    return nullptr;
  const CallSummaries::ParameterUpload *Upload =
      Analyses->summaries(ReportUnknownPlacement).findParameterUpload(Callee);
  return Upload && Upload->Parameter < Call->getNumArgs() &&
                 handles(Upload->Path.Operation)
             ? Upload
             : nullptr;
}

bool LoopHazardCheck::followsBlockingReadBack(const CallExpr *Call,
                                              ASTContext &Ctx) {
  DeviceInference &Devices = Analyses->devices();
  // Copies move their own bytes and stay findings of their own.
  return isValueReadBack(Call, Devices) &&
         followsReadBack(Call, Ctx, [&](const CallExpr *Other) {
           return isBlockingReadBack(Other, Devices);
         });
}

void LoopHazardCheck::noteReadBacksAfter(const CallExpr *Call,
                                         ASTContext &Ctx) {
  DeviceInference &Devices = Analyses->devices();
  if (!isBlockingReadBack(Call, Devices))
    return;
  for (const CallExpr *Later :
       readBacksAfter(Call, Ctx, [&](const CallExpr *Other) {
         return isBlockingReadBack(Other, Devices);
       })) {
    // A later copy is a finding of its own and notes what follows it.
    if (!isValueReadBack(Later, Devices))
      break;
    diag(Later->getExprLoc(),
         "the same iteration reads back here too, with no GPU work in "
         "between: copy these values together in one transfer",
         DiagnosticIDs::Note);
  }
}

const ValueDecl *LoopHazardCheck::elementwiseReadBackWhole(const CallExpr *Call,
                                                           const Hazard &H,
                                                           const Stmt *Loop,
                                                           ASTContext &Ctx) {
  // `action[i].item<int>()` in a loop over i: one wait per element where
  // one copy of the whole before the loop would do. So is `heatmaps[i].cpu()`
  // (a LibTorch copy of one slice per iteration).
  const auto *For = dyn_cast<ForStmt>(Loop);
  std::optional<TorchCall> Torch = identifyTorchCall(Call);
  const bool CopiesSlice =
      H.Kind == HazardKind::DeviceToHostCopy && Torch &&
      (Torch->Op == TorchOp::Cpu || Torch->Op == TorchOp::To);
  if (!H.Subject || !For ||
      !(CopiesSlice || isValueReadBack(Call, Analyses->devices())))
    return nullptr;
  const auto *Init = dyn_cast_or_null<DeclStmt>(For->getInit());
  const ValueDecl *Whole = slicedValue(H.Subject);
  const SourceManager &SM = Ctx.getSourceManager();
  if (!Init || !Whole ||
      SM.isPointWithin(SM.getExpansionLoc(Whole->getLocation()),
                       SM.getExpansionLoc(Loop->getBeginLoc()),
                       SM.getExpansionLoc(Loop->getEndLoc())) ||
      !isLoopInvariant(Whole, Loop, Ctx))
    return nullptr;
  const bool IndexedByCounter =
      containsMatch<DeclRefExpr>(H.Subject, [&](const DeclRefExpr &Ref) {
        return llvm::is_contained(Init->decls(), Ref.getDecl());
      });
  return IndexedByCounter ? Whole : nullptr;
}

namespace {

/// True if \p Copy, a cudaMemcpy to the host in \p Function (or a
/// cudaMemcpyAsync, which a wait after it completes), fills memory
/// the caller passed for the result (`ImageU8 &out` of a filter another
/// file calls per image, or the buffer a struct taken by value points at)
/// and that the function did not upload from: the
/// function's product, which its caller consumes. A buffer uploaded and
/// copied back (an in-out state) is not.
bool fillsResultParameter(const CallExpr *Copy, const FunctionDecl *Function,
                          DeviceInference &Devices) {
  std::optional<CudaApi> Api = identifyCudaCall(Copy);
  if (!Api || (*Api != CudaApi::Memcpy && *Api != CudaApi::MemcpyAsync) ||
      Copy->getNumArgs() < 2 || !Function->hasBody())
    return false;
  const auto *Result =
      dyn_cast_or_null<ParmVarDecl>(rootVariable(Copy->getArg(0)));
  // A struct taken by value carries the caller's buffer in a pointer field
  // (`C.elements`).
  const auto *Field =
      dyn_cast<MemberExpr>(Copy->getArg(0)->IgnoreParenImpCasts());
  const bool CarriesCallerBuffer = Result &&
                                   Result->getType()->isRecordType() && Field &&
                                   Field->getType()->isPointerType();
  if (!Result || !(Result->getType()->isReferenceType() ||
                   Result->getType()->isPointerType() || CarriesCallerBuffer))
    return false;
  return !containsMatch<CallExpr>(
      Function->getBody(), [&](const CallExpr &Call) {
        std::optional<Hazard> Upload = classifyHazard(&Call, Devices);
        return Upload && Upload->Kind == HazardKind::HostToDeviceCopy &&
               Call.getNumArgs() > 1 && rootVariable(Call.getArg(1)) == Result;
      });
}

/// The name of what \p Call calls: its function, or the callable object it
/// invokes (`step(loss)` on a std::function).
std::string calledName(const CallExpr *Call) {
  if (const ValueDecl *Callable = invokedVariable(Call))
    return Callable->getNameAsString();
  return Call->getDirectCallee()->getNameAsString();
}

/// True if every operation of \p Paths allocates or releases (no read-back
/// or wait among them).
bool acquiresOrReleasesOnly(llvm::ArrayRef<HazardPath> Paths) {
  return !Paths.empty() && llvm::all_of(Paths, [](const HazardPath &Path) {
    std::optional<CudaApi> Api = identifyCudaCall(Path.Steps.back());
    return Api && acquiresOrReleases(*Api);
  });
}

/// True if every operation of \p Paths is a bare wait.
bool waitsOnlyBare(llvm::ArrayRef<HazardPath> Paths) {
  return !Paths.empty() && llvm::all_of(Paths, [](const HazardPath &Path) {
    return isBareWait(Path.Steps.back());
  });
}

/// True if \p Call reads a value that the code uses (`ofs <<
/// loss.item<double>()`), not only waits (`out.item<float>();`, a bare
/// wait).
bool readsValueForUse(const CallExpr *Call, ASTContext &Ctx) {
  if (isBareWait(Call))
    return false;
  const Stmt *Consumer = parentStmt(Call, Ctx);
  while (
      isa_and_nonnull<ImplicitCastExpr, ParenExpr, ExprWithCleanups,
                      MaterializeTemporaryExpr, CXXBindTemporaryExpr>(Consumer))
    Consumer = parentStmt(Consumer, Ctx);
  // `out.item<float>();` or `(void)out.item<float>();`: only the wait.
  if (const auto *Cast = dyn_cast_or_null<CStyleCastExpr>(Consumer);
      Cast && Cast->getType()->isVoidType())
    return false;
  return Consumer && !isa<CompoundStmt>(Consumer);
}

/// True if the device-to-host copy \p Copy, reached through calls from
/// \p Loop, brings back a buffer of an iteration that reads new input from
/// outside the program and takes no training step: the frame's result on
/// its way out.
bool copiesOutputOfNewInput(const CallExpr *Copy, const Stmt *Loop,
                            ASTContext &Ctx) {
  return !copiesFewBytes(Copy, Ctx) && readsNewInput(loopBody(Loop), Ctx) &&
         !trainsInLoop(Loop, Ctx.getSourceManager());
}
} // namespace

DiagnosticBuilder LoopHazardCheck::diag(SourceLocation Loc,
                                        llvm::StringRef Message,
                                        DiagnosticIDs::Level Level) {
  if (Sources && Loc.isMacroID() && Sources->isInSystemMacro(Loc))
    Loc = Sources->getExpansionLoc(Loc);
  return ClangTidyCheck::diag(Loc, Message, Level);
}

void LoopHazardCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  Sources = &Ctx.getSourceManager();
  if (!Analyses)
    Analyses = TranslationUnitAnalyses::of(Ctx, Facts);
  if (const auto *Var = Result.Nodes.getNodeAs<VarDecl>("local")) {
    checkScopedDeviceBuffer(
        Var, Result.Nodes.getNodeAs<DeclStmt>("declaration"), Ctx);
    return;
  }
  if (const auto *Temporary =
          Result.Nodes.getNodeAs<CXXBindTemporaryExpr>("temporary")) {
    checkTemporaryDeviceBuffer(Temporary, Ctx);
    return;
  }
  if (const auto *E = Result.Nodes.getNodeAs<Expr>("newOrDelete")) {
    checkHeapDeviceBuffer(E, Ctx);
    return;
  }
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("call");
  DeviceInference &Devices = Analyses->devices();

  // Most calls are neither hazards nor calls of functions defined here:
  // rule them out before walking up to the enclosing loops.
  std::optional<Hazard> H = classifyHazard(Call, Devices);
  if (H ? !handles(*H)
        : Analyses->summaries(ReportUnknownPlacement).targetsOf(Call).empty())
    return;
  if (H && !ReportUnknownPlacement && !hasDevicePlacementEvidence(*H))
    return;
  ExecutionFrequency Frequency = analyzeFrequency(Call, Ctx);
  if (!Frequency.inLoop()) {
    if (H)
      reportInStepFunction(Call, *H, Frequency, Ctx);
    return;
  }
  if (Frequency.relativeFrequency() * 100.0 < MinFrequencyPercent) {
    // Between the inner loops of a loop in a function that runs once per
    // step (a detector's post-processing, per image and then per
    // detection): still on every step.
    if (H && Frequency.isEpochLevel() && Frequency.Guard == GuardKind::None)
      reportInStepFunction(Call, *H, ExecutionFrequency{}, Ctx);
    return;
  }
  const HazardPath *Path = nullptr;
  llvm::SmallVector<HazardPath, 4> ThroughCall;
  if (!H) {
    ThroughCall = hazardsThroughCall(Call, Ctx);
    if (!ThroughCall.empty()) {
      Path = &ThroughCall.front();
      H = Path->Operation;
    } else if (const CallSummaries::ParameterUpload *Upload =
                   uploadThroughCall(Call, Ctx)) {
      // The upload reads what this call passes: judge that argument.
      Path = &Upload->Path;
      H = Path->Operation;
      H->Subject = Call->getArg(Upload->Parameter)->IgnoreParenImpCasts();
    } else {
      return;
    }
    H->Operation = calledName(Call) + "()";
  }
  if (lacksCudaEvidence(*H))
    return;
  // A sync right before or after a clock reading makes a measurement right;
  // a value read there for its own sake (written to a log) is a read.
  if (!ReportSetupAndTimingLoops && H->Kind == HazardKind::HostSync &&
      (Path || !readsValueForUse(Call, Ctx)) && isTimingStatement(Call, Ctx))
    return;
  if (!runsOnHotIterations(Call, Frequency, Ctx))
    return;
  // A wait next to a blocking read-back costs nothing the read-back does
  // not: the read-back is the finding, if any. So does a call of a helper
  // that only waits (`gpuErrchk()` after the frame's copies).
  if (waitsBesideBlockingTransfer(
          Call, Analyses->devices(),
          Path && Analyses->summaries(ReportUnknownPlacement).onlyWaits(Call)))
    return;
  // A side stream's wait before work on the legacy default stream hands
  // the stage on (LABELLING.md's pipeline hand-off).
  if (!Path && handsOffToDefaultStream(Call, Ctx))
    return;
  // A wait that another wait precedes on every path, with no device work
  // queued in between, waits for nothing.
  if (!Path && isBareWait(Call) &&
      followsWaitOnEveryPath(Call, Analyses->devices().executionOrder(), Ctx,
                             Facts.get()))
    return;
  // Read-backs after another one in the same iteration, with no device
  // work in between, wait for nothing more: notes on the first.
  if (!Path && followsBlockingReadBack(Call, Ctx))
    return;
  // A value that decides whether the loop goes on (a convergence residual,
  // a done flag) must be read: necessary work, not a hazard. Only the
  // innermost loop counts: a value read on every iteration of an inner loop
  // (a fitness per individual) that only the outer loop's test aggregates is
  // read many times per decision.
  const Stmt *Innermost = Frequency.Loops.front().Loop;
  bool DecidesExit;
  if (!Path)
    DecidesExit = decidesLoopExit(Call, Innermost, Ctx) ||
                  waitsForManagedExitTest(Call, Innermost, Devices) ||
                  (H->Kind != HazardKind::HostToDeviceCopy &&
                   decidesLaterLoopExit(Call, Innermost, Ctx));
  else if (waitsOnlyBare(ThroughCall))
    DecidesExit = decidesLoopExit(Call, Innermost, Ctx) ||
                  waitsForManagedExitTest(Call, Innermost, Devices,
                                          /*WaitsInside=*/true);
  else
    // A call that only allocates or frees inside (a frame reader returning
    // null at the end of the file) decides the exit with host data.
    DecidesExit = !acquiresOrReleasesOnly(ThroughCall) &&
                  decidesLoopExit(Call, Innermost, Ctx);
  if (DecidesExit && !ReportTerminationReadBacks)
    return;
  // A value the host turns into the next input it uploads (the action that
  // steps an environment whose observation goes back up) must be read on
  // every iteration; one element at a time it still waits once too often.
  const ValueDecl *ReadElementwise =
      Path ? nullptr
           : elementwiseReadBackWhole(Call, *H, Frequency.Loops.front().Loop,
                                      Ctx);
  const bool RoundTrip =
      !Path && roundTripsThroughHost(Call, Frequency.Loops.front().Loop,
                                     Analyses->devices(), Ctx);
  const bool FeedsUpload =
      !ReadElementwise && !RoundTrip &&
      llvm::any_of(Frequency.Loops, [&](const EnclosingLoop &Loop) {
        return feedsLoopUpload(Call, Loop.Loop, Analyses->devices(), Ctx);
      });
  if (FeedsUpload && !ReportFeedbackReadBacks)
    return;
  // The product of an inference or simulation step that the host draws,
  // writes or returns must come back on every iteration.
  // Through a call, a buffer the callee copies back on every frame of new
  // input.
  const Stmt *IterationBody = loopBody(Frequency.Loops.front().Loop);
  auto ConsumedOnHost = [&] {
    // A result the host needs, read the wrong way: one copy per element.
    if (FeedsUpload || RoundTrip || ReadElementwise)
      return false;
    if (Path) {
      // A helper that runs the model and returns the one value the host
      // needs (`classify(frame)` returning the label).
      const CallExpr *Operation = Path->Steps.back();
      const FunctionDecl *Helper = enclosingFunction(Operation, Ctx);
      if (H->Kind == HazardKind::HostSync && Helper &&
          !trainsInLoop(Frequency.Loops.front().Loop, Ctx.getSourceManager()))
        return readsModelResultForHost(Operation, Helper->getBody(), Ctx);
      return H->Kind == HazardKind::DeviceToHostCopy &&
             copiesOutputOfNewInput(Operation, Frequency.Loops.front().Loop,
                                    Ctx);
    }
    if (H->Kind == HazardKind::DeviceToHostCopy)
      return consumesCopiedOutput(Call, IterationBody, Ctx);
    // A wait completes the copy of a product, not of a hybrid scheme's
    // round trip (the host computes its part and uploads it again).
    const Stmt *Loop = Frequency.Loops.front().Loop;
    return writesReadBackToFile(Call, IterationBody, Ctx) ||
           readsModelResultForHost(Call, IterationBody, Ctx) ||
           completesAsyncReadBack(Call, Ctx, [&](const CallExpr *Copy) {
             return consumesCopiedOutput(Copy, IterationBody, Ctx) &&
                    !roundTripsThroughHost(Copy, Loop, Analyses->devices(),
                                           Ctx) &&
                    !feedsLoopUpload(Copy, Loop, Analyses->devices(), Ctx);
           });
  };
  const bool ConsumesOutput = ConsumedOnHost();
  if (ConsumesOutput && !ReportOutputReadBacks)
    return;
  if (!shouldReport(Call, *H, Frequency, Ctx))
    return;

  const SourceManager &SM = Ctx.getSourceManager();
  warn(Call, *H, describeFrequency(Frequency, SM), Ctx);
  const EnclosingLoop &Loop = Frequency.Loops.front();
  diag(Loop.Loop->getBeginLoc(), "%0 starts here", DiagnosticIDs::Note)
      << Loop.Kind;
  if (Path) {
    noteCallChain(*Path);
    if (!ThroughCall.empty())
      noteFurtherHazards(llvm::ArrayRef(ThroughCall).drop_front());
  } else {
    noteReadBacksAfter(Call, Ctx);
    if (ReadElementwise)
      diag(Call->getExprLoc(),
           "each iteration reads one element of '%0': copy it to the host "
           "once before the loop ('%0.cpu()') and read the elements there, "
           "one wait instead of one per element",
           DiagnosticIDs::Note)
          << ReadElementwise->getName();
  }
  if (FeedsUpload)
    diag(Call->getExprLoc(),
         "the host makes what the loop uploads next from the value: reading "
         "it back is necessary, keep it to one small read per iteration",
         DiagnosticIDs::Note);
  if (DecidesExit)
    diag(Call->getExprLoc(),
         "the value decides whether the loop goes on: checking it every N "
         "iterations lets the GPU run ahead in between",
         DiagnosticIDs::Note);
  if (ConsumesOutput)
    noteConsumedOutput(Call, Path ? Path->Steps.back() : Call);
  citeCost(Call->getExprLoc(), *H, Frequency, Ctx);
}

bool LoopHazardCheck::runsOnHotIterations(const Stmt *S,
                                          const ExecutionFrequency &Frequency,
                                          ASTContext &Ctx) {
  if (Frequency.relativeFrequency() * 100.0 < MinFrequencyPercent)
    return false;
  // A loop in a function main never reaches (a test path left in the
  // code) never runs.
  if (!programFacts(Ctx).mayRun(S, Ctx))
    return false;
  // Costs that are paid once (setup and teardown loops) or on purpose
  // (timing harnesses) are not hazards, unless a loop around them is hot,
  // or their function runs on every step of a loop in another file (a
  // boundary update copying one element at a time).
  if (!ReportSetupAndTimingLoops && !Analyses->inSteadyLoop(Frequency) &&
      !inStepOfAnotherFile(S, Frequency, Ctx))
    return false;
  // Repetitions timed in a loop over configurations (trials of a solver
  // for each block shape): a sweep of benchmarks, not a step.
  if (!ReportSetupAndTimingLoops && Frequency.inLoop() &&
      Analyses->roleOf(Frequency.Loops.front().Loop) == LoopRole::TimingHarness)
    return false;
  // A handful of rounds in code that runs once (warm-up or relaxation
  // rounds, one pass per device) is a one-time cost, however the loop looks.
  if (!ReportSetupAndTimingLoops && runsAHandfulOfTimesOnce(S, Frequency, Ctx))
    return false;
  // Evaluation once per epoch is periodic work the user wants; so is a pass
  // that runs only every N iterations of the loop around it (a validation
  // loop under `if (step % eval_every == 0)`) or once (`if (last_step)`).
  if (ReportEvaluationLoops)
    return true;
  if (llvm::any_of(Frequency.Loops, [&](const EnclosingLoop &Loop) {
        if (Analyses->roleOf(Loop.Loop) == LoopRole::Evaluation)
          return true;
        ExecutionFrequency Around = analyzeFrequency(Loop.Loop, Ctx);
        return Around.inLoop() && Around.Guard != GuardKind::None &&
               Around.relativeFrequency() * 100.0 < MinFrequencyPercent;
      }))
    return false;
  // A helper that only validation passes call (per-sample metrics), in
  // the program or, without an index, in this file.
  const FunctionDecl *Function = enclosingFunction(S, Ctx);
  if (!Function)
    return true;
  return !programFacts(Ctx).calledOnlyInEvaluation(Function);
}

namespace {

/// The value of \p Cond when parameter \p Param holds \p Value, if the
/// condition reads nothing else but constants.
std::optional<int64_t> valueWith(const Expr *Cond, const ParmVarDecl *Param,
                                 int64_t Value, const ASTContext &Ctx) {
  Cond = Cond->IgnoreParenImpCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Cond))
    return Ref->getDecl() == Param ? std::optional<int64_t>(Value)
                                   : evaluateInt(Cond, Ctx);
  if (const auto *Not = dyn_cast<UnaryOperator>(Cond);
      Not && Not->getOpcode() == UO_LNot) {
    std::optional<int64_t> Inner =
        valueWith(Not->getSubExpr(), Param, Value, Ctx);
    return Inner ? std::optional<int64_t>(!*Inner) : std::nullopt;
  }
  const auto *Bin = dyn_cast<BinaryOperator>(Cond);
  if (!Bin)
    return evaluateInt(Cond, Ctx);
  std::optional<int64_t> L = valueWith(Bin->getLHS(), Param, Value, Ctx);
  std::optional<int64_t> R = valueWith(Bin->getRHS(), Param, Value, Ctx);
  // `phase == 3 && verbose`: false whatever the other side is.
  if (Bin->getOpcode() == BO_LAnd && ((L && !*L) || (R && !*R)))
    return 0;
  if (Bin->getOpcode() == BO_LOr && ((L && *L) || (R && *R)))
    return 1;
  if (!L || !R)
    return std::nullopt;
  switch (Bin->getOpcode()) {
  case BO_EQ:
    return *L == *R;
  case BO_NE:
    return *L != *R;
  case BO_LT:
    return *L < *R;
  case BO_GT:
    return *L > *R;
  case BO_LE:
    return *L <= *R;
  case BO_GE:
    return *L >= *R;
  case BO_LAnd:
    return *L && *R;
  case BO_LOr:
    return *L || *R;
  default:
    return std::nullopt;
  }
}

} // namespace

bool LoopHazardCheck::skippedOnSteps(const Stmt *S,
                                     const FunctionDecl *Function,
                                     ASTContext &Ctx) {
  if (!Facts || !Function)
    return false;
  const Stmt *Child = S;
  for (const Stmt *P = parentStmt(S, Ctx); P;
       Child = P, P = parentStmt(P, Ctx)) {
    const auto *If = dyn_cast<IfStmt>(P);
    if (!If || Child == If->getCond() || Child == If->getInit())
      continue;
    const bool InThen = Child == If->getThen();
    // The branch on one parameter the step loops pass constants for.
    const ParmVarDecl *Tested = nullptr;
    bool OneParameter = true;
    walkStmt(If->getCond(), [&](const Stmt &Node) {
      if (const auto *Ref = dyn_cast<DeclRefExpr>(&Node))
        if (const auto *Param = dyn_cast<ParmVarDecl>(Ref->getDecl())) {
          // A parameter of this function, not of a lambda inside it.
          const auto *Owner = dyn_cast<FunctionDecl>(Param->getDeclContext());
          OneParameter &= (!Tested || Tested == Param) && Owner &&
                          Owner->getCanonicalDecl() ==
                              Function->getCanonicalDecl();
          Tested = Param;
        }
      return WalkStep::Continue;
    });
    if (!Tested || !OneParameter)
      continue;
    std::optional<llvm::ArrayRef<int64_t>> Passed =
        Facts->stepArgumentValues(Function, Tested->getFunctionScopeIndex());
    if (!Passed || Passed->empty())
      continue;
    if (llvm::all_of(*Passed, [&](int64_t Value) {
          std::optional<int64_t> Taken =
              valueWith(If->getCond(), Tested, Value, Ctx);
          return Taken && (*Taken != 0) != InThen;
        }))
      return true;
  }
  return false;
}

bool LoopHazardCheck::inStepOfAnotherFile(const Stmt *S,
                                          const ExecutionFrequency &Frequency,
                                          ASTContext &Ctx) {
  // A handful of rounds (one wait per stream) is no pass over elements.
  constexpr uint64_t Handful = 8;
  if (!Facts || !llvm::all_of(Frequency.Loops, [&](const EnclosingLoop &L) {
        return Analyses->roleOf(L.Loop) == LoopRole::SetupOrTeardown &&
               !(L.TripCount && *L.TripCount <= Handful);
      }))
    return false;
  const FunctionDecl *Function = enclosingFunction(S, Ctx);
  return Function && Facts->stepOrigin(Function) &&
         !isCalledInLoopHere(Function, Analyses->devices(), Ctx) &&
         !skippedOnSteps(S, Function, Ctx);
}

const ProjectFacts &LoopHazardCheck::programFacts(ASTContext &Ctx) {
  if (Facts)
    return *Facts;
  if (!OwnFacts)
    OwnFacts = ProjectFacts::ofTranslationUnit(Ctx, Analyses->devices());
  return *OwnFacts;
}

const FieldDecl *LoopHazardCheck::uploadedSetUpMember(
    const Hazard &H, const FunctionDecl *Uploader, ASTContext &Ctx) {
  const FieldDecl *Field = H.Kind == HazardKind::HostToDeviceCopy
                               ? uploadedMember(H.Subject)
                               : nullptr;
  if (!Field)
    return nullptr;
  const ProjectFacts &Program = programFacts(Ctx);
  return memberSetAtSetUp(Field, Uploader, Analyses->devices(),
                          [&](const FunctionDecl *Writer) {
                            return Program.stepOrigin(Writer) != nullptr;
                          })
             ? Field
             : nullptr;
}

bool LoopHazardCheck::runsAHandfulOfTimesOnce(
    const Stmt *S, const ExecutionFrequency &Frequency, ASTContext &Ctx) {
  // At most this many executions per call of the function count as a
  // handful (four devices or streams, five relaxation rounds).
  constexpr uint64_t Handful = 8;
  std::optional<uint64_t> Total = Frequency.totalExecutions();
  if (!Total || *Total > Handful)
    return false;
  const FunctionDecl *Function = enclosingFunction(S, Ctx);
  return Function && !stepPhrase(Function, Facts.get()) &&
         !isCalledInLoopHere(Function, Analyses->devices(), Ctx,
                             /*OnEveryIteration=*/true);
}

void LoopHazardCheck::reportInStepFunction(const CallExpr *Call,
                                           const Hazard &H,
                                           const ExecutionFrequency &Frequency,
                                           ASTContext &Ctx) {
  // Read-backs in a function that runs on every step although no loop is
  // visible here: forward(), or a helper a loop in another file calls.
  // Uploads are judged against a loop (is the source invariant?), so only
  // uploads of data that is the same on every call are reported here.
  const VarDecl *Source = copiedVariable(H.Subject);
  const bool UploadsConstantData =
      H.Kind == HazardKind::HostToDeviceCopy &&
      (holdsConstantValues(Source ? Source : slicedBuffer(H.Subject), Ctx) ||
       uploadedSetUpMember(H, enclosingFunction(Call, Ctx), Ctx));
  if ((H.Kind != HazardKind::HostSync &&
       H.Kind != HazardKind::DeviceToHostCopy && !UploadsConstantData) ||
      (!ReportUnknownPlacement && !hasDevicePlacementEvidence(H)) ||
      (isTimingStatement(Call, Ctx) &&
       !(H.Kind == HazardKind::HostSync && readsValueForUse(Call, Ctx))))
    return;
  std::optional<std::string> Phrase = hotPhrase(Call, Frequency, Ctx);
  if (!Phrase)
    return;
  // A read-back whose value decides whether the driving loop goes on is
  // necessary work; a wait next to a blocking read-back costs nothing more.
  if (!ReportTerminationReadBacks &&
      decidesStepExit(Call, enclosingFunction(Call, Ctx), Ctx))
    return;
  if (waitsBesideBlockingTransfer(Call, Analyses->devices()) ||
      followsBlockingReadBack(Call, Ctx) || handsOffToDefaultStream(Call, Ctx))
    return;
  // A wait that ends the function, whose callers copy the result back
  // right after the call: the copy waits for the same work.
  if (endsFunctionWithWait(Call, Ctx) &&
      callersTransferRightAfter(enclosingFunction(Call, Ctx),
                                Analyses->devices(), &programFacts(Ctx)))
    return;
  if (lacksCudaEvidence(H))
    return;
  // The wait that completes an asynchronous copy of the product is part of
  // that copy, as necessary as it is.
  const FunctionDecl *Function = enclosingFunction(Call, Ctx);
  const bool ConsumesOutput =
      H.Kind == HazardKind::DeviceToHostCopy
          ? consumedInItsFunction(Call, Ctx)
          : (Function && !(Facts && Facts->drivenByTraining(Function)) &&
             readsModelResultForHost(Call, Function->getBody(), Ctx)) ||
                completesAsyncReadBack(Call, Ctx, [&](const CallExpr *Copy) {
                  return consumedInItsFunction(Copy, Ctx);
                });
  if (ConsumesOutput && !ReportOutputReadBacks)
    return;
  warn(Call, H, *Phrase, Ctx);
  noteReadBacksAfter(Call, Ctx);
  if (ConsumesOutput)
    noteConsumedOutput(Call, Call);
  citeCost(Call->getExprLoc(), H, Frequency, Ctx);
}

bool LoopHazardCheck::consumedInItsFunction(const CallExpr *Copy,
                                            ASTContext &Ctx) {
  const FunctionDecl *Function = enclosingFunction(Copy, Ctx);
  if (!Function || (Facts && Facts->drivenByTraining(Function)))
    return false;
  // Called on every iteration of a loop in another file that reads new
  // input (a video frame, an image file): the buffer it copies back is
  // that input's result on its way out.
  if (Facts && Facts->drivenByNewInput(Function) && !copiesFewBytes(Copy, Ctx))
    return true;
  return consumesCopiedOutput(Copy, Function->getBody(), Ctx) ||
         fillsResultParameter(Copy, Function, Analyses->devices());
}

void LoopHazardCheck::citeCost(SourceLocation Where, const Hazard &H,
                               const ExecutionFrequency &Frequency,
                               ASTContext &Ctx) {
  // Every hazard of these checks blocks the host: a sync, a device-to-host
  // copy, or a synchronous host-to-device copy.
  CostQuery Query{H.CostPattern, "", H.Bytes, /*BlocksHost=*/true,
                  &Frequency};
  describeOverlap(Query, H.IsLibTorch);
  if (std::optional<CostNote> Cost = Costs.note(Query, Ctx, *this)) {
    diag(Where, "%0", DiagnosticIDs::Note) << Cost->text();
    recordCostNote(*Cost, getID(), Where, Ctx.getSourceManager());
  }
}

bool LoopHazardCheck::lacksCudaEvidence(const Hazard &H) const {
  // LibTorch code runs on the CPU unless the program shows CUDA use.
  return H.IsLibTorch && RequireCudaEvidence && !ProjectUsesCuda &&
         !(Facts && Facts->usesCuda()) && !Analyses->cudaEvidence().Found;
}

std::optional<std::string>
LoopHazardCheck::hotPhrase(const Stmt *S, const ExecutionFrequency &Frequency,
                           ASTContext &Ctx) {
  if (Frequency.inLoop()) {
    if (!runsOnHotIterations(S, Frequency, Ctx))
      return std::nullopt;
    return describeFrequency(Frequency, Ctx.getSourceManager());
  }
  // No loop here: a method that runs once per step (forward(), a helper a
  // loop in another file calls), unless a loop here calls it (reported
  // there).
  // A function that runs a training loop of its own (an epoch's batch
  // loop) does the rest of its work once per epoch: a validation loss read
  // after the batch loop is periodic evaluation.
  const FunctionDecl *Function = enclosingFunction(S, Ctx);
  // A branch taken every other call (`if (ntime % 2 == 0)`, the even
  // half-step of a two-phase scheme) runs as often as MinFrequencyPercent
  // asks; rarer guards are logging or periodic work.
  const bool FrequentGuard =
      Frequency.Guard == GuardKind::EveryN && Frequency.Period &&
      *Frequency.Period > 0 &&
      100.0 / static_cast<double>(*Frequency.Period) >= MinFrequencyPercent;
  if ((Frequency.Guard != GuardKind::None && !FrequentGuard) || !Function ||
      isOnErrorPath(S, Ctx) ||
      isCalledInLoopHere(Function, Analyses->devices(), Ctx) ||
      runsTrainingEpoch(Function, Ctx) || skippedOnSteps(S, Function, Ctx))
    return std::nullopt;
  std::optional<std::string> Phrase = stepPhrase(Function, Facts.get());
  constexpr llvm::StringLiteral EveryCall = "on every call of ";
  if (Phrase && FrequentGuard &&
      llvm::StringRef(*Phrase).starts_with(EveryCall))
    Phrase = "once every " + std::to_string(*Frequency.Period) + " calls of " +
             Phrase->substr(EveryCall.size());
  return Phrase;
}

void LoopHazardCheck::noteConsumedOutput(const CallExpr *At,
                                         const CallExpr *Copy) {
  if (std::optional<TorchCall> Read = identifyTorchCall(Copy);
      Read && Read->Op == TorchOp::Item) {
    diag(At->getExprLoc(),
         "the host takes the value in the same iteration (a file, a result "
         "returned or handed on): if it is the result the program needs, "
         "the read is necessary; read it once",
         DiagnosticIDs::Note);
    return;
  }
  if (isBareWait(Copy)) {
    diag(At->getExprLoc(),
         "the wait completes an asynchronous copy whose result the host "
         "uses in the same iteration: if it is the result the program "
         "needs, the wait is necessary",
         DiagnosticIDs::Note);
    return;
  }
  diag(At->getExprLoc(),
       "the host uses what the copy brings back in the same iteration: if "
       "it is the result the program needs, the copy is necessary; keep it "
       "to one transfer",
       DiagnosticIDs::Note);
}

void LoopHazardCheck::noteLoop(const ExecutionFrequency &Frequency) {
  if (!Frequency.inLoop())
    return;
  const EnclosingLoop &Loop = Frequency.Loops.front();
  diag(Loop.Loop->getBeginLoc(), "%0 starts here", DiagnosticIDs::Note)
      << Loop.Kind;
}

std::optional<LoopHazardCheck::ObjectSyncs>
LoopHazardCheck::objectSyncs(const CXXRecordDecl *Class,
                             const CXXConstructExpr *Construct,
                             ASTContext &Ctx) {
  ObjectSyncs Syncs;
  Syncs.Operation =
      Hazard{HazardKind::HostSync, /*IsLibTorch=*/false, "", "", nullptr, {},
             std::nullopt};
  // Only synchronizations come from constructors and destructors: a check
  // that does not report them need not summarise every object's class.
  if (!handles(Syncs.Operation))
    return std::nullopt;
  const SourceManager &SM = Ctx.getSourceManager();
  if (isThrustDeviceVector(Class)) {
    // The default constructor allocates nothing (nor does its destructor
    // free anything): only a size, a fill or a copy does.
    Syncs.Allocates = Syncs.Frees =
        Construct && llvm::any_of(Construct->arguments(), [](const Expr *A) {
          return !isa<CXXDefaultArgExpr>(A);
        });
    Syncs.Operation.Operation = "thrust::device_vector";
    Syncs.Operation.CostPattern = patterns::CudaMallocFree;
  } else if (!SM.isInSystemHeader(SM.getExpansionLoc(Class->getLocation()))) {
    CallSummaries &Summaries = Analyses->summaries(ReportUnknownPlacement);
    if (Construct && Construct->getConstructor())
      Syncs.Allocation =
          Summaries.find(Construct->getConstructor(), HazardKind::HostSync);
    if (const CXXDestructorDecl *Destructor = Class->getDestructor())
      Syncs.Release = Summaries.find(Destructor, HazardKind::HostSync);
    Syncs.Allocates = Syncs.Allocation != nullptr;
    Syncs.Frees = Syncs.Release != nullptr;
    if (const HazardPath *First =
            Syncs.Allocation ? Syncs.Allocation : Syncs.Release)
      Syncs.Operation = First->Operation;
  }
  if (!(Syncs.Allocates || Syncs.Frees) || lacksCudaEvidence(Syncs.Operation))
    return std::nullopt;
  return Syncs;
}

void LoopHazardCheck::checkScopedDeviceBuffer(const VarDecl *Var,
                                              const DeclStmt *Declaration,
                                              ASTContext &Ctx) {
  const CXXRecordDecl *Class = localObjectClass(Var);
  if (!Declaration || !Class)
    return;
  // `T x(n)`, `T x = T(n)`, `auto x = T(n)`: the constructor runs here.
  const Expr *Init = Var->getInit();
  while (Init) {
    Init = Init->IgnoreImplicit();
    const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(Init);
    if (!Cast)
      break;
    Init = Cast->getSubExpr();
  }
  const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(Init);
  std::optional<ObjectSyncs> Syncs = objectSyncs(Class, Construct, Ctx);
  if (!Syncs)
    return;
  ExecutionFrequency Frequency = analyzeFrequency(Declaration, Ctx);
  std::optional<std::string> Phrase = hotPhrase(Declaration, Frequency, Ctx);
  if (!Phrase)
    return;

  diag(Var->getLocation(),
       "'%0' synchronizes with the GPU %select{when it is created and when it "
       "goes out of scope|when it is created|when it goes out of scope}1 %2: "
       "the host waits for all queued device work; create it once before the "
       "loop and reuse it")
      << Var->getName() << Syncs->moments() << *Phrase;
  noteObjectFinding(Var->getLocation(), Syncs->Operation, Frequency,
                    {Syncs->Allocation, Syncs->Release}, Ctx);
}

void LoopHazardCheck::checkTemporaryDeviceBuffer(
    const CXXBindTemporaryExpr *Temporary, ASTContext &Ctx) {
  const CXXDestructorDecl *Destructor =
      Temporary->getTemporary()->getDestructor();
  if (!Destructor)
    return;
  const CXXRecordDecl *Class = Destructor->getParent();
  // A temporary returned by a call was constructed in the callee: only its
  // destruction happens here.
  const auto *Construct =
      dyn_cast<CXXConstructExpr>(Temporary->getSubExpr()->IgnoreImplicit());
  // Most temporaries (every tensor) cost nothing: rule them out first.
  std::optional<ObjectSyncs> Syncs = objectSyncs(Class, Construct, Ctx);
  if (!Syncs)
    return;
  // The prvalue that initializes a variable or is returned is that object
  // itself (C++17), not a temporary: the variable's finding, if any.
  for (DynTypedNodeList Parents = Ctx.getParents(*Temporary); !Parents.empty();
       Parents = Ctx.getParents(Parents[0])) {
    if (Parents[0].get<VarDecl>() || Parents[0].get<ReturnStmt>() ||
        Parents[0].get<CXXCtorInitializer>())
      return;
    const auto *Wrapper = Parents[0].get<Expr>();
    if (!Wrapper ||
        !isa<MaterializeTemporaryExpr, ImplicitCastExpr, CXXFunctionalCastExpr,
             ExprWithCleanups, CXXConstructExpr, ParenExpr>(Wrapper) ||
        (isa<MaterializeTemporaryExpr>(Wrapper) &&
         cast<MaterializeTemporaryExpr>(Wrapper)->getExtendingDecl()))
      break;
    // A copy or move constructor taking the temporary makes the object.
    if (const auto *Copy = dyn_cast<CXXConstructExpr>(Wrapper);
        Copy && Copy->getNumArgs() != 1)
      break;
  }
  ExecutionFrequency Frequency = analyzeFrequency(Temporary, Ctx);
  std::optional<std::string> Phrase = hotPhrase(Temporary, Frequency, Ctx);
  if (!Phrase)
    return;
  diag(Temporary->getBeginLoc(),
       "a temporary '%0' synchronizes with the GPU %select{when it is created "
       "and when it is destroyed|when it is created|when it is destroyed}1 %2: "
       "the host waits for all queued device work; create one object before "
       "the loop and reuse it")
      << Class->getName() << Syncs->moments() << *Phrase;
  noteObjectFinding(Temporary->getBeginLoc(), Syncs->Operation, Frequency,
                    {Syncs->Allocation, Syncs->Release}, Ctx);
}

void LoopHazardCheck::checkHeapDeviceBuffer(const Expr *NewOrDelete,
                                            ASTContext &Ctx) {
  // `new T(...)` runs T's constructor, `delete p` its destructor.
  const FunctionDecl *Runs = nullptr;
  const CXXRecordDecl *Class = nullptr;
  const auto *New = dyn_cast<CXXNewExpr>(NewOrDelete);
  if (New) {
    if (const CXXConstructExpr *Construct = New->getConstructExpr()) {
      Runs = Construct->getConstructor();
      Class = Runs ? cast<CXXConstructorDecl>(Runs)->getParent() : nullptr;
    }
  } else if (const auto *Delete = dyn_cast<CXXDeleteExpr>(NewOrDelete);
             Delete && !Delete->getDestroyedType().isNull()) {
    Class = Delete->getDestroyedType()->getAsCXXRecordDecl();
    Runs = Class && Class->hasDefinition() ? Class->getDestructor() : nullptr;
  }
  const SourceManager &SM = Ctx.getSourceManager();
  if (!Runs || SM.isInSystemHeader(SM.getExpansionLoc(Class->getLocation())))
    return;
  const HazardPath *Path = Analyses->summaries(ReportUnknownPlacement)
                               .find(Runs, HazardKind::HostSync);
  if (!Path || !handles(Path->Operation) || lacksCudaEvidence(Path->Operation))
    return;
  ExecutionFrequency Frequency = analyzeFrequency(NewOrDelete, Ctx);
  std::optional<std::string> Phrase = hotPhrase(NewOrDelete, Frequency, Ctx);
  if (!Phrase)
    return;
  diag(NewOrDelete->getBeginLoc(),
       "%select{deleting|creating}0 a '%1' synchronizes with the GPU %2: its "
       "%select{destructor|constructor}0 waits for all queued device work; "
       "keep one object and reuse it")
      << (New != nullptr) << Class->getName() << *Phrase;
  noteObjectFinding(NewOrDelete->getBeginLoc(), Path->Operation, Frequency,
                    {Path}, Ctx);
}

void LoopHazardCheck::noteObjectFinding(
    SourceLocation Where, const Hazard &H, const ExecutionFrequency &Frequency,
    std::initializer_list<const HazardPath *> Paths, ASTContext &Ctx) {
  noteLoop(Frequency);
  for (const HazardPath *Path : Paths)
    if (Path)
      noteCallChain(*Path);
  citeCost(Where, H, Frequency, Ctx);
}

void LoopHazardCheck::noteFurtherHazards(llvm::ArrayRef<HazardPath> Further) {
  for (const HazardPath &Path : Further)
    diag(Path.Steps.back()->getExprLoc(), "'%0' %1 here too",
         DiagnosticIDs::Note)
        << Path.Operation.Operation
        << (Path.Operation.Kind == HazardKind::HostSync
                ? "synchronizes with the GPU"
            : Path.Operation.Kind == HazardKind::DeviceToHostCopy
                ? "copies device memory to the host"
                : "copies the same host data to the GPU");
}

void LoopHazardCheck::noteCallChain(const HazardPath &Path) {
  // The call chain down to the operation.
  for (const CallExpr *Step : Path.Steps) {
    if (Step == Path.Steps.back())
      diag(Step->getExprLoc(), "'%0' %1 here", DiagnosticIDs::Note)
          << Path.Operation.Operation
          << (Path.Operation.Kind == HazardKind::HostSync
                  ? "synchronizes with the GPU"
              : Path.Operation.Kind == HazardKind::HostToDeviceCopy
                  ? "copies host memory to the GPU"
                  : "copies device memory to the host");
    else
      diag(Step->getExprLoc(), "which calls '%0()' here", DiagnosticIDs::Note)
          << Step->getDirectCallee()->getName();
  }
}

} // namespace clang::tidy::xfer
