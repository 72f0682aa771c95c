// XFER-ARGS: -x cuda --cuda-host-only -nocudainc -nocudalib -isystem %include
// XFER-CHECKS: -*,xfer-sync-in-loop
// XFER-CONFIG: {CheckOptions: {CostNotes: false, xfer-sync-in-loop.ReportOutputReadBacks: true}}
// With ReportOutputReadBacks, the wait that completes an asynchronous copy
// of the frame's product is reported, with a note saying it may be
// necessary.
#include <cuda_runtime.h>

__global__ void blurPlane(const unsigned char *In, unsigned char *Out, int N);
void drawFrame(const unsigned char *Pixels, int N);

void blurFrames(unsigned char *HostOut, unsigned char *DeviceIn,
                unsigned char *DeviceOut, int N, int Frames,
                cudaStream_t Stream) {
  for (int F = 0; F < Frames; ++F) {
    blurPlane<<<N / 256, 256, 0, Stream>>>(DeviceIn, DeviceOut, N);
    cudaMemcpyAsync(HostOut, DeviceOut, N, cudaMemcpyDeviceToHost, Stream);
    cudaStreamSynchronize(Stream);
    // XFER-WARNING: :[[@LINE-1]]:5: warning: 'cudaStreamSynchronize' synchronizes with the GPU on every iteration of the loop at line 15: the host waits for all queued device work, so CPU and GPU stop overlapping [xfer-sync-in-loop]
    // XFER-NOTE: :15:3: note: loop starts here
    // XFER-NOTE: :[[@LINE-3]]:5: note: the wait completes an asynchronous copy whose result the host uses in the same iteration: if it is the result the program needs, the wait is necessary
    drawFrame(HostOut, N);
  }
}
