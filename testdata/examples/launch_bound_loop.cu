// A loop that launches 16 small kernels per iteration: launch-bound.
#include <cuda_runtime.h>
__global__ void axpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
void run(float *dy, const float *dx, int n, cudaStream_t s) {
  for (int it = 0; it < 1000; ++it) {
    for (int k = 0; k < 16; ++k)
      axpy<<<(n + 255) / 256, 256, 0, s>>>(dy, dx, 0.5f, n);
  }
}
