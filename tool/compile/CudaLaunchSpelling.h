//===- CudaLaunchSpelling.h - nvcc's spaced launch brackets ----*- C++ -*-===//
//
// nvcc accepts a kernel launch written with spaces inside its brackets,
// `kernel << < grid, block >> > (args)`, which some editors' formatters
// produce; clang lexes `<<<` and `>>>` as single tokens only and rejects it.
// This file system shows clang the same text with the brackets joined, keeping
// every byte offset, line and column.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_TOOL_COMPILE_CUDALAUNCHSPELLING_H
#define XFER_TIDY_TOOL_COMPILE_CUDALAUNCHSPELLING_H

#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <optional>
#include <string>

namespace xfer {

/// \returns the text with every spaced launch bracket pair joined
/// (`<< <` becomes `<<< `, the matching `>> >` becomes `>>> `), or nothing when
/// the text has none. `operator<< <T>` (explicit template arguments of a
/// shift operator) is left alone.
std::optional<std::string> joinSpacedLaunchBrackets(llvm::StringRef Text);

/// A file system that serves every file of \p Base through
/// joinSpacedLaunchBrackets. Sizes are unchanged, so status() is Base's.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> createLaunchSpellingFileSystem(
    llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> Base);

} // namespace xfer

#endif // XFER_TIDY_TOOL_COMPILE_CUDALAUNCHSPELLING_H
