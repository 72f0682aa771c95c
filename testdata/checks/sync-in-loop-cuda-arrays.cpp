// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop,xfer-copy-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// CUDA arrays and pitched buffers (texture storage) allocate and free like
// cudaMalloc/cudaFree, and their copies block like cudaMemcpy: made,
// filled and released on every repetition, they cost every repetition.
#include <cuda_runtime.h>

__global__ void evaluate(float *Out, int N);

void repeatRuns(const float *HostCosts, float *Out, float *HostOut, int N,
                int Runs) {
  cudaChannelFormatDesc Desc{32, 0, 0, 0, 2};
  for (int Run = 0; Run < Runs; ++Run) {
    cudaArray_t Costs;
    cudaMallocArray(&Costs, &Desc, N, N);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMallocArray' synchronizes with the GPU on every iteration of the loop at line 14: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :14:3: note: loop starts here
    cudaMemcpyToArray(Costs, 0, 0, HostCosts, N * N * sizeof(float),
                      cudaMemcpyHostToDevice);
    // XFER-WARNING: :[[@LINE-2]]:5: warning: 'cudaMemcpyToArray' copies 'HostCosts' to the GPU on every iteration of the loop at line 14, but 'HostCosts' does not change inside the loop: copy it once before the loop [xfer-copy-in-loop]
    // XFER-NOTE: :14:3: note: loop starts here
    evaluate<<<1, 32>>>(Out, N);
    cudaMemcpyFromArray(HostOut, Costs, 0, 0, N * sizeof(float),
                        cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-2]]:5: warning: 'cudaMemcpyFromArray' copies device memory to the host on every iteration of the loop at line 14: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :14:3: note: loop starts here
    cudaFreeArray(Costs);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaFreeArray' synchronizes with the GPU on every iteration of the loop at line 14: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :14:3: note: loop starts here
  }
}

// The fix: the array is made and filled once; the loop only launches.
void runOnce(const float *HostCosts, float *Out, int N, int Runs) {
  cudaChannelFormatDesc Desc{32, 0, 0, 0, 2};
  cudaArray_t Costs;
  cudaMallocArray(&Costs, &Desc, N, N);
  cudaMemcpy2DToArray(Costs, 0, 0, HostCosts, N * sizeof(float),
                      N * sizeof(float), N, cudaMemcpyHostToDevice);
  float *Pitched;
  size_t Pitch;
  cudaMallocPitch((void **)&Pitched, &Pitch, N * sizeof(float), N);
  for (int Run = 0; Run < Runs; ++Run)
    evaluate<<<1, 32>>>(Out, N);
  cudaFree(Pitched);
  cudaFreeArray(Costs);
}

// A pitched buffer allocated per step waits like cudaMalloc.
void pitchedEachStep(float *Out, int N, int Steps) {
  for (int Step = 0; Step < Steps; ++Step) {
    float *Pitched;
    size_t Pitch;
    cudaMallocPitch((void **)&Pitched, &Pitch, N * sizeof(float), N);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMallocPitch' synchronizes with the GPU on every iteration of the loop at line 52: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :52:3: note: loop starts here
    evaluate<<<1, 32>>>(Pitched, N);
    cudaFree(Pitched);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaFree' synchronizes with the GPU on every iteration of the loop at line 52: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :52:3: note: loop starts here
  }
}
