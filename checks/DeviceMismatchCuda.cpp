//===--- DeviceMismatchCuda.cpp - xfer-device-mismatch, CUDA ----------------===//
//
// Raw CUDA memory on the wrong side: cudaMemcpy kinds against the pointers,
// host memory passed to kernels, device memory touched by the host, and
// cudaMemset/cudaFree given memory they cannot take.
//
//===----------------------------------------------------------------------===//

#include "DeviceMismatchCheck.h"
#include "DeviceMismatchWording.h"
#include "analysis/ApiCatalogue.h"
#include "analysis/AstUtils.h"
#include "analysis/AstWalk.h"
#include "analysis/CallSummaries.h"
#include "analysis/TranslationUnitAnalyses.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"

namespace clang::tidy::xfer {
namespace {

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

/// Code that may run on the GPU: device code, and `__host__ __device__`
/// functions (a Thrust functor reading the device arrays it holds), whose
/// host use with device memory would have to be seen at a call.
bool mayRunInDeviceCode(const Stmt *S, ASTContext &Ctx) {
  const FunctionDecl *F = enclosingFunction(S, Ctx);
  return F && (F->hasAttr<CUDAGlobalAttr>() || F->hasAttr<CUDADeviceAttr>());
}

/// sizeof(*p), decltype(p[0]), ...: nothing is read.
bool isUnevaluated(const Stmt *S, ASTContext &Ctx) {
  for (const Stmt *P = parentStmt(S, Ctx); P; P = parentStmt(P, Ctx))
    if (isa<UnaryExprOrTypeTraitExpr, CXXTypeidExpr, CXXNoexceptExpr>(P))
      return true;
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

/// The CUDA allocation call \p Origin is, if it is one.
std::optional<CudaApi> allocationApi(const Stmt *Origin) {
  const auto *Call = dyn_cast_or_null<CallExpr>(Origin);
  if (!Call)
    return std::nullopt;
  return identifyCudaCall(Call);
}

} // namespace

void DeviceMismatchCheck::checkMemcpyKind(const CallExpr *Call,
                                          ASTContext &Ctx) {
  std::optional<CudaApi> Api = identifyCudaCall(Call);
  // Pointer to pointer copies only: an array's side has no placement.
  if (*Api != CudaApi::Memcpy && *Api != CudaApi::MemcpyAsync &&
      *Api != CudaApi::Memcpy2D && *Api != CudaApi::Memcpy2DAsync)
    return;
  const unsigned SourceIndex = *memcpySourceArgIndex(*Api);
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
  bool DstWrong =
      DstSide != Side::Unknown && (DstSide == Side::Device) != KindDstOnDevice;
  bool SrcWrong =
      SrcSide != Side::Unknown && (SrcSide == Side::Device) != KindSrcOnDevice;
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
  bool CanRewriteKind = isa<DeclRefExpr>(KindArg->IgnoreParenImpCasts()) &&
                        KindArg->getBeginLoc().isFileID();

  {
    auto Diag = diag(Call->getExprLoc(),
                     "'%0' is given %1 but %2: a copy kind that contradicts "
                     "its pointers is undefined behavior")
                << cudaApiName(*Api) << memcpyKindName(*Kind) << Contradiction;
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
    if (const auto *Ref =
            dyn_cast<DeclRefExpr>(Launch->getArg(0)->IgnoreParenCasts()))
      Kernel = Ref->getDecl()->getNameAsString();
    collectLaunchArguments(Launch->getArg(3), Pointers);
  }
  for (const Expr *Pointer : Pointers) {
    PlacementFact Fact = Analyses->devices().pointerPlacement(Pointer);
    if (Fact.Where == Placement::Managed) {
      checkManagedReadAfterLaunch(Launch, Pointer, Kernel, Ctx);
      continue;
    }
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

namespace {

/// True if \p E dereferences or indexes \p Var (`Var[i]`, `*Var`,
/// `Var->x`).
bool isPointeeAccess(const Stmt &E, const ValueDecl *Var) {
  const Expr *Base = nullptr;
  if (const auto *Index = dyn_cast<ArraySubscriptExpr>(&E))
    Base = Index->getBase();
  else if (const auto *Deref = dyn_cast<UnaryOperator>(&E);
           Deref && Deref->getOpcode() == UO_Deref)
    Base = Deref->getSubExpr();
  else if (const auto *Member = dyn_cast<MemberExpr>(&E);
           Member && Member->isArrow())
    Base = Member->getBase();
  const auto *Ref =
      Base ? dyn_cast<DeclRefExpr>(Base->IgnoreParenImpCasts()) : nullptr;
  return Ref && Ref->getDecl() == Var;
}

/// What a statement after a kernel launch does to managed memory the
/// kernel writes: waits for the device first, touches the memory on the
/// host first (directly, or in a function of this file it hands the
/// pointer to), or neither.
enum class AfterLaunch { Nothing, Waits, Touches };

} // namespace

void DeviceMismatchCheck::checkManagedReadAfterLaunch(const CallExpr *Launch,
                                                      const Expr *Pointer,
                                                      llvm::StringRef Kernel,
                                                      ASTContext &Ctx) {
  const auto *Ref = dyn_cast<DeclRefExpr>(Pointer->IgnoreParenCasts());
  const ValueDecl *Var = Ref ? Ref->getDecl() : nullptr;
  if (!Var)
    return;
  const SourceManager &SM = Ctx.getSourceManager();
  CallSummaries &Summaries =
      Analyses->summaries(/*ReportUnknownPlacement=*/true);
  const CallExpr *Through = nullptr;
  const Stmt *AccessInCallee = nullptr;
  // Walks \p S in order: a wait (a synchronizing call, a blocking copy, a
  // call of a function defined elsewhere, which may wait) ends the search.
  auto Classify = [&](const Stmt *S) {
    AfterLaunch Result = AfterLaunch::Nothing;
    walkStmt(S, [&](const Stmt &Node) {
      if (isa<LambdaExpr>(Node))
        return WalkStep::SkipChildren;
      if (const auto *Call = dyn_cast<CallExpr>(&Node)) {
        if (isa<CUDAKernelCallExpr>(Call))
          return WalkStep::SkipChildren;
        std::optional<Hazard> H = classifyHazard(Call, Analyses->devices());
        const FunctionDecl *Callee = Call->getDirectCallee();
        const FunctionDecl *Target = definedCallee(Call, SM);
        if ((H && (H->Kind == HazardKind::HostSync ||
                   H->Kind == HazardKind::DeviceToHostCopy)) ||
            (!H && Callee && !Target &&
             !SM.isInSystemHeader(SM.getExpansionLoc(Callee->getLocation()))) ||
            Summaries.findThroughCall(Call, HazardKind::HostSync)) {
          Result = AfterLaunch::Waits;
          return WalkStep::Stop;
        }
        if (Target)
          for (unsigned I = 0; I < Call->getNumArgs(); ++I) {
            const auto *Arg =
                dyn_cast<DeclRefExpr>(Call->getArg(I)->IgnoreParenCasts());
            const ParmVarDecl *Parameter =
                I < Target->getNumParams() ? Target->getParamDecl(I) : nullptr;
            const Stmt *Access =
                Arg && Arg->getDecl() == Var && Parameter
                    ? findFirst<Stmt>(Target->getBody(),
                                      [&](const Stmt &Node) {
                                        return isPointeeAccess(Node, Parameter);
                                      })
                    : nullptr;
            if (Access) {
              Through = Call;
              AccessInCallee = Access;
              Result = AfterLaunch::Touches;
              return WalkStep::Stop;
            }
          }
        return WalkStep::Continue;
      }
      if (isPointeeAccess(Node, Var)) {
        Result = AfterLaunch::Touches;
        return WalkStep::Stop;
      }
      return WalkStep::Continue;
    });
    return Result;
  };
  // The statements after the launch in its block, then after the branch
  // that holds the block; a loop's body ends the search (the next
  // iteration is not followed).
  const Stmt *Child = Launch;
  for (const Stmt *Parent = parentStmt(Launch, Ctx); Parent;
       Child = Parent, Parent = parentStmt(Parent, Ctx)) {
    if (isLoopStmt(Parent))
      return;
    const auto *Block = dyn_cast<CompoundStmt>(Parent);
    if (!Block)
      continue;
    auto Body = Block->body();
    for (auto It = std::next(llvm::find(Body, Child)); It < Body.end(); ++It) {
      AfterLaunch What = Classify(*It);
      if (What == AfterLaunch::Waits)
        return;
      if (What != AfterLaunch::Touches)
        continue;
      diag(Through ? Through->getExprLoc() : (*It)->getBeginLoc(),
           "managed memory '%0' is used on the host%select{| by '%2()'}1 "
           "while the kernel '%3' may still be writing it (a race, or a "
           "crash on GPUs without concurrent managed access): wait for the "
           "kernel first (cudaDeviceSynchronize or cudaStreamSynchronize)")
          << operandName(Pointer, Ctx) << (Through != nullptr)
          << (Through && Through->getDirectCallee()
                  ? Through->getDirectCallee()->getName()
                  : "")
          << Kernel;
      diag(Launch->getBeginLoc(), "the kernel is launched here",
           DiagnosticIDs::Note);
      if (AccessInCallee)
        diag(AccessInCallee->getBeginLoc(), "'%0()' uses it on the host here",
             DiagnosticIDs::Note)
            << Through->getDirectCallee()->getName();
      return;
    }
  }
}

void DeviceMismatchCheck::checkHostAccess(const Expr *Access,
                                          const Expr *Pointer,
                                          llvm::StringRef What,
                                          ASTContext &Ctx) {
  if (mayRunInDeviceCode(Access, Ctx) || isUnevaluated(Access, Ctx))
    return;
  PlacementFact Fact = Analyses->devices().pointerPlacement(Pointer);
  // On a device chosen at run time (`t.to(device).data_ptr()`) in a program
  // that uses CUDA, a GPU run reads device memory: the run that matters. A
  // raw pointer that holds host memory on some paths and device memory on
  // others (a matrix class with a `device` flag) is kept apart by the
  // program itself: no finding.
  if (Fact.Where == Placement::MaybeCuda && !isTensorStorage(Pointer))
    return;
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
  // cudaFree of ordinary host memory (a stack object, malloc, new): an
  // invalid argument, and the memory is someone else's to release.
  if (Api == CudaApi::Free && Fact.Where == Placement::Cpu) {
    diag(Call->getExprLoc(),
         "'cudaFree' is given host memory '%0', which it cannot free (an "
         "invalid argument error at run time): release host memory with "
         "its own allocator, or pass device memory")
        << operandName(Pointer, Ctx);
    noteOrigin(Pointer, Fact, Ctx);
    return;
  }
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
