//===- TorchInferenceLoop.cpp - Reference loop: batched inference ---------===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//

#include "reference-loops/TorchInferenceLoop.h"

namespace xferbench {

torch::nn::Sequential makeClassifier() {
  return torch::nn::Sequential(torch::nn::Linear(256, 512), torch::nn::ReLU(),
                               torch::nn::Linear(512, 512), torch::nn::ReLU(),
                               torch::nn::Linear(512, 10));
}

float meanConfidenceReadingEachBatch(torch::nn::Sequential &Model,
                                     const std::vector<torch::Tensor> &Batches,
                                     int Iterations) {
  torch::NoGradGuard NoGrad;
  double ConfidenceSum = 0;
  for (int Iteration = 0; Iteration < Iterations; ++Iteration) {
    const torch::Tensor &Batch = Batches[Iteration % Batches.size()];
    torch::Tensor Probabilities = torch::softmax(Model->forward(Batch), 1);
    ConfidenceSum += Probabilities.max().item<float>();
  }
  return float(ConfidenceSum / Iterations);
}

float meanConfidenceReadingEvery100(torch::nn::Sequential &Model,
                                    const std::vector<torch::Tensor> &Batches,
                                    int Iterations) {
  torch::NoGradGuard NoGrad;
  // Per-batch confidences stay on the device until 100 have accumulated.
  std::vector<torch::Tensor> Pending;
  double ConfidenceSum = 0;
  for (int Iteration = 0; Iteration < Iterations; ++Iteration) {
    const torch::Tensor &Batch = Batches[Iteration % Batches.size()];
    torch::Tensor Probabilities = torch::softmax(Model->forward(Batch), 1);
    Pending.push_back(Probabilities.max());
    if (Pending.size() == 100) {
      ConfidenceSum += torch::stack(Pending).sum().item<double>();
      Pending.clear();
    }
  }
  if (!Pending.empty())
    ConfidenceSum += torch::stack(Pending).sum().item<double>();
  return float(ConfidenceSum / Iterations);
}

namespace {
int64_t countClassZero(const torch::Tensor &HostPredictions) {
  const int64_t *Classes = HostPredictions.data_ptr<int64_t>();
  int64_t Count = 0;
  for (int64_t I = 0; I < HostPredictions.numel(); ++I)
    Count += Classes[I] == 0;
  return Count;
}
} // namespace

int64_t
countClassZeroCopyingEachBatch(torch::nn::Sequential &Model,
                               const std::vector<torch::Tensor> &Batches,
                               int Iterations) {
  torch::NoGradGuard NoGrad;
  int64_t Count = 0;
  for (int Iteration = 0; Iteration < Iterations; ++Iteration) {
    const torch::Tensor &Batch = Batches[Iteration % Batches.size()];
    torch::Tensor Predictions = Model->forward(Batch).argmax(1).cpu();
    Count += countClassZero(Predictions);
  }
  return Count;
}

int64_t countClassZeroReadingEvery100(torch::nn::Sequential &Model,
                                      const std::vector<torch::Tensor> &Batches,
                                      int Iterations) {
  torch::NoGradGuard NoGrad;
  // Predictions stay on the device; 100 batches' worth cross in one copy.
  std::vector<torch::Tensor> Pending;
  int64_t Count = 0;
  for (int Iteration = 0; Iteration < Iterations; ++Iteration) {
    const torch::Tensor &Batch = Batches[Iteration % Batches.size()];
    Pending.push_back(Model->forward(Batch).argmax(1));
    if (Pending.size() == 100) {
      Count += countClassZero(torch::cat(Pending).cpu());
      Pending.clear();
    }
  }
  if (!Pending.empty())
    Count += countClassZero(torch::cat(Pending).cpu());
  return Count;
}

} // namespace xferbench
