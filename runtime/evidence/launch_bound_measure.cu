// Eager launches against one CUDA graph replay per iteration, for the loop
// in launch_bound_loop.cu: 16 axpy launches per iteration.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#define CHECK(call)                                                           \
  do {                                                                        \
    cudaError_t e = (call);                                                   \
    if (e != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,      \
                   cudaGetErrorString(e));                                    \
      std::exit(2);                                                           \
    }                                                                         \
  } while (0)
__global__ void axpy(float *y, const float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
static void iteration(float *dy, const float *dx, int n, cudaStream_t s) {
  for (int k = 0; k < 16; ++k)
    axpy<<<(n + 255) / 256, 256, 0, s>>>(dy, dx, 0.5f, n);
}
int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  const int iters = 1000, reps = 7;
  int dev = 0, driver = 0;
  cudaDeviceProp prop;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaGetDeviceProperties(&prop, dev));
  CHECK(cudaDriverGetVersion(&driver));
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMemset(dx, 0, n * sizeof(float)));
  CHECK(cudaMemset(dy, 0, n * sizeof(float)));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  iteration(dy, dx, n, s);
  CHECK(cudaStreamEndCapture(s, &graph));
  CHECK(cudaGraphInstantiate(&exec, graph, 0));
  double eager[reps], replay[reps];
  for (int r = 0; r < reps + 1; ++r) { // the first round warms up
    CHECK(cudaStreamSynchronize(s));
    auto t0 = std::chrono::steady_clock::now();
    for (int it = 0; it < iters; ++it)
      iteration(dy, dx, n, s);
    CHECK(cudaGetLastError());
    CHECK(cudaStreamSynchronize(s));
    auto t1 = std::chrono::steady_clock::now();
    for (int it = 0; it < iters; ++it)
      CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    auto t2 = std::chrono::steady_clock::now();
    if (r > 0) {
      eager[r - 1] = std::chrono::duration<double, std::micro>(t1 - t0).count() / iters;
      replay[r - 1] = std::chrono::duration<double, std::micro>(t2 - t1).count() / iters;
    }
  }
  auto median = [](double *v, int k) {
    for (int i = 0; i < k; ++i)
      for (int j = i + 1; j < k; ++j)
        if (v[j] < v[i]) { double t = v[i]; v[i] = v[j]; v[j] = t; }
    return v[k / 2];
  };
  double e = median(eager, reps), g = median(replay, reps);
  std::printf("device=%s driver=%d n=%d launches/iter=16 iters=%d reps=%d\n",
              prop.name, driver, n, iters, reps);
  std::printf("eager_us_per_iter=%.2f replay_us_per_iter=%.2f saving_us_per_iter=%.2f saving_us_per_launch=%.3f\n",
              e, g, e - g, (e - g) / 16);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  return 0;
}
