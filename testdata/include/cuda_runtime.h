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
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;
enum cudaStreamCaptureMode {
  cudaStreamCaptureModeGlobal = 0,
  cudaStreamCaptureModeThreadLocal = 1,
  cudaStreamCaptureModeRelaxed = 2
};
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned X = 1, unsigned Y = 1, unsigned Z = 1) : x(X), y(Y), z(Z) {}
};
typedef struct cudaArray *cudaArray_t;
struct cudaPitchedPtr {
  void *ptr;
  size_t pitch;
  size_t xsize;
  size_t ysize;
};
struct cudaExtent {
  size_t width;
  size_t height;
  size_t depth;
};
struct cudaPos {
  size_t x;
  size_t y;
  size_t z;
};
struct cudaMemcpy3DParms {
  cudaArray_t srcArray;
  struct cudaPos srcPos;
  struct cudaPitchedPtr srcPtr;
  cudaArray_t dstArray;
  struct cudaPos dstPos;
  struct cudaPitchedPtr dstPtr;
  struct cudaExtent extent;
  enum cudaMemcpyKind kind;
};
#define cudaHostAllocDefault 0x00
#define cudaHostRegisterDefault 0x00
#define cudaMemAttachGlobal 0x01

extern "C" {
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaThreadSynchronize(void);
cudaError_t cudaStreamSynchronize(cudaStream_t Stream);
cudaError_t cudaStreamCreate(cudaStream_t *Stream);
cudaError_t cudaStreamDestroy(cudaStream_t Stream);
cudaError_t cudaEventCreate(cudaEvent_t *Event);
cudaError_t cudaEventSynchronize(cudaEvent_t Event);
cudaError_t cudaEventElapsedTime(float *Ms, cudaEvent_t Start, cudaEvent_t End);
const char *cudaGetErrorString(cudaError_t Error);
cudaError_t cudaGetLastError();
cudaError_t cudaEventRecord(cudaEvent_t Event, cudaStream_t Stream = 0);
cudaError_t cudaMalloc(void **DevPtr, size_t Size);
cudaError_t cudaMallocHost(void **Ptr, size_t Size);
cudaError_t cudaHostAlloc(void **Ptr, size_t Size, unsigned Flags);
cudaError_t cudaHostRegister(void *Ptr, size_t Size, unsigned Flags);
cudaError_t cudaMallocManaged(void **DevPtr, size_t Size,
                              unsigned Flags = cudaMemAttachGlobal);
cudaError_t cudaFree(void *DevPtr);
cudaError_t cudaFreeHost(void *Ptr);
struct cudaChannelFormatDesc {
  int x, y, z, w;
  int f;
};
cudaError_t cudaMallocPitch(void **DevPtr, size_t *Pitch, size_t Width,
                            size_t Height);
cudaError_t cudaMallocArray(cudaArray_t *Array,
                            const struct cudaChannelFormatDesc *Desc,
                            size_t Width, size_t Height = 0,
                            unsigned Flags = 0);
cudaError_t cudaFreeArray(cudaArray_t Array);
cudaError_t cudaMemcpyToArray(cudaArray_t Dst, size_t WOffset, size_t HOffset,
                              const void *Src, size_t Count,
                              enum cudaMemcpyKind Kind);
cudaError_t cudaMemcpy2DToArray(cudaArray_t Dst, size_t WOffset,
                                size_t HOffset, const void *Src, size_t SPitch,
                                size_t Width, size_t Height,
                                enum cudaMemcpyKind Kind);
cudaError_t cudaMemcpyFromArray(void *Dst, cudaArray_t Src, size_t WOffset,
                                size_t HOffset, size_t Count,
                                enum cudaMemcpyKind Kind);
cudaError_t cudaMemcpy2DFromArray(void *Dst, size_t DPitch, cudaArray_t Src,
                                  size_t WOffset, size_t HOffset, size_t Width,
                                  size_t Height, enum cudaMemcpyKind Kind);
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
cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *P,
                              cudaStream_t Stream = 0);
cudaError_t cudaMemcpyPeerAsync(void *Dst, int DstDevice, const void *Src,
                                int SrcDevice, size_t Count,
                                cudaStream_t Stream = 0);
cudaError_t cudaHostUnregister(void *Ptr);
cudaError_t cudaGetSymbolAddress(void **DevPtr, const void *Symbol);
cudaError_t cudaMemcpyFromSymbol(void *Dst, const void *Symbol, size_t Count,
                                 size_t Offset = 0,
                                 enum cudaMemcpyKind Kind =
                                     cudaMemcpyDeviceToHost);
cudaError_t cudaMemcpyToSymbol(const void *Symbol, const void *Src,
                               size_t Count, size_t Offset = 0,
                               enum cudaMemcpyKind Kind =
                                   cudaMemcpyHostToDevice);
cudaError_t cudaMemcpyToSymbolAsync(const void *Symbol, const void *Src,
                                    size_t Count, size_t Offset = 0,
                                    enum cudaMemcpyKind Kind =
                                        cudaMemcpyHostToDevice,
                                    cudaStream_t Stream = 0);
cudaError_t cudaMemcpyFromSymbolAsync(void *Dst, const void *Symbol,
                                      size_t Count, size_t Offset = 0,
                                      enum cudaMemcpyKind Kind =
                                          cudaMemcpyDeviceToHost,
                                      cudaStream_t Stream = 0);
cudaError_t cudaMemset(void *DevPtr, int Value, size_t Count);
cudaError_t cudaMemsetAsync(void *DevPtr, int Value, size_t Count,
                            cudaStream_t Stream = 0);
cudaError_t cudaLaunchKernel(const void *Func, dim3 Grid, dim3 Block,
                             void **Args, size_t SharedMem,
                             cudaStream_t Stream);
cudaError_t cudaStreamBeginCapture(cudaStream_t Stream,
                                   enum cudaStreamCaptureMode Mode);
cudaError_t cudaStreamEndCapture(cudaStream_t Stream, cudaGraph_t *Graph);
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *Exec, cudaGraph_t Graph,
                                 unsigned long long Flags = 0);
cudaError_t cudaGraphLaunch(cudaGraphExec_t Exec, cudaStream_t Stream);
}

// driver_functions.h
static inline struct cudaPitchedPtr make_cudaPitchedPtr(void *D, size_t P,
                                                        size_t XSize,
                                                        size_t YSize) {
  struct cudaPitchedPtr S;
  S.ptr = D;
  S.pitch = P;
  S.xsize = XSize;
  S.ysize = YSize;
  return S;
}
static inline struct cudaExtent make_cudaExtent(size_t W, size_t H, size_t D) {
  struct cudaExtent E;
  E.width = W;
  E.height = H;
  E.depth = D;
  return E;
}

#ifdef __CUDA__
// Without the CUDA headers (-nocudainc), as crt/host_defines.h spells them,
// and the launch configuration hook clang's <<<...>>> lowers to.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
// As in the toolkit's host_defines.h; clang keeps the attribute for HIP only.
#define __managed__ __attribute__((managed))
#define __host__ __attribute__((host))
extern "C" unsigned __cudaPushCallConfiguration(dim3 GridDim, dim3 BlockDim,
                                                size_t SharedMem = 0,
                                                cudaStream_t Stream = 0);
#endif
