// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-device-mismatch
#include <torch/torch.h>

void operators() {
  torch::Tensor Host = torch::randn({4, 4});
  torch::Tensor Gpu = torch::randn({4, 4}, torch::kCUDA);
  auto Sum = Gpu + Host;
  // CHECK-MESSAGES: :[[@LINE-1]]:18: warning: 'operator+' mixes a cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  // CHECK-NOTES: :[[@LINE-3]]:23: note: 'Gpu' is on cuda: created by torch::randn() on a cuda device
  // CHECK-NOTES: :[[@LINE-5]]:24: note: 'Host' is on the cpu: created on the host by torch::randn() without a device
  auto Less = Host < Gpu;
  // CHECK-MESSAGES: :[[@LINE-1]]:20: warning: 'operator<' mixes a cpu tensor and a cuda tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  // CHECK-NOTES: :[[@LINE-8]]:24: note: 'Host' is on the cpu: created on the host by torch::randn() without a device
  // CHECK-NOTES: :[[@LINE-8]]:23: note: 'Gpu' is on cuda: created by torch::randn() on a cuda device
  Gpu += Host.cpu();
  // CHECK-MESSAGES: :[[@LINE-1]]:7: warning: 'operator+=' mixes a cuda tensor and a cpu tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  // CHECK-NOTES: :[[@LINE-11]]:23: note: 'Gpu' is on cuda: created by torch::randn() on a cuda device
  // CHECK-NOTES: :[[@LINE-3]]:10: note: 'Host.cpu()' is on the cpu: copied to the host by cpu()
  (void)Sum;
  (void)Less;
}

// The result of a mixing operation has no placement: its later uses are the
// same bug, reported once.
void onceForTheSameBug() {
  torch::Tensor Host = torch::randn({4});
  torch::Tensor Gpu = torch::randn({4}, torch::kCUDA);
  auto Mixed = torch::cat({Host, Gpu});
  // CHECK-MESSAGES: :[[@LINE-1]]:16: warning: 'at::cat' mixes a cpu tensor and a cuda tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
  // CHECK-NOTES: :[[@LINE-4]]:24: note: 'Host' is on the cpu: created on the host by torch::randn() without a device
  // CHECK-NOTES: :[[@LINE-4]]:23: note: 'Gpu' is on cuda: created by torch::randn() on a cuda device
  auto Again = Mixed + Gpu;
  auto AndAgain = Mixed * Host;
  (void)Again;
  (void)AndAgain;
}
