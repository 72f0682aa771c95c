//===--- DeviceInference.cpp - where a tensor or pointer lives ------------===//

#include "analysis/DeviceInference.h"
#include "analysis/ApiCatalogue.h"
#include "analysis/AstUtils.h"
#include "analysis/AstWalk.h"
#include "analysis/ProjectFacts.h"
#include "analysis/StepFunctions.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/ScopeExit.h"

namespace clang::tidy::xfer {

llvm::StringRef placementName(Placement P) {
  switch (P) {
  case Placement::Unknown:
    return "unknown";
  case Placement::Cpu:
    return "cpu";
  case Placement::PinnedCpu:
    return "pinned cpu";
  case Placement::Cuda:
    return "cuda";
  case Placement::MaybeCuda:
    return "maybe-cuda";
  case Placement::Managed:
    return "managed";
  }
  llvm_unreachable("unknown placement");
}

Placement joinPlacements(Placement A, Placement B) {
  if (A == B)
    return A;
  if (A == Placement::Unknown || B == Placement::Unknown)
    return Placement::Unknown;
  if (isHostPlacement(A) && isHostPlacement(B))
    return Placement::Cpu;
  if ((isHostPlacement(A) || isDeviceSide(A)) &&
      (isHostPlacement(B) || isDeviceSide(B)))
    return Placement::MaybeCuda;
  return Placement::Unknown;
}

namespace {

PlacementFact fact(Placement Where, const Stmt *Origin, std::string Reason) {
  return PlacementFact{Where, Origin, std::move(Reason)};
}

/// True if \p Value is an explicit placement change (`t.to(device)`,
/// `t.cuda()`).
bool isExplicitMove(const Expr *Value) {
  const auto *Call =
      Value ? dyn_cast<CallExpr>(ignoreTemporaries(Value)) : nullptr;
  if (!Call)
    return false;
  if (std::optional<TorchCall> Torch = identifyTorchCall(Call))
    return Torch->Op == TorchOp::To || Torch->Op == TorchOp::Cuda;
  // Module::to(device), module->to(device).
  const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
  const CXXMethodDecl *Method = Member ? Member->getMethodDecl() : nullptr;
  return Method && Method->getIdentifier() &&
         (Method->getName() == "to" || Method->getName() == "cuda") &&
         isModuleType(Member->getImplicitObjectArgument()->getType());
}

/// Down to the value a tensor or device expression was built from: besides
/// temporaries, copies and conversions, an explicit construction such as
/// torch::Device(torch::kCUDA, 1) takes its device from its first argument.
const Expr *stripValueWrappers(const Expr *E) {
  while (E) {
    E = ignoreTemporaries(E);
    if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(E))
      E = Cast->getSubExpr();
    else if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
             Construct && Construct->getNumArgs() >= 1 &&
             (Construct->getConstructor()->isCopyOrMoveConstructor() ||
              Construct->getConstructor()->isConvertingConstructor(false)) &&
             !isa<CXXDefaultArgExpr>(Construct->getArg(0)))
      E = Construct->getArg(0);
    else
      return E;
  }
  return E;
}

/// The argument of a call that carries the target device: the first
/// parameter of type TensorOptions or Device.
const Expr *optionsArgument(const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD)
    return nullptr;
  for (unsigned I = 0; I < Call->getNumArgs() && I < FD->getNumParams();
       ++I) {
    QualType T = FD->getParamDecl(I)->getType().getNonReferenceType();
    const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
    if (RD && (isNamed(RD, "TensorOptions") || isNamed(RD, "Device")))
      return Call->getArg(I);
  }
  return nullptr;
}

/// The variable a pointer-allocating call writes: `&p`, `(void **)&p`.
const VarDecl *allocatedVariable(const Expr *Arg) {
  Arg = Arg->IgnoreParenCasts();
  const auto *AddrOf = dyn_cast<UnaryOperator>(Arg);
  if (!AddrOf || AddrOf->getOpcode() != UO_AddrOf)
    return nullptr;
  const auto *Ref =
      dyn_cast<DeclRefExpr>(AddrOf->getSubExpr()->IgnoreParenImpCasts());
  return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

/// The member a pointer-allocating call writes: `&member_`,
/// `(void **)&this->member_`.
const FieldDecl *allocatedField(const Expr *Arg) {
  const auto *AddrOf = dyn_cast<UnaryOperator>(Arg->IgnoreParenCasts());
  if (!AddrOf || AddrOf->getOpcode() != UO_AddrOf)
    return nullptr;
  const auto *Member =
      dyn_cast<MemberExpr>(AddrOf->getSubExpr()->IgnoreParenImpCasts());
  return Member ? dyn_cast<FieldDecl>(Member->getMemberDecl()) : nullptr;
}

/// True for the CUDA allocators that return the pointer through their first
/// argument.
bool allocatesThroughFirstArgument(CudaApi Api) {
  // cudaGetSymbolAddress(&p, symbol) allocates nothing, but stores a device
  // address through its first argument the same way.
  return Api == CudaApi::Malloc || Api == CudaApi::MallocManaged ||
         Api == CudaApi::MallocHost || Api == CudaApi::HostAlloc ||
         Api == CudaApi::GetSymbolAddress;
}

const VarDecl *assignedVariable(const Expr *LHS) {
  const auto *Ref = dyn_cast<DeclRefExpr>(LHS->IgnoreParenImpCasts());
  return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

/// torch::nn::Module or a class derived from it.
bool isModuleClass(const CXXRecordDecl *RD) {
  if (!RD)
    return false;
  if (isNamed(RD, "Module")) {
    const auto *NS = dyn_cast<NamespaceDecl>(RD->getDeclContext());
    return NS && NS->getName() == "nn";
  }
  if (!RD->hasDefinition())
    return false;
  for (const CXXBaseSpecifier &Base : RD->getDefinition()->bases())
    if (isModuleClass(Base.getType()->getAsCXXRecordDecl()))
      return true;
  return false;
}

/// `module.forward(inputs)` (or run_method) of a TorchScript module.
bool isScriptModuleRun(const CallExpr *Call) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
  const CXXMethodDecl *Method = Member ? Member->getMethodDecl() : nullptr;
  if (!Method || !Method->getIdentifier() ||
      (Method->getName() != "forward" && Method->getName() != "run_method"))
    return false;
  const CXXRecordDecl *Class = Method->getParent();
  for (const DeclContext *DC = Class->getDeclContext(); DC;
       DC = DC->getParent())
    if (const auto *NS = dyn_cast<NamespaceDecl>(DC); NS && isNamed(NS, "jit"))
      return true;
  return false;
}

/// What an IValue read as a tensor was computed from: for
/// `pred.toTensor()` or `pred.toTuple()->elements()[0].toTensor()`, the
/// expression `pred` stands for (its initializer) or the script module call
/// itself.
const Expr *ivalueOrigin(const CallExpr *ToTensor) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(ToTensor);
  const CXXMethodDecl *Method = Member ? Member->getMethodDecl() : nullptr;
  if (!Method || !isNamed(Method, "toTensor") ||
      !isNamed(Method->getParent(), "IValue"))
    return nullptr;
  const Expr *E = Member->getImplicitObjectArgument();
  for (unsigned Depth = 0; E && Depth < 8; ++Depth) {
    E = stripValueWrappers(E);
    if (!E)
      return nullptr;
    if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      return Var && Var->getInit() ? Var->getInit() : nullptr;
    }
    if (const auto *Call = dyn_cast<CallExpr>(E)) {
      if (isScriptModuleRun(Call))
        return Call;
      // toTuple(), elements(), operator[], operator-> on the way down.
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
        E = Op->getNumArgs() ? Op->getArg(0) : nullptr;
        continue;
      }
      if (const auto *Inner = dyn_cast<CXXMemberCallExpr>(Call)) {
        E = Inner->getImplicitObjectArgument();
        continue;
      }
      return nullptr;
    }
    return nullptr;
  }
  return nullptr;
}

/// The tensors written in a script module's inputs: `{data}`, `inputs`.
void collectTensorOperands(const Stmt *S, llvm::SmallVectorImpl<const Expr *> &Out) {
  if (!S)
    return;
  if (const auto *E = dyn_cast<Expr>(S);
      E && isa<DeclRefExpr, MemberExpr, CallExpr>(E) &&
      isTensorType(E->getType())) {
    Out.push_back(E);
    return;
  }
  for (const Stmt *Child : S->children())
    collectTensorOperands(Child, Out);
}

/// The tensors a script module's input vector was filled with, when its
/// argument is a local `std::vector<IValue>`: its initializer and what the
/// enclosing function push_back()s or emplace_back()s into it (the
/// tutorial's `inputs.push_back(x.to(device)); module.forward(inputs)`).
void collectPushedInputs(const CallExpr *Run, ASTContext &Ctx,
                         llvm::SmallVectorImpl<const Expr *> &Out) {
  const auto *Ref =
      dyn_cast_or_null<DeclRefExpr>(ignoreCopiesAndConversions(Run->getArg(0)));
  const auto *Vector = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  const FunctionDecl *Function = enclosingFunction(Run, Ctx);
  if (!Vector || !Vector->hasLocalStorage() || !Function ||
      !Function->hasBody())
    return;
  collectTensorOperands(Vector->getInit(), Out);
  walkStmt(Function->getBody(), [&](const Stmt &S) {
    const auto *Push = dyn_cast<CXXMemberCallExpr>(&S);
    const CXXMethodDecl *Method = Push ? Push->getMethodDecl() : nullptr;
    if (!Method || !Method->getIdentifier() ||
        (Method->getName() != "push_back" &&
         Method->getName() != "emplace_back"))
      return WalkStep::Continue;
    const auto *Object = dyn_cast<DeclRefExpr>(
        Push->getImplicitObjectArgument()->IgnoreParenImpCasts());
    if (Object && Object->getDecl() == Vector)
      for (const Expr *Arg : Push->arguments())
        collectTensorOperands(Arg, Out);
    return WalkStep::Continue;
  });
}

/// The operands an argument passes: itself, or the elements of a braced
/// list (`torch::cat({x, y})`).
void argumentOperands(const Expr *Arg,
                      llvm::SmallVectorImpl<const Expr *> &Out) {
  Arg = ignoreTemporaries(Arg);
  if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(Arg))
    Arg = ignoreTemporaries(List->getSubExpr());
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(Arg);
      Construct && Construct->getNumArgs() == 1)
    if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(
            ignoreTemporaries(Construct->getArg(0))))
      Arg = ignoreTemporaries(List->getSubExpr());
  if (const auto *Init = dyn_cast<InitListExpr>(Arg))
    Out.append(Init->inits().begin(), Init->inits().end());
  else
    Out.push_back(Arg);
}

/// The arguments of `std::tie(a, b)` when \p E is such a call.
llvm::ArrayRef<const Expr *> tiedVariables(const Expr *E) {
  const auto *Tie = dyn_cast_or_null<CallExpr>(ignoreTemporaries(E));
  const FunctionDecl *Callee = Tie ? Tie->getDirectCallee() : nullptr;
  if (!Callee || !isNamed(Callee, "tie") || outermostNamespace(Callee) != "std")
    return {};
  return llvm::ArrayRef(Tie->getArgs(), Tie->getNumArgs());
}

/// True for a module that holds layers (a Linear, a Sequential, a module of
/// its own as a member): a model, whose inputs go where its weights are,
/// rather than a data transform written as a module.
bool holdsSubmodules(const CXXRecordDecl *RD) {
  if (!RD || !RD->hasDefinition())
    return false;
  auto IsModuleOrHolder = [](QualType T) {
    const CXXRecordDecl *Field = T->getAsCXXRecordDecl();
    if (!Field)
      return false;
    if (isModuleClass(Field) || isNamed(Field, "ModuleHolder"))
      return true;
    if (!Field->hasDefinition())
      return false;
    for (const CXXBaseSpecifier &Base : Field->getDefinition()->bases())
      if (const CXXRecordDecl *B = Base.getType()->getAsCXXRecordDecl();
          B && isNamed(B, "ModuleHolder"))
        return true;
    return false;
  };
  for (const FieldDecl *Field : RD->getDefinition()->fields())
    if (IsModuleOrHolder(Field->getType()))
      return true;
  return false;
}

/// The reference to the variable a module expression names: `m`, `*m`,
/// `m->` (the object of a member call through ModuleHolder or shared_ptr).
const DeclRefExpr *moduleReference(const Expr *E) {
  E = E ? E->IgnoreParenImpCasts() : nullptr;
  if (const auto *Op = dyn_cast_or_null<CXXOperatorCallExpr>(E))
    if ((Op->getOperator() == OO_Arrow || Op->getOperator() == OO_Star) &&
        Op->getNumArgs() == 1)
      E = Op->getArg(0)->IgnoreParenImpCasts();
  if (const auto *Unary = dyn_cast_or_null<UnaryOperator>(E))
    if (Unary->getOpcode() == UO_Deref)
      E = Unary->getSubExpr()->IgnoreParenImpCasts();
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(E);
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return Var && isModuleType(Var->getType()) ? Ref : nullptr;
}

const VarDecl *moduleVariable(const Expr *E) {
  const DeclRefExpr *Ref = moduleReference(E);
  return Ref ? cast<VarDecl>(Ref->getDecl()) : nullptr;
}

/// For `e.data` / `e.target` of a torch::data::Example the program built
/// itself (`Example<> e(data, target)`), the argument it was built from.
const Expr *exampleArgument(const MemberExpr *Member) {
  const auto *Ref =
      dyn_cast<DeclRefExpr>(Member->getBase()->IgnoreParenImpCasts());
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Var || !Var->hasLocalStorage() || !Var->getInit())
    return nullptr;
  const Expr *Init = ignoreTemporaries(Var->getInit());
  if (const auto *Cast = dyn_cast<CXXFunctionalCastExpr>(Init))
    Init = ignoreTemporaries(Cast->getSubExpr());
  const auto *Construct = dyn_cast<CXXConstructExpr>(Init);
  if (!Construct || Construct->getNumArgs() < 2 ||
      Construct->getConstructor()->isCopyOrMoveConstructor())
    return nullptr;
  const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
  if (!Field || !Field->getIdentifier())
    return nullptr;
  if (Field->getName() == "data")
    return Construct->getArg(0);
  if (Field->getName() == "target")
    return Construct->getArg(1);
  return nullptr;
}

/// `module->to(device)`: Module::to with a device, which moves in place.
const CXXMemberCallExpr *asModuleMove(const Expr *E) {
  const auto *Call = dyn_cast_or_null<CXXMemberCallExpr>(E);
  if (!Call || Call->getNumArgs() == 0)
    return nullptr;
  const CXXMethodDecl *Method = Call->getMethodDecl();
  if (!Method || !isNamed(Method, "to") || !isModuleClass(Method->getParent()))
    return nullptr;
  const CXXRecordDecl *First = Method->getParamDecl(0)
                                   ->getType()
                                   .getNonReferenceType()
                                   ->getAsCXXRecordDecl();
  return isNamed(First, "Device") ? Call : nullptr; // not a dtype-only to()
}

bool isHostAllocationFunction(const FunctionDecl *FD) {
  if (!FD || !FD->getIdentifier())
    return false;
  llvm::StringRef Name = FD->getName();
  return Name == "malloc" || Name == "calloc" || Name == "realloc" ||
         Name == "aligned_alloc";
}

/// The outermost lambda around \p Use that \p Var is declared outside of.
const LambdaExpr *outermostLambdaCapturing(const Expr *Use,
                                           const VarDecl *Var) {
  ASTContext &Ctx = Var->getASTContext();
  const LambdaExpr *Outermost = nullptr;
  DynTypedNodeList Parents = Ctx.getParents(*Use);
  while (!Parents.empty()) {
    const DynTypedNode *Next = &Parents[0];
    for (const DynTypedNode &P : Parents)
      if (P.get<LambdaExpr>())
        Next = &P; // the body's parents are the lambda and its operator()
    if (const auto *Method = Next->get<CXXMethodDecl>();
        Method && Method->getParent()->isLambda()) {
      // From the call operator through its closure class to the lambda.
      DynTypedNodeList ClassParents = Ctx.getParents(*Method->getParent());
      if (ClassParents.empty())
        break;
      Parents = ClassParents;
      continue;
    }
    if (const auto *Lambda = Next->get<LambdaExpr>()) {
      if (Lambda->getCallOperator()->Encloses(Var->getDeclContext()))
        break;
      Outermost = Lambda;
    } else if (Next->get<FunctionDecl>()) {
      break;
    }
    Parents = Ctx.getParents(*Next);
  }
  return Outermost;
}

/// True for LibTorch modules without parameters or buffers (losses,
/// activations, dropout, pooling, reshaping): they run on whatever device
/// their inputs are on, so where they were built says nothing.
bool isParameterFreeModuleType(QualType T) {
  const CXXRecordDecl *RD =
      T.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
  if (!RD)
    return false;
  // The Impl class: the template argument of a ModuleHolder, the type's own
  // ModuleHolder base's, or the class itself.
  auto ImplOf = [](const CXXRecordDecl *Holder) -> const CXXRecordDecl * {
    const auto *Spec = dyn_cast<ClassTemplateSpecializationDecl>(Holder);
    if (!Spec || !isNamed(Spec, "ModuleHolder") ||
        Spec->getTemplateArgs().size() < 1 ||
        Spec->getTemplateArgs()[0].getKind() != TemplateArgument::Type)
      return nullptr;
    return Spec->getTemplateArgs()[0].getAsType()->getAsCXXRecordDecl();
  };
  const CXXRecordDecl *Impl = ImplOf(RD);
  if (!Impl && RD->hasDefinition())
    for (const CXXBaseSpecifier &Base : RD->getDefinition()->bases())
      if (const CXXRecordDecl *BaseRD = Base.getType()->getAsCXXRecordDecl())
        if ((Impl = ImplOf(BaseRD)))
          break;
  if (!Impl)
    Impl = RD;
  if (!Impl->getIdentifier() || !isInTorchNamespace(Impl))
    return false;
  llvm::StringRef Name = Impl->getName();
  Name.consume_back("Impl");
  if (Name.ends_with("Loss"))
    return true;
  for (llvm::StringRef Prefix : {"MaxPool", "AvgPool", "AdaptiveAvgPool",
                                 "AdaptiveMaxPool", "Dropout", "FeatureAlphaDropout"})
    if (Name.starts_with(Prefix))
      return true;
  return llvm::is_contained(
      {"ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "CELU", "GELU", "SiLU",
       "Mish", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Softplus",
       "Hardtanh", "Hardswish", "Hardsigmoid", "Flatten", "Unflatten",
       "Identity", "Upsample", "PixelShuffle", "AlphaDropout"},
      Name);
}

/// The values a function body returns (null for a bare `return;`), not
/// those of the lambdas it defines.
llvm::SmallVector<const Expr *, 4> returnedValues(const Stmt *Body) {
  llvm::SmallVector<const Expr *, 4> Values;
  WalkScope OutsideLambdas;
  OutsideLambdas.LambdaBodies = false;
  walkStmt(
      Body,
      [&](const Stmt &S) {
        if (const auto *Return = dyn_cast<ReturnStmt>(&S))
          Values.push_back(Return->getRetValue());
        return WalkStep::Continue;
      },
      nullptr, OutsideLambdas);
  return Values;
}

} // namespace

bool isModuleType(QualType T) {
  if (T.isNull())
    return false;
  const CXXRecordDecl *RD =
      T.getNonReferenceType().getCanonicalType()->getAsCXXRecordDecl();
  if (const auto *Spec =
          dyn_cast_or_null<ClassTemplateSpecializationDecl>(RD)) {
    if (isNamed(Spec, "ModuleHolder"))
      return true;
    if (isNamed(Spec, "shared_ptr") && Spec->getTemplateArgs().size() >= 1 &&
        Spec->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
      return isModuleType(Spec->getTemplateArgs()[0].getAsType());
  }
  // torch::nn::Linear and friends derive from ModuleHolder<...Impl>.
  if (RD && RD->hasDefinition())
    for (const CXXBaseSpecifier &Base : RD->getDefinition()->bases())
      if (const auto *BaseRD = Base.getType()->getAsCXXRecordDecl();
          BaseRD && isNamed(BaseRD, "ModuleHolder"))
        return true;
  return isModuleClass(RD);
}

/// Opens a public query: the outermost one gets a fresh step budget, nested
/// ones (a query asked while answering another) share it.
class DeviceInference::QueryBudget {
public:
  /// Steps (definitions and calls followed) one query may take. Ordinary
  /// code needs a few hundred at most; this is far above that.
  static constexpr unsigned StepsPerQuery = 20000;

  explicit QueryBudget(DeviceInference &Inference) : Inference(Inference) {
    if (Inference.OpenQueries++ == 0)
      Inference.StepsLeft = StepsPerQuery;
  }
  ~QueryBudget() { --Inference.OpenQueries; }
  QueryBudget(const QueryBudget &) = delete;
  QueryBudget &operator=(const QueryBudget &) = delete;

private:
  DeviceInference &Inference;
};

bool DeviceInference::takeStep() {
  if (StepsLeft == 0) {
    ++Cuts;
    return false;
  }
  --StepsLeft;
  return true;
}

PlacementFact DeviceInference::modulePlacement(const Expr *E) {
  QueryBudget Budget(*this);
  std::optional<PlacementFact> Result = evaluateModule(E);
  return Result ? *Result : PlacementFact{};
}

PlacementFact DeviceInference::tensorPlacement(const Expr *E) {
  QueryBudget Budget(*this);
  std::optional<PlacementFact> Result = evaluateTensor(E);
  return Result ? *Result : PlacementFact{};
}

std::optional<PlacementFact> DeviceInference::deviceValue(const Expr *E) {
  QueryBudget Budget(*this);
  return evaluateDevice(E);
}

PlacementFact DeviceInference::pointerPlacement(const Expr *E) {
  QueryBudget Budget(*this);
  std::optional<PlacementFact> Result = evaluatePointer(E);
  return Result ? *Result : PlacementFact{};
}

std::optional<PlacementFact> DeviceInference::evaluate(const Expr *E,
                                                       ValueKind Kind) {
  switch (Kind) {
  case ValueKind::Tensor:
    return evaluateTensor(E);
  case ValueKind::Device:
    return evaluateDevice(E);
  case ValueKind::Pointer:
    return evaluatePointer(E);
  case ValueKind::Module:
    return evaluateModule(E);
  case ValueKind::None:
    return PlacementFact{};
  }
  llvm_unreachable("unknown value kind");
}

std::optional<PlacementFact>
DeviceInference::evaluateTensor(const Expr *Original) {
  const Expr *E = stripValueWrappers(Original);
  if (!E)
    return PlacementFact{};

  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      return resolveVariable(Var, Ref, ValueKind::Tensor);
    return PlacementFact{};
  }

  // batch.data / batch.target of a LibTorch data loader's batch: the
  // loader collates on the host, and only the program moves them.
  if (const auto *Member = dyn_cast<MemberExpr>(E)) {
    if (isDataLoaderExample(Member->getBase()->getType())) {
      // An Example the program builds itself holds what it was given.
      if (const Expr *Given = exampleArgument(Member))
        return evaluateTensor(Given);
      return fact(Placement::Cpu, Member,
                  "a batch from a LibTorch data loader, on the host");
    }
    if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl()))
      return fieldPlacement(Field, ValueKind::Tensor);
    return PlacementFact{};
  }

  const auto *Call = dyn_cast<CallExpr>(E);
  if (!Call)
    return PlacementFact{};

  // std::get<N>(t) of the tuple a LibTorch operation returns (max(), sort()):
  // where the operation's tensors are.
  if (const FunctionDecl *Callee = Call->getDirectCallee();
      Callee && isNamed(Callee, "get") && Call->getNumArgs() == 1 &&
      Callee->isInStdNamespace() &&
      isTensorLikeType(Call->getArg(0)->getType()))
    return evaluateTensor(Call->getArg(0));

  if (std::optional<TorchCall> Torch = identifyTorchCall(Call)) {
    switch (Torch->Op) {
    case TorchOp::Cpu:
      return fact(Placement::Cpu, Call, "copied to the host by cpu()");
    case TorchOp::Cuda:
      return fact(Placement::Cuda, Call, "moved to the GPU by cuda()");
    case TorchOp::PinMemory:
      return fact(Placement::PinnedCpu, Call,
                  "copied to pinned host memory by pin_memory()");
    case TorchOp::To: {
      if (Call->getNumArgs() == 0)
        return evaluateTensor(Torch->Subject);
      const Expr *Target = Call->getArg(0);
      if (isTensorType(Target->getType())) {
        std::optional<PlacementFact> Other = evaluateTensor(Target);
        if (Other && Other->Where != Placement::Unknown)
          return fact(Other->Where, Call,
                      "moved by to() next to a " +
                          placementName(Other->Where).str() + " tensor");
        return Other;
      }
      std::optional<PlacementFact> Device = evaluateDevice(Target);
      if (!Device) // Only a dtype or layout change: the device stays.
        return evaluateTensor(Torch->Subject);
      if (Device->Where == Placement::Unknown)
        return Device;
      return fact(Device->Where, Call,
                  "moved by to() to a " + placementName(Device->Where).str() +
                      " device");
    }
    case TorchOp::Factory:
    case TorchOp::FromBlob: {
      const Expr *Options = optionsArgument(Call);
      std::optional<PlacementFact> Device =
          Options ? evaluateDevice(Options) : std::nullopt;
      if (!Device && Torch->Spelling.find("_like(") != std::string::npos &&
          Call->getNumArgs())
        return evaluateTensor(Call->getArg(0)); // zeros_like(t): where t is
      if (!Device)
        return fact(Placement::Cpu, Call,
                    "created on the host by " + Torch->Spelling +
                        " without a device");
      if (Device->Where == Placement::Unknown)
        return Device;
      return fact(Device->Where, Call,
                  "created by " + Torch->Spelling + " on a " +
                      placementName(Device->Where).str() + " device");
    }
    case TorchOp::Copy: // copy_ returns its (unchanged) destination
    case TorchOp::Nonzero:
    case TorchOp::MaskedSelect:
    case TorchOp::MaskIndex:
    case TorchOp::Unique:
    case TorchOp::CheckedLinalg:
    case TorchOp::IndexWithTensor:
      if (Torch->Op == TorchOp::IndexWithTensor)
        if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call))
          return evaluateTensor(Op->getArg(0));
      return evaluateTensor(Torch->Subject);
    default:
      break;
    }
  }

  // A TorchScript module's outputs, read from the IValue it returns, are
  // where its inputs are.
  if (const Expr *Origin = ivalueOrigin(Call)) {
    const auto *Run = dyn_cast<CallExpr>(stripValueWrappers(Origin));
    if (!Run || !isScriptModuleRun(Run) || Run->getNumArgs() == 0)
      return PlacementFact{};
    llvm::SmallVector<const Expr *, 4> Inputs;
    collectTensorOperands(Run->getArg(0), Inputs);
    collectPushedInputs(Run, Ctx, Inputs);
    for (const Expr *Input : Inputs) {
      std::optional<PlacementFact> Where = evaluateTensor(Input);
      if (Where && Where->Where != Placement::Unknown)
        return fact(Where->Where, Call,
                    "the output of a TorchScript module run on a " +
                        placementName(Where->Where).str() + " input");
    }
    return PlacementFact{};
  }

  // A registered parameter or buffer belongs to its module and moves with
  // it: where the module is, not where the tensor was made.
  if (const FunctionDecl *Callee = Call->getDirectCallee();
      Callee && (isNamed(Callee, "register_parameter") ||
                 isNamed(Callee, "register_buffer")))
    return PlacementFact{};

  // Other tensor operations keep the device of their tensor operands: a
  // method keeps its object's, a function or operator its first known
  // operand's. Module calls (model->forward(x)) run where their inputs are.
  if (!isTensorLikeType(Call->getType()))
    return PlacementFact{};
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee)
    return PlacementFact{};
  const Expr *Object = nullptr;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    Object = Member->getImplicitObjectArgument();
  else if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call);
           Operator && isa<CXXMethodDecl>(Callee) && Operator->getNumArgs())
    Object = Operator->getArg(0); // t[i], t + u as members of Tensor
  if (Object && isTensorType(Object->getType())) {
    std::optional<PlacementFact> Self = evaluateTensor(Object);
    if (Self && Self->Where != Placement::Unknown)
      return mixesDevices(Call, Object, *Self) ? PlacementFact{} : *Self;
    // x.matmul(w), x + w: an operation only runs when its operands share a
    // device (0-dim host scalars aside), so a known operand tells.
    for (const Expr *Arg : Call->arguments()) {
      if (Arg == Object || !isTensorType(Arg->getType()))
        continue;
      std::optional<PlacementFact> Operand = evaluateTensor(Arg);
      if (Operand && Operand->Where != Placement::Unknown &&
          !isHostPlacement(Operand->Where))
        return Operand;
    }
    return Self;
  }
  // outputs[0], results.at(i), batch.front() of a container of tensors:
  // where the container's tensors are.
  if (const auto *Method = dyn_cast<CXXMethodDecl>(Callee);
      Method && Object && isTensorLikeType(Object->getType()) &&
      Method->getParent()->isInStdNamespace())
    return evaluateTensor(Object);
  bool IsUserFunction = !isInTorchNamespace(Callee) &&
                        !Ctx.getSourceManager().isInSystemHeader(
                            Callee->getLocation());
  // Modules (torch::nn::*Impl, Module, ModuleHolder) run where their
  // inputs are.
  // So do the user's own modules: a forward() reads the module's
  // parameters, which live where the inputs must.
  if (const auto *Method = dyn_cast<CXXMethodDecl>(Callee)) {
    const CXXRecordDecl *Class = Method->getParent();
    if ((Class->getIdentifier() && (Class->getName().ends_with("Impl") ||
                                    isNamed(Class, "ModuleHolder"))) ||
        isModuleClass(Class))
      IsUserFunction = false;
  }
  // A function defined here is evaluated through its body; one defined in
  // another file is taken to compute on its tensor arguments, like the
  // LibTorch operations it is built from (a loss functor, a metric).
  if (IsUserFunction)
    if (std::optional<PlacementFact> Returned =
            evaluateUserCall(Call, ValueKind::Tensor))
      return Returned;
  unsigned First = isa<CXXOperatorCallExpr>(Call) &&
                           isa<CXXMethodDecl>(Callee)
                       ? 1
                       : 0;
  // Operands whose placement is still being evaluated (a loop-carried
  // X = X * s) say nothing; only an operand known to be unknown does.
  bool SawCycle = false, SawUnknown = false;
  for (unsigned I = First; I < Call->getNumArgs(); ++I) {
    llvm::SmallVector<const Expr *, 4> Operands;
    argumentOperands(Call->getArg(I), Operands);
    for (const Expr *Operand : Operands) {
      if (!isTensorLikeType(Operand->getType()))
        continue;
      std::optional<PlacementFact> Where = evaluateTensor(Operand);
      if (Where && Where->Where != Placement::Unknown)
        return mixesDevices(Call, Operand, *Where) ? PlacementFact{} : *Where;
      (Where ? SawUnknown : SawCycle) = true;
    }
  }
  if (SawCycle && !SawUnknown)
    return std::nullopt;
  return PlacementFact{};
}

bool DeviceInference::mixesDevices(const CallExpr *Call, const Expr *Evaluated,
                                   const PlacementFact &EvaluatedPlacement) {
  // The operation throws on a GPU run (the mismatch check reports it); what
  // it would compute has no placement, and reporting its later uses again
  // would repeat that one bug. 0-dim host tensors mix freely: they are read
  // as scalars.
  llvm::SmallVector<const Expr *, 4> Operands;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    Operands.push_back(Member->getImplicitObjectArgument());
  for (const Expr *Arg : Call->arguments())
    argumentOperands(Arg, Operands);
  bool OnHost = false, OnDevice = false;
  for (const Expr *Operand : Operands) {
    if (!isTensorType(Operand->getType()) || isZeroDimTensor(Operand))
      continue;
    // The operand the caller has just evaluated is not evaluated again:
    // along a chain of operations that would double the work per link.
    std::optional<PlacementFact> Where =
        Operand == Evaluated ? EvaluatedPlacement : evaluateTensor(Operand);
    if (!Where)
      continue;
    OnHost |= isHostPlacement(Where->Where);
    OnDevice |=
        Where->Where == Placement::Cuda || Where->Where == Placement::MaybeCuda;
  }
  return OnHost && OnDevice;
}

std::optional<PlacementFact>
DeviceInference::evaluateDevice(const Expr *Original) {
  std::optional<PlacementFact> Result = evaluateDeviceExpr(Original);
  // A torch::Device whose origin is not visible (a member, a pointer, a
  // helper's result) is a run-time choice: the program is written for
  // either device, like one taking a torch::Device parameter.
  if (Result && Result->Where == Placement::Unknown) {
    const Expr *Value = stripValueWrappers(Original); // through conversions
    const CXXRecordDecl *RD =
        Value ? Value->getType().getNonReferenceType()->getAsCXXRecordDecl()
              : nullptr;
    // x.device() means "where x is": unknown where x is unknown.
    const auto *Member = dyn_cast_or_null<CXXMemberCallExpr>(Value);
    bool OfTensor = Member && Member->getMethodDecl() &&
                    Member->getMethodDecl()->getIdentifier() &&
                    Member->getMethodDecl()->getName() == "device" &&
                    isTensorType(Member->getImplicitObjectArgument()->getType());
    if (RD && isNamed(RD, "Device") && !OfTensor)
      return fact(Placement::MaybeCuda, Original, "a device chosen at run time");
    // A device named by a string the program reads at run time
    // (to(device_name), Device(args.device)).
    QualType ValueType = Value ? Value->getType().getNonReferenceType()
                               : QualType();
    bool IsString =
        !ValueType.isNull() &&
        ((RD && isNamed(RD, "basic_string")) ||
         (ValueType->isPointerType() &&
          ValueType->getPointeeType()->isCharType()));
    if (IsString)
      return fact(Placement::MaybeCuda, Original,
                  "a device named at run time");
  }
  return Result;
}

std::optional<PlacementFact>
DeviceInference::evaluateDeviceExpr(const Expr *Original) {
  if (!Original || isa<CXXDefaultArgExpr>(Original))
    return std::nullopt;
  const Expr *E = stripValueWrappers(Original);
  if (!E || isa<CXXDefaultArgExpr>(E))
    return std::nullopt;

  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    // TensorOptions() or Device(type, index): the first argument decides.
    if (Construct->getNumArgs() == 0 ||
        isa<CXXDefaultArgExpr>(Construct->getArg(0)))
      return std::nullopt;
    return evaluateDevice(Construct->getArg(0));
  }

  if (const auto *Literal = dyn_cast<StringLiteral>(E)) {
    llvm::StringRef Text = Literal->getString();
    if (Text.starts_with("cuda"))
      return fact(Placement::Cuda, E, "the device \"" + Text.str() + "\"");
    if (Text.starts_with("cpu"))
      return fact(Placement::Cpu, E, "the device \"cpu\"");
    return PlacementFact{};
  }

  if (const auto *Cond = dyn_cast<AbstractConditionalOperator>(E)) {
    std::optional<PlacementFact> True = evaluateDevice(Cond->getTrueExpr());
    std::optional<PlacementFact> False = evaluateDevice(Cond->getFalseExpr());
    if (!True || !False)
      return True ? True : False;
    Placement Joined = joinPlacements(True->Where, False->Where);
    if (Joined == True->Where)
      return True;
    return fact(Joined, E, "a device chosen at run time");
  }

  if (const auto *Member = dyn_cast<MemberExpr>(E))
    if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl()))
      return fieldPlacement(Field, ValueKind::Device);

  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const ValueDecl *D = Ref->getDecl();
    if (const auto *Enumerator = dyn_cast<EnumConstantDecl>(D)) {
      if (Enumerator->getName() == "CUDA")
        return fact(Placement::Cuda, E, "the CUDA device type");
      if (Enumerator->getName() == "CPU")
        return fact(Placement::Cpu, E, "the CPU device type");
      // Enumerators of ScalarType, Layout, ...: no device.
      if (!Enumerator->getType()->isEnumeralType() ||
          !isNamed(Enumerator->getType()->getAsTagDecl(), "DeviceType"))
        return std::nullopt;
      return PlacementFact{};
    }
    if (const auto *Param = dyn_cast<ParmVarDecl>(D))
      return resolveVariable(Param, Ref, ValueKind::Device);
    if (const auto *Var = dyn_cast<VarDecl>(D)) {
      QualType T = Var->getType().getNonReferenceType();
      if (const auto *Enum = T->getAs<EnumType>())
        if (!isNamed(Enum->getDecl(), "DeviceType"))
          return std::nullopt;
      return resolveVariable(Var, Ref, ValueKind::Device);
    }
    return PlacementFact{};
  }

  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || !Callee->getIdentifier())
      return PlacementFact{};
    llvm::StringRef Name = Callee->getName();
    const Expr *Object = nullptr;
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
      Object = Member->getImplicitObjectArgument();
    // options.device(d), torch::device(d)
    if (Name == "device" && Call->getNumArgs() == 1)
      return evaluateDevice(Call->getArg(0));
    // tensor.device(), tensor.options()
    if ((Name == "device" || Name == "options") && Object &&
        isTensorType(Object->getType())) {
      std::optional<PlacementFact> Tensor = evaluateTensor(Object);
      return Tensor ? Tensor : PlacementFact{};
    }
    // A helper of the program that returns options or a device (a getter
    // of a static member set at initialisation): what it returns.
    if (!isInTorchNamespace(Callee) &&
        !Ctx.getSourceManager().isInSystemHeader(
            Ctx.getSourceManager().getExpansionLoc(Callee->getLocation())))
      if (std::optional<PlacementFact> Returned =
              evaluateUserCall(Call, ValueKind::Device);
          Returned && Returned->Where != Placement::Unknown)
        return Returned;
    // Other TensorOptions builders keep the object's device, or name none.
    const CXXRecordDecl *Result = Call->getType()->getAsCXXRecordDecl();
    if (Result && isNamed(Result, "TensorOptions")) {
      if (Object)
        return evaluateDevice(Object);
      return std::nullopt; // torch::dtype(...), torch::requires_grad()
    }
    if (Result && isNamed(Result, "Device") &&
        Callee->getName().contains("gpu"))
      return PlacementFact{}; // try_gpu()-style helpers: not inferred
    return PlacementFact{};
  }

  if (E->getType()->isEnumeralType() &&
      !isNamed(E->getType()->getAsTagDecl(), "DeviceType"))
    return std::nullopt;
  return PlacementFact{};
}

std::optional<PlacementFact>
DeviceInference::evaluatePointer(const Expr *Original) {
  if (!Original)
    return PlacementFact{};
  const Expr *E = Original->IgnoreParenCasts();

  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    if (!Var)
      return PlacementFact{};
    if (Var->getType()->isArrayType()) {
      // A __device__ or __constant__ array is a device symbol, which host
      // code reaches through cudaGetSymbolAddress, not by its name.
      if (Var->hasAttr<CUDADeviceAttr>() || Var->hasAttr<CUDAConstantAttr>())
        return PlacementFact{};
      if (std::optional<PlacementFact> Pinned = registeredBefore(Var, Ref))
        return Pinned;
      return fact(Placement::Cpu, Var->getInit() ? (const Stmt *)Var->getInit()
                                                 : (const Stmt *)Ref,
                  "the array '" + Var->getName().str() + "'");
    }
    if (Var->getType()->isPointerType())
      return resolveVariable(Var, Ref, ValueKind::Pointer);
    return PlacementFact{};
  }

  if (const auto *Unary = dyn_cast<UnaryOperator>(E)) {
    if (Unary->getOpcode() != UO_AddrOf)
      return PlacementFact{};
    const Expr *Sub = Unary->getSubExpr()->IgnoreParenImpCasts();
    if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(Sub))
      return evaluatePointer(Subscript->getBase());
    if (const auto *Ref = dyn_cast<DeclRefExpr>(Sub))
      if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
          Var && Var->hasLocalStorage())
        return fact(Placement::Cpu, E,
                    "the address of the local '" + Var->getName().str() + "'");
    return PlacementFact{};
  }

  if (const auto *Binary = dyn_cast<BinaryOperator>(E)) {
    if (Binary->isAdditiveOp()) {
      const Expr *Base = Binary->getLHS()->getType()->isPointerType()
                             ? Binary->getLHS()
                             : Binary->getRHS();
      return evaluatePointer(Base);
    }
    return PlacementFact{};
  }

  if (const auto *Member = dyn_cast<MemberExpr>(E))
    return evaluateFieldPointer(Member);

  if (isa<CXXNewExpr>(E))
    return fact(Placement::Cpu, E, "allocated on the host by new");

  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (isHostAllocationFunction(Callee))
      return fact(Placement::Cpu, E,
                  "allocated on the host by " + Callee->getName().str());
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
      const Expr *Object = Member->getImplicitObjectArgument();
      const CXXRecordDecl *RD =
          Object ? Object->getType()->getAsCXXRecordDecl() : nullptr;
      if (Callee && isNamed(Callee, "data") && RD &&
          (isNamed(RD, "vector") || isNamed(RD, "array") ||
           isNamed(RD, "basic_string"))) {
        if (const auto *Ref =
                dyn_cast<DeclRefExpr>(Object->IgnoreParenImpCasts()))
          if (const auto *Container = dyn_cast<VarDecl>(Ref->getDecl()))
            if (std::optional<PlacementFact> Pinned =
                    registeredBefore(Container, Ref))
              return Pinned;
        return fact(Placement::Cpu, E,
                    "the storage of a std::" + RD->getName().str());
      }
      if (Callee && (isNamed(Callee, "data_ptr") || isNamed(Callee, "data")) &&
          Object && isTensorType(Object->getType()))
        return evaluateTensor(Object);
    }
    if (std::optional<CudaApi> Api = identifyCudaCall(Call)) {
      switch (*Api) {
      case CudaApi::Malloc:
        return fact(Placement::Cuda, Call, "allocated by cudaMalloc");
      case CudaApi::GetSymbolAddress:
        return fact(Placement::Cuda, Call,
                    "the address of a __device__ variable, from "
                    "cudaGetSymbolAddress");
      case CudaApi::MallocManaged:
        return fact(Placement::Managed, Call,
                    "allocated by cudaMallocManaged");
      case CudaApi::MallocHost:
      case CudaApi::HostAlloc:
        return fact(Placement::PinnedCpu, Call,
                    "pinned host memory from " + cudaApiName(*Api).str());
      default:
        break;
      }
    }
    // A helper of the program that returns a buffer it allocated.
    if (std::optional<PlacementFact> Returned =
            evaluateUserCall(Call, ValueKind::Pointer))
      return Returned;
    return PlacementFact{};
  }
  return PlacementFact{};
}

namespace {

/// Every statement under \p Root, in pre-order.
void collectStmts(const Stmt *Root, llvm::SmallVectorImpl<const Stmt *> &Out) {
  if (!Root)
    return;
  Out.push_back(Root);
  for (const Stmt *Child : Root->children())
    collectStmts(Child, Out);
}

/// The nearest ancestor of \p E that is not a paren or an implicit cast.
const Stmt *semanticParent(const Expr *E, ASTContext &Ctx) {
  const Stmt *Child = E;
  const Stmt *Parent = parentStmt(E, Ctx);
  while (Parent && isa<ParenExpr, ImplicitCastExpr>(Parent)) {
    Child = Parent;
    Parent = parentStmt(Parent, Ctx);
  }
  return Parent;
}

/// How a mention of a field is used.
enum class FieldUse { Read, Store, Other };

FieldUse classifyFieldUse(const MemberExpr *Member, ASTContext &Ctx) {
  const Stmt *Parent = parentStmt(Member, Ctx);
  while (const auto *Paren = dyn_cast_or_null<ParenExpr>(Parent))
    Parent = parentStmt(Paren, Ctx);
  if (const auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(Parent))
    return Cast->getCastKind() == CK_LValueToRValue ? FieldUse::Read
                                                    : FieldUse::Other;
  if (const auto *Assign = dyn_cast_or_null<BinaryOperator>(Parent);
      Assign && Assign->getOpcode() == BO_Assign &&
      Assign->getLHS()->IgnoreParens() == Member)
    return FieldUse::Store;
  return FieldUse::Other; // &b.host, a reference to it, ++, +=, ...
}

/// The store of \p Field by the constructor (or aggregate initialisation)
/// \p Init of a local object, if it provably sets the field and nothing in
/// the constructor's body may change it.
const Expr *fieldInitializer(const Expr *Init, const FieldDecl *Field) {
  if (!Init)
    return nullptr;
  Init = Init->IgnoreImplicit();
  if (const auto *List = dyn_cast<InitListExpr>(Init)) {
    if (List->isSemanticForm() && Field->getFieldIndex() < List->getNumInits())
      return List->getInit(Field->getFieldIndex());
    return nullptr;
  }
  const auto *Construct = dyn_cast<CXXConstructExpr>(Init);
  if (!Construct)
    return nullptr;
  const CXXConstructorDecl *Ctor = Construct->getConstructor();
  const FunctionDecl *Definition = nullptr;
  if (!Ctor || !Ctor->hasBody(Definition))
    return nullptr;
  const auto *Defined = cast<CXXConstructorDecl>(Definition);
  const Expr *Value = nullptr;
  for (const CXXCtorInitializer *Member : Defined->inits())
    if (Member->getMember() == Field)
      Value = Member->getInit();
    else if (!Member->isAnyMemberInitializer())
      return nullptr; // a base or delegating constructor may set it
  if (!Value)
    return nullptr;
  // The body may not mention the field, nor call member functions (which
  // might store it).
  llvm::SmallVector<const Stmt *, 32> Body;
  collectStmts(Defined->getBody(), Body);
  for (const Stmt *S : Body) {
    if (isa<CXXMemberCallExpr>(S))
      return nullptr;
    if (const auto *Member = dyn_cast<MemberExpr>(S);
        Member && Member->getMemberDecl() == Field)
      return nullptr;
  }
  if (const auto *Default = dyn_cast<CXXDefaultInitExpr>(Value->IgnoreImplicit()))
    return Default->getExpr();
  return Value;
}

} // namespace

// Pointers held in struct fields, within one function. The field of a local
// object (`b.host`) or of the object a local pointer or pointer parameter
// points to (`p->host`) takes the value last stored into it before the use,
// when that store always runs before the use, and otherwise, for a local
// object, the value its constructor or aggregate initialiser gives the
// field. Anything that might change the field unseen makes it unknown: the
// object or pointer used other than to access fields (passed on, its
// address taken, reassigned), the field's address taken or bound to a
// reference, a member function called on the object, a store that may come
// later in a loop, and for `p->host` any call or store to such a field
// between the store and the use (the object may be reachable elsewhere).
std::optional<PlacementFact>
DeviceInference::evaluateFieldPointer(const MemberExpr *Use) {
  const auto *Field = dyn_cast<FieldDecl>(Use->getMemberDecl());
  // A member of this object: what the program stores into it anywhere.
  if (Field && isa<CXXThisExpr>(Use->getBase()->IgnoreParenImpCasts()))
    return fieldPlacement(Field, ValueKind::Pointer);
  const auto *BaseRef =
      dyn_cast<DeclRefExpr>(Use->getBase()->IgnoreParenImpCasts());
  const auto *Base = BaseRef ? dyn_cast<VarDecl>(BaseRef->getDecl()) : nullptr;
  if (!Field || !Base || !Base->hasLocalStorage())
    return PlacementFact{};
  bool ThroughPointer = Use->isArrow();
  if (ThroughPointer ? !Base->getType()->isPointerType()
                     : !Base->getType()->isRecordType())
    return PlacementFact{};
  const FunctionDecl *Function = enclosingFunction(Use, Ctx);
  if (!Function || !Function->getBody())
    return PlacementFact{};
  const SourceManager &SM = Ctx.getSourceManager();

  llvm::SmallVector<const Stmt *, 128> Body;
  collectStmts(Function->getBody(), Body);
  llvm::SmallVector<const BinaryOperator *, 4> Stores;
  for (const Stmt *S : Body) {
    const auto *Ref = dyn_cast<DeclRefExpr>(S);
    if (!Ref || Ref->getDecl() != Base)
      continue;
    const auto *Member = dyn_cast_or_null<MemberExpr>(semanticParent(Ref, Ctx));
    if (!Member || Member->getBase()->IgnoreParenImpCasts() != Ref)
      return PlacementFact{};
    if (Member->getMemberDecl() != Field) {
      if (!isa<FieldDecl>(Member->getMemberDecl()))
        return PlacementFact{}; // a member function call
      continue;
    }
    switch (classifyFieldUse(Member, Ctx)) {
    case FieldUse::Read:
      break;
    case FieldUse::Store:
      Stores.push_back(cast<BinaryOperator>(semanticParent(Member, Ctx)));
      break;
    case FieldUse::Other:
      return PlacementFact{};
    }
  }

  const BinaryOperator *Last = nullptr;
  for (const BinaryOperator *Store : Stores) {
    if (isBeforeInSource(Store, Use, SM)) {
      if (!Last || isBeforeInSource(Last, Store, SM))
        Last = Store;
    } else {
      // A later store may reach the use on a loop's next iteration.
      for (const Stmt *S = parentStmt(Use, Ctx); S; S = parentStmt(S, Ctx))
        if (isLoopStmt(S) && isWithin(Store, S, Ctx))
          return PlacementFact{};
    }
  }

  if (!Last) {
    if (ThroughPointer)
      return PlacementFact{};
    const Expr *Init = fieldInitializer(Base->getInit(), Field);
    if (!Init)
      return PlacementFact{};
    return evaluatePointer(Init);
  }
  if (!Order.alwaysRunsBefore(Last, Use))
    return PlacementFact{};
  if (ThroughPointer) {
    for (const Stmt *S : Body) {
      bool Between = isBeforeInSource(Last, S, SM) && isBeforeInSource(S, Use, SM);
      if (!Between)
        continue;
      if (isa<CallExpr>(S))
        return PlacementFact{};
      if (const auto *Member = dyn_cast<MemberExpr>(S);
          Member && Member->getMemberDecl() == Field &&
          classifyFieldUse(Member, Ctx) != FieldUse::Read)
        return PlacementFact{};
    }
  }
  return evaluatePointer(Last->getRHS());
}

std::optional<PlacementFact>
DeviceInference::movedByConstructor(const CXXConstructorDecl *Ctor) {
  const FunctionDecl *Definition = nullptr;
  if (!Ctor->hasBody(Definition) || !Definition->getBody())
    return std::nullopt;
  // `this->to(device)` or `to(device)` as the constructor's own statement:
  // the module is built where it moves itself.
  const CXXMemberCallExpr *Move = nullptr;
  for (const Stmt *S : Definition->getBody()->children()) {
    const auto *Call = dyn_cast<CXXMemberCallExpr>(S);
    if (Call && Call->getMethodDecl() &&
        Call->getMethodDecl()->getIdentifier() &&
        Call->getMethodDecl()->getName() == "to" && Call->getNumArgs() >= 1 &&
        isa<CXXThisExpr>(Call->getImplicitObjectArgument()->IgnoreImpCasts()))
      Move = Call;
  }
  if (!Move)
    return std::nullopt;
  std::optional<PlacementFact> Device = evaluateDevice(Move->getArg(0));
  if (!Device || Device->Where == Placement::Unknown)
    return PlacementFact{};
  return fact(Device->Where, Move,
              "moved by its constructor to a " +
                  placementName(Device->Where).str() + " device");
}

std::optional<PlacementFact>
DeviceInference::evaluateModule(const Expr *Original) {
  if (!Original)
    return PlacementFact{};
  if (const DeclRefExpr *Ref = moduleReference(Original))
    return resolveVariable(cast<VarDecl>(Ref->getDecl()), Ref,
                           ValueKind::Module);
  // A module member: where its constructor put it, when that constructor
  // moves the module itself. Built on the host, it may be moved by any
  // method of its class, here or in another file: unknown.
  if (const auto *Member =
          dyn_cast<MemberExpr>(Original->IgnoreParenImpCasts()))
    if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
        Field && isModuleType(Field->getType())) {
      PlacementFact Stored = fieldPlacement(Field, ValueKind::Module);
      // Built by its default constructor where nothing stores into it.
      if (Stored.Where == Placement::Unknown)
        if (const CXXRecordDecl *Record = Field->getType()->getAsCXXRecordDecl())
          for (const CXXConstructorDecl *Ctor : Record->ctors())
            if (Ctor->isDefaultConstructor())
              if (std::optional<PlacementFact> Moved = movedByConstructor(Ctor))
                return *Moved;
      return isHostPlacement(Stored.Where) ? PlacementFact{} : Stored;
    }
  if (const CXXMemberCallExpr *Move = asModuleMove(Original)) {
    std::optional<PlacementFact> Device = evaluateDevice(Move->getArg(0));
    if (!Device || Device->Where == Placement::Unknown)
      return PlacementFact{};
    return fact(Device->Where, Move,
                "moved by to() to a " + placementName(Device->Where).str() +
                    " device");
  }
  // A construction: only the module's own constructors build parameters
  // (a ModuleHolder from nullptr and an empty shared_ptr hold nothing).
  const Expr *E = ignoreTemporaries(Original);
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E)) {
    const CXXConstructorDecl *Ctor = Construct->getConstructor();
    if (Ctor->isCopyOrMoveConstructor() && Construct->getNumArgs() >= 1)
      return evaluateModule(Construct->getArg(0));
    const CXXRecordDecl *RD = Ctor->getParent();
    bool BuildsModule = !isNamed(RD, "shared_ptr") && isModuleType(
                                                          Construct->getType());
    for (const Expr *Arg : Construct->arguments())
      if (Arg->IgnoreParenImpCasts()->getType()->isNullPtrType())
        BuildsModule = false;
    // A module without parameters runs wherever its inputs are.
    if (BuildsModule && isParameterFreeModuleType(Construct->getType()))
      return PlacementFact{};
    if (BuildsModule) {
      if (std::optional<PlacementFact> Moved = movedByConstructor(Ctor))
        return *Moved;
      return fact(Placement::Cpu, Construct,
                  "constructed with its parameters on the host");
    }
    return PlacementFact{};
  }
  if (const auto *New = dyn_cast<CXXNewExpr>(E);
      New && isModuleClass(New->getAllocatedType()->getAsCXXRecordDecl()))
    return fact(Placement::Cpu, New,
                "constructed with its parameters on the host");
  if (const auto *Call = dyn_cast<CallExpr>(E))
    if (const FunctionDecl *Callee = Call->getDirectCallee();
        Callee && isNamed(Callee, "make_shared") &&
        isModuleType(Call->getType()))
      return fact(Placement::Cpu, Call,
                  "constructed with its parameters on the host by "
                  "std::make_shared");
  return PlacementFact{};
}

std::optional<PlacementFact>
DeviceInference::registeredBefore(const VarDecl *Var, const Expr *Use) {
  // An array or a container's storage is the same memory at every use, so a
  // registration anywhere earlier in the function still holds.
  for (const Definition &Def : definitionsOf(Var))
    if (Def.RegistersPinned &&
        isBeforeInSource(Def.At, Use, Ctx.getSourceManager()))
      return fact(Placement::PinnedCpu, Def.At,
                  "host memory registered by cudaHostRegister");
  return std::nullopt;
}

std::optional<PlacementFact>
DeviceInference::evaluateDefinition(const Definition &Def, ValueKind Kind) {
  if (!takeStep())
    return PlacementFact{};
  if (!InProgress.insert(Def.At).second) {
    ++Cuts;
    return std::nullopt; // a loop-carried cycle: no information
  }
  auto Done = llvm::make_scope_exit([&] { InProgress.erase(Def.At); });
  if (!Def.Value)
    return PlacementFact{};
  if (Def.RegistersPinned)
    return fact(Placement::PinnedCpu, Def.At,
                "host memory registered by cudaHostRegister");
  // An empty tensor or container holds nothing yet: later writes decide.
  if (const auto *Construct =
          dyn_cast<CXXConstructExpr>(ignoreTemporaries(Def.Value));
      Kind == ValueKind::Tensor && Construct && Construct->getNumArgs() == 0)
    return std::nullopt;
  return evaluate(Def.Value, Kind);
}

std::optional<PlacementFact>
DeviceInference::resolveVariable(const VarDecl *Var, const Expr *Use,
                                 ValueKind Kind) {
  if (!Var->isLocalVarDeclOrParm()) {
    // Namespace-scope constants such as c10::kCUDA, and globals of user
    // code that nothing here assigns: their initializer.
    const Expr *Init = Var->getInit();
    if (!Init)
      return PlacementFact{};
    if (Var->getType().isConstQualified() || Var->isConstexpr())
      return evaluate(Init, Kind);
    if (Ctx.getSourceManager().isInSystemHeader(Var->getLocation()))
      return PlacementFact{};
    const VarDecl *Canonical = Var->getCanonicalDecl();
    if (!userCode().AssignedGlobals.contains(Canonical))
      return evaluate(Init, Kind);
    // Tensor options or a device kept in a global or a static member and
    // set by an initialisation function (`options = options.device(kCUDA)`):
    // the join of what is stored, and of the initializer unless it names
    // no device. Tensors and modules also move in place: not followed.
    auto Writes = userCode().GlobalWrites.find(Canonical);
    if (Kind != ValueKind::Device || Writes == userCode().GlobalWrites.end())
      return PlacementFact{};
    llvm::SmallVector<const Expr *, 4> Sources(Writes->second.begin(),
                                               Writes->second.end());
    const auto *Construct = dyn_cast<CXXConstructExpr>(ignoreTemporaries(Init));
    if (!Construct || Construct->getNumArgs() != 0)
      Sources.push_back(Init);
    return joinKnown(Sources, Kind, "assigned on several paths");
  }
  // A variable captured by a lambda is read where the lambda is written.
  if (const LambdaExpr *Lambda = outermostLambdaCapturing(Use, Var))
    Use = Lambda;

  // The same variable is read at the same place through many paths (a
  // chain of conditional reassignments reads the previous value at each
  // link): answer each once per call context. An answer cut short by a
  // cycle or by the budget depends on what was in progress: not kept.
  std::string Key = localResolutionKey(Var, Use, Kind);
  if (auto Known = LocalResolutions.find(Key); Known != LocalResolutions.end())
    return Known->second;
  const unsigned CutsBefore = Cuts;
  std::optional<PlacementFact> Result = resolveLocal(Var, Use, Kind);
  if (Cuts == CutsBefore)
    LocalResolutions[Key] = Result;
  return Result;
}

std::string DeviceInference::localResolutionKey(const VarDecl *Var,
                                                const Expr *Use,
                                                ValueKind Kind) const {
  std::string Key;
  llvm::raw_string_ostream Out(Key);
  Out << static_cast<const void *>(Var) << ':' << static_cast<const void *>(Use)
      << ':' << static_cast<int>(Kind);
  // The parameters visible in the frames of the calls being evaluated, and
  // the depth, which limits how far calls are followed.
  for (const CallFrame &Frame : Frames) {
    Out << '|' << static_cast<const void *>(Frame.Function);
    llvm::SmallVector<std::pair<unsigned, int>, 8> Arguments;
    for (const auto &[Param, Fact] : Frame.Arguments)
      Arguments.emplace_back(Param->getFunctionScopeIndex(),
                             static_cast<int>(Fact.Where));
    llvm::sort(Arguments);
    for (const auto &[Index, Where] : Arguments)
      Out << ':' << Index << '=' << Where;
  }
  return Key;
}

std::optional<PlacementFact> DeviceInference::resolveLocal(const VarDecl *Var,
                                                           const Expr *Use,
                                                           ValueKind Kind) {
  const auto *Param = dyn_cast<ParmVarDecl>(Var);
  // A copy: evaluating a definition can scan other functions, which grows
  // Definitions and would leave a reference into it dangling.
  const DefinitionList Defs = definitionsOf(Var);
  const SourceManager &SM = Ctx.getSourceManager();

  std::optional<PlacementFact> Result;
  bool Any = false;
  // `if (cuda) x = x.to(kCUDA);` after an input of unknown placement: on
  // some paths the tensor is on the GPU, whatever it was before.
  const Stmt *MovedToDevice = nullptr;
  auto Join = [&](std::optional<PlacementFact> Next) {
    if (!Next)
      return;
    if (!Result || !Any) {
      Result = std::move(Next);
      Any = true;
      return;
    }
    if (Result->Where == Next->Where)
      return;
    Result = fact(joinPlacements(Result->Where, Next->Where), nullptr,
                  "assigned on several paths");
  };

  // Walk back over earlier definitions until one that always runs first.
  bool Dominated = false;
  for (auto It = Defs.rbegin(); It != Defs.rend(); ++It) {
    if (!isBeforeInSource(It->At, Use, SM) || isWithin(Use, It->At, Ctx))
      continue;
    std::optional<PlacementFact> Value = evaluateDefinition(*It, Kind);
    if (Value && isDeviceSide(Value->Where) && isExplicitMove(It->Value))
      MovedToDevice = Value->Origin ? Value->Origin : It->At;
    Join(std::move(Value));
    if (!It->Accumulates && Order.alwaysRunsBefore(It->At, Use)) {
      Dominated = true;
      break;
    }
  }
  if (!Dominated) // the value on entry, or uninitialised or set elsewhere
    Join(Param ? evaluateParameter(Param, Kind) : PlacementFact{});

  // Definitions later in a loop that encloses both the use and the
  // variable's declaration reach the use on the next iteration.
  const Stmt *DeclStmtOfVar = nullptr;
  for (const Definition &Def : Defs)
    if (const auto *DS = dyn_cast<DeclStmt>(Def.At))
      if (llvm::is_contained(DS->decls(), Var))
        DeclStmtOfVar = DS;
  for (const Stmt *Loop = parentStmt(Use, Ctx); Loop;
       Loop = parentStmt(Loop, Ctx)) {
    if (!isLoopStmt(Loop))
      continue;
    if (DeclStmtOfVar && isWithin(DeclStmtOfVar, Loop, Ctx))
      break;
    for (const Definition &Def : Defs)
      if (isBeforeInSource(Use, Def.At, SM) && isWithin(Def.At, Loop, Ctx))
        Join(evaluateDefinition(Def, Kind));
  }
  if (Result && Result->Where == Placement::Unknown && MovedToDevice &&
      (Kind == ValueKind::Tensor || Kind == ValueKind::Module))
    Result = fact(Placement::MaybeCuda, MovedToDevice,
                  "moved to a GPU on some paths");
  // No fact at all: every definition that reaches here is part of a cycle
  // being evaluated (X = X * s later in the loop) or says nothing yet; the
  // cycle adds no information, so it must not make the join unknown.
  return Result;
}

const DeviceInference::DefinitionList &
DeviceInference::definitionsOf(const VarDecl *Var) {
  if (const auto *Function =
          dyn_cast_or_null<FunctionDecl>(Var->getParentFunctionOrMethod()))
    collectDefinitions(Function);
  return Definitions[Var];
}

void DeviceInference::collectDefinitions(const FunctionDecl *Function) {
  if (!ScannedFunctions.insert(Function).second || !Function->hasBody())
    return;

  llvm::DenseMap<const VarDecl *, DefinitionList> &Out = Definitions;
  // In RecursiveASTVisitor's order for one node: what holds for every call,
  // then for the kind of call.
  auto OnCall = [&](const CallExpr *Call) {
    // A module handed to user code may be moved there.
    if (const FunctionDecl *Callee = Call->getDirectCallee();
        !isa<CXXOperatorCallExpr>(Call) && (!Callee || !isInLibTorch(Callee)))
      for (const Expr *Arg : Call->arguments())
        if (const VarDecl *Var = moduleVariable(Arg))
          Out[Var].push_back({Call, nullptr, false});
    std::optional<CudaApi> Api = identifyCudaCall(Call);
    if (!Api || Call->getNumArgs() == 0)
      return;
    if (allocatesThroughFirstArgument(*Api)) {
      if (const VarDecl *Var = allocatedVariable(Call->getArg(0)))
        Out[Var].push_back({Call, Call, false});
      return;
    }
    switch (*Api) {
    case CudaApi::HostRegister: {
      // A pointer, an array, or a container's storage (v.data()).
      const Expr *Registered = Call->getArg(0)->IgnoreParenCasts();
      if (const auto *Data = dyn_cast<CXXMemberCallExpr>(Registered))
        if (isNamed(Data->getMethodDecl(), "data") &&
            !isTensorType(Data->getImplicitObjectArgument()->getType()))
          Registered = Data->getImplicitObjectArgument()->IgnoreParenCasts();
      if (const auto *Ref = dyn_cast<DeclRefExpr>(Registered))
        if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
          Out[Var].push_back({Call, Call, true});
      break;
    }
    default:
      break;
    }
  };
  auto OnMemberCall = [&](const CXXMemberCallExpr *Call) {
    if (asModuleMove(Call))
      if (const VarDecl *Var =
              moduleVariable(Call->getImplicitObjectArgument()))
        Out[Var].push_back({Call, Call, false});
    // A std::vector of tensors holds what is pushed into it.
    if (const CXXMethodDecl *Method = Call->getMethodDecl();
        Method && Call->getNumArgs() == 1 &&
        (isNamed(Method, "push_back") || isNamed(Method, "emplace_back")))
      if (const VarDecl *Var =
              assignedVariable(Call->getImplicitObjectArgument());
          Var && isTensorLikeType(Var->getType()) &&
          isTensorType(Call->getArg(0)->getType()))
        Out[Var].push_back({Call, Call->getArg(0), false, true});
  };
  walkStmt(Function->getBody(), [&](const Stmt &S) {
    if (const auto *DS = dyn_cast<DeclStmt>(&S)) {
      for (const Decl *D : DS->decls())
        if (const auto *Var = dyn_cast<VarDecl>(D))
          Out[Var].push_back({DS, Var->getInit(), false});
    } else if (const auto *Op = dyn_cast<BinaryOperator>(&S)) {
      if (Op->getOpcode() == BO_Assign)
        if (const VarDecl *Var = assignedVariable(Op->getLHS()))
          Out[Var].push_back({Op, Op->getRHS(), false});
    } else if (const auto *Call = dyn_cast<CallExpr>(&S)) {
      OnCall(Call);
      if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call)) {
        if (Op->getOperator() == OO_Equal && Op->getNumArgs() == 2) {
          if (const VarDecl *Var = assignedVariable(Op->getArg(0)))
            Out[Var].push_back({Op, Op->getArg(1), false});
          // std::tie(values, indices) = t.max(1): each tensor tied gets a
          // part of the tuple, which lives where the operation ran.
          for (const Expr *Tied : tiedVariables(Op->getArg(0)))
            if (const VarDecl *Var = assignedVariable(Tied);
                Var && isTensorType(Var->getType()))
              Out[Var].push_back({Op, Op->getArg(1), false});
        }
      } else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call)) {
        OnMemberCall(Member);
      }
    }
    return WalkStep::Continue;
  });
}

DeviceInference::ValueKind DeviceInference::kindOfType(QualType T) {
  if (isTensorLikeType(T))
    return ValueKind::Tensor;
  if (isModuleType(T))
    return ValueKind::Module;
  if (T.getNonReferenceType()->isPointerType())
    return ValueKind::Pointer;
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  if (RD && (isNamed(RD, "Device") || isNamed(RD, "TensorOptions")))
    return ValueKind::Device;
  return ValueKind::None;
}

/// True if \p S, a top-level statement of a constructor's body, stores
/// into the object's \p Field (`device = ...`, `this->device = ...`).
static bool storesIntoOwnField(const Stmt *S, const FieldDecl *Field) {
  const auto *E = dyn_cast<Expr>(S);
  if (!E)
    return false;
  if (const auto *Cleanups = dyn_cast<ExprWithCleanups>(E))
    E = Cleanups->getSubExpr();
  std::optional<AssignmentParts> Assign =
      assignmentParts(*E->IgnoreParenImpCasts());
  const auto *Member =
      Assign && !Assign->Compound
          ? dyn_cast<MemberExpr>(Assign->Target->IgnoreParenImpCasts())
          : nullptr;
  return Member && Member->getMemberDecl() == Field &&
         isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts());
}

/// True if every constructor written for \p Field's class (copies and
/// moves aside) stores into it, in its initializer list or among the
/// top-level statements of its body: the default member initializer is
/// then never the value the class's methods see (`torch::Device device =
/// kCPU;` overwritten with the model's device).
static bool everyConstructorStores(const FieldDecl *Field) {
  const auto *Class = dyn_cast<CXXRecordDecl>(Field->getParent());
  if (!Class || !Class->hasDefinition())
    return false;
  bool Any = false;
  for (const CXXConstructorDecl *Constructor : Class->ctors()) {
    if (Constructor->isImplicit() || Constructor->isDeleted() ||
        Constructor->isCopyOrMoveConstructor())
      continue;
    const FunctionDecl *Definition = nullptr;
    if (!Constructor->hasBody(Definition))
      return false; // defined in another file: not known here
    const auto *Defined = cast<CXXConstructorDecl>(Definition);
    bool Stores =
        llvm::any_of(Defined->inits(), [&](const CXXCtorInitializer *Init) {
          return Init->isWritten() && Init->getMember() == Field;
        });
    if (const auto *Body = dyn_cast_or_null<CompoundStmt>(Defined->getBody()))
      Stores |= llvm::any_of(Body->body(), [&](const Stmt *S) {
        return storesIntoOwnField(S, Field);
      });
    if (!Stores)
      return false;
    Any = true;
  }
  return Any;
}

const DeviceInference::UserCodeIndex &DeviceInference::userCode() {
  if (UserCode)
    return *UserCode;
  UserCode.emplace();
  UserCodeIndex &Out = *UserCode;
  auto NoteWrite = [&](const Expr *Target) {
    if (const VarDecl *Var = assignedVariable(Target);
        Var && !Var->isLocalVarDeclOrParm())
      Out.AssignedGlobals.insert(Var->getCanonicalDecl());
  };
  auto NoteStore = [&](const Expr *Target, const Expr *Value) {
    if (const auto *Member =
            dyn_cast<MemberExpr>(Target->IgnoreParenImpCasts()))
      if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl()))
        Out.FieldWrites[Field].push_back(Value);
    if (const VarDecl *Var = assignedVariable(Target);
        Var && !Var->isLocalVarDeclOrParm())
      Out.GlobalWrites[Var->getCanonicalDecl()].push_back(Value);
  };
  auto OnCall = [&](const CallExpr *Call) {
    // `model(x)` is a call of the held module's forward().
    if (const FunctionDecl *Callee = stepCallee(Call))
      Out.CallSites[Callee->getCanonicalDecl()].push_back(Call);
    // cudaMallocHost((void **)&member_, n): the allocation stores the member
    // (the call stands for what it allocates, as for local variables).
    if (std::optional<CudaApi> Api = identifyCudaCall(Call);
        Api && allocatesThroughFirstArgument(*Api) && Call->getNumArgs() > 0)
      if (const FieldDecl *Field = allocatedField(Call->getArg(0)))
        Out.FieldWrites[Field].push_back(Call);
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
        Op && Op->isAssignmentOp() && Op->getNumArgs() == 2) {
      NoteWrite(Op->getArg(0));
      if (Op->getOperator() == OO_Equal)
        NoteStore(Op->getArg(0), Op->getArg(1));
    }
    // A global module moved in place.
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
        Member && asModuleMove(Member))
      NoteWrite(Member->getImplicitObjectArgument());
    // register_buffer("name", member_): the member shares the registered
    // tensor, which Module::to() moves in place.
    if (const FunctionDecl *Callee = Call->getDirectCallee();
        Callee && Call->getNumArgs() >= 2 &&
        (isNamed(Callee, "register_buffer") ||
         isNamed(Callee, "register_parameter")))
      if (const auto *Ref =
              dyn_cast<MemberExpr>(ignoreCopiesAndConversions(Call->getArg(1))))
        if (const auto *Field = dyn_cast<FieldDecl>(Ref->getMemberDecl()))
          Out.RegisteredFields.insert(Field);
  };
  auto OnStmt = [&](const Stmt &S) {
    if (const auto *Call = dyn_cast<CallExpr>(&S))
      OnCall(Call);
    if (const auto *Op = dyn_cast<BinaryOperator>(&S)) {
      if (Op->getOpcode() == BO_Assign)
        NoteStore(Op->getLHS(), Op->getRHS());
      if (Op->isAssignmentOp())
        NoteWrite(Op->getLHS());
    }
    return WalkStep::Continue;
  };
  auto OnDecl = [&](const Decl &D) {
    if (const auto *Constructor = dyn_cast<CXXConstructorDecl>(&D))
      for (const CXXCtorInitializer *Init : Constructor->inits())
        if (Init->isWritten() && Init->getMember())
          Out.FieldWrites[Init->getMember()].push_back(Init->getInit());
    if (const auto *Field = dyn_cast<FieldDecl>(&D))
      if (const Expr *Init = Field->getInClassInitializer();
          Init && !everyConstructorStores(Field))
        Out.FieldWrites[Field].push_back(Init);
    return WalkStep::Continue;
  };
  WalkScope WithInstantiations;
  WithInstantiations.TemplateInstantiations = true;
  const SourceManager &SM = Ctx.getSourceManager();
  for (const Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (!SM.isInSystemHeader(D->getLocation()))
      walkDecl(D, OnStmt, OnDecl, WithInstantiations);
  return *UserCode;
}

std::optional<PlacementFact>
DeviceInference::evaluateParameter(const ParmVarDecl *Param, ValueKind Kind) {
  const auto *Function = dyn_cast<FunctionDecl>(Param->getDeclContext());
  if (!Function)
    return PlacementFact{};
  // Inside a call being evaluated: the argument of that call.
  for (auto Frame = Frames.rbegin(); Frame != Frames.rend(); ++Frame)
    if (Frame->Function == Function->getCanonicalDecl()) {
      auto It = Frame->Arguments.find(Param);
      return It == Frame->Arguments.end() ? PlacementFact{} : It->second;
    }
  PlacementFact Entry = parameterPlacement(Param);
  // A torch::Device parameter nobody here passes is still a run-time choice.
  if (Entry.Where == Placement::Unknown && Kind == ValueKind::Device &&
      kindOfType(Param->getType()) == ValueKind::Device)
    return PlacementFact{Placement::MaybeCuda, nullptr,
                         "the device parameter '" + Param->getName().str() +
                             "'"};
  // A module's forward() computes where the module's parameters are, and
  // its inputs must be there too: in a program that uses a GPU, that is
  // wherever the program moved the model.
  if (Entry.Where == Placement::Unknown && Kind == ValueKind::Tensor) {
    const auto *Method = dyn_cast<CXXMethodDecl>(Function);
    if (Method && isNamed(Method, "forward") &&
        isModuleClass(Method->getParent()) &&
        holdsSubmodules(Method->getParent()))
      return PlacementFact{Placement::MaybeCuda, nullptr,
                           "the input '" + Param->getName().str() +
                               "' of a module's forward(), on the module's "
                               "device"};
  }
  return Entry;
}

PlacementFact DeviceInference::joinKnown(llvm::ArrayRef<const Expr *> Sources,
                                         ValueKind Kind, llvm::StringRef Why) {
  // Evaluated in their own context, not in the frames of a call being
  // evaluated, so the result does not depend on who asked.
  llvm::SmallVector<CallFrame, 4> Saved;
  std::swap(Saved, Frames);
  std::optional<PlacementFact> Result;
  for (const Expr *Source : Sources) {
    std::optional<PlacementFact> Next = evaluate(Source, Kind);
    // A source of unknown placement adds no information; the known ones
    // decide.
    if (!Next || Next->Where == Placement::Unknown)
      continue;
    if (!Result)
      Result = *Next;
    else if (Result->Where != Next->Where)
      Result = fact(joinPlacements(Result->Where, Next->Where), nullptr,
                    Why.str());
  }
  std::swap(Saved, Frames);
  return Result ? *Result : PlacementFact{};
}

Placement DeviceInference::argumentPlacement(const Expr *Arg,
                                            QualType ParamType) {
  QueryBudget Budget(*this);
  ValueKind Kind = kindOfType(ParamType);
  if (Kind == ValueKind::None)
    return Placement::Unknown;
  std::optional<PlacementFact> Result = evaluate(Arg, Kind);
  return Result ? Result->Where : Placement::Unknown;
}

llvm::ArrayRef<const CallExpr *>
DeviceInference::callSitesOf(const FunctionDecl *Function) {
  const auto &CallSites = userCode().CallSites;
  auto It = CallSites.find(Function->getCanonicalDecl());
  if (It == CallSites.end())
    return {};
  return It->second;
}

PlacementFact DeviceInference::parameterPlacement(const ParmVarDecl *Param) {
  QueryBudget Budget(*this);
  if (auto It = ParameterCache.find(Param); It != ParameterCache.end())
    return It->second;
  const auto *Function = dyn_cast<FunctionDecl>(Param->getDeclContext());
  ValueKind Kind = kindOfType(Param->getType());
  if (!Function || Kind == ValueKind::None)
    return PlacementFact{};
  if (!ParametersInProgress.insert(Param).second) {
    ++Cuts;
    return PlacementFact{};
  }
  llvm::SmallVector<const Expr *, 4> Arguments;
  const unsigned Index = Param->getFunctionScopeIndex();
  for (const CallExpr *Call : callSitesOf(Function)) {
    unsigned ArgIndex = Index;
    if (isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Function))
      ++ArgIndex; // the object is argument 0
    if (ArgIndex < Call->getNumArgs() &&
        !isa<CXXDefaultArgExpr>(Call->getArg(ArgIndex)))
      Arguments.push_back(Call->getArg(ArgIndex));
  }
  PlacementFact Final =
      joinKnown(Arguments, Kind, "passed different placements by its callers");
  if (std::optional<Placement> Elsewhere =
          Facts ? Facts->parameter(Function, Index) : std::nullopt) {
    if (Final.Where == Placement::Unknown)
      Final = fact(*Elsewhere, nullptr,
                   "passed by callers in other files of the program");
    else if (Final.Where != *Elsewhere)
      Final = fact(joinPlacements(Final.Where, *Elsewhere), nullptr,
                   "passed different placements by its callers");
  }
  ParametersInProgress.erase(Param);
  if (Final.Where != Placement::Unknown && Final.Origin)
    Final.Reason += " (argument of '" + Function->getNameAsString() + "')";
  return ParameterCache[Param] = Final;
}

PlacementFact DeviceInference::fieldPlacement(const FieldDecl *Field,
                                              ValueKind Kind) {
  if (auto It = FieldCache.find(Field); It != FieldCache.end())
    return It->second;
  if (!FieldsInProgress.insert(Field).second) {
    ++Cuts;
    return PlacementFact{};
  }
  // Registered with its module: moves with it, wherever it was made.
  if (userCode().RegisteredFields.contains(Field)) {
    FieldsInProgress.erase(Field);
    return FieldCache[Field] = PlacementFact{};
  }
  const auto &Writes = userCode().FieldWrites;
  auto It = Writes.find(Field);
  PlacementFact Final =
      It == Writes.end()
          ? PlacementFact{}
          : joinKnown(It->second, Kind, "stored on several paths");
  // Stored by constructors or methods in another file of the program.
  if (Final.Where == Placement::Unknown && Facts)
    if (std::optional<Placement> Elsewhere = Facts->fieldPlacement(Field))
      Final = fact(*Elsewhere, nullptr,
                   "stored in '" + Field->getNameAsString() +
                       "' in another file of the program");
  FieldsInProgress.erase(Field);
  if (Final.Where != Placement::Unknown && Final.Origin)
    Final.Reason += " (stored in '" + Field->getNameAsString() + "')";
  return FieldCache[Field] = Final;
}

std::optional<PlacementFact>
DeviceInference::evaluateUserCall(const CallExpr *Call, ValueKind Kind) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  const FunctionDecl *Definition = Callee ? Callee->getDefinition() : nullptr;
  // A few frames deep is enough for helpers that build or move a tensor.
  constexpr unsigned MaxFrames = 4;
  if (!Definition || !Definition->hasBody()) {
    // Defined in another file: what the project index knows it returns,
    // else the caller decides.
    if (std::optional<Placement> Elsewhere =
            Facts && Callee ? Facts->returnPlacement(Callee) : std::nullopt)
      return fact(*Elsewhere, Call,
                  "returned by '" + Callee->getNameAsString() +
                      "()', defined in another file of the program");
    return std::nullopt;
  }
  if (Frames.size() >= MaxFrames || !takeStep() ||
      Ctx.getSourceManager().isInSystemHeader(Definition->getLocation()))
    return PlacementFact{};
  const FunctionDecl *Canonical = Definition->getCanonicalDecl();
  for (const CallFrame &Frame : Frames)
    if (Frame.Function == Canonical) {
      ++Cuts;
      return PlacementFact{}; // recursion
    }

  CallFrame Frame{Canonical, llvm::DenseMap<const ParmVarDecl *, PlacementFact>()};
  const unsigned First = isa<CXXOperatorCallExpr>(Call) &&
                                 isa<CXXMethodDecl>(Definition)
                             ? 1
                             : 0;
  for (unsigned I = 0; I < Definition->getNumParams(); ++I) {
    const ParmVarDecl *Param = Definition->getParamDecl(I);
    ValueKind ParamKind = kindOfType(Param->getType());
    if (ParamKind == ValueKind::None || I + First >= Call->getNumArgs())
      continue;
    std::optional<PlacementFact> Argument =
        evaluate(Call->getArg(I + First), ParamKind);
    Frame.Arguments[Param] = Argument ? *Argument : PlacementFact{};
  }

  // The callee's body sees only its own parameters (and globals): its
  // result depends on the argument placements, and on the depth through
  // the frame limit.
  std::string Key;
  {
    llvm::raw_string_ostream Out(Key);
    Out << static_cast<const void *>(Canonical) << ':' << static_cast<int>(Kind)
        << ':' << Frames.size();
    for (unsigned I = 0; I < Definition->getNumParams(); ++I)
      if (auto It = Frame.Arguments.find(Definition->getParamDecl(I));
          It != Frame.Arguments.end())
        Out << ':' << I << '=' << static_cast<int>(It->second.Where);
  }
  if (auto Cached = UserCallResults.find(Key);
      Cached != UserCallResults.end()) {
    if (!Cached->second)
      return PlacementFact{};
    return fact(Cached->second->Where, Call, Cached->second->Reason);
  }

  llvm::SmallVector<const Expr *, 4> Returned =
      returnedValues(Definition->getBody());

  Frames.push_back(std::move(Frame));
  auto PopFrame = llvm::make_scope_exit([&] { Frames.pop_back(); });
  std::optional<PlacementFact> Result;
  for (const Expr *Value : Returned) {
    std::optional<PlacementFact> Next =
        Value ? evaluate(Value, Kind) : std::optional<PlacementFact>();
    PlacementFact Fact = Next ? *Next : PlacementFact{};
    if (!Result)
      Result = Fact;
    else if (Result->Where != Fact.Where)
      Result = fact(joinPlacements(Result->Where, Fact.Where), nullptr,
                    "returned on several paths");
    if (Result->Where == Placement::Unknown)
      break;
  }
  if (!Result || Result->Where == Placement::Unknown) {
    UserCallResults[Key] = std::nullopt;
    return PlacementFact{};
  }
  std::string Reason = "returned by '" + Definition->getNameAsString() +
                       "()': " + Result->Reason;
  UserCallResults[Key] = PlacementFact{Result->Where, nullptr, Reason};
  return fact(Result->Where, Call, Reason);
}

PlacementFact DeviceInference::returnPlacement(const FunctionDecl *Function) {
  QueryBudget Budget(*this);
  const FunctionDecl *Definition = Function->getDefinition();
  ValueKind Kind = kindOfType(Function->getReturnType());
  if (!Definition || !Definition->hasBody() || Kind == ValueKind::None)
    return PlacementFact{};
  llvm::SmallVector<const Expr *, 4> Returned =
      returnedValues(Definition->getBody());
  llvm::erase(Returned, nullptr);
  return joinKnown(Returned, Kind, "returned on several paths");
}

std::vector<std::pair<const FieldDecl *, Placement>>
DeviceInference::storedFieldPlacements() {
  QueryBudget Budget(*this);
  std::vector<std::pair<const FieldDecl *, Placement>> Known;
  for (const auto &Entry : userCode().FieldWrites) {
    ValueKind Kind = kindOfType(Entry.first->getType());
    if (Kind == ValueKind::None || Kind == ValueKind::Device)
      continue;
    PlacementFact Fact = fieldPlacement(Entry.first, Kind);
    if (Fact.Where != Placement::Unknown)
      Known.emplace_back(Entry.first, Fact.Where);
  }
  return Known;
}

} // namespace clang::tidy::xfer
