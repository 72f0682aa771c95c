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

// The normaliser may be summed on the host from per-block partial sums
// before the solve: the copy of the partial sums is part of the test. Sums
// that are only printed decide nothing.
int printf(const char *, ...);
void solveEachStep(float *Pressure, float *PartialDev, float *Partial,
                   float *Start, int Blocks, int N, int Steps) {
  for (int T = 0; T < Steps; ++T) {
    cudaMemcpy(Start, PartialDev, Blocks * sizeof(float),
               cudaMemcpyDeviceToHost);
    float Initial = 0.0f;
    for (int B = 0; B < Blocks; ++B)
      Initial += Start[B];
    Initial = Initial < 1e-4f ? 1.0f : Initial;
    for (int Iteration = 0; Iteration < 100; ++Iteration) {
      relax<<<N, 256>>>(Pressure, N);
      cudaMemcpy(Partial, PartialDev, Blocks * sizeof(float),
                 cudaMemcpyDeviceToHost);
      float Norm = 0.0f;
      for (int B = 0; B < Blocks; ++B)
        Norm += Partial[B];
      if (Norm / Initial < 1e-6f)
        break;
    }
    advance<<<N, 256>>>(Pressure, N);
    cudaMemcpy(Partial, PartialDev, Blocks * sizeof(float),
               cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-2]]:5: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 45: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :45:3: note: loop starts here
    float Energy = 0.0f;
    for (int B = 0; B < Blocks; ++B)
      Energy += Partial[B];
    printf("%f\n", Energy);
  }
}

// The same with the solve in a function of its own, and the time step read
// back into a global by another: the solve is part of each step, so the
// wait after it is per step; the time step advances the time the loop
// tests, so its read-back is the loop's termination test.
double Dt, EndTime, Residual;
double *DeviceDt, *DeviceResidual;
void pressureSolve(float *Pressure, int N) {
  for (int Iteration = 0; Iteration < 100; ++Iteration) {
    relax<<<N, 256>>>(Pressure, N);
    cudaMemcpy(&Residual, DeviceResidual, sizeof(double),
               cudaMemcpyDeviceToHost);
    if (Residual < 1e-6)
      break;
  }
}
void timeStep(float *Velocity, int N) {
  advance<<<N, 256>>>(Velocity, N);
  cudaMemcpy(&Dt, DeviceDt, sizeof(double), cudaMemcpyDeviceToHost);
}
void integrate(float *Velocity, float *Pressure, int N) {
  double T;
  for (T = 0.0; T < EndTime; T += Dt) {
    timeStep(Velocity, N);
    pressureSolve(Pressure, N);
    advance<<<N, 256>>>(Velocity, N);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 95: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :95:3: note: loop starts here
  }
}
