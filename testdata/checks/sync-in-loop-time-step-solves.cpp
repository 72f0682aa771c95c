// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop,xfer-copy-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// A time step that runs an iterative solve until a residual read back from
// the device says it has converged is still one step: the work around the
// solve runs on every step, not once per epoch as around a batch loop. The
// value that scales the solve's stopping test is part of that test. A pass
// that sets boundary elements one by one computes nothing on the device.
#include <cuda_runtime.h>
#include <thrust/device_vector.h>
#include <thrust/reduce.h>

__global__ void relax(float *Pressure, int N);
__global__ void advance(float *Velocity, int N);
int flatten(int I, int J); // index arithmetic, defined in another file

void simulate(float *Velocity, float *Pressure,
              thrust::device_vector<float> &Residual, int N, int Steps) {
  for (int T = 0; T < Steps; ++T) {
    for (int I = 0; I < N; ++I)
      Residual[flatten(I, 0)] = 0.0f;
    // XFER-WARNING: :[[@LINE-1]]:31: warning: 'thrust::device_vector::operator[]' writes one element of a thrust::device_vector from the host on every iteration of the loop at line 20: each element is a blocking copy to the device; set the elements on the device (a kernel, thrust::fill or thrust::transform) [xfer-copy-in-loop]
    // XFER-NOTE: :20:5: note: loop starts here
    float Initial = thrust::reduce(Residual.begin(), Residual.end(), 0.0f);
    for (int Iteration = 0; Iteration < 100; ++Iteration) {
      relax<<<N, 256>>>(Pressure, N);
      float Norm =
          thrust::reduce(Residual.begin(), Residual.end(), 0.0f) / Initial;
      if (Norm < 1e-6f)
        break;
    }
    advance<<<N, 256>>>(Velocity, N);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 19: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :19:3: note: loop starts here
  }
}
