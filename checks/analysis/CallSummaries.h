//===--- CallSummaries.h - functions that synchronize or copy inside ------===//
//
// A call inside a loop to a function (or lambda, or method) defined in the
// same translation unit is as costly as the hazards its body performs on
// every call. Each function is summarised once: the host syncs, the
// device-to-host copies and the uploads of constant data (the same bytes on
// every call) its body performs unconditionally (not under a
// counter guard such as `if (step % 100 == 0)`), directly or through further
// calls, in the order of its body, each with the chain of calls that leads
// there. Recursion is cut at the
// cycle. A virtual call runs the overriders this translation unit defines.
// Functions defined elsewhere are not guessed at.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_CHECKS_ANALYSIS_CALLSUMMARIES_H
#define XFER_TIDY_CHECKS_ANALYSIS_CALLSUMMARIES_H

#include "analysis/AstUtils.h"
#include "analysis/DeviceInference.h"
#include "analysis/TransferHazards.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include <array>
#include <optional>

namespace clang::tidy::xfer {

/// A hazard reached by calling a function.
struct HazardPath {
  Hazard Operation;
  /// The calls from the summarised function's body down to the operation:
  /// Steps.front() is in the summarised function, Steps.back() is the
  /// operation itself.
  llvm::SmallVector<const CallExpr *, 4> Steps;
};

class CallSummaries {
public:
  /// \p ReportUnknownPlacement: count LibTorch hazards on tensors of unknown
  /// placement (see hasDevicePlacementEvidence).
  CallSummaries(DeviceInference &Devices, bool ReportUnknownPlacement)
      : Devices(Devices), ReportUnknownPlacement(ReportUnknownPlacement) {}

  /// The first hazard of \p Kind that every call of \p Function performs,
  /// if any. For HostToDeviceCopy, only uploads of data that holds the same
  /// values on every call (holdsConstantValues); uploads of a parameter are
  /// findParameterUpload's.
  const HazardPath *find(const FunctionDecl *Function, HazardKind Kind);

  /// Every hazard of \p Kind that every call of \p Function performs, in
  /// the order of its body, each operation once and at most MaxPathsPerKind
  /// of them: a helper that allocates, copies, waits and frees costs each,
  /// and one that sets up and tears down a frame's two dozen buffers is
  /// shown whole.
  llvm::ArrayRef<HazardPath> findAll(const FunctionDecl *Function,
                                     HazardKind Kind);
  static constexpr unsigned MaxPathsPerKind = 32;

  /// A host-to-device copy whose source is one of \p Function's parameters
  /// (`upload(dst, src, n)` wrapping cudaMemcpy): a cost of the call when a
  /// loop passes the same data each time.
  struct ParameterUpload {
    unsigned Parameter;
    HazardPath Path;
  };
  const ParameterUpload *findParameterUpload(const FunctionDecl *Function);

  /// The functions of this translation unit's own code that \p Call may
  /// run: its callee's definition, and for a virtual call (not qualified
  /// `Base::f()`), the overriders defined here (`layer->forward(x)` on a
  /// pure interface runs Dense::forward or Pool::forward).
  llvm::SmallVector<const FunctionDecl *, 2> targetsOf(const CallExpr *Call);

  /// The first hazard of \p Kind that \p Call performs through one of its
  /// targets.
  const HazardPath *findThroughCall(const CallExpr *Call, HazardKind Kind);

  /// Every hazard of \p Kind that \p Call performs through its targets
  /// (each overrider a virtual call may run), first findThroughCall's, each
  /// operation once and at most MaxPathsPerKind of them.
  llvm::SmallVector<HazardPath, 4> findAllThroughCall(const CallExpr *Call,
                                                      HazardKind Kind);

  /// True if every function \p Call may run only waits: its hazards are
  /// bare waits (an error check that synchronizes), and it neither copies
  /// nor queues device work of its own.
  bool onlyWaits(const CallExpr *Call);

private:
  using Summary = std::array<llvm::SmallVector<HazardPath, 1>, 3>;
  static unsigned slot(HazardKind Kind) {
    switch (Kind) {
    case HazardKind::HostSync:
      return 0;
    case HazardKind::DeviceToHostCopy:
      return 1;
    default:
      return 2;
    }
  }
  const Summary &summarize(const FunctionDecl *Function);

  DeviceInference &Devices;
  const bool ReportUnknownPlacement;
  llvm::DenseMap<const FunctionDecl *, Summary> Summaries;
  llvm::DenseMap<const FunctionDecl *, ParameterUpload> Uploads;
  llvm::DenseSet<const FunctionDecl *> InProgress;
  /// Overriders defined in this translation unit, by the canonical
  /// declaration of each method they override (directly or further up);
  /// filled on first use.
  std::optional<llvm::DenseMap<const CXXMethodDecl *,
                               llvm::SmallVector<const FunctionDecl *, 2>>>
      Overriders;
};

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_ANALYSIS_CALLSUMMARIES_H
