// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// In a program that defines main, a loop in a function main never reaches
// (a variant left in the code, a test path) never runs: not reported. The
// function main calls, and one whose address is taken, may run.
#include <cuda_runtime.h>

__global__ void relax(float *Field, int N);

void solve(float *Field, int N, int Steps) {
  for (int S = 0; S < Steps; ++S) {
    relax<<<N / 256, 256>>>(Field, N);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 12: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :12:3: note: loop starts here
  }
}

void solveOldVariant(float *Field, int N, int Steps) {
  for (int S = 0; S < Steps; ++S) {
    relax<<<N / 256, 256>>>(Field, N);
    cudaDeviceSynchronize();
  }
}

void solveCallback(float *Field, int N, int Steps) {
  for (int S = 0; S < Steps; ++S) {
    relax<<<N / 256, 256>>>(Field, N);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 28: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :28:3: note: loop starts here
  }
}

void runLater(void (*Solver)(float *, int, int), float *Field, int N);

int main() {
  float *Field = nullptr;
  cudaMalloc((void **)&Field, 1024 * sizeof(float));
  solve(Field, 1024, 100);
  runLater(solveCallback, Field, 1024);
  return 0;
}

// Library code calls some methods itself: a functor's call operator (an
// algorithm, a thread), a module's forward, an override of a library's
// virtual method. They may run.
struct Relaxer {
  float *Field;
  int N;
  void operator()(int Steps) const {
    for (int S = 0; S < Steps; ++S) {
      relax<<<N / 256, 256>>>(Field, N);
      cudaDeviceSynchronize();
      // XFER-WARNING: :[[@LINE-1]]:7: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 53: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // XFER-NOTE: :53:5: note: loop starts here
    }
  }
};
