// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {xfer-sync-in-loop.ReportUnknownPlacement: true}}
// A program that picks CUDA when there is a GPU and then sets the device
// back to the CPU before using it never runs on a GPU: asking whether one
// is there and storing kCUDA where nothing reads it are no evidence of CUDA
// use. Even reads of tensors of unknown placement, reported with
// ReportUnknownPlacement in a program that uses CUDA, stay silent.
#include <torch/torch.h>
#include <iostream>

torch::Tensor loadBatch(int Step); // defined elsewhere: placement unknown

int main() {
  auto Device = torch::kCPU;
  if (torch::cuda::is_available()) {
    std::cout << "CUDA is available\n";
    Device = torch::kCUDA;
  }
  Device = torch::kCPU;
  torch::nn::Linear Model(4, 1);
  Model->to(Device);
  for (int Step = 0; Step < 100; ++Step)
    std::cout << loadBatch(Step).mean().item<float>() << "\n";
}

// The same with a torch::Device object.
void evaluate(torch::nn::Linear &Model) {
  torch::Device Device(torch::kCPU);
  if (torch::cuda::is_available())
    Device = torch::Device(torch::kCUDA);
  Device = torch::Device(torch::kCPU);
  Model->to(Device);
  for (int Step = 0; Step < 100; ++Step)
    std::cout << loadBatch(Step).sum().item<float>() << "\n";
}
