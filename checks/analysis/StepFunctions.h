//===--- StepFunctions.h - functions that run on every step ---------------===//
//
// A hazard is paid per step not only inside a visible loop: a module's
// forward(), a loss function or a box encoder called from the training loop
// in another file runs on every iteration of that loop. This owns the
// question "does this function's body run on every step, and why", from
// the calls in this translation unit and from the project index.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_CHECKS_ANALYSIS_STEPFUNCTIONS_H
#define XFER_TIDY_CHECKS_ANALYSIS_STEPFUNCTIONS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include <optional>
#include <string>

namespace clang::tidy::xfer {

class DeviceInference;
class ProjectFacts;

/// The function a call runs: its direct callee, or, for `model(x)` on a
/// LibTorch module holder, the `forward()` of the module it holds.
const FunctionDecl *stepCallee(const CallExpr *Call);

/// True for `forward()` of a class derived from a LibTorch module.
bool isModuleForward(const FunctionDecl *Function);

/// True if a call in this translation unit inside a loop reaches
/// \p Function (directly or through up to three callers defined here): the
/// loop checks then report at that call. \p OnEveryIteration: only calls
/// that run on every iteration count (not `if (step % 100 == 0) save()`).
bool isCalledInLoopHere(const FunctionDecl *Function, DeviceInference &Devices,
                        ASTContext &Ctx, bool OnEveryIteration = false);

/// Why the body of \p Function runs on every step although no loop
/// encloses it here, as a phrase for diagnostics ("on every call of
/// 'encode()', which runs on every iteration of the loop at trainer.cpp:87",
/// "on every call of 'Net::forward()', once per step of the model"), from
/// the project index and module semantics; none if it is not known to.
std::optional<std::string> stepPhrase(const FunctionDecl *Function,
                                      const ProjectFacts *Facts);

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_ANALYSIS_STEPFUNCTIONS_H
