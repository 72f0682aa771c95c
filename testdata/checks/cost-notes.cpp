// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop,xfer-copy-in-loop,xfer-create-on-device,xfer-pageable-async-copy
// XFER-COST-MODEL: test-subset-h200.json
// Each warning cites the measured cost: the operation's latency (by payload
// size when it is a constant), the lost overlap for host-blocking operations
// in loops (from the loop's estimated launch work), and the total when the
// trip count is known.
#include <cuda_runtime.h>
#include <torch/torch.h>
#include <vector>

void kernelStep(float *Data);

void readEveryIteration(torch::Tensor W) {
  auto G = W.cuda();
  for (int I = 0; I < 1000; ++I) {
    auto Loss = G.matmul(G).mean();
    (void)Loss.item<float>();
    // XFER-WARNING: :[[@LINE-1]]:16: warning: 'item<float>()' synchronizes with the GPU on each of 1000 iterations of the loop at line 16: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    // XFER-NOTE: :[[@LINE-3]]:16: note: measured cost: 9.16 µs per call + 8.5 µs of lost CPU/GPU overlap per iteration, ≈ 17.7 ms over 1000 executions (measured on NVIDIA H200, driver 580.159.04, CUDA 13.0, LibTorch 2.11.0, measured 2026-11-22)
  }
}

void enqueueWork(float *); void copyBack(float *Device, int Iters) {
  float Host[256];
  for (int I = 0; I < Iters; ++I) { enqueueWork(Device);
    cudaMemcpy(Host, Device, sizeof(Host), cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 27: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    // XFER-NOTE: :[[@LINE-3]]:5: note: measured cost: 7.40 µs per call (measured on NVIDIA H200, driver 580.159.04, CUDA 13.0, LibTorch 2.11.0, measured 2026-11-22)
  }
}

void createInLoop() {
  for (int I = 0; I < 100; ++I) {
    auto X = torch::randn({1000, 2}).to(torch::kCUDA);
    // XFER-WARNING: :[[@LINE-1]]:38: warning: tensor created on the host by 'torch::randn()' is copied to the GPU by 'to()' on each of 100 iterations of the loop at line 36; pass the device to the factory to create it there directly [xfer-create-on-device]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    // XFER-NOTE: :[[@LINE-3]]:38: note: measured cost: 7.10 µs per call + 8.5 µs of lost CPU/GPU overlap per iteration, ≈ 1.6 ms over 100 executions (measured on NVIDIA H200, driver 580.159.04, CUDA 13.0, LibTorch 2.11.0, measured 2026-11-22)
    (void)X;
  }
}

void pageableAsync(float *Device, cudaStream_t Stream) {
  std::vector<float> Staging(1 << 18);
  cudaMemcpyAsync(Device, Staging.data(), 1 << 20, cudaMemcpyHostToDevice,
                  Stream);
  // XFER-WARNING: :[[@LINE-2]]:3: warning: 'cudaMemcpyAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-4]]:22: note: pageable host memory: the storage of a std::vector
  // XFER-NOTE: :[[@LINE-4]]:3: note: measured cost: 121.72 µs per call (measured on NVIDIA H200, driver 580.159.04, CUDA 13.0, LibTorch 2.11.0, measured 2026-11-22)
}
