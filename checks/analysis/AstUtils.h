//===--- AstUtils.h - parent-map helpers shared by the analyses -----------===//

#ifndef XFER_TIDY_CHECKS_ANALYSIS_ASTUTILS_H
#define XFER_TIDY_CHECKS_ANALYSIS_ASTUTILS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/ArrayRef.h"
#include <optional>

namespace clang::tidy::xfer {

/// The statement \p S is a direct child of, or null at a declaration
/// boundary (a function body's parent is the function, not a statement).
const Stmt *parentStmt(const Stmt *S, ASTContext &Ctx);

/// Looks through parentheses, implicit casts and the temporaries C++ wraps
/// around class-typed values (cleanups, materialized and bound temporaries).
const Expr *ignoreTemporaries(const Expr *E);

/// The expression \p Use feeds, looking through implicit conversions and
/// temporaries; \p Child is set to the node of \p Use's side it holds.
const Stmt *consumerOf(const Expr *Use, ASTContext &Ctx, const Stmt **Child);

/// The variable whose call operator \p Call invokes (`step(loss)` on a
/// std::function or a lambda held in a variable), or null.
const ValueDecl *invokedVariable(const CallExpr *Call);

/// The variable an lvalue or pointer expression designates or points into:
/// `x`, `s.field`, `a[i]`, `*p`, `&x`, `p + 4`, `v.data()`, `(void *)p`.
const VarDecl *rootVariable(const Expr *E);

/// ignoreTemporaries, and also copies, moves and implicit converting
/// constructions (`Device` to `TensorOptions`): down to the value as written.
/// Explicit temporaries such as `torch::Device("cpu")` are kept.
const Expr *ignoreCopiesAndConversions(const Expr *E);

/// The innermost function (or lambda call operator) whose body holds \p S.
const FunctionDecl *enclosingFunction(const Stmt *S, ASTContext &Ctx);

/// True if \p D has the plain identifier \p Name (not an operator or a
/// constructor).
bool isNamed(const NamedDecl *D, llvm::StringRef Name);

/// The class of the object \p D declares when it is a local variable (not
/// static, not a reference) of a defined, non-dependent class type: an
/// object whose constructor and destructor run where it is declared.
const CXXRecordDecl *localObjectClass(const Decl *D);

/// True if \p Inner is \p Outer or nested inside it.
bool isWithin(const Stmt *Inner, const Stmt *Outer, ASTContext &Ctx);

/// The definition a direct call enters, when this translation unit holds it
/// in user code (library internals are catalogued by name instead).
const FunctionDecl *definedCallee(const CallExpr *Call,
                                  const SourceManager &SM);

/// The two sides of an assignment, built in or a class's `operator=`
/// (`Word = vocabulary.word(Next)`); compound ones (`+=`) too.
struct AssignmentParts {
  const Expr *Target;
  const Expr *Value;
  bool Compound;
};
std::optional<AssignmentParts> assignmentParts(const Stmt &S);

/// True for loop statements: for, range-for, while, do.
bool isLoopStmt(const Stmt *S);

/// The body of a loop statement, or of the lambda an algorithm call (a loop
/// as LoopContext sees it) receives; \p Loop itself otherwise.
const Stmt *loopBody(const Stmt *Loop);

/// True if \p S is the body, condition or increment of the loop \p Loop,
/// i.e. evaluated on every iteration (a for-init or range-init is not).
bool isRepeatedPartOfLoop(const Stmt *Child, const Stmt *Loop);

/// The value of an integer constant expression (a literal, a constexpr
/// variable, an enumerator, arithmetic on them); std::nullopt otherwise or
/// in a template.
std::optional<int64_t> evaluateInt(const Expr *E, const ASTContext &Ctx);

/// evaluateInt for a size or count: std::nullopt when negative.
std::optional<uint64_t> evaluateCount(const Expr *E, const ASTContext &Ctx);

/// The value of a condition that is a constant (`do { } while (0)`).
std::optional<bool> evaluateCondition(const Expr *E, const ASTContext &Ctx);

/// Offset-based source order of two statements in the same file.
bool isBeforeInSource(const Stmt *A, const Stmt *B, const SourceManager &SM);

/// The 1-based line \p S begins on (at its expansion site).
unsigned lineOf(const Stmt *S, const SourceManager &SM);

/// `do { ... } while (0)`, or a block whose braces a macro spells: the
/// wrapper of a statement-like macro (`CHECK(cudaMemcpy(...))`), one
/// statement of the user's block.
bool isMacroStatementWrapper(const Stmt *S, ASTContext &Ctx);

/// The wrapper statement whose body \p Block is (the `do` of `do { ... }
/// while (0)`, or \p Block itself when a macro spells its braces), if any.
const Stmt *macroWrapperOfBlock(const Stmt *Block, ASTContext &Ctx);

/// True if \p S sits in the body of such a wrapper (an `if (err)` of the
/// macro's error check).
bool isInsideMacroStatementWrapper(const Stmt *S, ASTContext &Ctx);

/// Where a call sits in the block that holds it: the block's statements
/// and the one of them that holds the call (its own expression statement or
/// declaration, or the statement a `CHECK(call)` macro expands to).
struct PlaceInBlock {
  llvm::ArrayRef<Stmt *> Body;
  llvm::ArrayRef<Stmt *>::iterator At;
};

/// \p Call's place in its block, or nothing when a statement that is not an
/// expression or a declaration (an `if`, a loop) comes first.
std::optional<PlaceInBlock> placeInBlock(const CallExpr *Call, ASTContext &Ctx);

/// True for a variable declared `__managed__` (CUDA managed memory). Clang
/// 19 keeps the `managed` attribute for HIP only and drops it in CUDA, so
/// the declaration's own text is read.
bool isManagedVariable(const VarDecl *Var);

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_ANALYSIS_ASTUTILS_H
