//===- SeedGraphExample.cpp - Reference loop: graph replay ----------------===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//

#include "reference-loops/SeedGraphExample.h"

#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <torch/torch.h>

#include <chrono>

namespace xferbench {

struct SeedGraphExample::State {
  torch::Tensor X = torch::randn({64, 1024}, torch::kCUDA);
  torch::Tensor Y = torch::randn({64, 1024}, torch::kCUDA);
  torch::nn::Linear Model{torch::nn::Linear(1024, 1024)};
  std::unique_ptr<torch::optim::SGD> Optimizer;
  at::cuda::CUDAGraph Graph;
  bool Captured = false;

  State() {
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

SeedGraphExample::SeedGraphExample() : Impl(std::make_unique<State>()) {}
SeedGraphExample::~SeedGraphExample() = default;

void SeedGraphExample::runEagerSteps(int Steps) {
  for (int Step = 0; Step < Steps; ++Step) {
    Impl->Optimizer->zero_grad();
    Impl->step();
  }
}

void SeedGraphExample::runEagerStepsPhased(int Steps, PhaseTimesUs &Total) {
  using Clock = std::chrono::steady_clock;
  auto Us = [](Clock::time_point A, Clock::time_point B) {
    return std::chrono::duration<double, std::micro>(B - A).count();
  };
  for (int Step = 0; Step < Steps; ++Step) {
    // The same operations as State::step(), with a clock read between them.
    Clock::time_point T0 = Clock::now();
    Impl->Optimizer->zero_grad();
    Clock::time_point T1 = Clock::now();
    torch::Tensor Prediction = Impl->Model->forward(Impl->X);
    Clock::time_point T2 = Clock::now();
    torch::Tensor Difference = Prediction - Impl->Y;
    Clock::time_point T3 = Clock::now();
    torch::Tensor Squared = Difference.pow(2);
    Clock::time_point T4 = Clock::now();
    torch::Tensor Loss = Squared.sum();
    Clock::time_point T5 = Clock::now();
    Loss.backward();
    Clock::time_point T6 = Clock::now();
    Impl->Optimizer->step();
    Clock::time_point T7 = Clock::now();
    Total.ZeroGrad += Us(T0, T1);
    Total.Linear += Us(T1, T2);
    Total.Sub += Us(T2, T3);
    Total.Pow += Us(T3, T4);
    Total.Sum += Us(T4, T5);
    Total.Backward += Us(T5, T6);
    Total.OptimizerStep += Us(T6, T7);
  }
}

void SeedGraphExample::capture() {
  // As in the tutorial: warm up on a side stream so that the allocator and
  // autograd have set up everything, then capture there (capture is not
  // allowed on the legacy default stream).
  c10::cuda::CUDAStream SideStream = c10::cuda::getStreamFromPool();
  torch::cuda::synchronize();
  {
    c10::cuda::CUDAStreamGuard Guard(SideStream);
    for (int Step = 0; Step < 3; ++Step) {
      Impl->Optimizer->zero_grad();
      Impl->step();
    }
  }
  torch::cuda::synchronize();
  // Gradients set to none now are allocated inside the graph's private pool
  // during capture, and refilled in place by every replay.
  Impl->Optimizer->zero_grad();
  {
    c10::cuda::CUDAStreamGuard Guard(SideStream);
    Impl->Graph.capture_begin();
    Impl->step();
    Impl->Graph.capture_end();
  }
  torch::cuda::synchronize();
  Impl->Captured = true;
}

void SeedGraphExample::replaySteps(int Steps) {
  for (int Step = 0; Step < Steps; ++Step)
    Impl->Graph.replay();
}

bool SeedGraphExample::replayChangesWeights() {
  torch::Tensor Before;
  {
    torch::NoGradGuard NoGrad;
    // In place: the graph holds the parameters' addresses.
    Impl->Model->weight.uniform_(-1.0 / 32, 1.0 / 32);
    Impl->Model->bias.uniform_(-1.0 / 32, 1.0 / 32);
    Before = Impl->Model->weight.clone();
  }
  Impl->Graph.replay();
  torch::cuda::synchronize();
  torch::Tensor After = Impl->Model->weight;
  return !torch::equal(Before, After) &&
         torch::isfinite(After).all().item<bool>();
}

} // namespace xferbench
