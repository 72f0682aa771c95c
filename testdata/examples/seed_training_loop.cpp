// The training loop of the seed tutorial ("CPU <-> GPU data transfer
// explained"), ported to LibTorch C++: an MLP fitted on random data, with
// the two habits the tutorial warns about. xfer-tidy flags both; the fixed
// loop below is what it recommends and is not flagged.
#include <torch/torch.h>
#include <iostream>

struct Mlp : torch::nn::Module {
  Mlp()
      : Fc1(register_module("fc1", torch::nn::Linear(4, 128))),
        Fc2(register_module("fc2", torch::nn::Linear(128, 128))),
        Fc3(register_module("fc3", torch::nn::Linear(128, 1))) {}
  torch::Tensor forward(torch::Tensor X) {
    X = torch::relu(Fc1->forward(X));
    X = torch::relu(Fc2->forward(X));
    return Fc3->forward(X);
  }
  torch::nn::Linear Fc1, Fc2, Fc3;
};

constexpr int Iters = 1000;
constexpr int N = 1000;

void trainWithTransfers(Mlp &Model, torch::optim::Adam &Optimizer) {
  for (int I = 0; I < Iters; ++I) {
    // Host-created data copied up on every iteration.
    auto X = torch::randn({N, 2}).to(torch::kCUDA);
    auto Y = torch::randn({N, 2}).to(torch::kCUDA);
    Optimizer.zero_grad();
    auto Loss = Model.forward(torch::cat({X, Y}, 1)).mean();
    Loss.backward();
    Optimizer.step();
    // A readback on every iteration: the host waits for the GPU each time.
    std::cout << "Loss: " << Loss.item<float>() << "\n";
  }
}

void trainFixed(Mlp &Model, torch::optim::Adam &Optimizer) {
  // Created on the device once; read back every 100 iterations.
  auto X = torch::randn({N, 2}, torch::kCUDA);
  auto Y = torch::randn({N, 2}, torch::kCUDA);
  for (int I = 0; I < Iters; ++I) {
    Optimizer.zero_grad();
    auto Loss = Model.forward(torch::cat({X, Y}, 1)).mean();
    Loss.backward();
    Optimizer.step();
    if (I % 100 == 0)
      std::cout << "Loss: " << Loss.item<float>() << "\n";
  }
}

int main() {
  Mlp Model;
  Model.to(torch::kCUDA);
  torch::optim::Adam Optimizer(Model.parameters(), 1e-3);
  trainWithTransfers(Model, Optimizer);
  trainFixed(Model, Optimizer);
}
