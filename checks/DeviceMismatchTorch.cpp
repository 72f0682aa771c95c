//===--- DeviceMismatchTorch.cpp - xfer-device-mismatch, LibTorch -----------===//
//
// LibTorch operations and module calls whose tensors live on different
// devices, and moves whose result is thrown away.
//
//===----------------------------------------------------------------------===//

#include "DeviceMismatchCheck.h"
#include "DeviceMismatchWording.h"
#include "analysis/ApiCatalogue.h"
#include "analysis/AstUtils.h"
#include "analysis/AstWalk.h"
#include "analysis/TranslationUnitAnalyses.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

namespace clang::tidy::xfer {
namespace {

/// Methods that take a second tensor without computing with it on one
/// device: to() and copy_() move data, *_as() only read its shape or type,
/// and tensor indices may stay on the host.
bool isDeviceNeutralMethod(llvm::StringRef Name) {
  return llvm::StringSwitch<bool>(Name)
      .Cases("to", "copy_", "type_as", "view_as", "reshape_as", true)
      .Cases("expand_as", "set_", "is_same", "is_same_size", "is_set_to", true)
      .Cases("index", "index_put_", "index_put", "operator=", true)
      // fill_ with a 0-dim value on another device reads it with item().
      .Case("fill_", true)
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
  } else if (const auto *Make = dyn_cast<CallExpr>(E);
             Make && Make->getDirectCallee() &&
             Make->getDirectCallee()->isInStdNamespace() &&
             Make->getDirectCallee()->getIdentifier() &&
             llvm::is_contained({"make_tuple", "make_pair", "forward_as_tuple"},
                                Make->getDirectCallee()->getName())) {
    // An LSTM's `std::make_tuple(h0, c0)` state.
    for (const Expr *Inner : Make->arguments())
      collectTensors(Inner, Out);
  } else if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    // A local tuple or pair of tensors: what it was initialised with.
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    const CXXRecordDecl *Type =
        Var ? Var->getType()->getAsCXXRecordDecl() : nullptr;
    if (Type && Type->isInStdNamespace() && Type->getIdentifier() &&
        llvm::is_contained({"tuple", "pair"}, Type->getName()) &&
        Var->hasLocalStorage() && !isa<ParmVarDecl>(Var) && Var->getInit())
      collectTensors(Var->getInit(), Out);
  }
}

/// The `forward` a call of a module runs, with the index of the call's
/// argument that maps to its first parameter: `m->forward(a, b)` directly,
/// `m(a, b)` through the module holder's call operator.
std::pair<const FunctionDecl *, unsigned> forwardOf(const CallExpr *Call) {
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    return {Member->getDirectCallee(), 0};
  const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
  if (!Op || Op->getOperator() != OO_Call || Op->getNumArgs() == 0)
    return {nullptr, 0};
  const CXXRecordDecl *Impl = moduleImplClass(Op->getArg(0)->getType());
  if (!Impl || !Impl->hasDefinition())
    return {nullptr, 0};
  for (const CXXMethodDecl *Method : Impl->getDefinition()->methods())
    if (isNamed(Method, "forward") &&
        Method->getNumParams() == Op->getNumArgs() - 1)
      return {Method, 1};
  return {nullptr, 0};
}

/// True if parameter \p Index of \p Function (a module's forward defined in
/// the program) is only read on the host: its shape or values with
/// `size()`, `item()` and the like, directly or through element indexing,
/// or handed to another module's forward that does the same (a one-hot
/// label that picks a branch). Such a tensor may stay on the host while the
/// module runs on the GPU.
bool onlyReadOnHost(const FunctionDecl *Function, unsigned Index,
                    ASTContext &Ctx, unsigned Depth = 3) {
  const FunctionDecl *Definition =
      Function ? Function->getDefinition() : nullptr;
  if (!Definition || !Definition->getBody() ||
      Index >= Definition->getNumParams() || Depth == 0)
    return false;
  const ParmVarDecl *Param = Definition->getParamDecl(Index);
  bool Used = false, Other = false;
  walkStmt(Definition->getBody(), [&](const Stmt &S) {
    const auto *Ref = dyn_cast<DeclRefExpr>(&S);
    if (!Ref || Ref->getDecl() != Param)
      return WalkStep::Continue;
    Used = true;
    // Up through copies and element indexing (`label[0][i]`).
    const Expr *Value = Ref;
    const Stmt *Parent = parentStmt(Value, Ctx);
    while (Parent) {
      if (isa<ImplicitCastExpr, MaterializeTemporaryExpr, CXXBindTemporaryExpr,
              ParenExpr>(Parent) ||
          (isa<CXXConstructExpr>(Parent) &&
           cast<CXXConstructExpr>(Parent)->getNumArgs() == 1)) {
        Value = cast<Expr>(Parent);
        Parent = parentStmt(Parent, Ctx);
        continue;
      }
      if (const auto *Subscript = dyn_cast<CXXOperatorCallExpr>(Parent);
          Subscript && Subscript->getOperator() == OO_Subscript &&
          Subscript->getArg(0)->IgnoreImplicit() == Value->IgnoreImplicit()) {
        Value = Subscript;
        Parent = parentStmt(Parent, Ctx);
        continue;
      }
      break;
    }
    // `label.size(1)`: the method's member expression, then its call.
    if (const auto *Method = dyn_cast_or_null<MemberExpr>(Parent);
        Method &&
        Method->getBase()->IgnoreImplicit() == Value->IgnoreImplicit())
      Parent = parentStmt(Parent, Ctx);
    if (const auto *Read = dyn_cast_or_null<CXXMemberCallExpr>(Parent);
        Read && Read->getImplicitObjectArgument() &&
        Read->getImplicitObjectArgument()->IgnoreImplicit() ==
            Value->IgnoreImplicit() &&
        Read->getMethodDecl() && Read->getMethodDecl()->getIdentifier() &&
        llvm::is_contained({"item", "size", "sizes", "dim", "numel",
                            "scalar_type", "dtype", "device", "is_cuda",
                            "defined"},
                           Read->getMethodDecl()->getName()))
      return WalkStep::Continue;
    // Handed on to another module's forward.
    if (const auto *Call = dyn_cast_or_null<CallExpr>(Parent)) {
      auto [Forward, First] = forwardOf(Call);
      for (unsigned I = First; Forward && I < Call->getNumArgs(); ++I)
        if (Call->getArg(I)->IgnoreImplicit() == Value->IgnoreImplicit() &&
            onlyReadOnHost(Forward, I - First, Ctx, Depth - 1))
          return WalkStep::Continue;
    }
    Other = true;
    return WalkStep::Stop;
  });
  return Used && !Other;
}

/// True if \p Operand is a local variable initialised with the result of
/// one of \p Mixes (`auto Mixed = torch::cat({host, gpu}); Mixed * host`).
bool holdsReportedMix(const Expr *Operand,
                      const llvm::DenseSet<const CallExpr *> &Mixes) {
  const auto *Ref = dyn_cast<DeclRefExpr>(Operand->IgnoreParenImpCasts());
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  if (!Var || !Var->hasLocalStorage() || !Var->getInit())
    return false;
  const auto *Init = dyn_cast<CallExpr>(
      ignoreCopiesAndConversions(Var->getInit())->IgnoreImplicit());
  return Init && Mixes.contains(Init);
}

} // namespace

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
        !Callee->getIdentifier() || isDeviceNeutralMethod(Callee->getName()))
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
  reportMixedOperands(Call, Operation, Operands, Ctx);
}

void DeviceMismatchCheck::reportMixedOperands(
    const CallExpr *Call, llvm::StringRef Operation,
    llvm::ArrayRef<const Expr *> Operands, ASTContext &Ctx) {
  if (Operands.size() < 2)
    return;
  std::optional<Operand> DeviceOperand, HostOperand;
  const Stmt *ForcedAt = nullptr;
  bool DeviceFirst = false;
  for (const Expr *E : Operands) {
    if (holdsReportedMix(E, ReportedMixes))
      continue;
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
  ReportedMixes.insert(Call);
  diag(Call->getExprLoc(), "'%0' mixes a %1 tensor and a %2 tensor: %3")
      << Operation << placementName(First.Fact.Where)
      << placementName(Second.Fact.Where) << SameDeviceError;
  noteOrigin(First.Value, First.Fact, Ctx);
  noteOrigin(Second.Value, Second.Fact, Ctx);
  noteRunTimeDevice(DeviceOperand->Fact.Where, ForcedAt);
}

void DeviceMismatchCheck::checkModuleCall(const CallExpr *Call,
                                          const Expr *Module, ASTContext &Ctx) {
  const Expr *ModuleName = Module->IgnoreParenImpCasts();
  if (const auto *Arrow = dyn_cast<CXXOperatorCallExpr>(ModuleName))
    ModuleName = Arrow->getArg(0);
  const unsigned FirstInput = isa<CXXOperatorCallExpr>(Call) ? 1 : 0;
  auto ReportInputsThatDisagree = [&] {
    llvm::SmallVector<const Expr *, 4> Inputs;
    for (unsigned I = FirstInput; I < Call->getNumArgs(); ++I)
      collectTensors(Call->getArg(I), Inputs);
    reportMixedOperands(Call, operandName(ModuleName, Ctx), Inputs, Ctx);
  };
  // A loss or activation runs where its inputs are: they must agree with
  // each other (`criterion(gpu_output, host_target)`).
  if (isParameterFreeModuleType(ModuleName->getType())) {
    ReportInputsThatDisagree();
    return;
  }
  PlacementFact ModuleFact = Analyses->devices().modulePlacement(Module);
  const Stmt *ForcedAt = nullptr;
  bool ModuleOnHost = isHostPlacement(ModuleFact.Where);
  bool ModuleOnDevice =
      !ModuleOnHost && countsAsCuda(ModuleFact, Call, Ctx, ForcedAt);
  if (!ModuleOnHost && !ModuleOnDevice) {
    // Wherever the module is, its inputs must agree with each other (an
    // LSTM given a CUDA input and a host initial state throws).
    ReportInputsThatDisagree();
    return;
  }

  llvm::SmallVector<const Expr *, 4> Inputs;
  auto [Forward, First] = forwardOf(Call);
  for (unsigned I = FirstInput; I < Call->getNumArgs(); ++I) {
    // A host tensor the module only reads on the host (a flag, a label that
    // picks a branch) is no mismatch.
    if (ModuleOnDevice && Forward && I >= First &&
        onlyReadOnHost(Forward, I - First, Ctx))
      continue;
    // Nor is one the module's forward moves where it needs it, here or in
    // the file that defines it.
    if (Forward && I >= First &&
        (movesParameterItself(Forward, I - First, Analyses->devices()) ||
         (Facts && Facts->movesParameter(Forward, I - First))))
      continue;
    collectTensors(Call->getArg(I), Inputs);
  }
  for (const Expr *Input : Inputs) {
    PlacementFact InputFact = Analyses->devices().tensorPlacement(Input);
    bool Mismatch = false;
    if (ModuleOnDevice)
      Mismatch = isHostPlacement(InputFact.Where);
    else
      Mismatch = countsAsCuda(InputFact, Call, Ctx, ForcedAt);
    if (!Mismatch)
      continue;
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
  DeviceInference &Devices = Analyses->devices();
  Placement Destination =
      Torch->Op == TorchOp::Cuda ? Placement::Cuda : Placement::Cpu;
  if (Torch->Op == TorchOp::To) {
    // Only a device change; a dtype-only to() is a different mistake.
    if (Call->getNumArgs() == 0)
      return;
    const Expr *Target = Call->getArg(0);
    std::optional<PlacementFact> Device = Devices.deviceValue(Target);
    if (isTensorType(Target->getType()))
      Destination = Devices.tensorPlacement(Target).Where;
    else if (Device)
      Destination = Device->Where;
    else
      return;
  } else if (Torch->Op != TorchOp::Cuda && Torch->Op != TorchOp::Cpu) {
    return;
  }
  const Expr *Object = Call->getImplicitObjectArgument()->IgnoreParenImpCasts();
  if (!isa<DeclRefExpr, MemberExpr>(Object))
    return; // a temporary: nothing stays behind
  std::string Name = operandName(Object, Ctx);
  PlacementFact Fact = Devices.tensorPlacement(Object);
  // A move to where the tensor already is (a model's output moved to the
  // model's device) does nothing: discarding it loses nothing.
  if (Fact.Where != Placement::Unknown && Fact.Where == Destination)
    return;
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

} // namespace clang::tidy::xfer
