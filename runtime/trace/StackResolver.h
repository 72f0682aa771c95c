//===- StackResolver.h - Return addresses to user call sites ----*- C++ -*-===//
//
// Part of xfer-tidy. Host-only.
//
//===----------------------------------------------------------------------===//
//
// Turns the stacks the collector captured into the first frame in the
// user's code, file:line from debug info (addr2line, batched per object
// at exit), and the library function that user frame called.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TRACE_STACKRESOLVER_H
#define XFER_TRACE_STACKRESOLVER_H

#include "trace/TraceModel.h"

#include <string>
#include <vector>

namespace xfertrace {

struct ResolverOptions {
  /// Extra substrings of source paths that are library code, not the
  /// user's (besides CUDA, LibTorch and the C++ runtime).
  std::vector<std::string> LibraryPathParts;
};

/// Whether \p ObjectPath (a shared object or executable) is CUDA, CUPTI,
/// LibTorch, the C/C++ runtime or the collector itself.
bool isLibraryObject(const std::string &ObjectPath);

/// Whether a source path belongs to CUDA, LibTorch or the C++ runtime.
bool isLibrarySource(const std::string &SourcePath,
                     const ResolverOptions &Options);

/// "at::Tensor::item<float>" for "at::Tensor::item<float>() const".
std::string withoutParameters(const std::string &Function);

/// Resolves each stack (innermost frame first, return addresses).
std::vector<ResolvedSite>
resolveStacks(const std::vector<std::vector<void *>> &Stacks,
              const ResolverOptions &Options);

} // namespace xfertrace

#endif // XFER_TRACE_STACKRESOLVER_H
