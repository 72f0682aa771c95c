// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-create-on-device
// A benchmark that runs a model on dummy input, skips the first runs as a
// warm-up and averages the times of the rest repeats the work to time it:
// the dummy input made on the host and moved there is no step's cost. A
// loop that skips early iterations but adds up no time is not a benchmark.
#include <torch/torch.h>
#include <vector>

double timeForward(torch::nn::Linear &Model, const torch::Tensor &Input);

double benchmarkModel(torch::nn::Linear &Model, int Runs,
                      torch::Device Device) {
  double Sum = 0.0;
  for (int I = 0; I < Runs; ++I) {
    torch::Tensor Input = torch::ones({1, 16});
    Input = Input.to(Device);
    double Time = timeForward(Model, Input);
    if (I < 2)
      continue;
    Sum += Time;
  }
  return Sum / (Runs - 2);
}

double lossesAfterWarmUp(torch::nn::Linear &Model, int Steps,
                         torch::Device Device) {
  double Sum = 0.0;
  for (int I = 0; I < Steps; ++I) {
    torch::Tensor Input = torch::ones({1, 16});
    Input = Input.to(Device);
    // XFER-WARNING: :[[@LINE-1]]:19: warning: tensor 'Input' created on the host by 'torch::ones()' is copied to a device chosen at run time by 'to()' on every iteration of the loop at line 29; pass the device to the factory to create it there directly [xfer-create-on-device]
    // XFER-NOTE: :29:3: note: loop starts here
    // XFER-NOTE: :30:27: note: 'Input' is created on the host here
    double Loss = timeForward(Model, Input);
    if (I < 2)
      continue;
    Sum += Loss;
  }
  return Sum;
}
