//===- BenchStats.h - Robust summaries of timing samples --------*- C++ -*-===//
//
// Part of xfer-tidy. Host-only: compiled by the host compiler so that CI can
// test it on machines without a GPU.
//
//===----------------------------------------------------------------------===//
//
// Timing samples are summarized by their median and the 10th/90th
// percentiles rather than mean and standard deviation: latency distributions
// of driver calls have long right tails (interrupts, page faults), and the
// median is what a steady-state loop pays.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_BENCHCORE_BENCHSTATS_H
#define XFER_BENCHCORE_BENCHSTATS_H

#include <functional>
#include <vector>

namespace xferbench {

struct SampleSummary {
  double MedianUs = 0;
  double P10Us = 0;
  double P90Us = 0;
  double MinUs = 0;
  double MaxUs = 0;
  double MeanUs = 0;
  unsigned Reps = 0;   ///< Timed repetitions the summary is made of.
  unsigned Warmup = 0; ///< Untimed repetitions run before them.

  /// (p90 - p10) / median; 0 when the median is 0. The figure the tables
  /// quote as "spread".
  double relativeSpread() const;
};

/// The Fraction-quantile (0..1) of \p SortedSamples with linear interpolation
/// between closest ranks (the "type 7" estimator of R and NumPy). The input
/// must be sorted and non-empty.
double quantileOfSorted(const std::vector<double> &SortedSamples,
                        double Fraction);

/// Summarizes samples (any order). An empty input gives an all-zero summary.
SampleSummary summarize(std::vector<double> Samples, unsigned Warmup = 0);

/// How many times to repeat one measurement.
struct RepetitionPolicy {
  unsigned Warmup = 10;
  unsigned MinReps = 20;
  unsigned MaxReps = 1000;
  /// Stop adding repetitions beyond MinReps once this much wall time has been
  /// spent on timed repetitions (milliseconds).
  double BudgetMs = 200;
};

/// Runs \p OneRep Warmup times without recording, then records its return
/// value (microseconds) at least MinReps and at most MaxReps times, stopping
/// early once BudgetMs of wall time has passed. \p NowUs is the wall clock
/// used for the budget (injectable for tests).
SampleSummary collectSamples(const RepetitionPolicy &Policy,
                             const std::function<double()> &OneRep,
                             const std::function<double()> &NowUs = nullptr);

/// Paired difference of two sample series (A[i] - B[i]), used when two
/// variants are run interleaved so that slow drift cancels.
std::vector<double> pairedDifferences(const std::vector<double> &A,
                                      const std::vector<double> &B);

/// A least-squares line Y = Intercept + Slope * X.
struct LineFit {
  double Slope = 0;
  double Intercept = 0;
};
/// Fits a line through (X[i], Y[i]); a flat line at 0 for fewer than two
/// distinct X. Used to separate a per-launch cost (the slope over the
/// launches per iteration) from what an iteration pays once.
LineFit fitLine(const std::vector<double> &X, const std::vector<double> &Y);

} // namespace xferbench

#endif // XFER_BENCHCORE_BENCHSTATS_H
