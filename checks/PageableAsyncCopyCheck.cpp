//===--- PageableAsyncCopyCheck.cpp - xfer-pageable-async-copy ------------===//

#include "PageableAsyncCopyCheck.h"
#include "analysis/ApiCatalogue.h"
#include "analysis/AstUtils.h"
#include "analysis/AstWalk.h"
#include "analysis/LoopContext.h"
#include "analysis/ProjectFacts.h"
#include "analysis/TranslationUnitAnalyses.h"
#include "analysis/UserCodeTraversal.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/ASTMatchers/ASTMatchFinder.h"

using namespace clang::ast_matchers;

namespace clang::tidy::xfer {
namespace {

/// The operands of one asynchronous CUDA copy.
struct CudaCopyOperands {
  const Expr *Destination = nullptr;
  const Expr *Source = nullptr;
  const Expr *Kind = nullptr;
};

const VarDecl *referencedVariable(const Expr *E) {
  const auto *Ref =
      dyn_cast_or_null<DeclRefExpr>(E ? E->IgnoreParenImpCasts() : nullptr);
  return Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
}

/// The member path `Var.Outer` or `Var.Outer.Inner` an assignment writes.
bool writesMember(const Expr *LHS, const VarDecl *Var, llvm::StringRef Outer,
                  llvm::StringRef Inner = "") {
  const auto *Member = dyn_cast<MemberExpr>(LHS->IgnoreParenImpCasts());
  if (!Member || !Member->getMemberDecl()->getIdentifier())
    return false;
  if (!Inner.empty()) {
    if (Member->getMemberDecl()->getName() != Inner)
      return false;
    Member = dyn_cast<MemberExpr>(Member->getBase()->IgnoreParenImpCasts());
    if (!Member || !Member->getMemberDecl()->getIdentifier())
      return false;
  }
  return Member->getMemberDecl()->getName() == Outer &&
         referencedVariable(Member->getBase()) == Var;
}

/// The host pointer a cudaPitchedPtr value wraps: make_cudaPitchedPtr(p,..).
const Expr *pitchedPointer(const Expr *Value) {
  const auto *Call = dyn_cast<CallExpr>(Value->IgnoreParenImpCasts());
  const FunctionDecl *FD = Call ? Call->getDirectCallee() : nullptr;
  if (FD && FD->getIdentifier() && FD->getName() == "make_cudaPitchedPtr" &&
      Call->getNumArgs() >= 1)
    return Call->getArg(0);
  return nullptr;
}

/// cudaMemcpy3DAsync(&parms, ...) takes its operands from a local
/// cudaMemcpy3DParms: the last writes of its kind, srcPtr and dstPtr
/// before the call.
CudaCopyOperands operandsOf3DCopy(const CallExpr *Call, ASTContext &Ctx) {
  CudaCopyOperands Operands;
  if (Call->getNumArgs() == 0)
    return Operands;
  const auto *AddrOf =
      dyn_cast<UnaryOperator>(Call->getArg(0)->IgnoreParenImpCasts());
  if (!AddrOf || AddrOf->getOpcode() != UO_AddrOf)
    return Operands;
  const VarDecl *Parms = referencedVariable(AddrOf->getSubExpr());
  const FunctionDecl *Function = enclosingFunction(Call, Ctx);
  if (!Parms || !Parms->hasLocalStorage() || !Function || !Function->hasBody())
    return Operands;

  const SourceManager &SM = Ctx.getSourceManager();
  walkStmt(Function->getBody(), [&](const Stmt &S) {
    if (const auto *Op = dyn_cast<BinaryOperator>(&S);
        Op && Op->getOpcode() == BO_Assign && isBeforeInSource(Op, Call, SM)) {
      const Expr *LHS = Op->getLHS();
      if (writesMember(LHS, Parms, "kind"))
        Operands.Kind = Op->getRHS();
      else if (writesMember(LHS, Parms, "srcPtr", "ptr"))
        Operands.Source = Op->getRHS();
      else if (writesMember(LHS, Parms, "dstPtr", "ptr"))
        Operands.Destination = Op->getRHS();
    }
    // Struct assignment: parms.srcPtr = make_cudaPitchedPtr(...).
    if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(&S);
        Op && Op->getOperator() == OO_Equal && Op->getNumArgs() == 2 &&
        isBeforeInSource(Op, Call, SM)) {
      if (writesMember(Op->getArg(0), Parms, "srcPtr"))
        Operands.Source = pitchedPointer(Op->getArg(1));
      else if (writesMember(Op->getArg(0), Parms, "dstPtr"))
        Operands.Destination = pitchedPointer(Op->getArg(1));
    }
    return WalkStep::Continue;
  });
  return Operands;
}

/// True for a first parameter of type bool: to()'s and copy_()'s
/// non_blocking in every LibTorch overload that has one.
std::optional<unsigned> nonBlockingArgument(const CallExpr *Call) {
  const FunctionDecl *FD = Call->getDirectCallee();
  if (!FD)
    return std::nullopt;
  for (unsigned I = 0; I < FD->getNumParams() && I < Call->getNumArgs(); ++I)
    if (FD->getParamDecl(I)->getType()->isBooleanType())
      return I;
  return std::nullopt;
}

bool isConstantTrue(const Expr *E, const ASTContext &Ctx) {
  return !isa<CXXDefaultArgExpr>(E) && evaluateCondition(E, Ctx) == true;
}

} // namespace

PageableAsyncCopyCheck::PageableAsyncCopyCheck(llvm::StringRef Name,
                                               ClangTidyContext *Context)
    : ClangTidyCheck(Name, Context),
      ProjectIndex(Options.getLocalOrGlobal("ProjectIndex", "")),
      Costs(Options) {}

void PageableAsyncCopyCheck::storeOptions(ClangTidyOptions::OptionMap &Opts) {
  Options.store(Opts, "ProjectIndex", ProjectIndex);
  Costs.storeOptions(Options, Opts);
}

void PageableAsyncCopyCheck::registerMatchers(MatchFinder *Finder) {
  walkOnlyUserCode(*Finder);
  Finder->addMatcher(callExpr(unless(isExpansionInSystemHeader())).bind("call"),
                     this);
}

void PageableAsyncCopyCheck::onStartOfTranslationUnit() {
  if (!Facts) // the loop checks report an unreadable index
    Facts = ProjectFacts::loadOption(ProjectIndex);
  Analyses.reset();
}

void PageableAsyncCopyCheck::check(const MatchFinder::MatchResult &Result) {
  const auto *Call = Result.Nodes.getNodeAs<CallExpr>("call");
  ASTContext &Ctx = *Result.Context;
  if (!Analyses)
    Analyses = TranslationUnitAnalyses::of(Ctx, Facts);
  checkCudaCopy(Call, Ctx);
  checkCublasCopy(Call, Ctx);
  checkTorchCopy(Call, Ctx);
}

void PageableAsyncCopyCheck::checkCudaCopy(const CallExpr *Call,
                                           ASTContext &Ctx) {
  std::optional<CudaApi> Api = identifyCudaCall(Call);
  // A peer copy (cudaMemcpyPeerAsync) has no host side.
  if (!Api ||
      (*Api != CudaApi::MemcpyAsync && *Api != CudaApi::Memcpy2DAsync &&
       *Api != CudaApi::Memcpy3DAsync && *Api != CudaApi::MemcpyToSymbolAsync &&
       *Api != CudaApi::MemcpyFromSymbolAsync))
    return;

  CudaCopyOperands Operands;
  if (*Api == CudaApi::Memcpy3DAsync) {
    Operands = operandsOf3DCopy(Call, Ctx);
  } else if (*Api == CudaApi::MemcpyToSymbolAsync ||
             *Api == CudaApi::MemcpyFromSymbolAsync) {
    // (symbol, src, count, offset, kind, stream) and (dst, symbol, ...):
    // the symbol is device memory, the pointer the host side.
    if (Call->getNumArgs() <= 4)
      return;
    const bool ToSymbol = *Api == CudaApi::MemcpyToSymbolAsync;
    (ToSymbol ? Operands.Source : Operands.Destination) =
        Call->getArg(ToSymbol ? 1 : 0);
    Operands.Kind = Call->getArg(4);
  } else {
    unsigned KindIndex = *memcpyKindArgIndex(*Api);
    if (Call->getNumArgs() <= KindIndex)
      return;
    Operands.Destination = Call->getArg(0);
    Operands.Source = Call->getArg(*Api == CudaApi::Memcpy2DAsync ? 2 : 1);
    Operands.Kind = Call->getArg(KindIndex);
  }
  std::optional<MemcpyDirection> Direction =
      evaluateMemcpyKind(Operands.Kind, Ctx);
  if (!Direction)
    return;

  auto PlacementOf = [&](const Expr *Pointer) {
    return Pointer ? Analyses->devices().pointerPlacement(Pointer) : PlacementFact{};
  };
  // Which operand is host memory follows from the copy kind; with
  // cudaMemcpyDefault, from where the two pointers are known to live.
  bool IntoHost = false;
  PlacementFact Host;
  switch (*Direction) {
  case MemcpyDirection::HostToDevice:
    Host = PlacementOf(Operands.Source);
    break;
  case MemcpyDirection::DeviceToHost:
    IntoHost = true;
    Host = PlacementOf(Operands.Destination);
    break;
  case MemcpyDirection::Default: {
    PlacementFact Source = PlacementOf(Operands.Source);
    PlacementFact Destination = PlacementOf(Operands.Destination);
    auto OnDevice = [](Placement P) {
      return P == Placement::Cuda || P == Placement::Managed;
    };
    if (Source.Where == Placement::Cpu && OnDevice(Destination.Where)) {
      Host = Source;
    } else if (Destination.Where == Placement::Cpu && OnDevice(Source.Where)) {
      IntoHost = true;
      Host = Destination;
    }
    break;
  }
  case MemcpyDirection::HostToHost:
  case MemcpyDirection::DeviceToDevice:
    return;
  }
  if (Host.Where != Placement::Cpu)
    return;

  std::optional<uint64_t> Bytes;
  if ((*Api == CudaApi::MemcpyAsync || *Api == CudaApi::MemcpyToSymbolAsync ||
       *Api == CudaApi::MemcpyFromSymbolAsync) &&
      Call->getNumArgs() > 2)
    Bytes = evaluateCount(Call->getArg(2), Ctx);
  reportPageableCopy(Call, cudaApiName(*Api), IntoHost, Host, Bytes, Ctx);
}

void PageableAsyncCopyCheck::checkCublasCopy(const CallExpr *Call,
                                             ASTContext &Ctx) {
  // cuBLAS's asynchronous matrix and vector transfers are cudaMemcpyAsync
  // underneath: which argument is the host buffer, and its direction.
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !Callee->getIdentifier())
    return;
  struct CublasCopy {
    llvm::StringRef Name;
    unsigned HostArgument;
    bool IntoHost;
  };
  static constexpr CublasCopy Copies[] = {
      {"cublasSetMatrixAsync", 3, false},
      {"cublasGetMatrixAsync", 5, true},
      {"cublasSetVectorAsync", 2, false},
      {"cublasGetVectorAsync", 4, true},
  };
  const auto *Copy = llvm::find_if(
      Copies, [&](const CublasCopy &C) { return Callee->getName() == C.Name; });
  if (Copy == std::end(Copies) || Call->getNumArgs() <= Copy->HostArgument)
    return;
  PlacementFact Host =
      Analyses->devices().pointerPlacement(Call->getArg(Copy->HostArgument));
  if (Host.Where != Placement::Cpu)
    return;
  reportPageableCopy(Call, Copy->Name, Copy->IntoHost, Host, std::nullopt, Ctx);
}

void PageableAsyncCopyCheck::reportPageableCopy(
    const CallExpr *Call, llvm::StringRef Name, bool IntoHost,
    const PlacementFact &Host, std::optional<uint64_t> Bytes, ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  diag(SM.getExpansionLoc(Call->getBeginLoc()),
       "'%0' copies %select{from|into}1 pageable host memory, so it is not "
       "asynchronous: the driver stages the data through a pinned bounce "
       "buffer and the call returns only %select{after the host data has "
       "been copied out|once the data has reached host memory}1, so the "
       "copy does not overlap host work; allocate the buffer with "
       "cudaMallocHost or register it with cudaHostRegister")
      << Name << (IntoHost ? 1 : 0);
  notePageableOrigin(Host, Ctx);
  citeCost(Call, IntoHost, Bytes, Ctx);
}

void PageableAsyncCopyCheck::checkTorchCopy(const CallExpr *Call,
                                            ASTContext &Ctx) {
  std::optional<TorchCall> Torch = identifyTorchCall(Call);
  if (!Torch || !Torch->Subject ||
      (Torch->Op != TorchOp::To && Torch->Op != TorchOp::Copy) ||
      Call->getNumArgs() == 0)
    return;
  std::optional<unsigned> NonBlocking = nonBlockingArgument(Call);
  if (!NonBlocking || !isConstantTrue(Call->getArg(*NonBlocking), Ctx))
    return;

  // The device side and the host side of the copy.
  PlacementFact Target, Source;
  if (Torch->Op == TorchOp::To) {
    const Expr *TargetArg = Call->getArg(0);
    if (isTensorType(TargetArg->getType())) {
      Target = Analyses->devices().tensorPlacement(TargetArg);
    } else if (std::optional<PlacementFact> Device =
                   Analyses->devices().deviceValue(TargetArg)) {
      Target = *Device;
    }
    Source = Analyses->devices().tensorPlacement(Torch->Subject);
  } else {
    Target = Analyses->devices().tensorPlacement(Torch->Subject);
    Source = Analyses->devices().tensorPlacement(Call->getArg(0));
  }
  if (!isDeviceSide(Target.Where) || Source.Where != Placement::Cpu)
    return;

  const SourceManager &SM = Ctx.getSourceManager();
  diag(SM.getExpansionLoc(Call->getExprLoc()),
       "'%0' with non_blocking=true copies a tensor in pageable host memory, "
       "so it is not asynchronous: the data is staged through a pinned "
       "bounce buffer and the call returns only after the host memory has "
       "been copied, so the copy does not overlap host work; pin the tensor "
       "with pin_memory() first, once, outside hot loops")
      << Torch->Spelling;
  notePageableOrigin(Source, Ctx);
  citeCost(Call, /*IntoHost=*/false, std::nullopt, Ctx);
}

void PageableAsyncCopyCheck::citeCost(const CallExpr *Call, bool IntoHost,
                                      std::optional<uint64_t> Bytes,
                                      ASTContext &Ctx) {
  ExecutionFrequency Frequency = analyzeFrequency(Call, Ctx);
  CostQuery Query{IntoHost ? patterns::CudaMemcpyAsyncD2HPageableReturn
                           : patterns::CudaMemcpyAsyncH2DPageableReturn,
                  IntoHost ? patterns::CudaMemcpyAsyncD2HPinnedReturn
                           : patterns::CudaMemcpyAsyncH2DPinnedReturn,
                  Bytes, /*BlocksHost=*/false, &Frequency};
  if (std::optional<CostNote> Cost = Costs.note(Query, Ctx, *this)) {
    SourceLocation Loc =
        Ctx.getSourceManager().getExpansionLoc(Call->getExprLoc());
    diag(Loc, "%0", DiagnosticIDs::Note) << Cost->text();
    recordCostNote(*Cost, getID(), Loc, Ctx.getSourceManager());
  }
}

void PageableAsyncCopyCheck::notePageableOrigin(const PlacementFact &Fact,
                                                ASTContext &Ctx) {
  if (!Fact.Origin)
    return;
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation Where = Fact.Origin->getBeginLoc();
  // Point at the declaration of an array or container rather than at the
  // use that mentioned it.
  const Expr *Named = dyn_cast<Expr>(Fact.Origin);
  if (const auto *Member = dyn_cast_or_null<CXXMemberCallExpr>(Named))
    if (const FunctionDecl *Callee = Member->getDirectCallee();
        Callee && Callee->getIdentifier() && Callee->getName() == "data")
      Named = Member->getImplicitObjectArgument();
  if (const VarDecl *Var = referencedVariable(Named))
    Where = Var->getLocation();
  diag(SM.getExpansionLoc(Where), "pageable host memory: %0",
       DiagnosticIDs::Note)
      << Fact.Reason;
}

} // namespace clang::tidy::xfer
