//===--- LoopContext.h - how often a statement runs -----------------------===//
//
// Finds the loops around a statement (for, range-for, while, do, and lambdas
// passed to std:: algorithms such as std::for_each), their trip counts when
// they are compile-time constants, and the guards that make the statement run
// on only some iterations: `if (i % N == 0)`, `if (i == 0)`,
// `if (i == iters - 1)`, a branch that logs (`if (print) { printf(...); }`),
// or a break/return right after it. The result ranks a
// hazard by how often it runs relative to the hottest loop it sits in.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_CHECKS_ANALYSIS_LOOPCONTEXT_H
#define XFER_TIDY_CHECKS_ANALYSIS_LOOPCONTEXT_H

#include "analysis/ExecutionOrder.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <string>

namespace clang::tidy::xfer {

/// A loop around a statement.
struct EnclosingLoop {
  /// A loop statement, or the call of an algorithm whose lambda argument
  /// holds the statement.
  const Stmt *Loop = nullptr;
  std::optional<uint64_t> TripCount;
  /// "loop" or the algorithm's name ("std::for_each").
  std::string Kind = "loop";
};

enum class GuardKind {
  None,    // runs on every iteration
  EveryN,  // if (i % N == 0)
  Once,    // if (i == 0), if (i == n - 1), or followed by break/return
  Logging, // a branch that writes output under a host condition
           // (if (print) { printf(...); }): guarded logging, at a rate the
           // analysis cannot tell
};

struct ExecutionFrequency {
  /// Innermost first. Empty when the statement is not in a loop.
  llvm::SmallVector<EnclosingLoop, 2> Loops;

  GuardKind Guard = GuardKind::None;
  /// The guard's period when it is a constant (EveryN).
  std::optional<uint64_t> Period;
  /// The period as written when it is not a constant ("log_every").
  std::string PeriodSpelling;

  /// Set when the statement runs between, not inside, the inner loops of
  /// its innermost loop: an epoch-level statement around a batch loop.
  const Stmt *InnerSiblingLoop = nullptr;
  std::optional<uint64_t> InnerSiblingTripCount;
  /// Set when InnerSiblingLoop is the step loop of a function called beside
  /// the statement (see findStepLoopInside), not a loop written there.
  bool InnerSiblingThroughCall = false;

  bool inLoop() const { return !Loops.empty(); }

  /// Executions per iteration of the hottest loop the statement sits in:
  /// 1 on every iteration, 1/N under `i % N == 0`, 0 when the statement runs
  /// only once, its rate depends on a run-time period, or it is epoch-level.
  double relativeFrequency() const;

  /// True for a statement between the inner loops of its loop when an inner
  /// loop runs more than a handful of times (or an unknown number): it runs
  /// once per epoch, not once per step.
  bool isEpochLevel() const;

  /// Total executions per call of the enclosing function, when all trip
  /// counts and periods are constants.
  std::optional<uint64_t> totalExecutions() const;
};

/// What a loop is for, as far as its per-iteration costs go.
enum class LoopRole {
  Steady,          // queues device work on every iteration: costs add up
  SetupOrTeardown, // queues no device work (allocating or freeing per
                   // element, copying inputs in), or parses text input
                   // record by record (loading): one-time costs
  TimingHarness,   // between two clock readings: repeats work to time it
  Evaluation,      // a pass over evaluation data beside the training loop
                   // of the same epoch: periodic evaluation, run once per
                   // epoch
};

class DeviceInference;
class ProjectFacts;

/// True if a function's unqualified \p Name says it releases resources
/// (`grid_deallocate_device`, `freeBuffers`, `destroyStreams`): a word of it,
/// split at underscores and lower-to-upper case changes, is a release verb.
bool namesResourceRelease(llvm::StringRef Name);

/// True if a function's unqualified \p Name says it checks an error status
/// (`checkCudaErrors`, `checkCudaState`, `HandleError`, `gpuAssert`,
/// `gpuErrchk`): the wrappers CUDA code puts around every runtime call.
bool namesErrorCheck(llvm::StringRef Name);

/// A function defined in no file given whose name says it releases
/// resources, checks errors or reads a property (`pixelCount`) is taken to
/// queue no device work.
bool namesWorkFreeHelper(llvm::StringRef Name);

/// What a search for device work assumes of the functions this translation
/// unit calls but does not define.
struct UnseenFunctions {
  /// What the program's other files say of them (the project index); a
  /// function it does not know may launch.
  const ProjectFacts *Facts = nullptr;
  /// When set, such functions are collected here instead and count as
  /// queuing no work: this translation unit's own view, which the project
  /// index completes with the other files' views.
  llvm::SmallVectorImpl<const FunctionDecl *> *Collected = nullptr;

  bool mayQueueDeviceWork(const FunctionDecl *Function) const;
};

/// True if running \p Body queues device work (a kernel launch, LibTorch
/// operation or CUDA library routine), directly or through the functions it
/// calls.
bool queuesDeviceWork(const Stmt *Body, ASTContext &Ctx,
                      const UnseenFunctions &Unseen);

/// Classifies \p Loop: no kernel launch, LibTorch operation, CUDA library
/// routine or call to user code that performs one (here, or in another file
/// as \p Facts tells; unknown functions may) makes it setup or
/// teardown; a timer read within three statements before and after it makes
/// it a timing harness. A loop that takes no training step (backward(), an
/// optimizer's step()) while a loop or call beside it in the same enclosing
/// loop (or, for a loop outside loops, in the same function) does is an
/// evaluation pass.
LoopRole classifyLoop(const Stmt *Loop, ASTContext &Ctx,
                      const ProjectFacts *Facts = nullptr);

/// True if \p Loop's condition reads the next line or field of text input
/// (`std::getline(file, line)`, `in >> value` on an istream, `fgets`,
/// `fscanf`, `scanf`): a loop that loads what the program will work on.
bool readsTextInput(const Stmt *Loop);

/// True if \p S sits next to a clock reading (the statement before or after
/// it in its block reads a timer): a synchronization that makes a
/// measurement accurate, not a hazard.
bool isTimingStatement(const Stmt *S, ASTContext &Ctx);

/// True for `do { ... } while (0)` as macros write it (AT_ASSERT,
/// CUDA_CHECK), and a counted loop of at most one trip (`for (int i = 0;
/// i < 1; i++)`, a benchmark's repeat count set to one): its body runs
/// once, so it is no loop.
bool isNeverRepeated(const Stmt *S, const ASTContext &Ctx);

/// True if the value \p ReadBack brings to the host decides whether
/// \p Loop goes on: it is (or is stored into a variable, or copied into
/// host memory, that is) read by the loop's condition or by the condition of
/// an `if` in the loop that leaves it (break, return, goto) or sets what the
/// condition reads; also through the variables the loop computes from it
/// (a maximum that sets the time step that advances the tested time, also
/// in a `for` statement's increment). A call of a function that reads back
/// inside decides it through the variables it takes by reference or
/// address, and through the globals it reads back into. Such a read-back
/// is a termination flag, not a hazard. A bare wait decides it when it
/// completes an asynchronous copy of such a value beside it.
bool decidesLoopExit(const CallExpr *ReadBack, const Stmt *Loop,
                     ASTContext &Ctx);

/// True if the value \p ReadBack brings back decides when a loop that
/// follows it in the body of \p Loop ends (the initial residual that
/// normalises each time step's iterative solve): that solve's termination
/// test, necessary like the solve's own read-backs.
bool decidesLaterLoopExit(const CallExpr *ReadBack, const Stmt *Loop,
                          ASTContext &Ctx);

/// True if \p Wait is a bare wait in \p Loop, or a call whose blocking
/// operations are all bare waits (\p WaitsInside: `calc_params()` that
/// launches a reduction and waits for it), and the loop's exit test (its
/// condition, or the condition of an `if` in its body that leaves it) reads
/// managed memory (`if (prev == *count) break;`, a `__managed__` global):
/// the wait makes that value valid on the host, a termination read like
/// decidesLoopExit's.
bool waitsForManagedExitTest(const CallExpr *Wait, const Stmt *Loop,
                             DeviceInference &Devices,
                             bool WaitsInside = false);

/// True if \p S runs only when a CUDA call failed: inside an `if` that
/// tests a CUDA error (`st != cudaSuccess`) or reports one (throws, writes
/// to stderr, cudaGetErrorString) and then leaves the function (`return`,
/// `throw`, `exit`). Freeing buffers there is cleanup before giving up. So
/// does a branch that ends in a call that does not return (`exit(1)`, a
/// failed TORCH_CHECK's `torchCheckFail`): it runs at most once.
bool isOnErrorPath(const Stmt *S, ASTContext &Ctx);

/// True if the host memory \p ReadBack fills is rewritten by the host and
/// then uploaded again in the same iteration of \p Loop (`cudaMemcpy(p,
/// pDev, ...)`, a host loop rescaling `p[i]`, `cudaMemcpy(pDev, p, ...)`):
/// a round trip whose host work belongs on the device, so the read-back is
/// a finding however the host uses the data.
bool roundTripsThroughHost(const CallExpr *ReadBack, const Stmt *Loop,
                           DeviceInference &Devices, ASTContext &Ctx);

/// True if the host value \p ReadBack reads (or what the loop computes from
/// it: `info = env.step(action)`) is part of what a host-to-device copy in
/// \p Loop uploads (`from_blob(info.obs).to(device)`): the device waits for
/// the host's answer to go on, so the read-back cannot be deferred.
bool feedsLoopUpload(const CallExpr *ReadBack, const Stmt *Loop,
                     DeviceInference &Devices, ASTContext &Ctx);

/// True if the scalar \p ReadBack reads (`loss.item<float>()`), or another
/// read of the same tensor within \p Scope, is written to a file (`ofs <<
/// loss.item<float>()`, fprintf to a FILE other than stdout and stderr): a
/// test or inference program's per-sample result, which the host must have.
/// Not where \p Scope takes a training step (a loss logged per step).
bool writesReadBackToFile(const CallExpr *ReadBack, const Stmt *Scope,
                          ASTContext &Ctx);

/// True if the scalar \p Read (`item()`) reads, once per iteration of
/// \p Scope (a loop body, or the body of a function that runs once per
/// step), the one value of a model's result that host code then takes: it
/// is returned or handed to a function of the program (a search's backup,
/// a frame's label). Not where \p Scope takes a training step, not for a
/// read inside a loop of its own or beside another read of a result, and
/// not for a running sum.
bool readsModelResultForHost(const CallExpr *Read, const Stmt *Scope,
                             ASTContext &Ctx);

/// True if the CUDA copy \p Copy moves at most a few bytes, a constant
/// size (`sizeof(int)`): a scalar, not a buffer.
bool copiesFewBytes(const CallExpr *Copy, ASTContext &Ctx);

/// True if the host memory a device-to-host copy \p Copy fills is the
/// product the host consumes after it within \p Scope (a loop body, or the
/// body of a function that runs once per step): returned, handed to a
/// function, or used by host code other than a print (drawn, written,
/// searched), or the output of an iteration that reads new input from
/// outside the program (a frame from a capture, a block from a file) and
/// uploads it. Not where \p Scope takes a training step (a copy there serves
/// logging or metrics), nor for a copy of a few bytes (a scalar) other than
/// the number of results that bounds the host's walk over the buffer of
/// another copy-back.
bool consumesCopiedOutput(const CallExpr *Copy, const Stmt *Scope,
                          ASTContext &Ctx);

/// The same for a read-back in a method that runs once per step with no
/// loop visible here (the loop is in another file): the value, or what the
/// method computes from it, is stored into a member of its class that a
/// `bool` method of the class reads (`residual_` read by `is_converged()`),
/// the predicate a driving loop tests.
bool decidesStepExit(const CallExpr *ReadBack, const FunctionDecl *Method,
                     ASTContext &Ctx);

/// True if the wait \p Wait follows another wait (or a blocking read-back)
/// on every path that reaches it, with no device work queued in between
/// (functions that may queue some count as queuing): it waits for nothing.
bool followsWaitOnEveryPath(const CallExpr *Wait, ExecutionOrder &Order,
                            ASTContext &Ctx, const ProjectFacts *Facts);

/// True if a blocking read-back that \p IsBlockingReadBack accepts sits in
/// \p Sync's block next to it, with nothing that queues device work in
/// between: just after it (the read-back waits for the same work), just
/// before it (the device has been drained already), or in the same
/// statement-like macro (`CHECK(cudaMemcpy(...))` that waits after the call
/// it checks). Such a wait costs nothing the read-back does not; the
/// read-back is the finding, if any.
bool waitsBesideReadBack(
    const CallExpr *Sync, ASTContext &Ctx,
    llvm::function_ref<bool(const CallExpr *)> IsBlockingReadBack);

/// True if a blocking copy (isBlockingTransfer) follows the call \p Call in
/// its block with nothing that queues device work in between.
bool isFollowedByBlockingTransfer(const CallExpr *Call,
                                  DeviceInference &Devices);

/// True if the bare wait \p Wait is the last device operation of its
/// function: a statement of the function's body after which only host code
/// (releasing buffers, reporting errors, returning) runs.
bool endsFunctionWithWait(const CallExpr *Wait, ASTContext &Ctx);

/// True if every call of \p Function is followed at once by a blocking copy
/// (`run(d_in, d_out); cudaMemcpy(h_out, d_out, ...)`): a wait that ends the
/// function waits for nothing that copy does not. The project index answers
/// for the whole program; without it, the calls in this translation unit
/// (none: false).
bool callersTransferRightAfter(const FunctionDecl *Function,
                               DeviceInference &Devices,
                               const ProjectFacts *Facts);

/// True if the bare wait \p Wait completes an asynchronous device-to-host
/// copy beside it (nothing that queues device work in between) that
/// \p IsOutput accepts: `cudaMemcpyAsync(h_out, d_out, ..., stream);
/// cudaStreamSynchronize(stream);` waits for what that copy brings back, so
/// it is part of that read-back and judged with it.
bool completesAsyncReadBack(
    const CallExpr *Wait, ASTContext &Ctx,
    llvm::function_ref<bool(const CallExpr *)> IsOutput);

/// waitsBesideReadBack for the copies isBlockingTransfer accepts (blocking
/// read-backs and uploads): true if the bare wait \p Wait (or, when
/// \p CallOnlyWaits, a call of a helper that only waits, such as an error
/// check that synchronizes) waits for nothing such a copy beside it does
/// not.
bool waitsBesideBlockingTransfer(const CallExpr *Wait, DeviceInference &Devices,
                                 bool CallOnlyWaits = false);

/// True if \p Wait is `cudaStreamSynchronize(s)` on a stream of the
/// program's own, and the next device work in its block (past further
/// waits and host code, through calls of functions defined here) runs on
/// the legacy default stream: a hand-off from a stage on side streams to
/// the default stream, which LABELLING.md counts as acceptable.
bool handsOffToDefaultStream(const CallExpr *Wait, ASTContext &Ctx);

/// The blocking read-backs (\p IsBlockingReadBack) that \p ReadBack's
/// iteration performs after it with nothing that queues device work in
/// between: later in the same statement, or in the statements that follow
/// it in its block. The first read-back drains the queue; these wait for
/// nothing more, so they are one hazard with it (copy the values together).
llvm::SmallVector<const CallExpr *, 4>
readBacksAfter(const CallExpr *ReadBack, ASTContext &Ctx,
               llvm::function_ref<bool(const CallExpr *)> IsBlockingReadBack);

/// True if \p ReadBack is one of readBacksAfter() of an earlier read-back:
/// the queue is already drained when it runs, and the earlier one is the
/// finding.
bool followsReadBack(
    const CallExpr *ReadBack, ASTContext &Ctx,
    llvm::function_ref<bool(const CallExpr *)> IsBlockingReadBack);

/// Analyses the loops and guards around \p S, up to its enclosing function
/// (or up through lambdas passed to std:: algorithms).
ExecutionFrequency analyzeFrequency(const Stmt *S, ASTContext &Ctx);

/// Phrase for diagnostics, e.g. "on every iteration of the loop at line 12",
/// "once every 5 iterations of the loop at line 12", "on each of 1000
/// iterations of the loop at line 12".
std::string describeFrequency(const ExecutionFrequency &Frequency,
                              const SourceManager &SM);

/// The trip count of \p Loop when it is a counted loop with constant bounds.
/// The first loop in \p Function's body (a function of the program, not a
/// library's) that runs more than a handful of times, or an unknown number,
/// and on each iteration takes a training step, or launches device work and
/// waits for the device: an epoch's batch loop, a solver's iterations, a
/// video's frame loop (not a loop that only reads a result back element by
/// element). The
/// statements of a loop that also calls \p Function run once per run of
/// that loop, not once per step.
const Stmt *findStepLoopInside(const FunctionDecl *Function, ASTContext &Ctx);

/// True if \p Loop takes a training step (`backward()`, an optimizer's
/// `step()`) or calls a function of the program named for one
/// (`nn.train(input, target)`, `trainStep()`).
bool trainsInLoop(const Stmt *Loop, const SourceManager &SM);

/// True if \p Scope (a loop body, or its loop's condition) reads the next
/// piece of input from outside the program: `cap >> frame` or
/// `cap.read(frame)` on a video capture or stream, `fread`, `std::getline`,
/// `cv::imread`.
bool readsNewInput(const Stmt *Scope, ASTContext &Ctx);

/// True if \p Scope reads the next piece of input from outside the program
/// and uploads it: `cap >> frame` or `cap.read(frame)` on a video capture or
/// stream, `fread`, `std::getline`, and a copy to the device. Each iteration
/// of such a loop processes new data, and its result is what the loop is
/// for.
bool streamsNewInput(const Stmt *Scope, ASTContext &Ctx);

/// True if \p Function runs a training loop of its own (its step loop takes
/// a training step: backward(), an optimizer's step()): a call of it is an
/// epoch.
bool runsTrainingEpoch(const FunctionDecl *Function, ASTContext &Ctx);

std::optional<uint64_t> constantTripCount(const Stmt *Loop,
                                          const ASTContext &Ctx);

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_ANALYSIS_LOOPCONTEXT_H
