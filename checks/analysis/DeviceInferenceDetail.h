//===--- DeviceInferenceDetail.h - shared by the solver and transfers -----===//
//
// What DeviceInference.cpp (the solver) and PlacementTransfer.cpp (the
// transfer functions) both use; not for the checks.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_CHECKS_ANALYSIS_DEVICEINFERENCEDETAIL_H
#define XFER_TIDY_CHECKS_ANALYSIS_DEVICEINFERENCEDETAIL_H

#include "analysis/DeviceInference.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ExprCXX.h"
#include <string>

namespace clang::tidy::xfer {

PlacementFact makeFact(Placement Where, const Stmt *Origin, std::string Reason);

/// torch::nn::Module or a class derived from it.
bool isModuleClass(const CXXRecordDecl *RD);

/// The reference to the variable a module expression names: `m`, `*m`,
/// `m->` (the object of a member call through ModuleHolder or shared_ptr).
const DeclRefExpr *moduleReference(const Expr *E);

/// `module->to(device)`: Module::to with a device, which moves in place.
const CXXMemberCallExpr *asModuleMove(const Expr *E);

/// The variable whose member \p Member names (`net` in `net.gen`), if the
/// object is a variable.
const VarDecl *objectVariable(const MemberExpr *Member);

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_ANALYSIS_DEVICEINFERENCEDETAIL_H
