// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// Gradient accumulation: an inner loop over micro-batches, then one
// optimizer step. The outer loop is the step loop, so a read-back after the
// inner loop runs on every step (not once per epoch). A synchronization
// that only a device check guards, right before a clock reading, times the
// step.
#include <torch/torch.h>
#include <chrono>

void train(torch::nn::Linear &Model, torch::optim::SGD &Optimizer,
           torch::Device Device, int Steps, int MicroBatches) {
  Model->to(torch::kCUDA);
  for (int Step = 0; Step < Steps; ++Step) {
    auto Start = std::chrono::steady_clock::now();
    torch::Tensor Sum = torch::zeros({1}, torch::kCUDA);
    Optimizer.zero_grad();
    for (int Micro = 0; Micro < MicroBatches; ++Micro) {
      torch::Tensor Loss =
          Model->forward(torch::randn({8, 4}, torch::kCUDA)).sum();
      Sum += Loss.detach();
      Loss.backward();
    }
    float Logged = Sum.item<float>();
    // XFER-WARNING: :[[@LINE-1]]:24: warning: 'item<float>()' synchronizes with the GPU on every iteration of the loop at line 15: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-12]]:3: note: loop starts here
    Optimizer.step();
    if (torch::cuda::is_available()) {
      torch::cuda::synchronize();
    }
    auto Elapsed = std::chrono::steady_clock::now() - Start;
    (void)Logged;
    (void)Elapsed;
  }
}

// Without the step after it, the inner loop is the step loop: what follows
// it runs once per epoch.
void epochs(torch::nn::Linear &Model, torch::optim::SGD &Optimizer,
            int Epochs, int Batches) {
  Model->to(torch::kCUDA);
  for (int Epoch = 0; Epoch < Epochs; ++Epoch) {
    torch::Tensor Sum = torch::zeros({1}, torch::kCUDA);
    for (int Batch = 0; Batch < Batches; ++Batch) {
      Optimizer.zero_grad();
      torch::Tensor Loss =
          Model->forward(torch::randn({8, 4}, torch::kCUDA)).sum();
      Sum += Loss.detach();
      Loss.backward();
      Optimizer.step();
    }
    float Logged = Sum.item<float>();
    (void)Logged;
  }
}
