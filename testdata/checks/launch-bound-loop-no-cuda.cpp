// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-launch-bound-loop
// Device-agnostic LibTorch code in a program that shows no CUDA use: its
// operations run on the CPU, where there are no launches to save, so
// nothing here is reported (RequireCudaEvidence: false would report the
// first loop).
#include <torch/torch.h>

void relax(torch::Device Device, const torch::Tensor &W, int Iters) {
  auto A = torch::ones({1024}, Device);
  auto B = torch::zeros({1024}, Device);
  for (int I = 0; I < Iters; ++I) {
    auto C = A.mul(W) + B;
    C = C.div(A) - B;
    A.add_(C.sum().view({1}));
    B += C * 0.5;
  }
}

void onHost(const torch::Tensor &W, int Iters) {
  auto A = torch::ones({1024});
  auto B = torch::zeros({1024});
  for (int I = 0; I < Iters; ++I) {
    auto C = A.mul(W) + B;
    C = C.div(A) - B;
    A.add_(C.sum().view({1}));
    B += C * 0.5;
  }
}
