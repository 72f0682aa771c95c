// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-pageable-async-copy
#include <cuda_runtime.h>
#include <cstdlib>
#include <vector>

void pageableSources(float *Dev, size_t N, cudaStream_t S) {
  float *Heap = (float *)malloc(N * sizeof(float));
  cudaMemcpyAsync(Dev, Heap, N * sizeof(float), cudaMemcpyHostToDevice, S);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-3]]:26: note: pageable host memory: allocated on the host by malloc
  cudaMemcpyAsync(Heap, Dev, N * sizeof(float), cudaMemcpyDeviceToHost, S);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies into pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only once the data has reached host memory, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-6]]:26: note: pageable host memory: allocated on the host by malloc
  float *FromNew = new float[N];
  cudaMemcpyAsync(Dev, FromNew, N * sizeof(float), cudaMemcpyHostToDevice, S);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-3]]:20: note: pageable host memory: allocated on the host by new
  std::vector<float> Values(N);
  cudaMemcpyAsync(Values.data(), Dev, N * sizeof(float),
                  cudaMemcpyDeviceToHost, S);
  // XFER-WARNING: :[[@LINE-2]]:3: warning: 'cudaMemcpyAsync' copies into pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only once the data has reached host memory, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-4]]:22: note: pageable host memory: the storage of a std::vector
  float Stack[256];
  cudaMemcpyAsync(Dev, Stack, sizeof(Stack), cudaMemcpyHostToDevice, S);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-3]]:9: note: pageable host memory: the array 'Stack'
  cudaMemcpyAsync(Dev, &Stack[16], 64, cudaMemcpyHostToDevice);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-6]]:9: note: pageable host memory: the array 'Stack'
  cudaMemcpy2DAsync(Dev, 64, Heap, 64, 64, 4, cudaMemcpyHostToDevice, S);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpy2DAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-25]]:26: note: pageable host memory: allocated on the host by malloc
}

// cudaMemcpyDefault: the host side is the pointer known to be on the host,
// when the other one is known to be device memory.
void defaultKind(size_t N) {
  float *Dev = nullptr;
  cudaMalloc((void **)&Dev, N);
  float *Heap = (float *)malloc(N);
  cudaMemcpyAsync(Heap, Dev, N, cudaMemcpyDefault);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies into pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only once the data has reached host memory, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-3]]:26: note: pageable host memory: allocated on the host by malloc
  void *Unknown = nullptr;
  cudaMemcpyAsync(Heap, Unknown, N, cudaMemcpyDefault);
}

void copy3D(float *Dev, size_t N) {
  float *Heap = (float *)malloc(N * N * N * sizeof(float));
  cudaMemcpy3DParms Parms = {};
  Parms.srcPtr = make_cudaPitchedPtr(Heap, N * sizeof(float), N, N);
  Parms.dstPtr = make_cudaPitchedPtr(Dev, N * sizeof(float), N, N);
  Parms.extent = make_cudaExtent(N * sizeof(float), N, N);
  Parms.kind = cudaMemcpyHostToDevice;
  cudaMemcpy3DAsync(&Parms);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpy3DAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-8]]:26: note: pageable host memory: allocated on the host by malloc
  Parms.dstPtr.ptr = Heap;
  Parms.srcPtr.ptr = Dev;
  Parms.kind = cudaMemcpyDeviceToHost;
  cudaMemcpy3DAsync(&Parms);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpy3DAsync' copies into pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only once the data has reached host memory, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-14]]:26: note: pageable host memory: allocated on the host by malloc
}

template <typename T> void upload(T *Dev, size_t N) {
  std::vector<T> Staging(N);
  cudaMemcpyAsync(Dev, Staging.data(), N * sizeof(T), cudaMemcpyHostToDevice);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-3]]:18: note: pageable host memory: the storage of a std::vector
}
template void upload<float>(float *, size_t);
template void upload<int>(int *, size_t);

#define UPLOAD(Dst, Src, Bytes)                                                \
  cudaMemcpyAsync(Dst, Src, Bytes, cudaMemcpyHostToDevice)
void macroAndLambda(float *Dev, size_t N) {
  float *Heap = (float *)malloc(N);
  UPLOAD(Dev, Heap, N);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-3]]:26: note: pageable host memory: allocated on the host by malloc
  auto Download = [Dev, N] {
    char Local[64];
    cudaMemcpyAsync(Local, Dev, sizeof(Local), cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpyAsync' copies into pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only once the data has reached host memory, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
    // XFER-NOTE: :[[@LINE-3]]:10: note: pageable host memory: the array 'Local'
  };
  Download();
}

void nestedLoops(float *Dev, int Epochs, int Steps) {
  std::vector<float> Batch(1024);
  for (int E = 0; E < Epochs; ++E)
    for (int I = 0; I < Steps; ++I)
      cudaMemcpyAsync(Dev, Batch.data(), 4096, cudaMemcpyHostToDevice);
      // XFER-WARNING: :[[@LINE-1]]:7: warning: 'cudaMemcpyAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
      // XFER-NOTE: :[[@LINE-5]]:22: note: pageable host memory: the storage of a std::vector
}

// Not reported: pinned memory, unknown memory, copies without a host side.
void notReported(float *Dev, float *Unknown, size_t N, cudaStream_t S) {
  float *Pinned = nullptr;
  cudaMallocHost((void **)&Pinned, N);
  cudaMemcpyAsync(Dev, Pinned, N, cudaMemcpyHostToDevice, S);
  float *Allocated = nullptr;
  cudaHostAlloc((void **)&Allocated, N, cudaHostAllocDefault);
  cudaMemcpyAsync(Allocated, Dev, N, cudaMemcpyDeviceToHost, S);
  float *Registered = (float *)malloc(N);
  cudaHostRegister(Registered, N, cudaHostRegisterDefault);
  cudaMemcpyAsync(Dev, Registered, N, cudaMemcpyHostToDevice, S);
  float Array[64];
  cudaHostRegister(Array, sizeof(Array), cudaHostRegisterDefault);
  cudaMemcpyAsync(Dev, Array, sizeof(Array), cudaMemcpyHostToDevice, S);
  std::vector<float> Values(N);
  cudaHostRegister(Values.data(), N, cudaHostRegisterDefault);
  cudaMemcpyAsync(Values.data(), Dev, N, cudaMemcpyDeviceToHost, S);
  cudaMemcpyAsync(Dev, Unknown, N, cudaMemcpyHostToDevice, S);
  float *Heap = (float *)malloc(N);
  // The synchronous copy is another check's business.
  cudaMemcpy(Dev, Heap, N, cudaMemcpyHostToDevice);
  cudaMemcpyAsync(Heap, Heap + 1, N, cudaMemcpyHostToHost, S);
  cudaMemcpyAsync(Dev, Dev + 1, N, cudaMemcpyDeviceToDevice, S);
  cudaMemcpyPeerAsync(Dev, 1, Dev + 1, 0, N, S);
}

// Constant-memory uploads and reads of __device__ variables are staged the
// same way; a pinned buffer is fine.
extern float LaplaceKernel[128];
extern int PointCount;
void symbolCopies(cudaStream_t S) {
  float Kernel[128];
  cudaMemcpyToSymbolAsync(LaplaceKernel, Kernel, sizeof(Kernel));
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpyToSymbolAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-3]]:9: note: pageable host memory: the array 'Kernel'
  int Count = 0;
  cudaMemcpyFromSymbolAsync(&Count, &PointCount, sizeof(int), 0,
                            cudaMemcpyDeviceToHost, S);
  // XFER-WARNING: :[[@LINE-2]]:3: warning: 'cudaMemcpyFromSymbolAsync' copies into pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only once the data has reached host memory, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  // XFER-NOTE: :[[@LINE-3]]:29: note: pageable host memory: the address of the local 'Count'
  float *Pinned = nullptr;
  cudaMallocHost((void **)&Pinned, sizeof(Kernel));
  cudaMemcpyToSymbolAsync(LaplaceKernel, Pinned, sizeof(Kernel), 0,
                          cudaMemcpyHostToDevice, S); // pinned: overlaps
}
