//===--- AstWalk.h - one syntax walk shared by every analysis -------------===//
//
// The analyses look for calls, references and assignments under a
// statement or a declaration. Each RecursiveASTVisitor subclass is a new
// instantiation of the whole visitor, seconds of compile time (minutes
// under sanitizers) for every one; this walk is the single instantiation,
// driven by callbacks.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_CHECKS_ANALYSIS_ASTWALK_H
#define XFER_TIDY_CHECKS_ANALYSIS_ASTWALK_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <vector>

namespace clang::tidy::xfer {

/// What a walk does after a callback saw a node.
enum class WalkStep {
  Continue,     ///< go on into the node's children
  SkipChildren, ///< go on, but not beneath this node
  Stop,         ///< end the walk
};

/// What the walk enters besides the code as written. RecursiveASTVisitor's
/// defaults: no implicit code, no template instantiations, lambda bodies.
struct WalkScope {
  bool LambdaBodies = true;
  bool TemplateInstantiations = false;
};

using StmtCallback = llvm::function_ref<WalkStep(const Stmt &)>;
using DeclCallback = llvm::function_ref<WalkStep(const Decl &)>;

/// Calls \p OnStmt for \p Root and every statement and expression beneath
/// it, and \p OnDecl (when given) for every declaration beneath it (local
/// variables, lambda parameters), in RecursiveASTVisitor's order (a node
/// before its children) and scope. False if a callback stopped the walk.
bool walkStmt(const Stmt *Root, StmtCallback OnStmt,
              DeclCallback OnDecl = nullptr, WalkScope Scope = {});

/// As walkStmt, from a declaration: \p Root itself (unless implicit), the
/// declarations it contains and the statements of their bodies.
bool walkDecl(const Decl *Root, StmtCallback OnStmt,
              DeclCallback OnDecl = nullptr, WalkScope Scope = {});

/// The first node of type \p T under \p Root (itself included, in walk
/// order) for which \p Pred holds, or null.
template <typename T>
const T *findFirst(const Stmt *Root, llvm::function_ref<bool(const T &)> Pred,
                   WalkScope Scope = {}) {
  const T *Found = nullptr;
  walkStmt(
      Root,
      [&](const Stmt &S) {
        if (const auto *Node = llvm::dyn_cast<T>(&S); Node && Pred(*Node)) {
          Found = Node;
          return WalkStep::Stop;
        }
        return WalkStep::Continue;
      },
      nullptr, Scope);
  return Found;
}

/// True if a node of type \p T under \p Root satisfies \p Pred.
template <typename T>
bool containsMatch(const Stmt *Root, llvm::function_ref<bool(const T &)> Pred,
                   WalkScope Scope = {}) {
  return findFirst<T>(Root, Pred, Scope) != nullptr;
}

/// The calls in \p Body in source order, not those inside lambdas: a
/// lambda's body runs when it is called, not where it is written.
std::vector<const CallExpr *> callsOutsideLambdas(const Stmt *Body);

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_ANALYSIS_ASTWALK_H
