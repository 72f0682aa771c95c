// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-*
// A LibTorch program that never uses CUDA: item() is a plain host read, so
// nothing here is reported.
#include <torch/torch.h>
#include <iostream>

int main() {
  torch::Tensor W = torch::randn({4, 1});
  torch::Device Device("cpu");
  for (int I = 0; I < 1000; ++I) {
    auto Unknown = W.to(Device).matmul(W);
    std::cout << Unknown.item<float>() << Unknown << "\n";
    (void)Unknown.nonzero();
  }
}
