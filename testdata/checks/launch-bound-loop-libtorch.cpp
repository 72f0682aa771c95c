// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-launch-bound-loop
// LibTorch loops whose iterations only dispatch small GPU operations: one
// at::cuda::CUDAGraph replay per iteration replaces them.
#include <torch/torch.h>
#include <iostream>

torch::Device Gpu(torch::kCUDA);

struct Mlp : torch::nn::Module {
  torch::Tensor forward(torch::Tensor X) {
    auto H = Fc1->forward(X) * 2.0;
    H = Fc2->forward(H) * 2.0;
    return Fc3->forward(H);
  }
  torch::nn::Linear Fc1{4, 128}, Fc2{128, 128}, Fc3{128, 1};
};

// A training step on inputs resident on the GPU, logged every 100 steps
// (the read-back runs outside the graph, after a replay).
void train(Mlp &Model, torch::optim::SGD &Optimizer, int Iters) {
  auto X = torch::randn({64, 4}, Gpu);
  auto Y = torch::randn({64, 1}, Gpu);
  for (int I = 0; I < Iters; ++I) {
    // XFER-WARNING: :[[@LINE-1]]:3: warning: loop is launch-bound: each iteration issues 19 LibTorch operations on the GPU with fixed shapes and no synchronization, host<->device copy, allocation or branch on a device result; capture one iteration with at::cuda::CUDAGraph (capture_begin/capture_end) on static input tensors and replay() it [xfer-launch-bound-loop]
    Optimizer.zero_grad();
    auto Out = Model.forward(X);
    // XFER-NOTE: :[[@LINE-1]]:22: note: 'forward()' issues 5 LibTorch operations on the GPU here
    auto Loss = torch::mse_loss(Out, Y) + Out.pow(2.0).mean();
    // XFER-NOTE: :[[@LINE-1]]:17: note: 'at::mse_loss()' runs on the GPU here
    // XFER-NOTE: :[[@LINE-2]]:41: note: 'operator+' runs on the GPU here
    // XFER-NOTE: :[[@LINE-3]]:47: note: 'pow()' runs on the GPU here
    // XFER-NOTE: :[[@LINE-4]]:56: note: 'mean()' runs on the GPU here
    Loss.backward();
    // XFER-NOTE: :[[@LINE-1]]:10: note: 'backward()' issues 9 LibTorch operations on the GPU here (one for each operation it differentiates)
    Optimizer.step();
    // XFER-NOTE: :[[@LINE-1]]:15: note: 'step()' issues 1 LibTorch operation on the GPU here (one per parameter; how many is not known here)
    if (I % 100 == 0)
      std::cout << Loss.item<float>() << "\n";
  }
}

// Element-wise updates of tensors created on the device; views, detach and
// tensor assignment dispatch no kernel.
void relax(const torch::Tensor &W) {
  auto A = torch::ones({1024}, torch::kCUDA);
  auto B = torch::zeros({1024}, torch::kCUDA);
  for (int I = 0; I < 10000; ++I) {
    // XFER-WARNING: :[[@LINE-1]]:3: warning: loop is launch-bound: each iteration issues 8 LibTorch operations on the GPU with fixed shapes and no synchronization, host<->device copy, allocation or branch on a device result; capture one iteration with at::cuda::CUDAGraph (capture_begin/capture_end) on static input tensors and replay() it [xfer-launch-bound-loop]
    auto C = A.mul(W) + B;
    // XFER-NOTE: :[[@LINE-1]]:16: note: 'mul()' runs on the GPU here
    // XFER-NOTE: :[[@LINE-2]]:23: note: 'operator+' runs on the GPU here
    C = C.div(A) - B;
    // XFER-NOTE: :[[@LINE-1]]:11: note: 'div()' runs on the GPU here
    // XFER-NOTE: :[[@LINE-2]]:18: note: 'operator-' runs on the GPU here
    A.add_(C.sum().view({1}));
    // XFER-NOTE: :[[@LINE-1]]:7: note: 'add_()' runs on the GPU here
    // XFER-NOTE: :[[@LINE-2]]:14: note: 'sum()' runs on the GPU here
    B += C * 0.5;
    // XFER-NOTE: :[[@LINE-1]]:7: note: 'operator+=' runs on the GPU here
    // XFER-NOTE: :[[@LINE-2]]:12: note: 'operator*' runs on the GPU here
    (void)C.detach();
  }
}

// Negatives.

// A read-back on every iteration (xfer-sync-in-loop reports it).
void readEachStep(Mlp &Model, int Iters) {
  auto X = torch::randn({64, 4}, Gpu);
  for (int I = 0; I < Iters; ++I) {
    auto Out = Model.forward(X);
    auto Loss = Out.mean() + Out.sum() * Out.mean();
    std::cout << Loss.item<float>() << "\n";
  }
}

// Host batches copied up on every iteration.
void hostBatches(Mlp &Model, torch::data::DataLoader<> &Loader) {
  for (auto &Batch : Loader) {
    auto Out = Model.forward(Batch.data.to(Gpu));
    auto Loss = Out.mean() + Out.sum() * Out.mean();
    Loss.backward();
  }
}

// Branching on a device result.
void untilClose(const torch::Tensor &W) {
  auto X = torch::randn({64, 64}, Gpu);
  while (!X.allclose(W)) {
    auto Y = X.matmul(W) + X.matmul(W) + X.matmul(W) + X.matmul(W);
    X.copy_(Y * 0.5);
  }
}

// Dynamic shapes: sizes that change between iterations or come from the
// GPU (nonzero()'s result).
void growing(const torch::Tensor &W, int Iters) {
  for (int I = 0; I < Iters; ++I) {
    auto X = torch::randn({I + 1, 4}, Gpu);
    auto Z = X.matmul(W) + X.matmul(W) + X.matmul(W);
    auto S = Z.mean() + Z.sum() + Z.mean();
    (void)S;
  }
}

// The image the loop carries is resampled on every iteration (a pass per
// scale of a multi-scale loss): each iteration has other sizes.
void multiscale(const torch::Tensor &Image, const torch::Tensor &W,
                int Scales) {
  torch::nn::functional::InterpolateFuncOptions Half;
  Half.scale_factor({0.5, 0.5});
  torch::Tensor X = Image.to(Gpu);
  for (int I = 0; I < Scales; ++I) {
    auto Z = X.matmul(W) + X.matmul(W) + X.matmul(W);
    auto S = Z.mean() + Z.sum() + Z.mean();
    (void)S;
    X = torch::nn::functional::interpolate(X.unsqueeze(0), Half)[0];
  }
}

void selected(const torch::Tensor &W, int Iters) {
  auto X = torch::randn({64, 4}, Gpu);
  for (int I = 0; I < Iters; ++I) {
    auto Rows = X.nonzero();
    auto Y = X.index_select(0, Rows) * 2.0;
    auto Z = Y.matmul(W) + Y.matmul(W) + Y.matmul(W);
    X = X + Z.mean();
  }
}

// A scalar that changes between iterations is baked into the captured
// kernels; so are Adam's step count and bias correction.
void decaying(torch::Tensor X, int Iters) {
  X = X.to(Gpu);
  double Rate = 1.0;
  for (int I = 0; I < Iters; ++I) {
    X = X.mul(X) + X.mul(X) + X.mul(X) + X.mul(X) * Rate;
    Rate *= 0.99;
  }
}

void trainAdam(Mlp &Model, torch::optim::Adam &Optimizer, int Iters) {
  auto X = torch::randn({64, 4}, Gpu);
  auto Y = torch::randn({64, 1}, Gpu);
  for (int I = 0; I < Iters; ++I) {
    Optimizer.zero_grad();
    auto Out = Model.forward(X);
    auto Loss = torch::mse_loss(Out, Y) + Out.pow(2.0).mean();
    Loss.backward();
    Optimizer.step();
  }
}

// Fewer operations than the threshold, or host tensors.
void small(const torch::Tensor &W, int Iters) {
  auto X = torch::randn({64, 4}, Gpu);
  for (int I = 0; I < Iters; ++I)
    X = X.matmul(W) + X.matmul(W) + X.matmul(W);
}

void onHost(const torch::Tensor &W, int Iters) {
  auto X = torch::randn({64, 4});
  for (int I = 0; I < Iters; ++I) {
    X = X.matmul(W) + X.matmul(W) + X.matmul(W) + X.matmul(W);
    X = X.matmul(W) + X.matmul(W) + X.matmul(W) + X.matmul(W);
  }
}

// A loop that already replays a graph.
#include <ATen/cuda/CUDAGraph.h>
void replayed(at::cuda::CUDAGraph &Graph, const torch::Tensor &W, int Iters) {
  auto X = torch::randn({64, 4}, Gpu);
  for (int I = 0; I < Iters; ++I) {
    Graph.replay();
    X = X.matmul(W) + X.matmul(W) + X.matmul(W) + X.matmul(W);
    X = X.matmul(W) + X.matmul(W) + X.matmul(W) + X.matmul(W);
  }
}

// A sampler that builds its batch on the host and moves it to the device
// its caller passes: an upload on every iteration of a GPU run.
torch::Tensor sampleBatch(const torch::Device &Device) {
  auto Batch = torch::empty({64, 4});
  return Batch.to(Device);
}
void replayTraining(Mlp &Model, torch::optim::SGD &Optimizer, int Iters) {
  torch::Device Device =
      torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  Model.to(Device);
  for (int I = 0; I < Iters; ++I) {
    auto X = sampleBatch(Device);
    Optimizer.zero_grad();
    auto Out = Model.forward(X);
    auto Loss = Out.pow(2.0).mean() + Out.mean();
    Loss.backward();
    Optimizer.step();
  }
}
