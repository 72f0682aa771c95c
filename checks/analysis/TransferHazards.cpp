//===--- TransferHazards.cpp - calls that sync with or copy from the GPU --===//

#include "analysis/TransferHazards.h"
#include "analysis/ApiCatalogue.h"
#include "analysis/AstUtils.h"
#include "analysis/AstWalk.h"
#include "analysis/StepFunctions.h"
#include "cost/CostModel.h"
#include "clang/AST/Attr.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/StringSwitch.h"

namespace clang::tidy::xfer {
namespace {

bool isPointerToConst(QualType T) {
  return T->isPointerType() && T->getPointeeType().isConstQualified();
}

/// True if the address \p AddressOf is an argument for a pointer-to-const
/// parameter (the source of a cudaMemcpy): the callee only reads through it.
bool passedAsPointerToConst(const UnaryOperator *AddressOf, ASTContext &Ctx) {
  const Stmt *Child = nullptr;
  const auto *Call =
      dyn_cast_or_null<CallExpr>(consumerOf(AddressOf, Ctx, &Child));
  const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
  if (!Callee)
    return false;
  for (unsigned I = 0; I < Call->getNumArgs() && I < Callee->getNumParams();
       ++I)
    if (Call->getArg(I)->IgnoreParenImpCasts() ==
        cast<Expr>(Child)->IgnoreParenImpCasts())
      return isPointerToConst(Callee->getParamDecl(I)->getType());
  return false;
}

/// True if the element (or field) \p Element names may be written:
/// anything but a read of its value or its address handed to a
/// pointer-to-const parameter (the source of a cudaMemcpy).
bool mayWriteElement(const Expr *Element, ASTContext &Ctx) {
  const Stmt *Parent = parentStmt(Element, Ctx);
  while (const auto *Paren = dyn_cast_or_null<ParenExpr>(Parent))
    Parent = parentStmt(Paren, Ctx);
  if (const auto *Cast = dyn_cast_or_null<ImplicitCastExpr>(Parent))
    return Cast->getCastKind() != CK_LValueToRValue;
  if (const auto *AddressOf = dyn_cast_or_null<UnaryOperator>(Parent);
      AddressOf && AddressOf->getOpcode() == UO_AddrOf)
    return !passedAsPointerToConst(AddressOf, Ctx);
  return true;
}

bool mayWriteThrough(const Expr *Use, ASTContext &Ctx, unsigned Depth = 0);

/// True if \p Callee, a host function defined in this file, may change what
/// its pointer parameter \p Param points to: a writer of results
/// (`writeResults(float h[])`) only reads through it. Unknown a few calls
/// deep.
bool mayWriteThroughParameter(const FunctionDecl *Callee,
                              const ParmVarDecl *Param, ASTContext &Ctx,
                              unsigned Depth) {
  if (Depth > 2 || Callee->hasAttr<CUDAGlobalAttr>() ||
      Callee->hasAttr<CUDADeviceAttr>() || !Callee->hasBody())
    return true;
  return containsMatch<DeclRefExpr>(
      Callee->getBody(), [&](const DeclRefExpr &Ref) {
        return Ref.getDecl() == Param && mayWriteThrough(&Ref, Ctx, Depth + 1);
      });
}

/// True if what a pointer (or an array, `int tokens[64]`) of type \p Type
/// reaches is const.
bool reachesConstOnly(QualType Type) {
  QualType Reached = Type->isArrayType()
                         ? Type->getAsArrayTypeUnsafe()->getElementType()
                         : Type->getPointeeType();
  return !Reached.isNull() && Reached.isConstQualified();
}

/// True if \p Use of a tensor, pointer or array variable may change what the
/// variable holds (or, for a pointer, what it points to).
bool mayWriteThrough(const Expr *Use, ASTContext &Ctx, unsigned Depth) {
  const Stmt *Child = nullptr;
  const Stmt *Consumer = consumerOf(Use, Ctx, &Child);
  if (!Consumer)
    return false;
  if (const auto *Assign = dyn_cast<BinaryOperator>(Consumer)) {
    // `Host + Offset` points into the same memory: what is done with it
    // (a cudaMemcpy destination) is done to the variable's memory.
    if (Assign->isAdditiveOp() && Assign->getType()->isPointerType() &&
        Use->getType()->isPointerType())
      return mayWriteThrough(Assign, Ctx, Depth);
    return Assign->isAssignmentOp() && Assign->getLHS() == Child;
  }
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Consumer))
    return Op->isAssignmentOp() && Op->getNumArgs() && Op->getArg(0) == Child;
  // `particle *p = host + i;`: a local pointer into the same memory, and
  // whatever is written through it.
  if (const auto *Declaration = dyn_cast<DeclStmt>(Consumer)) {
    constexpr unsigned MaxAliases = 2;
    for (const Decl *D : Declaration->decls()) {
      const auto *Alias = dyn_cast<VarDecl>(D);
      if (!Alias || Alias->getInit() != Child ||
          !Alias->getType()->isPointerType())
        continue;
      if (reachesConstOnly(Alias->getType()))
        return false;
      const Stmt *Scope = parentStmt(Declaration, Ctx);
      return Depth >= MaxAliases || !Scope ||
             containsMatch<DeclRefExpr>(Scope, [&](const DeclRefExpr &Ref) {
               return Ref.getDecl() == Alias &&
                      mayWriteThrough(&Ref, Ctx, Depth + 1);
             });
    }
  }
  if (const auto *Unary = dyn_cast<UnaryOperator>(Consumer);
      Unary && Unary->getOpcode() == UO_AddrOf)
    return !passedAsPointerToConst(Unary, Ctx);
  if (const auto *Unary = dyn_cast<UnaryOperator>(Consumer))
    return Unary->isIncrementDecrementOp() ||
           (Unary->getOpcode() == UO_Deref &&
            !reachesConstOnly(Use->getType()));
  if (const auto *Element = dyn_cast<ArraySubscriptExpr>(Consumer))
    return !reachesConstOnly(Use->getType()) && mayWriteElement(Element, Ctx);
  if (const auto *Member = dyn_cast<MemberExpr>(Consumer)) {
    // `p->x = ...`: a field of what the pointer points at.
    if (Member->isArrow() && isa<FieldDecl>(Member->getMemberDecl()))
      return !reachesConstOnly(Use->getType()) && mayWriteElement(Member, Ctx);
    // In-place tensor operations end in '_' (add_, copy_, zero_).
    const auto *Method = dyn_cast<CXXMethodDecl>(Member->getMemberDecl());
    return Method && Method->getIdentifier() &&
           (Method->getName().ends_with("_") || !Method->isConst());
  }
  if (const auto *Call = dyn_cast<CallExpr>(Consumer)) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee)
      return true;
    for (unsigned I = 0; I < Call->getNumArgs() && I < Callee->getNumParams();
         ++I) {
      if (Call->getArg(I)->IgnoreParenImpCasts() !=
          cast<Expr>(Child)->IgnoreParenImpCasts())
        continue;
      QualType Param = Callee->getParamDecl(I)->getType();
      if (Param->isPointerType()) {
        if (isPointerToConst(Param))
          return false;
        const FunctionDecl *Definition =
            definedCallee(Call, Ctx.getSourceManager());
        return !Definition ||
               mayWriteThroughParameter(Definition, Definition->getParamDecl(I),
                                        Ctx, Depth);
      }
      if (Param->isReferenceType())
        return !Param.getNonReferenceType().isConstQualified();
      return false; // by value
    }
    return false;
  }
  return false;
}

std::optional<Hazard> classifyTorch(const CallExpr *Call, const TorchCall &T,
                                    DeviceInference &Devices) {
  Hazard H{HazardKind::HostSync, /*IsLibTorch=*/true, T.Spelling, "",
           T.Subject, {}, std::nullopt};
  auto SubjectOnHost = [&] {
    if (!T.Subject)
      return false;
    H.SubjectPlacement = Devices.tensorPlacement(T.Subject);
    return isHostPlacement(H.SubjectPlacement.Where);
  };
  switch (T.Op) {
  case TorchOp::Item:
  case TorchOp::Equal:
  case TorchOp::AllClose:
  case TorchOp::IsNonzero:
  case TorchOp::IndexWithTensor:
  case TorchOp::CheckedLinalg: // reads a flag of a few bytes back
    H.CostPattern = patterns::TorchItem;
    break;
  case TorchOp::Nonzero:
  case TorchOp::MaskedSelect:
  case TorchOp::MaskIndex:
  case TorchOp::Unique:
    H.CostPattern = patterns::TorchNonzero;
    break;
  case TorchOp::Print:
    H.CostPattern = patterns::TorchPrint;
    break;
  case TorchOp::CudaSynchronize:
    H.CostPattern = patterns::CudaDeviceSynchronize;
    return H;
  case TorchOp::Cpu:
    H.Kind = HazardKind::DeviceToHostCopy;
    H.CostPattern = patterns::TorchCpu;
    break;
  case TorchOp::To: {
    if (Call->getNumArgs() == 0)
      return std::nullopt;
    const Expr *Target = Call->getArg(0);
    std::optional<PlacementFact> Device =
        isTensorType(Target->getType())
            ? std::optional<PlacementFact>(Devices.tensorPlacement(Target))
            : Devices.deviceValue(Target);
    if (!Device)
      return std::nullopt;
    if (isHostPlacement(Device->Where)) {
      H.Kind = HazardKind::DeviceToHostCopy;
      H.CostPattern = patterns::TorchCpu;
      H.Operation = "to(" + placementName(Device->Where).str() + ")";
      break;
    }
    if (Device->Where == Placement::Cuda) {
      H.Kind = HazardKind::HostToDeviceCopy;
      H.CostPattern = patterns::TorchToCuda;
      H.Operation = "to(cuda)";
      H.SubjectPlacement = Devices.tensorPlacement(T.Subject);
      if (H.SubjectPlacement.Where == Placement::Cuda)
        return std::nullopt;
      return H;
    }
    return std::nullopt;
  }
  case TorchOp::Cuda:
    H.Kind = HazardKind::HostToDeviceCopy;
    H.CostPattern = patterns::TorchToCuda;
    H.SubjectPlacement = Devices.tensorPlacement(T.Subject);
    if (H.SubjectPlacement.Where == Placement::Cuda)
      return std::nullopt;
    return H;
  case TorchOp::Copy: {
    if (Call->getNumArgs() == 0 || !T.Subject)
      return std::nullopt;
    PlacementFact Destination = Devices.tensorPlacement(T.Subject);
    // dst.copy_(src), or `dst_view = src`.
    const bool IsAssignment = isa<CXXOperatorCallExpr>(Call);
    const Expr *Source = Call->getArg(IsAssignment ? 1 : 0);
    PlacementFact SourcePlacement = Devices.tensorPlacement(Source);
    if (isHostPlacement(Destination.Where) &&
        !isHostPlacement(SourcePlacement.Where)) {
      H.Kind = HazardKind::DeviceToHostCopy;
      H.CostPattern = patterns::TorchCpu;
      H.Subject = Source->IgnoreParenImpCasts();
      H.SubjectPlacement = SourcePlacement;
      return H;
    }
    // `device_batch[b] = host_rows[idx]`: a small upload per assignment.
    // (fill_ passes a host value to the device as a scalar argument.)
    if (T.Spelling != "fill_()" && Destination.Where == Placement::Cuda &&
        isHostPlacement(SourcePlacement.Where)) {
      H.Kind = HazardKind::HostToDeviceCopy;
      H.CostPattern = patterns::TorchToCuda;
      H.Subject = Source->IgnoreParenImpCasts();
      H.SubjectPlacement = SourcePlacement;
      return H;
    }
    return std::nullopt;
  }
  default:
    return std::nullopt;
  }
  if (SubjectOnHost())
    return std::nullopt;
  return H;
}

/// True if the program switches a cuBLAS handle to device pointer mode
/// anywhere in this translation unit: then a result pointer of unknown
/// placement may point to device memory.
bool setsDevicePointerMode(ASTContext &Ctx) {
  // cublas_v2.h names it through a macro.
  for (llvm::StringRef Name :
       {"cublasSetPointerMode_v2", "cublasSetPointerMode"})
    for (const NamedDecl *Found :
         Ctx.getTranslationUnitDecl()->lookup(&Ctx.Idents.get(Name)))
      if (Found->isReferenced())
        return true;
  return false;
}

std::optional<Hazard> classifyCuda(const CallExpr *Call, CudaApi Api,
                                   DeviceInference &Devices) {
  Hazard H{HazardKind::HostSync, /*IsLibTorch=*/false,
           cudaApiName(Api).str(), "", nullptr, {}, std::nullopt};
  // Allocations and releases of memory or library handles synchronize like
  // cudaMalloc/cudaFree (page-locked host allocation is among the
  // operations the CUDA programming guide lists as synchronizing
  // implicitly). Only cudaMalloc and cudaFree have a measured pattern; the
  // others cite no cost.
  if (acquiresOrReleases(Api)) {
    if (Api == CudaApi::Malloc || Api == CudaApi::Free)
      H.CostPattern = patterns::CudaMallocFree;
    if (Api == CudaApi::Malloc && Call->getNumArgs() >= 2)
      H.Bytes = evaluateCount(Call->getArg(1), Devices.context());
    return H;
  }
  // A cuBLAS reduction writing its result to host memory waits for it. In
  // device pointer mode (cublasSetPointerMode) the result stays on the
  // device and the call does not wait.
  if (returnsCublasScalar(Api)) {
    if (Call->getNumArgs() == 0)
      return std::nullopt;
    const Expr *Result = Call->getArg(Call->getNumArgs() - 1);
    PlacementFact Where = Devices.pointerPlacement(Result);
    if (!isHostPlacement(Where.Where) &&
        !(Where.Where == Placement::Unknown &&
          !setsDevicePointerMode(Devices.context())))
      return std::nullopt;
    H.Subject = Result;
    H.SubjectPlacement = Where;
    // No measured pattern: no cost is cited.
    return H;
  }
  switch (Api) {
  case CudaApi::DeviceSynchronize:
  case CudaApi::ThreadSynchronize:
    H.CostPattern = patterns::CudaDeviceSynchronize;
    return H;
  case CudaApi::StreamSynchronize:
    H.CostPattern = patterns::CudaStreamSynchronize;
    return H;
  case CudaApi::EventSynchronize:
    H.CostPattern = patterns::CudaEventSynchronize;
    return H;
  case CudaApi::Memcpy:
  case CudaApi::Memcpy2D:
  case CudaApi::MemcpyToArray:
  case CudaApi::MemcpyFromArray:
  case CudaApi::Memcpy2DToArray:
  case CudaApi::Memcpy2DFromArray:
  case CudaApi::MemcpyFromSymbol:
  case CudaApi::MemcpyToSymbol: {
    std::optional<unsigned> KindIndex = memcpyKindArgIndex(Api);
    if (!KindIndex || *KindIndex >= Call->getNumArgs())
      return std::nullopt;
    std::optional<MemcpyDirection> Direction =
        evaluateMemcpyKind(Call->getArg(*KindIndex), Devices.context());
    if (!Direction)
      return std::nullopt;
    const bool FromSymbol = Api == CudaApi::MemcpyFromSymbol;
    const bool ToSymbol = Api == CudaApi::MemcpyToSymbol;
    const Expr *Destination = ToSymbol ? nullptr : Call->getArg(0);
    const Expr *Source =
        FromSymbol ? nullptr : Call->getArg(*memcpySourceArgIndex(Api));
    if (*Direction == MemcpyDirection::Default) {
      // cudaMemcpyDefault: the direction follows from the pointers.
      PlacementFact Dst = Destination ? Devices.pointerPlacement(Destination)
                                      : PlacementFact{Placement::Cuda};
      PlacementFact Src = Source ? Devices.pointerPlacement(Source)
                                 : PlacementFact{Placement::Cuda};
      if (isHostPlacement(Dst.Where) && Src.Where == Placement::Cuda)
        Direction = MemcpyDirection::DeviceToHost;
      else if (Dst.Where == Placement::Cuda && isHostPlacement(Src.Where))
        Direction = MemcpyDirection::HostToDevice;
      else
        return std::nullopt;
    }
    if (Api == CudaApi::Memcpy)
      H.Bytes = evaluateCount(Call->getArg(2), Devices.context());
    if (Api == CudaApi::MemcpyToArray || Api == CudaApi::MemcpyFromArray)
      H.Bytes = evaluateCount(Call->getArg(4), Devices.context());
    if (*Direction == MemcpyDirection::DeviceToHost) {
      H.Kind = HazardKind::DeviceToHostCopy;
      H.Subject = Destination;
      H.SubjectPlacement = Destination ? Devices.pointerPlacement(Destination)
                                       : PlacementFact{};
      H.CostPattern = H.SubjectPlacement.Where == Placement::PinnedCpu
                          ? patterns::CudaMemcpyD2HPinned
                          : patterns::CudaMemcpyD2HPageable;
      return H;
    }
    if (*Direction == MemcpyDirection::HostToDevice) {
      H.Kind = HazardKind::HostToDeviceCopy;
      H.Subject = Source;
      H.SubjectPlacement =
          Source ? Devices.pointerPlacement(Source) : PlacementFact{};
      H.CostPattern = H.SubjectPlacement.Where == Placement::PinnedCpu
                          ? patterns::CudaMemcpyH2DPinned
                          : patterns::CudaMemcpyH2DPageable;
      return H;
    }
    return std::nullopt;
  }
  default:
    return std::nullopt;
  }
}

} // namespace

bool hasDevicePlacementEvidence(const Hazard &H) {
  // An upload reads host memory: its target device is the evidence, and
  // classifyHazard only returns one for a CUDA target.
  if (!H.IsLibTorch || !H.Subject || H.Kind == HazardKind::HostToDeviceCopy)
    return true;
  Placement Where = H.SubjectPlacement.Where;
  return Where == Placement::Cuda || Where == Placement::MaybeCuda ||
         Where == Placement::Managed;
}

std::optional<Hazard> classifyHazard(const CallExpr *Call,
                                     DeviceInference &Devices) {
  if (std::optional<TorchCall> Torch = identifyTorchCall(Call))
    return classifyTorch(Call, *Torch, Devices);
  if (std::optional<CudaApi> Api = identifyCudaCall(Call))
    return classifyCuda(Call, *Api, Devices);
  // One element of a thrust::device_vector read or written from the host:
  // a blocking copy of a few bytes each time. Its subject is the element.
  if (std::optional<bool> Read = readsThrustElement(Call))
    return Hazard{
        *Read ? HazardKind::DeviceToHostCopy : HazardKind::HostToDeviceCopy,
        /*IsLibTorch=*/false,
        "thrust::device_vector::operator[]",
        "",
        *Read ? cast<CXXMemberCallExpr>(Call)->getImplicitObjectArgument()
              : Call->getArg(1),
        {},
        std::nullopt};
  // A reduction's value comes back with a blocking copy; a scan's or a
  // sort's temporary storage is allocated and freed. No measured pattern
  // of its own, so no cost is cited.
  if (llvm::StringRef Algorithm = thrustBlockingAlgorithmName(Call);
      !Algorithm.empty())
    return Hazard{
        HazardKind::HostSync,
        /*IsLibTorch=*/false, ("thrust::" + Algorithm).str(), "", nullptr, {},
        std::nullopt};
  return std::nullopt;
}

bool mayWriteThroughArgument(const CallExpr *Call, unsigned Index,
                             ASTContext &Ctx) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  const FunctionDecl *Definition = Callee ? Callee->getDefinition() : nullptr;
  if (!Definition || Index >= Definition->getNumParams())
    return true;
  QualType Type = Definition->getParamDecl(Index)->getType();
  if (!Type->isPointerType() || Type->getPointeeType().isConstQualified())
    return false;
  return mayWriteThroughParameter(Definition, Definition->getParamDecl(Index),
                                  Ctx, 0);
}

bool isBareWait(const CallExpr *Call) {
  if (std::optional<CudaApi> Api = identifyCudaCall(Call))
    return *Api == CudaApi::DeviceSynchronize ||
           *Api == CudaApi::ThreadSynchronize ||
           *Api == CudaApi::StreamSynchronize ||
           *Api == CudaApi::EventSynchronize;
  std::optional<TorchCall> Torch = identifyTorchCall(Call);
  return Torch && Torch->Op == TorchOp::CudaSynchronize;
}

bool isBlockingReadBack(const CallExpr *Call, DeviceInference &Devices) {
  if (std::optional<CudaApi> Api = identifyCudaCall(Call);
      Api && isAsyncCopy(*Api))
    return false;
  std::optional<Hazard> H = classifyHazard(Call, Devices);
  return H &&
         (H->Kind == HazardKind::DeviceToHostCopy ||
          (H->Kind == HazardKind::HostSync && H->IsLibTorch && H->Subject));
}

bool isBlockingTransfer(const CallExpr *Call, DeviceInference &Devices) {
  if (isBlockingReadBack(Call, Devices))
    return true;
  std::optional<CudaApi> Api = identifyCudaCall(Call);
  if (!Api || !isCopy(*Api) || isAsyncCopy(*Api))
    return false;
  std::optional<Hazard> H = classifyHazard(Call, Devices);
  return H && H->Kind == HazardKind::HostToDeviceCopy;
}

bool isValueReadBack(const CallExpr *Call, DeviceInference &Devices) {
  // A checked solver queues its own kernels before it waits: a round trip
  // of its own, not a value that could travel with the others.
  if (std::optional<TorchCall> Torch = identifyTorchCall(Call);
      Torch && Torch->Op == TorchOp::CheckedLinalg)
    return false;
  std::optional<Hazard> H = classifyHazard(Call, Devices);
  return H && H->Kind == HazardKind::HostSync && H->IsLibTorch && H->Subject;
}

const VarDecl *copiedVariable(const Expr *Subject) {
  if (!Subject)
    return nullptr;
  Subject = Subject->IgnoreParenCasts();
  if (const auto *AddressOf = dyn_cast<UnaryOperator>(Subject);
      AddressOf && AddressOf->getOpcode() == UO_AddrOf)
    Subject = AddressOf->getSubExpr()->IgnoreParenCasts();
  const auto *Ref = dyn_cast<DeclRefExpr>(Subject);
  return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

const VarDecl *slicedBuffer(const Expr *Subject) {
  if (!Subject)
    return nullptr;
  const Expr *E = Subject->IgnoreParenCasts();
  const Expr *Base = nullptr;
  if (const auto *AddressOf = dyn_cast<UnaryOperator>(E);
      AddressOf && AddressOf->getOpcode() == UO_AddrOf)
    if (const auto *Element = dyn_cast<ArraySubscriptExpr>(
            AddressOf->getSubExpr()->IgnoreParenCasts()))
      Base = Element->getBase();
  if (const auto *Sum = dyn_cast<BinaryOperator>(E);
      Sum && Sum->getOpcode() == BO_Add)
    Base = Sum->getLHS()->getType()->isPointerType() ? Sum->getLHS()
                                                     : Sum->getRHS();
  const auto *Ref =
      Base ? dyn_cast<DeclRefExpr>(Base->IgnoreParenCasts()) : nullptr;
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return Var && (Var->getType()->isPointerType() ||
                 Var->getType()->isArrayType())
             ? Var
             : nullptr;
}

namespace {

/// \p Subject without the indexing and view operations of LibTorch it goes
/// through (`ids.index({Slice(), i})`, `x.narrow(0, i, n).t()`, `t[i]`), and
/// whether it went through any.
std::pair<const Expr *, bool> throughViews(const Expr *Subject) {
  bool ThroughView = false;
  const Expr *E = Subject;
  while (E) {
    E = ignoreCopiesAndConversions(E);
    const auto *Call = dyn_cast<CallExpr>(E);
    const FunctionDecl *Callee = Call ? Call->getDirectCallee() : nullptr;
    if (!Callee || !isInTorchNamespace(Callee))
      return {E, ThroughView};
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Call);
        Op && Op->getOperator() == OO_Subscript && Op->getNumArgs() == 2) {
      E = Op->getArg(0);
    } else if (const auto *Member = dyn_cast<CXXMemberCallExpr>(Call);
               Member && Callee->getIdentifier() &&
               llvm::StringSwitch<bool>(Callee->getName())
                   .Cases("index", "select", "narrow", "slice", "detach", true)
                   .Cases("view", "view_as", "reshape", "reshape_as", true)
                   .Cases("squeeze", "unsqueeze", "flatten", "unflatten", true)
                   .Cases("t", "transpose", "permute", "expand", true)
                   .Cases("expand_as", "contiguous", "as_strided", true)
                   .Default(false)) {
      E = Member->getImplicitObjectArgument();
    } else {
      return {E, ThroughView};
    }
    ThroughView = true;
  }
  return {nullptr, ThroughView};
}

} // namespace

const ValueDecl *slicedValue(const Expr *Subject) {
  auto [Base, ThroughView] = throughViews(Subject);
  const auto *Ref = dyn_cast_or_null<DeclRefExpr>(Base);
  return Ref && ThroughView && isTensorType(Ref->getType()) &&
                 isa<VarDecl, BindingDecl>(Ref->getDecl())
             ? Ref->getDecl()
             : nullptr;
}

const FieldDecl *uploadedMember(const Expr *Subject) {
  const auto *Member =
      dyn_cast_or_null<MemberExpr>(throughViews(Subject).first);
  const auto *Field =
      Member ? dyn_cast<FieldDecl>(Member->getMemberDecl()) : nullptr;
  return Field && isTensorType(Field->getType()) &&
                 isa<CXXThisExpr>(Member->getBase()->IgnoreParenImpCasts())
             ? Field
             : nullptr;
}

bool memberSetAtSetUp(
    const FieldDecl *Field, const FunctionDecl *Uploader,
    DeviceInference &Devices,
    llvm::function_ref<bool(const FunctionDecl *)> RunsOnSteps) {
  ASTContext &Ctx = Devices.context();
  llvm::SmallVector<const FunctionDecl *, 4> Writers;
  auto OnStmt = [&](const Stmt &S) {
    const auto *Mention = dyn_cast<MemberExpr>(&S);
    if (!Mention || Mention->getMemberDecl() != Field ||
        !mayWriteThrough(Mention, Ctx))
      return WalkStep::Continue;
    if (const FunctionDecl *Writer = enclosingFunction(Mention, Ctx);
        Writer && !llvm::is_contained(Writers, Writer))
      Writers.push_back(Writer);
    return WalkStep::Continue;
  };
  // The program's own code only: library headers do not name its members.
  const SourceManager &SM = Ctx.getSourceManager();
  for (const Decl *D : Ctx.getTranslationUnitDecl()->decls())
    if (!SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
      walkDecl(D, OnStmt);
  return !Writers.empty() &&
         llvm::all_of(Writers, [&](const FunctionDecl *Writer) {
           return isa<CXXConstructorDecl>(Writer) ||
                  (Writer != Uploader &&
                   !(RunsOnSteps && RunsOnSteps(Writer)) &&
                   !isCalledInLoopHere(Writer, Devices, Ctx,
                                       /*OnEveryIteration=*/true));
         });
}

const VarDecl *slicedVariable(const Expr *Subject) {
  return dyn_cast_or_null<VarDecl>(slicedValue(Subject));
}

namespace {

/// True for a constant (scalar or array, not a pointer or reference) with a
/// constant initializer: `const int n = 15`, `const float w[3] = {1, 2, 1}`.
bool isInitializedConstant(const VarDecl *Var, ASTContext &Ctx) {
  const Expr *Init = Var->getInit();
  return Init && !Var->getType()->isReferenceType() &&
         !Var->getType()->isPointerType() &&
         Ctx.getBaseElementType(Var->getType()).isConstQualified() &&
         Init->isConstantInitializer(Ctx, /*ForRef=*/false);
}

/// True if \p E is a value every run computes the same: a constant
/// expression, or a constant variable holding one.
bool isConstantArgument(const Expr *E, ASTContext &Ctx) {
  E = E->IgnoreParenImpCasts();
  if (E->isEvaluatable(Ctx))
    return true;
  const auto *Ref = dyn_cast<DeclRefExpr>(E);
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return Var && isInitializedConstant(Var, Ctx);
}

/// True if \p Function's result depends on its arguments only: it reads no
/// global or static that may change and calls nothing that draws random
/// numbers or reads the clock, directly or through the functions it calls
/// (a few levels deep).
bool dependsOnArgumentsOnly(const FunctionDecl *Function, ASTContext &Ctx,
                            unsigned Depth = 0) {
  const FunctionDecl *Definition = Function->getDefinition();
  if (!Definition || !Definition->hasBody() || Depth > 3)
    return false;
  const SourceManager &SM = Ctx.getSourceManager();
  return !containsMatch<Stmt>(Definition->getBody(), [&](const Stmt &S) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(&S)) {
      const auto *Var = dyn_cast<VarDecl>(Ref->getDecl());
      return Var && !Var->hasLocalStorage() &&
             !Ctx.getBaseElementType(Var->getType()).isConstQualified();
    }
    const auto *Call = dyn_cast<CallExpr>(&S);
    if (!Call)
      return false;
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || !Callee->getIdentifier())
      return !isa<CXXOperatorCallExpr>(Call) && !Callee;
    llvm::StringRef Name = Callee->getName();
    if (Name.contains_insensitive("rand") ||
        Name.contains_insensitive("time") ||
        Name.contains_insensitive("clock") || Name == "getenv")
      return true;
    if (SM.isInSystemHeader(SM.getExpansionLoc(Callee->getLocation())) ||
        Callee->getCanonicalDecl() == Definition->getCanonicalDecl())
      return false;
    return !dependsOnArgumentsOnly(Callee, Ctx, Depth + 1);
  });
}

} // namespace

namespace {

/// True if the local array \p Var is written once, by a call of a function
/// of the file that takes it and otherwise only constants and depends on
/// its arguments only (`float f[N]; fillSource(f);`): the same values on
/// every call.
bool filledFromConstants(const VarDecl *Var, ASTContext &Ctx) {
  const auto *Function =
      dyn_cast_or_null<FunctionDecl>(Var->getParentFunctionOrMethod());
  if (!Var->hasLocalStorage() || !Var->getType()->isConstantArrayType() ||
      !Function || !Function->hasBody())
    return false;
  llvm::SmallVector<const DeclRefExpr *, 2> Writes;
  walkStmt(Function->getBody(), [&](const Stmt &S) {
    if (const auto *Ref = dyn_cast<DeclRefExpr>(&S);
        Ref && Ref->getDecl() == Var && mayWriteThrough(Ref, Ctx))
      Writes.push_back(Ref);
    return WalkStep::Continue;
  });
  if (Writes.size() != 1)
    return false;
  const Stmt *Parent = parentStmt(Writes.front(), Ctx);
  while (isa_and_nonnull<ImplicitCastExpr, ParenExpr>(Parent))
    Parent = parentStmt(Parent, Ctx);
  const auto *Call = dyn_cast_or_null<CallExpr>(Parent);
  const FunctionDecl *Callee =
      Call ? definedCallee(Call, Ctx.getSourceManager()) : nullptr;
  return Callee && !isa<CXXMethodDecl>(Callee) &&
         llvm::all_of(Call->arguments(),
                      [&](const Expr *Arg) {
                        return Arg->IgnoreParenImpCasts() == Writes.front() ||
                               isConstantArgument(Arg, Ctx);
                      }) &&
         dependsOnArgumentsOnly(Callee, Ctx);
}

} // namespace

bool holdsConstantValues(const VarDecl *Var, ASTContext &Ctx) {
  const Expr *Init = Var ? Var->getInit() : nullptr;
  if (Var && !Init && filledFromConstants(Var, Ctx))
    return true;
  if (!Init || Var->getType()->isReferenceType())
    return false;
  if (isInitializedConstant(Var, Ctx))
    return true;
  if (!Var->hasLocalStorage())
    return false;
  const auto *Call = dyn_cast<CallExpr>(Init->IgnoreParenImpCasts());
  const FunctionDecl *Callee =
      Call ? definedCallee(Call, Ctx.getSourceManager()) : nullptr;
  if (!Callee || isa<CXXMethodDecl>(Callee) ||
      !llvm::all_of(
          Call->arguments(),
          [&](const Expr *Arg) { return isConstantArgument(Arg, Ctx); }) ||
      !dependsOnArgumentsOnly(Callee, Ctx))
    return false;
  // Not changed after it was computed.
  const auto *Function =
      dyn_cast_or_null<FunctionDecl>(Var->getParentFunctionOrMethod());
  return Function && Function->hasBody() &&
         !containsMatch<DeclRefExpr>(
             Function->getBody(), [&](const DeclRefExpr &Ref) {
               return Ref.getDecl() == Var && mayWriteThrough(&Ref, Ctx);
             });
}

bool isLoopInvariant(const ValueDecl *Var, const Stmt *Loop, ASTContext &Ctx) {
  QualType Type = Var->getType();
  if (Type.isConstQualified() && !Type->isReferenceType())
    return true;
  return !containsMatch<DeclRefExpr>(Loop, [&](const DeclRefExpr &Ref) {
    return Ref.getDecl() == Var && mayWriteThrough(&Ref, Ctx);
  });
}

} // namespace clang::tidy::xfer
