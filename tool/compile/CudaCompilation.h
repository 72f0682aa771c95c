//===- CudaCompilation.h - Analysing CUDA sources as host code --*- C++ -*-===//
//
// CUDA translation units are analysed by clang 19 as host code. This file
// provides the pieces that make that work for real compilation databases:
//
//  * recognising nvcc commands and CUDA sources;
//  * translating nvcc command lines (as written by CMake's CUDA language
//    support or by hand-written Makefiles) into clang++ driver arguments;
//  * the extra driver flags a CUDA source needs so that clang 19 parses it
//    against a CUDA toolkit newer than it knows (CUDA 13), including stand-in
//    headers for the ones CUDA 13 removed but clang's CUDA wrapper includes;
//  * an ArgumentsAdjuster combining all of the above.
//
// See docs/cuda.md.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TOOL_CUDACOMPILATION_H
#define XFER_TOOL_CUDACOMPILATION_H

#include "clang/Tooling/ArgumentsAdjusters.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/IntrusiveRefCntPtr.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/VirtualFileSystem.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace xfer {

/// Appends \p Extra to the compile command \p Args: before the "--" that
/// ends the options when there is one (LLVM's interpolated commands, for a
/// file missing from the compilation database, end in "-- <file>"), so that
/// the arguments are not taken for input files.
void appendCompilerArguments(std::vector<std::string> &Args,
                             llvm::ArrayRef<std::string> Extra);

/// True if \p Args (a full command line, argv[0] first) invokes nvcc: argv[0]
/// is `nvcc`, `nvcc.exe` or a wrapper whose name ends in `nvcc`, possibly
/// behind a `ccache`/`sccache` launcher.
bool isNvccCommand(llvm::ArrayRef<std::string> Args);

/// True if \p File is compiled as CUDA: it ends in `.cu`/`.cuh`, or \p Args
/// select the language with `-x cuda`/`-x cu` (also `-xcuda`, `--x=cu`) before
/// the file.
bool isCudaSource(llvm::StringRef File, llvm::ArrayRef<std::string> Args);

/// True if clang's driver accepts \p Arch (such as `sm_90a`) as an NVIDIA GPU
/// architecture for `--cuda-gpu-arch`.
bool isClangKnownCudaArch(llvm::StringRef Arch);

/// Translates an nvcc command line into clang++ driver arguments suitable for
/// a host-side syntax analysis. argv[0] (and any compiler launcher before it)
/// becomes `clang++`; defines, include paths, the language standard and
/// host-compiler flags are kept; nvcc-only options are dropped together with
/// their values. Relative `--options-file` paths are resolved against
/// \p WorkingDir and read through \p FS. Fails only when an options file
/// cannot be read or options files nest too deeply; the error names the file.
llvm::Expected<std::vector<std::string>>
translateNvccArguments(llvm::ArrayRef<std::string> Args,
                       llvm::vfs::FileSystem &FS, llvm::StringRef WorkingDir);

/// Where the CUDA toolkit used for analysis lives.
struct CudaAnalysisSetup {
  /// Toolkit root (the directory containing include/cuda_runtime.h). Empty
  /// lets clang search for an installation itself.
  std::string CudaPath;
};

/// Directory under which addCudaCompatHeaders() places the stand-in headers.
/// It exists only in the tool's overlay file system, never on disk.
inline constexpr llvm::StringLiteral CudaCompatHeaderDir =
    "/xfer-tidy-cuda-compat";

/// Directory of stand-ins for headers that some library packages lack
/// because their build generates them (LibTorch's
/// c10/cuda/impl/cuda_cmake_macros.h, missing from CPU-only packages). Like
/// CudaCompatHeaderDir it exists only in the overlay file system.
inline constexpr llvm::StringLiteral LibraryCompatHeaderDir =
    "/xfer-tidy-library-compat";

/// `-idirafter LibraryCompatHeaderDir`, added to every command (C++ and
/// CUDA): searched after every real include directory, so a real header
/// always wins.
std::vector<std::string> libraryCompatFlags();

/// Headers that clang's __clang_cuda_runtime_wrapper.h includes
/// unconditionally but that a CUDA toolkit may lack (CUDA 13 removed
/// texture_fetch_functions.h). An empty stand-in is provided for each.
llvm::ArrayRef<llvm::StringLiteral> cudaCompatHeaderNames();

/// The headers of cudaCompatHeaderNames() missing from the toolkit at
/// \p CudaPath (looked up in <CudaPath>/include on the real file system).
std::vector<std::string> missingCudaWrapperHeaders(llvm::StringRef CudaPath);

/// The flags to append to a CUDA source's command line so that clang 19
/// parses it as host code against \p Setup's toolkit: `--cuda-host-only`,
/// `--cuda-path=`, `-nocudalib`, `-Wno-unknown-cuda-version`,
/// `-isystem <cuda>/include/cccl` when the toolkit keeps libcu++ there, and
/// `-idirafter CudaCompatHeaderDir` and `-include` of the legacy header in it
/// when a wrapper header is missing (or the toolkit is unknown). The compat
/// directory is searched after every real include directory, so a real
/// header always wins.
std::vector<std::string> cudaHostAnalysisFlags(const CudaAnalysisSetup &Setup);

/// The header of declarations of CUDA runtime APIs removed by newer toolkits
/// (cudaThreadSynchronize and the other cudaThread* functions, texture
/// references), force-included into CUDA translation units from
/// CudaCompatHeaderDir. Its declarations guard themselves by CUDART_VERSION.
inline constexpr llvm::StringLiteral CudaLegacyHeaderName =
    "xfer_tidy_cuda_legacy.h";

/// The contents of that header (tool/cuda-compat/xfer_tidy_cuda_legacy.h).
llvm::StringRef cudaLegacyHeaderContents();

/// \p Text (a toolkit's driver_types.h) with the `int` fields of
/// cudaDeviceProp that CUDA 13 removed (clockRate, deviceOverlap,
/// memoryClockRate, kernelExecTimeoutEnabled, computeMode,
/// maxTexture1DLinear, ...) appended to the struct, each only if the struct
/// lacks it; nullopt when none is missing or the struct is not found.
std::optional<std::string> patchDriverTypesHeader(llvm::StringRef Text);

/// \p Text (a toolkit's cuda_runtime_api.h) with declarations of the
/// cudaThread* functions CUDA 13 removed added inside its include guard, so
/// that host C++ files including the runtime header (not only CUDA sources,
/// which get the legacy header) can call them; nullopt when the header
/// declares them or has no include guard.
std::optional<std::string> patchRuntimeApiHeader(llvm::StringRef Text);

/// The files of the compatibility layer as (path, contents): the empty
/// stand-ins of cudaCompatHeaderNames() and the legacy header under
/// \p VirtualDir, the library stand-ins under LibraryCompatHeaderDir, and,
/// when \p CudaPath's driver_types.h lacks removed cudaDeviceProp fields or
/// its cuda_runtime_api.h the removed cudaThread* functions,
/// patchDriverTypesHeader() and patchRuntimeApiHeader() of them at the
/// paths of the real files (--cuda-path spelling and resolved paths), to be
/// overlaid on the real file system.
std::vector<std::pair<std::string, std::string>>
cudaCompatFiles(llvm::StringRef CudaPath,
                llvm::StringRef VirtualDir = CudaCompatHeaderDir);

/// Adds cudaCompatFiles(\p CudaPath, \p VirtualDir) to \p FS. Overlay \p FS
/// on the tool's base file system.
void addCudaCompatHeaders(llvm::vfs::InMemoryFileSystem &FS,
                          llvm::StringRef VirtualDir = CudaCompatHeaderDir,
                          llvm::StringRef CudaPath = "");

/// Picks the toolkit root: \p Explicit if non-empty; else the first of
/// $CUDA_PATH, $CUDA_HOME, \p BuildDefault and /usr/local/cuda that contains
/// include/cuda_runtime.h; else the empty string.
std::string detectCudaPath(llvm::StringRef Explicit,
                           llvm::StringRef BuildDefault);

/// The CUDART_VERSION of the toolkit at \p CudaPath (13000 for CUDA 13.0),
/// read from its include/cuda_runtime_api.h; nullopt when unknown.
std::optional<unsigned> cudaRuntimeVersion(llvm::StringRef CudaPath);

/// If the last `-std=` of \p Args selects a C++ standard older than
/// C++\p Minimum (`-std=c++14`), appends `-std=c++<Minimum>` (gnu++ for a
/// gnu++ standard) and the flags that keep what newer standards removed
/// (`register`, dynamic exception specifications) accepted. Returns whether
/// it did.
bool raiseLanguageStandard(std::vector<std::string> &Args, unsigned Minimum);

/// Adjusts one compile command for analysis: translates it when it is an nvcc
/// command, appends libraryCompatFlags(), then, when \p File is a CUDA source,
/// appends cudaHostAnalysisFlags() (using the command's own `--cuda-path=` if
/// it has one), selects the language for `.cuh` files, and, for a toolkit whose
/// libcu++ needs C++17 (CUDA 13), raises an older `-std=` to C++17. \p
/// WorkingDir is the command's directory; \p FS serves options files.
llvm::Expected<std::vector<std::string>>
adjustCudaCommand(llvm::ArrayRef<std::string> Args, llvm::StringRef File,
                  const CudaAnalysisSetup &Setup, llvm::vfs::FileSystem &FS,
                  llvm::StringRef WorkingDir);

/// Collects the commands an adjuster could not translate. Thread-safe: the
/// adjuster may run for several translation units concurrently.
class CudaCommandErrors {
public:
  void record(llvm::StringRef File, llvm::Error Err);
  /// Each message reads "<source file>: <reason>".
  std::vector<std::string> takeMessages();
  bool empty() const;

private:
  mutable std::mutex Lock;
  std::vector<std::string> Messages;
};

/// An ArgumentsAdjuster running adjustCudaCommand() on each command. Options
/// files are read through \p FS (the real file system if null) relative to
/// its current working directory, which ClangTool sets to the compile
/// command's directory before adjusting. Append it after ClangTool's default
/// adjusters. A command that cannot be translated is passed on unchanged (so
/// it fails visibly in the driver) and the reason is added to \p Errors.
clang::tooling::ArgumentsAdjuster makeCudaArgumentsAdjuster(
    CudaAnalysisSetup Setup,
    llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS = nullptr,
    std::shared_ptr<CudaCommandErrors> Errors = nullptr);

} // namespace xfer

#endif // XFER_TOOL_CUDACOMPILATION_H
