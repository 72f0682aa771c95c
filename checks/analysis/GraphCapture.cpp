//===--- GraphCapture.cpp - one loop iteration as a CUDA graph sees it ----===//

#include "analysis/GraphCapture.h"
#include "analysis/ApiCatalogue.h"
#include "analysis/AstUtils.h"
#include "analysis/AstWalk.h"
#include "analysis/TransferHazards.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::xfer {
namespace {

/// The direction of a cudaMemcpy* call when its kind argument is a
/// constant, for the synchronous and asynchronous variants alike.
std::optional<MemcpyDirection> copyDirection(const CallExpr *Call,
                                             const ASTContext &Ctx) {
  std::optional<CudaApi> Api = identifyCudaCall(Call);
  if (!Api)
    return std::nullopt;
  if (*Api == CudaApi::MemcpyPeer || *Api == CudaApi::MemcpyPeerAsync)
    return MemcpyDirection::DeviceToDevice;
  std::optional<unsigned> KindIndex = memcpyKindArgIndex(*Api);
  if (!KindIndex || *KindIndex >= Call->getNumArgs())
    return std::nullopt;
  return evaluateMemcpyKind(Call->getArg(*KindIndex), Ctx);
}

bool isAllocation(CudaApi Api) {
  switch (Api) {
  case CudaApi::Malloc:
  case CudaApi::MallocManaged:
  case CudaApi::MallocHost:
  case CudaApi::HostAlloc:
  case CudaApi::HostRegister:
  case CudaApi::Free:
  case CudaApi::FreeHost:
    return true;
  default:
    return false;
  }
}

/// kernel<<<...>>>, cudaLaunchKernel and its extended variants.
std::optional<LaunchSite::SiteKind> kernelLaunchKind(const CallExpr *Call) {
  if (isa<CUDAKernelCallExpr>(Call))
    return LaunchSite::Kernel;
  if (std::optional<CudaApi> Api = identifyCudaCall(Call);
      Api && *Api == CudaApi::LaunchKernel)
    return LaunchSite::LaunchKernel;
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (Callee && Callee->getIdentifier() &&
      Callee->getDeclContext()->getRedeclContext()->isTranslationUnit() &&
      llvm::StringSwitch<bool>(Callee->getName())
          .Cases("cudaLaunchKernelEx", "cudaLaunchKernelExC",
                 "cudaLaunchCooperativeKernel", true)
          .Default(false))
    return LaunchSite::LaunchKernel;
  return std::nullopt;
}

/// LibTorch calls whose arguments are sizes: factories and reshaping.
bool takesSizes(const CallExpr *Call, llvm::StringRef Name) {
  if (std::optional<TorchCall> Torch = identifyTorchCall(Call))
    return Torch->Op == TorchOp::Factory;
  return llvm::StringSwitch<bool>(Name)
      .Cases("view", "reshape", "expand", "narrow", "resize_", "repeat", true)
      .Cases("new_zeros", "new_ones", "new_empty", "new_full", "slice", true)
      .Default(false);
}

/// The size arguments of \p Call (all of them but the tensor operands).
llvm::SmallVector<const Expr *, 4> sizeArguments(const CallExpr *Call) {
  llvm::SmallVector<const Expr *, 4> Sizes;
  if (std::optional<TorchCall> Torch = identifyTorchCall(Call);
      Torch && Torch->Op == TorchOp::Factory) {
    if (Call->getNumArgs() > 0 && !isTensorType(Call->getArg(0)->getType()))
      Sizes.push_back(Call->getArg(0)); // zeros({n, m}); zeros_like(t)
    return Sizes;
  }
  for (const Expr *Arg : Call->arguments())
    if (!isTensorType(Arg->getType()) && !isa<CXXDefaultArgExpr>(Arg))
      Sizes.push_back(Arg);
  return Sizes;
}

std::string sourceText(const Expr *E, const ASTContext &Ctx) {
  return Lexer::getSourceText(
             CharSourceRange::getTokenRange(E->getSourceRange()),
             Ctx.getSourceManager(), Ctx.getLangOpts())
      .str();
}

/// How diagnostics name a LibTorch operation: "matmul()", "operator+",
/// "at::relu()", "fc()" for a module called as a function.
std::string torchOperationSpelling(const CallExpr *Call,
                                   const FunctionDecl *Callee,
                                   const ASTContext &Ctx) {
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call)) {
    if (Operator->getOperator() == OO_Call && Operator->getNumArgs() > 0)
      return sourceText(Operator->getArg(0), Ctx) + "()";
    return std::string("operator") +
           getOperatorSpelling(Operator->getOperator());
  }
  if (isa<CXXMethodDecl>(Callee))
    return Callee->getNameAsString() + "()";
  return Callee->getQualifiedNameAsString() + "()";
}

/// `optimizer.step()` of a torch::optim optimizer or learning-rate
/// scheduler that keeps state on the host: the step count and bias
/// correction of Adam and friends, a scheduler's learning rate. A replay
/// would reuse the values captured on the first step. SGD's step reads
/// nothing of the kind. Returns the name for diagnostics.
std::optional<std::string> hostStateOptimizerStep(const CallExpr *Call) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Member || !Callee || !Callee->getIdentifier() ||
      Callee->getName() != "step")
    return std::nullopt;
  // The object's own static type, not the class step() is declared in:
  // SGD may inherit it from Optimizer.
  QualType Object =
      Member->getImplicitObjectArgument()->IgnoreParenImpCasts()->getType();
  if (Object->isPointerType())
    Object = Object->getPointeeType();
  const CXXRecordDecl *Class = Object->getAsCXXRecordDecl();
  if (!Class || !Class->getIdentifier() || !isInTorchNamespace(Class))
    return std::nullopt;
  const auto *Namespace = dyn_cast<NamespaceDecl>(Class->getDeclContext());
  if (!Namespace || Namespace->getName() != "optim" ||
      Class->getName() == "SGD")
    return std::nullopt;
  return "torch::optim::" + Class->getName().str() + "::step()";
}

/// The condition of a branch or loop statement, if it has one.
const Expr *conditionOf(const Stmt *S) {
  if (const auto *If = dyn_cast<IfStmt>(S))
    return If->getCond();
  if (const auto *For = dyn_cast<ForStmt>(S))
    return For->getCond();
  if (const auto *While = dyn_cast<WhileStmt>(S))
    return While->getCond();
  if (const auto *Do = dyn_cast<DoStmt>(S))
    return Do->getCond();
  if (const auto *Switch = dyn_cast<SwitchStmt>(S))
    return Switch->getCond();
  if (const auto *Conditional = dyn_cast<AbstractConditionalOperator>(S))
    return Conditional->getCond();
  return nullptr;
}

/// True if \p Child of \p Parent runs only when the condition of \p Parent
/// says so: a branch of an if, switch or conditional operator.
bool isBranchOf(const Stmt *Child, const Stmt *Parent) {
  if (const auto *If = dyn_cast<IfStmt>(Parent))
    return Child == If->getThen() || Child == If->getElse();
  if (const auto *Switch = dyn_cast<SwitchStmt>(Parent))
    return Child == Switch->getBody();
  if (const auto *Conditional = dyn_cast<AbstractConditionalOperator>(Parent))
    return Child == Conditional->getTrueExpr() ||
           Child == Conditional->getFalseExpr();
  return false;
}

/// True if \p Loc lies within the source range of \p S.
bool isInside(SourceLocation Loc, const Stmt *S, const SourceManager &SM) {
  if (!S)
    return false;
  SourceLocation Begin = SM.getExpansionLoc(S->getBeginLoc());
  SourceLocation End = SM.getExpansionLoc(S->getEndLoc());
  Loc = SM.getExpansionLoc(Loc);
  return Loc == Begin || (SM.isBeforeInTranslationUnit(Begin, Loc) &&
                          !SM.isBeforeInTranslationUnit(End, Loc));
}

/// True if \p S belongs to what \p Loop repeats: its body, condition or
/// increment, not its init.
bool isInRepeatedPart(const Stmt *S, const Stmt *Loop, ASTContext &Ctx) {
  const Stmt *Child = S;
  for (const Stmt *P = parentStmt(S, Ctx); P; Child = P, P = parentStmt(P, Ctx))
    if (P == Loop)
      return isRepeatedPartOfLoop(Child, Loop);
  return false;
}

/// The statements of a function or loop that matter to a capture, in
/// source order, not descending into lambdas (a lambda's body runs where it
/// is called).
struct CollectedStatements {
  std::vector<const CallExpr *> Calls;
  std::vector<const Stmt *> Branches;
};

CollectedStatements collectStatements(const Stmt *Root) {
  CollectedStatements Out;
  walkStmt(Root, [&](const Stmt &S) {
    if (isa<LambdaExpr>(S))
      return WalkStep::SkipChildren;
    if (isa<IfStmt, ForStmt, WhileStmt, DoStmt, SwitchStmt>(S))
      Out.Branches.push_back(&S);
    if (const auto *Call = dyn_cast<CallExpr>(&S))
      Out.Calls.push_back(Call);
    return WalkStep::Continue;
  });
  return Out;
}

} // namespace

/// Every write of a variable in a function body.
class GraphCaptureAnalysis::DefinitionCollector {
public:
  DefinitionCollector(DeviceInference &Devices) : Devices(Devices) {}

  WalkStep visit(const Stmt &S) {
    if (isa<LambdaExpr>(S))
      return WalkStep::SkipChildren;
    if (const auto *Decls = dyn_cast<DeclStmt>(&S))
      visitDeclStmt(Decls);
    else if (const auto *Assign = dyn_cast<BinaryOperator>(&S))
      visitBinaryOperator(Assign);
    else if (const auto *Step = dyn_cast<UnaryOperator>(&S))
      visitUnaryOperator(Step);
    else if (const auto *Call = dyn_cast<CallExpr>(&S))
      visitCallExpr(Call);
    return WalkStep::Continue;
  }

  std::vector<Definition> Definitions;

private:
  void visitDeclStmt(const DeclStmt *Decls) {
    for (const Decl *D : Decls->decls())
      if (const auto *Var = dyn_cast<VarDecl>(D); Var && Var->getInit())
        add(Var, Decls, Var->getInit());
  }
  void visitBinaryOperator(const BinaryOperator *Assign) {
    if (Assign->isAssignmentOp())
      add(rootVariable(Assign->getLHS()), Assign, Assign->getRHS());
  }
  void visitUnaryOperator(const UnaryOperator *Step) {
    if (Step->isIncrementDecrementOp())
      add(rootVariable(Step->getSubExpr()), Step, Step->getSubExpr());
  }
  void visitCallExpr(const CallExpr *Call) {
    ASTContext &Ctx = Devices.context();
    if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call);
        Operator && Operator->getNumArgs() > 0) {
      OverloadedOperatorKind Kind = Operator->getOperator();
      if (Kind == OO_PlusPlus || Kind == OO_MinusMinus)
        add(rootVariable(Operator->getArg(0)), Call, Operator->getArg(0));
      else if (Operator->isAssignmentOp() && Operator->getNumArgs() == 2)
        add(rootVariable(Operator->getArg(0)), Call, Operator->getArg(1));
    }
    // A device-to-host copy writes a device result into its destination.
    if (std::optional<MemcpyDirection> Direction = copyDirection(Call, Ctx);
        Direction && *Direction == MemcpyDirection::DeviceToHost &&
        Call->getNumArgs() > 0)
      add(rootVariable(Call->getArg(0)), Call, nullptr);
    if (std::optional<TorchCall> Torch = identifyTorchCall(Call);
        Torch && Torch->Op == TorchOp::Copy)
      if (std::optional<Hazard> H = classifyHazard(Call, Devices);
          H && H->Kind == HazardKind::DeviceToHostCopy)
        add(rootVariable(Torch->Subject), Call, nullptr);
    // Out-parameters: `&x` and non-const references (std::swap(a, b)) take
    // whatever the call computes from its arguments.
    const FunctionDecl *Callee = Call->getDirectCallee();
    unsigned Shift =
        isa<CXXOperatorCallExpr>(Call) && Callee && isa<CXXMethodDecl>(Callee)
            ? 1
            : 0;
    for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
      const Expr *Arg = Call->getArg(I)->IgnoreParenCasts();
      if (const auto *Address = dyn_cast<UnaryOperator>(Arg);
          Address && Address->getOpcode() == UO_AddrOf) {
        add(rootVariable(Address->getSubExpr()), Call, Call);
        continue;
      }
      if (!Callee || I < Shift || I - Shift >= Callee->getNumParams())
        continue;
      QualType Param = Callee->getParamDecl(I - Shift)->getType();
      if (Param->isLValueReferenceType() &&
          !Param.getNonReferenceType().isConstQualified())
        add(rootVariable(Arg), Call, Call);
    }
  }

  void add(const VarDecl *Var, const Stmt *At, const Expr *Value) {
    if (Var)
      Definitions.push_back({Var, At, Value});
  }
  DeviceInference &Devices;
};

namespace {

/// The declaration an optimizer object is held in: `Optimizer`,
/// `Impl->Optimizer` behind a std::unique_ptr, `*Optimizer`.
const ValueDecl *heldIn(const Expr *Object) {
  for (unsigned Depth = 0; Object && Depth < 8; ++Depth) {
    Object = Object->IgnoreParenImpCasts();
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Object))
      return Ref->getDecl();
    if (const auto *Member = dyn_cast<MemberExpr>(Object))
      return Member->getMemberDecl();
    if (const auto *Unary = dyn_cast<UnaryOperator>(Object);
        Unary && Unary->getOpcode() == UO_Deref)
      Object = Unary->getSubExpr();
    else if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Object);
             Operator && Operator->getNumArgs() > 0 &&
             (Operator->getOperator() == OO_Star ||
              Operator->getOperator() == OO_Arrow))
      Object = Operator->getArg(0);
    else
      return nullptr;
  }
  return nullptr;
}

/// The parameters of the module whose `parameters()` an initializer of an
/// optimizer passes (`SGD(Model->parameters(), ...)`), if it names one.
std::optional<unsigned> parametersPassedIn(const Expr *Init) {
  std::optional<unsigned> Count;
  containsMatch<CXXMemberCallExpr>(Init, [&](const CXXMemberCallExpr &Call) {
    const FunctionDecl *Callee = Call.getDirectCallee();
    if (Callee && Callee->getIdentifier() && Callee->getName() == "parameters")
      // The module's own type, not Module, where parameters() is declared.
      Count = torchModuleParameterCount(
          Call.getImplicitObjectArgument()->IgnoreParenImpCasts()->getType());
    return Count.has_value();
  });
  return Count;
}

/// Collects the expressions that initialize or assign each variable and
/// field of a translation unit.
void collectInitializers(const TranslationUnitDecl *Unit,
                         GraphCaptureAnalysis::InitializerMap &Found) {
  WalkScope WithInstantiations;
  WithInstantiations.TemplateInstantiations = true;
  walkDecl(
      Unit,
      [&](const Stmt &S) {
        if (const auto *Assign = dyn_cast<CXXOperatorCallExpr>(&S);
            Assign && Assign->getOperator() == OO_Equal &&
            Assign->getNumArgs() == 2)
          if (const ValueDecl *Target = heldIn(Assign->getArg(0)))
            Found[Target].push_back(Assign->getArg(1));
        return WalkStep::Continue;
      },
      [&](const Decl &D) {
        if (const auto *Var = dyn_cast<VarDecl>(&D))
          if (const Expr *Init = Var->getInit())
            Found[Var].push_back(Init);
        if (const auto *Field = dyn_cast<FieldDecl>(&D))
          if (const Expr *Init = Field->getInClassInitializer())
            Found[Field].push_back(Init);
        if (const auto *Constructor = dyn_cast<CXXConstructorDecl>(&D))
          for (const CXXCtorInitializer *Init : Constructor->inits())
            if (Init->getMember() && Init->isWritten())
              Found[Init->getMember()].push_back(Init->getInit());
        return WalkStep::Continue;
      },
      WithInstantiations);
}

/// `step()` of a torch::optim optimizer that keeps no state on the host
/// (SGD; the others stop the capture first) and `zero_grad(false)`: one
/// LibTorch operation per parameter, the module's that the optimizer was
/// constructed with when its construction is in the translation unit, else
/// one (a lower bound). `zero_grad()` sets the gradients to none and
/// launches nothing: a site with no operations.
template <typename InitializersFn>
std::optional<LaunchSite> optimizerUpdate(const CallExpr *Call, ASTContext &Ctx,
                                          InitializersFn &&Initializers) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Member || !Callee || !Callee->getIdentifier())
    return std::nullopt;
  llvm::StringRef Name = Callee->getName();
  if (Name != "step" && Name != "zero_grad")
    return std::nullopt;
  const CXXRecordDecl *Class = Member->getRecordDecl();
  if (!Class || !isInTorchNamespace(Class))
    return std::nullopt;
  const auto *Namespace = dyn_cast<NamespaceDecl>(Class->getDeclContext());
  if (!Namespace || Namespace->getName() != "optim")
    return std::nullopt;
  LaunchSite Site{LaunchSite::TorchCompound, Call, Name.str() + "()", 0, 0, 1};
  if (Name == "zero_grad") {
    // zero_grad(bool set_to_none = true)
    bool SetToNone = true;
    if (Call->getNumArgs() > 0 && !isa<CXXDefaultArgExpr>(Call->getArg(0)))
      if (std::optional<int64_t> Value = evaluateInt(Call->getArg(0), Ctx))
        SetToNone = *Value != 0;
    if (SetToNone)
      return Site;
  }
  std::optional<unsigned> Parameters;
  if (const ValueDecl *Holder = heldIn(Member->getImplicitObjectArgument())) {
    const GraphCaptureAnalysis::InitializerMap &Inits = Initializers();
    if (auto It = Inits.find(Holder); It != Inits.end())
      for (const Expr *Init : It->second)
        if ((Parameters = parametersPassedIn(Init)))
          break;
  }
  Site.TorchOps = std::max(1u, Parameters.value_or(1));
  Site.Detail = Parameters ? " (one per parameter)"
                           : " (one per parameter; how many is not known here)";
  return Site;
}

} // namespace

const GraphCaptureAnalysis::InitializerMap &
GraphCaptureAnalysis::initializers() {
  if (!Initializers) {
    Initializers.emplace();
    collectInitializers(Devices.context().getTranslationUnitDecl(),
                        *Initializers);
  }
  return *Initializers;
}

bool isGraphApiCall(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !Callee->getIdentifier())
    return false;
  if (const auto *Method = dyn_cast<CXXMethodDecl>(Callee)) {
    const CXXRecordDecl *Class = Method->getParent();
    return Class->getIdentifier() && Class->getName() == "CUDAGraph";
  }
  llvm::StringRef Name = Callee->getName();
  return Name.starts_with("cudaGraph") || Name.starts_with("cuGraph") ||
         Name.starts_with("cudaStreamBeginCapture") ||
         Name.starts_with("cuStreamBeginCapture") ||
         Name == "cudaStreamEndCapture" || Name == "cuStreamEndCapture";
}

ExecutionFrequency GraphCaptureAnalysis::frequency(const Stmt *S) {
  auto It = Frequencies.find(S);
  if (It == Frequencies.end())
    It = Frequencies.try_emplace(S, analyzeFrequency(S, Devices.context()))
             .first;
  return It->second;
}

const std::vector<GraphCaptureAnalysis::Definition> &
GraphCaptureAnalysis::definitionsIn(const FunctionDecl *Function) {
  auto It = Definitions.find(Function);
  if (It != Definitions.end())
    return It->second;
  DefinitionCollector Collector(Devices);
  if (Function->hasBody())
    walkStmt(Function->getBody(),
             [&](const Stmt &S) { return Collector.visit(S); });
  return Definitions[Function] = std::move(Collector.Definitions);
}

bool GraphCaptureAnalysis::readsDeviceValue(const CallExpr *Call) {
  auto [It, Inserted] = DeviceReads.try_emplace(Call, false);
  if (!Inserted)
    return It->second;
  bool Reads = false;
  if (std::optional<TorchCall> Torch = identifyTorchCall(Call)) {
    switch (Torch->Op) {
    case TorchOp::Item:
    case TorchOp::Equal:
    case TorchOp::AllClose:
    case TorchOp::IsNonzero:
    case TorchOp::Nonzero:
    case TorchOp::MaskedSelect:
    case TorchOp::Unique:
    case TorchOp::CheckedLinalg:
    case TorchOp::Cpu:
    case TorchOp::To:
      // Only from a tensor that may be on the GPU.
      if (std::optional<Hazard> H = classifyHazard(Call, Devices))
        Reads = H->Kind != HazardKind::HostToDeviceCopy;
      break;
    default:
      break;
    }
  }
  return DeviceReads[Call] = Reads;
}

GraphCaptureAnalysis::Taint GraphCaptureAnalysis::taintOf(const Expr *E,
                                                          const TaintMap &Env) {
  if (!E)
    return DeviceValue; // a definition by a device-to-host copy
  Taint Found = 0;
  walkStmt(E, [&](const Stmt &S) {
    // sizeof(x) does not read x.
    if (isa<LambdaExpr, UnaryExprOrTypeTraitExpr>(S))
      return WalkStep::SkipChildren;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(&S)) {
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
        if (auto It = Env.find(Var); It != Env.end())
          Found |= It->second;
    } else if (const auto *Call = dyn_cast<CallExpr>(&S);
               Call && readsDeviceValue(Call)) {
      Found |= DeviceValue;
    }
    return WalkStep::Continue;
  });
  return Found;
}

const GraphCaptureAnalysis::TaintMap &
GraphCaptureAnalysis::functionTaint(const FunctionDecl *Function) {
  if (auto It = FunctionTaints.find(Function); It != FunctionTaints.end())
    return It->second;
  TaintMap Env;
  for (unsigned I = 0; I < Function->getNumParams() && I < MaxParams; ++I)
    Env[Function->getParamDecl(I)] = Taint(1) << (ParamBase + I);
  const std::vector<Definition> &Writes = definitionsIn(Function);
  // Each round adds at least one bit to one variable, or ends.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const Definition &Write : Writes) {
      Taint Value = taintOf(Write.Value, Env) & ~Varying;
      Taint &Slot = Env[Write.Var];
      if ((Slot | Value) != Slot) {
        Slot |= Value;
        Changed = true;
      }
    }
  }
  return FunctionTaints[Function] = std::move(Env);
}

const GraphCaptureAnalysis::FunctionWork &
GraphCaptureAnalysis::summarize(const FunctionDecl *Function) {
  if (auto It = Functions.find(Function); It != Functions.end())
    return It->second;
  static const FunctionWork Empty;
  if (!Function->hasBody() || !InProgress.insert(Function).second)
    return Empty; // recursion: the cycle adds nothing new
  TaintMap Env = functionTaint(Function);
  FunctionWork Result;
  Dependences Depends;
  collect(Function->getBody(), nullptr, Env, Result.Work, Depends);
  constexpr Taint ParamBits = ~(DeviceValue | Varying);
  Result.Params = {Depends.Shapes & ParamBits, Depends.Arguments & ParamBits,
                   Depends.Scalars & ParamBits};
  Result.Work.DynamicShapes |= (Depends.Shapes & DeviceValue) != 0;
  InProgress.erase(Function);
  return Functions[Function] = std::move(Result);
}

bool GraphCaptureAnalysis::resizesCarriedTensor(const Definition &Write) {
  if (!Write.Value || !isTensorType(Write.Var->getType()))
    return false;
  bool ReadsItself = false;
  bool Resizes = false;
  walkStmt(Write.Value, [&](const Stmt &S) {
    if (isa<LambdaExpr>(S))
      return WalkStep::SkipChildren;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(&S))
      ReadsItself |= Ref->getDecl() == Write.Var;
    else if (const auto *Call = dyn_cast<CallExpr>(&S))
      if (const FunctionDecl *Callee = Call->getDirectCallee())
        Resizes |= Callee->getIdentifier() && isInTorchNamespace(Callee) &&
                   resizesTensor(Callee->getName());
    return WalkStep::Continue;
  });
  return ReadsItself && Resizes;
}

IterationWork GraphCaptureAnalysis::analyzeIteration(const Stmt *Loop) {
  ASTContext &Ctx = Devices.context();
  const SourceManager &SM = Ctx.getSourceManager();
  IterationWork Result;
  const FunctionDecl *Function = enclosingFunction(Loop, Ctx);
  if (!Function || !Function->hasBody())
    return Result;
  TaintMap Env = functionTaint(Function);
  // What changes between iterations: variables declared outside the body
  // (counters included) that the loop writes, the element of a range-for,
  // and what the body computes from them.
  const Stmt *Body = loopBody(Loop);
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(Loop))
    Env[Range->getLoopVariable()] |= Varying;
  const std::vector<Definition> &Writes = definitionsIn(Function);
  llvm::SmallVector<const Definition *, 16> InLoop;
  for (const Definition &Write : Writes)
    if (isInRepeatedPart(Write.At, Loop, Ctx))
      InLoop.push_back(&Write);
  for (const Definition *Write : InLoop)
    if (!isInside(Write->Var->getLocation(), Body, SM))
      Env[Write->Var] |= Varying;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const Definition *Write : InLoop) {
      Taint Value = taintOf(Write->Value, Env) & Varying;
      Taint &Slot = Env[Write->Var];
      if ((Slot | Value) != Slot) {
        Slot |= Value;
        Changed = true;
      }
    }
  }
  // A tensor the loop carries through an operation that resizes it
  // (`x = interpolate(x, ...)` over scales, `seq = cat({seq, next})`) has
  // other sizes on every iteration.
  for (const Definition *Write : InLoop)
    if (!isInside(Write->Var->getLocation(), Body, SM) &&
        resizesCarriedTensor(*Write))
      Result.DynamicShapes = true;
  Dependences Depends;
  collect(Loop, Loop, Env, Result, Depends);
  Result.DynamicShapes |= (Depends.Shapes & (DeviceValue | Varying)) != 0;
  Result.KernelArgumentsChange = (Depends.Arguments & Varying) != 0;
  return Result;
}

void GraphCaptureAnalysis::collect(const Stmt *Root, const Stmt *Loop,
                                   const TaintMap &Env, IterationWork &Out,
                                   Dependences &Depends) {
  ASTContext &Ctx = Devices.context();
  const SourceManager &SM = Ctx.getSourceManager();
  CollectedStatements Statements = collectStatements(Root);

  // Where a statement runs relative to one iteration (or one call).
  struct Position {
    bool Inside = false;
    /// Runs on every iteration: no counter guard, in no guarded inner loop.
    bool Steady = false;
    /// Steady, and every inner loop around it has a constant trip count.
    bool Counted = false;
    uint64_t Repeats = 1;
    llvm::SmallVector<const Stmt *, 2> InnerLoops;
  };
  auto PositionOf = [&](const Stmt *S) {
    Position P;
    ExecutionFrequency Frequency = frequency(S);
    unsigned Inner = 0;
    if (Loop) {
      while (Inner < Frequency.Loops.size() &&
             Frequency.Loops[Inner].Loop != Loop)
        ++Inner;
      if (Inner == Frequency.Loops.size())
        return P; // the loop's init, or not in the loop at all
    } else {
      while (Inner < Frequency.Loops.size() &&
             isWithin(Frequency.Loops[Inner].Loop, Root, Ctx))
        ++Inner;
    }
    P.Inside = true;
    P.Steady = Frequency.Guard == GuardKind::None;
    P.Counted = P.Steady;
    for (unsigned I = 0; I < Inner; ++I) {
      const EnclosingLoop &InnerLoop = Frequency.Loops[I];
      P.InnerLoops.push_back(InnerLoop.Loop);
      if (frequency(InnerLoop.Loop).Guard != GuardKind::None)
        P.Steady = P.Counted = false;
      if (!InnerLoop.TripCount || InnerLoop.Kind != "loop")
        P.Counted = false;
      else
        P.Repeats *= *InnerLoop.TripCount;
    }
    return P;
  };
  // The conditions of the branches between \p S and the root decide
  // whether it runs: the shape of the graph depends on them.
  auto BranchTaint = [&](const Stmt *S) {
    Taint Result = 0;
    const Stmt *Child = S;
    for (const Stmt *P = parentStmt(S, Ctx); P && Child != Root;
         Child = P, P = parentStmt(P, Ctx))
      if (isBranchOf(Child, P))
        Result |= taintOf(conditionOf(P), Env);
    return Result & ~DeviceValue;
  };

  std::optional<CaptureBlocker> FirstBlocker;
  auto Block = [&](CaptureBlocker::BlockerKind Kind, std::string Operation,
                   llvm::ArrayRef<const Stmt *> Steps) {
    if (FirstBlocker && (FirstBlocker->Kind == CaptureBlocker::DeviceBranch ||
                         Kind != CaptureBlocker::DeviceBranch))
      return;
    FirstBlocker = CaptureBlocker{Kind, std::move(Operation), {}};
    FirstBlocker->Steps.append(Steps.begin(), Steps.end());
  };
  auto AddLaunches = [&](LaunchSite Site, const Position &P) {
    Site.Repeats = P.Repeats;
    Out.Kernels += Site.Kernels * P.Repeats;
    Out.TorchOps += Site.TorchOps * P.Repeats;
    Out.AutogradOps += Site.AutogradOps * P.Repeats;
    Out.BackwardCalls += Site.BackwardCalls * P.Repeats;
    Out.Launches.push_back(std::move(Site));
    for (const Stmt *InnerLoop : P.InnerLoops)
      if (!llvm::is_contained(Out.CountedInnerLoops, InnerLoop))
        Out.CountedInnerLoops.push_back(InnerLoop);
  };

  llvm::SmallVector<std::pair<const CallExpr *, Position>, 1> Backwards;
  for (const CallExpr *Call : Statements.Calls) {
    Position P = PositionOf(Call);
    if (!P.Inside)
      continue;
    if (isGraphApiCall(Call)) {
      Out.UsesGraphs = true;
      continue;
    }
    // Work under a counter guard runs outside the graph, on the iterations
    // the guard selects: it neither adds launches nor stops the capture.
    if (!P.Steady)
      continue;

    if (std::optional<LaunchSite::SiteKind> Kind = kernelLaunchKind(Call)) {
      if (!P.Counted) {
        Out.UncountedLaunches = true;
        continue;
      }
      LaunchSite Site{*Kind, Call, "", 1, 0, 1};
      if (const auto *Kernel = dyn_cast<CUDAKernelCallExpr>(Call)) {
        if (const FunctionDecl *Callee = Kernel->getDirectCallee())
          Site.Name = Callee->getNameAsString();
        // <<<grid, block, shared memory, stream>>>
        if (const CallExpr *Config = Kernel->getConfig())
          for (unsigned I = 0; I < Config->getNumArgs() && I < 3; ++I)
            Depends.Shapes |= taintOf(Config->getArg(I), Env);
        for (const Expr *Arg : Kernel->arguments())
          Depends.Arguments |= taintOf(Arg, Env);
      } else {
        Site.Name = Call->getDirectCallee()->getNameAsString();
        // (function, grid, block, arguments, shared memory, stream)
        for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
          Taint T = taintOf(Call->getArg(I), Env);
          (I == 1 || I == 2 || I == 4 ? Depends.Shapes : Depends.Arguments) |=
              T;
        }
      }
      Depends.Shapes |= BranchTaint(Call);
      AddLaunches(std::move(Site), P);
      continue;
    }

    // Operations that stop the capture.
    if (std::optional<CudaApi> Api = identifyCudaCall(Call);
        Api && isAllocation(*Api)) {
      Block(CaptureBlocker::Allocation, cudaApiName(*Api).str(), {Call});
      continue;
    }
    if (std::optional<MemcpyDirection> Direction = copyDirection(Call, Ctx);
        Direction && (*Direction == MemcpyDirection::HostToDevice ||
                      *Direction == MemcpyDirection::DeviceToHost)) {
      Block(CaptureBlocker::Copy, Call->getDirectCallee()->getNameAsString(),
            {Call});
      continue;
    }
    // A host tensor moved to a device the caller chooses (`t.to(dev)` in
    // a sampler taking `dev`): on a GPU run an upload, which a capture
    // cannot replay with new data. (classifyHazard takes only moves to a
    // known GPU for uploads.)
    if (std::optional<TorchCall> Torch = identifyTorchCall(Call);
        Torch && Torch->Op == TorchOp::To && Torch->Subject &&
        Call->getNumArgs() > 0 && !isTensorType(Call->getArg(0)->getType()) &&
        Devices.tensorPlacement(Torch->Subject).Where == Placement::Cpu)
      if (std::optional<PlacementFact> Target =
              Devices.deviceValue(Call->getArg(0));
          Target && Target->Where == Placement::MaybeCuda) {
        Block(CaptureBlocker::Copy, Torch->Spelling, {Call});
        continue;
      }
    // Unknown placement is no evidence of a GPU for a launch, but may
    // still be one for a sync: a capture must not be recommended past it.
    if (std::optional<Hazard> H = classifyHazard(Call, Devices)) {
      Block(H->Kind == HazardKind::HostSync ? CaptureBlocker::Sync
                                            : CaptureBlocker::Copy,
            H->Operation, {Call});
      continue;
    }

    if (std::optional<std::string> Optimizer = hostStateOptimizerStep(Call)) {
      Block(CaptureBlocker::HostOptimizer, *Optimizer, {Call});
      continue;
    }
    if (std::optional<LaunchSite> Update =
            optimizerUpdate(Call, Ctx, [&]() -> const InitializerMap & {
              return initializers();
            })) {
      if (!Update->TorchOps)
        continue;
      if (!P.Counted) {
        Out.UncountedLaunches = true;
        continue;
      }
      AddLaunches(std::move(*Update), P);
      continue;
    }

    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee)
      continue;
    if (const FunctionDecl *Defined = definedCallee(Call, SM)) {
      const FunctionWork &Inner = summarize(Defined);
      uint64_t Kernels = Inner.Work.Kernels, TorchOps = Inner.Work.TorchOps;
      bool InnerDynamic = Inner.Work.DynamicShapes;
      bool InnerUncounted = Inner.Work.UncountedLaunches;
      bool InnerGraphs = Inner.Work.UsesGraphs;
      Dependences Params = Inner.Params;
      std::optional<CaptureBlocker> InnerBlocker = Inner.Work.Blocker;

      Out.UsesGraphs |= InnerGraphs;
      Out.UncountedLaunches |= InnerUncounted;
      Out.DynamicShapes |= InnerDynamic;
      // A method called as an operator takes its object as argument 0.
      unsigned Shift =
          isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Defined) ? 1 : 0;
      for (unsigned I = Shift; I < Call->getNumArgs(); ++I) {
        unsigned Param = I - Shift;
        if (Param >= MaxParams)
          break;
        Taint Bit = Taint(1) << (ParamBase + Param);
        if (!((Params.Shapes | Params.Arguments | Params.Scalars) & Bit))
          continue;
        Taint Arg = taintOf(Call->getArg(I), Env);
        if (Params.Shapes & Bit)
          Depends.Shapes |= Arg;
        if (Params.Arguments & Bit)
          Depends.Arguments |= Arg;
        if (Params.Scalars & Bit) {
          Depends.Scalars |= Arg;
          if (Arg & Varying)
            Block(CaptureBlocker::HostValue, sourceText(Call->getArg(I), Ctx),
                  {Call->getArg(I)});
        }
      }
      // The callee's synchronizations and read-backs as xfer-sync-in-loop
      // and xfer-copy-in-loop see them, then the rest.
      const HazardPath *Path = Summaries.find(Defined, HazardKind::HostSync);
      if (!Path)
        Path = Summaries.find(Defined, HazardKind::DeviceToHostCopy);
      if (Path) {
        llvm::SmallVector<const Stmt *, 4> Steps{Call};
        Steps.append(Path->Steps.begin(), Path->Steps.end());
        Block(Path->Operation.Kind == HazardKind::HostSync
                  ? CaptureBlocker::Sync
                  : CaptureBlocker::Copy,
              Path->Operation.Operation, Steps);
      }
      if (InnerBlocker) {
        llvm::SmallVector<const Stmt *, 4> Steps{Call};
        Steps.append(InnerBlocker->Steps.begin(), InnerBlocker->Steps.end());
        Block(InnerBlocker->Kind, InnerBlocker->Operation, Steps);
      }
      if (Kernels + TorchOps == 0)
        continue;
      if (!P.Counted) {
        Out.UncountedLaunches = true;
        continue;
      }
      Depends.Shapes |= BranchTaint(Call);
      LaunchSite Site{LaunchSite::Call,
                      Call,
                      Defined->getNameAsString(),
                      static_cast<unsigned>(Kernels),
                      static_cast<unsigned>(TorchOps),
                      1};
      Site.AutogradOps = static_cast<unsigned>(Inner.Work.AutogradOps);
      Site.BackwardCalls = static_cast<unsigned>(Inner.Work.BackwardCalls);
      Site.Recordable = static_cast<unsigned>(Inner.Work.RecordableOps);
      AddLaunches(std::move(Site), P);
      continue;
    }

    // A LibTorch operation on a GPU tensor.
    if (!isInTorchNamespace(Callee) || isa<CXXConversionDecl>(Callee) ||
        (!Callee->getIdentifier() && !isa<CXXOperatorCallExpr>(Call)))
      continue;
    bool IsBackward =
        Callee->getIdentifier() && Callee->getName() == "backward";
    if (!isTensorLikeType(Call->getType()) && !IsBackward)
      continue;
    const Expr *Produced = Call;
    if (IsBackward)
      if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
        Produced = Member->getImplicitObjectArgument();
    Placement Where = Devices.tensorPlacement(Produced).Where;
    if (Where != Placement::Cuda && Where != Placement::MaybeCuda)
      continue;
    // A backward() runs the backward of the forward operations before it:
    // counted once they are all known.
    if (IsBackward) {
      if (!P.Counted)
        Out.UncountedLaunches = true;
      else
        Backwards.push_back({Call, P});
      continue;
    }
    llvm::StringRef Name =
        Callee->getIdentifier() ? Callee->getName() : llvm::StringRef();
    // Sizes that change between iterations or come from the device, and
    // operands whose sizes are data-dependent (nonzero()'s result).
    if (takesSizes(Call, Name))
      for (const Expr *Size : sizeArguments(Call))
        Depends.Shapes |= taintOf(Size, Env);
    bool Sized = takesSizes(Call, Name);
    for (const Expr *Operand : Call->arguments()) {
      if (isTensorType(Operand->getType())) {
        Depends.Shapes |= taintOf(Operand, Env) & DeviceValue;
        continue;
      }
      // A scalar is baked into the captured kernel: one that changes
      // between iterations must live in a device tensor instead.
      if (Sized || isa<CXXDefaultArgExpr>(Operand))
        continue;
      Taint Scalar = taintOf(Operand, Env);
      Depends.Scalars |= Scalar;
      if (Scalar & Varying)
        Block(CaptureBlocker::HostValue, sourceText(Operand, Ctx), {Operand});
    }
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
      Depends.Shapes |=
          taintOf(Member->getImplicitObjectArgument(), Env) & DeviceValue;
    // Indexing is a view, assigning a tensor copies a handle.
    if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call);
        Operator && (Operator->getOperator() == OO_Subscript ||
                     Operator->getOperator() == OO_Equal))
      continue;
    if (launchesNoKernel(Name) || Callee->isImplicit())
      continue;
    if (!P.Counted) {
      Out.UncountedLaunches = true;
      continue;
    }
    Depends.Shapes |= BranchTaint(Call);
    LaunchSite Site{LaunchSite::TorchOp,
                    Call,
                    torchOperationSpelling(Call, Callee, Ctx),
                    0,
                    1,
                    1};
    Site.Recordable = 1;
    AddLaunches(std::move(Site), P);
  }

  // Each backward() differentiates the forward operations before it that no
  // earlier backward() claimed: one backward operation for each, as
  // autograd records one node for each.
  for (const auto &[Call, P] : Backwards) {
    SourceLocation At = SM.getExpansionLoc(Call->getExprLoc());
    uint64_t Forward = 0;
    for (LaunchSite &Site : Out.Launches) {
      if (!Site.Recordable ||
          !SM.isBeforeInTranslationUnit(
              SM.getExpansionLoc(Site.Where->getExprLoc()), At))
        continue;
      Forward += uint64_t(Site.Recordable) * Site.Repeats;
      Site.Recordable = 0;
    }
    Out.AutogradOps += Forward;
    unsigned Operations = static_cast<unsigned>(std::max<uint64_t>(Forward, 1));
    LaunchSite Site{
        LaunchSite::TorchCompound, Call, "backward()", 0, Operations, 1};
    Site.AutogradOps = Operations;
    Site.BackwardCalls = 1;
    if (Forward)
      Site.Detail = " (one for each operation it differentiates)";
    AddLaunches(std::move(Site), P);
  }
  Out.RecordableOps = 0;
  for (const LaunchSite &Site : Out.Launches)
    Out.RecordableOps += uint64_t(Site.Recordable) * Site.Repeats;

  // Host control flow on a device result: the host must read it first.
  for (const Stmt *Branch : Statements.Branches) {
    const Expr *Condition = conditionOf(Branch);
    if (!Condition)
      continue;
    if (Branch != Loop) {
      Position P = PositionOf(Branch);
      if (!P.Inside || !P.Steady)
        continue;
    }
    if (taintOf(Condition, Env) & DeviceValue)
      Block(CaptureBlocker::DeviceBranch, "", {Condition});
  }
  if (FirstBlocker && !Out.Blocker)
    Out.Blocker = std::move(FirstBlocker);
}

} // namespace clang::tidy::xfer
