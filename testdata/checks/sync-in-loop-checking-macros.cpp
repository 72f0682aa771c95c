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

// The same for a helper that only waits and checks for errors: called after
// the frame's blocking read-back it waits for nothing more (silent); called
// after kernels it waits for them (reported).
inline void checkDevice(const char *File, int Line) {
  cudaDeviceSynchronize();
  cudaError_t Status = cudaGetLastError();
  if (Status != cudaSuccess)
    std::printf("%s:%d: %s\n", File, Line, cudaGetErrorString(Status));
}
#define CHECK_DEVICE() { checkDevice(__FILE__, __LINE__); }
void processFrames(int *Device, int *Labels, int N, int Frames) {
  for (int F = 0; F < Frames; ++F) {
    blur<<<1, 32>>>(Device);
    cudaMemcpy(Labels, Device, N * sizeof(int), cudaMemcpyDeviceToHost);
    std::printf("%d\n", Labels[0]);
    CHECK_DEVICE();
  }
  for (int F = 0; F < Frames; ++F) {
    blur<<<1, 32>>>(Device);
    CHECK_DEVICE();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'checkDevice()' synchronizes with the GPU on every iteration of the loop at line 58: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :58:3: note: loop starts here
    // XFER-NOTE: :45:3: note: 'cudaDeviceSynchronize' synchronizes with the GPU here
    // XFER-NOTE: :50:26: note: expanded from macro 'CHECK_DEVICE'
  }
}
