// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-copy-in-loop
#include <cuda_runtime.h>
#include <torch/torch.h>
#include <vector>

// Device-to-host copies on every iteration.
void readbacks(torch::Tensor Weights, int Iters) {
  auto W = Weights.cuda();
  torch::Device Host("cpu");
  torch::Device Cpu = torch::kCPU;
  auto HostBuffer = torch::zeros({4, 1});
  for (int I = 0; I < Iters; ++I) {
    auto A = W.cpu();
    // XFER-WARNING: :[[@LINE-1]]:16: warning: 'cpu()' copies device memory to the host on every iteration of the loop at line 13: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    auto B = W.to(torch::kCPU);
    // XFER-WARNING: :[[@LINE-1]]:16: warning: 'to(cpu)' copies device memory to the host on every iteration of the loop at line 13: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-6]]:3: note: loop starts here
    auto C = W.to(torch::Device("cpu"));
    // XFER-WARNING: :[[@LINE-1]]:16: warning: 'to(cpu)' copies device memory to the host on every iteration of the loop at line 13: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-9]]:3: note: loop starts here
    auto D = W.to(Host);
    // XFER-WARNING: :[[@LINE-1]]:16: warning: 'to(cpu)' copies device memory to the host on every iteration of the loop at line 13: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-12]]:3: note: loop starts here
    auto E = W.to(Cpu);
    // XFER-WARNING: :[[@LINE-1]]:16: warning: 'to(cpu)' copies device memory to the host on every iteration of the loop at line 13: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-15]]:3: note: loop starts here
    HostBuffer.copy_(W);
    // XFER-WARNING: :[[@LINE-1]]:16: warning: 'copy_()' copies device memory to the host on every iteration of the loop at line 13: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-18]]:3: note: loop starts here
    // Negatives: moves that stay on the device, dtype-only conversions,
    // copies between device tensors, and host tensors going to the host.
    auto F = W.to(torch::kFloat);
    auto G = W.to(W);
    W.copy_(W);
    auto H = HostBuffer.cpu();
    auto J = HostBuffer.to(torch::kCPU);
    (void)A, (void)B, (void)C, (void)D, (void)E, (void)F, (void)G, (void)H,
        (void)J;
  }
}

void enqueueWork(float *); void cudaReadbacks(float *DeviceData, float *Host, size_t Bytes, int Iters) {
  float *Device = nullptr;
  cudaMalloc((void **)&Device, Bytes);
  float Pinned[4];
  for (int I = 0; I < Iters; ++I) { enqueueWork(Device);
    cudaMemcpy(Host, Device, Bytes, cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 48: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    cudaMemcpy2D(Host, 16, Device, 16, 16, 4, cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy2D' copies device memory to the host on every iteration of the loop at line 48: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-6]]:3: note: loop starts here
    cudaMemcpyFromSymbol(Host, DeviceData, 16);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpyFromSymbol' copies device memory to the host on every iteration of the loop at line 48: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-9]]:3: note: loop starts here
    cudaMemcpy(Pinned, Device, 16, cudaMemcpyDefault);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 48: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-12]]:3: note: loop starts here
    // Negatives: device-to-device, and a direction cudaMemcpyDefault
    // leaves unknown.
    cudaMemcpy(DeviceData, Device, Bytes, cudaMemcpyDeviceToDevice);
    cudaMemcpy(Host, DeviceData, Bytes, cudaMemcpyDefault);
  }
  // Once, after the loop: the fix.
  cudaMemcpy(Host, Device, Bytes, cudaMemcpyDeviceToHost);
}

// Host-to-device copies whose source does not change in the loop could be
// done once; a new batch every iteration is necessary and never reported.
void uploads(const std::vector<torch::Tensor> &Loader, float *HostTable,
             float *Scratch, int Iters) {
  float *Device = nullptr;
  cudaMalloc((void **)&Device, 4096);
  torch::Tensor Weights = torch::randn({4, 4});
  torch::Tensor Running = torch::zeros({4});
  for (int I = 0; I < Iters; ++I) {
    auto W = Weights.to(torch::kCUDA);
    // XFER-WARNING: :[[@LINE-1]]:22: warning: 'to(cuda)' copies 'Weights' to the GPU on every iteration of the loop at line 78, but 'Weights' does not change inside the loop: copy it once before the loop [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    cudaMemcpy(Device, HostTable, 4096, cudaMemcpyHostToDevice);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies 'HostTable' to the GPU on every iteration of the loop at line 78, but 'HostTable' does not change inside the loop: copy it once before the loop [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-6]]:3: note: loop starts here
    // Negatives: the source changes in the loop.
    Scratch[0] = static_cast<float>(I);
    cudaMemcpy(Device, Scratch, 4096, cudaMemcpyHostToDevice);
    Running.add_(W.cpu());
    // XFER-WARNING: :[[@LINE-1]]:20: warning: 'cpu()' copies device memory to the host on every iteration of the loop at line 78: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :78:3: note: loop starts here
    auto R = Running.cuda();
    auto Fresh = torch::randn({4}).cuda(); // a new tensor: not hoistable here
    (void)R, (void)Fresh;
  }
  for (const auto &Batch : Loader) {
    auto B = Batch.to(torch::kCUDA); // a new batch each iteration
    (void)B;
  }
}

// A flag or counter uploaded from the same host value on every iteration
// (a reset of what a kernel changes): set it on the device instead. A value
// the loop changes is a new upload each time.
void nextLevel(bool *Done, int *Count); // launches a kernel

void resetFlags(bool *DeviceDone, int *DeviceCount, int Levels) {
  const bool True = true;
  int Zero = 0;
  int Level = 0;
  for (int I = 0; I < Levels; ++I) {
    cudaMemcpy(DeviceDone, &True, sizeof(bool), cudaMemcpyHostToDevice);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies 'True' to the GPU on every iteration of the loop at line 110, but 'True' does not change inside the loop: copy it once before the loop, or, where the device changes its copy, reset that on the device (cudaMemsetAsync or a kernel) [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    cudaMemcpy(DeviceCount, &Zero, sizeof(int), cudaMemcpyHostToDevice);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies 'Zero' to the GPU on every iteration of the loop at line 110, but 'Zero' does not change inside the loop: copy it once before the loop, or, where the device changes its copy, reset that on the device (cudaMemsetAsync or a kernel) [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-6]]:3: note: loop starts here
    ++Level;
    cudaMemcpy(DeviceCount, &Level, sizeof(int), cudaMemcpyHostToDevice);
    nextLevel(DeviceDone, DeviceCount);
  }
}

// A constant global uploaded on every iteration to reset a device counter;
// a global that any call in the loop may change is not known to stay.
const int Zero = 0;
int Level = 0;
void advance(int *Tail);
void levels(int *Tail, int Steps) {
  for (int S = 0; S < Steps; ++S) {
    cudaMemcpy(Tail, &Zero, sizeof(int), cudaMemcpyHostToDevice);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies 'Zero' to the GPU on every iteration of the loop at line 129, but 'Zero' does not change inside the loop: copy it once before the loop, or, where the device changes its copy, reset that on the device (cudaMemsetAsync or a kernel) [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    cudaMemcpy(Tail + 1, &Level, sizeof(int), cudaMemcpyHostToDevice);
    advance(Tail);
  }
}

// A tensor that wraps a host buffer (from_blob) changes when the loop writes
// the buffer, although the tensor variable is never assigned there: each
// generated token goes back into the buffer the next upload reads. A
// wrapped buffer the loop leaves alone is uploaded unchanged.
void generate(torch::nn::Linear &Net, int *Tokens, float *Scale, int Length) {
  torch::Tensor X = torch::from_blob(Tokens, {1, Length}, torch::kLong);
  torch::Tensor S;
  S = torch::from_blob(Scale, {1, Length});
  for (int T = 1; T < Length; ++T) {
    auto Logits = Net(X.to(torch::kCUDA).to(torch::kFloat));
    auto Scaled = S.to(torch::kCUDA);
    // XFER-WARNING: :[[@LINE-1]]:21: warning: 'to(cuda)' copies 'S' to the GPU on every iteration of the loop at line 146, but 'S' does not change inside the loop: copy it once before the loop [xfer-copy-in-loop]
    // XFER-NOTE: :146:3: note: loop starts here
    Tokens[T] = (Logits * Scaled).sum().item<int>();
  }
}

// The same with the prompt in an array: each token written changes it.
void generateFromArray(torch::nn::Linear &Net, int Length) {
  int Prompt[64] = {};
  torch::Tensor X = torch::from_blob(Prompt, {1, 64}, torch::kLong);
  for (int T = 1; T < Length && T < 64; ++T)
    Prompt[T] = Net(X.to(torch::kCUDA).to(torch::kFloat)).sum().item<int>();
}
