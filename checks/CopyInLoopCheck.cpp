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

/// True for cudaMemcpy and cudaMemcpy2D: the host waits for the copy.
bool isBlockingCopy(const CallExpr *Call) {
  std::optional<CudaApi> Api = identifyCudaCall(Call);
  return Api && (*Api == CudaApi::Memcpy || *Api == CudaApi::Memcpy2D);
}

/// True if the part of \p Buffer that \p Subject names is picked through a
/// table of indices (`X + order[i] * n`, a shuffled sample order): each
/// iteration gathers new samples, as a data loader would.
bool picksThroughIndexTable(const Expr *Subject, const VarDecl *Buffer) {
  return containsMatch<Expr>(Subject, [&](const Expr &E) {
    const Expr *Base = nullptr;
    if (const auto *Subscript = dyn_cast<ArraySubscriptExpr>(&E))
      Base = Subscript->getBase();
    else if (const auto *Operator = dyn_cast<CXXOperatorCallExpr>(&E);
             Operator && Operator->getOperator() == OO_Subscript)
      Base = Operator->getArg(0);
    const auto *Ref =
        Base ? dyn_cast<DeclRefExpr>(Base->IgnoreParenImpCasts()) : nullptr;
    return Ref && Ref->getDecl() != Buffer && E.getType()->isIntegerType();
  });
}

/// True for a device-to-host copy into \p Host (`cudaMemcpy(&done, d_done,
/// ...)`, `cudaMemcpy(done, d_done, ...)`), from \p Device when it is
/// given. A copy whose direction is not a constant counts.
bool copiesBackInto(const CallExpr &Call, const VarDecl *Host,
                    const VarDecl *Device, ASTContext &Ctx) {
  std::optional<CudaApi> Api = identifyCudaCall(&Call);
  if (!Api || (*Api != CudaApi::Memcpy && *Api != CudaApi::MemcpyAsync) ||
      Call.getNumArgs() < 4 || copiedVariable(Call.getArg(0)) != Host ||
      (Device && copiedVariable(Call.getArg(1)) != Device))
    return false;
  std::optional<MemcpyDirection> Direction =
      evaluateMemcpyKind(Call.getArg(3), Ctx);
  return !Direction || *Direction == MemcpyDirection::DeviceToHost;
}

/// True if a host buffer that \p Tensor wraps without copying (`x =
/// torch::from_blob(tokens, ...)`, in its initializer or an assignment in
/// its function) is written inside \p Loop: the tensor's contents change
/// with it, although the tensor variable is never assigned there.
bool wrapsBufferWrittenIn(const VarDecl *Tensor, const Stmt *Loop,
                          ASTContext &Ctx) {
  auto WrapsWrittenBuffer = [&](const Expr *Value) {
    return Value && containsMatch<CallExpr>(Value, [&](const CallExpr &Call) {
             std::optional<TorchCall> Torch = identifyTorchCall(&Call);
             if (!Torch || Torch->Op != TorchOp::FromBlob || !Torch->Subject)
               return false;
             const VarDecl *Buffer = rootVariable(Torch->Subject);
             return Buffer && !isLoopInvariant(Buffer, Loop, Ctx);
           });
  };
  if (WrapsWrittenBuffer(Tensor->getInit()))
    return true;
  const FunctionDecl *Function = enclosingFunction(Loop, Ctx);
  return Function && Function->getBody() &&
         containsMatch<Stmt>(Function->getBody(), [&](const Stmt &S) {
           std::optional<AssignmentParts> Assign = assignmentParts(S);
           return Assign && rootVariable(Assign->Target) == Tensor &&
                  WrapsWrittenBuffer(Assign->Value);
         });
}

/// The statement of \p Block that holds \p S.
const Stmt *statementOfBlock(const Stmt *S, const CompoundStmt *Block,
                             ASTContext &Ctx) {
  for (const Stmt *Current = S; Current;) {
    const Stmt *Parent = parentStmt(Current, Ctx);
    if (Parent == Block)
      return Current;
    Current = Parent;
  }
  return nullptr;
}

/// True for a literal, possibly negated or cast (`true`, `0`, `-1.0f`).
bool isLiteralValue(const Expr *E) {
  E = E->IgnoreParenCasts();
  if (const auto *Minus = dyn_cast<UnaryOperator>(E);
      Minus && Minus->getOpcode() == UO_Minus)
    E = Minus->getSubExpr()->IgnoreParenCasts();
  return isa<IntegerLiteral, CXXBoolLiteralExpr, FloatingLiteral,
             CharacterLiteral>(E);
}

/// The statement just before \p Upload in its block that sets all of
/// \p Source the upload sends to a literal (`*done = true;`, `flag = 0;`,
/// `int tail = 0;`, `memset(counts, 0, n)`), with nothing else writing it
/// in between.
const Stmt *constantResetBefore(const CallExpr *Upload, const VarDecl *Source,
                                ASTContext &Ctx) {
  std::optional<PlaceInBlock> Where = placeInBlock(Upload, Ctx);
  if (!Where)
    return nullptr;
  auto It = Where->At;
  constexpr unsigned Window = 3;
  unsigned Seen = 0;
  auto NamesSource = [&](const Expr *E) {
    E = E->IgnoreParenImpCasts();
    if (const auto *Deref = dyn_cast<UnaryOperator>(E);
        Deref && Deref->getOpcode() == UO_Deref)
      E = Deref->getSubExpr()->IgnoreParenImpCasts();
    const auto *Ref = dyn_cast<DeclRefExpr>(E);
    return Ref && Ref->getDecl() == Source;
  };
  for (; It != Where->Body.begin() && Seen < Window; ++Seen) {
    const Stmt *Previous = *--It;
    if (const auto *Assign = dyn_cast<BinaryOperator>(Previous);
        Assign && Assign->getOpcode() == BO_Assign &&
        NamesSource(Assign->getLHS()) && isLiteralValue(Assign->getRHS()) &&
        Assign->getLHS()->getType()->isScalarType())
      return Previous;
    if (const auto *Declaration = dyn_cast<DeclStmt>(Previous);
        Declaration && Declaration->isSingleDecl() &&
        Declaration->getSingleDecl() == Source && Source->getInit() &&
        isLiteralValue(Source->getInit()) && Source->getType()->isScalarType())
      return Previous;
    if (const auto *Call = dyn_cast<CallExpr>(Previous);
        Call && Call->getDirectCallee() && Call->getNumArgs() == 3 &&
        isNamed(Call->getDirectCallee(), "memset") &&
        NamesSource(Call->getArg(0)) && isLiteralValue(Call->getArg(1)))
      return Previous;
    if (containsMatch<DeclRefExpr>(Previous, [&](const DeclRefExpr &Ref) {
          return Ref.getDecl() == Source;
        }))
      return nullptr;
  }
  return nullptr;
}

} // namespace

std::optional<CopyInLoopCheck::ReturnedReadBack>
CopyInLoopCheck::returnedReadBack(const CallExpr *Upload, const VarDecl *Host,
                                  const Stmt *Loop, ASTContext &Ctx) {
  std::optional<CudaApi> Api = identifyCudaCall(Upload);
  const auto *Body = dyn_cast_or_null<CompoundStmt>(loopBody(Loop));
  if (!Host || !Host->hasLocalStorage() || !Api || *Api != CudaApi::Memcpy ||
      !Body)
    return std::nullopt;
  const VarDecl *Device = copiedVariable(Upload->getArg(0));
  const Stmt *UploadStatement = statementOfBlock(Upload, Body, Ctx);
  if (!Device || !UploadStatement)
    return std::nullopt;
  // Walk back from the upload, through the top of the body to its end on
  // the previous iteration, to the copy-back that filled the host buffer.
  llvm::SmallVector<const Stmt *, 16> Before;
  for (const Stmt *S : Body->body()) {
    if (S == UploadStatement)
      break;
    Before.push_back(S);
  }
  llvm::SmallVector<const Stmt *, 16> After(llvm::drop_begin(llvm::make_range(
      llvm::find(Body->body(), UploadStatement), Body->body_end())));
  ReturnedReadBack Found{nullptr, nullptr};
  for (const Stmt *S : llvm::concat<const Stmt *const>(llvm::reverse(Before),
                                                       llvm::reverse(After))) {
    if (const CallExpr *CopyBack =
            findFirst<CallExpr>(S, [&](const CallExpr &Call) {
              return copiesBackInto(Call, Host, Device, Ctx);
            })) {
      Found.ReadBack = CopyBack;
      return Found;
    }
    // Device work in between may change the device buffer: the upload
    // would then restore what the host saw.
    if (containsMatch<Stmt>(
            S,
            [](const Stmt &Node) { return isa<CUDAKernelCallExpr>(Node); }) ||
        containsMatch<DeclRefExpr>(
            S, [&](const DeclRefExpr &Ref) { return Ref.getDecl() == Device; }))
      return std::nullopt;
    if (isLoopInvariant(Host, S, Ctx))
      continue;
    // Changed on the host only in one branch (a rare event): upload there.
    const auto *Branch = dyn_cast<IfStmt>(S);
    if (!Branch || Found.ChangedIn ||
        containsMatch<Stmt>(S,
                            [](const Stmt &Node) { return isLoopStmt(&Node); }))
      return std::nullopt;
    Found.ChangedIn = Branch;
  }
  return std::nullopt;
}

bool CopyInLoopCheck::shouldReport(const CallExpr *Call, const Hazard &H,
                                   const ExecutionFrequency &Frequency,
                                   ASTContext &Ctx) {
  if (H.Kind == HazardKind::DeviceToHostCopy)
    return true;
  // An element of a thrust::device_vector written from the host is a
  // blocking copy whatever the value; a statement that also reads one
  // (`u[0] = -u[1]`) is reported at the read.
  if (readsThrustElement(Call) == std::optional<bool>(false))
    return !containsMatch<CallExpr>(Call->getArg(1), [](const CallExpr &Read) {
      return readsThrustElement(&Read) == std::optional<bool>(true);
    });
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
  if (!Source && isBlockingCopy(Call)) {
    Source = slicedBuffer(H.Subject);
    if (Source && picksThroughIndexTable(H.Subject, Source))
      return false;
  }
  // Constant data (filter weights, a constant table) is the same bytes on
  // every iteration, wherever it is declared; so is a member the program
  // sets only when the object is set up (an anchor table).
  if (holdsConstantValues(Source, Ctx) ||
      (!Source && uploadedSetUpMember(H, enclosingFunction(Call, Ctx), Ctx)))
    return true;
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
  if (isWithin(Call, Loop, Ctx)) {
    // A flag reset by uploading a constant the host has just written, a
    // termination flag's too: the read-back that decides whether the loop
    // goes on is necessary, the blocking upload before it is not.
    if (const Stmt *Reset = constantResetBefore(Call, Source, Ctx)) {
      ConstantResets[Call] = Reset;
      return true;
    }
    if (std::optional<ReturnedReadBack> Returned =
            returnedReadBack(Call, Source, Loop, Ctx)) {
      ReturnedReadBacks[Call] = *Returned;
      return true;
    }
  }
  // Declared inside the loop: a fresh value on every iteration.
  SourceLocation DeclLoc = Source->getLocation();
  SourceRange LoopRange = Loop->getSourceRange();
  const SourceManager &SM = Ctx.getSourceManager();
  if (SM.isPointWithin(SM.getExpansionLoc(DeclLoc),
                       SM.getExpansionLoc(LoopRange.getBegin()),
                       SM.getExpansionLoc(LoopRange.getEnd())))
    return false;
  return isLoopInvariant(Source, Loop, Ctx) &&
         !wrapsBufferWrittenIn(Source, Loop, Ctx);
}

DiagnosticBuilder CopyInLoopCheck::warn(const CallExpr *Call, const Hazard &H,
                                        llvm::StringRef FrequencyPhrase,
                                        ASTContext &Ctx) {
  if (H.Kind == HazardKind::DeviceToHostCopy)
    return diag(Call->getExprLoc(),
                "'%0' copies device memory to the host %1: the copy waits "
                "for all queued device work and crosses the host link each "
                "time")
           << H.Operation << FrequencyPhrase;
  if (readsThrustElement(Call) == std::optional<bool>(false))
    return diag(Call->getExprLoc(),
                "'%0' writes one element of a thrust::device_vector from the "
                "host %1: each element is a blocking copy to the device; set "
                "the elements on the device (a kernel, thrust::fill or "
                "thrust::transform)")
           << H.Operation << FrequencyPhrase;
  if (const FieldDecl *Member = uploadedMember(H.Subject);
      Member && !copiedVariable(H.Subject))
    return diag(Call->getExprLoc(),
                "'%0' copies %select{|part of }1member '%2' to the GPU %3, "
                "but the program sets '%2' only when the object is set up: "
                "keep a device copy (move it to the device once, or register "
                "it as a buffer so that moving the module moves it)")
           << H.Operation
           << !isa<MemberExpr>(ignoreCopiesAndConversions(H.Subject))
           << Member->getName() << FrequencyPhrase;
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
  if (auto Returned = ReturnedReadBacks.find(Call);
      Returned != ReturnedReadBacks.end()) {
    const SourceManager &SM = Ctx.getSourceManager();
    const IfStmt *ChangedIn = Returned->second.ChangedIn;
    return diag(Call->getExprLoc(),
                "'%0' copies '%1' to the GPU %2, but '%1' holds what line %3 "
                "copied back from '%4'%select{ and the host does not change "
                "it: the device copy is current, drop the upload| and the "
                "host changes it only in the branch at line %6: upload it "
                "there}5")
           << H.Operation << Source->getName() << FrequencyPhrase
           << lineOf(Returned->second.ReadBack, SM)
           << copiedVariable(Call->getArg(0))->getName()
           << (ChangedIn != nullptr)
           << (ChangedIn ? lineOf(ChangedIn, SM) : 0u);
  }
  if (auto Reset = ConstantResets.find(Call); Reset != ConstantResets.end())
    return diag(Call->getExprLoc(),
                "'%0' copies '%1' to the GPU %2 only to set it to the constant "
                "the host wrote at line %3: set the device copy with "
                "cudaMemsetAsync or a kernel instead, which does not wait")
           << H.Operation << Source->getName() << FrequencyPhrase
           << lineOf(Reset->second, Ctx.getSourceManager());
  // A constant flag or counter keeps the reset advice below.
  if (!isScalarCopy(Source) && holdsConstantValues(Source, Ctx))
    return diag(Call->getExprLoc(),
                "'%0' copies '%1' to the GPU %2, but '%1' holds the same "
                "values every time: copy it to the GPU once and keep the "
                "device copy")
           << H.Operation << Source->getName() << FrequencyPhrase;
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
