// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// A helper that ends with a wait, called right before the caller's blocking
// copy of its result, waits for nothing that copy does not (silent). Where
// a caller queues more work before its copy, or copies nothing, the wait
// holds the host back (reported).
#include <cuda_runtime.h>

__global__ void blur(const unsigned char *In, unsigned char *Out, int N);
__global__ void sharpen(unsigned char *Image, int N);

void runPipeline(const unsigned char *In, unsigned char *Out, int N) {
  blur<<<N / 256, 256>>>(In, Out, N);
  cudaDeviceSynchronize();
}

void filterFrames(unsigned char *Host, unsigned char *DeviceIn,
                  unsigned char *DeviceOut, int N, int Frames) {
  for (int F = 0; F < Frames; ++F) {
    cudaMemcpy(DeviceIn, Host, N, cudaMemcpyHostToDevice);
    runPipeline(DeviceIn, DeviceOut, N);
    cudaMemcpy(Host, DeviceOut, N, cudaMemcpyDeviceToHost);
  }
}

void blurThenSharpen(const unsigned char *In, unsigned char *Out, int N) {
  blur<<<N / 256, 256>>>(In, Out, N);
  cudaDeviceSynchronize();
}

void sharpenFrames(unsigned char *Host, unsigned char *DeviceIn,
                   unsigned char *DeviceOut, int N, int Frames) {
  for (int F = 0; F < Frames; ++F) {
    cudaMemcpy(DeviceIn, Host, N, cudaMemcpyHostToDevice);
    blurThenSharpen(DeviceIn, DeviceOut, N);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'blurThenSharpen()' synchronizes with the GPU on every iteration of the loop at line 34: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :34:3: note: loop starts here
    // XFER-NOTE: :29:3: note: 'cudaDeviceSynchronize' synchronizes with the GPU here
    sharpen<<<N / 256, 256>>>(DeviceOut, N);
    cudaMemcpy(Host, DeviceOut, N, cudaMemcpyDeviceToHost);
  }
}
