// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-device-mismatch
#include <cuda_runtime.h>
#include <cstdlib>

// The release function that matches the allocation is a fix; a copy
// direction is only suggested (a fix on the note: the arguments may be the
// ones in the wrong order), so it is not applied.
void copiesAndFrees(size_t N) {
  float *Host = (float *)malloc(N * sizeof(float));
  float *Pinned = nullptr;
  float *Device = nullptr;
  cudaMallocHost((void **)&Pinned, N * sizeof(float));
  cudaMalloc((void **)&Device, N * sizeof(float));
  cudaMemcpy(Device, Host, N * sizeof(float), cudaMemcpyDeviceToHost);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpy' is given cudaMemcpyDeviceToHost but the destination 'Device' is device memory and the source 'Host' is host memory: a copy kind that contradicts its pointers is undefined behavior [xfer-device-mismatch]
  // XFER-NOTE: :14:3: note: 'Device' is device memory: allocated by cudaMalloc
  // XFER-NOTE: :10:26: note: 'Host' is host memory: allocated on the host by malloc
  // XFER-NOTE: :[[@LINE-4]]:47: note: use cudaMemcpyHostToDevice if the arguments are in the intended order; otherwise swap the destination and the source
  cudaMemcpy(Host, Device, N * sizeof(float), cudaMemcpyHostToDevice);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpy' is given cudaMemcpyHostToDevice but the destination 'Host' is host memory and the source 'Device' is device memory: a copy kind that contradicts its pointers is undefined behavior [xfer-device-mismatch]
  // XFER-NOTE: :10:26: note: 'Host' is host memory: allocated on the host by malloc
  // XFER-NOTE: :14:3: note: 'Device' is device memory: allocated by cudaMalloc
  // XFER-NOTE: :[[@LINE-4]]:47: note: use cudaMemcpyDeviceToHost if the arguments are in the intended order; otherwise swap the destination and the source
  cudaFree(Pinned);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaFree' is given pinned host memory 'Pinned', which it cannot free (an invalid argument error at run time, and the memory leaks): free it with cudaFreeHost [xfer-device-mismatch]
  // XFER-NOTE: :13:3: note: 'Pinned' is pinned host memory: pinned host memory from cudaMallocHost
  // XFER-FIXES: cudaFreeHost(Pinned);
  cudaFree(Device);
  free(Host);
}
