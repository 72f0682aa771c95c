// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
#include <cuda_runtime.h>

void launchWork(float *Data, int N);

// A helper that records an event, waits for it and reads the elapsed time
// measures; calling it in a loop is a timing harness, not a hazard.
void measureElapsed(cudaEvent_t *Before, cudaEvent_t *After, float *Ms) {
  cudaEventRecord(*After);
  cudaEventSynchronize(*After);
  cudaEventElapsedTime(Ms, *Before, *After);
}

// A helper that only waits is a cost of every call.
void finishStep(cudaStream_t Stream) { cudaStreamSynchronize(Stream); }

void timedSteps(float *Data, cudaEvent_t Before, cudaEvent_t After,
                cudaStream_t Stream) {
  float Ms = 0;
  for (int Step = 0; Step < 100; ++Step) {
    cudaEventRecord(Before);
    launchWork(Data, 1024);
    measureElapsed(&Before, &After, &Ms);
    launchWork(Data, 512);
    finishStep(Stream);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'finishStep()' synchronizes with the GPU on each of 100 iterations of the loop at line 21: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-7]]:3: note: loop starts here
    // XFER-NOTE: :[[@LINE-13]]:40: note: 'cudaStreamSynchronize' synchronizes with the GPU here
    launchWork(Data, 256);
  }
}
