// A CUDA program that reads a result back with cudaMemcpy on every
// iteration and allocates scratch memory inside the loop. xfer-tidy flags
// the per-iteration copy and the synchronizing allocation calls.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void relax(float *Values, float *Residual, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N) {
    float Old = Values[I];
    Values[I] = 0.5f * (Old + __ldcs(&Values[(I + 1) % N]));
    atomicAdd(Residual, fabsf(Values[I] - Old));
  }
}

int main() {
  const int N = 1 << 20;
  float *Values = nullptr, *Residual = nullptr;
  cudaMalloc(&Values, N * sizeof(float));
  cudaMalloc(&Residual, sizeof(float));
  cudaMemset(Values, 0, N * sizeof(float));
  float HostResidual = 0.0f;
  for (int Step = 0; Step < 500; ++Step) {
    float *Scratch = nullptr;
    cudaMalloc(&Scratch, N * sizeof(float));
    cudaMemset(Residual, 0, sizeof(float));
    relax<<<(N + 255) / 256, 256>>>(Values, Residual, N);
    cudaMemcpy(&HostResidual, Residual, sizeof(float), cudaMemcpyDeviceToHost);
    cudaFree(Scratch);
    if (HostResidual < 1e-6f)
      break;
  }
  std::printf("residual %g\n", HostResidual);
  cudaFree(Values);
  cudaFree(Residual);
}
