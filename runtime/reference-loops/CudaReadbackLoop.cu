//===- CudaReadbackLoop.cu - Reference loop: residual readback ------------===//
//
// Part of xfer-tidy.
//
//===----------------------------------------------------------------------===//
//
// A damped relaxation x <- x + Omega * (b - x) with an L1-residual
// convergence test: the usual "iterate until the residual is small" shape.
// Each step is three kernels; the residual is one float on the device.
//
//===----------------------------------------------------------------------===//

#include "reference-loops/CudaReadbackLoop.h"

#include "CudaCheck.h"

#include <cuda_runtime.h>

namespace xferbench {

namespace {
constexpr int ThreadsPerBlock = 256;
constexpr int ResidualBlocks = 256; // Fixed, so the sum's order is fixed.
constexpr float Omega = 0.001f;

__global__ void relaxKernel(float *X, const float *B, int Size) {
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < Size;
       I += gridDim.x * blockDim.x)
    X[I] += Omega * (B[I] - X[I]);
}

__device__ float blockSum(float Value) {
  __shared__ float Partial[ThreadsPerBlock];
  Partial[threadIdx.x] = Value;
  __syncthreads();
  for (int Stride = ThreadsPerBlock / 2; Stride > 0; Stride /= 2) {
    if (threadIdx.x < Stride)
      Partial[threadIdx.x] += Partial[threadIdx.x + Stride];
    __syncthreads();
  }
  return Partial[0];
}

__global__ void partialResidualKernel(const float *X, const float *B, int Size,
                                      float *PartialSums) {
  float Sum = 0;
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < Size;
       I += gridDim.x * blockDim.x)
    Sum += fabsf(B[I] - X[I]);
  float Total = blockSum(Sum);
  if (threadIdx.x == 0)
    PartialSums[blockIdx.x] = Total;
}

__global__ void finalizeResidualKernel(const float *PartialSums, int Count,
                                       float *Residual) {
  float Sum = 0;
  for (int I = threadIdx.x; I < Count; I += blockDim.x)
    Sum += PartialSums[I];
  float Total = blockSum(Sum);
  if (threadIdx.x == 0)
    *Residual = Total;
}

__global__ void fillKernel(float *X, float *B, int Size) {
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < Size;
       I += gridDim.x * blockDim.x) {
    X[I] = 0.0f;
    B[I] = 1.0f + 0.001f * float(I % 1000);
  }
}

int relaxBlocks(int Size) {
  int Blocks = (Size + ThreadsPerBlock - 1) / ThreadsPerBlock;
  return Blocks < 1024 ? Blocks : 1024;
}

void launchRelaxationStep(const RelaxationProblem &Problem) {
  relaxKernel<<<relaxBlocks(Problem.Size), ThreadsPerBlock>>>(
      Problem.DeviceX, Problem.DeviceB, Problem.Size);
  XFER_CUDA_CHECK_LAUNCH();
  partialResidualKernel<<<ResidualBlocks, ThreadsPerBlock>>>(
      Problem.DeviceX, Problem.DeviceB, Problem.Size,
      Problem.DevicePartialSums);
  XFER_CUDA_CHECK_LAUNCH();
  finalizeResidualKernel<<<1, ThreadsPerBlock>>>(
      Problem.DevicePartialSums, ResidualBlocks, Problem.DeviceResidual);
  XFER_CUDA_CHECK_LAUNCH();
}
} // namespace

RelaxationProblem createRelaxationProblem(int Size) {
  RelaxationProblem Problem;
  Problem.Size = Size;
  XFER_CUDA_CHECK(cudaMalloc(&Problem.DeviceX, Size * sizeof(float)));
  XFER_CUDA_CHECK(cudaMalloc(&Problem.DeviceB, Size * sizeof(float)));
  XFER_CUDA_CHECK(
      cudaMalloc(&Problem.DevicePartialSums, ResidualBlocks * sizeof(float)));
  XFER_CUDA_CHECK(cudaMalloc(&Problem.DeviceResidual, sizeof(float)));
  resetRelaxationProblem(Problem);
  return Problem;
}

void destroyRelaxationProblem(RelaxationProblem &Problem) {
  XFER_CUDA_CHECK(cudaFree(Problem.DeviceX));
  XFER_CUDA_CHECK(cudaFree(Problem.DeviceB));
  XFER_CUDA_CHECK(cudaFree(Problem.DevicePartialSums));
  XFER_CUDA_CHECK(cudaFree(Problem.DeviceResidual));
  Problem = RelaxationProblem();
}

void resetRelaxationProblem(const RelaxationProblem &Problem) {
  fillKernel<<<relaxBlocks(Problem.Size), ThreadsPerBlock>>>(
      Problem.DeviceX, Problem.DeviceB, Problem.Size);
  XFER_CUDA_CHECK_LAUNCH();
  XFER_CUDA_CHECK(cudaDeviceSynchronize());
}

std::vector<float> readSolution(const RelaxationProblem &Problem) {
  std::vector<float> X(Problem.Size);
  XFER_CUDA_CHECK(cudaMemcpy(X.data(), Problem.DeviceX,
                             Problem.Size * sizeof(float),
                             cudaMemcpyDeviceToHost));
  return X;
}

int relaxCheckingEveryIteration(const RelaxationProblem &Problem,
                                int MaxIterations, float Tolerance) {
  for (int Iteration = 0; Iteration < MaxIterations; ++Iteration) {
    launchRelaxationStep(Problem);
    float Residual = 0;
    XFER_CUDA_CHECK(cudaMemcpy(&Residual, Problem.DeviceResidual, sizeof(float),
                               cudaMemcpyDeviceToHost));
    if (Residual < Tolerance)
      return Iteration + 1;
  }
  return MaxIterations;
}

int relaxCheckingEvery(const RelaxationProblem &Problem, int MaxIterations,
                       float Tolerance, int CheckInterval) {
  for (int Iteration = 0; Iteration < MaxIterations; ++Iteration) {
    launchRelaxationStep(Problem);
    if ((Iteration + 1) % CheckInterval != 0)
      continue;
    float Residual = 0;
    XFER_CUDA_CHECK(cudaMemcpy(&Residual, Problem.DeviceResidual, sizeof(float),
                               cudaMemcpyDeviceToHost));
    if (Residual < Tolerance)
      return Iteration + 1;
  }
  return MaxIterations;
}

float relaxThenCheckOnce(const RelaxationProblem &Problem, int Iterations) {
  for (int Iteration = 0; Iteration < Iterations; ++Iteration)
    launchRelaxationStep(Problem);
  float Residual = 0;
  XFER_CUDA_CHECK(cudaMemcpy(&Residual, Problem.DeviceResidual, sizeof(float),
                             cudaMemcpyDeviceToHost));
  return Residual;
}

} // namespace xferbench
