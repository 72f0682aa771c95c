//===- TorchBenchmarks.cpp - LibTorch patterns of xfer-bench --------------===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//
//
// LibTorch ops that synchronize or copy, the seed tutorial's loops and
// tables, and the LibTorch reference loops. All host-side timings: what a
// LibTorch program loses is host time blocked in the call.
//
//===----------------------------------------------------------------------===//

#include "Benchmarks.h"
#include "benchcore/HostTiming.h"
#include "reference-loops/SeedGraphExample.h"
#include "reference-loops/SeedTrainingLoop.h"
#include "reference-loops/TorchInferenceLoop.h"
#include "xfer/CostPatterns.h"

#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/cuda.h>
#include <torch/torch.h>
#include <torch/version.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <memory>
#include <sstream>

namespace xferbench {

bool haveTorchBenchmarks() { return true; }
std::optional<std::string> libTorchVersion() {
  return std::string(TORCH_VERSION);
}

namespace {

constexpr uint64_t MiB = 1024 * 1024;

/// Keeps results alive so the compiler cannot drop the measured calls.
volatile double Sink = 0;

void syncDevice() { torch::cuda::synchronize(); }

LatencyPattern unsizedPattern(const std::string &Id,
                              const std::string &Description,
                              const SampleSummary &S,
                              JsonValue Params = JsonValue()) {
  LatencyPattern Pattern;
  Pattern.Id = Id;
  Pattern.Description = Description;
  Pattern.Params = std::move(Params);
  Pattern.Points.push_back({std::nullopt, S});
  return Pattern;
}

JsonValue
params(std::initializer_list<std::pair<const char *, JsonValue>> List) {
  JsonValue Object = JsonValue::object();
  for (const auto &Entry : List)
    Object.set(Entry.first, Entry.second);
  return Object;
}

/// Same-length pools of tensors, cycled through so that repeated copies do
/// not find their source in a cache.
size_t poolSize(uint64_t Bytes) {
  return size_t(
      std::clamp<uint64_t>(128 * MiB / std::max<uint64_t>(Bytes, 1), 2, 16));
}

//===----------------------------------------------------------------------===//
// Single operations.
//===----------------------------------------------------------------------===//

void measureSyncingOps(BenchSession &Session) {
  const RepetitionPolicy Fast = Session.policy(
      /*BudgetMs=*/200, /*MinReps=*/100, /*MaxReps=*/10000, /*Warmup=*/20);

  if (Session.wants(xfer::patterns::TorchItem)) {
    torch::Tensor Scalar = torch::ones({1}, torch::kCUDA);
    syncDevice();
    SampleSummary S = collectSamples(Fast, [&] {
      double Start = nowUs();
      Sink = Sink + Scalar.item<float>();
      return nowUs() - Start;
    });
    Session.record(unsizedPattern(
        xfer::patterns::TorchItem,
        "t.item<float>() of a 1-element CUDA tensor, idle device", S));
  }
  if (Session.wants("torch.item.after_op")) {
    torch::Tensor Scalar = torch::ones({1}, torch::kCUDA);
    syncDevice();
    SampleSummary S = collectSamples(Fast, [&] {
      Scalar.add_(1);
      double Start = nowUs();
      Sink = Sink + Scalar.item<float>();
      return nowUs() - Start;
    });
    Session.record(unsizedPattern(
        "torch.item.after_op",
        "t.item<float>() right after an in-place add on t was launched; host "
        "time of item() alone",
        S));
  }
  if (Session.wants(xfer::patterns::TorchNonzero)) {
    constexpr int64_t Elements = 1 << 20;
    torch::Tensor Mask = torch::rand({Elements}, torch::kCUDA) > 0.5;
    syncDevice();
    SampleSummary S = collectSamples(
        Session.policy(/*BudgetMs=*/200, /*MinReps=*/50, /*MaxReps=*/5000),
        [&] {
          double Start = nowUs();
          torch::Tensor Indices = Mask.nonzero();
          double Elapsed = nowUs() - Start;
          Sink = Sink + double(Indices.size(0));
          return Elapsed;
        });
    Session.record(unsizedPattern(
        xfer::patterns::TorchNonzero,
        "mask.nonzero() of a CUDA bool tensor (reads the count back to size "
        "the result)",
        S, params({{"elements", Elements}})));
  }
  if (Session.wants(xfer::patterns::TorchPrint)) {
    torch::Tensor Small = torch::randn({4, 4}, torch::kCUDA);
    syncDevice();
    SampleSummary S = collectSamples(
        Session.policy(/*BudgetMs=*/200, /*MinReps=*/50, /*MaxReps=*/5000),
        [&] {
          std::ostringstream Text;
          double Start = nowUs();
          Text << Small;
          double Elapsed = nowUs() - Start;
          Sink = Sink + double(Text.str().size());
          return Elapsed;
        });
    Session.record(unsizedPattern(
        xfer::patterns::TorchPrint,
        "std::ostringstream << t for a 4x4 float CUDA tensor (copies it to "
        "the host, then formats)",
        S, params({{"elements", 16}})));
  }
  if (Session.wants(xfer::patterns::TorchOpDispatch)) {
    constexpr int OpsPerSample = 100;
    torch::Tensor A = torch::randn({16}, torch::kCUDA);
    torch::Tensor B = torch::randn({16}, torch::kCUDA);
    syncDevice();
    SampleSummary S = collectSamples(
        Session.policy(/*BudgetMs=*/200, /*MinReps=*/30, /*MaxReps=*/2000),
        [&] {
          torch::Tensor C;
          double Start = nowUs();
          for (int I = 0; I < OpsPerSample; ++I)
            C = A + B;
          double Elapsed = nowUs() - Start;
          syncDevice();
          return Elapsed / OpsPerSample;
        });
    Session.record(unsizedPattern(
        xfer::patterns::TorchOpDispatch,
        "host time to launch one small LibTorch CUDA op (c = a + b, 16 "
        "floats) without waiting for it",
        S,
        params({{"op", "a + b"},
                {"elements", 16},
                {"ops_per_sample", OpsPerSample}})));
  }
}

std::vector<uint64_t> tensorSizes(const BenchSession &Session) {
  if (Session.quick())
    return {4, 8000, 1 * MiB, 16 * MiB};
  return {4, 64, 1024, 8000, 65536, 1 * MiB, 16 * MiB, 64 * MiB};
}

RepetitionPolicy copyPolicy(const BenchSession &Session, uint64_t Bytes) {
  if (Bytes >= 16 * MiB)
    return Session.policy(/*BudgetMs=*/150, /*MinReps=*/10, /*MaxReps=*/200,
                          /*Warmup=*/2);
  return Session.policy(/*BudgetMs=*/150, /*MinReps=*/30, /*MaxReps=*/3000,
                        /*Warmup=*/10);
}

void measureCopies(BenchSession &Session) {
  if (Session.wants(xfer::patterns::TorchCpu)) {
    LatencyPattern Pattern;
    Pattern.Id = xfer::patterns::TorchCpu;
    Pattern.Description = "t.cpu() of a float CUDA tensor (blocking copy into "
                          "a new pageable tensor)";
    Pattern.Sized = true;
    Pattern.ReportsBandwidth = true;
    for (uint64_t Bytes : tensorSizes(Session)) {
      std::vector<torch::Tensor> Pool;
      for (size_t I = 0; I < poolSize(Bytes); ++I)
        Pool.push_back(torch::randn({int64_t(Bytes / 4)}, torch::kCUDA));
      syncDevice();
      size_t Rep = 0;
      SampleSummary S = collectSamples(copyPolicy(Session, Bytes), [&] {
        const torch::Tensor &Source = Pool[Rep++ % Pool.size()];
        double Start = nowUs();
        torch::Tensor Host = Source.cpu();
        double Elapsed = nowUs() - Start;
        Sink = Sink + double(Host.numel());
        return Elapsed;
      });
      Pattern.Points.push_back({Bytes, S});
    }
    Session.record(std::move(Pattern));
  }
  if (Session.wants(xfer::patterns::TorchToCuda)) {
    LatencyPattern Pattern;
    Pattern.Id = xfer::patterns::TorchToCuda;
    Pattern.Description = "t.to(torch::kCUDA) of a float CPU tensor in "
                          "pageable memory (returns once the copy is done)";
    Pattern.Sized = true;
    Pattern.ReportsBandwidth = true;
    for (uint64_t Bytes : tensorSizes(Session)) {
      std::vector<torch::Tensor> Pool;
      for (size_t I = 0; I < poolSize(Bytes); ++I)
        Pool.push_back(torch::randn({int64_t(Bytes / 4)}));
      size_t Rep = 0;
      SampleSummary S = collectSamples(copyPolicy(Session, Bytes), [&] {
        const torch::Tensor &Source = Pool[Rep++ % Pool.size()];
        double Start = nowUs();
        torch::Tensor Device = Source.to(torch::kCUDA);
        double Elapsed = nowUs() - Start;
        Sink = Sink + double(Device.numel());
        return Elapsed;
      });
      Pattern.Points.push_back({Bytes, S});
    }
    Session.record(std::move(Pattern));
  }

  // torch::randn({N, 2}).to(kCUDA) vs torch::randn({N, 2}, kCUDA), each until
  // the tensor is ready on the device (synchronize included in both).
  const std::vector<int64_t> Rows =
      Session.quick()
          ? std::vector<int64_t>{1000, 262144}
          : std::vector<int64_t>{16, 1000, 16384, 262144, 1048576, 8388608};
  for (bool OnDevice : {false, true}) {
    const char *Id = OnDevice ? xfer::patterns::TorchFactoryOnDevice
                              : xfer::patterns::TorchFactoryThenToCuda;
    if (!Session.wants(Id))
      continue;
    LatencyPattern Pattern;
    Pattern.Id = Id;
    Pattern.Description =
        OnDevice ? "torch::randn({N, 2}, torch::kCUDA) then synchronize; "
                   "bytes = N * 2 * 4"
                 : "torch::randn({N, 2}).to(torch::kCUDA) then synchronize; "
                   "bytes = N * 2 * 4";
    Pattern.Sized = true;
    for (int64_t N : Rows) {
      const uint64_t Bytes = uint64_t(N) * 2 * sizeof(float);
      SampleSummary S = collectSamples(copyPolicy(Session, Bytes), [&] {
        double Start = nowUs();
        torch::Tensor T = OnDevice ? torch::randn({N, 2}, torch::kCUDA)
                                   : torch::randn({N, 2}).to(torch::kCUDA);
        syncDevice();
        double Elapsed = nowUs() - Start;
        Sink = Sink + double(T.numel());
        return Elapsed;
      });
      Pattern.Points.push_back({Bytes, S});
    }
    Session.record(std::move(Pattern));
  }
}

//===----------------------------------------------------------------------===//
// The seed's training loop, its graph example and its critical-point table.
//===----------------------------------------------------------------------===//

SampleSummary perIteration(const std::vector<double> &TotalsUs,
                           int Iterations) {
  std::vector<double> Scaled;
  for (double Total : TotalsUs)
    Scaled.push_back(Total / Iterations);
  return summarize(Scaled, 1);
}

void measureSeedTrainingLoop(BenchSession &Session) {
  if (!Session.wantsGroup("torch.train_step.") &&
      !Session.wantsGroup("fidelity.seed_training_loop"))
    return;
  constexpr int64_t Samples = 1000;
  // Many short runs, the three variants interleaved: a run-to-run jitter of
  // about 10% of a 1 ms iteration would otherwise swamp savings of a few
  // microseconds per iteration. The seed's 1000-iteration loop time is
  // 1000 x the per-iteration figure.
  const int Iterations = 200;
  const int Reps = Session.quick() ? 2 : 30;

  for (torch::Device Device :
       {torch::Device(torch::kCUDA), torch::Device(torch::kCPU)}) {
    const std::string DeviceName = Device.is_cuda() ? "cuda" : "cpu";
    torch::manual_seed(0);
    torch::nn::Sequential Model = makeSeedModel();
    Model->to(Device);
    torch::optim::Adam Optimizer(Model->parameters(),
                                 torch::optim::AdamOptions(1e-3));
    torch::Tensor X = torch::randn({Samples, 2}, Device);
    torch::Tensor Y = torch::randn({Samples, 2}, Device);

    auto TimeRun = [&](auto &&Run) {
      std::ostringstream Log;
      if (Device.is_cuda())
        syncDevice();
      double Start = nowUs();
      float Loss = Run(Log);
      if (Device.is_cuda())
        syncDevice();
      double Elapsed = nowUs() - Start;
      Sink = Sink + Loss;
      return Elapsed;
    };
    auto HostData = [&](std::ostream &Log) {
      return trainWithHostDataEveryIteration(Model, Optimizer, Samples,
                                             Iterations, Device, Log);
    };
    auto ResidentData = [&](std::ostream &Log) {
      return trainWithResidentDataEveryIteration(Model, Optimizer, X, Y,
                                                 Iterations, Log);
    };
    auto Every100 = [&](std::ostream &Log) {
      return trainWithResidentDataPrintEvery100(Model, Optimizer, X, Y,
                                                Iterations, Log);
    };
    std::vector<double> HostTotals, ResidentTotals, Every100Totals;
    for (int Rep = -1; Rep < Reps; ++Rep) {
      double H = TimeRun(HostData);
      double R = TimeRun(ResidentData);
      double E = TimeRun(Every100);
      if (Rep < 0)
        continue; // Warm-up round.
      HostTotals.push_back(H);
      ResidentTotals.push_back(R);
      Every100Totals.push_back(E);
    }
    const std::string Prefix = "torch.train_step." + DeviceName + ".";
    JsonValue Setup = params({{"samples", Samples},
                              {"iterations_per_run", Iterations},
                              {"model", "MLP 4-128-128-1, Adam lr 1e-3"}});
    auto Record = [&](const std::string &Suffix, const std::string &What,
                      const std::vector<double> &Totals) {
      if (!Session.wants(Prefix + Suffix))
        return;
      Session.record(unsizedPattern(
          Prefix + Suffix,
          "one iteration of the seed's training loop on " + DeviceName + ": " +
              What + " (time of a whole run / iterations)",
          perIteration(Totals, Iterations), Setup));
    };
    Record("host_data_item_each_iteration",
           "inputs drawn on the host and moved every iteration, "
           "loss.item() every iteration",
           HostTotals);
    Record("device_data_item_each_iteration",
           "inputs resident, loss.item() every iteration", ResidentTotals);
    Record("device_data_item_every_100",
           "inputs resident, loss read every 100 iterations", Every100Totals);

    auto Fidelity = [&](const std::string &Id, const std::string &HazardFn,
                        const std::string &FixedFn, const std::string &Hazard,
                        const std::string &Fix,
                        const std::vector<double> &HazardTotals,
                        const std::vector<double> &FixedTotals) {
      if (!Session.wants("fidelity." + Id))
        return;
      FidelityRecord R;
      R.Id = Id;
      R.Source = "runtime/reference-loops/SeedTrainingLoop.cpp";
      R.HazardFunction = HazardFn;
      R.FixedFunction = FixedFn;
      R.Hazard = Hazard;
      R.Fix = Fix;
      R.Device = DeviceName;
      R.Iterations = unsigned(Iterations);
      R.HazardIteration = perIteration(HazardTotals, Iterations);
      R.FixedIteration = perIteration(FixedTotals, Iterations);
      R.Saving = perIteration(pairedDifferences(HazardTotals, FixedTotals),
                              Iterations);
      Session.record(std::move(R));
    };
    Fidelity("seed_training_loop.item_every_100." + DeviceName,
             "trainWithResidentDataEveryIteration",
             "trainWithResidentDataPrintEvery100",
             "loss.item() every iteration", "loss read every 100 iterations",
             ResidentTotals, Every100Totals);
    Fidelity("seed_training_loop.resident_data." + DeviceName,
             "trainWithHostDataEveryIteration",
             "trainWithResidentDataEveryIteration",
             "torch::randn on the host + .to(device) of two 1000x2 inputs "
             "every iteration",
             "inputs created once on the device", HostTotals, ResidentTotals);
  }
}

void measureSeedGraphExample(BenchSession &Session) {
  if (!Session.wantsGroup("torch.graph_example.") &&
      !Session.wantsGroup("fidelity.seed_graph_example"))
    return;
  const int Steps = Session.quick() ? 50 : 200;
  const RepetitionPolicy Policy = Session.policy(
      /*BudgetMs=*/500, /*MinReps=*/10, /*MaxReps=*/100, /*Warmup=*/2);
  torch::manual_seed(0);
  SeedGraphExample Example;
  auto TimeSteps = [&](auto &&Run) {
    syncDevice();
    double Start = nowUs();
    Run();
    syncDevice();
    return (nowUs() - Start) / Steps;
  };
  SampleSummary Eager = collectSamples(
      Policy, [&] { return TimeSteps([&] { Example.runEagerSteps(Steps); }); });
  Example.capture();
  Session.check(Example.replayChangesWeights(),
                "a graph replay of the seed's SGD step updates the weights");
  SampleSummary Replay = collectSamples(
      Policy, [&] { return TimeSteps([&] { Example.replaySteps(Steps); }); });

  JsonValue Setup = params({{"model", "Linear(1024, 1024), batch 64, SGD"},
                            {"steps_per_sample", Steps}});
  if (Session.wants("torch.graph_example.eager_step"))
    Session.record(unsizedPattern(
        "torch.graph_example.eager_step",
        "one eager training step of the seed's CUDA-graph example", Eager,
        Setup));
  if (Session.wants("torch.graph_example.replay_step"))
    Session.record(unsizedPattern(
        "torch.graph_example.replay_step",
        "one at::cuda::CUDAGraph replay of the same step", Replay, Setup));
  if (Session.wants("fidelity.seed_graph_example.cuda_graph")) {
    FidelityRecord R;
    R.Id = "seed_graph_example.cuda_graph";
    R.Source = "runtime/reference-loops/SeedGraphExample.cpp";
    R.HazardFunction = "SeedGraphExample::runEagerSteps";
    R.FixedFunction = "SeedGraphExample::replaySteps";
    R.Hazard = "eager launches of every kernel of a small training step";
    R.Fix = "capture the step once, replay it as a CUDA graph";
    R.Device = "cuda";
    R.Iterations = unsigned(Steps);
    R.HazardIteration = Eager;
    R.FixedIteration = Replay;
    // Not interleaved (a capture cannot be undone), so the interval is the
    // conservative difference of the two distributions.
    R.Saving = Eager;
    R.Saving.MedianUs = Eager.MedianUs - Replay.MedianUs;
    R.Saving.P10Us = Eager.P10Us - Replay.P90Us;
    R.Saving.P90Us = Eager.P90Us - Replay.P10Us;
    R.Saving.MinUs = Eager.MinUs - Replay.MaxUs;
    R.Saving.MaxUs = Eager.MaxUs - Replay.MinUs;
    R.Saving.MeanUs = Eager.MeanUs - Replay.MeanUs;
    R.Saving.Reps = std::min(Eager.Reps, Replay.Reps);
    Session.record(std::move(R));
  }
}

void measureCriticalPoint(BenchSession &Session) {
  if (!Session.wantsGroup("torch.critical_point."))
    return;
  struct Row {
    int64_t Samples;
    int64_t Batch;
  };
  const Row Rows[] = {{1000, 128}, {10000, 512}, {100000, 2048}};
  const int Reps = Session.quick() ? 2 : 5;
  struct Target {
    const char *Name;
    torch::Device Device;
    int CpuThreads; ///< 0: LibTorch's default.
  };
  // The single-thread CPU rows show how much of the CPU time is LibTorch's
  // thread pool at these small sizes.
  const Target Targets[] = {{"cpu", torch::Device(torch::kCPU), 0},
                            {"cpu_1thread", torch::Device(torch::kCPU), 1},
                            {"cuda", torch::Device(torch::kCUDA), 0}};
  const int DefaultThreads = torch::get_num_threads();
  for (const Target &T : Targets) {
    const torch::Device Device = T.Device;
    const std::string DeviceName = T.Name;
    torch::set_num_threads(T.CpuThreads ? T.CpuThreads : DefaultThreads);
    for (const Row &R : Rows) {
      torch::manual_seed(0);
      torch::nn::Sequential Model = makeSeedModel();
      Model->to(Device);
      torch::optim::Adam Optimizer(Model->parameters(),
                                   torch::optim::AdamOptions(1e-3));
      torch::Tensor X = torch::randn({R.Samples, 2}, Device);
      torch::Tensor Y = torch::randn({R.Samples, 2}, Device);
      for (bool PrintEachStep : {true, false}) {
        if (T.CpuThreads == 1 && PrintEachStep)
          continue; // Reading the loss costs nothing extra on the CPU.
        const std::string Id =
            "torch.critical_point." + DeviceName + ".n" +
            std::to_string(R.Samples) + "_b" + std::to_string(R.Batch) +
            (PrintEachStep ? ".item_each_step" : ".read_once");
        if (!Session.wants(Id))
          continue;
        std::vector<double> Epochs;
        for (int Rep = -1; Rep < Reps; ++Rep) {
          std::ostringstream Log;
          if (Device.is_cuda())
            syncDevice();
          double Start = nowUs();
          Sink = Sink + trainOneEpoch(Model, Optimizer, X, Y, R.Batch,
                                      PrintEachStep, Log);
          if (Device.is_cuda())
            syncDevice();
          if (Rep >= 0)
            Epochs.push_back(nowUs() - Start);
        }
        Session.record(unsizedPattern(
            Id,
            "one epoch of the seed's MLP (Adam) over N resident samples in "
            "minibatches, loss " +
                std::string(PrintEachStep ? "read with item() every step"
                                          : "read once per epoch"),
            summarize(Epochs, 1),
            params({{"samples", R.Samples},
                    {"batch", R.Batch},
                    {"steps", (R.Samples + R.Batch - 1) / R.Batch},
                    {"cpu_threads", torch::get_num_threads()}})));
      }
    }
  }
  torch::set_num_threads(DefaultThreads);
}

//===----------------------------------------------------------------------===//
// The LibTorch inference reference loop.
//===----------------------------------------------------------------------===//

void measureInferenceLoop(BenchSession &Session) {
  if (!Session.wantsGroup("fidelity.torch_inference_loop"))
    return;
  const int Iterations = Session.quick() ? 200 : 1000;
  const int Reps = Session.quick() ? 1 : 15;
  torch::manual_seed(0);
  torch::nn::Sequential Model = makeClassifier();
  Model->to(torch::kCUDA);
  std::vector<torch::Tensor> Batches;
  for (int I = 0; I < 8; ++I)
    Batches.push_back(torch::randn({256, 256}, torch::kCUDA));

  auto Timed = [&](auto &&Run) {
    syncDevice();
    double Start = nowUs();
    Run();
    syncDevice();
    return nowUs() - Start;
  };
  double ConfidenceHazard = 0, ConfidenceFixed = 0;
  int64_t CountHazard = 0, CountFixed = 0;
  std::vector<double> ItemHazard, ItemFixed, CopyHazard, CopyFixed;
  for (int Rep = -1; Rep < Reps; ++Rep) {
    double A = Timed([&] {
      ConfidenceHazard =
          meanConfidenceReadingEachBatch(Model, Batches, Iterations);
    });
    double B = Timed([&] {
      ConfidenceFixed =
          meanConfidenceReadingEvery100(Model, Batches, Iterations);
    });
    double C = Timed([&] {
      CountHazard = countClassZeroCopyingEachBatch(Model, Batches, Iterations);
    });
    double D = Timed([&] {
      CountFixed = countClassZeroReadingEvery100(Model, Batches, Iterations);
    });
    if (Rep < 0)
      continue;
    ItemHazard.push_back(A);
    ItemFixed.push_back(B);
    CopyHazard.push_back(C);
    CopyFixed.push_back(D);
  }
  Session.check(CountHazard == CountFixed,
                "inference loop: class-0 counts agree (" +
                    std::to_string(CountHazard) + " vs " +
                    std::to_string(CountFixed) + ")");
  Session.check(std::fabs(ConfidenceHazard - ConfidenceFixed) <
                    1e-3 * std::max(1.0, std::fabs(ConfidenceHazard)),
                "inference loop: mean confidences agree");

  auto Record = [&](const std::string &Id, const char *HazardFn,
                    const char *FixedFn, const char *Hazard, const char *Fix,
                    const std::vector<double> &HazardTotals,
                    const std::vector<double> &FixedTotals) {
    if (!Session.wants("fidelity." + Id))
      return;
    FidelityRecord R;
    R.Id = Id;
    R.Source = "runtime/reference-loops/TorchInferenceLoop.cpp";
    R.HazardFunction = HazardFn;
    R.FixedFunction = FixedFn;
    R.Hazard = Hazard;
    R.Fix = Fix;
    R.Device = "cuda";
    R.Iterations = unsigned(Iterations);
    R.HazardIteration = perIteration(HazardTotals, Iterations);
    R.FixedIteration = perIteration(FixedTotals, Iterations);
    R.Saving =
        perIteration(pairedDifferences(HazardTotals, FixedTotals), Iterations);
    Session.record(std::move(R));
  };
  Record("torch_inference_loop.item_every_100",
         "meanConfidenceReadingEachBatch", "meanConfidenceReadingEvery100",
         "softmax(...).max().item<float>() every batch (MLP 256-512-512-10, "
         "batch 256)",
         "sum on the device, item() every 100 batches", ItemHazard, ItemFixed);
  Record("torch_inference_loop.cpu_every_100", "countClassZeroCopyingEachBatch",
         "countClassZeroReadingEvery100",
         "argmax(1).cpu() of every batch's predictions",
         "count on the device, item() every 100 batches", CopyHazard,
         CopyFixed);
}

//===----------------------------------------------------------------------===//
// K small LibTorch operations per iteration: eager vs one graph replay.
//===----------------------------------------------------------------------===//

/// The operations per iteration the LibTorch graph sweeps fit a line
/// through.
constexpr int TorchOpCounts[] = {4, 8, 16, 32};

/// Host wall time per iteration of \p Iterations calls of \p Iteration, from
/// the first call until the device has drained.
template <typename IterationFn>
double torchWallUsPerIteration(int Iterations, IterationFn &&Iteration) {
  syncDevice();
  const double Start = nowUs();
  for (int I = 0; I < Iterations; ++I)
    Iteration();
  syncDevice();
  return (nowUs() - Start) / Iterations;
}

/// Captures \p Iteration into \p Graph as the LibTorch tutorial does: warm
/// up on a side stream (autograd and the allocator set up what they need),
/// then capture there; the legacy default stream cannot be captured.
template <typename IterationFn>
void captureTorchIteration(at::cuda::CUDAGraph &Graph,
                           IterationFn &&Iteration) {
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

/// Slopes and intercepts over K of the eager and replayed iteration times,
/// one fit per repetition.
struct GraphSweep {
  std::vector<LineFit> Eager, Replay;
  unsigned Warmup = 0;
};

/// Runs the eager and the replayed iterations of every K alternately.
/// \p MakeIteration(K) returns the eager iteration for K operations.
template <typename MakeIterationFn>
GraphSweep sweepTorchGraphs(BenchSession &Session, int Iterations,
                            MakeIterationFn &&MakeIteration) {
  constexpr size_t Counts = std::size(TorchOpCounts);
  std::vector<std::function<void()>> Eager;
  std::vector<std::unique_ptr<at::cuda::CUDAGraph>> Graphs;
  for (int K : TorchOpCounts) {
    Eager.push_back(MakeIteration(K));
    Graphs.push_back(std::make_unique<at::cuda::CUDAGraph>());
    captureTorchIteration(*Graphs.back(), Eager.back());
  }
  const std::vector<double> X(std::begin(TorchOpCounts),
                              std::end(TorchOpCounts));
  GraphSweep Sweep;
  Sweep.Warmup = 2;
  const int Reps = Session.quick() ? 3 : 12;
  for (int Rep = -int(Sweep.Warmup); Rep < Reps; ++Rep) {
    std::vector<double> EagerUs(Counts), ReplayUs(Counts);
    for (size_t C = 0; C < Counts; ++C) {
      EagerUs[C] = torchWallUsPerIteration(Iterations, Eager[C]);
      ReplayUs[C] =
          torchWallUsPerIteration(Iterations, [&] { Graphs[C]->replay(); });
    }
    if (Rep < 0)
      continue;
    Sweep.Eager.push_back(fitLine(X, EagerUs));
    Sweep.Replay.push_back(fitLine(X, ReplayUs));
  }
  return Sweep;
}

/// The saving a capture realises in LibTorch code, as host wall time: each
/// eager operation pays its dispatch (and autograd's bookkeeping) on the
/// host, a replay none of it.
///  - torch.graph.*_per_op: K in-place additions to a 16-float tensor, no
///    autograd (an optimizer's per-parameter updates, inference code);
///  - torch.graph.autograd.*: K multiplications recorded by autograd, then
///    sum() and backward(): per operation (the K forward operations and
///    their K backward operations alike), and what one backward() call costs
///    besides its operations.
void measureTorchGraphOps(BenchSession &Session) {
  if (!Session.wantsGroup("torch.graph."))
    return;
  const int Iterations = Session.quick() ? 20 : 100;
  auto Options = torch::TensorOptions().device(torch::kCUDA);
  JsonValue Counts = JsonValue::array();
  for (int K : TorchOpCounts)
    Counts.push(K);
  auto Setup = [&](const char *Iteration) {
    return params({{"iteration", Iteration},
                   {"elements", 16},
                   {"operations_per_iteration", Counts},
                   {"iterations_per_sample", Iterations},
                   {"fit", "least squares over operations_per_iteration, "
                           "one fit per repetition"}});
  };
  auto Record = [&](const char *Id, const std::string &Description,
                    const std::vector<double> &Samples, unsigned Warmup,
                    JsonValue Params) {
    if (Session.wants(Id))
      Session.record(unsizedPattern(Id, Description, summarize(Samples, Warmup),
                                    std::move(Params)));
  };
  auto Column = [](const std::vector<LineFit> &Fits, auto &&Field) {
    std::vector<double> Values;
    for (const LineFit &Fit : Fits)
      Values.push_back(Field(Fit));
    return Values;
  };

  {
    torch::NoGradGuard NoGrad;
    torch::Tensor Value = torch::zeros({16}, Options);
    torch::Tensor Step = torch::ones({16}, Options);
    GraphSweep Sweep = sweepTorchGraphs(Session, Iterations, [&](int K) {
      return std::function<void()>([&, K] {
        for (int I = 0; I < K; ++I)
          Value.add_(Step);
      });
    });
    auto Slope = [](const LineFit &Fit) { return Fit.Slope; };
    const char *Iteration = "K times value.add_(step), no autograd";
    Record(xfer::patterns::TorchGraphEagerPerOp,
           "small LibTorch CUDA operations issued one by one: host wall time "
           "per iteration (until the device drains), slope over the "
           "operations per iteration",
           Column(Sweep.Eager, Slope), Sweep.Warmup, Setup(Iteration));
    Record(xfer::patterns::TorchGraphReplayPerOp,
           "the same iterations replayed as one at::cuda::CUDAGraph each: "
           "host wall time per iteration, slope over the operations",
           Column(Sweep.Replay, Slope), Sweep.Warmup, Setup(Iteration));
    Session.check(torch::isfinite(Value).all().item<bool>(),
                  "the replayed additions leave finite values");
  }

  {
    torch::Tensor Parameter = torch::randn({16}, Options).requires_grad_(true);
    torch::Tensor Factor = torch::ones({16}, Options);
    GraphSweep Sweep = sweepTorchGraphs(Session, Iterations, [&](int K) {
      return std::function<void()>([&, K] {
        torch::Tensor Y = Parameter;
        for (int I = 0; I < K; ++I)
          Y = Y * Factor;
        Y.sum().backward();
      });
    });
    Session.check(Parameter.grad().defined() &&
                      torch::isfinite(Parameter.grad()).all().item<bool>(),
                  "the replayed backward passes fill the gradient");
    // Each unit of K is one forward and one backward operation.
    auto PerOp = [](const LineFit &Fit) { return Fit.Slope / 2; };
    // The intercept holds sum() and its backward (one unit) and the
    // backward() call itself. A fit whose intercept lies below its slope
    // (noise) counts as a backward() that costs nothing: latencies are
    // never negative.
    auto Backward = [](const LineFit &Fit) {
      return std::max(0.0, Fit.Intercept - Fit.Slope);
    };
    const char *Iteration = "y = p; K times y = y * factor; y.sum().backward() "
                            "(p requires grad)";
    Record(xfer::patterns::TorchGraphAutogradEagerPerOp,
           "LibTorch CUDA operations recorded by autograd and their backward "
           "operations, eager: host wall time per iteration, slope over the "
           "forward operations, halved (per forward or backward operation)",
           Column(Sweep.Eager, PerOp), Sweep.Warmup, Setup(Iteration));
    Record(xfer::patterns::TorchGraphAutogradReplayPerOp,
           "the same iterations replayed as one at::cuda::CUDAGraph each, "
           "per operation",
           Column(Sweep.Replay, PerOp), Sweep.Warmup, Setup(Iteration));
    Record(xfer::patterns::TorchGraphBackwardEager,
           "what one eager backward() call costs besides its operations: "
           "intercept of the eager fit less one forward/backward pair "
           "(sum())",
           Column(Sweep.Eager, Backward), Sweep.Warmup, Setup(Iteration));
    Record(xfer::patterns::TorchGraphBackwardReplay,
           "the same for the replayed iteration",
           Column(Sweep.Replay, Backward), Sweep.Warmup, Setup(Iteration));
  }
}

/// LibTorch reports errors by exception; one failing group is recorded as a
/// failed check and the others still run.
template <typename Group>
void runGroup(BenchSession &Session, const char *Title, Group &&Run) {
  BenchSession::log(std::string("-- ") + Title);
  try {
    Run(Session);
  } catch (const std::exception &Error) {
    Session.check(false, std::string(Title) + " threw: " + Error.what());
  }
  Session.saveProgress();
}

} // namespace

void runTorchBenchmarks(BenchSession &Session) {
  if (!torch::cuda::is_available()) {
    Session.check(false, "LibTorch sees a CUDA device");
    return;
  }
  Session.document().Provenance.Extra.set("libtorch_cpu_threads",
                                          int(torch::get_num_threads()));
  runGroup(Session, "LibTorch single operations", measureSyncingOps);
  runGroup(Session, "LibTorch copies and factories", measureCopies);
  runGroup(Session, "seed training loop (CUDA and CPU)",
           measureSeedTrainingLoop);
  runGroup(Session, "seed critical-point table", measureCriticalPoint);
  runGroup(Session, "reference loop: LibTorch inference", measureInferenceLoop);
  // Last: a failed capture can leave the CUDA context unusable.
  runGroup(Session, "small operations: eager vs graph replay",
           measureTorchGraphOps);
  runGroup(Session, "seed CUDA-graph example", measureSeedGraphExample);
}

} // namespace xferbench
