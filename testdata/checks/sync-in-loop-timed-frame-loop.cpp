// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// A loop between two clock readings repeats its work to time it, unless
// each iteration reads new input: a video's frames processed and timed as a
// whole for a frame rate are the application's loop, whose per-frame
// allocations are findings. The same work repeated a fixed number of times
// between the readings is a benchmark.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>

struct Frame {
  float *Pixels;
  bool empty() const;
};
struct VideoCapture {
  VideoCapture &operator>>(Frame &F);
};
__global__ void match(const float *Frame, float *Scores, int N);

void trackVideo(VideoCapture &Capture, float *HostScores, int N) {
  Frame Current;
  auto Start = std::chrono::steady_clock::now();
  while (true) {
    Capture >> Current;
    if (Current.empty())
      break;
    float *DeviceFrame = nullptr;
    cudaMalloc((void **)&DeviceFrame, N * sizeof(float));
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaMalloc' synchronizes with the GPU on every iteration of the loop at line 25: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :25:3: note: loop starts here
    match<<<N / 256, 256>>>(DeviceFrame, DeviceFrame, N);
    cudaFree(DeviceFrame);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaFree' synchronizes with the GPU on every iteration of the loop at line 25: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :25:3: note: loop starts here
  }
  auto End = std::chrono::steady_clock::now();
  std::printf("%f s\n", std::chrono::duration<double>(End - Start).count());
}

void benchmarkMatch(float *DeviceFrame, int N) {
  auto Start = std::chrono::steady_clock::now();
  for (int Run = 0; Run < 100; ++Run) {
    match<<<N / 256, 256>>>(DeviceFrame, DeviceFrame, N);
    cudaDeviceSynchronize();
  }
  auto End = std::chrono::steady_clock::now();
  std::printf("%f s\n", std::chrono::duration<double>(End - Start).count());
}
