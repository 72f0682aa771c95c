// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-device-mismatch
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

void copyKinds(size_t N, float *Unknown) {
  float *Dev;
  cudaMalloc((void **)&Dev, N * sizeof(float));
  float *Host = (float *)malloc(N * sizeof(float));
  std::vector<float> Vec(N);
  float *Pinned;
  cudaMallocHost((void **)&Pinned, N * sizeof(float));
  float *Other;
  cudaMalloc((void **)&Other, N * sizeof(float));

  // Exactly reversed: the kind or the arguments are swapped; no fix-it.
  cudaMemcpy(Host, Dev, N * sizeof(float), cudaMemcpyHostToDevice);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpy' is given cudaMemcpyHostToDevice but the destination 'Host' is host memory and the source 'Dev' is device memory: a copy kind that contradicts its pointers is undefined behavior [xfer-device-mismatch]
  cudaMemcpyAsync(Vec.data(), Dev, N * sizeof(float), cudaMemcpyHostToDevice);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' is given cudaMemcpyHostToDevice but the destination 'Vec.data()' is host memory and the source 'Dev' is device memory: a copy kind that contradicts its pointers is undefined behavior [xfer-device-mismatch]
  // A cudaMalloc pointer used as the host side: the kind must change.
  cudaMemcpy(Other, Dev, N * sizeof(float), cudaMemcpyHostToDevice);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpy' is given cudaMemcpyHostToDevice but the source 'Dev' is device memory: a copy kind that contradicts its pointers is undefined behavior [xfer-device-mismatch]
  cudaMemcpy(Dev, Pinned, N * sizeof(float), cudaMemcpyDeviceToDevice);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpy' is given cudaMemcpyDeviceToDevice but the source 'Pinned' is pinned host memory: a copy kind that contradicts its pointers is undefined behavior [xfer-device-mismatch]
  cudaMemcpy(Dev, Unknown, N * sizeof(float), cudaMemcpyDeviceToHost);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpy' is given cudaMemcpyDeviceToHost but the destination 'Dev' is device memory: a copy kind that contradicts its pointers is undefined behavior [xfer-device-mismatch]

  // Consistent, unknown or cudaMemcpyDefault: not reported.
  cudaMemcpy(Dev, Host, N * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(Host, Dev, N * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(Other, Dev, N * sizeof(float), cudaMemcpyDeviceToDevice);
  cudaMemcpy(Host, Dev, N * sizeof(float), cudaMemcpyDefault);
  cudaMemcpy(Unknown, Dev, N * sizeof(float), cudaMemcpyDeviceToHost);
  float *Managed;
  cudaMallocManaged((void **)&Managed, N * sizeof(float));
  cudaMemcpy(Managed, Dev, N * sizeof(float), cudaMemcpyDeviceToDevice);
  cudaMemcpy(Host, Managed, N * sizeof(float), cudaMemcpyDeviceToHost);
  free(Host);
}

struct Pair {
  float First;
};

void hostAccess(size_t N, float *Unknown) {
  float *Dev;
  cudaMalloc((void **)&Dev, N * sizeof(*Dev));
  Pair *DevPair;
  cudaMalloc((void **)&DevPair, sizeof(Pair));
  float Host[16];
  float First = *Dev;
  // XFER-WARNING: :[[@LINE-1]]:17: warning: device memory 'Dev' is dereferenced in host code, which cannot access it (a crash or garbage at run time): copy it with cudaMemcpy, or use managed memory [xfer-device-mismatch]
  Dev[3] = 1.0f;
  // XFER-WARNING: :[[@LINE-1]]:3: warning: device memory 'Dev' is indexed in host code, which cannot access it (a crash or garbage at run time): copy it with cudaMemcpy, or use managed memory [xfer-device-mismatch]
  DevPair->First = First;
  // XFER-WARNING: :[[@LINE-1]]:12: warning: device memory 'DevPair' is dereferenced in host code, which cannot access it (a crash or garbage at run time): copy it with cudaMemcpy, or use managed memory [xfer-device-mismatch]
  memcpy(Host, Dev, sizeof(Host));
  // XFER-WARNING: :[[@LINE-1]]:3: warning: device memory 'Dev' is passed to 'memcpy' in host code, which cannot access it (a crash or garbage at run time): copy it with cudaMemcpy, or use managed memory [xfer-device-mismatch]
  std::memset(Dev, 0, N * sizeof(float));
  // XFER-WARNING: :[[@LINE-1]]:3: warning: device memory 'Dev' is passed to 'memset' in host code, which cannot access it (a crash or garbage at run time): copy it with cudaMemcpy, or use managed memory [xfer-device-mismatch]
  std::copy(Host, Host + 16, Dev);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: device memory 'Dev' is passed to 'copy' in host code, which cannot access it (a crash or garbage at run time): copy it with cudaMemcpy, or use managed memory [xfer-device-mismatch]

  // Address arithmetic, sizeof, host and managed memory: not reported.
  float *Third = &Dev[2];
  cudaMemcpy(Third, Host, sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(&(((float *)Dev)[4]), Host, sizeof(float), cudaMemcpyHostToDevice);
  size_t Bytes = sizeof(Dev[0]) + sizeof(*DevPair);
  Host[0] = *Unknown + Host[1];
  float *Managed;
  cudaMallocManaged((void **)&Managed, N * sizeof(float));
  Managed[0] = 2.0f;
  memcpy(Host, Managed, sizeof(Host));
  cudaMemset(Dev, 0, Bytes);
}

// cudaGetSymbolAddress stores a device address through its first argument,
// whatever the pointer held before (here a host allocation it overwrites).
extern float DeviceFitness;
void symbolAddress(float *Best) {
  float *Address = (float *)malloc(sizeof(float));
  cudaGetSymbolAddress((void **)&Address, &DeviceFitness);
  cudaMemcpy(Best, Address, sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(Best, Address, sizeof(float), cudaMemcpyHostToDevice);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpy' is given cudaMemcpyHostToDevice but the source 'Address' is device memory: a copy kind that contradicts its pointers is undefined behavior [xfer-device-mismatch]
}

// A struct type that serves both as a host struct and as its device mirror:
// a copy between the same member of two objects says so, and each member
// points wherever its object's buffers were made. Copies between them are
// not judged by the member.
struct Grid {
  float *Cells;
  float *Weights;
};
void allocateMirror(Grid *Mirror, size_t N) {
  cudaMalloc((void **)&Mirror->Cells, N * sizeof(float));
  cudaMalloc((void **)&Mirror->Weights, N * sizeof(float));
}
void uploadCells(Grid *Host, Grid *Mirror, size_t N) {
  cudaMemcpy(Mirror->Cells, Host->Cells, N * sizeof(float),
             cudaMemcpyHostToDevice);
}
void downloadWeights(Grid *Host, Grid *Mirror, size_t N) {
  cudaMemcpy(Host->Weights, Mirror->Weights, N * sizeof(float),
             cudaMemcpyDeviceToHost);
}

// A member only ever pointed at device memory, never mirrored, is device
// memory in every object.
struct DeviceBuffers {
  float *Data;
};
void allocateBuffers(DeviceBuffers *Buffers, size_t N) {
  cudaMalloc((void **)&Buffers->Data, N * sizeof(float));
}
void readBackTheWrongWay(DeviceBuffers *Buffers, float *Out, size_t N) {
  cudaMemcpy(Buffers->Data, Out, N * sizeof(float), cudaMemcpyDeviceToHost);
}
// XFER-WARNING: :122:3: warning: 'cudaMemcpy' is given cudaMemcpyDeviceToHost but the destination 'Buffers->Data' is device memory: a copy kind that contradicts its pointers is undefined behavior [xfer-device-mismatch]
