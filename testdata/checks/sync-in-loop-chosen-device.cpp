// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {xfer-sync-in-loop.ReportUnknownPlacement: true}}
// A device set to CUDA when there is a GPU and used so is a GPU run: with
// ReportUnknownPlacement, a read of a tensor of unknown placement is
// reported.
#include <torch/torch.h>
#include <iostream>

torch::Tensor loadBatch(int Step); // defined elsewhere: placement unknown

int main() {
  auto Device = torch::kCPU;
  if (torch::cuda::is_available())
    Device = torch::kCUDA;
  torch::nn::Linear Model(4, 1);
  Model->to(Device);
  for (int Step = 0; Step < 100; ++Step)
    std::cout << loadBatch(Step).mean().item<float>() << "\n";
  // XFER-WARNING: :[[@LINE-1]]:41: warning: 'item<float>()' synchronizes with the GPU on each of 100 iterations of the loop at line 18: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
}
