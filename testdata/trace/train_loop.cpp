// Input of TraceJoinTest: findings joined with train_loop.trace.json.
#include <cuda_runtime.h>
#include <torch/torch.h>

void train(torch::Tensor W, int Steps) {
  auto G = W.cuda();
  for (int I = 0; I < Steps; ++I) {
    auto X = torch::randn({1000, 2}).to(torch::kCUDA);
    auto Loss = G.matmul(X).mean();
    (void)Loss.item<float>();
    if (Loss.defined())
      (void)Loss.cpu();
  }
}

float readBack(const float *Device) {
  float Host = 0;
  cudaMemcpy(&Host, Device, sizeof(Host), cudaMemcpyDeviceToHost);
  return Host;
}
