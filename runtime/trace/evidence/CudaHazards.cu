//===- CudaHazards.cu - Evidence programs: CUDA loops with hazards --------===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//
//
//   cuda-hazards readback|multi measure|trace <rounds> <iterations>
//
// readback: the CUDA reference loop (three relaxation kernels, then a 4-byte
// cudaMemcpy of the residual every iteration; fix: every 100).
// multi: five hazards of different sizes in one loop, each fixable alone.
//
//===----------------------------------------------------------------------===//

#include "EvidenceTiming.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(Call)                                                            \
  do {                                                                         \
    cudaError_t Status = (Call);                                               \
    if (Status != cudaSuccess) {                                               \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #Call,       \
                   cudaGetErrorString(Status));                                \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

namespace {

__global__ void relax(float *X, const float *B, int N) {
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < N;
       I += gridDim.x * blockDim.x)
    X[I] += 0.001f * (B[I] - X[I]);
}

__global__ void residual(const float *X, const float *B, int N, float *Out) {
  __shared__ float Partial[256];
  float Sum = 0;
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < N;
       I += gridDim.x * blockDim.x)
    Sum += fabsf(B[I] - X[I]);
  Partial[threadIdx.x] = Sum;
  __syncthreads();
  for (int S = 128; S > 0; S /= 2) {
    if (threadIdx.x < S)
      Partial[threadIdx.x] += Partial[threadIdx.x + S];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(Out, Partial[0]);
}

__global__ void scale(float *X, float Factor, int N) {
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < N;
       I += gridDim.x * blockDim.x)
    X[I] = X[I] * Factor + 1e-7f;
}

struct Buffers {
  int N = 1 << 20;
  float *X = nullptr, *B = nullptr, *Residual = nullptr, *Big = nullptr;
  float *HostBig = nullptr;           // pageable, 4 MiB
  std::vector<float> HostParameters;  // pageable, 1 MiB, never changes
  float *Parameters = nullptr;
};

Buffers makeBuffers() {
  Buffers Buf;
  CHECK(cudaMalloc(&Buf.X, Buf.N * sizeof(float)));
  CHECK(cudaMalloc(&Buf.B, Buf.N * sizeof(float)));
  CHECK(cudaMalloc(&Buf.Residual, sizeof(float)));
  CHECK(cudaMalloc(&Buf.Big, Buf.N * sizeof(float)));
  CHECK(cudaMalloc(&Buf.Parameters, (Buf.N / 4) * sizeof(float)));
  CHECK(cudaMemset(Buf.X, 0, Buf.N * sizeof(float)));
  CHECK(cudaMemset(Buf.B, 0, Buf.N * sizeof(float)));
  CHECK(cudaMemset(Buf.Big, 0, Buf.N * sizeof(float)));
  Buf.HostBig = static_cast<float *>(std::malloc(Buf.N * sizeof(float)));
  Buf.HostParameters.assign(Buf.N / 4, 0.5f);
  CHECK(cudaDeviceSynchronize());
  return Buf;
}

void step(const Buffers &Buf) {
  relax<<<1024, 256>>>(Buf.X, Buf.B, Buf.N);
  CHECK(cudaGetLastError());
  CHECK(cudaMemsetAsync(Buf.Residual, 0, sizeof(float)));
  residual<<<256, 256>>>(Buf.X, Buf.B, Buf.N, Buf.Residual);
  CHECK(cudaGetLastError());
}

/// The readback reference loop; FixEvery is 1 for the hazard.
void readbackLoop(const Buffers &Buf, int Iterations, int Every) {
  float Residual = 0;
  for (int I = 0; I < Iterations; ++I) {
    step(Buf);
    if ((I + 1) % Every == 0)
      CHECK(cudaMemcpy(&Residual, Buf.Residual, sizeof(float), cudaMemcpyDeviceToHost)); // site: readback
  }
  CHECK(cudaDeviceSynchronize());
}

enum MultiFix { None = 0, Readback = 1, BigCopy = 2, Sync = 4, Alloc = 8, Upload = 16 };

/// Five hazards: a 4-byte readback, a 4 MiB readback into pageable memory,
/// a device-wide synchronization, a per-iteration allocation, and an
/// upload of host data that never changes.
void multiLoop(const Buffers &Buf, int Iterations, int Fixed) {
  float Residual = 0;
  float *Scratch = nullptr;
  if (Fixed & Alloc)
    CHECK(cudaMalloc(&Scratch, Buf.N * sizeof(float)));
  if (Fixed & Upload)
    CHECK(cudaMemcpy(Buf.Parameters, Buf.HostParameters.data(), Buf.HostParameters.size() * sizeof(float), cudaMemcpyHostToDevice));
  for (int I = 0; I < Iterations; ++I) {
    bool Check = !(Fixed & Readback) || (I + 1) % 100 == 0;
    bool Copy = !(Fixed & BigCopy) || (I + 1) % 100 == 0;
    if (!(Fixed & Upload))
      CHECK(cudaMemcpy(Buf.Parameters, Buf.HostParameters.data(), Buf.HostParameters.size() * sizeof(float), cudaMemcpyHostToDevice)); // site: upload
    if (!(Fixed & Alloc))
      CHECK(cudaMalloc(&Scratch, Buf.N * sizeof(float))); // site: alloc
    step(Buf);
    scale<<<1024, 256>>>(Buf.Big, 0.999f, Buf.N);
    CHECK(cudaGetLastError());
    if (!(Fixed & Sync))
      CHECK(cudaDeviceSynchronize()); // site: sync
    scale<<<1024, 256>>>(Scratch, 1.0f, Buf.N);
    CHECK(cudaGetLastError());
    if (Check)
      CHECK(cudaMemcpy(&Residual, Buf.Residual, sizeof(float), cudaMemcpyDeviceToHost)); // site: readback
    if (Copy)
      CHECK(cudaMemcpy(Buf.HostBig, Buf.Big, Buf.N * sizeof(float), cudaMemcpyDeviceToHost)); // site: big-copy
    if (!(Fixed & Alloc))
      CHECK(cudaFree(Scratch)); // site: alloc
  }
  if (Fixed & Alloc)
    CHECK(cudaFree(Scratch));
  CHECK(cudaDeviceSynchronize());
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc < 2) {
    std::fprintf(stderr, "usage: cuda-hazards readback|multi measure|trace <rounds> <iterations>\n");
    return 2;
  }
  std::string Program = Argv[1];
  Buffers Buf = makeBuffers();
  std::vector<evidence::Variant> Variants;
  if (Program == "readback") {
    Variants = {{"hazard", [&](int N) { readbackLoop(Buf, N, 1); }},
                {"fix:readback", [&](int N) { readbackLoop(Buf, N, 100); }}};
  } else if (Program == "multi") {
    Variants = {{"hazard", [&](int N) { multiLoop(Buf, N, None); }},
                {"fix:readback", [&](int N) { multiLoop(Buf, N, Readback); }},
                {"fix:big-copy", [&](int N) { multiLoop(Buf, N, BigCopy); }},
                {"fix:sync", [&](int N) { multiLoop(Buf, N, Sync); }},
                {"fix:alloc", [&](int N) { multiLoop(Buf, N, Alloc); }},
                {"fix:upload", [&](int N) { multiLoop(Buf, N, Upload); }}};
  } else {
    std::fprintf(stderr, "unknown program %s\n", Program.c_str());
    return 2;
  }
  return evidence::runEvidence("cuda-" + Program, Argc - 1, Argv + 1, Variants);
}
