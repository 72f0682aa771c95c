// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-copy-in-loop
// A part of a host buffer that nothing in the loop changes, copied with a
// blocking cudaMemcpy on every batch: copy the buffer once and index it on
// the device. Async copies of parts over streams (the way copies overlap
// kernels) and buffers refilled in the loop are left alone.
#include <cuda_runtime.h>
#include <cstdlib>
__global__ void train(float *X, int *Y);

void trainAll(int Epochs, int Batches, int N) {
  float *Images = (float *)malloc(Batches * N * sizeof(float));
  int *Labels = (int *)malloc(Batches * sizeof(int));
  float *DImages; int *DLabels;
  cudaMalloc((void **)&DImages, N * sizeof(float));
  cudaMalloc((void **)&DLabels, sizeof(int));
  for (int E = 0; E < Epochs; ++E)
    for (int B = 0; B < Batches; ++B) {
      cudaMemcpy(DImages, &Images[B * N], N * sizeof(float), cudaMemcpyHostToDevice);
      // XFER-WARNING: :[[@LINE-1]]:7: warning: 'cudaMemcpy' copies part of 'Images' to the GPU on every iteration of the loop at line 18, but 'Images' does not change inside the loop: copy it to the GPU once before the loop and take the part there [xfer-copy-in-loop]
      // XFER-NOTE: :[[@LINE-3]]:5: note: loop starts here
      cudaMemcpy(DLabels, Labels + B, sizeof(int), cudaMemcpyHostToDevice);
      // XFER-WARNING: :[[@LINE-1]]:7: warning: 'cudaMemcpy' copies part of 'Labels' to the GPU on every iteration of the loop at line 18, but 'Labels' does not change inside the loop: copy it to the GPU once before the loop and take the part there [xfer-copy-in-loop]
      // XFER-NOTE: :[[@LINE-6]]:5: note: loop starts here
      train<<<1, 1>>>(DImages, DLabels);
    }
}

void streamsChunks(float *Pinned, float *D, int Chunks, int N, cudaStream_t *S) {
  for (int R = 0; R < 100; ++R)
    for (int C = 0; C < Chunks; ++C) {
      cudaMemcpyAsync(D + C * N, Pinned + C * N, N * sizeof(float), cudaMemcpyHostToDevice, S[C]);
      train<<<1, 1, 0, S[C]>>>(D + C * N, nullptr);
    }
}

void refilled(float *Host, float *D, int N) {
  for (int B = 0; B < 100; ++B) {
    for (int I = 0; I < N; ++I)
      Host[B * N + I] = I;
    cudaMemcpy(D, &Host[B * N], N * sizeof(float), cudaMemcpyHostToDevice);
    train<<<1, 1>>>(D, nullptr);
  }
}

// Reading the buffer's elements in the loop does not change it.
float readsWhileCopying(const int N, float *Host, float *D) {
  float Sum = 0;
  for (int Step = 0; Step < 100; ++Step) {
    Sum += Host[Step % N];
    cudaMemcpy(D, Host, N * sizeof(float), cudaMemcpyHostToDevice);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies 'Host' to the GPU on each of 100 iterations of the loop at line 49, but 'Host' does not change inside the loop: copy it once before the loop [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    train<<<1, 1>>>(D, nullptr);
  }
  return Sum;
}

// Samples gathered in a shuffled order (the offset read from a table of
// indices): each batch is new input, as from a data loader.
void trainShuffled(const float *X, const int *Order, int Samples, int Batch,
                   int N) {
  float *Device;
  cudaMalloc((void **)&Device, Batch * N * sizeof(float));
  for (int I = 0; I < Samples; I += Batch) {
    for (int S = 0; S < Batch; ++S)
      cudaMemcpy(Device + S * N, X + Order[I + S] * N, N * sizeof(float),
                 cudaMemcpyHostToDevice);
    train<<<1, 1>>>(Device, nullptr);
  }
}
