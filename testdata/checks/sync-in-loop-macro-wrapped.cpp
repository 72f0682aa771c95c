// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop,xfer-copy-in-loop
// Error-checking macros that expand to `do { ... } while (0)` wrap one
// statement of the user's block: a wait between two event records is a
// timing harness, and read-backs one after another are one transfer, as
// without the macro.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK_CUDA(call)                                                       \
  do {                                                                         \
    cudaError_t Err = call;                                                    \
    if (Err != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s\n", cudaGetErrorString(Err));                   \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

void forward(float *Device, int N);

void timedBatches(float *Device, float *Host, int Batches, cudaEvent_t Start,
                  cudaEvent_t Stop) {
  float Total = 0;
  for (int B = 0; B < Batches; ++B) {
    CHECK_CUDA(cudaEventRecord(Start));
    forward(Device, 256);
    CHECK_CUDA(cudaEventRecord(Stop));
    CHECK_CUDA(cudaEventSynchronize(Stop)); // the measurement: silent
    float Ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&Ms, Start, Stop));
    Total += Ms;
    CHECK_CUDA(cudaDeviceSynchronize());
    // XFER-WARNING: :[[@LINE-1]]:16: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 25: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-10]]:3: note: loop starts here
    forward(Device, 256);
    CHECK_CUDA(cudaMemcpy(Host, Device, 4, cudaMemcpyDeviceToHost));
    // XFER-WARNING: :[[@LINE-1]]:16: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 25: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-14]]:3: note: loop starts here
    CHECK_CUDA(cudaDeviceSynchronize()); // after a blocking copy: nothing left
  }
  std::printf("%f\n", Total);
}

// A macro whose body is a bare block (`#define CHECK(call) { ... }`) wraps
// one statement too; the `;` after it and a declaration that calls nothing
// do not separate the wait from the clock reading.
#define CHECK_BLOCK(call)                                                      \
  {                                                                            \
    cudaError_t Err = call;                                                    \
    if (Err != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s\n", cudaGetErrorString(Err));                   \
      std::exit(1);                                                            \
    }                                                                          \
  }

void timedFrames(float *Device, int Frames, cudaEvent_t Start,
                 cudaEvent_t Stop) {
  for (int F = 0; F < Frames; ++F) {
    cudaEventRecord(Start);
    forward(Device, 256);
    cudaEventRecord(Stop);
    CHECK_BLOCK(cudaEventSynchronize(Stop)); // the measurement: silent
    float Ms = 0;
    cudaEventElapsedTime(&Ms, Start, Stop);
    std::printf("%f ms\n", Ms);
    forward(Device, 256);
    CHECK_BLOCK(cudaDeviceSynchronize());
    // XFER-WARNING: :[[@LINE-1]]:17: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 59: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :59:3: note: loop starts here
    forward(Device, 256);
  }
}
