//===--- CreateOnDeviceCheck.cpp - xfer-create-on-device ------------------===//

#include "CreateOnDeviceCheck.h"
#include "analysis/ApiCatalogue.h"
#include "analysis/AstUtils.h"
#include "analysis/AstWalk.h"
#include "analysis/LoopContext.h"
#include "analysis/ProjectFacts.h"
#include "analysis/StepFunctions.h"
#include "analysis/TransferHazards.h"
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

bool isNamedRecord(QualType T, llvm::StringRef Name) {
  const CXXRecordDecl *RD = T.getNonReferenceType()->getAsCXXRecordDecl();
  return RD && RD->getIdentifier() && RD->getName() == Name;
}

/// The LibTorch factory call \p E is, if it is one.
const CallExpr *asFactoryCall(const Expr *E) {
  const auto *Call = dyn_cast_or_null<CallExpr>(ignoreCopiesAndConversions(E));
  if (!Call)
    return nullptr;
  std::optional<TorchCall> Torch = identifyTorchCall(Call);
  return Torch && Torch->Op == TorchOp::Factory ? Call : nullptr;
}

/// Random factories draw from the generator of the device they create on:
/// creating on the GPU yields different numbers than a CPU run with the same
/// seed, and leaves the CPU generator's state where it was.
bool isRandomFactory(const CallExpr *Factory) {
  const FunctionDecl *FD = Factory->getDirectCallee();
  if (!FD || !FD->getIdentifier())
    return true;
  llvm::StringRef Name = FD->getName();
  return Name.starts_with("rand") || Name == "normal" || Name == "bernoulli" ||
         Name == "multinomial" || Name == "poisson";
}

/// Index of the TensorOptions parameter of a factory.
std::optional<unsigned> optionsParameter(const FunctionDecl *FD) {
  for (unsigned I = 0; I < FD->getNumParams(); ++I)
    if (isNamedRecord(FD->getParamDecl(I)->getType(), "TensorOptions"))
      return I;
  return std::nullopt;
}

/// True if a device expression written as \p Written names only a device
/// (a Device, a DeviceType or a device string), not other tensor options.
bool namesOnlyDevice(const Expr *Written) {
  QualType T = Written->getType().getNonReferenceType();
  if (isNamedRecord(T, "Device") || isNamedRecord(T, "basic_string"))
    return true;
  if (const auto *Enum = T->getAs<EnumType>())
    return Enum->getDecl()->getName() == "DeviceType";
  if (T->isArrayType() || T->isPointerType())
    return T->getPointeeOrArrayElementType()->isCharType();
  return false;
}

/// True if the options \p Options may carry settings under which creating
/// on the device differs from moving there afterwards: requires_grad (the
/// moved tensor is not a leaf, the created one is), pinned_memory (invalid
/// for a device tensor), or a variable whose settings are not visible here.
bool optionsBlockFix(const Expr *Options) {
  return containsMatch<Stmt>(Options, [](const Stmt &S) {
    if (const auto *Call = dyn_cast<CallExpr>(&S)) {
      const FunctionDecl *FD = Call->getDirectCallee();
      return FD && FD->getIdentifier() &&
             (FD->getName() == "requires_grad" ||
              FD->getName() == "pinned_memory");
    }
    const auto *Ref = dyn_cast<DeclRefExpr>(&S);
    return Ref && isa<VarDecl>(Ref->getDecl()) &&
           !Ref->getType()->isEnumeralType() &&
           !Ref->getType().isConstQualified();
  });
}

/// True if \p Factory's size list has a zero extent (`torch::zeros({0, 6})`):
/// the tensor holds no elements, so moving it transfers nothing.
bool createsEmptyTensor(const CallExpr *Factory) {
  // Only factories whose first argument is the size list: the list of
  // torch::tensor({0}) is its data.
  const FunctionDecl *Callee = Factory->getDirectCallee();
  if (Factory->getNumArgs() == 0 || !Callee || !Callee->getIdentifier() ||
      !llvm::is_contained({"zeros", "ones", "empty", "full", "rand", "randn"},
                          Callee->getName()))
    return false;
  return containsMatch<InitListExpr>(
      Factory->getArg(0), [](const InitListExpr &List) {
        // The list as written, as RecursiveASTVisitor visits it.
        const InitListExpr *Written =
            List.getSyntacticForm() ? List.getSyntacticForm() : &List;
        return llvm::any_of(Written->inits(), [](const Expr *Init) {
          const auto *Literal =
              dyn_cast<IntegerLiteral>(Init->IgnoreParenImpCasts());
          return Literal && Literal->getValue() == 0;
        });
      });
}

/// True for a tensor method that only reshapes its object or converts its
/// element type (a view, or a copy in another layout or dtype):
/// `t.unsqueeze(0)`, `t.view({2, 2})`, `t.toType(torch::kFloat)`.
bool isShapeOrTypeOperation(const CXXMemberCallExpr *Call) {
  const CXXMethodDecl *Method = Call->getMethodDecl();
  if (!Method || !Method->getIdentifier() ||
      !isTensorType(Call->getImplicitObjectArgument()->getType()))
    return false;
  return llvm::StringSwitch<bool>(Method->getName())
      .Cases("unsqueeze", "squeeze", "view", "reshape", "flatten", true)
      .Cases("permute", "transpose", "t", "contiguous", "expand", true)
      .Cases("repeat", "narrow", "select", "slice", "clone", true)
      .Cases("toType", "detach", true)
      .Default(false);
}

/// True if the result of \p E can take a member access without
/// parentheses.
bool isPostfixExpression(const Expr *E) {
  return isa<CallExpr, DeclRefExpr, ParenExpr, MemberExpr,
             CXXTemporaryObjectExpr, CXXFunctionalCastExpr>(E);
}

/// True if \p Variable is used for nothing but \p Move before it, and after
/// it only where the move's result replaced it (`x = x.to(device)`, then
/// `cat({x, y})`): no host code reads the host tensor.
bool onlyMovedFrom(const VarDecl *Variable, const CXXMemberCallExpr *Move,
                   const Stmt *Body, ASTContext &Ctx) {
  const Expr *Object =
      ignoreCopiesAndConversions(Move->getImplicitObjectArgument());
  const Stmt *MoveSide = nullptr;
  const Stmt *Consumer = consumerOf(Move, Ctx, &MoveSide);
  const Expr *ReplacedTarget = nullptr;
  if (const auto *Assign = dyn_cast_or_null<BinaryOperator>(Consumer);
      Assign && Assign->getOpcode() == BO_Assign)
    ReplacedTarget = Assign->getLHS()->IgnoreParenImpCasts();
  if (const auto *Assign = dyn_cast_or_null<CXXOperatorCallExpr>(Consumer);
      Assign && Assign->getOperator() == OO_Equal)
    ReplacedTarget = Assign->getArg(0)->IgnoreParenImpCasts();
  const auto *Replaced = dyn_cast_or_null<DeclRefExpr>(ReplacedTarget);
  const bool ReplacesVariable = Replaced && Replaced->getDecl() == Variable;
  const SourceManager &SM = Ctx.getSourceManager();
  return !containsMatch<DeclRefExpr>(Body, [&](const DeclRefExpr &Ref) {
    if (Ref.getDecl() != Variable || &Ref == Object || &Ref == Replaced)
      return false;
    return !ReplacesVariable || !isBeforeInSource(Move, &Ref, SM);
  });
}

/// The host factory a local tensor variable's value \p E comes from: the
/// factory itself, or, through shape and type operations, an element of
/// `meshgrid` of such tensors and local variables that hold one and are not
/// changed in \p Body (a detection layer's grid offsets:
/// `auto g = arange(n); auto xy = meshgrid({g, g}); x = xy[1].view({-1, 1});`).
const CallExpr *hostCreationBehind(const Expr *E, const Stmt *Body,
                                   ASTContext &Ctx, unsigned Depth = 0) {
  if (!E || Depth > 6)
    return nullptr;
  E = ignoreCopiesAndConversions(E);
  if (const CallExpr *Factory = asFactoryCall(E))
    return Factory;
  if (const auto *Convert = dyn_cast<CXXMemberCallExpr>(E);
      Convert && isShapeOrTypeOperation(Convert))
    return hostCreationBehind(Convert->getImplicitObjectArgument(), Body, Ctx,
                              Depth + 1);
  auto UnchangedLocal = [&](const Expr *Ref) -> const VarDecl * {
    const auto *DeclRef =
        dyn_cast<DeclRefExpr>(ignoreCopiesAndConversions(Ref));
    const auto *Var = DeclRef ? dyn_cast<VarDecl>(DeclRef->getDecl()) : nullptr;
    return Var && !isa<ParmVarDecl>(Var) && Var->hasLocalStorage() &&
                   !Var->getType()->isReferenceType() && Var->getInit() &&
                   isLoopInvariant(Var, Body, Ctx)
               ? Var
               : nullptr;
  };
  // `grids[1]` of `std::vector<Tensor> grids = meshgrid({g, g})`.
  if (const auto *Element = dyn_cast<CXXOperatorCallExpr>(E);
      Element && Element->getOperator() == OO_Subscript) {
    const VarDecl *Grids = UnchangedLocal(Element->getArg(0));
    const auto *Meshgrid =
        Grids ? dyn_cast<CallExpr>(ignoreCopiesAndConversions(Grids->getInit()))
              : nullptr;
    const FunctionDecl *Callee =
        Meshgrid ? Meshgrid->getDirectCallee() : nullptr;
    if (!Callee || !isNamed(Callee, "meshgrid") ||
        !isInTorchNamespace(Callee) || Meshgrid->getNumArgs() == 0)
      return nullptr;
    const auto *Operands = findFirst<InitListExpr>(
        Meshgrid->getArg(0),
        [](const InitListExpr &List) { return List.getNumInits() > 0; });
    return Operands
               ? hostCreationBehind(Operands->getInit(0), Body, Ctx, Depth + 1)
               : nullptr;
  }
  if (const VarDecl *Var = UnchangedLocal(E))
    return hostCreationBehind(Var->getInit(), Body, Ctx, Depth + 1);
  return nullptr;
}

const Stmt *innermostLoop(const ExecutionFrequency &Frequency) {
  return Frequency.inLoop() ? Frequency.Loops.front().Loop : nullptr;
}

/// A host-to-device move of a freshly created host tensor.
struct Move {
  const CXXMemberCallExpr *Call;
  std::string Operation; // "to()", "cuda()"
  Placement Target;      // Cuda or MaybeCuda
  /// The device argument of to(); null for cuda().
  const Expr *DeviceArg = nullptr;
  /// to() passes nothing but a device: no dtype, non_blocking or copy.
  bool OnlyDevice = true;
};

std::optional<Move> identifyMove(const CallExpr *Call,
                                 DeviceInference &Devices) {
  const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
  std::optional<TorchCall> Torch = identifyTorchCall(Call);
  if (!Member || !Torch || !Torch->Subject)
    return std::nullopt;
  if (Torch->Op == TorchOp::Cuda)
    return Move{Member, Torch->Spelling, Placement::Cuda};
  if (Torch->Op != TorchOp::To || Call->getNumArgs() == 0)
    return std::nullopt;
  const Expr *Target = Call->getArg(0);
  // to(other) moves to where `other` lives.
  std::optional<PlacementFact> Device =
      isTensorType(Target->getType())
          ? std::optional<PlacementFact>(Devices.tensorPlacement(Target))
          : Devices.deviceValue(Target);
  if (!Device || (Device->Where != Placement::Cuda &&
                  Device->Where != Placement::MaybeCuda))
    return std::nullopt;
  Move M{Member, Torch->Spelling, Device->Where, ignoreCopiesAndConversions(Target)};
  M.OnlyDevice = namesOnlyDevice(M.DeviceArg);
  for (unsigned I = 1; I < Call->getNumArgs(); ++I)
    if (!isa<CXXDefaultArgExpr>(Call->getArg(I)))
      M.OnlyDevice = false;
  return M;
}

/// \p E without the conversions LibTorch's tensor() wraps its data in:
/// implicit casts, temporaries, and one-argument constructions (an ArrayRef,
/// an initializer_list, a TensorDataContainer holding one value or list).
const Expr *unwrapTensorData(const Expr *E) {
  while (true) {
    E = E->IgnoreImplicit();
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(E);
        Construct && Construct->getNumArgs() == 1)
      E = Construct->getArg(0);
    else if (const auto *List = dyn_cast<CXXStdInitializerListExpr>(E))
      E = List->getSubExpr();
    else
      return E;
  }
}

/// The host scalars `torch::tensor(...)` is built from: a single arithmetic
/// value or a braced list of them (`torch::tensor({t})`); empty for a
/// container, an array or a tensor, whose contents may be new input.
/// True for `cfg.pos_weight` read through a member of `this` that the
/// class holds const (`const Config &cfg;`): a setting of the run, which
/// the object's methods cannot change.
bool readsConstSettingOfThis(const MemberExpr *Read) {
  bool ThroughConst = false;
  const Expr *Base = Read;
  while (const auto *Member = dyn_cast<MemberExpr>(Base)) {
    if (const auto *Field = dyn_cast<FieldDecl>(Member->getMemberDecl()))
      ThroughConst |= Field->getType().getNonReferenceType().isConstQualified();
    Base = Member->getBase()->IgnoreImplicit();
  }
  return ThroughConst && isa<CXXThisExpr>(Base);
}

llvm::SmallVector<const Expr *, 4> hostScalarValues(const CallExpr *Upload) {
  llvm::SmallVector<const Expr *, 4> Values;
  if (Upload->getNumArgs() == 0)
    return Values;
  const Expr *Data = unwrapTensorData(Upload->getArg(0));
  // Values computed from counters and settings (`{T}`, `{t * stride}`),
  // not read from the data of the iteration (`{pose.tx, pose.ty}`, an
  // element, a call's result): those are new input.
  auto IsScalar = [](const Expr *E) {
    if (!E->getType()->isArithmeticType())
      return false;
    bool ReadsData = false;
    walkStmt(E, [&](const Stmt &S) {
      if (const auto *Member = dyn_cast<MemberExpr>(&S))
        ReadsData = !isa<CXXThisExpr>(Member->getBase()->IgnoreImplicit()) &&
                    !readsConstSettingOfThis(Member);
      else if (isa<CallExpr, ArraySubscriptExpr>(S))
        ReadsData = true;
      else if (const auto *Unary = dyn_cast<UnaryOperator>(&S))
        ReadsData = Unary->getOpcode() == UO_Deref;
      return ReadsData ? WalkStep::Stop : WalkStep::Continue;
    });
    return !ReadsData;
  };
  if (const auto *List = dyn_cast<InitListExpr>(Data)) {
    for (const Expr *Element : List->inits()) {
      const Expr *Value = unwrapTensorData(Element);
      if (!IsScalar(Value))
        return {};
      Values.push_back(Value);
    }
    return Values;
  }
  if (IsScalar(Data))
    Values.push_back(Data);
  return Values;
}

/// A factory call \p Function returns directly on one of its paths
/// (`return torch::randint(0, n, {1, 1});`), making a host tensor.
const CallExpr *findReturnedFactory(const FunctionDecl *Function) {
  const CallExpr *Found = nullptr;
  walkStmt(Function->getBody(), [&](const Stmt &S) {
    if (isa<LambdaExpr>(S))
      return WalkStep::SkipChildren;
    if (const auto *Return = dyn_cast<ReturnStmt>(&S);
        Return && Return->getRetValue())
      if (const CallExpr *Factory = asFactoryCall(
              ignoreCopiesAndConversions(Return->getRetValue()))) {
        Found = Factory;
        return WalkStep::Stop;
      }
    return WalkStep::Continue;
  });
  return Found;
}

/// True if \p Function runs on every step of the program rather than once:
/// a module's forward(), a function called in a loop here (directly or
/// through a few callers defined here), or one the project index knows a
/// loop in another file calls. Constructors and setup run once.
bool runsEveryStep(const FunctionDecl *Function, DeviceInference &Devices,
                   const ProjectFacts *Facts, ASTContext &Ctx) {
  if (!Function || isa<CXXConstructorDecl>(Function))
    return false;
  if (const auto *Method = dyn_cast<CXXMethodDecl>(Function);
      Method && Method->getIdentifier() && Method->getName() == "forward")
    return true;
  return isCalledInLoopHere(Function, Devices, Ctx) ||
         stepPhrase(Function, Facts).has_value();
}

} // namespace

CreateOnDeviceCheck::CreateOnDeviceCheck(llvm::StringRef Name,
                                         ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context),
      FixRandomFactories(Options.get("FixRandomFactories", false)),
      ReportOneTimeCreations(Options.get("ReportOneTimeCreations", false)),
      ProjectIndex(Options.getLocalOrGlobal("ProjectIndex", "")),
      Costs(Options) {}

void CreateOnDeviceCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "FixRandomFactories", FixRandomFactories);
  Options.store(Opts, "ReportOneTimeCreations", ReportOneTimeCreations);
  Options.store(Opts, "ProjectIndex", ProjectIndex);
  Costs.storeOptions(Options, Opts);
}

void CreateOnDeviceCheck::registerMatchers(MatchFinder *Finder) {
  walkOnlyUserCode(*Finder);
  // Template instantiations are analysed like other code, but fixed only
  // through their pattern, which is what the source spells.
  // torch::tensor({t}, device): host values copied up as they are built.
  Finder->addMatcher(
      callExpr(unless(isExpansionInSystemHeader()),
               callee(functionDecl(hasAnyName("::torch::tensor", "::at::tensor",
                                              "::torch::scalar_tensor",
                                              "::at::scalar_tensor"))))
          .bind("upload"),
      this);
  Finder->addMatcher(cxxMemberCallExpr(unless(isExpansionInSystemHeader()),
                                       anyOf(allOf(isInTemplateInstantiation(),
                                                   expr().bind("instantiated")),
                                             anything()))
                         .bind("call"),
                     this);
}

void CreateOnDeviceCheck::onStartOfTranslationUnit() {
  if (!Facts) // the loop checks report an unreadable index
    Facts = ProjectFacts::loadOption(ProjectIndex);
  Analyses.reset();
}

void CreateOnDeviceCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("call");
  ASTContext &Ctx = *Result.Context;
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LangOpts = Ctx.getLangOpts();
  if (!Analyses)
    Analyses = TranslationUnitAnalyses::of(Ctx, Facts);
  DeviceInference &Devices = Analyses->devices();
  if (const auto *Upload = Result.Nodes.getNodeAs<CallExpr>("upload")) {
    checkScalarUpload(Upload, Ctx);
    return;
  }

  std::optional<Move> M = identifyMove(Call, Devices);
  if (!M)
    return;

  // The tensor moved: a factory call right there, or a local variable
  // initialised by one and used for nothing else.
  const Expr *Object = M->Call->getImplicitObjectArgument();
  // torch::ones(1).to(torch::kBool).to(device),
  // torch::arange(n).unsqueeze(0).to(device): a dtype conversion or a change
  // of shape on the way changes nothing about where the tensor was made.
  bool ThroughHostOps = false;
  while (const auto *Convert = dyn_cast_or_null<CXXMemberCallExpr>(
             ignoreCopiesAndConversions(Object))) {
    if (!isShapeOrTypeOperation(Convert)) {
      std::optional<TorchCall> Torch = identifyTorchCall(Convert);
      if (!Torch || Torch->Op != TorchOp::To || Convert->getNumArgs() == 0 ||
          isTensorType(Convert->getArg(0)->getType()) ||
          Devices.deviceValue(Convert->getArg(0)))
        break;
    }
    Object = Convert->getImplicitObjectArgument();
    ThroughHostOps = true;
  }
  const CallExpr *Factory = asFactoryCall(Object);
  const VarDecl *Variable = nullptr;
  // `getAction(state).to(device)` where getAction (defined here) returns a
  // host tensor a factory makes (`return torch::randint(0, n, {1, 1});`):
  // created on the host in the callee, moved by the caller.
  const FunctionDecl *ReturnedBy = nullptr;
  if (!Factory)
    if (const auto *Returning =
            dyn_cast_or_null<CallExpr>(ignoreCopiesAndConversions(Object)))
      if (const FunctionDecl *Callee = definedCallee(Returning, SM)) {
        Factory = findReturnedFactory(Callee);
        if (Factory)
          ReturnedBy = Callee;
      }
  if (!Factory) {
    const auto *Ref = dyn_cast_or_null<DeclRefExpr>(ignoreCopiesAndConversions(Object));
    Variable = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
    if (!Variable || isa<ParmVarDecl>(Variable) ||
        !Variable->hasLocalStorage() || Variable->getType()->isReferenceType())
      return;
    const FunctionDecl *Function = enclosingFunction(Call, Ctx);
    if (!Function || !Function->hasBody() ||
        !onlyMovedFrom(Variable, M->Call, Function->getBody(), Ctx))
      return;
    Factory = asFactoryCall(Variable->getInit());
    if (!Factory) {
      Factory =
          hostCreationBehind(Variable->getInit(), Function->getBody(), Ctx);
      ThroughHostOps = Factory != nullptr;
    }
    if (!Factory)
      return;
  }
  if (Devices.tensorPlacement(Factory).Where != Placement::Cpu ||
      createsEmptyTensor(Factory))
    return;
  // `torch::tensor(observations)` of a host container or array wraps data
  // the host produced: new input, which has to cross the link anyway.
  if (const FunctionDecl *Callee = Factory->getDirectCallee();
      Callee && isNamed(Callee, "tensor") && hostScalarValues(Factory).empty())
    return;

  ExecutionFrequency Frequency =
      analyzeFrequency(ReturnedBy ? static_cast<const Stmt *>(Call)
                                  : static_cast<const Stmt *>(Factory),
                       Ctx);
  // Created once and moved on every iteration is a loop-invariant copy,
  // which xfer-copy-in-loop reports; here both happen together.
  if (Variable &&
      innermostLoop(Frequency) != innermostLoop(analyzeFrequency(Call, Ctx)))
    return;

  if (!ReportOneTimeCreations && !Frequency.inLoop() &&
      (Frequency.Guard == GuardKind::Once ||
       !runsEveryStep(enclosingFunction(Call, Ctx), Devices, Facts.get(), Ctx)))
    return;
  // Under `if (epoch % 5 == 0)` or `if (last)` in a loop (a preview image
  // drawn every few epochs) the creation is occasional, as one before the
  // loop would be.
  if (!ReportOneTimeCreations && Frequency.inLoop() &&
      (Frequency.Guard == GuardKind::EveryN ||
       Frequency.Guard == GuardKind::Once))
    return;
  // In loops that only set up, tear down or time work (a benchmark of a
  // model on dummy input), as the loop checks judge them: no step's cost.
  if (!ReportOneTimeCreations && Frequency.inLoop() &&
      !Analyses->inSteadyLoop(Frequency))
    return;

  std::optional<TorchCall> FactoryCall = identifyTorchCall(Factory);
  std::string FrequencyPhrase =
      Frequency.inLoop() ? " " + describeFrequency(Frequency, SM) : "";
  SourceLocation WarnLoc = SM.getExpansionLoc(M->Call->getExprLoc());
  {
    DiagnosticBuilder Warning =
        diag(WarnLoc,
             "%select{tensor|tensor '%1'|tensor returned by '%1()'}0 "
             "created on the host by '%2' is "
             "copied to %select{the GPU|a device chosen at run time}3 by "
             "'%4'%5; pass the device to the factory to create it there "
             "directly")
        << (ReturnedBy ? 2
            : Variable ? 1
                       : 0)
        << (ReturnedBy ? ReturnedBy->getName()
            : Variable ? Variable->getName()
                       : "")
        << FactoryCall->Spelling << (M->Target == Placement::Cuda ? 0 : 1)
        << M->Operation << FrequencyPhrase;

    // The fix rewrites `factory(args).to(device)` as
    // `factory(args, device)`: only in the direct chain, where nothing else
    // sees the host tensor, and only where the result is the same tensor.
    bool Fixable = !Variable && !ReturnedBy && !ThroughHostOps &&
                   M->OnlyDevice &&
                   !Result.Nodes.getNodeAs<Expr>("instantiated") &&
                   (FixRandomFactories || !isRandomFactory(Factory));
    // Moving the device expression ahead of the factory's arguments must
    // not reorder side effects.
    if (M->DeviceArg && M->DeviceArg->HasSideEffects(Ctx, false))
      Fixable = false;
    std::optional<unsigned> OptionsIndex;
    if (Fixable)
      OptionsIndex = optionsParameter(Factory->getDirectCallee());
    if (!OptionsIndex || *OptionsIndex >= Factory->getNumArgs())
      Fixable = false;
    // The options must be the last argument written: later ones would
    // need spelling out.
    for (unsigned I = OptionsIndex ? *OptionsIndex + 1 : 0;
         Fixable && I < Factory->getNumArgs(); ++I)
      if (!isa<CXXDefaultArgExpr>(Factory->getArg(I)))
        Fixable = false;

    llvm::SmallVector<SourceLocation, 8> Touched = {
        Factory->getBeginLoc(), Factory->getEndLoc(), Object->getEndLoc(),
        M->Call->getEndLoc()};
    if (M->DeviceArg) {
      Touched.push_back(M->DeviceArg->getBeginLoc());
      Touched.push_back(M->DeviceArg->getEndLoc());
    }
    const Expr *Options = nullptr;
    if (Fixable && !isa<CXXDefaultArgExpr>(Factory->getArg(*OptionsIndex))) {
      Options = ignoreCopiesAndConversions(Factory->getArg(*OptionsIndex));
      Touched.push_back(Options->getBeginLoc());
      Touched.push_back(Options->getEndLoc());
      // Options that already name a device (even kCPU), or whose settings
      // change meaning on the device, are left alone.
      if (isa<InitListExpr>(Options) || optionsBlockFix(Options) ||
          Devices.deviceValue(Factory->getArg(*OptionsIndex)))
        Fixable = false;
    }
    for (SourceLocation Loc : Touched)
      if (Loc.isInvalid() || Loc.isMacroID())
        Fixable = false;

    if (Fixable) {
      llvm::StringRef Namespace =
          llvm::StringRef(FactoryCall->Spelling).split("::").first;
      std::string DeviceText =
          M->DeviceArg
              ? Lexer::getSourceText(CharSourceRange::getTokenRange(
                                         M->DeviceArg->getSourceRange()),
                                     SM, LangOpts)
                    .str()
              : (Namespace + "::kCUDA").str();
      auto AfterToken = [&](SourceLocation Loc) {
        return Lexer::getLocForEndOfToken(Loc, 0, SM, LangOpts);
      };
      if (!Options) {
        Warning << FixItHint::CreateInsertion(Factory->getRParenLoc(),
                                              (*OptionsIndex == 0 ? "" : ", ") +
                                                  DeviceText);
      } else if (isNamedRecord(Options->getType(), "TensorOptions")) {
        if (!isPostfixExpression(Options))
          Warning << FixItHint::CreateInsertion(Options->getBeginLoc(), "(");
        Warning << FixItHint::CreateInsertion(
            AfterToken(Options->getEndLoc()),
            (isPostfixExpression(Options) ? "" : ")") +
                (".device(" + DeviceText + ")"));
      } else {
        // A dtype or layout converted to TensorOptions implicitly.
        Warning << FixItHint::CreateInsertion(
                       Options->getBeginLoc(),
                       (Namespace + "::TensorOptions(").str())
                << FixItHint::CreateInsertion(AfterToken(Options->getEndLoc()),
                                              ").device(" + DeviceText + ")");
      }
      Warning << FixItHint::CreateRemoval(CharSourceRange::getCharRange(
          AfterToken(Object->getEndLoc()), AfterToken(M->Call->getEndLoc())));
    }
  }

  if (Variable)
    diag(SM.getExpansionLoc(Factory->getBeginLoc()),
         "'%0' is %select{created|built from a tensor created}1 on the host "
         "here",
         DiagnosticIDs::Note)
        << Variable->getName()
        << (Factory != asFactoryCall(Variable->getInit()));
  if (ReturnedBy)
    diag(SM.getExpansionLoc(Factory->getBeginLoc()),
         "'%0()' creates it on the host here", DiagnosticIDs::Note)
        << ReturnedBy->getName();
  if (Frequency.inLoop())
    diag(Frequency.Loops.front().Loop->getBeginLoc(), "%0 starts here",
         DiagnosticIDs::Note)
        << Frequency.Loops.front().Kind;
  // The host-side creation and the copy (pageable, so blocking), less
  // creating on the device.
  CostQuery Query{
      patterns::TorchFactoryThenToCuda, patterns::TorchFactoryOnDevice,
      constantFactoryBytes(Factory, Ctx), /*BlocksHost=*/true, &Frequency};
  describeOverlap(Query, /*IsLibTorch=*/true);
  if (std::optional<CostNote> Cost = Costs.note(Query, Ctx, *this)) {
    diag(WarnLoc, "%0", DiagnosticIDs::Note) << Cost->text();
    recordCostNote(*Cost, getID(), WarnLoc, Ctx.getSourceManager());
  }
}

void CreateOnDeviceCheck::checkScalarUpload(const CallExpr *Upload,
                                            ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  DeviceInference &Devices = Analyses->devices();
  llvm::SmallVector<const Expr *, 4> Values = hostScalarValues(Upload);
  if (Values.empty())
    return;
  Placement Where = Devices.tensorPlacement(Upload).Where;
  if (Where != Placement::Cuda && Where != Placement::MaybeCuda)
    return;
  ExecutionFrequency Frequency = analyzeFrequency(Upload, Ctx);
  std::string FrequencyPhrase;
  if (Frequency.inLoop()) {
    if (Frequency.Guard != GuardKind::None || Frequency.isEpochLevel())
      return;
    FrequencyPhrase = " " + describeFrequency(Frequency, SM);
  } else {
    const FunctionDecl *Function = enclosingFunction(Upload, Ctx);
    if (!runsEveryStep(Function, Devices, Facts.get(), Ctx) &&
        !ReportOneTimeCreations)
      return;
    if (std::optional<std::string> Step = stepPhrase(Function, Facts.get()))
      FrequencyPhrase = " " + *Step;
  }
  std::optional<TorchCall> Factory = identifyTorchCall(Upload);
  SourceLocation WarnLoc = SM.getExpansionLoc(Upload->getExprLoc());
  diag(WarnLoc, "tensor built from host values by '%0' is copied to "
                "%select{the GPU|a device chosen at run time}1%2; fill it on "
                "the device instead (torch::full with the value, or pass the "
                "scalar to the operation that uses it)")
      << (Factory ? Factory->Spelling : std::string("torch::tensor()"))
      << (Where == Placement::Cuda ? 0 : 1) << FrequencyPhrase;
  if (Frequency.inLoop())
    diag(Frequency.Loops.front().Loop->getBeginLoc(), "%0 starts here",
         DiagnosticIDs::Note)
        << Frequency.Loops.front().Kind;
  // A handful of bytes copied from pageable memory: the copy blocks the
  // host, against a fill on the device.
  uint64_t Bytes = 0;
  for (const Expr *Value : Values)
    Bytes += Ctx.getTypeSizeInChars(Value->getType()).getQuantity();
  CostQuery Query{patterns::TorchFactoryThenToCuda,
                  patterns::TorchFactoryOnDevice, Bytes, /*BlocksHost=*/true,
                  &Frequency};
  describeOverlap(Query, /*IsLibTorch=*/true);
  if (std::optional<CostNote> Cost = Costs.note(Query, Ctx, *this)) {
    diag(WarnLoc, "%0", DiagnosticIDs::Note) << Cost->text();
    recordCostNote(*Cost, getID(), WarnLoc, SM);
  }
}

} // namespace clang::tidy::xfer
