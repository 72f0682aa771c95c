//===--- CallSummaries.cpp - functions that synchronize or copy inside ----===//

#include "analysis/CallSummaries.h"
#include "analysis/AstUtils.h"
#include "analysis/AstWalk.h"
#include "analysis/LoopContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

namespace clang::tidy::xfer {

const HazardPath *CallSummaries::find(const FunctionDecl *Function,
                                      HazardKind Kind) {
  llvm::ArrayRef<HazardPath> Paths = findAll(Function, Kind);
  return Paths.empty() ? nullptr : &Paths.front();
}

llvm::ArrayRef<HazardPath> CallSummaries::findAll(const FunctionDecl *Function,
                                                  HazardKind Kind) {
  return summarize(Function)[slot(Kind)];
}

namespace {

/// The position of \p Var among \p Function's parameters.
std::optional<unsigned> parameterIndex(const FunctionDecl *Function,
                                       const VarDecl *Var) {
  const auto *Parameter = dyn_cast_or_null<ParmVarDecl>(Var);
  if (!Parameter || Parameter->getDeclContext() != Function)
    return std::nullopt;
  return Parameter->getFunctionScopeIndex();
}

/// The lambda \p Arg passes (`[&](Tensor l) {...}` itself, or a local
/// variable it initialises), through the std::function built from it.
const LambdaExpr *passedLambda(const Expr *Arg) {
  const Expr *E = ignoreTemporaries(Arg);
  while (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    if (Construct->getNumArgs() != 1)
      return nullptr;
    E = ignoreTemporaries(Construct->getArg(0));
  }
  if (const auto *Lambda = dyn_cast<LambdaExpr>(E))
    return Lambda;
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Var || !Var->getInit() || !Var->isLocalVarDecl())
    return nullptr;
  return dyn_cast<LambdaExpr>(ignoreTemporaries(Var->getInit()));
}

/// Adds \p Path to \p Paths unless its operation is there already (a
/// helper called twice) or \p Paths is full.
void addPath(llvm::SmallVectorImpl<HazardPath> &Paths, HazardPath Path) {
  if (Paths.size() >= CallSummaries::MaxPathsPerKind ||
      llvm::any_of(Paths, [&](const HazardPath &Known) {
        return Known.Steps.back() == Path.Steps.back();
      }))
    return;
  Paths.push_back(std::move(Path));
}

} // namespace

llvm::SmallVector<const FunctionDecl *, 2>
CallSummaries::targetsOf(const CallExpr *Call) {
  const SourceManager &SM = Devices.context().getSourceManager();
  llvm::SmallVector<const FunctionDecl *, 2> Targets;
  if (const FunctionDecl *Defined = definedCallee(Call, SM))
    Targets.push_back(Defined);
  // `callback(loss)` on a std::function parameter runs the lambdas the
  // function's callers pass (a training step handed to the batch loop).
  if (const auto *Param = dyn_cast_or_null<ParmVarDecl>(invokedVariable(Call)))
    if (const auto *Function = dyn_cast<FunctionDecl>(Param->getDeclContext()))
      for (const CallExpr *Site : Devices.callSitesOf(Function))
        if (Param->getFunctionScopeIndex() < Site->getNumArgs())
          if (const LambdaExpr *Lambda =
                  passedLambda(Site->getArg(Param->getFunctionScopeIndex())))
            if (!llvm::is_contained(Targets, Lambda->getCallOperator()))
              Targets.push_back(Lambda->getCallOperator());
  const auto *MemberCall = dyn_cast<CXXMemberCallExpr>(Call);
  const auto *Method =
      MemberCall ? dyn_cast_or_null<CXXMethodDecl>(MemberCall->getMethodDecl())
                 : nullptr;
  const auto *Member =
      MemberCall ? dyn_cast<MemberExpr>(MemberCall->getCallee()->IgnoreParens())
                 : nullptr;
  if (!Method || !Method->isVirtual() || !Member || Member->hasQualifier())
    return Targets;
  if (!Overriders) {
    Overriders.emplace();
    auto SkipBodies = [](const Stmt &) { return WalkStep::SkipChildren; };
    walkDecl(Devices.context().getTranslationUnitDecl(), SkipBodies,
             [&](const Decl &D) {
               if (!isa<TranslationUnitDecl>(D) &&
                   SM.isInSystemHeader(SM.getExpansionLoc(D.getLocation())))
                 return WalkStep::SkipChildren;
               const auto *Overrider = dyn_cast<CXXMethodDecl>(&D);
               if (!Overrider || !Overrider->doesThisDeclarationHaveABody())
                 return WalkStep::Continue;
               llvm::SmallVector<const CXXMethodDecl *, 4> Pending(
                   Overrider->overridden_methods());
               llvm::DenseSet<const CXXMethodDecl *> Seen;
               while (!Pending.empty()) {
                 const CXXMethodDecl *Base = Pending.pop_back_val();
                 if (!Seen.insert(Base->getCanonicalDecl()).second)
                   continue;
                 (*Overriders)[Base->getCanonicalDecl()].push_back(Overrider);
                 llvm::append_range(Pending, Base->overridden_methods());
               }
               return WalkStep::Continue;
             });
  }
  if (auto It = Overriders->find(Method->getCanonicalDecl());
      It != Overriders->end())
    for (const FunctionDecl *Overrider : It->second)
      if (!llvm::is_contained(Targets, Overrider))
        Targets.push_back(Overrider);
  return Targets;
}

const HazardPath *CallSummaries::findThroughCall(const CallExpr *Call,
                                                 HazardKind Kind) {
  for (const FunctionDecl *Target : targetsOf(Call))
    if (const HazardPath *Path = find(Target, Kind))
      return Path;
  return nullptr;
}

llvm::SmallVector<HazardPath, 4>
CallSummaries::findAllThroughCall(const CallExpr *Call, HazardKind Kind) {
  llvm::SmallVector<HazardPath, 4> Paths;
  for (const FunctionDecl *Target : targetsOf(Call))
    for (const HazardPath &Path : findAll(Target, Kind))
      addPath(Paths, Path);
  return Paths;
}

const CallSummaries::ParameterUpload *
CallSummaries::findParameterUpload(const FunctionDecl *Function) {
  summarize(Function);
  auto It = Uploads.find(Function);
  return It == Uploads.end() ? nullptr : &It->second;
}

const CallSummaries::Summary &
CallSummaries::summarize(const FunctionDecl *Function) {
  if (auto It = Summaries.find(Function); It != Summaries.end())
    return It->second;
  static const Summary Empty;
  if (!Function->hasBody() || !InProgress.insert(Function).second)
    return Empty; // recursion: the cycle adds nothing new

  ASTContext &Ctx = Devices.context();
  const SourceManager &SM = Ctx.getSourceManager();
  Summary Result;
  // A constructor's member initializers run before its body.
  std::vector<const CallExpr *> Calls;
  if (const auto *Constructor = dyn_cast<CXXConstructorDecl>(Function))
    for (const CXXCtorInitializer *Init : Constructor->inits())
      if (Init->isWritten())
        llvm::append_range(Calls, callsOutsideLambdas(Init->getInit()));
  llvm::append_range(Calls, callsOutsideLambdas(Function->getBody()));
  // A function that runs a step loop of its own (an epoch's batch loop, a
  // solver's iterations) does the rest of its work once per run of that
  // loop: for a loop that calls it, that is epoch-level work. What the step
  // loop does is reported at that loop, not again at each call.
  const Stmt *StepLoop = findStepLoopInside(Function, Ctx);
  // Only a pass over input (batches, frames: a range-for, a loop that trains
  // or that asks for the next item, `while (nextFrame(f))`) makes the work
  // around it rare: a solve or a simulation run to completion on every call
  // (iterate to convergence, relaunch until done) sets up and tears down
  // on every iteration of the loop that calls it.
  auto PassesOverInput = [&](const Stmt *Loop) {
    if (isa<CXXForRangeStmt>(Loop) || trainsInLoop(Loop, SM) ||
        streamsNewInput(Loop, Ctx))
      return true;
    const auto *While = dyn_cast<WhileStmt>(Loop);
    const Expr *Cond =
        While ? While->getCond()->IgnoreParenImpCasts() : nullptr;
    if (const auto *Not = dyn_cast_or_null<UnaryOperator>(Cond);
        Not && Not->getOpcode() == UO_LNot)
      Cond = Not->getSubExpr()->IgnoreParenImpCasts();
    const auto *Next = dyn_cast_or_null<CallExpr>(Cond);
    return Next && !classifyHazard(Next, Devices);
  };
  const bool RunsEpoch = StepLoop && PassesOverInput(StepLoop);
  auto AroundOrInStepLoop = [&](const Stmt *S,
                                const ExecutionFrequency &Frequency) {
    if (!StepLoop)
      return false;
    if (!Frequency.inLoop())
      return RunsEpoch;
    return isWithin(S, StepLoop, Ctx);
  };
  auto Full = [&](unsigned Slot) {
    return Result[Slot].size() >= MaxPathsPerKind;
  };
  for (const CallExpr *Call : Calls) {
    if (Full(0) && Full(1) && Full(2))
      break;
    // Work done only every N calls of a counter-guarded branch does not
    // happen on every call.
    ExecutionFrequency Frequency = analyzeFrequency(Call, Ctx);
    if (Frequency.Guard != GuardKind::None)
      continue;
    if (Frequency.isEpochLevel() || AroundOrInStepLoop(Call, Frequency))
      continue;
    // A read-back that decides when its loop in this function ends is the
    // necessary work of that loop (a convergence test), not a cost of
    // calling the function; one in a loop nested inside it is not.
    if (Frequency.inLoop() &&
        decidesLoopExit(Call, Frequency.Loops.front().Loop, Ctx))
      continue;
    if (std::optional<Hazard> H = classifyHazard(Call, Devices)) {
      // A wait beside a clock reading in a helper (record an event, wait for
      // it, read the elapsed time) is what the helper measures with.
      if (H->Kind == HazardKind::HostSync && isTimingStatement(Call, Ctx))
        continue;
      // A wait beside a blocking copy waits for what the copy waits for;
      // so does one that ends the function when its callers copy back
      // right after the call.
      if (waitsBesideBlockingTransfer(Call, Devices) ||
          (endsFunctionWithWait(Call, Ctx) &&
           callersTransferRightAfter(Function, Devices, nullptr)))
        continue;
      // An upload from a parameter is a cost of the call only when the
      // caller passes the same data on every iteration: kept apart, for the
      // caller's loop to judge.
      if (H->Kind == HazardKind::HostToDeviceCopy) {
        const VarDecl *Source = copiedVariable(H->Subject);
        if (std::optional<unsigned> Index = parameterIndex(Function, Source)) {
          if (!Uploads.count(Function))
            Uploads[Function] = ParameterUpload{*Index, HazardPath{*H, {Call}}};
        } else if (const FieldDecl *Member = uploadedMember(H->Subject);
                   holdsConstantValues(
                       Source ? Source : slicedBuffer(H->Subject), Ctx) ||
                   (Member && memberSetAtSetUp(Member, Function, Devices))) {
          // The same bytes on every call (a filter's weights computed from
          // constants, an anchor table the constructor built): a cost of
          // the call wherever it is called from.
          addPath(Result[slot(H->Kind)], HazardPath{*H, {Call}});
        }
        continue;
      }
      if (!ReportUnknownPlacement && !hasDevicePlacementEvidence(*H))
        continue;
      addPath(Result[slot(H->Kind)], HazardPath{*H, {Call}});
      continue;
    }
    for (const FunctionDecl *Target : targetsOf(Call)) {
      if (Target == Function)
        continue;
      const Summary &Inner = summarize(Target);
      for (unsigned I = 0; I < Inner.size(); ++I)
        for (const HazardPath &InnerPath : Inner[I]) {
          HazardPath Path{InnerPath.Operation, {Call}};
          Path.Steps.append(InnerPath.Steps.begin(), InnerPath.Steps.end());
          addPath(Result[I], std::move(Path));
        }
    }
    const FunctionDecl *Callee = definedCallee(Call, SM);
    if (!Callee || Callee == Function)
      continue;
    // A wrapper that hands its own parameter on to an uploading callee.
    if (auto It = Uploads.find(Callee);
        It != Uploads.end() && !Uploads.count(Function) &&
        It->second.Parameter < Call->getNumArgs())
      if (std::optional<unsigned> Index = parameterIndex(
              Function, copiedVariable(Call->getArg(It->second.Parameter)))) {
        HazardPath Path{It->second.Path.Operation, {Call}};
        Path.Steps.append(It->second.Path.Steps.begin(),
                          It->second.Path.Steps.end());
        Uploads[Function] = ParameterUpload{*Index, std::move(Path)};
      }
  }
  // Local objects whose constructor or destructor synchronizes (a scratch
  // buffer class allocating in its constructor): every call makes and
  // destroys them.
  if (!Full(slot(HazardKind::HostSync)))
    walkStmt(Function->getBody(), [&](const Stmt &S) {
      if (isa<LambdaExpr>(S))
        return WalkStep::SkipChildren;
      const auto *Declaration = dyn_cast<DeclStmt>(&S);
      if (!Declaration)
        return WalkStep::Continue;
      ExecutionFrequency Frequency = analyzeFrequency(Declaration, Ctx);
      if (Frequency.Guard != GuardKind::None || Frequency.isEpochLevel() ||
          AroundOrInStepLoop(Declaration, Frequency))
        return WalkStep::Continue;
      for (const Decl *D : Declaration->decls()) {
        const CXXRecordDecl *Class = localObjectClass(D);
        if (!Class ||
            SM.isInSystemHeader(SM.getExpansionLoc(Class->getLocation())))
          continue;
        const auto *Var = cast<VarDecl>(D);
        const auto *Construct = dyn_cast_or_null<CXXConstructExpr>(
            Var->getInit() ? Var->getInit()->IgnoreImplicit() : nullptr);
        for (const FunctionDecl *Runs :
             {static_cast<const FunctionDecl *>(
                  Construct ? Construct->getConstructor() : nullptr),
              static_cast<const FunctionDecl *>(Class->getDestructor())}) {
          if (!Runs || Runs == Function)
            continue;
          for (const HazardPath &Path :
               summarize(Runs)[slot(HazardKind::HostSync)])
            addPath(Result[slot(HazardKind::HostSync)], Path);
          if (Full(slot(HazardKind::HostSync)))
            return WalkStep::Stop;
        }
      }
      return WalkStep::Continue;
    });
  InProgress.erase(Function);
  return Summaries[Function] = std::move(Result);
}

bool CallSummaries::onlyWaits(const CallExpr *Call) {
  llvm::SmallVector<const FunctionDecl *, 2> Targets = targetsOf(Call);
  return !Targets.empty() &&
         llvm::all_of(Targets, [&](const FunctionDecl *Function) {
           llvm::ArrayRef<HazardPath> Waits =
               findAll(Function, HazardKind::HostSync);
           return !Waits.empty() &&
                  llvm::all_of(Waits,
                               [](const HazardPath &Path) {
                                 return isBareWait(Path.Steps.back());
                               }) &&
                  findAll(Function, HazardKind::DeviceToHostCopy).empty() &&
                  findAll(Function, HazardKind::HostToDeviceCopy).empty() &&
                  Function->getBody() &&
                  !queuesDeviceWork(Function->getBody(), Devices.context(),
                                    UnseenFunctions{});
         });
}

} // namespace clang::tidy::xfer
