// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-device-mismatch
#include <torch/torch.h>

// Device-agnostic code: the device is chosen at run time. Everything moved to
// it is consistent; a host tensor next to it fails on the run that matters,
// on a machine with a GPU, since the program names cuda (try_gpu() below).
torch::Device try_gpu(int I = 0) {
  if (torch::cuda::device_count() >= I + 1)
    return torch::Device(torch::kCUDA, I);
  return torch::Device(torch::kCPU);
}

void agnosticTraining(torch::nn::Linear Net) {
  torch::Device Device =
      torch::cuda::is_available() ? torch::kCUDA : torch::kCPU;
  Net->to(Device);
  auto X = torch::randn({64, 16}).to(Device);
  auto Y = torch::randn({64, 1}, Device);
  auto Loss = torch::mse_loss(Net(X), Y);
  auto W = torch::zeros({16, 1}, torch::TensorOptions().device(Device));
  (void)X.matmul(W).add(Y);
  // A CPU tensor next to a maybe-cuda one fails with a GPU present.
  auto Bias = torch::ones({1});
  (void)Y.add(Bias);
  // XFER-WARNING: :[[@LINE-1]]:11: warning: 'add' mixes a maybe-cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-8]]:12: note: 'Y' is on a device chosen at run time: created by torch::randn() on a maybe-cuda device
  // XFER-NOTE: :24:15: note: 'Bias' is on the cpu: created on the host by torch::ones() without a device
  // XFER-NOTE: :10:33: note: the program uses kCUDA here, so on a machine with a GPU its run-time device is cuda
  torch::nn::Linear Local(16, 1);
  Local->to(Device);
  (void)Local(X);
  (void)Loss;
}

void tryGpuHelper() {
  auto Gpu = try_gpu();
  auto A = torch::randn({3}, Gpu);
  auto B = torch::randn({3}).to(try_gpu());
  auto C = torch::randn({3});
  (void)(A + B);
  (void)(A + C);
  // XFER-WARNING: :[[@LINE-1]]:12: warning: 'operator+' mixes a maybe-cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  // XFER-NOTE: :38:12: note: 'A' is on a device chosen at run time: created by torch::randn() on a maybe-cuda device
  // XFER-NOTE: :40:12: note: 'C' is on the cpu: created on the host by torch::randn() without a device
  // XFER-NOTE: :10:33: note: the program uses kCUDA here, so on a machine with a GPU its run-time device is cuda
  (void)torch::cat({A, B, C});
  // XFER-WARNING: :[[@LINE-1]]:9: warning: 'at::cat' mixes a maybe-cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  // XFER-NOTE: :38:12: note: 'A' is on a device chosen at run time: created by torch::randn() on a maybe-cuda device
  // XFER-NOTE: :40:12: note: 'C' is on the cpu: created on the host by torch::randn() without a device
  // XFER-NOTE: :10:33: note: the program uses kCUDA here, so on a machine with a GPU its run-time device is cuda
}

void agnosticWithParameter(torch::Device Device) {
  auto A = torch::randn({3}).to(Device);
  auto B = torch::randn({3});
  (void)A.add(B);
  // XFER-WARNING: :[[@LINE-1]]:11: warning: 'add' mixes a maybe-cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-4]]:12: note: 'A' is on a device chosen at run time: moved by to() to a maybe-cuda device
  // XFER-NOTE: :[[@LINE-4]]:12: note: 'B' is on the cpu: created on the host by torch::randn() without a device
  // XFER-NOTE: :10:33: note: the program uses kCUDA here, so on a machine with a GPU its run-time device is cuda
}

// A function that also puts data on the GPU unconditionally expects its
// run-time device to be cuda: the note points there.
void assumesGpu(torch::Device Device) {
  auto Mask = torch::ones({3}).cuda();
  auto A = torch::randn({3}).to(Device);
  auto B = torch::randn({3});
  (void)A.add(B);
  // XFER-WARNING: :[[@LINE-1]]:11: warning: 'add' mixes a maybe-cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-4]]:12: note: 'A' is on a device chosen at run time: moved by to() to a maybe-cuda device
  // XFER-NOTE: :[[@LINE-4]]:12: note: 'B' is on the cpu: created on the host by torch::randn() without a device
  // XFER-NOTE: :[[@LINE-7]]:15: note: the code places data on cuda unconditionally here, so it expects its run-time device to be cuda
  (void)A.add(Mask);
}

// A parameter or buffer registered with a module moves with the module: not
// on the host where it was made.
struct ScaledImpl : torch::nn::Module {
  torch::Tensor Gamma;
  ScaledImpl() { Gamma = register_parameter("gamma", torch::ones({4})); }
  torch::Tensor forward(const torch::Tensor &X) { return X * Gamma; }
};

// A member registered as a buffer shares the registered tensor, which the
// module's to() moves: not on the host, although it was made there.
struct EncodingImpl : torch::nn::Module {
  torch::nn::Linear Layer{4, 4};
  torch::Tensor Table;
  EncodingImpl() {
    Table = torch::zeros({16, 4});
    register_buffer("table", Table);
  }
  torch::Tensor forward(const torch::Tensor &X) { return X + Table; }
};

// An Example the program builds holds the tensors it was given; one from a
// data loader is on the host.
void examplesBuiltHere(torch::Device Device,
                       torch::data::DataLoader<> &Loader) {
  auto Data = torch::randn({8, 4}).to(Device);
  auto Target = torch::zeros({8}).to(Device);
  auto Mixed = torch::data::Example<>(Data, Target);
  (void)(Mixed.target + Target);
  for (auto &Batch : Loader) {
    (void)(Batch.target + Target);
    // XFER-WARNING: :[[@LINE-1]]:25: warning: 'operator+' mixes a cpu tensor and a maybe-cuda tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
    // XFER-NOTE: :[[@LINE-2]]:12: note: 'Batch.target' is on the cpu: a batch from a LibTorch data loader, on the host
    // XFER-NOTE: :103:17: note: 'Target' is on a device chosen at run time: moved by to() to a maybe-cuda device
    // XFER-NOTE: :10:33: note: the program uses kCUDA here, so on a machine with a GPU its run-time device is cuda
  }
}

// The program's CPU path: where a branch has tested the device to be the
// host, a module moved to the device chosen at run time is there too.
void cpuWorker(torch::nn::Linear &Model, torch::Device Device) {
  Model->to(Device);
  auto Input = torch::zeros({4, 16});
  if (Device == torch::kCPU)
    (void)Model(Input);
  else
    (void)Model(Input.to(Device));
}

// A helper that follows its input (`if (box.is_cuda()) zero = zero.cuda();`)
// returns host tensors for host inputs and device tensors for device
// inputs: a host caller mixing its result with host tensors is consistent,
// a caller that passes cuda tensors and mixes the result with a host
// tensor is not.
torch::Tensor clampedOverlap(torch::Tensor Box, torch::Tensor Boxes) {
  auto Zero = torch::tensor(0.f);
  if (Box.is_cuda())
    Zero = Zero.cuda();
  return (Boxes - Box).add(Zero);
}
torch::Tensor hostTargets(torch::Tensor Anchors, torch::Tensor Box) {
  auto Match = torch::zeros({16});
  auto Overlap = clampedOverlap(Box, Anchors);
  return torch::where(Overlap.gt(0.5), Match, Overlap);
}
torch::Tensor deviceTargets(torch::Tensor Proposals, torch::Tensor Box) {
  auto Match = torch::zeros({16});
  auto Overlap = clampedOverlap(Box.cuda(), Proposals.cuda());
  return torch::where(Overlap.gt(0.5), Match, Overlap);
  // XFER-WARNING: :[[@LINE-1]]:10: warning: 'at::where' mixes a cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-3]]:18: note: 'Overlap.gt(0.5)' is on cuda: returned by 'clampedOverlap()': moved to the GPU by cuda()
  // XFER-NOTE: :[[@LINE-5]]:16: note: 'Match' is on the cpu: created on the host by torch::zeros() without a device
}
