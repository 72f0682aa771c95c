// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-device-mismatch
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

void memsets(size_t N, float *Unknown, cudaStream_t Stream) {
  float *Host = (float *)malloc(N * sizeof(float));
  float *Allocated = new float[N];
  std::vector<float> Vec(N);
  float Stack[256];
  float *Dev;
  cudaMalloc((void **)&Dev, N * sizeof(float));
  float *Pinned;
  cudaMallocHost((void **)&Pinned, N * sizeof(float));
  float *Managed;
  cudaMallocManaged((void **)&Managed, N * sizeof(float));

  cudaMemset(Host, 0, N * sizeof(float));
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemset' is given host memory 'Host', which it cannot set (an invalid argument error at run time): use memset or std::fill for host memory, or pass device memory [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-13]]:26: note: 'Host' is host memory: allocated on the host by malloc
  cudaMemsetAsync(Allocated, 0, N * sizeof(float), Stream);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemsetAsync' is given host memory 'Allocated', which it cannot set (an invalid argument error at run time): use memset or std::fill for host memory, or pass device memory [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-15]]:22: note: 'Allocated' is host memory: allocated on the host by new
  cudaMemset(Vec.data(), 0, N * sizeof(float));
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemset' is given host memory 'Vec.data()', which it cannot set (an invalid argument error at run time): use memset or std::fill for host memory, or pass device memory [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-2]]:14: note: 'Vec.data()' is host memory: the storage of a std::vector
  cudaMemset(Stack, 0, sizeof(Stack));
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemset' is given host memory 'Stack', which it cannot set (an invalid argument error at run time): use memset or std::fill for host memory, or pass device memory [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-2]]:14: note: 'Stack' is host memory: the array 'Stack'

  // Pinned memory is mapped: it works, across the host link.
  cudaMemset(Pinned, 0, N * sizeof(float));
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemset' is given pinned host memory 'Pinned': the GPU sets it across the host link where a host memset is local; use memset or std::fill for host memory, or pass device memory [xfer-device-mismatch]
  // XFER-NOTE: :15:3: note: 'Pinned' is pinned host memory: pinned host memory from cudaMallocHost

  // Device, managed or unknown memory: not reported.
  cudaMemset(Dev, 0, N * sizeof(float));
  cudaMemsetAsync(Dev + 1, 0, sizeof(float), Stream);
  cudaMemset(Managed, 0, N * sizeof(float));
  cudaMemset(Unknown, 0, N * sizeof(float));

  free(Host);
  delete[] Allocated;
  cudaFree(Dev);
  cudaFreeHost(Pinned);
  cudaFree(Managed);
}

void frees(size_t N, float *Unknown, bool Flag) {
  float *Pinned;
  cudaMallocHost((void **)&Pinned, N * sizeof(float));
  float *Portable;
  cudaHostAlloc((void **)&Portable, N * sizeof(float), cudaHostAllocDefault);
  float *Dev;
  cudaMalloc((void **)&Dev, N * sizeof(float));

  cudaFree(Pinned);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaFree' is given pinned host memory 'Pinned', which it cannot free (an invalid argument error at run time, and the memory leaks): free it with cudaFreeHost [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-8]]:3: note: 'Pinned' is pinned host memory: pinned host memory from cudaMallocHost
  cudaFree(Portable);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaFree' is given pinned host memory 'Portable', which it cannot free (an invalid argument error at run time, and the memory leaks): free it with cudaFreeHost [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-9]]:3: note: 'Portable' is pinned host memory: pinned host memory from cudaHostAlloc
  cudaFreeHost(Dev);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaFreeHost' is given device memory 'Dev', which it cannot free (an invalid argument error at run time, and the memory leaks): free it with cudaFree [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-10]]:3: note: 'Dev' is device memory: allocated by cudaMalloc

  // Registered host memory: cudaFree is wrong, but the fix is
  // cudaHostUnregister and the allocator's own free, so no replacement.
  float *Host = (float *)malloc(N * sizeof(float));
  cudaHostRegister(Host, N * sizeof(float), cudaHostRegisterDefault);
  cudaFree(Host);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaFree' is given pinned host memory 'Host', which it cannot free (an invalid argument error at run time, and the memory leaks) [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-3]]:3: note: 'Host' is pinned host memory: host memory registered by cudaHostRegister

  // The matching calls, managed and unknown memory: not reported.
  float *Other;
  cudaMallocHost((void **)&Other, N * sizeof(float));
  cudaFreeHost(Other);
  float *Device;
  cudaMalloc((void **)&Device, N * sizeof(float));
  cudaFree(Device);
  float *Managed;
  cudaMallocManaged((void **)&Managed, N * sizeof(float));
  cudaFree(Managed);
  cudaFree(Unknown);
  cudaFreeHost(Unknown);
  // Pinned on one path, device memory on the other: nothing is known.
  float *Either;
  if (Flag)
    cudaMallocHost((void **)&Either, N * sizeof(float));
  else
    cudaMalloc((void **)&Either, N * sizeof(float));
  cudaFree(Either);
  cudaFreeHost(Either);
}

// Members allocated through their address in one method and freed in
// another: the allocation decides what the member holds.
struct Particles {
  float *Positions = nullptr;
  float *Forces = nullptr;
  void allocate(int N);
  void release();
};

void Particles::allocate(int N) {
  cudaMallocHost((void **)&Positions, N * sizeof(float));
  cudaMalloc((void **)&Forces, N * sizeof(float));
}

void Particles::release() {
  cudaFree(Positions);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaFree' is given pinned host memory 'Positions', which it cannot free (an invalid argument error at run time, and the memory leaks): free it with cudaFreeHost [xfer-device-mismatch]
  // XFER-NOTE: :108:3: note: 'Positions' is pinned host memory: pinned host memory from cudaMallocHost (stored in 'Positions')
  cudaFree(Forces);
  cudaFreeHost(Positions);
}

// cudaFree of ordinary host memory: an invalid argument.
void freeHostMemory(int N) {
  float Stack[4];
  cudaFree(Stack);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaFree' is given host memory 'Stack', which it cannot free (an invalid argument error at run time): release host memory with its own allocator, or pass device memory [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-2]]:12: note: 'Stack' is host memory: the array 'Stack'
  float *Heap = (float *)malloc(N * sizeof(float));
  cudaFree(Heap);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaFree' is given host memory 'Heap', which it cannot free (an invalid argument error at run time): release host memory with its own allocator, or pass device memory [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-3]]:26: note: 'Heap' is host memory: allocated on the host by malloc
  free(Heap);
}

// A row of a host array of device pointers is host memory: free its
// elements, not the row. The elements themselves are device memory.
void freeRows(int N) {
  float *Rows[4][2];
  for (int R = 0; R < 4; ++R)
    for (int C = 0; C < 2; ++C)
      cudaMalloc((void **)&Rows[R][C], N * sizeof(float));
  for (int R = 0; R < 4; ++R) {
    for (int C = 0; C < 2; ++C)
      cudaFree(Rows[R][C]);
    cudaFree(Rows[R]);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaFree' is given host memory 'Rows[R]', which it cannot free (an invalid argument error at run time): release host memory with its own allocator, or pass device memory [xfer-device-mismatch]
    // XFER-NOTE: :[[@LINE-2]]:14: note: 'Rows[R]' is host memory: the array 'Rows'
  }
}
