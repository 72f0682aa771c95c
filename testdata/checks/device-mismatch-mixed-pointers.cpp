// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-device-mismatch
// A class whose pointer member holds host memory in some objects and device
// memory in others, kept apart by a flag: what its constructions pass is
// both, so neither side is reported.
#include <cuda_runtime.h>
#include <cstdio>

struct Vector {
  int N;
  double *Values;
  bool OnDevice;
  Vector(int N, double *Values, bool OnDevice)
      : N(N), Values(Values), OnDevice(OnDevice) {}

  Vector toDevice() const {
    double *D;
    cudaMalloc((void **)&D, N * sizeof(double));
    cudaMemcpy(D, Values, N * sizeof(double), cudaMemcpyHostToDevice);
    return Vector(N, D, true);
  }
  Vector toHost() const {
    double *H = new double[N];
    cudaMemcpy(H, Values, N * sizeof(double), cudaMemcpyDeviceToHost);
    return Vector(N, H, false);
  }
  void copyInto(Vector *Dest) const {
    double *H = new double[N];
    cudaMemcpy(H, Values, N * sizeof(double), cudaMemcpyDeviceToHost);
    Dest->Values = H;
    Dest->OnDevice = false;
  }
  void print() const {
    if (OnDevice) {
      toHost().print();
      return;
    }
    for (int I = 0; I < N; ++I)
      printf("%f\n", Values[I]);
  }
  void release() {
    if (OnDevice)
      cudaFree(Values);
    else
      delete[] Values;
  }
};

// Constructions decide a constructor's parameters: memory from cudaMalloc
// passed to every construction is device memory.
struct DeviceOnly {
  float *Data;
  explicit DeviceOnly(float *Data) : Data(Data) {}
  float first() const { return Data[0]; }
  // XFER-WARNING: :[[@LINE-1]]:32: warning: device memory 'Data' is indexed in host code, which cannot access it (a crash or garbage at run time): copy it with cudaMemcpy, or use managed memory [xfer-device-mismatch]
  // XFER-NOTE: :60:3: note: 'Data' is device memory: allocated by cudaMalloc (argument of 'DeviceOnly') (stored in 'Data')
};
float useDeviceOnly() {
  float *D;
  cudaMalloc((void **)&D, 64);
  DeviceOnly Object(D);
  return Object.first();
}

// A functor that runs on the device too (Thrust calls it there) reads the
// device memory it holds: not host code. Its host-only twin is.
struct ActiveEdges {
  int *Priorities;
  explicit ActiveEdges(int *P) : Priorities(P) {}
  __host__ __device__ int operator()(int I) const { return Priorities[I]; }
};
struct HostEdges {
  int *Priorities;
  explicit HostEdges(int *P) : Priorities(P) {}
  int operator()(int I) const { return Priorities[I]; }
  // XFER-WARNING: :[[@LINE-1]]:40: warning: device memory 'Priorities' is indexed in host code, which cannot access it (a crash or garbage at run time): copy it with cudaMemcpy, or use managed memory [xfer-device-mismatch]
  // XFER-NOTE: :81:3: note: 'Priorities' is device memory: allocated by cudaMalloc (argument of 'HostEdges') (stored in 'Priorities')
};
int countActive() {
  int *D;
  cudaMalloc((void **)&D, 64);
  ActiveEdges Device(D);
  HostEdges Host(D);
  return Device(0) + Host(0);
}
