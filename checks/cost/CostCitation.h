//===--- CostCitation.h - the measured cost a warning cites ---------------===//
//
// Every transfer or sync warning carries a note with what the flagged
// pattern costs, measured by xfer-bench:
//
//   measured cost: 9.16 µs per call + 41.3 µs of lost CPU/GPU overlap per
//   iteration, ≈ 50.5 ms over 1000 executions (measured on NVIDIA H200, ...)
//
// The per-call figure is the operation's measured latency (interpolated by
// payload size when the size is a compile-time constant), or, for a pattern
// judged against its fix, the measured difference. The overlap term applies
// to operations that block the host inside a loop: the loop's host launch
// work per iteration H is estimated from the LibTorch operations and kernel
// launches its body issues (measured dispatch and launch costs), the GPU is
// assumed to have as much work queued (D = H), and the loss is read off the
// measured overlap grid for that ordering of host and device work, less the
// grid's no-work corner (the sync's own latency, already cited). LibTorch
// loops add the measured cost of dispatching one operation: after the sync
// the GPU idles until the host has issued the next one (see describeOverlap
// and docs/cost-model.md). The note's figures and wording are CostNote's.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_CHECKS_COST_COSTCITATION_H
#define XFER_TIDY_CHECKS_COST_COSTCITATION_H

#include "analysis/LoopContext.h"
#include "clang-tidy/ClangTidyCheck.h"
#include "cost/CostModel.h"
#include "cost/CostNote.h"
#include <optional>
#include <string>

namespace clang::tidy::xfer {

/// What to cite for one warning.
struct CostQuery {
  /// Cost-model pattern of the hazard ("torch.item").
  llvm::StringRef Pattern;
  /// Pattern of the recommended fix, subtracted when set
  /// ("torch.factory_on_device").
  llvm::StringRef FixPattern;
  /// Payload, when it is a compile-time constant.
  std::optional<uint64_t> Bytes;
  /// The operation makes the host wait for queued device work.
  bool BlocksHost = false;
  /// Where it runs; null outside loops.
  const ExecutionFrequency *Frequency = nullptr;
  /// The measured overlap grid that fits the loop (see describeOverlap).
  llvm::StringRef OverlapGrid = CostModel::DefaultOverlapGrid;
  /// After the sync the GPU idles while the host issues the next operation:
  /// the measured host cost of issuing one (LibTorch: "torch.op_dispatch";
  /// empty when the grid already contains it).
  llvm::StringRef RefillPattern;
};

/// Estimated host time spent issuing GPU work on one iteration of \p Loop:
/// LibTorch operations at the measured dispatch cost, kernel launches at the
/// measured launch cost, following calls to functions defined in the
/// translation unit.
double estimateHostWorkPerIterationUs(const Stmt *Loop, ASTContext &Ctx,
                                      const CostModel &Model);

/// Fills in how a host-blocking operation loses overlap. LibTorch loops
/// issue expensive host dispatches while cheap kernels run, so their host
/// work overlaps GPU work already launched (the "launch_first" grid), and
/// after each sync the GPU idles while the host dispatches the next
/// operation. CUDA runtime loops prepare host work before launching longer
/// kernels (the default grid, whose host-before-launch ordering already
/// contains that idle time).
void describeOverlap(CostQuery &Query, bool IsLibTorch);

/// The cost note for \p Query, or nullopt when the model lacks the pattern.
std::optional<CostNote> estimateCost(const CostQuery &Query,
                                     const CostModel &Model, ASTContext &Ctx);

/// Bytes of a float32 tensor created by \p Factory (torch::randn({1000, 2}))
/// when its sizes are constants and no options change the element type.
std::optional<uint64_t> constantFactoryBytes(const CallExpr *Factory,
                                             const ASTContext &Ctx);

/// What one loop iteration launches, by the kind of saving a graph replay
/// brings each: a raw kernel launch saves its launch call, a LibTorch
/// operation its dispatch as well, one recorded by autograd (and each of
/// the backward operations) autograd's bookkeeping too, and a backward()
/// call the autograd engine's start.
struct LaunchMix {
  uint64_t Kernels = 0;
  /// LibTorch operations outside autograd (optimizer updates, inference).
  uint64_t PlainOps = 0;
  /// Forward operations that a backward() of the iteration differentiates,
  /// and the backward operations it runs for them.
  uint64_t AutogradOps = 0;
  uint64_t BackwardCalls = 0;

  uint64_t launches() const { return Kernels + PlainOps + AutogradOps; }
};

/// The saving of replaying one iteration of a loop as a CUDA graph over
/// issuing its work one launch at a time, from host wall-time slopes of
/// eager against replayed iterations: per kernel
/// (cuda.graph.eager_per_kernel - cuda.graph.replay_per_kernel), per
/// LibTorch operation (torch.graph.eager_per_op - torch.graph.replay_per_op,
/// or torch.graph.autograd.* for operations autograd records and their
/// backward operations) and per backward() call
/// (torch.graph.autograd.eager_backward - replay_backward). The note states
/// the mean per launch times the launches of \p Mix, times the iterations
/// of a loop whose body runs as \p Iteration says (when all trip counts are
/// constants). A model without the LibTorch patterns prices every launch as
/// a kernel. nullopt when the model lacks the kernel patterns.
std::optional<CostNote>
estimateLaunchSaving(const LaunchMix &Mix, const ExecutionFrequency &Iteration,
                     const CostModel &Model);

/// Records \p Note, which \p Check emitted at \p Loc, in the table of the
/// current recording scope, if any (see CostNoteTable).
void recordCostNote(const CostNote &Note, llvm::StringRef Check,
                    SourceLocation Loc, const SourceManager &SM);

/// Makes \p Model the model that the `CostModel` option \p Path names, for
/// every check of the process. xfer-tidy reads the model once, before any
/// check runs, so that a model it cannot read is one error of the command;
/// the checks (and the clang-tidy plugin, which shares nothing) read a path
/// they were not given a model for on first use.
void shareCostModel(llvm::StringRef Path, CostModel Model);

/// The check options that select the model: `CostModel` (a file; empty for
/// the built-in model) and `CostNotes` (false turns the notes off). Both
/// may be set globally for all xfer-* checks.
class CostCitations {
public:
  CostCitations(ClangTidyCheck::OptionsView &Options);
  void storeOptions(ClangTidyCheck::OptionsView &Options,
                    ClangTidyOptions::OptionMap &Opts) const;

  /// The note for \p Query, or nullopt. A model file that cannot be read
  /// is reported once, as a configuration error of \p Check.
  std::optional<CostNote> note(const CostQuery &Query, ASTContext &Ctx,
                               const ClangTidyCheck &Check);

  /// The note for a launch-bound loop (see estimateLaunchSaving), or
  /// nullopt.
  std::optional<CostNote> launchSavingNote(const LaunchMix &Mix,
                                           const ExecutionFrequency &Iteration,
                                           const ClangTidyCheck &Check);

private:
  /// The model to cite, or null (notes off, no model, unreadable file).
  const CostModel *model(const ClangTidyCheck &Check);

  std::string ModelPath;
  bool Enabled;
  bool Loaded = false;
  const CostModel *Model = nullptr;
};

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_COST_COSTCITATION_H
