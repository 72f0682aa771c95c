// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false}}
// A wait that completes an asynchronous copy of the product the host uses
// (a frame's planes copied back on a stream, then drawn) is part of that
// copy: as necessary as a blocking copy of the same product, silent unless
// ReportOutputReadBacks. A wait after an asynchronous copy the host only
// prints, or after device work alone, stays a finding.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void blurPlane(const unsigned char *In, unsigned char *Out, int N);
void drawFrame(const unsigned char *Pixels, int N);

// Negative: the blurred plane comes back and is drawn on every frame.
void blurFrames(unsigned char *HostIn, unsigned char *HostOut,
                unsigned char *DeviceIn, unsigned char *DeviceOut, int N,
                int Frames, cudaStream_t Stream) {
  for (int F = 0; F < Frames; ++F) {
    cudaMemcpyAsync(DeviceIn, HostIn, N, cudaMemcpyHostToDevice, Stream);
    blurPlane<<<N / 256, 256, 0, Stream>>>(DeviceIn, DeviceOut, N);
    cudaMemcpyAsync(HostOut, DeviceOut, N, cudaMemcpyDeviceToHost, Stream);
    cudaStreamSynchronize(Stream);
    drawFrame(HostOut, N);
  }
}

// Positive: the copied-back value is only printed.
void printProgress(float *HostSum, float *DeviceSum, int Steps,
                   cudaStream_t Stream) {
  for (int Step = 0; Step < Steps; ++Step) {
    blurPlane<<<1, 256, 0, Stream>>>(nullptr, nullptr, 256);
    cudaMemcpyAsync(HostSum, DeviceSum, 64 * sizeof(float),
                    cudaMemcpyDeviceToHost, Stream);
    cudaStreamSynchronize(Stream);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaStreamSynchronize' synchronizes with the GPU on every iteration of the loop at line 31: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :31:3: note: loop starts here
    std::printf("%f\n", HostSum[0]);
  }
}

// Positive: the wait follows device work only; the drawn buffer was copied
// back before the kernel, so the wait does not complete that copy.
void waitAfterKernel(unsigned char *HostOut, unsigned char *DeviceOut, int N,
                     int Frames, cudaStream_t Stream) {
  for (int F = 0; F < Frames; ++F) {
    cudaMemcpyAsync(HostOut, DeviceOut, N, cudaMemcpyDeviceToHost, Stream);
    blurPlane<<<N / 256, 256, 0, Stream>>>(DeviceOut, DeviceOut, N);
    cudaStreamSynchronize(Stream);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaStreamSynchronize' synchronizes with the GPU on every iteration of the loop at line 46: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :46:3: note: loop starts here
    drawFrame(HostOut, N);
  }
}

// Positive: a hybrid scheme's round trip. The host computes its part of the
// domain in the buffer the copy brings back and uploads it again: the wait
// is part of a round trip whose host work belongs on the device.
__global__ void sweep(float *Field, int N);
void computeHostPart(float *Edge, int N);
void hybridPasses(float *HostEdge, float *DeviceEdge, int N, int Steps,
                  cudaStream_t Stream) {
  for (int Step = 0; Step < Steps; ++Step) {
    sweep<<<N / 256, 256, 0, Stream>>>(DeviceEdge, N);
    cudaMemcpyAsync(HostEdge, DeviceEdge, N * sizeof(float),
                    cudaMemcpyDeviceToHost, Stream);
    cudaStreamSynchronize(Stream);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaStreamSynchronize' synchronizes with the GPU on every iteration of the loop at line 63: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :63:3: note: loop starts here
    computeHostPart(HostEdge, N);
    cudaMemcpyAsync(DeviceEdge, HostEdge, N * sizeof(float),
                    cudaMemcpyHostToDevice, Stream);
  }
}
