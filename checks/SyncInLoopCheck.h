//===--- SyncInLoopCheck.h - xfer-sync-in-loop ----------------------------===//

#ifndef XFER_TIDY_CHECKS_SYNCINLOOPCHECK_H
#define XFER_TIDY_CHECKS_SYNCINLOOPCHECK_H

#include "LoopHazardCheck.h"

namespace clang::tidy::xfer {

/// Finds operations that make the host wait for the GPU (item(), printing a
/// tensor, nonzero(), cudaDeviceSynchronize, cudaFree, ...) evaluated on
/// most iterations of a loop.
///
/// For the user-facing documentation see docs/checks/sync-in-loop.md.
class SyncInLoopCheck : public LoopHazardCheck {
public:
  using LoopHazardCheck::LoopHazardCheck;

protected:
  bool handles(const Hazard &H) const override {
    return H.Kind == HazardKind::HostSync;
  }
  DiagnosticBuilder warn(const CallExpr *Call, const Hazard &H,
                         llvm::StringRef FrequencyPhrase,
                         ASTContext &Ctx) override;
};

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_SYNCINLOOPCHECK_H
