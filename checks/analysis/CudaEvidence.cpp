//===--- CudaEvidence.cpp - does a translation unit use a CUDA device? ----===//

#include "analysis/CudaEvidence.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"
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

class EvidenceFinder : public RecursiveASTVisitor<EvidenceFinder> {
public:
  explicit EvidenceFinder(ASTContext &Ctx)
      : Ctx(Ctx), SM(Ctx.getSourceManager()) {}

  bool TraverseDecl(Decl *D) {
    if (Result.Found)
      return false;
    if (D && !isa<TranslationUnitDecl>(D) &&
        SM.isInSystemHeader(SM.getExpansionLoc(D->getLocation())))
      return true; // library code mentions CUDA without the program using it
    return RecursiveASTVisitor::TraverseDecl(D);
  }

  bool VisitDeclRefExpr(DeclRefExpr *Ref) {
    const ValueDecl *D = Ref->getDecl();
    if (const auto *Enumerator = dyn_cast<EnumConstantDecl>(D)) {
      const auto *Enum = dyn_cast<EnumDecl>(Enumerator->getDeclContext());
      if (Enumerator->getName() == "CUDA" && Enum &&
          Enum->getName() == "DeviceType")
        return found(Ref->getLocation(), "uses DeviceType::CUDA");
    }
    if (D->getIdentifier() && D->getName() == "kCUDA")
      return found(Ref->getLocation(), "uses kCUDA");
    return true;
  }

  bool VisitCallExpr(CallExpr *Call) {
    const FunctionDecl *Callee = Call->getDirectCallee();
    if (!Callee || !Callee->getIdentifier())
      return true;
    if (const auto *NS = dyn_cast<NamespaceDecl>(Callee->getDeclContext());
        NS && NS->getName() == "cuda")
      if (const auto *Outer = dyn_cast<NamespaceDecl>(NS->getParent());
          Outer && Outer->getName() == "torch")
        return found(Call->getBeginLoc(),
                     "calls torch::cuda::" + Callee->getName().str());
    if (isa<CXXMethodDecl>(Callee) && Callee->getName() == "cuda")
      return found(Call->getBeginLoc(), "calls cuda()");
    if (Callee->getName().starts_with("cuda") &&
        Callee->getDeclContext()->getRedeclContext()->isTranslationUnit())
      return found(Call->getBeginLoc(),
                   "calls " + Callee->getName().str());
    return true;
  }

  bool VisitCXXConstructExpr(CXXConstructExpr *Construct) {
    const CXXRecordDecl *RD = Construct->getConstructor()->getParent();
    if (!RD->getIdentifier() || RD->getName() != "Device" ||
        Construct->getNumArgs() == 0)
      return true;
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
      return found(Construct->getBeginLoc(), "names a \"cuda\" device");
    // Device(name) with a name read at run time (a command-line option, a
    // config field): the program is written to run on a GPU when told to.
    QualType NameType = Arg->getType().getNonReferenceType();
    const CXXRecordDecl *NameClass = NameType->getAsCXXRecordDecl();
    if (!isa<StringLiteral>(Arg) &&
        ((NameClass && NameClass->getIdentifier() &&
          NameClass->getName() == "basic_string") ||
         (NameType->isPointerType() &&
          NameType->getPointeeType()->isCharType())))
      return found(Construct->getBeginLoc(),
                   "names its device at run time");
    return true;
  }

  CudaEvidence Result;

private:
  bool found(SourceLocation Where, std::string What) {
    Result = {true, Where, std::move(What)};
    return false;
  }

  ASTContext &Ctx;
  const SourceManager &SM;
};

} // namespace

CudaEvidence findCudaEvidence(ASTContext &Ctx) {
  if (Ctx.getLangOpts().CUDA)
    return {true, SourceLocation(), "is compiled as CUDA"};

  const SourceManager &SM = Ctx.getSourceManager();
  for (unsigned I = 0, E = SM.local_sloc_entry_size(); I != E; ++I) {
    const SrcMgr::SLocEntry &Entry = SM.getLocalSLocEntry(I);
    if (!Entry.isFile())
      continue;
    const SrcMgr::FileInfo &File = Entry.getFile();
    SourceLocation IncludedFrom = File.getIncludeLoc();
    if (IncludedFrom.isInvalid() || SM.isInSystemHeader(IncludedFrom))
      continue;
    if (OptionalFileEntryRef Ref = File.getContentCache().OrigEntry)
      if (isCudaHeaderName(Ref->getName()))
        return {true, IncludedFrom,
                "includes " + llvm::sys::path::filename(Ref->getName()).str()};
  }

  EvidenceFinder Finder(Ctx);
  Finder.TraverseDecl(Ctx.getTranslationUnitDecl());
  return Finder.Result;
}

} // namespace clang::tidy::xfer
