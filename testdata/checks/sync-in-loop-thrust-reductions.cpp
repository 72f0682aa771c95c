// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// A Thrust reduction over device memory returns its value to the host: the
// host waits for the reduction and the copy back on every call. The same
// algorithms over host ranges do not touch the device.
#include <cuda_runtime.h>
#include <thrust/device_ptr.h>
#include <thrust/reduce.h>
#include <vector>

__global__ void relax(int *Priorities, int N);

struct IsActive {
  __host__ __device__ bool operator()(int P) const { return P == -1; }
};

int orderVertices(int *DevicePriorities, int N, int Rounds) {
  int Active = 0;
  for (int Round = 0; Round < Rounds; ++Round) {
    relax<<<1, 32>>>(DevicePriorities, N);
    thrust::device_ptr<int> Priorities(DevicePriorities);
    Active += thrust::count_if(Priorities, Priorities + N, IsActive());
    // XFER-WARNING: :[[@LINE-1]]:15: warning: 'thrust::count_if' synchronizes with the GPU on every iteration of the loop at line 20: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :20:3: note: loop starts here
    Active += thrust::reduce(thrust::device, DevicePriorities,
                             DevicePriorities + N, 0);
    // XFER-WARNING: :[[@LINE-2]]:15: warning: 'thrust::reduce' synchronizes with the GPU on every iteration of the loop at line 20: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :20:3: note: loop starts here
  }
  return Active;
}

// Host ranges and the host policy: no device work, nothing to report.
int countOnHost(int *DevicePriorities, const std::vector<int> &Host, int N,
                int Rounds) {
  int Active = 0;
  for (int Round = 0; Round < Rounds; ++Round) {
    relax<<<1, 32>>>(DevicePriorities, N);
    Active += thrust::count_if(Host.begin(), Host.end(), IsActive());
    Active += thrust::reduce(thrust::host, Host.data(), Host.data() + N, 0);
  }
  return Active;
}
