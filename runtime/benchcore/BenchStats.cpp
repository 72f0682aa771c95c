//===- BenchStats.cpp - Robust summaries of timing samples ----------------===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//

#include "benchcore/BenchStats.h"
#include "benchcore/HostTiming.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

namespace xferbench {

double SampleSummary::relativeSpread() const {
  if (MedianUs <= 0)
    return 0;
  return (P90Us - P10Us) / MedianUs;
}

double quantileOfSorted(const std::vector<double> &SortedSamples,
                        double Fraction) {
  assert(!SortedSamples.empty() && "quantile of no samples");
  Fraction = std::clamp(Fraction, 0.0, 1.0);
  const double Rank = Fraction * double(SortedSamples.size() - 1);
  const size_t Lower = size_t(std::floor(Rank));
  const size_t Upper = std::min(Lower + 1, SortedSamples.size() - 1);
  const double Weight = Rank - double(Lower);
  return SortedSamples[Lower] +
         Weight * (SortedSamples[Upper] - SortedSamples[Lower]);
}

SampleSummary summarize(std::vector<double> Samples, unsigned Warmup) {
  SampleSummary Summary;
  Summary.Warmup = Warmup;
  if (Samples.empty())
    return Summary;
  std::sort(Samples.begin(), Samples.end());
  Summary.Reps = unsigned(Samples.size());
  Summary.MedianUs = quantileOfSorted(Samples, 0.5);
  Summary.P10Us = quantileOfSorted(Samples, 0.1);
  Summary.P90Us = quantileOfSorted(Samples, 0.9);
  Summary.MinUs = Samples.front();
  Summary.MaxUs = Samples.back();
  Summary.MeanUs =
      std::accumulate(Samples.begin(), Samples.end(), 0.0) / Samples.size();
  return Summary;
}

SampleSummary collectSamples(const RepetitionPolicy &Policy,
                             const std::function<double()> &OneRep,
                             const std::function<double()> &NowUs) {
  const std::function<double()> Clock =
      NowUs ? NowUs : std::function<double()>(nowUs);
  for (unsigned I = 0; I < Policy.Warmup; ++I)
    (void)OneRep();

  const unsigned MaxReps = std::max(Policy.MaxReps, Policy.MinReps);
  std::vector<double> Samples;
  Samples.reserve(std::min(MaxReps, 4096u));
  const double Start = Clock();
  while (Samples.size() < MaxReps) {
    Samples.push_back(OneRep());
    if (Samples.size() >= Policy.MinReps &&
        Clock() - Start >= Policy.BudgetMs * 1000.0)
      break;
  }
  return summarize(std::move(Samples), Policy.Warmup);
}

std::vector<double> pairedDifferences(const std::vector<double> &A,
                                      const std::vector<double> &B) {
  std::vector<double> Differences;
  const size_t Count = std::min(A.size(), B.size());
  Differences.reserve(Count);
  for (size_t I = 0; I < Count; ++I)
    Differences.push_back(A[I] - B[I]);
  return Differences;
}

LineFit fitLine(const std::vector<double> &X, const std::vector<double> &Y) {
  const size_t Count = std::min(X.size(), Y.size());
  if (Count < 2)
    return {};
  double MeanX = 0, MeanY = 0;
  for (size_t I = 0; I < Count; ++I) {
    MeanX += X[I];
    MeanY += Y[I];
  }
  MeanX /= double(Count);
  MeanY /= double(Count);
  double Covariance = 0, VarianceX = 0;
  for (size_t I = 0; I < Count; ++I) {
    Covariance += (X[I] - MeanX) * (Y[I] - MeanY);
    VarianceX += (X[I] - MeanX) * (X[I] - MeanX);
  }
  if (VarianceX == 0)
    return {};
  LineFit Fit;
  Fit.Slope = Covariance / VarianceX;
  Fit.Intercept = MeanY - Fit.Slope * MeanX;
  return Fit;
}

} // namespace xferbench
