//===--- ExecutionOrder.h - what runs before what, from clang's CFG -------===//
//
// Two questions the analyses ask about a function's control flow: does a
// write always run before a later read (so it hides earlier writes), and
// does a statement run whenever its function does (a tensor moved to the GPU
// with no run-time choice). Both are answered here, from the CFG of the body
// that holds the statement and its dominator trees, built once per body, so
// branches, early exits, short-circuits and `goto` are handled alike.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_CHECKS_ANALYSIS_EXECUTIONORDER_H
#define XFER_TIDY_CHECKS_ANALYSIS_EXECUTIONORDER_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include <memory>

namespace clang::tidy::xfer {

class ExecutionOrder {
public:
  explicit ExecutionOrder(ASTContext &Ctx);
  ~ExecutionOrder();
  ExecutionOrder(const ExecutionOrder &) = delete;
  ExecutionOrder &operator=(const ExecutionOrder &) = delete;

  /// True if \p Earlier runs, and finishes, on every path from the entry of
  /// its function (or lambda) to \p Later: it dominates \p Later in the CFG.
  /// False when they are in different bodies or no CFG can be built.
  bool alwaysRunsBefore(const Stmt *Earlier, const Stmt *Later);

  /// True if only loops decide whether \p S runs once its function runs: no
  /// `if`, `switch`, `?:` or short-circuit chooses it. A guard clause
  /// whose other arm leaves (`if (!ok) return;`, `break`, `continue`,
  /// `throw`) is not a choice: the code after it expects to run.
  bool runsWheneverFunctionRuns(const Stmt *S);

  /// What a statement on a path means to everyPathBackFinds.
  enum class Mark { Neither, Found, Blocked };

  /// True if, walking back from \p S along every path that reaches it, a
  /// statement \p Classify marks Found comes before one it marks Blocked or
  /// the function's entry. Paths that come back to \p S around a loop
  /// count as found when \p S itself is.
  bool everyPathBackFinds(const Stmt *S,
                          llvm::function_ref<Mark(const Stmt &)> Classify);

private:
  struct BodyOrder;
  /// The CFG facts of the body holding \p S, or null.
  BodyOrder *orderOf(const Stmt *S);

  ASTContext &Ctx;
  llvm::DenseMap<const Stmt *, std::unique_ptr<BodyOrder>> Bodies;
};

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_ANALYSIS_EXECUTIONORDER_H
