// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-device-mismatch
// A LibTorch program whose only sign of CUDA is the runtime header it
// includes (its kernels live in another file): on a machine with a GPU its
// run-time device is cuda, so a host tensor next to a tensor on that device
// fails. The evidence is the #include line, also when the includes are read
// from a stored preamble.
#include <torch/torch.h>
#include <cuda_runtime.h>

void addBias(torch::Device Device) {
  auto Activations = torch::randn({8}).to(Device);
  auto Bias = torch::ones({8});
  (void)Activations.add(Bias);
  // XFER-WARNING: :[[@LINE-1]]:21: warning: 'add' mixes a maybe-cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  // XFER-NOTE: :12:22: note: 'Activations' is on a device chosen at run time: moved by to() to a maybe-cuda device
  // XFER-NOTE: :13:15: note: 'Bias' is on the cpu: created on the host by torch::ones() without a device
  // XFER-NOTE: :9:10: note: the program includes cuda_runtime.h here, so on a machine with a GPU its run-time device is cuda
}

void sameDevice(torch::Device Device) {
  auto Activations = torch::randn({8}).to(Device);
  auto Bias = torch::ones({8}, Device);
  (void)Activations.add(Bias);
}
