//===- EvidenceTiming.h - Interleaved timing of a loop's variants -*- C++ -*-===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//
//
// The evidence programs run one loop in variants: the hazards as written,
// and each hazard's site fixed alone. `measure` interleaves the variants
// round by round, so clock and thermal drift hit them alike, and prints one
// JSON line per variant: median, p10 and p90 of the per-iteration time.
// `trace` runs the hazard variant only (what xfer-trace records) and prints
// its loop time, for the traced-vs-untraced overhead.
//
//===----------------------------------------------------------------------===//

#ifndef XFER_TRACE_EVIDENCE_EVIDENCETIMING_H
#define XFER_TRACE_EVIDENCE_EVIDENCETIMING_H

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace evidence {

inline double nowUs() {
  using namespace std::chrono;
  return duration<double, std::micro>(steady_clock::now().time_since_epoch())
      .count();
}

/// A variant: "hazard" or "fix:<site>"; Run does Iterations iterations and
/// returns once the device is idle.
struct Variant {
  std::string Name;
  std::function<void(int Iterations)> Run;
};

inline double percentile(std::vector<double> Values, double P) {
  std::sort(Values.begin(), Values.end());
  double Index = P * double(Values.size() - 1);
  size_t Low = size_t(Index);
  size_t High = std::min(Low + 1, Values.size() - 1);
  return Values[Low] + (Values[High] - Values[Low]) * (Index - double(Low));
}

/// argv: measure <rounds> <iterations> | trace <repetitions> <iterations>
inline int runEvidence(const std::string &Program, int Argc, char **Argv,
                       const std::vector<Variant> &Variants) {
  std::string Mode = Argc > 1 ? Argv[1] : "measure";
  int Rounds = Argc > 2 ? std::atoi(Argv[2]) : 15;
  int Iterations = Argc > 3 ? std::atoi(Argv[3]) : 200;
  // Warm-up: allocator caches, cuBLAS handles, clocks.
  for (const Variant &V : Variants)
    V.Run(std::max(10, Iterations / 10));
  if (Mode == "trace") {
    double Start = nowUs();
    for (int R = 0; R < Rounds; ++R)
      Variants.front().Run(Iterations);
    double Loop = nowUs() - Start;
    std::printf("{\"program\": \"%s\", \"mode\": \"trace\", \"iterations\": "
                "%d, \"loopUs\": %.1f, \"perIterationUs\": %.3f}\n",
                Program.c_str(), Rounds * Iterations, Loop,
                Loop / (Rounds * Iterations));
    return 0;
  }
  std::vector<std::vector<double>> PerIteration(Variants.size());
  for (int R = 0; R < Rounds; ++R)
    for (size_t V = 0; V < Variants.size(); ++V) {
      double Start = nowUs();
      Variants[V].Run(Iterations);
      PerIteration[V].push_back((nowUs() - Start) / Iterations);
    }
  for (size_t V = 0; V < Variants.size(); ++V)
    std::printf("{\"program\": \"%s\", \"variant\": \"%s\", \"rounds\": %d, "
                "\"iterations\": %d, \"medianUs\": %.3f, \"p10Us\": %.3f, "
                "\"p90Us\": %.3f}\n",
                Program.c_str(), Variants[V].Name.c_str(), Rounds, Iterations,
                percentile(PerIteration[V], 0.5),
                percentile(PerIteration[V], 0.1),
                percentile(PerIteration[V], 0.9));
  return 0;
}

} // namespace evidence

#endif // XFER_TRACE_EVIDENCE_EVIDENCETIMING_H
