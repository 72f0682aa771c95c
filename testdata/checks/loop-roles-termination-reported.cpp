// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {ReportTerminationReadBacks: true}}
// With ReportTerminationReadBacks, termination flags are reported with
// advice to check them less often (compare loop-roles-termination.cpp).
#include <cuda_runtime.h>
#include <torch/torch.h>

void converge(torch::Tensor X, double Tolerance, int MaxSteps) {
  X = X.to(torch::kCUDA);
  for (int Step = 0; Step < MaxSteps; ++Step) {
    X = X * 0.5;
    double Residual = X.sum().item<double>();
    // CHECK-MESSAGES: :[[@LINE-1]]:31: warning: 'item<double>()' synchronizes with the GPU on every iteration of the loop at line 11: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // CHECK-NOTES: :[[@LINE-4]]:3: note: loop starts here
    // CHECK-NOTES: :[[@LINE-3]]:31: note: the value decides whether the loop goes on: checking it every N iterations lets the GPU run ahead in between
    if (Residual < Tolerance)
      break;
  }
}

void relax(int *Done); // launches a kernel

void waitThenRead(int *DeviceDone, int Levels) {
  int Done = 0;
  while (!Done) {
    relax(DeviceDone);
    cudaDeviceSynchronize();
    // CHECK-MESSAGES: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 26: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // CHECK-NOTES: :[[@LINE-4]]:3: note: loop starts here
    // CHECK-NOTES: :[[@LINE-3]]:5: note: the read-back right after this wait decides whether the loop goes on: checking it every N iterations lets the GPU run ahead in between
    cudaMemcpy(&Done, DeviceDone, sizeof(int), cudaMemcpyDeviceToHost);
  }
}
