// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-copy-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// A checking macro keeps the status a copy returns and leaves the program
// when it is an error: the status says whether the copy worked, not what
// it copied, so the copy does not decide whether the loop goes on. Partial
// sums added up into the first element of their own buffer are still the
// host's, not handed on; stored into another buffer, they are.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CHECK(CALL)                                                            \
  {                                                                            \
    cudaError_t Status = CALL;                                                 \
    if (Status != cudaSuccess) {                                               \
      std::fprintf(stderr, "%s\n", cudaGetErrorString(Status));               \
      std::exit(-1);                                                           \
    }                                                                          \
  }

__global__ void step(float *Energy, int *Done);

void simulate(float *DeviceEnergy, float *Energy, float *History,
              int *DeviceDone, int Blocks, int Steps) {
  for (int S = 0; S < Steps; ++S) {
    step<<<Blocks, 256>>>(DeviceEnergy, DeviceDone);
    CHECK(cudaMemcpy(Energy, DeviceEnergy, Blocks * sizeof(float),
                     cudaMemcpyDeviceToHost));
    // XFER-WARNING: :[[@LINE-2]]:11: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 26: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :26:3: note: loop starts here
    for (int B = 1; B < Blocks; ++B)
      Energy[0] += Energy[B];
    std::printf("%f\n", Energy[0]);
  }
  for (int S = 0; S < Steps; ++S) {
    step<<<Blocks, 256>>>(DeviceEnergy, DeviceDone);
    CHECK(cudaMemcpy(Energy, DeviceEnergy, Blocks * sizeof(float),
                     cudaMemcpyDeviceToHost));
    for (int B = 1; B < Blocks; ++B)
      Energy[0] += Energy[B];
    History[S] = Energy[0];
  }
  for (int S = 0; S < Steps; ++S) {
    int Done = 0;
    step<<<Blocks, 256>>>(DeviceEnergy, DeviceDone);
    CHECK(cudaMemcpy(&Done, DeviceDone, sizeof(int), cudaMemcpyDeviceToHost));
    if (Done)
      break;
  }
}
