// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-copy-in-loop
// A host buffer copied back from a device buffer and uploaded back to it in
// the same iteration, with no kernel in between and the host only reading it
// (writing the frame to a file): the device copy is already current, so the
// upload only crosses the link again. Where the host changes the buffer in
// one branch (a rare event), the upload belongs in that branch. The
// copy-back itself is the frame's output and stays silent.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
__global__ void step(float *H, float *U, int N);

void writeFrame(float H[], float U[], int N) {
  FILE *File = fopen("frame.dat", "w");
  for (int I = 0; I < N; ++I)
    fprintf(File, "%g %g\n", H[I], U[I]);
  fclose(File);
}

void addDrop(float H[], int N) { H[rand() % N] += 1.0f; }

void simulate(int Steps, int N) {
  float *H = (float *)malloc(N * sizeof(float));
  float *U = (float *)malloc(N * sizeof(float));
  float *DH, *DU;
  cudaMalloc((void **)&DH, N * sizeof(float));
  cudaMalloc((void **)&DU, N * sizeof(float));
  for (int K = 0; K < Steps; ++K) {
    step<<<N / 256, 256>>>(DH, DU, N);
    cudaMemcpy(H, DH, N * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(U, DU, N * sizeof(float), cudaMemcpyDeviceToHost);
    if (K % 50 == 0)
      addDrop(H, N);
    writeFrame(H, U, N);
    cudaMemcpy(DH, H, N * sizeof(float), cudaMemcpyHostToDevice);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies 'H' to the GPU on every iteration of the loop at line 29, but 'H' holds what line 31 copied back from 'DH' and the host changes it only in the branch at line 33: upload it there [xfer-copy-in-loop]
    // XFER-NOTE: :29:3: note: loop starts here
    cudaMemcpy(DU, U, N * sizeof(float), cudaMemcpyHostToDevice);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies 'U' to the GPU on every iteration of the loop at line 29, but 'U' holds what line 32 copied back from 'DU' and the host does not change it: the device copy is current, drop the upload [xfer-copy-in-loop]
    // XFER-NOTE: :29:3: note: loop starts here
  }
}

// The upload at the top of the iteration returns what the end of the last
// one copied back.
void simulateUploadFirst(int Steps, int N) {
  float *H = (float *)malloc(N * sizeof(float));
  float *DH;
  cudaMalloc((void **)&DH, N * sizeof(float));
  for (int K = 0; K < Steps; ++K) {
    cudaMemcpy(DH, H, N * sizeof(float), cudaMemcpyHostToDevice);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies 'H' to the GPU on every iteration of the loop at line 51, but 'H' holds what line 56 copied back from 'DH' and the host does not change it: the device copy is current, drop the upload [xfer-copy-in-loop]
    // XFER-NOTE: :51:3: note: loop starts here
    step<<<N / 256, 256>>>(DH, DH, N);
    cudaMemcpy(H, DH, N * sizeof(float), cudaMemcpyDeviceToHost);
    writeFrame(H, H, N);
  }
}

// Negatives.
void relax(float H[], int N) {
  for (int I = 1; I < N; ++I)
    H[I] = 0.5f * (H[I] + H[I - 1]);
}

void hostChangesEveryStep(int Steps, int N) {
  float *H = (float *)malloc(N * sizeof(float));
  float *DH;
  cudaMalloc((void **)&DH, N * sizeof(float));
  for (int K = 0; K < Steps; ++K) {
    step<<<N / 256, 256>>>(DH, DH, N);
    cudaMemcpy(H, DH, N * sizeof(float), cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 71: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :71:3: note: loop starts here
    // Host work on every step through a function that writes the buffer:
    // a hybrid algorithm's round trip, whose copy-back is the finding; the
    // upload after it is new data.
    relax(H, N);
    cudaMemcpy(DH, H, N * sizeof(float), cudaMemcpyHostToDevice);
  }
}

void kernelBetween(int Steps, int N) {
  float *H = (float *)malloc(N * sizeof(float));
  float *DH;
  cudaMalloc((void **)&DH, N * sizeof(float));
  for (int K = 0; K < Steps; ++K) {
    cudaMemcpy(H, DH, N * sizeof(float), cudaMemcpyDeviceToHost);
    step<<<N / 256, 256>>>(DH, DH, N);
    // Restores the state before the kernel: the upload changes the device.
    cudaMemcpy(DH, H, N * sizeof(float), cudaMemcpyHostToDevice);
  }
}

void otherDeviceBuffer(int Steps, int N) {
  float *H = (float *)malloc(N * sizeof(float));
  float *DH, *DNext;
  cudaMalloc((void **)&DH, N * sizeof(float));
  cudaMalloc((void **)&DNext, N * sizeof(float));
  for (int K = 0; K < Steps; ++K) {
    step<<<N / 256, 256>>>(DH, DNext, N);
    cudaMemcpy(H, DNext, N * sizeof(float), cudaMemcpyDeviceToHost);
    writeFrame(H, H, N);
    cudaMemcpy(DH, H, N * sizeof(float), cudaMemcpyHostToDevice);
  }
}

// The host rescales the state under a branch, in a loop of its own: a
// round trip whose host work belongs on the device (the copy-back is the
// finding).
void changedInEveryBranchOfALoop(int Steps, int N) {
  float *H = (float *)malloc(N * sizeof(float));
  float *DH;
  cudaMalloc((void **)&DH, N * sizeof(float));
  for (int K = 0; K < Steps; ++K) {
    step<<<N / 256, 256>>>(DH, DH, N);
    cudaMemcpy(H, DH, N * sizeof(float), cudaMemcpyDeviceToHost);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMemcpy' copies device memory to the host on every iteration of the loop at line 116: the copy waits for all queued device work and crosses the host link each time [xfer-copy-in-loop]
    // XFER-NOTE: :116:3: note: loop starts here
    if (K > 0)
      for (int I = 0; I < N; ++I)
        H[I] *= 0.99f;
    cudaMemcpy(DH, H, N * sizeof(float), cudaMemcpyHostToDevice);
  }
}
