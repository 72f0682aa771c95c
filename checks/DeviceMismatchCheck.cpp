//===--- DeviceMismatchCheck.cpp - xfer-device-mismatch -------------------===//
//
// Registration, dispatch and the notes every part shares; the LibTorch
// operands and modules are checked in DeviceMismatchTorch.cpp, CUDA pointers
// and kernels in DeviceMismatchCuda.cpp.
//
//===----------------------------------------------------------------------===//

#include "DeviceMismatchCheck.h"
#include "DeviceMismatchWording.h"
#include "analysis/ApiCatalogue.h"
#include "analysis/AstUtils.h"
#include "analysis/ProjectFacts.h"
#include "analysis/TranslationUnitAnalyses.h"
#include "analysis/UserCodeTraversal.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringSwitch.h"

using namespace clang::ast_matchers;

namespace clang::tidy::xfer {
namespace {

bool isInStdOrGlobalNamespace(const FunctionDecl *FD) {
  const DeclContext *DC = FD->getDeclContext()->getRedeclContext();
  if (DC->isTranslationUnit())
    return true;
  const auto *NS = dyn_cast<NamespaceDecl>(DC);
  return NS && NS->isStdNamespace();
}

/// True if the value of \p Call is thrown away: it is a statement of its
/// own (possibly the body of an if or loop).
bool isDiscarded(const Expr *Call, ASTContext &Ctx) {
  const Stmt *Node = Call;
  const Stmt *Parent = parentStmt(Node, Ctx);
  while (Parent && isa<ExprWithCleanups, CXXBindTemporaryExpr,
                       MaterializeTemporaryExpr, ImplicitCastExpr>(Parent)) {
    Node = Parent;
    Parent = parentStmt(Node, Ctx);
  }
  if (!Parent)
    return false;
  if (isa<CompoundStmt, LabelStmt, AttributedStmt>(Parent))
    return true;
  if (const auto *If = dyn_cast<IfStmt>(Parent))
    return If->getThen() == Node || If->getElse() == Node;
  if (const auto *For = dyn_cast<ForStmt>(Parent))
    return For->getBody() == Node || For->getInc() == Node;
  if (const auto *While = dyn_cast<WhileStmt>(Parent))
    return While->getBody() == Node;
  if (const auto *Do = dyn_cast<DoStmt>(Parent))
    return Do->getBody() == Node;
  if (const auto *Range = dyn_cast<CXXForRangeStmt>(Parent))
    return Range->getBody() == Node;
  return false;
}

} // namespace

/// "on the cpu", "on cuda", ... for notes about tensors and modules.
std::string tensorPlacementPhrase(Placement P) {
  switch (P) {
  case Placement::Cpu:
    return "on the cpu";
  case Placement::PinnedCpu:
    return "on the cpu (pinned)";
  case Placement::Cuda:
    return "on cuda";
  case Placement::MaybeCuda:
    return "on a device chosen at run time";
  case Placement::Managed:
    return "in managed memory";
  case Placement::Unknown:
    break;
  }
  return "on an unknown device";
}

/// "host memory", "device memory", ... for raw pointers.
std::string pointerPlacementPhrase(Placement P) {
  switch (P) {
  case Placement::Cpu:
    return "host memory";
  case Placement::PinnedCpu:
    return "pinned host memory";
  case Placement::Cuda:
    return "device memory";
  case Placement::MaybeCuda:
    return "host or device memory";
  case Placement::Managed:
    return "managed memory";
  case Placement::Unknown:
    break;
  }
  return "memory of unknown placement";
}

std::string operandName(const Expr *E, ASTContext &Ctx) {
  E = ignoreCopiesAndConversions(E);
  llvm::StringRef Text =
      Lexer::getSourceText(CharSourceRange::getTokenRange(E->getSourceRange()),
                           Ctx.getSourceManager(), Ctx.getLangOpts());
  if (Text.empty() || Text.size() > 40 || Text.contains('\n'))
    return "the operand";
  return Text.str();
}

void DeviceMismatchCheck::registerMatchers(MatchFinder *Finder) {
  walkOnlyUserCode(*Finder);
  // Which calls matter depends on the API catalogue and on inferred
  // placements, which matchers cannot express: every call is looked at.
  Finder->addMatcher(callExpr(unless(isExpansionInSystemHeader())).bind("call"),
                     this);
  Finder->addMatcher(
      unaryOperator(hasOperatorName("*"), unless(isExpansionInSystemHeader()))
          .bind("deref"),
      this);
  Finder->addMatcher(
      arraySubscriptExpr(unless(isExpansionInSystemHeader())).bind("index"),
      this);
  Finder->addMatcher(
      memberExpr(isArrow(), unless(isExpansionInSystemHeader())).bind("arrow"),
      this);
}

DeviceMismatchCheck::DeviceMismatchCheck(llvm::StringRef Name,
                                         ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context),
      ProjectIndex(Options.getLocalOrGlobal("ProjectIndex", "")) {}

void DeviceMismatchCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "ProjectIndex", ProjectIndex);
}

void DeviceMismatchCheck::onStartOfTranslationUnit() {
  if (!Facts) // the loop checks report an unreadable index
    Facts = ProjectFacts::loadOption(ProjectIndex);
  Analyses.reset();
  ForcedCuda.clear();
  ReportedMixes.clear();
}

void DeviceMismatchCheck::check(const MatchFinder::MatchResult &Result) {
  ASTContext &Ctx = *Result.Context;
  if (!Analyses)
    Analyses = TranslationUnitAnalyses::of(Ctx, Facts);

  if (const auto *Deref = Result.Nodes.getNodeAs<UnaryOperator>("deref")) {
    checkHostAccess(Deref, Deref->getSubExpr(), "dereferenced", Ctx);
    return;
  }
  if (const auto *Index = Result.Nodes.getNodeAs<ArraySubscriptExpr>("index")) {
    // &p[i] and &(p[i]) only compute an address.
    const Stmt *Outer = parentStmt(Index, Ctx);
    while (isa_and_nonnull<ParenExpr>(Outer))
      Outer = parentStmt(Outer, Ctx);
    const auto *Parent = dyn_cast_or_null<UnaryOperator>(Outer);
    if (Parent && Parent->getOpcode() == UO_AddrOf)
      return;
    if (Index->getBase()->getType()->isPointerType())
      checkHostAccess(Index, Index->getBase(), "indexed", Ctx);
    return;
  }
  if (const auto *Arrow = Result.Nodes.getNodeAs<MemberExpr>("arrow")) {
    // &p->field and p->array (decaying to a pointer) only compute an
    // address: `cub::DeviceReduce::Sum(..., lattice->spins, ...)`.
    const Stmt *Outer = parentStmt(Arrow, Ctx);
    while (isa_and_nonnull<ParenExpr>(Outer))
      Outer = parentStmt(Outer, Ctx);
    const auto *AddressOf = dyn_cast_or_null<UnaryOperator>(Outer);
    const auto *Decay = dyn_cast_or_null<ImplicitCastExpr>(Outer);
    if ((AddressOf && AddressOf->getOpcode() == UO_AddrOf) ||
        (Decay && Decay->getCastKind() == CK_ArrayToPointerDecay))
      return;
    if (Arrow->getBase()->getType()->isPointerType() &&
        !isa<CXXThisExpr>(Arrow->getBase()->IgnoreParenImpCasts()))
      checkHostAccess(Arrow, Arrow->getBase(), "dereferenced", Ctx);
    return;
  }

  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("call");
  if (!Call)
    return;
  if (isa<CUDAKernelCallExpr>(Call)) {
    checkKernelArguments(Call, Ctx);
    return;
  }
  if (std::optional<CudaApi> Api = identifyCudaCall(Call)) {
    if (*Api == CudaApi::LaunchKernel)
      checkKernelArguments(Call, Ctx);
    else if (*Api == CudaApi::Free || *Api == CudaApi::FreeHost)
      checkFree(Call, *Api, Ctx);
    else
      checkMemcpyKind(Call, Ctx);
    return;
  }
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (isCudaMemset(Callee)) {
    checkMemset(Call, Ctx);
    return;
  }
  if (!Callee || !Callee->getIdentifier()) {
    // Operators: module calls through ModuleHolder, tensor arithmetic.
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
        Op && Op->getOperator() == OO_Call && Op->getNumArgs() >= 1 &&
        isModuleType(Op->getArg(0)->getType()))
      checkModuleCall(Call, Op->getArg(0), Ctx);
    else if (Callee)
      checkTensorOperation(Call, Ctx);
    return;
  }

  llvm::StringRef Name = Callee->getName();
  if (isInStdOrGlobalNamespace(Callee) &&
      llvm::StringSwitch<bool>(Name)
          .Cases("memcpy", "memmove", "memset", "memcmp", true)
          .Cases("copy", "copy_n", "fill", "fill_n", true)
          .Default(false)) {
    for (const Expr *Arg : Call->arguments())
      if (Arg->getType()->isPointerType())
        checkHostAccess(Call, Arg, ("passed to '" + Name + "'").str(), Ctx);
    return;
  }

  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
    const Expr *Object = Member->getImplicitObjectArgument();
    const auto *Method = cast<CXXMethodDecl>(Callee);
    if (Name == "forward" &&
        isModuleType(Ctx.getRecordType(Method->getParent()))) {
      checkModuleCall(Call, Object, Ctx);
      return;
    }
    if (Object && isTensorType(Object->getType()) &&
        (Name == "to" || Name == "cuda" || Name == "cpu") &&
        isDiscarded(Call, Ctx)) {
      checkDiscardedMove(Member, Ctx);
      return;
    }
  }
  checkTensorOperation(Call, Ctx);
}

bool DeviceMismatchCheck::countsAsCuda(const PlacementFact &Fact,
                                       const Stmt *Site, ASTContext &Ctx,
                                       const Stmt *&ForcedAt) {
  if (Fact.Where == Placement::Cuda)
    return true;
  if (Fact.Where != Placement::MaybeCuda)
    return false;
  // The program's CPU path (`if (device == torch::kCPU) { ... }`): there the
  // device chosen at run time is the host.
  if (Analyses->devices().runsOnlyOnTheHost(Site))
    return false;
  ForcedAt = unconditionalCudaPlacement(enclosingFunction(Site, Ctx), Ctx);
  if (ForcedAt)
    return true;
  // A program that names cuda chooses it where it can: its run on a
  // machine with a GPU, the one that matters, has cuda as that device.
  return Analyses->cudaEvidence().Found || (Facts && Facts->usesCuda());
}

void DeviceMismatchCheck::noteRunTimeDevice(Placement DeviceSide,
                                            const Stmt *ForcedAt) {
  if (DeviceSide != Placement::MaybeCuda)
    return;
  if (ForcedAt) {
    diag(ForcedAt->getBeginLoc(),
         "the code places data on cuda unconditionally here, so it expects "
         "its run-time device to be cuda",
         DiagnosticIDs::Note);
    return;
  }
  const CudaEvidence &Evidence = Analyses->cudaEvidence();
  if (Evidence.Found && Evidence.Where.isValid())
    diag(Evidence.Where,
         "the program %0 here, so on a machine with a GPU its run-time "
         "device is cuda",
         DiagnosticIDs::Note)
        << Evidence.What;
}

const Stmt *
DeviceMismatchCheck::unconditionalCudaPlacement(const FunctionDecl *Function,
                                                ASTContext &Ctx) {
  if (!Function || !Function->hasBody())
    return nullptr;
  auto [It, Inserted] = ForcedCuda.try_emplace(Function, nullptr);
  if (!Inserted)
    return It->second;
  // A tensor or module placed on cuda with no run-time choice means the
  // code expects a GPU wherever its device is chosen at run time.
  for (const BoundNodes &Nodes :
       match(findAll(callExpr().bind("c")), *Function->getBody(), Ctx)) {
    const auto *Call = Nodes.getNodeAs<CallExpr>("c");
    bool PlacesOnCuda = false;
    if (std::optional<TorchCall> Torch = identifyTorchCall(Call)) {
      if (Torch->Op == TorchOp::Cuda || Torch->Op == TorchOp::To ||
          Torch->Op == TorchOp::Factory)
        PlacesOnCuda =
            Analyses->devices().tensorPlacement(Call).Where == Placement::Cuda;
    } else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
               Member && isNamed(Member->getMethodDecl(), "to") &&
               Call->getNumArgs() >= 1 &&
               isModuleType(
                   Ctx.getRecordType(Member->getMethodDecl()->getParent()))) {
      std::optional<PlacementFact> Device =
          Analyses->devices().deviceValue(Call->getArg(0));
      PlacesOnCuda = Device && Device->Where == Placement::Cuda;
    }
    if (PlacesOnCuda &&
        Analyses->devices().executionOrder().runsWheneverFunctionRuns(Call))
      return It->second = Call;
  }
  return nullptr;
}

void DeviceMismatchCheck::noteOrigin(const Expr *Value,
                                     const PlacementFact &Fact,
                                     ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Loc = ignoreCopiesAndConversions(Value)->getBeginLoc();
  if (Fact.Origin && !SM.isInSystemHeader(Fact.Origin->getBeginLoc()))
    Loc = Fact.Origin->getBeginLoc();
  bool IsPointer =
      Value->getType()->isPointerType() || Value->getType()->isArrayType();
  diag(Loc, "'%0' is %1: %2", DiagnosticIDs::Note)
      << operandName(Value, Ctx)
      << (IsPointer ? pointerPlacementPhrase(Fact.Where)
                    : tensorPlacementPhrase(Fact.Where))
      << (Fact.Reason.empty() ? "assigned on several paths" : Fact.Reason);
}

} // namespace clang::tidy::xfer
