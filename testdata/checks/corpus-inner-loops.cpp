// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-copy-in-loop,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {xfer-copy-in-loop.ReportOutputReadBacks: true}}
// Which inner loop is the batch loop (corpus); copied results reported too.
#include <cuda_runtime.h>

void enqueueForward(float *Dev, int Position);
void enqueueBatch(float *Dev, int Batch);

// Sampling: a host-only loop converts what was read back; the read-back
// still happens on every step.
void sampleTokens(float *Dev, float *Host, float *Probs, int Tokens, int N) {
  for (int T = 1; T < Tokens; ++T) {
    enqueueForward(Dev, T);
    cudaMemcpy(Host, Dev, N * sizeof(float), cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 13: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    for (int I = 0; I < N; ++I)
      Probs[I] = static_cast<float>(Host[I]) * 0.5f;
  }
}

// Evaluation every N steps runs an inner loop only on those steps; the
// sync after the training step is on every step.
void trainWithPeriodicEval(float *Dev, int Steps, int EvalEvery, int EvalN) {
  for (int Step = 0; Step < Steps; ++Step) {
    if (Step % EvalEvery == 0) {
      for (int B = 0; B < EvalN; ++B)
        enqueueBatch(Dev, B);
    }
    enqueueBatch(Dev, -1);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 25: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
  }
}

// Known miss: an unconditional inner loop of device work (gradient
// accumulation over micro-batches) looks like an epoch's batch loop, so the
// sync after it counts as once per epoch and is not reported.
void trainWithAccumulation(float *Dev, int Steps, int MicroSteps) {
  for (int Step = 0; Step < Steps; ++Step) {
    for (int Micro = 0; Micro < MicroSteps; ++Micro)
      enqueueBatch(Dev, Micro);
    cudaDeviceSynchronize();
  }
}

// Self-play rounds that train only once the buffer is full: the read after
// the training loop, in the same branch, runs once per round of training
// (once per epoch), not on every step.
void enqueueSelfPlay(float *Dev);
void selfPlayAndTrain(float *Dev, float *Host, int Rounds, int Steps,
                      int Ready) {
  for (int Round = 0; Round < Rounds; ++Round) {
    enqueueSelfPlay(Dev);
    if (Round > Ready) {
      for (int S = 0; S < Steps; ++S)
        enqueueBatch(Dev, S);
      cudaMemcpy(Host, Dev, sizeof(float), cudaMemcpyDeviceToHost);
    }
  }
  // A loop in the other branch does not run with the read.
  for (int Round = 0; Round < Rounds; ++Round) {
    enqueueSelfPlay(Dev);
    if (Round > Ready) {
      cudaMemcpy(Host, Dev, sizeof(float), cudaMemcpyDeviceToHost);
      // XFER-WARNING: :[[@LINE-1]]:7: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 62: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    } else {
      for (int S = 0; S < Steps; ++S)
        enqueueBatch(Dev, S);
    }
  }
}
