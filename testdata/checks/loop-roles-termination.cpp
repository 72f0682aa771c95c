// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop,xfer-copy-in-loop
// A read-back whose value decides whether the loop goes on (a done flag, a
// convergence residual) is necessary work: silent at default settings.
#include <cuda_runtime.h>
#include <torch/torch.h>
#include <cstdio>

void relax(float *Grid, int *Changed); // launches a kernel

void breadthFirst(int *DeviceChanged, float *Grid) {
  int Changed = 1;
  while (Changed) {
    Changed = 0;
    cudaMemcpy(DeviceChanged, &Changed, sizeof(int), cudaMemcpyHostToDevice);
    relax(Grid, DeviceChanged);
    cudaMemcpy(&Changed, DeviceChanged, sizeof(int), cudaMemcpyDeviceToHost);
  }
}

void converge(torch::Tensor X, double Tolerance, int MaxSteps) {
  X = X.to(torch::kCUDA);
  for (int Step = 0; Step < MaxSteps; ++Step) {
    X = X * 0.5;
    double Residual = X.sum().item<double>();
    if (Residual < Tolerance)
      break;
  }
  for (int Step = 0; Step < MaxSteps; ++Step) {
    X = X * 0.5;
    if (X.sum().item<double>() < Tolerance)
      return;
  }
  while (X.sum().item<double>() > Tolerance)
    X = X * 0.5;
}

// Read back and only logged: a hazard.
void logged(torch::Tensor X, int Steps) {
  X = X.to(torch::kCUDA);
  for (int Step = 0; Step < Steps; ++Step) {
    X = X * 0.5;
    double Residual = X.sum().item<double>();
    // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'item<double>()' synchronizes with the GPU on every iteration of the loop at line 41: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // CHECK-NOTES: :[[@LINE-4]]:3: note: loop starts here
    if (Residual > 1.0)
      std::printf("large residual\n");
  }
}
