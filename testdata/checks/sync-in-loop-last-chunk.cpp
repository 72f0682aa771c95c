// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// A loop over chunks remakes its buffers for the last, shorter chunk only:
// `if (off + n > total)` holds on the last iteration. Silent. A test of
// another bound than the loop's can hold on any iteration: reported.
#include <cuda_runtime.h>

__global__ void classify(float *Out, const float *In, int N);

void classifyChunks(const float *Host, float *Result, int Total, int Chunk,
                    int Limit) {
  float *Device = nullptr;
  cudaMalloc((void **)&Device, Chunk * sizeof(float));
  for (int Off = 0; Off < Total; Off += Chunk) {
    if (Off + Chunk > Total) {
      Chunk = Total - Off;
      cudaFree(Device);
      cudaMalloc((void **)&Device, Chunk * sizeof(float));
    }
    classify<<<1, 32>>>(Device, Device, Chunk);
  }
  for (int Off = 0; Off < Total; Off += Chunk) {
    if (Off + Chunk > Limit) {
      cudaFree(Device);
      // XFER-WARNING: :[[@LINE-1]]:7: warning: 'cudaFree' synchronizes with the GPU on every iteration of the loop at line 23: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // XFER-NOTE: :23:3: note: loop starts here
      cudaMalloc((void **)&Device, Chunk * sizeof(float));
      // XFER-WARNING: :[[@LINE-1]]:7: warning: 'cudaMalloc' synchronizes with the GPU on every iteration of the loop at line 23: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // XFER-NOTE: :23:3: note: loop starts here
    }
    classify<<<1, 32>>>(Device, Device, Chunk);
  }
  cudaFree(Device);
}
