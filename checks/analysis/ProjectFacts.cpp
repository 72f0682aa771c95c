//===--- ProjectFacts.cpp - facts about a program across translation units ===//

#include "analysis/ProjectFacts.h"
#include "analysis/ApiCatalogue.h"
#include "analysis/AstUtils.h"
#include "analysis/AstWalk.h"
#include "analysis/CallSummaries.h"
#include "analysis/CudaEvidence.h"
#include "analysis/LoopContext.h"
#include "analysis/StepFunctions.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <deque>
#include <mutex>

namespace clang::tidy::xfer {
namespace {

/// How the index names parameter \p Index of \p Function in
/// "movedParameters": "<function key>#<index>".
std::string movedParameterKey(const FunctionDecl *Function, unsigned Index) {
  return functionKey(Function) + "#" + std::to_string(Index);
}

} // namespace

namespace {

std::optional<Placement> placementFromName(llvm::StringRef Name) {
  for (Placement P : {Placement::Unknown, Placement::Cpu, Placement::PinnedCpu,
                      Placement::Cuda, Placement::MaybeCuda, Placement::Managed})
    if (placementName(P) == Name)
      return P;
  return std::nullopt;
}

/// Joins \p Next into \p Into where unknown adds nothing.
void joinKnown(Placement &Into, Placement Next) {
  if (Next == Placement::Unknown)
    return;
  Into = Into == Placement::Unknown ? Next : joinPlacements(Into, Next);
}

/// Calls \p Visit for every method \p Method overrides, directly or
/// through intermediate classes.
void forEachOverriddenMethod(
    const CXXMethodDecl *Method,
    llvm::function_ref<void(const CXXMethodDecl *)> Visit) {
  for (const CXXMethodDecl *Overridden : Method->overridden_methods()) {
    Visit(Overridden);
    forEachOverriddenMethod(Overridden, Visit);
  }
}

/// The key a function pointer of type \p Pointee (a function type) stands
/// for in the index: `(*)(int,float *)`, its parameter types as
/// functionKey() spells them.
std::string pointerKey(const FunctionProtoType *Pointee, ASTContext &Ctx) {
  std::string Key = "(*)(";
  const PrintingPolicy &Policy = Ctx.getPrintingPolicy();
  for (unsigned I = 0; I < Pointee->getNumParams(); ++I) {
    if (I > 0)
      Key += ",";
    Key += Pointee->getParamType(I)
               .getCanonicalType()
               .getUnqualifiedType()
               .getAsString(Policy);
  }
  return Key + ")";
}

/// The function type that a call through a pointer or a reference to a
/// function (a variable, a member: `filters[i].apply`) calls.
const FunctionProtoType *pointeeFunctionType(QualType Type) {
  Type = Type.getCanonicalType();
  if (const auto *Pointer = Type->getAs<PointerType>())
    Type = Pointer->getPointeeType();
  else if (const auto *Reference = Type->getAs<ReferenceType>())
    Type = Reference->getPointeeType();
  return Type->getAs<FunctionProtoType>();
}

/// The index key of what \p Call enters when it calls through a function
/// pointer (`kernel.function(frame, ...)`, `(*step)(x)`): none for a direct
/// call.
std::optional<std::string> indirectCallKey(const CallExpr *Call,
                                           ASTContext &Ctx) {
  if (Call->getDirectCallee() || isa<CXXMemberCallExpr>(Call) ||
      isa<CXXOperatorCallExpr>(Call) || isa<CUDAKernelCallExpr>(Call))
    return std::nullopt;
  const Expr *Called = Call->getCallee()->IgnoreParenImpCasts();
  if (const auto *Deref = dyn_cast<UnaryOperator>(Called);
      Deref && Deref->getOpcode() == UO_Deref)
    Called = Deref->getSubExpr()->IgnoreParenImpCasts();
  const FunctionProtoType *Pointee = pointeeFunctionType(Called->getType());
  if (!Pointee)
    return std::nullopt;
  return pointerKey(Pointee, Ctx);
}

/// The index key of a pointer to \p Function, a function of the program
/// (not a method, not a library's).
std::optional<std::string> functionPointerKey(const FunctionDecl *Function,
                                              ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  if (isa<CXXMethodDecl>(Function) ||
      SM.isInSystemHeader(SM.getExpansionLoc(Function->getLocation())))
    return std::nullopt;
  const auto *Type = Function->getType()->getAs<FunctionProtoType>();
  if (!Type)
    return std::nullopt;
  return pointerKey(Type, Ctx);
}

} // namespace

namespace {

/// The function whose body \p S is in, looking through lambdas (a lambda
/// runs where the function that writes it hands it): null at namespace
/// scope (a global's initializer).
const FunctionDecl *outermostFunction(const Stmt *S, ASTContext &Ctx) {
  DynTypedNodeList Parents = Ctx.getParents(*S);
  while (!Parents.empty()) {
    const DynTypedNode &P = Parents[0];
    if (const auto *Function = P.get<FunctionDecl>()) {
      const auto *Method = dyn_cast<CXXMethodDecl>(Function);
      if (!Method || !Method->getParent()->isLambda())
        return Function;
    }
    Parents = Ctx.getParents(P);
  }
  return nullptr;
}

} // namespace

std::string functionKey(const FunctionDecl *Function) {
  // Parameter types tell overloads apart (a class's copy and move
  // assignment); canonical, so typedefs spell the same in every file, and
  // without top-level qualifiers, which are not part of the function's type
  // (`f(const float x)` defines the `f(float x)` a header declares).
  std::string Key = Function->getQualifiedNameAsString() + "(";
  const PrintingPolicy &Policy = Function->getASTContext().getPrintingPolicy();
  for (const ParmVarDecl *Parameter : Function->parameters()) {
    if (Parameter->getFunctionScopeIndex() > 0)
      Key += ",";
    Key += Parameter->getType()
               .getCanonicalType()
               .getUnqualifiedType()
               .getAsString(Policy);
  }
  return Key + ")";
}

llvm::json::Value ProjectFacts::collect(ASTContext &Ctx,
                                        DeviceInference &Devices) {
  // Every call in user code to a function declared in user code, and every
  // construction and destruction of an object of a user class whose
  // constructor or destructor another file defines: a temporary filter
  // object built in a frame loop runs both on every frame, and only the
  // file that defines them can tell what they do.
  struct CallSite {
    const Stmt *Site;
    /// Null for a call through a function pointer: Key names the pointer's
    /// type, which stands for every function of that type whose address
    /// the program takes.
    const FunctionDecl *Callee;
    std::string Key;
  };
  llvm::SmallVector<CallSite, 64> Calls;
  llvm::SmallVector<const FunctionDecl *, 32> Definitions;
  const SourceManager &SM = Ctx.getSourceManager();
  auto InUserCode = [&](const FunctionDecl *Function) {
    return Function &&
           !SM.isInSystemHeader(SM.getExpansionLoc(Function->getLocation()));
  };
  auto DefinedElsewhere = [&](const FunctionDecl *Function) {
    return InUserCode(Function) && !Function->isImplicit() &&
           !Function->hasBody();
  };
  // Functions whose address the program takes (`{"cub", Blur_CUB}`), by
  // the key of their pointer type.
  llvm::SmallVector<std::pair<std::string, std::string>, 8> AddressTaken;
  auto AddDirect = [&](const Stmt *Site, const FunctionDecl *Callee) {
    Calls.push_back({Site, Callee, functionKey(Callee)});
  };
  // The names that calls call (`f` of `f(x)`), met before the names
  // themselves: naming a function anywhere else takes its address.
  llvm::DenseSet<const Expr *> CalledNames;
  auto OnStmt = [&](const Stmt &S) {
    if (const auto *Call = dyn_cast<CallExpr>(&S)) {
      CalledNames.insert(Call->getCallee()->IgnoreParenImpCasts());
      if (const FunctionDecl *Callee = stepCallee(Call); InUserCode(Callee))
        AddDirect(Call, Callee);
      else if (std::optional<std::string> Key = indirectCallKey(Call, Ctx))
        Calls.push_back({Call, nullptr, std::move(*Key)});
    } else if (const auto *Construct = dyn_cast<CXXConstructExpr>(&S)) {
      if (DefinedElsewhere(Construct->getConstructor()))
        AddDirect(Construct, Construct->getConstructor());
    } else if (const auto *Temporary = dyn_cast<CXXBindTemporaryExpr>(&S)) {
      if (const CXXDestructorDecl *Destructor =
              Temporary->getTemporary()->getDestructor();
          DefinedElsewhere(Destructor))
        AddDirect(Temporary, Destructor);
    } else if (const auto *Declaration = dyn_cast<DeclStmt>(&S)) {
      for (const Decl *D : Declaration->decls())
        if (const CXXRecordDecl *Class = localObjectClass(D);
            Class && DefinedElsewhere(Class->getDestructor()))
          AddDirect(Declaration, Class->getDestructor());
    } else if (const auto *Ref = dyn_cast<DeclRefExpr>(&S)) {
      if (const auto *Function = dyn_cast<FunctionDecl>(Ref->getDecl());
          Function && !CalledNames.contains(Ref))
        if (std::optional<std::string> Key = functionPointerKey(Function, Ctx))
          AddressTaken.emplace_back(std::move(*Key),
                                    functionKey(Function->getCanonicalDecl()));
    }
    return WalkStep::Continue;
  };
  auto OnDecl = [&](const Decl &D) {
    if (const auto *Function = dyn_cast<FunctionDecl>(&D);
        Function && Function->doesThisDeclarationHaveABody() &&
        !Function->isDependentContext())
      Definitions.push_back(Function);
    return WalkStep::Continue;
  };
  for (const Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (!SM.isInSystemHeader(D->getLocation()))
      walkDecl(
          D, OnStmt, OnDecl,
          WalkScope{/*LambdaBodies=*/true, /*TemplateInstantiations=*/true});

  ProjectFacts Facts;
  // Which functions defined elsewhere a search for device work reached;
  // they count as queuing none here, and the index decides.
  auto UnseenCalleeKeys = [&](const Stmt *Body, bool &QueuesWork) {
    llvm::SmallVector<const FunctionDecl *, 4> Unseen;
    QueuesWork =
        xfer::queuesDeviceWork(Body, Ctx, UnseenFunctions{nullptr, &Unseen});
    llvm::SmallVector<std::string, 2> Keys;
    if (!QueuesWork)
      for (const FunctionDecl *Function : Unseen)
        if (!llvm::is_contained(Keys, functionKey(Function)))
          Keys.push_back(functionKey(Function));
    return Keys;
  };
  // A virtual call may enter any override: the index links each method to
  // the overrides defined in the program, as if the method called them, so
  // a step loop calling `backend->step()` reaches `CudaBackend::step` in
  // another file.
  for (const FunctionDecl *Function : Definitions)
    if (const auto *Method = dyn_cast<CXXMethodDecl>(Function))
      forEachOverriddenMethod(Method, [&](const CXXMethodDecl *Overridden) {
        Facts.Calls.emplace_back(functionKey(Overridden), functionKey(Method));
        Facts.Reaches.emplace_back(functionKey(Overridden),
                                   functionKey(Method));
      });
  // What main reaches: every call, wherever it is; a function whose address
  // is taken, or that a global's initializer calls, may run from anywhere.
  // Library code calls some of the program's methods itself: a module's
  // forward (through `model(x)`), a functor's call operator (through an
  // algorithm or a thread), an override of a library's virtual method (a
  // dataset's get()).
  for (const FunctionDecl *Function : Definitions) {
    const auto *Method = dyn_cast<CXXMethodDecl>(Function);
    bool CalledByLibrary = false;
    if (Method) {
      CalledByLibrary =
          Method->getOverloadedOperator() == OO_Call ||
          (Method->getIdentifier() && Method->getName() == "forward");
      forEachOverriddenMethod(Method, [&](const CXXMethodDecl *Overridden) {
        CalledByLibrary |=
            SM.isInSystemHeader(SM.getExpansionLoc(Overridden->getLocation()));
      });
    }
    if (Function->isMain() || CalledByLibrary)
      Facts.EntryPoints.insert(functionKey(Function));
  }
  for (const auto &[PointerKey, FunctionKey] : AddressTaken)
    Facts.EntryPoints.insert(FunctionKey);
  for (const CallSite &Entry : Calls) {
    if (const FunctionDecl *From = outermostFunction(Entry.Site, Ctx))
      Facts.Reaches.emplace_back(functionKey(From), Entry.Key);
    else
      Facts.EntryPoints.insert(Entry.Key);
    // A call followed at once by a blocking copy: a wait the callee ends
    // with waits for nothing that copy does not.
    if (const auto *Call = dyn_cast<CallExpr>(Entry.Site); Call && Entry.Callee)
      Facts.FollowedByTransfer.try_emplace(Entry.Key, true).first->second &=
          isFollowedByBlockingTransfer(Call, Devices);
  }
  for (const FunctionDecl *Function : Definitions) {
    FunctionWork Work;
    Work.UnseenCallees = UnseenCalleeKeys(Function->getBody(), Work.QueuesWork);
    Facts.DefinedFunctions[functionKey(Function)] = std::move(Work);
  }
  // What a loop's own body shows, once per loop: many calls share it.
  llvm::DenseMap<const Stmt *, FunctionWork> LoopWorks;
  auto LoopWork = [&](const Stmt *Loop) -> const FunctionWork & {
    auto [It, Inserted] = LoopWorks.try_emplace(Loop);
    if (Inserted)
      It->second.UnseenCallees = UnseenCalleeKeys(Loop, It->second.QueuesWork);
    return It->second;
  };
  llvm::DenseMap<const Stmt *, LoopRole> Roles;
  auto RoleOf = [&](const Stmt *Loop) {
    auto [It, Inserted] = Roles.try_emplace(Loop, LoopRole::Steady);
    if (Inserted)
      It->second = classifyLoop(Loop, Ctx);
    return It->second;
  };
  llvm::DenseMap<const FunctionDecl *, bool> Training;
  auto RunsTraining = [&](const FunctionDecl *Function) {
    auto [It, Inserted] = Training.try_emplace(Function, false);
    if (Inserted)
      It->second = runsTrainingEpoch(Function, Ctx);
    return It->second;
  };
  CallSummaries Summaries(Devices, /*ReportUnknownPlacement=*/false);
  // A call through a pointer may enter any function of its type whose
  // address the program takes: the index links them as if the pointer's
  // type called them.
  for (const auto &[PointerKey, FunctionKey] : AddressTaken)
    Facts.Calls.emplace_back(PointerKey, FunctionKey);
  for (const CallSite &Entry : Calls) {
    const Stmt *Site = Entry.Site;
    const FunctionDecl *Callee = Entry.Callee;
    const std::string &CalleeKey = Entry.Key;
    // Which calls run on every step: on every iteration of a loop that
    // queues device work (not an evaluation pass), or unconditionally from
    // a function that does.
    ExecutionFrequency Frequency = analyzeFrequency(Site, Ctx);
    // Called from an evaluation pass (a metrics helper's loop over the
    // samples of each validation batch): periodic work, wherever it loops.
    if (llvm::any_of(Frequency.Loops, [&](const EnclosingLoop &L) {
          return RoleOf(L.Loop) == LoopRole::Evaluation;
        }))
      Facts.EvaluationCalls.insert(CalleeKey);
    // Beside a step loop (a call that runs the optimisation of each scale)
    // the call runs once per round of that loop: not on every step.
    if (Frequency.Guard == GuardKind::None && !Frequency.isEpochLevel()) {
      if (!Frequency.inLoop()) {
        // A function that runs a training loop of its own does the rest of
        // its work once per run (or epoch), however often it is called: its
        // calls outside that loop are not on its callers' steps.
        const FunctionDecl *Caller = enclosingFunction(Site, Ctx);
        if (Caller && !RunsTraining(Caller))
          Facts.Calls.emplace_back(functionKey(Caller), CalleeKey);
      } else if (llvm::any_of(Frequency.Loops,
                              [&](const EnclosingLoop &L) {
                                return RoleOf(L.Loop) == LoopRole::Steady;
                              }) &&
                 llvm::none_of(Frequency.Loops, [&](const EnclosingLoop &L) {
                   return RoleOf(L.Loop) == LoopRole::Evaluation;
                 })) {
        SourceLocation Loc =
            SM.getExpansionLoc(Frequency.Loops.front().Loop->getBeginLoc());
        std::string Where = (llvm::sys::path::filename(SM.getFilename(Loc)) +
                             ":" + llvm::Twine(SM.getExpansionLineNumber(Loc)))
                                .str();
        // A loop whose only device work would be in functions defined in
        // other files is a step loop if the index finds some there.
        ConditionalStep Conditional{Where, {}};
        bool Unconditional = false;
        for (const EnclosingLoop &L : Frequency.Loops) {
          if (RoleOf(L.Loop) != LoopRole::Steady)
            continue;
          const FunctionWork &Work = LoopWork(L.Loop);
          for (const std::string &Key : Work.UnseenCallees)
            if (!llvm::is_contained(Conditional.UnseenCallees, Key))
              Conditional.UnseenCallees.push_back(Key);
          Unconditional |= Work.QueuesWork;
        }
        // What a training loop's calls copy back serves logging or
        // metrics, not an application's output.
        if (trainsInLoop(Frequency.Loops.front().Loop, SM))
          Facts.TrainingLoops.insert(Where);
        // A loop that reads new input from outside the program on each
        // iteration (a video frame, an image file) is an application's
        // loop: what its calls copy back is the product it hands on.
        else if (readsNewInput(loopBody(Frequency.Loops.front().Loop), Ctx))
          Facts.InputLoops.insert(Where);
        // A helper that only waits, called beside a blocking copy, waits
        // for nothing the copy does not: not a step's cost.
        const auto *StepCall = dyn_cast<CallExpr>(Site);
        const bool WaitsForNothing =
            StepCall &&
            waitsBesideBlockingTransfer(StepCall, Devices,
                                        /*CallOnlyWaits=*/true) &&
            Summaries.onlyWaits(StepCall);
        if (const FunctionDecl *LoopFunction =
                outermostFunction(Frequency.Loops.front().Loop, Ctx))
          Facts.LoopFunctions.try_emplace(Where, functionKey(LoopFunction));
        if (!WaitsForNothing && Unconditional)
          Facts.StepCallSites.emplace_back(CalleeKey, std::move(Where));
        else if (!WaitsForNothing)
          Facts.ConditionalStepCalls.try_emplace(CalleeKey,
                                                 std::move(Conditional));
        if (!WaitsForNothing && StepCall && Callee)
          Facts.recordStepArguments(CalleeKey, StepCall, Callee, Ctx);
      }
    }
    const auto *Call = dyn_cast<CallExpr>(Site);
    if (!Call || !Callee || !Callee->getNumParams())
      continue;
    const unsigned First =
        isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) ? 1 : 0;
    llvm::SmallVector<Placement, 4> &Slots =
        Facts.Parameters[functionKey(Callee)];
    Slots.resize(std::max<size_t>(Slots.size(), Callee->getNumParams()),
                 Placement::Unknown);
    for (unsigned I = 0; I < Callee->getNumParams(); ++I)
      if (I + First < Call->getNumArgs())
        joinKnown(Slots[I], Devices.argumentPlacement(
                                Call->getArg(I + First),
                                Callee->getParamDecl(I)->getType()));
  }
  for (const FunctionDecl *Function : Definitions)
    if (isModuleForward(Function))
      for (unsigned I = 0; I < Function->getNumParams(); ++I)
        if (movesParameterItself(Function, I, Devices))
          Facts.MovedParameters.insert(movedParameterKey(Function, I));
  for (const FunctionDecl *Function : Definitions) {
    Placement Returned = Devices.returnPlacement(Function).Where;
    if (Returned != Placement::Unknown)
      joinKnown(Facts.Returns[functionKey(Function)], Returned);
  }
  for (const auto &[Field, Stored] : Devices.storedFieldPlacements())
    if (!SM.isInSystemHeader(Field->getLocation()))
      joinKnown(Facts.Fields[Field->getQualifiedNameAsString()], Stored);
  Facts.UsesCuda = findCudaEvidence(Ctx).Found;
  return Facts.toJSON();
}

void ProjectFacts::propagateWork() {
  // Least fixed point: a function queues work if its own file shows so, or
  // one of the functions it calls that are defined elsewhere does; one that
  // no file defines may.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto &Entry : DefinedFunctions) {
      FunctionWork &Work = Entry.second;
      if (Work.QueuesWork)
        continue;
      Work.QueuesWork =
          llvm::any_of(Work.UnseenCallees,
                       [&](llvm::StringRef Key) { return mayQueueWork(Key); });
      Changed |= Work.QueuesWork;
    }
  }
}

bool ProjectFacts::mayQueueWork(llvm::StringRef Key) const {
  auto It = DefinedFunctions.find(Key);
  if (It != DefinedFunctions.end())
    return It->second.QueuesWork;
  // Defined in no file: it may launch, unless its name says it releases
  // resources or checks errors (the key is "<qualified name>/<arity>").
  llvm::StringRef Name = Key.rsplit('/').first.rsplit("::").second;
  if (Name.empty())
    Name = Key.rsplit('/').first;
  return !namesWorkFreeHelper(Name);
}

std::optional<bool>
ProjectFacts::queuesDeviceWork(const FunctionDecl *Function) const {
  auto It = DefinedFunctions.find(functionKey(Function));
  if (It == DefinedFunctions.end())
    return std::nullopt;
  return It->second.QueuesWork;
}

namespace {

/// The callees of each caller in \p Edges (caller key, callee key).
llvm::StringMap<llvm::SmallVector<llvm::StringRef, 4>>
calleesByCaller(llvm::ArrayRef<std::pair<std::string, std::string>> Edges) {
  llvm::StringMap<llvm::SmallVector<llvm::StringRef, 4>> Callees;
  for (const auto &[Caller, Callee] : Edges)
    Callees[Caller].push_back(Callee);
  return Callees;
}

} // namespace

void ProjectFacts::findReachable() {
  Reachable.clear();
  HasMain = llvm::any_of(EntryPoints, [](const auto &Entry) {
    return Entry.first().starts_with("main(");
  });
  if (!HasMain)
    return;
  const auto Callees = calleesByCaller(Reaches);
  std::deque<std::string> Work;
  for (const auto &Entry : EntryPoints)
    if (Reachable.insert(Entry.first()).second)
      Work.push_back(Entry.first().str());
  while (!Work.empty()) {
    std::string Key = std::move(Work.front());
    Work.pop_front();
    auto It = Callees.find(Key);
    if (It == Callees.end())
      continue;
    for (llvm::StringRef Callee : It->second)
      if (Reachable.insert(Callee).second)
        Work.push_back(Callee.str());
  }
}

bool ProjectFacts::mayRun(const Stmt *S, ASTContext &Ctx) const {
  if (!HasMain)
    return true;
  const FunctionDecl *Function = outermostFunction(S, Ctx);
  return !Function || Reachable.contains(functionKey(Function));
}

bool ProjectFacts::loopMayRun(llvm::StringRef Loop) const {
  if (!HasMain)
    return true;
  auto It = LoopFunctions.find(Loop);
  return It == LoopFunctions.end() || Reachable.contains(It->second);
}

void ProjectFacts::propagateSteps() {
  Steps.clear();
  CalledFromSteps.clear();
  findReachable();
  // The first loop that calls each function on every iteration; a loop in
  // a function main never reaches drives nothing.
  llvm::StringMap<std::string> Seeds;
  for (const auto &[Callee, Loop] : StepCallSites)
    if (loopMayRun(Loop))
      Seeds.try_emplace(Callee, Loop);
  for (const auto &Entry : ConditionalStepCalls)
    if (loopMayRun(Entry.second.Loop) &&
        llvm::any_of(Entry.second.UnseenCallees,
                     [&](llvm::StringRef Key) { return mayQueueWork(Key); }))
      Seeds.try_emplace(Entry.first(), Entry.second.Loop);
  const auto Callees = calleesByCaller(Calls);
  // Breadth first from the functions loops call: each function keeps the
  // loop it is reached from first.
  std::deque<std::string> Work;
  for (const auto &Entry : Seeds) {
    Steps[Entry.first()] = StepOrigin{Entry.second};
    Work.push_back(Entry.first().str());
  }
  while (!Work.empty()) {
    std::string Key = std::move(Work.front());
    Work.pop_front();
    auto It = Callees.find(Key);
    if (It == Callees.end())
      continue;
    const std::string Loop = Steps[Key].Loop;
    for (llvm::StringRef Callee : It->second) {
      CalledFromSteps.insert(Callee);
      if (Steps.try_emplace(Callee, StepOrigin{Loop}).second)
        Work.push_back(Callee.str());
    }
  }
}

bool ProjectFacts::calledOnlyInEvaluation(const FunctionDecl *Function) const {
  return EvaluationCalls.contains(functionKey(Function)) &&
         !stepOrigin(Function);
}

bool ProjectFacts::drivenByTraining(const FunctionDecl *Function) const {
  const StepOrigin *Origin = stepOrigin(Function);
  return Origin && TrainingLoops.contains(Origin->Loop);
}

bool ProjectFacts::drivenByNewInput(const FunctionDecl *Function) const {
  const StepOrigin *Origin = stepOrigin(Function);
  return Origin && InputLoops.contains(Origin->Loop);
}

std::optional<bool>
ProjectFacts::callsFollowedByTransfer(const FunctionDecl *Function) const {
  auto It = FollowedByTransfer.find(functionKey(Function));
  return It == FollowedByTransfer.end() ? std::nullopt
                                        : std::optional<bool>(It->second);
}

const StepOrigin *ProjectFacts::stepOrigin(const FunctionDecl *Function) const {
  auto It = Steps.find(functionKey(Function));
  return It == Steps.end() ? nullptr : &It->second;
}

bool movesParameterItself(const FunctionDecl *Function, unsigned Index,
                          DeviceInference &Devices) {
  const FunctionDecl *Definition =
      Function ? Function->getDefinition() : nullptr;
  if (!Definition || !Definition->getBody() ||
      Index >= Definition->getNumParams())
    return false;
  const ParmVarDecl *Param = Definition->getParamDecl(Index);
  return containsMatch<CallExpr>(
      Definition->getBody(), [&](const CallExpr &Call) {
        std::optional<TorchCall> Move = identifyTorchCall(&Call);
        if (!Move || !Move->Subject ||
            (Move->Op != TorchOp::Cuda &&
             !(Move->Op == TorchOp::To && Call.getNumArgs() > 0 &&
               Devices.deviceValue(Call.getArg(0)))))
          return false;
        const auto *Ref =
            dyn_cast<DeclRefExpr>(Move->Subject->IgnoreParenImpCasts());
        return Ref && Ref->getDecl() == Param;
      });
}

bool ProjectFacts::movesParameter(const FunctionDecl *Function,
                                  unsigned Index) const {
  return MovedParameters.contains(movedParameterKey(Function, Index));
}

void ProjectFacts::recordStepArguments(llvm::StringRef CalleeKey,
                                       const CallExpr *Call,
                                       const FunctionDecl *Callee,
                                       const ASTContext &Ctx) {
  const unsigned First =
      isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) ? 1 : 0;
  llvm::SmallVector<ArgumentValues, 4> Values(Callee->getNumParams());
  for (unsigned I = 0; I < Callee->getNumParams(); ++I) {
    const Expr *Arg =
        I + First < Call->getNumArgs() ? Call->getArg(I + First) : nullptr;
    if (const auto *Default = dyn_cast_or_null<CXXDefaultArgExpr>(Arg))
      Arg = Default->getExpr();
    std::optional<int64_t> Value =
        Arg && Arg->getType()->isIntegralOrEnumerationType()
            ? evaluateInt(Arg, Ctx)
            : std::nullopt;
    if (Value)
      Values[I].Constants.push_back(*Value);
    else
      Values[I].Varies = true;
  }
  mergeStepArguments(CalleeKey, Values);
}

void ProjectFacts::mergeStepArguments(llvm::StringRef CalleeKey,
                                      llvm::ArrayRef<ArgumentValues> Values) {
  auto [It, Inserted] = StepArguments.try_emplace(CalleeKey);
  llvm::SmallVector<ArgumentValues, 4> &Into = It->second;
  if (Inserted) {
    Into.assign(Values.begin(), Values.end());
    return;
  }
  // Calls that disagree on the number of arguments (overloads sharing a
  // key cannot): whatever is not known everywhere varies.
  if (Into.size() != Values.size()) {
    Into.resize(std::min(Into.size(), Values.size()));
    for (ArgumentValues &Slot : Into)
      Slot.Varies = true;
    return;
  }
  for (size_t I = 0; I < Values.size(); ++I) {
    Into[I].Varies |= Values[I].Varies;
    for (int64_t Constant : Values[I].Constants)
      if (!llvm::is_contained(Into[I].Constants, Constant))
        Into[I].Constants.push_back(Constant);
  }
}

std::optional<llvm::ArrayRef<int64_t>>
ProjectFacts::stepArgumentValues(const FunctionDecl *Function,
                                 unsigned Index) const {
  const std::string Key = functionKey(Function);
  auto It = StepArguments.find(Key);
  // Reached from another step function as well (an unconditional call
  // outside loops), it may be passed anything.
  if (It == StepArguments.end() || Index >= It->second.size() ||
      It->second[Index].Varies || CalledFromSteps.contains(Key))
    return std::nullopt;
  return llvm::ArrayRef<int64_t>(It->second[Index].Constants);
}

void ProjectFacts::merge(const llvm::json::Value &TranslationUnit) {
  const llvm::json::Object *Object = TranslationUnit.getAsObject();
  if (!Object)
    return;
  if (std::optional<bool> Cuda = Object->getBoolean("usesCuda"))
    UsesCuda |= *Cuda;
  if (const llvm::json::Object *Arguments = Object->getObject("stepArguments"))
    for (const auto &[Key, Value] : *Arguments)
      if (const llvm::json::Array *Slots = Value.getAsArray()) {
        llvm::SmallVector<ArgumentValues, 4> Values(Slots->size());
        for (size_t I = 0; I < Slots->size(); ++I) {
          const llvm::json::Array *Constants = (*Slots)[I].getAsArray();
          Values[I].Varies = !Constants;
          if (Constants) {
            for (const llvm::json::Value &Constant : *Constants) {
              if (std::optional<int64_t> Number = Constant.getAsInteger())
                Values[I].Constants.push_back(*Number);
              else
                Values[I].Varies = true;
            }
          }
        }
        mergeStepArguments(Key, Values);
      }
  if (const llvm::json::Array *Evaluation = Object->getArray("evaluationCalls"))
    for (const llvm::json::Value &Key : *Evaluation)
      if (std::optional<llvm::StringRef> Name = Key.getAsString())
        EvaluationCalls.insert(*Name);
  if (const llvm::json::Array *Moved = Object->getArray("movedParameters"))
    for (const llvm::json::Value &Key : *Moved)
      if (std::optional<llvm::StringRef> Name = Key.getAsString())
        MovedParameters.insert(*Name);
  if (const llvm::json::Array *Training = Object->getArray("trainingLoops"))
    for (const llvm::json::Value &Loop : *Training)
      if (std::optional<llvm::StringRef> Where = Loop.getAsString())
        TrainingLoops.insert(*Where);
  if (const llvm::json::Array *Input = Object->getArray("inputLoops"))
    for (const llvm::json::Value &Loop : *Input)
      if (std::optional<llvm::StringRef> Where = Loop.getAsString())
        InputLoops.insert(*Where);
  auto ReadKeys = [](const llvm::json::Object &From) {
    llvm::SmallVector<std::string, 2> Keys;
    if (const llvm::json::Array *Array = From.getArray("unseenCallees"))
      for (const llvm::json::Value &Key : *Array)
        if (std::optional<llvm::StringRef> Name = Key.getAsString())
          Keys.push_back(Name->str());
    return Keys;
  };
  if (const llvm::json::Object *Conditional =
          Object->getObject("stepCallsIfWork"))
    for (const auto &[Key, Value] : *Conditional)
      if (const llvm::json::Object *Step = Value.getAsObject())
        if (std::optional<llvm::StringRef> Loop = Step->getString("loop"))
          ConditionalStepCalls.try_emplace(
              Key.str(), ConditionalStep{Loop->str(), ReadKeys(*Step)});
  if (const llvm::json::Object *Defined = Object->getObject("functions"))
    for (const auto &[Key, Value] : *Defined)
      if (const llvm::json::Object *Work = Value.getAsObject()) {
        // A function defined in a header is seen by several files: it
        // queues work if any of them shows so.
        FunctionWork &Into = DefinedFunctions[Key.str()];
        Into.QueuesWork |= Work->getBoolean("queuesWork").value_or(true);
        for (std::string &Callee : ReadKeys(*Work))
          if (!llvm::is_contained(Into.UnseenCallees, Callee))
            Into.UnseenCallees.push_back(std::move(Callee));
      }
  auto ReadPairs = [&](llvm::StringRef Name,
                       std::vector<std::pair<std::string, std::string>> &Into) {
    if (const llvm::json::Array *Edges = Object->getArray(Name))
      for (const llvm::json::Value &Edge : *Edges)
        if (const llvm::json::Array *Pair = Edge.getAsArray();
            Pair && Pair->size() == 2 && (*Pair)[0].getAsString() &&
            (*Pair)[1].getAsString())
          Into.emplace_back((*Pair)[0].getAsString()->str(),
                            (*Pair)[1].getAsString()->str());
  };
  ReadPairs("calls", Calls);
  ReadPairs("reaches", Reaches);
  ReadPairs("stepCalls", StepCallSites);
  if (const llvm::json::Array *Entries = Object->getArray("entryPoints"))
    for (const llvm::json::Value &Entry : *Entries)
      if (std::optional<llvm::StringRef> Key = Entry.getAsString())
        EntryPoints.insert(*Key);
  if (const llvm::json::Object *Followed =
          Object->getObject("followedByTransfer"))
    for (const auto &[Key, Value] : *Followed)
      if (std::optional<bool> Each = Value.getAsBoolean())
        FollowedByTransfer.try_emplace(Key.str(), true).first->second &= *Each;
  if (const llvm::json::Object *Loops = Object->getObject("loopFunctions"))
    for (const auto &[Loop, Function] : *Loops)
      if (std::optional<llvm::StringRef> Key = Function.getAsString())
        LoopFunctions.try_emplace(Loop.str(), Key->str());
  auto ReadPlacements = [](const llvm::json::Object *From,
                           llvm::StringMap<Placement> &Into) {
    if (!From)
      return;
    for (const auto &[Key, Value] : *From)
      if (std::optional<llvm::StringRef> Name = Value.getAsString())
        if (std::optional<Placement> P = placementFromName(*Name))
          joinKnown(Into[Key.str()], *P);
  };
  ReadPlacements(Object->getObject("returns"), Returns);
  ReadPlacements(Object->getObject("fields"), Fields);
  const llvm::json::Object *Functions = Object->getObject("parameters");
  if (!Functions)
    return;
  for (const auto &[Key, Value] : *Functions) {
    const llvm::json::Array *Placements = Value.getAsArray();
    if (!Placements)
      continue;
    llvm::SmallVector<Placement, 4> &Slots = Parameters[Key.str()];
    Slots.resize(std::max(Slots.size(), Placements->size()),
                 Placement::Unknown);
    for (size_t I = 0; I < Placements->size(); ++I)
      if (std::optional<llvm::StringRef> Name = (*Placements)[I].getAsString())
        if (std::optional<Placement> P = placementFromName(*Name))
          joinKnown(Slots[I], *P);
  }
}

llvm::json::Value ProjectFacts::toJSON() const {
  llvm::json::Object Functions;
  for (const auto &Entry : Parameters) {
    if (llvm::all_of(Entry.second,
                     [](Placement P) { return P == Placement::Unknown; }))
      continue;
    llvm::json::Array Placements;
    for (Placement P : Entry.second)
      Placements.push_back(P == Placement::Unknown
                               ? llvm::json::Value(nullptr)
                               : llvm::json::Value(placementName(P)));
    Functions[Entry.first().str()] = std::move(Placements); // owned key
  }
  auto WriteKeys = [](llvm::ArrayRef<std::string> Keys) {
    llvm::json::Array Array;
    for (const std::string &Key : Keys)
      Array.push_back(Key);
    return Array;
  };
  llvm::json::Object Conditional;
  for (const auto &Entry : ConditionalStepCalls)
    Conditional[Entry.first().str()] = llvm::json::Object{
        {"loop", Entry.second.Loop},
        {"unseenCallees", WriteKeys(Entry.second.UnseenCallees)}};
  llvm::json::Object Defined;
  for (const auto &Entry : DefinedFunctions)
    Defined[Entry.first().str()] = llvm::json::Object{
        {"queuesWork", Entry.second.QueuesWork},
        {"unseenCallees", WriteKeys(Entry.second.UnseenCallees)}};
  llvm::json::Array Training;
  for (const auto &Entry : TrainingLoops)
    Training.push_back(Entry.first().str());
  llvm::json::Array Input;
  for (const auto &Entry : InputLoops)
    Input.push_back(Entry.first().str());
  llvm::json::Array Evaluation;
  for (const auto &Entry : EvaluationCalls)
    Evaluation.push_back(Entry.first().str());
  llvm::json::Array Moved;
  for (const auto &Entry : MovedParameters)
    Moved.push_back(Entry.first().str());
  auto WritePairs =
      [](llvm::ArrayRef<std::pair<std::string, std::string>> Pairs) {
        llvm::json::Array Array;
        for (const auto &[First, Second] : Pairs)
          Array.push_back(llvm::json::Array{First, Second});
        return Array;
      };
  llvm::json::Array Entries;
  for (const auto &Entry : EntryPoints)
    Entries.push_back(Entry.first().str());
  llvm::json::Object Loops;
  for (const auto &Entry : LoopFunctions)
    Loops[Entry.first().str()] = Entry.second;
  llvm::json::Object Followed;
  for (const auto &Entry : FollowedByTransfer)
    Followed[Entry.first().str()] = Entry.second;
  llvm::json::Object Arguments;
  for (const auto &Entry : StepArguments) {
    llvm::json::Array Slots;
    for (const ArgumentValues &Slot : Entry.second) {
      if (Slot.Varies) {
        Slots.push_back(nullptr);
        continue;
      }
      llvm::json::Array Constants;
      for (int64_t Constant : Slot.Constants)
        Constants.push_back(Constant);
      Slots.push_back(std::move(Constants));
    }
    Arguments[Entry.first().str()] = std::move(Slots);
  }
  auto WritePlacements = [](const llvm::StringMap<Placement> &From) {
    llvm::json::Object Placements;
    for (const auto &Entry : From)
      if (Entry.second != Placement::Unknown)
        Placements[Entry.first().str()] = placementName(Entry.second);
    return Placements;
  };
  return llvm::json::Object{{"version", 1},
                            {"returns", WritePlacements(Returns)},
                            {"fields", WritePlacements(Fields)},
                            {"usesCuda", UsesCuda},
                            {"parameters", std::move(Functions)},
                            {"stepCalls", WritePairs(StepCallSites)},
                            {"stepCallsIfWork", std::move(Conditional)},
                            {"stepArguments", std::move(Arguments)},
                            {"trainingLoops", std::move(Training)},
                            {"inputLoops", std::move(Input)},
                            {"evaluationCalls", std::move(Evaluation)},
                            {"movedParameters", std::move(Moved)},
                            {"functions", std::move(Defined)},
                            {"calls", WritePairs(Calls)},
                            {"reaches", WritePairs(Reaches)},
                            {"entryPoints", std::move(Entries)},
                            {"loopFunctions", std::move(Loops)},
                            {"followedByTransfer", std::move(Followed)}};
}

llvm::Expected<std::shared_ptr<const ProjectFacts>>
ProjectFacts::load(llvm::StringRef Path) {
  static std::mutex Mutex;
  static llvm::StringMap<std::shared_ptr<const ProjectFacts>> Loaded;
  std::lock_guard<std::mutex> Lock(Mutex);
  if (auto It = Loaded.find(Path); It != Loaded.end())
    return It->second;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path);
  if (!Buffer)
    return llvm::createStringError(Buffer.getError(),
                                   "%s: %s", Path.str().c_str(),
                                   Buffer.getError().message().c_str());
  llvm::Expected<llvm::json::Value> Json =
      llvm::json::parse((*Buffer)->getBuffer());
  if (!Json)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s: %s", Path.str().c_str(),
                                   llvm::toString(Json.takeError()).c_str());
  const llvm::json::Object *Object = Json->getAsObject();
  if (!Object || Object->getInteger("version") != 1)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "%s: not a version 1 project index",
                                   Path.str().c_str());
  auto Facts = std::make_shared<ProjectFacts>();
  Facts->merge(*Json);
  Facts->propagateWork();
  Facts->propagateSteps();
  Loaded[Path] = Facts;
  return Facts;
}

std::shared_ptr<const ProjectFacts>
ProjectFacts::ofTranslationUnit(ASTContext &Ctx, DeviceInference &Devices) {
  auto Facts = std::make_shared<ProjectFacts>();
  Facts->merge(collect(Ctx, Devices));
  Facts->propagateWork();
  Facts->propagateSteps();
  return Facts;
}

std::shared_ptr<const ProjectFacts>
ProjectFacts::loadOption(llvm::StringRef Path,
                         llvm::function_ref<void(llvm::Error)> OnError) {
  if (Path.empty())
    return nullptr;
  llvm::Expected<std::shared_ptr<const ProjectFacts>> Loaded = load(Path);
  if (Loaded)
    return *Loaded;
  OnError(Loaded.takeError());
  return nullptr;
}

std::shared_ptr<const ProjectFacts>
ProjectFacts::loadOption(llvm::StringRef Path) {
  return loadOption(Path, [](llvm::Error Failed) {
    llvm::consumeError(std::move(Failed));
  });
}

std::optional<Placement> ProjectFacts::parameter(const FunctionDecl *Function,
                                                 unsigned Index) const {
  auto It = Parameters.find(functionKey(Function));
  if (It == Parameters.end() || Index >= It->second.size() ||
      It->second[Index] == Placement::Unknown)
    return std::nullopt;
  return It->second[Index];
}

std::optional<Placement>
ProjectFacts::returnPlacement(const FunctionDecl *Function) const {
  auto It = Returns.find(functionKey(Function));
  if (It == Returns.end() || It->second == Placement::Unknown)
    return std::nullopt;
  return It->second;
}

std::optional<Placement>
ProjectFacts::fieldPlacement(const FieldDecl *Field) const {
  auto It = Fields.find(Field->getQualifiedNameAsString());
  if (It == Fields.end() || It->second == Placement::Unknown)
    return std::nullopt;
  return It->second;
}

} // namespace clang::tidy::xfer
