//===--- CudaEvidence.h - does a translation unit use a CUDA device? ------===//
//
// LibTorch readbacks only cost a synchronization when the tensor lives on a
// GPU. A program that never mentions CUDA runs LibTorch on the CPU, where
// item() is a plain load, so its LibTorch calls are not reported.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_CHECKS_ANALYSIS_CUDAEVIDENCE_H
#define XFER_TIDY_CHECKS_ANALYSIS_CUDAEVIDENCE_H

#include "clang/AST/ASTContext.h"
#include <string>

namespace clang::tidy::xfer {

struct CudaEvidence {
  bool Found = false;
  SourceLocation Where;
  /// What was found: "includes cuda_runtime.h", "uses torch::kCUDA", ...
  std::string What;
};

/// Looks for signs of CUDA use in the user code of the translation unit
/// (system headers, LibTorch's own included, do not count): compiling as
/// CUDA, including a CUDA runtime header, naming kCUDA / DeviceType::CUDA,
/// calling Tensor::cuda() or a torch::cuda:: function, or constructing a
/// torch::Device from a "cuda..." string.
CudaEvidence findCudaEvidence(ASTContext &Ctx);

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_ANALYSIS_CUDAEVIDENCE_H
