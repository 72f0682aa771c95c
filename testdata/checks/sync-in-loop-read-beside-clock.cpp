// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// A wait right before a clock reading makes the measurement right: not a
// finding. A value read there for its own sake (a loss written to a log
// beside the step's timing) is a read on every step like any other.
#include <torch/torch.h>
#include <chrono>
#include <fstream>

void trainAndLogTimes(torch::nn::Linear &Model, torch::optim::SGD &Optimizer,
                      torch::Tensor X, int Steps) {
  std::ofstream Log("loss.csv");
  torch::Tensor Input = X.to(torch::kCUDA);
  auto Start = std::chrono::steady_clock::now();
  for (int Step = 0; Step < Steps; ++Step) {
    torch::Tensor Loss = Model->forward(Input).mean();
    Loss.backward();
    Optimizer.step();
    Log << Step << "," << Loss.item<double>() << "\n";
    // XFER-WARNING: :[[@LINE-1]]:32: warning: 'item<double>()' synchronizes with the GPU on every iteration of the loop at line 15: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    auto Now = std::chrono::steady_clock::now();
    Log << std::chrono::duration<double>(Now - Start).count() << "\n";
  }
}

void trainAndTimeSteps(torch::nn::Linear &Model, torch::optim::SGD &Optimizer,
                       torch::Tensor X, int Steps) {
  std::ofstream Log("times.csv");
  torch::Tensor Input = X.to(torch::kCUDA);
  for (int Step = 0; Step < Steps; ++Step) {
    auto Start = std::chrono::steady_clock::now();
    torch::Tensor Loss = Model->forward(Input).mean();
    Loss.backward();
    Optimizer.step();
    (void)Loss.item<double>();
    auto End = std::chrono::steady_clock::now();
    Log << std::chrono::duration<double>(End - Start).count() << "\n";
  }
}

// The same in a module's forward(), which runs once per step: a value
// written to a log beside a clock reading is a read; a bare read beside it
// only waits for the measurement.
struct TimedImpl : torch::nn::Module {
  torch::Tensor Scale = torch::ones({4}, torch::kCUDA);
  std::ofstream Log{"forward.csv"};
  torch::Tensor forward(const torch::Tensor &X) {
    torch::Tensor Out = X * Scale;
    Log << Out.sum().item<float>() << "\n";
    // XFER-WARNING: :[[@LINE-1]]:22: warning: 'item<float>()' synchronizes with the GPU on every call of 'TimedImpl::forward()', once per step of the model: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    auto Now = std::chrono::steady_clock::now();
    Log << Now.time_since_epoch().count() << "\n";
    (void)Out.sum().item<float>();
    auto After = std::chrono::steady_clock::now();
    Log << (After - Now).count() << "\n";
    return Out;
  }
};
