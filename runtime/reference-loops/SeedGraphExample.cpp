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
