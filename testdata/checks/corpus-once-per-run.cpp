// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-copy-in-loop,xfer-sync-in-loop
// Corpus: a check done on the first step of a short loop runs once, as it
// would outside the loop, however few iterations the loop has.
#include <cuda_runtime.h>

void trainStep(float *Dev);

void checkFirstStep(float *Dev, float *Host) {
  for (int Step = 0; Step < 10; ++Step) {
    trainStep(Dev);
    if (Step == 0)
      cudaMemcpy(Host, Dev, 256, cudaMemcpyDeviceToHost);
  }
  for (int Step = 0; Step < 4; ++Step) {
    trainStep(Dev);
    if (Step == 4 - 1)
      cudaDeviceSynchronize();
  }
}

// Still reported: every other step is frequent.
void checkEveryOtherStep(float *Dev, float *Host) {
  for (int Step = 0; Step < 100; ++Step) {
    trainStep(Dev);
    if (Step % 2 == 0)
      cudaMemcpy(Host, Dev, 256, cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:7: warning: 'cudaMemcpy' copies device memory to the host once every 2 iterations of the loop at line 24: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
  }
}

// Corpus: the counter incremented inside the guard itself.
void logWithPostIncrement(float *Dev, float *Host, int Steps) {
  int Batch = 0;
  for (int Step = 0; Step < Steps; ++Step) {
    trainStep(Dev);
    if (Batch++ % 50 == 0)
      cudaMemcpy(Host, Dev, 256, cudaMemcpyDeviceToHost);
    if (++Batch % 5 == 0) // guarded logging: silent at the default
      cudaMemcpy(Host, Dev, 256, cudaMemcpyDeviceToHost);
    if (++Batch % 2 == 0)
      cudaMemcpy(Host, Dev, 256, cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:7: warning: 'cudaMemcpy' copies device memory to the host once every 2 iterations of the loop at line 35: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
  }
}
