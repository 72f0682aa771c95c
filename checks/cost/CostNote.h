//===--- CostNote.h - the figures of a cost note, and its text --*- C++ -*-===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//
//
// A cost note is data first: the measured figures a warning cites. Its text
// (the diagnostic note) and its JSON/SARIF properties are both written from
// the same figures here, so the reports never read numbers back out of the
// note's wording.
//
// clang-tidy diagnostics carry text only. The figures reach xfer-tidy's
// report writers through a CostNoteTable: while the tool analyses a
// translation unit, the checks record each note they emit under the check's
// name and the note's file location, and the tool attaches the recorded
// figures to the matching note of each finding. The clang-tidy plugin
// records nothing (clang-tidy prints text only).
//
// Depends on LLVMSupport only.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TIDY_CHECKS_COST_COSTNOTE_H
#define XFER_TIDY_CHECKS_COST_COSTNOTE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace clang::tidy::xfer {

/// The measured cost a warning cites.
struct CostNote {
  /// Every cost note's text starts with this.
  static constexpr llvm::StringLiteral TextPrefix = "measured cost: ";

  enum class Form {
    /// An operation's cost per call, with the CPU/GPU overlap it destroys
    /// per loop iteration: "measured cost: 9.16 µs per call + 8.5 µs of
    /// lost CPU/GPU overlap per iteration, ≈ 17.7 ms over 1000 executions
    /// (measured on ...)".
    PerCall,
    /// What a CUDA graph replay saves over eager launches: "measured cost:
    /// 3.09 µs per launch (eager launch minus graph replay) × 10 launches =
    /// 30.94 µs per iteration, ≈ 30.9 ms over 1000 iterations (measured on
    /// ...)".
    LaunchSaving,
  };
  Form Kind = Form::PerCall;

  /// Cost-model pattern of the hazard ("torch.item"); for LaunchSaving the
  /// eager-launch pattern the saving is measured against.
  std::string PatternId;
  /// Pattern of the fix subtracted from the hazard's cost; empty when none.
  std::string FixPatternId;

  /// PerCall: the operation's latency (less its fix's). LaunchSaving: the
  /// saving per launch.
  double PerCallUs = 0;
  /// PerCall only: lost CPU/GPU overlap per loop iteration.
  std::optional<double> OverlapUs;
  /// LaunchSaving only: launches per loop iteration.
  uint64_t LaunchesPerIteration = 0;
  /// How often the cost is paid (executions, or loop iterations for
  /// LaunchSaving), when known.
  std::optional<uint64_t> Executions;
  /// Where the model was measured (Provenance::summary()).
  std::string MeasuredOn;

  /// The cost of one execution (PerCall) or one iteration (LaunchSaving).
  double perExecutionUs() const;
  /// perExecutionUs() times the executions.
  double totalUs() const;

  /// The note's text.
  std::string text() const;

  /// The figures as JSON properties of a finding: latencyMicroseconds,
  /// overlapLossMicrosecondsPerIteration, totalMicroseconds, executions,
  /// measuredOn; for LaunchSaving latencyMicroseconds is the saving per
  /// iteration, with savingPerLaunchMicroseconds and launchesPerIteration.
  /// Numbers are the ones the text states (rounded as written: 9.16, not
  /// 9.1583), and figures the text leaves out are left out.
  llvm::json::Object properties() const;
};

/// The cost notes the checks emitted during a run, by the check that
/// emitted them and the note's file location (the file name and offset that
/// clang-tidy records for the note).
class CostNoteTable {
public:
  void add(llvm::StringRef Check, llvm::StringRef File, unsigned Offset,
           CostNote Note);

  /// The note \p Check emitted at \p File:\p Offset whose text is
  /// \p Message, or null. Notes recorded at one place by different
  /// translation units differ in their text when their figures do.
  const CostNote *find(llvm::StringRef Check, llvm::StringRef File,
                       unsigned Offset, llvm::StringRef Message) const;

  void merge(CostNoteTable &&Other);
  bool empty() const { return Notes.empty(); }

  /// Calls \p Visit(Check, File, Offset, Note) for every recorded note, in
  /// the order add() would rebuild the same table (the result cache stores
  /// tables this way).
  template <typename Visitor> void forEach(Visitor Visit) const {
    for (const auto &[Where, Recorded] : Notes)
      for (const CostNote &Note : Recorded)
        Visit(std::get<0>(Where), std::get<1>(Where), std::get<2>(Where),
              Note);
  }

  /// Makes \p Table the table that the checks running on this thread record
  /// into while the scope lasts (one translation unit is analysed on one
  /// thread).
  class RecordingScope {
  public:
    explicit RecordingScope(CostNoteTable &Table);
    ~RecordingScope();
    RecordingScope(const RecordingScope &) = delete;
    RecordingScope &operator=(const RecordingScope &) = delete;

  private:
    CostNoteTable *Previous;
  };

  /// The table of the current thread's recording scope, or null.
  static CostNoteTable *recording();

private:
  using Key = std::tuple<std::string, std::string, unsigned>;
  std::map<Key, std::vector<CostNote>> Notes;
};

} // namespace clang::tidy::xfer

#endif // XFER_TIDY_CHECKS_COST_COSTNOTE_H
