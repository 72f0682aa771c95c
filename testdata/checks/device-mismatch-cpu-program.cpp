// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-device-mismatch
// A program that never names cuda runs where its caller's device says, and
// nothing here says that is a GPU: a device chosen at run time next to a host
// tensor is not reported.
#include <torch/torch.h>

void agnosticWithParameter(torch::Device Device) {
  auto A = torch::randn({3}).to(Device);
  auto B = torch::randn({3});
  (void)A.add(B);
  torch::nn::Linear Layer(3, 1);
  Layer->to(Device);
  (void)Layer(B);
}

// The storage of a tensor on the run-time device, read on the host: this
// program never uses CUDA, so the device is the CPU.
float storageRead(const torch::Tensor &Out, torch::Device Dev) {
  return *Out.to(Dev).data_ptr<float>();
}
