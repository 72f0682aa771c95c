// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {ReportEvaluationLoops: true}}
// With ReportEvaluationLoops, evaluation passes are reported like training
// loops (compare loop-roles-evaluation.cpp).
#include <torch/torch.h>

torch::Device Gpu(torch::kCUDA);

void trainAndValidate(torch::nn::Linear &Model, torch::optim::Optimizer &Opt,
                      torch::data::DataLoader<> &Train,
                      torch::data::DataLoader<> &Valid, int Epochs) {
  for (int Epoch = 0; Epoch < Epochs; ++Epoch) {
    for (auto &Batch : Train) {
      auto Loss = Model(Batch.data.to(Gpu)).mean();
      Loss.backward();
      Opt.step();
    }
    double ValidSum = 0;
    for (auto &Batch : Valid) {
      ValidSum += Model(Batch.data.to(Gpu)).mean().item<double>();
      // XFER-WARNING: :[[@LINE-1]]:52: warning: 'item<double>()' synchronizes with the GPU on every iteration of the loop at line 20: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // XFER-NOTE: :[[@LINE-3]]:5: note: loop starts here
    }
  }
}
