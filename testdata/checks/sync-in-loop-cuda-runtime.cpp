// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
#include <cuda_runtime.h>

void launchWork(float *Data, int N);

void perIterationSyncs(float *Data, cudaStream_t Stream, cudaEvent_t Done) {
  for (int Step = 0; Step < 100; ++Step) {
    launchWork(Data, 1024);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on each of 100 iterations of the loop at line 8: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    launchWork(Data, 1024); cudaStreamSynchronize(Stream);
    // XFER-WARNING: :[[@LINE-1]]:29: warning: 'cudaStreamSynchronize' synchronizes with the GPU on each of 100 iterations of the loop at line 8: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-7]]:3: note: loop starts here
    launchWork(Data, 1024); cudaEventSynchronize(Done);
    // XFER-WARNING: :[[@LINE-1]]:29: warning: 'cudaEventSynchronize' synchronizes with the GPU on each of 100 iterations of the loop at line 8: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-10]]:3: note: loop starts here
    launchWork(Data, 1024); cudaThreadSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:29: warning: 'cudaThreadSynchronize' synchronizes with the GPU on each of 100 iterations of the loop at line 8: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-13]]:3: note: loop starts here
  }
}

// cudaMalloc/cudaFree synchronize the device: allocate once, outside.
void scratchPerIteration(int Iters) {
  for (int I = 0; I < Iters; ++I) {
    float *Scratch = nullptr;
    cudaMalloc((void **)&Scratch, 4096);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMalloc' synchronizes with the GPU on every iteration of the loop at line 27: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    launchWork(Scratch, 1024);
    cudaFree(Scratch);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaFree' synchronizes with the GPU on every iteration of the loop at line 27: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-8]]:3: note: loop starts here
  }
}

// Negatives: once outside the loop, and every N iterations.
void fixedPatterns(float *Data, int Iters, int CheckEvery) {
  float *Scratch = nullptr;
  cudaMalloc((void **)&Scratch, 4096);
  for (int I = 0; I < Iters; ++I) {
    launchWork(Data, 1024);
    if (I % CheckEvery == 0)
      cudaDeviceSynchronize();
    if (!(I % 64))
      cudaDeviceSynchronize();
  }
  cudaDeviceSynchronize();
  cudaFree(Scratch);
}

// Nested loops multiply; a sync between an inner loop's runs is per epoch.
void epochs() {
  for (int Epoch = 0; Epoch < 10; ++Epoch) {
    for (int Batch = 0; Batch < 50; ++Batch) { launchWork(nullptr, 1);
      cudaDeviceSynchronize();
      // XFER-WARNING: :[[@LINE-1]]:7: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on each of 500 iterations of the nested loops at lines 56 and 57: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // XFER-NOTE: :[[@LINE-3]]:5: note: loop starts here
    }
    cudaDeviceSynchronize(); // once per epoch, after 50 batches
  }
}

// std::for_each with a lambda is a loop too.
#include <algorithm>
#include <vector>
void algorithms(std::vector<float *> &Buffers) {
  std::for_each(Buffers.begin(), Buffers.end(), [](float *Buffer) {
    launchWork(Buffer, 16);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the std::for_each at line 70: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: std::for_each starts here
  });
}

// NOLINT works as in clang-tidy.
void suppressed() {
  while (true) { launchWork(nullptr, 1);
    launchWork(nullptr, 1); cudaDeviceSynchronize(); // NOLINT(xfer-sync-in-loop)
    // NOLINTNEXTLINE(xfer-*)
    launchWork(nullptr, 1); cudaDeviceSynchronize();
    // NOLINTBEGIN(xfer-sync-in-loop)
    launchWork(nullptr, 1); cudaDeviceSynchronize();
    // NOLINTEND(xfer-sync-in-loop)
    launchWork(nullptr, 1); cudaDeviceSynchronize(); // NOLINT(some-other-check)
    // XFER-WARNING: :[[@LINE-1]]:29: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 80: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-9]]:3: note: loop starts here
  }
}

// `if (...) continue;` ahead of the sync guards it like an enclosing if.
void skipAhead(int Iters, int CheckInterval) {
  for (int I = 0; I < Iters; ++I) {
    if ((I + 1) % CheckInterval != 0)
      continue;
    cudaDeviceSynchronize();
  }
  for (int I = 0; I < Iters; ++I) { launchWork(nullptr, 1);
    if (I % 2 == 0) {
      continue;
    }
    // Skipping every N-th iteration leaves N-1 of N: still per iteration.
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 100: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-7]]:3: note: loop starts here
  }
}

// A managed allocation and freeing pinned memory synchronize too.
void managedPerIteration(float *Staging, int Iters) {
  for (int I = 0; I < Iters; ++I) {
    float *Cost = nullptr;
    cudaMallocManaged((void **)&Cost, sizeof(float));
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMallocManaged' synchronizes with the GPU on every iteration of the loop at line 113: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    launchWork(Cost, 1);
    cudaFreeHost(Staging);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaFreeHost' synchronizes with the GPU on every iteration of the loop at line 113: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-8]]:3: note: loop starts here
  }
}

// Lazy allocation: a branch that sets what its condition tests runs the
// first time only. One that does not runs whenever the test holds.
struct Workspace {
  float *Buffer = nullptr;
  bool Ready = false;
  void ensure() {
    if (!Ready) {
      cudaMalloc((void **)&Buffer, 4096);
      Ready = true;
    }
  }
};

void lazyAllocation(Workspace &Space, bool Staged, int Iters) {
  float *Buffer = nullptr;
  float *Managed = nullptr;
  bool Allocated = false;
  for (int I = 0; I < Iters; ++I) {
    if (!Allocated) {
      cudaMalloc((void **)&Buffer, 4096);
      Allocated = true;
    }
    if (Managed == nullptr)
      cudaMallocManaged((void **)&Managed, 4096);
    if (!Staged) {
      cudaMalloc((void **)&Buffer, 4096);
    }
    // XFER-WARNING: :[[@LINE-2]]:7: warning: 'cudaMalloc' synchronizes with the GPU on every iteration of the loop at line 142: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-11]]:3: note: loop starts here
    Space.ensure();
    launchWork(Buffer, 1024);
  }
}

// A wait next to a blocking copy to the host costs nothing the copy does
// not: right before it (the copy waits for the same work), or right after
// it (the device is drained). Error checks in between queue no work. The
// copy is the finding.
void checkState(const char *Where); // calls cudaGetLastError
void gpuErrchk(cudaError_t Status);

float waitsBesideCopies(float *Device, float *Host, int Iters) {
  float Sum = 0.0f;
  for (int I = 0; I < Iters; ++I) {
    launchWork(Device, 1024);
    cudaDeviceSynchronize();
    checkState("reduce");
    gpuErrchk(cudaMemcpy(Host, Device, 4, cudaMemcpyDeviceToHost));
    cudaDeviceSynchronize();
    Sum += Host[0];
    launchWork(Device, 1024);
    cudaStreamSynchronize(0);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaStreamSynchronize' synchronizes with the GPU on every iteration of the loop at line 168: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-10]]:3: note: loop starts here
  }
  return Sum;
}
