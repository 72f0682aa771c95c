// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-device-mismatch
#include <torch/torch.h>

// A field of a local object holds what the last store before the use, on
// every path, put there; other stores to the field (here or in other
// functions) count only where none does.
struct Sample {
  torch::Tensor Features;
  int Label;
};
Sample loadSample();

void uploadSample(Sample &S) { S.Features = S.Features.to(torch::kCUDA); }

void movesTheFieldFirst() {
  torch::Device Device(torch::kCPU);
  Sample Test = loadSample();
  Test.Features = Test.Features.to(Device);
  torch::nn::Linear Model(3, 3);
  Model->to(Device);
  (void)Model(Test.Features);
}

void movesTheFieldOnOnePath(bool Gpu) {
  torch::nn::Linear Model(3, 3);
  Sample Test = loadSample();
  if (Gpu)
    Test.Features = Test.Features.to(torch::kCUDA);
  (void)Model(Test.Features);
}
// XFER-WARNING: :30:9: warning: calling 'Model' mixes a cpu module and a maybe-cuda tensor: LibTorch throws at run time ("Expected all tensors to be on the same device") [xfer-device-mismatch]
// XFER-NOTE: :26:21: note: 'Model' is on the cpu: constructed with its parameters on the host
// XFER-NOTE: :30:15: note: 'Test.Features' is on a device chosen at run time: stored on several paths
// XFER-NOTE: :14:66: note: the program uses kCUDA here, so on a machine with a GPU its run-time device is cuda
