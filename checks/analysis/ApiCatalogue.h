//===--- ApiCatalogue.h - LibTorch and CUDA runtime APIs the checks know --===//
//
// Identifies calls to the LibTorch and CUDA runtime functions that move data
// between host and device or make the host wait for the device. Everything
// here is name-level identification; whether a call is a hazard also depends
// on where its operands live (DeviceInference) and how often it runs
// (LoopContext).
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_CHECKS_ANALYSIS_APICATALOGUE_H
#define XFER_TIDY_CHECKS_ANALYSIS_APICATALOGUE_H

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/StringRef.h"
#include <optional>

namespace clang::tidy::xfer {

/// LibTorch operations the analysis distinguishes.
enum class TorchOp {
  // Reads a device value back to the host: the host waits for the device.
  Item,            // t.item(), t.item<T>(), torch::nn::utils::clip_grad_norm_
  Equal,           // t.equal(u), at::equal
  AllClose,        // t.allclose(u), at::allclose
  IsNonzero,       // t.is_nonzero()
  Nonzero,         // t.nonzero(): the output size is read back
  MaskedSelect,    // t.masked_select(m): likewise
  Unique,          // unique_consecutive, _unique, unique_dim
  CheckedLinalg,   // torch::linalg::inv, inverse, cholesky, solve, eigh,
                   // svd, ...: on a GPU they read their error flag (or the
                   // result's size) back to the host before returning
  IndexWithTensor, // t[u] with a tensor index calls item() on it
  MaskIndex,       // t.index({mask}), t.index_put_({mask}, u): the number
                   // of selected elements is read back
  Print,           // std::ostream << t copies the tensor to the host
  CudaSynchronize, // torch::cuda::synchronize()
  // Placement changes.
  Cpu,       // t.cpu()
  Cuda,      // t.cuda()
  To,        // t.to(...)
  Copy,      // dst.copy_(src)
  PinMemory, // t.pin_memory()
  // Tensor creation.
  Factory,  // torch::randn/zeros/ones/empty/rand/... and the at:: spellings
  FromBlob, // torch::from_blob wraps existing host memory
};

/// CUDA runtime API functions the analysis distinguishes
/// (include/xfer/CudaApis.def).
enum class CudaApi {
#define XFER_CUDA_API(Enumerator, Name) Enumerator,
#include "xfer/CudaApis.def"
};

/// A call identified as a LibTorch operation.
struct TorchCall {
  TorchOp Op;
  /// The tensor the operation reads: the object of a method call, the first
  /// argument of a free function, the streamed tensor for operator<<.
  const Expr *Subject = nullptr;
  /// The name as written in diagnostics, e.g. "item<float>()" or "cpu()".
  std::string Spelling;
};

/// True for an expression known to produce a 0-dim tensor (a full
/// reduction, torch::tensor(2.0), scalar_tensor, arithmetic of them), which
/// LibTorch lets a CPU tensor mix with CUDA tensors: it is read as a scalar.
bool isZeroDimTensor(const Expr *E, unsigned Depth = 0);

/// thrust::device_vector (in whatever inline namespace the toolkit's Thrust
/// puts it): constructed with a size or contents it allocates device memory,
/// destroyed it frees it.
bool isThrustDeviceVector(const CXXRecordDecl *Class);

/// True if \p Call runs a Thrust algorithm on the device: with
/// `thrust::device` (or another CUDA policy) or over device iterators
/// (`device_ptr`, `device_vector`).
bool runsThrustOnDevice(const CallExpr *Call);

/// For host code that reads or writes one element of a
/// thrust::device_vector through the `device_reference` its operator[]
/// returns: true for a read (`float v = d[i];`, a blocking copy to the
/// host), false for a write (`d[i] = v;`, a blocking copy to the device).
/// None for any other call.
std::optional<bool> readsThrustElement(const CallExpr *Call);

/// The stream that the execution policy of the Thrust algorithm \p Call
/// names (`thrust::cuda::par.on(stream)`), or null when it names none.
const Expr *thrustPolicyStream(const CallExpr *Call);

/// The name of the Thrust algorithm \p Call runs on the device (with
/// `thrust::device` or device iterators: `device_ptr`, `device_vector`)
/// that blocks the host: one whose result comes back as a value
/// (`thrust::reduce`, `count_if`, `transform_reduce`, `inner_product`,
/// `all_of`, `max_element`, ...), or one that needs temporary storage or
/// reads back how many elements it kept (`inclusive_scan`, `sort`,
/// `sort_by_key`, `copy_if`, `unique`, `reduce_by_key`, ...), which under
/// the default execution policy is allocated and freed with cudaMalloc and
/// cudaFree. Empty otherwise.
llvm::StringRef thrustBlockingAlgorithmName(const CallExpr *Call);

/// Returns the LibTorch operation \p Call performs, if it is one.
std::optional<TorchCall> identifyTorchCall(const CallExpr *Call);

/// Returns the CUDA runtime function \p Call calls, if it is one.
std::optional<CudaApi> identifyCudaCall(const CallExpr *Call);

/// The CUDA runtime function's name, e.g. "cudaMemcpy".
llvm::StringRef cudaApiName(CudaApi Api);

/// Index of the cudaMemcpyKind argument of a copy function, if it has one.
std::optional<unsigned> memcpyKindArgIndex(CudaApi Api);

/// Where a cudaMemcpy* call's source pointer or array is among its
/// arguments (cudaMemcpyToArray(dst, wOffset, hOffset, src, count, kind));
/// none where the source is a symbol or a cudaMemcpy3DParms.
std::optional<unsigned> memcpySourceArgIndex(CudaApi Api);

/// True for the asynchronous copy functions (cudaMemcpy*Async).
bool isAsyncCopy(CudaApi Api);

/// True for every copy function: cudaMemcpy*, blocking or not, to and from
/// symbols and peers.
bool isCopy(CudaApi Api);

/// True for the functions that allocate or release memory or a library
/// handle (cudaMalloc*, cudaHostAlloc, cudaFree*, cublasCreate, cufftPlan*,
/// ...): they wait for the device but bring no value back from it.
bool acquiresOrReleases(CudaApi Api);

/// True for the cuBLAS routines that return one scalar through their last
/// argument (cublasSasum, cublasSdot, cublasSnrm2, cublasIsamax, ...).
bool returnsCublasScalar(CudaApi Api);

/// cudaMemset and its stream and pitched forms: the first argument is the
/// device memory to set.
bool isCudaMemset(const FunctionDecl *FD);

/// The value of a cudaMemcpyKind argument when it is a constant.
enum class MemcpyDirection {
#define XFER_CUDA_MEMCPY_KIND(Enumerator, Name) Enumerator,
#include "xfer/CudaApis.def"
};
std::optional<MemcpyDirection> evaluateMemcpyKind(const Expr *KindArg,
                                                  const ASTContext &Ctx);

/// The cudaMemcpyKind value's name, e.g. "cudaMemcpyDeviceToHost".
llvm::StringRef memcpyKindName(MemcpyDirection Direction);

/// The outermost named namespace enclosing \p D ("at", "torch", "c10",
/// "std", ...), looking through inline namespaces.
llvm::StringRef outermostNamespace(const Decl *D);

/// True if \p D is declared in LibTorch's tensor API: namespaces at or
/// torch (torch::nn::functional too).
bool isInTorchNamespace(const Decl *D);

/// True for LibTorch modules without parameters or buffers (losses,
/// activations, dropout, pooling, reshaping): they run on whatever device
/// their inputs are on, so where they were built says nothing.
bool isParameterFreeModuleType(QualType T);

/// The module class a module type holds: the `Impl` of a ModuleHolder (or
/// of a TORCH_MODULE class deriving from one), else the class itself.
const CXXRecordDecl *moduleImplClass(QualType T);

/// True if \p D is declared anywhere in LibTorch: at, torch or c10 (its core
/// types: Device, Scalar, IValue, ArrayRef, ...).
bool isInLibTorch(const Decl *D);

/// True for LibTorch methods that launch no kernel of their own: views and
/// indexing, metadata, placement changes (a copy is judged as a copy) and
/// allocation only.
bool launchesNoKernel(llvm::StringRef MethodName);

/// True for LibTorch operations whose result has other sizes than their
/// input (resampling, pooling, padding, concatenation, repetition): applied
/// again to their own result, the sizes change every time.
bool resizesTensor(llvm::StringRef Name);

/// True if \p T is at::Tensor or at::TensorBase (through typedefs, references
/// and cv-qualifiers).
bool isTensorType(QualType T);

/// True for tensors and for the std::tuple, std::pair and std::vector of
/// tensors that LibTorch operations return (max(), sort(), split(), ...):
/// values whose placement is their tensors'.
bool isTensorLikeType(QualType T);

/// True for torch::data::Example, the batch type of LibTorch's data loaders.
bool isDataLoaderExample(QualType T);

/// True for OpenCV's cv::Mat (through references and pointers), whose
/// pixels are ordinary (pageable) host memory.
bool isOpenCvMat(QualType T);

/// True if \p D is a LibTorch tensor factory (randn, zeros, ...) in namespace
/// at or torch.
bool isTensorFactory(const FunctionDecl *D);

/// True if \p Call is std::ostream << tensor.
bool isTensorPrint(const CallExpr *Call);

/// The tensors a module holds as parameters, for the LibTorch calls that
/// issue one GPU operation per parameter (an SGD step, zero_grad(false)):
/// a torch::nn layer by the catalogue (Linear: weight and bias), a module
/// defined in the program by the layers it holds as fields, through
/// ModuleHolder (`torch::nn::Linear`), std::shared_ptr and pointers.
/// nullopt when \p Module is not a module or holds no known layer.
std::optional<unsigned> torchModuleParameterCount(QualType Module);

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_ANALYSIS_APICATALOGUE_H
