// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// Corpus: error-checking macros wrap their argument in do { ... } while (0).
// That statement runs its body once: it is no loop, neither around the call
// nor as an inner loop of the real one.
#include <cuda_runtime.h>

#define MUST(Expr)                                                             \
  do {                                                                         \
    if ((Expr) != cudaSuccess)                                                 \
      return;                                                                  \
  } while (0)

void enqueueStep(int Step);

void syncOnceAtTheEnd() {
  enqueueStep(0);
  MUST(cudaDeviceSynchronize());
}

void syncEveryStep(int Steps) {
  for (int Step = 0; Step < Steps; ++Step) {
    enqueueStep(Step);
    MUST(cudaStreamSynchronize(0));
    // XFER-WARNING: :[[@LINE-1]]:10: warning: 'cudaStreamSynchronize' synchronizes with the GPU on every iteration of the loop at line 22: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
  }
}

// The macro's do-while(0) before the sync is not an inner batch loop.
void checkedLaunchThenSync(int Steps) {
  for (int Step = 0; Step < Steps; ++Step) { enqueueStep(Step);
    MUST(cudaMemsetAsync(nullptr, 0, 0));
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 31: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
  }
}
