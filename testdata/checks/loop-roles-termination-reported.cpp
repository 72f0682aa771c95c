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
    // XFER-WARNING: :[[@LINE-1]]:31: warning: 'item<double>()' synchronizes with the GPU on every iteration of the loop at line 11: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    // XFER-NOTE: :[[@LINE-3]]:31: note: the value decides whether the loop goes on: checking it every N iterations lets the GPU run ahead in between
    if (Residual < Tolerance)
      break;
  }
}

// A wait right before the read-back is not reported even so: it costs
// nothing the read-back does not.
void waitThenRead(torch::Tensor X, double Tolerance) {
  X = X.to(torch::kCUDA);
  while (true) {
    X = X * 0.5;
    torch::cuda::synchronize();
    double Residual = X.sum().item<double>();
    // XFER-WARNING: :[[@LINE-1]]:31: warning: 'item<double>()' synchronizes with the GPU on every iteration of the loop at line 26: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-5]]:3: note: loop starts here
    // XFER-NOTE: :[[@LINE-3]]:31: note: the value decides whether the loop goes on: checking it every N iterations lets the GPU run ahead in between
    if (Residual < Tolerance)
      break;
  }
}
