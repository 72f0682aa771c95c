// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
#include <cuda_runtime.h>
#include <cstdio>

__global__ void stepKernel(float *Data);
void launchWork(float *Data, int N);

// A wait that another wait precedes on every path, with no device work
// queued in between, waits for nothing: only the first is a finding.
void waitAfterWait(float *Data, int Steps) {
  for (int Step = 0; Step < Steps; ++Step) {
    stepKernel<<<1, 1>>>(Data);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 12: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    std::printf("step %d\n", Step);
    cudaDeviceSynchronize();
  }
}

// Predictor-corrector passes: the wait opening each pass follows the first
// pass's wait, the previous pass's closing wait, or the wait before the
// loops, on every path; the pass's own waits after kernels are findings.
void passes(float *Data, int Steps) {
  stepKernel<<<1, 1>>>(Data);
  cudaDeviceSynchronize();
  for (int Step = 0; Step < Steps; ++Step) {
    for (int Pass = 0; Pass < 2; ++Pass) {
      if (Pass == 0) {
        stepKernel<<<1, 1>>>(Data);
        cudaDeviceSynchronize();
        // XFER-WARNING: :[[@LINE-1]]:9: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 28: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
        // XFER-NOTE: :28:3: note: loop starts here
      }
      cudaDeviceSynchronize();
      stepKernel<<<1, 1>>>(Data);
      cudaDeviceSynchronize();
      // XFER-WARNING: :[[@LINE-1]]:7: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on each of 2 iterations of the loop at line 29: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // XFER-NOTE: :29:5: note: loop starts here
    }
    cudaDeviceSynchronize();
  }
}

// Positives: work queued on one path (the branch launches), or by a
// function that may queue work, before the second wait.
void workOnSomePath(float *Data, int Steps, bool Extra) {
  for (int Step = 0; Step < Steps; ++Step) {
    stepKernel<<<1, 1>>>(Data);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 49: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    if (Extra)
      stepKernel<<<1, 1>>>(Data);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 49: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-9]]:3: note: loop starts here
    launchWork(Data, 16);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 49: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-13]]:3: note: loop starts here
  }
}

// Copies are work a wait waits for: the stream waits after the copies
// queued since the last device-wide wait are findings.
void waitsForCopies(int *P, int Num, int Steps) {
  for (int S = 0; S < Steps; ++S) {
    launchWork(nullptr, Num);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 69: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    cudaStream_t Streams[4];
    for (int I = 1; I < 4; I++) {
      cudaStreamCreate(&Streams[I]);
      cudaMemcpyAsync(P + Num * I, P, Num * sizeof(int),
                      cudaMemcpyDeviceToDevice, Streams[I]);
    }
    for (int I = 1; I < 4; I++) {
      cudaStreamSynchronize(Streams[I]);
      // XFER-WARNING: :[[@LINE-1]]:7: warning: 'cudaStreamSynchronize' synchronizes with the GPU on each of 3 iterations of the loop at line 80: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
      // XFER-NOTE: :[[@LINE-3]]:5: note: loop starts here
      cudaStreamDestroy(Streams[I]);
    }
  }
}

// A wait for one stream is covered only by a wait for the device or for the
// same stream: waiting on stream 0 leaves stream 1's work running.
void waitsPerStream(int *P, int Num, int Steps, cudaStream_t *Streams) {
  for (int S = 0; S < Steps; ++S) {
    launchWork(nullptr, Num);
    cudaStreamSynchronize(Streams[0]);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaStreamSynchronize' synchronizes with the GPU on every iteration of the loop at line 92: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-4]]:3: note: loop starts here
    cudaStreamSynchronize(Streams[1]);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaStreamSynchronize' synchronizes with the GPU on every iteration of the loop at line 92: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-7]]:3: note: loop starts here
    cudaStreamSynchronize(Streams[1]); // the same stream again: nothing left
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 92: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :[[@LINE-11]]:3: note: loop starts here
  }
}

// An error-check helper that starts with a device-wide wait covers a wait
// right after its call: the second waits for nothing.
void checkStage(const char *Stage) {
  cudaDeviceSynchronize();
  cudaError_t Status = cudaGetLastError();
  if (Status == cudaSuccess)
    return;
  std::printf("%s failed\n", Stage);
}

void bounces(float *Data, int Depth) {
  for (int D = 0; D < Depth; ++D) {
    launchWork(Data, 1024);
    checkStage("bounce");
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'checkStage()' synchronizes with the GPU on every iteration of the loop at line 118: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :118:3: note: loop starts here
    // XFER-NOTE: :110:3: note: 'cudaDeviceSynchronize' synchronizes with the GPU here
    cudaDeviceSynchronize();
  }
}

// An output branch taken on every iteration (`c % 1 == 0`, a period of 1):
// the wait before it is beside the copy inside it. With a real period the
// wait is a finding of its own.
void writeEveryStep(float *Device, float *Host, int Steps) {
  int Written = 0;
  for (int S = 0; S < Steps; ++S) {
    launchWork(Device, 1024);
    cudaDeviceSynchronize();
    if (Written % 1 == 0) {
      cudaMemcpy(Host, Device, 4096, cudaMemcpyDeviceToHost);
      std::printf("%f\n", Host[0]);
    }
    ++Written;
    launchWork(Device, 1024);
    cudaDeviceSynchronize();
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaDeviceSynchronize' synchronizes with the GPU on every iteration of the loop at line 133: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :133:3: note: loop starts here
    if (Written % 10 == 0) {
      cudaMemcpy(Host, Device, 4096, cudaMemcpyDeviceToHost);
      std::printf("%f\n", Host[0]);
    }
  }
}

// Waits on the program's own streams before work on the legacy default
// stream hand the stage on (a pipeline hand-off, acceptable); the same
// waits before more work on those streams stall the host for nothing.
__global__ void stage(float *Data);
void blurOnDefaultStream(float *Data) { stage<<<1, 32>>>(Data); }
void handOff(float *Data, cudaStream_t *Streams, int Frames) {
  for (int F = 0; F < Frames; ++F) {
    stage<<<1, 32, 0, Streams[0]>>>(Data);
    stage<<<1, 32, 0, Streams[1]>>>(Data);
    cudaStreamSynchronize(Streams[0]);
    cudaStreamSynchronize(Streams[1]);
    blurOnDefaultStream(Data);
  }
  for (int F = 0; F < Frames; ++F) {
    stage<<<1, 32, 0, Streams[0]>>>(Data);
    cudaStreamSynchronize(Streams[0]);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaStreamSynchronize' synchronizes with the GPU on every iteration of the loop at line 165: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :165:3: note: loop starts here
    stage<<<1, 32, 0, Streams[1]>>>(Data);
  }
}

// Thrust hands on the same way: a device_vector made with a size and an
// algorithm without a stream policy run on the default stream; one whose
// policy names the waited stream runs after the wait anyway.
#include <thrust/copy.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
void thrustHandOff(unsigned char *Device, unsigned char *Host, int N,
                   cudaStream_t *Streams, int Frames) {
  thrust::device_ptr<unsigned char> In(Device);
  for (int F = 0; F < Frames; ++F) {
    cudaMemcpyAsync(Device, Host, N, cudaMemcpyHostToDevice, Streams[0]);
    cudaStreamSynchronize(Streams[0]);
    thrust::device_vector<unsigned char> Planes(N);
    // XFER-WARNING: :[[@LINE-1]]:42: warning: 'Planes' synchronizes with the GPU when it is created and when it goes out of scope on every iteration of the loop at line 183: the host waits for all queued device work; create it once before the loop and reuse it [xfer-sync-in-loop]
    // XFER-NOTE: :183:3: note: loop starts here
    thrust::copy(In, In + N, Planes.begin());
  }
  for (int F = 0; F < Frames; ++F) {
    cudaMemcpyAsync(Device, Host, N, cudaMemcpyHostToDevice, Streams[0]);
    cudaStreamSynchronize(Streams[0]);
    thrust::copy(In, In + N, In + N);
  }
  for (int F = 0; F < Frames; ++F) {
    cudaMemcpyAsync(Device, Host, N, cudaMemcpyHostToDevice, Streams[0]);
    cudaStreamSynchronize(Streams[0]);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaStreamSynchronize' synchronizes with the GPU on every iteration of the loop at line 196: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :196:3: note: loop starts here
    thrust::copy(thrust::cuda::par.on(Streams[0]), In, In + N, In + N);
  }
}

// An error-check macro's block between the wait and the copy queues no
// device work: the wait is still beside the copy.
#define CHECK_LAST_ERROR()                                                     \
  {                                                                            \
    cudaError_t Error = cudaGetLastError();                                    \
    if (Error != cudaSuccess) {                                                \
      std::printf("%s\n", cudaGetErrorString(Error));                          \
      return;                                                                  \
    }                                                                          \
  }
void countPerImage(float *Device, int Images) {
  int *DeviceCount = nullptr;
  cudaMalloc((void **)&DeviceCount, sizeof(int));
  int Count = 0;
  for (int I = 0; I < Images; ++I) {
    stepKernel<<<1, 32>>>(Device);
    cudaDeviceSynchronize();
    CHECK_LAST_ERROR();
    cudaMemcpy(&Count, DeviceCount, sizeof(int), cudaMemcpyDeviceToHost);
    std::printf("%d\n", Count);
  }
}
