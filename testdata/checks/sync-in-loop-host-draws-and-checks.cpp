// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// A helper that fills a batch on the host, drawing indices with
// `torch::randint(...).item()`, runs no step loop of its own: the loss read
// after it is still read on every step. A check that ends the program when
// the loss is not finite is a termination test, and its message is built
// only on the way out.
#include <torch/torch.h>
#include <cmath>
#include <vector>

[[noreturn]] void failCheck(const char *Message, double Value);
#define CHECK_FINITE(Value, Report)                                            \
  if (!(std::isfinite(Value))) {                                               \
    failCheck("loss is not finite", Report);                                   \
  }

void fillBatch(const std::vector<float> &Replay, std::vector<float> &Batch) {
  for (size_t I = 0; I < Batch.size(); ++I) {
    const int64_t Pick =
        torch::randint(0, static_cast<int64_t>(Replay.size()), {1})
            .item<int64_t>();
    Batch[I] = Replay[Pick];
  }
}

double train(torch::nn::Linear &Model, const std::vector<float> &Replay,
             std::vector<float> &Batch, int Steps) {
  Model->to(torch::kCUDA);
  double Total = 0;
  for (int S = 0; S < Steps; ++S) {
    fillBatch(Replay, Batch);
    torch::Tensor Input =
        torch::from_blob(Batch.data(), {4, 4}).to(torch::kCUDA);
    torch::Tensor Loss = Model(Input).sum();
    CHECK_FINITE(Loss.item<double>(), Loss.item<double>());
    Loss.backward();
    Total += Loss.item<double>();
    // XFER-WARNING: :[[@LINE-1]]:19: warning: 'item<double>()' synchronizes with the GPU on every iteration of the loop at line 32: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :32:3: note: loop starts here
  }
  return Total;
}

double trainChecked(torch::nn::Linear &Model, int Steps) {
  Model->to(torch::kCUDA);
  double Total = 0;
  for (int S = 0; S < Steps; ++S) {
    torch::Tensor Loss = Model(torch::ones({4, 4}, torch::kCUDA)).sum();
    CHECK_FINITE(Loss.item<double>(), Loss.item<double>());
    Loss.backward();
  }
  return Total;
}
