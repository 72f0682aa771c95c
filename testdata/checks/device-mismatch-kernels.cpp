// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-device-mismatch
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

__global__ void scale(float *Data, int N) {
  // Device code dereferences device memory: fine.
  Data[0] *= 2.0f;
}

__device__ float twice(const float *P) { return 2.0f * *P; }

void launches(int N, float *Unknown) {
  float *Dev;
  cudaMalloc((void **)&Dev, N * sizeof(float));
  float *Host = (float *)malloc(N * sizeof(float));
  float *Allocated = new float[N];
  std::vector<float> Vec(N);
  float Stack[256];
  float *Pinned;
  cudaHostAlloc((void **)&Pinned, N * sizeof(float), cudaHostAllocDefault);
  float *Managed;
  cudaMallocManaged((void **)&Managed, N * sizeof(float));

  scale<<<1, 256>>>(Host, N);
  // XFER-WARNING: :[[@LINE-1]]:21: warning: host memory 'Host' is passed to the kernel 'scale', which cannot access it (an illegal memory access at run time): pass device, managed or mapped memory [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-11]]:26: note: 'Host' is host memory: allocated on the host by malloc
  scale<<<1, 256>>>(Allocated, N);
  // XFER-WARNING: :[[@LINE-1]]:21: warning: host memory 'Allocated' is passed to the kernel 'scale', which cannot access it (an illegal memory access at run time): pass device, managed or mapped memory [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-13]]:22: note: 'Allocated' is host memory: allocated on the host by new
  scale<<<dim3(1), dim3(256)>>>(Vec.data(), N);
  // XFER-WARNING: :[[@LINE-1]]:33: warning: host memory 'Vec.data()' is passed to the kernel 'scale', which cannot access it (an illegal memory access at run time): pass device, managed or mapped memory [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-2]]:33: note: 'Vec.data()' is host memory: the storage of a std::vector
  scale<<<1, 256>>>(Stack, 256);
  // XFER-WARNING: :[[@LINE-1]]:21: warning: host memory 'Stack' is passed to the kernel 'scale', which cannot access it (an illegal memory access at run time): pass device, managed or mapped memory [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-2]]:21: note: 'Stack' is host memory: the array 'Stack'
  void *Args[] = {&Host, &N};
  cudaLaunchKernel((const void *)scale, dim3(1), dim3(256), Args, 0, 0);
  // XFER-WARNING: :[[@LINE-2]]:20: warning: host memory 'Host' is passed to the kernel 'scale', which cannot access it (an illegal memory access at run time): pass device, managed or mapped memory [xfer-device-mismatch]
  // XFER-NOTE: :[[@LINE-24]]:26: note: 'Host' is host memory: allocated on the host by malloc

  // Device, managed, mapped (pinned) and unknown memory: not reported.
  scale<<<1, 256>>>(Dev, N);
  scale<<<1, 256>>>(Dev + 4, N - 4);
  scale<<<1, 256>>>(Managed, N);
  scale<<<1, 256>>>(Pinned, N);
  scale<<<1, 256>>>(Unknown, N);
  void *DevArgs[] = {&Dev, &N};
  cudaLaunchKernel((const void *)scale, dim3(1), dim3(256), DevArgs, 0, 0);
  free(Host);
  delete[] Allocated;
}

// Naming a member through a device pointer only computes an address when
// the member is an array (it decays) or its address is taken; reading a
// member is a host access.
struct Lattice {
  float Spins[64];
  float Energy;
};
void sumOnDevice(const float *Values, float *Result, int N);

void observe(float *Result) {
  Lattice *Device = nullptr;
  cudaMalloc((void **)&Device, sizeof(Lattice));
  sumOnDevice(Device->Spins, Result, 64);
  float *EnergySlot = &Device->Energy;
  float Energy = Device->Energy;
  // XFER-WARNING: :[[@LINE-1]]:26: warning: device memory 'Device' is dereferenced in host code, which cannot access it (a crash or garbage at run time): copy it with cudaMemcpy, or use managed memory [xfer-device-mismatch]
  // XFER-NOTE: :66:3: note: 'Device' is device memory: allocated by cudaMalloc
  (void)EnergySlot, (void)Energy;
}
