// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {xfer-sync-in-loop.MinFrequencyPercent: 1, xfer-sync-in-loop.RequireCudaEvidence: false, xfer-sync-in-loop.ReportUnknownPlacement: true}}
// With the threshold at 1%, readbacks every 100 iterations are reported, and
// without requiring CUDA evidence or a known placement so are LibTorch calls
// in CPU-only code and on parameters nobody here passes.
#include <torch/torch.h>

void logEvery100(torch::Tensor Loss, int Iters) {
  for (int I = 0; I < Iters; ++I) {
    if (I % 100 == 0)
      (void)Loss.item<float>();
    // XFER-WARNING: :[[@LINE-1]]:18: warning: 'item<float>()' synchronizes with the GPU once every 100 iterations of the loop at line 10: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    if (I % 1000 == 0)
      (void)Loss.item<float>();
  }
}
