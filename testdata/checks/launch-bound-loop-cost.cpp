// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-launch-bound-loop
// XFER-COST-MODEL: test-subset-h200.json
// The cost note: the measured per-kernel saving of a graph replay over
// eager launches (cuda.graph.eager_per_kernel - cuda.graph.replay_per_kernel)
// times the launches of an iteration, and times the iterations when every
// trip count is a constant.
#include <cuda_runtime.h>

__global__ void scale(float *Data, int N);

void known(float *Data, int N) {
  for (int I = 0; I < 1000; ++I) {
    // XFER-WARNING: :[[@LINE-1]]:3: warning: loop is launch-bound: each iteration launches 10 kernels with fixed shapes and no synchronization, host<->device copy, allocation or branch on a device result; capture one iteration into a CUDA graph with cudaStreamBeginCapture/cudaStreamEndCapture and replay it with cudaGraphLaunch [xfer-launch-bound-loop]
    // XFER-NOTE: :[[@LINE-2]]:3: note: measured cost: 3.09 µs per launch (eager launch minus graph replay) × 10 launches = 30.94 µs per iteration, ≈ 30.9 ms over 1000 iterations (measured on NVIDIA H200, driver 580.159.04, CUDA 13.0, LibTorch 2.11.0, measured 2026-11-22)
    for (int K = 0; K < 10; ++K)
      scale<<<N / 256, 256>>>(Data, N);
    // XFER-NOTE: :[[@LINE-1]]:7: note: kernel 'scale' is launched here, 10 times per iteration
  }
}

void nested(float *Data, int N) {
  for (int Epoch = 0; Epoch < 10; ++Epoch)
    for (int Batch = 0; Batch < 50; ++Batch) {
      // XFER-WARNING: :[[@LINE-1]]:5: warning: loop is launch-bound: each iteration launches 8 kernels with fixed shapes and no synchronization, host<->device copy, allocation or branch on a device result; capture one iteration into a CUDA graph with cudaStreamBeginCapture/cudaStreamEndCapture and replay it with cudaGraphLaunch [xfer-launch-bound-loop]
      // XFER-NOTE: :[[@LINE-2]]:5: note: measured cost: 3.09 µs per launch (eager launch minus graph replay) × 8 launches = 24.75 µs per iteration, ≈ 12.4 ms over 500 iterations (measured on NVIDIA H200, driver 580.159.04, CUDA 13.0, LibTorch 2.11.0, measured 2026-11-22)
      for (int K = 0; K < 8; ++K)
        scale<<<N / 256, 256>>>(Data, N);
      // XFER-NOTE: :[[@LINE-1]]:9: note: kernel 'scale' is launched here, 8 times per iteration
    }
}

void unknown(float *Data, int N, int Iters) {
  for (int I = 0; I < Iters; ++I) {
    // XFER-WARNING: :[[@LINE-1]]:3: warning: loop is launch-bound: each iteration launches 8 kernels with fixed shapes and no synchronization, host<->device copy, allocation or branch on a device result; capture one iteration into a CUDA graph with cudaStreamBeginCapture/cudaStreamEndCapture and replay it with cudaGraphLaunch [xfer-launch-bound-loop]
    // XFER-NOTE: :[[@LINE-2]]:3: note: measured cost: 3.09 µs per launch (eager launch minus graph replay) × 8 launches = 24.75 µs per iteration (measured on NVIDIA H200, driver 580.159.04, CUDA 13.0, LibTorch 2.11.0, measured 2026-11-22)
    for (int K = 0; K < 8; ++K)
      scale<<<N / 256, 256>>>(Data, N);
    // XFER-NOTE: :[[@LINE-1]]:7: note: kernel 'scale' is launched here, 8 times per iteration
  }
}
