//===--- CopyInLoopCheck.h - xfer-copy-in-loop ----------------------------===//

#ifndef XFER_TIDY_CHECKS_COPYINLOOPCHECK_H
#define XFER_TIDY_CHECKS_COPYINLOOPCHECK_H

#include "LoopHazardCheck.h"

namespace clang::tidy::xfer {

/// Finds device-to-host copies (cpu(), to(kCPU), copy_ into a host tensor,
/// cudaMemcpy with cudaMemcpyDeviceToHost) evaluated on most iterations of
/// a loop, and host-to-device copies whose source does not change inside
/// the loop, so the copy could be hoisted out of it.
///
/// For the user-facing documentation see docs/checks/copy-in-loop.md.
class CopyInLoopCheck : public LoopHazardCheck {
public:
  using LoopHazardCheck::LoopHazardCheck;

protected:
  bool handles(const Hazard &H) const override {
    return H.Kind == HazardKind::DeviceToHostCopy ||
           H.Kind == HazardKind::HostToDeviceCopy;
  }
  bool shouldReport(const CallExpr *Call, const Hazard &H,
                    const ExecutionFrequency &Frequency,
                    ASTContext &Ctx) override;
  DiagnosticBuilder warn(const CallExpr *Call, const Hazard &H,
                         llvm::StringRef FrequencyPhrase,
                         ASTContext &Ctx) override;

private:
  /// A host buffer uploaded back to the device buffer it was copied from.
  struct ReturnedReadBack {
    const CallExpr *ReadBack;
    /// The branch that changes the host buffer in between, if one does.
    const IfStmt *ChangedIn;
  };
  /// The copy-back whose bytes \p Upload, a blocking cudaMemcpy in \p Loop,
  /// sends straight back (`cudaMemcpy(h, d_h, ...D2H)`, the host writes
  /// the frame out, `cudaMemcpy(d_h, h, ...H2D)`): no kernel or copy
  /// touches the device buffer in between, and the host changes the
  /// buffer at most in one branch.
  std::optional<ReturnedReadBack> returnedReadBack(const CallExpr *Upload,
                                                   const VarDecl *Host,
                                                   const Stmt *Loop,
                                                   ASTContext &Ctx);
  llvm::DenseMap<const CallExpr *, ReturnedReadBack> ReturnedReadBacks;
  /// Uploads of a value the host sets to a constant just before them in
  /// the iteration (`*done = true;`), with that assignment.
  llvm::DenseMap<const CallExpr *, const Stmt *> ConstantResets;
};

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_COPYINLOOPCHECK_H
