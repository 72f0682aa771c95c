//===--- DeviceInference.cpp - where a tensor or pointer lives ------------===//
//
// The solver: what a variable, parameter, field or call result holds, from
// its definitions and call sites across the unit (and the project index).
// What each operation does to its operands' placements, the transfer
// functions, is in PlacementTransfer.cpp.
//
//===----------------------------------------------------------------------===//

#include "analysis/DeviceInference.h"
#include "analysis/ApiCatalogue.h"
#include "analysis/AstUtils.h"
#include "analysis/AstWalk.h"
#include "analysis/DeviceInferenceDetail.h"
#include "analysis/ProjectFacts.h"
#include "analysis/StepFunctions.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
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
    return Placement::PinnedCpu;
  if ((isHostPlacement(A) || isDeviceSide(A)) &&
      (isHostPlacement(B) || isDeviceSide(B)))
    return Placement::MaybeCuda;
  return Placement::Unknown;
}

PlacementFact makeFact(Placement Where, const Stmt *Origin,
                       std::string Reason) {
  return PlacementFact{Where, Origin, std::move(Reason)};
}

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

const VarDecl *objectVariable(const MemberExpr *Member) {
  const auto *Ref =
      dyn_cast<DeclRefExpr>(Member->getBase()->IgnoreParenImpCasts());
  return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

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

namespace {

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

/// The tensor \p S's placement follows when \p S runs only where that
/// tensor is on cuda: \p S is in the then-branch of `if (x.is_cuda())` (or
/// `if (x.device().is_cuda())`), with no loop in between. Device-agnostic
/// code moves its other tensors to where its input is that way.
const Expr *cudaTestedTensor(const Stmt *S, ASTContext &Ctx) {
  const Stmt *Child = S;
  for (const Stmt *P = parentStmt(S, Ctx); P;
       Child = P, P = parentStmt(P, Ctx)) {
    if (isLoopStmt(P) || isa<LambdaExpr>(P))
      return nullptr;
    const auto *If = dyn_cast<IfStmt>(P);
    if (!If)
      continue;
    if (Child != If->getThen())
      return nullptr;
    const auto *Test = dyn_cast_or_null<CXXMemberCallExpr>(
        If->getCond()->IgnoreParenImpCasts());
    if (!Test || !Test->getMethodDecl() ||
        !isNamed(Test->getMethodDecl(), "is_cuda"))
      return nullptr;
    const Expr *Object =
        Test->getImplicitObjectArgument()->IgnoreParenImpCasts();
    if (const auto *Device = dyn_cast<CXXMemberCallExpr>(Object);
        Device && Device->getMethodDecl() &&
        isNamed(Device->getMethodDecl(), "device"))
      Object = Device->getImplicitObjectArgument()->IgnoreParenImpCasts();
    return isTensorType(Object->getType()) ? Object : nullptr;
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

/// The member a CUDA copy copies between two objects
/// (`cudaMemcpy(mirror->buf, host->buf, ...)`): both pointers are the same
/// member of different objects.
const FieldDecl *mirroredField(const CallExpr *Call) {
  std::optional<CudaApi> Api = identifyCudaCall(Call);
  if (!Api || !isCopy(*Api))
    return nullptr;
  std::optional<unsigned> SourceIndex = memcpySourceArgIndex(*Api);
  if (!SourceIndex || *SourceIndex >= Call->getNumArgs())
    return nullptr;
  const auto *Destination =
      dyn_cast<MemberExpr>(Call->getArg(0)->IgnoreParenCasts());
  const auto *Source =
      dyn_cast<MemberExpr>(Call->getArg(*SourceIndex)->IgnoreParenCasts());
  if (!Destination || !Source ||
      Destination->getMemberDecl() != Source->getMemberDecl())
    return nullptr;
  return dyn_cast<FieldDecl>(Destination->getMemberDecl());
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

/// The container variable whose element \p E is: `v[i]` or `v.at(i)` on a
/// std::vector of tensors (not a tensor's own element, which assigning into
/// copies across devices rather than changing where the tensor lives).
const VarDecl *containerOfElement(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  const Expr *Object = nullptr;
  if (const auto *Subscript = dyn_cast<CXXOperatorCallExpr>(E);
      Subscript && Subscript->getOperator() == OO_Subscript &&
      Subscript->getNumArgs() == 2)
    Object = Subscript->getArg(0);
  else if (const auto *At = dyn_cast<CXXMemberCallExpr>(E);
           At && isNamed(At->getMethodDecl(), "at"))
    Object = At->getImplicitObjectArgument();
  const VarDecl *Var = Object ? assignedVariable(Object) : nullptr;
  return Var && !isTensorType(Var->getType()) &&
                 isTensorLikeType(Var->getType())
             ? Var
             : nullptr;
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

const VarDecl *moduleVariable(const Expr *E) {
  const DeclRefExpr *Ref = moduleReference(E);
  return Ref ? cast<VarDecl>(Ref->getDecl()) : nullptr;
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
  if (const auto *Default =
          dyn_cast<CXXDefaultInitExpr>(Value->IgnoreImplicit()))
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
                     : !Base->getType().getNonReferenceType()->isRecordType())
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
    // An object the caller passes in (`Params &p`, `Params *p`): what the
    // program stores into the field, when every store this file sees puts
    // the same kind of memory there (a settings struct whose buffers one
    // function allocates).
    if (isa<ParmVarDecl>(Base)) {
      // A store of the same field of another object (`p->next = q->next`)
      // leads back here: cut the cycle, as fieldPlacement does.
      if (!FieldsInProgress.insert(Field).second) {
        ++Cuts;
        return PlacementFact{};
      }
      std::optional<Placement> Stored;
      bool Agree = true;
      auto Stores = userCode().FieldWrites.find(Field);
      if (Stores != userCode().FieldWrites.end())
        for (const Expr *Value : Stores->second) {
          Placement Where = joinKnown({Value}, ValueKind::Pointer, "").Where;
          if (Where == Placement::Unknown || (Stored && *Stored != Where)) {
            Agree = false;
            break;
          }
          Stored = Where;
        }
      FieldsInProgress.erase(Field);
      return Agree ? fieldPlacement(Field, ValueKind::Pointer)
                   : PlacementFact{};
    }
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
      bool Between =
          isBeforeInSource(Last, S, SM) && isBeforeInSource(S, Use, SM);
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
  return makeFact(Device->Where, Move,
                  "moved by its constructor to a " +
                      placementName(Device->Where).str() + " device");
}

std::optional<PlacementFact>
DeviceInference::registeredBefore(const VarDecl *Var, const Expr *Use) {
  // An array or a container's storage is the same memory at every use, so a
  // registration anywhere earlier in the function still holds.
  for (const Definition &Def : definitionsOf(Var))
    if (Def.RegistersPinned &&
        isBeforeInSource(Def.At, Use, Ctx.getSourceManager()))
      return makeFact(Placement::PinnedCpu, Def.At,
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
    return makeFact(Placement::PinnedCpu, Def.At,
                    "host memory registered by cudaHostRegister");
  // An empty tensor or container holds nothing yet, nor does a container
  // of undefined tensors (`std::vector<torch::Tensor> v(n)`): later writes
  // decide.
  if (const auto *Construct =
          dyn_cast<CXXConstructExpr>(ignoreTemporaries(Def.Value));
      Kind == ValueKind::Tensor && Construct &&
      (Construct->getNumArgs() == 0 ||
       (!isTensorType(Construct->getType()) &&
        llvm::all_of(Construct->arguments(), [](const Expr *Arg) {
          return isa<CXXDefaultArgExpr>(Arg) ||
                 Arg->getType()->isIntegralOrEnumerationType();
        }))))
    return std::nullopt;
  return evaluate(Def.Value, Kind);
}

std::optional<PlacementFact>
DeviceInference::resolveVariable(const VarDecl *Var, const Expr *Use,
                                 ValueKind Kind) {
  if (!Var->isLocalVarDeclOrParm()) {
    // Namespace-scope constants such as c10::kCUDA, and globals of user
    // code that nothing here assigns: their initializer.
    // A global of scalar type (`torch::DeviceType device_type;`) has no
    // initializer expression: what the program stores decides.
    const Expr *Init = Var->getInit();
    if (Init && (Var->getType().isConstQualified() || Var->isConstexpr()))
      return evaluate(Init, Kind);
    if (Ctx.getSourceManager().isInSystemHeader(Var->getLocation()))
      return PlacementFact{};
    const VarDecl *Canonical = Var->getCanonicalDecl();
    if (!userCode().AssignedGlobals.contains(Canonical))
      return Init ? evaluate(Init, Kind) : PlacementFact{};
    // Tensor options or a device kept in a global or a static member and
    // set by an initialisation function (`options = options.device(kCUDA)`):
    // the join of what is stored, and of the initializer unless it names
    // no device. Tensors and modules also move in place: not followed.
    auto Writes = userCode().GlobalWrites.find(Canonical);
    if (Kind != ValueKind::Device || Writes == userCode().GlobalWrites.end())
      return PlacementFact{};
    llvm::SmallVector<const Expr *, 4> Sources(Writes->second.begin(),
                                               Writes->second.end());
    const auto *Construct =
        Init ? dyn_cast<CXXConstructExpr>(ignoreTemporaries(Init)) : nullptr;
    if (Init && (!Construct || Construct->getNumArgs() != 0))
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
    Result = makeFact(joinPlacements(Result->Where, Next->Where), nullptr,
                      "assigned on several paths");
  };

  // Walk back over earlier definitions until one that always runs first.
  bool Dominated = false;
  for (auto It = Defs.rbegin(); It != Defs.rend(); ++It) {
    if (!isBeforeInSource(It->At, Use, SM) || isWithin(Use, It->At, Ctx))
      continue;
    // `if (box.is_cuda()) zero = zero.cuda();`: runs exactly where `box`
    // is on cuda, so the variable is where `box` is. Where `box` is known
    // to be on the host the move never runs; where it is known to be on
    // cuda it always does; otherwise the variable follows `box`.
    std::optional<Placement> Tested;
    if (const Expr *Guard = isExplicitMove(It->Value)
                                ? cudaTestedTensor(It->At, Ctx)
                                : nullptr) {
      std::optional<PlacementFact> GuardFact =
          evaluate(Guard, ValueKind::Tensor);
      Tested = GuardFact ? GuardFact->Where : Placement::Unknown;
      if (*Tested != Placement::Cuda && !isHostPlacement(*Tested)) {
        Join(GuardFact ? *GuardFact : PlacementFact{});
        Dominated = true;
        break;
      }
    }
    if (Tested && isHostPlacement(*Tested))
      continue;
    std::optional<PlacementFact> Value = evaluateDefinition(*It, Kind);
    if (Value && isDeviceSide(Value->Where) && isExplicitMove(It->Value))
      MovedToDevice = Value->Origin ? Value->Origin : It->At;
    Join(std::move(Value));
    if (Tested == Placement::Cuda ||
        (!It->Accumulates && Order.alwaysRunsBefore(It->At, Use))) {
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
    Result = makeFact(Placement::MaybeCuda, MovedToDevice,
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
    // A module handed to user code may be moved there; one torch::load
    // fills takes the devices its parameters were saved from.
    if (const FunctionDecl *Callee = Call->getDirectCallee();
        !isa<CXXOperatorCallExpr>(Call) &&
        (!Callee || !isInLibTorch(Callee) || isNamed(Callee, "load")))
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
          // v[i] = t: the vector holds t besides what it held.
          if (const VarDecl *Var = containerOfElement(Op->getArg(0));
              Var && isTensorType(Op->getArg(1)->getType()))
            Out[Var].push_back({Op, Op->getArg(1), false, true});
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
  // torch::DeviceType (torch::kCUDA, torch::kCPU) held in a variable or
  // member: a device too.
  if (const auto *Enum = T.getNonReferenceType()->getAs<EnumType>();
      Enum && isNamed(Enum->getDecl(), "DeviceType"))
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

namespace {

/// True if \p Type names a device or tensor options (`torch::Device`,
/// `std::shared_ptr<torch::Device>`, `torch::DeviceType`).
bool mentionsDevice(QualType Type) {
  std::string Spelled = Type.getCanonicalType().getAsString();
  return llvm::StringRef(Spelled).contains("c10::Device") ||
         llvm::StringRef(Spelled).contains("c10::TensorOptions");
}

/// True if \p Record is a LibTorch dataset of the program (it derives from
/// torch::data::datasets::Dataset or BatchDataset) that a constructor is
/// given a device for, or that keeps one: a dataset that moves its tensors.
bool datasetTakesDevice(const CXXRecordDecl *Record) {
  if (!Record->isThisDeclarationADefinition() || Record->isDependentContext())
    return false;
  auto IsTorchDataset = [](const CXXRecordDecl *Base) {
    return Base->getIdentifier() &&
           llvm::is_contained({"Dataset", "BatchDataset", "StatefulDataset"},
                              Base->getName()) &&
           outermostNamespace(Base) == "torch";
  };
  if (Record->forallBases(
          [&](const CXXRecordDecl *Base) { return !IsTorchDataset(Base); }))
    return false;
  return llvm::any_of(Record->fields(),
                      [](const FieldDecl *Field) {
                        return mentionsDevice(Field->getType());
                      }) ||
         llvm::any_of(Record->ctors(), [](const CXXConstructorDecl *Ctor) {
           return llvm::any_of(Ctor->parameters(), [](const ParmVarDecl *P) {
             return mentionsDevice(P->getType());
           });
         });
}

} // namespace

const DeviceInference::UserCodeIndex &DeviceInference::userCode() {
  if (UserCode)
    return *UserCode;
  UserCode.emplace();
  UserCodeIndex &Out = *UserCode;
  Out.DatasetTakesDevice = false;
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
    if (const FieldDecl *Field = mirroredField(Call))
      Out.MirroredFields.insert(Field);
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
        Op && Op->isAssignmentOp() && Op->getNumArgs() == 2) {
      NoteWrite(Op->getArg(0));
      if (Op->getOperator() == OO_Equal)
        NoteStore(Op->getArg(0), Op->getArg(1));
    }
    // A global module moved in place, or a module member of an object
    // (`net.gen->to(device)`).
    if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
        Member && asModuleMove(Member)) {
      NoteWrite(Member->getImplicitObjectArgument());
      const Expr *Object =
          Member->getImplicitObjectArgument()->IgnoreParenImpCasts();
      if (const auto *Arrow = dyn_cast<CXXOperatorCallExpr>(Object);
          Arrow && Arrow->getOperator() == OO_Arrow && Arrow->getNumArgs())
        Object = Arrow->getArg(0)->IgnoreParenImpCasts();
      if (const auto *Held = dyn_cast<MemberExpr>(Object))
        if (const auto *Field = dyn_cast<FieldDecl>(Held->getMemberDecl());
            Field && isModuleType(Field->getType()))
          Out.ModuleFieldMoves[Field].push_back({Member, objectVariable(Held)});
    }
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
    // `return {total, pde_loss};` of an aggregate: each element stores the
    // field it initializes.
    if (const auto *List = dyn_cast<InitListExpr>(&S);
        List && List->isSemanticForm())
      if (const auto *Record = List->getType()->getAsCXXRecordDecl();
          Record && !Record->isUnion() && Record->getNumBases() == 0) {
        unsigned Index = 0;
        for (const FieldDecl *Field : Record->fields()) {
          if (Index >= List->getNumInits())
            break;
          const Expr *Value = List->getInit(Index++);
          if (!isa<ImplicitValueInitExpr>(Value))
            Out.FieldWrites[Field].push_back(Value);
        }
      }
    if (const auto *Construct = dyn_cast<CXXConstructExpr>(&S))
      if (const CXXConstructorDecl *Constructor = Construct->getConstructor();
          Constructor && Construct->getNumArgs() > 0 &&
          !Constructor->isCopyOrMoveConstructor())
        Out.ConstructionSites[Constructor->getCanonicalDecl()].push_back(
            Construct);
    if (const auto *Op = dyn_cast<BinaryOperator>(&S)) {
      if (Op->getOpcode() == BO_Assign)
        NoteStore(Op->getLHS(), Op->getRHS());
      if (Op->isAssignmentOp())
        NoteWrite(Op->getLHS());
    }
    return WalkStep::Continue;
  };
  auto OnDecl = [&](const Decl &D) {
    if (const auto *Record = dyn_cast<CXXRecordDecl>(&D))
      Out.DatasetTakesDevice |= datasetTakesDevice(Record);
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
      Result = makeFact(joinPlacements(Result->Where, Next->Where), nullptr,
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
  // `Matrix(n, d_p, true)`, `Runner R(torch::kCUDA)`: a constructor's
  // parameters are what its constructions pass.
  if (const auto &Sites = userCode().ConstructionSites;
      isa<CXXConstructorDecl>(Function))
    if (auto It = Sites.find(Function->getCanonicalDecl()); It != Sites.end())
      for (const CXXConstructExpr *Construct : It->second)
        if (Index < Construct->getNumArgs() &&
            !isa<CXXDefaultArgExpr>(Construct->getArg(Index)))
          Arguments.push_back(Construct->getArg(Index));
  PlacementFact Final =
      joinKnown(Arguments, Kind, "passed different placements by its callers");
  if (std::optional<Placement> Elsewhere =
          Facts ? Facts->parameter(Function, Index) : std::nullopt) {
    if (Final.Where == Placement::Unknown)
      Final = makeFact(*Elsewhere, nullptr,
                       "passed by callers in other files of the program");
    else if (Final.Where != *Elsewhere)
      Final = makeFact(joinPlacements(Final.Where, *Elsewhere), nullptr,
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
  // Registered with its module: moves with it, wherever it was made. A
  // member copied between a host struct and its device mirror points
  // wherever its own object's buffers were made.
  if (userCode().RegisteredFields.contains(Field) ||
      userCode().MirroredFields.contains(Field)) {
    FieldsInProgress.erase(Field);
    return FieldCache[Field] = PlacementFact{};
  }
  const auto &Writes = userCode().FieldWrites;
  auto It = Writes.find(Field);
  PlacementFact Final =
      It == Writes.end()
          ? PlacementFact{}
          : joinKnown(It->second, Kind, "stored on several paths");
  // Stored by constructors or methods in another file of the program; where
  // those stores disagree with this file's, the member holds either.
  if (Facts)
    if (std::optional<Placement> Elsewhere = Facts->fieldPlacement(Field)) {
      if (Final.Where == Placement::Unknown)
        Final = makeFact(*Elsewhere, nullptr,
                         "stored in '" + Field->getNameAsString() +
                             "' in another file of the program");
      else if (Final.Where != *Elsewhere)
        Final = makeFact(joinPlacements(Final.Where, *Elsewhere), nullptr,
                         "stored on several paths");
    }
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
      return makeFact(*Elsewhere, Call,
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

  CallFrame Frame{Canonical,
                  llvm::DenseMap<const ParmVarDecl *, PlacementFact>()};
  const unsigned First =
      isa<CXXOperatorCallExpr>(Call) && isa<CXXMethodDecl>(Definition) ? 1 : 0;
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
    return makeFact(Cached->second->Where, Call, Cached->second->Reason);
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
      Result = makeFact(joinPlacements(Result->Where, Fact.Where), nullptr,
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
  return makeFact(Result->Where, Call, Reason);
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
