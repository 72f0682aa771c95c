// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {xfer-sync-in-loop.ReportOutputReadBacks: true}}
// With ReportOutputReadBacks, a per-sample result read back and written to a
// file is reported, with a note saying it may be necessary.
#include <torch/torch.h>
#include <fstream>

torch::Tensor criterion(const torch::Tensor &A, const torch::Tensor &B);

void testModel(torch::nn::Linear &Model, torch::Tensor Inputs, int Samples) {
  torch::NoGradGuard NoGrad;
  std::ofstream Out("loss.txt");
  for (int S = 0; S < Samples; ++S) {
    torch::Tensor X = Inputs[S].to(torch::kCUDA);
    torch::Tensor Loss = criterion(Model->forward(X), X);
    Out << Loss.item<float>() << "\n";
    // XFER-WARNING: :[[@LINE-1]]:17: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 14: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :14:3: note: loop starts here
    // XFER-NOTE: :[[@LINE-3]]:17: note: the host takes the value in the same iteration (a file, a result returned or handed on): if it is the result the program needs, the read is necessary; read it once
  }
}
