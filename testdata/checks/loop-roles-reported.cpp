// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop,xfer-copy-in-loop
// XFER-CONFIG: {CheckOptions: {ReportSetupAndTimingLoops: true}}
// With ReportSetupAndTimingLoops, setup loops and timing harnesses are
// reported like any other loop (compare loop-roles.cpp).
#include <cuda_runtime.h>
#include <chrono>

void step(float *Data, int N);

void setupLoop(float **Buffers, int Count) {
  for (int B = 0; B < Count; ++B)
    cudaMalloc((void **)&Buffers[B], 4096);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMalloc' synchronizes with the GPU on every iteration of the loop at line 12: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
}

double timedKernel(float *Data, int Reps) {
  auto Start = std::chrono::steady_clock::now();
  for (int R = 0; R < Reps; ++R) {
    step(Data, 1024);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 20: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
  }
  auto Stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(Stop - Start).count();
}
