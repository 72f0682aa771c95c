// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-launch-bound-loop
// CUDA runtime loops whose iterations are nothing but kernel launches: one
// graph launch per iteration replaces them.
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <utility>

__global__ void scale(float *Data, int N);
__global__ void shift(float *Data, int N);
__global__ void relax(float *Next, const float *Prev, int N);
__global__ void residual(const float *Data, int *Done, int N);

void eightKernels(float *Data, int N) {
  for (int Step = 0; Step < 1000; ++Step) {
    // XFER-WARNING: :[[@LINE-1]]:3: warning: loop is launch-bound: each iteration launches 8 kernels with fixed shapes and no synchronization, host<->device copy, allocation or branch on a device result; capture one iteration into a CUDA graph with cudaStreamBeginCapture/cudaStreamEndCapture and replay it with cudaGraphLaunch [xfer-launch-bound-loop]
    scale<<<N / 256, 256>>>(Data, N);
    // XFER-NOTE: :[[@LINE-1]]:5: note: kernel 'scale' is launched here
    shift<<<N / 256, 256>>>(Data, N);
    // XFER-NOTE: :[[@LINE-1]]:5: note: kernel 'shift' is launched here
    scale<<<N / 256, 256>>>(Data, N);
    // XFER-NOTE: :[[@LINE-1]]:5: note: kernel 'scale' is launched here
    shift<<<N / 256, 256>>>(Data, N);
    // XFER-NOTE: :[[@LINE-1]]:5: note: kernel 'shift' is launched here
    scale<<<N / 256, 256>>>(Data, N);
    // XFER-NOTE: :[[@LINE-1]]:5: note: kernel 'scale' is launched here
    shift<<<N / 256, 256>>>(Data, N);
    // XFER-NOTE: :[[@LINE-1]]:5: note: kernel 'shift' is launched here
    scale<<<N / 256, 256>>>(Data, N);
    // XFER-NOTE: :[[@LINE-1]]:5: note: kernel 'scale' is launched here
    shift<<<N / 256, 256>>>(Data, N);
    // XFER-NOTE: :[[@LINE-1]]:5: note: kernel 'shift' is launched here
  }
}

// Launches through functions defined here count at the call; a kernel
// argument that changes between iterations (buffers swapped) is applied to
// the instantiated graph with cudaGraphExecUpdate.
void stage(float *Data, int N) {
  scale<<<N / 256, 256>>>(Data, N);
  shift<<<N / 256, 256>>>(Data, N);
  scale<<<N / 256, 256>>>(Data, N);
}

void pingPong(float *A, float *B, int N, int Iters) {
  while (Iters-- > 0) {
    // XFER-WARNING: :[[@LINE-1]]:3: warning: loop is launch-bound: each iteration launches 8 kernels with fixed shapes and no synchronization, host<->device copy, allocation or branch on a device result; capture one iteration into a CUDA graph with cudaStreamBeginCapture/cudaStreamEndCapture and replay it with cudaGraphLaunch, applying the kernel parameters that change between iterations with cudaGraphExecUpdate [xfer-launch-bound-loop]
    stage(A, N);
    // XFER-NOTE: :[[@LINE-1]]:5: note: 'stage()' launches 3 kernels here
    stage(B, N);
    // XFER-NOTE: :[[@LINE-1]]:5: note: 'stage()' launches 3 kernels here
    relax<<<N / 256, 256>>>(B, A, N);
    // XFER-NOTE: :[[@LINE-1]]:5: note: kernel 'relax' is launched here
    relax<<<N / 256, 256>>>(A, B, N);
    // XFER-NOTE: :[[@LINE-1]]:5: note: kernel 'relax' is launched here
    std::swap(A, B);
  }
}

// cudaLaunchKernel counts like <<<...>>>; an inner loop with a constant
// trip count is unrolled into the outer iteration (and is too short to be
// worth a graph of its own). A log line every 100 steps runs outside the
// graph.
void layers(float *Data, int N, int Iters) {
  void *Args[] = {&Data, &N};
  for (int I = 0; I < Iters; ++I) {
    // XFER-WARNING: :[[@LINE-1]]:3: warning: loop is launch-bound: each iteration launches 9 kernels with fixed shapes and no synchronization, host<->device copy, allocation or branch on a device result; capture one iteration into a CUDA graph with cudaStreamBeginCapture/cudaStreamEndCapture and replay it with cudaGraphLaunch [xfer-launch-bound-loop]
    for (int Layer = 0; Layer < 4; ++Layer) {
      scale<<<N / 256, 256>>>(Data, N);
      // XFER-NOTE: :[[@LINE-1]]:7: note: kernel 'scale' is launched here, 4 times per iteration
      cudaLaunchKernel((const void *)shift, dim3(N / 256), dim3(256), Args, 0,
                       0);
      // XFER-NOTE: :[[@LINE-2]]:7: note: 'cudaLaunchKernel' launches a kernel here, 4 times per iteration
    }
    relax<<<N / 256, 256>>>(Data, Data, N);
    // XFER-NOTE: :[[@LINE-1]]:5: note: kernel 'relax' is launched here
    if (I % 100 == 0)
      cudaDeviceSynchronize();
  }
}

// An inner loop that is launch-bound on its own is the one to capture, not
// the epoch around it, which would unroll it into one large graph.
void epochs(float *Data, int N, int Epochs) {
  for (int Epoch = 0; Epoch < Epochs; ++Epoch) {
    for (int Batch = 0; Batch < 500; ++Batch) {
      // XFER-WARNING: :[[@LINE-1]]:5: warning: loop is launch-bound: each iteration launches 9 kernels with fixed shapes and no synchronization, host<->device copy, allocation or branch on a device result; capture one iteration into a CUDA graph with cudaStreamBeginCapture/cudaStreamEndCapture and replay it with cudaGraphLaunch [xfer-launch-bound-loop]
      stage(Data, N);
      // XFER-NOTE: :[[@LINE-1]]:7: note: 'stage()' launches 3 kernels here
      stage(Data, N);
      // XFER-NOTE: :[[@LINE-1]]:7: note: 'stage()' launches 3 kernels here
      stage(Data, N);
      // XFER-NOTE: :[[@LINE-1]]:7: note: 'stage()' launches 3 kernels here
    }
    relax<<<N / 256, 256>>>(Data, Data, N);
  }
}

// An inner loop too small to be launch-bound on its own (two launches per
// time step) is captured whole, as the outer iteration.
void frames(float *A, float *B, int N, int Frames) {
  for (int Frame = 0; Frame < Frames; ++Frame) {
    // XFER-WARNING: :[[@LINE-1]]:3: warning: loop is launch-bound: each iteration launches 200 kernels with fixed shapes and no synchronization, host<->device copy, allocation or branch on a device result; capture one iteration into a CUDA graph with cudaStreamBeginCapture/cudaStreamEndCapture and replay it with cudaGraphLaunch [xfer-launch-bound-loop]
    for (int T = 0; T < 100; ++T) {
      relax<<<N / 256, 256>>>(B, A, N);
      // XFER-NOTE: :[[@LINE-1]]:7: note: kernel 'relax' is launched here, 100 times per iteration
      relax<<<N / 256, 256>>>(A, B, N);
      // XFER-NOTE: :[[@LINE-1]]:7: note: kernel 'relax' is launched here, 100 times per iteration
    }
  }
}

// Negatives.

// A synchronization, a copy or an allocation in the iteration stops stream
// capture (xfer-sync-in-loop and xfer-copy-in-loop report the first two).
void syncEachStep(float *Data, int N, int Iters) {
  for (int I = 0; I < Iters; ++I) {
    stage(Data, N);
    stage(Data, N);
    stage(Data, N);
    cudaStreamSynchronize(0);
  }
}

void finish() { cudaDeviceSynchronize(); }
void syncThroughCall(float *Data, int N, int Iters) {
  for (int I = 0; I < Iters; ++I) {
    stage(Data, N);
    stage(Data, N);
    stage(Data, N);
    finish();
  }
}

void uploadEachStep(float *Data, const float *Pinned, int N, int Iters) {
  for (int I = 0; I < Iters; ++I) {
    cudaMemcpyAsync(Data, Pinned, N * sizeof(float), cudaMemcpyHostToDevice);
    stage(Data, N);
    stage(Data, N);
    stage(Data, N);
  }
}

void scratchEachStep(float *Data, int N, int Iters) {
  for (int I = 0; I < Iters; ++I) {
    float *Scratch = nullptr;
    cudaMalloc((void **)&Scratch, N * sizeof(float));
    stage(Scratch, N);
    stage(Data, N);
    stage(Data, N);
    cudaFree(Scratch);
  }
}

// Host control flow on a device result.
void untilConverged(float *Data, int *DeviceDone, int N) {
  int Done = 0;
  while (!Done) {
    stage(Data, N);
    stage(Data, N);
    stage(Data, N);
    residual<<<N / 256, 256>>>(Data, DeviceDone, N);
    cudaMemcpy(&Done, DeviceDone, sizeof(int), cudaMemcpyDeviceToHost);
  }
}

// Dynamic shapes: a launch configuration that changes between iterations,
// or that comes from a device result.
void growingGrid(float *Data, int Iters) {
  for (int I = 1; I <= Iters; ++I) {
    stage(Data, 256 * I);
    stage(Data, 256 * I);
    stage(Data, 256 * I);
  }
}

void sizeFromDevice(float *Data, const int *DeviceCount, int Iters) {
  int N = 0;
  cudaMemcpy(&N, DeviceCount, sizeof(int), cudaMemcpyDeviceToHost);
  for (int I = 0; I < Iters; ++I) {
    stage(Data, N);
    stage(Data, N);
    stage(Data, N);
  }
}

// Too few launches, or too few iterations to repay capturing a graph.
void sevenKernels(float *Data, int N, int Iters) {
  for (int I = 0; I < Iters; ++I) {
    stage(Data, N);
    stage(Data, N);
    scale<<<N / 256, 256>>>(Data, N);
  }
}

void fourIterations(float *Data, int N) {
  for (int I = 0; I < 4; ++I) {
    stage(Data, N);
    stage(Data, N);
    stage(Data, N);
  }
}

// A timing harness exists to measure launches; a setup loop launches
// nothing.
void benchmark(float *Data, int N, cudaEvent_t Start, cudaEvent_t Stop) {
  cudaEventRecord(Start);
  for (int I = 0; I < 100; ++I) {
    stage(Data, N);
    stage(Data, N);
    stage(Data, N);
  }
  cudaEventRecord(Stop);
}

void setup(float **Buffers, int Count, int N) {
  for (int I = 0; I < Count; ++I)
    cudaMalloc((void **)&Buffers[I], N * sizeof(float));
}

// Launches in an inner loop of run-time length: the outer iteration's
// launches are not fixed (and the inner loop launches too few).
void runtimeLayers(float *Data, int N, int Layers, int Iters) {
  for (int I = 0; I < Iters; ++I) {
    for (int Layer = 0; Layer < Layers; ++Layer)
      stage(Data, N);
    stage(Data, N);
    stage(Data, N);
    stage(Data, N);
  }
}

// Already replays a graph.
void replays(cudaGraphExec_t Exec, float *Data, int N, int Iters) {
  for (int I = 0; I < Iters; ++I) {
    cudaGraphLaunch(Exec, 0);
    stage(Data, N);
    stage(Data, N);
    stage(Data, N);
  }
}

// Loops in device code launch nothing.
__global__ void smooth(float *Data, int N) {
  for (int I = 0; I < N; ++I)
    Data[I] *= 0.5f;
}

// A cuBLAS reduction into host memory waits for its result: the solve's
// inner iteration cannot be captured.
void reducesToHost(cublasHandle_t Handle, float *Data, int N, int Iters) {
  float Error = 1;
  for (int I = 0; I < Iters && Error > 1e-3f; ++I) {
    stage(Data, N);
    stage(Data, N);
    stage(Data, N);
    cublasSasum(Handle, N, Data, 1, &Error);
  }
}
