// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// An error-checking macro that waits for the device after the call it
// checks: after a blocking upload or read-back the wait waits for little
// more than the copy did (silent); after kernels and a device-to-device
// copy, which return at once, it waits for the kernels (reported).
#include <cuda_runtime.h>
#include <cstdio>

#define CUDA_WARN(CALL)                                                        \
  do {                                                                         \
    if ((CALL) != cudaSuccess)                                                 \
      std::printf("CUDA error at line %d\n", __LINE__);                        \
    cudaDeviceSynchronize();                                                   \
  } while (0)

__global__ void blur(int *Pixels);

int detect(const int *Frame, int *Device, int *Scratch, int *Labels, int N) {
  CUDA_WARN(cudaMemcpy(Device, Frame, N * sizeof(int), cudaMemcpyHostToDevice));
  blur<<<1, 32>>>(Device);
  CUDA_WARN(cudaMemcpy(Scratch, Device, N * sizeof(int),
                       cudaMemcpyDeviceToDevice));
  blur<<<1, 32>>>(Scratch);
  CUDA_WARN(cudaMemcpy(Labels, Scratch, N * sizeof(int),
                       cudaMemcpyDeviceToHost));
  return Labels[0];
}

void run(const int *Frame, int *Device, int *Scratch, int *Labels, int N,
         int Frames) {
  for (int F = 0; F < Frames; ++F)
    std::printf("%d\n", detect(Frame, Device, Scratch, Labels, N));
  // XFER-WARNING: :[[@LINE-1]]:25: warning: 'detect()' synchronizes with the GPU on every iteration of the loop at line 33: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
  // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
  // XFER-NOTE: :23:3: note: 'cudaDeviceSynchronize' synchronizes with the GPU here
  // XFER-NOTE: :15:5: note: expanded from macro 'CUDA_WARN'
}
