//===--- TransferHazards.h - calls that sync with or copy from the GPU ----===//
//
// Combines the API catalogue with device inference: a call is a hazard only
// when what it reads may live on a GPU. Tensors known to be on the host are
// never reported.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_CHECKS_ANALYSIS_TRANSFERHAZARDS_H
#define XFER_TIDY_CHECKS_ANALYSIS_TRANSFERHAZARDS_H

#include "analysis/DeviceInference.h"
#include "clang/AST/Expr.h"
#include <optional>
#include <string>

namespace clang::tidy::xfer {

enum class HazardKind {
  HostSync,         // the host waits for the device (item(), cudaFree, ...)
  DeviceToHostCopy, // device memory copied to the host
  HostToDeviceCopy, // host memory copied to the device
};

struct Hazard {
  HazardKind Kind;
  /// LibTorch calls are only hazards in programs that use a CUDA device.
  bool IsLibTorch = false;
  /// The operation as written in diagnostics: "item<float>()", "cudaFree".
  std::string Operation;
  /// Cost-model pattern id ("torch.item", "cuda.memcpy_d2h.pageable").
  std::string CostPattern;
  /// The tensor or pointer whose contents move or are read, if any.
  const Expr *Subject = nullptr;
  PlacementFact SubjectPlacement;
  /// Bytes moved, when they are a compile-time constant.
  std::optional<uint64_t> Bytes;
};

/// False when the hazard reads a LibTorch tensor whose placement is not known
/// to include a GPU: unknown placement is no evidence of a device, and a
/// finding a user cannot confirm is not reported by default.
bool hasDevicePlacementEvidence(const Hazard &H);

/// The hazard \p Call is, if it is one.
std::optional<Hazard> classifyHazard(const CallExpr *Call,
                                     DeviceInference &Devices);

/// True if the function \p Call calls may change what its argument \p Index
/// points to: a pointer to non-const that its definition writes through, or
/// any argument of a function defined in no file given.
bool mayWriteThroughArgument(const CallExpr *Call, unsigned Index,
                             ASTContext &Ctx);

/// True for a wait and nothing else: cudaDeviceSynchronize,
/// cudaThreadSynchronize, cudaStreamSynchronize, cudaEventSynchronize,
/// torch::cuda::synchronize().
bool isBareWait(const CallExpr *Call);

/// True for a read-back that blocks the host until it completes: a copy to
/// the host that is not asynchronous, or a LibTorch read of a tensor's value
/// (item(), printing it); not a bare wait.
bool isBlockingReadBack(const CallExpr *Call, DeviceInference &Devices);

/// True if \p Call returns only once its bytes have moved: a blocking
/// read-back, or a blocking upload (`cudaMemcpy` host to device). A bare
/// wait right beside one waits for little more than the copy does.
bool isBlockingTransfer(const CallExpr *Call, DeviceInference &Devices);

/// True for a LibTorch read of a device tensor's value (item(), printing
/// it, nonzero()): a wait whose data is a few values, not a copy. Not a
/// checked solver (linalg::inv), which queues its own kernels first.
bool isValueReadBack(const CallExpr *Call, DeviceInference &Devices);

/// The host variable a copy reads: `Buffer`, or `&Value` for a scalar
/// (through casts).
const VarDecl *copiedVariable(const Expr *Subject);

/// The host buffer \p Subject points into at an offset: `&buf[i * n]` or
/// `buf + i * n`, with `buf` a pointer or array variable.
const VarDecl *slicedBuffer(const Expr *Subject);

/// The tensor variable \p Subject is a view of (`ids.index({Slice(), i})`,
/// `states[idx]`, `x.narrow(0, i, n)`), through one or more indexing and
/// view operations; null when \p Subject is not such a view.
const VarDecl *slicedVariable(const Expr *Subject);

/// slicedVariable, or the structured binding \p Subject is a view of.
const ValueDecl *slicedValue(const Expr *Subject);

/// True if nothing in \p Loop may change what \p Var holds (or, for a
/// pointer, what it points to): no assignment, in-place operation, write
/// through it, or non-const reference or pointer to it handed to a call.
bool isLoopInvariant(const ValueDecl *Var, const Stmt *Loop, ASTContext &Ctx);

/// True if \p Var holds the same values whenever its declaration runs: a
/// constant with a constant initializer (`const float w[3] = {1, 2, 1}`,
/// `static const float kSobel[9] = {...}`), or a local set from a call of a
/// function defined here that is passed only constants, reads no state that
/// may change and is not written afterwards (`const float *g =
/// gaussian(15, 2.0f)`). Uploading it on every iteration or call copies the
/// same bytes each time.
/// The tensor member of `this` that \p Subject reads, whole or through views
/// (`anchors_`, `anchors_.narrow(1, 2, 1).t()`); null otherwise.
const FieldDecl *uploadedMember(const Expr *Subject);

/// True if this translation unit sets the tensor member \p Field only where
/// its object is set up: some function here writes it (assigns it, changes
/// it in place), and each is a constructor, or is not \p Uploader, not
/// reached on every iteration of a loop here and not one \p RunsOnSteps
/// accepts (the program's step functions). Such a member holds the same
/// values on every step.
bool memberSetAtSetUp(
    const FieldDecl *Field, const FunctionDecl *Uploader,
    DeviceInference &Devices,
    llvm::function_ref<bool(const FunctionDecl *)> RunsOnSteps = nullptr);

bool holdsConstantValues(const VarDecl *Var, ASTContext &Ctx);

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_ANALYSIS_TRANSFERHAZARDS_H
