// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
#include <cuda_runtime.h>

void launchWork(float *Data, int N);

// A predictor-corrector step: two passes per time step, some work only in
// the first. Once per run of the two-pass loop is once per time step.
void predictorCorrector(float *Data, int Steps) {
  for (int Step = 0; Step < Steps; ++Step) {
    for (int Pass = 0; Pass < 2; ++Pass) {
      if (Pass == 0) {
        launchWork(Data, 1024);
        cudaDeviceSynchronize();
        // XFER-WARNING: :[[@LINE-1]]:9: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 10: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
        // XFER-NOTE: :10:3: note: loop starts here
      }
      launchWork(Data, 1024);
    }
  }
}

// Negatives: the first batch of an epoch (a loop of many iterations) is
// once per epoch, and a test on the outer counter is once in all.
void firstBatchOfEpoch(float *Data, int Epochs, int Batches) {
  for (int Epoch = 0; Epoch < Epochs; ++Epoch) {
    for (int Batch = 0; Batch < Batches; ++Batch) {
      launchWork(Data, 1024);
      if (Batch == 0)
        cudaDeviceSynchronize();
    }
  }
}

void firstStepOnly(float *Data, int Steps) {
  for (int Step = 0; Step < Steps; ++Step) {
    for (int Pass = 0; Pass < 2; ++Pass) {
      launchWork(Data, 1024);
      if (Step == 0)
        cudaDeviceSynchronize();
    }
  }
}

// A test of a value computed in the iteration against a constant picks one
// case of several on every iteration, not one iteration in all.
int pickScale(const float *Data, int Step);

void perIterationCase(float *Data, int Steps) {
  for (int Step = 0; Step < Steps; ++Step) {
    launchWork(Data, 1024);
    int Scale = pickScale(Data, Step);
    if (Scale == 0) {
      cudaDeviceSynchronize();
      // XFER-WARNING: :[[@LINE-1]]:7: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 50: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // XFER-NOTE: :50:3: note: loop starts here
    }
  }
}

// The same in a function called once per step: its locals start afresh on
// every call.
void stepWithCase(float *Data, int Step) {
  launchWork(Data, 1024);
  int Scale = pickScale(Data, Step);
  if (Scale == 1)
    cudaDeviceSynchronize();
}

void callsStepWithCase(float *Data, int Steps) {
  for (int Step = 0; Step < Steps; ++Step)
    stepWithCase(Data, Step);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'stepWithCase()' synchronizes with the GPU on every iteration of the loop at line 71: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :71:3: note: loop starts here
    // XFER-NOTE: :67:5: note: 'cudaDeviceSynchronize' synchronizes with the GPU here
}

// Negative: a counter declared before the loop and stepped in it.
void countedOutside(float *Data, int Steps) {
  int Done = 0;
  while (Done < Steps) {
    launchWork(Data, 1024);
    if (Done == 0)
      cudaDeviceSynchronize();
    ++Done;
  }
}
