// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// Corpus: torch::nn::utils::clip_grad_norm_ returns the total norm as a
// double, which it reads back from the device with item().
#include <torch/torch.h>

void train(std::vector<torch::Tensor> Params, torch::optim::Optimizer &Opt,
           int Steps) {
  auto X = torch::randn({8, 4}, torch::kCUDA);
  for (int Step = 0; Step < Steps; ++Step) {
    Opt.zero_grad();
    torch::nn::utils::clip_grad_norm_(Params, 0.5);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'torch::nn::utils::clip_grad_norm_()' synchronizes with the GPU on every iteration of the loop at line 10: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    Opt.step();
    if (Step % 100 == 0)
      torch::nn::utils::clip_grad_norm_(Params, 1.0);
  }
}
