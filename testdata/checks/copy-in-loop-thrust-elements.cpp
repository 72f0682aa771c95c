// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-copy-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// Host code that indexes a thrust::device_vector reads or writes one element
// with a blocking copy each time: a loop over elements on every step makes
// one copy per element. Outside a hot loop, or on a host_vector, nothing
// crosses the link.
#include <cuda_runtime.h>
#include <thrust/device_vector.h>
#include <vector>

__global__ void relax(float *Pressure, int N);

void setGhostCells(thrust::device_vector<float> &Pressure, int N) {
  for (int J = 0; J < N; ++J)
    Pressure[J * N] = 0.0f;
}

void solve(thrust::device_vector<float> &Pressure, float *Raw, int N,
           int Steps) {
  float Sum = 0;
  for (int T = 0; T < Steps; ++T) {
    relax<<<N, 256>>>(Raw, N);
    for (int I = 0; I < N; ++I)
      Sum += Pressure[I];
    // XFER-WARNING: :[[@LINE-1]]:14: warning: 'thrust::device_vector::operator[]' copies device memory to the host on every iteration of the loop at line 24: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :24:5: note: loop starts here
    for (int J = 0; J < N; ++J)
      Pressure[J * N + N - 1] = 1.0f;
    // XFER-WARNING: :[[@LINE-1]]:31: warning: 'thrust::device_vector::operator[]' writes one element of a thrust::device_vector from the host on every iteration of the loop at line 28: each element is a blocking copy to the device; set the elements on the device (a kernel, thrust::fill or thrust::transform) [xfer-copy-in-loop]
    // XFER-NOTE: :28:5: note: loop starts here
  }
  // Once, before or after the steps: set-up.
  setGhostCells(Pressure, N);
  std::vector<float> Host(N);
  for (int I = 0; I < N; ++I)
    Host[I] = Pressure[I];
}
