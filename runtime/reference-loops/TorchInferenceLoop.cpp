//===- TorchInferenceLoop.cpp - Reference loop: batched inference ---------===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//

#include "reference-loops/TorchInferenceLoop.h"

namespace xferbench {

torch::nn::Sequential makeClassifier() {
  return torch::nn::Sequential(
      torch::nn::Linear(256, 512), torch::nn::ReLU(),
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
  torch::Tensor ConfidenceSum =
      torch::zeros({}, Batches.front().options());
  double ReadSoFar = 0;
  for (int Iteration = 0; Iteration < Iterations; ++Iteration) {
    const torch::Tensor &Batch = Batches[Iteration % Batches.size()];
    torch::Tensor Probabilities = torch::softmax(Model->forward(Batch), 1);
    ConfidenceSum += Probabilities.max();
    if ((Iteration + 1) % 100 == 0) {
      ReadSoFar += ConfidenceSum.item<float>();
      ConfidenceSum.zero_();
    }
  }
  ReadSoFar += ConfidenceSum.item<float>();
  return float(ReadSoFar / Iterations);
}

int64_t countClassZeroCopyingEachBatch(torch::nn::Sequential &Model,
                                       const std::vector<torch::Tensor> &Batches,
                                       int Iterations) {
  torch::NoGradGuard NoGrad;
  int64_t Count = 0;
  for (int Iteration = 0; Iteration < Iterations; ++Iteration) {
    const torch::Tensor &Batch = Batches[Iteration % Batches.size()];
    torch::Tensor Predictions = Model->forward(Batch).argmax(1).cpu();
    const int64_t *Classes = Predictions.data_ptr<int64_t>();
    for (int64_t I = 0; I < Predictions.numel(); ++I)
      Count += Classes[I] == 0;
  }
  return Count;
}

int64_t countClassZeroReadingEvery100(torch::nn::Sequential &Model,
                                      const std::vector<torch::Tensor> &Batches,
                                      int Iterations) {
  torch::NoGradGuard NoGrad;
  torch::Tensor DeviceCount = torch::zeros(
      {}, Batches.front().options().dtype(torch::kLong));
  int64_t Count = 0;
  for (int Iteration = 0; Iteration < Iterations; ++Iteration) {
    const torch::Tensor &Batch = Batches[Iteration % Batches.size()];
    torch::Tensor Predictions = Model->forward(Batch).argmax(1);
    DeviceCount += (Predictions == 0).sum();
    if ((Iteration + 1) % 100 == 0) {
      Count += DeviceCount.item<int64_t>();
      DeviceCount.zero_();
    }
  }
  return Count + DeviceCount.item<int64_t>();
}

} // namespace xferbench
