// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-copy-in-loop,xfer-device-mismatch
#include <torch/torch.h>

// Assigning a device value to a view of a host tensor copies it down, one
// element at a time when the view is an element.
void scoresOneByOne(torch::Tensor Heat, int N) {
  auto Device = Heat.to(torch::kCUDA);
  auto Scores = torch::zeros({N});
  for (int I = 0; I < N; ++I) {
    Scores[I] = Device[I];
    // XFER-WARNING: :[[@LINE-1]]:15: warning: 'assigning into a tensor view' copies device memory to the host on every iteration of the loop at line 10: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    Scores.slice(0, I, I + 1) = Device[I];
    // XFER-WARNING: :[[@LINE-1]]:31: warning: 'assigning into a tensor view' copies device memory to the host on every iteration of the loop at line 10: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-6]]:3: note: loop starts here
  }
}

// Not copies to the host: rebinding a variable, views filled from host
// values or from the device into the device, scalars.
void noCopies(torch::Tensor Heat, int N) {
  auto Device = Heat.to(torch::kCUDA);
  auto OnDevice = torch::zeros({N}, torch::kCUDA);
  auto Host = torch::zeros({N});
  auto Other = torch::ones({N});
  torch::Tensor Row;
  for (int I = 0; I < N; ++I) {
    Row = Device[I];
    Host[I] = Other[I];
    OnDevice[I] = Device[I];
    Host[I] = 1.0;
  }
}

// fill_ with a 0-dim tensor on another device reads the value with item():
// not a device mismatch, but a copy to the host when the tensor filled is
// there. Filling a device tensor with a host value passes it as a scalar.
torch::Tensor labelsToMap(torch::Tensor Labels) {
  auto Map = torch::zeros({8, 4});
  auto OnDevice = Labels.to(torch::kCUDA);
  for (int64_t I = 0; I < Labels.size(0); ++I) {
    OnDevice = OnDevice.mul(OnDevice);
    Map[I].fill_(OnDevice[I]);
    // XFER-WARNING: :[[@LINE-1]]:12: warning: 'fill_()' copies device memory to the host on every iteration of the loop at line 42: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :42:3: note: loop starts here
  }
  auto DeviceMap = Map.cuda();
  for (int64_t I = 0; I < 8; ++I)
    DeviceMap[I].fill_(Labels[I]);
  return Map;
}
