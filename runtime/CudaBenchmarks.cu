//===- CudaBenchmarks.cu - CUDA runtime patterns of xfer-bench ------------===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//
//
// Host-blocking costs are timed with std::chrono::steady_clock around the
// call; device timelines (graph replay, the spin kernel) with CUDA events.
// Every transfer walks through a large arena (rotatingOffset) so that
// neither CPU nor GPU caches hold the data from the previous repetition.
//
//===----------------------------------------------------------------------===//

#include "Benchmarks.h"
#include "CudaCheck.h"
#include "benchcore/HostTiming.h"
#include "benchcore/Sweep.h"
#include "reference-loops/CudaReadbackLoop.h"
#include "xfer/CostPatterns.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cuda_runtime.h>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

namespace xferbench {
namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB;

__global__ void emptyKernel() {}

__global__ void tinyKernel(float *Value) {
  if (threadIdx.x == 0 && blockIdx.x == 0)
    *Value += 1.0f;
}

__device__ unsigned long long globalTimerNs() {
  unsigned long long Time;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(Time));
  return Time;
}

/// One thread spins for \p DurationNs of wall time, then bumps *Sink so the
/// readback variant has a result that depends on the kernel. The clock64
/// bound (two cycles per ns at most four times over) only guarantees that
/// the kernel ends even if the global timer were stuck.
__global__ void spinKernel(unsigned long long DurationNs, float *Sink) {
  const unsigned long long Start = globalTimerNs();
  const long long StartCycles = clock64();
  const long long CycleBound = (long long)DurationNs * 8 + 100000;
  while (globalTimerNs() - Start < DurationNs &&
         clock64() - StartCycles < CycleBound) {
  }
  if (threadIdx.x == 0)
    *Sink += 1.0f;
}

/// Owns the buffers every group shares.
struct Buffers {
  size_t ArenaBytes = 0;
  unsigned char *Device = nullptr;
  unsigned char *Pinned = nullptr;
  std::vector<unsigned char> Pageable;
  float *DeviceValue = nullptr;
  cudaStream_t Stream = nullptr;

  explicit Buffers(size_t ArenaBytes) : ArenaBytes(ArenaBytes) {
    XFER_CUDA_CHECK(cudaMalloc(&Device, ArenaBytes));
    XFER_CUDA_CHECK(cudaMemset(Device, 0x5a, ArenaBytes));
    XFER_CUDA_CHECK(cudaHostAlloc(&Pinned, ArenaBytes, cudaHostAllocDefault));
    std::memset(Pinned, 0x3c, ArenaBytes);
    // Touch every page now so page faults stay out of the timings.
    Pageable.assign(ArenaBytes, 0x7e);
    XFER_CUDA_CHECK(cudaMalloc(&DeviceValue, sizeof(float)));
    XFER_CUDA_CHECK(cudaMemset(DeviceValue, 0, sizeof(float)));
    // A blocking stream: the legacy default stream (plain cudaMemcpy)
    // orders after its work, as in ordinary user code.
    XFER_CUDA_CHECK(cudaStreamCreate(&Stream));
    XFER_CUDA_CHECK(cudaDeviceSynchronize());
  }
  ~Buffers() {
    XFER_CUDA_CHECK(cudaStreamDestroy(Stream));
    XFER_CUDA_CHECK(cudaFree(DeviceValue));
    XFER_CUDA_CHECK(cudaFreeHost(Pinned));
    XFER_CUDA_CHECK(cudaFree(Device));
  }
  Buffers(const Buffers &) = delete;
  Buffers &operator=(const Buffers &) = delete;

  float readValue() const {
    float Value = 0;
    XFER_CUDA_CHECK(
        cudaMemcpy(&Value, DeviceValue, sizeof(float), cudaMemcpyDeviceToHost));
    return Value;
  }
  void resetValue() const {
    XFER_CUDA_CHECK(cudaMemset(DeviceValue, 0, sizeof(float)));
    XFER_CUDA_CHECK(cudaDeviceSynchronize());
  }
};

double eventElapsedUs(cudaEvent_t Start, cudaEvent_t Stop) {
  float Ms = 0;
  XFER_CUDA_CHECK(cudaEventElapsedTime(&Ms, Start, Stop));
  return double(Ms) * 1000.0;
}

/// Large transfers need fewer repetitions and warm-ups to be stable.
RepetitionPolicy transferPolicy(const BenchSession &Session, uint64_t Bytes) {
  if (Bytes >= 16 * MiB)
    return Session.policy(/*BudgetMs=*/150, /*MinReps=*/10, /*MaxReps=*/200,
                          /*Warmup=*/2);
  return Session.policy(/*BudgetMs=*/150, /*MinReps=*/30, /*MaxReps=*/3000,
                        /*Warmup=*/10);
}

std::vector<uint64_t> transferSizes(const BenchSession &Session) {
  return Session.quick() ? geometricSizes(4, 64 * MiB, 16)
                         : geometricSizes(4, 256 * MiB, 4);
}

//===----------------------------------------------------------------------===//
// Blocking cudaMemcpy, pageable and pinned, both directions.
//===----------------------------------------------------------------------===//

/// A copy direction and the kind of host memory it uses.
struct CopyVariant {
  const char *Id;
  cudaMemcpyKind Kind;
  bool PinnedHost;
};

const char *directionName(cudaMemcpyKind Kind) {
  return Kind == cudaMemcpyDeviceToHost ? "device->host" : "host->device";
}

/// Records one sized pattern per variant: \p TimeCopy times one copy of
/// \p Bytes from \p Src to \p Dst, at rotating offsets so caches do not
/// flatter the numbers.
template <typename TimeCopyFn, typename DescribeFn>
void measureCopyVariants(BenchSession &Session, Buffers &B,
                         std::initializer_list<CopyVariant> Variants,
                         bool ReportsBandwidth, DescribeFn Describe,
                         TimeCopyFn TimeCopy) {
  for (const CopyVariant &V : Variants) {
    if (!Session.wants(V.Id))
      continue;
    LatencyPattern Pattern;
    Pattern.Id = V.Id;
    Pattern.Description = Describe(V);
    Pattern.Sized = true;
    Pattern.ReportsBandwidth = ReportsBandwidth;
    unsigned char *Host = V.PinnedHost ? B.Pinned : B.Pageable.data();
    for (uint64_t Bytes : transferSizes(Session)) {
      size_t Rep = 0;
      SampleSummary S = collectSamples(transferPolicy(Session, Bytes), [&] {
        size_t Offset = rotatingOffset(Rep++, Bytes, B.ArenaBytes);
        bool ToHost = V.Kind == cudaMemcpyDeviceToHost;
        unsigned char *Dst = ToHost ? Host + Offset : B.Device + Offset;
        const unsigned char *Src = ToHost ? B.Device + Offset : Host + Offset;
        return TimeCopy(Dst, Src, Bytes, V.Kind);
      });
      Pattern.Points.push_back({Bytes, S});
    }
    Session.record(std::move(Pattern));
  }
}

void measureBlockingCopies(BenchSession &Session, Buffers &B) {
  measureCopyVariants(
      Session, B,
      {{xfer::patterns::CudaMemcpyD2HPageable, cudaMemcpyDeviceToHost, false},
       {xfer::patterns::CudaMemcpyD2HPinned, cudaMemcpyDeviceToHost, true},
       {xfer::patterns::CudaMemcpyH2DPageable, cudaMemcpyHostToDevice, false},
       {xfer::patterns::CudaMemcpyH2DPinned, cudaMemcpyHostToDevice, true}},
      /*ReportsBandwidth=*/true,
      [](const CopyVariant &V) {
        return std::string("blocking cudaMemcpy ") + directionName(V.Kind) +
               " with a " + (V.PinnedHost ? "pinned" : "pageable") +
               " host buffer, idle device; host time until the call returns";
      },
      [](unsigned char *Dst, const unsigned char *Src, uint64_t Bytes,
         cudaMemcpyKind Kind) {
        double Start = nowUs();
        XFER_CUDA_CHECK(cudaMemcpy(Dst, Src, Bytes, Kind));
        return nowUs() - Start;
      });
}

//===----------------------------------------------------------------------===//
// cudaMemcpyAsync: how long until the call returns.
//===----------------------------------------------------------------------===//

void measureAsyncCopyReturn(BenchSession &Session, Buffers &B) {
  measureCopyVariants(
      Session, B,
      {{xfer::patterns::CudaMemcpyAsyncH2DPageableReturn,
        cudaMemcpyHostToDevice, false},
       {xfer::patterns::CudaMemcpyAsyncH2DPinnedReturn, cudaMemcpyHostToDevice,
        true},
       {xfer::patterns::CudaMemcpyAsyncD2HPageableReturn,
        cudaMemcpyDeviceToHost, false},
       {xfer::patterns::CudaMemcpyAsyncD2HPinnedReturn, cudaMemcpyDeviceToHost,
        true}},
      /*ReportsBandwidth=*/false,
      [](const CopyVariant &V) {
        return std::string("host time for cudaMemcpyAsync ") +
               directionName(V.Kind) + " on a stream to return, " +
               (V.PinnedHost ? "pinned" : "pageable") +
               " host buffer (the copy is then awaited outside the timing)";
      },
      [&B](unsigned char *Dst, const unsigned char *Src, uint64_t Bytes,
           cudaMemcpyKind Kind) {
        double Start = nowUs();
        XFER_CUDA_CHECK(cudaMemcpyAsync(Dst, Src, Bytes, Kind, B.Stream));
        double Elapsed = nowUs() - Start;
        XFER_CUDA_CHECK(cudaStreamSynchronize(B.Stream));
        return Elapsed;
      });
}

//===----------------------------------------------------------------------===//
// Synchronization calls, idle and right after a tiny kernel.
//===----------------------------------------------------------------------===//

void measureSyncs(BenchSession &Session, Buffers &B) {
  cudaEvent_t Event;
  XFER_CUDA_CHECK(cudaEventCreate(&Event));
  const RepetitionPolicy Policy = Session.policy(
      /*BudgetMs=*/200, /*MinReps=*/200, /*MaxReps=*/20000, /*Warmup=*/50);

  enum class Call { Device, Stream, Event };
  auto Sync = [&](Call C) {
    switch (C) {
    case Call::Device:
      XFER_CUDA_CHECK(cudaDeviceSynchronize());
      break;
    case Call::Stream:
      XFER_CUDA_CHECK(cudaStreamSynchronize(B.Stream));
      break;
    case Call::Event:
      XFER_CUDA_CHECK(cudaEventSynchronize(Event));
      break;
    }
  };
  struct Variant {
    const char *Id;
    Call C;
    bool AfterKernel;
    const char *Description;
  };
  const Variant Variants[] = {
      {xfer::patterns::CudaDeviceSynchronize, Call::Device, true,
       "cudaDeviceSynchronize right after launching a tiny kernel; host "
       "time of the sync call alone (includes waiting for that kernel)"},
      {"cuda.device_synchronize.idle", Call::Device, false,
       "cudaDeviceSynchronize on an idle device"},
      {xfer::patterns::CudaStreamSynchronize, Call::Stream, true,
       "cudaStreamSynchronize right after launching a tiny kernel on the "
       "stream; host time of the sync call alone"},
      {"cuda.stream_synchronize.idle", Call::Stream, false,
       "cudaStreamSynchronize on an idle stream"},
      {xfer::patterns::CudaEventSynchronize, Call::Event, true,
       "cudaEventSynchronize on an event recorded right after a tiny "
       "kernel; host time of the sync call alone"},
      {"cuda.event_synchronize.idle", Call::Event, false,
       "cudaEventSynchronize on an event that has completed"},
  };
  for (const Variant &V : Variants) {
    if (!Session.wants(V.Id))
      continue;
    SampleSummary S = collectSamples(Policy, [&] {
      if (V.AfterKernel) {
        tinyKernel<<<1, 1, 0, B.Stream>>>(B.DeviceValue);
        XFER_CUDA_CHECK_LAUNCH();
      }
      if (V.C == Call::Event)
        XFER_CUDA_CHECK(cudaEventRecord(Event, B.Stream));
      if (!V.AfterKernel)
        XFER_CUDA_CHECK(cudaStreamSynchronize(B.Stream));
      double Start = nowUs();
      Sync(V.C);
      return nowUs() - Start;
    });
    LatencyPattern Pattern;
    Pattern.Id = V.Id;
    Pattern.Description = V.Description;
    Pattern.Points.push_back({std::nullopt, S});
    Session.record(std::move(Pattern));
  }

  if (Session.wants("cuda.launch_sync_round_trip")) {
    SampleSummary S = collectSamples(Policy, [&] {
      double Start = nowUs();
      tinyKernel<<<1, 1, 0, B.Stream>>>(B.DeviceValue);
      XFER_CUDA_CHECK_LAUNCH();
      XFER_CUDA_CHECK(cudaStreamSynchronize(B.Stream));
      return nowUs() - Start;
    });
    LatencyPattern Pattern;
    Pattern.Id = "cuda.launch_sync_round_trip";
    Pattern.Description = "launch a tiny kernel and cudaStreamSynchronize: "
                          "host time of both calls together";
    Pattern.Points.push_back({std::nullopt, S});
    Session.record(std::move(Pattern));
  }
  XFER_CUDA_CHECK(cudaEventDestroy(Event));
}

//===----------------------------------------------------------------------===//
// Kernel launch overhead and cudaMalloc/cudaFree.
//===----------------------------------------------------------------------===//

void measureLaunchAndAllocation(BenchSession &Session, Buffers &B) {
  if (Session.wants(xfer::patterns::CudaKernelLaunch)) {
    constexpr int LaunchesPerSample = 1000;
    SampleSummary S = collectSamples(
        Session.policy(/*BudgetMs=*/300, /*MinReps=*/20, /*MaxReps=*/200,
                       /*Warmup=*/3),
        [&] {
          double Start = nowUs();
          for (int I = 0; I < LaunchesPerSample; ++I)
            emptyKernel<<<1, 1, 0, B.Stream>>>();
          double Elapsed = nowUs() - Start;
          XFER_CUDA_CHECK_LAUNCH();
          XFER_CUDA_CHECK(cudaStreamSynchronize(B.Stream));
          return Elapsed / LaunchesPerSample;
        });
    LatencyPattern Pattern;
    Pattern.Id = xfer::patterns::CudaKernelLaunch;
    Pattern.Description = "host time per launch of an empty <<<1,1>>> kernel, "
                          "launched back to back on one stream";
    Pattern.Params = JsonValue::object();
    Pattern.Params.set("launches_per_sample", LaunchesPerSample);
    Pattern.Points.push_back({std::nullopt, S});
    Session.record(std::move(Pattern));
  }

  if (Session.wants(xfer::patterns::CudaMallocFree)) {
    LatencyPattern Pattern;
    Pattern.Id = xfer::patterns::CudaMallocFree;
    Pattern.Description = "cudaMalloc followed by cudaFree of the same size; "
                          "host time of the pair";
    Pattern.Sized = true;
    for (uint64_t Bytes : transferSizes(Session)) {
      SampleSummary S = collectSamples(
          Session.policy(/*BudgetMs=*/100, /*MinReps=*/10, /*MaxReps=*/500,
                         /*Warmup=*/3),
          [&] {
            void *Pointer = nullptr;
            double Start = nowUs();
            XFER_CUDA_CHECK(cudaMalloc(&Pointer, Bytes));
            XFER_CUDA_CHECK(cudaFree(Pointer));
            return nowUs() - Start;
          });
      Pattern.Points.push_back({Bytes, S});
    }
    Session.record(std::move(Pattern));
  }
}

//===----------------------------------------------------------------------===//
// K small kernels per iteration: eager launches vs one graph replay.
//===----------------------------------------------------------------------===//

/// The launches per iteration the graph sweep fits its line through.
constexpr int GraphLaunchCounts[] = {4, 8, 16, 32};

/// Host wall time per iteration of \p Iterations iterations, from the first
/// launch until the stream has drained: what a loop's caller waits for.
template <typename IterationFn>
double wallUsPerIteration(cudaStream_t Stream, int Iterations,
                          IterationFn &&Iteration) {
  XFER_CUDA_CHECK(cudaStreamSynchronize(Stream));
  const double Start = nowUs();
  for (int I = 0; I < Iterations; ++I)
    Iteration();
  XFER_CUDA_CHECK(cudaStreamSynchronize(Stream));
  return (nowUs() - Start) / Iterations;
}

/// The saving a capture realises is host wall time: an eager iteration of K
/// tiny kernels costs K launches, a replayed one a single cudaGraphLaunch.
/// For each K the eager loop and the replay loop alternate (slow drift hits
/// both alike); every repetition fits a line through the four K, and its
/// slope is the cost per launch. (The intercepts, what an iteration pays
/// once, are a microsecond or two and too noisy to record: the eager one
/// comes out negative in some repetitions.)
void measureGraphs(BenchSession &Session, Buffers &B) {
  if (!Session.wantsGroup("cuda.graph."))
    return;
  const int Iterations = Session.quick() ? 50 : 200;
  const int Reps = Session.quick() ? 3 : 15;
  constexpr int Warmup = 2;
  constexpr size_t Counts = std::size(GraphLaunchCounts);

  cudaGraphExec_t Execs[Counts];
  for (size_t C = 0; C < Counts; ++C) {
    cudaGraph_t Graph;
    XFER_CUDA_CHECK(
        cudaStreamBeginCapture(B.Stream, cudaStreamCaptureModeThreadLocal));
    for (int K = 0; K < GraphLaunchCounts[C]; ++K)
      tinyKernel<<<1, 1, 0, B.Stream>>>(B.DeviceValue);
    XFER_CUDA_CHECK_LAUNCH();
    XFER_CUDA_CHECK(cudaStreamEndCapture(B.Stream, &Graph));
    XFER_CUDA_CHECK(cudaGraphInstantiate(&Execs[C], Graph, 0));
    XFER_CUDA_CHECK(cudaGraphDestroy(Graph));
  }

  B.resetValue();
  double KernelsRun = 0;
  std::vector<double> X(std::begin(GraphLaunchCounts),
                        std::end(GraphLaunchCounts));
  std::vector<double> EagerSlope, ReplaySlope, SavingSlope;
  std::vector<std::vector<double>> EagerAt(Counts), ReplayAt(Counts);
  for (int Rep = -Warmup; Rep < Reps; ++Rep) {
    std::vector<double> Eager(Counts), Replay(Counts);
    for (size_t C = 0; C < Counts; ++C) {
      const int Launches = GraphLaunchCounts[C];
      Eager[C] = wallUsPerIteration(B.Stream, Iterations, [&] {
        for (int K = 0; K < Launches; ++K)
          tinyKernel<<<1, 1, 0, B.Stream>>>(B.DeviceValue);
      });
      XFER_CUDA_CHECK_LAUNCH();
      Replay[C] = wallUsPerIteration(B.Stream, Iterations, [&] {
        XFER_CUDA_CHECK(cudaGraphLaunch(Execs[C], B.Stream));
      });
      KernelsRun += 2.0 * Iterations * Launches;
    }
    if (Rep < 0)
      continue;
    for (size_t C = 0; C < Counts; ++C) {
      EagerAt[C].push_back(Eager[C]);
      ReplayAt[C].push_back(Replay[C]);
    }
    LineFit EagerFit = fitLine(X, Eager), ReplayFit = fitLine(X, Replay);
    EagerSlope.push_back(EagerFit.Slope);
    ReplaySlope.push_back(ReplayFit.Slope);
    SavingSlope.push_back(EagerFit.Slope - ReplayFit.Slope);
  }
  Session.check(B.readValue() == float(KernelsRun),
                "every eagerly launched and every replayed kernel ran");

  SampleSummary LaunchHost = collectSamples(
      Session.policy(/*BudgetMs=*/100, /*MinReps=*/20, /*MaxReps=*/200,
                     /*Warmup=*/3),
      [&] {
        double Begin = nowUs();
        XFER_CUDA_CHECK(cudaGraphLaunch(Execs[Counts - 1], B.Stream));
        double Elapsed = nowUs() - Begin;
        XFER_CUDA_CHECK(cudaStreamSynchronize(B.Stream));
        return Elapsed;
      });

  auto Setup = [&] {
    JsonValue Params = JsonValue::object();
    JsonValue Launches = JsonValue::array();
    for (int K : GraphLaunchCounts)
      Launches.push(K);
    Params.set("kernel", "<<<1, 1>>>, one thread adds 1 to a float");
    Params.set("launches_per_iteration", std::move(Launches));
    Params.set("iterations_per_sample", Iterations);
    Params.set("fit", "least squares over launches_per_iteration, one fit "
                      "per repetition");
    return Params;
  };
  auto Record = [&](const char *Id, const std::string &Description,
                    const std::vector<double> &Samples, const char *Timer,
                    JsonValue Params) {
    if (!Session.wants(Id))
      return;
    LatencyPattern Pattern;
    Pattern.Id = Id;
    Pattern.Description = Description;
    Pattern.Timer = Timer;
    Pattern.Params = std::move(Params);
    Pattern.Points.push_back({std::nullopt, summarize(Samples, Warmup)});
    Session.record(std::move(Pattern));
  };
  Record(xfer::patterns::CudaGraphEagerPerKernel,
         "tiny kernels launched one by one in a loop: host wall time per "
         "iteration (until the stream drains), slope over the launches per "
         "iteration",
         EagerSlope, HostClockTimer, Setup());
  Record(xfer::patterns::CudaGraphReplayPerKernel,
         "the same iterations replayed as one captured graph each "
         "(cudaGraphLaunch): host wall time per iteration, slope over the "
         "kernels per graph",
         ReplaySlope, HostClockTimer, Setup());
  Record("cuda.graph.saving_per_kernel",
         "eager_per_kernel minus replay_per_kernel, paired by repetition",
         SavingSlope, HostClockTimer, Setup());
  for (size_t C = 0; C < Counts; ++C) {
    const std::string K = std::to_string(GraphLaunchCounts[C]);
    JsonValue Params = JsonValue::object();
    Params.set("launches_per_iteration", GraphLaunchCounts[C]);
    Params.set("iterations_per_sample", Iterations);
    Record(("cuda.graph.eager_iteration.k" + K).c_str(),
           K + " tiny kernels launched one by one: host wall time per "
               "iteration",
           EagerAt[C], HostClockTimer, Params);
    Record(("cuda.graph.replay_iteration.k" + K).c_str(),
           "the same " + K +
               " kernels replayed as one graph: host wall time per iteration",
           ReplayAt[C], HostClockTimer, Params);
  }
  if (Session.wants("cuda.graph.launch_host")) {
    LatencyPattern Pattern;
    Pattern.Id = "cuda.graph.launch_host";
    Pattern.Description = "host time of one cudaGraphLaunch call (32-kernel "
                          "graph), until the call returns";
    Pattern.Points.push_back({std::nullopt, LaunchHost});
    Session.record(std::move(Pattern));
  }
  for (cudaGraphExec_t Exec : Execs)
    XFER_CUDA_CHECK(cudaGraphExecDestroy(Exec));
}

//===----------------------------------------------------------------------===//
// The overlap a per-iteration sync destroys.
//===----------------------------------------------------------------------===//

enum class LoopSync { None, StreamSynchronize, ReadbackMemcpy };

/// Where the host work of an iteration sits relative to its launch.
enum class HostWork {
  /// Host work prepares the launch (data, arguments): a sync at the end of
  /// the iteration serializes all of it with the GPU work.
  BeforeLaunch,
  /// Host work runs while the kernel executes: the sync only adds its
  /// latency and the GPU's idle gap before the next launch.
  AfterLaunch,
};

/// One timed run of the calibrated loop; returns host time per iteration.
double runOverlapLoop(Buffers &B, LoopSync Sync, HostWork Order, double HostUs,
                      double DeviceUs, int Iterations) {
  const unsigned long long DeviceNs =
      (unsigned long long)std::llround(DeviceUs * 1000.0);
  float HostResult = 0;
  XFER_CUDA_CHECK(cudaStreamSynchronize(B.Stream));
  const double Start = nowUs();
  for (int I = 0; I < Iterations; ++I) {
    if (Order == HostWork::BeforeLaunch)
      spinHostUs(HostUs);
    spinKernel<<<1, 1, 0, B.Stream>>>(DeviceNs, B.DeviceValue);
    XFER_CUDA_CHECK_LAUNCH();
    if (Order == HostWork::AfterLaunch)
      spinHostUs(HostUs);
    if (Sync == LoopSync::StreamSynchronize)
      XFER_CUDA_CHECK(cudaStreamSynchronize(B.Stream));
    else if (Sync == LoopSync::ReadbackMemcpy)
      XFER_CUDA_CHECK(cudaMemcpy(&HostResult, B.DeviceValue, sizeof(float),
                                 cudaMemcpyDeviceToHost));
  }
  XFER_CUDA_CHECK(cudaStreamSynchronize(B.Stream));
  return (nowUs() - Start) / Iterations;
}

/// Event-timed length of the spin kernel for a requested duration, as it
/// runs in the loops: back to back (a lone kernel between two events also
/// counts the events' own overhead, about 4 us).
double measureSpinKernelUs(Buffers &B, double DeviceUs) {
  constexpr int KernelsPerSample = 10;
  cudaEvent_t Start, Stop;
  XFER_CUDA_CHECK(cudaEventCreate(&Start));
  XFER_CUDA_CHECK(cudaEventCreate(&Stop));
  std::vector<double> Samples;
  for (int I = 0; I < 7; ++I) {
    XFER_CUDA_CHECK(cudaEventRecord(Start, B.Stream));
    for (int K = 0; K < KernelsPerSample; ++K)
      spinKernel<<<1, 1, 0, B.Stream>>>(
          (unsigned long long)std::llround(DeviceUs * 1000.0), B.DeviceValue);
    XFER_CUDA_CHECK_LAUNCH();
    XFER_CUDA_CHECK(cudaEventRecord(Stop, B.Stream));
    XFER_CUDA_CHECK(cudaEventSynchronize(Stop));
    Samples.push_back(eventElapsedUs(Start, Stop) / KernelsPerSample);
  }
  XFER_CUDA_CHECK(cudaEventDestroy(Start));
  XFER_CUDA_CHECK(cudaEventDestroy(Stop));
  return summarize(Samples).MedianUs;
}

/// The four grids: {stream sync, 4-byte readback} x {host work before the
/// launch, host work after it}.
struct OverlapGridSpec {
  const char *Id;
  LoopSync Sync;
  HostWork Order;
};
constexpr OverlapGridSpec OverlapGrids[] = {
    {xfer::patterns::LoopSyncOverlap, LoopSync::StreamSynchronize,
     HostWork::BeforeLaunch},
    {xfer::patterns::LoopSyncOverlapMemcpyD2H4B, LoopSync::ReadbackMemcpy,
     HostWork::BeforeLaunch},
    {xfer::patterns::LoopSyncOverlapLaunchFirst, LoopSync::StreamSynchronize,
     HostWork::AfterLaunch},
    {xfer::patterns::LoopSyncOverlapMemcpyD2H4BLaunchFirst,
     LoopSync::ReadbackMemcpy, HostWork::AfterLaunch},
};

OverlapGrid describeGrid(const OverlapGridSpec &Spec,
                         const std::vector<double> &Amounts) {
  OverlapGrid Grid;
  Grid.Id = Spec.Id;
  Grid.Sync = Spec.Sync == LoopSync::StreamSynchronize
                  ? "cudaStreamSynchronize(stream)"
                  : "cudaMemcpy of 4 bytes device->host into pageable memory "
                    "(legacy default stream)";
  const std::string Body =
      Spec.Order == HostWork::BeforeLaunch
          ? "{spin host for host_us; launch a spin kernel of device_us; "
            "sync}"
          : "{launch a spin kernel of device_us; spin host for host_us; "
            "sync}";
  Grid.Description =
      "loop of " + Body + " where sync is " + Grid.Sync +
      ". per_iteration_cost_us = time per iteration with the sync minus "
      "without it (paired, interleaved repetitions): the sync's own latency "
      "plus the host/device overlap it destroys";
  Grid.HostUs = Amounts;
  Grid.DeviceUs = Amounts;
  return Grid;
}

void measureSyncOverlap(BenchSession &Session, Buffers &B) {
  std::vector<const OverlapGridSpec *> Wanted;
  for (const OverlapGridSpec &Spec : OverlapGrids)
    if (Session.wants(Spec.Id))
      Wanted.push_back(&Spec);
  if (Wanted.empty())
    return;
  const std::vector<double> Amounts =
      Session.quick() ? std::vector<double>{0, 30, 300}
                      : std::vector<double>{0, 10, 30, 100, 300, 1000};
  const int Reps = Session.quick() ? 2 : 5;
  const double TargetRunUs = Session.quick() ? 4000 : 20000;

  std::vector<double> SpinMeasuredUs;
  for (double DeviceUs : Amounts) {
    double Measured = measureSpinKernelUs(B, DeviceUs);
    SpinMeasuredUs.push_back(Measured);
    if (DeviceUs >= 10)
      Session.check(Measured >= 0.95 * DeviceUs &&
                        Measured <= 1.05 * DeviceUs + 3.0,
                    "spin kernel of " + std::to_string(int(DeviceUs)) +
                        " us measures " + std::to_string(Measured) + " us");
  }

  std::vector<OverlapGrid> Grids;
  for (const OverlapGridSpec *Spec : Wanted)
    Grids.push_back(describeGrid(*Spec, Amounts));

  for (double HostUs : Amounts) {
    for (size_t DIndex = 0; DIndex < Amounts.size(); ++DIndex) {
      const double DeviceUs = Amounts[DIndex];
      const int Iterations =
          std::clamp(int(TargetRunUs / (HostUs + DeviceUs + 10.0)),
                     Session.quick() ? 5 : 20, 200);
      for (size_t G = 0; G < Wanted.size(); ++G) {
        const OverlapGridSpec &Spec = *Wanted[G];
        std::vector<double> NoSync, WithSync;
        // One untimed round first; then the two variants alternate so that
        // slow drift (clocks, other tenants) hits both alike.
        for (int Rep = -1; Rep < Reps; ++Rep) {
          double N = runOverlapLoop(B, LoopSync::None, Spec.Order, HostUs,
                                    DeviceUs, Iterations);
          double S = runOverlapLoop(B, Spec.Sync, Spec.Order, HostUs, DeviceUs,
                                    Iterations);
          if (Rep < 0)
            continue;
          NoSync.push_back(N);
          WithSync.push_back(S);
        }
        OverlapCell Cell;
        Cell.HostUs = HostUs;
        Cell.DeviceUs = DeviceUs;
        Cell.DeviceMeasuredUs = SpinMeasuredUs[DIndex];
        Cell.Iterations = unsigned(Iterations);
        Cell.NoSync = summarize(NoSync, 1);
        Cell.WithSync = summarize(WithSync, 1);
        Cell.Cost = summarize(pairedDifferences(WithSync, NoSync), 1);
        Grids[G].Cells.push_back(Cell);
      }
    }
  }
  for (OverlapGrid &Grid : Grids)
    Session.record(std::move(Grid));
}

//===----------------------------------------------------------------------===//
// Fidelity: the CUDA reference loop, hazard vs fixes.
//===----------------------------------------------------------------------===//

void measureReadbackReferenceLoop(BenchSession &Session) {
  if (!Session.wantsGroup("fidelity.cuda_readback_loop"))
    return;
  constexpr int Size = 1 << 20;
  constexpr int CheckInterval = 100;
  const int Iterations = Session.quick() ? 200 : 1000;
  const int Reps = Session.quick() ? 2 : 7;
  // Tolerance 0 never ends a loop early: every variant runs all iterations.
  constexpr float NeverConverged = 0.0f;

  RelaxationProblem Problem = createRelaxationProblem(Size);
  std::vector<double> Hazard, Every, Once;
  std::vector<float> Reference;
  bool SameResults = true;
  auto Timed = [&](auto &&Run) {
    resetRelaxationProblem(Problem);
    double Start = nowUs();
    Run();
    XFER_CUDA_CHECK(cudaDeviceSynchronize());
    double PerIteration = (nowUs() - Start) / Iterations;
    std::vector<float> Solution = readSolution(Problem);
    if (Reference.empty())
      Reference = Solution;
    else
      SameResults &= Solution == Reference;
    return PerIteration;
  };
  for (int Rep = -1; Rep < Reps; ++Rep) {
    double H = Timed([&] {
      relaxCheckingEveryIteration(Problem, Iterations, NeverConverged);
    });
    double E = Timed([&] {
      relaxCheckingEvery(Problem, Iterations, NeverConverged, CheckInterval);
    });
    double O = Timed([&] { relaxThenCheckOnce(Problem, Iterations); });
    if (Rep < 0)
      continue;
    Hazard.push_back(H);
    Every.push_back(E);
    Once.push_back(O);
  }
  destroyRelaxationProblem(Problem);
  Session.check(SameResults, "the relaxation variants compute bit-identical "
                             "solutions");

  auto Record = [&](const char *Id, const char *FixedFunction, const char *Fix,
                    const std::vector<double> &Fixed) {
    FidelityRecord R;
    R.Id = Id;
    R.Source = "runtime/reference-loops/CudaReadbackLoop.cu";
    R.HazardFunction = "relaxCheckingEveryIteration";
    R.FixedFunction = FixedFunction;
    R.Hazard = "4-byte cudaMemcpy device->host of the residual after the "
               "three kernels of every iteration (2^20 unknowns)";
    R.Fix = Fix;
    R.Device = "cuda";
    R.Iterations = Iterations;
    R.HazardIteration = summarize(Hazard, 1);
    R.FixedIteration = summarize(Fixed, 1);
    R.Saving = summarize(pairedDifferences(Hazard, Fixed), 1);
    Session.record(std::move(R));
  };
  Record("cuda_readback_loop.every_100", "relaxCheckingEvery",
         "read the residual every 100 iterations", Every);
  Record("cuda_readback_loop.after_loop", "relaxThenCheckOnce",
         "read the residual once after the loop", Once);
}

} // namespace

void runCudaBenchmarks(BenchSession &Session) {
  const size_t ArenaBytes = Session.quick() ? 128 * MiB : 512 * MiB;
  {
    Buffers B(ArenaBytes);
    BenchSession::log("-- synchronization calls");
    measureSyncs(Session, B);
    BenchSession::log("-- kernel launch, cudaMalloc/cudaFree");
    measureLaunchAndAllocation(Session, B);
    BenchSession::log("-- eager launches vs graph replay");
    measureGraphs(Session, B);
    Session.saveProgress();
    BenchSession::log("-- blocking cudaMemcpy sweep");
    measureBlockingCopies(Session, B);
    BenchSession::log("-- cudaMemcpyAsync return time sweep");
    measureAsyncCopyReturn(Session, B);
    Session.saveProgress();
    BenchSession::log("-- sync overlap grid");
    measureSyncOverlap(Session, B);
    Session.saveProgress();
  }
  BenchSession::log("-- reference loop: residual readback");
  measureReadbackReferenceLoop(Session);
  Session.saveProgress();
}

} // namespace xferbench
