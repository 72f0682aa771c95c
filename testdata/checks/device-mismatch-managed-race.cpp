// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-device-mismatch
// Managed memory is reachable from both sides, but not at the same time: a
// kernel launch returns at once, so the host must wait for the kernel
// before it reads (or writes) what the kernel writes.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void render(float *Frame, int N);

void writeImage(const float *Frame, int N) {
  for (int I = 0; I < N; ++I)
    printf("%f\n", Frame[I]);
}

void readWithoutWaiting(int N) {
  float *Frame;
  cudaMallocManaged((void **)&Frame, N * sizeof(float));
  render<<<1, 256>>>(Frame, N);
  float First = Frame[0];
  // XFER-WARNING: :[[@LINE-1]]:3: warning: managed memory 'Frame' is used on the host while the kernel 'render' may still be writing it (a race, or a crash on GPUs without concurrent managed access): wait for the kernel first (cudaDeviceSynchronize or cudaStreamSynchronize) [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-3]]:3: note: the kernel is launched here
  printf("%f\n", First);
  cudaFree(Frame);
}

void saveEachFrame(int N, int Frames) {
  for (int F = 0; F < Frames; ++F) {
    float *Frame;
    cudaMallocManaged((void **)&Frame, N * sizeof(float));
    render<<<1, 256>>>(Frame, N);
    writeImage(Frame, N);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: managed memory 'Frame' is used on the host by 'writeImage()' while the kernel 'render' may still be writing it (a race, or a crash on GPUs without concurrent managed access): wait for the kernel first (cudaDeviceSynchronize or cudaStreamSynchronize) [xfer-device-mismatch]
    // XFER-NOTE: :[[@LINE-3]]:5: note: the kernel is launched here
    // XFER-NOTE: :13:20: note: 'writeImage()' uses it on the host here
    cudaFree(Frame);
  }
}

// The fixes: wait for the kernel (or for its stream), or copy.
void waitFirst(int N) {
  float *Frame;
  cudaMallocManaged((void **)&Frame, N * sizeof(float));
  render<<<1, 256>>>(Frame, N);
  cudaDeviceSynchronize();
  writeImage(Frame, N);
  cudaFree(Frame);
}

void waitForStream(int N, cudaStream_t Stream) {
  float *Frame;
  cudaMallocManaged((void **)&Frame, N * sizeof(float));
  render<<<1, 256, 0, Stream>>>(Frame, N);
  cudaStreamSynchronize(Stream);
  printf("%f\n", Frame[0]);
  cudaFree(Frame);
}

// A function defined elsewhere may wait; what the host does before the
// launch is not raced.
void finish(); // defined in another file
void elsewhere(int N) {
  float *Frame;
  cudaMallocManaged((void **)&Frame, N * sizeof(float));
  Frame[0] = 0.0f;
  render<<<1, 256>>>(Frame, N);
  finish();
  printf("%f\n", Frame[0]);
  cudaFree(Frame);
}
