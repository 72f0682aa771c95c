//===--- CopyInLoopCheck.cpp - xfer-copy-in-loop --------------------------===//

#include "CopyInLoopCheck.h"
#include "analysis/ApiCatalogue.h"
#include "analysis/AstUtils.h"
#include "analysis/AstWalk.h"
#include "clang/AST/ExprCXX.h"

namespace clang::tidy::xfer {
namespace {

/// True for a single value copied through its address (a flag, a counter),
/// not a buffer.
bool isScalarCopy(const VarDecl *Source) {
  QualType Type = Source->getType();
  return Type->isScalarType() && !Type->isPointerType();
}

/// The expression a use of a variable feeds, looking through implicit
/// conversions and temporaries.
const Stmt *consumerOf(const Expr *Use, ASTContext &Ctx, const Stmt **Child) {
  const Stmt *Current = Use;
  for (const Stmt *P = parentStmt(Use, Ctx); P;
       Current = P, P = parentStmt(P, Ctx)) {
    if (isa<ImplicitCastExpr, MaterializeTemporaryExpr, ParenExpr,
            CXXBindTemporaryExpr, CXXConstructExpr>(P))
      continue;
    *Child = Current;
    return P;
  }
  *Child = Current;
  return nullptr;
}

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

/// True if the element \p Element names may be written: anything but a
/// read of its value or its address handed to a pointer-to-const parameter
/// (the source of a cudaMemcpy).
bool mayWriteElement(const ArraySubscriptExpr *Element, ASTContext &Ctx) {
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

/// True if \p Use of a tensor or pointer variable may change what the
/// variable holds (or, for a pointer, what it points to).
bool mayWriteThrough(const DeclRefExpr *Use, ASTContext &Ctx) {
  const Stmt *Child = nullptr;
  const Stmt *Consumer = consumerOf(Use, Ctx, &Child);
  if (!Consumer)
    return false;
  if (const auto *Assign = dyn_cast<BinaryOperator>(Consumer))
    return Assign->isAssignmentOp() && Assign->getLHS() == Child;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(Consumer))
    return Op->isAssignmentOp() && Op->getNumArgs() && Op->getArg(0) == Child;
  if (const auto *Unary = dyn_cast<UnaryOperator>(Consumer);
      Unary && Unary->getOpcode() == UO_AddrOf)
    return !passedAsPointerToConst(Unary, Ctx);
  if (const auto *Unary = dyn_cast<UnaryOperator>(Consumer))
    return Unary->isIncrementDecrementOp() ||
           (Unary->getOpcode() == UO_Deref &&
            !Use->getType()->getPointeeType().isConstQualified());
  if (const auto *Element = dyn_cast<ArraySubscriptExpr>(Consumer))
    return !Use->getType()->getPointeeType().isConstQualified() &&
           mayWriteElement(Element, Ctx);
  if (const auto *Member = dyn_cast<MemberExpr>(Consumer)) {
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
      if (Param->isPointerType())
        return !isPointerToConst(Param);
      if (Param->isReferenceType())
        return !Param.getNonReferenceType().isConstQualified();
      return false; // by value
    }
    return false;
  }
  return false;
}

/// True for cudaMemcpy and cudaMemcpy2D: the host waits for the copy.
bool isBlockingCopy(const CallExpr *Call) {
  std::optional<CudaApi> Api = identifyCudaCall(Call);
  return Api && (*Api == CudaApi::Memcpy || *Api == CudaApi::Memcpy2D);
}

/// True if nothing in \p Loop may change \p Var.
bool isLoopInvariant(const VarDecl *Var, const Stmt *Loop, ASTContext &Ctx) {
  QualType Type = Var->getType();
  if (Type.isConstQualified() && !Type->isReferenceType())
    return true;
  return !containsMatch<DeclRefExpr>(Loop, [&](const DeclRefExpr &Ref) {
    return Ref.getDecl() == Var && mayWriteThrough(&Ref, Ctx);
  });
}

} // namespace

bool CopyInLoopCheck::shouldReport(const CallExpr *Call, const Hazard &H,
                                   const ExecutionFrequency &Frequency,
                                   ASTContext &Ctx) {
  if (H.Kind == HazardKind::DeviceToHostCopy)
    return true;
  // Moving each new batch to the device is necessary: only a source that
  // is the same on every iteration can be copied once instead.
  const VarDecl *Source = copiedVariable(H.Subject);
  // A slice of an unchanging host tensor (`ids.index({Slice(), Slice(i,
  // i + n)}).to(device)`): upload the whole once and slice on the device.
  if (!Source)
    Source = slicedVariable(H.Subject);
  // A part of an unchanging host buffer copied with a blocking cudaMemcpy
  // (`&images[batch * size]`): copy the buffer once, index it there. Async
  // copies of parts are left alone: splitting a buffer over streams is how
  // copies overlap kernels.
  if (!Source && isBlockingCopy(Call))
    Source = slicedBuffer(H.Subject);
  // A global or static may be changed by any call in the loop, unless it
  // is a constant (`const int zero = 0;` uploaded to reset a counter).
  auto IsConstantValue = [](const VarDecl *Var) {
    QualType Type = Var->getType();
    return Type.isConstQualified() && !Type->isReferenceType() &&
           !Type->isPointerType();
  };
  if (!Source ||
      (!Source->hasLocalStorage() &&
       !(Source->getType().isConstQualified() && Source->isLocalVarDecl()) &&
       !IsConstantValue(Source)))
    return false;
  const Stmt *Loop = Frequency.Loops.front().Loop;
  // Declared inside the loop: a fresh value on every iteration.
  SourceLocation DeclLoc = Source->getLocation();
  SourceRange LoopRange = Loop->getSourceRange();
  const SourceManager &SM = Ctx.getSourceManager();
  if (SM.isPointWithin(SM.getExpansionLoc(DeclLoc),
                       SM.getExpansionLoc(LoopRange.getBegin()),
                       SM.getExpansionLoc(LoopRange.getEnd())))
    return false;
  return isLoopInvariant(Source, Loop, Ctx);
}

DiagnosticBuilder CopyInLoopCheck::warn(const CallExpr *Call, const Hazard &H,
                                        llvm::StringRef FrequencyPhrase) {
  if (H.Kind == HazardKind::DeviceToHostCopy)
    return diag(Call->getExprLoc(),
                "'%0' copies device memory to the host %1: the copy waits "
                "for all queued device work and crosses the host link each "
                "time")
           << H.Operation << FrequencyPhrase;
  const VarDecl *Whole = nullptr;
  if (!copiedVariable(H.Subject))
    Whole = slicedVariable(H.Subject);
  if (!Whole && !copiedVariable(H.Subject) && isBlockingCopy(Call))
    Whole = slicedBuffer(H.Subject);
  if (Whole)
    return diag(Call->getExprLoc(),
                "'%0' copies part of '%1' to the GPU %2, but '%1' does not "
                "change inside the loop: copy it to the GPU once before the "
                "loop and take the part there")
           << H.Operation << Whole->getName() << FrequencyPhrase;
  const VarDecl *Source = copiedVariable(H.Subject);
  // A flag or counter uploaded on every iteration usually resets what a
  // kernel changed: the device can do that without the host.
  return diag(Call->getExprLoc(),
              "'%0' copies '%1' to the GPU %2, but '%1' does not change "
              "inside the loop: copy it once before the loop%select{|, or, "
              "where the device changes its copy, reset that on the device "
              "(cudaMemsetAsync or a kernel)}3")
         << H.Operation << Source->getName() << FrequencyPhrase
         << isScalarCopy(Source);
}

} // namespace clang::tidy::xfer
