// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-copy-in-loop
// Corpus: a function copies results back only when its caller passes
// somewhere to compare them with. Summaries are not argument-sensitive.
#include <cuda_runtime.h>

void enqueueForward(float *Dev);

void forward(float *Dev, float *HostLosses, const int *Targets) {
  enqueueForward(Dev);
  if (Targets != nullptr)
    cudaMemcpy(HostLosses, Dev, 64, cudaMemcpyDeviceToHost);
}

void evaluate(float *Dev, float *HostLosses, const int *Targets, int N) {
  for (int I = 0; I < N; ++I) {
    forward(Dev, HostLosses, Targets);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'forward()' copies device memory to the host on every iteration of the loop at line 16: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
  }
}

// Known false positive: this call passes no targets, so no copy happens.
void generate(float *Dev, float *HostLosses, int Tokens) {
  for (int T = 0; T < Tokens; ++T) {
    forward(Dev, HostLosses, nullptr);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'forward()' copies device memory to the host on every iteration of the loop at line 24: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
  }
}
