//===--- CudaEvidence.cpp - does a translation unit use a CUDA device? ----===//

#include "analysis/CudaEvidence.h"
#include "analysis/AstUtils.h"
#include "analysis/AstWalk.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/Support/Path.h"

namespace clang::tidy::xfer {
namespace {

bool isCudaHeaderName(llvm::StringRef Path) {
  llvm::StringRef Name = llvm::sys::path::filename(Path);
  return Name == "cuda_runtime.h" || Name == "cuda_runtime_api.h" ||
         Name == "cuda.h" || Path.contains("c10/cuda/") ||
         Path.contains("ATen/cuda/");
}

/// The local variable \p Assignment (`v = x` or `v.operator=(x)`) stores
/// into, when it is a whole statement's assignment of a plain variable.
const VarDecl *assignedLocal(const Stmt *Assignment) {
  const Expr *Target = nullptr;
  if (const auto *Op = dyn_cast<BinaryOperator>(Assignment);
      Op && Op->getOpcode() == BO_Assign)
    Target = Op->getLHS();
  else if (const auto *Call = dyn_cast<CXXOperatorCallExpr>(Assignment);
           Call && Call->getOperator() == OO_Equal && Call->getNumArgs() == 2)
    Target = Call->getArg(0);
  const auto *Ref =
      Target ? dyn_cast<DeclRefExpr>(Target->IgnoreParenImpCasts()) : nullptr;
  const auto *Var = Ref ? dyn_cast<VarDecl>(Ref->getDecl()) : nullptr;
  return Var && Var->isLocalVarDecl() ? Var : nullptr;
}

/// The value an assignment that assignedLocal() accepts stores.
const Expr *assignedValue(const Stmt *Assignment) {
  if (const auto *Op = dyn_cast<BinaryOperator>(Assignment))
    return Op->getRHS();
  return cast<CXXOperatorCallExpr>(Assignment)->getArg(1);
}

/// True if \p Value is what an assignment stores into a local variable
/// that a later statement assigns again before anything reads it: `device
/// = torch::kCUDA;` inside `if (torch::cuda::is_available())`, then `device
/// = torch::kCPU;` after the branch. The program never uses that device.
bool isOverwrittenStore(const Expr *Value, ASTContext &Ctx) {
  const Stmt *Child = Value;
  const Stmt *Parent = parentStmt(Value, Ctx);
  while (Parent && isa<Expr>(Parent) && !assignedLocal(Parent)) {
    Child = Parent;
    Parent = parentStmt(Parent, Ctx);
  }
  const VarDecl *Var = Parent ? assignedLocal(Parent) : nullptr;
  if (!Var || Child != assignedValue(Parent))
    return false;
  auto Reads = [&](const Stmt *S) {
    return containsMatch<DeclRefExpr>(
        S, [&](const DeclRefExpr &Ref) { return Ref.getDecl() == Var; });
  };
  const Stmt *Assignment = Parent;
  // Up through blocks and branches (not loops: a later iteration reads
  // it), looking at what follows in each block; a `torch::Device`
  // assignment sits in the cleanups of its temporaries.
  for (const Stmt *Current = Assignment; Current;) {
    const Stmt *Up = parentStmt(Current, Ctx);
    if (!Up || isLoopStmt(Up))
      return false;
    if (const auto *Block = dyn_cast<CompoundStmt>(Up)) {
      auto It = llvm::find(Block->body(), Current);
      for (++It; It != Block->body_end(); ++It) {
        const Stmt *Next = *It;
        if (const auto *Expression = dyn_cast<Expr>(Next)) {
          const Expr *Bare = Expression->IgnoreImplicit();
          if (assignedLocal(Bare) == Var)
            return !Reads(assignedValue(Bare));
        }
        if (Reads(Next))
          return false;
      }
    } else if (!isa<IfStmt, ExprWithCleanups>(Up)) {
      return false;
    }
    Current = Up;
  }
  return false;
}

std::optional<CudaEvidence> evidenceInReference(const DeclRefExpr *Ref,
                                                ASTContext &Ctx) {
  const ValueDecl *D = Ref->getDecl();
  std::optional<CudaEvidence> Found;
  if (const auto *Enumerator = dyn_cast<EnumConstantDecl>(D)) {
    const auto *Enum = dyn_cast<EnumDecl>(Enumerator->getDeclContext());
    if (Enumerator->getName() == "CUDA" && Enum &&
        Enum->getName() == "DeviceType")
      Found = CudaEvidence{true, Ref->getLocation(), "uses DeviceType::CUDA"};
  }
  if (!Found && D->getIdentifier() && D->getName() == "kCUDA")
    Found = CudaEvidence{true, Ref->getLocation(), "uses kCUDA"};
  // Only a CUDA reference is looked at in context: the walk meets every
  // reference of the unit.
  if (Found && isOverwrittenStore(Ref, Ctx))
    return std::nullopt;
  return Found;
}

std::optional<CudaEvidence> evidenceInCall(const CallExpr *Call) {
  const FunctionDecl *Callee = Call->getDirectCallee();
  if (!Callee || !Callee->getIdentifier())
    return std::nullopt;
  // Asking whether a GPU is there (torch::cuda::is_available()) uses none.
  if (const auto *NS = dyn_cast<NamespaceDecl>(Callee->getDeclContext());
      NS && NS->getName() == "cuda" &&
      !llvm::is_contained(
          {"is_available", "device_count", "cudnn_is_available"},
          Callee->getName()))
    if (const auto *Outer = dyn_cast<NamespaceDecl>(NS->getParent());
        Outer && Outer->getName() == "torch")
      return CudaEvidence{true, Call->getBeginLoc(),
                          "calls torch::cuda::" + Callee->getName().str()};
  if (isa<CXXMethodDecl>(Callee) && Callee->getName() == "cuda")
    return CudaEvidence{true, Call->getBeginLoc(), "calls cuda()"};
  if (Callee->getName().starts_with("cuda") &&
      Callee->getDeclContext()->getRedeclContext()->isTranslationUnit())
    return CudaEvidence{true, Call->getBeginLoc(),
                        "calls " + Callee->getName().str()};
  return std::nullopt;
}

std::optional<CudaEvidence>
evidenceInConstruction(const CXXConstructExpr *Construct) {
  const CXXRecordDecl *RD = Construct->getConstructor()->getParent();
  if (!RD->getIdentifier() || RD->getName() != "Device" ||
      Construct->getNumArgs() == 0)
    return std::nullopt;
  const Expr *Arg = Construct->getArg(0)->IgnoreParenImpCasts();
  if (const auto *Inner = dyn_cast<CXXConstructExpr>(Arg);
      Inner && Inner->getNumArgs())
    Arg = Inner->getArg(0)->IgnoreParenImpCasts();
  if (const auto *Temp = dyn_cast<MaterializeTemporaryExpr>(Arg))
    Arg = Temp->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *Bind = dyn_cast<CXXBindTemporaryExpr>(Arg))
    Arg = Bind->getSubExpr()->IgnoreParenImpCasts();
  if (const auto *Inner = dyn_cast<CXXConstructExpr>(Arg);
      Inner && Inner->getNumArgs())
    Arg = Inner->getArg(0)->IgnoreParenImpCasts();
  if (const auto *Literal = dyn_cast<StringLiteral>(Arg);
      Literal && Literal->getString().starts_with("cuda"))
    return CudaEvidence{true, Construct->getBeginLoc(),
                        "names a \"cuda\" device"};
  // Device(name) with a name read at run time (a command-line option, a
  // config field): the program is written to run on a GPU when told to.
  QualType NameType = Arg->getType().getNonReferenceType();
  const CXXRecordDecl *NameClass = NameType->getAsCXXRecordDecl();
  if (!isa<StringLiteral>(Arg) &&
      ((NameClass && NameClass->getIdentifier() &&
        NameClass->getName() == "basic_string") ||
       (NameType->isPointerType() && NameType->getPointeeType()->isCharType())))
    return CudaEvidence{true, Construct->getBeginLoc(),
                        "names its device at run time"};
  return std::nullopt;
}

} // namespace

CudaEvidence findCudaEvidence(ASTContext &Ctx) {
  if (Ctx.getLangOpts().CUDA)
    return {true, SourceLocation(), "is compiled as CUDA"};

  const SourceManager &SM = Ctx.getSourceManager();
  auto IncludesCudaHeader =
      [&](const SrcMgr::SLocEntry &Entry) -> std::optional<CudaEvidence> {
    if (!Entry.isFile())
      return std::nullopt;
    const SrcMgr::FileInfo &File = Entry.getFile();
    SourceLocation IncludedFrom = File.getIncludeLoc();
    if (IncludedFrom.isInvalid() || SM.isInSystemHeader(IncludedFrom))
      return std::nullopt;
    if (OptionalFileEntryRef Ref = File.getContentCache().OrigEntry)
      if (isCudaHeaderName(Ref->getName()))
        return CudaEvidence{
            true, IncludedFrom,
            "includes " + llvm::sys::path::filename(Ref->getName()).str()};
    return std::nullopt;
  };
  // Files included by a precompiled preamble are loaded entries, not in
  // include order, and come before every local one: the first include of
  // all, as without a preamble.
  std::optional<CudaEvidence> First;
  for (unsigned I = 0, E = SM.loaded_sloc_entry_size(); I != E; ++I) {
    bool Invalid = false;
    const SrcMgr::SLocEntry &Entry = SM.getLoadedSLocEntry(I, &Invalid);
    if (Invalid)
      continue;
    if (std::optional<CudaEvidence> Found = IncludesCudaHeader(Entry))
      if (!First || SM.isBeforeInTranslationUnit(Found->Where, First->Where))
        First = std::move(Found);
  }
  if (First)
    return *First;
  for (unsigned I = 0, E = SM.local_sloc_entry_size(); I != E; ++I)
    if (std::optional<CudaEvidence> Found =
            IncludesCudaHeader(SM.getLocalSLocEntry(I)))
      return *Found;

  CudaEvidence Result;
  walkDecl(
      Ctx.getTranslationUnitDecl(),
      [&](const Stmt &S) {
        std::optional<CudaEvidence> Found;
        if (const auto *Ref = dyn_cast<DeclRefExpr>(&S))
          Found = evidenceInReference(Ref, Ctx);
        else if (const auto *Call = dyn_cast<CallExpr>(&S))
          Found = evidenceInCall(Call);
        else if (const auto *Construct = dyn_cast<CXXConstructExpr>(&S))
          Found = evidenceInConstruction(Construct);
        if (!Found)
          return WalkStep::Continue;
        Result = std::move(*Found);
        return WalkStep::Stop;
      },
      [&](const Decl &D) {
        // Library code mentions CUDA without the program using it.
        return !isa<TranslationUnitDecl>(D) &&
                       SM.isInSystemHeader(SM.getExpansionLoc(D.getLocation()))
                   ? WalkStep::SkipChildren
                   : WalkStep::Continue;
      });
  return Result;
}

} // namespace clang::tidy::xfer
