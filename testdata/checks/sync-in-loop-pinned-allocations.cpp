// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// Page-locked host allocation synchronizes implicitly (the CUDA programming
// guide lists it beside device allocation): pinned buffers made per frame
// belong in a pool made once. A frame reader that allocates them and
// returns null at the end of the input decides the loop's exit with host
// data, not with a value read from the device: still a finding.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

struct Frame {
  unsigned char *Luma;
};

__global__ void encode(unsigned char *Luma);

Frame *readFrame(FILE *In, size_t Bytes) {
  Frame *F = (Frame *)malloc(sizeof(Frame));
  cudaHostAlloc((void **)&F->Luma, Bytes, cudaHostAllocDefault);
  if (fread(F->Luma, 1, Bytes, In) != Bytes) {
    cudaFreeHost(F->Luma);
    free(F);
    return nullptr;
  }
  return F;
}

void encodeFile(FILE *In, unsigned char *Device, size_t Bytes) {
  while (true) {
    Frame *F = readFrame(In, Bytes);
    // XFER-WARNING: :[[@LINE-1]]:16: warning: 'readFrame()' synchronizes with the GPU on every iteration of the loop at line 31: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :31:3: note: loop starts here
    // XFER-NOTE: :21:3: note: 'cudaHostAlloc' synchronizes with the GPU here
    // XFER-NOTE: :23:5: note: 'cudaFreeHost' synchronizes with the GPU here too
    if (!F)
      break;
    cudaMemcpyAsync(Device, F->Luma, Bytes, cudaMemcpyHostToDevice, 0);
    encode<<<1, 32>>>(Device);
    cudaFreeHost(F->Luma);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaFreeHost' synchronizes with the GPU on every iteration of the loop at line 31: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :31:3: note: loop starts here
    free(F);
  }
}

void pinnedPerStep(float *Device, int N, int Steps) {
  for (int Step = 0; Step < Steps; ++Step) {
    float *Staging;
    cudaMallocHost((void **)&Staging, N * sizeof(float));
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMallocHost' synchronizes with the GPU on every iteration of the loop at line 49: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :49:3: note: loop starts here
    cudaMemcpyAsync(Device, Staging, N * sizeof(float),
                    cudaMemcpyHostToDevice, 0);
    encode<<<1, 32>>>((unsigned char *)Device);
    cudaFreeHost(Staging);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaFreeHost' synchronizes with the GPU on every iteration of the loop at line 49: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :49:3: note: loop starts here
  }
}

// The fix: one staging buffer, made before the loop.
void pinnedOnce(float *Device, int N, int Steps) {
  float *Staging;
  cudaMallocHost((void **)&Staging, N * sizeof(float));
  for (int Step = 0; Step < Steps; ++Step) {
    cudaMemcpyAsync(Device, Staging, N * sizeof(float),
                    cudaMemcpyHostToDevice, 0);
    encode<<<1, 32>>>((unsigned char *)Device);
  }
  cudaFreeHost(Staging);
}
