// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop,xfer-copy-in-loop
// Hazards inside functions defined in this file are reported where the
// function is called in a loop, with the call chain in notes.
#include <torch/torch.h>
#include <cuda_runtime.h>
#include <iostream>

static float readLoss(const torch::Tensor &Loss) {
  return Loss.item<float>();
}

static void logLoss(const torch::Tensor &Loss) {
  std::cout << readLoss(Loss) << "\n";
}

static void logEvery(const torch::Tensor &Loss, int Step) {
  if (Step % 100 == 0) // the fix: only every 100 calls
    std::cout << Loss.item<float>() << "\n";
}

static torch::Tensor fetch(const torch::Tensor &T) { return T.cpu(); }

// Recursion must not hang the summaries; this one reaches a sync.
static void drain(int Depth) {
  if (Depth > 0)
    drain(Depth - 1);
  cudaDeviceSynchronize();
}

template <typename T> T readAs(const torch::Tensor &Value) {
  return Value.item<T>();
}

void train(torch::Tensor X, int Iters) {
  auto W = torch::randn({4, 1}, torch::kCUDA);
  auto Step = [&](int I) { return X.matmul(W).mean(); };
  for (int I = 0; I < Iters; ++I) {
    auto Loss = Step(I);
    logLoss(Loss);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'logLoss()' synchronizes with the GPU on every iteration of the loop at line 38: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    // XFER-NOTE: :14:16: note: which calls 'readLoss()' here
    // XFER-NOTE: :10:15: note: 'item<float>()' synchronizes with the GPU here
    logEvery(Loss, I);
    auto Host = fetch(Loss);
    // XFER-WARNING: :[[@LINE-1]]:17: warning: 'fetch()' copies device memory to the host on every iteration of the loop at line 38: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-10]]:3: note: loop starts here
    // XFER-NOTE: :22:63: note: 'cpu()' copies device memory to the host here
    drain(2);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'drain()' synchronizes with the GPU on every iteration of the loop at line 38: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-14]]:3: note: loop starts here
    // XFER-NOTE: :28:3: note: 'cudaDeviceSynchronize' synchronizes with the GPU here
    double Value = readAs<double>(Loss);
    // XFER-WARNING: :[[@LINE-1]]:20: warning: 'readAs()' synchronizes with the GPU on every iteration of the loop at line 38: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-18]]:3: note: loop starts here
    // XFER-NOTE: :32:16: note: 'item<double>()' synchronizes with the GPU here
    (void)Host;
    (void)Value;
  }
  logLoss(X.mean()); // outside the loop: once
}

// An input check that returns early does not make the rest run once: the
// function frees on every call that passes it. A first-step test does.

void launch(float *Batch); // launches a kernel

static void trainBatch(float *Batch, const std::vector<float> &Host,
                       size_t Expected) {
  if (Host.size() != Expected) {
    std::cout << "bad batch\n";
    return;
  }
  launch(Batch);
  cudaFree(Batch);
}

static void warmUp(float *Batch, int Step) {
  if (Step != 0)
    return;
  cudaFree(Batch);
}

void batches(float **Batches, const std::vector<float> &Host, int Count) {
  for (int I = 0; I < Count; ++I) {
    trainBatch(Batches[I], Host, 64);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'trainBatch()' synchronizes with the GPU on every iteration of the loop at line 86: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    // XFER-NOTE: :76:3: note: 'cudaFree' synchronizes with the GPU here
    warmUp(Batches[I], I);
  }
}

// A call through a pure interface runs the overriders this file defines:
// what they do is done on every call.
struct Stage {
  virtual ~Stage() = default;
  virtual void run(float *Data) = 0;
};
struct ScratchStage : Stage {
  void run(float *Data) override {
    float *Scratch;
    cudaMalloc((void **)&Scratch, 64);
    cudaFree(Scratch);
  }
};
struct QuietStage : Stage {
  void run(float *Data) override {}
};
void runStages(Stage &First, Stage *Second, float *Data, int Steps) {
  for (int I = 0; I < Steps; ++I) {
    First.run(Data);
    // XFER-WARNING: :[[@LINE-1]]:11: warning: 'run()' synchronizes with the GPU on every iteration of the loop at line 112: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    // XFER-NOTE: :104:5: note: 'cudaMalloc' synchronizes with the GPU here
    // XFER-NOTE: :105:5: note: 'cudaFree' synchronizes with the GPU here too
    // Qualified: the base's own method, which has no body here.
    Second->Stage::run(Data);
  }
}

// A function that runs a simulation to completion (relaunching until no
// thread is active) allocates and frees around its own loop on every call:
// called for every voxel, that is every iteration of the voxel loop. A
// setting tested in the voxel loop (`Config.Method == 1`) holds on every
// iteration or on none.
struct VoxelConfig {
  int Method;
  float Albedo;
};
void photonRound(float *State, unsigned *Active); // launches a kernel
unsigned long long simulateVoxel(float X) {
  float *State;
  unsigned *Active;
  cudaMalloc((void **)&State, 1024 * sizeof(float));
  cudaMalloc((void **)&Active, 256 * sizeof(unsigned));
  unsigned HostActive[256];
  unsigned Total = 1;
  while (Total > 0) {
    photonRound(State, Active);
    cudaMemcpy(HostActive, Active, sizeof(HostActive), cudaMemcpyDeviceToHost);
    Total = 0;
    for (int I = 0; I < 256; ++I)
      Total += HostActive[I];
  }
  cudaFree(State);
  cudaFree(Active);
  return 1;
}
double scanVoxels(const VoxelConfig &Config, int Nx, int Ny) {
  double Weight = 0;
  for (int X = 0; X < Nx; ++X)
    for (int Y = 0; Y < Ny; ++Y)
      if (Config.Method == 1 && Config.Albedo < 0) {
        Weight += 1.0 / simulateVoxel(X * 0.5f + Y);
        // XFER-WARNING: :[[@LINE-1]]:25: warning: 'simulateVoxel()' synchronizes with the GPU on every iteration of the loop at line 154: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
        // XFER-NOTE: :154:5: note: loop starts here
        // XFER-NOTE: :136:3: note: 'cudaMalloc' synchronizes with the GPU here
        // XFER-NOTE: :137:3: note: 'cudaMalloc' synchronizes with the GPU here too
        // XFER-NOTE: :147:3: note: 'cudaFree' synchronizes with the GPU here too
        // XFER-NOTE: :148:3: note: 'cudaFree' synchronizes with the GPU here too
      }
  return Weight;
}
