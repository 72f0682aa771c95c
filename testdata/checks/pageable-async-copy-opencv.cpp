// XFER-ARGS: -isystem %include
// XFER-CHECKS: -*,xfer-pageable-async-copy
// An OpenCV image's pixels are pageable host memory: an asynchronous copy
// from or to them is staged and does not overlap host work.
#include <cuda_runtime.h>
#include <opencv2/core.hpp>

// Through a helper whose callers pass the image's pixels.
void uploadFrame(unsigned char *Device, unsigned char *Host, size_t Bytes,
                 cudaStream_t Stream) {
  cudaMemcpyAsync(Device, Host, Bytes, cudaMemcpyHostToDevice, Stream);
  // XFER-WARNING: :[[@LINE-1]]:3: warning: 'cudaMemcpyAsync' copies from pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only after the host data has been copied out, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
}

void processFrames(cv::Mat &Frame, cv::Mat &Result, unsigned char *Device,
                   cudaStream_t Stream, int Frames) {
  for (int I = 0; I < Frames; ++I) {
    uploadFrame(Device, Frame.data, Frame.total(), Stream);
    cudaMemcpyAsync(Result.ptr<unsigned char>(0), Device, Result.total(),
                    cudaMemcpyDeviceToHost, Stream);
    // XFER-WARNING: :[[@LINE-2]]:5: warning: 'cudaMemcpyAsync' copies into pageable host memory, so it is not asynchronous: the driver stages the data through a pinned bounce buffer and the call returns only once the data has reached host memory, so the copy does not overlap host work; allocate the buffer with cudaMallocHost or register it with cudaHostRegister [xfer-pageable-async-copy]
  }
}

// Pixels in pinned memory the program allocated are not pageable.
void pinnedPixels(unsigned char *Device, cudaStream_t Stream, size_t Bytes) {
  unsigned char *Pinned = nullptr;
  cudaMallocHost((void **)&Pinned, Bytes);
  cudaMemcpyAsync(Device, Pinned, Bytes, cudaMemcpyHostToDevice, Stream);
}
