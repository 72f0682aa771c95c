// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// An inference application switches its model to evaluation mode too, but
// never trains: its loop over frames is the hot loop (compare
// loop-roles-evaluation.cpp).
#include <torch/torch.h>
#include <vector>

torch::Device Gpu(torch::kCUDA);

double detect(torch::nn::Linear &Model, std::vector<torch::Tensor> &Frames) {
  Model->eval();
  double Sum = 0;
  for (auto &Frame : Frames)
    Sum += Model(Frame.to(Gpu)).mean().item<double>();
  // XFER-WARNING: :[[@LINE-1]]:40: warning: 'item<double>()' synchronizes with the GPU on every iteration of the loop at line 14: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
  // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
  return Sum;
}
