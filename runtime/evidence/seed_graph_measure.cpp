// The seed graph example (runtime/reference-loops/SeedGraphExample.cpp),
// eager steps against CUDA-graph replays, interleaved over many rounds, with
// what happens on the host around it:
//
//   seed_graph_measure [--rounds R] [--steps S] [--threads T] [--census]
//                      [--label TEXT]
//
//  - the first eager steps one by one (synchronized), before any warm-up;
//  - R rounds after 2 warm-up rounds; each round times S eager steps of one
//    instance, S replays of a second instance's captured step and S eager
//    steps of the first with a clock read between the parts of the step
//    (zero_grad, forward and loss, backward(), optimizer step), in an order
//    that alternates from round to round. The saving is paired: eager minus
//    replay of the same round;
//  - before the rounds, the round trip of a hand-off between two threads
//    through a mutex and condition variable (what the autograd engine does
//    twice per backward(): the caller hands the graph task to the device
//    thread and waits for it to finish), 2000 round trips after 200;
//  - in every round as well: the LibTorch graph patterns the check's
//    prediction rests on, measured as xfer-bench measures torch.graph.*
//    (runtime/TorchBenchmarks.cpp, measureTorchGraphOps: K = 4, 8, 16, 32
//    operations per iteration, 100 iterations per point, eager against one
//    at::cuda::CUDAGraph replay, a least-squares line per round), so that
//    the prediction (xfer-tidy's formula for the seed step: 8 operations of
//    autograd, 2 plain operations, 1 backward() call) and the saving are
//    measured under the same conditions; and two CPU probes (a fixed
//    integer loop, and 200 additions of 16-float CPU tensors) that tell
//    whether the host's speed changed from round to round; the steal time
//    /proc/stat reports over the rounds;
//  - free device memory before and after the rounds (a change would mean the
//    caching allocator still takes memory from the driver in steady state);
//  - --threads T: at::set_num_threads(T) first (LibTorch's CPU intra-op
//    threads);
//  - --census: after the rounds, CUPTI activity records of 10 eager steps
//    and of 10 replays: every kernel, memset and memcpy that ran, and every
//    CUDA runtime and driver call, by name.
//
// Every CUDA call is checked; a failing one ends the program with status 2.
// The last line, RESULT ..., holds the medians the evidence scripts read.
#include "kernel_census.h"
#include "reference-loops/SeedGraphExample.h"

#include <ATen/Parallel.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <cuda_runtime.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    cudaError_t e = (call);                                                    \
    if (e != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,       \
                   cudaGetErrorString(e));                                     \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

namespace {

using Clock = std::chrono::steady_clock;

double nowUs() {
  return std::chrono::duration<double, std::micro>(
             Clock::now().time_since_epoch())
      .count();
}

void syncDevice() {
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
}

struct Summary {
  double Median = 0, P10 = 0, P90 = 0, Min = 0, Max = 0;
};

double quantile(std::vector<double> V, double Q) {
  std::sort(V.begin(), V.end());
  double Pos = Q * double(V.size() - 1);
  size_t Lo = size_t(Pos);
  size_t Hi = std::min(Lo + 1, V.size() - 1);
  return V[Lo] + (Pos - double(Lo)) * (V[Hi] - V[Lo]);
}

Summary summarize(const std::vector<double> &V) {
  Summary S;
  S.Median = quantile(V, 0.5);
  S.P10 = quantile(V, 0.1);
  S.P90 = quantile(V, 0.9);
  S.Min = *std::min_element(V.begin(), V.end());
  S.Max = *std::max_element(V.begin(), V.end());
  return S;
}

void printSummary(const char *Name, const std::vector<double> &V) {
  Summary S = summarize(V);
  std::printf("%-22s median %8.2f  p10 %8.2f  p90 %8.2f  min %8.2f  max %8.2f"
              "  (n=%zu)\n",
              Name, S.Median, S.P10, S.P90, S.Min, S.Max, V.size());
}

void printSeries(const char *Name, const std::vector<double> &V) {
  std::printf("%s:", Name);
  for (double X : V)
    std::printf(" %.1f", X);
  std::printf("\n");
}

size_t freeDeviceBytes() {
  size_t Free = 0, Total = 0;
  CUDA_CHECK(cudaMemGetInfo(&Free, &Total));
  return Free;
}

/// Round trips of a hand-off between this thread and another through a
/// mutex and condition variable, in microseconds each.
std::vector<double> handOffRoundTrips(int Warmup, int Count) {
  std::mutex Mutex;
  std::condition_variable Changed;
  bool Request = false, Reply = false, Stop = false;
  std::thread Worker([&] {
    std::unique_lock<std::mutex> Lock(Mutex);
    for (;;) {
      Changed.wait(Lock, [&] { return Request || Stop; });
      if (Stop)
        return;
      Request = false;
      Reply = true;
      Changed.notify_all();
    }
  });
  std::vector<double> Us;
  for (int I = 0; I < Warmup + Count; ++I) {
    double T0 = nowUs();
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      Request = true;
    }
    Changed.notify_all();
    {
      std::unique_lock<std::mutex> Lock(Mutex);
      Changed.wait(Lock, [&] { return Reply; });
      Reply = false;
    }
    if (I >= Warmup)
      Us.push_back(nowUs() - T0);
  }
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Stop = true;
  }
  Changed.notify_all();
  Worker.join();
  return Us;
}

//===----------------------------------------------------------------------===//
// The LibTorch graph patterns, as xfer-bench measures them.
//===----------------------------------------------------------------------===//

constexpr int OpCounts[] = {4, 8, 16, 32};

struct LineFit {
  double Slope = 0, Intercept = 0;
};

LineFit fitLine(const std::vector<double> &Y) {
  double N = double(Y.size()), Sx = 0, Sy = 0, Sxx = 0, Sxy = 0;
  for (size_t I = 0; I < Y.size(); ++I) {
    double X = OpCounts[I];
    Sx += X;
    Sy += Y[I];
    Sxx += X * X;
    Sxy += X * Y[I];
  }
  LineFit Fit;
  Fit.Slope = (N * Sxy - Sx * Sy) / (N * Sxx - Sx * Sx);
  Fit.Intercept = (Sy - Fit.Slope * Sx) / N;
  return Fit;
}

/// Host wall time per iteration, from the first call until the device has
/// drained (torchWallUsPerIteration in TorchBenchmarks.cpp).
template <typename Fn> double wallUsPerIteration(int Iterations, Fn &&F) {
  syncDevice();
  double T0 = nowUs();
  for (int I = 0; I < Iterations; ++I)
    F();
  syncDevice();
  return (nowUs() - T0) / Iterations;
}

/// captureTorchIteration in TorchBenchmarks.cpp: warm up on a side stream,
/// capture there.
void captureIteration(at::cuda::CUDAGraph &Graph,
                      const std::function<void()> &Iteration) {
  c10::cuda::CUDAStream Side = c10::cuda::getStreamFromPool();
  syncDevice();
  {
    c10::cuda::CUDAStreamGuard Guard(Side);
    for (int I = 0; I < 3; ++I)
      Iteration();
  }
  syncDevice();
  {
    c10::cuda::CUDAStreamGuard Guard(Side);
    Graph.capture_begin();
    Iteration();
    Graph.capture_end();
  }
  syncDevice();
}

/// One round's figures, in microseconds, as xfer-bench records them.
struct HarnessRound {
  double PlainEagerPerOp = 0, PlainReplayPerOp = 0; // torch.graph.*_per_op
  double AutogradEagerPerOp = 0, AutogradReplayPerOp = 0;
  double EagerBackward = 0, ReplayBackward = 0;
};

class Harness {
public:
  Harness() {
    auto Options = torch::TensorOptions().device(torch::kCUDA);
    {
      torch::NoGradGuard NoGrad;
      Value = torch::zeros({16}, Options);
      Step = torch::ones({16}, Options);
      for (int K : OpCounts) {
        Plain.push_back([this, K] {
          for (int I = 0; I < K; ++I)
            Value.add_(Step);
        });
        PlainGraphs.push_back(std::make_unique<at::cuda::CUDAGraph>());
        captureIteration(*PlainGraphs.back(), Plain.back());
      }
    }
    Parameter = torch::randn({16}, Options).requires_grad_(true);
    Factor = torch::ones({16}, Options);
    for (int K : OpCounts) {
      Autograd.push_back([this, K] {
        torch::Tensor Y = Parameter;
        for (int I = 0; I < K; ++I)
          Y = Y * Factor;
        Y.sum().backward();
      });
      AutogradGraphs.push_back(std::make_unique<at::cuda::CUDAGraph>());
      captureIteration(*AutogradGraphs.back(), Autograd.back());
    }
  }

  HarnessRound run(int Iterations) {
    const size_t Counts = std::size(OpCounts);
    std::vector<double> PE(Counts), PR(Counts), AE(Counts), AR(Counts);
    {
      torch::NoGradGuard NoGrad;
      for (size_t C = 0; C < Counts; ++C) {
        PE[C] = wallUsPerIteration(Iterations, Plain[C]);
        PR[C] =
            wallUsPerIteration(Iterations, [&] { PlainGraphs[C]->replay(); });
      }
    }
    for (size_t C = 0; C < Counts; ++C) {
      AE[C] = wallUsPerIteration(Iterations, Autograd[C]);
      AR[C] =
          wallUsPerIteration(Iterations, [&] { AutogradGraphs[C]->replay(); });
    }
    LineFit PEF = fitLine(PE), PRF = fitLine(PR), AEF = fitLine(AE),
            ARF = fitLine(AR);
    HarnessRound R;
    R.PlainEagerPerOp = PEF.Slope;
    R.PlainReplayPerOp = PRF.Slope;
    // Each unit of K is one forward and one backward operation; the
    // intercept less one unit (sum()) is the backward() call, never below 0.
    R.AutogradEagerPerOp = AEF.Slope / 2;
    R.AutogradReplayPerOp = ARF.Slope / 2;
    R.EagerBackward = std::max(0.0, AEF.Intercept - AEF.Slope);
    R.ReplayBackward = std::max(0.0, ARF.Intercept - ARF.Slope);
    return R;
  }

private:
  torch::Tensor Value, Step, Parameter, Factor;
  std::vector<std::function<void()>> Plain, Autograd;
  std::vector<std::unique_ptr<at::cuda::CUDAGraph>> PlainGraphs, AutogradGraphs;
};

/// xfer-tidy's prediction for the seed step (checks/cost/CostCitation.cpp,
/// estimateLaunchSaving) from figures of the same kind.
double seedPrediction(double PlainEager, double PlainReplay,
                      double AutogradEager, double AutogradReplay,
                      double BackwardEager, double BackwardReplay) {
  auto Saving = [](double E, double R) { return std::max(0.0, E - R); };
  return 8 * Saving(AutogradEager, AutogradReplay) +
         2 * Saving(PlainEager, PlainReplay) +
         Saving(BackwardEager, BackwardReplay);
}

//===----------------------------------------------------------------------===//
// The host's speed.
//===----------------------------------------------------------------------===//

volatile uint64_t ProbeSink = 0;

/// A fixed integer loop (xorshift), in microseconds.
double integerProbeUs() {
  double T0 = nowUs();
  uint64_t X = 88172645463325252ull;
  for (int I = 0; I < 200000; ++I) {
    X ^= X << 13;
    X ^= X >> 7;
    X ^= X << 17;
  }
  ProbeSink = X;
  return nowUs() - T0;
}

/// LibTorch's dispatch on the CPU: one addition of 16-float CPU tensors, in
/// microseconds (mean of 200).
double torchCpuProbeUs(const torch::Tensor &A, const torch::Tensor &B) {
  double T0 = nowUs();
  for (int I = 0; I < 200; ++I) {
    torch::Tensor C = A + B;
    ProbeSink = ProbeSink + uint64_t(C.numel());
  }
  return (nowUs() - T0) / 200;
}

double pearson(const std::vector<double> &X, const std::vector<double> &Y) {
  double N = double(X.size()), Mx = 0, My = 0;
  for (size_t I = 0; I < X.size(); ++I) {
    Mx += X[I] / N;
    My += Y[I] / N;
  }
  double Sxy = 0, Sxx = 0, Syy = 0;
  for (size_t I = 0; I < X.size(); ++I) {
    Sxy += (X[I] - Mx) * (Y[I] - My);
    Sxx += (X[I] - Mx) * (X[I] - Mx);
    Syy += (Y[I] - My) * (Y[I] - My);
  }
  return Sxx > 0 && Syy > 0 ? Sxy / std::sqrt(Sxx * Syy) : 0;
}

/// The first line of /proc/stat: total and steal jiffies (0, 0 when it
/// cannot be read).
std::pair<uint64_t, uint64_t> cpuJiffies() {
  std::ifstream Stat("/proc/stat");
  std::string Line, Cpu;
  if (!std::getline(Stat, Line))
    return {0, 0};
  std::istringstream In(Line);
  In >> Cpu;
  uint64_t Total = 0, Steal = 0, Field = 0;
  for (int I = 0; In >> Field; ++I) {
    if (I < 8) // user nice system idle iowait irq softirq steal
      Total += Field;
    if (I == 7)
      Steal = Field;
  }
  return {Total, Steal};
}

void printCensus(const char *What, const census::Counts &C, int Steps) {
  std::printf(
      "census %s: %llu kernels in %d steps (%.2f per step; %llu of "
      "them in graphs), %llu memsets, %llu memcpys, %llu records "
      "dropped\n",
      What, (unsigned long long)C.kernels(), Steps, double(C.kernels()) / Steps,
      (unsigned long long)C.KernelsInGraphs, (unsigned long long)C.Memsets,
      (unsigned long long)C.Memcpys, (unsigned long long)C.Dropped);
  for (const auto &Entry : C.Kernels)
    std::printf("  kernel  %6.2f/step  %s\n", double(Entry.second) / Steps,
                Entry.first.c_str());
  for (const auto &Entry : C.RuntimeApi)
    std::printf("  runtime %6.2f/step  %s\n", double(Entry.second) / Steps,
                Entry.first.c_str());
  for (const auto &Entry : C.DriverApi)
    std::printf("  driver  %6.2f/step  %s\n", double(Entry.second) / Steps,
                Entry.first.c_str());
}

} // namespace

int main(int argc, char **argv) {
  int Rounds = 30, Steps = 200, Threads = -1;
  bool Census = false;
  std::string Label = "default";
  for (int I = 1; I < argc; ++I) {
    auto Next = [&](const char *Flag) -> const char * {
      if (I + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", Flag);
        std::exit(1);
      }
      return argv[++I];
    };
    if (!std::strcmp(argv[I], "--rounds"))
      Rounds = std::atoi(Next("--rounds"));
    else if (!std::strcmp(argv[I], "--steps"))
      Steps = std::atoi(Next("--steps"));
    else if (!std::strcmp(argv[I], "--threads"))
      Threads = std::atoi(Next("--threads"));
    else if (!std::strcmp(argv[I], "--census"))
      Census = true;
    else if (!std::strcmp(argv[I], "--label"))
      Label = Next("--label");
    else {
      std::fprintf(stderr, "usage: seed_graph_measure [--rounds R] [--steps S] "
                           "[--threads T] [--census] [--label TEXT]\n");
      return 1;
    }
  }
  if (Rounds < 3 || Steps < 1) {
    std::fprintf(stderr, "--rounds must be at least 3, --steps at least 1\n");
    return 1;
  }
  if (!torch::cuda::is_available()) {
    std::fprintf(stderr, "seed_graph_measure: LibTorch sees no CUDA device\n");
    return 2;
  }
  if (Threads > 0)
    at::set_num_threads(Threads);

  int Device = 0, Driver = 0, Runtime = 0;
  cudaDeviceProp Prop;
  CUDA_CHECK(cudaGetDevice(&Device));
  CUDA_CHECK(cudaGetDeviceProperties(&Prop, Device));
  CUDA_CHECK(cudaDriverGetVersion(&Driver));
  CUDA_CHECK(cudaRuntimeGetVersion(&Runtime));
  cpu_set_t Affinity;
  CPU_ZERO(&Affinity);
  int Cpus = sched_getaffinity(0, sizeof(Affinity), &Affinity) == 0
                 ? CPU_COUNT(&Affinity)
                 : -1;
  std::printf("seed_graph_measure label=%s device=\"%s\" driver=%d runtime=%d "
              "libtorch=%s intraop_threads=%d interop_threads=%d "
              "cpus_allowed=%d main_thread_cpu=%d rounds=%d steps=%d\n",
              Label.c_str(), Prop.name, Driver, Runtime, TORCH_VERSION,
              at::get_num_threads(), at::get_num_interop_threads(), Cpus,
              sched_getcpu(), Rounds, Steps);

  torch::manual_seed(0);
  xferbench::SeedGraphExample Eager;
  xferbench::SeedGraphExample Replayed;

  // First-iteration effects: the first steps of a fresh instance, each
  // synchronized (cuBLAS handles, workspaces, the allocator's first blocks).
  std::vector<double> First;
  for (int I = 0; I < 5; ++I) {
    syncDevice();
    double T0 = nowUs();
    Eager.runEagerSteps(1);
    syncDevice();
    First.push_back(nowUs() - T0);
  }
  printSeries("first_eager_steps_us (each synchronized)", First);

  Replayed.capture();
  if (!Replayed.replayChangesWeights()) {
    std::fprintf(stderr, "seed_graph_measure: a replay left the weights "
                         "unchanged\n");
    return 2;
  }
  syncDevice();

  auto Time = [&](auto &&Run) {
    syncDevice();
    double T0 = nowUs();
    Run();
    syncDevice();
    return (nowUs() - T0) / Steps;
  };

  std::vector<double> HandOff = handOffRoundTrips(200, 2000);
  printSummary("thread hand-off round trip (mutex + condition variable), us",
               HandOff);

  Harness Patterns;
  torch::Tensor ProbeA = torch::ones({16}), ProbeB = torch::ones({16});
  const int HarnessIterations = 100;

  const size_t FreeBefore = freeDeviceBytes();
  const std::pair<uint64_t, uint64_t> JiffiesBefore = cpuJiffies();
  std::vector<HarnessRound> HarnessRounds;
  std::vector<double> PredictedUs, RatioUs, IntProbeUs, TorchProbeUs;
  std::vector<double> EagerUs, ReplayUs, SavingUs, PhasedUs;
  std::vector<double> WarmEager, WarmReplay;
  std::vector<double> ZeroGradUs, LinearUs, SubUs, PowUs, SumUs, ForwardUs,
      BackwardUs, StepUs;
  const int Warmup = 2;
  for (int R = -Warmup; R < Rounds; ++R) {
    double E = 0, G = 0, P = 0;
    xferbench::SeedGraphExample::PhaseTimesUs Phases;
    auto RunEager = [&] { E = Time([&] { Eager.runEagerSteps(Steps); }); };
    auto RunReplay = [&] { G = Time([&] { Replayed.replaySteps(Steps); }); };
    auto RunPhased = [&] {
      P = Time([&] { Eager.runEagerStepsPhased(Steps, Phases); });
    };
    HarnessRound H;
    double IntProbe = 0, TorchProbe = 0;
    auto RunHarness = [&] {
      H = Patterns.run(HarnessIterations);
      IntProbe = integerProbeUs();
      TorchProbe = torchCpuProbeUs(ProbeA, ProbeB);
    };
    if ((R & 1) == 0) {
      RunEager();
      RunReplay();
      RunHarness();
      RunPhased();
    } else {
      RunPhased();
      RunHarness();
      RunReplay();
      RunEager();
    }
    if (R < 0) {
      WarmEager.push_back(E);
      WarmReplay.push_back(G);
      continue;
    }
    EagerUs.push_back(E);
    ReplayUs.push_back(G);
    SavingUs.push_back(E - G);
    HarnessRounds.push_back(H);
    PredictedUs.push_back(seedPrediction(
        H.PlainEagerPerOp, H.PlainReplayPerOp, H.AutogradEagerPerOp,
        H.AutogradReplayPerOp, H.EagerBackward, H.ReplayBackward));
    RatioUs.push_back((E - G) / std::max(1e-9, PredictedUs.back()));
    IntProbeUs.push_back(IntProbe);
    TorchProbeUs.push_back(TorchProbe);
    PhasedUs.push_back(P);
    ZeroGradUs.push_back(Phases.ZeroGrad / Steps);
    LinearUs.push_back(Phases.Linear / Steps);
    SubUs.push_back(Phases.Sub / Steps);
    PowUs.push_back(Phases.Pow / Steps);
    SumUs.push_back(Phases.Sum / Steps);
    ForwardUs.push_back((Phases.Linear + Phases.Sub + Phases.Pow + Phases.Sum) /
                        Steps);
    BackwardUs.push_back(Phases.Backward / Steps);
    StepUs.push_back(Phases.OptimizerStep / Steps);
  }
  const size_t FreeAfter = freeDeviceBytes();
  const std::pair<uint64_t, uint64_t> JiffiesAfter = cpuJiffies();

  printSeries("warmup_eager_us_per_step", WarmEager);
  printSeries("warmup_replay_us_per_step", WarmReplay);
  printSeries("eager_us_per_step by round", EagerUs);
  printSeries("replay_us_per_step by round", ReplayUs);
  std::printf("per step, µs, over %d rounds of %d steps:\n", Rounds, Steps);
  printSummary("eager", EagerUs);
  printSummary("replay", ReplayUs);
  printSummary("saving (paired)", SavingUs);
  printSummary("eager, phased", PhasedUs);
  printSummary("  zero_grad host", ZeroGradUs);
  printSummary("  forward+loss host", ForwardUs);
  printSummary("    Linear forward", LinearUs);
  printSummary("    - (sub)", SubUs);
  printSummary("    pow(2)", PowUs);
  printSummary("    sum()", SumUs);
  printSummary("  backward() host", BackwardUs);
  printSummary("  optimizer step host", StepUs);
  std::printf("free device memory before/after the rounds: %zu / %zu bytes "
              "(change %lld)\n",
              FreeBefore, FreeAfter,
              (long long)FreeAfter - (long long)FreeBefore);

  // The patterns, over the rounds, as xfer-bench summarizes them (median of
  // the per-round fits), and the prediction from those medians.
  auto Column = [&](double HarnessRound::*Field) {
    std::vector<double> V;
    for (const HarnessRound &H : HarnessRounds)
      V.push_back(H.*Field);
    return V;
  };
  std::vector<double> PE = Column(&HarnessRound::PlainEagerPerOp),
                      PR = Column(&HarnessRound::PlainReplayPerOp),
                      AE = Column(&HarnessRound::AutogradEagerPerOp),
                      AR = Column(&HarnessRound::AutogradReplayPerOp),
                      BE = Column(&HarnessRound::EagerBackward),
                      BR = Column(&HarnessRound::ReplayBackward);
  std::printf("graph patterns in the same rounds (%d iterations per point, "
              "K = 4, 8, 16, 32), µs:\n",
              HarnessIterations);
  printSummary("torch.graph.eager_per_op", PE);
  printSummary("torch.graph.replay_per_op", PR);
  printSummary("autograd.eager_per_op", AE);
  printSummary("autograd.replay_per_op", AR);
  printSummary("autograd.eager_backward", BE);
  printSummary("autograd.replay_backward", BR);
  const double Predicted = seedPrediction(
      summarize(PE).Median, summarize(PR).Median, summarize(AE).Median,
      summarize(AR).Median, summarize(BE).Median, summarize(BR).Median);
  printSeries("predicted_us by round", PredictedUs);
  printSeries("saving_us by round", SavingUs);
  printSummary("predicted by round", PredictedUs);
  printSummary("measured/predicted", RatioUs);
  printSummary("cpu probe: int loop", IntProbeUs);
  printSummary("cpu probe: torch add", TorchProbeUs);
  std::printf("correlation over rounds: eager step ~ int loop %.2f, eager "
              "step ~ CPU torch add %.2f, eager step ~ autograd eager per op "
              "%.2f, saving ~ prediction %.2f\n",
              pearson(EagerUs, IntProbeUs), pearson(EagerUs, TorchProbeUs),
              pearson(EagerUs, AE), pearson(SavingUs, PredictedUs));
  const uint64_t TotalJiffies = JiffiesAfter.first - JiffiesBefore.first;
  const uint64_t StealJiffies = JiffiesAfter.second - JiffiesBefore.second;
  std::printf("steal time over the rounds (/proc/stat, all CPUs): %llu of "
              "%llu jiffies (%.2f%%)\n",
              (unsigned long long)StealJiffies,
              (unsigned long long)TotalJiffies,
              TotalJiffies ? 100.0 * double(StealJiffies) / TotalJiffies : 0.0);

  if (Census) {
    const int CensusSteps = 10;
    census::Counts EagerCounts, ReplayCounts;
    syncDevice();
    bool Ok = census::start();
    if (Ok) {
      Eager.runEagerSteps(CensusSteps);
      syncDevice();
      Ok = census::stop(EagerCounts);
    }
    if (Ok)
      Ok = census::start();
    if (Ok) {
      Replayed.replaySteps(CensusSteps);
      syncDevice();
      Ok = census::stop(ReplayCounts);
    }
    if (Ok) {
      printCensus("eager steps", EagerCounts, CensusSteps);
      printCensus("graph replays", ReplayCounts, CensusSteps);
      std::printf("CENSUS label=%s kernels_per_eager_step=%.2f "
                  "kernels_per_replay=%.2f\n",
                  Label.c_str(), double(EagerCounts.kernels()) / CensusSteps,
                  double(ReplayCounts.kernels()) / CensusSteps);
    } else {
      std::printf("census: CUPTI unavailable, no census\n");
    }
  }

  Summary E = summarize(EagerUs), G = summarize(ReplayUs),
          S = summarize(SavingUs), B = summarize(BackwardUs),
          H = summarize(HandOff), Ratio = summarize(RatioUs);
  std::printf("RESULT label=%s eager_median=%.2f eager_p10=%.2f "
              "eager_p90=%.2f replay_median=%.2f saving_median=%.2f "
              "saving_p10=%.2f saving_p90=%.2f backward_host_median=%.2f "
              "handoff_median=%.2f inround_predicted=%.2f "
              "ratio_median=%.3f ratio_p10=%.3f ratio_p90=%.3f rounds=%d "
              "steps=%d\n",
              Label.c_str(), E.Median, E.P10, E.P90, G.Median, S.Median, S.P10,
              S.P90, B.Median, H.Median, Predicted, Ratio.Median, Ratio.P10,
              Ratio.P90, Rounds, Steps);
  return 0;
}
