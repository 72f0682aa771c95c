// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-copy-in-loop
// An upload inside a helper (`upload(dst, src, n)` wrapping cudaMemcpy) is
// judged at the call in the loop: the same host data passed on every
// iteration could be copied once; new data each iteration could not.
#include <cuda_runtime.h>

void runKernel(float *Device, int N);

void upload(float *Device, const float *Host, int N) {
  cudaMemcpy(Device, Host, N * sizeof(float), cudaMemcpyHostToDevice);
}

// A wrapper of the wrapper: the parameter is handed on.
void uploadAll(float *Device, const float *Host, int N) {
  upload(Device, Host, N);
}

void fill(float *Host, int N, int Step);

void sameDataEveryStep(float *Device, int N, int Steps) {
  float Weights[256] = {};
  float Input[256];
  for (int Step = 0; Step < Steps; ++Step) {
    upload(Device, Weights, N);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'upload()' copies 'Weights' to the GPU on every iteration of the loop at line 24, but 'Weights' does not change inside the loop: copy it once before the loop [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-3]]:3: note: loop starts here
    // XFER-NOTE: :11:3: note: 'cudaMemcpy' copies host memory to the GPU here
    uploadAll(Device, Weights, N);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'uploadAll()' copies 'Weights' to the GPU on every iteration of the loop at line 24, but 'Weights' does not change inside the loop: copy it once before the loop [xfer-copy-in-loop]
    // XFER-NOTE: :[[@LINE-7]]:3: note: loop starts here
    // XFER-NOTE: :16:3: note: which calls 'upload()' here
    // XFER-NOTE: :11:3: note: 'cudaMemcpy' copies host memory to the GPU here
    fill(Input, N, Step);
    upload(Device, Input, N); // new data on every iteration
    runKernel(Device, N);
  }
}
