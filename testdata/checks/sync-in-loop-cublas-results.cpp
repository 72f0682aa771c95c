// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// A cuBLAS reduction that returns its result to host memory (the default
// pointer mode) waits for the device to compute it.
#include <cublas_v2.h>
#include <cstdio>

__global__ void relax(float *X, int N);

void logNorms(cublasHandle_t Handle, float *X, int N, int Steps) {
  for (int S = 0; S < Steps; ++S) {
    relax<<<1, 32>>>(X, N);
    float Norm = 0;
    cublasSnrm2(Handle, N, X, 1, &Norm);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cublasSnrm2' synchronizes with the GPU on every iteration of the loop at line 12: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :12:3: note: loop starts here
    std::printf("%f\n", Norm);
  }
}

// The residual decides whether the solve goes on: a termination test.
void solve(cublasHandle_t Handle, float *R, int N, float Tolerance) {
  float Residual = 1;
  while (Residual > Tolerance) {
    relax<<<1, 32>>>(R, N);
    cublasSasum(Handle, N, R, 1, &Residual);
  }
}

// A result written to device memory stays there: no wait.
void accumulate(cublasHandle_t Handle, float *X, float *Y, float *DeviceDots,
                int N, int Steps) {
  cublasSetPointerMode(Handle, CUBLAS_POINTER_MODE_DEVICE);
  for (int S = 0; S < Steps; ++S) {
    relax<<<1, 32>>>(X, N);
    cublasSdot(Handle, N, X, 1, Y, 1, DeviceDots + S);
  }
}
