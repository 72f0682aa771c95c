//===--- PlacementTransfer.cpp - what each operation does to placements ---===//
//
// DeviceInference's transfer functions: the placement a LibTorch or CUDA
// operation gives its result (and the device a device expression names),
// from the API catalogue and its operands' placements. Variables, fields,
// parameters and calls into user code are the solver's (DeviceInference.cpp).
//
//===----------------------------------------------------------------------===//

#include "analysis/ApiCatalogue.h"
#include "analysis/AstUtils.h"
#include "analysis/AstWalk.h"
#include "analysis/DeviceInference.h"
#include "analysis/DeviceInferenceDetail.h"
#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"

namespace clang::tidy::xfer {
namespace {

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
  for (unsigned I = 0; I < Call->getNumArgs() && I < FD->getNumParams(); ++I) {
    QualType T = FD->getParamDecl(I)->getType().getNonReferenceType();
    const CXXRecordDecl *RD = T->getAsCXXRecordDecl();
    if (RD && (isNamed(RD, "TensorOptions") || isNamed(RD, "Device")))
      return Call->getArg(I);
  }
  return nullptr;
}

/// True if the options \p Options (an argument, or a local variable
/// initialised with the builder chain) ask for page-locked memory:
/// `TensorOptions().pinned_memory(true)`.
bool requestsPinnedMemory(const Expr *Options, int Depth = 0) {
  if (!Options || Depth > 4)
    return false;
  const Expr *E = ignoreCopiesAndConversions(Options)->IgnoreParenImpCasts();
  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
    return Var && Var->hasLocalStorage() && !isa<ParmVarDecl>(Var) &&
           requestsPinnedMemory(Var->getInit(), Depth + 1);
  }
  for (const auto *Call = dyn_cast<CXXMemberCallExpr>(E); Call;
       Call = dyn_cast_or_null<CXXMemberCallExpr>(
           Call->getImplicitObjectArgument()
               ? Call->getImplicitObjectArgument()->IgnoreParenImpCasts()
               : nullptr)) {
    const CXXMethodDecl *Method = Call->getMethodDecl();
    if (!Method || !isNamed(Method, "pinned_memory"))
      continue;
    if (Call->getNumArgs() == 0 || isa<CXXDefaultArgExpr>(Call->getArg(0)))
      return true;
    // LibTorch takes a c10::optional<bool>: the value it is built from.
    const Expr *Argument = ignoreCopiesAndConversions(Call->getArg(0));
    bool Value = false;
    return Argument->EvaluateAsBooleanCondition(Value,
                                                Method->getASTContext()) &&
           Value;
  }
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
      if (!Var || !Var->getInit())
        return nullptr;
      // Down through the variables a tuple's parts pass (`auto r =
      // net.forward(in).toTuple(); auto parts = r->elements();`) to the
      // run, else what the variable holds.
      const Expr *Init = Var->getInit();
      for (const Expr *Below = Init; Below && Depth < 8; ++Depth) {
        Below = stripValueWrappers(Below);
        const auto *Inner = dyn_cast_or_null<CallExpr>(Below);
        if (!Inner)
          break;
        if (isScriptModuleRun(Inner))
          return Inner;
        if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Inner))
          Below = Op->getNumArgs() ? Op->getArg(0) : nullptr;
        else if (const auto *Method = dyn_cast<CXXMemberCallExpr>(Inner))
          Below = Method->getImplicitObjectArgument();
        else
          break;
        if (const auto *Next =
                dyn_cast_or_null<DeclRefExpr>(stripValueWrappers(Below))) {
          const auto *NextVar = dyn_cast<VarDecl>(Next->getDecl());
          Below = NextVar ? NextVar->getInit() : nullptr;
        }
      }
      return Init;
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
void collectTensorOperands(const Stmt *S,
                           llvm::SmallVectorImpl<const Expr *> &Out) {
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

/// The operands an argument passes: itself, the elements of a braced list
/// (`torch::cat({x, y})`), or the container a TensorList is made from
/// (`torch::cat(outputs, 1)`: where the tensors put into it are).
void argumentOperands(const Expr *Arg,
                      llvm::SmallVectorImpl<const Expr *> &Out) {
  Arg = ignoreTemporaries(Arg);
  if (const auto *Container =
          dyn_cast<DeclRefExpr>(ignoreCopiesAndConversions(Arg));
      Container && isTensorLikeType(Container->getType())) {
    Out.push_back(Container);
    return;
  }
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

bool isHostAllocationFunction(const FunctionDecl *FD) {
  if (!FD || !FD->getIdentifier())
    return false;
  llvm::StringRef Name = FD->getName();
  return Name == "malloc" || Name == "calloc" || Name == "realloc" ||
         Name == "aligned_alloc";
}

/// True for a module class of the program's own that holds a module or
/// registers a parameter, buffer or submodule in a constructor defined here
/// (LibTorch's own classes: true). One whose constructors are defined in
/// another file is not known to hold parameters: where it runs is then not
/// evidence of anything.
bool registersParametersHere(const CXXRecordDecl *Class) {
  if (!Class || !Class->hasDefinition() || isInTorchNamespace(Class))
    return true;
  Class = Class->getDefinition();
  for (const FieldDecl *Field : Class->fields())
    if (isModuleType(Field->getType()))
      return true;
  for (const CXXConstructorDecl *Ctor : Class->ctors()) {
    const FunctionDecl *Definition = Ctor->getDefinition();
    if (!Definition || !Definition->hasBody()) {
      if (!Ctor->isImplicit())
        return false; // defined in another file
      continue;
    }
    if (Ctor->isImplicit() ||
        containsMatch<CallExpr>(
            Definition->getBody(), [](const CallExpr &Call) {
              const FunctionDecl *Callee = Call.getDirectCallee();
              return Callee && Callee->getIdentifier() &&
                     Callee->getName().starts_with("register_");
            }))
      return true;
  }
  // Only implicit constructors, never defined: taken to be built with its
  // parameters, as LibTorch's modules are.
  return llvm::all_of(Class->ctors(), [](const CXXConstructorDecl *Ctor) {
    return Ctor->isImplicit();
  });
}

/// The value of the last assignment before \p Use whose target
/// \p IsTarget accepts, in a block that holds \p Use (so that it runs
/// before the use on every path); null if there is none, or if a loop
/// around the use assigns the target again after it (the next iteration
/// reads that value).
const Expr *
lastAssignmentBefore(const Expr *Use, ASTContext &Ctx,
                     llvm::function_ref<bool(const Expr *Target)> IsTarget) {
  const FunctionDecl *Function = enclosingFunction(Use, Ctx);
  if (!Function || !Function->getBody())
    return nullptr;
  const SourceManager &SM = Ctx.getSourceManager();
  const CXXOperatorCallExpr *Last = nullptr;
  bool AssignedLaterInLoop = false;
  walkStmt(Function->getBody(), [&](const Stmt &S) {
    const auto *Assign = dyn_cast<CXXOperatorCallExpr>(&S);
    if (!Assign || Assign->getOperator() != OO_Equal ||
        Assign->getNumArgs() != 2 ||
        !IsTarget(Assign->getArg(0)->IgnoreParenImpCasts()))
      return WalkStep::Continue;
    if (!SM.isBeforeInTranslationUnit(Assign->getEndLoc(),
                                      Use->getBeginLoc())) {
      for (const Stmt *P = parentStmt(Assign, Ctx); P; P = parentStmt(P, Ctx))
        if (isLoopStmt(P) && isWithin(Use, P, Ctx))
          AssignedLaterInLoop = true;
      return WalkStep::Continue;
    }
    // A statement of a block, not a branch or loop body without braces.
    const Stmt *Block = parentStmt(Assign, Ctx);
    while (isa_and_nonnull<Expr>(Block))
      Block = parentStmt(Block, Ctx);
    if (isa_and_nonnull<CompoundStmt>(Block) && isWithin(Use, Block, Ctx))
      Last = Assign;
    return WalkStep::Continue;
  });
  return Last && !AssignedLaterInLoop ? Last->getArg(1) : nullptr;
}

} // namespace

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
DeviceInference::evaluateBinding(const BindingDecl *Binding,
                                 const DeclRefExpr *Use) {
  // `cls = cls.cpu()`: the last assignment to the binding before the use.
  if (const Expr *Stored =
          lastAssignmentBefore(Use, Ctx, [&](const Expr *Target) {
            const auto *Ref = dyn_cast<DeclRefExpr>(Target);
            return Ref && Ref->getDecl() == Binding;
          }))
    return evaluateTensor(Stored);
  // Every part of a tuple or pair of tensors lives where the whole does
  // (the rule of std::get). The whole is read at the use: its hidden
  // variable's definition is the declaration the binding is part of.
  const auto *Whole = dyn_cast_or_null<VarDecl>(Binding->getDecomposedDecl());
  if (Whole && isTensorLikeType(Whole->getType()))
    return resolveVariable(Whole, Use, ValueKind::Tensor);
  // A struct's field: what user code stores in it.
  if (const auto *Member = dyn_cast_or_null<MemberExpr>(
          Binding->getBinding() ? Binding->getBinding()->IgnoreImplicit()
                                : nullptr))
    return evaluateTensor(Member);
  return PlacementFact{};
}

std::optional<PlacementFact>
DeviceInference::evaluateTensor(const Expr *Original) {
  const Expr *E = stripValueWrappers(Original);
  if (!E)
    return PlacementFact{};

  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    if (const auto *Var = dyn_cast<VarDecl>(Ref->getDecl()))
      return resolveVariable(Var, Ref, ValueKind::Tensor);
    // auto [values, indices] = t.max(1): a name bound to a part of a tuple
    // or pair of tensors, which lives where the whole does.
    if (const auto *Binding = dyn_cast<BindingDecl>(Ref->getDecl()))
      return evaluateBinding(Binding, Ref);
    return PlacementFact{};
  }

  // batch.data / batch.target of a LibTorch data loader's batch: the
  // loader collates on the host, and only the program moves them.
  if (const auto *Member = dyn_cast<MemberExpr>(E)) {
    if (isDataLoaderExample(Member->getBase()->getType())) {
      // An Example the program builds itself holds what it was given.
      if (const Expr *Given = exampleArgument(Member))
        return evaluateTensor(Given);
      // Unless the program's dataset is given a device: its examples may
      // be there already (moved when the dataset was built).
      if (userCode().DatasetTakesDevice)
        return PlacementFact{};
      return makeFact(Placement::Cpu, Member,
                      "a batch from a LibTorch data loader, on the host");
    }
    // `out.first` of a pair of tensors (a module returning two heads):
    // where the pair is.
    if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
        Field && Field->getIdentifier() &&
        (Field->getName() == "first" || Field->getName() == "second") &&
        isTensorLikeType(Member->getBase()->getType()) &&
        Field->getParent()->isInStdNamespace())
      return evaluateTensor(Member->getBase());
    if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl())) {
      // `sample.features = sample.features.to(device)` on a local object:
      // the last store before the use, not every store to the field.
      const auto *Object =
          dyn_cast<DeclRefExpr>(Member->getBase()->IgnoreParenImpCasts());
      if (Object && !Member->isArrow() && isa<VarDecl>(Object->getDecl()) &&
          cast<VarDecl>(Object->getDecl())->isLocalVarDecl())
        if (const Expr *Stored =
                lastAssignmentBefore(Member, Ctx, [&](const Expr *Target) {
                  const auto *Written = dyn_cast<MemberExpr>(Target);
                  const auto *Base =
                      Written ? dyn_cast<DeclRefExpr>(
                                    Written->getBase()->IgnoreParenImpCasts())
                              : nullptr;
                  return Base && Written->getMemberDecl() == Field &&
                         Base->getDecl() == Object->getDecl();
                }))
          return evaluateTensor(Stored);
      return fieldPlacement(Field, ValueKind::Tensor);
    }
    return PlacementFact{};
  }

  // A tuple or pair built from tensors (`return {values, indices};`) is
  // where its first tensor of known placement is, as std::make_tuple's.
  if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
      Construct && Construct->getNumArgs() > 1 &&
      isTensorLikeType(Construct->getType())) {
    for (const Expr *Part : Construct->arguments()) {
      if (!isTensorType(Part->getType()))
        continue;
      std::optional<PlacementFact> Where = evaluateTensor(Part);
      if (Where && Where->Where != Placement::Unknown)
        return Where;
    }
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
      return makeFact(Placement::Cpu, Call, "copied to the host by cpu()");
    case TorchOp::Cuda:
      return makeFact(Placement::Cuda, Call, "moved to the GPU by cuda()");
    case TorchOp::PinMemory:
      return makeFact(Placement::PinnedCpu, Call,
                      "copied to pinned host memory by pin_memory()");
    case TorchOp::To: {
      if (Call->getNumArgs() == 0)
        return evaluateTensor(Torch->Subject);
      const Expr *Target = Call->getArg(0);
      if (isTensorType(Target->getType())) {
        std::optional<PlacementFact> Other = evaluateTensor(Target);
        if (Other && Other->Where != Placement::Unknown)
          return makeFact(Other->Where, Call,
                          "moved by to() next to a " +
                              placementName(Other->Where).str() + " tensor");
        return Other;
      }
      std::optional<PlacementFact> Device = evaluateDevice(Target);
      if (!Device) // Only a dtype or layout change: the device stays.
        return evaluateTensor(Torch->Subject);
      if (Device->Where == Placement::Unknown)
        return Device;
      return makeFact(Device->Where, Call,
                      "moved by to() to a " +
                          placementName(Device->Where).str() + " device");
    }
    case TorchOp::Factory:
    case TorchOp::FromBlob: {
      const Expr *Options = optionsArgument(Call);
      std::optional<PlacementFact> Device =
          Options ? evaluateDevice(Options) : std::nullopt;
      if (!Device && Torch->Spelling.find("_like(") != std::string::npos &&
          Call->getNumArgs())
        return evaluateTensor(Call->getArg(0)); // zeros_like(t): where t is
      if ((!Device || Device->Where == Placement::Cpu) &&
          requestsPinnedMemory(Options))
        return makeFact(Placement::PinnedCpu, Call,
                        "created in pinned host memory by " + Torch->Spelling +
                            " with pinned_memory(true)");
      if (!Device)
        return makeFact(Placement::Cpu, Call,
                        "created on the host by " + Torch->Spelling +
                            " without a device");
      if (Device->Where == Placement::Unknown)
        return Device;
      return makeFact(Device->Where, Call,
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
        return makeFact(Where->Where, Call,
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
      return deviceSideOfMix(Call, Object, *Self).value_or(*Self);
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
  bool IsUserFunction =
      !isInTorchNamespace(Callee) &&
      !Ctx.getSourceManager().isInSystemHeader(Callee->getLocation());
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
  // A module known to be on a device computes there: called with a host
  // input it throws (the mismatch check reports that), and once the input
  // is moved, its output lives where the module is.
  const Expr *Module = nullptr;
  if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Call);
      Operator && Operator->getOperator() == OO_Call &&
      Operator->getNumArgs() && isModuleType(Operator->getArg(0)->getType()))
    Module = Operator->getArg(0);
  else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
           Member && isNamed(Callee, "forward") &&
           isModuleType(
               Ctx.getRecordType(cast<CXXMethodDecl>(Callee)->getParent())))
    Module = Member->getImplicitObjectArgument();
  if (Module)
    if (std::optional<PlacementFact> Where = evaluateModule(Module);
        Where && (Where->Where == Placement::Cuda ||
                  Where->Where == Placement::MaybeCuda))
      return Where;
  unsigned First =
      isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Callee) ? 1 : 0;
  // Operands whose placement is still being evaluated (a loop-carried
  // X = X * s) say nothing; only an operand known to be unknown does.
  bool SawCycle = false, SawUnknown = false;
  // A 0-dim host operand (`torch::tensor(w) / x`) is read as a scalar: the
  // result is where the other operands are, if any is known.
  std::optional<PlacementFact> ScalarOnHost;
  for (unsigned I = First; I < Call->getNumArgs(); ++I) {
    llvm::SmallVector<const Expr *, 4> Operands;
    argumentOperands(Call->getArg(I), Operands);
    for (const Expr *Operand : Operands) {
      if (!isTensorLikeType(Operand->getType()))
        continue;
      std::optional<PlacementFact> Where = evaluateTensor(Operand);
      if (Where && isHostPlacement(Where->Where) && !ScalarOnHost &&
          isZeroDimTensor(Operand)) {
        ScalarOnHost = Where;
        continue;
      }
      if (Where && Where->Where != Placement::Unknown)
        return deviceSideOfMix(Call, Operand, *Where).value_or(*Where);
      (Where ? SawUnknown : SawCycle) = true;
    }
  }
  if (ScalarOnHost && !SawUnknown && !SawCycle)
    return ScalarOnHost;
  if (SawCycle && !SawUnknown)
    return std::nullopt;
  return PlacementFact{};
}

std::optional<PlacementFact>
DeviceInference::deviceSideOfMix(const CallExpr *Call, const Expr *Evaluated,
                                 const PlacementFact &EvaluatedPlacement) {
  // The operation throws on a GPU run (the mismatch check reports it). What
  // it computes once that is fixed lives on the device: later read-backs of
  // it are hazards of their own. 0-dim host tensors mix freely: they are
  // read as scalars.
  llvm::SmallVector<const Expr *, 4> Operands;
  if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call))
    Operands.push_back(Member->getImplicitObjectArgument());
  for (const Expr *Arg : Call->arguments())
    argumentOperands(Arg, Operands);
  bool OnHost = false;
  std::optional<PlacementFact> OnDevice;
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
    if (!OnDevice && (Where->Where == Placement::Cuda ||
                      Where->Where == Placement::MaybeCuda))
      OnDevice = Where;
  }
  return OnHost ? OnDevice : std::nullopt;
}

namespace {

/// True if \p A and \p B name the same variable or member chain (`device`,
/// `g.device`, `this->device_`).
bool namesSameValue(const Expr *A, const Expr *B) {
  A = A->IgnoreParenImpCasts();
  B = B->IgnoreParenImpCasts();
  if (const auto *RefA = dyn_cast<DeclRefExpr>(A)) {
    const auto *RefB = dyn_cast<DeclRefExpr>(B);
    return RefB && RefA->getDecl() == RefB->getDecl();
  }
  if (const auto *MemberA = dyn_cast<MemberExpr>(A)) {
    const auto *MemberB = dyn_cast<MemberExpr>(B);
    return MemberB && MemberA->getMemberDecl() == MemberB->getMemberDecl() &&
           namesSameValue(MemberA->getBase(), MemberB->getBase());
  }
  return isa<CXXThisExpr>(A) && isa<CXXThisExpr>(B);
}

/// \p E without copies, conversions and a `.type()` call: the device
/// value a comparison tests.
const Expr *testedDevice(const Expr *E) {
  E = ignoreCopiesAndConversions(E)->IgnoreParenImpCasts();
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(E);
      Call && Call->getNumArgs() == 0 && Call->getMethodDecl() &&
      isNamed(Call->getMethodDecl(), "type"))
    return Call->getImplicitObjectArgument()->IgnoreParenImpCasts();
  return E;
}

} // namespace

std::optional<bool>
DeviceInference::testsForHost(const IfStmt *If,
                              llvm::function_ref<bool(const Expr *)> IsTested) {
  const Expr *Cond = If->getCond()->IgnoreParenImpCasts();
  bool Negated = false;
  if (const auto *Not = dyn_cast<UnaryOperator>(Cond);
      Not && Not->getOpcode() == UO_LNot) {
    Negated = true;
    Cond = Not->getSubExpr()->IgnoreParenImpCasts();
  }
  std::optional<bool> TestsCpu;
  // `d.is_cpu()`, `d.is_cuda()`.
  if (const auto *Call = dyn_cast<CXXMemberCallExpr>(Cond);
      Call && Call->getMethodDecl() &&
      IsTested(testedDevice(Call->getImplicitObjectArgument()))) {
    if (isNamed(Call->getMethodDecl(), "is_cpu"))
      TestsCpu = true;
    else if (isNamed(Call->getMethodDecl(), "is_cuda"))
      TestsCpu = false;
  }
  // `d == torch::kCPU`, `d.type() != torch::kCUDA`.
  const Expr *Left = nullptr, *Right = nullptr;
  bool Equal = true;
  if (const auto *Binary = dyn_cast<BinaryOperator>(Cond);
      Binary && Binary->isEqualityOp()) {
    Left = Binary->getLHS();
    Right = Binary->getRHS();
    Equal = Binary->getOpcode() == BO_EQ;
  } else if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(Cond);
             Operator && Operator->getNumArgs() == 2 &&
             (Operator->getOperator() == OO_EqualEqual ||
              Operator->getOperator() == OO_ExclaimEqual)) {
    Left = Operator->getArg(0);
    Right = Operator->getArg(1);
    Equal = Operator->getOperator() == OO_EqualEqual;
  }
  if (Left && Right)
    for (auto [Tested, Constant] :
         {std::pair(Left, Right), std::pair(Right, Left)}) {
      if (!IsTested(testedDevice(Tested)))
        continue;
      std::optional<PlacementFact> Named = evaluateDeviceExpr(Constant);
      if (Named && Named->Where == Placement::Cpu)
        TestsCpu = Equal;
      else if (Named && Named->Where == Placement::Cuda)
        TestsCpu = !Equal;
    }
  if (!TestsCpu)
    return std::nullopt;
  return *TestsCpu != Negated;
}

std::optional<PlacementFact>
DeviceInference::deviceFromEnclosingBranch(const Expr *Use) {
  const Expr *Value = testedDevice(Use);
  if (!isa<DeclRefExpr, MemberExpr>(Value))
    return std::nullopt;
  const Stmt *Child = Use;
  for (const Stmt *Parent = parentStmt(Use, Ctx); Parent;
       Child = Parent, Parent = parentStmt(Parent, Ctx)) {
    const auto *If = dyn_cast<IfStmt>(Parent);
    if (!If || (Child != If->getThen() && Child != If->getElse()))
      continue;
    std::optional<bool> ForHost = testsForHost(
        If, [&](const Expr *Tested) { return namesSameValue(Tested, Value); });
    if (!ForHost)
      continue;
    const bool OnHost = *ForHost == (Child == If->getThen());
    return makeFact(OnHost ? Placement::Cpu : Placement::Cuda, If,
                    OnHost ? "tested to be the host by the branch it is in"
                           : "tested to be a GPU by the branch it is in");
  }
  return std::nullopt;
}

bool DeviceInference::runsOnlyOnTheHost(const Stmt *S) {
  auto IsDevice = [](const Expr *Tested) {
    const CXXRecordDecl *Class =
        Tested->getType().getNonReferenceType()->getAsCXXRecordDecl();
    const auto *Enum = Tested->getType()->getAs<EnumType>();
    return (Class && isNamed(Class, "Device")) ||
           (Enum && Enum->getDecl()->getIdentifier() &&
            Enum->getDecl()->getName() == "DeviceType");
  };
  const Stmt *Child = S;
  for (const Stmt *Parent = parentStmt(S, Ctx); Parent;
       Child = Parent, Parent = parentStmt(Parent, Ctx))
    if (const auto *If = dyn_cast<IfStmt>(Parent);
        If && (Child == If->getThen() || Child == If->getElse()))
      if (std::optional<bool> ForHost = testsForHost(If, IsDevice);
          ForHost && *ForHost == (Child == If->getThen()))
        return true;
  return false;
}

std::optional<PlacementFact>
DeviceInference::evaluateDevice(const Expr *Original) {
  if (std::optional<PlacementFact> Branch = deviceFromEnclosingBranch(Original))
    return Branch;
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
    bool OfTensor =
        Member && Member->getMethodDecl() &&
        Member->getMethodDecl()->getIdentifier() &&
        Member->getMethodDecl()->getName() == "device" &&
        isTensorType(Member->getImplicitObjectArgument()->getType());
    if (RD && isNamed(RD, "Device") && !OfTensor)
      return makeFact(Placement::MaybeCuda, Original,
                      "a device chosen at run time");
    // A device named by a string the program reads at run time
    // (to(device_name), Device(args.device)).
    QualType ValueType =
        Value ? Value->getType().getNonReferenceType() : QualType();
    bool IsString =
        !ValueType.isNull() && ((RD && isNamed(RD, "basic_string")) ||
                                (ValueType->isPointerType() &&
                                 ValueType->getPointeeType()->isCharType()));
    if (IsString)
      return makeFact(Placement::MaybeCuda, Original,
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
      return makeFact(Placement::Cuda, E, "the device \"" + Text.str() + "\"");
    if (Text.starts_with("cpu"))
      return makeFact(Placement::Cpu, E, "the device \"cpu\"");
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
    return makeFact(Joined, E, "a device chosen at run time");
  }

  if (const auto *Member = dyn_cast<MemberExpr>(E))
    if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl()))
      return fieldPlacement(Field, ValueKind::Device);

  if (const auto *Ref = dyn_cast<DeclRefExpr>(E)) {
    const ValueDecl *D = Ref->getDecl();
    if (const auto *Enumerator = dyn_cast<EnumConstantDecl>(D)) {
      if (Enumerator->getName() == "CUDA")
        return makeFact(Placement::Cuda, E, "the CUDA device type");
      if (Enumerator->getName() == "CPU")
        return makeFact(Placement::Cpu, E, "the CPU device type");
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
    // options.device(d), torch::device(d), options.device(kCUDA, 1): the
    // first argument names the device type.
    if (Name == "device" && Call->getNumArgs() >= 1 &&
        !(Object && isTensorType(Object->getType())))
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
DeviceInference::memberStorage(const MemberExpr *Member, const Expr *Address) {
  const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
  if (!Field)
    return PlacementFact{};
  const Expr *Base = Member->getBase()->IgnoreParenImpCasts();
  // Through a pointer: where that pointer points (a struct made with new,
  // cudaMallocHost or cudaMalloc); an object of a method, or one held by value
  // (a local, a global, a parameter), lives in ordinary host memory.
  if (Member->isArrow() && !isa<CXXThisExpr>(Base)) {
    std::optional<PlacementFact> Object = evaluatePointer(Base);
    if (!Object || Object->Where == Placement::Unknown)
      return PlacementFact{};
    const auto *Pointer = dyn_cast<DeclRefExpr>(Base);
    std::string Holder =
        Pointer && Pointer->getDecl()->getIdentifier()
            ? "what '" + Pointer->getDecl()->getName().str() + "' points to"
            : std::string("an object");
    return makeFact(Object->Where, Address,
                    "the member '" + Field->getName().str() + "' of " + Holder +
                        " (" + Object->Reason + ")");
  }
  if (Member->isArrow() || isa<DeclRefExpr, MemberExpr>(Base))
    return makeFact(Placement::Cpu, Address,
                    "the member '" + Field->getName().str() +
                        "' of an object in pageable host memory");
  return PlacementFact{};
}

std::optional<PlacementFact>
DeviceInference::evaluatePointer(const Expr *Original) {
  if (!Original)
    return PlacementFact{};
  const Expr *E = Original->IgnoreParenCasts();

  // A row of an array (`float *rows[N][2]; ... rows[n]`) lives where the
  // array does: a host array of device pointers is host memory.
  if (const auto *Row = dyn_cast<ArraySubscriptExpr>(E);
      Row && Row->getType()->isArrayType())
    return evaluatePointer(Row->getBase());

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
      return makeFact(Placement::Cpu,
                      Var->getInit() ? (const Stmt *)Var->getInit()
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
        return makeFact(Placement::Cpu, E,
                        "the address of the local '" + Var->getName().str() +
                            "'");
    if (const auto *Member = dyn_cast<MemberExpr>(Sub))
      return memberStorage(Member, E);
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

  if (const auto *Member = dyn_cast<MemberExpr>(E)) {
    if (isOpenCvMat(Member->getBase()->getType()) &&
        isNamed(Member->getMemberDecl(), "data"))
      return makeFact(Placement::Cpu, E,
                      "the pixels of a cv::Mat, in pageable host memory");
    // An array held in the object (`params.table`): where the object is.
    if (Member->getMemberDecl()->getType()->isConstantArrayType())
      return memberStorage(Member, E);
    return evaluateFieldPointer(Member);
  }

  if (isa<CXXNewExpr>(E))
    return makeFact(Placement::Cpu, E, "allocated on the host by new");

  if (const auto *Call = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (isHostAllocationFunction(Callee))
      return makeFact(Placement::Cpu, E,
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
        return makeFact(Placement::Cpu, E,
                        "the storage of a std::" + RD->getName().str());
      }
      if (Callee && (isNamed(Callee, "data_ptr") || isNamed(Callee, "data")) &&
          Object && isTensorType(Object->getType()))
        return evaluateTensor(Object);
      if (Callee && isNamed(Callee, "ptr") && Object &&
          isOpenCvMat(Object->getType()))
        return makeFact(Placement::Cpu, E,
                        "the pixels of a cv::Mat, in pageable host memory");
    }
    if (std::optional<CudaApi> Api = identifyCudaCall(Call)) {
      switch (*Api) {
      case CudaApi::Malloc:
        return makeFact(Placement::Cuda, Call, "allocated by cudaMalloc");
      case CudaApi::GetSymbolAddress:
        return makeFact(Placement::Cuda, Call,
                        "the address of a __device__ variable, from "
                        "cudaGetSymbolAddress");
      case CudaApi::MallocManaged:
        return makeFact(Placement::Managed, Call,
                        "allocated by cudaMallocManaged");
      case CudaApi::MallocHost:
      case CudaApi::HostAlloc:
        return makeFact(Placement::PinnedCpu, Call,
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
  const Expr *Held = Original->IgnoreParenImpCasts();
  // `net.gen->forward(x)`: the holder behind its operator->.
  if (const auto *Arrow = dyn_cast<CXXOperatorCallExpr>(Held);
      Arrow && Arrow->getOperator() == OO_Arrow && Arrow->getNumArgs())
    Held = Arrow->getArg(0)->IgnoreParenImpCasts();
  if (const auto *Member = dyn_cast<MemberExpr>(Held))
    if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl());
        Field && isModuleType(Field->getType())) {
      PlacementFact Stored = fieldPlacement(Field, ValueKind::Module);
      // Built by its default constructor where nothing stores into it.
      if (Stored.Where == Placement::Unknown)
        if (const CXXRecordDecl *Record =
                Field->getType()->getAsCXXRecordDecl())
          for (const CXXConstructorDecl *Ctor : Record->ctors())
            if (Ctor->isDefaultConstructor())
              if (std::optional<PlacementFact> Moved = movedByConstructor(Ctor))
                return *Moved;
      // Built on the host (or nowhere here) and moved through its object
      // where the program sets up (`net.gen->to(device)`): wherever those
      // moves send it.
      // A local object's member is moved only by moves through that object
      // (a test function's own `net.gen->to(torch::kCPU)`).
      // A member built on the host and moved by a method of its class
      // (`cuda()` called for some objects only: a learner on the GPU,
      // rollout workers on the host) stays unknown.
      // Built and moved by the same function (`detector = Net(...);
      // detector->to(device);` in a setup method), every object that builds
      // it moves it.
      const VarDecl *Object = objectVariable(Member);
      const bool OwnMovesOnly = Object && Object->hasLocalStorage();
      auto Moves = userCode().ModuleFieldMoves.find(Field);
      const bool Moved = Moves != userCode().ModuleFieldMoves.end();
      auto MovedWhereBuilt = [&] {
        const FunctionDecl *Builder =
            Stored.Origin ? enclosingFunction(Stored.Origin, Ctx) : nullptr;
        return Builder &&
               llvm::any_of(Moves->second,
                            [&](const UserCodeIndex::ModuleFieldMove &Entry) {
                              return enclosingFunction(Entry.Move, Ctx) ==
                                     Builder;
                            });
      };
      if (Moved && (Stored.Where == Placement::Unknown ||
                    (isHostPlacement(Stored.Where) &&
                     (OwnMovesOnly || MovedWhereBuilt())))) {
        std::optional<Placement> Joined;
        const CXXMemberCallExpr *First = nullptr;
        for (const auto &[Move, MovedObject] : Moves->second) {
          if (OwnMovesOnly && MovedObject != Object)
            continue;
          std::optional<PlacementFact> Device = evaluateDevice(Move->getArg(0));
          Placement Where = Device ? Device->Where : Placement::Unknown;
          Joined = Joined ? joinPlacements(*Joined, Where) : Where;
          First = First ? First : Move;
        }
        if (Joined && *Joined != Placement::Unknown)
          return makeFact(*Joined, First,
                          "moved by to() to a " + placementName(*Joined).str() +
                              " device");
      }
      return isHostPlacement(Stored.Where) ? PlacementFact{} : Stored;
    }
  if (const CXXMemberCallExpr *Move = asModuleMove(Original)) {
    std::optional<PlacementFact> Device = evaluateDevice(Move->getArg(0));
    if (!Device || Device->Where == Placement::Unknown)
      return PlacementFact{};
    return makeFact(Device->Where, Move,
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
    bool BuildsModule =
        !isNamed(RD, "shared_ptr") && isModuleType(Construct->getType());
    for (const Expr *Arg : Construct->arguments())
      if (Arg->IgnoreParenImpCasts()->getType()->isNullPtrType())
        BuildsModule = false;
    // A module without parameters runs wherever its inputs are: a loss
    // functor of the program's own that registers nothing here.
    if (BuildsModule && (isParameterFreeModuleType(Construct->getType()) ||
                         !registersParametersHere(RD)))
      return PlacementFact{};
    if (BuildsModule) {
      if (std::optional<PlacementFact> Moved = movedByConstructor(Ctor))
        return *Moved;
      return makeFact(Placement::Cpu, Construct,
                      "constructed with its parameters on the host");
    }
    return PlacementFact{};
  }
  if (const auto *New = dyn_cast<CXXNewExpr>(E);
      New && isModuleClass(New->getAllocatedType()->getAsCXXRecordDecl()))
    return makeFact(Placement::Cpu, New,
                    "constructed with its parameters on the host");
  if (const auto *Call = dyn_cast<CallExpr>(E))
    if (const FunctionDecl *Callee = Call->getDirectCallee();
        Callee && isNamed(Callee, "make_shared") &&
        isModuleType(Call->getType()))
      return makeFact(Placement::Cpu, Call,
                      "constructed with its parameters on the host by "
                      "std::make_shared");
  return PlacementFact{};
}

} // namespace clang::tidy::xfer
