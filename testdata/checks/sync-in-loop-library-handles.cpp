// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// Library handles made and released on every step: a cuFFT plan allocates
// its work area and cufftDestroy frees it; cublasCreate allocates device
// memory and cuBLAS documents that cublasDestroy synchronizes the device.
// Make them once, before the loop.
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <cufft.h>

void pressureSolve(cufftComplex *Field, int N, int Steps) {
  for (int Step = 0; Step < Steps; ++Step) {
    cufftHandle Plan;
    cufftPlan2d(&Plan, N, N, CUFFT_C2C);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cufftPlan2d' synchronizes with the GPU on every iteration of the loop at line 13: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    cufftExecC2C(Plan, Field, Field, CUFFT_FORWARD);
    cufftDestroy(Plan);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cufftDestroy' synchronizes with the GPU on every iteration of the loop at line 13: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-8]]:3: note: loop starts here
  }
}

// A helper that makes and releases a cuBLAS handle on every call.
void scale(float *Device, int N) {
  cublasHandle_t Handle;
  cublasCreate(&Handle);
  const float Alpha = 0.5f;
  cublasSscal(Handle, N, &Alpha, Device, 1);
  cublasDestroy(Handle);
}

void train(float *Device, int N, int Steps) {
  for (int Step = 0; Step < Steps; ++Step)
    scale(Device, N);
  // XFER-WARNING: :[[@LINE-1]]:5: warning: 'scale()' synchronizes with the GPU on every iteration of the loop at line 35: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
  // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
  // XFER-NOTE: :28:3: note: 'cublasCreate' synchronizes with the GPU here
  // XFER-NOTE: :31:3: note: 'cublasDestroy' synchronizes with the GPU here too
  // cublas_v2.h names them through macros, as the real header does: the
  // notes are where the macros are used.
  //
  //
}

// The fix: plan and handle made once, reused on every step.
void pressureSolveOnce(cufftComplex *Field, float *Device, int N, int Steps) {
  cufftHandle Plan;
  cufftPlan2d(&Plan, N, N, CUFFT_C2C);
  cublasHandle_t Handle;
  cublasCreate(&Handle);
  const float Alpha = 0.5f;
  for (int Step = 0; Step < Steps; ++Step) {
    cufftExecC2C(Plan, Field, Field, CUFFT_FORWARD);
    cublasSscal(Handle, N, &Alpha, Device, 1);
  }
  cublasDestroy(Handle);
  cufftDestroy(Plan);
}

// A handle made in the loop itself: the warning is where the header's macro
// (cublasCreate for cublasCreate_v2) is used.
void scaleEveryStep(float *Device, int N, int Steps) {
  const float Alpha = 0.5f;
  for (int Step = 0; Step < Steps; ++Step) {
    cublasHandle_t Handle;
    cublasCreate(&Handle);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cublasCreate' synchronizes with the GPU on every iteration of the loop at line 66: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    cublasSscal(Handle, N, &Alpha, Device, 1);
    cublasDestroy(Handle);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cublasDestroy' synchronizes with the GPU on every iteration of the loop at line 66: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-8]]:3: note: loop starts here
  }
}
