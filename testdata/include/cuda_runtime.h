// Minimal stand-in for the CUDA runtime API declarations the checks match
// (cuda_runtime_api.h, driver_types.h). Real-toolkit parsing is tested
// separately.
#pragma once
#include <cstddef>

enum cudaError { cudaSuccess = 0, cudaErrorInvalidValue = 1 };
typedef enum cudaError cudaError_t;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned X = 1, unsigned Y = 1, unsigned Z = 1) : x(X), y(Y), z(Z) {}
};
#define cudaHostAllocDefault 0x00
#define cudaHostRegisterDefault 0x00
#define cudaMemAttachGlobal 0x01

extern "C" {
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaThreadSynchronize(void);
cudaError_t cudaStreamSynchronize(cudaStream_t Stream);
cudaError_t cudaEventSynchronize(cudaEvent_t Event);
cudaError_t cudaEventRecord(cudaEvent_t Event, cudaStream_t Stream = 0);
cudaError_t cudaMalloc(void **DevPtr, size_t Size);
cudaError_t cudaMallocHost(void **Ptr, size_t Size);
cudaError_t cudaHostAlloc(void **Ptr, size_t Size, unsigned Flags);
cudaError_t cudaHostRegister(void *Ptr, size_t Size, unsigned Flags);
cudaError_t cudaMallocManaged(void **DevPtr, size_t Size,
                              unsigned Flags = cudaMemAttachGlobal);
cudaError_t cudaFree(void *DevPtr);
cudaError_t cudaFreeHost(void *Ptr);
cudaError_t cudaMemcpy(void *Dst, const void *Src, size_t Count,
                       enum cudaMemcpyKind Kind);
cudaError_t cudaMemcpyAsync(void *Dst, const void *Src, size_t Count,
                            enum cudaMemcpyKind Kind,
                            cudaStream_t Stream = 0);
cudaError_t cudaMemcpy2D(void *Dst, size_t DPitch, const void *Src,
                         size_t SPitch, size_t Width, size_t Height,
                         enum cudaMemcpyKind Kind);
cudaError_t cudaMemcpy2DAsync(void *Dst, size_t DPitch, const void *Src,
                              size_t SPitch, size_t Width, size_t Height,
                              enum cudaMemcpyKind Kind,
                              cudaStream_t Stream = 0);
cudaError_t cudaMemcpyFromSymbol(void *Dst, const void *Symbol, size_t Count,
                                 size_t Offset = 0,
                                 enum cudaMemcpyKind Kind =
                                     cudaMemcpyDeviceToHost);
cudaError_t cudaMemcpyToSymbol(const void *Symbol, const void *Src,
                               size_t Count, size_t Offset = 0,
                               enum cudaMemcpyKind Kind =
                                   cudaMemcpyHostToDevice);
cudaError_t cudaMemset(void *DevPtr, int Value, size_t Count);
cudaError_t cudaLaunchKernel(const void *Func, dim3 Grid, dim3 Block,
                             void **Args, size_t SharedMem,
                             cudaStream_t Stream);
}

#ifdef __CUDA__
// Without the CUDA headers (-nocudainc), as crt/host_defines.h spells them,
// and the launch configuration hook clang's <<<...>>> lowers to.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
extern "C" unsigned __cudaPushCallConfiguration(dim3 GridDim, dim3 BlockDim,
                                                size_t SharedMem = 0,
                                                cudaStream_t Stream = 0);
#endif
