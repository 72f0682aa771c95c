// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-launch-bound-loop
// XFER-CONFIG: {CheckOptions: {xfer-launch-bound-loop.MinLaunchesPerIteration: 4, xfer-launch-bound-loop.MinTripCount: 3, xfer-launch-bound-loop.ReportBlockedLoops: true}}
// Lower thresholds, and loops that would be launch-bound but for one
// operation that stops stream capture, reported with a note at it.
#include <cuda_runtime.h>
#include <torch/torch.h>
#include <iostream>

__global__ void scale(float *Data, int N);
__global__ void residual(const float *Data, int *Done, int N);

void fourKernels(float *Data, int N) {
  for (int I = 0; I < 3; ++I) {
    // XFER-WARNING: :[[@LINE-1]]:3: warning: loop is launch-bound: each iteration launches 4 kernels with fixed shapes and no synchronization, host<->device copy, allocation or branch on a device result; capture one iteration into a CUDA graph with cudaStreamBeginCapture/cudaStreamEndCapture and replay it with cudaGraphLaunch [xfer-launch-bound-loop]
    for (int K = 0; K < 4; ++K)
      scale<<<N / 256, 256>>>(Data, N);
    // XFER-NOTE: :[[@LINE-1]]:7: note: kernel 'scale' is launched here, 4 times per iteration
  }
}

void withSync(float *Data, int N, int Iters) {
  for (int I = 0; I < Iters; ++I) {
    // XFER-WARNING: :[[@LINE-1]]:3: warning: loop would be launch-bound: each iteration launches 4 kernels, but a synchronization ('cudaStreamSynchronize') stops stream capture; fixing it first makes the loop capturable with cudaStreamBeginCapture/cudaStreamEndCapture and cudaGraphLaunch [xfer-launch-bound-loop]
    scale<<<N / 256, 256>>>(Data, N);
    // XFER-NOTE: :[[@LINE-1]]:5: note: kernel 'scale' is launched here
    scale<<<N / 256, 256>>>(Data, N);
    // XFER-NOTE: :[[@LINE-1]]:5: note: kernel 'scale' is launched here
    cudaStreamSynchronize(0);
    // XFER-NOTE: :[[@LINE-1]]:5: note: 'cudaStreamSynchronize' synchronizes with the GPU here
    scale<<<N / 256, 256>>>(Data, N);
    // XFER-NOTE: :[[@LINE-1]]:5: note: kernel 'scale' is launched here
    scale<<<N / 256, 256>>>(Data, N);
    // XFER-NOTE: :[[@LINE-1]]:5: note: kernel 'scale' is launched here
  }
}

// Through calls: the chain down to the operation.
void drain() { cudaDeviceSynchronize(); }
void step(float *Data, int N) {
  scale<<<N / 256, 256>>>(Data, N);
  scale<<<N / 256, 256>>>(Data, N);
  drain();
}
void throughCalls(float *Data, int N, int Iters) {
  for (int I = 0; I < Iters; ++I) {
    // XFER-WARNING: :[[@LINE-1]]:3: warning: loop would be launch-bound: each iteration launches 4 kernels, but a synchronization ('cudaDeviceSynchronize') stops stream capture; fixing it first makes the loop capturable with cudaStreamBeginCapture/cudaStreamEndCapture and cudaGraphLaunch [xfer-launch-bound-loop]
    step(Data, N);
    // XFER-NOTE: :[[@LINE-1]]:5: note: 'step()' launches 2 kernels here
    // XFER-NOTE: :[[@LINE-2]]:5: note: the iteration calls 'step()' here
    // XFER-NOTE: :[[@LINE-8]]:3: note: which calls 'drain()' here
    // XFER-NOTE: :[[@LINE-13]]:16: note: 'cudaDeviceSynchronize' synchronizes with the GPU here
    step(Data, N);
    // XFER-NOTE: :[[@LINE-1]]:5: note: 'step()' launches 2 kernels here
  }
}

void uploads(float *Data, const float *Host, int N, int Iters) {
  for (int I = 0; I < Iters; ++I) {
    // XFER-WARNING: :[[@LINE-1]]:3: warning: loop would be launch-bound: each iteration launches 4 kernels, but a host<->device copy ('cudaMemcpy') stops stream capture; fixing it first makes the loop capturable with cudaStreamBeginCapture/cudaStreamEndCapture and cudaGraphLaunch [xfer-launch-bound-loop]
    cudaMemcpy(Data, Host, N * sizeof(float), cudaMemcpyHostToDevice);
    // XFER-NOTE: :[[@LINE-1]]:5: note: 'cudaMemcpy' copies between host and device here
    for (int K = 0; K < 4; ++K)
      scale<<<N / 256, 256>>>(Data, N);
    // XFER-NOTE: :[[@LINE-1]]:7: note: kernel 'scale' is launched here, 4 times per iteration
  }
}

void pinnedScratch(float *Data, int N, int Iters) {
  for (int I = 0; I < Iters; ++I) {
    // XFER-WARNING: :[[@LINE-1]]:3: warning: loop would be launch-bound: each iteration launches 4 kernels, but a memory allocation or release ('cudaMallocHost') stops stream capture; fixing it first makes the loop capturable with cudaStreamBeginCapture/cudaStreamEndCapture and cudaGraphLaunch [xfer-launch-bound-loop]
    float *Staging = nullptr;
    cudaMallocHost((void **)&Staging, N * sizeof(float));
    // XFER-NOTE: :[[@LINE-1]]:5: note: 'cudaMallocHost' allocates or frees memory here
    for (int K = 0; K < 4; ++K)
      scale<<<N / 256, 256>>>(Data, N);
    // XFER-NOTE: :[[@LINE-1]]:7: note: kernel 'scale' is launched here, 4 times per iteration
    cudaFreeHost(Staging);
  }
}

// The loop's own condition reads the residual back: the branch is what
// must go (check every N iterations), more than the copy.
void untilConverged(float *Data, int *DeviceDone, int N) {
  int Done = 0;
  while (!Done) {
    // XFER-WARNING: :[[@LINE-1]]:3: warning: loop would be launch-bound: each iteration launches 4 kernels, but a branch on a device result stops stream capture; fixing it first makes the loop capturable with cudaStreamBeginCapture/cudaStreamEndCapture and cudaGraphLaunch [xfer-launch-bound-loop]
    // XFER-NOTE: :[[@LINE-2]]:10: note: this condition reads a device result on the host
    for (int K = 0; K < 3; ++K)
      scale<<<N / 256, 256>>>(Data, N);
    // XFER-NOTE: :[[@LINE-1]]:7: note: kernel 'scale' is launched here, 3 times per iteration
    residual<<<N / 256, 256>>>(Data, DeviceDone, N);
    // XFER-NOTE: :[[@LINE-1]]:5: note: kernel 'residual' is launched here
    cudaMemcpy(&Done, DeviceDone, sizeof(int), cudaMemcpyDeviceToHost);
  }
}

// LibTorch: a read-back every iteration, a changing scalar passed down to
// a helper.
torch::Device Gpu(torch::kCUDA);
void readBack(const torch::Tensor &W, int Iters) {
  auto X = torch::randn({64, 64}, Gpu);
  for (int I = 0; I < Iters; ++I) {
    // XFER-WARNING: :[[@LINE-1]]:3: warning: loop would be launch-bound: each iteration issues 4 LibTorch operations on the GPU, but a synchronization ('item<float>()') stops stream capture; fixing it first makes the loop capturable with at::cuda::CUDAGraph on static input tensors [xfer-launch-bound-loop]
    auto Y = X.matmul(W) + X.matmul(W);
    // XFER-NOTE: :[[@LINE-1]]:16: note: 'matmul()' runs on the GPU here
    // XFER-NOTE: :[[@LINE-2]]:26: note: 'operator+' runs on the GPU here
    // XFER-NOTE: :[[@LINE-3]]:30: note: 'matmul()' runs on the GPU here
    std::cout << Y.mean().item<float>() << "\n";
    // XFER-NOTE: :[[@LINE-1]]:20: note: 'mean()' runs on the GPU here
    // XFER-NOTE: :[[@LINE-2]]:27: note: 'item<float>()' synchronizes with the GPU here
  }
}

void decay(torch::Tensor &X, double Rate) {
  X.add_(X.matmul(X) * Rate);
}
void schedule(int Iters) {
  auto X = torch::randn({64, 64}, Gpu);
  double Rate = 0.1;
  for (int I = 0; I < Iters; ++I) {
    // XFER-WARNING: :[[@LINE-1]]:3: warning: loop would be launch-bound: each iteration issues 6 LibTorch operations on the GPU, but a host value that changes between iterations ('Rate / (I + 1)') stops stream capture; fixing it first makes the loop capturable with at::cuda::CUDAGraph on static input tensors [xfer-launch-bound-loop]
    decay(X, Rate / (I + 1));
    // XFER-NOTE: :[[@LINE-1]]:5: note: 'decay()' issues 3 LibTorch operations on the GPU here
    // XFER-NOTE: :[[@LINE-2]]:14: note: 'Rate / (I + 1)' changes between iterations; a replay would reuse the value captured
    decay(X, 0.5);
    // XFER-NOTE: :[[@LINE-1]]:5: note: 'decay()' issues 3 LibTorch operations on the GPU here
  }
}

// Still quiet: dynamic shapes (with a sync: not worth fixing the sync
// alone), too few launches, timing harnesses.
void growing(float *Data, int Iters) {
  for (int I = 1; I < Iters; ++I) {
    for (int K = 0; K < 4; ++K)
      scale<<<I, 256>>>(Data, 256 * I);
    cudaDeviceSynchronize();
  }
}

void threeKernels(float *Data, int N, int Iters) {
  for (int I = 0; I < Iters; ++I) {
    for (int K = 0; K < 3; ++K)
      scale<<<N / 256, 256>>>(Data, N);
    cudaDeviceSynchronize();
  }
}

void timed(float *Data, int N, cudaEvent_t Start, cudaEvent_t Stop) {
  cudaEventRecord(Start);
  for (int I = 0; I < 100; ++I) {
    for (int K = 0; K < 4; ++K)
      scale<<<N / 256, 256>>>(Data, N);
    cudaDeviceSynchronize();
  }
  cudaEventRecord(Stop);
}
