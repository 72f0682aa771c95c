//===- SeedTrainingLoop.cpp - Reference loop: the seed's training ---------===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//

#include "reference-loops/SeedTrainingLoop.h"

namespace xferbench {

torch::nn::Sequential makeSeedModel() {
  return torch::nn::Sequential(torch::nn::Linear(4, 128), torch::nn::ReLU(),
                               torch::nn::Linear(128, 128), torch::nn::ReLU(),
                               torch::nn::Linear(128, 1));
}

namespace {
torch::Tensor trainingStep(torch::nn::Sequential &Model,
                           torch::optim::Optimizer &Optimizer,
                           const torch::Tensor &X, const torch::Tensor &Y) {
  Optimizer.zero_grad();
  torch::Tensor Output = Model->forward(torch::cat({X, Y}, 1));
  torch::Tensor Loss = Output.mean();
  Loss.backward();
  Optimizer.step();
  return Loss;
}
} // namespace

float trainWithHostDataEveryIteration(torch::nn::Sequential &Model,
                                      torch::optim::Optimizer &Optimizer,
                                      int64_t Samples, int Iterations,
                                      torch::Device Device, std::ostream &Log) {
  float LastLoss = 0;
  for (int Iteration = 0; Iteration < Iterations; ++Iteration) {
    torch::Tensor HostX = torch::randn({Samples, 2});
    torch::Tensor HostY = torch::randn({Samples, 2});
    torch::Tensor X = HostX.to(Device);
    torch::Tensor Y = HostY.to(Device);
    torch::Tensor Loss = trainingStep(Model, Optimizer, X, Y);
    LastLoss = Loss.item<float>();
    Log << "Loss: " << LastLoss << '\n';
  }
  return LastLoss;
}

float trainWithResidentDataEveryIteration(torch::nn::Sequential &Model,
                                          torch::optim::Optimizer &Optimizer,
                                          const torch::Tensor &X,
                                          const torch::Tensor &Y,
                                          int Iterations, std::ostream &Log) {
  float LastLoss = 0;
  for (int Iteration = 0; Iteration < Iterations; ++Iteration) {
    torch::Tensor Loss = trainingStep(Model, Optimizer, X, Y);
    LastLoss = Loss.item<float>();
    Log << "Loss: " << LastLoss << '\n';
  }
  return LastLoss;
}

float trainWithResidentDataPrintEvery100(torch::nn::Sequential &Model,
                                         torch::optim::Optimizer &Optimizer,
                                         const torch::Tensor &X,
                                         const torch::Tensor &Y, int Iterations,
                                         std::ostream &Log) {
  torch::Tensor Loss;
  for (int Iteration = 0; Iteration < Iterations; ++Iteration) {
    Loss = trainingStep(Model, Optimizer, X, Y);
    if (Iteration % 100 == 0)
      Log << "Loss: " << Loss.item<float>() << '\n';
  }
  return Loss.defined() ? Loss.item<float>() : 0.0f;
}

float trainOneEpoch(torch::nn::Sequential &Model,
                    torch::optim::Optimizer &Optimizer, const torch::Tensor &X,
                    const torch::Tensor &Y, int64_t Batch, bool PrintEachStep,
                    std::ostream &Log) {
  const int64_t Samples = X.size(0);
  torch::Tensor Loss;
  for (int64_t Start = 0; Start < Samples; Start += Batch) {
    const int64_t Length = std::min(Batch, Samples - Start);
    Loss = trainingStep(Model, Optimizer, X.narrow(0, Start, Length),
                        Y.narrow(0, Start, Length));
    if (PrintEachStep)
      Log << "Loss: " << Loss.item<float>() << '\n';
  }
  return Loss.defined() ? Loss.item<float>() : 0.0f;
}

} // namespace xferbench
