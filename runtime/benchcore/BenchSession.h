//===- BenchSession.h - State shared by the benchmark groups ----*- C++ -*-===//
//
// Part of xfer-tidy. Host-only, so that the CUDA and the LibTorch benchmark
// translation units (compiled by different compilers) share it.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_BENCHCORE_BENCHSESSION_H
#define XFER_BENCHCORE_BENCHSESSION_H

#include "benchcore/BenchOptions.h"
#include "benchcore/CostModelDocument.h"

#include <string>
#include <vector>

namespace xferbench {

class BenchSession {
public:
  explicit BenchSession(BenchOptions Options);

  const BenchOptions &options() const { return Options; }
  bool quick() const { return Options.Quick; }
  bool wants(const std::string &PatternId) const {
    return Options.selects(PatternId);
  }
  bool wantsGroup(const std::string &Prefix) const {
    return Options.selectsAnyWithPrefix(Prefix);
  }

  /// The repetition policy for one point. --quick divides the budget and
  /// the repetition counts by about ten.
  RepetitionPolicy policy(double BudgetMs = 200, unsigned MinReps = 20,
                          unsigned MaxReps = 2000, unsigned Warmup = 10) const;

  CostModelDocument &document() { return Document; }

  /// Adds to the document and prints one line per point.
  void record(LatencyPattern Pattern);
  void record(OverlapGrid Grid);
  void record(FidelityRecord Record);

  /// A sanity check: prints and counts a failure when \p Ok is false.
  void check(bool Ok, const std::string &What);
  unsigned failedChecks() const { return FailedChecks.size(); }
  const std::vector<std::string> &failedCheckMessages() const {
    return FailedChecks;
  }

  /// Where checkpoint() writes; empty: nowhere.
  void setOutputPath(std::string Path) { OutputPath = std::move(Path); }
  /// Writes the model measured so far (provenance "complete": false), so
  /// that a crash late in a run still leaves the earlier groups' numbers.
  /// Returns false and sets \p Error if the file could not be written.
  bool checkpoint(std::string &Error);
  /// checkpoint(), reporting a failure on stderr instead of returning it.
  void saveProgress();
  /// Writes the finished model ("complete": true).
  bool writeFinal(std::string &Error);

  /// A progress line on stdout, flushed (the log is read while it runs).
  static void log(const std::string &Line);

  /// The short table printed last: a few points per pattern, the grids as
  /// matrices, the fidelity pairs.
  std::string summaryTable() const;

private:
  bool write(std::string &Error);

  BenchOptions Options;
  std::string OutputPath;
  CostModelDocument Document;
  std::vector<std::string> FailedChecks;
};

/// Human-readable size: 4 B, 8000 B, 64 KiB, 256 MiB.
std::string formatBytes(uint64_t Bytes);

} // namespace xferbench

#endif // XFER_BENCHCORE_BENCHSESSION_H
