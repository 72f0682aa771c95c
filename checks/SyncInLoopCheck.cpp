//===--- SyncInLoopCheck.cpp - xfer-sync-in-loop --------------------------===//

#include "SyncInLoopCheck.h"

namespace clang::tidy::xfer {

DiagnosticBuilder SyncInLoopCheck::warn(const CallExpr *Call, const Hazard &H,
                                        llvm::StringRef FrequencyPhrase,
                                        ASTContext &) {
  return diag(Call->getExprLoc(),
              "'%0' synchronizes with the GPU %1: the host waits for all "
              "queued device work, so CPU and GPU stop overlapping")
         << H.Operation << FrequencyPhrase;
}

} // namespace clang::tidy::xfer
