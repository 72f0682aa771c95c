// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-create-on-device
// XFER-CONFIG: {CheckOptions: {xfer-create-on-device.ReportOneTimeCreations: true}}
#include <torch/torch.h>
#include <algorithm>
#include <iostream>
#include <vector>

void directChains(int64_t N, torch::Device Dev) {
  auto A = torch::randn({N, 2}).to(torch::kCUDA);
  // XFER-WARNING: :[[@LINE-1]]:33: warning: tensor created on the host by 'torch::randn()' is copied to the GPU by 'to()'; pass the device to the factory to create it there directly [xfer-create-on-device]
  auto B = torch::zeros({N}).cuda();
  // XFER-WARNING: :[[@LINE-1]]:30: warning: tensor created on the host by 'torch::zeros()' is copied to the GPU by 'cuda()'; pass the device to the factory to create it there directly [xfer-create-on-device]
  auto C = torch::tensor({1.0f, 2.0f}).to(Dev);
  // XFER-WARNING: :[[@LINE-1]]:40: warning: tensor created on the host by 'torch::tensor()' is copied to a device chosen at run time by 'to()'; pass the device to the factory to create it there directly [xfer-create-on-device]
  auto D = torch::ones({N}, torch::dtype(torch::kFloat)).to("cuda:0");
  // XFER-WARNING: :[[@LINE-1]]:58: warning: tensor created on the host by 'torch::ones()' is copied to the GPU by 'to()'; pass the device to the factory to create it there directly [xfer-create-on-device]
  auto E = at::empty({N}).to(at::kCUDA);
  // XFER-WARNING: :[[@LINE-1]]:27: warning: tensor created on the host by 'at::empty()' is copied to the GPU by 'to()'; pass the device to the factory to create it there directly [xfer-create-on-device]
  auto F = (torch::rand({N})).to(torch::Device(torch::kCUDA, 1));
  // XFER-WARNING: :[[@LINE-1]]:31: warning: tensor created on the host by 'torch::rand()' is copied to the GPU by 'to()'; pass the device to the factory to create it there directly [xfer-create-on-device]
}

// Moves that also change the dtype or ask for a non-blocking copy, and
// options that already name the host, are still reported.
void movesWithMore(int64_t N) {
  auto A = torch::zeros({N}).to(torch::kCUDA, torch::kFloat);
  // XFER-WARNING: :[[@LINE-1]]:30: warning: tensor created on the host by 'torch::zeros()' is copied to the GPU by 'to()'; pass the device to the factory to create it there directly [xfer-create-on-device]
  auto B = torch::zeros({N}).to(torch::kCUDA, /*NonBlocking=*/true);
  // XFER-WARNING: :[[@LINE-1]]:30: warning: tensor created on the host by 'torch::zeros()' is copied to the GPU by 'to()'; pass the device to the factory to create it there directly [xfer-create-on-device]
  auto C = torch::zeros({N}, torch::kCPU).to(torch::kCUDA);
  // XFER-WARNING: :[[@LINE-1]]:43: warning: tensor created on the host by 'torch::zeros()' is copied to the GPU by 'to()'; pass the device to the factory to create it there directly [xfer-create-on-device]
  auto D = torch::zeros({N}, torch::dtype(torch::kFloat).requires_grad())
               .to(torch::kCUDA);
               // XFER-WARNING: :[[@LINE-1]]:17: warning: tensor created on the host by 'torch::zeros()' is copied to the GPU by 'to()'; pass the device to the factory to create it there directly [xfer-create-on-device]
}

void inLoops(int Steps) {
  for (int I = 0; I < 1000; ++I) {
    auto X = torch::randn({64, 2}).to(torch::kCUDA);
    // XFER-WARNING: :[[@LINE-1]]:36: warning: tensor created on the host by 'torch::randn()' is copied to the GPU by 'to()' on each of 1000 iterations of the loop at line 39; pass the device to the factory to create it there directly [xfer-create-on-device]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    (void)X;
  }
  for (int Epoch = 0; Epoch < 10; ++Epoch)
    for (int Step = 0; Step < Steps; ++Step) {
      auto Y = torch::zeros({64}).cuda();
      // XFER-WARNING: :[[@LINE-1]]:35: warning: tensor created on the host by 'torch::zeros()' is copied to the GPU by 'cuda()' on every iteration of the loop at line 46; pass the device to the factory to create it there directly [xfer-create-on-device]
      // XFER-NOTE: :[[@LINE-3]]:5: note: loop starts here
      (void)Y;
    }
}

void throughVariable(int64_t N) {
  auto Host = torch::randn({N});
  auto Moved = Host.to(torch::kCUDA);
  // XFER-WARNING: :[[@LINE-1]]:21: warning: tensor 'Host' created on the host by 'torch::randn()' is copied to the GPU by 'to()'; pass the device to the factory to create it there directly [xfer-create-on-device]
  // XFER-NOTE: :[[@LINE-3]]:15: note: 'Host' is created on the host here
  for (int I = 0; I < 100; ++I) {
    torch::Tensor Batch = torch::ones({N});
    auto OnGpu = Batch.cuda();
    // XFER-WARNING: :[[@LINE-1]]:24: warning: tensor 'Batch' created on the host by 'torch::ones()' is copied to the GPU by 'cuda()' on each of 100 iterations of the loop at line 59; pass the device to the factory to create it there directly [xfer-create-on-device]
    // XFER-NOTE: :[[@LINE-3]]:27: note: 'Batch' is created on the host here
    // XFER-NOTE: :[[@LINE-5]]:3: note: loop starts here
    (void)OnGpu;
  }
}

void inLambdas(std::vector<int64_t> Sizes) {
  auto Make = [](int64_t N) { return torch::ones({N}).to(torch::kCUDA); };
  // XFER-WARNING: :[[@LINE-1]]:55: warning: tensor created on the host by 'torch::ones()' is copied to the GPU by 'to()'; pass the device to the factory to create it there directly [xfer-create-on-device]
  (void)Make;
  std::for_each(Sizes.begin(), Sizes.end(),
                [](int64_t N) { (void)torch::randn({N}).cuda(); });
                // XFER-WARNING: :[[@LINE-1]]:57: warning: tensor created on the host by 'torch::randn()' is copied to the GPU by 'cuda()' on every iteration of the std::for_each at line 73; pass the device to the factory to create it there directly [xfer-create-on-device]
                // XFER-NOTE: :[[@LINE-3]]:3: note: std::for_each starts here
}

template <typename SizeT> torch::Tensor makeOnGpu(SizeT Size) {
  return torch::zeros({Size}).to(torch::kCUDA);
  // XFER-WARNING: :[[@LINE-1]]:31: warning: tensor created on the host by 'torch::zeros()' is copied to the GPU by 'to()'; pass the device to the factory to create it there directly [xfer-create-on-device]
}
template torch::Tensor makeOnGpu<int64_t>(int64_t);

template <int Rows> torch::Tensor makeRows() {
  return torch::ones({Rows, 4}).cuda();
  // XFER-WARNING: :[[@LINE-1]]:33: warning: tensor created on the host by 'torch::ones()' is copied to the GPU by 'cuda()'; pass the device to the factory to create it there directly [xfer-create-on-device]
}
torch::Tensor twoInstantiations() { return makeRows<2>() + makeRows<3>(); }

#define ON_GPU(T) (T).to(torch::kCUDA)
#define HOST_ZEROS torch::zeros({4})
void macros(int64_t N) {
  auto A = ON_GPU(torch::randn({N}));
  // XFER-WARNING: :[[@LINE-1]]:12: warning: tensor created on the host by 'torch::randn()' is copied to the GPU by 'to()'; pass the device to the factory to create it there directly [xfer-create-on-device]
  auto B = HOST_ZEROS.cuda();
  // XFER-WARNING: :[[@LINE-1]]:23: warning: tensor created on the host by 'torch::zeros()' is copied to the GPU by 'cuda()'; pass the device to the factory to create it there directly [xfer-create-on-device]
}

// Not reported.
void notReported(float *Data, int64_t N, torch::Tensor Other) {
  // from_blob wraps memory that lives on the host.
  auto Wrapped = torch::from_blob(Data, {N}).to(torch::kCUDA);
  // Created on the device already.
  auto OnDevice = torch::randn({N}, torch::kCUDA).to(torch::kCUDA);
  // Moves to the host or changing only the dtype.
  auto Back = torch::randn({N}).to(torch::kCPU);
  auto Cast = torch::randn({N}).to(torch::kFloat);
  // The host tensor has other uses.
  auto Host = torch::randn({N});
  auto Moved = Host.to(torch::kCUDA);
  std::cout << Host;
  // to(other) moves next to another tensor.
  auto Like = torch::randn({N}).to(Other);
}

// Created once and moved on every iteration: a loop-invariant copy, which
// xfer-copy-in-loop reports.
void createdOutsideTheLoop() {
  auto Host = torch::zeros({3});
  for (int I = 0; I < 10; ++I)
    (void)Host.to(torch::kCUDA);
}

// Reshaping or converting the element type on the way to the device does
// not change where the tensor was made: `arange(n).repeat(...).toType(...)`
// builds a grid on the host, then moves it.
void hostGridsMovedEveryStep(int64_t N, torch::Tensor Prediction) {
  for (int Step = 0; Step < 100; ++Step) {
    auto GridX = torch::arange(N)
                     .repeat({N, 1})
                     .view({1, 1, N, N})
                     .toType(torch::kFloat)
                     .to(torch::kCUDA);
    // XFER-WARNING: :[[@LINE-1]]:23: warning: tensor created on the host by 'torch::arange()' is copied to the GPU by 'to()' on each of 100 iterations of the loop at line 129; pass the device to the factory to create it there directly [xfer-create-on-device]
    // XFER-NOTE: :129:3: note: loop starts here
    auto GridY = torch::arange(N).repeat({N, 1}).t().narrow(0, 0, N).cuda();
    // XFER-WARNING: :[[@LINE-1]]:70: warning: tensor created on the host by 'torch::arange()' is copied to the GPU by 'cuda()' on each of 100 iterations of the loop at line 129; pass the device to the factory to create it there directly [xfer-create-on-device]
    // XFER-NOTE: :129:3: note: loop starts here
    // An operation between the factory and the move that computes on the
    // host is not a creation on the way.
    auto Scaled = torch::arange(N).mul(Prediction).to(torch::kCUDA);
    Prediction = Prediction + GridX + GridY + Scaled;
  }
}

// A branch that tests the device: inside `if (Device == torch::kCPU)` a
// move goes to the host (nothing to report), in its else-branch to the GPU.
void branchOnDevice(torch::Device Device, int64_t N) {
  if (Device == torch::kCPU) {
    auto OnHost = torch::zeros({N}).to(Device);
  } else {
    auto OnGpu = torch::zeros({N}).to(Device);
    // XFER-WARNING: :[[@LINE-1]]:36: warning: tensor created on the host by 'torch::zeros()' is copied to the GPU by 'to()'; pass the device to the factory to create it there directly [xfer-create-on-device]
  }
  if (!Device.is_cuda())
    auto OnHost = torch::ones({N}).to(Device);
}
void branchOnDeviceType(torch::Device Device, int64_t N) {
  if (Device.type() != torch::kCUDA)
    return;
  if (Device.type() == torch::kCUDA) {
    auto OnGpu = torch::rand({N}).to(Device);
    // XFER-WARNING: :[[@LINE-1]]:35: warning: tensor created on the host by 'torch::rand()' is copied to the GPU by 'to()'; pass the device to the factory to create it there directly [xfer-create-on-device]
  }
}

// A detection layer's offsets: a host `arange`, a `meshgrid` of it, and a
// view of one grid held in a variable that the move replaces.
struct DetectionLayerImpl : torch::nn::Module {
  torch::Tensor forward(torch::Tensor Prediction, int64_t GridSize,
                        torch::Device Device) {
    auto GridLength = torch::arange(GridSize);
    std::vector<torch::Tensor> Grids = torch::meshgrid({GridLength, GridLength});
    torch::Tensor XOffset = Grids[1].contiguous().view({-1, 1});
    XOffset = XOffset.to(Device);
    // XFER-WARNING: :[[@LINE-1]]:23: warning: tensor 'XOffset' created on the host by 'torch::arange()' is copied to a device chosen at run time by 'to()'; pass the device to the factory to create it there directly [xfer-create-on-device]
    // XFER-NOTE: :173:23: note: 'XOffset' is built from a tensor created on the host here
    torch::Tensor YOffset = Grids[0].contiguous().view({-1, 1});
    // Read on the host before the move: the host tensor is used.
    std::cout << YOffset.sum() << "\n";
    YOffset = YOffset.to(Device);
    auto Steps = torch::arange(GridSize);
    Steps.mul_(2.0); // changed on the host after it was made
    torch::Tensor Scaled = Steps.view({-1, 1});
    Scaled = Scaled.to(Device);
    return Prediction + torch::cat({XOffset, YOffset, Scaled}, 1);
  }
};
