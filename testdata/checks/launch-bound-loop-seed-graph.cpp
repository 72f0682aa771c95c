// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-launch-bound-loop
// XFER-COST-MODEL: test-subset-h200.json
// The seed's CUDA-graph example (runtime/reference-loops/SeedGraphExample.cpp):
// a Linear(1024, 1024) training step. backward() runs one backward
// operation for each forward operation before it, SGD's step() one update
// per parameter (a Linear holds a weight and a bias), zero_grad() sets the
// gradients to none and launches nothing. The cost note: 8 operations of
// autograd, 2 updates and one backward() call at their measured savings.
#include <torch/torch.h>
#include <memory>

struct SeedState {
  torch::Tensor X = torch::randn({64, 1024}, torch::kCUDA);
  torch::Tensor Y = torch::randn({64, 1024}, torch::kCUDA);
  torch::nn::Linear Model{torch::nn::Linear(1024, 1024)};
  std::unique_ptr<torch::optim::SGD> Optimizer;

  SeedState() {
    Model->to(torch::kCUDA);
    Optimizer = std::make_unique<torch::optim::SGD>(
        Model->parameters(), torch::optim::SGDOptions(1e-3));
  }

  void step() {
    torch::Tensor Prediction = Model->forward(X);
    torch::Tensor Loss = (Prediction - Y).pow(2).sum();
    Loss.backward();
    Optimizer->step();
  }
};

void runEagerSteps(SeedState &State, int Steps) {
  for (int Step = 0; Step < Steps; ++Step) {
    // XFER-WARNING: :[[@LINE-1]]:3: warning: loop is launch-bound: each iteration issues 10 LibTorch operations on the GPU with fixed shapes and no synchronization, host<->device copy, allocation or branch on a device result; capture one iteration with at::cuda::CUDAGraph (capture_begin/capture_end) on static input tensors and replay() it [xfer-launch-bound-loop]
    // XFER-NOTE: :[[@LINE-2]]:3: note: measured cost: 16.56 µs per launch (eager launch minus graph replay) × 10 launches = 165.55 µs per iteration (measured on NVIDIA H200, driver 580.159.04, CUDA 13.0, LibTorch 2.11.0, measured 2026-11-22)
    State.Optimizer->zero_grad();
    State.step();
    // XFER-NOTE: :[[@LINE-1]]:11: note: 'step()' issues 10 LibTorch operations on the GPU here
  }
}

// The same step written out in the loop: a note at each operation.
void trainInline(int Steps) {
  auto X = torch::randn({64, 1024}, torch::kCUDA);
  auto Y = torch::randn({64, 1024}, torch::kCUDA);
  torch::nn::Linear Model(1024, 1024);
  Model->to(torch::kCUDA);
  torch::optim::SGD Optimizer(Model->parameters(),
                              torch::optim::SGDOptions(1e-3));
  for (int Step = 0; Step < Steps; ++Step) {
    // XFER-WARNING: :[[@LINE-1]]:3: warning: loop is launch-bound: each iteration issues 10 LibTorch operations on the GPU with fixed shapes and no synchronization, host<->device copy, allocation or branch on a device result; capture one iteration with at::cuda::CUDAGraph (capture_begin/capture_end) on static input tensors and replay() it [xfer-launch-bound-loop]
    // XFER-NOTE: :[[@LINE-2]]:3: note: measured cost: 16.56 µs per launch (eager launch minus graph replay) × 10 launches = 165.55 µs per iteration (measured on NVIDIA H200, driver 580.159.04, CUDA 13.0, LibTorch 2.11.0, measured 2026-11-22)
    Optimizer.zero_grad();
    auto Loss = (Model->forward(X) - Y).pow(2).sum();
    // XFER-NOTE: :[[@LINE-1]]:25: note: 'forward()' runs on the GPU here
    // XFER-NOTE: :[[@LINE-2]]:36: note: 'operator-' runs on the GPU here
    // XFER-NOTE: :[[@LINE-3]]:41: note: 'pow()' runs on the GPU here
    // XFER-NOTE: :[[@LINE-4]]:48: note: 'sum()' runs on the GPU here
    Loss.backward();
    // XFER-NOTE: :[[@LINE-1]]:10: note: 'backward()' issues 4 LibTorch operations on the GPU here (one for each operation it differentiates)
    Optimizer.step();
    // XFER-NOTE: :[[@LINE-1]]:15: note: 'step()' issues 2 LibTorch operations on the GPU here (one per parameter)
  }
}

// Negatives.

// The loss read back every step: a synchronization stops the capture
// (xfer-sync-in-loop reports it).
float trainReadingLoss(SeedState &State, int Steps) {
  float Last = 0;
  for (int Step = 0; Step < Steps; ++Step) {
    State.Optimizer->zero_grad();
    torch::Tensor Loss = (State.Model->forward(State.X) - State.Y).pow(2).sum();
    Loss.backward();
    State.Optimizer->step();
    Last = Loss.item<float>();
  }
  return Last;
}

// A handful of steps: capturing would cost more than it saves.
void warmUp(SeedState &State) {
  for (int Step = 0; Step < 3; ++Step) {
    State.Optimizer->zero_grad();
    State.step();
  }
}

// Adam keeps its step count on the host: a replay would repeat the first
// step's bias correction.
void trainAdam(int Steps) {
  auto X = torch::randn({64, 1024}, torch::kCUDA);
  torch::nn::Linear Model(1024, 1024);
  Model->to(torch::kCUDA);
  torch::optim::Adam Optimizer(Model->parameters(), 1e-3);
  for (int Step = 0; Step < Steps; ++Step) {
    Optimizer.zero_grad();
    auto Loss = Model->forward(X).pow(2).sum();
    Loss.backward();
    Optimizer.step();
  }
}

// The batch size read back from the device: dynamic shapes.
void trainDynamicBatch(const torch::Tensor &Sizes, int Steps) {
  torch::nn::Linear Model(1024, 1024);
  Model->to(torch::kCUDA);
  torch::optim::SGD Optimizer(Model->parameters(), 1e-3);
  for (int Step = 0; Step < Steps; ++Step) {
    int64_t Batch = Sizes[Step].item<int64_t>();
    auto X = torch::randn({Batch, 1024}, torch::kCUDA);
    Optimizer.zero_grad();
    auto Loss = Model->forward(X).pow(2).sum();
    Loss.backward();
    Optimizer.step();
  }
}

// The same step on the CPU.
void trainOnCpu(int Steps) {
  auto X = torch::randn({64, 1024});
  auto Y = torch::randn({64, 1024});
  torch::nn::Linear Model(1024, 1024);
  torch::optim::SGD Optimizer(Model->parameters(), 1e-3);
  for (int Step = 0; Step < Steps; ++Step) {
    Optimizer.zero_grad();
    auto Loss = (Model->forward(X) - Y).pow(2).sum();
    Loss.backward();
    Optimizer.step();
  }
}
