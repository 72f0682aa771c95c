// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// A kernel writes a counter in managed memory and the host tests it to
// decide whether the loop goes on: the wait before the test is what makes
// the value valid on the host, a termination read like any other. A wait
// whose managed value is only printed is a hazard.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void relax(int *Remaining, float *Data);

void untilStable(float *Data) {
  int *Remaining;
  cudaMallocManaged((void **)&Remaining, sizeof(int));
  *Remaining = 1000;
  while (true) {
    int Previous = *Remaining;
    relax<<<1, 32>>>(Remaining, Data);
    cudaDeviceSynchronize();
    if (Previous == *Remaining)
      break;
  }
  do {
    relax<<<1, 32>>>(Remaining, Data);
    cudaDeviceSynchronize();
  } while (Remaining[0] > 0);
  cudaFree(Remaining);
}

void logEachStep(float *Data, int Steps) {
  int *Remaining;
  cudaMallocManaged((void **)&Remaining, sizeof(int));
  for (int Step = 0; Step < Steps; ++Step) {
    relax<<<1, 32>>>(Remaining, Data);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 34: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :34:3: note: loop starts here
    std::printf("%d\n", *Remaining);
  }
  cudaFree(Remaining);
}

// A `__managed__` global a helper resets, reduces into and waits for, then
// tested to leave the loop: the helper's wait is the termination read. A
// helper that waits for other work leaves the value as it was: reported.
__managed__ double MaxForce;
__global__ void reduceMaxForce(float *Data);
__global__ void mixVelocities(float *Data);
void calcMaxForce(float *Data) {
  MaxForce = 0.0;
  reduceMaxForce<<<1, 32>>>(Data);
  cudaDeviceSynchronize();
}
void mix(float *Data) {
  mixVelocities<<<1, 32>>>(Data);
  cudaDeviceSynchronize();
}
void minimise(float *Data, int MaxSteps) {
  for (int Step = 0; Step < MaxSteps; ++Step) {
    relax<<<1, 32>>>(nullptr, Data);
    calcMaxForce(Data);
    if (MaxForce < 1e-6)
      break;
    mix(Data);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'mix()' synchronizes with the GPU on every iteration of the loop at line 60: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :60:3: note: loop starts here
    // XFER-NOTE: :57:3: note: 'cudaDeviceSynchronize' synchronizes with the GPU here
  }
}
