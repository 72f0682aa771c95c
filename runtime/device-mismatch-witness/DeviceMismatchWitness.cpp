//===--- DeviceMismatchWitness.cpp - LibTorch behaviour xfer-device-mismatch relies on
//
// Runs each LibTorch pattern that xfer-device-mismatch reports on a CUDA
// machine and checks the claim the diagnostic makes: mixing a cuda and a cpu
// tensor throws "Expected all tensors to be on the same device", a discarded
// Tensor::to() leaves the tensor where it was. The patterns the check
// deliberately accepts (0-dim cpu tensors next to cuda tensors, copy_)
// must run without an error. Prints one PASS/FAIL line per pattern and exits
// non-zero on any FAIL.
//
//===----------------------------------------------------------------------===//

#include <torch/torch.h>
#include <algorithm>
#include <cctype>
#include <functional>
#include <iostream>
#include <string>

namespace {

int Failures = 0;

std::string firstLine(const std::string &Text) {
  return Text.substr(0, Text.find('\n'));
}

bool mentionsSameDevice(std::string Message) {
  std::transform(Message.begin(), Message.end(), Message.begin(),
                 [](unsigned char C) { return std::tolower(C); });
  return Message.find("same device") != std::string::npos;
}

void report(bool Passed, const std::string &Pattern,
            const std::string &Detail) {
  std::cout << (Passed ? "PASS " : "FAIL ") << Pattern << ": " << Detail
            << std::endl;
  if (!Passed)
    ++Failures;
}

/// A reported pattern: it must throw the same-device error.
void expectDeviceError(const std::string &Pattern,
                       const std::function<void()> &Body) {
  try {
    Body();
    torch::cuda::synchronize();
    report(false, Pattern, "ran without an error");
  } catch (const std::exception &E) {
    std::string Message = firstLine(E.what());
    report(mentionsSameDevice(Message), Pattern, Message);
  }
}

/// A pattern the check accepts: it must run.
void expectNoError(const std::string &Pattern,
                   const std::function<void()> &Body) {
  try {
    Body();
    torch::cuda::synchronize();
    report(true, Pattern, "ran without an error");
  } catch (const std::exception &E) {
    report(false, Pattern, firstLine(E.what()));
  }
}

struct NetImpl : torch::nn::Module {
  NetImpl() : Fc(register_module("fc", torch::nn::Linear(16, 4))) {}
  torch::Tensor forward(const torch::Tensor &X) { return Fc(X); }
  torch::nn::Linear Fc;
};
TORCH_MODULE(Net);

} // namespace

int main() {
  if (!torch::cuda::is_available()) {
    std::cout << "FAIL setup: no CUDA device visible to LibTorch" << std::endl;
    return 2;
  }
  const torch::Device Gpu(torch::kCUDA);
  auto Host = torch::randn({4, 4});
  auto Cuda = torch::randn({4, 4}, Gpu);

  // Operators and methods.
  expectDeviceError("operator+", [&] { (void)(Cuda + Host); });
  expectDeviceError("operator<", [&] { (void)(Host < Cuda); });
  expectDeviceError("operator+=", [&] { Cuda.clone() += Host; });
  expectDeviceError("add", [&] { (void)Cuda.add(Host); });
  expectDeviceError("sub", [&] { (void)Cuda.sub(Host); });
  expectDeviceError("mul", [&] { (void)Host.mul(Cuda); });
  expectDeviceError("matmul", [&] { (void)Cuda.matmul(Host); });
  expectDeviceError("mm", [&] { (void)Cuda.mm(Host); });
  expectDeviceError("bmm", [&] {
    (void)torch::ones({2, 4, 4}).bmm(torch::ones({2, 4, 4}, Gpu));
  });
  expectDeviceError("index_select", [&] {
    (void)Cuda.index_select(0, torch::zeros({2}, torch::kLong));
  });
  expectDeviceError("masked_fill",
                    [&] { (void)Cuda.masked_fill(Host > 0.5, 0.0); });

  // Free functions.
  expectDeviceError("torch::cat", [&] { (void)torch::cat({Cuda, Host}); });
  expectDeviceError("torch::stack", [&] { (void)torch::stack({Host, Cuda}); });
  expectDeviceError("torch::where",
                    [&] { (void)torch::where(Cuda > 0.0, Cuda, Host); });
  expectDeviceError("torch::mse_loss",
                    [&] { (void)torch::mse_loss(Host, Cuda); });
  expectDeviceError("torch::nn::functional::mse_loss", [&] {
    (void)torch::nn::functional::mse_loss(Cuda, Host);
  });

  // Modules.
  expectDeviceError("cuda module called with a cpu tensor", [&] {
    torch::nn::Linear Fc(16, 4);
    Fc->to(torch::kCUDA);
    (void)Fc(torch::randn({8, 16}));
  });
  expectDeviceError("cuda module (shared_ptr, to(device)) with a cpu tensor",
                    [&] {
                      auto Model = std::make_shared<NetImpl>();
                      Model->to(Gpu);
                      (void)Model->forward(torch::ones({1, 16}));
                    });
  expectDeviceError("cpu module called with a cuda tensor", [&] {
    Net Model;
    (void)Model->forward(torch::ones({1, 16}, Gpu));
  });

  // Discarded Tensor::to() / cuda(): the tensor stays on the cpu.
  {
    auto T = torch::randn({3});
    T.to(Gpu);
    report(T.device().is_cpu(), "discarded to(device)",
           "tensor is on " + T.device().str());
    T.cuda();
    report(T.device().is_cpu(), "discarded cuda()",
           "tensor is on " + T.device().str());
    T = T.to(Gpu);
    report(T.device().is_cuda(), "assigned to(device) (the fix-it)",
           "tensor is on " + T.device().str());
  }

  // What the check deliberately does not report.
  expectNoError("0-dim torch::tensor(2.0) with a cuda tensor",
                [&] { (void)(Cuda * torch::tensor(2.0)); });
  expectNoError("torch::scalar_tensor with a cuda tensor",
                [&] { (void)Cuda.add(torch::scalar_tensor(3.0)); });
  expectNoError("0-dim reduction with a cuda tensor",
                [&] { (void)Cuda.sub(torch::randn({3}).sum()); });
  expectNoError("copy_ across devices", [&] { Host.clone().copy_(Cuda); });
  expectNoError("to(other tensor)", [&] { (void)Host.to(Cuda).add(Cuda); });

  std::cout << (Failures ? "FAILED: " : "ALL PASSED: ") << Failures
            << " failure(s)" << std::endl;
  return Failures ? 1 : 0;
}
