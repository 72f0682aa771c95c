//===- TorchHazards.cpp - Evidence programs: LibTorch loops with hazards --===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//
//
//   torch-hazards seed|inference|multi measure|trace <rounds> <iterations>
//
// seed: the seed training loop (MLP 4-128-128-1, Adam, N = 1000): inputs
// drawn on the host and moved up, loss read with item() every iteration.
// inference: the LibTorch inference reference loop (MLP 256-512-512-10,
// batch 256): max confidence read with item() and predictions copied with
// cpu() every batch.
// multi: a training step with five hazards of different sizes.
// Each variant "fix:<site>" fixes that site alone; "// site: <name>" marks
// the hazard's line for the evidence table.
//
//===----------------------------------------------------------------------===//

#include "EvidenceTiming.h"

#include <torch/torch.h>

#include <iostream>
#include <sstream>

namespace {

torch::nn::Sequential seedModel() {
  return torch::nn::Sequential(torch::nn::Linear(4, 128), torch::nn::ReLU(),
                               torch::nn::Linear(128, 128), torch::nn::ReLU(),
                               torch::nn::Linear(128, 1));
}

struct SeedFix {
  bool X = false, Y = false, Item = false;
};

void seedLoop(torch::nn::Sequential &Model, torch::optim::Adam &Optimizer,
              int Iterations, SeedFix Fix, std::ostream &Log) {
  const int64_t N = 1000;
  torch::Tensor ResidentX = torch::randn({N, 2}, torch::kCUDA);
  torch::Tensor ResidentY = torch::randn({N, 2}, torch::kCUDA);
  for (int I = 0; I < Iterations; ++I) {
    torch::Tensor X = Fix.X ? torch::randn({N, 2}, torch::kCUDA) : torch::randn({N, 2}).to(torch::kCUDA); // site: x
    torch::Tensor Y = Fix.Y ? torch::randn({N, 2}, torch::kCUDA) : torch::randn({N, 2}).to(torch::kCUDA); // site: y
    Optimizer.zero_grad();
    torch::Tensor Loss = Model->forward(torch::cat({X, Y}, 1)).mean();
    Loss.backward();
    Optimizer.step();
    if (!Fix.Item || I % 100 == 0)
      Log << "Loss: " << Loss.item<float>() << "\n"; // site: item
  }
  torch::cuda::synchronize();
}

torch::nn::Sequential classifier() {
  return torch::nn::Sequential(torch::nn::Linear(256, 512), torch::nn::ReLU(),
                               torch::nn::Linear(512, 512), torch::nn::ReLU(),
                               torch::nn::Linear(512, 10));
}

struct InferenceFix {
  bool Item = false, Cpu = false;
};

int64_t inferenceLoop(torch::nn::Sequential &Model,
                      const std::vector<torch::Tensor> &Batches, int Iterations,
                      InferenceFix Fix) {
  torch::NoGradGuard NoGrad;
  std::vector<torch::Tensor> PendingConfidence, PendingPredictions;
  double Confidence = 0;
  int64_t ClassZero = 0;
  for (int I = 0; I < Iterations; ++I) {
    const torch::Tensor &Batch = Batches[I % Batches.size()];
    torch::Tensor Logits = Model->forward(Batch);
    torch::Tensor Probabilities = torch::softmax(Logits, 1);
    if (!Fix.Item)
      Confidence += Probabilities.max().item<float>(); // site: item
    else
      PendingConfidence.push_back(Probabilities.max());
    if (!Fix.Cpu)
      ClassZero += (Logits.argmax(1).cpu() == 0).sum().item<int64_t>(); // site: cpu
    else
      PendingPredictions.push_back(Logits.argmax(1));
    if (PendingConfidence.size() == 100) {
      Confidence += torch::stack(PendingConfidence).sum().item<double>();
      PendingConfidence.clear();
    }
    if (PendingPredictions.size() == 100) {
      ClassZero += (torch::cat(PendingPredictions).cpu() == 0).sum().item<int64_t>();
      PendingPredictions.clear();
    }
  }
  torch::cuda::synchronize();
  return ClassZero + int64_t(Confidence);
}

struct MultiFix {
  bool Item = false, Copy = false, Sync = false, Upload = false, Nonzero = false;
};

/// A wider training step with five hazards: the loss read back (4 bytes),
/// the activations copied to the host (4 MiB), a device-wide
/// synchronization, a host-created noise tensor moved up (1 MiB), and
/// nonzero(), whose output size the host must learn.
double multiLoop(torch::nn::Sequential &Model, torch::optim::SGD &Optimizer,
                 const torch::Tensor &Input, int Iterations, MultiFix Fix) {
  double Sum = 0;
  torch::Tensor Noise = torch::randn({512, 512}, torch::kCUDA);
  for (int I = 0; I < Iterations; ++I) {
    torch::Tensor Fresh = Fix.Upload ? Noise : torch::randn({512, 512}).to(torch::kCUDA); // site: upload
    Optimizer.zero_grad();
    torch::Tensor Hidden = Model->forward(Input + 0.01 * Fresh);
    torch::Tensor Loss = Hidden.pow(2).mean();
    Loss.backward();
    Optimizer.step();
    if (!Fix.Sync)
      torch::cuda::synchronize(); // site: sync
    if (!Fix.Copy || I % 100 == 0)
      Sum += Hidden.detach().cpu().sum().item<float>(); // site: copy
    if (!Fix.Nonzero)
      Sum += double(Hidden.gt(0.5).nonzero().size(0)); // site: nonzero
    if (!Fix.Item || I % 100 == 0)
      Sum += Loss.item<float>(); // site: item
  }
  torch::cuda::synchronize();
  return Sum;
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 2 || !torch::cuda::is_available()) {
    std::fprintf(stderr, "usage: torch-hazards seed|inference|multi "
                         "measure|trace <rounds> <iterations> (needs CUDA)\n");
    return 2;
  }
  torch::manual_seed(0);
  std::string Program = Argv[1];
  std::ostringstream Log; // the printed losses, kept off the terminal
  std::vector<evidence::Variant> Variants;
  if (Program == "seed") {
    static torch::nn::Sequential Model = seedModel();
    Model->to(torch::kCUDA);
    static torch::optim::Adam Optimizer(Model->parameters(), 1e-3);
    auto Run = [&Log](SeedFix Fix) {
      return [Fix, &Log](int N) {
        seedLoop(Model, Optimizer, N, Fix, Log);
        Log.str("");
      };
    };
    Variants = {{"hazard", Run({})},
                {"fix:x", Run({true, false, false})},
                {"fix:y", Run({false, true, false})},
                {"fix:item", Run({false, false, true})}};
  } else if (Program == "inference") {
    static torch::nn::Sequential Model = classifier();
    Model->to(torch::kCUDA);
    static std::vector<torch::Tensor> Batches;
    for (int B = 0; B < 8; ++B)
      Batches.push_back(torch::randn({256, 256}, torch::kCUDA));
    auto Run = [](InferenceFix Fix) {
      return [Fix](int N) { inferenceLoop(Model, Batches, N, Fix); };
    };
    Variants = {{"hazard", Run({})},
                {"fix:item", Run({true, false})},
                {"fix:cpu", Run({false, true})}};
  } else if (Program == "multi") {
    static torch::nn::Sequential Model = torch::nn::Sequential(
        torch::nn::Linear(512, 2048), torch::nn::ReLU(),
        torch::nn::Linear(2048, 2048));
    Model->to(torch::kCUDA);
    static torch::optim::SGD Optimizer(Model->parameters(), 1e-4);
    static torch::Tensor Input = torch::randn({512, 512}, torch::kCUDA);
    auto Run = [](MultiFix Fix) {
      return [Fix](int N) { multiLoop(Model, Optimizer, Input, N, Fix); };
    };
    MultiFix Item, Copy, Sync, Upload, Nonzero;
    Item.Item = Copy.Copy = Sync.Sync = Upload.Upload = Nonzero.Nonzero = true;
    Variants = {{"hazard", Run({})},       {"fix:item", Run(Item)},
                {"fix:copy", Run(Copy)},   {"fix:sync", Run(Sync)},
                {"fix:upload", Run(Upload)}, {"fix:nonzero", Run(Nonzero)}};
  } else {
    std::fprintf(stderr, "unknown program %s\n", Program.c_str());
    return 2;
  }
  return evidence::runEvidence("torch-" + Program, Argc - 1, Argv + 1, Variants);
}
