//===--- DeviceMismatchCheck.cpp - xfer-device-mismatch -------------------===//

#include "DeviceMismatchCheck.h"
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

constexpr llvm::StringLiteral SameDeviceError =
    "LibTorch throws at run time (\"Expected all tensors to be on the same "
    "device\")";

bool isInStdOrGlobalNamespace(const FunctionDecl *FD) {
  const DeclContext *DC = FD->getDeclContext()->getRedeclContext();
  if (DC->isTranslationUnit())
    return true;
  const auto *NS = dyn_cast<NamespaceDecl>(DC);
  return NS && NS->isStdNamespace();
}

/// Methods that take a second tensor without computing with it on one
/// device: to() and copy_() move data, *_as() only read its shape or type,
/// and tensor indices may stay on the host.
bool isDeviceNeutralMethod(llvm::StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("to", "copy_", "type_as", "view_as", "reshape_as", true)
      .Cases("expand_as", "set_", "is_same", "is_same_size", "is_set_to",
             true)
      .Cases("index", "index_put_", "index_put", "operator=", true)
      .Default(false);
}

/// Functions whose tensor arguments need not share a device.
bool isDeviceNeutralFunction(const FunctionDecl *FD) {
  if (isTensorFactory(FD))
    return true;
  return llvm::StringSwitch<bool>(FD->getName())
      .Cases("from_blob", "empty_like", "zeros_like", "ones_like", true)
      .Cases("is_same_size", "index", "index_put", "index_put_", true)
      .Default(false);
}

/// The tensors \p Arg passes, looking into braced lists (torch::cat({a, b}))
/// and wrappers such as c10::optional<Tensor>.
void collectTensors(const Expr *Arg, llvm::SmallVectorImpl<const Expr *> &Out) {
  if (!Arg || isa<CXXDefaultArgExpr>(Arg))
    return;
  const Expr *E = Arg->IgnoreParenImpCasts();
  if (isTensorType(E->getType())) {
    Out.push_back(E);
    return;
  }
  E = ignoreCopiesAndConversions(E);
  if (const auto *List = dyn_cast<InitListExpr>(E)) {
    for (const Expr *Init : List->inits())
      collectTensors(Init, Out);
  } else if (const auto *StdList = dyn_cast<CXXStdInitializerListExpr>(E)) {
    collectTensors(StdList->getSubExpr(), Out);
  } else if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    for (const Expr *Inner : Construct->arguments())
      collectTensors(Inner, Out);
  }
}

/// True for a tensor's storage: `t.data_ptr<float>()`, or a local pointer
/// initialised with one.
bool isTensorStorage(const Expr *Pointer, unsigned Depth = 0) {
  Pointer = Pointer->IgnoreParenCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(Pointer)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    return Depth < 2 && Var && Var->hasLocalStorage() && Var->getInit() &&
           isTensorStorage(Var->getInit(), Depth + 1);
  }
  const auto *Call = dyn_cast<CXXMemberCallExpr>(Pointer);
  const CXXMethodDecl *Method = Call ? Call->getMethodDecl() : nullptr;
  return Method && Method->getIdentifier() &&
         (Method->getName() == "data_ptr" || Method->getName() == "data" ||
          Method->getName() == "mutable_data_ptr" ||
          Method->getName() == "const_data_ptr") &&
         isTensorType(Call->getImplicitObjectArgument()->getType());
}

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

enum class Side { Unknown, Host, Device };

Side pointerSide(Placement P) {
  if (isHostPlacement(P))
    return Side::Host;
  if (P == Placement::Cuda)
    return Side::Device;
  return Side::Unknown; // managed memory works either way
}

MemcpyDirection directionOf(bool SrcOnDevice, bool DstOnDevice) {
  if (SrcOnDevice)
    return DstOnDevice ? MemcpyDirection::DeviceToDevice
                       : MemcpyDirection::DeviceToHost;
  return DstOnDevice ? MemcpyDirection::HostToDevice
                     : MemcpyDirection::HostToHost;
}

/// Code that runs on the GPU, where device memory is the normal case.
bool isInDeviceCode(const Stmt *S, ASTContext &Ctx) {
  const FunctionDecl *F = enclosingFunction(S, Ctx);
  return F && (F->hasAttr<CUDAGlobalAttr>() || F->hasAttr<CUDADeviceAttr>()) &&
         !F->hasAttr<CUDAHostAttr>();
}

/// sizeof(*p), decltype(p[0]), ...: nothing is read.
bool isUnevaluated(const Stmt *S, ASTContext &Ctx) {
  for (const Stmt *P = parentStmt(S, Ctx); P; P = parentStmt(P, Ctx))
    if (isa<UnaryExprOrTypeTraitExpr, CXXTypeidExpr, CXXNoexceptExpr>(P))
      return true;
  return false;
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

/// The pointers cudaLaunchKernel passes through its `void **args` array:
/// `void *Args[] = {&P, &N};`.
void collectLaunchArguments(const Expr *ArgsArray,
                            llvm::SmallVectorImpl<const Expr *> &Out) {
  const auto *Ref = dyn_cast<DeclRefExpr>(ArgsArray->IgnoreParenCasts());
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  const auto *List =
      Var ? dyn_cast_or_null<InitListExpr>(Var->getInit()) : nullptr;
  if (!List)
    return;
  for (const Expr *Init : List->inits()) {
    const auto *AddrOf = dyn_cast<UnaryOperator>(Init->IgnoreParenCasts());
    if (!AddrOf || AddrOf->getOpcode() != UO_AddrOf)
      continue;
    const Expr *Slot = AddrOf->getSubExpr()->IgnoreParenImpCasts();
    if (Slot->getType()->isPointerType())
      Out.push_back(Slot);
  }
}

/// cudaMemset and its stream and pitched forms: the first argument is the
/// device memory to set.
bool isCudaMemset(const FunctionDecl *FD) {
  if (!FD || !FD->getIdentifier() || FD->getNumParams() < 1 ||
      !FD->getDeclContext()->getRedeclContext()->isTranslationUnit())
    return false;
  return llvm::StringSwitch<bool>(FD->getName())
      .Cases("cudaMemset", "cudaMemsetAsync", "cudaMemset2D",
             "cudaMemset2DAsync", true)
      .Default(false);
}

/// The CUDA allocation call \p Origin is, if it is one.
std::optional<CudaApi> allocationApi(const Stmt *Origin) {
  const auto *Call = dyn_cast_or_null<CallExpr>(Origin);
  if (!Call)
    return std::nullopt;
  return identifyCudaCall(Call);
}

} // namespace


void DeviceMismatchCheck::registerMatchers(MatchFinder *Finder) {
  walkOnlyUserCode(*Finder);
  // Which calls matter depends on the API catalogue and on inferred
  // placements, which matchers cannot express: every call is looked at.
  Finder->addMatcher(
      callExpr(unless(isExpansionInSystemHeader())).bind("call"), this);
  Finder->addMatcher(unaryOperator(hasOperatorName("*"),
                                   unless(isExpansionInSystemHeader()))
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
               isModuleType(Ctx.getRecordType(
                   Member->getMethodDecl()->getParent()))) {
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

static std::string operandName(const Expr *E, ASTContext &Ctx) {
  E = ignoreCopiesAndConversions(E);
  llvm::StringRef Text = Lexer::getSourceText(
      CharSourceRange::getTokenRange(E->getSourceRange()),
      Ctx.getSourceManager(), Ctx.getLangOpts());
  if (Text.empty() || Text.size() > 40 || Text.contains('\n'))
    return "the operand";
  return Text.str();
}

void DeviceMismatchCheck::noteOrigin(const Expr *Value,
                                     const PlacementFact &Fact,
                                     ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Loc = ignoreCopiesAndConversions(Value)->getBeginLoc();
  if (Fact.Origin && !SM.isInSystemHeader(Fact.Origin->getBeginLoc()))
    Loc = Fact.Origin->getBeginLoc();
  bool IsPointer = Value->getType()->isPointerType() ||
                   Value->getType()->isArrayType();
  diag(Loc, "'%0' is %1: %2", DiagnosticIDs::Note)
      << operandName(Value, Ctx)
      << (IsPointer ? pointerPlacementPhrase(Fact.Where)
                    : tensorPlacementPhrase(Fact.Where))
      << (Fact.Reason.empty() ? "assigned on several paths" : Fact.Reason);
}

void DeviceMismatchCheck::checkTensorOperation(const CallExpr *Call,
                                               ASTContext &Ctx) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !isInTorchNamespace(Callee))
    return;
  std::string Operation;
  llvm::SmallVector<const Expr *, 4> Operands;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
    switch (Op->getOperator()) {
    case OO_Equal:     // rebinds the handle
    case OO_Subscript: // host index tensors are allowed
    case OO_Call:
    case OO_Arrow:
      return;
    default:
      break;
    }
    if (isTensorPrint(Call))
      return;
    Operation =
        (llvm::Twine("operator") + getOperatorSpelling(Op->getOperator()))
            .str();
    for (const Expr *Arg : Op->arguments())
      collectTensors(Arg, Operands);
  } else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
    const Expr *Object = Member->getImplicitObjectArgument();
    if (!Object || !isTensorType(Object->getType()) ||
        !Callee->getIdentifier() ||
        isDeviceNeutralMethod(Callee->getName()))
      return;
    Operation = Callee->getName().str();
    Operands.push_back(Object);
    for (const Expr *Arg : Call->arguments())
      collectTensors(Arg, Operands);
  } else {
    if (!Callee->getIdentifier() || isa<CXXMethodDecl>(Callee) ||
        isDeviceNeutralFunction(Callee))
      return;
    Operation = Callee->getQualifiedNameAsString();
    for (const Expr *Arg : Call->arguments())
      collectTensors(Arg, Operands);
  }
  if (Operands.size() < 2)
    return;

  std::optional<Operand> DeviceOperand, HostOperand;
  const Stmt *ForcedAt = nullptr;
  bool DeviceFirst = false;
  for (const Expr *E : Operands) {
    PlacementFact Fact = Analyses->devices().tensorPlacement(E);
    if (isHostPlacement(Fact.Where)) {
      // A 0-dim CPU tensor is read as a scalar next to CUDA tensors.
      if (!HostOperand && !isZeroDimTensor(E) &&
          !(Fact.Origin && isa<Expr>(Fact.Origin) &&
            isZeroDimTensor(cast<Expr>(Fact.Origin))))
        HostOperand = Operand{E, Fact};
    } else if (!DeviceOperand && countsAsCuda(Fact, Call, Ctx, ForcedAt)) {
      DeviceOperand = Operand{E, Fact};
      DeviceFirst = !HostOperand;
    }
  }
  if (!DeviceOperand || !HostOperand)
    return;

  const Operand &First = DeviceFirst ? *DeviceOperand : *HostOperand;
  const Operand &Second = DeviceFirst ? *HostOperand : *DeviceOperand;
  diag(Call->getExprLoc(), "'%0' mixes a %1 tensor and a %2 tensor: %3")
      << Operation << placementName(First.Fact.Where)
      << placementName(Second.Fact.Where) << SameDeviceError;
  noteOrigin(First.Value, First.Fact, Ctx);
  noteOrigin(Second.Value, Second.Fact, Ctx);
  noteRunTimeDevice(DeviceOperand->Fact.Where, ForcedAt);
}

void DeviceMismatchCheck::checkModuleCall(const CallExpr *Call,
                                          const Expr *Module,
                                          ASTContext &Ctx) {
  PlacementFact ModuleFact = Analyses->devices().modulePlacement(Module);
  const Stmt *ForcedAt = nullptr;
  bool ModuleOnHost = isHostPlacement(ModuleFact.Where);
  bool ModuleOnDevice =
      !ModuleOnHost && countsAsCuda(ModuleFact, Call, Ctx, ForcedAt);
  if (!ModuleOnHost && !ModuleOnDevice)
    return;

  llvm::SmallVector<const Expr *, 4> Inputs;
  unsigned FirstInput = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
  for (unsigned I = FirstInput; I < Call->getNumArgs(); ++I)
    collectTensors(Call->getArg(I), Inputs);
  for (const Expr *Input : Inputs) {
    PlacementFact InputFact = Analyses->devices().tensorPlacement(Input);
    bool Mismatch = false;
    if (ModuleOnDevice)
      Mismatch = isHostPlacement(InputFact.Where);
    else
      Mismatch = countsAsCuda(InputFact, Call, Ctx, ForcedAt);
    if (!Mismatch)
      continue;
    const Expr *ModuleName = Module->IgnoreParenImpCasts();
    if (const auto *Arrow = dyn_cast<CXXOperatorCallExpr>(ModuleName))
      ModuleName = Arrow->getArg(0);
    diag(Call->getExprLoc(),
         "calling '%0' mixes a %1 module and a %2 tensor: %3")
        << operandName(ModuleName, Ctx) << placementName(ModuleFact.Where)
        << placementName(InputFact.Where) << SameDeviceError;
    noteOrigin(ModuleName, ModuleFact, Ctx);
    noteOrigin(Input, InputFact, Ctx);
    noteRunTimeDevice(ModuleOnDevice ? ModuleFact.Where : InputFact.Where,
                      ForcedAt);
    return;
  }
}

void DeviceMismatchCheck::checkDiscardedMove(const CXXMemberCallExpr *Call,
                                             ASTContext &Ctx) {
  std::optional<TorchCall> Torch = identifyTorchCall(Call);
  if (!Torch)
    return;
  if (Torch->Op == TorchOp::To) {
    // Only a device change; a dtype-only to() is a different mistake.
    if (Call->getNumArgs() == 0)
      return;
    const Expr *Target = Call->getArg(0);
    if (!isTensorType(Target->getType()) && !Analyses->devices().deviceValue(Target))
      return;
  } else if (Torch->Op != TorchOp::Cuda && Torch->Op != TorchOp::Cpu) {
    return;
  }
  const Expr *Object = Call->getImplicitObjectArgument()->IgnoreParenImpCasts();
  if (!isa<DeclRefExpr, MemberExpr>(Object))
    return; // a temporary: nothing stays behind
  std::string Name = operandName(Object, Ctx);
  PlacementFact Fact = Analyses->devices().tensorPlacement(Object);
  std::string Stays = Fact.Where == Placement::Unknown
                          ? "stays where it was"
                          : "stays " + tensorPlacementPhrase(Fact.Where);
  auto Diag = diag(Call->getExprLoc(),
                   "the tensor returned by '%0' is discarded: a tensor is not "
                   "moved in place (unlike a module), so '%1' %2")
              << Torch->Spelling << Name << Stays;
  SourceLocation Begin = Call->getBeginLoc();
  if (Begin.isFileID())
    Diag << FixItHint::CreateInsertion(Begin, Name + " = ");
}

void DeviceMismatchCheck::checkMemcpyKind(const CallExpr *Call,
                                          ASTContext &Ctx) {
  std::optional<CudaApi> Api = identifyCudaCall(Call);
  unsigned SourceIndex;
  switch (*Api) {
  case CudaApi::Memcpy:
  case CudaApi::MemcpyAsync:
    SourceIndex = 1;
    break;
  case CudaApi::Memcpy2D:
  case CudaApi::Memcpy2DAsync:
    SourceIndex = 2;
    break;
  default:
    return;
  }
  std::optional<unsigned> KindIndex = memcpyKindArgIndex(*Api);
  if (!KindIndex || *KindIndex >= Call->getNumArgs())
    return;
  const Expr *KindArg = Call->getArg(*KindIndex);
  std::optional<MemcpyDirection> Kind = evaluateMemcpyKind(KindArg, Ctx);
  if (!Kind || *Kind == MemcpyDirection::Default)
    return;
  bool KindDstOnDevice = *Kind == MemcpyDirection::HostToDevice ||
                         *Kind == MemcpyDirection::DeviceToDevice;
  bool KindSrcOnDevice = *Kind == MemcpyDirection::DeviceToHost ||
                         *Kind == MemcpyDirection::DeviceToDevice;

  const Expr *Dst = Call->getArg(0);
  const Expr *Src = Call->getArg(SourceIndex);
  PlacementFact DstFact = Analyses->devices().pointerPlacement(Dst);
  PlacementFact SrcFact = Analyses->devices().pointerPlacement(Src);
  Side DstSide = pointerSide(DstFact.Where);
  Side SrcSide = pointerSide(SrcFact.Where);
  bool DstWrong = DstSide != Side::Unknown &&
                  (DstSide == Side::Device) != KindDstOnDevice;
  bool SrcWrong = SrcSide != Side::Unknown &&
                  (SrcSide == Side::Device) != KindSrcOnDevice;
  if (!DstWrong && !SrcWrong)
    return;

  std::string Contradiction;
  if (DstWrong)
    Contradiction = "the destination '" + operandName(Dst, Ctx) + "' is " +
                    pointerPlacementPhrase(DstFact.Where);
  if (SrcWrong)
    Contradiction += (DstWrong ? " and the source '" : "the source '") +
                     operandName(Src, Ctx) + "' is " +
                     pointerPlacementPhrase(SrcFact.Where);

  // The right kind is certain when both sides are known, unless the kind is
  // exactly reversed: then the arguments may be the swapped part instead.
  std::optional<MemcpyDirection> Correct;
  if (DstSide != Side::Unknown && SrcSide != Side::Unknown)
    Correct = directionOf(SrcSide == Side::Device, DstSide == Side::Device);
  bool Ambiguous = Correct && DstWrong && SrcWrong &&
                   *Kind != MemcpyDirection::HostToHost &&
                   *Kind != MemcpyDirection::DeviceToDevice &&
                   *Correct != MemcpyDirection::HostToHost &&
                   *Correct != MemcpyDirection::DeviceToDevice;
  bool CanRewriteKind =
      isa<DeclRefExpr>(KindArg->IgnoreParenImpCasts()) &&
      KindArg->getBeginLoc().isFileID();

  {
    auto Diag = diag(Call->getExprLoc(),
                     "'%0' is given %1 but %2: a copy kind that contradicts "
                     "its pointers is undefined behavior")
                << cudaApiName(*Api) << memcpyKindName(*Kind)
                << Contradiction;
    if (Correct && !Ambiguous && CanRewriteKind)
      Diag << FixItHint::CreateReplacement(KindArg->getSourceRange(),
                                           memcpyKindName(*Correct));
  }
  if (DstSide != Side::Unknown)
    noteOrigin(Dst, DstFact, Ctx);
  if (SrcSide != Side::Unknown)
    noteOrigin(Src, SrcFact, Ctx);
  if (Correct && Ambiguous && CanRewriteKind)
    diag(KindArg->getBeginLoc(),
         "use %0 if the arguments are in the intended order; otherwise swap "
         "the destination and the source",
         DiagnosticIDs::Note)
        << memcpyKindName(*Correct)
        << FixItHint::CreateReplacement(KindArg->getSourceRange(),
                                        memcpyKindName(*Correct));
}

void DeviceMismatchCheck::checkKernelArguments(const CallExpr *Launch,
                                               ASTContext &Ctx) {
  if (isInDeviceCode(Launch, Ctx))
    return;
  llvm::SmallVector<const Expr *, 4> Pointers;
  std::string Kernel;
  if (const auto *KernelCall = dyn_cast<CUDAKernelCallExpr>(Launch)) {
    if (const FunctionDecl *Callee = KernelCall->getDirectCallee())
      Kernel = Callee->getNameAsString();
    for (const Expr *Arg : KernelCall->arguments())
      if (Arg->getType()->isPointerType())
        Pointers.push_back(Arg);
  } else {
    if (Launch->getNumArgs() < 4)
      return;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(
            Launch->getArg(0)->IgnoreParenCasts()))
      Kernel = Ref->getDecl()->getNameAsString();
    collectLaunchArguments(Launch->getArg(3), Pointers);
  }
  for (const Expr *Pointer : Pointers) {
    PlacementFact Fact = Analyses->devices().pointerPlacement(Pointer);
    // Pinned memory from cudaMallocHost/cudaHostAlloc/cudaHostRegister is
    // mapped into the device's address space under unified addressing.
    if (Fact.Where != Placement::Cpu)
      continue;
    diag(Pointer->getBeginLoc(),
         "host memory '%0' is passed to the kernel '%1', which cannot access "
         "it (an illegal memory access at run time): pass device, managed or "
         "mapped memory")
        << operandName(Pointer, Ctx) << Kernel;
    noteOrigin(Pointer, Fact, Ctx);
  }
}

void DeviceMismatchCheck::checkHostAccess(const Expr *Access,
                                          const Expr *Pointer,
                                          llvm::StringRef What,
                                          ASTContext &Ctx) {
  if (isInDeviceCode(Access, Ctx) || isUnevaluated(Access, Ctx))
    return;
  PlacementFact Fact = Analyses->devices().pointerPlacement(Pointer);
  // On a device chosen at run time (`t.to(device).data_ptr()`) in a program
  // that uses CUDA, a GPU run reads device memory: the run that matters.
  const Stmt *ForcedAt = nullptr;
  if (!countsAsCuda(Fact, Access, Ctx, ForcedAt))
    return;
  diag(Access->getExprLoc(),
       "%select{device memory|memory that is on the GPU when the program "
       "runs on one,}2 '%0'%select{|,}2 is %1 in host code, which cannot "
       "access it (a crash or garbage at run time): copy it %select{with "
       "cudaMemcpy, or use managed memory|to the host first (cpu())}3")
      << operandName(Pointer, Ctx) << What
      << (Fact.Where == Placement::MaybeCuda) << isTensorStorage(Pointer);
  noteOrigin(Pointer, Fact, Ctx);
}

void DeviceMismatchCheck::checkMemset(const CallExpr *Call, ASTContext &Ctx) {
  if (isInDeviceCode(Call, Ctx) || Call->getNumArgs() < 1)
    return;
  const Expr *Pointer = Call->getArg(0);
  PlacementFact Fact = Analyses->devices().pointerPlacement(Pointer);
  // Pageable memory cannot be set; pinned memory is mapped under unified
  // addressing, so the call works, but the GPU writes every byte across
  // the host link.
  bool Pinned = Fact.Where == Placement::PinnedCpu;
  if (!Pinned && Fact.Where != Placement::Cpu)
    return;
  diag(Call->getExprLoc(),
       "'%0' is given %select{host memory '%1', which it cannot set (an "
       "invalid argument error at run time):|pinned host memory '%1': the GPU "
       "sets it across the host link where a host memset is local;}2 use "
       "memset or std::fill for host memory, or pass device memory")
      << Call->getDirectCallee()->getName() << operandName(Pointer, Ctx)
      << Pinned;
  noteOrigin(Pointer, Fact, Ctx);
}

void DeviceMismatchCheck::checkFree(const CallExpr *Call, CudaApi Api,
                                    ASTContext &Ctx) {
  if (isInDeviceCode(Call, Ctx) || Call->getNumArgs() != 1)
    return;
  const Expr *Pointer = Call->getArg(0);
  PlacementFact Fact = Analyses->devices().pointerPlacement(Pointer);
  // cudaFree of pinned host memory, cudaFreeHost of device memory.
  bool FreesPinned = Api == CudaApi::Free && Fact.Where == Placement::PinnedCpu;
  bool FreesDevice = Api == CudaApi::FreeHost && Fact.Where == Placement::Cuda;
  if (!FreesPinned && !FreesDevice)
    return;
  llvm::StringRef Right = FreesPinned ? "cudaFreeHost" : "cudaFree";
  // The replacement is certain only for memory the matching allocator
  // returned: registered memory (cudaHostRegister) must be unregistered and
  // freed by its own allocator, and a tensor's storage is not to be freed.
  std::optional<CudaApi> Allocator = allocationApi(Fact.Origin);
  bool Certain =
      Allocator && (FreesPinned ? (*Allocator == CudaApi::MallocHost ||
                                   *Allocator == CudaApi::HostAlloc)
                                : *Allocator == CudaApi::Malloc);
  const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
  bool CanRewrite = Certain && isa<DeclRefExpr>(Callee) &&
                    Callee->getBeginLoc().isFileID() &&
                    !cast<DeclRefExpr>(Callee)->hasQualifier();
  {
    auto Diag = diag(Call->getExprLoc(),
                     "'%0' is given %1 '%2', which it cannot free (an "
                     "invalid argument error at run time, and the memory "
                     "leaks)%select{|: free it with %4}3")
                << cudaApiName(Api) << pointerPlacementPhrase(Fact.Where)
                << operandName(Pointer, Ctx) << Certain << Right;
    if (CanRewrite)
      Diag << FixItHint::CreateReplacement(Callee->getSourceRange(), Right);
  }
  noteOrigin(Pointer, Fact, Ctx);
}

} // namespace clang::tidy::xfer
