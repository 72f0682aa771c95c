//===--- DeviceMismatchWording.h - words the mismatch notes share ---------===//
//
// Shared by the three files of xfer-device-mismatch (DeviceMismatchCheck.cpp,
// DeviceMismatchTorch.cpp, DeviceMismatchCuda.cpp); not used elsewhere.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_CHECKS_DEVICEMISMATCHWORDING_H
#define XFER_TIDY_CHECKS_DEVICEMISMATCHWORDING_H

#include "analysis/DeviceInference.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace clang::tidy::xfer {

inline constexpr llvm::StringLiteral SameDeviceError =
    "LibTorch throws at run time (\"Expected all tensors to be on the same "
    "device\")";

/// "on the cpu", "on cuda", ... for notes about tensors and modules.
std::string tensorPlacementPhrase(Placement P);

/// "host memory", "device memory", ... for raw pointers.
std::string pointerPlacementPhrase(Placement P);

/// The operand as written, or "the operand" when that is long.
std::string operandName(const Expr *E, ASTContext &Ctx);

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_DEVICEMISMATCHWORDING_H
