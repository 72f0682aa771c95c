// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// A module member built on the host and moved by the same method
// (`net = Net(...); net->to(device);` in a setup method) is wherever that
// move sends it: every object that builds it moves it. One built by the
// constructor and moved by a separate `cuda()` method, which only some
// objects call (a learner on the GPU, rollout workers on the host), stays
// unknown: its reads are not reported.
#include <torch/torch.h>

struct Detector {
  torch::nn::Linear Net{nullptr};
  void initialize() {
    Net = torch::nn::Linear(4, 2);
    Net->to(torch::kCUDA);
  }
  float train(const torch::Tensor &X, int Steps) {
    float Sum = 0;
    for (int I = 0; I < Steps; ++I)
      Sum += Net->forward(X).sum().item<float>();
    // XFER-WARNING: :[[@LINE-1]]:36: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 20: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :20:5: note: loop starts here
    return Sum;
  }
};

struct Actor {
  torch::nn::Linear Net;
  Actor() : Net(torch::nn::Linear(4, 2)) {}
  void cuda() { Net->to(torch::kCUDA); }
  float act(const torch::Tensor &X, int Steps) {
    float Sum = 0;
    for (int I = 0; I < Steps; ++I)
      Sum += Net->forward(X).sum().item<float>();
    return Sum;
  }
};
