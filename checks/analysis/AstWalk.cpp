//===--- AstWalk.cpp - one syntax walk shared by every analysis -----------===//

#include "analysis/AstWalk.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/RecursiveASTVisitor.h"

namespace clang::tidy::xfer {
namespace {

/// The only RecursiveASTVisitor of the analyses. Overriding TraverseStmt
/// and TraverseDecl (not the Visit* methods) lets a callback prune a
/// subtree; RecursiveASTVisitor routes every child through them.
class Walker : public RecursiveASTVisitor<Walker> {
  using Base = RecursiveASTVisitor<Walker>;

public:
  Walker(StmtCallback OnStmt, DeclCallback OnDecl, WalkScope Scope)
      : OnStmt(OnStmt), OnDecl(OnDecl), Scope(Scope) {}

  bool shouldVisitTemplateInstantiations() const {
    return Scope.TemplateInstantiations;
  }
  bool shouldVisitLambdaBody() const { return Scope.LambdaBodies; }

  bool TraverseStmt(Stmt *S) {
    if (!S)
      return true;
    return follow(OnStmt(*S), [&] { return Base::TraverseStmt(S); });
  }

  bool TraverseDecl(Decl *D) {
    // Implicit declarations are not code as written: the base skips them
    // without visiting, and so does the callback.
    if (!D || !OnDecl || (D->isImplicit() && !shouldVisitImplicitCode()))
      return Base::TraverseDecl(D);
    return follow(OnDecl(*D), [&] { return Base::TraverseDecl(D); });
  }

private:
  /// What a callback's answer means for the traversal: go into the node
  /// (\p Children), skip its children, or stop the whole walk.
  template <typename Traverse>
  static bool follow(WalkStep Step, Traverse Children) {
    switch (Step) {
    case WalkStep::Stop:
      return false;
    case WalkStep::SkipChildren:
      return true;
    case WalkStep::Continue:
      return Children();
    }
    llvm_unreachable("unknown WalkStep");
  }

  StmtCallback OnStmt;
  DeclCallback OnDecl;
  WalkScope Scope;
};

} // namespace

bool walkStmt(const Stmt *Root, StmtCallback OnStmt, DeclCallback OnDecl,
              WalkScope Scope) {
  // The walk only reads; RecursiveASTVisitor's interface is not const.
  return Walker(OnStmt, OnDecl, Scope).TraverseStmt(const_cast<Stmt *>(Root));
}

bool walkDecl(const Decl *Root, StmtCallback OnStmt, DeclCallback OnDecl,
              WalkScope Scope) {
  return Walker(OnStmt, OnDecl, Scope).TraverseDecl(const_cast<Decl *>(Root));
}

std::vector<const CallExpr *> callsOutsideLambdas(const Stmt *Body) {
  std::vector<const CallExpr *> Calls;
  walkStmt(Body, [&](const Stmt &S) {
    if (isa<LambdaExpr>(S))
      return WalkStep::SkipChildren;
    if (const auto *Call = dyn_cast<CallExpr>(&S))
      Calls.push_back(Call);
    return WalkStep::Continue;
  });
  return Calls;
}

} // namespace clang::tidy::xfer
