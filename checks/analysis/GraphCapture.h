//===--- GraphCapture.h - one loop iteration as a CUDA graph sees it ------===//
//
// A loop whose iterations issue many small launches and nothing else that
// involves the host is bound by launch overhead: capturing one iteration
// into a CUDA graph and replaying it replaces every launch by one. This
// analysis describes one iteration as a capture would see it:
//
// - the launches it issues on every iteration: kernel launches (<<<...>>>,
//   cudaLaunchKernel) and LibTorch operations on tensors inferred to be on a
//   GPU, directly and through calls to functions defined in the translation
//   unit, with inner loops of constant trip count unrolled;
// - the first operation that stops stream capture: a host synchronization,
//   a host<->device copy, an allocation, or a branch on a device result read
//   back to the host (work under a counter guard such as
//   `if (i % 100 == 0)` runs outside the graph and stops nothing);
// - whether the shapes are fixed: launch configurations, tensor sizes and
//   the branches around launches may not depend on device results or change
//   between iterations;
// - whether kernel arguments change between iterations (a graph can still
//   be replayed after cudaGraphExecUpdate).
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_CHECKS_ANALYSIS_GRAPHCAPTURE_H
#define XFER_TIDY_CHECKS_ANALYSIS_GRAPHCAPTURE_H

#include "analysis/CallSummaries.h"
#include "analysis/DeviceInference.h"
#include "analysis/LoopContext.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace clang::tidy::xfer {

/// A statement of the iteration that contributes launches.
struct LaunchSite {
  enum SiteKind {
    Kernel,        // kernel<<<...>>>(...)
    LaunchKernel,  // cudaLaunchKernel(...)
    TorchOp,       // a LibTorch operation on a GPU tensor
    TorchCompound, // a LibTorch call that issues several operations:
                   // backward(), an optimizer's per-parameter step
    Call,          // a call to a function defined here that issues launches
  };
  SiteKind Kind;
  const Expr *Where;
  /// Kernel name, operation spelling ("matmul()") or callee name.
  std::string Name;
  /// Kernel launches and LibTorch operations per execution of Where.
  unsigned Kernels = 0;
  unsigned TorchOps = 0;
  /// Executions of Where per iteration (inner loops of constant trip count).
  uint64_t Repeats = 1;
  /// Of TorchOps: forward operations a backward() differentiates and the
  /// backward operations it runs for them; the backward() calls.
  unsigned AutogradOps = 0;
  unsigned BackwardCalls = 0;
  /// Of TorchOps: forward operations no backward() has claimed yet; a
  /// backward() later in the iteration differentiates them.
  unsigned Recordable = 0;
  /// TorchCompound sites: why the call issues several operations.
  std::string Detail;
};

/// An operation that stops stream capture.
struct CaptureBlocker {
  enum BlockerKind {
    Sync,          // the host waits for the GPU
    Copy,          // host<->device copy
    Allocation,    // cudaMalloc, cudaMallocHost, cudaFree, ...
    DeviceBranch,  // host control flow on a device result
    HostValue,     // a LibTorch operation's scalar argument that changes
                   // between iterations: a replay reuses the captured one
    HostOptimizer, // a torch::optim step that keeps its state (step
                   // count, bias correction, learning rate) on the host
  };
  BlockerKind Kind;
  /// The operation as written in diagnostics ("cudaDeviceSynchronize",
  /// "item<float>()"), the changing value ("Lr"); empty for a branch.
  std::string Operation;
  /// From the statement of the iteration down to the operation (or the
  /// branch's condition): Steps.front() is in the iteration itself.
  llvm::SmallVector<const Stmt *, 4> Steps;
};

/// One iteration of a loop, or one call of a function.
struct IterationWork {
  llvm::SmallVector<LaunchSite, 8> Launches;
  /// Kernel launches and LibTorch operations per iteration, Repeats
  /// included.
  uint64_t Kernels = 0;
  uint64_t TorchOps = 0;
  /// Of TorchOps: the operations of autograd (forward operations a
  /// backward() differentiates, and its backward operations), the
  /// backward() calls, and the forward operations no backward() claimed.
  uint64_t AutogradOps = 0;
  uint64_t BackwardCalls = 0;
  uint64_t RecordableOps = 0;
  std::optional<CaptureBlocker> Blocker;
  /// Some launches sit in an inner loop whose trip count is not a constant
  /// (or a lambda passed to an algorithm): the launches per iteration are
  /// not known.
  bool UncountedLaunches = false;
  /// Calls the CUDA graph APIs already (stream capture, cudaGraphLaunch,
  /// at::cuda::CUDAGraph).
  bool UsesGraphs = false;
  /// A launch configuration, tensor size or branch around a launch depends
  /// on a device result or changes between iterations.
  bool DynamicShapes = false;
  /// A kernel argument changes between iterations.
  bool KernelArgumentsChange = false;
  /// Inner loops whose launches are counted (unrolled) in this iteration.
  llvm::SmallVector<const Stmt *, 2> CountedInnerLoops;

  uint64_t launches() const { return Kernels + TorchOps; }
};

class GraphCaptureAnalysis {
public:
  /// \p Summaries finds the synchronizations and device-to-host copies of
  /// called functions.
  GraphCaptureAnalysis(DeviceInference &Devices, CallSummaries &Summaries)
      : Devices(Devices), Summaries(Summaries) {}

  /// One iteration of \p Loop (for, range-for, while or do).
  IterationWork analyzeIteration(const Stmt *Loop);

  /// The executions and guards of \p S, computed once.
  ExecutionFrequency frequency(const Stmt *S);

  /// The expressions that initialize or assign each variable and field of
  /// the translation unit (where an optimizer is constructed), collected on
  /// first use.
  using InitializerMap =
      llvm::DenseMap<const ValueDecl *, llvm::SmallVector<const Expr *, 2>>;
  const InitializerMap &initializers();

private:
  /// What a value depends on: a device result read back to the host, a
  /// value that changes between iterations of the analysed loop, or the
  /// parameters of the summarised function (bit ParamBase + index).
  using Taint = uint32_t;
  static constexpr Taint DeviceValue = 1, Varying = 2;
  static constexpr unsigned ParamBase = 2, MaxParams = 30;

  /// What the structure of the captured work, the kernel arguments and
  /// the scalar arguments of LibTorch operations depend on.
  struct Dependences {
    Taint Shapes = 0;
    Taint Arguments = 0;
    Taint Scalars = 0;
  };
  /// A called function's launches, and where its launch configurations,
  /// tensor sizes, kernel arguments and LibTorch scalars come from, by
  /// parameter.
  struct FunctionWork {
    IterationWork Work;
    Dependences Params;
  };
  /// A write of a variable: its declaration, an assignment, an increment,
  /// an out-parameter or a device-to-host copy into it.
  struct Definition {
    const VarDecl *Var;
    const Stmt *At;
    /// The value written, or null for a device read-back (DeviceValue).
    const Expr *Value;
  };
  using TaintMap = llvm::DenseMap<const VarDecl *, Taint>;
  class DefinitionCollector;
  /// True if \p Write stores into a tensor a resized version of itself.
  bool resizesCarriedTensor(const Definition &Write);

  const FunctionWork &summarize(const FunctionDecl *Function);
  /// The variables of \p Function holding device results or parameters.
  const TaintMap &functionTaint(const FunctionDecl *Function);
  const std::vector<Definition> &definitionsIn(const FunctionDecl *Function);
  Taint taintOf(const Expr *E, const TaintMap &Env);
  /// True if \p Call returns data read back from the GPU (item(), cpu(),
  /// equal(), ...).
  bool readsDeviceValue(const CallExpr *Call);
  /// Walks \p Root (a loop or a function body) and fills \p Out.
  void collect(const Stmt *Root, const Stmt *Loop, const TaintMap &Env,
               IterationWork &Out, Dependences &Depends);

  DeviceInference &Devices;
  CallSummaries &Summaries;
  llvm::DenseMap<const Stmt *, ExecutionFrequency> Frequencies;
  llvm::DenseMap<const FunctionDecl *, FunctionWork> Functions;
  llvm::DenseSet<const FunctionDecl *> InProgress;
  llvm::DenseMap<const FunctionDecl *, TaintMap> FunctionTaints;
  llvm::DenseMap<const FunctionDecl *, std::vector<Definition>> Definitions;
  llvm::DenseMap<const CallExpr *, bool> DeviceReads;
  std::optional<InitializerMap> Initializers;
};

/// True for calls that set up or replay CUDA graphs (cudaStreamBeginCapture,
/// cudaGraphLaunch, at::cuda::CUDAGraph::replay, ...).
bool isGraphApiCall(const CallExpr *Call);

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_ANALYSIS_GRAPHCAPTURE_H
