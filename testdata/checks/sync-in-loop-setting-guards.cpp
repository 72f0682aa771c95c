// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// `X == 0` runs once only if X changes from one iteration to the next: a
// process rank or a mode read once before the loop is a setting, and its
// branch runs on every iteration (of that process) or on none.
#include <cuda_runtime.h>

__global__ void stepKernel(float *Data, int N);
void queryRank(int *Rank);

void simulate(float *Data, int N, int Steps, int Mode) {
  int Rank = 0;
  queryRank(&Rank);
  for (int S = 0; S < Steps; ++S) {
    stepKernel<<<1, 32>>>(Data, N);
    if (Rank == 0)
      cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:7: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 15: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :15:3: note: loop starts here
    if (Mode == 2)
      cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:7: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 15: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :15:3: note: loop starts here
  }
}

// Values that change in the loop still make a branch run once.
void warmUp(float *Data, int N, int Steps) {
  int Pass = 0;
  bool First = true;
  for (int S = 0; S < Steps; ++S) {
    stepKernel<<<1, 32>>>(Data, N);
    if (S == 0) // the first iteration
      cudaDeviceSynchronize();
    if (Pass == 1) // the second iteration
      cudaDeviceSynchronize();
    ++Pass;
    if (First == true) {
      cudaDeviceSynchronize();
      First = false;
    }
  }
}

// A rank that the loop itself may change is not a setting.
void rebalance(float *Data, int N, int Steps) {
  int Rank = 0;
  for (int S = 0; S < Steps; ++S) {
    queryRank(&Rank);
    stepKernel<<<1, 32>>>(Data, N);
    if (Rank == 0)
      cudaDeviceSynchronize();
  }
}
