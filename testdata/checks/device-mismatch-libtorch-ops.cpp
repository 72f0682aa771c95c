// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-device-mismatch
#include <torch/torch.h>

void operators() {
  torch::Tensor Host = torch::randn({4, 4});
  torch::Tensor Gpu = torch::randn({4, 4}, torch::kCUDA);
  auto Sum = Gpu + Host;
  // XFER-WARNING: :[[@LINE-1]]:18: warning: 'operator+' mixes a cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-3]]:23: note: 'Gpu' is on cuda: created by torch::randn() on a cuda device
  // XFER-NOTE: :[[@LINE-5]]:24: note: 'Host' is on the cpu: created on the host by torch::randn() without a device
  auto Less = Host < Gpu;
  // XFER-WARNING: :[[@LINE-1]]:20: warning: 'operator<' mixes a cpu tensor and a cuda tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-8]]:24: note: 'Host' is on the cpu: created on the host by torch::randn() without a device
  // XFER-NOTE: :[[@LINE-8]]:23: note: 'Gpu' is on cuda: created by torch::randn() on a cuda device
  Gpu += Host.cpu();
  // XFER-WARNING: :[[@LINE-1]]:7: warning: 'operator+=' mixes a cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-11]]:23: note: 'Gpu' is on cuda: created by torch::randn() on a cuda device
  // XFER-NOTE: :[[@LINE-3]]:10: note: 'Host.cpu()' is on the cpu: copied to the host by cpu()
  (void)Sum;
  (void)Less;
}

// The result of a mixing operation has no placement: its later uses are the
// same bug, reported once.
void onceForTheSameBug() {
  torch::Tensor Host = torch::randn({4});
  torch::Tensor Gpu = torch::randn({4}, torch::kCUDA);
  auto Mixed = torch::cat({Host, Gpu});
  // XFER-WARNING: :[[@LINE-1]]:16: warning: 'at::cat' mixes a cpu tensor and a cuda tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-4]]:24: note: 'Host' is on the cpu: created on the host by torch::randn() without a device
  // XFER-NOTE: :[[@LINE-4]]:23: note: 'Gpu' is on cuda: created by torch::randn() on a cuda device
  auto Again = Mixed + Gpu;
  auto AndAgain = Mixed * Host;
  (void)Again;
  (void)AndAgain;
}

// A tensor's storage read on the host: on the GPU, or on a device chosen at
// run time (a GPU run crashes); a host tensor's is fine.
float storageOnTheHost(const torch::Tensor &Out, torch::Device Dev) {
  auto Probabilities = Out.to(Dev);
  float Confidence = *Probabilities.data_ptr<float>();
  // XFER-WARNING: :[[@LINE-1]]:22: warning: memory that is on the GPU when the program runs on one, 'Probabilities.data_ptr<float>()', is dereferenced in host code, which cannot access it (a crash or garbage at run time): copy it to the host first (cpu()) [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-3]]:24: note: 'Probabilities.data_ptr<float>()' is host or device memory: moved by to() to a maybe-cuda device
  auto Gpu = Out.to(torch::kCUDA);
  float *Scores = Gpu.data_ptr<float>();
  float First = Scores[0];
  // XFER-WARNING: :[[@LINE-1]]:17: warning: device memory 'Scores' is indexed in host code, which cannot access it (a crash or garbage at run time): copy it to the host first (cpu()) [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-4]]:14: note: 'Scores' is device memory: moved by to() to a cuda device
  float Host = *Out.cpu().data_ptr<float>(); // on the host
  return Confidence + First + Host;
}
